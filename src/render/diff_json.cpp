// The JSON document of `stepscope diff` (schema in docs/json-schema.md, "stepscope diff").
#include "render/json_writer.h"
#include "stepscope/diff.h"

namespace stepscope {

namespace {

using render::JsonWriter;

constexpr double kNsPerMs = 1e6;

void write_side(JsonWriter& json, const RunSide& side) {
  json.begin_object();
  json.field("path", side.path);
  json.key("ranks");
  json.begin_array();
  for (const std::int64_t rank : side.ranks) json.value(rank);
  json.end_array();
  json.key("bottlenecks");
  json.begin_array();
  for (const std::string& bottleneck : side.bottlenecks) json.value(bottleneck);
  json.end_array();
  json.field("kept_steps", static_cast<std::uint64_t>(side.kept_steps));
  json.end_object();
}

void write_sample(JsonWriter& json, const StepSample& sample, double mean_ns, double median_ns) {
  json.begin_object();
  json.field("steps", static_cast<std::uint64_t>(sample.durations_ns.size()));
  json.field("ranks", static_cast<std::uint64_t>(sample.ranks));
  json.field("sample", sample.source);
  json.field("mean_ms", mean_ns / kNsPerMs);
  json.field("median_ms", median_ns / kNsPerMs);
  json.key("step_ms");
  json.begin_array();
  for (const std::int64_t ns : sample.durations_ns) json.value(static_cast<double>(ns) / kNsPerMs);
  json.end_array();
  json.end_object();
}

void write_steps(JsonWriter& json, const StepComparison& s) {
  json.begin_object();
  json.field("verdict", to_string(s.verdict));
  if (!s.reason.empty()) json.field("reason", s.reason);
  json.field("statistic",
             "bootstrap of the ratio of mean step times after / before, percentile interval");
  json.field("confidence", s.confidence);
  json.field("resamples", s.resamples);
  json.field("seed", s.seed);
  json.key("before");
  write_sample(json, s.before, s.before_mean_ns, s.before_median_ns);
  json.key("after");
  write_sample(json, s.after, s.after_mean_ns, s.after_median_ns);
  json.field("change_ms", s.change_ns / kNsPerMs);
  json.field("change_percent", s.change_share * 100);
  if (s.verdict == Verdict::kUndetermined) {
    json.key("ratio");
    json.null();
    json.key("ratio_ci");
    json.null();
  } else {
    json.field("ratio", s.ratio);
    json.key("ratio_ci");
    json.begin_array();
    json.value(s.ratio_low);
    json.value(s.ratio_high);
    json.end_array();
    json.key("change_percent_ci");
    json.begin_array();
    json.value((s.ratio_low - 1) * 100);
    json.value((s.ratio_high - 1) * 100);
    json.end_array();
  }
  json.end_object();
}

void write_phases(JsonWriter& json, const DiffResult& r) {
  json.begin_object();
  json.field("applicable", r.phases_applicable);
  json.key("rows");
  json.begin_array();
  for (const PhaseChange& p : r.phases) {
    json.begin_object();
    json.field("phase", p.phase);
    json.field("before_ms_per_step", p.before_ns / kNsPerMs);
    json.field("after_ms_per_step", p.after_ns / kNsPerMs);
    json.field("change_ms_per_step", (p.after_ns - p.before_ns) / kNsPerMs);
    json.end_object();
  }
  json.end_array();
  json.end_object();
}

void write_op_rows(JsonWriter& json, const std::vector<OpChange>& rows) {
  json.begin_array();
  for (const OpChange& o : rows) {
    json.begin_object();
    json.field("name", o.name);
    json.field("before_self_cpu_ms_per_step", o.before_self_cpu_ns / kNsPerMs);
    json.field("after_self_cpu_ms_per_step", o.after_self_cpu_ns / kNsPerMs);
    json.field("before_self_device_ms_per_step", o.before_self_device_ns / kNsPerMs);
    json.field("after_self_device_ms_per_step", o.after_self_device_ns / kNsPerMs);
    json.field("before_calls_per_step", o.before_calls);
    json.field("after_calls_per_step", o.after_calls);
    json.end_object();
  }
  json.end_array();
}

void write_ops(JsonWriter& json, const DiffResult& r) {
  json.begin_object();
  json.field("total", static_cast<std::uint64_t>(r.ops_total));
  json.key("rows");
  write_op_rows(json, r.ops);
  // Ops present in one run only (a renamed op shows as one vanished and one appeared).
  json.key("appeared");
  json.begin_object();
  json.field("total", static_cast<std::uint64_t>(r.ops_appeared_total));
  json.key("rows");
  write_op_rows(json, r.ops_appeared);
  json.end_object();
  json.key("vanished");
  json.begin_object();
  json.field("total", static_cast<std::uint64_t>(r.ops_vanished_total));
  json.key("rows");
  write_op_rows(json, r.ops_vanished);
  json.end_object();
  json.end_object();
}

void write_calibration(JsonWriter& json, const std::vector<Calibration>& rows) {
  json.begin_array();
  for (const Calibration& c : rows) {
    json.begin_object();
    json.field("id", c.id);
    json.field("rank", c.rank);
    json.field("predicted_likely_ms_per_step",
               static_cast<double>(c.predicted_likely_ns) / kNsPerMs);
    json.field("predicted_bound_ms_per_step", static_cast<double>(c.predicted_bound_ns) / kNsPerMs);
    json.field("measured_ms_per_step", c.measured_ns / kNsPerMs);
    json.key("measured_ms_per_step_ci");
    json.begin_array();
    json.value(c.measured_low_ns / kNsPerMs);
    json.value(c.measured_high_ns / kNsPerMs);
    json.end_array();
    json.field("measured_over_predicted", c.measured_over_predicted);
    json.field("resolved_together", static_cast<std::uint64_t>(c.resolved_together));
    json.end_object();
  }
  json.end_array();
}

void write_kernel_list(JsonWriter& json, const std::vector<KernelChange>& rows, std::size_t total) {
  json.begin_object();
  json.field("total", static_cast<std::uint64_t>(total));
  json.key("rows");
  json.begin_array();
  for (const KernelChange& k : rows) {
    json.begin_object();
    json.field("name", k.name);
    json.field("kind", k.kind);
    json.field("before_ms_per_step", k.before_ns / kNsPerMs);
    json.field("after_ms_per_step", k.after_ns / kNsPerMs);
    json.field("change_ms_per_step", (k.after_ns - k.before_ns) / kNsPerMs);
    json.field("before_count_per_step", k.before_count);
    json.field("after_count_per_step", k.after_count);
    json.end_object();
  }
  json.end_array();
  json.end_object();
}

void write_findings(JsonWriter& json, const std::vector<FindingChange>& findings) {
  json.begin_array();
  for (const FindingChange& f : findings) {
    json.begin_object();
    json.field("id", f.id);
    json.field("title", f.title);
    json.field("rank", f.rank);
    if (!f.severity_before.empty()) {
      json.field("severity_before", f.severity_before);
      json.field_us("likely_gain_before_us_per_step", f.likely_gain_before_ns);
    }
    if (!f.severity_after.empty()) {
      json.field("severity_after", f.severity_after);
      json.field_us("likely_gain_after_us_per_step", f.likely_gain_after_ns);
    }
    if (!f.figure.label.empty()) {
      json.key("figure");
      json.begin_object();
      json.field("label", f.figure.label);
      json.field("unit", f.figure.unit);
      if (f.figure.before) json.field("before", *f.figure.before);
      if (f.figure.after) json.field("after", *f.figure.after);
      json.end_object();
    }
    json.end_object();
  }
  json.end_array();
}

}  // namespace

std::string render_diff_json(const DiffResult& r) {
  JsonWriter json;
  json.begin_object();
  json.field("schema", "stepscope.diff");
  json.field("schema_version", kDiffJsonSchemaVersion);
  json.field("stepscope_version", STEPSCOPE_VERSION);
  json.key("before");
  write_side(json, r.before);
  json.key("after");
  write_side(json, r.after);
  json.key("step_time");
  write_steps(json, r.steps);
  json.key("phases");
  write_phases(json, r);
  json.key("ops");
  write_ops(json, r);
  json.key("kernels");
  json.begin_object();
  json.key("changed");
  write_kernel_list(json, r.kernels, r.kernels_total);
  json.key("appeared");
  write_kernel_list(json, r.kernels_appeared, r.kernels_appeared_total);
  json.key("vanished");
  write_kernel_list(json, r.kernels_vanished, r.kernels_vanished_total);
  json.end_object();
  json.key("findings");
  json.begin_object();
  json.key("resolved");
  write_findings(json, r.findings_resolved);
  json.key("introduced");
  write_findings(json, r.findings_introduced);
  json.key("persisting");
  write_findings(json, r.findings_persisting);
  json.end_object();
  json.key("calibration");
  write_calibration(json, r.calibration);
  json.key("notes");
  json.begin_array();
  for (const std::string& note : r.notes) json.value(note);
  json.end_array();
  json.end_object();
  std::string out = json.take();
  out += '\n';
  return out;
}

}  // namespace stepscope
