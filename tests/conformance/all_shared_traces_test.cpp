// Every file under ../shared/traces either loads or is refused with a clear message; none
// crashes (conformance.md §10).
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "stepscope/load.h"
#include "support/shared_traces.h"

namespace stepscope {
namespace {

namespace fs = std::filesystem;

TEST(AllSharedTraces, EveryFileLoadsOrIsRefusedClearly) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  // The two files that are not Chrome traces (conformance.md §10).
  const std::set<std::string> not_traces = {"benchmark_simple_add_et.json.gz",
                                            "memory_timeline.raw.gz"};
  int loaded = 0;
  int refused = 0;
  for (const auto& entry : fs::recursive_directory_iterator(testing::shared_traces_dir())) {
    if (!entry.is_regular_file()) continue;
    const std::string name = entry.path().filename().string();
    if (name.size() < 3 ||
        (name.find(".json") == std::string::npos && name.find(".gz") == std::string::npos)) {
      continue;
    }
    for (unsigned threads : {1U, 2U}) {
      LoadOptions options;
      options.threads = threads;
      Result<Trace> trace = load_trace_file(entry.path().string(), options);
      if (not_traces.count(name) > 0) {
        ASSERT_FALSE(trace.ok()) << name;
        EXPECT_EQ(trace.error().file, entry.path().string());
        EXPECT_NE(trace.error().message.find("not a Chrome trace"), std::string::npos)
            << trace.error().describe();
        ++refused;
      } else {
        ASSERT_TRUE(trace.ok()) << trace.error().describe();
        EXPECT_GT(trace->events.size(), 0U) << name;
        ++loaded;
      }
    }
  }
  EXPECT_EQ(refused, 4);  // two files, two thread settings
  EXPECT_GE(loaded, 2 * 25);
}

TEST(AllSharedTraces, RanksFollowTheDocumentedRule) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  struct Expected {
    std::string folder;
    std::int64_t rank;
    RankSource source;
  };
  const std::vector<Expected> cases = {
      {"hta/cpu_only", 34, RankSource::kDistributedInfo},
      {"hta/df_index_resolver", 1, RankSource::kDistributedInfo},
      {"hta/trace_diff/control", 3, RankSource::kDistributedInfo},
      {"hta/distributed_info_unavailable", 0, RankSource::kFileOrder},
      {"hta/rank_unavailable", 0, RankSource::kFileOrder},
      {"hta/mtia_inference_trace", 0, RankSource::kFileName},
  };
  for (const Expected& expected : cases) {
    const TraceSet set = testing::load_shared(expected.folder);
    ASSERT_EQ(set.ranks.size(), 1U) << expected.folder;
    EXPECT_EQ(set.ranks[0].rank, expected.rank) << expected.folder;
    EXPECT_EQ(set.ranks[0].rank_source, expected.source) << expected.folder;
  }
  const TraceSet two = testing::load_shared("hta/sampled_two_ranks");
  ASSERT_EQ(two.ranks.size(), 2U);
  EXPECT_EQ(two.ranks[0].rank, 0);
  EXPECT_EQ(two.ranks[1].rank, 1);
}

TEST(AllSharedTraces, ExecutionTraceFolderSkipsTheEtFileWithANote) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  const TraceSet set = testing::load_shared("hta/execution_trace");
  ASSERT_EQ(set.ranks.size(), 1U);
  ASSERT_EQ(set.skipped.size(), 1U);
  EXPECT_NE(set.skipped[0].path.find("_et.json.gz"), std::string::npos);
  EXPECT_NE(set.skipped[0].reason.find("execution trace"), std::string::npos);
}

TEST(AllSharedTraces, SpecialCategoriesAreClassified) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  auto count_class = [](const Trace& trace, EventClass c) {
    std::size_t n = 0;
    for (EventClass e : trace.events.event_class) n += e == c ? 1 : 0;
    return n;
  };
  const TraceSet mtia = testing::load_shared("hta/mtia_trace_single_rank");
  EXPECT_GT(count_class(mtia.ranks[0], EventClass::kAcceleratorKernel), 0U);
  EXPECT_GT(count_class(mtia.ranks[0], EventClass::kRuntime), 0U);
  const TraceSet old = testing::load_shared("hta/trace_file_list");
  EXPECT_GT(count_class(old.ranks[0], EventClass::kKernel), 0U);   // written `Kernel`
  EXPECT_GT(count_class(old.ranks[0], EventClass::kRuntime), 0U);  // written `Runtime`
  const TraceSet triton = testing::load_shared("hta/triton_example");
  EXPECT_EQ(count_class(triton.ranks[0], EventClass::kDriver), 1U);
  const TraceSet df = testing::load_shared("hta/df_index_resolver");
  EXPECT_EQ(df.ranks[0].memory.size(), 28010U);
  EXPECT_TRUE(df.ranks[0].stats.external_id_is_correlation);
}

}  // namespace
}  // namespace stepscope
