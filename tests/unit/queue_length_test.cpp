// Native launch-queue length (docs/metrics/08-hta-queue-length-summary.md §8) on fixtures with
// exact expectations.
#include <gtest/gtest.h>

#include "render/json/json_sink.h"
#include "render/terminal/queue_length_text.h"
#include "stepscope/analysis/queue_length.h"
#include "stepscope/figures/queue_length_fields.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TraceFixture;

// The analysis reads only the window; a hand-made one keeps each test about the queue.
StepsResult window(std::int64_t start_us, std::int64_t end_us) {
  StepsResult steps;
  steps.window = Interval{start_us * 1000, end_us * 1000};
  return steps;
}

const StreamQueueLength* stream(const QueueLengthResult& r, std::int64_t id) {
  for (const StreamQueueLength& q : r.streams) {
    if (q.stream == id) return &q;
  }
  return nullptr;
}

TEST(QueueLength, DepthIntegratedOverTheStepWindow) {
  // Window 0-100 µs. Three kernels launched at 1, 2, 3 (1 µs calls) start at 10, 20, 30.
  TraceFixture fixture;
  fixture.step(1, 0, 100);
  for (int k = 0; k < 3; ++k) {
    fixture.runtime("cudaLaunchKernel", 1 + k, 1, 10 + k);
    fixture.kernel("k", 10 + 10 * k, 5, 10 + k);
  }
  const Trace trace = fixture.load();
  const QueueLengthResult r = compute_queue_length(trace, find_steps(trace, {}), {});
  ASSERT_TRUE(r.applicable);
  ASSERT_EQ(r.streams.size(), 1U);
  const StreamQueueLength& q = r.streams[0];
  EXPECT_EQ(q.device, 0);
  EXPECT_EQ(q.stream, 7);
  EXPECT_EQ(q.launches, 3);
  EXPECT_EQ(q.samples, 6);
  EXPECT_EQ(q.max_depth, 3);
  // Depth 1 on 1-2, 2 on 2-3, 3 on 3-10, 2 on 10-20, 1 on 20-30: 54 µs·launch over 100 µs.
  EXPECT_NEAR(q.time_weighted_mean_depth, 0.54, 1e-12);
  EXPECT_EQ(q.time_at_limit_ns, 0);
}

TEST(QueueLength, CarryInTiesStreamsAndClockSkew) {
  const Trace trace = TraceFixture()
                          // stream 7: two launched before the window, one at 150 tied with a
                          // start at 150 (decrements first: no spike to 3)
                          .runtime("cudaLaunchKernel", 10, 2, 1)
                          .kernel("a", 150, 5, 1)
                          .runtime("cudaLaunchKernel", 20, 2, 2)
                          .kernel("b", 160, 5, 2)
                          .runtime("cudaLaunchKernel", 150, 2, 3)
                          .kernel("c", 180, 5, 3)
                          // stream 9: a blocking copy counts too
                          .runtime("cudaMemcpy", 120, 10, 4)
                          .memcpy("Memcpy DtoH (Device -> Pageable)", 125, 3, 4, 9)
                          // stream 11: the kernel's clock runs ahead of its launch call
                          .runtime("cudaLaunchKernel", 140, 2, 5)
                          .kernel("skewed", 138, 1, 5, 11)
                          // stream 13: nothing inside the window
                          .runtime("cudaLaunchKernel", 300, 2, 6)
                          .kernel("late", 310, 1, 6, 13)
                          .load();
  const QueueLengthResult r = compute_queue_length(trace, window(100, 200), {});
  ASSERT_EQ(r.streams.size(), 3U);
  const StreamQueueLength* s7 = stream(r, 7);
  ASSERT_NE(s7, nullptr);
  EXPECT_EQ(s7->depth_at_window_start, 2);
  EXPECT_EQ(s7->max_depth, 2);
  EXPECT_EQ(s7->launches, 1);
  EXPECT_EQ(s7->samples, 4);
  EXPECT_NEAR(s7->time_weighted_mean_depth, (2 * 50 + 2 * 10 + 1 * 20) / 100.0, 1e-12);
  const StreamQueueLength* s9 = stream(r, 9);
  ASSERT_NE(s9, nullptr);
  EXPECT_EQ(s9->max_depth, 1);
  EXPECT_NEAR(s9->time_weighted_mean_depth, 0.05, 1e-12);
  const StreamQueueLength* s11 = stream(r, 11);
  ASSERT_NE(s11, nullptr);
  EXPECT_EQ(s11->min_depth, -1);
  EXPECT_EQ(s11->max_depth, 0);
  EXPECT_EQ(stream(r, 13), nullptr);
}

