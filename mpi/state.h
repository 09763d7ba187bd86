// The library's life: whether MPI is initialized, the thread level, the main thread.
#pragma once

#include <pthread.h>

namespace pamir::mpi {

struct State {
  bool initialized = false;
  bool finalized = false;
  int thread_level = 0;  // MPI_THREAD_SINGLE
  pthread_t main_thread{};
};

inline State g_state;
inline State &state() { return g_state; }

// Inside every MPI call (after the argument-free ones): MPI must be initialized and not finalized.
inline bool usable() {
  const State &s = state();
  return s.initialized & !s.finalized;
}

}  // namespace pamir::mpi
