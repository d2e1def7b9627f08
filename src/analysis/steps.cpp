// Profiler steps (docs/metrics/01-profiler-steps-and-step-boundaries.md §1.2, §1.4): host steps,
// device rebasing, tail trimming.
#include "stepscope/analysis/steps.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <optional>

#include "analysis/iterations.h"
#include "analysis/launch_match.h"
#include "analysis/name_test.h"
#include "analysis/sort_doubles.h"
#include "analysis/spread_of_others.h"

namespace stepscope {

namespace {

constexpr std::string_view kStepPrefix = "ProfilerStep#";
constexpr double kIncompleteStepRatio = 0.8;

std::optional<std::int64_t> step_number(std::string_view name) {
  if (name.substr(0, kStepPrefix.size()) != kStepPrefix) return std::nullopt;
  const std::string_view digits = name.substr(kStepPrefix.size());
  std::int64_t number = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
  if (digits.empty() || error != std::errc() || end != digits.data() + digits.size()) {
    return std::nullopt;
  }
  return number;
}

bool is_step_name(std::string_view name) { return step_number(name).has_value(); }

bool is_host_step_class(EventClass c, Mode mode) {
  if (c == EventClass::kOp || c == EventClass::kAnnotation) return true;
  // tb_plugin maps gpu_user_annotation to the same type as user_annotation (a quirk).
  return mode == Mode::kCompatTb && c == EventClass::kGpuAnnotation;
}

// Host steps, outermost only, on the thread that owns most of them (native).
std::vector<Step> host_steps(const Trace& trace, Mode mode, std::vector<std::string>& notes) {
  const EventTable& e = trace.events;
  std::vector<Step> steps;
  std::map<std::uint32_t, std::size_t> per_thread;
  NameTest<is_step_name> step_name(trace);  // ops are most events; names repeat
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    if (!is_host_step_class(e.event_class[i], mode) || !step_name(i)) continue;
    const std::optional<std::int64_t> number = step_number(trace.name_of(i));
    if (!number) continue;
    Step step;
    step.number = *number;
    step.event = i;
    step.thread = e.thread[i];
    step.host_start_ns = e.start_ns[i];
    step.host_end_ns = e.end_ns(i);
    steps.push_back(step);
    ++per_thread[e.thread[i]];
  }
  if (mode == Mode::kCompatTb) return steps;  // tb_plugin keeps every one
  if (per_thread.size() > 1) {
    const auto owner = std::max_element(per_thread.begin(), per_thread.end(),
                                        [](auto& a, auto& b) { return a.second < b.second; });
    notes.push_back("profiler steps found on " + std::to_string(per_thread.size()) +
                    " threads; using the thread with most of them");
    std::erase_if(steps, [&](const Step& s) { return e.thread[s.event] != owner->first; });
  }
  std::vector<Step> outermost;
  for (const Step& step : steps) {
    if (!outermost.empty() && step.host_end_ns <= outermost.back().host_end_ns) {
      notes.push_back("ProfilerStep#" + std::to_string(step.number) +
                      " is nested in ProfilerStep#" + std::to_string(outermost.back().number) +
                      "; keeping the outer one");
      continue;
    }
    if (!outermost.empty() && step.host_start_ns < outermost.back().host_end_ns) {
      notes.push_back(fmt::format(
          "ProfilerStep#{} starts {:.1f} µs before ProfilerStep#{} ends (steps of one thread "
          "follow each other): both are kept as recorded, so that time counts in both",
          step.number, static_cast<double>(outermost.back().host_end_ns - step.host_start_ns) / 1e3,
          outermost.back().number));
    }
    outermost.push_back(step);
  }
  std::map<std::int64_t, int> seen;
  for (const Step& step : outermost) {
    if (++seen[step.number] == 2) {
      notes.push_back("ProfilerStep#" + std::to_string(step.number) + " appears more than once");
    }
  }
  return outermost;
}

// tb_plugin's fallback when a trace has no steps: one step `0` over the host ops.
std::vector<Step> single_tb_step(const Trace& trace) {
  const EventTable& e = trace.events;
  std::int64_t first = std::numeric_limits<std::int64_t>::max();
  std::int64_t last = std::numeric_limits<std::int64_t>::min();
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    const EventClass c = e.event_class[i];
    const bool legacy_python =
        c == EventClass::kPython && trace.strings.view(e.category[i]) == "python";
    if (c != EventClass::kOp && !legacy_python) continue;
    first = std::min(first, e.start_ns[i]);
    last = std::max(last, e.end_ns(i));
  }
  if (first > last) return {};
  Step step;
  step.host_start_ns = first;
  step.host_end_ns = last;
  return {step};
}

