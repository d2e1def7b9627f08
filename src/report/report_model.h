// What `analyze` produces: the loaded traces and, per rank, every analysis result. Renderers
// read this; they compute nothing.
#pragma once

#include <memory>
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

// The trace behind `analyses.trace` is owned by Report::traces.
struct RankReport {
  RankAnalyses analyses;
  Diagnosis diagnosis;
};

struct Report {
  AnalyzeRequest request;
  TraceSet traces;  // empty of ranks when the folder was streamed (see `streamed`)
  // A large folder is analysed one trace at a time and only a few ranks are kept in full (rank 0
  // and those computing longest); their traces live here. Every rank is in `job`.
  std::vector<std::unique_ptr<Trace>> streamed;
  std::vector<std::string> input_files;  // every trace analysed, in rank order
  std::vector<RankReport> ranks;
  std::optional<hta::HtaReport> hta;    // --mode compat-hta: HTA's figures over all ranks
  std::optional<job::JobAnalysis> job;  // a folder of several ranks: the job-level analysis
  double load_seconds = 0;
  double analysis_seconds = 0;
};

}  // namespace stepscope
