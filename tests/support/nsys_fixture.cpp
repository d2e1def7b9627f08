#include "support/nsys_fixture.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <string_view>

namespace stepscope::testing {

namespace {

// The tables as Nsight Systems (2023-2025) creates them; every column of the schema reference
// is here, so that the reader sees the columns it must skip as well as those it reads.
constexpr std::string_view kSchema = R"sql(
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);
CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT NOT NULL);
CREATE TABLE META_DATA_CAPTURE (name TEXT NOT NULL, value TEXT NOT NULL);
CREATE TABLE ENUM_NSYS_EVENT_TYPE (id INTEGER NOT NULL PRIMARY KEY, name TEXT NOT NULL, label TEXT NOT NULL);
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, busLocation TEXT,
  isDiscrete INTEGER, l2CacheSize INTEGER, totalMemory INTEGER, memoryBandwidth INTEGER,
  clockRate INTEGER, smCount INTEGER, pwGpuId INTEGER, uuid TEXT, luid INTEGER, chipName TEXT,
  cuDevice INTEGER, ctxId INTEGER, ctxName TEXT, computeMajor INTEGER, computeMinor INTEGER,
  maxThreadsPerBlock INTEGER, maxBlocksPerSm INTEGER, maxShmemPerBlock INTEGER,
  maxRegistersPerBlock INTEGER, maxRegistersPerSm INTEGER, maxShmemPerSm INTEGER,
  maxWarpsPerSm INTEGER, threadsPerWarp INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
  eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL,
  returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
  streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER,
  shortName INTEGER NOT NULL, mangledName INTEGER, launchType INTEGER, cacheConfig INTEGER,
  registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL, gridY INTEGER NOT NULL,
  gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL,
  staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL,
  localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL, gridId INTEGER NOT NULL,
  sharedMemoryExecuted INTEGER, graphNodeId INTEGER, sharedMemoryLimitConfig INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
  streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL,
  copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER, srcKind INTEGER, dstKind INTEGER,
  srcDeviceId INTEGER, srcContextId INTEGER, dstDeviceId INTEGER, dstContextId INTEGER,
  migrationCause INTEGER, graphNodeId INTEGER, virtualAddress INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
  streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, value INTEGER NOT NULL,
  bytes INTEGER NOT NULL, graphNodeId INTEGER, memKind INTEGER);
CREATE TABLE CUDA_GPU_MEMORY_USAGE_EVENTS (start INTEGER NOT NULL, globalPid INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, address INTEGER NOT NULL, pc INTEGER,
  bytes INTEGER NOT NULL, memKind INTEGER NOT NULL, memoryOperationType INTEGER NOT NULL,
  name TEXT, correlationId INTEGER, localMemoryPoolAddress INTEGER,
  localMemoryPoolReleaseThreshold INTEGER, localMemoryPoolSize INTEGER,
  localMemoryPoolUtilizedSize INTEGER, importedMemoryPoolAddress INTEGER,
  importedMemoryPoolProcessId INTEGER, streamId INTEGER);
)sql";

constexpr std::string_view kNvtxTable = R"sql(
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,
  rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER,
  endGlobalTid INTEGER, textId INTEGER, domainId INTEGER, uint64Value INTEGER,
  int64Value INTEGER, doubleValue REAL, uint32Value INTEGER, int32Value INTEGER,
  floatValue REAL, jsonTextId INTEGER, jsonText TEXT, binaryData TEXT);
)sql";

// Before 2023: no textId or domainId in NVTX_EVENTS (the text inline).
constexpr std::string_view kOldNvtxTable = R"sql(
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,
  rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER,
  endGlobalTid INTEGER);
)sql";

std::string literal(std::int64_t value) { return std::to_string(value); }

std::string literal(const std::string& text) {
  std::string out = "'";
  for (const char c : text) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

std::int64_t ns(double us) { return std::llround(us * 1000.0); }

void execute(sqlite3* db, const std::string& sql) {
  char* message = nullptr;
  const int code = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message);
  ASSERT_EQ(code, SQLITE_OK) << (message != nullptr ? message : "") << "\n" << sql.substr(0, 400);
  sqlite3_free(message);
}

}  // namespace

