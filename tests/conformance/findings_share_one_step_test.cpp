// On every real trace, a rank's findings never promise more than its whole step, and a trace
// without profiler steps is diagnosed over a window the diagnosis names.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "stepscope/analysis/rank_analyses.h"
#include "stepscope/diagnosis/diagnose.h"
#include "stepscope/load.h"
#include "support/shared_traces.h"

namespace stepscope {
namespace {

namespace fs = std::filesystem;

TEST(FindingsShareOneStep, BoundsAddUpToAtMostTheStepOnEverySharedTrace) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  const std::set<std::string> not_traces = {"benchmark_simple_add_et.json.gz",
                                            "memory_timeline.raw.gz"};
  int diagnosed = 0;
  int with_findings = 0;
  for (const auto& entry : fs::recursive_directory_iterator(testing::shared_traces_dir())) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || name.find(".json") == std::string::npos ||
        not_traces.count(name) > 0) {
      continue;
    }
    Result<Trace> trace = load_trace_file(entry.path().string(), {});
    ASSERT_TRUE(trace.ok()) << trace.error().describe();
    const RankAnalyses rank = analyze_rank(*trace, {});
    const Diagnosis diagnosis = diagnose(rank);
    double bound_share = 0;
    for (const Finding& finding : diagnosis.findings) bound_share += finding.gain.bound_share;
    EXPECT_LE(bound_share, 1.0 + 1e-9) << entry.path();
    // Idle is given to one cause: the owners add up to the idle.
    const IdleAttributionResult& idle = rank.idle_attribution;
    if (idle.applicable) {
      std::int64_t owned = 0;
      for (const IntervalSet& set : idle.owned) owned += set.measure();
      EXPECT_EQ(owned, idle.idle_ns) << entry.path();
      EXPECT_LE(idle.idle_ns, idle.step_ns) << entry.path();
    }
    if (rank.steps.steps.empty()) {
      EXPECT_FALSE(diagnosis.window.empty()) << entry.path();
      EXPECT_NE(diagnosis.bottleneck, Bottleneck::kUndetermined) << entry.path();
    }
    ++diagnosed;
    with_findings += diagnosis.findings.empty() ? 0 : 1;
  }
  EXPECT_GE(diagnosed, 25);
  EXPECT_GE(with_findings, 5);
}

}  // namespace
}  // namespace stepscope
