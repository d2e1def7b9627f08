// The timeline's selection: which steps, which events, and what each event shows on hover.
#include "render/html/timeline_data.h"

#include "stepscope/analysis/what_if.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <iterator>
#include <map>
#include <numeric>
#include <optional>
#include <tuple>
#include <unordered_map>

namespace stepscope::render::html {

std::string_view to_string(StepChoice choice) {
  switch (choice) {
    case StepChoice::kMedian:
      return "median";
    case StepChoice::kSlowest:
      return "slowest";
    case StepChoice::kFinding:
      return "finding";
  }
  return "finding";
}

namespace {

using Span = std::pair<std::int64_t, std::int64_t>;

// Host calls and device work: what a lane of the timeline holds. Python frames are shown as
// the location of an event, not drawn (with_stack traces hold many times more of them).
bool drawable(EventClass c) { return is_nested_host_event(c) || is_device_activity(c); }

// A step as the timeline covers it: its host span and its device-rebased span together.
Span step_span(const Step& step) {
  return {std::min(step.host_start_ns, step.start_ns), std::max(step.host_end_ns, step.end_ns)};
}

void choose(std::vector<TimelineStep>& chosen, const Step& step, StepChoice why,
            std::size_t max_steps) {
  if (chosen.size() >= max_steps) return;
  for (const TimelineStep& s : chosen) {
    if (s.number == step.number) return;
  }
  const auto [start, end] = step_span(step);
  chosen.push_back({step.number, start, end, why});
}

std::vector<TimelineStep> choose_steps(const std::vector<const Step*>& kept,
                                       const Diagnosis& diagnosis, std::size_t max_steps) {
  std::vector<TimelineStep> chosen;
  if (kept.empty() || max_steps == 0) return chosen;
  std::vector<const Step*> by_duration = kept;
  std::stable_sort(by_duration.begin(), by_duration.end(), [](const Step* a, const Step* b) {
    return a->duration_ns() < b->duration_ns();
  });
  choose(chosen, *by_duration[(by_duration.size() - 1) / 2], StepChoice::kMedian, max_steps);
  choose(chosen, *by_duration.back(), StepChoice::kSlowest, max_steps);
  for (const Finding& finding : diagnosis.findings) {
    for (const Evidence& evidence : finding.evidence) {
      for (const EventRefs& refs : evidence.events) {
        for (const std::int64_t number : refs.steps) {
          const auto step = std::find_if(kept.begin(), kept.end(),
                                         [number](const Step* s) { return s->number == number; });
          if (step == kept.end()) continue;
          choose(chosen, **step, StepChoice::kFinding, max_steps);
          break;  // one step per group of events: the first one kept
        }
      }
    }
  }
  std::sort(chosen.begin(), chosen.end(),
            [](const TimelineStep& a, const TimelineStep& b) { return a.number < b.number; });
  return chosen;
}

// A finding's group of referenced events: events of that name between its first and last time.
struct RefWindow {
  std::size_t finding = 0;
  Span span;
};

struct RefWindows {
  std::unordered_map<StringId, std::vector<RefWindow>> by_name;
  // Per string of the trace: 1 when some finding names it. Most events are named by none, and
  // this answers for them without a hash lookup.
  std::vector<std::uint8_t> named;
  [[nodiscard]] bool empty() const { return by_name.empty(); }
};

RefWindows reference_windows(const Trace& trace, const Diagnosis& diagnosis) {
  RefWindows windows;
  windows.named.assign(trace.strings.size(), 0);
  for (std::size_t f = 0; f < diagnosis.findings.size(); ++f) {
    for (const Evidence& evidence : diagnosis.findings[f].evidence) {
      for (const EventRefs& refs : evidence.events) {
        const StringId name = trace.strings.find(refs.name);
        if (refs.count <= 0 || name == StringPool::kNotInterned) continue;
        windows.by_name[name].push_back({f, {refs.first_start_ns, refs.last_end_ns}});
        windows.named[name] = 1;
      }
    }
  }
  return windows;
}

// Whether some finding names the event's name: the cheap test, before findings_of.
bool maybe_referenced(const Trace& trace, EventIndex i, const RefWindows& windows) {
  return windows.named[trace.events.name[i]] != 0;
}

// Which findings an event is evidence of (empty for most events: callers ask maybe_referenced
// first).
std::vector<std::size_t> findings_of(const Trace& trace, EventIndex i, const RefWindows& windows) {
  std::vector<std::size_t> findings;
  const auto found = windows.by_name.find(trace.events.name[i]);
  if (found == windows.by_name.end()) return findings;
  const std::int64_t start = trace.events.start_ns[i];
  for (const RefWindow& w : found->second) {
    const bool inside = start >= w.span.first && trace.events.end_ns(i) <= w.span.second;
    if (inside && std::find(findings.begin(), findings.end(), w.finding) == findings.end()) {
      findings.push_back(w.finding);
    }
  }
  return findings;
}

struct Candidates {
  std::vector<EventIndex> in_steps;                 // drawable events starting inside a chosen step
  std::vector<std::vector<EventIndex>> by_finding;  // events each finding references
  std::vector<std::uint8_t> marked;                 // per trace event: 1 when a candidate at all
  std::size_t count = 0;
};

Candidates find_candidates(const Trace& trace, const std::vector<TimelineStep>& steps,
                           const Diagnosis& diagnosis) {
  const EventTable& e = trace.events;
  Candidates c;
  c.marked.assign(e.size(), 0);
  c.by_finding.resize(diagnosis.findings.size());
  for (const TimelineStep& step : steps) {
    auto at = std::lower_bound(e.start_ns.begin(), e.start_ns.end(), step.start_ns);
    for (auto i = static_cast<EventIndex>(at - e.start_ns.begin());
         i < static_cast<EventIndex>(e.size()) && e.start_ns[i] < step.end_ns; ++i) {
      if (!drawable(e.event_class[i]) || c.marked[i]) continue;
      c.marked[i] = 1;
      c.in_steps.push_back(i);
    }
  }
  // In trace order whatever the order of the steps' spans (longest_first keeps it for ties).
  if (!std::is_sorted(c.in_steps.begin(), c.in_steps.end())) {
    std::sort(c.in_steps.begin(), c.in_steps.end());
  }
  const auto windows = reference_windows(trace, diagnosis);
  if (!windows.empty()) {
    for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
      if (!drawable(e.event_class[i]) || !maybe_referenced(trace, i, windows)) continue;
      for (const std::size_t f : findings_of(trace, i, windows)) c.by_finding[f].push_back(i);
    }
  }
  for (const auto& events : c.by_finding) {
    for (const EventIndex i : events) c.marked[i] = 1;
  }
  c.count = static_cast<std::size_t>(std::count(c.marked.begin(), c.marked.end(), 1));
  return c;
}

// The `count` longest events first, in no order (the rest after them); of events of equal
// length, the earlier in trace order counts as longer, so which events come first is decided
// whatever the order they came in. No sort: the kept events are put in trace order at the end.
void longest_first(const Trace& trace, std::vector<EventIndex>& events, std::size_t count) {
  const Column<std::int64_t>& dur = trace.events.dur_ns;
  const auto longer = [&dur](EventIndex a, EventIndex b) {
    return dur[a] != dur[b] ? dur[a] > dur[b] : a < b;
  };
  if (count >= events.size()) return;
  std::nth_element(events.begin(), events.begin() + static_cast<std::ptrdiff_t>(count),
                   events.end(), longer);
}

// All candidates when they fit; else each finding keeps its longest events within an equal share
// of half the cap, and the steps' longest events not taken by a finding fill the rest.
std::vector<EventIndex> apply_cap(const Trace& trace, Candidates c, std::size_t cap) {
  std::vector<EventIndex> kept;
  std::vector<std::uint8_t> taken(c.marked.size(), 0);
  auto take = [&](EventIndex i) {
    if (taken[i] || kept.size() >= cap) return;
    taken[i] = 1;
    kept.push_back(i);
  };
  const bool all_fit = c.count <= cap;
  std::size_t referencing = 0;
  for (const auto& events : c.by_finding) referencing += events.empty() ? 0 : 1;
  const std::size_t share = referencing == 0 ? 0 : (cap / 2) / referencing;
  for (auto& events : c.by_finding) {
    if (!all_fit) longest_first(trace, events, share);
    for (std::size_t k = 0; k < events.size() && (all_fit || k < share); ++k) take(events[k]);
  }
  if (!all_fit) {
    std::erase_if(c.in_steps, [&taken](EventIndex i) { return taken[i] != 0; });
    longest_first(trace, c.in_steps, cap - kept.size());
  }
  for (const EventIndex i : c.in_steps) take(i);
  std::sort(kept.begin(), kept.end());
  return kept;
}

// Where to cut `text` to at most `bytes` bytes without splitting a UTF-8 sequence.
std::size_t cut_point(std::string_view text, std::size_t bytes) {
  if (text.size() <= bytes) return text.size();
  std::size_t at = bytes;
  while (at > 0 && (static_cast<unsigned char>(text[at]) & 0xc0) == 0x80) --at;
  return at;
}

// The strings the events point to, each stored once and cut to the limits.
class StringTable {
 public:
  StringTable(std::vector<std::string>& strings, const TimelineLimits& limits)
      : strings_(strings), limits_(limits) {}
  // A string of the trace's pool: most events repeat a few names, so the answer is kept per id
  // and reused while the name still fits the limit (the text lookup would find the same entry).
  std::int32_t add(const StringPool& pool, StringId id) {
    if (id >= by_id_.size()) by_id_.resize(pool.size(), kNoString);
    const std::string_view text = pool.view(id);
    if (by_id_[id] != kNoString && text.size() <= limit()) return by_id_[id];
    return by_id_[id] = add(text);
  }

