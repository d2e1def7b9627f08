// Builds small Kineto-style traces in memory for unit tests, so that each test states its input
// events and can expect exact figures. The JSON goes through the real importer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stepscope/trace.h"

namespace stepscope::testing {

class TraceFixture {
 public:
  // Times are microseconds, written with 3 decimals as Kineto does.
  TraceFixture& op(const std::string& name, double ts, double dur, int tid = 1,
                   std::int64_t external_id = -1, const std::string& extra_args = "");
  TraceFixture& annotation(const std::string& name, double ts, double dur, int tid = 1,
                           std::int64_t external_id = -1);
  TraceFixture& gpu_annotation(const std::string& name, double ts, double dur, int stream = 7);
  TraceFixture& step(std::int64_t number, double ts, double dur, int tid = 1);
  TraceFixture& runtime(const std::string& name, double ts, double dur, std::int64_t correlation,
                        int tid = 1, std::int64_t external_id = -1);
  TraceFixture& driver(const std::string& name, double ts, double dur, std::int64_t correlation,
                       int tid = 1);
  TraceFixture& kernel(const std::string& name, double ts, double dur, std::int64_t correlation,
                       int stream = 7, int device = 0, std::int64_t external_id = -1,
                       const std::string& extra_args = "");
  TraceFixture& memcpy(const std::string& name, double ts, double dur, std::int64_t correlation,
                       int stream = 7, int device = 0, std::int64_t bytes = 1024);
  TraceFixture& memset(double ts, double dur, std::int64_t correlation, int stream = 7,
                       int device = 0);
  TraceFixture& sync(const std::string& name, double ts, double dur, std::int64_t correlation,
                     int stream = 7, int device = 0);
  // Launch call + kernel in one go: the call at `call_ts` for 5 µs, the kernel at `ts`.
  TraceFixture& launched_kernel(const std::string& name, double call_ts, double ts, double dur,
                                int tid = 1, int stream = 7);
  TraceFixture& memory(double ts, std::uint64_t address, std::int64_t bytes,
                       std::int64_t total_allocated, std::int64_t total_reserved,
                       int device_type = 1, int device_id = 0);
  TraceFixture& raw_event(const std::string& json_object);
  TraceFixture& top_level(const std::string& key, const std::string& raw_json);

  [[nodiscard]] std::string json() const;
  // Loads through the importer; a load failure fails the calling test.
  [[nodiscard]] Trace load() const;

 private:
  std::int64_t next_correlation_ = 1'000'000;
  std::vector<std::string> events_;
  std::vector<std::pair<std::string, std::string>> top_level_;
};

}  // namespace stepscope::testing
