// read_whole_file (io/whole_file.h) opens inputs as the trace readers do: a FIFO is read once a
// writer comes, a folder is refused by name, a file over the cap is refused before it is read
// whole.
#include "io/whole_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace stepscope {
namespace {

namespace fs = std::filesystem;

class WholeFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("stepscope_whole_file_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(WholeFile, AFifoIsReadWhenAWriterComes) {
  const fs::path fifo = dir_ / "summary.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&fifo] { std::ofstream(fifo) << "{\"summary_version\": 1}"; });
  Result<std::string> text = io::read_whole_file(fifo.string(), 1 << 20, "too large");
  writer.join();
  ASSERT_TRUE(text.ok()) << text.error().describe();
  EXPECT_EQ(*text, "{\"summary_version\": 1}");
}

TEST_F(WholeFile, AFolderAndAnOversizedFileAreRefusedByName) {
  Result<std::string> folder = io::read_whole_file(dir_.string(), 1 << 20, "too large");
  ASSERT_FALSE(folder.ok());
  EXPECT_EQ(folder.error().file, dir_.string());
  EXPECT_NE(folder.error().message.find("folder"), std::string::npos);
  const fs::path big = dir_ / "big.json";
  std::ofstream(big) << std::string(4096, ' ');
  Result<std::string> over = io::read_whole_file(big.string(), 1024, "a summary is small");
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().kind, ErrorKind::kLimitExceeded);
  EXPECT_EQ(over.error().message, "a summary is small");
}

}  // namespace
}  // namespace stepscope
