// GPU kernel breakdown per device (docs/metrics/04-hta-gpu-kernel-breakdown.md §4.2, §4.3 native):
// the window's activity time partitioned by which classes run at once (e.g.
// "computation+communication"), and the kernels that take the most time, with per-instance
// statistics.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stepscope/analysis/kernel_class.h"
#include "stepscope/analysis/options.h"
#include "stepscope/analysis/steps.h"
#include "stepscope/trace.h"

namespace stepscope {

// Time during which exactly this combination of classes is active.
struct OverlapLabel {
  bool computation = false;
  bool communication = false;
  bool memory = false;
  std::int64_t ns = 0;
  double share = 0;                        // of the union of all activity
  [[nodiscard]] std::string name() const;  // "computation+communication", ...
};

struct KernelRow {
  std::string name;
  ActivityClass activity_class = ActivityClass::kComputation;
  std::int64_t count = 0;
  std::int64_t total_ns = 0;
  double mean_ns = 0;
  std::int64_t min_ns = 0;
  std::int64_t max_ns = 0;
  double std_ns = 0;  // sample (n - 1); 0 for one instance
  double share = 0;   // of the device's total activity time (sum of durations)
};

struct DeviceKernels {
  std::int32_t device = -1;
  // Activity overlapping W, clipped to it: the labels partition the busy time of §3.
  std::vector<OverlapLabel> labels;  // no zero rows; sorted by time, largest first
  // Instances that start in W (whole durations), for the statistics and shares below.
  std::int64_t activity_ns = 0;            // sum of durations (not a union)
  std::vector<KernelRow> top;              // top N by total across classes
  std::vector<KernelRow> top_by_class[3];  // computation, communication, memory
  std::int64_t others_count = 0;           // everything after the top N
  std::int64_t others_ns = 0;
  std::int64_t others_count_by_class[3] = {};  // after each class's top N
  std::int64_t others_ns_by_class[3] = {};
  std::int64_t distinct_names = 0;
};

struct KernelBreakdownResult {
  bool applicable = false;
  std::string not_applicable_reason;
  std::vector<DeviceKernels> devices;
};

// Native, per device: labels over W; kernel statistics over the instances whose start lies in
// W; top N = options.top.
KernelBreakdownResult compute_kernel_breakdown(const Trace& trace, const StepsResult& steps,
                                               const AnalysisOptions& options);

}  // namespace stepscope
