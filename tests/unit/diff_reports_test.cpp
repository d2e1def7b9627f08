#include <gtest/gtest.h>

#include <algorithm>

#include "report/report_model.h"
#include "stepscope/diagnosis/diagnose.h"
#include "stepscope/diff.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TraceFixture;

// A Report as analyze() builds it, from traces built in memory.
ReportPtr report_of(std::vector<Trace> traces, const std::string& path) {
  ReportPtr report(new Report);
  report->request.path = path;
  report->traces.ranks = std::move(traces);
  for (const Trace& trace : report->traces.ranks) {
    RankReport rank{analyze_rank(trace, {}), {}};
    rank.diagnosis = diagnose(rank.analyses);
    report->ranks.push_back(std::move(rank));
  }
  return report;
}

ReportPtr report_of(Trace trace, const std::string& path) {
  std::vector<Trace> traces;
  traces.push_back(std::move(trace));
  return report_of(std::move(traces), path);
}

// Four 1000 µs steps, each with one `shared` kernel of `shared_us` and one `own` kernel.
Trace kernels_run(double shared_us, const std::string& own) {
  TraceFixture fixture;
  for (int s = 0; s < 4; ++s) {
    const double t0 = s * 1000.0;
    fixture.step(s, t0, 1000);
    fixture.op("aten::mm", t0 + 10, 20);
    fixture.launched_kernel("gemm_shared", t0 + 11, t0 + 20, shared_us);
    fixture.op("aten::add", t0 + 40, 20);
    fixture.launched_kernel(own, t0 + 41, t0 + 20 + shared_us + 5, 50);
  }
  return fixture.load();
}

// Steps of 1000 µs whose DataLoader takes `loader_us` (the input-bound rule's own fixture).
Trace loader_run(double loader_us) {
  TraceFixture fixture;
  for (int s = 0; s < 4; ++s) {
    const double t0 = s * 1000.0;
    fixture.step(10 + s, t0, 1000);
    fixture.op("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", t0, loader_us);
    fixture.op("aten::mm", t0 + loader_us, 20);
    fixture.launched_kernel("ampere_sgemm_128x64_tn", t0 + loader_us + 1, t0 + loader_us + 10,
                            990 - loader_us - 10);
  }
  return fixture.load();
}

const KernelChange* kernel(const std::vector<KernelChange>& rows, const std::string& name) {
  const auto it = std::find_if(rows.begin(), rows.end(),
                               [&name](const KernelChange& k) { return k.name == name; });
  return it == rows.end() ? nullptr : &*it;
}

bool has_finding(const std::vector<FindingChange>& findings, const std::string& id) {
  return std::any_of(findings.begin(), findings.end(),
                     [&id](const FindingChange& f) { return f.id == id; });
}

