// A doorbell a process sleeps on and its senders ring: a futex word and a "sleeping" flag in shared memory.
//
// Both live on one cache line of the receiver's block in the node segment. The futex is a shared one (no
// FUTEX_PRIVATE_FLAG): the processes map the segment at different addresses, and the kernel keys shared
// futexes by the page's inode and offset.
//
// The lost-wakeup race is closed Dekker-style. The receiver stores sleeping=1, issues a full fence, and
// re-checks its rings; a sender publishes its packet, issues a full fence, and loads sleeping. At least
// one of the two sees the other's store: either the receiver finds the packet and does not sleep, or the
// sender sees the flag, bumps the word and wakes it. The receiver reads the word before it sets the flag,
// so a bump that lands between its re-check and futex_wait makes the wait return at once.
#pragma once

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>

namespace pamir::dev::shm {

struct Doorbell {
  uint32_t word;      // futex word: bumped by a sender that found the receiver asleep
  uint32_t sleeping;  // 1 while the receiver is (about to be) inside futex_wait

  // Sender side, after publishing a packet for this receiver. Costs one fence and one load unless the
  // receiver sleeps.
  void ring() noexcept {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (std::atomic_ref<uint32_t>(sleeping).load(std::memory_order_relaxed)) [[unlikely]] {
      std::atomic_ref<uint32_t>(word).fetch_add(1, std::memory_order_release);
      syscall(SYS_futex, &word, FUTEX_WAKE, 1, nullptr, nullptr, 0);
    }
  }

  // Receiver side: sleeps up to timeout_us unless pending() finds work after the flag is raised. Returns
  // whether it entered the kernel. A signal, a ring or the timeout end the sleep; the caller re-polls.
  template <class Pending>
  bool wait(unsigned timeout_us, Pending &&pending) noexcept {
    const uint32_t seen = std::atomic_ref<uint32_t>(word).load(std::memory_order_acquire);
    std::atomic_ref<uint32_t>(sleeping).store(1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    bool slept = false;
    if (!pending()) {
      struct timespec ts;
      ts.tv_sec = timeout_us / 1000000u;
      ts.tv_nsec = static_cast<long>(timeout_us % 1000000u) * 1000;
      syscall(SYS_futex, &word, FUTEX_WAIT, seen, &ts, nullptr, 0);
      slept = true;
    }
    std::atomic_ref<uint32_t>(sleeping).store(0, std::memory_order_relaxed);
    return slept;
  }
};

}  // namespace pamir::dev::shm
