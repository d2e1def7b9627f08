#include "render/json/hta_json.h"

#include <cmath>

namespace stepscope::render {

namespace {

// HTA reports microseconds; statistics that are not whole nanoseconds (means, std) are written
// to the nearest nanosecond.
void us(JsonWriter& json, std::string_view name, double ns) {
  json.key(name);
  json.value(std::round(ns) / 1000.0);
}

void optional_value(JsonWriter& json, std::string_view name, const std::optional<double>& v) {
  json.key(name);
  if (v) {
    json.value(*v);
  } else {
    json.null();
  }
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
  json.field("folded_into_others", k.folded_into_others);
  json.end_object();
}

// HTA's own table row (`get_gpu_kernel_breakdown`'s second frame), its statistics as HTA
// computes them.
void write_hta_row(JsonWriter& json, const hta::HtaKernelRow& row) {
  json.begin_object();
  json.field("name", row.name);
  json.field_us("sum_us", row.sum_ns);
  us(json, "max_us", row.max_ns);
  us(json, "min_us", row.min_ns);
  us(json, "mean_us", row.mean_ns);
  us(json, "stddev_us", row.std_ns);
  json.field("kernel_type", hta::to_string(row.type));
  json.field("rank", row.rank);
  json.end_object();
}

void write_temporal(JsonWriter& json, const hta::Temporal& t) {
  json.begin_object();
  json.field_us("kernel_span_us", t.kernel_span_ns);
  json.field_us("idle_us", t.idle_ns);
  json.field_us("compute_us", t.compute_ns);
  json.field_us("non_compute_us", t.non_compute_ns);
  json.field("idle_percent", t.idle_percent);
  json.field("compute_percent", t.compute_percent);
  json.field("non_compute_percent", t.non_compute_percent);
  json.end_object();
}

void write_category(JsonWriter& json, std::string_view name, std::int64_t ns,
                    const std::optional<double>& ratio) {
  json.begin_object();
  json.field("idle_category", name);
  json.field_us("idle_time_us", ns);
  optional_value(json, "idle_time_ratio", ratio);
  json.end_object();
}

// The flat sums, and the categories as HTA lists them: absent without a gap, except `other`.
void write_idle_stream(JsonWriter& json, const hta::IdleStream& s) {
  json.begin_object();
  json.field("stream", s.stream);
  json.field_us("host_wait_us", s.host_wait_ns);
  json.field_us("kernel_wait_us", s.kernel_wait_ns);
  json.field_us("other_us", s.other_ns);
  json.key("categories");
  json.begin_array();
  if (s.host_wait_gaps > 0) write_category(json, "host_wait", s.host_wait_ns, s.host_wait_ratio);
  if (s.kernel_wait_gaps > 0) {
    write_category(json, "kernel_wait", s.kernel_wait_ns, s.kernel_wait_ratio);
  }
  write_category(json, "other", s.other_ns, s.other_ratio);
  json.end_array();
  json.end_object();
}

void write_launches(JsonWriter& json, const hta::LaunchStats& l) {
  json.begin_object();
  json.field("launches", l.pairs);
  json.field_us("cpu_duration_us", l.cpu_duration_ns);
  json.field_us("gpu_duration_us", l.gpu_duration_ns);
  json.field_us("launch_delay_us", l.launch_delay_ns);
  json.field("cpu_duration_over_50us", l.cpu_duration_over_50us);
  json.field("launch_delay_over_100us", l.launch_delay_over_100us);
  json.field("short_kernels", l.short_kernels);
  json.end_object();
}

void write_queue(JsonWriter& json, const hta::QueueStream& q) {
  json.begin_object();
  json.field("stream", q.stream);
  json.field("samples", q.samples);
  json.field("mean", q.mean);
  json.field("std", q.std);
  json.field("min", q.min);
  json.field("p25", q.p25);
  json.field("p50", q.p50);
  json.field("p75", q.p75);
  json.field("max", q.max);
  json.end_object();
}

void write_rank(JsonWriter& json, const hta::RankFigures& r) {
  json.begin_object();
  json.field("rank", r.rank);
  json.field("has_gpu_rows", r.has_gpu_rows);
  json.key("temporal");
  write_temporal(json, r.temporal);
  json.key("kernels");
  json.begin_array();
  for (const hta::KernelStats& k : r.kernels) write_kernel(json, k);
  json.end_array();
  json.key("others");
  json.begin_array();
  for (const hta::KernelStats& k : r.others) write_kernel(json, k);
  json.end_array();
  json.key("hta_kernel_table");
  json.begin_array();
  for (const hta::HtaKernelRow& row : r.hta_kernel_table) write_hta_row(json, row);
  json.end_array();
  json.key("idle_time");
  json.begin_array();
  for (const hta::IdleStream& s : r.idle) write_idle_stream(json, s);
  json.end_array();
  optional_value(json, "comm_comp_overlap_percent", r.comm_comp_overlap_percent);
  json.key("launch_stats");
  write_launches(json, r.launches);
  json.key("queue_length");
  json.begin_array();
  for (const hta::QueueStream& q : r.queues) write_queue(json, q);
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
