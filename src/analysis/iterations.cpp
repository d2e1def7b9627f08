#include "analysis/iterations.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string_view>
#include <utility>

#include "stepscope/analysis/data_loading.h"

namespace stepscope {

namespace {

// A region is an iteration only if it repeats and holds most of its thread's top-level ops:
// a `log_metrics` annotation repeated every step is not the step.
constexpr std::size_t kMinRepetitions = 2;
constexpr double kMinOpShareInside = 0.5;
// Candidates whose covered time differs by less than this are the same region seen at several
// levels (a module's forward and the `_call_impl` frame around it): the clearer name wins.
constexpr double kSameRegionTolerance = 0.02;

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// Parts of an iteration, never the iteration: data loading and the optimizer's step.
bool is_part_of_iteration(std::string_view name) {
  return is_data_loading_name(name) || starts_with(name, "Optimizer.") ||
         starts_with(name, "ProfilerStep#");
}

// Lower is clearer to a user: their own annotation, a module, their own Python, anything else.
int clarity(const Trace& trace, EventIndex i) {
  const std::string_view name = trace.name_of(i);
  switch (trace.events.event_class[i]) {
    case EventClass::kAnnotation:
      return 0;
    case EventClass::kPython:
      if (starts_with(name, "nn.Module: ")) return 1;
      return name.find("torch/") == std::string_view::npos &&
                     name.find("site-packages") == std::string_view::npos
                 ? 2
                 : 3;
    default:
      return 3;
  }
}

bool is_candidate(const Trace& trace, EventIndex i) {
  const EventClass c = trace.events.event_class[i];
  const std::string_view name = trace.name_of(i);
  if (name.empty() || is_part_of_iteration(name)) return false;
  if (c == EventClass::kAnnotation) return true;
  // Dispatcher ops (`aten::linear`) repeat inside every iteration; built-ins are not code.
  if (c == EventClass::kOp) return name.find("::") == std::string_view::npos;
  return c == EventClass::kPython && !starts_with(name, "<built-in");
}

struct Candidate {
  std::uint32_t thread = 0;
  StringId name = 0;
  std::vector<Interval> occurrences;  // outermost only, in time order
  std::int64_t covered_ns = 0;
  int clarity = 3;
};

std::vector<Candidate> collect_candidates(const Trace& trace) {
  const EventTable& e = trace.events;
  std::map<std::pair<std::uint32_t, StringId>, Candidate> by_key;
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    if (!is_candidate(trace, i)) continue;
    Candidate& candidate = by_key[{e.thread[i], e.name[i]}];
    candidate.thread = e.thread[i];
    candidate.name = e.name[i];
    candidate.clarity = clarity(trace, i);
    // Events are sorted by start: one inside the previous occurrence is a recursive call.
    if (!candidate.occurrences.empty() && e.start_ns[i] < candidate.occurrences.back().end) {
      continue;
    }
    candidate.occurrences.push_back(Interval{e.start_ns[i], e.end_ns(i)});
    candidate.covered_ns += e.dur_ns[i];
  }
  std::vector<Candidate> out;
  for (auto& [key, candidate] : by_key) {
    if (candidate.occurrences.size() >= kMinRepetitions) out.push_back(std::move(candidate));
  }
  return out;
}

// Start times of the ops on each thread that no other op encloses.
std::map<std::uint32_t, std::vector<std::int64_t>> top_level_op_starts(const Trace& trace) {
  const EventTable& e = trace.events;
  std::map<std::uint32_t, std::vector<std::int64_t>> starts;
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    if (e.event_class[i] != EventClass::kOp) continue;
    bool nested = false;
    for (EventIndex at = e.parent[i]; at != kNoEvent; at = e.parent[at]) {
      if (e.event_class[at] == EventClass::kOp) {
        nested = true;
        break;
      }
    }
    if (!nested) starts[e.thread[i]].push_back(e.start_ns[i]);
  }
  return starts;
}

double op_share_inside(const Candidate& candidate, const std::vector<std::int64_t>& op_starts) {
  if (op_starts.empty()) return 0;
  std::size_t inside = 0;
  for (const Interval& occurrence : candidate.occurrences) {
    const auto first = std::lower_bound(op_starts.begin(), op_starts.end(), occurrence.start);
    const auto last = std::lower_bound(op_starts.begin(), op_starts.end(), occurrence.end);
    inside += static_cast<std::size_t>(last - first);
  }
  return static_cast<double>(inside) / static_cast<double>(op_starts.size());
}

// Better: covers more time; within the tolerance, the clearer name.
bool better(const Candidate& a, const Candidate& b) {
  const auto larger = static_cast<double>(std::max(a.covered_ns, b.covered_ns));
  const auto gap = static_cast<double>(a.covered_ns - b.covered_ns);
  if (larger > 0 && std::abs(gap) <= kSameRegionTolerance * larger && a.clarity != b.clarity) {
    return a.clarity < b.clarity;
  }
  return a.covered_ns > b.covered_ns;
}

std::vector<Step> steps_of(const Candidate& candidate) {
  std::vector<Step> steps;
  for (const Interval& occurrence : candidate.occurrences) {
    Step step;
    step.number = static_cast<std::int64_t>(steps.size());
    step.thread = candidate.thread;
    step.host_start_ns = occurrence.start;
    step.host_end_ns = occurrence.end;
    steps.push_back(step);
  }
  return steps;
}

// One step from the first host op or GPU activity to the last.
std::vector<Step> whole_trace(const Trace& trace) {
  const EventTable& e = trace.events;
  std::int64_t first = std::numeric_limits<std::int64_t>::max();
  std::int64_t last = std::numeric_limits<std::int64_t>::min();
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    const EventClass c = e.event_class[i];
    if (!is_nested_host_event(c) && !is_device_activity(c)) continue;
    first = std::min(first, e.start_ns[i]);
    last = std::max(last, e.end_ns(i));
  }
  if (first >= last) return {};
  Step step;
  step.host_start_ns = first;
  step.host_end_ns = last;
  return {step};
}

}  // namespace

InferredIterations infer_iterations(const Trace& trace) {
  const std::map<std::uint32_t, std::vector<std::int64_t>> op_starts = top_level_op_starts(trace);
  const Candidate* best = nullptr;
  const std::vector<Candidate> candidates = collect_candidates(trace);
  for (const Candidate& candidate : candidates) {
    const auto ops = op_starts.find(candidate.thread);
    if (ops == op_starts.end() || op_share_inside(candidate, ops->second) < kMinOpShareInside) {
      continue;
    }
    if (best == nullptr || better(candidate, *best)) best = &candidate;
  }
  InferredIterations result;
  if (best != nullptr) {
    result.steps = steps_of(*best);
    result.region = std::string(trace.strings.view(best->name));
  } else {
    result.steps = whole_trace(trace);
  }
  return result;
}

}  // namespace stepscope
