// The propagation macros and the kinds real failures carry: front ends map a kind to an exit
// status or a Python exception class, so a wrong kind is a user-visible bug.
#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "stepscope/error.h"
#include "stepscope/live/timeline_document.h"
#include "stepscope/load.h"
#include "stepscope/report.h"
#include "stepscope/snapshot.h"

namespace stepscope {
namespace {

namespace fs = std::filesystem;

// --- the macros ------------------------------------------------------------------------------

Result<int> number_or_error(bool ok, int value, int* calls = nullptr) {
  if (calls != nullptr) ++*calls;
  if (!ok) return make_error(ErrorKind::kUnsupported, "no number", 7);
  return value;
}

Status check(bool ok) {
  if (!ok) return make_error(ErrorKind::kBadOption, "bad");
  return Done{};
}

Result<int> sum_of_two(bool first_ok, bool second_ok, int* reached_end) {
  STEPSCOPE_ASSIGN_OR_RETURN(const int a, number_or_error(first_ok, 2));
  STEPSCOPE_ASSIGN_OR_RETURN(const int b, number_or_error(second_ok, 3));
  ++*reached_end;
  return a + b;
}

TEST(ErrorMacros, AssignOrReturnAssignsOnSuccess) {
  int reached = 0;
  Result<int> sum = sum_of_two(true, true, &reached);
  ASSERT_TRUE(sum.ok());
  EXPECT_EQ(*sum, 5);
  EXPECT_EQ(reached, 1);
}

TEST(ErrorMacros, AssignOrReturnReturnsTheFirstErrorUnchanged) {
  int reached = 0;
  Result<int> sum = sum_of_two(true, false, &reached);
  ASSERT_FALSE(sum.ok());
  EXPECT_EQ(reached, 0);
  EXPECT_EQ(sum.error().kind, ErrorKind::kUnsupported);
  EXPECT_EQ(sum.error().message, "no number");
  EXPECT_EQ(sum.error().byte_offset, std::optional<std::uint64_t>(7));
}

Status status_chain(bool ok, int* after) {
  STEPSCOPE_TRY(check(ok));
  STEPSCOPE_TRY(number_or_error(true, 1));  // any Result, not only Status
  ++*after;
  return Done{};
}

TEST(ErrorMacros, TryPropagatesAndContinues) {
  int after = 0;
  EXPECT_TRUE(status_chain(true, &after).ok());
  EXPECT_EQ(after, 1);
  Status failed = status_chain(false, &after);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(after, 1);
  EXPECT_EQ(failed.error().kind, ErrorKind::kBadOption);
}

TEST(ErrorMacros, ExpressionIsEvaluatedOnce) {
  int calls = 0;
  auto run = [&calls]() -> Result<int> {
    STEPSCOPE_ASSIGN_OR_RETURN(const int v, number_or_error(true, 4, &calls));
    STEPSCOPE_TRY(number_or_error(true, 0, &calls));
    return v;
  };
  ASSERT_TRUE(run().ok());
  EXPECT_EQ(calls, 2);
}

Result<std::unique_ptr<int>> boxed(bool ok) {
  if (!ok) return make_error(ErrorKind::kIo, "gone");
  return std::make_unique<int>(9);
}

struct Holder {
  std::unique_ptr<int> box;
  int plain = 0;
};

Result<int> fill_holder(Holder& holder, bool ok) {
  // Assigning to existing members, and a move-only value.
  STEPSCOPE_ASSIGN_OR_RETURN(holder.box, boxed(ok));
  STEPSCOPE_ASSIGN_OR_RETURN(holder.plain, number_or_error(true, *holder.box));
  return holder.plain;
}

TEST(ErrorMacros, AssignsToExistingTargetsAndMovesMoveOnlyValues) {
  Holder holder;
  Result<int> got = fill_holder(holder, true);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, 9);
  ASSERT_NE(holder.box, nullptr);
  Holder untouched;
  Result<int> failed = fill_holder(untouched, false);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().kind, ErrorKind::kIo);
  EXPECT_EQ(untouched.box, nullptr);
}

TEST(ErrorKinds, EveryKindHasAStableName) {
  EXPECT_STREQ(to_string(ErrorKind::kIo), "io");
  EXPECT_STREQ(to_string(ErrorKind::kNotJson), "not_json");
  EXPECT_STREQ(to_string(ErrorKind::kNotTrace), "not_trace");
  EXPECT_STREQ(to_string(ErrorKind::kLimitExceeded), "limit_exceeded");
  EXPECT_STREQ(to_string(ErrorKind::kUnsupported), "unsupported");
  EXPECT_STREQ(to_string(ErrorKind::kBadOption), "bad_option");
}

// --- kinds of real failures -----------------------------------------------------------------

