// Runs that differ in device, devices per rank, world size, precision or batch shape are not like
// for like: the diff names the differences first and checks no predicted gain against the change;
// a calibration line reads a saving as "faster" and a loss as "slower", never a negative multiple.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "report/report_model.h"
#include "stepscope/diagnosis/diagnose.h"
#include "stepscope/diff.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TraceFixture;

constexpr const char* kLoader = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__";
constexpr const char* kA100 = "NVIDIA A100-SXM4-80GB";
constexpr const char* kV100 = "Tesla V100-SXM2-16GB";

struct Conditions {
  std::string device = kA100;
  std::string dtype = "float";
  std::int64_t batch = 64;
  std::int64_t world_size = kAbsent;  // no distributedInfo
  bool second_device = false;         // the rank also drives device 1
};

ReportPtr report_of(Trace trace, const std::string& path) {
  ReportPtr report(new Report);
  report->request.path = path;
  report->traces.ranks.push_back(std::move(trace));
  for (const Trace& t : report->traces.ranks) {
    RankReport rank{analyze_rank(t, {}), {}};
    rank.diagnosis = diagnose(rank.analyses);
    report->ranks.push_back(std::move(rank));
  }
  return report;
}

// Four steps on one GPU: the DataLoader takes `loader_us`, then an aten::mm
// [batch, 1024] x [1024, 1024] launches a `kernel_us` kernel; the step ends 10 µs after it.
ReportPtr gpu_run(double loader_us, double kernel_us, const Conditions& c,
                  const std::string& path) {
  TraceFixture f;
  f.top_level("deviceProperties",
              fmt::format(R"([{{"id":0,"name":"{0}"}},{{"id":1,"name":"{0}"}}])", c.device));
  if (c.world_size != kAbsent) {
    f.top_level("distributedInfo",
                fmt::format(R"({{"backend":"nccl","rank":0,"world_size":{}}})", c.world_size));
  }
  const std::string inputs =
      fmt::format(R"("Input Dims": [[{}, 1024], [1024, 1024]], "Input type": ["{}", "{}"])",
                  c.batch, c.dtype, c.dtype);
  const double step_us = loader_us + kernel_us + 20;
  for (int s = 0; s < 4; ++s) {
    const double t0 = s * step_us;
    f.step(10 + s, t0, step_us);
    f.op(kLoader, t0, loader_us);
    f.op("aten::mm", t0 + loader_us, 8, 1, -1, inputs);
    f.launched_kernel("gemm_kernel", t0 + loader_us + 1, t0 + loader_us + 10, kernel_us);
    if (c.second_device) f.kernel("copy_kernel", t0 + loader_us + 10, 1, 0, 7, 1);
  }
  return report_of(f.load(), path);
}

std::vector<std::string> condition_names(const DiffResult& result) {
  std::vector<std::string> names;
  for (const ConditionChange& c : result.unlike_conditions) names.push_back(c.condition);
  return names;
}

std::string listed(const DiffResult& result) {
  std::string out;
  for (const ConditionChange& c : result.unlike_conditions) {
    out += c.condition + ": " + c.before + " -> " + c.after + "; ";
  }
  return out;
}

TEST(DiffConditions, AlikeRunsNameNoConditionAndCalibrate) {
  const ReportPtr before = gpu_run(600, 380, {}, "before.json");
  const ReportPtr after = gpu_run(10, 380, {}, "after.json");
  const DiffResult result = diff_reports(*before, *after, {});
  EXPECT_TRUE(result.unlike_conditions.empty()) << listed(result);
  ASSERT_EQ(result.steps.verdict, Verdict::kFaster);
  ASSERT_EQ(result.calibration.size(), 1U);
  ASSERT_TRUE(result.calibration[0].measured_over_predicted.has_value());
  EXPECT_GT(*result.calibration[0].measured_over_predicted, 0);
  const std::string text = render_diff_text(result, TextOptions{10, 400});
  EXPECT_EQ(text.find("Not like for like"), std::string::npos);
  EXPECT_NE(text.find("ms/step faster ("), std::string::npos) << text;
  EXPECT_NE(render_diff_json(result).find(R"("not_like_for_like":[],)"), std::string::npos);
}

