#include "render/json/gpu_metrics_json.h"

#include <string>

namespace stepscope::render {

namespace {

void optional_field(JsonWriter& json, std::string_view name, const std::optional<double>& value) {
  json.key(name);
  if (value) {
    json.value(*value);
  } else {
    json.null();
  }
}

void write_rules(JsonWriter& json, const std::vector<TensorCoreRuleTime>& rules) {
  json.key("tensor_core_rules");
  json.begin_array();
  for (const TensorCoreRuleTime& rule : rules) {
    json.begin_object();
    json.field("pattern", rule.pattern);
    json.field("list", rule.extended ? "stepscope_extended_heuristic" : "tb_plugin");
    json.field("kernels", rule.kernels);
    json.field_us("kernel_us", rule.kernel_ns);
    json.end_object();
  }
  json.end_array();
}

void write_device(JsonWriter& json, const GpuDeviceMetrics& device, bool native) {
  json.begin_object();
  json.field("device", device.device);
  json.field_us("window_us", device.window_ns);
  json.field("kernels", device.kernels);
  json.field_us("kernel_busy_us", device.kernel_busy_ns);
  json.field("utilization", device.utilization);
  if (native) {
    json.field_us("busy_with_memory_us", device.busy_with_memory_ns);
    optional_field(json, "utilization_with_memory", device.utilization_with_memory);
  }
  optional_field(json, "est_sm_efficiency", device.sm_efficiency);
  json.field("kernels_with_blocks_per_sm", device.kernels_with_blocks_per_sm);
  optional_field(json, "est_achieved_occupancy", device.achieved_occupancy);
  json.field("kernels_with_occupancy", device.kernels_with_occupancy);
  json.field_us("tensor_core_kernel_us", device.tensor_core_kernel_ns);
  json.field_us("tensor_core_base_kernel_us", device.tensor_core_base_kernel_ns);
  optional_field(json, "tensor_core_share", device.tensor_core_share);
  write_rules(json, device.tensor_core_rules);
  json.end_object();
}

}  // namespace

void write_json(JsonWriter& json, const GpuMetricsResult& metrics) {
  const bool native = metrics.mode != Mode::kCompatTb;
  json.begin_object();
  json.field("mode", to_string(metrics.mode));
  json.field("applicable", metrics.applicable);
  if (!metrics.applicable) json.field("reason", metrics.not_applicable_reason);
  json.key("window");
  if (metrics.window) {
    json.begin_object();
    json.field_us("start_us", metrics.window->start);
    json.field_us("end_us", metrics.window->end);
    json.field_us("duration_us", metrics.window->length());
    json.end_object();
  } else {
    json.null();
  }
  json.field("tensor_core_heuristic", metrics.tensor_core_heuristic);
  if (!native) {
    optional_field(json, "tensor_core_share_all_kernels", metrics.tensor_core_share_all_kernels);
  }
  json.key("devices");
  json.begin_array();
  for (const GpuDeviceMetrics& device : metrics.devices) write_device(json, device, native);
  json.end_array();
  json.key("quirks");
  json.begin_array();
  for (const std::string& quirk : metrics.quirks) json.value(quirk);
  json.end_array();
  json.end_object();
}

}  // namespace stepscope::render
