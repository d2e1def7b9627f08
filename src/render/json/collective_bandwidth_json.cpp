#include "render/json/collective_bandwidth_json.h"

namespace stepscope::render {

namespace {

void write_totals(JsonWriter& json, const BandwidthTotals& t) {
  json.field("calls", t.calls);
  json.field("bytes", t.bytes);
  json.field_us("time_us", t.time_ns);
  json.field("algbw_gb_per_s", t.algbw_gb_per_s);
  json.field("busbw_gb_per_s", t.busbw_gb_per_s);
}

void write_collective(JsonWriter& json, const CollectiveBandwidth& c) {
  json.begin_object();
  json.field("device", c.device);
  json.field("collective", to_string(c.collective));
  json.key("group_size");
  if (c.group_size > 0) {
    json.value(c.group_size);
  } else {
    json.null();  // calls with different group sizes
  }
  write_totals(json, c.totals);
  json.key("fastest_call");
  json.begin_object();
  json.field("bytes", c.fastest.bytes);
  json.field_us("time_us", c.fastest.time_ns);
  json.field("algbw_gb_per_s", c.fastest.algbw_gb_per_s);
  json.field("busbw_gb_per_s", c.fastest.busbw_gb_per_s);
  json.end_object();
  json.key("size_buckets");
  json.begin_array();
  for (const SizeBucket& bucket : c.buckets) {
    json.begin_object();
    json.field("min_bytes", bucket.min_bytes);
    json.field("max_bytes", bucket.max_bytes);
    write_totals(json, bucket.totals);
    json.end_object();
  }
  json.end_array();
  json.end_object();
}

void write_skipped(JsonWriter& json, const SkippedCollectives& s) {
  json.begin_object();
  json.field("without_args", s.without_args);
  json.field("unknown_dtype", s.unknown_dtype);
  json.field("other_collective", s.other_collective);
  json.field("zero_duration", s.zero_duration);
  json.field("outside_window", s.outside_window);
  json.end_object();
}

}  // namespace

void write_json(JsonWriter& json, const CollectiveBandwidthResult& bandwidth) {
  json.begin_object();
  json.field("applicable", bandwidth.applicable);
  if (!bandwidth.applicable) json.field("not_applicable_reason", bandwidth.not_applicable_reason);
  json.field("scope", "rank-local: t = kernel duration, a lower bound");
  json.field("communication_kernels", bandwidth.communication_kernels);
  json.field("args_from_launching_op", bandwidth.args_from_launching_op);
  json.key("collectives");
  json.begin_array();
  for (const CollectiveBandwidth& c : bandwidth.collectives) write_collective(json, c);
  json.end_array();
  json.key("skipped");
  write_skipped(json, bandwidth.skipped);
  json.end_object();
}

}  // namespace stepscope::render
