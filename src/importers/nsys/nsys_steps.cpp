#include "importers/nsys/nsys_steps.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string_view>
#include <vector>

#include "importers/nsys/nsys_names.h"

namespace stepscope::nsys {

namespace {

constexpr std::string_view kStepPrefix = "ProfilerStep#";
constexpr std::size_t kMinimumRepeats = 3;
constexpr double kMinimumCoverage = 0.5;

// Annotations of one thread, in time order (ties: longer first).
std::vector<EventIndex> annotations_on(const Trace& trace, std::uint32_t thread) {
  const EventTable& e = trace.events;
  std::vector<EventIndex> out;
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    if (e.event_class[i] == EventClass::kAnnotation && e.thread[i] == thread) out.push_back(i);
  }
  std::sort(out.begin(), out.end(), [&e](EventIndex a, EventIndex b) {
    return e.start_ns[a] != e.start_ns[b] ? e.start_ns[a] < e.start_ns[b]
                                          : e.dur_ns[a] > e.dur_ns[b];
  });
  return out;
}

// The thread with the most annotations that `accept` takes.
template <typename Accept>
std::optional<std::uint32_t> busiest_thread(const Trace& trace, Accept accept) {
  const EventTable& e = trace.events;
  std::map<std::uint32_t, std::size_t> counts;
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    if (e.event_class[i] == EventClass::kAnnotation && accept(i)) ++counts[e.thread[i]];
  }
  if (counts.empty()) return std::nullopt;
  return std::max_element(counts.begin(), counts.end(),
                          [](const auto& a, const auto& b) { return a.second < b.second; })
      ->first;
}

// The ranges in `sorted` that no other range of the list encloses.
std::vector<EventIndex> outermost(const Trace& trace, const std::vector<EventIndex>& sorted) {
  const EventTable& e = trace.events;
  std::vector<EventIndex> out;
  std::int64_t covered_until = INT64_MIN;
  for (const EventIndex i : sorted) {
    if (e.start_ns[i] < covered_until && e.end_ns(i) <= covered_until) continue;
    out.push_back(i);
    covered_until = std::max(covered_until, e.end_ns(i));
  }
  return out;
}

struct Candidate {
  std::vector<EventIndex> ranges;
  std::int64_t total_ns = 0;
};

// The outermost ranges on `thread` grouped by name, for names `accept` takes.
template <typename Accept>
std::map<StringId, Candidate> by_name(const Trace& trace, std::uint32_t thread, Accept accept) {
  std::vector<EventIndex> sorted = annotations_on(trace, thread);
  std::erase_if(sorted, [&](EventIndex i) { return !accept(i); });
  std::map<StringId, Candidate> names;
  for (const EventIndex i : outermost(trace, sorted)) {
    Candidate& candidate = names[trace.events.name[i]];
    candidate.ranges.push_back(i);
    candidate.total_ns += trace.events.dur_ns[i];
  }
  return names;
}

double coverage(const Trace& trace, const Candidate& candidate) {
  const EventTable& e = trace.events;
  const std::int64_t span =
      e.end_ns(candidate.ranges.back()) - e.start_ns[candidate.ranges.front()];
  return span > 0 ? static_cast<double>(candidate.total_ns) / static_cast<double>(span) : 0.0;
}

std::string rename_as_steps(Trace& trace, const Candidate& steps, std::string_view why) {
  const std::string original(trace.strings.view(trace.events.name[steps.ranges.front()]));
  for (std::size_t k = 0; k < steps.ranges.size(); ++k) {
    trace.events.name[steps.ranges[k]] =
        trace.strings.intern(std::string(kStepPrefix) + std::to_string(k));
  }
  return fmt::format(
      "steps from NVTX: the {} ranges named \"{}\" were taken as steps ProfilerStep#0 to #{} ({})",
      steps.ranges.size(), original, steps.ranges.size() - 1, why);
}

}  // namespace

std::string mark_steps(Trace& trace) {
  const EventTable& e = trace.events;
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    if (e.event_class[i] == EventClass::kAnnotation && trace.name_of(i).starts_with(kStepPrefix)) {
      return {};
    }
  }
  auto common = [&trace](EventIndex i) { return is_common_step_name(trace.name_of(i)); };
  if (const std::optional<std::uint32_t> thread = busiest_thread(trace, common)) {
    const std::map<StringId, Candidate> names = by_name(trace, *thread, common);
    const auto best = std::max_element(
        names.begin(), names.end(),
        [](const auto& a, const auto& b) { return a.second.total_ns < b.second.total_ns; });
    return rename_as_steps(trace, best->second, "a common name for a training step");
  }
  auto plain = [&trace](EventIndex i) {
    const std::string_view name = trace.name_of(i);
    return !is_data_loading_name(name) && !name.starts_with("enumerate(");
  };
  if (const std::optional<std::uint32_t> thread = busiest_thread(trace, plain)) {
    const std::map<StringId, Candidate> names = by_name(trace, *thread, plain);
    const Candidate* best = nullptr;
    for (const auto& [name, candidate] : names) {
      if (candidate.ranges.size() < kMinimumRepeats) continue;
      if (coverage(trace, candidate) < kMinimumCoverage) continue;
      if (best == nullptr || candidate.total_ns > best->total_ns) best = &candidate;
    }
    if (best != nullptr) {
      const std::string why = fmt::format(
          "the range repeats at the top level of the busiest thread and covers {:.0f} % of the "
          "time from its first start to its last end",
          100.0 * coverage(trace, *best));
      return rename_as_steps(trace, *best, why);
    }
  }
  return "steps from NVTX: no range is named ProfilerStep#N or a common step name (train_step, "
         "step, ...), and none repeats at the top level of the busiest thread: steps are "
         "inferred; push an NVTX range around each training step to name them";
}

std::string mark_data_loading(Trace& trace) {
  EventTable& e = trace.events;
  std::map<std::string, std::size_t> renamed;
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    if (e.event_class[i] != EventClass::kAnnotation) continue;
    const std::string name(trace.name_of(i));
    if (name.starts_with("enumerate(") || !is_data_loading_name(name)) continue;
    e.name[i] = trace.strings.intern("enumerate(DataLoader)#nvtx(" + name + ").__next__");
    ++renamed[name];
  }
  if (renamed.empty()) return {};
  std::string list;
  for (const auto& [name, count] : renamed) {
    list += fmt::format("{}\"{}\" ({})", list.empty() ? "" : ", ", name, count);
  }
  return "input from NVTX: ranges taken as DataLoader waits: " + list;
}

}  // namespace stepscope::nsys
