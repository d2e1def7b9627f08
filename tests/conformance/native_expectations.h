// conformance.md §6: the native-mode expectations per rank (µs, ±0.001), shared by the
// conformance tests of the temporal breakdown, the kernel-class partition and the overlap.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stepscope/load.h"

namespace stepscope::testing {

struct NativeExpectation {
  std::string folder;
  std::int64_t rank;
  std::vector<std::int64_t> kept_steps;  // empty: no steps, W = GPU activity span
  double window, busy, idle, idle_percent, compute, communication_only, memory_only;
  double overlap_percent;  // < 0: none (no communication)
};

inline const std::vector<NativeExpectation>& native_expectations() {
  static const std::vector<NativeExpectation> kTable = {
      {"hta/amd_trace", 0, {1}, 9288.291, 149.042, 9139.249, 98.40, 110.881, 0, 38.161, -1},
      {"hta/critical_path/alexnet", 0, {}, 12920244, 66141, 12854103, 99.49, 10630, 0, 55511, -1},
      {"hta/df_index_resolver",
       1,
       {2, 3, 4, 5, 6},
       1737902,
       1000613,
       737289,
       42.42,
       620516,
       357343,
       22754,
       0.00},
      {"hta/nccl_parser_config",
       0,
       {4, 5, 6},
       667225.958,
       157500.014,
       509725.944,
       76.39,
       115655.847,
       39559.468,
       2284.699,
       15.61},
      {"hta/negative_queue_length_values_check",
       0,
       {550, 551, 552, 553, 554},
       1229227,
       438418,
       790809,
       64.33,
       210998,
       185317,
       42103,
       1.36},
      {"hta/ns_resolution_trace",
       0,
       {101, 102, 103, 104, 105},
       483517.602,
       472454.441,
       11063.161,
       2.29,
       468153.602,
       0,
       4300.839,
       -1},
      {"hta/sampled_two_ranks",
       0,
       {551, 552},
       1230289,
       547656,
       682633,
       55.49,
       210320,
       336983,
       353,
       14.95},
      {"hta/sampled_two_ranks",
       1,
       {551, 552},
       1238593,
       580050,
       658543,
       53.17,
       271973,
       303523,
       4554,
       19.93},
      {"hta/trace_diff/control",
       3,
       {1009, 1010, 1011, 1012, 1013, 1014},
       465171,
       388587,
       76584,
       16.46,
       281336,
       87921,
       19330,
       46.24},
      {"hta/trace_diff/test",
       1,
       {1009, 1010, 1011, 1012, 1013, 1014},
       744515,
       717437,
       27078,
       3.64,
       547949,
       73298,
       96190,
       70.84},
  };
  return kTable;
}

inline const Trace* rank_of(const TraceSet& set, std::int64_t rank) {
  for (const Trace& t : set.ranks) {
    if (t.rank == rank) return &t;
  }
  return nullptr;
}

inline double us(std::int64_t ns) { return static_cast<double>(ns) / 1000.0; }

}  // namespace stepscope::testing
