#include <gtest/gtest.h>

#include <fmt/format.h>

#include "render/json/json_sink.h"
#include "render/terminal/collective_bandwidth_text.h"
#include "stepscope/analysis/collective_bandwidth.h"
#include "stepscope/figures/collective_bandwidth_fields.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TraceFixture;

std::string collective_args(const std::string& name, const std::string& dtype,
                            std::int64_t in_nelems, std::int64_t out_nelems, int group_size) {
  return fmt::format(
      R"("Collective name":"{}","dtype":"{}","In msg nelems":{},"Out msg nelems":{},)"
      R"("Group size":{},"Process Group Name":"0")",
      name, dtype, in_nelems, out_nelems, group_size);
}

CollectiveBandwidthResult bandwidth_of(const Trace& trace) {
  return compute_collective_bandwidth(trace, find_steps(trace, {}), {});
}

const CollectiveBandwidth* find(const CollectiveBandwidthResult& r, Collective c,
                                std::int32_t device = 0) {
  for (const CollectiveBandwidth& row : r.collectives) {
    if (row.collective == c && row.device == device) return &row;
  }
  return nullptr;
}

TEST(CollectiveBandwidth, NamesDtypesAndBusFactorsFollowNcclTests) {
  EXPECT_EQ(parse_collective("allreduce"), Collective::kAllReduce);
  EXPECT_EQ(parse_collective("allreduce_coalesced"), Collective::kAllReduce);
  EXPECT_EQ(parse_collective("_allgather_base"), Collective::kAllGather);
  EXPECT_EQ(parse_collective("all_gather_into_tensor_coalesced"), Collective::kAllGather);
  EXPECT_EQ(parse_collective("_reduce_scatter_base"), Collective::kReduceScatter);
  EXPECT_EQ(parse_collective("all_to_all"), Collective::kAllToAll);
  EXPECT_EQ(parse_collective("alltoall_base"), Collective::kAllToAll);
  EXPECT_EQ(parse_collective("broadcast"), Collective::kBroadcast);
  EXPECT_EQ(parse_collective("reduce"), Collective::kReduce);
  EXPECT_EQ(parse_collective("send"), Collective::kSendRecv);
  EXPECT_EQ(parse_collective("recv"), Collective::kSendRecv);
  EXPECT_EQ(parse_collective("barrier"), Collective::kOther);
  EXPECT_EQ(parse_collective("gather"), Collective::kOther);
  EXPECT_EQ(dtype_size_bytes("Float"), 4);
  EXPECT_EQ(dtype_size_bytes("Long"), 8);
  EXPECT_EQ(dtype_size_bytes("BFloat16"), 2);
  EXPECT_EQ(dtype_size_bytes("Float8_e4m3fn"), 1);
  EXPECT_EQ(dtype_size_bytes("Bool"), 1);
  EXPECT_EQ(dtype_size_bytes("Mystery"), 0);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::kAllReduce, 4), 1.5);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::kAllGather, 4), 0.75);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::kReduceScatter, 8), 0.875);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::kAllToAll, 2), 0.5);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::kBroadcast, 8), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::kSendRecv, 2), 1.0);
}

