// A finding of both runs is judged by the time it accounts for per step, not by its title:
// resolved when that time is all but gone, improved when it fell substantially, persisting
// otherwise.
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

// A CPU-only run of four `step_us` steps: the DataLoader's iterator takes `loader_us` of each,
// an aten::mm most of the rest. Data loading is then `loader_us` per step, which input-bound
// owns when it is at least 5 % of the step and 100 µs.
ReportPtr loader_run(double loader_us, double step_us, const std::string& path) {
  TraceFixture fixture;
  for (int s = 0; s < 4; ++s) {
    const double t0 = s * step_us;
    fixture.step(10 + s, t0, step_us);
    fixture.op(kLoader, t0, loader_us);
    fixture.op("aten::mm", t0 + loader_us, step_us - loader_us - 10);
  }
  return report_of(fixture.load(), path);
}

const FindingChange* find(const std::vector<FindingChange>& findings, const std::string& id) {
  const auto it = std::find_if(findings.begin(), findings.end(),
                               [&id](const FindingChange& f) { return f.id == id; });
  return it == findings.end() ? nullptr : &*it;
}

bool diagnosed(const Report& report, const std::string& id) {
  const std::vector<Finding>& findings = report.ranks[0].diagnosis.findings;
  return std::any_of(findings.begin(), findings.end(),
                     [&id](const Finding& f) { return f.id == id; });
}

// The reported case: data loading fell 99.6 % (34.3 → 0.149 ms per step), but the step fell
// with it, so the after run's title still says data loading takes a share of each step.
TEST(DiffFindings, ResolvedWhenItsTimeIsGoneWhateverTheTitleSays) {
  const ReportPtr before = loader_run(34'300, 40'000, "before.json");
  const ReportPtr after = loader_run(149, 1'000, "after.json");
  ASSERT_TRUE(diagnosed(*before, "input-bound"));
  ASSERT_TRUE(diagnosed(*after, "input-bound"));  // 14.9 % of a 1 ms step: still reported

  const DiffResult result = diff_reports(*before, *after, {});
  EXPECT_EQ(find(result.findings_persisting, "input-bound"), nullptr);
  EXPECT_EQ(find(result.findings_improved, "input-bound"), nullptr);
  const FindingChange* resolved = find(result.findings_resolved, "input-bound");
  ASSERT_NE(resolved, nullptr);
  EXPECT_EQ(resolved->owned_before_ns, 34'300'000);
  EXPECT_EQ(resolved->owned_after_ns, 149'000);
  EXPECT_FALSE(resolved->severity_after.empty());  // still reported after, and said so

  const std::string text = render_diff_text(result, TextOptions{10, 400});
  EXPECT_NE(text.find("input-bound [rank 0] Data loading takes 85.8 % of each step: time it "
                      "accounts for 34.300 → 0.149 ms/step (-99.6 %)"),
            std::string::npos)
      << text;
  EXPECT_LT(text.find("Findings resolved"), text.find("input-bound"));
  const std::string json = render_diff_json(result);
  EXPECT_NE(json.find(R"("owned_before_ms_per_step":34.3)"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("owned_after_ms_per_step":0.149)"), std::string::npos) << json;
  // Resolved, so calibrated against the measured change (the runs are alike).
  ASSERT_EQ(result.calibration.size(), 1U);
  EXPECT_EQ(result.calibration[0].id, "input-bound");
  const std::string html = render_diff_html(result);
  EXPECT_NE(html.find("time it accounts for: 34.300 → 0.149 ms/step (-99.6 %)"), std::string::npos)
      << html;
}

// The thresholds: below 10 % of the time before is resolved, up to 75 % is improved, more is
// persisting (a finding whose time grew persists too).
TEST(DiffFindings, TheCriterionSharesSplitResolvedImprovedPersisting) {
  struct Case {
    double after_loader_us;
    const char* list;
  };
  const Case cases[] = {{990, "resolved"},
                        {1'100, "improved"},
                        {7'400, "improved"},
                        {7'600, "persisting"},
                        {12'000, "persisting"}};
  const ReportPtr before = loader_run(10'000, 20'000, "before.json");
  for (const Case& c : cases) {
    const ReportPtr after = loader_run(c.after_loader_us, 10'000 + c.after_loader_us, "after.json");
    ASSERT_TRUE(diagnosed(*after, "input-bound")) << c.after_loader_us;
    const DiffResult result = diff_reports(*before, *after, {});
    const std::string list = find(result.findings_resolved, "input-bound") != nullptr   ? "resolved"
                             : find(result.findings_improved, "input-bound") != nullptr ? "improved"
                             : find(result.findings_persisting, "input-bound") != nullptr
                                 ? "persisting"
                                 : "none";
    EXPECT_EQ(list, c.list) << "after loader " << c.after_loader_us << " µs";
  }
}

// A finding that accounts for no time (memory growth) has nothing to judge by: on both sides it
// persists; gone, it is resolved, but predicted no saving to calibrate.
TEST(DiffFindings, AFindingWithoutTimeIsJudgedByPresence) {
  const ReportPtr before = loader_run(10'000, 20'000, "before.json");
  const ReportPtr after = loader_run(150, 10'150, "after.json");
  Finding growth;
  growth.id = "memory-growth";
  growth.title = "CPU memory grows";
  before->ranks[0].diagnosis.findings.push_back(growth);

  const DiffResult gone = diff_reports(*before, *after, {});
  ASSERT_NE(find(gone.findings_resolved, "memory-growth"), nullptr);
  EXPECT_TRUE(std::none_of(gone.calibration.begin(), gone.calibration.end(),
                           [](const Calibration& c) { return c.id == "memory-growth"; }));
  EXPECT_EQ(render_diff_text(gone, TextOptions{10, 400}).find("calibration: memory-growth"),
            std::string::npos);

  after->ranks[0].diagnosis.findings.push_back(growth);
  const DiffResult both = diff_reports(*before, *after, {});
  EXPECT_NE(find(both.findings_persisting, "memory-growth"), nullptr);
}

}  // namespace
}  // namespace stepscope