// Where step 0 may start: after unmatched GPU work that ends before its own first activity.
std::int64_t first_step_floor(const Trace& trace, const std::vector<Step>& steps,
                              std::int64_t first_device_start, Mode mode) {
  std::int64_t floor = steps.front().host_start_ns;
  if (steps.front().device_activities == 0) return floor;
  const EventTable& e = trace.events;
  const StepOfCall step_of_call(steps);
  for (const EventIndex i : e.device_activities) {
    // Activities come in start order: none after this one can end before step 0's work starts.
    if (e.start_ns[i] >= first_device_start) break;
    if (!counts_as_device_activity(e.event_class[i], mode)) continue;
    const EventIndex call = counted_launch(e, i, mode);
    if (call != kNoEvent &&
        step_of_call.find(e.start_ns[call], e.end_ns(call)) != StepOfCall::kNone) {
      continue;  // matched: part of some step's work
    }
    if (e.end_ns(i) < first_device_start) floor = std::max(floor, e.end_ns(i));
  }
  return floor;
}

void rebase(std::vector<Step>& steps, const std::vector<StepDevice>& devices,
            std::int64_t previous_end) {
  for (std::size_t i = 0; i < steps.size(); ++i) {
    Step& step = steps[i];
    step.start_ns = std::max(previous_end, step.host_start_ns);
    if (step.device_activities == 0) {
      step.end_ns = std::max(step.host_end_ns, step.start_ns);
    } else {
      step.end_ns = std::max({step.host_end_ns, devices[i].last_end, step.start_ns});
    }
    previous_end = step.end_ns;
  }
}

void trim_tail(std::vector<Step>& steps) {
  if (steps.size() < 2) return;
  std::size_t last_active = steps.size();
  for (std::size_t i = steps.size(); i-- > 0;) {
    if (steps[i].device_activities > 0) {
      last_active = i;
      break;
    }
  }
  if (last_active == steps.size()) return;
  for (std::size_t i = last_active + 1; i < steps.size(); ++i) {
    steps[i].status = StepStatus::kNoDeviceActivityAfterLastActiveStep;
  }
  if (last_active > 0 &&
      static_cast<double>(steps[last_active].device_activities) <
          kIncompleteStepRatio * static_cast<double>(steps[last_active - 1].device_activities)) {
    steps[last_active].status = StepStatus::kIncompleteLastStep;
  }
}

// docs/metrics/02-step-time-statistics.md §2: with at least kOutlierMinimumSteps kept steps,
// slower than the median of the other kept steps by more than 3 robust sigmas and by more than
// kOutlierMinimumExcess of that median. Fewer steps give no robust spread, and a step a few
// per cent slower than steps that barely vary is noise, not an outlier.
constexpr std::size_t kOutlierMinimumSteps = 5;
constexpr double kOutlierMinimumExcess = 0.10;

void flag_outliers(std::vector<Step>& steps) {
  std::vector<Step*> kept;
  for (Step& step : steps) {
    if (step.kept()) kept.push_back(&step);
  }
  if (kept.size() < kOutlierMinimumSteps) return;
  // Sorted once: copying and sorting the others for every step is quadratic on long exports.
  std::vector<double> sorted;
  sorted.reserve(kept.size());
  for (const Step* step : kept) sorted.push_back(static_cast<double>(step->duration_ns()));
  sort_doubles(sorted);
  for (Step* candidate : kept) {
    const auto duration = static_cast<double>(candidate->duration_ns());
    const auto position = std::lower_bound(sorted.begin(), sorted.end(), duration) - sorted.begin();
    const SpreadOfOthers others = spread_of_others(sorted, static_cast<std::size_t>(position));
    const double excess = duration - others.median;
    candidate->outlier =
        excess > 3.0 * 1.4826 * others.mad && excess > kOutlierMinimumExcess * others.median;
  }
}

std::optional<Interval> gpu_activity_span(const Trace& trace) {
  const EventTable& e = trace.events;
  std::optional<Interval> span;
  for (const EventIndex i : e.device_activities) {
    if (!span) {
      span = Interval{e.start_ns[i], e.end_ns(i)};
    } else {
      span->start = std::min(span->start, e.start_ns[i]);
      span->end = std::max(span->end, e.end_ns(i));
    }
  }
  return span;
}

