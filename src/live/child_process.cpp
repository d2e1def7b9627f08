#include "stepscope/live/child_process.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

namespace stepscope::live {

namespace {

// The signals the parent takes over while a child runs: SIGCHLD to learn that it ended without
// polling, the others to forward. Waiting for them with sigtimedwait needs no handler and no
// global state.
sigset_t handled_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaddset(&set, sig);
  return set;
}

// A terminal's Ctrl-C or Ctrl-\ is sent by the kernel to the whole foreground process group, so
// the child already has it; only a signal sent to this process alone must be passed on.
bool should_forward(const siginfo_t& info) {
  if (info.si_signo == SIGTERM || info.si_signo == SIGHUP) return true;
  return info.si_code == SI_USER || info.si_code == SI_QUEUE;
}

timespec to_timespec(std::chrono::milliseconds period) {
  timespec t{};
  t.tv_sec = static_cast<time_t>(period.count() / 1000);
  t.tv_nsec = static_cast<long>((period.count() % 1000) * 1'000'000);
  return t;
}

}  // namespace

int shell_exit_status(int wait_status) {
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  return 1;
}

Result<ChildProcess> ChildProcess::spawn(const std::vector<std::string>& argv) {
  if (argv.empty()) return make_error(ErrorKind::kBadOption, "no command to run");
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  const sigset_t handled = handled_signals();
  sigset_t saved;
  pthread_sigmask(SIG_BLOCK, &handled, &saved);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setsigmask(&attributes, &saved);  // the child gets the caller's mask back
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK);
  pid_t pid = -1;
  const int failed = posix_spawnp(&pid, args[0], nullptr, &attributes, args.data(), environ);
  posix_spawnattr_destroy(&attributes);
  if (failed != 0) {
    pthread_sigmask(SIG_SETMASK, &saved, nullptr);
    Error error =
        make_error(ErrorKind::kIo, "cannot run '" + argv[0] + "': " + std::strerror(failed));
    error.file = argv[0];
    return error;
  }
  return ChildProcess(pid, saved);
}

ChildProcess::ChildProcess(std::int32_t pid, const sigset_t& saved_mask)
    : pid_(pid), saved_mask_(saved_mask) {}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(other.pid_), reaped_(other.reaped_), saved_mask_(other.saved_mask_) {
  other.pid_ = -1;
}

ChildProcess::~ChildProcess() {
  if (pid_ <= 0) return;
  if (!reaped_) {
    kill(pid_, SIGKILL);
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  // Drop signals that arrived while blocked so they do not fire once unblocked.
  const sigset_t handled = handled_signals();
  const timespec zero{};
  siginfo_t info;
  while (sigtimedwait(&handled, &info, &zero) > 0) {
  }
  pthread_sigmask(SIG_SETMASK, &saved_mask_, nullptr);
}

int ChildProcess::wait(std::chrono::milliseconds tick_period, const std::function<void()>& tick) {
  const sigset_t handled = handled_signals();
  const timespec period = to_timespec(tick_period);
  int status = 0;
  while (true) {
    // SIGCHLD may have been consumed before the child ended (a stop, another child): check first.
    const pid_t done = waitpid(pid_, &status, WNOHANG);
    if (done == pid_) break;
    if (done < 0 && errno != EINTR) return 1;
    siginfo_t info;
    const int sig = sigtimedwait(&handled, &info, &period);
    if (sig < 0) {
      if (errno == EAGAIN && tick) tick();
      continue;
    }
    if (sig != SIGCHLD && should_forward(info)) kill(pid_, sig);
  }
  reaped_ = true;
  return shell_exit_status(status);
}

}  // namespace stepscope::live
