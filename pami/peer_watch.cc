#include "pami/peer_watch.h"

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

namespace pamir {

bool PeerWatch::add(uint32_t task, pid_t pid) {
  const int fd = int(::syscall(SYS_pidfd_open, pid, 0));
  if (fd < 0) return false;
  fds_.push_back({fd, POLLIN, 0});
  tasks_.push_back(task);
  pids_.push_back(pid);
  return true;
}

pid_t PeerWatch::pid_of(uint32_t task) const {
  for (size_t i = 0; i < tasks_.size(); ++i)
    if (tasks_[i] == task) return pids_[i];
  return 0;
}

void PeerWatch::clear() {
  for (const struct pollfd &p : fds_) ::close(p.fd);
  fds_.clear();
  tasks_.clear();
  pids_.clear();
}

// The coarse clock is a vDSO read of the last tick: idle() may ask on every sleep.
bool PeerWatch::due() {
  struct timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  const uint64_t now = uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
  if (now < next_ns_) return false;
  next_ns_ = now + uint64_t(kIntervalMs) * 1000000u;
  return true;
}

}  // namespace pamir
