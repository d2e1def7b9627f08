// The conditions of a run that change its step time by themselves: the device, how many devices a
// rank drives, the world size, the precision and the batch shape. Runs that differ in any of them
// are not like for like: the change of step time is not the code change's alone (an A100 run
// against a V100 run is slower for the hardware), so the diff names them first and checks no
// predicted gain against the change.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string>

#include "diff/diff_parts.h"

namespace stepscope::diff {

namespace {

// What one run's traces say about each condition; nullopt where they do not tell.
struct RunConditions {
  std::optional<std::string> device;
  std::size_t devices_per_rank = 0;  // 0: no device activity
  std::optional<std::int64_t> world_size;
  std::optional<std::string> precision;
  std::string flops_op;  // the op with the most FLOPs: its first input stands for the batch
};

std::set<std::int32_t> used_devices(const Trace& trace) {
  std::set<std::int32_t> devices;
  for (const EventIndex i : trace.events.device_activities) devices.insert(trace.events.device[i]);
  return devices;
}

// The names of the devices the run's device activities ran on; nullopt when a device it used has
// no name in its trace (no `deviceProperties`): an unnamed device is no evidence of a difference.
std::optional<std::string> device_names(const Report& report) {
  std::set<std::string> names;
  for (const RankReport& rank : report.ranks) {
    const Trace& trace = *rank.analyses.trace;
    for (const std::int32_t id : used_devices(trace)) {
      const auto named = std::find_if(trace.devices.begin(), trace.devices.end(),
                                      [id](const DeviceProperties& d) { return d.id == id; });
      if (named == trace.devices.end() || named->name.empty()) return std::nullopt;
      names.insert(named->name);
    }
  }
  if (names.empty()) return "no device activity (CPU only)";
  return fmt::format("{}", fmt::join(names, ", "));
}

RunConditions conditions_of(const Report& report) {
  RunConditions run;
  run.device = device_names(report);
  for (const RankReport& rank : report.ranks) {
    const Trace& trace = *rank.analyses.trace;
    run.devices_per_rank = std::max(run.devices_per_rank, used_devices(trace).size());
    if (trace.distributed.world_size != kAbsent) {
      run.world_size = std::max(run.world_size.value_or(0), trace.distributed.world_size);
    }
    const ComputeEfficiencyResult& efficiency = rank.analyses.compute_efficiency;
    if (!run.precision && efficiency.applicable && !efficiency.dtype.empty()) {
      run.precision = efficiency.dtype;
      if (!efficiency.ops.empty()) run.flops_op = efficiency.ops.front().name;
    }
  }
  return run;
}

// The first tensor input's shape of the first `op` call from the first kept step on (from the
// trace's start without kept steps); nullopt without such a call or without recorded shapes.
std::optional<Shape> first_input_shape(const RankAnalyses& rank, std::string_view op) {
  const Trace& trace = *rank.trace;
  const StringId name = trace.strings.find(op);
  if (name == StringPool::kNotInterned) return std::nullopt;
  const auto kept = rank.steps.kept();
  const std::int64_t from = kept.empty() ? INT64_MIN : kept.front()->host_start_ns;
  const EventTable& e = trace.events;
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    if (e.name[i] != name || e.event_class[i] != EventClass::kOp || e.start_ns[i] < from) continue;
    const EventArgs* args = trace.args_of(i);
    if (args == nullptr || args->inputs_row < 0) continue;
    const OpInputs& inputs = trace.op_inputs[static_cast<std::size_t>(args->inputs_row)];
    if (!inputs.shapes) continue;
    for (const Shape& shape : *inputs.shapes) {
      if (!shape.empty()) return shape;
    }
  }
  return std::nullopt;
}

std::string shape_text(const Shape& shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

void add_if_different(DiffResult& result, std::string condition, std::string before,
                      std::string after, std::string source) {
  if (before == after) return;
  result.unlike_conditions.push_back(
      {std::move(condition), std::move(before), std::move(after), std::move(source)});
}

// A trace without `distributedInfo` comes from a process that did not initialise
// torch.distributed (a world of one), or from a profiler too old to record it: only a known
// world larger than one differs from it.
void compare_world_sizes(const RunConditions& b, const RunConditions& a, DiffResult& result) {
  constexpr std::string_view kUnrecorded = "not recorded (1 when not distributed)";
  auto text = [&](const std::optional<std::int64_t>& size) {
    return size ? std::to_string(*size) : std::string(kUnrecorded);
  };
  const bool both_known = b.world_size && a.world_size;
  const bool larger_against_unknown = b.world_size.value_or(1) > 1 || a.world_size.value_or(1) > 1;
  if (!both_known && !larger_against_unknown) return;
  add_if_different(result, "world size", text(b.world_size), text(a.world_size),
                   "distributedInfo.world_size");
}

void compare_batch_shapes(const Report& before, const Report& after, const RunConditions& b,
                          DiffResult& result) {
  if (b.flops_op.empty() || before.ranks.empty() || after.ranks.empty()) return;
  const auto shape_before = first_input_shape(before.ranks.front().analyses, b.flops_op);
  const auto shape_after = first_input_shape(after.ranks.front().analyses, b.flops_op);
  if (!shape_before || !shape_after) return;
  add_if_different(
      result, "batch shape", shape_text(*shape_before), shape_text(*shape_after),
      fmt::format("first input of the first {} call, the op with the most FLOPs", b.flops_op));
}

}  // namespace

void compare_conditions(const Report& before, const Report& after, DiffResult& result) {
  const RunConditions b = conditions_of(before);
  const RunConditions a = conditions_of(after);
  if (b.device && a.device) {
    add_if_different(result, "device", *b.device, *a.device,
                     "deviceProperties of the devices the kernels and copies ran on");
  }
  if (b.devices_per_rank > 0 && a.devices_per_rank > 0) {
    add_if_different(result, "devices per rank", std::to_string(b.devices_per_rank),
                     std::to_string(a.devices_per_rank),
                     "devices with kernels or copies, the most on one rank");
  }
  compare_world_sizes(b, a, result);
  if (b.precision && a.precision) {
    add_if_different(result, "precision", *b.precision, *a.precision,
                     "input dtype of the ops with the most FLOPs");
    compare_batch_shapes(before, after, b, result);
  } else {
    result.notes.emplace_back(
        "precision and batch shape not compared: a run's trace has no input shapes and dtypes "
        "of matrix multiplies or convolutions (record with torch.profiler(record_shapes=True))");
  }
}

}  // namespace stepscope::diff
