#include "io/input_open.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace stepscope::io {

namespace {

constexpr int kFifoWaitMilliseconds = 60'000;

Error failure(int fd, std::string message) {
  if (fd >= 0) ::close(fd);
  return make_error(ErrorKind::kIo, std::move(message));
}

}  // namespace

Result<OpenedInput> open_input(const std::string& path) {
  OpenedInput opened;
  if (path == "-") {
    opened.fd = ::fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0);
  } else {
    opened.fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  }
  if (opened.fd < 0) return failure(-1, std::string("cannot open: ") + std::strerror(errno));
  if (::fstat(opened.fd, &opened.info) != 0) {
    return failure(opened.fd, std::string("cannot open: ") + std::strerror(errno));
  }
  if (S_ISDIR(opened.info.st_mode)) return failure(opened.fd, "cannot open: it is a folder");
  if (S_ISFIFO(opened.info.st_mode) && path != "-") {
    pollfd wait_for{opened.fd, POLLIN, 0};
    int ready = 0;
    do {
      ready = ::poll(&wait_for, 1, kFifoWaitMilliseconds);
    } while (ready < 0 && errno == EINTR);
    if (ready == 0) {
      return failure(opened.fd, "nothing wrote to this FIFO within " +
                                    std::to_string(kFifoWaitMilliseconds / 1000) + " s");
    }
  }
  const int flags = ::fcntl(opened.fd, F_GETFL);
  if (flags >= 0) ::fcntl(opened.fd, F_SETFL, flags & ~O_NONBLOCK);
  return opened;
}

}  // namespace stepscope::io
