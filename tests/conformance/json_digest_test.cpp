// The JSON documents of the shared traces, byte for byte: tests/data/json_digests.txt holds the
// SHA-256 of our own output per trace and mode (run times zeroed, the shared folder's path
// replaced by `$SHARED`), of the job document (`stepscope merge`) of every folder with a job,
// and of `stepscope diff` on pairs of runs, so that a refactoring of the writers that changes one
// byte fails here.
// When a change is intended, bump kJsonSchemaVersion where readers are affected and regenerate:
//   STEPSCOPE_UPDATE_DIGESTS=1 build/dev/tests/stepscope_tests --gtest_filter='JsonDigest.*'
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "report/report_model.h"
#include "stepscope/diff.h"
#include "stepscope/job/job_report.h"
#include "stepscope/report.h"
#include "support/sha256.h"
#include "support/shared_traces.h"

namespace stepscope {
namespace {

const std::string kDigestFile = std::string(STEPSCOPE_TEST_DATA) + "/json_digests.txt";

// Run times differ between runs, and the in-memory size of a trace changes with its layout, not
// with the trace: neither is a figure of the trace. Everything else must not change.
// Copies rather than std::string::replace, which trips g++ 12's -Wrestrict.
std::string zero_field(const std::string& text, const std::string& key) {
  std::string needle = "\"";
  needle.append(key).append("\":");
  std::string out;
  std::size_t done = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, done)) {
    out.append(text, done, at + needle.size() - done).append("0");
    done = text.find_first_of(",}", at + needle.size());
  }
  out.append(text, done, std::string::npos);
  return out;
}

std::string replace_all(const std::string& text, const std::string& from, const std::string& to) {
  std::string out;
  std::size_t done = 0;
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, done)) {
    out.append(text, done, at - done).append(to);
    done = at + from.size();
  }
  out.append(text, done, std::string::npos);
  return out;
}

// Every trace file and every folder under the shared traces, relative, sorted.
std::vector<std::string> shared_inputs() {
  namespace fs = std::filesystem;
  const fs::path root = testing::shared_traces_dir();
  std::vector<std::string> inputs;
  for (const auto& entry : fs::recursive_directory_iterator(root / "hta")) {
    const std::string name = entry.path().filename().string();
    const bool trace_file = name.ends_with(".json") || name.ends_with(".json.gz");
    if (entry.is_directory() || (entry.is_regular_file() && trace_file)) {
      inputs.push_back(fs::relative(entry.path(), root).string());
    }
  }
  std::sort(inputs.begin(), inputs.end());
  return inputs;
}

struct Variant {
  const char* name;
  Mode mode;
  bool by_shape;
};
constexpr Variant kVariants[] = {{"native", Mode::kNative, false},
                                 {"compat-hta", Mode::kCompatHta, false},
                                 {"compat-tb+shapes", Mode::kCompatTb, true}};

std::string normalized_digest(std::string json) {
  json = zero_field(json, "load_seconds");
  json = zero_field(json, "analysis_seconds");
  json = zero_field(json, "bytes_in_memory");
  json = zero_field(json, "bytes_in_memory_per_event");
  json = replace_all(json, testing::shared_traces_dir(), "$SHARED");
  return testing::sha256_hex(json);
}

// The analyze document's digest under `key`, and the job document's where the input has a job.
void add_digests(std::map<std::string, std::string>& computed, const std::string& relative,
                 const Variant& variant) {
  AnalyzeRequest request;
  request.path = testing::shared_traces_dir();
  request.path.append("/").append(relative);
  request.analysis.mode = variant.mode;
  request.analysis.group_by_input_shape = variant.by_shape;
  request.load.threads = 1;
  std::string key = variant.name;
  key.append(" ").append(relative);
  Result<ReportPtr> report = analyze(request);
  if (!report) {
    computed[key] = "load-error";
    return;
  }
  computed[key] = normalized_digest(render_json(**report));
  if ((*report)->job && variant.mode == Mode::kNative) {
    computed["job " + relative] = normalized_digest(job::render_job_json(*(*report)->job));
  }
}