  std::int32_t add(std::string_view text) {
    if (text.empty()) return kNoString;
    const std::size_t limit = this->limit();
    // Most texts repeat and fit whole: found without building a string.
    if (text.size() <= limit) {
      if (const auto found = index_.find(text); found != index_.end()) return found->second;
    }
    std::string stored(text.substr(0, cut_point(text, limit)));
    if (stored.size() < text.size()) stored += "\u2026";  // …
    const auto [at, inserted] =
        index_.try_emplace(stored, static_cast<std::int32_t>(strings_.size()));
    if (inserted) {
      bytes_ += stored.size();
      strings_.push_back(std::move(stored));
    }
    return at->second;
  }

 private:
  [[nodiscard]] std::size_t limit() const {
    return bytes_ < limits_.string_budget_bytes ? limits_.max_string_bytes
                                                : limits_.short_string_bytes;
  }
  std::vector<std::string>& strings_;
  const TimelineLimits& limits_;
  std::vector<std::int32_t> by_id_;  // per StringId: its index in strings_, once added
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view text) const {
      return std::hash<std::string_view>{}(text);
    }
  };
  std::unordered_map<std::string, std::int32_t, Hash, std::equal_to<>> index_;
  std::size_t bytes_ = 0;
};

// Deeper calls share the last row: a runaway recursion must not make a canvas taller than a
// browser draws (about 32,000 px).
constexpr int kMaxRowsPerLane = 32;

