// A .json.gz inflated ahead (io/inflate_ahead.h, run_inflating_ahead) must give exactly what
// streaming it gives: the same trace; corrupt compressed data reported as such; and a text that
// outgrows its gzip trailer's size read again from the stream.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "importers/kineto/event_splitter.h"
#include "importers/kineto/inflating_read.h"
#include "importers/kineto/pipeline.h"
#include "importers/kineto/trace_builder.h"
#include "io/byte_source.h"
#include "io/inflate_ahead.h"
#include "stepscope/load.h"

namespace stepscope::kineto {
namespace {

namespace fs = std::filesystem;

// About `bytes` of Kineto-like events: ops with shapes, launches and kernels linked by
// correlation ids, a thread named late, a name that is not ASCII.
std::string trace_text(std::size_t bytes) {
  std::string text = "{\"schemaVersion\": 1, \"traceEvents\": [\n";
  for (std::int64_t i = 0; text.size() < bytes; ++i) {
    const std::string ts = std::to_string(1000 + i * 10);
    const std::string id = std::to_string(i);
    text += R"(  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": )";
    text += ts;
    text += R"(, "dur": 5, "args": {"External id": )";
    text += id;
    text += R"(, "Input Dims": [[2, 3], [3, 4]], "Input type": ["float", "float"]}},)";
    text += "\n";
    text +=
        R"(  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": )";
    text += ts;
    text += R"(, "dur": 2, "args": {"correlation": )";
    text += id;
    text += "}},\n";
    text += R"(  {"ph": "X", "cat": "kernel", "name": "gemm \u00e9", "pid": 0, "tid": 7, "ts": )";
    text += std::to_string(1005 + i * 10);
    text += R"(, "dur": 3, "args": {"correlation": )";
    text += id;
    text += R"(, "stream": 7, "device": 0}},)";
    text += "\n";
    if (i == 1000) {
      text +=
          R"(  {"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "naïve"}},)";
      text += "\n";
    }
  }
  text +=
      R"(  {"ph": "X", "cat": "cpu_op", "name": "last", "pid": 1, "tid": 2, "ts": 5, "dur": 1})";
  text += "\n], \"displayTimeUnit\": \"ms\"}\n";
  return text;
}

// The text as gzip members, one per piece (a file of several members, as `cat a.gz b.gz` makes).
std::string gzip(const std::string& text, const std::vector<std::size_t>& cuts = {}) {
  std::string out;
  std::size_t begin = 0;
  std::vector<std::size_t> ends = cuts;
  ends.push_back(text.size());
  for (const std::size_t end : ends) {
    z_stream stream{};
    EXPECT_EQ(deflateInit2(&stream, 1, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
    std::string member(deflateBound(&stream, end - begin), '\0');
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data() + begin));
    stream.avail_in = static_cast<uInt>(end - begin);
    stream.next_out = reinterpret_cast<Bytef*>(member.data());
    stream.avail_out = static_cast<uInt>(member.size());
    EXPECT_EQ(deflate(&stream, Z_FINISH), Z_STREAM_END);
    member.resize(stream.total_out);
    deflateEnd(&stream);
    out += member;
    begin = end;
  }
  return out;
}

class InflateAhead : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("stepscope_inflate_ahead_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    path_ = (dir_ / "trace.json.gz").string();
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& bytes) const {
    std::ofstream(path_, std::ios::binary | std::ios::trunc) << bytes;
  }

  fs::path dir_;
  std::string path_;
};

struct Reading {
  Trace trace;
  Status status = Done{};
  bool handed_over = false;
};

Reading read_inflating_ahead(const std::string& path) {
  Reading reading;
  std::unique_ptr<io::InflatingBuffer> buffer = io::inflating_buffer_for(path, 0, 1ULL << 30);
  EXPECT_NE(buffer, nullptr);
  if (!buffer) return reading;
  EventSplitter splitter(*buffer);
  TraceBuilder builder(reading.trace);
  reading.status = run_inflating_ahead(splitter, builder, *buffer, 1 << 16, {});
  reading.handed_over = splitter.reached_stop();
  if (reading.status) reading.status = builder.finish(splitter.top_level(), 2);
  return reading;
}

