// What `analyze` produces: the loaded traces and, per rank, every analysis result. Renderers
// read this; they compute nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "stepscope/analysis/hta/hta_report.h"
#include "stepscope/analysis/rank_analyses.h"
#include "stepscope/diagnosis/diagnose.h"
#include "stepscope/job/job_analysis.h"
#include "stepscope/load.h"
#include "stepscope/report.h"

namespace stepscope {

// A rank's parts of the JSON document and of the HTML report, rendered on their own.
struct RenderedRank {
  std::int64_t rank = 0;
  std::string json;  // its object in the document's `ranks` array
  std::string html;  // its section of the HTML page
  std::string text;  // its terminal report; rendered with --per-rank only
  // Its diagnosis' findings, kept as data so that front ends need not parse `json` back.
  std::vector<Finding> findings;
};

// The trace behind `analyses.trace` is owned by Report::traces.
struct RankReport {
  RankAnalyses analyses;
  Diagnosis diagnosis;
};

struct Report {
  AnalyzeRequest request;
  TraceSet traces;  // empty of ranks when the folder was streamed (see `rendered`)
  std::vector<std::string> input_files;  // every trace analysed, in rank order
  std::vector<RankReport> ranks;         // empty when the folder was streamed
  // A folder is analysed one trace at a time; every rank is in `job`, and the ranks kept in full
  // (every rank with --per-rank; else the lowest and those computing longest) were rendered
  // before their traces were dropped.
  std::vector<RenderedRank> rendered;
  std::optional<hta::HtaReport> hta;    // --mode compat-hta: HTA's figures over all ranks
  std::optional<job::JobAnalysis> job;  // a folder of several ranks: the job-level analysis
  double load_seconds = 0;
  double analysis_seconds = 0;
};

// One rank rendered as render_json and render_html would render it inside the whole report.
std::string render_rank_json(const RankReport& rank);
std::string render_rank_html(const RankReport& rank, int top, bool several);
std::string render_rank_text(const RankReport& rank, int top, std::size_t width);

}  // namespace stepscope
