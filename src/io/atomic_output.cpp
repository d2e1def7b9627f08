#include "io/atomic_output.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <mutex>

namespace stepscope::io {

namespace {

constexpr unsigned kGzipBufferBytes = 1U << 20;
constexpr int kMaxSymlinkHops = 40;  // as the kernel's own limit (ELOOP)
// Temporaries left by crashed runs of this pid, or written by its other threads at once.
constexpr unsigned kMaxTemporaryNames = 1000;

// Level 1 for gzip: the file is written once, to be viewed; the fastest level already shrinks
// trace JSON many times. "T" makes zlib write plain bytes through the same interface.
const char* open_mode(Compression compression) {
  return compression == Compression::kGzip ? "wb1" : "wbT";
}

std::string zlib_message(gzFile file) {
  int code = Z_OK;
  const char* text = gzerror(file, &code);
  if (code == Z_ERRNO) return std::strerror(errno);
  return text != nullptr ? text : "unknown zlib error";
}

// Temporaries open now, for the signal handler: a fixed table, because the handler may only
// touch memory that needs no allocation or lock. A slot is 0 free, 1 being filled, 2 live.
constexpr std::size_t kSlots = 32;
constexpr std::size_t kSlotPathBytes = 4096;
struct TemporarySlot {
  std::atomic<int> state{0};
  std::array<char, kSlotPathBytes> path{};
};
std::array<TemporarySlot, kSlots> g_temporaries;

extern "C" void remove_temporaries_and_die(int sig) {
  for (TemporarySlot& slot : g_temporaries) {
    if (slot.state.load() == 2) ::unlink(slot.path.data());
  }
  // Then die of the same signal, as if the handler had never been there.
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

// Only signals left at their default action (death) get the handler: a caller that handles or
// ignores them (Python's SIGINT, nohup's SIGHUP) keeps its own behaviour.
void install_handler_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction old {};
      if (::sigaction(sig, nullptr, &old) != 0) continue;
      if ((old.sa_flags & SA_SIGINFO) != 0 || old.sa_handler != SIG_DFL) continue;
      struct sigaction action {};
      action.sa_handler = remove_temporaries_and_die;
      sigemptyset(&action.sa_mask);
      ::sigaction(sig, &action, nullptr);
    }
  });
}

int register_temporary(const std::string& path) {
  if (path.size() >= kSlotPathBytes) return -1;
  install_handler_once();
  for (std::size_t i = 0; i < kSlots; ++i) {
    int expected = 0;
    if (g_temporaries[i].state.compare_exchange_strong(expected, 1)) {
      std::memcpy(g_temporaries[i].path.data(), path.c_str(), path.size() + 1);
      g_temporaries[i].state.store(2);
      return static_cast<int>(i);
    }
  }
  return -1;  // more than kSlots outputs open at once: this one is not cleaned on a signal
}

void unregister_temporary(int slot) {
  if (slot >= 0) g_temporaries[static_cast<std::size_t>(slot)].state.store(0);
}

std::string parent_folder(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return {};
  return path.substr(0, slash + 1);
}

Error output_error(const std::string& path, const std::string& what,
                   ErrorKind kind = ErrorKind::kIo) {
  Error error = make_error(kind, what);
  error.file = path;
  return error;
}

}  // namespace

Result<std::string> resolve_output_path(const std::string& path) {
  std::string current = path;
  for (int hop = 0; hop <= kMaxSymlinkHops; ++hop) {
    struct stat info {};
    if (::lstat(current.c_str(), &info) != 0 || !S_ISLNK(info.st_mode)) return current;
    std::string target(static_cast<std::size_t>(std::max<off_t>(info.st_size, 0)) + 256, '\0');
    const ssize_t length = ::readlink(current.c_str(), target.data(), target.size());
    if (length < 0) {
      return output_error(path, std::string("cannot read the symlink: ") + std::strerror(errno));
    }
    target.resize(static_cast<std::size_t>(length));
    // A relative link is relative to the folder that holds it.
    if (target.empty() || target.front() != '/') target.insert(0, parent_folder(current));
    current = std::move(target);
  }
  return output_error(path, "too many levels of symbolic links (a symlink loop?)",
                      ErrorKind::kBadOption);
}

