// A doorbell a process sleeps on and others ring: a futex word and a count of sleepers in shared memory.
//
// Both live on one cache line of the process's block in the node segment. Senders ring the receiver's
// doorbell after publishing a packet; a consumer rings a producer's doorbell after freeing room in a ring
// the producer found full. The futex is a shared one (no FUTEX_PRIVATE_FLAG): the processes map the
// segment at different addresses, and the kernel keys shared futexes by the page's inode and offset.
//
// The lost-wakeup race is closed Dekker-style. A sleeper raises the count (a locked read-modify-write,
// hence a full fence) and then re-checks for work; a ringer publishes its work, issues a full fence and
// loads the count. At least one of the two sees the other's store: either the sleeper finds the work and
// does not sleep, or the ringer sees the count, bumps the word and wakes it. The sleeper reads the word
// before it raises the count, so a bump that lands between its re-check and futex_wait makes the wait
// return at once. Several threads of one process may sleep at once (the count, and a wake of all).
#pragma once

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstdint>

namespace pamir::dev::shm {

struct Doorbell {
  uint32_t word;      // futex word: bumped by a ringer that found someone asleep
  uint32_t sleeping;  // how many threads are (about to be) inside futex_wait on word

  // After publishing work for the owner of this doorbell. Costs one fence and one load unless it sleeps.
  void ring() noexcept {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (std::atomic_ref<uint32_t>(sleeping).load(std::memory_order_relaxed)) [[unlikely]] {
      std::atomic_ref<uint32_t>(word).fetch_add(1, std::memory_order_release);
      syscall(SYS_futex, &word, FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
    }
  }

  // The same without the fence, for writes whose waiter sleeps with a short timeout (the shared-memory
  // collectives, which write often and sleep rarely): this load may then miss a sleeper that announced
  // itself just as the write was published (the store-buffering race the fence closes), which costs
  // that sleeper its timeout, never the write.
  void ring_unfenced() noexcept {
    if (std::atomic_ref<uint32_t>(sleeping).load(std::memory_order_relaxed)) [[unlikely]] {
      std::atomic_ref<uint32_t>(word).fetch_add(1, std::memory_order_release);
      syscall(SYS_futex, &word, FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
    }
  }

  // The owner: sleeps up to timeout_us unless pending() finds work once it has announced itself. Returns
  // whether it entered the kernel. A ring, a signal or the timeout end the sleep; the caller re-polls.
  template <class Pending>
  bool wait(unsigned timeout_us, Pending &&pending) noexcept {
    const uint32_t seen = std::atomic_ref<uint32_t>(word).load(std::memory_order_acquire);
    std::atomic_ref<uint32_t>(sleeping).fetch_add(1, std::memory_order_seq_cst);
    bool slept = false;
    if (!pending()) {
      struct timespec ts;
      ts.tv_sec = timeout_us / 1000000u;
      ts.tv_nsec = static_cast<long>(timeout_us % 1000000u) * 1000;
      syscall(SYS_futex, &word, FUTEX_WAIT, seen, &ts, nullptr, 0);
      slept = true;
    }
    std::atomic_ref<uint32_t>(sleeping).fetch_sub(1, std::memory_order_relaxed);
    return slept;
  }
};

}  // namespace pamir::dev::shm
