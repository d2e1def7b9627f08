// Traces come from strangers: every malformed input gets a clear error naming the file and,
// where it can, the byte offset; none crashes or hangs.
#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "stepscope/load.h"

namespace stepscope {
namespace {

namespace fs = std::filesystem;

class BadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("stepscope_bad_input_" +
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
  std::string write_gzip(const std::string& name, const std::string& content) {
    const fs::path path = dir_ / name;
    gzFile file = gzopen(path.string().c_str(), "wb");
    gzwrite(file, content.data(), static_cast<unsigned>(content.size()));
    gzclose(file);
    return path.string();
  }
  // Loads `path` expecting failure; returns the error.
  static Error expect_error(const std::string& path, const LoadOptions& options = {}) {
    Result<TraceSet> set = load_traces(path, options);
    EXPECT_FALSE(set.ok()) << path << " loaded although it is bad";
    return set.ok() ? Error{} : set.error();
  }

  // Loads `path` on one thread and on two; both must fail, with the same error.
  static Error expect_same_error_on_one_and_two_threads(const std::string& path) {
    LoadOptions one;
    one.threads = 1;
    LoadOptions two;
    two.threads = 2;
    Error a = expect_error(path, one);
    const Error b = expect_error(path, two);
    EXPECT_EQ(a.describe(), b.describe()) << path;
    return a;
  }

  fs::path dir_;
};

const std::string kGood =
    R"({"traceEvents":[{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":1,"dur":2}]})";

TEST_F(BadInput, TruncatedGzipNamesTheFile) {
  std::string big = R"({"traceEvents":[)";
  for (int i = 0; i < 5000; ++i) {
    big += R"({"ph":"X","cat":"cpu_op","name":"op)" + std::to_string(i) +
           R"(","pid":1,"tid":1,"ts":)" + std::to_string(i) + R"(,"dur":1},)";
  }
  big += kGood.substr(16);
  const std::string path = write_gzip("whole.json.gz", big);
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::string truncated = write("cut.json.gz", bytes.substr(0, bytes.size() / 2));
  const Error error = expect_error(truncated);
  EXPECT_EQ(error.file, truncated);
  EXPECT_NE(error.message.find("truncated"), std::string::npos) << error.message;
}

TEST_F(BadInput, CorruptGzipData) {
  using namespace std::string_literals;
  std::string bytes = "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03garbage-garbage-garbage"s;
  const Error error = expect_error(write("corrupt.json.gz", bytes));
  EXPECT_NE(error.message.find("gzip"), std::string::npos) << error.message;
}

TEST_F(BadInput, InvalidJsonGivesTheByteOffset) {
  const std::string path = write("bad.json", R"({"traceEvents":[{"ph":"X","name":"a",,}]})");
  const Error error = expect_error(path);
  EXPECT_EQ(error.file, path);
  ASSERT_TRUE(error.byte_offset.has_value());
  EXPECT_EQ(*error.byte_offset, 16U);  // the event that holds the error starts here
}

// The splitter cuts events out ahead of the parser: a broken event it has already cut out
// comes before the splitter's own error in the file, and is the error reported, whatever the
// threads, and in a file large enough to be read in two parts.
TEST_F(BadInput, AnEventErrorBeforeASplitterErrorIsReportedFirst) {
  const std::string good =
      R"({"ph": "X", "cat": "cpu_op", "name": "op", "pid": 1, "tid": 1, "ts": 1, "dur": 1})";
  const std::string bad = R"({"ph": "X", "ts": 1x})";  // brackets balance, the JSON does not
  std::string text = "{\"traceEvents\": [" + good;
  const std::size_t bad_at = text.size() + 2;
  text += ", " + bad + ", " + good + " " + good + "]}";  // no comma between the last two
  for (const std::size_t padding : {std::size_t{0}, std::size_t{40} << 20}) {
    std::string padded = text;
    if (padding > 0) {
      std::string filler;
      for (std::size_t i = 0; filler.size() < padding; ++i) filler += ", " + good;
      padded.insert(padded.size() - 2, filler);
    }
    const Error error = expect_same_error_on_one_and_two_threads(write("early.json", padded));
    EXPECT_EQ(error.byte_offset, bad_at) << error.describe();
  }
}

TEST_F(BadInput, TruncatedJson) {
  const Error error = expect_error(write("cut.json", kGood.substr(0, kGood.size() - 10)));
  EXPECT_NE(error.message.find("truncated"), std::string::npos) << error.message;
}

TEST_F(BadInput, JsonThatIsNotATrace) {
  EXPECT_NE(expect_error(write("x.json", R"({"nodes":[1,2]})")).message.find("not a Chrome trace"),
            std::string::npos);
  EXPECT_NE(expect_error(write("y.json", "[[1,2,3,4]]")).message.find("not a Chrome trace"),
            std::string::npos);
  EXPECT_NE(expect_error(write("z.json", "42")).message.find("expected '{' or '['"),
            std::string::npos);
  EXPECT_NE(expect_error(write("empty.json", "")).message.find("empty input"), std::string::npos);
}

