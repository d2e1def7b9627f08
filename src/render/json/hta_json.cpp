#include "render/json/hta_json.h"

#include <cmath>

namespace stepscope::render {

namespace {

// HTA reports microseconds; rounded traces hold whole microseconds.
void us(JsonWriter& json, std::string_view name, double ns) {
  json.key(name);
  json.value(std::round(ns) / 1000.0);
}

void write_kernel(JsonWriter& json, const hta::KernelStats& k) {
  json.begin_object();
  json.field("name", k.name);
  json.field("kernel_type", hta::to_string(k.type));
  json.field("count", k.count);
  json.field_us("sum_us", k.sum_ns);
  us(json, "mean_us", k.mean_ns);
  json.field_us("min_us", k.min_ns);
  json.field_us("max_us", k.max_ns);
  us(json, "std_us", k.std_ns);
  json.field("hta_stats_are_per_name_totals", k.hta_stats_are_per_name_totals);
  json.end_object();
}

void write_rank(JsonWriter& json, const hta::RankFigures& r) {
  json.begin_object();
  json.field("rank", r.rank);
  json.field("has_gpu_rows", r.has_gpu_rows);
  json.key("temporal");
  json.begin_object();
  json.field_us("kernel_span_us", r.temporal.kernel_span_ns);
  json.field_us("idle_us", r.temporal.idle_ns);
  json.field_us("compute_us", r.temporal.compute_ns);
  json.field_us("non_compute_us", r.temporal.non_compute_ns);
  json.field("idle_percent", r.temporal.idle_percent);
  json.field("compute_percent", r.temporal.compute_percent);
  json.field("non_compute_percent", r.temporal.non_compute_percent);
  json.end_object();
  json.key("kernels");
  json.begin_array();
  for (const hta::KernelStats& k : r.kernels) write_kernel(json, k);
  json.end_array();
  json.key("others");
  json.begin_array();
  for (const hta::KernelStats& k : r.others) write_kernel(json, k);
  json.end_array();
  json.key("idle_time");
  json.begin_array();
  for (const hta::IdleStream& s : r.idle) {
    json.begin_object();
    json.field("stream", s.stream);
    json.field_us("host_wait_us", s.host_wait_ns);
    json.field_us("kernel_wait_us", s.kernel_wait_ns);
    json.field_us("other_us", s.other_ns);
    json.end_object();
  }
  json.end_array();
  json.key("comm_comp_overlap_percent");
  if (r.comm_comp_overlap_percent) {
    json.value(*r.comm_comp_overlap_percent);
  } else {
    json.null();
  }
  json.key("launch_stats");
  json.begin_object();
  json.field("launches", r.launches.pairs);
  json.field_us("cpu_duration_us", r.launches.cpu_duration_ns);
  json.field_us("gpu_duration_us", r.launches.gpu_duration_ns);
  json.field_us("launch_delay_us", r.launches.launch_delay_ns);
  json.field("cpu_duration_over_50us", r.launches.cpu_duration_over_50us);
  json.field("launch_delay_over_100us", r.launches.launch_delay_over_100us);
  json.end_object();
  json.key("queue_length");
  json.begin_array();
  for (const hta::QueueStream& q : r.queues) {
    json.begin_object();
    json.field("stream", q.stream);
    json.field("samples", q.samples);
    json.field("mean", q.mean);
    json.field("max", q.max);
    json.end_object();
  }
  json.end_array();
  json.end_object();
}

}  // namespace

void write_json(JsonWriter& json, const hta::HtaReport& report) {
  json.begin_object();
  json.field("reproduces", "HolisticTraceAnalysis 0.6.1 @f4d0062c");
  json.field("rounding", report.rounding);
  json.field("step_filter", report.step_filter);
  json.key("profiler_steps");
  json.begin_array();
  for (std::int64_t step : report.profiler_steps) json.value(step);
  json.end_array();
  json.key("kernel_classes");
  json.begin_array();
  for (const hta::ClassLabel& label : report.kernel_classes) {
    json.begin_object();
    json.field("label", label.label);
    json.field_us("sum_us", label.sum_ns);
    json.field("percent", label.percent);
    json.end_object();
  }
  json.end_array();
  json.key("ranks");
  json.begin_array();
  for (const hta::RankFigures& rank : report.ranks) write_rank(json, rank);
  json.end_array();
  json.key("quirks");
  json.begin_array();
  for (const std::string& quirk : report.quirks) json.value(quirk);
  json.end_array();
  json.end_object();
}

}  // namespace stepscope::render
