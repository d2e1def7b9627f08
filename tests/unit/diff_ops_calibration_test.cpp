// Ops that appear or vanish between two runs, and the calibration line of a resolved finding.
#include <gtest/gtest.h>

#include <algorithm>

#include "report/report_model.h"
#include "stepscope/diagnosis/diagnose.h"
#include "stepscope/diff.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TraceFixture;

constexpr const char* kSingle = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__";
constexpr const char* kMulti = "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__";

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

// Four steps: the iterator `loader` takes `loader_us`, then one 380 µs kernel; the step ends
// 10 µs after it. Each step's length follows from the loader time.
Trace run(const std::string& loader, double loader_us) {
  TraceFixture fixture;
  const double step_us = loader_us + 400;
  for (int s = 0; s < 4; ++s) {
    const double t0 = s * step_us;
    fixture.step(10 + s, t0, step_us);
    fixture.op(loader, t0, loader_us);
    fixture.op("aten::mm", t0 + loader_us, 5);
    fixture.launched_kernel("ampere_sgemm_128x64_tn", t0 + loader_us + 1, t0 + loader_us + 10, 380);
  }
  return fixture.load();
}

const OpChange* op(const std::vector<OpChange>& rows, const std::string& name) {
  const auto it =
      std::find_if(rows.begin(), rows.end(), [&name](const OpChange& o) { return o.name == name; });
  return it == rows.end() ? nullptr : &*it;
}

TEST(DiffOps, RenamedDataLoaderIteratorAppearsAndVanishes) {
  const ReportPtr before = report_of(run(kSingle, 600), "before.json");
  const ReportPtr after = report_of(run(kMulti, 10), "after.json");
  const DiffResult result = diff_reports(*before, *after, {});
  const OpChange* vanished = op(result.ops_vanished, kSingle);
  ASSERT_NE(vanished, nullptr);
  EXPECT_TRUE(vanished->in_before);
  EXPECT_FALSE(vanished->in_after);
  EXPECT_DOUBLE_EQ(vanished->before_self_cpu_ns, 600'000);
  EXPECT_DOUBLE_EQ(vanished->before_calls, 1);
  const OpChange* appeared = op(result.ops_appeared, kMulti);
  ASSERT_NE(appeared, nullptr);
  EXPECT_DOUBLE_EQ(appeared->after_self_cpu_ns, 10'000);
  EXPECT_EQ(result.ops_appeared_total, 1U);
  EXPECT_EQ(result.ops_vanished_total, 1U);
  // Neither is among the ops on both sides.
  EXPECT_EQ(op(result.ops, kSingle), nullptr);
  EXPECT_NE(op(result.ops, "aten::mm"), nullptr);

  const std::string text = render_diff_text(result, 10);
  EXPECT_NE(text.find("Ops that appeared"), std::string::npos) << text;
  EXPECT_NE(text.find("_MultiProcessingDataLoaderIter"), std::string::npos);
  EXPECT_NE(text.find("Ops that vanished"), std::string::npos);
  const std::string json = render_diff_json(result);
  EXPECT_NE(json.find("\"appeared\":{\"total\":1"), std::string::npos) << json;
}

TEST(DiffCalibration, ResolvedFindingComparesPredictionWithMeasurement) {
  const ReportPtr before = report_of(run(kSingle, 600), "before.json");
  const ReportPtr after = report_of(run(kMulti, 10), "after.json");
  const DiffResult result = diff_reports(*before, *after, {});
  ASSERT_EQ(result.steps.verdict, Verdict::kFaster);
  ASSERT_TRUE(std::any_of(result.findings_resolved.begin(), result.findings_resolved.end(),
                          [](const FindingChange& f) { return f.id == "input-bound"; }));
  const auto it = std::find_if(result.calibration.begin(), result.calibration.end(),
                               [](const Calibration& c) { return c.id == "input-bound"; });
  ASSERT_NE(it, result.calibration.end());
  const Finding* predicted = nullptr;
  for (const Finding& f : before->ranks[0].diagnosis.findings) {
    if (f.id == "input-bound") predicted = &f;
  }
  ASSERT_NE(predicted, nullptr);
  EXPECT_EQ(it->predicted_likely_ns, predicted->gain.likely_ns);
  EXPECT_EQ(it->predicted_bound_ns, predicted->gain.bound_ns);
  // Measured: the mean step time fell by the 590 µs the loader lost.
  EXPECT_NEAR(it->measured_ns, result.steps.before_mean_ns - result.steps.after_mean_ns, 1e-6);
  EXPECT_NEAR(it->measured_ns, 590'000, 1'000);
  ASSERT_TRUE(it->measured_over_predicted.has_value());
  EXPECT_NEAR(*it->measured_over_predicted,
              it->measured_ns / static_cast<double>(predicted->gain.likely_ns), 1e-9);
  EXPECT_LE(it->measured_low_ns, it->measured_ns + 1e-6);
  EXPECT_GE(it->measured_high_ns, it->measured_ns - 1e-6);

  const std::string text = render_diff_text(result, 10);
  const auto line = text.find("calibration: input-bound");
  ASSERT_NE(line, std::string::npos) << text;
  EXPECT_NE(text.find("predicted", line), std::string::npos);
  EXPECT_NE(text.find("measured", line), std::string::npos);
  const std::string json = render_diff_json(result);
  EXPECT_NE(json.find("\"calibration\":[{\"id\":\"input-bound\""), std::string::npos) << json;
}

TEST(DiffCalibration, NothingResolvedNoCalibration) {
  const ReportPtr before = report_of(run(kSingle, 600), "before.json");
  const ReportPtr after = report_of(run(kSingle, 600), "after.json");
  const DiffResult result = diff_reports(*before, *after, {});
  EXPECT_TRUE(result.calibration.empty());
  EXPECT_TRUE(result.ops_appeared.empty());
  EXPECT_TRUE(result.ops_vanished.empty());
  EXPECT_EQ(render_diff_text(result, 10).find("calibration:"), std::string::npos);
}

}  // namespace
}  // namespace stepscope
