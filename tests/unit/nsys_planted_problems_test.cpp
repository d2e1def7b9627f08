// Planted problems, each written once as a PyTorch profiler trace and once as an Nsight Systems
// export: the export gets the same verdict, and the same figures within 1 %.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "importers/nsys/nsys_reader.h"
#include "stepscope/diagnosis/diagnose.h"
#include "support/findings.h"
#include "support/nsys_fixture.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::NsysFixture;
using testing::TempFolder;
using testing::TraceFixture;

// One loop, written in both formats. Host events on thread 1 of process 100, kernels on
// device 0; the Nsight side names calls as Nsight does (`cudaLaunchKernel_v7000`).
class BothFormats {
 public:
  void step(int number, double ts, double dur) {
    kineto_.step(number, ts, dur);
    nsys_.range("ProfilerStep#" + std::to_string(number), ts, dur);
  }
  // A host range: a user_annotation in both.
  void annotation(const std::string& name, double ts, double dur) {
    kineto_.annotation(name, ts, dur);
    nsys_.range(name, ts, dur);
  }
  void launched_kernel(const std::string& name, double call_ts, double ts, double dur,
                       int stream = 7) {
    kineto_.launched_kernel(name, call_ts, ts, dur, 1, stream);
    nsys_.launched_kernel(name, call_ts, ts, dur, 1, stream);
  }
  void call(const std::string& name, const std::string& nsys_name, double ts, double dur) {
    kineto_.runtime(name, ts, dur, correlation_);
    nsys_.runtime(nsys_name, ts, dur, correlation_);
    ++correlation_;
  }
  void kernel(const std::string& name, double ts, double dur, std::int64_t correlation,
              int stream) {
    kineto_.kernel(name, ts, dur, correlation, stream);
    nsys_.kernel(name, ts, dur, correlation, stream);
  }
  void gpu(int compute_major) {
    kineto_.top_level("deviceProperties",
                      R"([{"id":0,"name":"Test GPU","computeMajor":)" +
                          std::to_string(compute_major) +
                          R"(,"computeMinor":0,"numSms":100,"totalGlobalMem":85899345920}])");
    nsys_.gpu(0, "Test GPU", 100, compute_major, 0, 85'899'345'920);
  }
  TraceFixture& kineto() { return kineto_; }
  NsysFixture& nsys() { return nsys_; }

  [[nodiscard]] Trace kineto_trace() const { return kineto_.load(); }
  [[nodiscard]] Trace nsys_trace() const {
    TempFolder folder;
    const std::string file = folder.file("report.sqlite");
    nsys_.write(file);
    Result<Trace> trace = nsys::read_sqlite(file, {}, nullptr);
    EXPECT_TRUE(trace.ok()) << (trace.ok() ? "" : trace.error().describe());
    return trace.ok() ? std::move(trace).value() : Trace{};
  }

 private:
  TraceFixture kineto_;
  NsysFixture nsys_;
  std::int64_t correlation_ = 7'000'000;
};

std::string top_finding(const Diagnosis& diagnosis) {
  return diagnosis.findings.empty() ? "(none)" : diagnosis.findings.front().id;
}

void expect_within_one_percent(double kineto, double nsys, const char* what) {
  EXPECT_NEAR(nsys, kineto, std::abs(kineto) * 0.01 + 1e-9) << what;
}

// Both traces diagnosed: the same top finding (`expected`) and the same figures.
void expect_same_verdict(const BothFormats& loop, const std::string& expected) {
  const Trace kineto = loop.kineto_trace();
  const Trace nsys = loop.nsys_trace();
  const RankAnalyses a = analyze_rank(kineto, {});
  const RankAnalyses b = analyze_rank(nsys, {});
  const Diagnosis da = diagnose(a);
  const Diagnosis db = diagnose(b);
  EXPECT_EQ(top_finding(da), expected);
  EXPECT_EQ(top_finding(db), expected);
  EXPECT_EQ(da.bottleneck, db.bottleneck);
  ASSERT_EQ(a.steps.kept().size(), b.steps.kept().size());
  expect_within_one_percent(a.step_time.duration_ns.mean, b.step_time.duration_ns.mean,
                            "mean step time");
  ASSERT_EQ(a.gpu_temporal.devices.size(), b.gpu_temporal.devices.size());
  for (std::size_t d = 0; d < a.gpu_temporal.devices.size(); ++d) {
    const DeviceTemporal& x = a.gpu_temporal.devices[d];
    const DeviceTemporal& y = b.gpu_temporal.devices[d];
    expect_within_one_percent(x.share(x.busy_ns), y.share(y.busy_ns), "GPU busy share");
  }
  ASSERT_EQ(a.kernels.devices.size(), b.kernels.devices.size());
  for (std::size_t d = 0; d < a.kernels.devices.size(); ++d) {
    expect_within_one_percent(static_cast<double>(a.kernels.devices[d].activity_ns),
                              static_cast<double>(b.kernels.devices[d].activity_ns),
                              "kernel total");
  }
  if (!da.findings.empty() && !db.findings.empty()) {
    expect_within_one_percent(static_cast<double>(da.findings.front().gain.bound_ns),
                              static_cast<double>(db.findings.front().gain.bound_ns),
                              "top finding's bound");
  }
}

TEST(NsysPlantedProblems, InputBound) {
  // The host waits 600 µs of each 1000 µs step for its data; the GPU idles meanwhile. The
  // export names the wait with a plain NVTX range, which the reader takes as a DataLoader wait.
  BothFormats loop;
  for (int s = 0; s < 4; ++s) {
    const double t0 = s * 1000.0;
    loop.step(10 + s, t0, 1000);
    loop.kineto().annotation("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", t0,
                             600);
    loop.nsys().range("data_loading", t0, 600);
    loop.launched_kernel("ampere_sgemm_128x64_tn", t0 + 601, t0 + 610, 380);
  }
  expect_same_verdict(loop, "input-bound");
}

TEST(NsysPlantedProblems, LaunchBound) {
  // 50 tiny kernels per step, each launched 19 µs apart and running 4 µs.
  BothFormats loop;
  for (int s = 0; s < 3; ++s) {
    const double t0 = s * 1000.0;
    loop.step(s, t0, 1000);
    for (int k = 0; k < 50; ++k) {
      const double call = t0 + 2 + k * 19.0;
      loop.launched_kernel("vectorized_elementwise_kernel", call, call + 6, 4);
    }
  }
  expect_same_verdict(loop, "launch-bound");
}

TEST(NsysPlantedProblems, SyncBound) {
  // A forward kernel, then the host blocks in cudaStreamSynchronize and needs 200 µs more
  // before it launches the backward kernel.
  BothFormats loop;
  for (int s = 0; s < 3; ++s) {
    const double t0 = s * 1000.0;
    loop.step(s, t0, 1000);
    loop.launched_kernel("forward_kernel", t0 + 1, t0 + 5, 395);
    loop.call("cudaStreamSynchronize", "cudaStreamSynchronize_v3020", t0 + 306, 100);
    loop.launched_kernel("backward_kernel", t0 + 600, t0 + 610, 370);
  }
  expect_same_verdict(loop, "host-device-sync");
}

TEST(NsysPlantedProblems, Fp32Gemms) {
  BothFormats loop;
  loop.gpu(8);
  for (int s = 0; s < 3; ++s) {
    const double t0 = s * 1000.0;
    loop.step(s, t0, 1000);
    loop.launched_kernel("ampere_sgemm_128x64_tn", t0 + 1, t0 + 10, 600);
    loop.launched_kernel("vectorized_elementwise_kernel", t0 + 7, t0 + 610, 300);
  }
  expect_same_verdict(loop, "tensor-cores-idle");
}

TEST(NsysPlantedProblems, ExposedNccl) {
  // An all-reduce after the compute on its own stream, overlapping nothing.
  BothFormats loop;
  for (int s = 0; s < 3; ++s) {
    const double t0 = s * 1000.0;
    loop.step(s, t0, 1000);
    loop.launched_kernel("gemm", t0 + 1, t0 + 10, 590);
    loop.call("cudaLaunchKernel", "cudaLaunchKernel_v7000", t0 + 5, 2);
    loop.kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", t0 + 600, 300, 7'000'000 + s, 20);
  }
  expect_same_verdict(loop, "exposed-communication");
}

}  // namespace
}  // namespace stepscope
