#include "render/json/queue_length_json.h"

namespace stepscope::render {

namespace {

void write_stream(JsonWriter& json, const StreamQueueLength& q) {
  json.begin_object();
  json.field("device", q.device);
  json.field("stream", q.stream);
  json.field("launches", q.launches);
  json.field("samples", q.samples);
  json.field("depth_at_window_start", q.depth_at_window_start);
  json.field("max_depth", q.max_depth);
  json.field("min_depth", q.min_depth);
  json.field("time_weighted_mean_depth", q.time_weighted_mean_depth);
  json.field_us("time_at_limit_us", q.time_at_limit_ns);
  json.field("time_at_limit_share", q.time_at_limit_share);
  json.end_object();
}

}  // namespace

void write_json(JsonWriter& json, const QueueLengthResult& queues) {
  json.begin_object();
  json.field("applicable", queues.applicable);
  if (!queues.applicable) json.field("not_applicable_reason", queues.not_applicable_reason);
  json.field("queue_limit", kLaunchQueueLimit);
  if (queues.applicable) {
    json.field_us("window_start_us", queues.window.start);
    json.field_us("window_end_us", queues.window.end);
  }
  json.key("streams");
  json.begin_array();
  for (const StreamQueueLength& q : queues.streams) write_stream(json, q);
  json.end_array();
  json.end_object();
}

}  // namespace stepscope::render
