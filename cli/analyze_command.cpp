#include "analyze_command.h"

#include <fmt/core.h>

#include <charconv>
#include <filesystem>

#include "progress.h"
#include "stepscope/annotate.h"
#include "stepscope/output_check.h"
#include "stepscope/report.h"

namespace stepscope::cli {

namespace {

constexpr int kExitBadInput = 2;

std::optional<StepRange> parse_step_range(const std::string& text) {
  const std::size_t colon = text.find(':');
  if (colon == std::string::npos) return std::nullopt;
  StepRange range;
  auto parse = [](std::string_view part, std::int64_t& out) {
    const auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), out);
    return error == std::errc() && end == part.data() + part.size() && !part.empty();
  };
  const std::string_view whole = text;
  if (!parse(whole.substr(0, colon), range.first) || !parse(whole.substr(colon + 1), range.last) ||
      range.first > range.last) {
    return std::nullopt;
  }
  return range;
}

int fail(const std::string& message) {
  fmt::print(stderr, "stepscope: error: {}\n", message);
  return kExitBadInput;
}

// Checked before loading, so that a mistake costs no analysis time.
std::optional<std::string> check_annotate(const AnalyzeArguments& a) {
  if (a.annotate_output.empty()) return std::nullopt;
  if (a.annotate_output == "-") return "--annotate needs a file name, not '-'";
  std::error_code error;
  if (std::filesystem::is_directory(a.path, error)) {
    return a.path + ": --annotate takes a single trace file, not a folder";
  }
  return std::nullopt;
}

}  // namespace

void add_analysis_options(CLI::App& command, AnalyzeArguments& a) {
  command.add_option("PATH", a.path, "trace file or folder")->required();
  command.add_option("--rank", a.rank, "analyze only this rank");
  command.add_option("--steps", a.steps, "analyze only kept steps FIRST:LAST (inclusive)");
  command.add_option("--top", a.top, "rows in top-N tables")->check(CLI::Range(1, 100000));
  command.add_option("--mode", a.mode, "native (default), compat-hta or compat-tb")
      ->check(CLI::IsMember({"native", "compat-hta", "compat-tb"}));
  command
      .add_option("--threads", a.threads,
                  "1: one thread; 2: split, parse and build in parallel (default: by size)")
      ->check(CLI::Range(1, 2));
  command.add_flag("--group-by-shape", a.group_by_input_shape,
                   "operator table per input shape as well as per name");
  command.add_flag("--no-hta-rounding", a.no_hta_rounding,
                   "compat-hta: keep exact nanoseconds instead of HTA's µs rounding");
  command.add_flag("--skip-bad", a.skip_bad, "folder: skip files that fail to load, and list them");
  command.add_flag("-q,--quiet", a.quiet, "no progress and no terminal report");
  command.add_option("--jobs", a.jobs, "folder: ranks analysed in parallel (default: core count)")
      ->check(CLI::Range(1, 4096));
  command.add_option("--run", a.run, "folder of several runs: analyse run N (0: the oldest)");
  command.add_flag("--per-rank", a.per_rank, "folder: each rank's full report after the job's");
}

void add_analyze_command(CLI::App& app, AnalyzeArguments& a) {
  CLI::App* command = app.add_subcommand(
      "analyze", "Analyze a trace file (.json, .json.gz) or a folder with one trace per rank");
  add_analysis_options(*command, a);
  command->add_option("--json", a.json_output, "write every figure as JSON to FILE ('-': stdout)");
  command->add_option("--annotate", a.annotate_output,
                      "write the trace with the findings as markers to FILE (.json or .json.gz; "
                      "a single trace file only)");
}

ReportPtr analyze_with_progress(const AnalyzeArguments& a) {
  AnalyzeRequest request;
  request.path = a.path;
  request.analysis.mode = parse_mode(a.mode).value_or(Mode::kNative);
  request.analysis.top = a.top;
  request.analysis.group_by_input_shape = a.group_by_input_shape;
  request.analysis.hta_rounding = !a.no_hta_rounding;
  if (!a.steps.empty()) {
    request.analysis.steps = parse_step_range(a.steps);
    if (!request.analysis.steps) {
      fail("--steps wants FIRST:LAST, e.g. 3:10");
      return nullptr;
    }
  }
  request.load.rank = a.rank;
  request.jobs = a.jobs;
  request.run = a.run;
  request.per_rank = a.per_rank;
  request.load.skip_bad = a.skip_bad;
  request.load.threads = a.threads;
  Progress progress(!a.quiet && stderr_is_terminal(), "loading");
  request.load.progress = [&progress](std::uint64_t done, std::uint64_t total) {
    progress.update(done, total);
  };
  Result<ReportPtr> report = analyze(request);
  progress.finish();
  if (!report) {
    fail(report.error().describe());
    return nullptr;
  }
  return std::move(report).value();
}

int run_analyze(const AnalyzeArguments& a) {
  if (const auto problem = check_annotate(a)) return fail(*problem);
  if (Status s = check_output_paths({a.path},
                                    {{"--json", a.json_output}, {"--annotate", a.annotate_output}});
      !s) {
    return fail(s.error().describe());
  }
  ReportPtr report = analyze_with_progress(a);
  if (!report) return kExitBadInput;
  if (!a.json_output.empty()) {
    if (Status s = write_output_file(a.json_output, render_json(*report)); !s) {
      return fail(s.error().describe());
    }
  }
  if (!a.annotate_output.empty()) {
    if (Status s = write_annotated_report(*report, a.annotate_output); !s) {
      return fail(s.error().describe());
    }
  }
  if (!a.quiet && a.json_output != "-") fmt::print("{}", render_text(*report, a.top));
  return 0;
}

}  // namespace stepscope::cli
