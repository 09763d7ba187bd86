#include "tools/mpirun/events.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
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

namespace {
void release_fence_data(void *data) { std::free(data); }
}  // namespace

void complete(Event &event, pmix_status_t status) {
  if (event.kind == EventKind::kFence) {
    if (event.modex_cb == nullptr) return;
    // libpmix reads the data after we return and tells us when it is done with it.
    char *copy = nullptr;
    if (!event.data.empty()) {
      copy = static_cast<char *>(std::malloc(event.data.size()));
      if (copy != nullptr) std::memcpy(copy, event.data.data(), event.data.size());
    }
    size_t size = copy != nullptr ? event.data.size() : 0;
    event.modex_cb(status, copy, size, event.cbdata, release_fence_data, copy);
    event.modex_cb = nullptr;
    return;
  }
  if (event.op_cb != nullptr) {
    event.op_cb(status, event.cbdata);
    event.op_cb = nullptr;
  }
}

}  // namespace pamir::mpirun
