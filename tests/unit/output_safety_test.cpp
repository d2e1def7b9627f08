// Outputs never destroy what is not theirs: devices and FIFOs are written through, symlinks are
// kept and their target replaced, an output equal to an input is refused before anything is
// read, and an interrupted write leaves no temporary behind.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "io/atomic_output.h"
#include "stepscope/output_check.h"

namespace stepscope {
namespace {

namespace fs = std::filesystem;

// A death test's child runs its test again from the start (the threadsafe style re-executes the
// binary), SetUp included: it takes the parent's folder from this variable, so that a temporary
// it leaves is where the parent looks, and no folder of its own is left behind.
constexpr const char* kFolderOfTheParent = "STEPSCOPE_OUTPUT_SAFETY_FOLDER";

class OutputSafety : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* parents = std::getenv(kFolderOfTheParent)) {
      dir_ = parents;
      return;
    }
    dir_ = fs::temp_directory_path() /
           ("stepscope_output_safety_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string write(const std::string& name, const std::string& content) const {
    std::ofstream(path(name), std::ios::binary) << content;
    return path(name);
  }
  static std::string read(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  // Names in the folder other than `keep`: left-over temporaries would show up here.
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_)) {
      names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }
  static Status write_atomically(const std::string& file, const std::string& content) {
    STEPSCOPE_ASSIGN_OR_RETURN(auto out,
                               io::AtomicOutputFile::create(file, io::Compression::kNone));
    STEPSCOPE_TRY(out->write(content));
    return out->commit();
  }

  fs::path dir_;
};

TEST_F(OutputSafety, RegularFileIsReplacedWholeAndKeepsItsMode) {
  const std::string file = write("out.json", "old");
  ::chmod(file.c_str(), 0640);
  ASSERT_TRUE(write_atomically(file, "new content"));
  EXPECT_EQ(read(file), "new content");
  struct stat info {};
  ASSERT_EQ(::stat(file.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0640U);
  EXPECT_EQ(entries(), std::vector<std::string>{"out.json"});
}

TEST_F(OutputSafety, SymlinkIsKeptAndItsTargetReplaced) {
  const std::string target = write("target.json", "old");
  fs::create_symlink("target.json", path("link.json"));
  ASSERT_TRUE(write_atomically(path("link.json"), "report"));
  EXPECT_TRUE(fs::is_symlink(path("link.json")));
  EXPECT_EQ(read(target), "report");
  // A dangling link creates the file it names, as the shell's `>` does.
  fs::create_symlink("later.json", path("dangling.json"));
  ASSERT_TRUE(write_atomically(path("dangling.json"), "x"));
  EXPECT_TRUE(fs::is_symlink(path("dangling.json")));
  EXPECT_EQ(read(path("later.json")), "x");
}

TEST_F(OutputSafety, SymlinkLoopIsAnError) {
  fs::create_symlink("b", path("a"));
  fs::create_symlink("a", path("b"));
  Status status = write_atomically(path("a"), "x");
  ASSERT_FALSE(status);
  EXPECT_NE(status.error().message.find("symbolic links"), std::string::npos);
}

TEST_F(OutputSafety, FifoIsWrittenThroughNotReplaced) {
  const std::string fifo = path("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] { received = read(fifo); });
  ASSERT_TRUE(write_atomically(fifo, "through the pipe"));
  reader.join();
  EXPECT_EQ(received, "through the pipe");
  struct stat info {};
  ASSERT_EQ(::lstat(fifo.c_str(), &info), 0);
  EXPECT_TRUE(S_ISFIFO(info.st_mode));
  EXPECT_EQ(entries(), std::vector<std::string>{"pipe"});
}

TEST_F(OutputSafety, FolderIsRefused) {
  fs::create_directories(path("sub"));
  Status status = write_atomically(path("sub"), "x");
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().kind, ErrorKind::kBadOption);
}

TEST_F(OutputSafety, UncommittedOutputLeavesNothing) {
  {
    auto out = io::AtomicOutputFile::create(path("out.json"), io::Compression::kGzip);
    ASSERT_TRUE(out);
    ASSERT_TRUE((*out)->write("half"));
    EXPECT_TRUE(fs::exists((*out)->temporary_path()));
  }
  EXPECT_TRUE(entries().empty());
}

// Two outputs open on one destination at once take different temporaries, past a name left by
// an earlier run; each removes only its own.
TEST_F(OutputSafety, TemporariesNeverCollide) {
  const std::string destination = path("out.json");
  // The first name an output would try, left by an earlier run of the same pid.
  const std::string stale = write("out.json.tmp." + std::to_string(::getpid()) + ".0", "not ours");
  auto first = io::AtomicOutputFile::create(destination, io::Compression::kNone);
  auto second = io::AtomicOutputFile::create(destination, io::Compression::kNone);
  ASSERT_TRUE(first);
  ASSERT_TRUE(second);
  const std::string first_temporary = (*first)->temporary_path();
  const std::string second_temporary = (*second)->temporary_path();
  EXPECT_NE(first_temporary, stale);
  EXPECT_NE(second_temporary, stale);
  EXPECT_NE(first_temporary, second_temporary);
  ASSERT_TRUE((*first)->write("first"));
  ASSERT_TRUE((*second)->write("second"));
  ASSERT_TRUE((*first)->commit());
  second->reset();  // not committed: its temporary goes, the stale name and the output stay
  EXPECT_EQ(read(destination), "first");
  EXPECT_EQ(read(stale), "not ours");
  EXPECT_FALSE(fs::exists(second_temporary));
}

// The temporary is removed when a signal ends the process mid-write (death tests fork).
void die_mid_write(const std::string& file, int sig) {
  auto out = io::AtomicOutputFile::create(file, io::Compression::kGzip);
  if (!out) std::_Exit(3);
  if (!(*out)->write(std::string(1 << 20, 'x'))) std::_Exit(4);
  if (!fs::exists((*out)->temporary_path())) std::_Exit(5);
  ::kill(::getpid(), sig);
  std::_Exit(6);  // not reached: the signal ends the process
}

TEST_F(OutputSafety, SignalsRemoveTheTemporary) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  ASSERT_EQ(::setenv(kFolderOfTheParent, dir_.c_str(), 1), 0);
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) {
    EXPECT_EXIT(die_mid_write(path("out.json.gz"), sig), ::testing::KilledBySignal(sig), "")
        << strsignal(sig);
    EXPECT_TRUE(entries().empty()) << strsignal(sig) << " left " << entries().front();
  }
  ::unsetenv(kFolderOfTheParent);
}

