#include "importers/nsys/nsys_reader.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "importers/nsys/nsys_names.h"
#include "importers/nsys/nsys_steps.h"
#include "importers/nsys/sqlite_reader.h"
#include "importers/nsys/trace_assembly.h"
#include "load/import_notes.h"

namespace stepscope::nsys {

namespace {

// globalTid / globalPid: the process id in bits 24-47, the thread id in bits 0-23.
std::int64_t pid_of(std::int64_t global_id) { return (global_id >> 24) & 0xFFFFFF; }
std::int64_t tid_of(std::int64_t global_id) { return global_id & 0xFFFFFF; }

// A correlation id is unique within one process: ids of two processes in one export are kept
// apart by the process id above CUPTI's 32 bits.
std::int64_t process_correlation(std::int64_t pid, std::int64_t correlation) {
  return (pid << 32) | (correlation & 0xFFFFFFFF);
}

// NVTX_EVENTS.eventType (ENUM_NSYS_EVENT_TYPE).
constexpr std::int64_t kNvtxPushPopRange = 59;
constexpr std::int64_t kNvtxStartEndRange = 60;
constexpr std::int64_t kNvtxDomainCreate = 75;

constexpr std::string_view kStringTable = "StringIds";
constexpr std::string_view kRuntimeTable = "CUPTI_ACTIVITY_KIND_RUNTIME";
constexpr std::string_view kDriverTable = "CUPTI_ACTIVITY_KIND_DRIVER";
constexpr std::string_view kKernelTable = "CUPTI_ACTIVITY_KIND_KERNEL";
constexpr std::string_view kMemcpyTable = "CUPTI_ACTIVITY_KIND_MEMCPY";
constexpr std::string_view kMemsetTable = "CUPTI_ACTIVITY_KIND_MEMSET";
constexpr std::string_view kNvtxTable = "NVTX_EVENTS";
constexpr std::string_view kMemoryTable = "CUDA_GPU_MEMORY_USAGE_EVENTS";
constexpr std::uint64_t kProgressEvery = 1U << 16U;

std::string sql_identifier(std::string_view identifier) {
  return "\"" + std::string(identifier) + "\"";
}

// Which of a table's columns a query reads: each entry names one column or alternatives
// (`mangledName|shortName`), the first that is present and not NULL taken; an absent optional
// column reads NULL.
struct ColumnChoice {
  std::string_view names;
  bool required = false;
};

// The export records each allocation and free, not the allocator's total: the total allocated
// per device is summed in time order (from zero at the capture's start).
void add_allocated_totals(MemoryTable& m) {
  std::map<std::pair<std::int8_t, std::int16_t>, std::int64_t> allocated;
  for (std::size_t r = 0; r < m.size(); ++r) {
    std::int64_t& total = allocated[{m.device_type[r], m.device_id[r]}];
    total += m.bytes[r];
    m.total_allocated[r] = total;
  }
}

class ExportReader {
 public:
  ExportReader(Database db, std::set<std::string> tables, Trace& trace, const LoadOptions& options)
      : db_(std::move(db)),
        tables_(std::move(tables)),
        trace_(trace),
        build_(trace),
        options_(options) {}

  Status read();
  ImportNotes& notes() { return notes_; }
  std::vector<std::string>& lines() { return lines_; }

 private:
  Database db_;
  std::set<std::string> tables_;
  Trace& trace_;
  TraceAssembly build_;
  const LoadOptions& options_;
  ImportNotes notes_{"row"};
  std::vector<std::string> lines_;  // notes that count no events
  Statement string_lookup_;
  std::unordered_map<std::int64_t, StringId> strings_;
  std::map<std::int64_t, std::string> domains_;
  std::set<std::int64_t> cuda_processes_;
  std::uint64_t rows_done_ = 0;
  std::uint64_t rows_total_ = 0;
  std::uint64_t device_events_ = 0;

