#include "pami/progress_thread.h"

#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>

#include "devices/shm/doorbell.h"
#include "pami/config.h"
#include "pami/context.h"
#include "pami/lock.h"
#include "pami/stats.h"

namespace pamir {

namespace {

// Where the thread sleeps. With the shared-memory device, on the process's doorbell: the peers ring it
// when they publish what it waits for, while it is counted among the doorbell's sleepers (when, is said
// at count_thread below), so engaging costs no system call. Uncounted, no ringer pays for it, and it wakes
// only with a sleeper of the calls (a wake of all), finds nothing to do and sleeps again. Without that
// device (every peer through libfabric) it sleeps on a futex of its own, which engage() rings, and naps
// between polls while engaged, since the fabric rings nothing it could sleep on.
struct Thread {
  dev::shm::Doorbell *doorbell = nullptr;
  std::atomic<uint32_t> bell{0};
  unsigned work = 0;     // engaged operations in flight (under the lock)
  bool counted = false;  // raised the doorbell's count of sleepers (under the lock)
  bool stop = false;     // under the lock
  bool started = false;  // the user's thread only
  bool failed = false;   // pthread_create refused: progress stays weak
  pthread_t id{};
};
Thread g;
thread_local bool on_progress_thread = false;

constexpr unsigned kOfiNapUs = 50;

void futex_wait(uint32_t *word, uint32_t seen, bool shared, long timeout_us) noexcept {
  struct timespec ts;
  ts.tv_sec = timeout_us / 1000000;
  ts.tv_nsec = (timeout_us % 1000000) * 1000;
  syscall(SYS_futex, word, shared ? FUTEX_WAIT : FUTEX_WAIT_PRIVATE, seen, timeout_us >= 0 ? &ts : nullptr,
          nullptr, 0);
}

void wake_thread() noexcept {
  if (g.doorbell) {
    g.doorbell->wake(1);  // bumps the word and wakes every sleeper, counted or not
    return;
  }
  g.bell.fetch_add(1, std::memory_order_release);
  syscall(SYS_futex, reinterpret_cast<uint32_t *>(&g.bell), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

// The scheduler (EEVDF, Linux 6.6 on) lets a woken thread preempt the running one only when its
// deadline comes first; a thread that asks for a short slice gets an early deadline (Linux 6.12 on), so
// a ring gets this thread onto a core that computes within microseconds instead of at the end of the
// computation's slice (milliseconds). Unprivileged; a kernel without it refuses, and the thread then
// runs when the scheduler gets to it.
constexpr uint64_t kSliceNs = 100000;  // the shortest slice the kernel grants
struct SchedAttr {  // the kernel's struct sched_attr, first version (its header clashes with <sched.h>)
  uint32_t size;
  uint32_t sched_policy;
  uint64_t sched_flags;
  int32_t sched_nice;
  uint32_t sched_priority;
  uint64_t sched_runtime;
  uint64_t sched_deadline;
  uint64_t sched_period;
};
static_assert(sizeof(SchedAttr) == 48);
void ask_short_slice() noexcept {
  SchedAttr a{};
  a.size = sizeof a;
  a.sched_policy = 0;  // SCHED_OTHER
  a.sched_runtime = kSliceNs;
  [[maybe_unused]] long rc = syscall(SYS_sched_setattr, 0, &a, 0);
}

void *run(void *) {
  // Signals belong to the application's threads.
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
  on_progress_thread = true;
  ask_short_slice();
  LibraryLock &l = library_lock();
  Context &ctx = context();
  const long sleep_us = long(config::sleep_max_us.number);
  for (;;) {
    uint32_t *word = g.doorbell ? &g.doorbell->word : reinterpret_cast<uint32_t *>(&g.bell);
    const uint32_t seen = std::atomic_ref<uint32_t>(*word).load(std::memory_order_acquire);
    l.mutex.lock();
    lock_depth = 1;
    const bool stop = g.stop;
    // The user's thread may have disengaged meanwhile: then nothing is left that this one may touch.
    if (g.work && !stop) {
      ++stats().async_passes;
      ctx.advance();
    }
    const bool engaged = g.work != 0;
    const bool polling = engaged && ctx.shares_in_flight();
    lock_depth = 0;
    l.mutex.unlock();
    if (stop) return nullptr;
    if (polling)
      sched_yield();
    else if (g.doorbell)
      futex_wait(word, seen, true, engaged ? sleep_us : -1);
    else if (engaged)
      usleep(kOfiNapUs);
    else
      futex_wait(word, seen, false, -1);
  }
}

}  // namespace

bool progress_thread::on_thread() noexcept {
  return on_progress_thread;
}

bool progress_thread::wanted() noexcept {
  return config::async_progress.flag && !g.failed;
}

// Below MPI_THREAD_MULTIPLE the thread is counted among the doorbell's sleepers only while the
// user's thread is outside the library: inside, the call advances the context itself, and a ring that
// woke this thread too would only have it wait for the lock (two context switches on a shared core).
// The count is raised at the end of each call, and lowered at the start of the next. Under
// MPI_THREAD_MULTIPLE it stays raised while work is in flight.
namespace {

void count_thread() noexcept {
  // A locked read-modify-write, hence a full fence: a ring from here on bumps the word. What arrived
  // before rang nobody, so one pass of progress here takes it (the doorbell's Dekker argument).
  std::atomic_ref<uint32_t>(g.doorbell->sleeping).fetch_add(1, std::memory_order_seq_cst);
  g.counted = true;
  context().advance();
}

void uncount_thread() noexcept {
  std::atomic_ref<uint32_t>(g.doorbell->sleeping).fetch_sub(1, std::memory_order_relaxed);
  g.counted = false;
}

void disengage_if_done() noexcept {
  LibraryLock &l = library_lock();
  if (g.work) return;
  l.engaged = false;
  l.enabled.store(false, std::memory_order_relaxed);
}

}  // namespace

void progress_thread::engage() noexcept {
  LibraryLock &l = library_lock();
  if (!l.multiple && !l.engaged) {
    if (!l.enabled.load(std::memory_order_relaxed)) {
      // Inside a call entered without the lock: it holds the lock from here to its end.
      l.enabled.store(true, std::memory_order_relaxed);
      l.mutex.lock();
      ++lock_depth;
      l.adopted = true;
    }
    l.engaged = true;
  }
  ++g.work;
  ++stats().async_engaged;
  if (!g.started) {
    g.started = true;
    g.doorbell = context().own_doorbell();
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setstacksize(&a, 256 << 10);
    if (pthread_create(&g.id, &a, run, nullptr) != 0) g.failed = true;  // the calls still advance it
    pthread_attr_destroy(&a);
  }
  if (!g.doorbell)
    wake_thread();
  else if (l.multiple && !g.counted)
    count_thread();
  // Below MULTIPLE the end of this call counts it (leave_engaged).
}

void progress_thread::release() noexcept {
  if (on_progress_thread) ++stats().async_completed;
  if (--g.work) return;
  if (g.counted) uncount_thread();
  // The user's thread may sleep in a wait whose request the progress thread just completed: with the
  // lock in use, a sleeper's last check does not look at requests, so it is woken.
  context().wake_sleepers();
}

void progress_thread::shutdown() noexcept {
  if (!g.started || g.failed) return;
  LibraryLock &l = library_lock();
  l.mutex.lock();
  g.stop = true;
  l.mutex.unlock();
  wake_thread();
  Unlocked unlocked;  // under MPI_THREAD_MULTIPLE the caller holds the lock the thread needs to stop
  pthread_join(g.id, nullptr);
  g.started = false;
}

void enter_engaged() noexcept {
  if (g.counted && !library_lock().multiple) uncount_thread();
}

void leave_engaged() noexcept {
  LibraryLock &l = library_lock();
  if (l.multiple) return;
  if (g.work && g.doorbell && !g.counted && !g.failed) count_thread();  // may complete the work
  disengage_if_done();
}

void release_adopted() noexcept {
  LibraryLock &l = library_lock();
  l.adopted = false;
  if (l.engaged) leave_engaged();
  --lock_depth;
  l.mutex.unlock();
}

}  // namespace pamir