TEST(DiffReports, KernelsAppearedVanishedAndChanged) {
  const ReportPtr before = report_of(kernels_run(300, "old_kernel"), "before.json");
  const ReportPtr after = report_of(kernels_run(500, "new_kernel"), "after.json");
  const DiffResult result = diff_reports(*before, *after, {});
  ASSERT_EQ(result.kernels_appeared.size(), 1U);
  EXPECT_EQ(result.kernels_appeared[0].name, "new_kernel");
  EXPECT_DOUBLE_EQ(result.kernels_appeared[0].after_ns, 50'000);
  EXPECT_DOUBLE_EQ(result.kernels_appeared[0].after_count, 1);
  EXPECT_FALSE(result.kernels_appeared[0].in_before);
  ASSERT_EQ(result.kernels_vanished.size(), 1U);
  EXPECT_EQ(result.kernels_vanished[0].name, "old_kernel");
  EXPECT_DOUBLE_EQ(result.kernels_vanished[0].before_ns, 50'000);
  const KernelChange* shared = kernel(result.kernels, "gemm_shared");
  ASSERT_NE(shared, nullptr);
  EXPECT_EQ(shared->kind, "kernel");
  EXPECT_DOUBLE_EQ(shared->before_ns, 300'000);  // per kept step
  EXPECT_DOUBLE_EQ(shared->after_ns, 500'000);
  EXPECT_DOUBLE_EQ(shared->before_count, 1);
  EXPECT_EQ(result.kernels_total, 1U);
  // Ops by name, per kept step; the step annotations are not ops.
  ASSERT_FALSE(result.ops.empty());
  for (const OpChange& op : result.ops) EXPECT_EQ(op.name.rfind("ProfilerStep#", 0), op.name.npos);
  const auto mm = std::find_if(result.ops.begin(), result.ops.end(),
                               [](const OpChange& o) { return o.name == "aten::mm"; });
  ASSERT_NE(mm, result.ops.end());
  EXPECT_DOUBLE_EQ(mm->before_calls, 1);
  EXPECT_DOUBLE_EQ(mm->before_self_device_ns, 300'000);
  EXPECT_DOUBLE_EQ(mm->after_self_device_ns, 500'000);
  // Renderers need nothing but the result.
  const std::string json = render_diff_json(result);
  EXPECT_NE(json.find(R"("appeared":{"total":1,"rows":[{"name":"new_kernel")"), json.npos);
  EXPECT_NE(render_diff_text(result, 10).find("old_kernel"), std::string::npos);
}

TEST(DiffReports, TopCutsTheListsButCountsAll) {
  const ReportPtr before = report_of(kernels_run(300, "old_kernel"), "before.json");
  const ReportPtr after = report_of(kernels_run(500, "new_kernel"), "after.json");
  const DiffResult result = diff_reports(*before, *after, {1, 1, 100});
  EXPECT_LE(result.ops.size(), 1U);
  EXPECT_GE(result.ops_total, 2U);
}

TEST(DiffReports, InputBoundResolvedAndIntroduced) {
  const ReportPtr slow = report_of(loader_run(600), "slow.json");
  const ReportPtr fast = report_of(loader_run(10), "fast.json");
  const DiffResult fixed = diff_reports(*slow, *fast, {});
  EXPECT_TRUE(has_finding(fixed.findings_resolved, "input-bound"));
  EXPECT_FALSE(has_finding(fixed.findings_introduced, "input-bound"));
  EXPECT_FALSE(has_finding(fixed.findings_persisting, "input-bound"));
  EXPECT_EQ(fixed.before.bottlenecks, std::vector<std::string>{"input_pipeline"});
  const DiffResult broken = diff_reports(*fast, *slow, {});
  EXPECT_TRUE(has_finding(broken.findings_introduced, "input-bound"));
  EXPECT_FALSE(has_finding(broken.findings_resolved, "input-bound"));
  const DiffResult same = diff_reports(*slow, *slow, {});
  EXPECT_TRUE(has_finding(same.findings_persisting, "input-bound"));
  EXPECT_TRUE(same.findings_resolved.empty());
  EXPECT_TRUE(same.findings_introduced.empty());
  EXPECT_EQ(same.steps.verdict, Verdict::kNoSignificantChange);
  ASSERT_TRUE(fixed.phases_applicable);
  const auto loading = std::find_if(fixed.phases.begin(), fixed.phases.end(),
                                    [](const PhaseChange& p) { return p.phase == "data_loading"; });
  ASSERT_NE(loading, fixed.phases.end());
  EXPECT_DOUBLE_EQ(loading->before_ns, 600'000);
  EXPECT_DOUBLE_EQ(loading->after_ns, 10'000);
}

// A finding on both sides carries its headline figure from both runs, so the reader sees whether
// the problem shrank (halved here: improved); resolved and introduced findings carry their one
// side.
TEST(DiffReports, ImprovedFindingShowsItsFigureBeforeAndAfter) {
  const ReportPtr slow = report_of(loader_run(600), "slow.json");
  const ReportPtr better = report_of(loader_run(300), "better.json");
  const DiffResult result = diff_reports(*slow, *better, {});
  EXPECT_FALSE(has_finding(result.findings_persisting, "input-bound"));
  const auto improved =
      std::find_if(result.findings_improved.begin(), result.findings_improved.end(),
                   [](const FindingChange& f) { return f.id == "input-bound"; });
  ASSERT_NE(improved, result.findings_improved.end());
  const FindingFigure& figure = improved->figure;
  EXPECT_FALSE(figure.label.empty());
  EXPECT_EQ(figure.unit, "ms/step");
  ASSERT_TRUE(figure.before.has_value());
  ASSERT_TRUE(figure.after.has_value());
  EXPECT_NEAR(*figure.before, 0.6, 0.05);
  EXPECT_NEAR(*figure.after, 0.3, 0.05);
  EXPECT_NE(render_diff_text(result, 10).find(" → "), std::string::npos);
  const std::string json = render_diff_json(result);
  EXPECT_NE(json.find("\"figure\":{"), std::string::npos) << json;
  EXPECT_NE(json.find("\"schema_version\":3"), std::string::npos);

  const ReportPtr fast = report_of(loader_run(10), "fast.json");
  const DiffResult fixed = diff_reports(*slow, *fast, {});
  ASSERT_FALSE(fixed.findings_resolved.empty());
  EXPECT_TRUE(fixed.findings_resolved.front().figure.before.has_value());
  EXPECT_FALSE(fixed.findings_resolved.front().figure.after.has_value());
}

TEST(DiffReports, FoldersCompareTheSlowestRankPerStep) {
  auto rank_trace = [](std::int64_t rank, double slow_step_us) {
    TraceFixture fixture;
    fixture.top_level("distributedInfo", R"({"backend":"nccl","rank":)" + std::to_string(rank) +
                                             R"(,"world_size":2})");
    double t = 0;
    for (int s = 0; s < 3; ++s) {
      const double dur = s == 1 ? slow_step_us : 1000;
      fixture.step(s, t, dur);
      fixture.op("aten::mm", t + 10, 20);
      t += dur;
    }
    return fixture.load();
  };
  std::vector<Trace> traces;
  traces.push_back(rank_trace(0, 1000));
  traces.push_back(rank_trace(1, 4000));
  const ReportPtr job = report_of(std::move(traces), "job");
  const DiffResult result = diff_reports(*job, *job, {});
  EXPECT_EQ(result.steps.before.ranks, 2U);
  EXPECT_EQ(result.steps.before.durations_ns,
            (std::vector<std::int64_t>{1'000'000, 4'000'000, 1'000'000}));
  EXPECT_EQ(result.before.ranks, (std::vector<std::int64_t>{0, 1}));
}

TEST(DiffReports, FewStepsAreUndeterminedAndNeverFailTheGate) {
  const ReportPtr one =
      report_of(TraceFixture().step(1, 0, 1000).op("aten::mm", 10, 20).load(), "one.json");
  const ReportPtr many = report_of(loader_run(600), "many.json");
  const DiffResult result = diff_reports(*one, *many, {});
  EXPECT_EQ(result.steps.verdict, Verdict::kUndetermined);
  EXPECT_FALSE(slower_beyond(result, 0));
  EXPECT_NE(render_diff_json(result).find(R"("verdict":"undetermined")"), std::string::npos);
}

}  // namespace
}  // namespace stepscope
