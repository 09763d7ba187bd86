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
//
// The fence is asymmetric where the kernel allows: a ringer's fence waits for its packet's line to leave
// the receiver's cache, one cross-core transfer per message, which caps the message rate of a stream of
// small sends (osu_bw at 8-64 bytes: 10-40 % fewer messages a second). A process registered for
// MEMBARRIER_CMD_GLOBAL_EXPEDITED rings with a compiler barrier only, and every sleeper, between raising
// the count and its re-check, has the kernel run a full barrier on every CPU that runs a registered
// process (membarrier(2); a descheduled thread has passed one at its context switch). A ringer's
// program order is then store work, barrier or not, load count: if the barrier came after its store,
// the sleeper's re-check sees the work; if before, its load of the count comes after the sleeper's
// raise and sees it. Sleeping costs that system call (0.2 us alone, about 2 us when it interrupts a
// spinning rank); a sleeper whose system call fails caps its sleep instead (kUnfencedSleepCapUs).
//
// A process that also waits for another device's file descriptor (the fabric's) cannot sleep on the
// futex: it sleeps in poll() on both that descriptor and its own eventfd, and counts itself in the high
// half of `sleeping`. A ringer that sees such a sleeper writes the eventfd, which the device takes from
// the owner with pidfd_getfd() at first need (ring() only says that it must). The same Dekker argument
// holds, and an eventfd written between the re-check and poll() stays readable, so poll() returns at once.
#pragma once

#include <linux/futex.h>
#include <linux/membarrier.h>
#include <poll.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstdint>

namespace pamir::dev::shm {

// Whether this process rings without a fence: set once, by unfence_ringers() at start-up.
inline std::atomic<bool> g_ringers_unfenced{false};
inline bool ringers_unfenced() noexcept {
  return g_ringers_unfenced.load(std::memory_order_relaxed);
}

// Registers this process for the sleepers' barrier; from then on its ringers skip the fence. Called before
// the process first rings (a ringer that fences anyway is safe at any time). Returns whether it did.
inline bool unfence_ringers() noexcept {
  const long cmds = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
  if (cmds < 0 || !(cmds & MEMBARRIER_CMD_GLOBAL_EXPEDITED)) return false;
  if (syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0, 0) != 0) return false;
  g_ringers_unfenced.store(true, std::memory_order_relaxed);
  return true;
}

// A sleeper's half: a full barrier on every CPU that runs a registered process. False if the kernel
// refused it (no membarrier, or a filter forbids it): the sleeper then caps its sleep, since a ringer of
// another process may have skipped its fence.
inline bool ringers_barrier() noexcept {
  return syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL_EXPEDITED, 0, 0) == 0;
}

struct Doorbell {
  static constexpr uint32_t kFutexSleepers = 0xffff;    // low half of `sleeping`
  static constexpr uint32_t kFdSleeper = 1u << 16;      // one unit of the high half
  static constexpr unsigned kUnfencedSleepCapUs = 200;  // a sleep the ringers' barrier could not cover

  uint32_t word;      // futex word: bumped by a ringer that found someone asleep
  uint32_t sleeping;  // threads (about to be) inside futex_wait on word, plus kFdSleeper per poll() sleeper
  int32_t wake_fd;    // the owner's eventfd, a number in its own table: written before it first polls
  uint32_t wake_fd_refused;  // set by a ringer that could not take wake_fd: poll() sleepers sleep short

  // After publishing work for the owner of this doorbell. Costs one load, and a fence unless this process
  // is registered for the sleepers' barrier, unless the owner sleeps. Returns whether the owner sleeps in
  // poll(): the caller must then write the owner's eventfd.
  [[nodiscard]] bool ring() noexcept {
    if (ringers_unfenced())
      std::atomic_signal_fence(std::memory_order_seq_cst);  // the load stays after the work's stores
    else
      std::atomic_thread_fence(std::memory_order_seq_cst);
    const uint32_t s = std::atomic_ref<uint32_t>(sleeping).load(std::memory_order_relaxed);
    if (s) [[unlikely]]
      return wake(s);
    return false;
  }

  // The same never fenced, for writes whose waiter sleeps with a short timeout (the shared-memory
  // collectives, which write often and sleep rarely): unless this process is registered for the
  // sleepers' barrier, this load may miss a sleeper that announced itself just as the write was
  // published (the store-buffering race the fence closes), which costs that sleeper its timeout, never
  // the write.
  [[nodiscard]] bool ring_unfenced() noexcept {
    std::atomic_signal_fence(std::memory_order_seq_cst);
    const uint32_t s = std::atomic_ref<uint32_t>(sleeping).load(std::memory_order_relaxed);
    if (s) [[unlikely]]
      return wake(s);
    return false;
  }

  [[gnu::cold]] bool wake(uint32_t s) noexcept {
    if (s & kFutexSleepers) {
      std::atomic_ref<uint32_t>(word).fetch_add(1, std::memory_order_release);
      syscall(SYS_futex, &word, FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
    }
    return s >= kFdSleeper;
  }

  // The owner: sleeps up to timeout_us unless pending() finds work once it has announced itself. Returns
  // whether it entered the kernel. A ring, a signal or the timeout end the sleep; the caller re-polls.
  template <class Pending>
  bool wait(unsigned timeout_us, Pending &&pending) noexcept {
    const uint32_t seen = std::atomic_ref<uint32_t>(word).load(std::memory_order_acquire);
    std::atomic_ref<uint32_t>(sleeping).fetch_add(1, std::memory_order_seq_cst);
    if (!ringers_barrier()) timeout_us = timeout_us < kUnfencedSleepCapUs ? timeout_us : kUnfencedSleepCapUs;
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

  // The owner, single-threaded: sleeps in poll() on its eventfd `efd` and on `other_fd` up to
  // timeout_us unless pending() finds work once it has announced itself. pending() is the last check
  // before poll() (where the fabric's fi_trywait() belongs). Returns whether poll() found other_fd
  // readable.
  template <class Pending>
  bool wait_poll(unsigned timeout_us, int efd, int other_fd, Pending &&pending) noexcept {
    std::atomic_ref<uint32_t>(sleeping).fetch_add(kFdSleeper, std::memory_order_seq_cst);
    if (!ringers_barrier()) timeout_us = timeout_us < kUnfencedSleepCapUs ? timeout_us : kUnfencedSleepCapUs;
    bool other = false;
    if (!pending()) {
      struct pollfd fds[2] = {{efd, POLLIN, 0}, {other_fd, POLLIN, 0}};
      struct timespec ts;
      ts.tv_sec = timeout_us / 1000000u;
      ts.tv_nsec = static_cast<long>(timeout_us % 1000000u) * 1000;
      ::ppoll(fds, 2, &ts, nullptr);
      if (fds[0].revents & POLLIN) {
        uint64_t rings;
        [[maybe_unused]] ssize_t got = ::read(efd, &rings, sizeof rings);  // non-blocking: resets it
      }
      other = fds[1].revents != 0;
    }
    std::atomic_ref<uint32_t>(sleeping).fetch_sub(kFdSleeper, std::memory_order_relaxed);
    return other;
  }
};
static_assert(sizeof(Doorbell) <= 64);

}  // namespace pamir::dev::shm
