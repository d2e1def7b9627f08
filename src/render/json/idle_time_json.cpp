#include "render/json/idle_time_json.h"

namespace stepscope::render {

void write_json(JsonWriter& json, const IdleTimeResult& idle) {
  json.begin_object();
  json.field("applicable", idle.applicable);
  if (!idle.applicable) json.field("not_applicable_reason", idle.not_applicable_reason);
  json.field_us("kernel_wait_threshold_us", idle.kernel_wait_threshold_ns);
  json.key("streams");
  json.begin_array();
  for (const StreamIdle& stream : idle.streams) {
    json.begin_object();
    json.field("device", stream.device);
    json.field("stream", stream.stream);
    json.field("activities", stream.activities);
    const std::int64_t between = stream.idle_between_ns();
    json.field_us("idle_between_activities_us", between);
    for (std::size_t c = 0; c < kIdleCauseCount; ++c) {
      const auto cause = static_cast<IdleCause>(c);
      json.key(to_string(cause));
      json.begin_object();
      json.field_us("idle_us", stream[cause].ns);
      json.field("gaps", stream[cause].gaps);
      json.field("share", stream.share(cause));
      json.end_object();
    }
    json.field_us("leading_idle_us", stream.leading_idle_ns);
    json.field_us("trailing_idle_us", stream.trailing_idle_ns);
    json.end_object();
  }
  json.end_array();
  json.end_object();
}

}  // namespace stepscope::render
