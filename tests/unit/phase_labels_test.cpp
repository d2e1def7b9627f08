// `## name ##` markers of no phase are shown under their own name (stepscope.torch's
// prof.phase accepts any name).
#include <gtest/gtest.h>

#include "stepscope/analysis/phases.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TraceFixture;

TEST(PhaseLabels, UnknownMarkerNamesAreShownAsWritten) {
  TraceFixture fixture;
  for (int s = 0; s < 2; ++s) {
    const double t0 = s * 1000.0;
    fixture.step(s, t0, 1000);
    fixture.annotation("## forward ##", t0 + 10, 300);
    fixture.annotation("## loss ##", t0 + 320, 100);
    fixture.annotation("## loss ##", t0 + 500, 50);  // two spans in one step add up
    fixture.annotation("## my metric (top-5) ##", t0 + 600, 30);
  }
  const Trace trace = fixture.load();
  const PhasesResult phases = compute_phases(trace, find_steps(trace, {}), {});
  ASSERT_TRUE(phases.applicable);
  ASSERT_EQ(phases.labels.size(), 2U);
  EXPECT_EQ(phases.labels[0].name, "loss");
  EXPECT_EQ(phases.labels[0].markers, 4);
  EXPECT_EQ(phases.labels[0].mean_host_ns, 150'000);
  EXPECT_EQ(phases.labels[1].name, "my metric (top-5)");
  EXPECT_EQ(phases.labels[1].mean_host_ns, 30'000);
  // The known phase is not a label, and labelled time stays in `other`.
  EXPECT_EQ(phases.mean.host(Phase::kForward), 300'000);
  EXPECT_EQ(phases.mean.host(Phase::kOther), 700'000);
}

}  // namespace
}  // namespace stepscope