class RealFailureKinds : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("stepscope_error_kind_" +
            std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& content) {
    const fs::path path = dir_ / name;
    std::ofstream(path, std::ios::binary) << content;
    return path.string();
  }
  static Error load_error(const std::string& path, const LoadOptions& options = {}) {
    Result<TraceSet> set = load_traces(path, options);
    EXPECT_FALSE(set.ok()) << path << " loaded although it is bad";
    return set.ok() ? Error{} : set.error();
  }

  fs::path dir_;
};

const std::string kGood =
    R"({"traceEvents":[{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":1,"dur":2}]})";

TEST_F(RealFailureKinds, MissingFileIsIo) {
  const std::string path = (dir_ / "nope.json").string();
  const Error error = load_error(path);
  EXPECT_EQ(error.kind, ErrorKind::kIo) << error.describe();
  EXPECT_EQ(error.file, path);
}

TEST_F(RealFailureKinds, BytesThatAreNotJsonAreNotJson) {
  using namespace std::string_literals;
  EXPECT_EQ(load_error(write("text.json", "hello, world")).kind, ErrorKind::kNotJson);
  EXPECT_EQ(load_error(write("comma.json", R"({"traceEvents":[{"ph":"X",,}]})")).kind,
            ErrorKind::kNotJson);
  EXPECT_EQ(load_error(write("cut.json", kGood.substr(0, kGood.size() - 10))).kind,
            ErrorKind::kNotJson);
  EXPECT_EQ(
      load_error(write("gz.json.gz", "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03garbage"s)).kind,
      ErrorKind::kNotJson);
}

TEST_F(RealFailureKinds, WellFormedJsonThatIsNotATraceIsNotTrace) {
  EXPECT_EQ(load_error(write("nodes.json", R"({"nodes":[1,2]})")).kind, ErrorKind::kNotTrace);
  EXPECT_EQ(load_error(write("empty.json", R"({"traceEvents":[]})")).kind, ErrorKind::kNotTrace);
  // An event whose `ts` is not a number is skipped and counted, not a refusal of the whole
  // trace (issue 14: forgiving where one event is unusable); lenient_import_test covers it.
}

TEST_F(RealFailureKinds, NestingBeyondTheLimitIsLimitExceeded) {
  const std::string nested = std::string(100000, '[') + std::string(100000, ']');
  const Error error = load_error(write(
      "deep.json",
      R"({"traceEvents":[{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":1,"dur":1,"args":{"x":)" +
          nested + "}}]}"));
  EXPECT_EQ(error.kind, ErrorKind::kLimitExceeded) << error.describe();
}

TEST_F(RealFailureKinds, AskingForAnAbsentRankIsBadOption) {
  LoadOptions options;
  options.rank = 5;
  EXPECT_EQ(load_error(write("rank0.json", kGood), options).kind, ErrorKind::kBadOption);
}

TEST_F(RealFailureKinds, UnwritableOutputIsIo) {
  const Status s = write_output_file((dir_ / "no" / "such" / "folder.json").string(), "{}");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::kIo) << s.error().describe();
}

TEST_F(RealFailureKinds, PickleKinds) {
  // A pickle that would import and call code: valid, but refused.
  const std::string global =
      "\x80\x02"
      "cos\nsystem\n.";
  Result<MemorySnapshot> refused =
      load_memory_snapshot_bytes(global.data(), global.size(), "evil.pickle");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().kind, ErrorKind::kUnsupported) << refused.error().describe();
  const std::string garbage = "\xff\xfe\xfd";
  Result<MemorySnapshot> unreadable =
      load_memory_snapshot_bytes(garbage.data(), garbage.size(), "garbage.pickle");
  ASSERT_FALSE(unreadable.ok());
  EXPECT_EQ(unreadable.error().kind, ErrorKind::kNotJson) << unreadable.error().describe();
  // A well-formed pickle of an integer: not a memory snapshot.
  const std::string integer = "\x80\x02K\x05.";
  Result<MemorySnapshot> not_snapshot =
      load_memory_snapshot_bytes(integer.data(), integer.size(), "int.pickle");
  ASSERT_FALSE(not_snapshot.ok());
  EXPECT_EQ(not_snapshot.error().kind, ErrorKind::kNotTrace) << not_snapshot.error().describe();
}

TEST_F(RealFailureKinds, TimelineDocumentKinds) {
  auto kind_of = [](std::string_view json) {
    Result<live::MonitorTimelineDocument> document = live::parse_timeline_document(json, "t.json");
    EXPECT_FALSE(document.ok()) << json;
    return document.ok() ? ErrorKind::kIo : document.error().kind;
  };
  EXPECT_EQ(kind_of("{\"schema\": "), ErrorKind::kNotJson);
  EXPECT_EQ(kind_of("[1, 2]"), ErrorKind::kNotTrace);
  EXPECT_EQ(kind_of(R"({"schema": "stepscope.monitor", "schema_version": 999})"),
            ErrorKind::kUnsupported);
  Result<live::MonitorTimelineDocument> missing =
      live::read_timeline_document((dir_ / "absent.json").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, ErrorKind::kIo);
}

}  // namespace
}  // namespace stepscope