TEST(QueueLength, TimeAtTheLaunchQueueLimit) {
  // 1,030 launches 10 ns apart from 0; their kernels start 10 ns apart from 50 µs. The depth
  // reaches 1,024 at 10.23 µs and drops below it at the 7th start, 50.06 µs.
  TraceFixture fixture;
  for (int k = 0; k < 1030; ++k) {
    fixture.runtime("cudaLaunchKernel", 0.01 * k, 0.005, 100 + k);
    fixture.kernel("k", 50 + 0.01 * k, 0.005, 100 + k);
  }
  const Trace trace = fixture.load();
  const QueueLengthResult r = compute_queue_length(trace, window(0, 100), {});
  ASSERT_EQ(r.streams.size(), 1U);
  EXPECT_EQ(r.streams[0].max_depth, 1030);
  EXPECT_EQ(r.streams[0].time_at_limit_ns, 50'060 - 10'230);
  EXPECT_NEAR(r.streams[0].time_at_limit_share, 39'830 / 100'000.0, 1e-12);
}

TEST(QueueLength, AGraphLaunchIsOneEntryPerStream) {
  // One cudaGraphLaunch at 10 µs runs three nodes on stream 7 (from 20 µs) and one on stream 9
  // (at 40 µs): one entry on each stream, not one per node.
  const Trace trace = TraceFixture()
                          .runtime("cudaGraphLaunch", 10, 5, 1)
                          .kernel("n1", 20, 5, 1)
                          .kernel("n2", 25, 5, 1)
                          .kernel("n3", 30, 5, 1)
                          .kernel("n4", 40, 5, 1, 9)
                          .load();
  const QueueLengthResult r = compute_queue_length(trace, window(0, 100), {});
  ASSERT_EQ(r.streams.size(), 2U);
  EXPECT_EQ(stream(r, 7)->launches, 1);
  EXPECT_EQ(stream(r, 7)->max_depth, 1);
  EXPECT_NEAR(stream(r, 7)->time_weighted_mean_depth, 0.10, 1e-12);  // 10-20 µs
  EXPECT_EQ(stream(r, 9)->launches, 1);
  EXPECT_NEAR(stream(r, 9)->time_weighted_mean_depth, 0.30, 1e-12);  // 10-40 µs
}

TEST(QueueLength, RenderedWithUnits) {
  const Trace trace =
      TraceFixture().runtime("cudaLaunchKernel", 10, 2, 1).kernel("a", 50, 50, 1).load();
  const QueueLengthResult r = compute_queue_length(trace, window(0, 100), {});
  render::JsonWriter json;
  render::write_json(json, r);
  EXPECT_NE(json.text().find(R"("time_weighted_mean_depth":0.4)"), std::string::npos)
      << json.text();
  EXPECT_NE(json.text().find(R"("queue_limit":1024)"), std::string::npos);
  const std::string rendered = render::render_text(r, 5);
  EXPECT_NE(rendered.find("0.4 launches"), std::string::npos) << rendered;
  EXPECT_NE(rendered.find("GPU 0"), std::string::npos);
  const QueueLengthResult none = compute_queue_length(trace, StepsResult{}, {});
  EXPECT_NE(render::render_text(none, 5).find("not applicable: no GPU activity"),
            std::string::npos);
}

}  // namespace
}  // namespace stepscope
