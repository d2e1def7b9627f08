// An annotated real trace loads back with every original event (issue: annotated trace).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "annotate/markers.h"
#include "stepscope/annotate.h"
#include "stepscope/load.h"
#include "support/annotated_trace.h"
#include "support/shared_traces.h"

namespace stepscope {
namespace {

namespace fs = std::filesystem;

TEST(AnnotateConformance, RealTraceKeepsEveryEvent) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  const std::string source =
      testing::shared_traces_dir() + "/hta/trace_diff/control/control.json.gz";
  Result<Trace> original = load_trace_file(source);
  ASSERT_TRUE(original.ok()) << original.error().describe();
  const Diagnosis diagnosis = diagnose(analyze_rank(*original, {}));
  ASSERT_FALSE(diagnosis.findings.empty());
  const fs::path out = fs::temp_directory_path() / ("stepscope_annotate_conformance_" +
                                                    std::to_string(::getpid()) + ".json.gz");
  const Status written = write_annotated_trace(source, *original, diagnosis, out.string());
  ASSERT_TRUE(written.ok()) << written.error().describe();
  Result<Trace> annotated = load_trace_file(out.string());
  fs::remove(out);
  ASSERT_TRUE(annotated.ok()) << annotated.error().describe();

  const std::int64_t pid = annotate::marker_pid(*original);
  testing::expect_original_events_survive(*original, *annotated, pid);
  const std::uint64_t markers =
      2 + 3 * diagnosis.findings.size() + testing::marker_spans(*annotated, pid).size();
  EXPECT_EQ(annotated->stats.events_seen, original->stats.events_seen + markers);
  EXPECT_EQ(annotated->stats.complete_events,
            original->stats.complete_events + testing::marker_spans(*annotated, pid).size());
}

}  // namespace
}  // namespace stepscope