// Each condition on its own is named, with both sides' values.
TEST(DiffConditions, EachDifferingConditionIsNamed) {
  struct Case {
    Conditions after;
    std::string condition;
    std::string before_value;
    std::string after_value;
  };
  Conditions v100;
  v100.device = kV100;
  Conditions two_devices;
  two_devices.second_device = true;
  Conditions distributed;
  distributed.world_size = 8;
  Conditions bf16;
  bf16.dtype = "c10::BFloat16";
  Conditions half_batch;
  half_batch.batch = 32;
  const Case cases[] = {
      {v100, "device", kA100, kV100},
      {two_devices, "devices per rank", "1", "2"},
      {distributed, "world size", "not recorded (1 when not distributed)", "8"},
      {bf16, "precision", "float", "c10::BFloat16"},
      {half_batch, "batch shape", "[64, 1024]", "[32, 1024]"},
  };
  const ReportPtr before = gpu_run(600, 380, {}, "before.json");
  for (const Case& c : cases) {
    const ReportPtr after = gpu_run(10, 380, c.after, "after.json");
    const DiffResult result = diff_reports(*before, *after, {});
    ASSERT_EQ(result.unlike_conditions.size(), 1U) << c.condition << ": " << listed(result);
    const ConditionChange& named = result.unlike_conditions[0];
    EXPECT_EQ(named.condition, c.condition);
    EXPECT_EQ(named.before, c.before_value);
    EXPECT_EQ(named.after, c.after_value);
    EXPECT_FALSE(named.source.empty());
    EXPECT_TRUE(result.calibration.empty()) << c.condition;
  }
}

// A world of one against a trace without distributedInfo is no difference; known sizes are.
TEST(DiffConditions, WorldSizesCompareWhenKnownOrLarger) {
  Conditions one;
  one.world_size = 1;
  Conditions two;
  two.world_size = 2;
  Conditions four;
  four.world_size = 4;
  const ReportPtr unrecorded = gpu_run(600, 380, {}, "before.json");
  EXPECT_TRUE(
      diff_reports(*unrecorded, *gpu_run(10, 380, one, "a.json"), {}).unlike_conditions.empty());
  const DiffResult sizes =
      diff_reports(*gpu_run(600, 380, two, "b.json"), *gpu_run(10, 380, four, "a.json"), {});
  ASSERT_EQ(condition_names(sizes), std::vector<std::string>{"world size"});
  EXPECT_EQ(sizes.unlike_conditions[0].before, "2");
  EXPECT_EQ(sizes.unlike_conditions[0].after, "4");
}

