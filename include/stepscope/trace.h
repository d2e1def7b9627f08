// The in-memory trace: one Trace per rank, columnar, with interned strings, integer nanoseconds,
// and the links between host calls and device activity resolved once at load. Analyses read
// only this; nothing past the importer sees JSON. A Trace is immutable after load.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "stepscope/column.h"

namespace stepscope {

using StringId = std::uint32_t;
using EventIndex = std::int32_t;
inline constexpr EventIndex kNoEvent = -1;
inline constexpr std::int64_t kAbsent = -1;  // for ids that a trace may leave out

// Interns strings so that names are compared and stored as 32-bit ids. Id 0 is "".
class StringPool {
 public:
  StringPool();
  StringId intern(std::string_view text);
  [[nodiscard]] std::string_view view(StringId id) const { return strings_[id]; }
  // The id of text if it was interned, or kNotInterned.
  [[nodiscard]] StringId find(std::string_view text) const;
  [[nodiscard]] std::size_t size() const { return strings_.size(); }
  [[nodiscard]] std::size_t bytes() const;

  static constexpr StringId kNotInterned = 0xffffffffU;

 private:
  // Deque-like storage keeps string_views stable while the pool grows.
  std::vector<std::unique_ptr<char[]>> blocks_;
  std::size_t block_used_ = 0;
  std::size_t block_size_ = 0;
  std::vector<std::string_view> strings_;
  // Open addressing over (hash, id): interning runs once per event and field.
  struct Slot {
    std::uint64_t hash = 0;
    StringId id = kNotInterned;
  };
  std::vector<Slot> slots_;
  std::string_view store(std::string_view text);
  void grow();
};

// What an event is, from its category (docs/metrics/00-conventions-for-every-figure.md §0.4).
// Categories compare case-insensitively.
enum class EventClass : std::uint8_t {
  kKernel,             // GPU kernel (`kernel`)
  kMemcpy,             // `gpu_memcpy`, `memcpy`
  kMemset,             // `gpu_memset`, `memset`
  kAcceleratorKernel,  // non-CUDA device work (`mtia_ccp_events`), treated like a kernel
  kGpuSync,            // `cuda_sync`: a wait marker, not work
  kGpuAnnotation,      // `gpu_user_annotation`
  kOp,                 // `cpu_op`, `operator`
  kAnnotation,         // `user_annotation`
  kRuntime,            // `cuda_runtime`, `runtime`, any `*_runtime`
  kDriver,             // `cuda_driver`
  kPython,             // `python_function`, legacy `python`
  kProfilerSpan,       // `Trace`
  kOther,              // anything else: kept and counted, never dropped silently
};

[[nodiscard]] std::string_view to_string(EventClass event_class);
[[nodiscard]] EventClass classify_category(std::string_view category);

// Device activity: work that occupies the GPU (or another accelerator).
[[nodiscard]] constexpr bool is_device_activity(EventClass c) {
  return c == EventClass::kKernel || c == EventClass::kMemcpy || c == EventClass::kMemset ||
         c == EventClass::kAcceleratorKernel;
}
// Host-side calls that can launch device activity.
[[nodiscard]] constexpr bool is_launch_call(EventClass c) {
  return c == EventClass::kRuntime || c == EventClass::kDriver;
}
// Host events that take part in per-thread nesting (ops, annotations, runtime and driver calls).
[[nodiscard]] constexpr bool is_nested_host_event(EventClass c) {
  return c == EventClass::kOp || c == EventClass::kAnnotation || is_launch_call(c);
}

// A (pid, tid) pair as written in the trace; numbers and strings are both allowed there.
struct ThreadKey {
  std::string pid;  // the JSON text of the value: `12` or the string's contents
  std::string tid;
  bool operator==(const ThreadKey&) const = default;
};

struct ThreadInfo {
  ThreadKey key;
  std::int64_t pid_number = kAbsent;  // when pid is a JSON integer
  std::int64_t tid_number = kAbsent;
  std::string name;  // from `thread_name` metadata, when present
};

// Arguments the analyses need, parsed eagerly into one row per event that has any of them.
// Everything else in `args` stays reachable through the event's source byte range.
// The row holds what host ops carry; the description of an op's inputs (OpInputs), the
// arguments of kernels and copies (DeviceArgs) and the collective fields (CollectiveArgs) sit in
// side tables that a row references by index, -1 when absent. Most rows are ops, and a row with
// every field was ~144 bytes, the largest single part of a loaded trace; this one is 32.
struct EventArgs {
  // `Sequence number`: the profiler writes it for ops recorded while autograd builds a graph.
  std::int64_t sequence_number = kAbsent;
  std::int64_t flops = kAbsent;      // `flops`, recorded with with_flops=True
  std::int32_t inputs_row = -1;      // index into Trace::op_inputs
  std::int32_t device_row = -1;      // index into Trace::device_args
  std::int32_t collective_row = -1;  // index into Trace::collective_args
};

using Shape = std::vector<std::int64_t>;

// What an op's arguments say about its inputs (recorded with record_shapes=True), read once by
// the importer. Ops repeat a few such descriptions millions of times, so each distinct one is a
// row of Trace::op_inputs that every op with it shares.
struct OpInputs {
  // One shape per input: empty for an input that is not a tensor (a scalar), the first tensor's
  // for a list of tensors. nullopt when the trace gives no shapes or none that can be read.
  std::optional<std::vector<Shape>> shapes;
  // Per input, its dtype as the profiler names it ("float", "c10::BFloat16", "Scalar"; "" where
  // none), and the value of an input that is not a tensor as text ("1", "[1, 1]", "False"; ""
  // for a tensor). Empty when the trace gives none.
  std::vector<StringId> dtypes;
  std::vector<StringId> concrete;
  // The shapes and dtypes as the trace writes them (`Input Dims` and `Input type` in Kineto
  // JSON): what the operator table shows and groups by, never parsed again.
  StringId shapes_text = 0;
  StringId types_text = 0;
};

// Kernel launch and copy arguments; a row exists when any of them differs from its default
// here (so a reader sees the same values with or without the row).
struct DeviceArgs {
  double blocks_per_sm = -1;      // `blocks per SM`
  double occupancy_percent = -1;  // `est. achieved occupancy %`
  double warps_per_sm = -1;
  std::int64_t bytes = kAbsent;  // memcpy / memset size
  std::int64_t shared_memory = kAbsent;
  std::int32_t grid[3] = {0, 0, 0};
  std::int32_t block[3] = {0, 0, 0};
  std::int32_t registers_per_thread = -1;
};

// Collective fields (NCCL kernels and `record_param_comms`); a row exists when any is present.
struct CollectiveArgs {
  std::int64_t in_msg_nelems = kAbsent;
  std::int64_t out_msg_nelems = kAbsent;
  std::int64_t group_size = kAbsent;
  StringId collective_name = 0;
  StringId dtype = 0;
  StringId process_group_name = 0;
};

// The complete events of one rank, as parallel columns indexed by EventIndex. B/E pairs are
// stored here as complete events. Sorted by start time (ties: longer first) after load.
struct EventTable {
  Column<std::int64_t> start_ns;
  Column<std::int64_t> dur_ns;
  Column<StringId> name;
  Column<StringId> category;  // as written
  Column<EventClass> event_class;
  Column<std::uint32_t> thread;         // index into Trace::threads
  Column<std::int64_t> stream;          // integer `args.stream`, else GPU row tid, else -1
  Column<std::int32_t> device;          // `args.device`, else numeric pid for GPU rows, else -1
  Column<std::int64_t> correlation;     // `args.correlation`, else -1
  Column<std::int64_t> external_id;     // `args["External id"]`, else -1
  Column<std::int32_t> args_row;        // index into Trace::args, or -1
  Column<std::uint64_t> source_offset;  // byte offset of the event in the decompressed input
  Column<std::uint32_t> source_length;
  // Links, resolved by the linker at load:
  std::vector<EventIndex> parent;    // innermost enclosing nested host event on the same thread
  std::vector<EventIndex> launcher;  // device activity -> runtime/driver call (by correlation)
  std::vector<EventIndex> owner_op;  // device activity -> op/annotation it is attributed to
  // Every device activity, in event order: most analyses read only these, about a tenth of a GPU
  // trace's events, and a pass over every event to find them costs several times as much.
  std::vector<EventIndex> device_activities;

