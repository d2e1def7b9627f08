// Training phases per step (see phases.h for the rules and why they are what they are).
#include "stepscope/analysis/phases.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <unordered_set>

#include "analysis/name_test.h"
#include "stepscope/analysis/data_loading.h"
#include "stepscope/intervals.h"

namespace stepscope {

namespace {

constexpr std::string_view kBackwardRootPrefix = "autograd::engine::evaluate_function:";
constexpr std::array<Phase, 4> kPriority = {Phase::kDataLoading, Phase::kOptimizer,
                                            Phase::kBackward, Phase::kForward};
constexpr std::int8_t kNoPhase = -1;
// A phase as an index into per-phase arrays (never called with kNoPhase).
std::size_t phase_slot(std::int8_t phase) { return static_cast<std::uint8_t>(phase); }

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

std::size_t index(Phase phase) { return static_cast<std::size_t>(phase); }

// `## forward ##` and the like. Only a leading keyword counts, so that names such as
// `## all2all_data:lengths ##` are not taken for data loading.
std::optional<Phase> explicit_marker_phase(std::string_view name) {
  if (name.size() < 4 || !starts_with(name, "##") || !ends_with(name, "##")) return std::nullopt;
  std::string inner;
  for (char c : name.substr(2, name.size() - 4)) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      inner.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
  }
  auto leads = [&inner](std::string_view word) { return starts_with(inner, word); };
  if (leads("forward") || leads("fwd")) return Phase::kForward;
  if (leads("backward") || leads("bwd")) return Phase::kBackward;
  if (leads("optim")) return Phase::kOptimizer;
  if (leads("dataloader") || leads("dataloading") || leads("loaddata")) return Phase::kDataLoading;
  return std::nullopt;
}

bool is_op_or_annotation(EventClass c) {
  return c == EventClass::kOp || c == EventClass::kAnnotation;
}

bool has_backward_prefix(std::string_view name) { return starts_with(name, kBackwardRootPrefix); }

constexpr std::int8_t kIfBackwardRoot = -2;  // backward unless nested in another root

// What an op's or annotation's name alone says of its phase: the phase, kNoPhase, or
// kIfBackwardRoot. In this order: data loading, optimizer, explicit markers (annotations only),
// backward roots.
std::int8_t phase_by_name(std::string_view name, bool annotation) {
  if (is_data_loader_span(name)) return static_cast<std::int8_t>(Phase::kDataLoading);
  if (starts_with(name, "Optimizer.step#") || starts_with(name, "Optimizer.zero_grad#")) {
    return static_cast<std::int8_t>(Phase::kOptimizer);
  }
  if (annotation) {
    if (const std::optional<Phase> phase = explicit_marker_phase(name)) {
      return static_cast<std::int8_t>(*phase);
    }
  }
  return has_backward_prefix(name) ? kIfBackwardRoot : kNoPhase;
}

// The outermost evaluate_function op is the backward root: nested ones are part of the same
// backward node. For an event whose own name has the prefix; `has_prefix(event)` tests an
// ancestor's.
template <typename HasPrefix>
bool is_outermost_backward(const Trace& trace, EventIndex i, HasPrefix&& has_prefix) {
  for (EventIndex at = trace.events.parent[i]; at != kNoEvent; at = trace.events.parent[at]) {
    if (has_prefix(at)) return false;
  }
  return true;
}

std::optional<Phase> marker_phase(const Trace& trace, EventIndex i) {
  const EventClass c = trace.events.event_class[i];
  if (!is_op_or_annotation(c)) return std::nullopt;  // gpu_user_annotation copies excluded
  const std::int8_t by_name = phase_by_name(trace.name_of(i), c == EventClass::kAnnotation);
  if (by_name == kIfBackwardRoot) {
    const bool root = is_outermost_backward(
        trace, i, [&trace](EventIndex at) { return has_backward_prefix(trace.name_of(at)); });
    return root ? std::optional<Phase>(Phase::kBackward) : std::nullopt;
  }
  return by_name == kNoPhase ? std::nullopt : std::optional<Phase>(static_cast<Phase>(by_name));
}

// marker_phase with what the name alone decides worked out once per distinct name: a trace has
// millions of ops but a few thousand names, and the tests are prefix and suffix matches.
class MarkerNames {
 public:
  explicit MarkerNames(const Trace& trace)
      : trace_(trace),
        op_(trace.strings.size(), kUndecided),
        annotation_(trace.strings.size(), kUndecided),
        backward_prefix_(trace) {}

