// Reads a monitor timeline document back (simdjson On-Demand, keys in any order, unknown keys
// skipped). Every failure is an Error naming the file and, where the token is known, its byte
// offset; the numbers are range-checked so that a hostile file cannot ask for absurd sizes.
#include "stepscope/live/timeline_document.h"

#include <simdjson.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <utility>

#include "io/document_errors.h"
#include "io/whole_file.h"

namespace stepscope::live {

namespace {

namespace ondemand = simdjson::ondemand;
using simdjson::SUCCESS;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kMaxFigure = 1e18;          // bytes, rates, shares, cores: all far below
constexpr double kMaxTimeUs = 1e15;          // ~31 years
constexpr std::size_t kMaxGpus = 64;         // distinct GPU indices
constexpr std::size_t kMaxProcesses = 1000;  // distinct pids kept for the page
constexpr std::uint64_t kMaxFileBytes = 1ULL << 30;
constexpr std::size_t kDetectBytes = 4096;

std::string_view type_name(ondemand::json_type type) {
  switch (type) {
    case ondemand::json_type::array:
      return "an array";
    case ondemand::json_type::object:
      return "an object";
    case ondemand::json_type::number:
      return "a number";
    case ondemand::json_type::string:
      return "a string";
    case ondemand::json_type::boolean:
      return "a boolean";
    case ondemand::json_type::null:
      return "null";
  }
  return "a value";
}

class Parser {
 public:
  Parser(const simdjson::padded_string& json, const std::string& file)
      : errors_(json, file, "timeline document") {}

  Result<MonitorTimelineDocument> run(const simdjson::padded_string& json);

 private:
  Error fail(std::optional<std::uint64_t> offset, std::string message,
             ErrorKind kind = ErrorKind::kNotTrace) const {
    return errors_.fail(offset, std::move(message), kind);
  }
  std::optional<std::uint64_t> offset_of(const char* at) const { return errors_.offset_of(at); }
  static const char* token(ondemand::value& v) { return v.raw_json_token().data(); }
  Error json_error(simdjson::error_code code) const {
    return errors_.invalid_json(code, document_);
  }
  Error type_error(ondemand::value& v, std::string_view name, std::string_view wanted) {
    ondemand::json_type type{};
    std::string actual = "something else";
    if (v.type().get(type) == SUCCESS) actual = type_name(type);
    return fail(offset_of(token(v)),
                std::string(name) + " must be " + std::string(wanted) + ", not " + actual);
  }

  Status number(ondemand::value& v, std::string_view name, double& out, double low, double high,
                bool allow_null);
  template <typename Integer>
  Status integer(ondemand::value& v, std::string_view name, Integer& out);
  Status text(ondemand::value& v, std::string_view name, std::string& out, bool allow_null);
  Status texts(ondemand::value& v, std::string_view name, std::vector<std::string>& out);
  Status object(ondemand::value& v, std::string_view name, ondemand::object& out) {
    if (v.get_object().get(out) != SUCCESS) return type_error(v, name, "an object");
    return Done{};
  }
  Status array(ondemand::value& v, std::string_view name, ondemand::array& out) {
    if (v.get_array().get(out) != SUCCESS) return type_error(v, name, "an array");
    return Done{};
  }
  // Calls `each(key, value)` for every field of `o`.
  template <typename Each>
  Status fields(ondemand::object& o, Each each);
  template <typename Each>
  Status elements(ondemand::array& a, Each each);

  Status gpus(ondemand::value& v);
  Status summary(ondemand::value& v);
  Status distribution(ondemand::value& v, std::string_view name, Distribution& out);
  Status verdict(ondemand::value& v);
  Status samples(ondemand::value& v);
  Status sample(ondemand::value& v);
  Status process(ondemand::value& v, double& main, double& workers, double& rss);
  Status gpu(ondemand::value& v);
  GpuSeries& series_of(std::uint32_t index);