void set_window(const Trace& trace, bool inferred, StepsResult& result) {
  const std::vector<const Step*> kept = result.kept();
  if (!kept.empty()) {
    result.window = Interval{kept.front()->start_ns, kept.back()->end_ns};
    result.window_source = !inferred               ? StepsResult::WindowSource::kSteps
                           : result.region.empty() ? StepsResult::WindowSource::kWholeTrace
                                                   : StepsResult::WindowSource::kRepeatedRegion;
    return;
  }
  result.window = gpu_activity_span(trace);
  result.window_source = result.window ? StepsResult::WindowSource::kGpuActivitySpan
                                       : StepsResult::WindowSource::kNone;
}

}  // namespace

std::string_view to_string(StepStatus status) {
  switch (status) {
    case StepStatus::kKept:
      return "kept";
    case StepStatus::kNoDeviceActivityAfterLastActiveStep:
      return "no_device_activity_after_last_active_step";
    case StepStatus::kIncompleteLastStep:
      return "incomplete_last_step";
    case StepStatus::kOutsideRequestedRange:
      return "outside_requested_range";
  }
  return "unknown";
}

std::vector<const Step*> StepsResult::kept() const& {
  std::vector<const Step*> out;
  for (const Step& step : steps) {
    if (step.kept()) out.push_back(&step);
  }
  return out;
}

StepsResult find_steps(const Trace& trace, const AnalysisOptions& options) {
  StepsResult result;
  const Mode mode = options.mode == Mode::kCompatTb ? Mode::kCompatTb : Mode::kNative;
  result.steps = host_steps(trace, mode, result.notes);
  if (result.steps.empty() && mode == Mode::kCompatTb) result.steps = single_tb_step(trace);
  const bool inferred =
      result.steps.empty() && options.mode == Mode::kNative && options.infer_iterations;
  if (inferred) {
    InferredIterations iterations = infer_iterations(trace);
    result.steps = std::move(iterations.steps);
    result.region = std::move(iterations.region);
  }
  for (Step& step : result.steps) {
    step.start_ns = step.host_start_ns;
    step.end_ns = step.host_end_ns;
  }
  if (!result.steps.empty()) {
    const std::vector<StepDevice> devices =
        match_device_work(trace, result.steps, mode, options.threads);
    bool any = false;
    for (std::size_t i = 0; i < result.steps.size(); ++i) {
      result.steps[i].device_activities = devices[i].activities;
      any = any || devices[i].activities > 0;
    }
    if (any) {
      rebase(result.steps, devices,
             first_step_floor(trace, result.steps, devices.front().first_start, mode));
      result.rebased = true;
      // The profiler cuts its last step short; a repeated region is always whole.
      if (!inferred) trim_tail(result.steps);
    }
  }
  if (options.steps) {
    for (Step& step : result.steps) {
      if (step.kept() &&
          (step.number < options.steps->first || step.number > options.steps->last)) {
        step.status = StepStatus::kOutsideRequestedRange;
      }
    }
  }
  flag_outliers(result.steps);
  set_window(trace, inferred, result);
  return result;
}

Statistics describe(std::vector<double> values) {
  Statistics stats;
  stats.count = values.size();
  if (values.empty()) return stats;
  sort_doubles(values);  // launch statistics sort every kernel's durations
  const double n = static_cast<double>(values.size());
  stats.mean = std::accumulate(values.begin(), values.end(), 0.0) / n;
  if (values.size() > 1) {
    double squares = 0;
    for (double v : values) squares += (v - stats.mean) * (v - stats.mean);
    stats.std = std::sqrt(squares / (n - 1));
  }
  auto percentile = [&values](double p) {
    const double h = static_cast<double>(values.size() - 1) * p;
    const auto low = static_cast<std::size_t>(std::floor(h));
    const std::size_t high = std::min(low + 1, values.size() - 1);
    return values[low] + (h - static_cast<double>(low)) * (values[high] - values[low]);
  };
  stats.min = values.front();
  stats.max = values.back();
  stats.p50 = percentile(0.50);
  stats.p95 = percentile(0.95);
  stats.p99 = percentile(0.99);
  stats.cv = stats.mean != 0 ? stats.std / stats.mean : 0;
  stats.few_samples = values.size() < 20;
  return stats;
}

StepTimeStats step_time_statistics(const StepsResult& steps) {
  std::vector<double> durations;
  std::vector<double> host_durations;
  for (const Step* step : steps.kept()) {
    durations.push_back(static_cast<double>(step->duration_ns()));
    host_durations.push_back(static_cast<double>(step->host_duration_ns()));
  }
  return StepTimeStats{describe(std::move(durations)), describe(std::move(host_durations))};
}

}  // namespace stepscope
