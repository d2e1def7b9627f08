// The loader's front door: a file's kind is read from its first bytes, never its name, and the
// file goes to the reader of that kind; a kind that no reader reads is named, with what reads it.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>

#include "io/file_format.h"
#include "load/format_registry.h"
#include "stepscope/load.h"
#include "support/nsys_fixture.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TempFolder;

const std::string kPickle("\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00}\x94.", 14);
const std::string kZstd("\x28\xb5\x2f\xfd\x24\x00\x01\x00\x00\x99\xe9\xd8\x51", 13);
// A Perfetto trace's first packet: field 1 (0x0a), its length, then binary fields.
const std::string kPerfetto("\x0a\x12\x08\x01\x10\x80\x80\x04\x18\x00\x22\x04\x08\x01", 14);
const std::string kSqliteHeader("SQLite format 3\0\x10\x00\x01\x01\x00\x40\x20\x20", 24);

std::string write(const TempFolder& folder, const std::string& name, const std::string& bytes) {
  std::string path = folder.file(name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string small_trace_json() {
  testing::TraceFixture fixture;
  fixture.step(1, 0, 100).op("aten::mm", 10, 50);
  return fixture.json();
}

TEST(FrontDoor, TellsEveryKindByItsFirstBytes) {
  EXPECT_EQ(io::sniff_file_format("\x1f\x8b\x08\x00"), io::FileFormat::kGzip);
  EXPECT_EQ(io::sniff_file_format(kZstd), io::FileFormat::kZstd);
  EXPECT_EQ(io::sniff_file_format(kSqliteHeader), io::FileFormat::kSqlite);
  EXPECT_EQ(io::sniff_file_format(kPerfetto), io::FileFormat::kPerfettoProtobuf);
  EXPECT_EQ(io::sniff_file_format(kPickle), io::FileFormat::kPickle);
  EXPECT_EQ(io::sniff_file_format("{\"traceEvents\": []}"), io::FileFormat::kJson);
  // Text that starts with a blank line is not a Perfetto packet.
  EXPECT_EQ(io::sniff_file_format("\nhello, world\n"), io::FileFormat::kUnknown);
  // Not quite SQLite's header.
  EXPECT_EQ(io::sniff_file_format(std::string("SQLite format 2\0", 16)), io::FileFormat::kUnknown);
}

TEST(FrontDoor, EachKindHasOneReaderRow) {
  std::set<io::FileFormat> formats;
  for (const TraceReaderRow& row : trace_readers()) {
    EXPECT_TRUE(formats.insert(row.format).second) << row.name;
    EXPECT_NE(row.read, nullptr) << row.name;
    EXPECT_EQ(reader_for(row.format), &row);
  }
  EXPECT_NE(reader_for(io::FileFormat::kJson), nullptr);
  EXPECT_NE(reader_for(io::FileFormat::kSqlite), nullptr);
  EXPECT_EQ(reader_for(io::FileFormat::kPickle), nullptr);
  EXPECT_EQ(reader_for(io::FileFormat::kPerfettoProtobuf), nullptr);
}

TEST(FrontDoor, TheBytesDecideNotTheName) {
  TempFolder folder;
  // Kineto JSON under a name that says SQLite, and an SQLite database under a name that says JSON.
  const std::string json_named_sqlite = write(folder, "trace.sqlite", small_trace_json());
  Result<Trace> json = load_trace_file(json_named_sqlite);
  ASSERT_TRUE(json.ok()) << json.error().describe();
  EXPECT_EQ(json->origin.format, TraceFormat::kKinetoJson);
  EXPECT_GT(json->events.size(), 0U);

  const std::string export_path = folder.file("export.json");
  testing::NsysFixture()
      .range("ProfilerStep#1", 0, 100)
      .launched_kernel("volta_sgemm_128x64_nn", 10, 20, 50)
      .write(export_path);
  Result<Trace> nsight = load_trace_file(export_path);
  ASSERT_TRUE(nsight.ok()) << nsight.error().describe();
  EXPECT_EQ(nsight->origin.format, TraceFormat::kNsightSqlite);
  EXPECT_FALSE(nsight->events.device_activities.empty());
}

TEST(FrontDoor, AKnownKindWithoutAReaderIsNamed) {
  TempFolder folder;
  struct Case {
    std::string bytes;
    std::string says;
  };
  const Case cases[] = {
      {kPickle, "stepscope memory"},
      {kZstd, "zstd -d"},
      {kPerfetto, "Perfetto"},
      {std::string("PK\x03\x04\x00\x00", 6), "torch.save checkpoint"},
  };
  for (const Case& c : cases) {
    const std::string path = write(folder, "trace.json", c.bytes);
    Result<Trace> trace = load_trace_file(path);
    ASSERT_FALSE(trace.ok()) << c.says;
    EXPECT_EQ(trace.error().kind, ErrorKind::kNotTrace) << c.says;
    EXPECT_EQ(trace.error().file, path);
    EXPECT_NE(trace.error().message.find(c.says), std::string::npos) << trace.error().describe();
  }
}

TEST(FrontDoor, UnknownBytesGetTheJsonReadersError) {
  TempFolder folder;
  const std::string path = write(folder, "trace.json", "hello");
  Result<Trace> trace = load_trace_file(path);
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(trace.error().kind, ErrorKind::kNotJson) << trace.error().describe();
  EXPECT_TRUE(trace.error().byte_offset.has_value());
}

TEST(FrontDoor, AFolderPassesOverFilesOfAnotherKind) {
  TempFolder folder;
  write(folder, "rank0.json", small_trace_json());
  write(folder, "snapshot.json", kPickle);
  Result<TraceSet> set = load_traces(folder.path().string());
  ASSERT_TRUE(set.ok()) << set.error().describe();
  ASSERT_EQ(set->ranks.size(), 1U);
  ASSERT_EQ(set->skipped.size(), 1U);
  EXPECT_NE(set->skipped[0].path.find("snapshot.json"), std::string::npos);
  EXPECT_NE(set->skipped[0].reason.find("pickle"), std::string::npos) << set->skipped[0].reason;
}

TEST(FrontDoor, AFolderOfKinetoAndNsightFilesIsOneJob) {
  TempFolder folder;
  write(folder, "trace_rank0.json", small_trace_json());
  testing::NsysFixture()
      .range("ProfilerStep#1", 0, 100)
      .launched_kernel("volta_sgemm_128x64_nn", 10, 20, 50)
      .write(folder.file("report_rank1.sqlite"));
  Result<TraceSet> set = load_traces(folder.path().string());
  ASSERT_TRUE(set.ok()) << set.error().describe();
  ASSERT_EQ(set->ranks.size(), 2U);
  EXPECT_EQ(set->ranks[0].rank, 0);
  EXPECT_EQ(set->ranks[0].origin.format, TraceFormat::kKinetoJson);
  EXPECT_EQ(set->ranks[1].rank, 1);
  EXPECT_EQ(set->ranks[1].rank_source, RankSource::kFileName);
  EXPECT_EQ(set->ranks[1].origin.format, TraceFormat::kNsightSqlite);
}

TEST(FrontDoor, AReportNamedByItsSuffixGoesToTheNsightReader) {
  TempFolder folder;
  // A report's container has no magic stepscope checks: an unrecognised file named .nsys-rep is
  // taken as one, and without `nsys` on PATH the error gives the command to run.
  const std::string path = write(folder, "run.nsys-rep", std::string(64, '\x07'));
  Result<io::FileFormat> format = guess_file_format(path);
  ASSERT_TRUE(format.ok());
  EXPECT_EQ(*format, io::FileFormat::kNsightReport);
  const std::string json_named_report = write(folder, "json.nsys-rep", small_trace_json());
  EXPECT_EQ(*guess_file_format(json_named_report), io::FileFormat::kJson);
}

}  // namespace
}  // namespace stepscope
