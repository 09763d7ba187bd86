// The library lock: one recursive lock around the library. User callbacks (error handlers, reductions,
// attribute copy/delete functions) run with it released (Unlocked), since they may call MPI and may wait
// for another thread's MPI call; the code around them copies what it needs first and checks it again
// after.
//
// It is taken under MPI_THREAD_MULTIPLE, and otherwise only while the progress thread is engaged
// (pami/progress_thread.h): a nonblocking collective is in flight and a second thread of Pamir's own
// advances it while the application computes. Outside those times no call takes it, so the
// per-message path of a single-threaded run has none. The switch happens inside a call of the user's
// thread: engaging takes the lock for the rest of that call (adopted), and the outermost call that
// finds the work done switches back before it releases it, so the progress thread never runs while an
// unlocked call does.
#pragma once

#include <atomic>
#include <mutex>

namespace pamir {

struct LibraryLock {
  std::recursive_mutex mutex;
  // Whether calls take the lock. Written by the user's thread only (at MPI_Init, and at engaging and
  // disengaging the progress thread, which happen inside its calls), read by it at every call.
  std::atomic<bool> enabled{false};
  bool multiple = false;  // MPI_THREAD_MULTIPLE: enabled for the whole run
  // Below MPI_THREAD_MULTIPLE (one thread in the library at a time): how deep the calls entered
  // without the lock are nested, and whether the innermost of them took the lock on engaging.
  int unlocked_depth = 0;
  bool adopted = false;
  bool engaged = false;  // the progress thread advances work (under the lock); see progress_thread.h
};

inline LibraryLock g_library_lock;
inline LibraryLock &library_lock() {
  return g_library_lock;
}
extern thread_local int lock_depth;

// The outermost call of the user's thread begins or ends while the progress thread is engaged (the
// lock held): the thread stands aside while the call advances the context itself, and takes over at its
// end, or is disengaged if its work is done. In progress_thread.cc.
void enter_engaged() noexcept;
void leave_engaged() noexcept;
// The lock adopted on engaging, at the end of the call that engaged.
void release_adopted() noexcept;

// Taken at the entry of every MPI call that touches shared state.
class CallGuard {
 public:
  CallGuard() {
    LibraryLock &l = library_lock();
    if (__builtin_expect(l.enabled.load(std::memory_order_relaxed), 0)) {
      l.mutex.lock();
      if (++lock_depth == 1 && l.engaged) enter_engaged();
      held_ = true;
    } else {
      ++l.unlocked_depth;
    }
  }
  ~CallGuard() {
    LibraryLock &l = library_lock();
    if (held_) {
      // While still counted in lock_depth: a call nested in what leave_engaged() runs is not outermost.
      if (lock_depth == 1 && __builtin_expect(l.engaged, 0)) leave_engaged();
      --lock_depth;
      l.mutex.unlock();
    } else if (--l.unlocked_depth == 0 && __builtin_expect(l.adopted, 0)) {
      release_adopted();
    }
  }
  CallGuard(const CallGuard &) = delete;
  CallGuard &operator=(const CallGuard &) = delete;

 private:
  bool held_ = false;
};

// Drops the lock entirely while a blocking call sleeps or a user callback runs, so other threads can
// make progress. The thread's depth goes to 0 meanwhile: a callback that calls MPI takes the lock afresh,
// and an Unlocked nested in that call then releases only what that call took, not the outer holds this
// one already gave up (which would unlock a mutex the thread does not own).
class Unlocked {
 public:
  Unlocked() : depth_(library_lock().enabled.load(std::memory_order_relaxed) ? lock_depth : 0) {
    lock_depth -= depth_;
    for (int i = 0; i < depth_; ++i) library_lock().mutex.unlock();
  }
  ~Unlocked() {
    for (int i = 0; i < depth_; ++i) library_lock().mutex.lock();
    lock_depth += depth_;
  }
  Unlocked(const Unlocked &) = delete;
  Unlocked &operator=(const Unlocked &) = delete;

 private:
  int depth_;
};

}  // namespace pamir
