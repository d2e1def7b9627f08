// thread-oversubscription reads the `stepscope_host` metadata of stepscope.torch.profile: it
// fires when the job's threads outnumber the cores, stays silent when they fit or when the
// metadata is absent, and a mistyped field is absent and noted, never an error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "stepscope/diagnosis/diagnose.h"
#include "stepscope/load.h"
#include "support/findings.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

namespace fs = std::filesystem;
using testing::TraceFixture;

// CPU-only steps of 1000 µs with one 800 µs op each, and `host` as the metadata (none if empty).
TraceFixture cpu_steps(const std::string& host) {
  TraceFixture fixture;
  for (int s = 0; s < 4; ++s) {
    const double t0 = s * 1000.0;
    fixture.step(s, t0, 1000);
    fixture.op("aten::mm", t0 + 100, 800);
  }
  if (!host.empty()) fixture.top_level("stepscope_host", host);
  return fixture;
}

std::string host_json(int cores, int threads, int processes, int workers) {
  return "{\"cores_available\":" + std::to_string(cores) +
         ",\"cpu_count\":" + std::to_string(cores) +
         ",\"intra_op_threads\":" + std::to_string(threads) +
         ",\"inter_op_threads\":" + std::to_string(threads) +
         ",\"local_processes\":" + std::to_string(processes) +
         ",\"local_processes_source\":\"LOCAL_WORLD_SIZE\",\"dataloader_workers\":" +
         std::to_string(workers) + "}";
}

const Finding* find(const Diagnosis& diagnosis) {
  return testing::find_finding(diagnosis, "thread-oversubscription");
}

TEST(RuleThreadOversubscription, EightProcessesOfTwoThreadsOnTwoCoresAreFound) {
  const Trace trace = cpu_steps(host_json(2, 2, 8, 0)).load();
  ASSERT_TRUE(trace.host.has_value());
  EXPECT_EQ(trace.host->local_processes, 8);
  EXPECT_EQ(trace.host->local_processes_source, "LOCAL_WORLD_SIZE");
  const Diagnosis diagnosis = diagnose(analyze_rank(trace, {}));
  const Finding* finding = find(diagnosis);
  ASSERT_NE(finding, nullptr);
  ASSERT_GE(finding->evidence.size(), 6U);
  EXPECT_EQ(finding->evidence[0].value, 16);  // 8 × 2
  EXPECT_EQ(finding->evidence[0].unit, "threads");
  EXPECT_EQ(finding->evidence[1].value, 2);
  EXPECT_EQ(finding->evidence[1].unit, "cores");
  EXPECT_EQ(finding->evidence[2].unit, "processes");
  EXPECT_DOUBLE_EQ(finding->evidence[5].value, 0.8);  // ms of ops per step
  EXPECT_EQ(finding->gain.bound_ns, 800'000);
  EXPECT_EQ(finding->gain.likely_ns, 160'000);
  EXPECT_NE(finding->fix.find("torch.set_num_threads(1)"), std::string::npos);
  EXPECT_NE(finding->fix.find("start fewer per host"), std::string::npos);  // 8 > 2 cores
}

TEST(RuleThreadOversubscription, DataLoaderWorkersCountOneThreadEach) {
  // 1 process × 2 threads fits 4 cores; 3 workers make it 5.
  const Trace trace = cpu_steps(host_json(4, 2, 1, 3)).load();
  const Diagnosis diagnosis = diagnose(analyze_rank(trace, {}));
  const Finding* finding = find(diagnosis);
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->evidence[0].value, 5);
  EXPECT_NE(finding->fix.find("num_workers"), std::string::npos);
}

TEST(RuleThreadOversubscription, OneThreadPerCoreIsNotAFinding) {
  const Trace balanced = cpu_steps(host_json(16, 2, 8, 0)).load();
  EXPECT_EQ(find(diagnose(analyze_rank(balanced, {}))), nullptr);
  const Trace with_workers = cpu_steps(host_json(4, 2, 1, 2)).load();
  EXPECT_EQ(find(diagnose(analyze_rank(with_workers, {}))), nullptr);
}

TEST(RuleThreadOversubscription, WithoutTheMetadataTheRuleIsSilent) {
  const Trace trace = cpu_steps("").load();
  EXPECT_FALSE(trace.host.has_value());
  EXPECT_EQ(find(diagnose(analyze_rank(trace, {}))), nullptr);
}

class HostMetadataImport : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("stepscope_host_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  TraceSet load(const std::string& json) {
    const fs::path path = dir_ / "trace.json";
    std::ofstream(path, std::ios::binary) << json;
    Result<TraceSet> set = load_traces(path.string());
    EXPECT_TRUE(set.ok()) << (set.ok() ? "" : set.error().describe());
    return set.ok() ? std::move(set).value() : TraceSet{};
  }
  static bool has_note(const TraceSet& set, std::string_view text) {
    for (const std::string& note : set.notes) {
      if (note.find(text) != std::string::npos) return true;
    }
    return false;
  }

  fs::path dir_;
};

TEST_F(HostMetadataImport, MistypedThreadCountIsAbsentAndNotedAndTheRuleIsSilent) {
  // Oversubscribed if "8" were read as 8 intra-op threads; a string is not a count here.
  const TraceSet set = load(cpu_steps(R"({"cores_available":2,"intra_op_threads":"8",)"
                                      R"("local_processes":4,"local_processes_source":3})")
                                .json());
  ASSERT_EQ(set.ranks.size(), 1U);
  const Trace& trace = set.ranks.front();
  ASSERT_TRUE(trace.host.has_value());
  EXPECT_EQ(trace.host->intra_op_threads, kAbsent);
  EXPECT_EQ(trace.host->cores_available, 2);
  EXPECT_EQ(trace.host->local_processes, 4);
  EXPECT_TRUE(trace.host->local_processes_source.empty());
  EXPECT_TRUE(has_note(set, "stepscope_host.intra_op_threads is not an integer"));
  EXPECT_TRUE(has_note(set, "stepscope_host.local_processes_source is not a string"));
  EXPECT_EQ(find(diagnose(analyze_rank(trace, {}))), nullptr);
}

TEST_F(HostMetadataImport, ZeroCoresIsAbsentAndNoted) {
  const TraceSet set = load(cpu_steps(host_json(0, 2, 8, 0)).json());
  ASSERT_EQ(set.ranks.size(), 1U);
  const Trace& trace = set.ranks.front();
  ASSERT_TRUE(trace.host.has_value());
  EXPECT_EQ(trace.host->cores_available, kAbsent);
  EXPECT_TRUE(has_note(set, "stepscope_host.cores_available is not an integer >= 1"));
  EXPECT_EQ(find(diagnose(analyze_rank(trace, {}))), nullptr);
}

TEST_F(HostMetadataImport, MetadataThatIsNotAnObjectIsIgnoredAndNoted) {
  const TraceSet set = load(cpu_steps("[2, 16]").json());
  ASSERT_EQ(set.ranks.size(), 1U);
  EXPECT_FALSE(set.ranks.front().host.has_value());
  EXPECT_TRUE(has_note(set, "stepscope_host is not a JSON object"));
}

}  // namespace
}  // namespace stepscope
