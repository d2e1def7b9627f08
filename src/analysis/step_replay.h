// Re-timing one step graph (step_model.h) under a change, and walking back from the step's end
// along whatever bound each event's start: the critical path.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "stepscope/analysis/what_if.h"

namespace stepscope {

// Time on the critical path, by class and by event name, summed over the replayed steps. Names
// are the trace's interned ids (hashing an id, not the text: kernel names are long and the path
// holds thousands of them per step), or one of the two stretches that have no event.
struct PathTally {
  static constexpr StringId kLaunchLatency = std::numeric_limits<StringId>::max();
  static constexpr StringId kOutsideOps = kLaunchLatency - 1;
  struct NameTime {
    std::int64_t ns = 0;
    std::int64_t count = 0;
  };

  std::int64_t steps = 0;
  std::int64_t modelled_ns = 0;  // replayed step durations, summed
  std::int64_t measured_ns = 0;
  std::array<std::int64_t, kPathClassCount> by_class{};
  std::unordered_map<std::uint64_t, NameTime> by_name;  // key(name, class)
  // When set, the events the path runs through (critical_path_events), in walk order.
  std::vector<EventIndex>* events = nullptr;

  static std::uint64_t key(StringId name, PathClass path_class) {
    return (static_cast<std::uint64_t>(name) << 8U) | static_cast<std::uint64_t>(path_class);
  }
  static StringId name_of(std::uint64_t key) { return static_cast<StringId>(key >> 8U); }
  static PathClass class_of(std::uint64_t key) { return static_cast<PathClass>(key & 0xffU); }
  // The name as shown: the trace's text, or the stretch without an event.
  static std::string_view text_of(const Trace& trace, StringId name);

  void add(PathClass path_class, StringId name, std::int64_t ns);
  void note(EventIndex event) const {
    if (events != nullptr) events->push_back(event);
  }
};

// Replays every modelled step under `change` into `tally`; `walk_path` false sums the modelled
// steps only (a gain needs no path).
void replay_steps(const Trace& trace, const StepModels& models, const WhatIfChange& change,
                  PathTally& tally, bool walk_path = true);

}  // namespace stepscope