  [[nodiscard]] std::size_t size() const { return start_ns.size(); }
  [[nodiscard]] std::int64_t end_ns(EventIndex i) const { return start_ns[i] + dur_ns[i]; }
  [[nodiscard]] std::size_t bytes() const;
};

// `[memory]` instant events (profile_memory=True),
// docs/metrics/11-memory-curve-from-memory-events.md §11.
struct MemoryTable {
  Column<std::int64_t> time_ns;
  Column<std::uint64_t> address;
  Column<std::int64_t> bytes;            // > 0 allocation, < 0 free
  Column<std::int64_t> total_allocated;  // -1 when missing
  Column<std::int64_t> total_reserved;   // -1 when missing
  Column<std::int8_t> device_type;       // 0 CPU, 1 CUDA, others as written
  Column<std::int16_t> device_id;        // -1 for CPU
  Column<std::uint32_t> thread;
  [[nodiscard]] std::size_t size() const { return time_ns.size(); }
};

// Flow events (`s`/`f`/`t`): kept as links only.
struct FlowTable {
  Column<std::int64_t> time_ns;
  Column<std::int64_t> id;
  Column<char> phase;
  Column<StringId> category;
  Column<std::uint32_t> thread;
  [[nodiscard]] std::size_t size() const { return time_ns.size(); }
};

struct DeviceProperties {
  std::int32_t id = -1;
  std::string name;
  std::int64_t total_global_memory = kAbsent;
  std::int32_t compute_major = -1;
  std::int32_t compute_minor = -1;
  std::int32_t num_sms = -1;
  std::int32_t max_threads_per_multiprocessor = -1;
};

// How the rank of a trace was determined (docs/metrics/00-conventions-for-every-figure.md §0.5).
enum class RankSource : std::uint8_t { kDistributedInfo, kFileName, kFileOrder, kDefaultZero };
[[nodiscard]] std::string_view to_string(RankSource source);

// Counts the importer keeps so that nothing is dropped silently.
struct ImportStats {
  std::uint64_t input_bytes = 0;      // decompressed
  std::uint64_t events_seen = 0;      // every element of traceEvents
  std::uint64_t complete_events = 0;  // X, and matched B/E pairs
  std::uint64_t instant_events = 0;   // i / I (memory samples included)
  std::uint64_t memory_events = 0;
  std::uint64_t flow_events = 0;
  std::uint64_t counter_events = 0;   // C
  std::uint64_t metadata_events = 0;  // M
  std::uint64_t async_events = 0;     // b / e / n: counted, not analysed
  std::uint64_t other_phase_events = 0;
  std::uint64_t invalid_complete_events = 0;  // X without ts or dur, or with dur < 0
  std::uint64_t unmatched_begin_end = 0;
  std::uint64_t unknown_category_events = 0;
  // For HTA's rounding emulation (docs/metrics/00-conventions-for-every-figure.md §0.6): pandas
  // makes `ts` a float column if any event's `ts` literal is not an integer or any event lacks
  // `ts`.
  bool any_fractional_ts_literal = false;
  bool any_event_without_ts = false;
  // Whether device activities carry their correlation id in `External id` (older traces).
  bool external_id_is_correlation = false;
};

struct DistributedInfo {
  std::string backend;
  std::int64_t rank = kAbsent;
  std::int64_t world_size = kAbsent;
};

// A Python function the input pipeline's time went to, from `stepscope run`'s stack sampling.
struct SampledFunction {
  std::string file;                     // relative to the job's working folder when inside it
  std::string function;                 // qualified name, e.g. `Images.__getitem__`
  std::int64_t line = kAbsent;          // where the function starts
  std::int64_t hottest_line = kAbsent;  // the line most of its samples were at
  std::int64_t samples = 0;
};

// The input pipeline's Python stacks, sampled during the recorded window in the process that
// iterates the DataLoader and in its workers (docs/stepscope-host.md, `input_functions`).
struct InputSampling {
  double interval_ms = 0;
  std::int64_t samples = 0;        // every sample taken
  std::int64_t fetch_samples = 0;  // those inside the DataLoader's fetch: the input's time
  std::int64_t processes = 0;
  std::int64_t worker_processes = 0;
  std::vector<SampledFunction> functions;  // most samples first
};

// The host conditions stepscope.torch.profile records under the trace's top-level key
// `stepscope_host` (docs/stepscope-host.md): torch.profiler itself records no thread
// or core counts. A field is kAbsent when missing or wrongly typed (an import note says which).
struct HostConditions {
  std::int64_t cores_available = kAbsent;   // len(os.sched_getaffinity(0))
  std::int64_t cpu_count = kAbsent;         // os.cpu_count()
  std::int64_t intra_op_threads = kAbsent;  // torch.get_num_threads()
  std::int64_t inter_op_threads = kAbsent;  // torch.get_num_interop_threads()
  std::int64_t local_processes = kAbsent;   // LOCAL_WORLD_SIZE, else 1
  // "LOCAL_WORLD_SIZE", "default" (not distributed: 1), or "unknown" (torch.distributed
  // initialised without LOCAL_WORLD_SIZE: 1 is a lower bound).
  std::string local_processes_source;
  std::int64_t dataloader_workers = kAbsent;    // child processes at the end of the profile
  std::optional<InputSampling> input_sampling;  // recorded by `stepscope run` only
};

// Which reader made a trace, and what wrote its file: the report names where its figures came
// from, and its advice on what to record names the tool the user ran.
enum class TraceFormat : std::uint8_t { kKinetoJson, kNsightSqlite };
[[nodiscard]] std::string_view to_string(TraceFormat format);

struct TraceOrigin {
  TraceFormat format = TraceFormat::kKinetoJson;
  std::string producer;  // e.g. the exporter's version, when the file states it; else empty
};

struct Trace {
  std::string source_path;
  TraceOrigin origin;
  std::int64_t rank = 0;
  RankSource rank_source = RankSource::kDefaultZero;
  DistributedInfo distributed;
  std::optional<HostConditions> host;  // absent unless recorded by stepscope.torch.profile
  std::vector<DeviceProperties> devices;
  std::int64_t schema_version = kAbsent;
  std::int64_t base_time_ns = kAbsent;
  std::string display_time_unit;