int depth_of(const Trace& trace, EventIndex i) {
  if (!is_nested_host_event(trace.events.event_class[i])) return 0;
  int depth = 0;
  for (EventIndex p = trace.events.parent[i]; p != kNoEvent; p = trace.events.parent[p]) ++depth;
  return depth;
}

// Device work takes the phase of the markers around its launch call; host calls their own.
int phase_of(const Trace& trace, MarkerPhases& markers, EventIndex i) {
  EventIndex at = is_device_activity(trace.events.event_class[i]) ? trace.events.launcher[i] : i;
  for (; at != kNoEvent; at = trace.events.parent[at]) {
    if (const std::optional<Phase> phase = markers.of(at)) {
      return static_cast<int>(*phase);
    }
  }
  return -1;
}

// The kept step an event belongs to: host calls by the steps' host spans, device work by their
// device-rebased spans (a step's device work can run on past the next step's host start).
class StepLookup {
 public:
  explicit StepLookup(const std::vector<const Step*>& kept) {
    host_.reserve(kept.size());
    device_.reserve(kept.size());
    for (const Step* step : kept) {
      host_.emplace_back(step->host_start_ns, step->host_end_ns, step->number);
      device_.emplace_back(step->start_ns, step->end_ns, step->number);
    }
    std::sort(host_.begin(), host_.end());
    std::sort(device_.begin(), device_.end());
  }
  [[nodiscard]] std::int64_t step_of(const Trace& trace, EventIndex i) const {
    const bool device = is_device_activity(trace.events.event_class[i]);
    return find(device ? device_ : host_, trace.events.start_ns[i]);
  }

