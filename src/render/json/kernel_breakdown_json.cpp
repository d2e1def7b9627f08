#include "render/json/kernel_breakdown_json.h"

#include <cmath>

namespace stepscope::render {

namespace {

void write_rows(JsonWriter& json, const std::vector<KernelRow>& rows) {
  json.begin_array();
  for (const KernelRow& row : rows) {
    json.begin_object();
    json.field("name", row.name);
    json.field("class", to_string(row.activity_class));
    json.field("count", row.count);
    json.field_us("total_us", row.total_ns);
    json.field("mean_us", std::round(row.mean_ns) / 1000.0);
    json.field_us("min_us", row.min_ns);
    json.field_us("max_us", row.max_ns);
    json.field("std_us", std::round(row.std_ns) / 1000.0);
    json.field("share", row.share);
    json.end_object();
  }
  json.end_array();
}

// The order of DeviceKernels::top_by_class and the *_by_class arrays.
constexpr ActivityClass kClassOrder[3] = {ActivityClass::kComputation,
                                          ActivityClass::kCommunication, ActivityClass::kMemory};

void write_others(JsonWriter& json, std::int64_t count, std::int64_t ns) {
  json.begin_object();
  json.field("count", count);
  json.field_us("total_us", ns);
  json.end_object();
}

}  // namespace

void write_json(JsonWriter& json, const KernelBreakdownResult& kernels) {
  json.begin_object();
  json.field("applicable", kernels.applicable);
  if (!kernels.applicable) json.field("not_applicable_reason", kernels.not_applicable_reason);
  json.key("devices");
  json.begin_array();
  for (const DeviceKernels& device : kernels.devices) {
    json.begin_object();
    json.field("device", device.device);
    json.key("class_overlap");
    json.begin_array();
    for (const OverlapLabel& label : device.labels) {
      json.begin_object();
      json.field("classes", label.name());
      json.field_us("time_us", label.ns);
      json.field("share", label.share);
      json.end_object();
    }
    json.end_array();
    json.field_us("activity_time_us", device.activity_ns);
    json.field("distinct_names", device.distinct_names);
    json.key("top");
    write_rows(json, device.top);
    json.key("top_computation");
    write_rows(json, device.top_by_class[0]);
    json.key("top_communication");
    write_rows(json, device.top_by_class[1]);
    json.key("top_memory");
    write_rows(json, device.top_by_class[2]);
    json.key("others");
    write_others(json, device.others_count, device.others_ns);
    json.key("others_by_class");
    json.begin_object();
    for (std::size_t c = 0; c < 3; ++c) {
      json.key(to_string(kClassOrder[c]));
      write_others(json, device.others_count_by_class[c], device.others_ns_by_class[c]);
    }
    json.end_object();
    json.end_object();
  }
  json.end_array();
  json.end_object();
}

}  // namespace stepscope::render