  StringPool strings;
  std::vector<ThreadInfo> threads;
  EventTable events;
  Column<EventArgs> args;
  std::vector<DeviceArgs> device_args;
  std::vector<CollectiveArgs> collective_args;
  std::vector<OpInputs> op_inputs;
  MemoryTable memory;
  FlowTable flows;
  ImportStats stats;

  // These point into the trace, so a temporary Trace cannot be asked (it would dangle).
  [[nodiscard]] std::string_view name_of(EventIndex i) const& {
    return strings.view(events.name[i]);
  }
  std::string_view name_of(EventIndex i) && = delete;
  [[nodiscard]] const EventArgs* args_of(EventIndex i) const& {
    const std::int32_t row = events.args_row[i];
    return row < 0 ? nullptr : &args[row];
  }
  const EventArgs* args_of(EventIndex i) && = delete;
  [[nodiscard]] const DeviceArgs* device_args_of(EventIndex i) const& {
    const EventArgs* row = args_of(i);
    return row == nullptr || row->device_row < 0 ? nullptr : &device_args[row->device_row];
  }
  const DeviceArgs* device_args_of(EventIndex i) && = delete;
  [[nodiscard]] const CollectiveArgs* collective_of(EventIndex i) const& {
    const EventArgs* row = args_of(i);
    return row == nullptr || row->collective_row < 0 ? nullptr
                                                     : &collective_args[row->collective_row];
  }
  const CollectiveArgs* collective_of(EventIndex i) && = delete;
  [[nodiscard]] const OpInputs* op_inputs_of(EventIndex i) const& {
    const EventArgs* row = args_of(i);
    return row == nullptr || row->inputs_row < 0 ? nullptr : &op_inputs[row->inputs_row];
  }
  const OpInputs* op_inputs_of(EventIndex i) && = delete;
  [[nodiscard]] const DeviceProperties* device_properties(std::int32_t device) const&;
  const DeviceProperties* device_properties(std::int32_t device) && = delete;
  // Stream of a device activity: `args.stream`, else the numeric tid of its GPU row.
  [[nodiscard]] std::int64_t activity_stream(EventIndex i) const;
  // Device of a device activity: `args.device`, else the numeric pid of its GPU row.
  [[nodiscard]] std::int32_t activity_device(EventIndex i) const;
  // Bytes held by the in-memory trace (tables, args and strings).
  [[nodiscard]] std::size_t bytes() const;
};

}  // namespace stepscope
