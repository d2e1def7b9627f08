// A checkpoint, a snapshot or a trace passed to the wrong reader is named, not reported as a
// syntax error only.
#include "io/file_format.h"

#include <gtest/gtest.h>

#include <string>

#include "stepscope/load.h"
#include "stepscope/snapshot.h"

namespace stepscope {
namespace {

// torch.save's legacy header: protocol 2, then the pickled magic number.
const std::string kLegacyCheckpoint(
    "\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19\x2e\x80", 16);
const std::string kZipCheckpoint("PK\x03\x04\x00\x00\x08\x08\x00\x00\x00\x00", 12);
const std::string kPickle("\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00}\x94.", 14);

TEST(FileFormat, TellsTheKindsApart) {
  EXPECT_EQ(io::sniff_file_format(kZipCheckpoint), io::FileFormat::kTorchZipCheckpoint);
  EXPECT_EQ(io::sniff_file_format(kLegacyCheckpoint), io::FileFormat::kTorchLegacyCheckpoint);
  EXPECT_EQ(io::sniff_file_format(kPickle), io::FileFormat::kPickle);
  EXPECT_EQ(io::sniff_file_format("\xef\xbb\xbf  {\"traceEvents\": []}"), io::FileFormat::kJson);
  EXPECT_EQ(io::sniff_file_format("[{}]"), io::FileFormat::kJson);
  EXPECT_EQ(io::sniff_file_format("hello"), io::FileFormat::kUnknown);
  EXPECT_EQ(io::sniff_file_format(""), io::FileFormat::kUnknown);
}

TEST(FileFormat, NoHintForTheExpectedKindOrAnUnknownOne) {
  EXPECT_EQ(io::wrong_format_hint(io::FileFormat::kJson, io::FileFormat::kJson), "");
  EXPECT_EQ(io::wrong_format_hint(io::FileFormat::kUnknown, io::FileFormat::kJson), "");
}

TEST(FileFormat, TraceReaderNamesACheckpoint) {
  Result<Trace> zip = load_trace_text(kZipCheckpoint, "model.pt");
  ASSERT_FALSE(zip.ok());
  EXPECT_NE(zip.error().message.find("torch.save checkpoint (zip archive)"), std::string::npos)
      << zip.error().describe();
  Result<Trace> snapshot = load_trace_text(kPickle, "snapshot.pickle");
  ASSERT_FALSE(snapshot.ok());
  EXPECT_NE(snapshot.error().message.find("stepscope memory"), std::string::npos);
}

TEST(FileFormat, SnapshotReaderNamesACheckpointAndATrace) {
  Result<MemorySnapshot> legacy =
      load_memory_snapshot_bytes(kLegacyCheckpoint.data(), kLegacyCheckpoint.size(), "model.pt");
  ASSERT_FALSE(legacy.ok());
  EXPECT_NE(legacy.error().message.find("torch.save checkpoint (legacy pickle format)"),
            std::string::npos)
      << legacy.error().describe();
  const std::string trace = "{\"traceEvents\": []}";
  Result<MemorySnapshot> json = load_memory_snapshot_bytes(trace.data(), trace.size(), "t.json");
  ASSERT_FALSE(json.ok());
  EXPECT_NE(json.error().message.find("stepscope analyze"), std::string::npos)
      << json.error().describe();
}

}  // namespace
}  // namespace stepscope
