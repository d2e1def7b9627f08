// The memory planner's saved measurement (stepscope/memory/plan_document.h): written with the
// JSON writer, read back with simdjson On-Demand. The reader is strict because the document is
// small and machine-written: a missing, unknown or mistyped field is an error naming the file
// and the byte offset, never a silently different plan.
#include "stepscope/memory/plan_document.h"

#include <simdjson.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <utility>

#include "io/document_errors.h"
#include "io/whole_file.h"
#include "memory/measurement_json.h"
#include "render/json_writer.h"

namespace stepscope::memory {

namespace {

namespace ondemand = simdjson::ondemand;
using simdjson::SUCCESS;

constexpr std::string_view kSchema = "stepscope.plan_measurement";
constexpr std::uint64_t kMaxFileBytes = 1 << 20;  // the document is a few hundred bytes
constexpr std::int64_t kMaxInteger = std::int64_t{1} << 60;
constexpr double kMaxMilliseconds = 1e9;  // ~11 days per step part
constexpr std::size_t kMaxText = 1000;
constexpr std::size_t kMaxNotes = 20;

void write_timing(render::JsonWriter& json, std::string_view name, const StepTiming& t) {
  json.key(name);
  json.begin_object();
  json.field("forward_ms", t.forward_ms);
  json.field("backward_ms", t.backward_ms);
  json.field("optimizer_ms", t.optimizer_ms);
  json.field("blocks_forward_ms", t.blocks_forward_ms);
  json.end_object();
}

class Reader {
 public:
  Reader(const simdjson::padded_string& json, const std::string& file)
      : errors_(json, file, "plan measurement") {}

  Result<PlanMeasurement> run(const simdjson::padded_string& json);

 private:
  using Handler = std::function<Status(ondemand::value&)>;

  Error fail(std::optional<std::uint64_t> offset, std::string message,
             ErrorKind kind = ErrorKind::kNotTrace) const {
    return errors_.fail(offset, std::move(message), kind);
  }
  std::optional<std::uint64_t> offset_of(const char* at) const { return errors_.offset_of(at); }
  std::optional<std::uint64_t> offset_of(ondemand::value& v) const { return errors_.offset_of(v); }
  Error json_error(simdjson::error_code code) const {
    return errors_.invalid_json(code, document_);
  }

  Status integer(ondemand::value& v, std::string_view name, std::int64_t& out) const;
  Status milliseconds(ondemand::value& v, std::string_view name, double& out) const;
  Status text(ondemand::value& v, std::string_view name, std::string& out) const;
  Status notes(ondemand::value& v);
  Status timing(ondemand::value& v, std::string_view name, StepTiming& out);
  // Each field of `object` through its handler; every handler's key must appear exactly once.
  Status object_fields(ondemand::value& v, std::string_view name,
                       const std::map<std::string_view, Handler>& handlers);

