// An event's args are stored as an EventArgs row plus, only where present, a DeviceArgs row
// (kernels, copies) and a CollectiveArgs row; Trace::bytes counts all three tables.
#include <gtest/gtest.h>

#include <string>

#include "stepscope/load.h"

namespace stepscope {
namespace {

Trace load_text(const std::string& json) {
  Result<Trace> trace = load_trace_text(json, "test.json");
  EXPECT_TRUE(trace.ok()) << (trace.ok() ? "" : trace.error().describe());
  return trace.ok() ? std::move(trace).value() : Trace{};
}

EventIndex find(const Trace& trace, std::string_view name) {
  for (EventIndex i = 0; i < static_cast<EventIndex>(trace.events.size()); ++i) {
    if (trace.name_of(i) == name) return i;
  }
  return kNoEvent;
}

const std::string kTrace =
    R"({"traceEvents":[)"
    R"({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":1,"dur":9,"args":{"Input Dims":[[8,16],[16,4]],"Sequence number":7,"flops":1024}},)"
    R"({"ph":"X","cat":"cpu_op","name":"record_param_comms","pid":1,"tid":1,"ts":2,"dur":3,"args":{"Collective name":"allreduce","dtype":"Float","In msg nelems":64,"Group size":2}},)"
    R"({"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":12,"dur":5,"args":{"grid":[4,1,1],"block":[128,1,1],"registers per thread":32,"est. achieved occupancy %":50}},)"
    R"({"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD","pid":0,"tid":7,"ts":20,"dur":2,"args":{"bytes":4096}},)"
    R"({"ph":"X","cat":"cpu_op","name":"plain","pid":1,"tid":1,"ts":30,"dur":1})"
    R"(]})";

TEST(EventArgsRows, OpFieldsStayOnTheRowWithoutSideRows) {
  const Trace trace = load_text(kTrace);
  const EventIndex mm = find(trace, "aten::mm");
  ASSERT_NE(trace.args_of(mm), nullptr);
  ASSERT_NE(trace.op_inputs_of(mm), nullptr);
  EXPECT_EQ(trace.strings.view(trace.op_inputs_of(mm)->shapes_text), "[[8,16],[16,4]]");
  EXPECT_EQ(trace.args_of(mm)->sequence_number, 7);
  EXPECT_EQ(trace.args_of(mm)->flops, 1024);
  EXPECT_EQ(trace.device_args_of(mm), nullptr);
  EXPECT_EQ(trace.collective_of(mm), nullptr);
  EXPECT_EQ(trace.args_of(find(trace, "plain")), nullptr);
}

TEST(EventArgsRows, CollectiveFieldsHaveTheirOwnRow) {
  const Trace trace = load_text(kTrace);
  const CollectiveArgs* collective = trace.collective_of(find(trace, "record_param_comms"));
  ASSERT_NE(collective, nullptr);
  EXPECT_EQ(trace.strings.view(collective->collective_name), "allreduce");
  EXPECT_EQ(trace.strings.view(collective->dtype), "Float");
  EXPECT_EQ(collective->in_msg_nelems, 64);
  EXPECT_EQ(collective->out_msg_nelems, kAbsent);
  EXPECT_EQ(collective->group_size, 2);
  EXPECT_EQ(trace.collective_args.size(), 1U);
}

TEST(EventArgsRows, KernelAndCopyFieldsHaveTheirOwnRow) {
  const Trace trace = load_text(kTrace);
  const DeviceArgs* kernel = trace.device_args_of(find(trace, "gemm"));
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->grid[0], 4);
  EXPECT_EQ(kernel->block[0], 128);
  EXPECT_EQ(kernel->registers_per_thread, 32);
  EXPECT_DOUBLE_EQ(kernel->occupancy_percent, 50.0);
  EXPECT_DOUBLE_EQ(kernel->blocks_per_sm, -1.0);
  EXPECT_EQ(kernel->bytes, kAbsent);
  const DeviceArgs* copy = trace.device_args_of(find(trace, "Memcpy HtoD"));
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->bytes, 4096);
  EXPECT_EQ(trace.device_args.size(), 2U);
  EXPECT_EQ(trace.args.size(), 4U);
}

TEST(EventArgsRows, BytesCountEveryTable) {
  Trace trace = load_text(kTrace);
  const std::size_t with_side_rows = trace.bytes();
  trace.device_args.clear();
  trace.collective_args.clear();
  EXPECT_EQ(with_side_rows - trace.bytes(), 2 * sizeof(DeviceArgs) + sizeof(CollectiveArgs));
}

}  // namespace
}  // namespace stepscope
