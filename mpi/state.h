// The library's life: whether MPI is initialized, the thread level, the main thread.
#pragma once

#include <pthread.h>

namespace pamir::mpi {

// The library runs while an instance is open: the world model (MPI_Init to MPI_Finalize) or a session
// (MPI_Session_init to MPI_Session_finalize). The first instance starts it, the last one stops it.
struct State {
  bool initialized = false;  // MPI_Init was called
  bool finalized = false;    // MPI_Finalize was called
  int sessions = 0;          // sessions not finalized yet
  bool up = false;           // the library runs (context, communicators)
  bool stopped = false;      // it ran and stopped: it does not start again
  int thread_level = 0;      // MPI_THREAD_SINGLE
  pthread_t main_thread{};
};

inline State g_state;
inline State &state() {
  return g_state;
}

// Inside every MPI call (after the argument-free ones): an instance must be open.
inline bool usable() {
  return state().up;
}

// The first instance starts the library (at the thread level `required` asks, clamped), the last one
// stops it (mpi/init.cc). start() ends the process with the reason where the library cannot start.
void library_start(const char *fn, int required);
void library_stop();

}  // namespace pamir::mpi