Reading read_stream(const std::string& path) {
  Reading reading;
  auto source = io::open_byte_source(path);
  EXPECT_TRUE(source.ok());
  EventSplitter splitter(**source);
  TraceBuilder builder(reading.trace);
  reading.status = run_sequential(splitter, builder, {});
  if (reading.status) reading.status = builder.finish(splitter.top_level(), 2);
  return reading;
}

void expect_same_trace(const Trace& a, const Trace& b) {
  ASSERT_EQ(a.strings.size(), b.strings.size());
  for (StringId id = 0; id < a.strings.size(); ++id) {
    EXPECT_EQ(a.strings.view(id), b.strings.view(id)) << "string " << id;
  }
  ASSERT_EQ(a.threads.size(), b.threads.size());
  for (std::size_t t = 0; t < a.threads.size(); ++t) {
    EXPECT_EQ(a.threads[t].name, b.threads[t].name);
  }
  EXPECT_EQ(a.events.start_ns, b.events.start_ns);
  EXPECT_EQ(a.events.dur_ns, b.events.dur_ns);
  EXPECT_EQ(a.events.name, b.events.name);
  EXPECT_EQ(a.events.thread, b.events.thread);
  EXPECT_EQ(a.events.correlation, b.events.correlation);
  EXPECT_EQ(a.events.args_row, b.events.args_row);
  EXPECT_EQ(a.events.source_offset, b.events.source_offset);
  EXPECT_EQ(a.events.source_length, b.events.source_length);
  EXPECT_EQ(a.events.parent, b.events.parent);
  EXPECT_EQ(a.events.launcher, b.events.launcher);
  EXPECT_EQ(a.stats.events_seen, b.stats.events_seen);
  EXPECT_EQ(a.display_time_unit, b.display_time_unit);
}

TEST_F(InflateAhead, GivesTheTraceOfTheStream) {
  write(gzip(trace_text(12 << 20)));
  const Reading stream = read_stream(path_);
  ASSERT_TRUE(stream.status.ok()) << stream.status.error().describe();
  ASSERT_GT(stream.trace.events.size(), 30000U);
  // Whether the inflating thread took over a later part depends on the threads' pace (it does
  // when it inflates faster than the reader reads): both ways must give the stream's trace.
  for (int round = 0; round < 3; ++round) {
    const Reading ahead = read_inflating_ahead(path_);
    ASSERT_TRUE(ahead.status.ok()) << ahead.status.error().describe();
    expect_same_trace(stream.trace, ahead.trace);
    RecordProperty("handed_over_" + std::to_string(round), ahead.handed_over ? 1 : 0);
    if (HasFailure()) return;
  }
}

// Looking for a gzip trailer must not open a FIFO: a writer blocked in open() would be let go,
// and what it wrote before the probe closed the FIFO again would be lost.
TEST_F(InflateAhead, AFifoIsNotOpenedToLookForATrailer) {
  const std::string fifo = (dir_ / "trace.json.gz.fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::atomic<bool> writer_opened = false;
  std::thread writer([&] {
    const int fd = ::open(fifo.c_str(), O_WRONLY | O_CLOEXEC);  // blocks until a reader opens
    writer_opened = true;
    if (fd >= 0) ::close(fd);
  });
  EXPECT_EQ(io::inflating_buffer_for(fifo, 0, 1ULL << 30), nullptr);
  // A probe that opened the FIFO has released the writer by now; none should have.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(writer_opened.load());
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);  // lets it go
  writer.join();
  if (reader >= 0) ::close(reader);
}

// What inflating the whole file alone reports.
std::optional<Error> inflation_error(const std::string& path) {
  auto source = io::open_byte_source(path);
  EXPECT_TRUE(source.ok());
  std::vector<char> chunk(1 << 20);
  for (;;) {
    Result<std::size_t> got = (*source)->read(chunk.data(), chunk.size());
    if (!got) return got.error();
    if (*got == 0) return std::nullopt;
  }
}