TempFolder::TempFolder() {
  static std::atomic<int> counter{0};
  path_ = std::filesystem::temp_directory_path() /
          ("stepscope-nsys-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  std::filesystem::remove_all(path_);
  std::filesystem::create_directories(path_);
}

TempFolder::~TempFolder() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::int64_t NsysFixture::string_id(const std::string& text) {
  const auto [at, added] =
      strings_.try_emplace(text, static_cast<std::int64_t>(strings_.size()) + 1);
  return at->second;
}

NsysFixture& NsysFixture::add(const std::string& table,
                              std::vector<std::pair<std::string, std::string>> values) {
  rows_.push_back({table, std::move(values)});
  return *this;
}

NsysFixture& NsysFixture::runtime(const std::string& name, double ts, double dur,
                                  std::int64_t correlation, int tid) {
  return add("CUPTI_ACTIVITY_KIND_RUNTIME", {{"start", literal(ns(ts))},
                                             {"end", literal(ns(ts) + ns(dur))},
                                             {"eventClass", "1"},
                                             {"globalTid", literal(nsys_global_tid(kPid, tid))},
                                             {"correlationId", literal(correlation)},
                                             {"nameId", literal(string_id(name))},
                                             {"returnValue", "0"}});
}

NsysFixture& NsysFixture::kernel(const std::string& name, double ts, double dur,
                                 std::int64_t correlation, int stream, int device) {
  const std::int64_t id = string_id(name);
  std::vector<std::pair<std::string, std::string>> values = {
      {"start", literal(ns(ts))},
      {"end", literal(ns(ts) + ns(dur))},
      {"deviceId", literal(device)},
      {"contextId", "1"},
      {"streamId", literal(stream)},
      {"correlationId", literal(correlation)},
      {"globalPid", literal(nsys_global_tid(kPid, 0))},
      {"shortName", literal(id)},
      {"registersPerThread", "64"},
      {"gridX", "108"},
      {"gridY", "1"},
      {"gridZ", "1"},
      {"blockX", "256"},
      {"blockY", "1"},
      {"blockZ", "1"},
      {"staticSharedMemory", "1024"},
      {"dynamicSharedMemory", "48128"},
      {"localMemoryPerThread", "0"},
      {"localMemoryTotal", "0"},
      {"gridId", literal(correlation)}};
  if (!old_schema_) {
    values.emplace_back("demangledName", literal(id));
    values.emplace_back("mangledName", literal(id));
  }
  return add("CUPTI_ACTIVITY_KIND_KERNEL", std::move(values));
}

NsysFixture& NsysFixture::memcpy(double ts, double dur, std::int64_t correlation,
                                 std::int64_t bytes, int copy_kind, int stream, int device) {
  return add("CUPTI_ACTIVITY_KIND_MEMCPY", {{"start", literal(ns(ts))},
                                            {"end", literal(ns(ts) + ns(dur))},
                                            {"deviceId", literal(device)},
                                            {"contextId", "1"},
                                            {"streamId", literal(stream)},
                                            {"correlationId", literal(correlation)},
                                            {"globalPid", literal(nsys_global_tid(kPid, 0))},
                                            {"bytes", literal(bytes)},
                                            {"copyKind", literal(copy_kind)},
                                            {"srcKind", copy_kind == 1 ? "2" : "3"},
                                            {"dstKind", copy_kind == 2 ? "2" : "3"}});
}

NsysFixture& NsysFixture::memset(double ts, double dur, std::int64_t correlation,
                                 std::int64_t bytes, int stream, int device) {
  return add("CUPTI_ACTIVITY_KIND_MEMSET", {{"start", literal(ns(ts))},
                                            {"end", literal(ns(ts) + ns(dur))},
                                            {"deviceId", literal(device)},
                                            {"contextId", "1"},
                                            {"streamId", literal(stream)},
                                            {"correlationId", literal(correlation)},
                                            {"globalPid", literal(nsys_global_tid(kPid, 0))},
                                            {"value", "0"},
                                            {"bytes", literal(bytes)},
                                            {"memKind", "3"}});
}

NsysFixture& NsysFixture::launched_kernel(const std::string& name, double call_ts, double ts,
                                          double dur, int tid, int stream) {
  const std::int64_t correlation = next_correlation_++;
  runtime("cudaLaunchKernel_v7000", call_ts, 5, correlation, tid);
  return kernel(name, ts, dur, correlation, stream);
}

NsysFixture& NsysFixture::range(const std::string& text, double ts, double dur, int tid,
                                std::int64_t domain, int event_type) {
  std::vector<std::pair<std::string, std::string>> values = {
      {"start", literal(ns(ts))},
      {"end", literal(ns(ts) + ns(dur))},
      {"eventType", literal(event_type)},
      {"globalTid", literal(nsys_global_tid(kPid, tid))},
      {"endGlobalTid", event_type == 60 ? literal(nsys_global_tid(kPid, tid)) : "NULL"}};
  // Newer exports keep repeated texts in StringIds (textId); the text inline otherwise.
  if (!old_schema_ && domain != 0) {
    values.emplace_back("textId", literal(string_id(text)));
  } else {
    values.emplace_back("text", literal(text));
  }
  if (!old_schema_) values.emplace_back("domainId", literal(domain));
  return add("NVTX_EVENTS", std::move(values));
}

NsysFixture& NsysFixture::open_range(const std::string& text, double ts, int tid) {
  return add("NVTX_EVENTS", {{"start", literal(ns(ts))},
                             {"end", "NULL"},
                             {"eventType", "59"},
                             {"globalTid", literal(nsys_global_tid(kPid, tid))},
                             {"text", literal(text)}});
}

NsysFixture& NsysFixture::domain(std::int64_t id, const std::string& name) {
  return add("NVTX_EVENTS", {{"start", "0"},
                             {"eventType", "75"},
                             {"globalTid", literal(nsys_global_tid(kPid, 1))},
                             {"text", literal(name)},
                             {"domainId", literal(id)}});
}

NsysFixture& NsysFixture::thread_name(int tid, const std::string& name) {
  return add("ThreadNames", {{"nameId", literal(string_id(name))},
                             {"priority", "0"},
                             {"globalTid", literal(nsys_global_tid(kPid, tid))}});
}

NsysFixture& NsysFixture::memory(double ts, std::uint64_t address, std::int64_t bytes,
                                 int operation, int device) {
  return add("CUDA_GPU_MEMORY_USAGE_EVENTS",
             {{"start", literal(ns(ts))},
              {"globalPid", literal(nsys_global_tid(kPid, 0))},
              {"deviceId", literal(device)},
              {"contextId", "1"},
              {"address", literal(static_cast<std::int64_t>(address))},
              {"bytes", literal(bytes)},
              {"memKind", "3"},
              {"memoryOperationType", literal(operation)}});
}

NsysFixture& NsysFixture::gpu(int id, const std::string& name, int sm_count, int compute_major,
                              int compute_minor, std::int64_t total_memory) {
  return add("TARGET_INFO_GPU", {{"vmId", "0"},
                                 {"id", literal(id)},
                                 {"cuDevice", literal(id)},
                                 {"name", literal(name)},
                                 {"totalMemory", literal(total_memory)},
                                 {"smCount", literal(sm_count)},
                                 {"computeMajor", literal(compute_major)},
                                 {"computeMinor", literal(compute_minor)},
                                 {"maxWarpsPerSm", "64"},
                                 {"threadsPerWarp", "32"}});
}

NsysFixture& NsysFixture::old_schema() {
  old_schema_ = true;
  return *this;
}

void NsysFixture::write(const std::string& file) const {
  ASSERT_FALSE(std::filesystem::exists(file)) << file;
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr),
            SQLITE_OK);
  execute(db, "BEGIN");
  execute(db, std::string(kSchema));
  execute(db, std::string(old_schema_ ? kOldNvtxTable : kNvtxTable));
  execute(db,
          "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.15.1'), "
          "('EXPORT_PRODUCT_VERSION', '2024.5.1.113')");
  execute(db,
          "INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES (59, 'NvtxPushPopRange', 'NVTX Push/Pop "
          "Range'), (60, 'NvtxStartEndRange', 'NVTX Start/End Range'), (75, "
          "'NvtxDomainCreate', 'NVTX Domain Create')");
  execute(db, "INSERT INTO PROCESSES VALUES (" + literal(nsys_global_tid(kPid, 0)) + ", " +
                  literal(kPid) + ", 'python')");
  for (const auto& [text, id] : strings_) {
    execute(db, "INSERT INTO StringIds VALUES (" + literal(id) + ", " + literal(text) + ")");
  }
  for (const Row& row : rows_) {
    std::string columns;
    std::string values;
    for (const auto& [column, value] : row.values) {
      columns += (columns.empty() ? "\"" : ", \"") + column + "\"";
      values += (values.empty() ? "" : ", ") + value;
    }
    std::string insert = "INSERT INTO " + row.table;
    insert += " (" + columns;
    insert += ") VALUES (" + values;
    execute(db, insert + ")");
  }
  if (old_schema_) {
    execute(db, "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN demangledName");
    execute(db, "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN mangledName");
  }
  execute(db, "COMMIT");
  ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
}

}  // namespace stepscope::testing