TEST_F(BadInput, EmptyTrace) {
  EXPECT_NE(expect_error(write("e.json", R"({"traceEvents":[]})")).message.find("empty trace"),
            std::string::npos);
}

TEST_F(BadInput, HugeNumbersAndWrongTypes) {
  const std::string digits(400, '9');
  const Error huge = expect_error(write(
      "huge.json", R"({"traceEvents":[{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":)" +
                       digits + R"(,"dur":1}]})"));
  EXPECT_NE(huge.message.find("out of range"), std::string::npos) << huge.message;
  // Where the trace as a whole can still be trusted, a wrongly typed field is not a refusal
  // any more (lenient_import_test.cpp checks the notes); a malformed event still is.
  const Error malformed = expect_error(write(
      "malformed.json",
      R"({"traceEvents":[{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":1,,"dur":1}]})"));
  EXPECT_NE(malformed.message.find("in the event"), std::string::npos) << malformed.message;
}

TEST_F(BadInput, InvalidUtf8) {
  const Error error =
      expect_error(write("utf8.json",
                         "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":"
                         "\"a\xff\xfe\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}]}"));
  EXPECT_NE(error.message.find("UTF"), std::string::npos) << error.message;
}

TEST_F(BadInput, DeeplyNestedArgsAreRefusedNotRecursedInto) {
  const std::string nested = std::string(100000, '[') + std::string(100000, ']');
  const Error error = expect_error(write(
      "deep.json",
      R"({"traceEvents":[{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":1,"dur":1,"args":{"x":)" +
          nested + "}}]}"));
  EXPECT_NE(error.message.find("nested deeper"), std::string::npos) << error.message;
}

TEST_F(BadInput, UnexpectedDataAfterTheDocument) {
  const Error error = expect_error(write("tail.json", kGood + " {}"));
  EXPECT_NE(error.message.find("after the end"), std::string::npos) << error.message;
}

TEST_F(BadInput, FolderWithOneBadFileFailsUnlessSkipBad) {
  const fs::path folder = dir_ / "ranks";
  fs::create_directories(folder);
  std::ofstream(folder / "rank0.json") << kGood;
  std::ofstream(folder / "rank1.json") << kGood.substr(0, 30);
  const Error error = expect_error(folder.string());
  EXPECT_NE(error.file.find("rank1.json"), std::string::npos) << error.describe();
  LoadOptions options;
  options.skip_bad = true;
  Result<TraceSet> set = load_traces(folder.string(), options);
  ASSERT_TRUE(set.ok());
  ASSERT_EQ(set->ranks.size(), 1U);
  EXPECT_EQ(set->ranks[0].rank, 0);
  EXPECT_EQ(set->ranks[0].rank_source, RankSource::kFileName);
  ASSERT_EQ(set->skipped.size(), 1U);
  EXPECT_NE(set->skipped[0].path.find("rank1.json"), std::string::npos);
}

TEST_F(BadInput, MissingPath) {
  const Error error = expect_error((dir_ / "nope.json").string());
  EXPECT_NE(error.message.find("no such file"), std::string::npos);
}

TEST_F(BadInput, PipelinedAndSequentialLoadsAgree) {
  std::string big = R"({"traceEvents":[)";
  for (int i = 0; i < 40000; ++i) {
    big += R"({"ph":"X","cat":"cpu_op","name":"op","pid":1,"tid":1,"ts":)" + std::to_string(i) +
           R"(,"dur":1},)";
  }
  big += R"({"ph":"X","cat":"cpu_op","name":"bad","pid":1,"tid":1,"ts":1,,"dur":1}]})";
  const std::string path = write("late_error.json", big);
  const Error a = expect_same_error_on_one_and_two_threads(path);
  EXPECT_GT(a.byte_offset.value_or(0), 1000000U);
}

// With two threads, batches are split, parsed and built by whichever thread is free: the error
// reported is still the first in the file, whether it is found by the parser early on (while
// later batches are already split and parsed) or by the splitter at a truncated end.
TEST_F(BadInput, PipelinedLoadsReportTheFirstErrorInTheFile) {
  const auto events = [](int count) {
    std::string text;
    for (int i = 0; i < count; ++i) {
      text += R"({"ph":"X","cat":"cpu_op","name":"op","pid":1,"tid":1,"ts":)" + std::to_string(i) +
              R"(,"dur":1},)";
    }
    return text;
  };
  const std::string bad_event = R"({"ph":"X","name":"bad","ts":1,,"dur":1},)";
  const std::string early =
      R"({"traceEvents":[)" + events(100) + bad_event + events(60000) + bad_event + "{}]}";
  std::string truncated = R"({"traceEvents":[)" + events(60000);
  truncated += R"({"ph":"X","name":"cut)";
  for (const auto& [name, text] :
       {std::pair{"early_error.json", early}, std::pair{"truncated.json", truncated}}) {
    expect_same_error_on_one_and_two_threads(write(name, text));
  }
}

}  // namespace
}  // namespace stepscope
