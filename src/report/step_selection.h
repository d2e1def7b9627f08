// A --steps range that keeps no step is a mistake to report, not an empty report with exit 0.
#pragma once

#include "stepscope/analysis/steps.h"
#include "stepscope/error.h"

namespace stepscope {

// An error (kBadOption) naming the steps the trace has when options.steps kept none.
Status check_step_selection(const StepsResult& steps, const AnalysisOptions& options);

}  // namespace stepscope
