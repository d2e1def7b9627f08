// Runs a command as a child of the calling process for `stepscope monitor`: the child inherits
// standard input, output and error (its output reaches the terminal unchanged), and the parent
// waits for it while forwarding the signals meant for the child.
#pragma once

#include <signal.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "stepscope/error.h"

namespace stepscope::live {

// Shell conventions: the exit code, or 128 + N when killed by signal N; 127 when the command
// could not be found, 126 when it could not be run.
inline constexpr int kExitCommandNotFound = 127;
inline constexpr int kExitCommandNotRunnable = 126;

class ChildProcess {
 public:
  // Blocks SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGCHLD in the calling thread (threads started
  // later inherit the mask) and starts `argv` with the default mask and dispositions. Call it
  // before starting other threads.
  static Result<ChildProcess> spawn(const std::vector<std::string>& argv);
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&&) = delete;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess();  // restores the signal mask; kills and reaps a child still running

  [[nodiscard]] std::int32_t pid() const { return pid_; }

  // Waits for the child to end and returns its shell-style exit status. A second stop signal,
  // or kStopGracePeriod after the first, kills the child (SIGKILL): it cannot ignore them. Calls
  // `tick` every `tick_period` while waiting. SIGTERM and SIGHUP are passed on to the child; SIGINT
  // and SIGQUIT are passed on only when sent to this process alone (a Ctrl-C on the terminal
  // already reaches the child, which shares the foreground process group).
  int wait(std::chrono::milliseconds tick_period, const std::function<void()>& tick);

 private:
  ChildProcess(std::int32_t pid, const sigset_t& saved_mask);
  void kill_for_good() const;
  std::int32_t pid_ = -1;
  bool reaped_ = false;
  sigset_t saved_mask_{};  // the caller's, restored on destruction
  std::optional<std::chrono::steady_clock::time_point> stop_requested_at_;
};

// How long a child may take to stop after a stop signal was passed on, before it is killed.
inline constexpr auto kStopGracePeriod = std::chrono::seconds(10);

// The shell's status for a command spawn() could not start: 127 not found, 126 not runnable
// (permission denied, not an executable).
[[nodiscard]] int spawn_failure_status(const Error& error);

// 128 + N for a child killed by signal N, else its exit code (from a waitpid status).
[[nodiscard]] int shell_exit_status(int wait_status);

}  // namespace stepscope::live