  // The phase op or annotation `i` marks, or kNoPhase.
  std::int8_t phase(EventIndex i) {
    const bool annotation = trace_.events.event_class[i] == EventClass::kAnnotation;
    const StringId name = trace_.events.name[i];
    std::int8_t& cached = annotation ? annotation_[name] : op_[name];
    if (cached == kUndecided) cached = phase_by_name(trace_.strings.view(name), annotation);
    if (cached != kIfBackwardRoot) return cached;
    return is_outermost_backward(trace_, i, backward_prefix_)
               ? static_cast<std::int8_t>(Phase::kBackward)
               : kNoPhase;
  }

  bool starts_backward_name(EventIndex i) { return backward_prefix_(i); }

 private:
  static constexpr std::int8_t kUndecided = -128;

  const Trace& trace_;
  std::vector<std::int8_t> op_;
  std::vector<std::int8_t> annotation_;
  NameTest<has_backward_prefix> backward_prefix_;
};

struct Markers {
  std::vector<std::int8_t> phase;  // per event, kNoPhase when it is no marker
  std::unordered_set<std::uint32_t> backward_threads;
};

std::unordered_set<std::uint32_t> step_threads(const Trace& trace,
                                               const std::vector<const Step*>& kept) {
  std::unordered_set<std::uint32_t> threads;
  for (const Step* step : kept) {
    if (step->event != kNoEvent) threads.insert(trace.events.thread[step->event]);
  }
  return threads;
}

Markers find_markers(const Trace& trace, const std::vector<const Step*>& kept) {
  const EventTable& e = trace.events;
  Markers markers;
  markers.phase.assign(e.size(), kNoPhase);
  MarkerNames names(trace);
  const std::unordered_set<std::uint32_t> with_steps = step_threads(trace, kept);
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    if (!is_op_or_annotation(e.event_class[i])) continue;  // gpu_user_annotation copies excluded
    const std::int8_t phase = names.phase(i);
    markers.phase[i] = phase;
    // Threads that run backward roots but no profiler step: autograd's device threads.
    if (phase == static_cast<std::int8_t>(Phase::kBackward) && names.starts_backward_name(i) &&
        !with_steps.contains(e.thread[i])) {
      markers.backward_threads.insert(e.thread[i]);
    }
  }
  if (markers.backward_threads.empty()) return markers;
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    if (markers.phase[i] == kNoPhase && e.parent[i] == kNoEvent &&
        is_nested_host_event(e.event_class[i]) && markers.backward_threads.contains(e.thread[i])) {
      markers.phase[i] = static_cast<std::int8_t>(Phase::kBackward);
    }
  }
  return markers;
}

// Events that start inside [start, end): the table is sorted by start time.
std::pair<EventIndex, EventIndex> starting_within(const EventTable& e, std::int64_t start,
                                                  std::int64_t end) {
  const auto first = std::lower_bound(e.start_ns.begin(), e.start_ns.end(), start);
  const auto last = std::lower_bound(first, e.start_ns.end(), end);
  return {static_cast<EventIndex>(first - e.start_ns.begin()),
          static_cast<EventIndex>(last - e.start_ns.begin())};
}

// Without a `## forward ##` marker, forward is the step's top-level ops that start before its
// first backward marker and carry no other phase (in an inference step: all of them).
bool infer_forward(const Trace& trace, const Step& step, Markers& markers) {
  const EventTable& e = trace.events;
  const auto [first, last] = starting_within(e, step.host_start_ns, step.host_end_ns);
  std::int64_t first_backward = step.host_end_ns;
  for (EventIndex i = first; i < last; ++i) {
    if (markers.phase[i] == static_cast<std::int8_t>(Phase::kForward)) return false;  // explicit
    if (markers.phase[i] == static_cast<std::int8_t>(Phase::kBackward)) {
      first_backward = std::min(first_backward, e.start_ns[i]);
    }
  }
  bool inferred = false;
  for (EventIndex i = first; i < last; ++i) {
    if (e.parent[i] != step.event || !is_op_or_annotation(e.event_class[i])) continue;
    if (markers.phase[i] != kNoPhase || e.start_ns[i] >= first_backward) continue;
    markers.phase[i] = static_cast<std::int8_t>(Phase::kForward);
    inferred = true;
  }
  return inferred;
}

