#include "importers/nsys/trace_assembly.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "importers/kineto/op_inputs.h"
#include "trace/linker.h"
#include "trace/time_order.h"

namespace stepscope::nsys {

namespace {

// Two ids of up to 32 significant bits each, as one key (Nsight's pids and tids fit in 24).
std::uint64_t pair_key(std::int64_t high, std::int64_t low) {
  return (static_cast<std::uint64_t>(high) << 32U) ^ static_cast<std::uint32_t>(low);
}

template <typename C>
void put_in_order(const std::vector<EventIndex>& order, C& column) {
  C ordered;
  ordered.reserve(order.size());
  for (const EventIndex from : order) ordered.push_back(column[static_cast<std::size_t>(from)]);
  swap(column, ordered);
}

void sort_events(EventTable& e, unsigned threads) {
  const std::vector<EventIndex> order = time_order(e.start_ns, e.dur_ns, e.thread, threads);
  if (std::is_sorted(order.begin(), order.end())) return;
  put_in_order(order, e.start_ns);
  put_in_order(order, e.dur_ns);
  put_in_order(order, e.name);
  put_in_order(order, e.category);
  put_in_order(order, e.event_class);
  put_in_order(order, e.thread);
  put_in_order(order, e.stream);
  put_in_order(order, e.device);
  put_in_order(order, e.correlation);
  put_in_order(order, e.external_id);
  put_in_order(order, e.args_row);
  put_in_order(order, e.source_offset);
  put_in_order(order, e.source_length);
}

void sort_memory(MemoryTable& m) {
  std::vector<EventIndex> order(m.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&m](EventIndex a, EventIndex b) { return m.time_ns[a] < m.time_ns[b]; });
  if (std::is_sorted(order.begin(), order.end())) return;
  put_in_order(order, m.time_ns);
  put_in_order(order, m.address);
  put_in_order(order, m.bytes);
  put_in_order(order, m.total_allocated);
  put_in_order(order, m.total_reserved);
  put_in_order(order, m.device_type);
  put_in_order(order, m.device_id);
  put_in_order(order, m.thread);
}

}  // namespace

std::uint32_t TraceAssembly::host_thread(std::int64_t pid, std::int64_t tid) {
  const auto [at, added] = host_threads_.try_emplace(
      pair_key(pid, tid), static_cast<std::uint32_t>(trace_.threads.size()));
  if (added) {
    ThreadInfo info;
    info.key = {std::to_string(pid), std::to_string(tid)};
    info.pid_number = pid;
    info.tid_number = tid;
    trace_.threads.push_back(std::move(info));
  }
  return at->second;
}

ThreadInfo* TraceAssembly::find_host_thread(std::int64_t pid, std::int64_t tid) {
  const auto at = host_threads_.find(pair_key(pid, tid));
  return at == host_threads_.end() ? nullptr : &trace_.threads[at->second];
}

std::uint32_t TraceAssembly::gpu_row(std::int32_t device, std::int64_t stream) {
  const auto [at, added] = gpu_rows_.try_emplace(pair_key(device, stream),
                                                 static_cast<std::uint32_t>(trace_.threads.size()));
  if (added) {
    ThreadInfo info;
    info.key = {std::to_string(device), std::to_string(stream)};
    info.pid_number = device;
    info.tid_number = stream;
    info.name = "stream " + std::to_string(stream);
    trace_.threads.push_back(std::move(info));
  }
  return at->second;
}

void TraceAssembly::reserve(std::size_t events) {
  EventTable& e = trace_.events;
  e.start_ns.reserve(events);
  e.dur_ns.reserve(events);
  e.name.reserve(events);
  e.category.reserve(events);
  e.event_class.reserve(events);
  e.thread.reserve(events);
  e.stream.reserve(events);
  e.device.reserve(events);
  e.correlation.reserve(events);
  e.external_id.reserve(events);
  e.args_row.reserve(events);
  e.source_offset.reserve(events);
  e.source_length.reserve(events);
}

EventIndex TraceAssembly::add(const NewEvent& event) {
  EventTable& e = trace_.events;
  const auto index = static_cast<EventIndex>(e.size());
  e.start_ns.push_back(event.start_ns);
  e.dur_ns.push_back(event.dur_ns);
  e.name.push_back(event.name);
  e.category.push_back(event.category);
  e.event_class.push_back(classify_category(trace_.strings.view(event.category)));
  e.thread.push_back(event.thread);
  e.stream.push_back(event.stream);
  e.device.push_back(event.device);
  e.correlation.push_back(event.correlation);
  e.external_id.push_back(-1);
  e.args_row.push_back(event.args_row);
  e.source_offset.push_back(0);
  e.source_length.push_back(0);
  return index;
}

std::int32_t TraceAssembly::add_device_args(const DeviceArgs& device) {
  EventArgs row;
  row.device_row = static_cast<std::int32_t>(trace_.device_args.size());
  trace_.device_args.push_back(device);
  trace_.args.push_back(row);
  return static_cast<std::int32_t>(trace_.args.size() - 1);
}

std::int32_t TraceAssembly::add_op_args(std::int64_t sequence_number, StringId input_dims) {
  EventArgs row;
  row.sequence_number = sequence_number;
  if (input_dims != 0) {
    const auto [at, added] =
        op_inputs_rows_.try_emplace(input_dims, static_cast<std::int32_t>(trace_.op_inputs.size()));
    if (added) {
      OpInputs inputs;
      inputs.shapes = kineto::parse_input_dims(trace_.strings.view(input_dims));
      inputs.shapes_text = input_dims;
      trace_.op_inputs.push_back(std::move(inputs));
    }
    row.inputs_row = at->second;
  }
  trace_.args.push_back(row);
  return static_cast<std::int32_t>(trace_.args.size() - 1);
}

void TraceAssembly::finish(ImportNotes& notes, unsigned threads) {
  const unsigned workers = std::clamp(threads, 1U, 2U);
  trace_.stats.complete_events = trace_.events.size();
  trace_.stats.memory_events = trace_.memory.size();
  sort_events(trace_.events, workers);
  sort_memory(trace_.memory);
  link_events(trace_, notes, workers);
}

}  // namespace stepscope::nsys
