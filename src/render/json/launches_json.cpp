#include "render/json/launches_json.h"

#include <string>

namespace stepscope::render {

namespace {

// Percentiles interpolate between two ns values, so they can end in half a ns (amd_trace's p50
// delay is 6.7425 µs): written as a decimal µs number, not rounded to the ns.
void write_percentiles(JsonWriter& json, std::string_view prefix, const Statistics& stats) {
  if (stats.count == 0) return;
  const std::string name(prefix);
  json.field(name + "_p50_us", stats.p50 / 1000.0);
  json.field(name + "_p95_us", stats.p95 / 1000.0);
  json.field(name + "_max_us", stats.max / 1000.0);
}

void write_class(JsonWriter& json, const LaunchClassStats& s) {
  json.begin_object();
  json.field("count", s.count);
  write_percentiles(json, "cpu_duration", s.cpu_duration_ns);
  write_percentiles(json, "gpu_duration", s.gpu_duration_ns);
  write_percentiles(json, "launch_delay", s.launch_delay_ns);
  json.field("signed_delay_negative_count", s.signed_delay_negative_count);
  json.field("cpu_duration_over_50us_count", s.cpu_duration_over_50us_count);
  json.field("launch_delay_over_100us_count", s.launch_delay_over_100us_count);
  json.field("short_kernel_count", s.short_kernel_count);
  if (s.count > 0) json.field("few_samples", s.launch_delay_ns.few_samples);
  json.end_object();
}

}  // namespace

void write_json(JsonWriter& json, const LaunchesResult& launches) {
  json.begin_object();
  json.field("applicable", launches.applicable);
  if (!launches.applicable) json.field("not_applicable_reason", launches.not_applicable_reason);
  json.field("scope", "launch calls starting in the step window");
  json.field("outside_window_pairs", launches.outside_window_pairs);
  json.field_us("cpu_duration_cutoff_us", kLaunchRuntimeCutoffNs);
  json.field_us("launch_delay_cutoff_us", kLaunchDelayCutoffNs);
  json.key("classes");
  json.begin_object();
  for (std::size_t k = 0; k < kLaunchClassCount; ++k) {
    json.key(to_string(static_cast<LaunchClass>(k)));
    write_class(json, launches.classes[k]);
  }
  json.end_object();
  json.end_object();
}

}  // namespace stepscope::render