  [[nodiscard]] bool has(std::string_view table) const {
    return tables_.contains(std::string(table));
  }
  Result<Statement> select(std::string_view table, std::span<const ColumnChoice> columns,
                           std::string_view where = {});
  Result<StringId> string(std::int64_t id);
  StringId intern(std::string_view text) { return trace_.strings.intern(text); }
  void row_read();

  Status count_rows();
  Status read_api_calls(std::string_view table, std::string_view category);
  Status read_kernels();
  Status read_copies(std::string_view table, bool is_memset);
  Status read_nvtx_domains();
  Status read_nvtx();
  Status read_thread_names();
  Status read_devices();
  Status read_memory();
  Status read_producer();
};

Result<Statement> ExportReader::select(std::string_view table,
                                       std::span<const ColumnChoice> columns,
                                       std::string_view where) {
  STEPSCOPE_ASSIGN_OR_RETURN(const std::set<std::string> present, db_.columns(std::string(table)));
  std::string sql = "SELECT ";
  for (std::size_t i = 0; i < columns.size(); ++i) {
    std::string_view names = columns[i].names;
    std::vector<std::string> chosen;
    while (!names.empty()) {
      const std::size_t bar = names.find('|');
      const std::string name(names.substr(0, bar));
      if (present.contains(name)) chosen.push_back(sql_identifier(name));
      names = bar == std::string_view::npos ? std::string_view{} : names.substr(bar + 1);
    }
    if (chosen.empty() && columns[i].required) {
      return make_error(ErrorKind::kNotTrace, "table " + std::string(table) + " has no column " +
                                                  std::string(columns[i].names) +
                                                  " (not an export stepscope knows)");
    }
    if (i > 0) sql += ", ";
    if (chosen.empty()) {
      sql += "NULL";
    } else if (chosen.size() == 1) {
      sql += chosen.front();
    } else {
      sql += "COALESCE(";
      for (std::size_t k = 0; k < chosen.size(); ++k) sql += (k > 0 ? ", " : "") + chosen[k];
      sql += ")";
    }
  }
  sql += " FROM " + sql_identifier(table);
  if (!where.empty()) sql += " WHERE " + std::string(where);
  return db_.prepare(sql);
}

Result<StringId> ExportReader::string(std::int64_t id) {
  if (const auto at = strings_.find(id); at != strings_.end()) return at->second;
  string_lookup_.reset();
  string_lookup_.bind(1, id);
  STEPSCOPE_ASSIGN_OR_RETURN(const bool found, string_lookup_.step());
  const StringId interned = found ? intern(string_lookup_.text(0)) : 0;
  if (!found) notes_.add("a string id is missing from StringIds (read as an empty name)", 0);
  strings_.emplace(id, interned);
  return interned;
}

void ExportReader::row_read() {
  ++rows_done_;
  ++trace_.stats.events_seen;
  if (options_.progress && rows_done_ % kProgressEvery == 0) {
    options_.progress(rows_done_, std::max(rows_done_, rows_total_));
  }
}

Status ExportReader::count_rows() {
  for (const std::string_view table : {kRuntimeTable, kDriverTable, kKernelTable, kMemcpyTable,
                                       kMemsetTable, kNvtxTable, kMemoryTable}) {
    if (!has(table)) continue;
    STEPSCOPE_ASSIGN_OR_RETURN(const std::int64_t rows, db_.last_rowid(std::string(table)));
    rows_total_ += static_cast<std::uint64_t>(std::max<std::int64_t>(rows, 0));
  }
  return Done{};
}

Status ExportReader::read_api_calls(std::string_view table, std::string_view category) {
  if (!has(table)) return Done{};
  static constexpr std::array<ColumnChoice, 5> kColumns = {{{"start", true},
                                                            {"end", true},
                                                            {"globalTid", true},
                                                            {"correlationId", true},
                                                            {"nameId", true}}};
  STEPSCOPE_ASSIGN_OR_RETURN(Statement rows, select(table, kColumns));
  const StringId category_id = intern(category);
  std::unordered_map<StringId, StringId> clean_names;
  while (true) {
    STEPSCOPE_ASSIGN_OR_RETURN(const bool more, rows.step());
    if (!more) break;
    row_read();
    const std::int64_t start = rows.integer(0);
    const std::int64_t end = rows.integer(1);
    if (end < start) {
      notes_.add("API calls that end before they start (skipped)", rows_done_);
      continue;
    }
    const std::int64_t global_tid = rows.integer(2);
    STEPSCOPE_ASSIGN_OR_RETURN(const StringId raw_name, string(rows.integer(4)));
    auto [name, added] = clean_names.try_emplace(raw_name, 0);
    if (added) name->second = intern(api_call_name(trace_.strings.view(raw_name)));
    NewEvent event;
    event.start_ns = start;
    event.dur_ns = end - start;
    event.name = name->second;
    event.category = category_id;
    event.thread = build_.host_thread(pid_of(global_tid), tid_of(global_tid));
    event.correlation = process_correlation(pid_of(global_tid), rows.integer(3));
    build_.add(event);
  }
  return Done{};
}

Status ExportReader::read_kernels() {
  if (!has(kKernelTable)) return Done{};
  // The demangled name where the export has one (older exports leave it NULL or lack it).
  static constexpr std::array<ColumnChoice, 17> kColumns = {{
      {"start", true},
      {"end", true},
      {"deviceId", true},
      {"streamId", true},
      {"correlationId", true},
      {"globalPid", true},
      {"demangledName", false},
      {"gridX", false},
      {"gridY", false},
      {"gridZ", false},
      {"blockX", false},
      {"blockY", false},
      {"blockZ", false},
      {"registersPerThread", false},
      {"staticSharedMemory", false},
      {"dynamicSharedMemory", false},
      {"mangledName|shortName", true},
  }};
  STEPSCOPE_ASSIGN_OR_RETURN(Statement rows, select(kKernelTable, kColumns));
  const StringId category = intern("kernel");
  std::unordered_map<StringId, StringId> demangled_names;
  while (true) {
    STEPSCOPE_ASSIGN_OR_RETURN(const bool more, rows.step());
    if (!more) break;
    row_read();
    const std::int64_t start = rows.integer(0);
    const std::int64_t end = rows.integer(1);
    if (end < start) {
      notes_.add("kernels that end before they start (skipped)", rows_done_);
      continue;
    }
    const auto device = static_cast<std::int32_t>(rows.integer(2));
    const std::int64_t stream = rows.integer(3);
    const std::int64_t pid = pid_of(rows.integer(5));
    cuda_processes_.insert(pid);
    const int name_column = rows.is_null(6) ? 16 : 6;
    STEPSCOPE_ASSIGN_OR_RETURN(const StringId raw_name, string(rows.integer(name_column)));
    auto [name, added] = demangled_names.try_emplace(raw_name, 0);
    if (added) name->second = intern(demangled(trace_.strings.view(raw_name)));
    DeviceArgs args;
    for (int axis = 0; axis < 3; ++axis) {
      args.grid[axis] = static_cast<std::int32_t>(rows.integer(7 + axis));
      args.block[axis] = static_cast<std::int32_t>(rows.integer(10 + axis));
    }
    if (!rows.is_null(13)) args.registers_per_thread = static_cast<std::int32_t>(rows.integer(13));
    if (!rows.is_null(14) || !rows.is_null(15)) {
      args.shared_memory = rows.integer(14) + rows.integer(15);
    }
    NewEvent event;
    event.start_ns = start;
    event.dur_ns = end - start;
    event.name = name->second;
    event.category = category;
    event.thread = build_.gpu_row(device, stream);
    event.stream = stream;
    event.device = device;
    event.correlation = process_correlation(pid, rows.integer(4));
    event.args_row = build_.add_device_args(args);
    build_.add(event);
    ++device_events_;
  }
  return Done{};
}

Status ExportReader::read_copies(std::string_view table, bool is_memset) {
  if (!has(table)) return Done{};
  static constexpr std::array<ColumnChoice, 10> kColumns = {{
      {"start", true},
      {"end", true},
      {"deviceId", true},
      {"streamId", true},
      {"correlationId", true},
      {"globalPid", true},
      {"bytes", false},
      {"copyKind|memKind", false},
      {"srcKind", false},
      {"dstKind", false},
  }};
  STEPSCOPE_ASSIGN_OR_RETURN(Statement rows, select(table, kColumns));
  const StringId category = intern(is_memset ? "gpu_memset" : "gpu_memcpy");
  std::map<std::array<std::int64_t, 3>, StringId> names;
  while (true) {
    STEPSCOPE_ASSIGN_OR_RETURN(const bool more, rows.step());
    if (!more) break;
    row_read();
    const std::int64_t start = rows.integer(0);
    const std::int64_t end = rows.integer(1);
    if (end < start) {
      notes_.add("copies that end before they start (skipped)", rows_done_);
      continue;
    }
    const auto device = static_cast<std::int32_t>(rows.integer(2));
    const std::int64_t stream = rows.integer(3);
    const std::int64_t pid = pid_of(rows.integer(5));
    cuda_processes_.insert(pid);
    const std::array<std::int64_t, 3> kinds = {rows.integer(7), rows.integer(8), rows.integer(9)};
    auto [name, added] = names.try_emplace(kinds, 0);
    if (added) {
      name->second =
          intern(is_memset ? memset_name(kinds[0]) : memcpy_name(kinds[0], kinds[1], kinds[2]));
    }
    DeviceArgs args;
    if (!rows.is_null(6)) args.bytes = rows.integer(6);
    NewEvent event;
    event.start_ns = start;
    event.dur_ns = end - start;
    event.name = name->second;
    event.category = category;
    event.thread = build_.gpu_row(device, stream);
    event.stream = stream;
    event.device = device;
    event.correlation = process_correlation(pid, rows.integer(4));
    event.args_row = build_.add_device_args(args);
    build_.add(event);
    ++device_events_;
  }
  return Done{};
}

Status ExportReader::read_nvtx_domains() {
  static constexpr std::array<ColumnChoice, 3> kColumns = {
      {{"domainId", false}, {"text", false}, {"textId", false}}};
  STEPSCOPE_ASSIGN_OR_RETURN(
      Statement rows,
      select(kNvtxTable, kColumns, "eventType = " + std::to_string(kNvtxDomainCreate)));
  while (true) {
    STEPSCOPE_ASSIGN_OR_RETURN(const bool more, rows.step());
    if (!more) break;
    std::string name(rows.text(1));
    if (rows.is_null(1) && !rows.is_null(2)) {
      STEPSCOPE_ASSIGN_OR_RETURN(const StringId id, string(rows.integer(2)));
      name = trace_.strings.view(id);
    }
    if (!name.empty()) domains_[rows.integer(0)] = std::move(name);
  }
  return Done{};
}

Status ExportReader::read_nvtx() {
  if (!has(kNvtxTable)) return Done{};
  STEPSCOPE_TRY(read_nvtx_domains());
  static constexpr std::array<ColumnChoice, 6> kColumns = {{{"start", true},
                                                            {"end", true},
                                                            {"globalTid", true},
                                                            {"text", false},
                                                            {"textId", false},
                                                            {"domainId", false}}};
  STEPSCOPE_ASSIGN_OR_RETURN(Statement rows,
                             select(kNvtxTable, kColumns,
                                    "eventType IN (" + std::to_string(kNvtxPushPopRange) + ", " +
                                        std::to_string(kNvtxStartEndRange) + ")"));
  const StringId annotation = intern("user_annotation");
  const StringId op = intern("cpu_op");
  std::string text;
  while (true) {
    STEPSCOPE_ASSIGN_OR_RETURN(const bool more, rows.step());
    if (!more) break;
    row_read();
    if (rows.is_null(1) || rows.integer(1) < rows.integer(0)) {
      notes_.add("NVTX ranges that never end (skipped)", rows_done_);
      continue;
    }
    text = rows.text(3);
    if (rows.is_null(3) && !rows.is_null(4)) {
      STEPSCOPE_ASSIGN_OR_RETURN(const StringId id, string(rows.integer(4)));
      text = trace_.strings.view(id);
    }
    const NvtxOpRange range = parse_nvtx_range(text);
    NewEvent event;
    event.start_ns = rows.integer(0);
    event.dur_ns = rows.integer(1) - rows.integer(0);
    const std::int64_t global_tid = rows.integer(2);
    event.thread = build_.host_thread(pid_of(global_tid), tid_of(global_tid));
    if (range.is_op) {
      event.category = op;
      event.name = intern(range.name);
      if (range.sequence >= 0 || !range.sizes.empty()) {
        event.args_row = build_.add_op_args(range.sequence, intern(range.sizes));
      }
    } else {
      event.category = annotation;
      const auto domain = rows.is_null(5) ? domains_.end() : domains_.find(rows.integer(5));
      event.name = domain == domains_.end()
                       ? intern(range.name)
                       : intern(domain->second + ": " + std::string(range.name));
    }
    build_.add(event);
  }
  return Done{};
}

Status ExportReader::read_thread_names() {
  if (has("ThreadNames")) {
    static constexpr std::array<ColumnChoice, 2> kColumns = {
        {{"nameId", true}, {"globalTid", true}}};
    STEPSCOPE_ASSIGN_OR_RETURN(Statement rows, select("ThreadNames", kColumns));
    while (true) {
      STEPSCOPE_ASSIGN_OR_RETURN(const bool more, rows.step());
      if (!more) break;
      const std::int64_t global_tid = rows.integer(1);
      ThreadInfo* thread = build_.find_host_thread(pid_of(global_tid), tid_of(global_tid));
      if (thread == nullptr) continue;
      STEPSCOPE_ASSIGN_OR_RETURN(const StringId name, string(rows.integer(0)));
      thread->name = trace_.strings.view(name);
    }
  }
  return Done{};
}

Status ExportReader::read_devices() {
  if (!has("TARGET_INFO_GPU")) return Done{};
  static constexpr std::array<ColumnChoice, 8> kColumns = {{
      {"cuDevice|id", true},
      {"name", false},
      {"totalMemory", false},
      {"computeMajor", false},
      {"computeMinor", false},
      {"smCount", false},
      {"maxWarpsPerSm", false},
      {"threadsPerWarp", false},
  }};
  STEPSCOPE_ASSIGN_OR_RETURN(Statement rows, select("TARGET_INFO_GPU", kColumns));
  while (true) {
    STEPSCOPE_ASSIGN_OR_RETURN(const bool more, rows.step());
    if (!more) break;
    DeviceProperties device;
    device.id = static_cast<std::int32_t>(rows.integer(0));
    device.name = rows.text(1);
    if (!rows.is_null(2)) device.total_global_memory = rows.integer(2);
    if (!rows.is_null(3)) device.compute_major = static_cast<std::int32_t>(rows.integer(3));
    if (!rows.is_null(4)) device.compute_minor = static_cast<std::int32_t>(rows.integer(4));
    if (!rows.is_null(5)) device.num_sms = static_cast<std::int32_t>(rows.integer(5));
    if (!rows.is_null(6) && !rows.is_null(7)) {
      device.max_threads_per_multiprocessor =
          static_cast<std::int32_t>(rows.integer(6) * rows.integer(7));
    }
    const bool known =
        std::any_of(trace_.devices.begin(), trace_.devices.end(),
                    [&device](const DeviceProperties& d) { return d.id == device.id; });
    if (!known) trace_.devices.push_back(std::move(device));
  }
  return Done{};
}

// Allocations and frees of device memory (--cuda-memory-usage=true): the memory curve's input.
Status ExportReader::read_memory() {
  if (!has(kMemoryTable)) return Done{};
  static constexpr std::array<ColumnChoice, 6> kColumns = {{{"start", true},
                                                            {"globalPid", true},
                                                            {"deviceId", true},
                                                            {"address", false},
                                                            {"bytes", true},
                                                            {"memoryOperationType", true}}};
  STEPSCOPE_ASSIGN_OR_RETURN(Statement rows, select(kMemoryTable, kColumns));
  // ENUM_CUDA_DEV_MEM_EVENT_OPER: 0 allocation, 1 deallocation.
  constexpr std::int64_t kAllocation = 0;
  constexpr std::int64_t kDeallocation = 1;
  MemoryTable& m = trace_.memory;
  while (true) {
    STEPSCOPE_ASSIGN_OR_RETURN(const bool more, rows.step());
    if (!more) break;
    row_read();
    const std::int64_t operation = rows.integer(5);
    if (operation != kAllocation && operation != kDeallocation) continue;
    const auto device = static_cast<std::int32_t>(rows.integer(2));
    const std::int64_t size = std::max<std::int64_t>(rows.integer(4), 0);
    const std::int64_t bytes = operation == kAllocation ? size : -size;
    const std::int64_t pid = pid_of(rows.integer(1));
    m.time_ns.push_back(rows.integer(0));
    m.address.push_back(static_cast<std::uint64_t>(rows.integer(3)));
    m.bytes.push_back(bytes);
    m.total_allocated.push_back(-1);
    m.total_reserved.push_back(-1);
    m.device_type.push_back(1);
    m.device_id.push_back(static_cast<std::int16_t>(device));
    m.thread.push_back(build_.host_thread(pid, pid));
  }
  if (m.size() > 0) {
    lines_.emplace_back(
        "device memory: allocations and frees counted from the capture's start (what was "
        "allocated before, and reserved memory, are not in an export)");
  }
  return Done{};
}

Status ExportReader::read_producer() {
  std::string product;
  std::string schema;
  for (const std::string_view table : {"META_DATA_EXPORT", "META_DATA_CAPTURE"}) {
    if (!has(table)) continue;
    static constexpr std::array<ColumnChoice, 2> kColumns = {{{"name", true}, {"value", true}}};
    STEPSCOPE_ASSIGN_OR_RETURN(Statement rows, select(table, kColumns));
    while (true) {
      STEPSCOPE_ASSIGN_OR_RETURN(const bool more, rows.step());
      if (!more) break;
      const std::string_view name = rows.text(0);
      if (name == "EXPORT_SCHEMA_VERSION") schema = rows.text(1);
      if (product.empty() && name.find("VERSION") != std::string_view::npos &&
          name.find("SCHEMA") == std::string_view::npos &&
          (name.find("PRODUCT") != std::string_view::npos ||
           name.find("NSYS") != std::string_view::npos ||
           name.find("NSIGHT") != std::string_view::npos)) {
        product = rows.text(1);
      }
    }
  }
  std::string producer = "Nsight Systems";
  if (!product.empty()) producer += " " + product;
  if (!schema.empty()) producer += " (export schema " + schema + ")";
  trace_.origin.producer = producer;
  return Done{};
}

Status ExportReader::read() {
  STEPSCOPE_ASSIGN_OR_RETURN(string_lookup_,
                             db_.prepare("SELECT value FROM StringIds WHERE id = ?"));
  STEPSCOPE_TRY(count_rows());
  // The largest row id only bounds a table's rows, and a damaged file may claim any: no more
  // rows than the file has room for (a row takes at least 16 bytes) are reserved.
  constexpr std::uint64_t kMinRowBytes = 16;
  build_.reserve(static_cast<std::size_t>(
      std::min<std::uint64_t>(rows_total_, trace_.stats.input_bytes / kMinRowBytes)));
  STEPSCOPE_TRY(read_producer());
  STEPSCOPE_TRY(read_api_calls(kRuntimeTable, "cuda_runtime"));
  STEPSCOPE_TRY(read_api_calls(kDriverTable, "cuda_driver"));
  STEPSCOPE_TRY(read_kernels());
  STEPSCOPE_TRY(read_copies(kMemcpyTable, false));
  STEPSCOPE_TRY(read_copies(kMemsetTable, true));
  STEPSCOPE_TRY(read_nvtx());
  STEPSCOPE_TRY(read_memory());
  STEPSCOPE_TRY(read_thread_names());
  STEPSCOPE_TRY(read_devices());
  if (device_events_ == 0) {
    lines_.emplace_back(
        "no GPU activity in this export (no CUPTI kernel, memcpy or memset rows): the host side "
        "is analysed; record with `nsys profile --trace=cuda,nvtx` for the GPU");
  }
  if (cuda_processes_.size() > 1) {
    lines_.push_back(std::to_string(cuda_processes_.size()) +
                     " processes ran GPU work in this export: they are analysed as one trace "
                     "(export one report per rank to compare ranks)");
  }
  lines_.push_back(mark_steps(trace_));
  if (std::string loaders = mark_data_loading(trace_); !loaders.empty()) {
    lines_.push_back(std::move(loaders));
  }
  build_.finish(notes_, options_.threads);
  add_allocated_totals(trace_.memory);
  if (options_.progress) options_.progress(rows_done_, std::max(rows_done_, rows_total_));
  return Done{};
}

// The tables that make an SQLite file an Nsight Systems export; the error names those missing.
Status check_is_export(const std::set<std::string>& tables) {
  const bool has_strings = tables.contains(std::string(kStringTable));
  const bool has_data = std::any_of(tables.begin(), tables.end(), [](const std::string& table) {
    return table.starts_with("CUPTI_ACTIVITY_KIND_") || table == kNvtxTable ||
           table.starts_with("TARGET_INFO_") || table.starts_with("META_DATA_");
  });
  if (has_strings && has_data) return Done{};
  std::string missing;
  for (const std::string_view table : {kStringTable, kRuntimeTable, kKernelTable, kNvtxTable,
                                       std::string_view("META_DATA_EXPORT")}) {
    if (tables.contains(std::string(table))) continue;
    missing += missing.empty() ? "" : ", ";
    missing += table;
  }
  return make_error(ErrorKind::kNotTrace,
                    "not an Nsight Systems export: no table " + missing +
                        " (export a report with `nsys export --type sqlite REPORT.nsys-rep`)");
}

}  // namespace

Result<Trace> read_sqlite(const std::string& path, const LoadOptions& options,
                          std::vector<std::string>* notes) {
  auto named = [&path](Error error) {
    error.file = path;
    return error;
  };
  Result<Database> db = Database::open(path);
  if (!db) return named(std::move(db).error());
  Result<std::set<std::string>> tables = db->tables();
  if (!tables) return named(std::move(tables).error());
  if (Status is_export = check_is_export(*tables); !is_export) {
    return named(std::move(is_export).error());
  }
  Trace trace;
  trace.source_path = path;
  trace.origin.format = TraceFormat::kNsightSqlite;
  std::error_code size_error;
  const std::uintmax_t size = std::filesystem::file_size(path, size_error);
  trace.stats.input_bytes = size_error ? 0 : size;
  ExportReader reader(std::move(db).value(), std::move(tables).value(), trace, options);
  if (Status read = reader.read(); !read) return named(std::move(read).error());
  if (notes != nullptr) {
    for (const std::string& line : reader.lines()) {
      if (!line.empty()) notes->push_back(path + ": " += line);
    }
    for (std::string& line : reader.notes().describe(path)) notes->push_back(std::move(line));
  }
  return trace;
}

}  // namespace stepscope::nsys
