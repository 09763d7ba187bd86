// The library lock under MPI_THREAD_MULTIPLE: one recursive lock around the library. User callbacks
// (error handlers, reductions, attribute copy/delete functions) run with it released (Unlocked), since
// they may call MPI and may wait for another thread's MPI call; the code around them copies what it
// needs first and checks it again after. Under MPI_THREAD_SINGLE/FUNNELED/SERIALIZED it is never
// taken, so the per-message path has none.
#pragma once

#include <mutex>

namespace pamir {

struct LibraryLock {
  std::recursive_mutex mutex;
  bool enabled = false;
};

inline LibraryLock g_library_lock;
inline LibraryLock &library_lock() {
  return g_library_lock;
}
extern thread_local int lock_depth;

// Taken at the entry of every MPI call that touches shared state.
class CallGuard {
 public:
  CallGuard() {
    LibraryLock &l = library_lock();
    if (__builtin_expect(l.enabled, 0)) {
      l.mutex.lock();
      ++lock_depth;
      held_ = true;
    }
  }
  ~CallGuard() {
    if (held_) {
      --lock_depth;
      library_lock().mutex.unlock();
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
  Unlocked() : depth_(library_lock().enabled ? lock_depth : 0) {
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