// The priority subtraction of the host spans of each phase over the kept steps.
std::array<IntervalSet, kPhaseCount> host_costs(
    const std::array<std::vector<Interval>, kPhaseCount>& spans, const IntervalSet& steps) {
  std::array<IntervalSet, kPhaseCount> costs;
  IntervalSet free = steps;
  for (Phase phase : kPriority) {
    // Spans were collected in event order, which is start order: no sort needed.
    costs[index(phase)] = free.intersect(IntervalSet::from_sorted(spans[index(phase)]));
    free = free.subtract(costs[index(phase)]);
  }
  costs[index(Phase::kOther)] = std::move(free);
  return costs;
}

// The innermost marker around the launch call (else around the owning op); a call on a backward
// thread outside any marker is backward work.
Phase device_phase(const Trace& trace, const Markers& markers, EventIndex activity) {
  const EventTable& e = trace.events;
  const EventIndex start =
      e.launcher[activity] != kNoEvent ? e.launcher[activity] : e.owner_op[activity];
  if (start == kNoEvent) return Phase::kOther;
  for (EventIndex at = start; at != kNoEvent; at = e.parent[at]) {
    if (markers.phase[at] != kNoPhase) return static_cast<Phase>(markers.phase[at]);
  }
  return markers.backward_threads.contains(e.thread[start]) ? Phase::kBackward : Phase::kOther;
}

// Host spans of the marked events and device activity, by phase, in one pass over the events,
// in event (start) order.
struct PhaseSpans {
  std::array<std::vector<Interval>, kPhaseCount> host;
  std::array<std::vector<Interval>, kPhaseCount> device;
};

PhaseSpans phase_spans(const Trace& trace, const Markers& markers) {
  const EventTable& e = trace.events;
  PhaseSpans spans;
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    if (markers.phase[i] != kNoPhase) {
      spans.host[phase_slot(markers.phase[i])].push_back({e.start_ns[i], e.end_ns(i)});
    }
    if (is_device_activity(e.event_class[i])) {
      spans.device[index(device_phase(trace, markers, i))].push_back({e.start_ns[i], e.end_ns(i)});
    }
  }
  return spans;
}

std::array<IntervalSet, kPhaseCount> device_sets(
    const std::array<std::vector<Interval>, kPhaseCount>& spans) {
  std::array<IntervalSet, kPhaseCount> sets;
  for (std::size_t p = 0; p < kPhaseCount; ++p) {
    sets[p] = IntervalSet::from_sorted(spans[p]);  // collected in start order
  }
  return sets;
}

std::int64_t rounded_mean(std::int64_t sum, std::int64_t count) {
  return (sum + count / 2) / count;
}

void finish_totals(PhasesResult& result) {
  for (const StepPhases& step : result.steps) {
    for (std::size_t p = 0; p < kPhaseCount; ++p) {
      result.sum.host_ns[p] += step.times.host_ns[p];
      result.sum.device_ns[p] += step.times.device_ns[p];
    }
    result.sum.step_ns += step.times.step_ns;
  }
  const auto n = static_cast<std::int64_t>(result.steps.size());
  for (std::size_t p = 0; p < kPhaseCount; ++p) {
    result.mean.host_ns[p] = rounded_mean(result.sum.host_ns[p], n);
    result.mean.device_ns[p] = rounded_mean(result.sum.device_ns[p], n);
  }
  result.mean.step_ns = rounded_mean(result.sum.step_ns, n);
}

// `## loss ##` → "loss": markers of no phase, named as the user wrote them.
std::optional<std::string_view> label_of(const Trace& trace, EventIndex i) {
  if (trace.events.event_class[i] != EventClass::kAnnotation) return std::nullopt;
  std::string_view name = trace.name_of(i);
  if (name.size() < 5 || !starts_with(name, "##") || !ends_with(name, "##")) return std::nullopt;
  if (explicit_marker_phase(name)) return std::nullopt;
  name = name.substr(2, name.size() - 4);
  while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
  while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
  if (name.empty()) return std::nullopt;
  return name;
}