// Pairs of runs compared by `stepscope diff`: a real change, an undetermined verdict (one step),
// a two-rank run against one rank, and CPU-only traces.
constexpr std::pair<const char*, const char*> kDiffPairs[] = {
    {"hta/trace_diff/control", "hta/trace_diff/test"},
    {"hta/trace_compare/base", "hta/trace_compare/test"},
    {"hta/sampled_two_ranks", "hta/trace_diff/test"},
    {"hta/cpu_only", "hta/rank_non_gpu"},
};

std::string diff_digest(const std::string& before, const std::string& after) {
  DiffRequest request;
  request.before = testing::shared_traces_dir() + "/" + before;
  request.after = testing::shared_traces_dir() + "/" + after;
  request.load.threads = 1;
  Result<DiffResult> result = compare_runs(request);
  if (!result) return "load-error";
  return normalized_digest(render_diff_json(*result));
}

std::map<std::string, std::string> computed_digests() {
  std::map<std::string, std::string> computed;
  for (const std::string& input : shared_inputs()) {
    for (const Variant& variant : kVariants) add_digests(computed, input, variant);
  }
  for (const auto& [before, after] : kDiffPairs) {
    computed[std::string("diff ") + before + " " + after] = diff_digest(before, after);
  }
  return computed;
}

TEST(JsonDigest, Sha256MatchesKnownVectors) {
  EXPECT_EQ(testing::sha256_hex(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(testing::sha256_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(testing::sha256_hex(std::string(1000, 'a')),
            "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");
}

TEST(JsonDigest, EverySharedTraceWritesTheCommittedDocument) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  const std::map<std::string, std::string> computed = computed_digests();
  if (std::getenv("STEPSCOPE_UPDATE_DIGESTS") != nullptr) {
    std::ofstream out(kDigestFile, std::ios::binary | std::ios::trunc);
    out << "# SHA-256 of `stepscope analyze --json` per shared trace and mode, of the job "
           "document\n"
        << "# per folder with a job, and of `stepscope diff --json` per pair; regenerate with\n"
        << "# STEPSCOPE_UPDATE_DIGESTS=1 stepscope_tests --gtest_filter='JsonDigest.*'\n";
    for (const auto& [key, digest] : computed) out << key << " " << digest << "\n";
    ASSERT_TRUE(out.good()) << "could not write " << kDigestFile;
    GTEST_SKIP() << "digests written to " << kDigestFile << "; nothing compared";
  }
  std::ifstream in(kDigestFile);
  ASSERT_TRUE(in) << kDigestFile << " is missing";
  std::map<std::string, std::string> committed;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line.front() == '#') continue;
    const std::size_t last = line.rfind(' ');
    committed[line.substr(0, last)] = line.substr(last + 1);
  }
  for (const auto& [key, digest] : computed) {
    auto found = committed.find(key);
    if (found == committed.end()) {
      ADD_FAILURE() << "no committed digest for " << key;
      continue;
    }
    EXPECT_EQ(found->second, digest)
        << "the JSON of " << key << " changed; if intended, bump the schema version where "
        << "readers are affected and rerun with STEPSCOPE_UPDATE_DIGESTS=1";
  }
  EXPECT_EQ(committed.size(), computed.size()) << "traces were added or removed";
}

// Two threads (parallel parse and build, analyses and rules side by side) write exactly what one
// thread writes.
TEST(JsonDigest, TwoThreadsWriteWhatOneThreadWrites) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  for (const std::string& input : shared_inputs()) {
    std::string documents[2];
    for (unsigned threads : {1U, 2U}) {
      AnalyzeRequest request;
      request.path = testing::shared_traces_dir() + "/" + input;
      request.load.threads = threads;
      Result<ReportPtr> report = analyze(request);
      documents[threads - 1] = report ? normalized_digest(render_json(**report)) : "load-error";
    }
    EXPECT_EQ(documents[0], documents[1]) << input;
  }
}

}  // namespace
}  // namespace stepscope
