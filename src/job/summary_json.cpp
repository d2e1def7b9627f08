// The summary document: one rank's RankSummary as JSON, written and read back exactly (times
// are integer nanoseconds).
#include <simdjson.h>

#include <vector>

#include "job/summary_checks.h"
#include "render/json_writer.h"
#include "stepscope/job/rank_summary.h"

namespace stepscope::job {

namespace {

using render::JsonWriter;
namespace dom = simdjson::dom;

void write_collective(JsonWriter& json, const SummaryCollective& c) {
  json.begin_object();
  json.field("kind", c.kind);
  json.field("group", c.group);
  json.field("order", c.order);
  json.field("bytes", c.bytes);
  json.field("dtype", c.dtype);
  json.field("group_size", c.group_size);
  json.field("start_ns", c.start_ns);
  json.field("end_ns", c.end_ns);
  json.field("overlapped_ns", c.overlapped_ns);
  json.field("step", c.step);
  json.field("on_device", c.on_device);
  json.end_object();
}

void write_step(JsonWriter& json, const SummaryStep& s) {
  json.begin_object();
  json.field("number", s.number);
  json.field("start_ns", s.start_ns);
  json.field("end_ns", s.end_ns);
  json.field("compute_ns", s.compute_ns);
  json.field("communication_ns", s.communication_ns);
  json.field("idle_ns", s.idle_ns);
  json.key("phase_ns");
  json.begin_object();
  for (std::size_t p = 0; p < kPhaseCount; ++p) {
    json.field(to_string(static_cast<Phase>(p)), s.phase_ns[p]);
  }
  json.end_object();
  json.end_object();
}

// Reading: every field is required, so a truncated or foreign document fails loudly.
class Reader {
 public:
  explicit Reader(const std::string& name) : name_(name) {}
  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }

  void get(dom::object o, const char* key, std::int64_t& out) {
    if (failed()) return;
    if (o[key].get_int64().get(out) != simdjson::SUCCESS) fail(key, "an integer");
  }
  void get(dom::object o, const char* key, int& out) {
    std::int64_t v = 0;
    get(o, key, v);
    out = static_cast<int>(v);
  }
  void get(dom::object o, const char* key, double& out) {
    if (failed()) return;
    if (o[key].get_double().get(out) != simdjson::SUCCESS) fail(key, "a number");
  }
  void get(dom::object o, const char* key, bool& out) {
    if (failed()) return;
    if (o[key].get_bool().get(out) != simdjson::SUCCESS) fail(key, "true or false");
  }
  void get(dom::object o, const char* key, std::string& out) {
    if (failed()) return;
    std::string_view v;
    if (o[key].get_string().get(v) != simdjson::SUCCESS) {
      fail(key, "a string");
      return;
    }
    out = std::string(v);
  }
  std::vector<dom::element> array(dom::object o, const char* key) {
    std::vector<dom::element> out;
    dom::array a;
    if (failed()) return out;
    if (o[key].get_array().get(a) != simdjson::SUCCESS) {
      fail(key, "an array");
      return out;
    }
    for (dom::element e : a) out.push_back(e);
    return out;
  }
  dom::object object(dom::element e, const char* what) {
    dom::object o;
    if (!failed() && e.get_object().get(o) != simdjson::SUCCESS) fail(what, "an object");
    return o;
  }
  void fail(std::string_view key, std::string_view expected) {
    if (error_.empty())
      error_ = "summary field '" + std::string(key) + "' is not " + std::string(expected);
  }

 private:
  std::string name_;
  std::string error_;
};

}  // namespace

std::string summary_to_json(const RankSummary& s) {
  JsonWriter json;
  json.begin_object();
  json.field("summary_version", s.summary_version);
  json.field("rank", s.rank);
  json.field("rank_source", s.rank_source);
  json.field("world_size", s.world_size);
  json.field("backend", s.backend);
  json.field("file", s.file);
  json.field("trace_start_ns", s.trace_start_ns);
  json.field("trace_end_ns", s.trace_end_ns);
  json.field("has_device_activity", s.has_device_activity);
  json.field("bottleneck", s.bottleneck);
  json.field("summary", s.summary);
  json.key("steps");
  json.begin_array();
  for (const SummaryStep& step : s.steps) write_step(json, step);
  json.end_array();
  json.key("collectives");
  json.begin_array();
  for (const SummaryCollective& c : s.collectives) write_collective(json, c);
  json.end_array();
  json.key("findings");
  json.begin_array();
  for (const SummaryFinding& f : s.findings) {
    json.begin_object();
    json.field("id", f.id);
    json.field("title", f.title);
    json.field("severity", f.severity);
    json.field("bottleneck", f.bottleneck);
    json.field("phase", f.phase);
    json.field("likely_gain_ns", f.likely_gain_ns);
    json.field("likely_share", f.likely_share);
    json.field("fix", f.fix);
    json.end_object();
  }
  json.end_array();
  json.key("ops");
  json.begin_array();
  for (const SummaryOp& op : s.ops) {
    json.begin_object();
    json.field("name", op.name);
    json.field("ns_per_step", op.ns_per_step);
    json.end_object();
  }
  json.end_array();
  json.key("notes");
  json.begin_array();
  for (const std::string& note : s.notes) json.value(note);
  json.end_array();
  json.end_object();
  std::string out = json.take();
  out.push_back('\n');
  return out;
}