  io::DocumentErrors errors_;
  ondemand::document* document_ = nullptr;
  PlanMeasurement out_;
};

Status Reader::integer(ondemand::value& v, std::string_view name, std::int64_t& out) const {
  std::int64_t value = 0;
  if (v.get_int64().get(value) != SUCCESS || value < 0 || value > kMaxInteger) {
    return fail(offset_of(v), std::string(name) + " must be an integer from 0 to 2^60");
  }
  out = value;
  return Done{};
}

Status Reader::milliseconds(ondemand::value& v, std::string_view name, double& out) const {
  double value = 0;
  if (v.get_double().get(value) != SUCCESS || !std::isfinite(value) || value < 0 ||
      value > kMaxMilliseconds) {
    return fail(offset_of(v), std::string(name) + " must be a number of milliseconds >= 0");
  }
  out = value;
  return Done{};
}

Status Reader::text(ondemand::value& v, std::string_view name, std::string& out) const {
  std::string_view value;
  if (v.get_string().get(value) != SUCCESS || value.size() > kMaxText) {
    return fail(offset_of(v), std::string(name) + " must be a string of at most 1000 bytes");
  }
  out = std::string(value);
  return Done{};
}

Status Reader::notes(ondemand::value& v) {
  ondemand::array array;
  if (v.get_array().get(array) != SUCCESS) {
    return fail(offset_of(v), "notes must be an array of strings");
  }
  for (auto element_result : array) {
    ondemand::value element;
    if (auto code = element_result.get(element)) return json_error(code);
    if (out_.notes.size() == kMaxNotes) return fail(offset_of(element), "more than 20 notes");
    std::string note;
    STEPSCOPE_TRY(text(element, "a note", note));
    out_.notes.push_back(std::move(note));
  }
  return Done{};
}

Status Reader::timing(ondemand::value& v, std::string_view name, StepTiming& out) {
  const std::map<std::string_view, Handler> handlers = {
      {"forward_ms",
       [&](ondemand::value& f) { return milliseconds(f, "forward_ms", out.forward_ms); }},
      {"backward_ms",
       [&](ondemand::value& f) { return milliseconds(f, "backward_ms", out.backward_ms); }},
      {"optimizer_ms",
       [&](ondemand::value& f) { return milliseconds(f, "optimizer_ms", out.optimizer_ms); }},
      {"blocks_forward_ms",
       [&](ondemand::value& f) {
         return milliseconds(f, "blocks_forward_ms", out.blocks_forward_ms);
       }},
  };
  return object_fields(v, name, handlers);
}

Status Reader::object_fields(ondemand::value& v, std::string_view name,
                             const std::map<std::string_view, Handler>& handlers) {
  const std::optional<std::uint64_t> start = offset_of(v);
  ondemand::object object;
  if (v.get_object().get(object) != SUCCESS) {
    return fail(start, std::string(name) + " must be an object");
  }
  std::set<std::string_view> seen;
  for (auto field_result : object) {
    ondemand::field field;
    if (auto code = std::move(field_result).get(field)) return json_error(code);
    const std::optional<std::uint64_t> at = offset_of(field.key().raw());
    std::string_view key;
    if (auto code = field.unescaped_key().get(key)) return json_error(code);
    const auto handler = handlers.find(key);
    if (handler == handlers.end()) {
      return fail(at, "unknown field \"" + std::string(key) + "\" in " + std::string(name));
    }
    if (!seen.insert(handler->first).second) {
      return fail(at, "field \"" + std::string(key) + "\" twice in " + std::string(name));
    }
    STEPSCOPE_TRY(handler->second(field.value()));
  }
  for (const auto& [key, unused] : handlers) {
    if (!seen.contains(key)) {
      return fail(start, std::string(name) + " has no \"" + std::string(key) + "\"");
    }
  }
  return Done{};
}

Result<PlanMeasurement> Reader::run(const simdjson::padded_string& json) {
  ondemand::parser parser;
  ondemand::document document;
  if (auto code = parser.iterate(json).get(document)) return json_error(code);
  document_ = &document;
  ondemand::value root;
  if (auto code = document.get_value().get(root)) return json_error(code);
  PlanMeasurement& m = out_;
  std::string schema;
  std::int64_t version = 0;
  auto int_field = [&](std::string_view key, std::int64_t& target) -> Handler {
    return [this, key, &target](ondemand::value& f) { return integer(f, key, target); };
  };
  const std::map<std::string_view, Handler> handlers = {
      {"schema",
       [&](ondemand::value& f) -> Status {
         STEPSCOPE_TRY(text(f, "schema", schema));
         if (schema != kSchema) {
           return fail(offset_of(f), "schema is not \"stepscope.plan_measurement\"");
         }
         return Done{};
       }},
      {"schema_version",
       [&](ondemand::value& f) -> Status {
         STEPSCOPE_TRY(integer(f, "schema_version", version));
         if (version != kPlanMeasurementSchemaVersion) {
           return fail(
               offset_of(f),
               "schema_version " + std::to_string(version) + " is not one this stepscope reads (1)",
               ErrorKind::kUnsupported);
         }
         return Done{};
       }},
      {"device",
       [&](ondemand::value& f) -> Status {
         STEPSCOPE_TRY(text(f, "device", m.device));
         if (m.device != "cpu" && m.device != "cuda") {
           return fail(offset_of(f), "device must be \"cpu\" or \"cuda\"");
         }
         return Done{};
       }},
      {"optimizer", [&](ondemand::value& f) { return text(f, "optimizer", m.optimizer); }},
      {"parameter_count", int_field("parameter_count", m.parameter_count)},
      {"parameter_bytes", int_field("parameter_bytes", m.parameter_bytes)},
      {"gradient_bytes", int_field("gradient_bytes", m.gradient_bytes)},
      {"optimizer_state_bytes", int_field("optimizer_state_bytes", m.optimizer_state_bytes)},
      {"batch_a", int_field("batch_a", m.batch_a)},
      {"peak_a_bytes", int_field("peak_a_bytes", m.peak_a)},
      {"batch_b", int_field("batch_b", m.batch_b)},
      {"peak_b_bytes", int_field("peak_b_bytes", m.peak_b)},
      {"optimizer_peak_bytes", int_field("optimizer_peak_bytes", m.optimizer_peak)},
      {"capacity_bytes", int_field("capacity_bytes", m.capacity_bytes)},
      {"repeated_blocks", int_field("repeated_blocks", m.repeated_blocks)},
      {"timing_a", [&](ondemand::value& f) { return timing(f, "timing_a", m.timing_a); }},
      {"timing_b", [&](ondemand::value& f) { return timing(f, "timing_b", m.timing_b); }},
      {"notes", [&](ondemand::value& f) { return notes(f); }},
  };
  STEPSCOPE_TRY(object_fields(root, "the document", handlers));
  STEPSCOPE_TRY(errors_.expect_end(document));
  return std::move(out_);
}

}  // namespace

void write_measurement_fields(render::JsonWriter& json, const PlanMeasurement& m) {
  json.field("device", m.device);
  json.field("optimizer", m.optimizer);
  json.field("parameter_count", m.parameter_count);
  json.field("parameter_bytes", m.parameter_bytes);
  json.field("gradient_bytes", m.gradient_bytes);
  json.field("optimizer_state_bytes", m.optimizer_state_bytes);
  json.field("batch_a", m.batch_a);
  json.field("peak_a_bytes", m.peak_a);
  json.field("batch_b", m.batch_b);
  json.field("peak_b_bytes", m.peak_b);
  json.field("optimizer_peak_bytes", m.optimizer_peak);
  json.field("capacity_bytes", m.capacity_bytes);
  json.field("repeated_blocks", m.repeated_blocks);
  write_timing(json, "timing_a", m.timing_a);
  write_timing(json, "timing_b", m.timing_b);
}

std::string render_plan_measurement_json(const PlanMeasurement& m) {
  render::JsonWriter json;
  json.begin_object();
  json.field("schema", kSchema);
  json.field("schema_version", kPlanMeasurementSchemaVersion);
  write_measurement_fields(json, m);
  json.key("notes");
  json.begin_array();
  for (const std::string& note : m.notes) json.value(note);
  json.end_array();
  json.end_object();
  return json.take() + "\n";
}

Result<PlanMeasurement> parse_plan_measurement(std::string_view json, const std::string& file) {
  const simdjson::padded_string padded(json);
  Reader reader(padded, file);
  return reader.run(padded);
}

Result<PlanMeasurement> read_plan_measurement(const std::string& path) {
  STEPSCOPE_ASSIGN_OR_RETURN(
      std::string text,
      io::read_whole_file(path, kMaxFileBytes,
                          "larger than 1 MiB: not a plan measurement stepscope writes"));
  return parse_plan_measurement(text, path);
}

}  // namespace stepscope::memory
