// Plain trace files are mapped and scanned in place (io/mapped_file.h): the mapping must give
// the importer the same bytes, events and errors as reading would, including at a file whose
// size is a whole number of pages, where nothing of the file follows its end.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "io/byte_source.h"
#include "stepscope/load.h"

namespace stepscope {
namespace {

namespace fs = std::filesystem;

class MappedFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("stepscope_mapped_file_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& content) const {
    const fs::path path = dir_ / name;
    std::ofstream(path, std::ios::binary) << content;
    return path.string();
  }

  fs::path dir_;
};

std::size_t page_size() { return static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)); }

// A trace of `count` kernel-like events, padded with spaces after its closing brace to exactly
// `size` bytes when `size` is not zero.
std::string trace_text(int count, std::size_t size = 0) {
  std::string text = "{\"traceEvents\": [";
  for (int i = 0; i < count; ++i) {
    if (i > 0) text += ",\n";
    text += R"({"ph": "X", "cat": "cpu_op", "name": "aten::op_)" + std::to_string(i % 7) +
            R"(", "pid": 1, "tid": 2, "ts": )" + std::to_string(1000 + i * 10) + R"(, "dur": 5})";
  }
  text += "]}";
  if (size > text.size()) text.append(size - text.size(), ' ');
  return text;
}

TEST_F(MappedFile, APlainFileIsMappedWholeWithReadableZerosPastItsEnd) {
  const std::string content = trace_text(100, 4 * page_size());
  ASSERT_EQ(content.size(), 4 * page_size());
  auto source = io::open_byte_source(write("whole_pages.json", content));
  ASSERT_TRUE(source.ok());
  const std::string_view mapped = (*source)->mapped();
  ASSERT_EQ(mapped, content);
  // The scanners read up to 64 bytes past the end: they must be there, and are zeros.
  for (std::size_t i = 0; i < 64; ++i) EXPECT_EQ(mapped.data()[mapped.size() + i], '\0') << i;
}

TEST_F(MappedFile, ReadingAMappedFileCopiesItInOrderAndCountsProgress) {
  const std::string content = trace_text(500);
  auto source = io::open_byte_source(write("read.json", content));
  ASSERT_TRUE(source.ok());
  ASSERT_FALSE((*source)->mapped().empty());
  std::string copied;
  char chunk[1000];
  for (;;) {
    Result<std::size_t> got = (*source)->read(chunk, sizeof chunk);
    ASSERT_TRUE(got.ok());
    if (*got == 0) break;
    copied.append(chunk, *got);
    EXPECT_EQ((*source)->raw_bytes_consumed(), copied.size());
  }
  EXPECT_EQ(copied, content);
  EXPECT_EQ((*source)->raw_bytes_total(), content.size());
}

TEST_F(MappedFile, ReleasedBytesCountAsConsumedAndCanStillBeRead) {
  // Large enough that releasing half of it drops whole pages from the mapping.
  const std::string content = trace_text(200'000);
  ASSERT_GT(content.size(), std::size_t{16} << 20);
  auto source = io::open_byte_source(write("release.json", content));
  ASSERT_TRUE(source.ok());
  const std::string_view mapped = (*source)->mapped();
  // Two readers of disjoint halves, as the importer's two threads.
  (*source)->release(0, content.size() / 2);
  EXPECT_EQ((*source)->raw_bytes_consumed(), content.size() / 2);
  (*source)->release(content.size() / 2, content.size() + 100);  // clipped to the file
  EXPECT_EQ((*source)->raw_bytes_consumed(), content.size());
  // Dropped pages come back from the file when read again.
  EXPECT_EQ(mapped, content);
}

TEST_F(MappedFile, GzipIsReadNotMapped) {
  const std::string content = trace_text(10);
  const std::string path = (dir_ / "small.json.gz").string();
  gzFile file = gzopen(path.c_str(), "wb");
  gzwrite(file, content.data(), static_cast<unsigned>(content.size()));
  gzclose(file);
  auto source = io::open_byte_source(path);
  ASSERT_TRUE(source.ok());
  EXPECT_TRUE((*source)->mapped().empty());
}

TEST_F(MappedFile, AMappedTraceLoadsAsTheSameTextInMemory) {
  for (const std::size_t size : {std::size_t{0}, 8 * page_size()}) {
    const std::string content = trace_text(300, size);
    Result<Trace> from_file = load_trace_file(write("trace.json", content));
    Result<Trace> from_memory = load_trace_text(content, "trace.json");
    ASSERT_TRUE(from_file.ok()) << from_file.error().describe();
    ASSERT_TRUE(from_memory.ok());
    ASSERT_EQ(from_file->events.size(), 300U);
    ASSERT_EQ(from_file->events.size(), from_memory->events.size());
    for (std::size_t i = 0; i < from_file->events.size(); ++i) {
      const auto event = static_cast<EventIndex>(i);
      EXPECT_EQ(from_file->events.start_ns[i], from_memory->events.start_ns[i]);
      EXPECT_EQ(from_file->name_of(event), from_memory->name_of(event));
    }
    EXPECT_EQ(from_file->stats.input_bytes, content.size());
  }
}

TEST_F(MappedFile, ATraceCutInsideAnEventFailsAtTheSameOffsetAsInMemory) {
  const std::string whole = trace_text(200);
  // Cut in the middle of an event, at a page boundary so that nothing of the file follows.
  std::string cut = whole.substr(0, whole.size() / 2);
  cut = cut.substr(0, cut.size() / page_size() * page_size());
  ASSERT_GT(cut.size(), 0U);
  for (const unsigned threads : {1U, 2U}) {
    LoadOptions options;
    options.threads = threads;
    Result<Trace> from_file = load_trace_file(write("cut.json", cut), options);
    Result<Trace> from_memory = load_trace_text(cut, "cut.json");
    ASSERT_FALSE(from_file.ok());
    ASSERT_FALSE(from_memory.ok());
    EXPECT_EQ(from_file.error().message, from_memory.error().message);
    EXPECT_EQ(from_file.error().byte_offset, from_memory.error().byte_offset);
    EXPECT_TRUE(from_file.error().byte_offset.has_value());
  }
}

}  // namespace
}  // namespace stepscope
