// Re-timing one step graph (step_model.h) under a change, and walking back from the step's end
// along whatever bound each event's start: the critical path.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <unordered_map>

#include "stepscope/analysis/what_if.h"

namespace stepscope {

// Time on the critical path, by class and by event name, summed over the replayed steps.
struct PathTally {
  struct NameKey {
    std::string_view name;
    PathClass path_class;
    bool operator==(const NameKey&) const = default;
  };
  struct NameHash {
    std::size_t operator()(const NameKey& key) const noexcept {
      return std::hash<std::string_view>{}(key.name) ^ static_cast<std::size_t>(key.path_class);
    }
  };
  struct NameTime {
    std::int64_t ns = 0;
    std::int64_t count = 0;
  };

  std::int64_t steps = 0;
  std::int64_t modelled_ns = 0;  // replayed step durations, summed
  std::int64_t measured_ns = 0;
  std::array<std::int64_t, kPathClassCount> by_class{};
  std::unordered_map<NameKey, NameTime, NameHash> by_name;

  void add(PathClass path_class, std::string_view name, std::int64_t ns);
};

// Replays every modelled step under `change` into `tally`; `walk_path` false sums the modelled
// steps only (a gain needs no path).
void replay_steps(const Trace& trace, const StepModels& models, const WhatIfChange& change,
                  PathTally& tally, bool walk_path = true);

}  // namespace stepscope
