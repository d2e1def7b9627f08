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
  return what_if(*rank.trace, rank.step_models, change, static_cast<std::size_t>(top));
}

}  // namespace stepscope
