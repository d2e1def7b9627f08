#include "report/report_model.h"
#include "stepscope/report.h"

namespace stepscope {

Result<WhatIfResult> report_what_if(const Report& report, const WhatIfChange& change, int top) {
  if (report.ranks.empty()) {
    Error error = make_error(ErrorKind::kBadOption,
                             "a folder of several ranks keeps no trace to replay: choose one "
                             "with --rank");
    error.file = report.request.path;
    return error;
  }
  const RankAnalyses& rank = report.ranks.front().analyses;
  const auto rows = static_cast<std::size_t>(top);
  // A trace without profiler steps is diagnosed over inferred iterations (diagnose.h): replay
  // those, as the findings' gains do.
  if (!rank.step_models.runs.empty() || rank.options.mode != Mode::kNative ||
      !rank.steps.steps.empty()) {
    return what_if(*rank.trace, rank.step_models, change, rows);
  }
  AnalysisOptions options = rank.options;
  options.infer_iterations = true;
  const RankAnalyses inferred = analyze_rank(*rank.trace, options);
  return what_if(*inferred.trace, inferred.step_models, change, rows);
}

}  // namespace stepscope
