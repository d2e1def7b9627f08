#include "stepscope/analysis/catalogue.h"

#include "render/json/memory_fields.h"

#include "stepscope/figures/collective_bandwidth_fields.h"
#include "stepscope/figures/compute_efficiency_fields.h"
#include "stepscope/figures/critical_path_fields.h"
#include "stepscope/figures/gpu_metrics_fields.h"
#include "stepscope/figures/gpu_temporal_fields.h"
#include "stepscope/figures/idle_attribution_fields.h"
#include "stepscope/figures/idle_time_fields.h"
#include "stepscope/figures/kernel_breakdown_fields.h"
#include "stepscope/figures/launches_fields.h"
#include "stepscope/figures/module_view_fields.h"
#include "stepscope/figures/operators_fields.h"
#include "stepscope/figures/phases_fields.h"
#include "stepscope/figures/queue_length_fields.h"
#include "stepscope/figures/step_breakdown_fields.h"
#include "stepscope/figures/steps_fields.h"

namespace stepscope {

namespace {

// An analysis whose result is RankAnalyses::*Member, computed by Compute.
template <auto Member, auto Compute>
AnalysisDescription describe(std::string_view name, std::string_view doc, std::uint8_t stage = 1) {
  using Result = std::remove_cvref_t<decltype(std::declval<RankAnalyses&>().*Member)>;
  AnalysisDescription d;
  d.name = name;
  d.doc = doc;
  d.stage = stage;
  d.compute = [](RankAnalyses& rank) { rank.*Member = Compute(rank); };
  if constexpr (figures::Described<Result>) {
    d.type = [] { return &figures::type_of<Result>(); };
    d.write = [](figures::Sink& sink, const RankAnalyses& rank) {
      figures::Context context;
      context.trace = &rank.trace.get();
      context.mode = rank.options.mode;
      figures::write_value(sink, rank.*Member, figures::Unit::kNone, context);
    };
  }
  return d;
}

}  // namespace

std::span<const AnalysisDescription> analysis_catalogue() {
  using R = RankAnalyses;
  static const AnalysisDescription kCatalogue[] = {
      describe<&R::steps, [](const R& r) { return find_steps(*r.trace, r.options); }>(
          "steps", "profiler steps (docs/metrics §1.4) and the analysis window W (§0.7)", 0),
      describe<&R::step_time, [](const R& r) { return step_time_statistics(r.steps); }>(
          "step_time", "statistics of the kept steps' durations and host spans (docs/metrics §2)"),
      describe<&R::step_breakdown,
               [](const R& r) { return compute_step_breakdown(*r.trace, r.steps, r.options); }>(
          "step_breakdown", "the 8-way step-time breakdown (docs/metrics §9)"),
      describe<&R::phases, [](const R& r) { return compute_phases(*r.trace, r.steps, r.options); }>(
          "phases",
          "forward / backward / optimizer / data loading / other per kept step: host time "
          "and device time launched from each phase"),
      describe<&R::gpu_temporal,
               [](const R& r) { return compute_gpu_temporal(*r.trace, r.steps, r.options); }>(
          "gpu_temporal", "per device over W: busy, idle, compute, communication, memory"),
      describe<&R::kernels,
               [](const R& r) { return compute_kernel_breakdown(*r.trace, r.steps, r.options); }>(
          "kernels", "per device: class overlap and top kernels"),
      describe<&R::idle,
               [](const R& r) { return compute_idle_time(*r.trace, r.steps, r.options); }>(
          "idle_time", "per device and stream: idle between activities by cause"),
      describe<&R::idle_attribution, [](const R& r) { return attribute_idle(*r.trace, r.steps); }>(
          "idle_attribution",
          "GPU idle in the kept steps, each nanosecond given to one cause: data loading, then "
          "host-device sync, then launch, then other host work"),
      describe<&R::bandwidth,
               [](const R& r) {
                 return compute_collective_bandwidth(*r.trace, r.steps, r.options);
               }>("collective_bandwidth", "rank-local collective bandwidth (docs/metrics §14)"),
      describe<&R::operators,
               [](const R& r) { return compute_operators(*r.trace, r.steps, r.options); }>(
          "operators", "the key_averages()-like operator table (docs/metrics §12)"),
      describe<&R::code, [](const R& r) { return compute_code_context(*r.trace); }>(
          "", "Python frames and nn.Modules around each event, for findings and the module view",
          0),
      describe<&R::modules,
               [](const R& r) { return compute_module_view(*r.trace, r.steps, r.code); }>(
          "modules", "time per nn.Module: calls, host and device time, total and self", 2),
      describe<&R::launches,
               [](const R& r) { return compute_launches(*r.trace, r.steps, r.options); }>(
          "launches", "launch statistics of the launch calls in W (docs/metrics §7)"),
      describe<&R::queue_length,
               [](const R& r) { return compute_queue_length(*r.trace, r.steps, r.options); }>(
          "queue_length", "launch-queue depth per device and stream over W (docs/metrics §8)"),
      describe<&R::gpu_metrics,
               [](const R& r) { return compute_gpu_metrics(*r.trace, r.steps, r.options); }>(
          "gpu_metrics",
          "per device over W: utilization, estimated SM efficiency and occupancy, tensor-core "
          "share"),
      describe<&R::memory,
               [](const R& r) { return compute_memory_curve(*r.trace, r.steps, r.options.top); }>(
          "memory", "the memory curve from `[memory]` events (docs/metrics §11)"),
      describe<&R::memory_headroom,
               [](const R& r) {
                 return compute_memory_headroom(*r.trace, r.steps, r.memory, r.options.top);
               }>("", "peak memory against the device's capacity, for the diagnosis", 2),
      describe<&R::compute_efficiency,
               [](const R& r) { return compute_efficiency(*r.trace, r.steps, r.options); }>(
          "compute_efficiency",
          "FLOPs of matrix multiplies (and of every op with with_flops=True), achieved TFLOP/s "
          "and MFU against the device's datasheet peak"),
      describe<&R::step_models, [](const R& r) { return build_step_models(*r.trace, r.steps); }>(
          "", "each kept step as a graph, for the critical path and the what-ifs"),
      describe<&R::critical_path,
               [](const R& r) {
                 return compute_critical_path(*r.trace, r.step_models,
                                              static_cast<std::size_t>(r.options.top));
               }>("critical_path",
                  "the chain of events that sets each kept step's length, by class and event "
                  "(docs/metrics §17)",
                  2),
      describe<&R::busy_timeline,
               [](const R& r) { return compute_busy_timeline(*r.trace, r.steps); }>(
          "", "busy intervals per device, for the HTML charts only"),
  };
  return kCatalogue;
}

}  // namespace stepscope
