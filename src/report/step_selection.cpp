#include "report/step_selection.h"

#include <fmt/core.h>

#include <algorithm>
#include <string>
#include <vector>

namespace stepscope {

Status check_step_selection(const StepsResult& steps, const AnalysisOptions& options) {
  if (!options.steps || !steps.kept().empty()) return Done{};
  std::vector<std::int64_t> numbers;
  for (const Step& step : steps.steps) {
    if (step.status == StepStatus::kOutsideRequestedRange) numbers.push_back(step.number);
  }
  std::sort(numbers.begin(), numbers.end());
  // "3-10, 12": runs of consecutive numbers joined, so a long trace stays one line.
  std::string have;
  for (std::size_t i = 0; i < numbers.size();) {
    std::size_t j = i;
    while (j + 1 < numbers.size() && numbers[j + 1] <= numbers[j] + 1) ++j;
    if (!have.empty()) have += ", ";
    have += std::to_string(numbers[i]);
    if (j > i) have += fmt::format("-{}", numbers[j]);
    i = j + 1;
  }
  std::string message =
      fmt::format("--steps {}:{} selects no step; ", options.steps->first, options.steps->last);
  message += have.empty() ? "this trace has no usable step" : "this trace has steps " + have;
  return make_error(ErrorKind::kBadOption, std::move(message));
}

}  // namespace stepscope
