#include "memory_command.h"

#include <fmt/core.h>

#include <chrono>

#include "progress.h"
#include "stepscope/output_check.h"
#include "stepscope/report.h"
#include "stepscope/snapshot_report.h"

namespace stepscope::cli {

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

void add_memory_command(CLI::App& app, MemoryArguments& a) {
  CLI::App* command = app.add_subcommand(
      "memory",
      "Analyze a CUDA memory snapshot (torch.cuda.memory._dump_snapshot(), .pickle or .gz)");
  command->add_option("SNAPSHOT", a.path, "snapshot file")->required();
  command->add_option("--json", a.json_output, "write every figure as JSON to FILE ('-': stdout)");
  command->add_option("--top", a.top, "rows in top-N tables")->check(CLI::Range(1, 100000));
  command->add_flag("-q,--quiet", a.quiet, "no progress and no terminal report");
}

int run_memory(const MemoryArguments& a) {
  if (Status s = check_output_paths({a.path}, {{"--json", a.json_output}}); !s) {
    fmt::print(stderr, "stepscope: error: {}\n", s.error().describe());
    return 2;
  }
  const auto load_start = std::chrono::steady_clock::now();
  Progress progress(!a.quiet && stderr_is_terminal(), "reading");
  Result<MemorySnapshot> snapshot = load_memory_snapshot(
      a.path,
      [&progress](std::uint64_t done, std::uint64_t total) { progress.update(done, total); });
  progress.finish();
  if (!snapshot) {
    fmt::print(stderr, "stepscope: error: {}\n", snapshot.error().describe());
    return 2;
  }
  const double load_seconds = seconds_since(load_start);
  const auto analysis_start = std::chrono::steady_clock::now();
  SnapshotReport report = analyze_memory_snapshot(*snapshot, a.top);
  report.load_seconds = load_seconds;
  report.analysis_seconds = seconds_since(analysis_start);
  if (!a.json_output.empty()) {
    if (Status s = write_output_file(a.json_output, render_snapshot_json(report, a.top)); !s) {
      fmt::print(stderr, "stepscope: error: {}\n", s.error().describe());
      return 2;
    }
  }
  if (!a.quiet && a.json_output != "-") fmt::print("{}", render_snapshot_text(report, a.top));
  return 0;
}

}  // namespace stepscope::cli
