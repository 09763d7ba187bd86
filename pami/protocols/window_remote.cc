// Path remote (WinPath): puts and gets to a window rank whose memory this process neither maps nor
// attaches, through a device whose RMA needs nothing of the target (Device::passive_rma: the torus's
// engine copies between the two processes), into the memory the target exposed at creation
// (Window::create). Passive target then works while the target computes, as it does on the node.
// Accumulate-type operations and locks stay served: elements are atomic against each other only where
// one party applies them all, and the device has no atomics.
//
// Each call returns once the device has moved every byte (the engine counts a put's bytes as they land
// in the target's memory), so a put or get is complete at the target when it returns and a flush has
// only the served operations to wait for.
#include <algorithm>
#include <cerrno>

#include "devices/device.h"
#include "pami/stats.h"
#include "pami/window.h"

namespace pamir {

bool Window::expose_for_remote(uint64_t base, uint64_t size, uint64_t &addr, uint64_t &key) {
  return rma_dev_->expose_held(rma_hold_, reinterpret_cast<const void *>(uintptr_t(base)), size, addr, key);
}

int Window::device_rma(uint32_t r, bool write, const struct iovec *local, const struct iovec *remote,
                       unsigned n) {
  const WinTarget &t = targets_[r];
  // Addresses in the target's space become the device's (an offset into the exposed region on the torus).
  constexpr unsigned kBatch = 64;
  struct iovec there[kBatch];
  for (unsigned i = 0; i < n; i += kBatch) {
    const unsigned k = std::min(kBatch, n - i);
    size_t want = 0;
    for (unsigned j = 0; j < k; ++j) {
      const uint64_t at = uint64_t(uintptr_t(remote[i + j].iov_base)) - t.base + t.rma_addr;
      there[j] = {reinterpret_cast<void *>(uintptr_t(at)), remote[i + j].iov_len};
      want += local[i + j].iov_len;
    }
    const ssize_t got = write ? rma_dev_->write_remote(t.task, local + i, k, there, k, t.rma_key)
                              : rma_dev_->read_remote(t.task, local + i, k, there, k, t.rma_key);
    if (got < 0) return int(got);
    if (size_t(got) != want) return -EFAULT;
  }
  ++stats().win_device_rma;
  return 0;
}

}  // namespace pamir
