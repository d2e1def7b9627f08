// GPU summary metrics (docs/metrics/10-tb-plugin-gpu-summary-metrics.md §10). compat-tb follows
// tb_plugin 0.4.3: `profiler/gpu_metrics_parser.py@041e7ce9` (`calculate_gpu_utilization`,
// `calculate_approximated_sm_efficiency` with `range_utils.merge_ranges_with_value`,
// `calculate_occupancy`) and `profiler/tensor_cores_parser.py` (`_calculate_tc_ratio`).
#include "stepscope/analysis/gpu_metrics.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "analysis/tb_event_types.h"
#include "analysis/tb_time.h"
#include "analysis/tensor_core_names.h"

namespace stepscope {

namespace {

struct KernelSpan {
  EventIndex event = kNoEvent;
  Interval span;
};

struct DeviceEvents {
  std::vector<KernelSpan> kernels;
  std::vector<Interval> activity;  // native: kernels, memcpys and memsets
};

std::int64_t overlap(Interval a, Interval window) {
  return std::max<std::int64_t>(0, std::min(a.end, window.end) - std::max(a.start, window.start));
}

// Kernels per device. tb_plugin takes the device from `args.device` only; the trace's device
// column falls back to the GPU row's pid, which agrees on every Kineto trace seen so far.
std::map<std::int32_t, DeviceEvents> device_events(const Trace& trace, bool compat) {
  const EventTable& e = trace.events;
  std::map<std::int32_t, DeviceEvents> devices;
  for (const EventIndex i : e.device_activities) {
    const EventClass c = e.event_class[i];
    if (compat && c != EventClass::kKernel) continue;
    const std::int32_t device = trace.activity_device(i);
    if (device < 0) continue;
    const Interval span = compat ? tb::float_interval(e.start_ns[i], e.dur_ns[i])
                                 : Interval{e.start_ns[i], e.end_ns(i)};
    DeviceEvents& events = devices[device];
    if (c == EventClass::kKernel || c == EventClass::kAcceleratorKernel) {
      events.kernels.push_back({i, span});
    }
    events.activity.push_back(span);
  }
  return devices;
}

struct Endpoint {
  std::int64_t time;
  bool is_end;  // starts sort before ends at equal times, as in tb_plugin
  double value;
};

// Σ min(Σ blocks per SM of the running kernels, 1) × segment length, over the window, in ns;
// absent when no such segment overlaps the window.
std::optional<double> sm_efficiency_weighted_ns(const Trace& trace,
                                                const std::vector<KernelSpan>& kernels,
                                                Interval window, std::int64_t& counted) {
  std::vector<Endpoint> endpoints;
  for (const KernelSpan& kernel : kernels) {
    const DeviceArgs* args = trace.device_args_of(kernel.event);
    if (args == nullptr || !(args->blocks_per_sm > 0)) continue;  // absent or not positive
    endpoints.push_back({kernel.span.start, false, args->blocks_per_sm});
    endpoints.push_back({kernel.span.end, true, args->blocks_per_sm});
    ++counted;
  }
  std::sort(endpoints.begin(), endpoints.end(), [](const Endpoint& a, const Endpoint& b) {
    return a.time != b.time ? a.time < b.time : a.is_end < b.is_end;
  });
  std::optional<double> weighted;
  double running = 0;
  int open = 0;
  for (std::size_t i = 0; i < endpoints.size(); ++i) {
    if (i > 0 && running > 0 && endpoints[i].time > endpoints[i - 1].time) {
      const std::int64_t length = overlap({endpoints[i - 1].time, endpoints[i].time}, window);
      if (length > 0) {
        weighted = weighted.value_or(0.0) + std::min(running, 1.0) * static_cast<double>(length);
      }
    }
    open += endpoints[i].is_end ? -1 : 1;
    running += endpoints[i].is_end ? -endpoints[i].value : endpoints[i].value;
    if (open == 0) running = 0;  // no drift left over from float sums between busy periods
  }
  return weighted;
}

// Duration-weighted mean of `est. achieved occupancy %` over kernel time inside the window.
std::optional<double> achieved_occupancy(const Trace& trace, const std::vector<KernelSpan>& kernels,
                                         Interval window, std::int64_t& counted) {
  double weighted = 0;
  std::int64_t time = 0;
  for (const KernelSpan& kernel : kernels) {
    const DeviceArgs* args = trace.device_args_of(kernel.event);
    if (args == nullptr || args->occupancy_percent < 0) continue;
    ++counted;
    const std::int64_t length = overlap(kernel.span, window);
    if (length <= 0) continue;
    weighted += args->occupancy_percent * static_cast<double>(length);
    time += length;
  }
  if (time == 0) return std::nullopt;
  return weighted / static_cast<double>(time) / 100.0;
}

void add_rule_time(std::vector<TensorCoreRuleTime>& rules, const TensorCoreMatch& match,
                   std::int64_t ns) {
  auto found = std::find_if(rules.begin(), rules.end(), [&](const TensorCoreRuleTime& rule) {
    return rule.pattern == match.pattern;
  });
  if (found == rules.end()) {
    rules.push_back({std::string(match.pattern), match.extended, 0, 0});
    found = rules.end() - 1;
  }
  ++found->kernels;
  found->kernel_ns += ns;
}

// Native: kernel time inside the window, tb_plugin's list extended (a heuristic).
void native_tensor_cores(const Trace& trace, const std::vector<KernelSpan>& kernels,
                         Interval window, GpuDeviceMetrics& out) {
  TensorCoreMatcher match_tensor_core(trace, false);
  for (const KernelSpan& kernel : kernels) {
    const std::int64_t length = overlap(kernel.span, window);
    if (length <= 0) continue;
    out.tensor_core_base_kernel_ns += length;
    if (const std::optional<TensorCoreMatch> match = match_tensor_core(kernel.event)) {
      out.tensor_core_kernel_ns += length;
      add_rule_time(out.tensor_core_rules, *match, length);
    }
  }
  std::sort(out.tensor_core_rules.begin(), out.tensor_core_rules.end(),
            [](const auto& a, const auto& b) { return a.kernel_ns > b.kernel_ns; });
  if (out.tensor_core_base_kernel_ns > 0) {
    out.tensor_core_share = static_cast<double>(out.tensor_core_kernel_ns) /
                            static_cast<double>(out.tensor_core_base_kernel_ns);
  }
}

// tb_plugin attaches each runtime call to the first host node (threads in order of first
// appearance, then by time) whose External id equals the call's, a missing id matching a missing
// id; only kernels of calls so attached to an operator node count for its tensor-core share.
std::vector<bool> tb_op_attributed_kernels(const Trace& trace) {
  const EventTable& e = trace.events;
  std::unordered_map<std::int64_t, std::size_t> thread_rank;
  std::unordered_map<std::int64_t, std::pair<std::size_t, EventIndex>> claimant;
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    if (!tb::is_host_node(trace, i)) continue;
    const std::int64_t tid = trace.threads[e.thread[i]].tid_number;
    const std::size_t rank = thread_rank.try_emplace(tid, thread_rank.size()).first->second;
    const auto [entry, inserted] = claimant.try_emplace(e.external_id[i], rank, i);
    if (!inserted && rank < entry->second.first) entry->second = {rank, i};
  }
  std::vector<bool> attributed(e.size(), false);
  for (const EventIndex i : e.device_activities) {
    if (e.event_class[i] != EventClass::kKernel) continue;
    const EventIndex call = e.launcher[i];
    if (call == kNoEvent || !tb::is_runtime(trace, call)) continue;
    const auto found = claimant.find(e.external_id[call]);
    attributed[i] = found != claimant.end() && tb::is_operator_node(trace, found->second.second);
  }
  return attributed;
}

// compat-tb tensor cores: per device over op-attributed kernels, not windowed; absent on every
// device when no kernel is attributed at all. Also the trace-wide share over all kernels.
void tb_tensor_cores(const Trace& trace, const std::map<std::int32_t, DeviceEvents>& devices,
                     GpuMetricsResult& result) {
  const std::vector<bool> attributed = tb_op_attributed_kernels(trace);
  bool any_attributed = false;
  bool any_unattributed = false;
  std::int64_t all_kernels_ns = 0;
  std::int64_t all_tensor_core_ns = 0;
  TensorCoreMatcher match_tb_tensor_core(trace, true);
  for (std::size_t d = 0; d < result.devices.size(); ++d) {
    GpuDeviceMetrics& out = result.devices[d];
    for (const KernelSpan& kernel : devices.at(out.device).kernels) {
      const std::int64_t length = kernel.span.length();
      const std::optional<TensorCoreMatch> match = match_tb_tensor_core(kernel.event);
      all_kernels_ns += trace.events.dur_ns[kernel.event];
      if (match) all_tensor_core_ns += trace.events.dur_ns[kernel.event];
      if (!attributed[kernel.event]) {
        any_unattributed = true;
        continue;
      }
      any_attributed = true;
      out.tensor_core_base_kernel_ns += length;
      if (match) {
        out.tensor_core_kernel_ns += length;
        add_rule_time(out.tensor_core_rules, *match, length);
      }
    }
  }
  for (GpuDeviceMetrics& out : result.devices) {
    if (!any_attributed) break;
    out.tensor_core_share = out.tensor_core_base_kernel_ns > 0
                                ? static_cast<double>(out.tensor_core_kernel_ns) /
                                      static_cast<double>(out.tensor_core_base_kernel_ns)
                                : 0.0;
  }
  if (all_kernels_ns > 0) {
    result.tensor_core_share_all_kernels =
        static_cast<double>(all_tensor_core_ns) / static_cast<double>(all_kernels_ns);
  }
  if (any_unattributed) result.quirks.emplace_back("tensor_core_share_skips_kernels_without_op");
  if (!any_attributed) result.quirks.emplace_back("no_kernel_attributed_to_an_op");
}

GpuDeviceMetrics device_metrics(const Trace& trace, std::int32_t device, const DeviceEvents& events,
                                Interval window, bool compat) {
  GpuDeviceMetrics out;
  out.device = device;
  out.window_ns = window.length();
  std::vector<Interval> kernel_spans;
  for (const KernelSpan& kernel : events.kernels) {
    kernel_spans.push_back(kernel.span);
    out.kernels += overlap(kernel.span, window) > 0 ? 1 : 0;
  }
  const double window_ns = static_cast<double>(std::max<std::int64_t>(out.window_ns, 1));
  // device_events collects in event order, which is start order (compat-tb's float rounding is
  // monotone, so it keeps that order): merging needs no sort.
  out.kernel_busy_ns = IntervalSet::from_sorted(kernel_spans).measure_within(window);
  out.utilization = static_cast<double>(out.kernel_busy_ns) / window_ns;
  if (const auto weighted = sm_efficiency_weighted_ns(trace, events.kernels, window,
                                                      out.kernels_with_blocks_per_sm)) {
    out.sm_efficiency = *weighted / window_ns;
  }
  out.achieved_occupancy =
      achieved_occupancy(trace, events.kernels, window, out.kernels_with_occupancy);
  if (!compat) {
    out.busy_with_memory_ns = IntervalSet::from_sorted(events.activity).measure_within(window);
    out.utilization_with_memory = static_cast<double>(out.busy_with_memory_ns) / window_ns;
    native_tensor_cores(trace, events.kernels, window, out);
  }
  return out;
}

// compat-tb: T = [first kept step start, last kept step end], in tb_plugin's float µs.
std::optional<Interval> metrics_window(const StepsResult& steps, bool compat) {
  if (!compat) return steps.window;
  const std::vector<const Step*> kept = steps.kept();
  if (kept.empty()) return std::nullopt;
  return Interval{tb::float_instant(kept.front()->start_ns),
                  tb::float_instant(kept.back()->end_ns)};
}

}  // namespace

GpuMetricsResult compute_gpu_metrics(const Trace& trace, const StepsResult& steps,
                                     const AnalysisOptions& options) {
  GpuMetricsResult result;
  const bool compat = options.mode == Mode::kCompatTb;
  result.mode = compat ? Mode::kCompatTb : Mode::kNative;
  result.tensor_core_heuristic = !compat;
  const std::map<std::int32_t, DeviceEvents> devices = device_events(trace, compat);
  result.window = metrics_window(steps, compat);
  if (devices.empty()) {
    result.not_applicable_reason = "no GPU activity";
    return result;
  }
  if (!result.window || result.window->length() <= 0) {
    result.not_applicable_reason = "no kept steps";
    return result;
  }
  result.applicable = true;
  for (const auto& [device, events] : devices) {
    result.devices.push_back(device_metrics(trace, device, events, *result.window, compat));
  }
  if (compat) {
    tb_tensor_cores(trace, devices, result);
    result.quirks.emplace_back("utilization_counts_kernels_only");
  }
  return result;
}

}  // namespace stepscope
