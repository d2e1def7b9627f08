// Helpers shared by the rules: expected gains relative to the step, and the event references
// that evidence rests on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "stepscope/analysis/rank_analyses.h"
#include "stepscope/diagnosis/finding.h"

namespace stepscope {

// Mean duration of the kept steps (ns), or 0 when the trace has none.
double mean_step_ns(const RankAnalyses& rank);

ExpectedGain make_gain(std::int64_t bound_ns, std::int64_t likely_ns, double step_ns,
                       std::string method);

// A gain predicted by re-timing the kept steps with the fix applied (what_if.h): likely is the
// modelled saving per step; the bound is `bound_ns` or the saving, whichever is larger (removing
// a sync can save more than the idle it owns: the host then runs ahead). Without steps to replay,
// `fallback_likely_ns` is taken and the method says so.
ExpectedGain make_predicted_gain(const RankAnalyses& rank, const WhatIfChange& fix,
                                 std::int64_t bound_ns, std::int64_t fallback_likely_ns,
                                 std::string_view bound_method);

// Collects events by name into EventRefs (count, first start, last end, kept steps they
// start in), for events chosen by `select`.
template <typename Select>
std::vector<EventRefs> collect_refs(const RankAnalyses& rank, Select&& select);

// The kept step that contains time t, or nullptr.
const Step* step_at(const StepsResult& steps, std::int64_t t);

// step_at for a pass over events in start order: the times asked never decrease, so one walk
// over the steps replaces a binary search per event. A time earlier than the last one asked is
// still answered (by step_at).
class StepCursor {
 public:
  explicit StepCursor(const StepsResult& steps) : steps_(steps) {}
  [[nodiscard]] const Step* at(std::int64_t t);

 private:
  const StepsResult& steps_;
  std::size_t after_ = 0;  // the first step that starts after the last time asked
  std::int64_t last_ = INT64_MIN;
};

// Keeps the `limit` references with the most events, most first: evidence names the main
// events, not every one.
void keep_most_frequent(std::vector<EventRefs>& refs, std::size_t limit);

// Events grouped by name into EventRefs (count, first start, last end, kept steps they start
// in), names in the order first seen. Names are found by hashing: a trace with hundreds of
// thousands of distinct op names stays linear.
class EventRefList {
 public:
  // Adds one event to the reference with its name (creating it); returns the reference's index.
  std::size_t add(std::string_view name, std::int64_t start_ns, std::int64_t end_ns,
                  const Step* step);
  [[nodiscard]] bool empty() const { return refs_.empty(); }
  [[nodiscard]] std::size_t size() const { return refs_.size(); }
  [[nodiscard]] const std::vector<EventRefs>& all() const { return refs_; }
  // The `limit` references with the most events, most first (ties in first-seen order).
  [[nodiscard]] std::vector<EventRefs> most_frequent(std::size_t limit) const;
  [[nodiscard]] std::vector<EventRefs> release() && { return std::move(refs_); }

 private:
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view name) const {
      return std::hash<std::string_view>{}(name);
    }
  };
  struct RefStepHash {
    std::size_t operator()(const std::pair<std::size_t, std::int64_t>& key) const {
      return std::hash<std::size_t>{}(key.first) * 31 + std::hash<std::int64_t>{}(key.second);
    }
  };
  std::vector<EventRefs> refs_;
  std::unordered_map<std::string, std::size_t, NameHash, std::equal_to<>> index_;
  // (reference, step number) pairs already listed, for events that come out of start order.
  std::unordered_set<std::pair<std::size_t, std::int64_t>, RefStepHash> listed_steps_;
};

// Events grouped by name, each name weighted by what its events account for (the idle they
// overlap, the wait they cause): the heaviest names are the evidence.
class WeightedRefs {
 public:
  void add(std::string_view name, std::int64_t start_ns, std::int64_t end_ns, const Step* step,
           std::int64_t weight);
  // The `limit` heaviest, heaviest first.
  [[nodiscard]] std::vector<EventRefs> heaviest(std::size_t limit) const;

 private:
  EventRefList refs_;
  std::vector<std::int64_t> weights_;  // parallel to refs_
};

template <typename Select>
std::vector<EventRefs> collect_refs(const RankAnalyses& rank, Select&& select) {
  EventRefList refs;
  const EventTable& e = rank.trace->events;
  StepCursor in_step(rank.steps);
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    if (!select(i)) continue;
    refs.add(rank.trace->name_of(i), e.start_ns[i], e.end_ns(i), in_step.at(e.start_ns[i]));
  }
  return std::move(refs).release();
}

}  // namespace stepscope
