#include "render/json/launches_json.h"

#include "render/json/steps_json.h"

namespace stepscope::render {

void write_json(JsonWriter& json, const LaunchResult& launches) {
  json.begin_object();
  json.field("applicable", launches.applicable);
  if (!launches.applicable) json.field("not_applicable_reason", launches.not_applicable_reason);
  json.key("classes");
  json.begin_object();
  for (std::size_t k = 0; k < kLaunchClassCount; ++k) {
    const LaunchClassStats& s = launches.classes[k];
    json.key(to_string(static_cast<LaunchClass>(k)));
    json.begin_object();
    json.field("count", s.count);
    json.key("cpu_duration");
    write_duration_statistics(json, s.cpu_duration_ns);
    json.key("gpu_duration");
    write_duration_statistics(json, s.gpu_duration_ns);
    json.key("launch_delay");
    write_duration_statistics(json, s.launch_delay_ns);
    json.field("negative_delay_count", s.negative_delay_count);
    json.field("cpu_duration_over_50us", s.cpu_duration_over_50us);
    json.field("launch_delay_over_100us", s.launch_delay_over_100us);
    json.field("short_kernel_count", s.short_kernel_count);
    json.end_object();
  }
  json.end_object();
  json.key("queues");
  json.begin_array();
  for (const StreamQueue& q : launches.queues) {
    json.begin_object();
    json.field("device", q.device);
    json.field("stream", q.stream);
    json.field("samples", q.samples);
    json.field("max_depth", q.max_depth);
    json.field("time_weighted_mean_depth", q.time_weighted_mean);
    json.field_us("time_at_limit_us", q.time_at_limit_ns);
    json.end_object();
  }
  json.end_array();
  json.field("queue_limit", LaunchResult::kQueueLimit);
  json.end_object();
}

}  // namespace stepscope::render
