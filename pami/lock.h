// The library lock under MPI_THREAD_MULTIPLE: one recursive lock around the library, so a user callback
// (error handler, reduction, attribute copy) may call MPI again from the same thread. Under
// MPI_THREAD_SINGLE/FUNNELED/SERIALIZED it is never taken, so the per-message path has none.
#pragma once

#include <mutex>

namespace pamir {

struct LibraryLock {
  std::recursive_mutex mutex;
  bool enabled = false;
};

inline LibraryLock g_library_lock;
inline LibraryLock &library_lock() { return g_library_lock; }
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

// Drops the lock entirely while a blocking call sleeps, so other threads can make progress.
class Unlocked {
 public:
  Unlocked() : depth_(library_lock().enabled ? lock_depth : 0) {
    for (int i = 0; i < depth_; ++i) library_lock().mutex.unlock();
  }
  ~Unlocked() {
    for (int i = 0; i < depth_; ++i) library_lock().mutex.lock();
  }
  Unlocked(const Unlocked &) = delete;
  Unlocked &operator=(const Unlocked &) = delete;

 private:
  int depth_;
};

}  // namespace pamir
