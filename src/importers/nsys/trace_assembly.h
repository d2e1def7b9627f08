// Assembles a Trace from events read in any order: threads and GPU rows keyed as the PyTorch
// profiler keys them (a host thread by its pid and tid, a GPU row by device and stream), and at
// the end the same invariants the Kineto importer leaves: events in time order (ties longer
// first), every link resolved (trace/linker.h), memory samples in time order.
#pragma once

#include <cstdint>
#include <string_view>
#include <unordered_map>

#include "load/import_notes.h"
#include "stepscope/error.h"
#include "stepscope/trace.h"

namespace stepscope::nsys {

struct NewEvent {
  std::int64_t start_ns = 0;
  std::int64_t dur_ns = 0;
  StringId name = 0;
  StringId category = 0;
  std::uint32_t thread = 0;
  std::int64_t stream = -1;
  std::int32_t device = -1;
  std::int64_t correlation = -1;
  std::int32_t args_row = -1;
};

class TraceAssembly {
 public:
  explicit TraceAssembly(Trace& trace) : trace_(trace) {}

  // The thread of a host pid and tid, added when new.
  std::uint32_t host_thread(std::int64_t pid, std::int64_t tid);
  // The row of a GPU stream, keyed like the PyTorch profiler's: pid = device, tid = stream.
  std::uint32_t gpu_row(std::int32_t device, std::int64_t stream);
  // The thread of (pid, tid) when it exists, else nullptr (thread names for threads with events).
  ThreadInfo* find_host_thread(std::int64_t pid, std::int64_t tid);

  // Room for about this many events, so that the columns are not copied as they grow.
  void reserve(std::size_t events);
  EventIndex add(const NewEvent& event);
  // An args row holding `device` (kernel launch fields, copy sizes): its index for NewEvent.
  std::int32_t add_device_args(const DeviceArgs& device);
  // An args row for an operator recorded by emit_nvtx: its sequence number and input shapes
  // (`[[8, 16], [16, 4]]`, as Kineto's `Input Dims`; 0 when absent).
  std::int32_t add_op_args(std::int64_t sequence_number, StringId input_dims);

  // Sorts, links and counts; `threads` as LoadOptions::threads (0: one).
  void finish(ImportNotes& notes, unsigned threads);

 private:
  Trace& trace_;
  std::unordered_map<std::uint64_t, std::uint32_t> host_threads_;
  std::unordered_map<std::uint64_t, std::uint32_t> gpu_rows_;
  std::unordered_map<StringId, std::int32_t> op_inputs_rows_;  // by the shapes' text
};

}  // namespace stepscope::nsys
