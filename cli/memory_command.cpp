#include "memory_command.h"

#include <fmt/format.h>

#include <chrono>
#include <memory>
#include <string>

#include "common.h"
#include "stepscope/output_check.h"
#include "stepscope/snapshot_report.h"
#include "terminal_width.h"

namespace stepscope::cli {

namespace {

struct MemoryArguments {
  std::string path;
  std::string json_output;  // "" none, "-" stdout
  int top = 10;
  std::size_t width = 0;  // --width; 0: ask the terminal
  bool quiet = false;
  bool no_report = false;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int run_memory(const MemoryArguments& a) {
  if (Status s = check_output_paths({a.path}, {{"--json", a.json_output}}); !s)
    return fail(s.error());
  const auto load_start = std::chrono::steady_clock::now();
  LoadProgress progress(a.quiet, "reading");
  Result<MemorySnapshot> snapshot = load_memory_snapshot(a.path, progress.callback());
  progress.finish();
  if (!snapshot) return fail(snapshot.error());
  const double load_seconds = seconds_since(load_start);
  const auto analysis_start = std::chrono::steady_clock::now();
  SnapshotReport report = analyze_memory_snapshot(*snapshot, a.top);
  report.load_seconds = load_seconds;
  report.analysis_seconds = seconds_since(analysis_start);
  if (!a.json_output.empty() && !write_output(a.json_output, render_snapshot_json(report, a.top))) {
    return kExitBadInput;
  }
  if (!a.no_report && a.json_output != "-")
    fmt::print("{}", render_snapshot_text(report, TextOptions{a.top, report_width(a.width)}));
  return kExitOk;
}

}  // namespace

void register_memory_command(CLI::App& app, int& exit_status) {
  auto a = std::make_shared<MemoryArguments>();
  CLI::App* command = app.add_subcommand(
      "memory", "Analyze a CUDA memory snapshot (torch.cuda.memory._dump_snapshot())");
  command->add_option("SNAPSHOT", a->path, "snapshot file")->required();
  add_top_option(*command, a->top);
  add_width_option(*command, a->width);
  add_json_option(*command, a->json_output, "every figure");
  add_quiet_flag(*command, a->quiet, "no progress bar");
  add_no_report_flag(*command, a->no_report);
  command->footer(
      "Examples:\n"
      "  stepscope memory snapshot.pickle\n"
      "  stepscope memory snapshot.pickle --top 20 --json memory.json");
  command->callback([a, &exit_status] { exit_status = run_memory(*a); });
}

}  // namespace stepscope::cli
