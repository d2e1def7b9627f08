#include <gtest/gtest.h>

#include "render/terminal/diagnosis_text.h"
#include "stepscope/diagnosis/diagnose.h"
#include "support/findings.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TraceFixture;

const Finding* find(const Diagnosis& diagnosis, const std::string& id) {
  return testing::find_finding(diagnosis, id);
}

constexpr std::int64_t kMiB = 1 << 20;

// Four steps of 1000 µs; each allocates 64 MiB of activations and frees them, and keeps
// `leak` bytes it never frees (allocated inside `aten::to`).
Trace steps_with_memory(std::int64_t leak) {
  TraceFixture fixture;
  fixture.top_level(
      "deviceProperties",
      R"([{"id":0,"name":"GPU","computeMajor":9,"computeMinor":0,"totalGlobalMem":1073741824}])");
  std::int64_t allocated = 100 * kMiB;
  for (int s = 0; s < 4; ++s) {
    const double t0 = s * 1000.0;
    fixture.step(s, t0, 1000);
    fixture.launched_kernel("k", t0 + 1, t0 + 10, 900);
    allocated += 64 * kMiB;
    fixture.memory(t0 + 100, 0x1000, 64 * kMiB, allocated, 512 * kMiB);
    if (leak > 0) {
      fixture.op("aten::to", t0 + 150, 20);
      allocated += leak;
      fixture.memory(t0 + 160, 0x100000 + s * 0x1000, leak, allocated, 512 * kMiB);
    }
    allocated -= 64 * kMiB;
    fixture.memory(t0 + 900, 0x1000, -64 * kMiB, allocated, 512 * kMiB);
  }
  return fixture.load();
}

TEST(RuleMemoryGrowth, MemoryKeptAcrossStepsIsFoundWithTheAllocatingOp) {
  const Diagnosis diagnosis = testing::diagnose_trace(steps_with_memory(8 * kMiB));
  const Finding* finding = find(diagnosis, "memory-growth");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::kHigh);
  EXPECT_DOUBLE_EQ(finding->evidence[2].value, 8.0);  // MiB per step
  ASSERT_FALSE(finding->evidence[2].events.empty());
  EXPECT_EQ(finding->evidence[2].events[0].name, "aten::to");
  EXPECT_EQ(finding->evidence[2].events[0].count, 4);
  ASSERT_EQ(finding->evidence.size(), 4U);  // with the steps left until the device is full
  EXPECT_GT(finding->evidence[3].value, 0.0);
  EXPECT_NE(finding->fix.find("_record_memory_history"), std::string::npos);  // GPU memory
}

// A finding that saves no step time says so in words, never "expected gain: 0.0 µs".
TEST(RuleMemoryGrowth, TheTerminalReportSaysNoTimeIsSaved) {
  const Diagnosis diagnosis = testing::diagnose_trace(steps_with_memory(8 * kMiB));
  const std::string text = render::render_text(diagnosis, 10);
  EXPECT_NE(text.find("expected gain: no time saved; avoids running out of memory"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("expected gain: 0"), std::string::npos) << text;
}

TEST(RuleMemoryGrowth, StableMemoryIsFine) {
  const Diagnosis diagnosis = testing::diagnose_trace(steps_with_memory(0));
  EXPECT_EQ(find(diagnosis, "memory-growth"), nullptr);
}

TEST(RuleAllocatorChurn, CudaMallocInSteadyStepsIsFound) {
  TraceFixture fixture;
  for (int s = 0; s < 4; ++s) {
    const double t0 = s * 1000.0;
    fixture.step(s, t0, 1000);
    fixture.runtime("cudaMalloc", t0 + 2, 60, 9000 + s);
    fixture.launched_kernel("k", t0 + 70, t0 + 80, 900);
  }
  const Diagnosis diagnosis = testing::diagnose_trace(fixture.load());
  const Finding* finding = find(diagnosis, "allocator-churn");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->gain.bound_ns, 60'000);
}

}  // namespace
}  // namespace stepscope

namespace stepscope {
namespace {

TEST(RuleReservedUnused, FragmentedAllocatorIsFound) {
  testing::TraceFixture fixture;
  constexpr std::int64_t kGiB = std::int64_t{1} << 30;
  for (int s = 0; s < 3; ++s) {
    const double t0 = s * 1000.0;
    fixture.step(s, t0, 1000);
    fixture.launched_kernel("k", t0 + 1, t0 + 10, 900);
    fixture.memory(t0 + 100, 0x1000, kGiB, kGiB, 6 * kGiB);
    fixture.memory(t0 + 900, 0x1000, -kGiB, 0, 6 * kGiB);
  }
  const Diagnosis diagnosis = testing::diagnose_trace(fixture.load());
  const Finding* finding = nullptr;
  for (const Finding& f : diagnosis.findings) {
    if (f.id == "reserved-unused") finding = &f;
  }
  ASSERT_NE(finding, nullptr);
  EXPECT_DOUBLE_EQ(finding->evidence[1].value, 6.0);
  // The same peak with a tight reservation is fine.
  testing::TraceFixture tight;
  for (int s = 0; s < 3; ++s) {
    tight.step(s, s * 1000.0, 1000);
    tight.launched_kernel("k", s * 1000.0 + 1, s * 1000.0 + 10, 900);
    tight.memory(s * 1000.0 + 100, 0x1000, kGiB, kGiB, kGiB + (kGiB >> 2));
  }
  for (const Finding& f : testing::diagnose_trace(tight.load()).findings) {
    EXPECT_NE(f.id, "reserved-unused");
  }
}

}  // namespace
}  // namespace stepscope

namespace stepscope {
namespace {

// The same leak in host memory (a CPU-only run): CPU records have Device Type 0, Device Id -1.
TEST(RuleMemoryGrowth, HostMemoryGrowthIsFoundToo) {
  testing::TraceFixture fixture;
  std::int64_t allocated = 0;
  for (int s = 0; s < 4; ++s) {
    const double t0 = s * 1000.0;
    fixture.step(s, t0, 1000);
    fixture.op("aten::mul", t0 + 150, 20);
    allocated += 4 << 20;
    fixture.memory(t0 + 160, 0x100000 + s * 0x1000, 4 << 20, allocated, 0, 0, -1);
  }
  const Diagnosis diagnosis = testing::diagnose_trace(fixture.load());
  const Finding* finding = testing::find_finding(diagnosis, "memory-growth");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->title, "CPU memory grows 4.0 MiB every step");
  EXPECT_EQ(finding->evidence[2].events.at(0).name, "aten::mul");
  // No CUDA-only tool is recommended for host memory.
  EXPECT_EQ(finding->fix.find("torch.cuda"), std::string::npos) << finding->fix;
  EXPECT_EQ(finding->fix.find("expandable_segments"), std::string::npos) << finding->fix;
  EXPECT_NE(finding->fix.find("with_stack=True"), std::string::npos) << finding->fix;
  EXPECT_EQ(testing::find_finding(diagnosis, "reserved-unused"), nullptr);
  // A run heading for out-of-memory: that is the verdict, whatever else the trace shows.
  EXPECT_EQ(diagnosis.bottleneck, Bottleneck::kMemoryCapacity);
  EXPECT_EQ(diagnosis.findings.front().id, "memory-growth");
  EXPECT_NE(diagnosis.summary.find("out-of-memory"), std::string::npos);
}

}  // namespace
}  // namespace stepscope