TEST(CollectiveBandwidth, AggregatesBytesOverTimeNotAMeanOfRates) {
  // Two all-reduces of 4,000 and 40,000 bytes (Float) in 10 and 20 µs, group of 4:
  // algbw = 44,000 B / 30,000 ns = 1.4667 GB/s (the mean of the two rates would be 1.2).
  const Trace trace = TraceFixture()
                          .step(1, 0, 100)
                          .runtime("cudaLaunchKernel", 1, 1, 1)
                          .kernel("ncclDevKernel_AllReduce_Sum_f32", 10, 10, 1, 20, 0, -1,
                                  collective_args("allreduce", "Float", 1000, 1000, 4))
                          .runtime("cudaLaunchKernel", 2, 1, 2)
                          .kernel("ncclDevKernel_AllReduce_Sum_f32", 40, 20, 2, 20, 0, -1,
                                  collective_args("allreduce", "Float", 10000, 10000, 4))
                          .load();
  const CollectiveBandwidthResult r = bandwidth_of(trace);
  ASSERT_TRUE(r.applicable);
  EXPECT_EQ(r.communication_kernels, 2);
  EXPECT_EQ(r.args_from_launching_op, 0);
  const CollectiveBandwidth* ar = find(r, Collective::kAllReduce);
  ASSERT_NE(ar, nullptr);
  EXPECT_EQ(ar->group_size, 4);
  EXPECT_EQ(ar->totals.calls, 2);
  EXPECT_EQ(ar->totals.bytes, 44'000);
  EXPECT_EQ(ar->totals.time_ns, 30'000);
  EXPECT_NEAR(ar->totals.algbw_gb_per_s, 44.0 / 30.0, 1e-12);
  EXPECT_NEAR(ar->totals.busbw_gb_per_s, 44.0 / 30.0 * 1.5, 1e-12);
  // 4,000 B lies in [4,096 / 2, 4,096); 40,000 B in [32,768, 65,536).
  ASSERT_EQ(ar->buckets.size(), 2U);
  EXPECT_EQ(ar->buckets[0].min_bytes, 2048);
  EXPECT_EQ(ar->buckets[0].max_bytes, 4096);
  EXPECT_EQ(ar->buckets[0].totals.bytes, 4000);
  EXPECT_NEAR(ar->buckets[0].totals.algbw_gb_per_s, 0.4, 1e-12);
  EXPECT_EQ(ar->buckets[1].min_bytes, 32768);
  EXPECT_NEAR(ar->buckets[1].totals.algbw_gb_per_s, 2.0, 1e-12);
  EXPECT_EQ(ar->fastest.bytes, 40'000);
  EXPECT_NEAR(ar->fastest.busbw_gb_per_s, 3.0, 1e-12);
}

TEST(CollectiveBandwidth, AllGatherCountsItsOutputAndReduceScatterItsInput) {
  // Group of 2: all-gather 100 -> 200 Half elements (S = 400 B); reduce-scatter 300 -> 150
  // BFloat16 elements (S = 600 B). Both 1 µs; busbw factor (n - 1) / n = 0.5.
  const Trace trace = TraceFixture()
                          .step(1, 0, 100)
                          .runtime("cudaLaunchKernel", 1, 1, 1)
                          .kernel("ncclDevKernel_AllGather_RING_LL", 10, 1, 1, 20, 0, -1,
                                  collective_args("_allgather_base", "Half", 100, 200, 2))
                          .runtime("cudaLaunchKernel", 2, 1, 2)
                          .kernel("ncclDevKernel_ReduceScatter_Sum", 20, 1, 2, 20, 0, -1,
                                  collective_args("_reduce_scatter_base", "BFloat16", 300, 150, 2))
                          .load();
  const CollectiveBandwidthResult r = bandwidth_of(trace);
  const CollectiveBandwidth* ag = find(r, Collective::kAllGather);
  const CollectiveBandwidth* rs = find(r, Collective::kReduceScatter);
  ASSERT_NE(ag, nullptr);
  ASSERT_NE(rs, nullptr);
  EXPECT_EQ(ag->totals.bytes, 400);
  EXPECT_EQ(rs->totals.bytes, 600);
  EXPECT_NEAR(ag->totals.algbw_gb_per_s, 0.4, 1e-12);
  EXPECT_NEAR(ag->totals.busbw_gb_per_s, 0.2, 1e-12);
  EXPECT_NEAR(rs->totals.busbw_gb_per_s, 0.3, 1e-12);
}

TEST(CollectiveBandwidth, ArgsComeFromTheLaunchingRecordParamCommsOp) {
  // Older traces: the kernel carries no collective args; `record_param_comms` around the
  // launch does (here with an annotation between the op and the launch call).
  const Trace trace =
      TraceFixture()
          .step(1, 0, 100)
          .op("record_param_comms", 5, 20, 1, 77, collective_args("broadcast", "Long", 125, 125, 8))
          .annotation("nccl:broadcast", 6, 10, 1)
          .runtime("cudaLaunchKernel", 7, 2, 1)
          .kernel("ncclKernel_Broadcast_RING_LL_Sum_int8_t", 30, 2, 1, 20)
          .load();
  const CollectiveBandwidthResult r = bandwidth_of(trace);
  EXPECT_EQ(r.args_from_launching_op, 1);
  const CollectiveBandwidth* bc = find(r, Collective::kBroadcast);
  ASSERT_NE(bc, nullptr);
  EXPECT_EQ(bc->totals.bytes, 1000);
  EXPECT_EQ(bc->group_size, 8);
  EXPECT_NEAR(bc->totals.algbw_gb_per_s, 0.5, 1e-12);
  EXPECT_NEAR(bc->totals.busbw_gb_per_s, 0.5, 1e-12);  // broadcast: factor 1
}

TEST(CollectiveBandwidth, KernelsWithoutABandwidthAreCountedByReason) {
  const Trace trace = TraceFixture()
                          .runtime("cudaLaunchKernel", -40, 1, 9)
                          .kernel("ncclKernel_AllReduce_early", -30, 5, 9, 20, 0, -1,
                                  collective_args("allreduce", "Float", 10, 10, 2))
                          .step(1, 0, 100)
                          .runtime("cudaLaunchKernel", 1, 1, 1)
                          .kernel("ncclKernel_AllReduce_no_args", 10, 5, 1, 20)
                          .runtime("cudaLaunchKernel", 2, 1, 2)
                          .kernel("ncclKernel_AllReduce_odd_dtype", 20, 5, 2, 20, 0, -1,
                                  collective_args("allreduce", "Mystery", 10, 10, 2))
                          .runtime("cudaLaunchKernel", 3, 1, 3)
                          .kernel("ncclKernel_AllReduce_barrier", 30, 5, 3, 20, 0, -1,
                                  collective_args("barrier", "Float", 1, 1, 2))
                          .runtime("cudaLaunchKernel", 4, 1, 4)
                          .kernel("ncclKernel_AllReduce_instant", 40, 0, 4, 20, 0, -1,
                                  collective_args("allreduce", "Float", 10, 10, 2))
                          .runtime("cudaLaunchKernel", 5, 1, 5)
                          .kernel("gemm", 50, 5, 5)
                          .load();
  const CollectiveBandwidthResult r = bandwidth_of(trace);
  EXPECT_TRUE(r.applicable);
  EXPECT_EQ(r.communication_kernels, 4);
  EXPECT_EQ(r.skipped.outside_window, 1);
  EXPECT_EQ(r.skipped.without_args, 1);
  EXPECT_EQ(r.skipped.unknown_dtype, 1);
  EXPECT_EQ(r.skipped.other_collective, 1);
  EXPECT_EQ(r.skipped.zero_duration, 1);
  EXPECT_TRUE(r.collectives.empty());
  EXPECT_NE(render::render_text(r, 5).find("without collective args"), std::string::npos);
}

TEST(CollectiveBandwidth, EachDeviceSeparately) {
  const std::string args = collective_args("allreduce", "Float", 250, 250, 2);
  const Trace trace = TraceFixture()
                          .step(1, 0, 100)
                          .runtime("cudaLaunchKernel", 1, 1, 1)
                          .kernel("ncclDevKernel_AllReduce", 10, 1, 1, 20, 0, -1, args)
                          .runtime("cudaLaunchKernel", 2, 1, 2)
                          .kernel("ncclDevKernel_AllReduce", 10, 2, 2, 21, 1, -1, args)
                          .load();
  const CollectiveBandwidthResult r = bandwidth_of(trace);
  ASSERT_EQ(r.collectives.size(), 2U);
  EXPECT_NEAR(find(r, Collective::kAllReduce, 0)->totals.algbw_gb_per_s, 1.0, 1e-12);
  EXPECT_NEAR(find(r, Collective::kAllReduce, 1)->totals.algbw_gb_per_s, 0.5, 1e-12);
}

TEST(CollectiveBandwidth, NotApplicableWithoutCommunicationOrGpu) {
  const Trace compute_only = TraceFixture()
                                 .step(1, 0, 100)
                                 .runtime("cudaLaunchKernel", 1, 1, 1)
                                 .kernel("gemm", 10, 5, 1)
                                 .load();
  const CollectiveBandwidthResult r = bandwidth_of(compute_only);
  EXPECT_FALSE(r.applicable);
  EXPECT_EQ(r.not_applicable_reason, "no communication kernels");
  const Trace cpu_only = TraceFixture().step(1, 0, 100).op("aten::add", 1, 5).load();
  const CollectiveBandwidthResult c = bandwidth_of(cpu_only);
  EXPECT_FALSE(c.applicable);
  EXPECT_EQ(c.not_applicable_reason, "no GPU activity");
  EXPECT_NE(render::render_text(c, 5).find("not applicable: no GPU activity"), std::string::npos);
}

TEST(CollectiveBandwidth, JsonCarriesUnitsInFieldNames) {
  const Trace trace = TraceFixture()
                          .step(1, 0, 100)
                          .runtime("cudaLaunchKernel", 1, 1, 1)
                          .kernel("ncclDevKernel_AllReduce", 10, 2, 1, 20, 0, -1,
                                  collective_args("allreduce", "Float", 500, 500, 2))
                          .load();
  render::JsonWriter json;
  render::write_json(json, bandwidth_of(trace));
  const std::string& text = json.text();
  EXPECT_NE(text.find(R"("collective":"all_reduce")"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("bytes":2000)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("time_us":2)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("algbw_gb_per_s":1)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("group_size":2)"), std::string::npos) << text;
}

}  // namespace
}  // namespace stepscope
