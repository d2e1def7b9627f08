// Files the Nsight Systems reader must refuse with a clear error (never a crash or a hang),
// and the promise that reading an export changes nothing on disk.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <set>
#include <string>

#include "importers/nsys/nsys_reader.h"
#include "support/nsys_fixture.h"

namespace stepscope {
namespace {

using testing::NsysFixture;
using testing::TempFolder;

std::string bytes_of(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& file, const std::string& bytes) {
  std::ofstream(file, std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

NsysFixture small_loop() {
  NsysFixture fixture;
  for (int s = 0; s < 3; ++s) {
    fixture.range("ProfilerStep#" + std::to_string(s), s * 1000.0, 1000);
    for (int k = 0; k < 20; ++k) {
      fixture.launched_kernel("kernel_" + std::to_string(k), s * 1000.0 + k * 40 + 1,
                              s * 1000.0 + k * 40 + 10, 30);
    }
  }
  return fixture;
}

TEST(NsysBadInput, AnSqliteFileThatIsNoExportNamesTheMissingTables) {
  TempFolder folder;
  const std::string file = folder.file("other.sqlite");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(
      sqlite3_exec(db, "CREATE TABLE users (id INTEGER, name TEXT)", nullptr, nullptr, nullptr),
      SQLITE_OK);
  sqlite3_close(db);
  const Result<Trace> trace = nsys::read_sqlite(file, {}, nullptr);
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(trace.error().kind, ErrorKind::kNotTrace);
  EXPECT_EQ(trace.error().file, file);
  EXPECT_NE(trace.error().message.find("not an Nsight Systems export: no table StringIds, "
                                       "CUPTI_ACTIVITY_KIND_RUNTIME"),
            std::string::npos)
      << trace.error().message;
}

TEST(NsysBadInput, ATruncatedExportIsCorruptNotACrash) {
  TempFolder folder;
  const std::string whole = folder.file("whole.sqlite");
  small_loop().write(whole);
  const std::string bytes = bytes_of(whole);
  const std::string half = folder.file("half.sqlite");
  write_bytes(half, bytes.substr(0, bytes.size() / 2));
  const Result<Trace> trace = nsys::read_sqlite(half, {}, nullptr);
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(trace.error().file, half);
  EXPECT_NE(trace.error().message.find("corrupt or truncated"), std::string::npos)
      << trace.error().message;
}

TEST(NsysBadInput, RandomBytesAfterTheHeaderAreRefused) {
  TempFolder folder;
  std::string bytes("SQLite format 3\0", 16);
  std::mt19937 random(7);
  for (int i = 0; i < 8192; ++i) bytes += static_cast<char>(random() & 0xFFU);
  const std::string file = folder.file("random.sqlite");
  write_bytes(file, bytes);
  const Result<Trace> trace = nsys::read_sqlite(file, {}, nullptr);
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(trace.error().file, file);
  EXPECT_FALSE(trace.error().message.empty());
}

TEST(NsysBadInput, AMissingFileIsAnIoError) {
  TempFolder folder;
  const Result<Trace> trace = nsys::read_sqlite(folder.file("absent.sqlite"), {}, nullptr);
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(trace.error().kind, ErrorKind::kIo);
}

TEST(NsysBadInput, AnExportWithoutGpuActivityIsReadForItsHost) {
  NsysFixture fixture;
  fixture.range("ProfilerStep#0", 0, 100);
  fixture.range("aten::add, seq = 1", 10, 20);
  TempFolder folder;
  const std::string file = folder.file("host.sqlite");
  fixture.write(file);
  std::vector<std::string> notes;
  const Result<Trace> trace = nsys::read_sqlite(file, {}, &notes);
  ASSERT_TRUE(trace.ok()) << trace.error().describe();
  EXPECT_EQ(trace->events.device_activities.size(), 0U);
  EXPECT_EQ(trace->events.size(), 2U);
  ASSERT_FALSE(notes.empty());
  bool said = false;
  for (const std::string& note : notes) said = said || note.find("no GPU activity") != note.npos;
  EXPECT_TRUE(said);
}

TEST(NsysBadInput, AReportWithoutNsysOnPathGivesTheCommand) {
  const char* old_path = std::getenv("PATH");
  const std::string saved = old_path != nullptr ? old_path : "";
  ::setenv("PATH", "/nonexistent-stepscope-test", 1);
  const Result<Trace> trace = nsys::read_report("run.nsys-rep", {}, nullptr);
  ::setenv("PATH", saved.c_str(), 1);
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(trace.error().file, "run.nsys-rep");
  EXPECT_NE(
      trace.error().message.find("nsys export --type sqlite --output run.sqlite run.nsys-rep"),
      std::string::npos)
      << trace.error().message;
}

TEST(NsysReport, AReportIsExportedWithNsysIntoATemporaryAndRead) {
  // A stand-in for nsys: `nsys export --type sqlite --output OUT REPORT` copies REPORT to OUT.
  TempFolder folder;
  const std::filesystem::path bin = folder.path() / "bin";
  std::filesystem::create_directories(bin);
  write_bytes((bin / "nsys").string(), "#!/bin/sh\ncp \"$6\" \"$5\"\n");
  std::filesystem::permissions(bin / "nsys", std::filesystem::perms::owner_all);
  const std::string report = folder.file("run.nsys-rep");
  small_loop().write(report);
  const char* old_path = std::getenv("PATH");
  const std::string saved = old_path != nullptr ? old_path : "";
  ::setenv("PATH", (bin.string() + ":" + saved).c_str(), 1);
  std::vector<std::string> notes;
  const Result<Trace> trace = nsys::read_report(report, {}, &notes);
  ::setenv("PATH", saved.c_str(), 1);
  ASSERT_TRUE(trace.ok()) << trace.error().describe();
  EXPECT_EQ(trace->source_path, report);
  EXPECT_EQ(trace->events.device_activities.size(), 60U);
  ASSERT_FALSE(notes.empty());
  EXPECT_NE(notes.front().find("read through `nsys export --type sqlite`"), std::string::npos);
  for (const std::string& note : notes) EXPECT_EQ(note.rfind(report, 0), 0U) << note;
}

struct FileState {
  std::string bytes;
  std::int64_t mtime_ns = 0;
  std::set<std::string> listing;
};

FileState state_of(const TempFolder& folder, const std::string& file) {
  FileState state;
  state.bytes = bytes_of(file);
  struct stat info {};
  ::stat(file.c_str(), &info);
  state.mtime_ns =
      static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec;
  for (const auto& entry : std::filesystem::directory_iterator(folder.path())) {
    state.listing.insert(entry.path().filename().string());
  }
  return state;
}

TEST(NsysReadOnly, ReadingChangesNeitherTheFileNorItsFolder) {
  TempFolder folder;
  const std::string file = folder.file("report.sqlite");
  small_loop().write(file);
  const FileState before = state_of(folder, file);
  ASSERT_EQ(before.listing, (std::set<std::string>{"report.sqlite"}));
  const Result<Trace> trace = nsys::read_sqlite(file, {}, nullptr);
  ASSERT_TRUE(trace.ok()) << trace.error().describe();
  const FileState after = state_of(folder, file);
  EXPECT_EQ(after.bytes, before.bytes);
  EXPECT_EQ(after.mtime_ns, before.mtime_ns);
  EXPECT_EQ(after.listing, before.listing);  // no -journal, -wal or -shm beside it
}

TEST(NsysReadOnly, PathsWithCharactersThatUrisEscapeOpen) {
  TempFolder folder;
  const std::string file = folder.file("my run #1 ?50%.sqlite");
  small_loop().write(file);
  const Result<Trace> trace = nsys::read_sqlite(file, {}, nullptr);
  ASSERT_TRUE(trace.ok()) << trace.error().describe();
  EXPECT_EQ(trace->source_path, file);
}

}  // namespace
}  // namespace stepscope
