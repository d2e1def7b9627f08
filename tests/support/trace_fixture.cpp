#include "support/trace_fixture.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "stepscope/load.h"

namespace stepscope::testing {

namespace {

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "\"";
}

std::string complete(const std::string& category, const std::string& name, double ts, double dur,
                     const std::string& pid, const std::string& tid, const std::string& args) {
  return fmt::format(
      R"({{"ph":"X","cat":{},"name":{},"pid":{},"tid":{},"ts":{:.3f},"dur":{:.3f},"args":{{{}}}}})",
      quoted(category), quoted(name), pid, tid, ts, dur, args);
}

std::string join_args(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& part : parts) {
    if (part.empty()) continue;
    if (!out.empty()) out += ",";
    out += part;
  }
  return out;
}

std::string external(std::int64_t id) {
  return id >= 0 ? fmt::format(R"("External id":{})", id) : "";
}

}  // namespace

TraceFixture& TraceFixture::op(const std::string& name, double ts, double dur, int tid,
                               std::int64_t external_id, const std::string& extra_args) {
  events_.push_back(complete("cpu_op", name, ts, dur, "100", std::to_string(tid),
                             join_args({external(external_id), extra_args})));
  return *this;
}

TraceFixture& TraceFixture::annotation(const std::string& name, double ts, double dur, int tid,
                                       std::int64_t external_id) {
  events_.push_back(complete("user_annotation", name, ts, dur, "100", std::to_string(tid),
                             external(external_id)));
  return *this;
}

TraceFixture& TraceFixture::gpu_annotation(const std::string& name, double ts, double dur,
                                           int stream) {
  events_.push_back(
      complete("gpu_user_annotation", name, ts, dur, "0", std::to_string(stream), ""));
  return *this;
}

TraceFixture& TraceFixture::step(std::int64_t number, double ts, double dur, int tid) {
  return annotation("ProfilerStep#" + std::to_string(number), ts, dur, tid);
}

TraceFixture& TraceFixture::runtime(const std::string& name, double ts, double dur,
                                    std::int64_t correlation, int tid, std::int64_t external_id) {
  events_.push_back(complete(
      "cuda_runtime", name, ts, dur, "100", std::to_string(tid),
      join_args({fmt::format(R"("correlation":{})", correlation), external(external_id)})));
  return *this;
}

TraceFixture& TraceFixture::driver(const std::string& name, double ts, double dur,
                                   std::int64_t correlation, int tid) {
  events_.push_back(complete("cuda_driver", name, ts, dur, "100", std::to_string(tid),
                             fmt::format(R"("correlation":{})", correlation)));
  return *this;
}

TraceFixture& TraceFixture::kernel(const std::string& name, double ts, double dur,
                                   std::int64_t correlation, int stream, int device,
                                   std::int64_t external_id, const std::string& extra_args) {
  events_.push_back(complete(
      "kernel", name, ts, dur, std::to_string(device), std::to_string(stream),
      join_args(
          {fmt::format(R"("device":{},"stream":{},"correlation":{})", device, stream, correlation),
           external(external_id), extra_args})));
  return *this;
}

TraceFixture& TraceFixture::memcpy(const std::string& name, double ts, double dur,
                                   std::int64_t correlation, int stream, int device,
                                   std::int64_t bytes) {
  events_.push_back(complete("gpu_memcpy", name, ts, dur, std::to_string(device),
                             std::to_string(stream),
                             fmt::format(R"("device":{},"stream":{},"correlation":{},"bytes":{})",
                                         device, stream, correlation, bytes)));
  return *this;
}

TraceFixture& TraceFixture::memset(double ts, double dur, std::int64_t correlation, int stream,
                                   int device) {
  events_.push_back(complete(
      "gpu_memset", "Memset (Device)", ts, dur, std::to_string(device), std::to_string(stream),
      fmt::format(R"("device":{},"stream":{},"correlation":{})", device, stream, correlation)));
  return *this;
}

TraceFixture& TraceFixture::sync(const std::string& name, double ts, double dur,
                                 std::int64_t correlation, int stream, int device) {
  events_.push_back(complete(
      "cuda_sync", name, ts, dur, std::to_string(device), std::to_string(stream),
      fmt::format(R"("device":{},"stream":{},"correlation":{})", device, stream, correlation)));
  return *this;
}

TraceFixture& TraceFixture::launched_kernel(const std::string& name, double call_ts, double ts,
                                            double dur, int tid, int stream) {
  const std::int64_t correlation = next_correlation_++;
  runtime("cudaLaunchKernel", call_ts, 5, correlation, tid);
  return kernel(name, ts, dur, correlation, stream);
}

TraceFixture& TraceFixture::memory(double ts, std::uint64_t address, std::int64_t bytes,
                                   std::int64_t total_allocated, std::int64_t total_reserved,
                                   int device_type, int device_id) {
  events_.push_back(fmt::format(
      R"({{"ph":"i","cat":"cpu_instant_event","s":"t","name":"[memory]","pid":100,"tid":1,"ts":{:.3f},"args":{{"Addr":{},"Bytes":{},"Total Allocated":{},"Total Reserved":{},"Device Type":{},"Device Id":{}}}}})",
      ts, address, bytes, total_allocated, total_reserved, device_type, device_id));
  return *this;
}

TraceFixture& TraceFixture::raw_event(const std::string& json_object) {
  events_.push_back(json_object);
  return *this;
}

TraceFixture& TraceFixture::top_level(const std::string& key, const std::string& raw_json) {
  top_level_.emplace_back(key, raw_json);
  return *this;
}

std::string TraceFixture::json() const {
  std::string out = "{";
  for (const auto& [key, raw] : top_level_) out += quoted(key) + ":" + raw + ",";
  out += "\"traceEvents\":[";
  for (std::size_t i = 0; i < events_.size(); ++i) {
    if (i > 0) out += ",\n";
    out += events_[i];
  }
  return out + "]}";
}

Trace TraceFixture::load() const {
  Result<Trace> trace = load_trace_text(json(), "fixture.json");
  if (!trace) {
    ADD_FAILURE() << "fixture did not load: " << trace.error().describe();
    return {};
  }
  return std::move(trace).value();
}

}  // namespace stepscope::testing
