#include <gtest/gtest.h>

#include "stepscope/diagnosis/diagnose.h"
#include "support/findings.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TraceFixture;

const Finding* find(const Diagnosis& diagnosis, const std::string& id) {
  return testing::find_finding(diagnosis, id);
}

// Steps of 1000 µs: a kernel 0-400 µs; then `loss.item()` syncs at 400-410 µs and the host
// needs `gap_us` before the next kernel, which runs until 990 µs.
Trace steps_with_item(double gap_us, bool with_sync) {
  TraceFixture fixture;
  std::int64_t correlation = 1;
  for (int s = 0; s < 3; ++s) {
    const double t0 = s * 1000.0;
    fixture.step(s, t0, 1000);
    fixture.launched_kernel("forward_kernel", t0 + 1, t0 + 5, 395);
    if (with_sync) {
      fixture.op("aten::item", t0 + 300, 110);
      fixture.op("aten::_local_scalar_dense", t0 + 301, 108);
      fixture.runtime("cudaMemcpyAsync", t0 + 302, 3, correlation);
      fixture.memcpy("Memcpy DtoH (Device -> Pageable)", t0 + 400, 1, correlation++);
      fixture.runtime("cudaStreamSynchronize", t0 + 306, 100, correlation++);
    }
    fixture.launched_kernel("backward_kernel", t0 + 410 + gap_us - 10, t0 + 410 + gap_us,
                            580 - gap_us);
  }
  return fixture.load();
}

TEST(RuleHostDeviceSync, ItemInTheLoopIsFoundWithTheIdleItCauses) {
  const Diagnosis diagnosis = testing::diagnose_trace(steps_with_item(200, true));
  const Finding* finding = find(diagnosis, "host-device-sync");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(diagnosis.bottleneck, Bottleneck::kHostDeviceSync);
  // The sync blocks 306-406 µs and the GPU is idle until the next kernel at 610 µs. Without the
  // sync the host would have spent its 100 µs queueing the next work: that much is the sync's.
  EXPECT_EQ(finding->gain.bound_ns, 100'000);
  // Replayed without the sync, the host reaches its next launch 95 µs earlier (the sync waited
  // from 306 µs until the copy ended at 401 µs, then took 5 µs): that is the likely gain.
  EXPECT_EQ(finding->gain.likely_ns, 95'000);
  ASSERT_EQ(finding->evidence.size(), 3U);
  EXPECT_DOUBLE_EQ(finding->evidence[2].value, 0.095);
  EXPECT_DOUBLE_EQ(finding->evidence[0].value, 1.0);  // the sync; cudaMemcpyAsync does not block
  ASSERT_EQ(finding->evidence[1].events.size(), 1U);
  EXPECT_EQ(finding->evidence[1].events[0].name, "aten::item");
  EXPECT_EQ(finding->evidence[1].events[0].count, 3);
}

TEST(RuleHostDeviceSync, NoSyncNoFinding) {
  const Diagnosis diagnosis = testing::diagnose_trace(steps_with_item(200, false));
  EXPECT_EQ(find(diagnosis, "host-device-sync"), nullptr);
}

TEST(RuleHostDeviceSync, SyncAtTheEndOfAGpuBoundStepCostsNothing) {
  // Each 1000 µs step launches a kernel that runs 5-995 µs and syncs at 990 µs: the sync waits
  // 5 µs for work that ends the step anyway, and the GPU idles 10 µs before the next step.
  TraceFixture fixture;
  std::int64_t correlation = 1;
  for (int s = 0; s < 4; ++s) {
    const double t0 = s * 1000.0;
    fixture.step(s, t0, 1000);
    fixture.launched_kernel("long_kernel", t0 + 1, t0 + 5, 990);
    fixture.runtime("cudaDeviceSynchronize", t0 + 990, 6, correlation++);
  }
  const Diagnosis diagnosis = testing::diagnose_trace(fixture.load());
  EXPECT_EQ(find(diagnosis, "host-device-sync"), nullptr);
}

}  // namespace
}  // namespace stepscope
