#include "stepscope/analysis/idle_attribution.h"

#include <gtest/gtest.h>

#include "stepscope/analysis/rank_analyses.h"
#include "stepscope/diagnosis/diagnose.h"
#include "support/findings.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TraceFixture;

// Steps of 1000 µs. A kernel runs 6-300 µs; `loss.item()` blocks until 310 µs; the host then
// waits for the DataLoader from 320 to 920 µs (single process) and launches the next kernel,
// which runs 930-990 µs. Of the GPU's idle 300-930 µs, the sync owns the 10 µs between its return
// and the loader, the loader its 600 µs, and the late launch the rest.
Trace item_then_loader() {
  TraceFixture fixture;
  std::int64_t correlation = 1;
  for (int s = 0; s < 4; ++s) {
    const double t0 = s * 1000.0;
    fixture.step(s, t0, 1000);
    fixture.launched_kernel("forward_kernel", t0 + 0, t0 + 6, 294);
    fixture.op("aten::item", t0 + 200, 111);
    fixture.runtime("cudaStreamSynchronize", t0 + 210, 100, correlation++);
    fixture.op("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", t0 + 320, 600);
    fixture.launched_kernel("backward_kernel", t0 + 925, t0 + 930, 60);
  }
  return fixture.load();
}

TEST(IdleAttribution, EachIdleNanosecondHasOneOwnerInTheDocumentedOrder) {
  const Trace trace = item_then_loader();
  const RankAnalyses rank = analyze_rank(trace, {});
  const IdleAttributionResult& idle = rank.idle_attribution;
  ASSERT_TRUE(idle.applicable);
  EXPECT_EQ(idle.steps, 4);
  EXPECT_EQ(idle.per_step_ns(IdleOwner::kDataLoading), 600'000);
  // From the sync's return (310 µs) to the loader (320 µs): the rest is the loader's.
  EXPECT_EQ(idle.per_step_ns(IdleOwner::kHostDeviceSync), 10'000);
  std::int64_t owned = 0;
  for (std::size_t c = 0; c < kIdleOwnerCount; ++c) {
    const IntervalSet& set = idle.owned[c];
    owned += set.measure();
    for (std::size_t d = c + 1; d < kIdleOwnerCount; ++d) {
      EXPECT_EQ(set.intersect(idle.owned[d]).measure(), 0) << c << " and " << d << " overlap";
    }
  }
  EXPECT_EQ(owned, idle.idle_ns);
  EXPECT_EQ(idle.idle_ns, 4 * 646'000);  // 0-6, 300-930 and 990-1000 µs of each step
}

TEST(IdleAttribution, SyncAndLoaderFindingsDoNotClaimTheSameIdle) {
  const Trace trace = item_then_loader();
  const Diagnosis diagnosis = diagnose(analyze_rank(trace, {}));
  const Finding* input = testing::find_finding(diagnosis, "input-bound");
  ASSERT_NE(input, nullptr);
  EXPECT_EQ(diagnosis.findings.front().id, "input-bound");
  EXPECT_EQ(input->gain.bound_ns, 600'000);
  // Only 10 µs of idle follow the sync's return, but the host waited 90 µs in it before reaching
  // the loader: replayed without it, every step is 90 µs shorter. The sync finding claims that,
  // not the loader's idle.
  const Finding* sync = testing::find_finding(diagnosis, "host-device-sync");
  ASSERT_NE(sync, nullptr);
  EXPECT_EQ(sync->gain.likely_ns, 90'000);
  double bounds = 0;
  for (const Finding& finding : diagnosis.findings) bounds += finding.gain.bound_share;
  EXPECT_LE(bounds, 1.0 + 1e-9);
}

TEST(IdleAttribution, ASyncWhileTheGpuIsBusyCostsNothing) {
  TraceFixture fixture;
  std::int64_t correlation = 100;
  for (int s = 0; s < 3; ++s) {
    const double t0 = s * 1000.0;
    fixture.step(s, t0, 1000);
    fixture.launched_kernel("long_kernel", t0 + 1, t0 + 5, 990);
    // The host blocks while the kernel runs, and the next launch was queued before it returns.
    fixture.runtime("cudaDeviceSynchronize", t0 + 10, 500, correlation++);
  }
  const Trace trace = fixture.load();
  const RankAnalyses rank = analyze_rank(trace, {});
  EXPECT_EQ(rank.idle_attribution.per_step_ns(IdleOwner::kHostDeviceSync), 0);
  EXPECT_EQ(testing::find_finding(diagnose(rank), "host-device-sync"), nullptr);
}

TEST(IdleAttribution, LateLaunchIsTheLaunchOwnersAndTheRestIsOtherHostWork) {
  TraceFixture fixture;
  for (int s = 0; s < 3; ++s) {
    const double t0 = s * 1000.0;
    fixture.step(s, t0, 1000);
    fixture.launched_kernel("a", t0 + 0, t0 + 5, 100);
    // The launch of `b` starts at 600 µs, after the GPU went idle at 105 µs.
    fixture.launched_kernel("b", t0 + 600, t0 + 606, 300);
  }
  const Trace trace = fixture.load();
  const RankAnalyses rank = analyze_rank(trace, {});
  const IdleAttributionResult& idle = rank.idle_attribution;
  // 105-606 µs of each step, and the 99 µs between two steps (906 µs to the next step's 5 µs),
  // whose next kernel was launched late as well: (3 × 501 + 2 × 99) / 3 = 567 µs.
  EXPECT_EQ(idle.per_step_ns(IdleOwner::kLaunch), 567'000);
  EXPECT_GT(idle.per_step_ns(IdleOwner::kOtherHost), 0);  // the step's start and end
  EXPECT_EQ(idle.per_step_ns(IdleOwner::kDataLoading), 0);
}

TEST(IdleAttribution, CpuOnlyTraceIsNotApplicable) {
  TraceFixture fixture;
  fixture.step(0, 0, 100).op("aten::mm", 1, 50);
  const Trace trace = fixture.load();
  const RankAnalyses rank = analyze_rank(trace, {});
  EXPECT_FALSE(rank.idle_attribution.applicable);
  EXPECT_EQ(rank.idle_attribution.not_applicable_reason, "no GPU activity");
}

}  // namespace
}  // namespace stepscope
