#include "stepscope/live/child_process.h"

#include <fcntl.h>
#include <sys/prctl.h>
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
  // fork + exec rather than posix_spawn, for PR_SET_PDEATHSIG: a monitor killed outright must
  // not leave its child running as an orphan. exec's errno comes back through a CLOEXEC pipe.
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) {
    pthread_sigmask(SIG_SETMASK, &saved, nullptr);
    return make_error(ErrorKind::kIo, std::string("cannot run: ") + std::strerror(errno));
  }
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(report[0]);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(kExitCommandNotRunnable);  // the parent already died
    // exec keeps an ignored disposition: started with SIGINT ignored (a script's background
    // job), the child would drop the Ctrl-C stepscope passes on, and be killed after the grace
    // period with nothing flushed.
    for (const int sig : {SIGINT, SIGQUIT}) ::signal(sig, SIG_DFL);
    pthread_sigmask(SIG_SETMASK, &saved, nullptr);
    ::execvp(args[0], args.data());
    const int failed = errno;
    (void)!::write(report[1], &failed, sizeof failed);
    ::_exit(failed == ENOENT ? kExitCommandNotFound : kExitCommandNotRunnable);
  }
  ::close(report[1]);
  int failed = 0;
  ssize_t got = 0;
  if (pid > 0) {
    do {
      got = ::read(report[0], &failed, sizeof failed);
    } while (got < 0 && errno == EINTR);
  } else {
    failed = errno;
    got = sizeof failed;
  }
  ::close(report[0]);
  if (got == static_cast<ssize_t>(sizeof failed)) {
    if (pid > 0) {
      int status = 0;
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &saved, nullptr);
    // Not found is a wrong request (127); found but not runnable (126) is the file's fault.
    Error error = make_error(failed == ENOENT ? ErrorKind::kBadOption : ErrorKind::kUnsupported,
                             "cannot run '" + argv[0] + "': " + std::strerror(failed));
    error.file = argv[0];
    return error;
  }
  return ChildProcess(pid, saved);
}

int spawn_failure_status(const Error& error) {
  return error.kind == ErrorKind::kUnsupported ? kExitCommandNotRunnable : kExitCommandNotFound;
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

// The child, and its process group when it made one of its own (a shell's job, a launcher):
// the group stepscope shares with it is left alone, since it holds stepscope too.
void ChildProcess::kill_for_good() const {
  const pid_t group = ::getpgid(pid_);
  if (group > 0 && group != ::getpgrp()) ::kill(-group, SIGKILL);
  ::kill(pid_, SIGKILL);
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
      if (stop_requested_at_ &&
          std::chrono::steady_clock::now() - *stop_requested_at_ > kStopGracePeriod) {
        kill_for_good();
      }
      continue;
    }
    if (sig == SIGCHLD) continue;
    if (should_forward(info)) kill(pid_, sig);
    // A child that ignores being asked to stop: a second request, or the grace period after
    // the first, ends it for good.
    const auto now = std::chrono::steady_clock::now();
    if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGQUIT) {
      if (stop_requested_at_) {
        kill_for_good();
      } else {
        stop_requested_at_ = now;
      }
    }
  }
  reaped_ = true;
  return shell_exit_status(status);
}

}  // namespace stepscope::live
