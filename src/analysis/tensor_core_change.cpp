#include "analysis/tensor_core_change.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "analysis/tensor_core_names.h"
#include "stepscope/analysis/compute_efficiency.h"
#include "trace/ascii.h"

namespace stepscope {

namespace {

constexpr std::string_view kBackwardPrefix = "autograd::engine::evaluate_function:";
// Bytes per weight element that autocast moves: 4 read and 2 written by the forward's cast, 2
// read and 4 written by its backward, which casts the gradient back to the weight's fp32.
constexpr double kCastBytesPerWeightElement = 12.0;
constexpr double kHalfBytes = 2.0;
// An fp32 kernel's op is its owner or an op around it (aten::linear around aten::addmm): how far
// up to look for one whose shapes tell the operands.
constexpr int kMaxOpDepth = 4;

double elements(const Shape& shape) {
  double n = 1;
  for (const std::int64_t d : shape) n *= static_cast<double>(std::max<std::int64_t>(d, 0));
  return shape.empty() ? 0 : n;
}

// The input autocast casts once per forward (a weight, cached for the forward), by position:
// aten::addmm(bias, input, weight.t()) and aten::linear(input, weight, bias) take the bias too.
std::vector<std::size_t> weight_inputs(std::string_view op) {
  if (op == "aten::addmm") return {0, 2};
  if (op == "aten::linear") return {1, 2};
  if (op == "aten::mm" || op == "aten::bmm" || op == "aten::matmul" || op == "aten::conv1d" ||
      op == "aten::conv2d" || op == "aten::conv3d" || op == "aten::convolution" ||
      op == "aten::_convolution") {
    return {1};
  }
  return {};
}

bool in_backward(const Trace& trace, EventIndex op) {
  for (EventIndex at = op; at != kNoEvent; at = trace.events.parent[at]) {
    if (trace.name_of(at).starts_with(kBackwardPrefix)) return true;
  }
  return false;
}

}  // namespace

bool is_fp32_matmul_kernel(std::string_view kernel_name) {
  if (match_tensor_core(kernel_name)) return false;
  if (contains_ignoring_case(kernel_name, "sgemm") ||
      contains_ignoring_case(kernel_name, "scudnn") || contains_ignoring_case(kernel_name, "ffma"))
    return true;
  const bool matmul_or_conv =
      contains_ignoring_case(kernel_name, "gemm") || contains_ignoring_case(kernel_name, "conv");
  return matmul_or_conv && (contains_ignoring_case(kernel_name, "f32") ||
                            contains_ignoring_case(kernel_name, "float"));
}

std::optional<double> tensor_core_speedup(std::string_view device_name) {
  const double half = peak_flops(device_name, "bfloat16").tflops;
  const double single = peak_flops(device_name, "float").tflops;
  if (half <= 0 || single <= 0) return std::nullopt;
  return half / single;
}

TensorCoreChange::TensorCoreChange(const Trace& trace) : trace_(trace), fp32_matmul_(trace) {
  const EventTable& e = trace.events;
  for (const EventIndex i : e.device_activities) {
    if (e.event_class[i] != EventClass::kKernel || !fp32_matmul_(i)) continue;
    auto [entry, added] = op_costs_.try_emplace(e.owner_op[i]);
    if (added && e.owner_op[i] != kNoEvent) {
      entry->second = cost_of(e.owner_op[i], trace.activity_device(i));
    }
    ++entry->second.kernels;
  }
}

TensorCoreChange::OpCost TensorCoreChange::cost_of(EventIndex op, std::int32_t device) const {
  OpCost cost;
  const DeviceProperties* properties = trace_.device_properties(device);
  const double bandwidth_gbps =
      properties == nullptr ? 0 : peak_bandwidth(properties->name).gbps;  // 10^9 B/s = B/ns
  if (bandwidth_gbps <= 0) return cost;
  EventIndex at = op;
  for (int depth = 0; depth < kMaxOpDepth && at != kNoEvent;
       ++depth, at = trace_.events.parent[at]) {
    const std::string_view name = trace_.name_of(at);
    const std::vector<std::size_t> weights = weight_inputs(name);
    const OpInputs* inputs = trace_.op_inputs_of(at);
    if (weights.empty() || inputs == nullptr || !inputs->shapes) continue;
    const std::vector<Shape>& shapes = *inputs->shapes;
    const std::vector<std::string> concrete;
    if (const std::optional<double> bytes = op_bytes(name, shapes, concrete, kHalfBytes)) {
      cost.floor_ns = *bytes / bandwidth_gbps;
    }
    if (!in_backward(trace_, at)) {
      double weight_elements = 0;
      for (const std::size_t w : weights) {
        if (w < shapes.size()) weight_elements += elements(shapes[w]);
      }
      cost.cast_ns = weight_elements * kCastBytesPerWeightElement / bandwidth_gbps;
    }
    return cost;
  }
  return cost;
}

std::int64_t TensorCoreChange::duration(EventIndex activity, std::int64_t dur_ns) {
  const EventTable& e = trace_.events;
  if (e.event_class[activity] != EventClass::kKernel || !fp32_matmul_(activity)) return dur_ns;
  const DeviceProperties* properties = trace_.device_properties(trace_.activity_device(activity));
  const double speedup =
      properties == nullptr
          ? kUnknownDeviceTensorCoreSpeedup
          : tensor_core_speedup(properties->name).value_or(kUnknownDeviceTensorCoreSpeedup);
  double modelled = static_cast<double>(dur_ns) / speedup;
  const auto cost = op_costs_.find(e.owner_op[activity]);
  if (cost != op_costs_.end() && cost->second.kernels > 0) {
    const auto kernels = static_cast<double>(cost->second.kernels);
    modelled = std::max(modelled, cost->second.floor_ns / kernels) + cost->second.cast_ns / kernels;
  }
  return std::llround(modelled);
}

}  // namespace stepscope