  io::DocumentErrors errors_;
  ondemand::document* document_ = nullptr;
  MonitorTimelineDocument doc_;
  std::vector<std::int32_t> pids_seen_;
};

template <typename Each>
Status Parser::fields(ondemand::object& o, Each each) {
  for (auto field_result : o) {
    ondemand::field field;
    if (auto code = std::move(field_result).get(field)) return json_error(code);
    std::string_view key;
    if (auto code = field.unescaped_key().get(key)) return json_error(code);
    STEPSCOPE_TRY(each(key, field.value()));
  }
  return Done{};
}

template <typename Each>
Status Parser::elements(ondemand::array& a, Each each) {
  for (auto element_result : a) {
    ondemand::value element;
    if (auto code = element_result.get(element)) return json_error(code);
    STEPSCOPE_TRY(each(element));
  }
  return Done{};
}

Status Parser::number(ondemand::value& v, std::string_view name, double& out, double low,
                      double high, bool allow_null) {
  ondemand::json_type type{};
  if (auto code = v.type().get(type)) return json_error(code);
  if (type == ondemand::json_type::null && allow_null) {
    out = kNaN;
    return Done{};
  }
  if (type != ondemand::json_type::number) return type_error(v, name, "a number");
  const char* at = token(v);
  double value = 0;
  if (v.get_double().get(value) != SUCCESS || !std::isfinite(value)) {
    return fail(offset_of(at), std::string(name) + " is not a number stepscope can read");
  }
  if (!(value >= low && value <= high)) {
    return fail(offset_of(at), std::string(name) + " is out of range: " + std::to_string(value));
  }
  out = value;
  return Done{};
}

template <typename Integer>
Status Parser::integer(ondemand::value& v, std::string_view name, Integer& out) {
  const double low =
      std::max(-kMaxFigure, static_cast<double>(std::numeric_limits<Integer>::min()));
  const double high =
      std::min(kMaxFigure, static_cast<double>(std::numeric_limits<Integer>::max()));
  double value = 0;
  STEPSCOPE_TRY(number(v, name, value, low, high, false));
  out = static_cast<Integer>(value);
  return Done{};
}

Status Parser::text(ondemand::value& v, std::string_view name, std::string& out, bool allow_null) {
  ondemand::json_type type{};
  if (auto code = v.type().get(type)) return json_error(code);
  if (type == ondemand::json_type::null && allow_null) {
    out.clear();
    return Done{};
  }
  if (type != ondemand::json_type::string) return type_error(v, name, "a string");
  const char* at = token(v);
  std::string_view value;
  if (v.get_string().get(value) != SUCCESS) {
    return fail(offset_of(at), std::string(name) + " is not a valid JSON string");
  }
  out = std::string(value);
  return Done{};
}

Status Parser::texts(ondemand::value& v, std::string_view name, std::vector<std::string>& out) {
  ondemand::array a;
  STEPSCOPE_TRY(array(v, name, a));
  return elements(a, [&](ondemand::value& e) -> Status {
    std::string item;
    STEPSCOPE_TRY(text(e, name, item, false));
    out.push_back(std::move(item));
    return Done{};
  });
}

Status Parser::gpus(ondemand::value& v) {
  ondemand::array a;
  STEPSCOPE_TRY(array(v, "gpus", a));
  return elements(a, [&](ondemand::value& e) -> Status {
    ondemand::object o;
    STEPSCOPE_TRY(object(e, "gpus[]", o));
    GpuInfo info;
    if (Status s = fields(o,
                          [&](std::string_view key, ondemand::value& f) -> Status {
                            if (key == "index") return integer(f, "gpus[].index", info.index);
                            if (key == "name") return text(f, "gpus[].name", info.name, true);
                            if (key == "uuid") return text(f, "gpus[].uuid", info.uuid, true);
                            return Done{};
                          });
        !s) {
      return s;
    }
    if (doc_.gpus.size() >= kMaxGpus)
      return fail(std::nullopt, "more than 64 GPUs listed", ErrorKind::kLimitExceeded);
    doc_.gpus.push_back(std::move(info));
    return Done{};
  });
}

Status Parser::distribution(ondemand::value& v, std::string_view name, Distribution& out) {
  ondemand::object o;
  STEPSCOPE_TRY(object(v, name, o));
  return fields(o, [&](std::string_view key, ondemand::value& f) -> Status {
    if (key == "count") return integer(f, "count", out.count);
    double* target = key == "p5"     ? &out.p5
                     : key == "p50"  ? &out.p50
                     : key == "p95"  ? &out.p95
                     : key == "mean" ? &out.mean
                     : key == "max"  ? &out.max
                                     : nullptr;
    if (target == nullptr) return Done{};
    return number(f, key, *target, -kMaxFigure, kMaxFigure, true);
  });
}

Status Parser::verdict(ondemand::value& v) {
  ondemand::object o;
  STEPSCOPE_TRY(object(v, "verdict", o));
  TimelineVerdict& out = doc_.verdict;
  return fields(o, [&](std::string_view key, ondemand::value& f) -> Status {
    if (key == "bottleneck") return text(f, "verdict.bottleneck", out.bottleneck, true);
    if (key == "id") return text(f, "verdict.id", out.id, true);
    if (key == "headline") return text(f, "verdict.headline", out.headline, true);
    if (key == "reasons") return texts(f, "verdict.reasons", out.reasons);
    if (key == "next_step") return text(f, "verdict.next_step", out.next_step, true);
    return Done{};
  });
}

Status Parser::summary(ondemand::value& v) {
  ondemand::object o;
  STEPSCOPE_TRY(object(v, "summary", o));
  const char* at = token(v);
  bool seen_distributions = false;
  bool seen_verdict = false;
  if (Status s = fields(o,
                        [&](std::string_view key, ondemand::value& f) -> Status {
                          if (key == "distributions") {
                            seen_distributions = true;
                            ondemand::object d;
                            STEPSCOPE_TRY(object(f, "summary.distributions", d));
                            return fields(
                                d, [&](std::string_view name, ondemand::value& g) -> Status {
                                  Distribution out;
                                  STEPSCOPE_TRY(distribution(g, name, out));
                                  if (doc_.distributions.size() < 256) {
                                    doc_.distributions.emplace_back(std::string(name), out);
                                  }
                                  return Status(Done{});
                                });
                          }
                          if (key == "verdict") {
                            seen_verdict = true;
                            return verdict(f);
                          }
                          return Done{};
                        });
      !s) {
    return s;
  }
  if (!seen_distributions) return fail(offset_of(at), "summary has no \"distributions\"");
  if (!seen_verdict) return fail(offset_of(at), "summary has no \"verdict\"");
  return Done{};
}

GpuSeries& Parser::series_of(std::uint32_t index) {
  for (GpuSeries& s : doc_.gpu_series) {
    if (s.index == index) return s;
  }
  GpuSeries s;
  s.index = index;
  const std::size_t n = doc_.time_us.size();
  s.utilization_share.assign(n, kNaN);
  s.memory_utilization_share.assign(n, kNaN);
  s.memory_used_share.assign(n, kNaN);
  doc_.gpu_series.push_back(std::move(s));
  return doc_.gpu_series.back();
}

Status Parser::process(ondemand::value& v, double& main, double& workers, double& rss) {
  ondemand::object o;
  STEPSCOPE_TRY(object(v, "processes[]", o));
  const char* at = token(v);
  bool root = false;
  bool seen_cpu = false;
  double cpu = 0;
  double rss_bytes = 0;
  TimelineProcess info;
  if (Status s = fields(o,
                        [&](std::string_view key, ondemand::value& f) -> Status {
                          if (key == "pid") return integer(f, "processes[].pid", info.pid);
                          if (key == "name") return text(f, "processes[].name", info.name, true);
                          if (key == "root") {
                            if (f.get_bool().get(root) != SUCCESS) {
                              return type_error(f, "processes[].root", "a boolean");
                            }
                            return Done{};
                          }
                          if (key == "cpu_cores") {
                            seen_cpu = true;
                            return number(f, "processes[].cpu_cores", cpu, 0, kMaxFigure, false);
                          }
                          if (key == "rss_bytes") {
                            return number(f, "processes[].rss_bytes", rss_bytes, 0, kMaxFigure,
                                          false);
                          }
                          return Done{};
                        });
      !s) {
    return s;
  }
  if (!seen_cpu) return fail(offset_of(at), "a process has no \"cpu_cores\"");
  (root ? main : workers) += cpu;
  rss += rss_bytes;
  info.is_root = root;
  // A pid's latest name: the first sample may see the name from before exec().
  const auto seen = std::find(pids_seen_.begin(), pids_seen_.end(), info.pid);
  if (seen != pids_seen_.end()) {
    TimelineProcess& known = doc_.processes[static_cast<std::size_t>(seen - pids_seen_.begin())];
    if (!info.name.empty()) known.name = std::move(info.name);
  } else if (doc_.processes.size() < kMaxProcesses) {
    pids_seen_.push_back(info.pid);
    doc_.processes.push_back(std::move(info));
  }
  return Done{};
}

Status Parser::gpu(ondemand::value& v) {
  ondemand::object o;
  STEPSCOPE_TRY(object(v, "gpus[]", o));
  const char* at = token(v);
  std::optional<std::uint32_t> index;
  double utilization = kNaN;
  double memory_utilization = kNaN;
  double used = kNaN;
  double total = kNaN;
  if (Status s = fields(o,
                        [&](std::string_view key, ondemand::value& f) -> Status {
                          if (key == "index") {
                            std::uint32_t i = 0;
                            STEPSCOPE_TRY(integer(f, "gpus[].index", i));
                            index = i;
                            return Done{};
                          }
                          if (key == "utilization_share") {
                            return number(f, key, utilization, 0, kMaxFigure, true);
                          }
                          if (key == "memory_utilization_share") {
                            return number(f, key, memory_utilization, 0, kMaxFigure, true);
                          }
                          if (key == "memory_used_bytes") {
                            return number(f, key, used, 0, kMaxFigure, true);
                          }
                          if (key == "memory_total_bytes") {
                            return number(f, key, total, 0, kMaxFigure, true);
                          }
                          return Done{};
                        });
      !s) {
    return s;
  }
  if (!index) return fail(offset_of(at), "a GPU sample has no \"index\"");
  if (doc_.gpu_series.size() >= kMaxGpus &&
      std::none_of(doc_.gpu_series.begin(), doc_.gpu_series.end(),
                   [&](const GpuSeries& g) { return g.index == *index; })) {
    return fail(offset_of(at), "more than 64 GPUs in the samples", ErrorKind::kLimitExceeded);
  }
  GpuSeries& series = series_of(*index);
  series.utilization_share.back() = utilization;
  series.memory_utilization_share.back() = memory_utilization;
  series.memory_used_share.back() = total > 0 ? used / total : kNaN;
  return Done{};
}

Status Parser::sample(ondemand::value& v) {
  ondemand::object o;
  STEPSCOPE_TRY(object(v, "samples[]", o));
  const char* at = token(v);
  double time_us = kNaN;
  double machine = kNaN;
  double main = 0;
  double workers = 0;
  double rss = 0;
  bool seen_processes = false;
  doc_.time_us.push_back(kNaN);  // the GPU series grow with it; filled in below
  for (GpuSeries& g : doc_.gpu_series) {
    g.utilization_share.push_back(kNaN);
    g.memory_utilization_share.push_back(kNaN);
    g.memory_used_share.push_back(kNaN);
  }
  if (Status s =
          fields(o,
                 [&](std::string_view key, ondemand::value& f) -> Status {
                   if (key == "time_us") {
                     return number(f, "samples[].time_us", time_us, 0, kMaxTimeUs, false);
                   }
                   if (key == "machine_cpu_share") {
                     return number(f, "samples[].machine_cpu_share", machine, 0, kMaxFigure, true);
                   }
                   if (key == "processes") {
                     seen_processes = true;
                     ondemand::array a;
                     STEPSCOPE_TRY(array(f, "samples[].processes", a));
                     return elements(
                         a, [&](ondemand::value& p) { return process(p, main, workers, rss); });
                   }
                   if (key == "gpus") {
                     ondemand::array a;
                     STEPSCOPE_TRY(array(f, "samples[].gpus", a));
                     return elements(a, [&](ondemand::value& g) { return gpu(g); });
                   }
                   return Done{};
                 });
      !s) {
    return s;
  }
  if (std::isnan(time_us)) return fail(offset_of(at), "a sample has no \"time_us\"");
  if (!seen_processes) return fail(offset_of(at), "a sample has no \"processes\"");
  doc_.time_us.back() = time_us;
  doc_.main_cpu_cores.push_back(main);
  doc_.workers_cpu_cores.push_back(workers);
  doc_.machine_cpu_share.push_back(machine);
  doc_.tree_rss_bytes.push_back(rss);
  return Done{};
}

Status Parser::samples(ondemand::value& v) {
  ondemand::array a;
  STEPSCOPE_TRY(array(v, "samples", a));
  return elements(a, [&](ondemand::value& e) { return sample(e); });
}

Result<MonitorTimelineDocument> Parser::run(const simdjson::padded_string& json) {
  ondemand::parser parser;
  ondemand::document document;
  if (auto code = parser.iterate(json).get(document)) return json_error(code);
  document_ = &document;
  ondemand::object root;
  if (auto code = document.get_object().get(root)) {
    if (code != simdjson::INCORRECT_TYPE) return json_error(code);
    return fail(0, std::string("not a timeline document: the top level is not a JSON object (") +
                       simdjson::error_message(code) + ")");
  }
  std::string schema;
  bool seen_version = false;
  bool seen_duration = false;
  bool seen_cpus = false;
  bool seen_summary = false;
  bool seen_samples = false;
  const Status fields_status =
      fields(root, [&](std::string_view key, ondemand::value& f) -> Status {
        if (key == "schema") return text(f, "schema", schema, false);
        if (key == "schema_version") {
          seen_version = true;
          const char* at = token(f);
          int version = 0;
          STEPSCOPE_TRY(integer(f, "schema_version", version));
          if (version != kTimelineSchemaVersion) {
            return fail(offset_of(at),
                        "schema_version " + std::to_string(version) +
                            " is not one this stepscope reads (" +
                            std::to_string(kTimelineSchemaVersion) + ")",
                        ErrorKind::kUnsupported);
          }
          return Done{};
        }
        if (key == "command") return texts(f, "command", doc_.command);
        if (key == "exit_status") {
          double status = kNaN;
          STEPSCOPE_TRY(number(f, "exit_status", status, -1e9, 1e9, true));
          if (!std::isnan(status)) doc_.exit_status = static_cast<std::int32_t>(status);
          return Done{};
        }
        if (key == "requested_interval_us") {
          double us = 0;
          STEPSCOPE_TRY(number(f, key, us, 0, kMaxTimeUs, false));
          doc_.requested_interval_s = us / 1e6;
          return Done{};
        }
        if (key == "duration_us") {
          seen_duration = true;
          double us = 0;
          STEPSCOPE_TRY(number(f, key, us, 0, kMaxTimeUs, false));
          doc_.duration_s = us / 1e6;
          return Done{};
        }
        if (key == "cpu_count") {
          seen_cpus = true;
          return integer(f, "cpu_count", doc_.cpu_count);
        }
        if (key == "machine_memory_total_bytes") {
          return integer(f, key, doc_.machine_memory_total_bytes);
        }
        if (key == "gpu_status") return text(f, "gpu_status", doc_.gpu_status, true);
        if (key == "gpus") return gpus(f);
        if (key == "samples_taken") return integer(f, key, doc_.samples_taken);
        if (key == "sample_stride") return integer(f, key, doc_.sample_stride);
        if (key == "summary") {
          seen_summary = true;
          return summary(f);
        }
        if (key == "samples") {
          seen_samples = true;
          return samples(f);
        }
        return Done{};
      });
  STEPSCOPE_TRY(fields_status);
  STEPSCOPE_TRY(errors_.expect_end(document));
  if (schema != "stepscope.monitor") {
    return fail(std::nullopt, "not a timeline document: \"schema\" is not \"stepscope.monitor\"");
  }
  const char* missing = !seen_version    ? "schema_version"
                        : !seen_duration ? "duration_us"
                        : !seen_cpus     ? "cpu_count"
                        : !seen_summary  ? "summary"
                        : !seen_samples  ? "samples"
                                         : nullptr;
  if (missing != nullptr) {
    return fail(std::nullopt, std::string("the timeline document has no \"") + missing + "\"");
  }
  // GPU series in the order of the header's list, named from it; GPUs only the samples name
  // come after.
  std::vector<GpuSeries> ordered;
  for (const GpuInfo& info : doc_.gpus) {
    auto it = std::find_if(doc_.gpu_series.begin(), doc_.gpu_series.end(),
                           [&](const GpuSeries& g) { return g.index == info.index; });
    if (it == doc_.gpu_series.end()) continue;
    it->name = info.name;
    ordered.push_back(std::move(*it));
    doc_.gpu_series.erase(it);
  }
  for (GpuSeries& g : doc_.gpu_series) ordered.push_back(std::move(g));
  doc_.gpu_series = std::move(ordered);
  return std::move(doc_);
}

}  // namespace

const Distribution* MonitorTimelineDocument::distribution(std::string_view name) const& {
  for (const auto& [key, d] : distributions) {
    if (key == name) return &d;
  }
  return nullptr;
}

bool is_timeline_document(const std::string& path) {
  if (path.size() < 5 || path.compare(path.size() - 5, 5, ".json") != 0) return false;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                       &std::fclose);
  if (!file) return false;
  std::string head(kDetectBytes, '\0');
  head.resize(std::fread(head.data(), 1, head.size(), file.get()));
  const std::size_t first = head.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || head[first] != '{') return false;
  constexpr std::string_view kKey = "\"schema\"";
  constexpr std::string_view kValue = "\"stepscope.monitor\"";
  for (std::size_t at = head.find(kKey); at != std::string::npos; at = head.find(kKey, at + 1)) {
    std::size_t i = head.find_first_not_of(" \t\r\n", at + kKey.size());
    if (i == std::string::npos || head[i] != ':') continue;
    i = head.find_first_not_of(" \t\r\n", i + 1);
    if (i != std::string::npos && std::string_view(head).substr(i, kValue.size()) == kValue) {
      return true;
    }
  }
  return false;
}

Result<MonitorTimelineDocument> parse_timeline_document(std::string_view json,
                                                        const std::string& file) {
  const simdjson::padded_string padded(json);
  Parser parser(padded, file);
  return parser.run(padded);
}

Result<MonitorTimelineDocument> read_timeline_document(const std::string& path) {
  STEPSCOPE_ASSIGN_OR_RETURN(
      std::string text,
      io::read_whole_file(path, kMaxFileBytes,
                          "larger than 1 GiB: not a timeline document stepscope writes"));
  return parse_timeline_document(text, path);
}

}  // namespace stepscope::live
