#include "tools/mpirun/events.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <utility>

namespace pamir::mpirun {

EventQueue::EventQueue() : fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}

EventQueue::~EventQueue() {
  if (fd_ >= 0) ::close(fd_);
}

void EventQueue::push(Event event) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    events_.push_back(std::move(event));
  }
  uint64_t one = 1;
  [[maybe_unused]] ssize_t n = ::write(fd_, &one, sizeof one);
}

std::vector<Event> EventQueue::drain() {
  uint64_t count;
  [[maybe_unused]] ssize_t n = ::read(fd_, &count, sizeof count);
  std::lock_guard<std::mutex> lock(mutex_);
  return std::exchange(events_, {});
}

}  // namespace pamir::mpirun
