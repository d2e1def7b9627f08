// The monitor's distributions and verdict on synthetic timelines: the verdict is a pure function
// of the samples, so each branch of phase two is pinned here.
#include <gtest/gtest.h>

#include "stepscope/live/monitor.h"

namespace stepscope::live {
namespace {

constexpr std::int64_t kInterval = 100'000'000;

struct Shape {
  double main_cpu = 0;
  int workers = 0;
  double worker_cpu = 0;
  double machine = 0.3;
  std::optional<double> gpu_util = std::nullopt;  // absent: no GPU
  double gpu_memory_share = 0.5;
};

Timeline timeline_of(const Shape& shape, int samples = 50) {
  Timeline t;
  t.root_pid = 100;
  t.cpu_count = 8;
  t.requested_interval_ns = kInterval;
  t.duration_ns = samples * kInterval;
  t.monitor_cpu_seconds = 0.01;
  if (shape.gpu_util) {
    t.gpus.push_back(GpuInfo{0, "Test GPU", "GPU-0"});
  } else {
    t.gpu_status = "NVML (libnvidia-ml.so.1) is not installed: no NVIDIA driver here";
  }
  for (int i = 0; i < samples; ++i) {
    Sample s;
    s.time_ns = (i + 1) * kInterval;
    s.interval_ns = kInterval;
    s.machine_cpu_share = shape.machine;
    ProcessSample root;
    root.pid = 100;
    root.is_root = true;
    root.cpu_cores = shape.main_cpu;
    s.processes.push_back(root);
    for (int w = 0; w < shape.workers; ++w) {
      ProcessSample worker;
      worker.pid = 200 + w;
      worker.ppid = 100;
      worker.cpu_cores = shape.worker_cpu;
      s.processes.push_back(worker);
    }
    if (shape.gpu_util) {
      GpuSample g;
      g.index = 0;
      g.utilization_share = *shape.gpu_util;
      g.memory_total_bytes = 80ULL << 30;
      g.memory_used_bytes =
          static_cast<std::uint64_t>(shape.gpu_memory_share * static_cast<double>(80ULL << 30));
      g.processes.push_back(GpuProcess{100, 1ULL << 30, true});
      s.gpus.push_back(g);
    }
    t.samples.push_back(s);
  }
  return t;
}

TEST(LiveSummary, NearestRankPercentiles) {
  std::vector<double> values;
  for (int i = 100; i >= 1; --i) values.push_back(i);
  const Distribution d = distribution_of(values);
  EXPECT_EQ(d.count, 100U);
  EXPECT_DOUBLE_EQ(d.p5, 5);
  EXPECT_DOUBLE_EQ(d.p50, 50);
  EXPECT_DOUBLE_EQ(d.p95, 95);
  EXPECT_DOUBLE_EQ(d.max, 100);
  EXPECT_DOUBLE_EQ(d.mean, 50.5);
  EXPECT_EQ(distribution_of({}).count, 0U);
  EXPECT_DOUBLE_EQ(distribution_of({7}).p5, 7);
}

TEST(LiveSummary, StarvingGpuAndPinnedMainIsHostBound) {
  const MonitorSummary s = summarize(timeline_of({.main_cpu = 1.0, .gpu_util = 0.45}));
  EXPECT_TRUE(s.gpu_available);
  EXPECT_TRUE(s.gpus_used_seen);
  EXPECT_DOUBLE_EQ(s.gpu_utilization_share.p50, 0.45);
  EXPECT_EQ(s.verdict.id, "host-bound");
  EXPECT_EQ(s.verdict.bottleneck, Bottleneck::kHostOverhead);
  ASSERT_FALSE(s.verdict.reasons.empty());
  EXPECT_NE(s.verdict.reasons[0].find("45%"), std::string::npos);
}

TEST(LiveSummary, SaturatedWorkersWithIdleGpuIsInputBound) {
  const MonitorSummary s =
      summarize(timeline_of({.main_cpu = 0.3, .workers = 4, .worker_cpu = 0.97, .gpu_util = 0.20}));
  EXPECT_EQ(s.max_workers, 4);
  EXPECT_NEAR(s.workers_cpu_cores.p50, 3.88, 1e-9);
  EXPECT_NEAR(s.worker_mean_cpu_cores.p50, 0.97, 1e-9);
  EXPECT_EQ(s.verdict.id, "input-bound");
  EXPECT_EQ(s.verdict.bottleneck, Bottleneck::kInputPipeline);
}

TEST(LiveSummary, BusyGpuSaysLookAtKernelsNotGreenLight) {
  const MonitorSummary s = summarize(timeline_of({.main_cpu = 1.0, .gpu_util = 0.96}));
  EXPECT_EQ(s.verdict.id, "device-busy");
  EXPECT_EQ(s.verdict.bottleneck, Bottleneck::kGpuCompute);
  EXPECT_NE(s.verdict.next_step.find("not a green light"), std::string::npos);
}

TEST(LiveSummary, StarvingGpuWithIdleHostIsWaiting) {
  const MonitorSummary s = summarize(timeline_of({.main_cpu = 0.2, .gpu_util = 0.30}));
  EXPECT_EQ(s.verdict.id, "waiting");
  EXPECT_EQ(s.verdict.bottleneck, Bottleneck::kUndetermined);
}

TEST(LiveSummary, FullGpuMemoryIsNoted) {
  const MonitorSummary s =
      summarize(timeline_of({.main_cpu = 0.5, .gpu_util = 0.80, .gpu_memory_share = 0.98}));
  EXPECT_EQ(s.verdict.id, "device-mostly-busy");
  bool noted = false;
  for (const std::string& r : s.verdict.reasons)
    noted |= r.find("nearly full") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(LiveSummary, WithoutGpuTheCpuFiguresGiveTheVerdict) {
  MonitorSummary s = summarize(timeline_of({.main_cpu = 0.99}));
  EXPECT_FALSE(s.gpu_available);
  EXPECT_EQ(s.verdict.id, "host-bound");
  EXPECT_NE(s.verdict.reasons[0].find("no GPU figures"), std::string::npos);
  s = summarize(timeline_of({.main_cpu = 0.1}));
  EXPECT_EQ(s.verdict.id, "undetermined");
  s = summarize(timeline_of({.main_cpu = 0.1, .machine = 0.97}));
  EXPECT_EQ(s.verdict.id, "host-bound");
}

TEST(LiveSummary, NoSamplesIsUndetermined) {
  const MonitorSummary s = summarize(timeline_of({.main_cpu = 1.0}, 0));
  EXPECT_EQ(s.samples, 0);
  EXPECT_EQ(s.verdict.bottleneck, Bottleneck::kUndetermined);
}

TEST(LiveSummary, GpusOfOtherPidNamespacesAreAllAveraged) {
  Timeline t = timeline_of({.main_cpu = 0.5, .gpu_util = 0.50});
  for (Sample& s : t.samples) s.gpus[0].processes[0].in_tree = false;
  const MonitorSummary s = summarize(t);
  EXPECT_FALSE(s.gpus_used_seen);
  EXPECT_EQ(s.gpus_used, std::vector<std::uint32_t>{0});
  EXPECT_DOUBLE_EQ(s.gpu_utilization_share.p50, 0.50);
}

TEST(LiveSummary, OwnCostIsAShareOfOneCore) {
  const MonitorSummary s = summarize(timeline_of({.main_cpu = 1.0}));  // 0.01 s over 5 s
  EXPECT_NEAR(s.monitor_cpu_share_of_core, 0.002, 1e-9);
}

TEST(LiveSummary, StartUpBeforeTheFirstGpuActivityIsLeftOut) {
  Timeline t = timeline_of({.main_cpu = 0.2, .gpu_util = 0.90}, 50);
  for (int i = 0; i < 20; ++i) {  // 2 s of `import torch`: one busy core, an idle GPU
    t.samples[i].gpus[0].utilization_share = 0.0;
    t.samples[i].processes[0].cpu_cores = 1.0;
  }
  const MonitorSummary s = summarize(t);
  EXPECT_DOUBLE_EQ(s.startup_s, 2.0);
  EXPECT_EQ(s.samples, 30);
  EXPECT_DOUBLE_EQ(s.gpu_utilization_share.p5, 0.90);
  EXPECT_DOUBLE_EQ(s.main_cpu_cores.p95, 0.2);
  EXPECT_DOUBLE_EQ(s.duration_s, 5.0);  // the whole run
  EXPECT_NE(render_summary_text(s).find("start-up (2.0 s) left out"), std::string::npos);
}

TEST(LiveSummary, WithoutGpuActivityTheWholeRunCounts) {
  const MonitorSummary s = summarize(timeline_of({.main_cpu = 1.0, .gpu_util = 0.0}));
  EXPECT_DOUBLE_EQ(s.startup_s, 0.0);
  EXPECT_EQ(s.samples, 50);
}

TEST(LiveSummary, WorkerRowsReadAlike) {
  Timeline t = timeline_of({.main_cpu = 1.0, .workers = 2, .worker_cpu = 0.9}, 40);
  for (int i = 0; i < 30; ++i) t.samples[i].processes.resize(1);  // workers start late
  const MonitorSummary s = summarize(t);
  EXPECT_DOUBLE_EQ(s.worker_mean_cpu_cores.p50, 0.9);
  EXPECT_DOUBLE_EQ(s.workers_cpu_cores.p50, 1.8);  // not 0 from the samples without workers
}

TEST(LiveRender, OverheadOnlyOverRunsLongEnoughToMeasureIt) {
  const std::string long_run = render_summary_text(summarize(timeline_of({.main_cpu = 1.0}, 60)));
  EXPECT_NE(long_run.find("monitor overhead:"), std::string::npos);
  const std::string short_run = render_summary_text(summarize(timeline_of({.main_cpu = 1.0}, 8)));
  EXPECT_EQ(short_run.find("monitor overhead:"), std::string::npos);
}

TEST(LiveRender, JsonAndCsvCarryTheSamples) {
  const Timeline t =
      timeline_of({.main_cpu = 1.0, .workers = 2, .worker_cpu = 0.5, .gpu_util = 0.60});
  const MonitorSummary s = summarize(t);
  const std::string json = render_timeline_json(t, s);
  EXPECT_NE(json.find("\"schema\":\"stepscope.monitor\""), std::string::npos);
  EXPECT_NE(json.find("\"bottleneck\":\"host_launch_overhead\""), std::string::npos);
  EXPECT_NE(json.find("\"time_us\":100000"), std::string::npos);
  const std::string csv = render_timeline_csv(t);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 51);
  EXPECT_NE(csv.find("gpu0_utilization_share"), std::string::npos);
  EXPECT_NE(render_summary_text(s).find("verdict: host-bound"), std::string::npos);
}

}  // namespace
}  // namespace stepscope::live
