// What every `stepscope` subcommand shares, declared once: exit codes, the one place that prints
// an error, the output and progress options, and the options that choose what is analysed (for
// `analyze`, `report` and `diff` alike). A subcommand adds its own positional arguments and
// flags on top and registers itself with a CLI11 callback (see register_*_command).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "progress.h"
#include "stepscope/analysis/options.h"
#include "stepscope/error.h"
#include "stepscope/load.h"

namespace stepscope::cli {

// Exit status of the `stepscope` command.
inline constexpr int kExitOk = 0;
inline constexpr int kExitInternal = 1;  // an unexpected internal failure (a bug)
inline constexpr int kExitBadInput = 2;  // bad input, bad options or usage
inline constexpr int kExitSlower = 3;    // `diff --fail-if-slower`: slower beyond the threshold

// `text` with control characters (C0, DEL, C1) written as \xNN, so that a file name or message
// from an input cannot move the cursor or recolour the terminal.
[[nodiscard]] std::string printable(std::string_view text);

// Prints "stepscope: error: MESSAGE" (made printable) on standard error; returns kExitBadInput.
int fail(std::string_view message);
int fail(const Error& error);

// Writes `content` to `path` ('-': standard output) through the atomic writer; on failure prints
// the error and returns false.
bool write_output(const std::string& path, const std::string& content);

// --json FILE, --top N and -q/--quiet, with one wording everywhere.
void add_json_option(CLI::App& command, std::string& path, std::string_view what);
void add_top_option(CLI::App& command, int& top);
void add_quiet_flag(CLI::App& command, bool& quiet, std::string_view what);
// --no-report: no terminal report; the files asked for (--json, --html, -o) are still written.
void add_no_report_flag(CLI::App& command, bool& no_report);

// A progress bar on standard error for loading: shown only on a terminal and without --quiet.
class LoadProgress {
 public:
  LoadProgress(bool quiet, std::string label);
  // The callback to hand to the library; valid while this object lives.
  [[nodiscard]] ProgressCallback callback();
  void finish() { bar_.finish(); }

 private:
  Progress bar_;
};

// The options that choose what is analysed and how; no positional PATH, so that commands with
// one input (`analyze`, `report`) and with two (`diff`) share them.
struct AnalysisArguments {
  std::optional<std::int64_t> rank;
  std::string steps;  // "FIRST:LAST"; empty: all kept steps
  std::string mode = "native";
  unsigned threads = 0;  // 0: by input size
  bool group_by_input_shape = false;
  bool no_hta_rounding = false;
  bool skip_bad = false;
};

// How `analyze` and `report` treat a folder of ranks as one job. `diff` compares the two runs'
// step times and tables, so it takes none of these.
struct FolderReportArguments {
  unsigned jobs = 0;                // folder: ranks analysed at once; 0: the core count
  std::optional<std::int64_t> run;  // folder of several runs: which one
  bool per_rank = false;            // folder: each rank's full report after the job's
  std::optional<double> link_gbps;  // folder: the link's peak, GB/s
};

// --link-gbps, on `analyze`/`report` (folders) and `merge`.
void add_link_option(CLI::App& command, std::optional<double>& link_gbps);

void add_analysis_options(CLI::App& command, AnalysisArguments& arguments);
void add_folder_report_options(CLI::App& command, FolderReportArguments& arguments);

// Fills the library's options from the arguments; a bad --steps is a kBadOption error.
Status apply_analysis_options(const AnalysisArguments& arguments, int top,
                              AnalysisOptions& analysis, LoadOptions& load);

// "FIRST:LAST" (inclusive, FIRST <= LAST), or nullopt.
[[nodiscard]] std::optional<StepRange> parse_step_range(std::string_view text);

}  // namespace stepscope::cli
