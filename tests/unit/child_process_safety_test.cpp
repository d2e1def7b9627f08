// The monitor's child: shell exit statuses for a command that cannot start, a child that
// ignores stop signals is killed at the second one, and a killed parent leaves no orphan.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "stepscope/live/child_process.h"

namespace stepscope::live {
namespace {

namespace fs = std::filesystem;

TEST(ChildProcessSafety, NotRunnableIs126AndNotFoundIs127) {
  const fs::path script =
      fs::temp_directory_path() / ("stepscope_not_executable_" + std::to_string(::getpid()));
  std::ofstream(script) << "#!/bin/sh\necho hi\n";
  ::chmod(script.c_str(), 0644);
  Result<ChildProcess> denied = ChildProcess::spawn({script.string()});
  ASSERT_FALSE(denied.ok());
  EXPECT_EQ(spawn_failure_status(denied.error()), kExitCommandNotRunnable);
  EXPECT_NE(denied.error().message.find("Permission denied"), std::string::npos);
  Result<ChildProcess> missing = ChildProcess::spawn({"stepscope-no-such-command-xyz"});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(spawn_failure_status(missing.error()), kExitCommandNotFound);
  fs::remove(script);
}

TEST(ChildProcessSafety, SecondStopSignalKillsAChildThatIgnoresThem) {
  Result<ChildProcess> child =
      ChildProcess::spawn({"sh", "-c", "trap '' TERM INT HUP; while :; do sleep 0.05; done"});
  ASSERT_TRUE(child.ok());
  int ticks = 0;
  const auto start = std::chrono::steady_clock::now();
  const int status = child->wait(std::chrono::milliseconds(200), [&] {
    ++ticks;
    // The first two ticks give the shell time to set its trap; then two stop requests.
    if (ticks == 3 || ticks == 4) ::kill(::getpid(), SIGTERM);
  });
  EXPECT_EQ(status, 128 + SIGKILL);
  EXPECT_LT(std::chrono::steady_clock::now() - start, kStopGracePeriod);
}

TEST(ChildProcessSafety, AChildDiesWithItsParent) {
  int report[2];
  ASSERT_EQ(::pipe(report), 0);
  const pid_t parent = ::fork();
  ASSERT_GE(parent, 0);
  if (parent == 0) {
    Result<ChildProcess> child = ChildProcess::spawn({"sleep", "30"});
    const pid_t pid = child.ok() ? child->pid() : -1;
    (void)!::write(report[1], &pid, sizeof pid);
    ::_exit(0);  // no destructor: only PR_SET_PDEATHSIG can end the child
  }
  pid_t orphan = -1;
  ASSERT_EQ(::read(report[0], &orphan, sizeof orphan), static_cast<ssize_t>(sizeof orphan));
  ::close(report[0]);
  ::close(report[1]);
  int status = 0;
  ::waitpid(parent, &status, 0);
  ASSERT_GT(orphan, 0);
  // Gone, or a zombie waiting for whoever adopted it: either way no longer running.
  bool ended = false;
  for (int i = 0; i < 100 && !ended; ++i) {
    std::ifstream stat("/proc/" + std::to_string(orphan) + "/stat");
    std::string pid_field, name, state;
    ended = !(stat >> pid_field >> name >> state) || state == "Z" || state == "X";
    if (!ended) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(ended) << "sleep " << orphan << " outlived its parent";
  if (!ended) ::kill(orphan, SIGKILL);
}

}  // namespace
}  // namespace stepscope::live
