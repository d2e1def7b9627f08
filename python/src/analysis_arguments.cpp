#include "analysis_arguments.h"

#include "errors.h"

namespace stepscope_python {

namespace {

stepscope::Mode parse_mode_or_raise(const std::string& mode) {
  const std::optional<stepscope::Mode> parsed = stepscope::parse_mode(mode);
  if (!parsed) {
    raise_bad_option("mode must be 'native', 'compat-hta' or 'compat-tb', not '" + mode + "'");
  }
  return *parsed;
}

}  // namespace

void apply(const AnalysisArguments& a, stepscope::AnalysisOptions& analysis,
           stepscope::LoadOptions& load) {
  analysis.mode = parse_mode_or_raise(a.mode);
  if (a.steps) {
    if (a.steps->first > a.steps->second) {
      raise_bad_option("steps must be (first, last) with first <= last");
    }
    analysis.steps = stepscope::StepRange{a.steps->first, a.steps->second};
  }
  if (a.top < 1) raise_bad_option("top must be at least 1");
  analysis.top = a.top;
  analysis.group_by_input_shape = a.group_by_shape;
  analysis.hta_rounding = a.hta_rounding;
  if (a.threads < 0 || a.threads > 2) {
    raise_bad_option("threads must be 1, 2, or 0 (pick by input size)");
  }
  load.threads = static_cast<unsigned>(a.threads);
  load.skip_bad = a.skip_bad;
  load.rank = a.rank;
}

}  // namespace stepscope_python
