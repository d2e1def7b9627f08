#include "stepscope/analysis/what_if.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "analysis/step_replay.h"

namespace stepscope {

std::string_view to_string(PathClass path_class) {
  switch (path_class) {
    case PathClass::kHostOps:
      return "host_ops";
    case PathClass::kDataLoading:
      return "data_loading";
    case PathClass::kLaunchCalls:
      return "launch_calls";
    case PathClass::kLaunchLatency:
      return "launch_latency";
    case PathClass::kSync:
      return "sync";
    case PathClass::kCompute:
      return "compute";
    case PathClass::kCommunication:
      return "communication";
    case PathClass::kMemory:
      return "memory";
  }
  return "host_ops";
}

std::string_view to_string(KernelGroup group) {
  switch (group) {
    case KernelGroup::kFp32Matmul:
      return "fp32-matmul";
    case KernelGroup::kCommunication:
      return "communication";
  }
  return "fp32-matmul";
}

bool WhatIfChange::empty() const {
  return loader_left == 1 && !no_syncs && launch_ns < 0 && ops.empty() && kernels.empty() &&
         !tensor_cores;
}

std::string WhatIfChange::describe() const {
  std::vector<std::string> parts;
  if (loader_left == 0) {
    parts.emplace_back("DataLoader ready at once");
  } else if (loader_left != 1) {
    parts.push_back(fmt::format("data loading {:.0f} % of today's", loader_left * 100));
  }
  if (no_syncs) parts.emplace_back("blocking syncs removed");
  if (launch_ns >= 0) {
    parts.push_back(
        fmt::format("launch calls at most {:.1f} µs", static_cast<double>(launch_ns) / 1e3));
  }
  for (const OpSpeedup& op : ops) parts.push_back(fmt::format("{} {:g}x faster", op.op, op.factor));
  for (const KernelSpeedup& kernel : kernels) {
    parts.push_back(fmt::format("{} kernels {:g}x faster", to_string(kernel.group), kernel.factor));
  }
  if (tensor_cores) {
    parts.emplace_back(
        "fp32 matmul kernels on tensor cores at the device's half-precision peak, with "
        "autocast's weight casts");
  }
  if (parts.empty()) return "nothing changed";
  std::string text = parts.front();
  for (std::size_t i = 1; i < parts.size(); ++i) text += "; " + parts[i];
  return text;
}

namespace {

std::vector<std::string> bounds_of(const StepModels& models) {
  std::vector<std::string> bounds;
  if (models.unlinked_activities > 0) {
    bounds.push_back(fmt::format(
        "{} device activities in the kept steps have no launch call in the trace (no correlation): "
        "they are left out of the graph, so device time may be missing from the path",
        models.unlinked_activities));
  }
  if (models.cross_stream_waits > 0) {
    bounds.push_back(fmt::format(
        "{} cudaStreamWaitEvent calls: waits between streams are not modelled, so work on one "
        "stream may be predicted to start before the other stream's work it waits for",
        models.cross_stream_waits));
  }
  if (models.latency_assumed) {
    bounds.push_back(fmt::format(
        "the device queues never ran dry, so no launch latency could be measured: {:g} µs is "
        "assumed where a change would empty them",
        static_cast<double>(kAssumedLaunchLatencyNs) / 1e3));
  }
  return bounds;
}

CriticalPathResult to_result(const Trace& trace, const PathTally& tally, const StepModels& models,
                             std::size_t top) {
  CriticalPathResult result;
  result.steps = tally.steps;
  result.unlinked_activities = models.unlinked_activities;
  result.cross_stream_waits = models.cross_stream_waits;
  result.bounds = bounds_of(models);
  if (tally.steps == 0) {
    result.not_applicable_reason = "no kept steps";
    return result;
  }
  result.applicable = true;
  const auto steps = static_cast<double>(tally.steps);
  result.measured_step_ns = static_cast<double>(tally.measured_ns) / steps;
  result.modelled_step_ns = static_cast<double>(tally.modelled_ns) / steps;
  for (std::size_t c = 0; c < kPathClassCount; ++c) {
    if (tally.by_class[c] <= 0) continue;
    PathClassTime time;
    time.path_class = static_cast<PathClass>(c);
    time.ns_per_step = static_cast<double>(tally.by_class[c]) / steps;
    time.share = result.modelled_step_ns > 0 ? time.ns_per_step / result.modelled_step_ns : 0;
    result.classes.push_back(time);
  }
  std::stable_sort(result.classes.begin(), result.classes.end(),
                   [](const auto& a, const auto& b) { return a.ns_per_step > b.ns_per_step; });
  for (const auto& [key, time] : tally.by_name) {
    result.events.push_back({std::string(PathTally::text_of(trace, PathTally::name_of(key))),
                             PathTally::class_of(key), static_cast<double>(time.ns) / steps,
                             time.count});
  }
  std::sort(result.events.begin(), result.events.end(), [](const auto& a, const auto& b) {
    return a.ns_per_step != b.ns_per_step ? a.ns_per_step > b.ns_per_step : a.name < b.name;
  });
  if (result.events.size() > top) result.events.resize(top);
  return result;
}

}  // namespace

CriticalPathResult compute_critical_path(const Trace& trace, const StepModels& models,
                                         std::size_t top) {
  PathTally tally;
  replay_steps(trace, models, WhatIfChange{}, tally);
  return to_result(trace, tally, models, top);
}

WhatIfResult what_if(const Trace& trace, const StepModels& models, const WhatIfChange& change,
                     std::size_t top) {
  WhatIfResult result;
  result.change = change.describe();
  result.before = compute_critical_path(trace, models, top);
  PathTally tally;
  replay_steps(trace, models, change, tally);
  result.after = to_result(trace, tally, models, top);
  result.predicted_step_ns = result.before.measured_step_ns - result.saving_ns();
  return result;
}

std::vector<EventIndex> critical_path_events(const Trace& trace, const StepModels& models) {
  std::vector<EventIndex> events;
  PathTally tally;
  tally.events = &events;
  replay_steps(trace, models, WhatIfChange{}, tally);
  std::sort(events.begin(), events.end());
  events.erase(std::unique(events.begin(), events.end()), events.end());
  return events;
}

double modelled_step_ns(const Trace& trace, const StepModels& models, const WhatIfChange& change) {
  PathTally tally;
  replay_steps(trace, models, change, tally, false);
  return tally.steps > 0 ? static_cast<double>(tally.modelled_ns) / static_cast<double>(tally.steps)
                         : 0.0;
}

namespace {

// "NAME=2x" or "NAME=2": the name and the factor (> 0).
Result<std::pair<std::string_view, double>> parse_speedup(std::string_view text,
                                                          std::string_view example) {
  const std::size_t equals = text.rfind('=');
  if (equals == std::string_view::npos || equals == 0) {
    return make_error(ErrorKind::kBadOption,
                      fmt::format("'{}': expected NAME=FACTOR, e.g. {}", text, example));
  }
  std::string_view factor_text = text.substr(equals + 1);
  if (factor_text.ends_with('x') || factor_text.ends_with('X')) factor_text.remove_suffix(1);
  double factor = 0;
  const auto [end, error] =
      std::from_chars(factor_text.data(), factor_text.data() + factor_text.size(), factor);
  if (error != std::errc{} || end != factor_text.data() + factor_text.size() ||
      !std::isfinite(factor) || factor <= 0) {
    return make_error(ErrorKind::kBadOption,
                      fmt::format("'{}': the factor must be a number above 0, e.g. 2x", text));
  }
  return std::pair{text.substr(0, equals), factor};
}

}  // namespace

Result<OpSpeedup> parse_op_speedup(std::string_view text) {
  Result<std::pair<std::string_view, double>> parsed = parse_speedup(text, "aten::mm=2x");
  if (!parsed) return parsed.error();
  return OpSpeedup{std::string(parsed->first), parsed->second};
}

Result<KernelSpeedup> parse_kernel_speedup(std::string_view text) {
  Result<std::pair<std::string_view, double>> parsed = parse_speedup(text, "fp32-matmul=4x");
  if (!parsed) return parsed.error();
  for (const KernelGroup group : {KernelGroup::kFp32Matmul, KernelGroup::kCommunication}) {
    if (parsed->first == to_string(group)) return KernelSpeedup{group, parsed->second};
  }
  return make_error(
      ErrorKind::kBadOption,
      fmt::format("'{}': the kernel group must be fp32-matmul or communication", text));
}

}  // namespace stepscope