TEST_F(OutputSafety, OutputEqualToAnInputIsRefused) {
  const std::string trace = write("trace.json", "{}");
  fs::create_symlink("trace.json", path("alias.json"));
  const std::string other = write("other.json", "{}");
  for (const std::string& output : {trace, path("alias.json"), path("./trace.json")}) {
    Status status = check_output_paths({trace}, {{"--json", output}});
    ASSERT_FALSE(status) << output;
    EXPECT_EQ(status.error().kind, ErrorKind::kBadOption);
    EXPECT_NE(status.error().message.find("--json"), std::string::npos);
  }
  // Hard link: the same inode under another name.
  fs::create_hard_link(trace, path("hard.json"));
  EXPECT_FALSE(check_output_paths({trace}, {{"-o", path("hard.json")}}));
  // A file inside an input folder, and the second input of a diff.
  EXPECT_FALSE(check_output_paths({dir_.string()}, {{"--json", other}}));
  EXPECT_FALSE(check_output_paths({other, trace}, {{"--html", trace}}));
  EXPECT_TRUE(check_output_paths({trace}, {{"--json", path("new.json")}}));
  EXPECT_TRUE(check_output_paths({trace}, {{"--json", other}}));
  EXPECT_TRUE(check_output_paths({trace}, {{"--json", ""}, {"--annotate", ""}}));
}

TEST_F(OutputSafety, TwoOutputsNamingOneFileAreRefused) {
  const std::string trace = write("trace.json", "{}");
  EXPECT_FALSE(check_output_paths(
      {trace}, {{"--json", path("out.json")}, {"--annotate", path("./out.json")}}));
  fs::create_symlink("out.json", path("link.json"));
  EXPECT_FALSE(check_output_paths(
      {trace}, {{"--json", path("out.json")}, {"--annotate", path("link.json")}}));
  EXPECT_FALSE(check_output_paths({trace}, {{"--json", "-"}, {"--html", "-"}}));
  EXPECT_TRUE(
      check_output_paths({trace}, {{"--json", path("a.json")}, {"--annotate", path("b.json")}}));
  // /dev/null twice is harmless: nothing is replaced.
  EXPECT_TRUE(check_output_paths({trace}, {{"--json", "/dev/null"}, {"--csv", "/dev/null"}}));
}

TEST_F(OutputSafety, ProbeFindsAnUnwritableOutputAndLeavesNothing) {
  EXPECT_TRUE(probe_output_path(path("fine.json")));
  EXPECT_TRUE(entries().empty());
  Status missing = probe_output_path(path("no/such/folder/out.json"));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().file, path("no/such/folder/out.json"));
}

}  // namespace
}  // namespace stepscope
