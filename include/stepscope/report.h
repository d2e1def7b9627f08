// The analysis entry point shared by the CLI and the Python package: load, analyse every rank,
// and render. Front ends add no logic of their own.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stepscope/analysis/options.h"
#include "stepscope/analysis/what_if.h"
#include "stepscope/diagnosis/finding.h"
#include "stepscope/error.h"
#include "stepscope/load.h"
#include "stepscope/text_options.h"

namespace stepscope {

// Version of the JSON document written by render_json; bumped on incompatible change.
inline constexpr int kJsonSchemaVersion = 2;  // 2: the top-level `job` object

struct AnalyzeRequest {
  std::string path;  // a trace file or a folder of them
  AnalysisOptions analysis;
  LoadOptions load;
  // Folders: ranks analysed at once (0: the core count), the run to analyse (default the
  // newest), and whether the terminal report shows each rank's full report after the job's.
  unsigned jobs = 0;
  std::optional<std::int64_t> run;
  bool per_rank = false;
  // The link's peak bandwidth in GB/s, stated by the user: the job's collective table gives busbw
  // as a share of it (job::JobOptions).
  std::optional<double> link_peak_gb_per_s;
  // A folder is streamed: each trace is loaded, analysed, summarised, rendered and dropped, so
  // that memory holds `jobs` traces at a time (the job reads summaries only). Every rank's
  // rendered report is kept with --per-rank; else that of rank 0 and the ranks computing longest
  // (kRanksKeptInFull in all). false holds every trace at once (diff reads every rank's steps).
  // --rank and --mode compat-hta never stream: the first holds one trace, the second needs all.
  bool stream_folder = true;
  // Called with +1 when a streamed folder's trace is loaded and -1 when it is dropped, from the
  // worker holding it: lets a test check that no more than `jobs` traces are alive at once.
  std::function<void(int)> on_trace_alive;
  // The terminal width of a streamed folder's per-rank reports (--per-rank), rendered before
  // their traces are dropped.
  std::size_t text_width = TextOptions{}.width;
};

// How many ranks of a streamed folder keep their full analyses.
inline constexpr std::size_t kRanksKeptInFull = 4;

struct Report;  // defined in report_model.h; opaque to front ends that only render
struct ReportDeleter {
  void operator()(Report* report) const;
};
using ReportPtr = std::unique_ptr<Report, ReportDeleter>;

// Loads and analyses; errors name the file and, where known, the byte offset.
Result<ReportPtr> analyze(const AnalyzeRequest& request);

// What a front end reads from a report without rendering it.
// The trace file or folder the report was made from (as the request named it).
[[nodiscard]] const std::string& report_input_path(const Report& report);
// The findings of every rank analysed in full (a streamed folder: the ranks kept), in rank
// order; each rank's list in its diagnosis' order (largest likely saving first).
[[nodiscard]] std::vector<Finding> report_findings(const Report& report);

// The first rank analysed in full, its kept steps re-timed under `change` (what_if.h). A
// streamed folder keeps no trace to replay: ask for one rank (--rank) instead.
Result<WhatIfResult> report_what_if(const Report& report, const WhatIfChange& change, int top);

// Renderers.
std::string render_json(const Report& report);
std::string render_what_if_json(const WhatIfResult& result);
// The step before and after, and the top classes of both critical paths.
std::string render_what_if_text(const WhatIfResult& result, const TextOptions& options);
// The terminal report: no line longer than options.width columns.
std::string render_text(const Report& report, const TextOptions& options);
std::string render_text(const Report& report, int top);  // 100 columns
// The self-contained HTML report (inline CSS and SVG; opens offline).
std::string render_html(const Report& report, int top);
// A compact JSON document (as the renderers write it) laid out with `indent` spaces per level,
// one member or element per line, "key": value; indent 0 returns it unchanged.
std::string indent_json(std::string_view json, int indent);
// The diagnosis rule catalogue as JSON.
std::string render_rule_catalogue_json();
// The diagnosis rule catalogue as the Markdown page docs/rules.md (generated, never hand-edited).
std::string render_rule_catalogue_markdown();

// Writes `content` to `path` through a temporary file renamed into place, so that a failure
// never leaves a partial file that looks complete. "-" writes to standard output.
Status write_output_file(const std::string& path, const std::string& content);

}  // namespace stepscope