Result<std::unique_ptr<AtomicOutputFile>> AtomicOutputFile::create(const std::string& path,
                                                                   Compression compression) {
  auto cannot_create = [&path](int error_number) {
    return output_error(path,
                        std::string("cannot create the output file: ") +
                            (error_number != 0 ? std::strerror(error_number) : "out of memory"));
  };
  auto wrap = [&](std::string destination, std::string temporary,
                  int fd) -> Result<std::unique_ptr<AtomicOutputFile>> {
    gzFile file = gzdopen(fd, open_mode(compression));
    if (file == nullptr) {
      const int saved = errno;
      ::close(fd);
      if (!temporary.empty()) ::unlink(temporary.c_str());
      return cannot_create(saved);
    }
    gzbuffer(file, kGzipBufferBytes);
    return std::unique_ptr<AtomicOutputFile>(new AtomicOutputFile(
        path, std::move(destination), std::move(temporary), static_cast<void*>(file)));
  };

  if (path == "-") {
    std::fflush(stdout);  // what was printed before comes first
    const int fd = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0);
    if (fd < 0) return cannot_create(errno);
    return wrap("-", {}, fd);
  }
  STEPSCOPE_ASSIGN_OR_RETURN(std::string destination, resolve_output_path(path));
  struct stat info {};
  const bool exists = ::stat(destination.c_str(), &info) == 0;
  if (exists && S_ISDIR(info.st_mode)) {
    return output_error(path, "cannot write the output: it is a folder", ErrorKind::kBadOption);
  }
  if (exists && !S_ISREG(info.st_mode)) {
    // A device, FIFO or socket is written to, never replaced: replacing /dev/null with a file
    // (as root) would break every later `> /dev/null` on the machine.
    const int fd = ::open(destination.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return cannot_create(errno);
    return wrap(std::move(destination), {}, fd);
  }
  // The temporary's name: this process's id and the first number free beside the destination.
  // O_EXCL makes taking a name atomic, so two writers (threads or processes) never share one.
  const std::string prefix = destination + ".tmp." + std::to_string(::getpid()) + ".";
  std::string temporary;
  int fd = -1;
  int failure = EEXIST;
  for (unsigned n = 0; fd < 0 && failure == EEXIST && n < kMaxTemporaryNames; ++n) {
    temporary = prefix + std::to_string(n);
    fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) failure = errno;
  }
  if (fd < 0) return cannot_create(failure);
  if (exists) (void)::fchmod(fd, info.st_mode & 07777);  // the replacement keeps the mode
  return wrap(std::move(destination), std::move(temporary), fd);
}

AtomicOutputFile::AtomicOutputFile(std::string path, std::string destination, std::string temporary,
                                   void* file)
    : path_(std::move(path)),
      destination_(std::move(destination)),
      temporary_(std::move(temporary)),
      file_(file) {
  if (!temporary_.empty()) cleanup_slot_ = register_temporary(temporary_);
}

AtomicOutputFile::~AtomicOutputFile() { discard(); }

void AtomicOutputFile::discard() {
  if (file_ == nullptr) return;
  gzclose(static_cast<gzFile>(file_));
  file_ = nullptr;
  if (!temporary_.empty()) {
    ::unlink(temporary_.c_str());
    unregister_temporary(cleanup_slot_);
    cleanup_slot_ = -1;
  }
}

Error AtomicOutputFile::error(const std::string& what) const { return output_error(path_, what); }

Status AtomicOutputFile::write(std::string_view bytes) {
  if (file_ == nullptr) return error("write after the output file was closed");
  auto* file = static_cast<gzFile>(file_);
  // gzwrite takes an unsigned length: write in pieces that fit.
  constexpr std::size_t kPiece = std::numeric_limits<int>::max() / 2;
  while (!bytes.empty()) {
    const std::size_t piece = std::min(bytes.size(), kPiece);
    if (gzwrite(file, bytes.data(), static_cast<unsigned>(piece)) != static_cast<int>(piece)) {
      return error("write failed: " + zlib_message(file));
    }
    bytes.remove_prefix(piece);
  }
  return Done{};
}

Status AtomicOutputFile::commit() {
  if (file_ == nullptr) return error("the output file was already closed");
  auto* file = static_cast<gzFile>(file_);
  file_ = nullptr;
  const int closed = gzclose(file);
  if (closed != Z_OK) {
    const char* why = closed == Z_ERRNO ? std::strerror(errno) : "compression failed";
    Error out = error(std::string("write failed: ") + why);
    if (!temporary_.empty()) {
      ::unlink(temporary_.c_str());
      unregister_temporary(cleanup_slot_);
      cleanup_slot_ = -1;
    }
    return out;
  }
  if (temporary_.empty()) return Done{};
  if (std::rename(temporary_.c_str(), destination_.c_str()) != 0) {
    Error out = error(std::string("cannot move the output into place: ") + std::strerror(errno));
    ::unlink(temporary_.c_str());
    unregister_temporary(cleanup_slot_);
    cleanup_slot_ = -1;
    return out;
  }
  unregister_temporary(cleanup_slot_);
  cleanup_slot_ = -1;
  return Done{};
}

}  // namespace stepscope::io
