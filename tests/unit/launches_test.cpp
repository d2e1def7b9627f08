// Native launch statistics (docs/metrics/07-hta-cuda-kernel-launch-statistics.md §7) on fixtures
// with exact expectations.
#include <gtest/gtest.h>

#include "render/json/json_sink.h"
#include "render/terminal/launches_text.h"
#include "stepscope/analysis/launches.h"
#include "stepscope/figures/launches_fields.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TraceFixture;

TEST(LaunchClass, ClassesByCallName) {
  EXPECT_EQ(classify_launch("cudaLaunchKernel"), LaunchClass::kKernelLaunch);
  EXPECT_EQ(classify_launch("cudaLaunchKernelExC_v11060"), LaunchClass::kKernelLaunch);
  EXPECT_EQ(classify_launch("cuLaunchKernel"), LaunchClass::kKernelLaunch);
  EXPECT_EQ(classify_launch("hipExtModuleLaunchKernel"), LaunchClass::kKernelLaunch);
  EXPECT_EQ(classify_launch("runFunction - job_prep_and_submit_for_execution"),
            LaunchClass::kKernelLaunch);
  EXPECT_EQ(classify_launch("cudaGraphLaunch_v10000"), LaunchClass::kGraphLaunch);
  EXPECT_EQ(classify_launch("hipGraphLaunch"), LaunchClass::kGraphLaunch);
  EXPECT_EQ(classify_launch("cudaMemcpyAsync"), LaunchClass::kAsyncMemory);
  EXPECT_EQ(classify_launch("cuMemcpyHtoDAsync_v2"), LaunchClass::kAsyncMemory);
  EXPECT_EQ(classify_launch("hipMemsetAsync"), LaunchClass::kAsyncMemory);
  EXPECT_EQ(classify_launch("hipMemcpyWithStream"), LaunchClass::kSyncMemory);
  EXPECT_EQ(classify_launch("cudaMemcpy"), LaunchClass::kSyncMemory);
  EXPECT_FALSE(classify_launch("cudaStreamSynchronize").has_value());
  EXPECT_FALSE(classify_launch("cudaLaunchKernelFoo").has_value());
  EXPECT_FALSE(classify_launch("aten::copy_").has_value());  // an op, not an API call
  EXPECT_EQ(to_string(LaunchClass::kSyncMemory), "sync_memory");
}

// One step over 0-1000 µs with every launch class; see each call's comment.
Trace mixed_launches() {
  return TraceFixture()
      .step(1, 0, 1000)
      .runtime("cudaLaunchKernel", 10, 4, 1)  // delay 6, gpu 10 >= cpu 4
      .kernel("a", 20, 10, 1)
      .runtime("cudaLaunchKernel", 30, 60, 2)  // cpu 60 > 50 µs, delay 5
      .kernel("b", 95, 2, 2)
      .driver("cuLaunchKernel", 100, 10, 3)  // Triton: delay 140 > 100 µs, short
      .kernel("triton_c", 250, 3, 3)
      .runtime("cudaLaunchKernel", 300, 8, 4)  // starts 3 µs before the call returns, short
      .kernel("d", 305, 1, 4)
      .runtime("cudaMemcpyAsync", 400, 3, 5)
      .memcpy("Memcpy HtoD (Pageable -> Device)", 410, 20, 5)
      .runtime("cudaMemcpy", 500, 30, 6)  // blocks: the copy starts inside the call
      .memcpy("Memcpy DtoH (Device -> Pageable)", 510, 10, 6)
      .runtime("cudaGraphLaunch", 600, 20, 7)  // one call, two activities: two pairs
      .kernel("g1", 630, 5, 7)
      .kernel("g2", 640, 5, 7)
      .runtime("cudaLaunchKernel", 1500, 5, 8)  // after the window
      .kernel("late", 1510, 5, 8)
      .load();
}

TEST(Launches, PerClassFiguresAreExact) {
  const Trace trace = mixed_launches();
  const LaunchesResult r = compute_launches(trace, find_steps(trace, {}), {});
  ASSERT_TRUE(r.applicable);
  const LaunchClassStats& k = r.of(LaunchClass::kKernelLaunch);
  EXPECT_EQ(k.count, 4);
  // Delays -3, 5, 6, 140 µs: p50 between 5 and 6; p95 at h = 2.85.
  EXPECT_DOUBLE_EQ(k.launch_delay_ns.p50, 5'500);
  EXPECT_NEAR(k.launch_delay_ns.p95, 6'000 + 0.85 * 134'000, 1e-6);
  EXPECT_DOUBLE_EQ(k.launch_delay_ns.max, 140'000);
  EXPECT_DOUBLE_EQ(k.cpu_duration_ns.p50, 9'000);  // cpu 4, 8, 10, 60
  EXPECT_DOUBLE_EQ(k.cpu_duration_ns.max, 60'000);
  EXPECT_EQ(k.signed_delay_negative_count, 1);
  EXPECT_EQ(k.cpu_duration_over_50us_count, 1);
  EXPECT_EQ(k.launch_delay_over_100us_count, 1);
  EXPECT_EQ(k.short_kernel_count, 2);
  EXPECT_EQ(k.launch_delay_total_ns, 148'000);
  EXPECT_EQ(k.gpu_duration_total_ns, 16'000);
  EXPECT_EQ(r.of(LaunchClass::kAsyncMemory).count, 1);
  EXPECT_DOUBLE_EQ(r.of(LaunchClass::kAsyncMemory).launch_delay_ns.max, 7'000);
  const LaunchClassStats& sync = r.of(LaunchClass::kSyncMemory);
  EXPECT_EQ(sync.count, 1);
  EXPECT_EQ(sync.signed_delay_negative_count, 1);
  EXPECT_DOUBLE_EQ(sync.launch_delay_ns.max, -20'000);
  EXPECT_EQ(r.of(LaunchClass::kGraphLaunch).count, 2);
  EXPECT_EQ(r.outside_window_pairs, 1);
}

TEST(Launches, NotApplicableWithoutGpuActivity) {
  const Trace trace = TraceFixture().op("aten::add", 0, 10).load();
  const LaunchesResult r = compute_launches(trace, find_steps(trace, {}), {});
  EXPECT_FALSE(r.applicable);
  EXPECT_EQ(r.not_applicable_reason, "no GPU activity");
}

TEST(Launches, RenderedWithUnitsAndWithoutSums) {
  const Trace trace = mixed_launches();
  const LaunchesResult r = compute_launches(trace, find_steps(trace, {}), {});
  render::JsonWriter json;
  render::write_json(json, r);
  const std::string& text = json.text();
  EXPECT_NE(text.find(R"("launch_delay_p50_us":5.5)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("signed_delay_negative_count":1)"), std::string::npos);
  EXPECT_EQ(text.find("total"),
            std::string::npos);  // docs/metrics/07-hta-cuda-kernel-launch-statistics.md
                                 // §7: sums only in compat-hta
  const std::string rendered = render::render_text(r, 5);
  EXPECT_NE(rendered.find("kernel_launch"), std::string::npos);
  EXPECT_NE(rendered.find("5.5 µs"), std::string::npos) << rendered;
  EXPECT_NE(rendered.find("graph_launch"), std::string::npos);
  EXPECT_EQ(rendered.find("148.0 µs"), std::string::npos);  // the delay sum is not shown
}

}  // namespace
}  // namespace stepscope
