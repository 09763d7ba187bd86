#include "tools/mpirun/output.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>

namespace pamir::mpirun {

void write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n > 0) {
      data.remove_prefix(static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && errno == EAGAIN) {
      pollfd p{fd, POLLOUT, 0};
      ::poll(&p, 1, -1);
    } else {
      return;
    }
  }
}

void say(const char *fmt, ...) {
  char buf[4096];
  int head = std::snprintf(buf, sizeof buf, "mpirun: ");
  va_list ap;
  va_start(ap, fmt);
  int n = std::vsnprintf(buf + head, sizeof buf - head - 1, fmt, ap);
  va_end(ap);
  size_t len = static_cast<size_t>(head) + (n < 0 ? 0 : static_cast<size_t>(n));
  if (len > sizeof buf - 2) len = sizeof buf - 2;
  buf[len++] = '\n';
  write_all(STDERR_FILENO, std::string_view(buf, len));
}

}  // namespace pamir::mpirun