// Corrupt compressed data is the error reported, wherever the reader was in the text it made
// (it inflates all of it first; a stream reports it as soon as it has inflated that far, and may
// report a broken event first).
TEST_F(InflateAhead, ACorruptGzipIsTheErrorReported) {
  const std::string compressed = gzip(trace_text(2 << 20));
  std::size_t checked = 0;
  for (const double where : {0.3, 0.6, 0.9}) {
    std::string broken = compressed;
    const auto at = static_cast<std::size_t>(static_cast<double>(broken.size()) * where);
    broken[at] = static_cast<char>(broken[at] ^ 0x5a);
    write(broken);
    const std::optional<Error> corrupt = inflation_error(path_);
    ASSERT_TRUE(corrupt.has_value()) << where;
    EXPECT_FALSE(read_stream(path_).status.ok()) << where;
    if (!io::inflating_buffer_for(path_, 0, 1ULL << 30)) continue;
    const Reading ahead = read_inflating_ahead(path_);
    ASSERT_FALSE(ahead.status.ok());
    EXPECT_EQ(ahead.status.error().message, corrupt->message) << where;
    EXPECT_EQ(ahead.status.error().byte_offset, corrupt->byte_offset) << where;
    ++checked;
  }
  EXPECT_EQ(checked, 3U);  // the trailer is intact: every one was inflated ahead
}

// Two members, the last one (whose size the trailer gives) smaller than the whole: the text
// outgrows the room reserved, and loading reads the file again as a stream.
TEST_F(InflateAhead, ATextLargerThanItsTrailerSaysIsReadAgainFromTheStream) {
  const std::string text = trace_text(40 << 20);
  const std::size_t first_member = text.find("\n  {", 6 << 20) + 1;
  write(gzip(text, {first_member}));
  std::unique_ptr<io::InflatingBuffer> buffer = io::inflating_buffer_for(path_, 0, 1ULL << 30);
  ASSERT_NE(buffer, nullptr);
  {
    Trace trace;
    EventSplitter splitter(*buffer);
    TraceBuilder builder(trace);
    EXPECT_FALSE(run_inflating_ahead(splitter, builder, *buffer, 1 << 16, {}).ok());
    EXPECT_TRUE(buffer->overflowed());
  }
  LoadOptions two_threads;
  two_threads.threads = 2;  // the last member is over 32 MiB: it would be inflated ahead
  LoadOptions one_thread;
  one_thread.threads = 1;
  const Result<Trace> ahead = load_trace_file(path_, two_threads);
  const Result<Trace> streamed = load_trace_file(path_, one_thread);
  ASSERT_TRUE(ahead.ok()) << ahead.error().describe();
  ASSERT_TRUE(streamed.ok()) << streamed.error().describe();
  expect_same_trace(*streamed, *ahead);
}

// Text a reader is done with goes back to the system in whole (huge) pages only: a part of one
// would split it and free nothing. Offsets are into a region that need not start on a unit.
TEST(InflateAheadRelease, HandsBackWholeUnitsInsideTheRangeOnly) {
  constexpr std::uint64_t kUnit = 2 << 20;
  const std::uintptr_t aligned = 64 * kUnit;
  auto range = io::whole_units_within(aligned, 0, 3 * kUnit, kUnit);
  EXPECT_EQ(range.first, 0U);
  EXPECT_EQ(range.last, 3 * kUnit);
  range = io::whole_units_within(aligned, 1, 3 * kUnit - 1, kUnit);
  EXPECT_EQ(range.first, kUnit);
  EXPECT_EQ(range.last, 2 * kUnit);
  range = io::whole_units_within(aligned, 1, 2 * kUnit - 1, kUnit);  // no whole unit inside
  EXPECT_GE(range.first, range.last);
  const std::uintptr_t offset = aligned + 4096;  // the region starts 4 KiB past a unit
  range = io::whole_units_within(offset, 0, 3 * kUnit, kUnit);
  EXPECT_EQ(range.first, kUnit - 4096);
  EXPECT_EQ(range.last, 3 * kUnit - 4096);
  range = io::whole_units_within(offset, 0, kUnit, kUnit);
  EXPECT_GE(range.first, range.last);
  range = io::whole_units_within(offset, 8192, 8192 + 4096, 4096);  // 4 KiB pages as before
  EXPECT_EQ(range.first, 8192U);
  EXPECT_EQ(range.last, 8192U + 4096);
}

}  // namespace
}  // namespace stepscope::kineto
