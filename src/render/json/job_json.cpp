#include "render/json/job_json.h"

#include "render/json/collective_link_json.h"
#include "stepscope/job/job_report.h"
#include "stepscope/report.h"

namespace stepscope::render {

namespace {

double ms(double ns) { return ns / 1e6; }

}  // namespace

void write_json(JsonWriter& json, const job::JobAnalysis& job) {
  json.begin_object();
  json.field("verdict", job.verdict);
  json.field("world_size", job.world_size);
  json.field("ranks_analysed", static_cast<std::int64_t>(job.ranks.size()));
  json.field("matched_collectives", job.matched_collectives);
  json.key("findings");
  json.begin_array();
  for (const job::JobFinding& f : job.findings) {
    // Same fields as a rank's finding (diagnosis_json.cpp), plus the ranks involved.
    json.begin_object();
    json.field("id", f.finding.id);
    json.field("title", f.finding.title);
    json.field("severity", to_string(f.finding.severity));
    json.field("bottleneck", to_string(f.finding.bottleneck));
    json.field("phase", to_string(f.finding.part));
    json.field("rank", f.finding.rank);
    json.key("ranks");
    json.begin_array();
    for (std::int64_t r : f.ranks) json.value(r);
    json.end_array();
    json.key("evidence");
    json.begin_array();
    for (const Evidence& e : f.finding.evidence) {
      json.begin_object();
      json.field("label", e.label);
      json.field("value", e.value);
      json.field("unit", e.unit);
      json.key("events");
      json.begin_array();
      json.end_array();
      json.end_object();
    }
    json.end_array();
    json.field("fix", f.finding.fix);
    json.key("expected_gain");
    json.begin_object();
    json.field_us("bound_us_per_step", f.finding.gain.bound_ns);
    json.field_us("likely_us_per_step", f.finding.gain.likely_ns);
    json.field("bound_share_of_step", f.finding.gain.bound_share);
    json.field("likely_share_of_step", f.finding.gain.likely_share);
    json.field("method", f.finding.gain.method);
    json.end_object();
    json.end_object();
  }
  json.end_array();
  json.key("ranks");
  json.begin_array();
  for (const job::RankRow& r : job.ranks) {
    json.begin_object();
    json.field("rank", r.rank);
    json.field("steps", r.steps);
    json.field("step_time_p50_ms", ms(r.step_p50_ns));
    json.field("step_time_max_ms", ms(r.step_max_ns));
    json.field("compute_ms", ms(r.compute_ns));
    json.field("exposed_comm_ms", ms(r.exposed_comm_ns));
    json.field("wait_ms", ms(r.wait_ns));
    json.field("idle_ms", ms(r.idle_ns));
    json.field("top_finding", r.top_finding);
    json.field("top_finding_title", r.top_finding_title);
    json.end_object();
  }
  json.end_array();
  json.key("stragglers");
  json.begin_array();
  for (const job::Straggler& s : job.stragglers) {
    json.begin_object();
    json.field("rank", s.rank);
    json.field("late_ms_per_step", ms(s.late_ns_per_step));
    json.field("share_of_collectives_last", s.share_last);
    json.field("phase", s.phase);
    json.field("phase_excess_ms_per_step", ms(s.phase_excess_ns));
    json.key("evidence");
    json.begin_array();
    for (const std::string& e : s.evidence) json.value(e);
    json.end_array();
    json.key("waiting_ranks");
    json.begin_array();
    for (std::int64_t r : s.waiting_ranks) json.value(r);
    json.end_array();
    json.end_object();
  }
  json.end_array();
  json.key("collectives");
  json.begin_array();
  for (const job::CollectiveRow& c : job.collectives) {
    json.begin_object();
    json.field("kind", c.kind);
    json.field("min_bytes", c.min_bytes);
    json.field("max_bytes", c.max_bytes);
    json.field("count", c.count);
    json.field("total_ms", ms(static_cast<double>(c.total_ns)));
    json.field("transfer_ms", ms(static_cast<double>(c.transfer_ns)));
    json.field("wait_ms", ms(static_cast<double>(c.wait_ns)));
    json.field("bytes", c.bytes);
    json.field("algbw_gb_per_s", c.algbw_gb_per_s);
    json.field("busbw_gb_per_s", c.busbw_gb_per_s);
    json.field("latency_bound", c.latency_bound);
    write_link_fields(json, c);
    json.end_object();
  }
  json.end_array();
  json.key("clock_offsets");
  json.begin_array();
  for (const job::ClockOffset& o : job.clock_offsets) {
    json.begin_object();
    json.field("rank", o.rank);
    json.field_us("offset_us", o.offset_ns);
    json.field("collectives", o.collectives);
    json.field_us("spread_us", o.spread_ns);
    json.end_object();
  }
  json.end_array();
  json.key("scaling");
  json.begin_object();
  json.field("applicable", job.scaling.applicable);
  json.field("efficiency", job.scaling.efficiency);
  json.field("ideal_step_ms", ms(job.scaling.ideal_step_ns));
  json.field("actual_step_ms", ms(job.scaling.actual_step_ns));
  json.end_object();
  json.key("runs");
  json.begin_array();
  for (const job::RunInfo& run : job.runs) {
    json.begin_object();
    json.field("index", run.index);
    json.field("world_size", run.world_size);
    json.field("analysed", run.analysed);
    json.key("ranks");
    json.begin_array();
    for (std::int64_t r : run.ranks) json.value(r);
    json.end_array();
    json.key("files");
    json.begin_array();
    for (const std::string& f : run.files) json.value(f);
    json.end_array();
    json.end_object();
  }
  json.end_array();
  json.key("notes");
  json.begin_array();
  for (const std::string& note : job.notes) json.value(note);
  json.end_array();
  json.end_object();
}

}  // namespace stepscope::render

namespace stepscope::job {

std::string render_job_json(const JobAnalysis& job) {
  render::JsonWriter json;
  json.begin_object();
  json.field("schema", "stepscope.job");
  json.field("schema_version", kJsonSchemaVersion);
  json.field("stepscope_version", STEPSCOPE_VERSION);
  json.key("job");
  render::write_json(json, job);
  json.end_object();
  std::string text = json.take();
  text.push_back('\n');
  return text;
}

}  // namespace stepscope::job
