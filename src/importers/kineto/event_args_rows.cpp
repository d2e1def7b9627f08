#include "importers/kineto/event_args_rows.h"

namespace stepscope::kineto {

namespace {

// A field at its default reads the same from a default row as from no row, so a row is
// stored only when some field differs.
bool has_device_fields(const RawArgs& raw) {
  const DeviceArgs none;
  return raw.bytes != none.bytes || raw.blocks_per_sm != none.blocks_per_sm ||
         raw.occupancy_percent != none.occupancy_percent || raw.warps_per_sm != none.warps_per_sm ||
         raw.shared_memory != none.shared_memory ||
         raw.registers_per_thread != none.registers_per_thread || raw.grid[0] != 0 ||
         raw.grid[1] != 0 || raw.grid[2] != 0 || raw.block[0] != 0 || raw.block[1] != 0 ||
         raw.block[2] != 0;
}

bool has_collective_fields(const RawEvent& event) {
  const RawArgs& raw = event.numeric_args;
  return !event.collective_name.empty() || !event.dtype.empty() ||
         !event.process_group_name.empty() || raw.in_msg_nelems != kAbsent ||
         raw.out_msg_nelems != kAbsent || raw.group_size != kAbsent;
}

std::int32_t append_device_args(const RawArgs& raw, Trace& trace) {
  DeviceArgs row;
  row.blocks_per_sm = raw.blocks_per_sm;
  row.occupancy_percent = raw.occupancy_percent;
  row.warps_per_sm = raw.warps_per_sm;
  row.bytes = raw.bytes;
  row.shared_memory = raw.shared_memory;
  for (int k = 0; k < 3; ++k) {
    row.grid[k] = raw.grid[k];
    row.block[k] = raw.block[k];
  }
  row.registers_per_thread = raw.registers_per_thread;
  trace.device_args.push_back(row);
  return static_cast<std::int32_t>(trace.device_args.size() - 1);
}

std::int32_t append_collective_args(const RawEvent& event, Trace& trace) {
  CollectiveArgs row;
  row.in_msg_nelems = event.numeric_args.in_msg_nelems;
  row.out_msg_nelems = event.numeric_args.out_msg_nelems;
  row.group_size = event.numeric_args.group_size;
  row.collective_name = trace.strings.intern(event.collective_name);
  row.dtype = trace.strings.intern(event.dtype);
  row.process_group_name = trace.strings.intern(event.process_group_name);
  trace.collective_args.push_back(row);
  return static_cast<std::int32_t>(trace.collective_args.size() - 1);
}

}  // namespace

std::int32_t append_event_args(const RawEvent& event, Trace& trace, EventArgsInterners& interners) {
  EventArgs row;
  row.sequence_number = event.numeric_args.sequence_number;
  row.flops = event.numeric_args.flops;
  const OpInputTexts texts{interners.input_dims.intern(event.input_dims, trace.strings),
                           interners.input_types.intern(event.input_types, trace.strings),
                           interners.concrete_inputs.intern(event.concrete_inputs, trace.strings)};
  row.inputs_row = interners.op_inputs.row_of(texts, trace);
  if (has_device_fields(event.numeric_args)) {
    row.device_row = append_device_args(event.numeric_args, trace);
  }
  if (has_collective_fields(event)) row.collective_row = append_collective_args(event, trace);
  trace.args.push_back(row);
  return static_cast<std::int32_t>(trace.args.size() - 1);
}

}  // namespace stepscope::kineto