Result<RankSummary> summary_from_json(std::string_view text, const std::string& name) {
  auto failure = [&name](std::string message) {
    Error error = make_error(ErrorKind::kNotTrace, std::move(message));
    error.file = name;
    return error;
  };
  dom::parser parser;
  dom::element root;
  if (const auto code = parser.parse(text.data(), text.size()).get(root); code) {
    Error error = failure(std::string("not a JSON summary: ") + simdjson::error_message(code));
    error.kind = ErrorKind::kNotJson;
    return error;
  }
  Reader r(name);
  RankSummary s;
  dom::object o = r.object(root, "summary");
  if (r.failed()) return failure("not a stepscope rank summary: the document is not an object");
  std::int64_t version = 0;
  if (o["summary_version"].get_int64().get(version) != simdjson::SUCCESS) {
    return failure(
        "not a stepscope rank summary (no summary_version); write one with "
        "`stepscope summarize TRACE -o FILE`");
  }
  if (version != kSummaryVersion) {
    return failure("summary_version " + std::to_string(version) +
                   " is not supported (this "
                   "stepscope reads version " +
                   std::to_string(kSummaryVersion) + ")");
  }
  s.summary_version = static_cast<int>(version);
  r.get(o, "rank", s.rank);
  r.get(o, "rank_source", s.rank_source);
  r.get(o, "world_size", s.world_size);
  r.get(o, "backend", s.backend);
  r.get(o, "file", s.file);
  r.get(o, "trace_start_ns", s.trace_start_ns);
  r.get(o, "trace_end_ns", s.trace_end_ns);
  r.get(o, "has_device_activity", s.has_device_activity);
  r.get(o, "bottleneck", s.bottleneck);
  r.get(o, "summary", s.summary);
  for (dom::element e : r.array(o, "steps")) {
    dom::object so = r.object(e, "steps[]");
    SummaryStep step;
    r.get(so, "number", step.number);
    r.get(so, "start_ns", step.start_ns);
    r.get(so, "end_ns", step.end_ns);
    r.get(so, "compute_ns", step.compute_ns);
    r.get(so, "communication_ns", step.communication_ns);
    r.get(so, "idle_ns", step.idle_ns);
    dom::object phases;
    if (!r.failed() && so["phase_ns"].get_object().get(phases) != simdjson::SUCCESS) {
      r.fail("phase_ns", "an object");
    }
    for (std::size_t p = 0; p < kPhaseCount && !r.failed(); ++p) {
      const std::string key(to_string(static_cast<Phase>(p)));
      r.get(phases, key.c_str(), step.phase_ns[p]);
    }
    s.steps.push_back(step);
  }
  for (dom::element e : r.array(o, "collectives")) {
    dom::object co = r.object(e, "collectives[]");
    SummaryCollective c;
    r.get(co, "kind", c.kind);
    r.get(co, "group", c.group);
    r.get(co, "order", c.order);
    r.get(co, "bytes", c.bytes);
    r.get(co, "dtype", c.dtype);
    r.get(co, "group_size", c.group_size);
    r.get(co, "start_ns", c.start_ns);
    r.get(co, "end_ns", c.end_ns);
    r.get(co, "overlapped_ns", c.overlapped_ns);
    r.get(co, "step", c.step);
    r.get(co, "on_device", c.on_device);
    s.collectives.push_back(std::move(c));
  }
  for (dom::element e : r.array(o, "findings")) {
    dom::object fo = r.object(e, "findings[]");
    SummaryFinding f;
    r.get(fo, "id", f.id);
    r.get(fo, "title", f.title);
    r.get(fo, "severity", f.severity);
    r.get(fo, "bottleneck", f.bottleneck);
    r.get(fo, "phase", f.phase);
    r.get(fo, "likely_gain_ns", f.likely_gain_ns);
    r.get(fo, "likely_share", f.likely_share);
    r.get(fo, "fix", f.fix);
    s.findings.push_back(std::move(f));
  }
  for (dom::element e : r.array(o, "ops")) {
    dom::object oo = r.object(e, "ops[]");
    SummaryOp op;
    r.get(oo, "name", op.name);
    r.get(oo, "ns_per_step", op.ns_per_step);
    s.ops.push_back(std::move(op));
  }
  for (dom::element e : r.array(o, "notes")) {
    std::string_view note;
    if (!r.failed() && e.get_string().get(note) != simdjson::SUCCESS) r.fail("notes[]", "a string");
    s.notes.emplace_back(note);
  }
  if (r.failed()) return failure(r.error());
  if (auto impossible = impossible_value(s)) return failure("impossible value: " + *impossible);
  return s;
}

}  // namespace stepscope::job