 private:
  using Span = std::tuple<std::int64_t, std::int64_t, std::int64_t>;  // start, end, number
  static std::int64_t find(const std::vector<Span>& spans, std::int64_t t) {
    auto after = std::upper_bound(spans.begin(), spans.end(), Span{t, INT64_MAX, INT64_MAX});
    if (after == spans.begin()) return -1;
    const auto& [start, end, number] = *std::prev(after);
    return t < end ? number : -1;
  }
  std::vector<Span> host_;
  std::vector<Span> device_;
};

// Lanes: host threads first (in thread order), then device streams by (device, stream).
using LaneKey = std::tuple<int, std::int64_t, std::int64_t>;
LaneKey lane_key(const Trace& trace, EventIndex i) {
  if (is_device_activity(trace.events.event_class[i])) {
    return {1, trace.activity_device(i), trace.activity_stream(i)};
  }
  return {0, trace.events.thread[i], 0};
}

std::string lane_label(const Trace& trace, const LaneKey& key) {
  const auto [kind, a, b] = key;
  if (kind == 1) return fmt::format("GPU {} stream {}", a, b);
  const ThreadInfo& thread = trace.threads[static_cast<std::size_t>(a)];
  // Kineto names its threads "thread TID (python3)" already.
  return thread.name.empty() ? "thread " + thread.key.tid : thread.name;
}

std::string frame_text(const CodeLocation& where) {
  if (where.file.empty()) return {};
  std::string text = fmt::format("{}:{}", where.file, where.line);
  if (!where.function.empty()) text += " " + where.function;
  return text;
}

void describe_events(const RankAnalyses& a, const std::vector<EventIndex>& chosen,
                     const TimelineLimits& limits, MarkerPhases& markers, TimelineData& data) {
  const Trace& trace = a.trace.get();
  const EventTable& e = trace.events;
  const StepLookup steps(a.steps.kept());
  StringTable strings(data.strings, limits);
  std::map<LaneKey, std::uint32_t> lanes;
  std::vector<const std::uint32_t*> lane_slot;  // per chosen event: its lane's index, set below
  lane_slot.reserve(chosen.size());
  for (const EventIndex i : chosen) {
    lane_slot.push_back(&lanes.emplace(lane_key(trace, i), 0).first->second);
  }
  for (auto& [key, index] : lanes) {
    index = static_cast<std::uint32_t>(data.lanes.size());
    data.lanes.push_back({lane_label(trace, key), std::get<0>(key) == 1, 1});
  }
  // The events by lane, then start: `chosen` is in trace order, which is start order, so each
  // event goes to the next free place of its lane (a counting sort, stable).
  std::vector<std::uint32_t> lane_of(chosen.size());
  std::vector<std::size_t> next_in_lane(data.lanes.size() + 1, 0);
  for (std::size_t k = 0; k < chosen.size(); ++k) {
    lane_of[k] = *lane_slot[k];
    ++next_in_lane[lane_of[k] + 1];
  }
  std::partial_sum(next_in_lane.begin(), next_in_lane.end(), next_in_lane.begin());
  data.events.resize(chosen.size());
  for (std::size_t k = 0; k < chosen.size(); ++k) {
    const EventIndex i = chosen[k];
    TimelineEvent& out = data.events[next_in_lane[lane_of[k]]++];
    out.event = i;
    out.start_ns = e.start_ns[i];
    out.dur_ns = e.dur_ns[i];
    out.lane = lane_of[k];
    out.row = std::min(depth_of(trace, i), kMaxRowsPerLane - 1);
    out.name = strings.add(trace.strings, e.name[i]);
    out.event_class = e.event_class[i];
    out.step = steps.step_of(trace, i);
    out.phase = phase_of(trace, markers, i);
    if (is_device_activity(out.event_class)) {
      if (e.owner_op[i] != kNoEvent) out.op = strings.add(trace.strings, e.name[e.owner_op[i]]);
      if (e.launcher[i] != kNoEvent) out.launch = strings.add(trace.strings, e.name[e.launcher[i]]);
    }
    if (!a.code.empty()) {
      const CodeLocation where = locate(trace, a.code, i);
      out.frame = strings.add(frame_text(where));
      out.module = strings.add(where.module_path);
    }
    TimelineLane& lane = data.lanes[out.lane];
    lane.rows = std::max(lane.rows, out.row + 1);
  }
}

