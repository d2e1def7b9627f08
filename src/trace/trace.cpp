#include <algorithm>
#include <array>
#include <cctype>
#include <string>

#include "stepscope/trace.h"
#include "trace/ascii.h"

namespace stepscope {

namespace {

bool ends_with_ignoring_case(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         equals_ignoring_case(text.substr(text.size() - suffix.size()), suffix);
}

// Counts what is used: capacity reserved ahead is address space, not resident memory.
template <typename T>
std::size_t column_bytes(const T& column) {
  return column.size() * sizeof(typename T::value_type);
}

}  // namespace

std::string_view to_string(EventClass event_class) {
  static constexpr std::array<std::string_view, 13> kNames = {
      "kernel",   "memcpy",         "memset", "accelerator_kernel",
      "gpu_sync", "gpu_annotation", "op",     "annotation",
      "runtime",  "driver",         "python", "profiler_span",
      "other"};
  return kNames[static_cast<std::size_t>(event_class)];
}

EventClass classify_category(std::string_view category) {
  struct Entry {
    std::string_view category;
    EventClass event_class;
  };
  static constexpr std::array<Entry, 16> kTable = {{
      {"kernel", EventClass::kKernel},
      {"gpu_memcpy", EventClass::kMemcpy},
      {"memcpy", EventClass::kMemcpy},
      {"gpu_memset", EventClass::kMemset},
      {"memset", EventClass::kMemset},
      {"mtia_ccp_events", EventClass::kAcceleratorKernel},
      {"cuda_sync", EventClass::kGpuSync},
      {"gpu_user_annotation", EventClass::kGpuAnnotation},
      {"cpu_op", EventClass::kOp},
      {"operator", EventClass::kOp},
      {"user_annotation", EventClass::kAnnotation},
      {"runtime", EventClass::kRuntime},
      {"cuda_driver", EventClass::kDriver},
      {"python_function", EventClass::kPython},
      {"python", EventClass::kPython},
      {"trace", EventClass::kProfilerSpan},
  }};
  for (const Entry& entry : kTable) {
    if (equals_ignoring_case(category, entry.category)) return entry.event_class;
  }
  // `cuda_runtime`, `mtia_runtime`, `xpu_runtime`, `privateuse1_runtime`, ...
  if (ends_with_ignoring_case(category, "_runtime")) return EventClass::kRuntime;
  return EventClass::kOther;
}

std::string_view to_string(TraceFormat format) {
  switch (format) {
    case TraceFormat::kKinetoJson:
      return "PyTorch profiler (Kineto) JSON";
    case TraceFormat::kNsightSqlite:
      return "Nsight Systems SQLite export";
  }
  return "unknown";
}

std::string_view to_string(RankSource source) {
  switch (source) {
    case RankSource::kDistributedInfo:
      return "distributedInfo.rank";
    case RankSource::kFileName:
      return "file name";
    case RankSource::kFileOrder:
      return "file order in the folder";
    case RankSource::kDefaultZero:
      return "default (single file without rank information)";
  }
  return "unknown";
}

std::size_t EventTable::bytes() const {
  return column_bytes(start_ns) + column_bytes(dur_ns) + column_bytes(name) +
         column_bytes(category) + column_bytes(event_class) + column_bytes(thread) +
         column_bytes(stream) + column_bytes(device) + column_bytes(correlation) +
         column_bytes(external_id) + column_bytes(args_row) + column_bytes(source_offset) +
         column_bytes(source_length) + column_bytes(parent) + column_bytes(launcher) +
         column_bytes(owner_op) + column_bytes(device_activities);
}

const DeviceProperties* Trace::device_properties(std::int32_t device) const& {
  for (const DeviceProperties& properties : devices) {
    if (properties.id == device) return &properties;
  }
  return nullptr;
}

std::int64_t Trace::activity_stream(EventIndex i) const {
  const std::int64_t stream = events.stream[i];
  return stream >= 0 ? stream : threads[events.thread[i]].tid_number;
}

std::int32_t Trace::activity_device(EventIndex i) const {
  const std::int32_t device = events.device[i];
  return device >= 0 ? device : static_cast<std::int32_t>(threads[events.thread[i]].pid_number);
}

std::size_t Trace::bytes() const {
  std::size_t total = events.bytes() + strings.bytes();
  total += args.size() * sizeof(EventArgs) + device_args.size() * sizeof(DeviceArgs) +
           collective_args.size() * sizeof(CollectiveArgs);
  total += column_bytes(memory.time_ns) + column_bytes(memory.address) +
           column_bytes(memory.bytes) + column_bytes(memory.total_allocated) +
           column_bytes(memory.total_reserved) + column_bytes(memory.device_type) +
           column_bytes(memory.device_id) + column_bytes(memory.thread);
  total += column_bytes(flows.time_ns) + column_bytes(flows.id) + column_bytes(flows.phase) +
           column_bytes(flows.category) + column_bytes(flows.thread);
  total += threads.size() * sizeof(ThreadInfo);
  return total;
}

}  // namespace stepscope