std::vector<LabelledTime> labelled_times(const Trace& trace, const IntervalSet& steps,
                                         std::int64_t kept) {
  std::map<std::string_view, std::pair<std::int64_t, std::vector<Interval>>> by_name;
  for (EventIndex i = 0; i < static_cast<EventIndex>(trace.events.size()); ++i) {
    const std::optional<std::string_view> label = label_of(trace, i);
    if (!label) continue;
    auto& [count, spans] = by_name[*label];
    ++count;
    spans.push_back({trace.events.start_ns[i], trace.events.end_ns(i)});
  }
  std::vector<LabelledTime> labels;
  for (auto& [name, entry] : by_name) {
    const std::int64_t covered =
        steps.intersect(IntervalSet::from_sorted(entry.second)).measure();  // start order
    labels.push_back({std::string(name), entry.first, (covered + kept / 2) / kept});
  }
  std::stable_sort(labels.begin(), labels.end(), [](const LabelledTime& a, const LabelledTime& b) {
    return a.mean_host_ns > b.mean_host_ns;
  });
  return labels;
}

}  // namespace

std::optional<Phase> phase_of_marker(const Trace& trace, EventIndex event) {
  return marker_phase(trace, event);
}

class MarkerPhases::Names {
 public:
  explicit Names(const Trace& of) : trace(of), markers(of) {}
  const Trace& trace;
  MarkerNames markers;
};

MarkerPhases::MarkerPhases(const Trace& trace) : names_(std::make_unique<Names>(trace)) {}
MarkerPhases::~MarkerPhases() = default;

std::optional<Phase> MarkerPhases::of(EventIndex event) {
  if (!is_op_or_annotation(names_->trace.events.event_class[event])) return std::nullopt;
  const std::int8_t phase = names_->markers.phase(event);
  return phase == kNoPhase ? std::nullopt : std::optional<Phase>(static_cast<Phase>(phase));
}

std::string_view to_string(Phase phase) {
  switch (phase) {
    case Phase::kForward:
      return "forward";
    case Phase::kBackward:
      return "backward";
    case Phase::kOptimizer:
      return "optimizer";
    case Phase::kDataLoading:
      return "data_loading";
    case Phase::kOther:
      return "other";
  }
  return "unknown";
}

PhasesResult compute_phases(const Trace& trace, const StepsResult& steps,
                            const AnalysisOptions& options) {
  PhasesResult result;
  result.mode = options.mode == Mode::kCompatTb ? Mode::kCompatTb : Mode::kNative;
  const std::vector<const Step*> kept = steps.kept();
  if (kept.empty()) {
    result.not_applicable_reason = "no kept steps";
    return result;
  }
  result.applicable = true;
  Markers markers = find_markers(trace, kept);
  for (std::int8_t phase : markers.phase) {
    if (phase != kNoPhase) ++result.markers[phase_slot(phase)];
  }
  std::vector<Interval> spans;
  std::vector<Interval> host_spans;
  for (const Step* step : kept) {
    host_spans.push_back({step->host_start_ns, step->host_end_ns});
    StepPhases row{step->number, step->start_ns, step->end_ns, {}, false};
    if (step->event != kNoEvent) row.forward_inferred = infer_forward(trace, *step, markers);
    result.steps.push_back(row);
    spans.push_back({step->start_ns, step->end_ns});
  }
  const PhaseSpans phase = phase_spans(trace, markers);
  const std::array<IntervalSet, kPhaseCount> host =
      host_costs(phase.host, IntervalSet::from_unsorted(spans));
  const std::array<IntervalSet, kPhaseCount> device = device_sets(phase.device);
  for (StepPhases& row : result.steps) {
    const Interval span{row.start_ns, row.end_ns};
    for (std::size_t p = 0; p < kPhaseCount; ++p) {
      row.times.host_ns[p] = host[p].measure_within(span);
      row.times.device_ns[p] = device[p].measure_within(span);
    }
    row.times.step_ns = span.length();
  }
  finish_totals(result);
  result.labels = labelled_times(trace, IntervalSet::from_unsorted(std::move(host_spans)),
                                 static_cast<std::int64_t>(kept.size()));
  if (!markers.backward_threads.empty()) {
    result.notes.push_back("backward threads: " + std::to_string(markers.backward_threads.size()) +
                           "; their top-level ops count as backward");
  }
  if (std::all_of(result.markers.begin(), result.markers.end(), [](auto n) { return n == 0; })) {
    result.notes.emplace_back("no phase markers in the trace: all step time is `other`");
  }
  return result;
}

}  // namespace stepscope