// The reported case: an A100 run against a V100 run that got 60 % slower. The differences come
// first, and no "measured -46.6 ms/step faster (-6.36x the prediction)" line follows.
TEST(DiffConditions, DifferentHardwareIsNamedFirstAndNotCalibrated) {
  Conditions other;
  other.device = kV100;
  other.world_size = 2;
  Conditions first;
  first.world_size = 8;
  const ReportPtr before = gpu_run(600, 380, first, "a100.json");
  const ReportPtr after = gpu_run(10, 1'570, other, "v100.json");
  const DiffResult result = diff_reports(*before, *after, {});
  ASSERT_EQ(result.steps.verdict, Verdict::kSlower);
  ASSERT_NE(std::find_if(result.findings_resolved.begin(), result.findings_resolved.end(),
                         [](const FindingChange& f) { return f.id == "input-bound"; }),
            result.findings_resolved.end());
  EXPECT_EQ(condition_names(result), (std::vector<std::string>{"device", "world size"}));
  EXPECT_TRUE(result.calibration.empty());
  EXPECT_TRUE(std::any_of(result.notes.begin(), result.notes.end(), [](const std::string& note) {
    return note.find("no calibration") != std::string::npos &&
           note.find("device, world size") != std::string::npos;
  }));

  const std::string text = render_diff_text(result, TextOptions{10, 400});
  const auto unlike = text.find("Not like for like");
  ASSERT_NE(unlike, std::string::npos) << text;
  EXPECT_LT(unlike, text.find("Step time"));
  EXPECT_NE(text.find(kV100, unlike), std::string::npos);
  EXPECT_EQ(text.find("calibration:"), std::string::npos) << text;
  EXPECT_EQ(text.find("× the prediction"), std::string::npos);

  const std::string json = render_diff_json(result);
  EXPECT_NE(
      json.find(
          R"("not_like_for_like":[{"condition":"device","before":"NVIDIA A100-SXM4-80GB","after":"Tesla V100-SXM2-16GB",)"),
      std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("calibration":[])"), std::string::npos);
  const std::string html = render_diff_html(result);
  const auto html_unlike = html.find("Not like for like");
  ASSERT_NE(html_unlike, std::string::npos);
  EXPECT_LT(html_unlike, html.find("<h2>Step time</h2>"));
}

// Alike runs where the fix resolved its finding but the run got slower: the line says "slower",
// with no multiple of the prediction.
TEST(DiffConditions, ALossReadsSlowerNeverANegativeFaster) {
  const ReportPtr before = gpu_run(600, 380, {}, "before.json");
  const ReportPtr after = gpu_run(10, 1'570, {}, "after.json");
  const DiffResult result = diff_reports(*before, *after, {});
  ASSERT_EQ(result.steps.verdict, Verdict::kSlower);
  ASSERT_EQ(result.calibration.size(), 1U);
  const Calibration& c = result.calibration[0];
  EXPECT_LT(c.measured_ns, 0);
  EXPECT_FALSE(c.measured_over_predicted.has_value());
  const std::string text = render_diff_text(result, TextOptions{10, 400});
  const auto line = text.find("calibration: input-bound");
  ASSERT_NE(line, std::string::npos) << text;
  const std::string calibration = text.substr(line, text.find('\n', line) - line);
  EXPECT_NE(calibration.find("measured 0.600 ms/step slower"), std::string::npos) << calibration;
  EXPECT_NE(calibration.find("ms/step slower, 95 % interval"), std::string::npos);
  EXPECT_EQ(calibration.find("faster"), std::string::npos) << calibration;
  EXPECT_EQ(calibration.find(" -"), std::string::npos) << calibration;
  EXPECT_EQ(calibration.find("(-"), std::string::npos) << calibration;
  EXPECT_EQ(calibration.find("×"), std::string::npos);
  EXPECT_EQ(render_diff_json(result).find("measured_over_predicted"), std::string::npos);
}

// An interval that holds no change names both directions in words.
TEST(DiffConditions, AnIntervalAcrossNoChangeSaysBothDirections) {
  DiffResult d;
  Calibration c;
  c.id = "input-bound";
  c.predicted_likely_ns = 2'000'000;
  c.predicted_bound_ns = 2'500'000;
  c.measured_ns = 1'000'000;
  c.measured_low_ns = -500'000;
  c.measured_high_ns = 2'000'000;
  c.measured_over_predicted = 0.5;
  d.calibration = {c};
  const std::string text = render_diff_text(d, TextOptions{10, 400});
  EXPECT_NE(text.find("predicted 2.000 ms/step likely (up to 2.500 ms/step); measured 1.000 "
                      "ms/step faster (0.50× the prediction), 95 % interval 0.500 ms/step "
                      "slower … 2.000 ms/step faster"),
            std::string::npos)
      << text;
}

// Device names come from the trace: printable in the terminal, escaped in HTML.
TEST(DiffConditions, ConditionsFromTheTraceAreEscaped) {
  DiffResult d;
  d.unlike_conditions = {{"device", "GPU \x1b[2J<b>", "V100 <script>", "deviceProperties"}};
  const std::string text = render_diff_text(d, TextOptions{10, 200});
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  EXPECT_NE(text.find("V100 <script>"), std::string::npos);
  const std::string html = render_diff_html(d);
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_NE(html.find("V100 &lt;script&gt;"), std::string::npos) << html;
  EXPECT_NE(html.find("GPU \xEF\xBF\xBD[2J&lt;b&gt;"), std::string::npos);
  EXPECT_NE(render_diff_json(d).find(R"("before":"GPU \u001b[2J\u003cb\u003e")"), std::string::npos)
      << render_diff_json(d);
}

// CPU runs recorded without shapes: precision and batch shape cannot be told, and a note says so.
TEST(DiffConditions, RunsWithoutShapesSayPrecisionWasNotCompared) {
  auto cpu_run = [](double loader_us) {
    TraceFixture f;
    for (int s = 0; s < 4; ++s) {
      const double t0 = s * 2'000.0;
      f.step(s, t0, 2'000);
      f.op(kLoader, t0, loader_us);
      f.op("aten::mm", t0 + loader_us, 500);
    }
    return report_of(f.load(), "cpu.json");
  };
  const DiffResult result = diff_reports(*cpu_run(600), *cpu_run(10), {});
  EXPECT_TRUE(result.unlike_conditions.empty());
  EXPECT_TRUE(std::any_of(result.notes.begin(), result.notes.end(), [](const std::string& note) {
    return note.starts_with("precision and batch shape not compared");
  }));
}

}  // namespace
}  // namespace stepscope