std::vector<TimelinePhaseSpan> phase_spans(const Trace& trace, MarkerPhases& markers,
                                           const std::vector<TimelineStep>& steps) {
  const EventTable& e = trace.events;
  std::vector<TimelinePhaseSpan> spans;
  for (const TimelineStep& step : steps) {
    auto at = std::lower_bound(e.start_ns.begin(), e.start_ns.end(), step.start_ns);
    for (auto i = static_cast<EventIndex>(at - e.start_ns.begin());
         i < static_cast<EventIndex>(e.size()) && e.start_ns[i] < step.end_ns; ++i) {
      if (!is_nested_host_event(e.event_class[i])) continue;
      if (const std::optional<Phase> phase = markers.of(i)) {
        spans.push_back(
            {static_cast<int>(*phase), e.start_ns[i], std::min(e.end_ns(i), step.end_ns)});
      }
    }
  }
  std::sort(spans.begin(), spans.end(), [](const TimelinePhaseSpan& x, const TimelinePhaseSpan& y) {
    return std::tie(x.phase, x.start_ns) < std::tie(y.phase, y.start_ns);
  });
  std::vector<TimelinePhaseSpan> merged;
  for (const TimelinePhaseSpan& span : spans) {
    if (!merged.empty() && merged.back().phase == span.phase &&
        span.start_ns <= merged.back().end_ns + kPhaseGapNs) {
      merged.back().end_ns = std::max(merged.back().end_ns, span.end_ns);
    } else {
      merged.push_back(span);
    }
  }
  return merged;
}

void link_findings(const Trace& trace, const Diagnosis& diagnosis, TimelineData& data) {
  const auto windows = reference_windows(trace, diagnosis);
  data.findings.resize(diagnosis.findings.size());
  for (std::size_t f = 0; f < diagnosis.findings.size(); ++f) {
    data.findings[f].index = f;
    data.findings[f].id = diagnosis.findings[f].id;
    for (const Evidence& evidence : diagnosis.findings[f].evidence) {
      for (const EventRefs& refs : evidence.events) {
        if (refs.count > 0)
          data.findings[f].spans.emplace_back(refs.first_start_ns, refs.last_end_ns);
      }
    }
  }
  for (std::size_t k = 0; k < data.events.size(); ++k) {
    if (!maybe_referenced(trace, data.events[k].event, windows)) continue;
    for (const std::size_t f : findings_of(trace, data.events[k].event, windows)) {
      data.findings[f].events.push_back(static_cast<std::uint32_t>(k));
    }
  }
}

void mark_critical_path(const RankAnalyses& analyses, TimelineData& data) {
  if (data.events.empty() || analyses.step_models.runs.empty()) return;
  const std::vector<EventIndex> on_path =
      critical_path_events(analyses.trace.get(), analyses.step_models);
  for (std::size_t k = 0; k < data.events.size(); ++k) {
    if (std::binary_search(on_path.begin(), on_path.end(), data.events[k].event)) {
      data.critical_path.push_back(static_cast<std::uint32_t>(k));
    }
  }
}

void set_extent(TimelineData& data) {
  bool any = false;
  auto extend = [&](std::int64_t start, std::int64_t end) {
    data.origin_ns = any ? std::min(data.origin_ns, start) : start;
    data.end_ns = any ? std::max(data.end_ns, end) : end;
    any = true;
  };
  for (const TimelineStep& step : data.steps) extend(step.start_ns, step.end_ns);
  for (const TimelineEvent& event : data.events)
    extend(event.start_ns, event.start_ns + event.dur_ns);
}

}  // namespace

TimelineData select_timeline(const RankAnalyses& analyses, const Diagnosis& diagnosis,
                             const TimelineLimits& limits) {
  const Trace& trace = analyses.trace.get();
  TimelineData data;
  data.rank = trace.rank;
  data.steps = choose_steps(analyses.steps.kept(), diagnosis, limits.max_steps);
  Candidates candidates = find_candidates(trace, data.steps, diagnosis);
  data.candidate_events = candidates.count;
  const std::vector<EventIndex> chosen = apply_cap(trace, std::move(candidates), limits.max_events);
  MarkerPhases markers(trace);
  describe_events(analyses, chosen, limits, markers, data);
  data.phases = phase_spans(trace, markers, data.steps);
  link_findings(trace, diagnosis, data);
  mark_critical_path(analyses, data);
  set_extent(data);
  return data;
}

}  // namespace stepscope::render::html
