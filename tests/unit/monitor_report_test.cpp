// `stepscope report timeline.json`: a synthetic timeline written by render_timeline_json, read
// back into series, drawn as HTML; and bad documents rejected with the file named.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>

#include "stepscope/live/monitor.h"
#include "stepscope/live/timeline_document.h"

namespace stepscope::live {
namespace {

constexpr std::int64_t kInterval = 100'000'000;

Timeline synthetic_timeline(int samples, bool with_gpu, const std::string& root_name = "python3") {
  Timeline t;
  t.root_pid = 100;
  t.command = {"python3", "train.py"};
  t.cpu_count = 8;
  t.requested_interval_ns = kInterval;
  t.duration_ns = samples * kInterval;
  t.samples_taken = samples;
  if (with_gpu) {
    t.gpus.push_back(GpuInfo{0, "Test GPU", "GPU-0"});
  } else {
    t.gpu_status = "NVML is not installed";
  }
  for (int i = 0; i < samples; ++i) {
    Sample s;
    s.time_ns = (i + 1) * kInterval;
    s.interval_ns = kInterval;
    s.machine_cpu_share = 0.25;
    ProcessSample root;
    root.pid = 100;
    root.name = root_name;
    root.is_root = true;
    root.cpu_cores = 1.0 + 0.01 * i;
    root.rss_bytes = 512ULL << 20;
    s.processes.push_back(root);
    for (int w = 0; w < 2; ++w) {
      ProcessSample worker;
      worker.pid = 200 + w;
      worker.ppid = 100;
      worker.name = "pt_data_worker";
      worker.cpu_cores = 0.5;
      worker.rss_bytes = 256ULL << 20;
      s.processes.push_back(worker);
    }
    if (with_gpu) {
      GpuSample g;
      g.index = 0;
      g.utilization_share = 0.8;
      g.memory_utilization_share = 0.3;
      g.memory_total_bytes = 80ULL << 30;
      g.memory_used_bytes = 20ULL << 30;
      s.gpus.push_back(g);
    }
    t.samples.push_back(s);
  }
  return t;
}

std::string document_of(const Timeline& t) { return render_timeline_json(t, summarize(t)); }

TEST(MonitorReport, TimelineRoundTripsIntoSeries) {
  const Timeline t = synthetic_timeline(30, true);
  auto doc = parse_timeline_document(document_of(t), "t.json");
  ASSERT_TRUE(doc.ok()) << doc.error().describe();
  EXPECT_EQ(doc->command, t.command);
  EXPECT_EQ(doc->cpu_count, 8);
  EXPECT_NEAR(doc->duration_s, 3.0, 1e-9);
  EXPECT_NEAR(doc->requested_interval_s, 0.1, 1e-9);
  ASSERT_EQ(doc->time_us.size(), 30U);
  ASSERT_EQ(doc->main_cpu_cores.size(), 30U);
  ASSERT_EQ(doc->workers_cpu_cores.size(), 30U);
  ASSERT_EQ(doc->machine_cpu_share.size(), 30U);
  ASSERT_EQ(doc->tree_rss_bytes.size(), 30U);
  EXPECT_DOUBLE_EQ(doc->time_us[0], 100'000);
  EXPECT_DOUBLE_EQ(doc->time_us[29], 3'000'000);
  EXPECT_NEAR(doc->main_cpu_cores[10], 1.1, 1e-9);
  EXPECT_NEAR(doc->workers_cpu_cores[10], 1.0, 1e-9);
  EXPECT_NEAR(doc->machine_cpu_share[5], 0.25, 1e-9);
  EXPECT_DOUBLE_EQ(doc->tree_rss_bytes[0], static_cast<double>(1ULL << 30));
  ASSERT_EQ(doc->gpu_series.size(), 1U);
  EXPECT_EQ(doc->gpu_series[0].name, "Test GPU");
  ASSERT_EQ(doc->gpu_series[0].utilization_share.size(), 30U);
  EXPECT_NEAR(doc->gpu_series[0].utilization_share[3], 0.8, 1e-9);
  EXPECT_NEAR(doc->gpu_series[0].memory_utilization_share[3], 0.3, 1e-9);
  EXPECT_NEAR(doc->gpu_series[0].memory_used_share[3], 0.25, 1e-9);
  const Distribution* main = doc->distribution("main_cpu_cores");
  ASSERT_NE(main, nullptr);
  EXPECT_EQ(main->count, 30U);
  EXPECT_FALSE(doc->verdict.id.empty());
  EXPECT_FALSE(doc->verdict.headline.empty());
  EXPECT_EQ(doc->processes.size(), 3U);
}

TEST(MonitorReport, HtmlHasVerdictTableAndCharts) {
  const Timeline t = synthetic_timeline(30, true);
  auto doc = parse_timeline_document(document_of(t), "t.json");
  ASSERT_TRUE(doc.ok()) << doc.error().describe();
  const std::string html = render_monitor_html(*doc);
  for (const char* chart : {"monitor-cpu", "monitor-machine-cpu", "monitor-gpu-utilization",
                            "monitor-gpu-memory", "monitor-rss"}) {
    EXPECT_NE(html.find(std::string("data-chart=\"") + chart + "\""), std::string::npos) << chart;
  }
  EXPECT_NE(html.find("id=\"verdict\""), std::string::npos);
  EXPECT_LT(html.find("id=\"verdict\""), html.find("id=\"distributions\""));
  EXPECT_NE(html.find("main process CPU"), std::string::npos);
  EXPECT_NE(html.find("<!DOCTYPE html>"), std::string::npos);
}

TEST(MonitorReport, NoGpuMeansNoGpuCharts) {
  auto doc = parse_timeline_document(document_of(synthetic_timeline(10, false)), "t.json");
  ASSERT_TRUE(doc.ok()) << doc.error().describe();
  EXPECT_TRUE(doc->gpu_series.empty());
  const std::string html = render_monitor_html(*doc);
  EXPECT_NE(html.find("data-chart=\"monitor-cpu\""), std::string::npos);
  EXPECT_EQ(html.find("data-chart=\"monitor-gpu-utilization\""), std::string::npos);
  EXPECT_NE(html.find("NVML is not installed"), std::string::npos);
}

TEST(MonitorReport, ProcessNamesAreEscaped) {
  Timeline t = synthetic_timeline(5, false, "<script>x</script>");
  t.command = {"<b>evil</b>"};
  auto doc = parse_timeline_document(document_of(t), "t.json");
  ASSERT_TRUE(doc.ok()) << doc.error().describe();
  const std::string html = render_monitor_html(*doc);
  EXPECT_EQ(html.find("<script>x"), std::string::npos);
  EXPECT_EQ(html.find("<b>evil"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;x&lt;/script&gt;"), std::string::npos);
}

TEST(MonitorReport, LongSeriesAreDownSampled) {
  auto doc = parse_timeline_document(document_of(synthetic_timeline(5000, true)), "t.json");
  ASSERT_TRUE(doc.ok()) << doc.error().describe();
  ASSERT_EQ(doc->time_us.size(), 5000U);
  const std::string html = render_monitor_html(*doc);
  const std::size_t start = html.find("data-chart=\"monitor-cpu\"");
  ASSERT_NE(start, std::string::npos);
  const std::size_t line = html.find("points=\"", start);
  const std::size_t end = html.find('"', line + 8);
  const std::string points = html.substr(line + 8, end - line - 8);
  const auto count = static_cast<std::size_t>(std::count(points.begin(), points.end(), ' '));
  EXPECT_GT(count, 100U);
  EXPECT_LE(count, 1000U);
}

void expect_error(const std::string& json, const std::string& words, bool with_offset) {
  auto doc = parse_timeline_document(json, "bad.json");
  ASSERT_FALSE(doc.ok());
  const std::string text = doc.error().describe();
  EXPECT_EQ(doc.error().file, "bad.json");
  EXPECT_NE(text.find("bad.json"), std::string::npos) << text;
  EXPECT_NE(text.find(words), std::string::npos) << text;
  if (with_offset) {
    EXPECT_TRUE(doc.error().byte_offset.has_value()) << text;
  }
}

TEST(MonitorReport, BadDocumentsAreErrors) {
  const std::string good = document_of(synthetic_timeline(5, true));
  expect_error(good.substr(0, good.size() / 2), "not a valid timeline document", false);
  expect_error("", "", false);
  expect_error("[1,2]", "not a JSON object", false);
  expect_error(R"({"schema":"other"})", "stepscope.monitor", false);

  // A sample whose time is a string: the error points at the string.
  std::string text_time = good;
  const std::size_t at = text_time.find("\"time_us\":");
  ASSERT_NE(at, std::string::npos);
  const std::size_t value = at + 10;
  const std::size_t comma = text_time.find(',', value);
  text_time.replace(value, comma - value, "\"soon\"");
  auto doc = parse_timeline_document(text_time, "bad.json");
  ASSERT_FALSE(doc.ok());
  EXPECT_NE(doc.error().describe().find("time_us must be a number, not a string"),
            std::string::npos)
      << doc.error().describe();
  ASSERT_TRUE(doc.error().byte_offset.has_value());
  EXPECT_EQ(*doc.error().byte_offset, value);

  // Huge numbers, and a newer schema version.
  std::string huge = good;
  huge.replace(value, comma - value, "1e300");
  expect_error(huge, "out of range", true);
  std::string overflow = good;
  overflow.replace(value, comma - value, "1e999");
  expect_error(overflow, "time_us", true);
  std::string version = good;
  const std::size_t v = version.find("\"schema_version\":1");
  ASSERT_NE(v, std::string::npos);
  version.replace(v, 18, "\"schema_version\":2");
  expect_error(version, "schema_version 2", true);

  // A missing required field.
  std::string no_samples = good;
  const std::size_t s = no_samples.find("\"samples\":[");
  ASSERT_NE(s, std::string::npos);
  no_samples.replace(s, 9, "\"zamples\"");
  expect_error(no_samples, "no \"samples\"", false);
}

TEST(MonitorReport, EveryTruncationIsAnError) {
  const std::string good = document_of(synthetic_timeline(3, true));
  for (std::size_t cut = 0; cut + 1 < good.size(); ++cut) {
    auto doc = parse_timeline_document(std::string_view(good).substr(0, cut), "cut.json");
    EXPECT_FALSE(doc.ok()) << "cut at " << cut;
    if (!doc.ok()) {
      EXPECT_EQ(doc.error().file, "cut.json");
    }
  }
}

TEST(MonitorReport, DetectsTimelineDocumentsByTheirStart) {
  const std::string dir = ::testing::TempDir();
  const std::string timeline = dir + "/monitor_report_timeline.json";
  const std::string trace = dir + "/monitor_report_trace.json";
  std::ofstream(timeline) << document_of(synthetic_timeline(3, false));
  std::ofstream(trace) << R"({"schemaVersion": 1, "traceEvents": []})";
  EXPECT_TRUE(is_timeline_document(timeline));
  EXPECT_FALSE(is_timeline_document(trace));
  EXPECT_FALSE(is_timeline_document(dir + "/does_not_exist.json"));
  auto doc = read_timeline_document(timeline);
  ASSERT_TRUE(doc.ok()) << doc.error().describe();
  EXPECT_EQ(doc->time_us.size(), 3U);
  auto missing = read_timeline_document(dir + "/does_not_exist.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().describe().find("does_not_exist.json"), std::string::npos);
}

}  // namespace
}  // namespace stepscope::live
