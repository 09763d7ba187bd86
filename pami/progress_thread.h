// The progress thread: a second thread of Pamir's own that advances nonblocking collectives while the
// application computes outside the library (MPI_Iallreduce ... MPI_Wait with work between them).
//
// Pamir's progress is otherwise weak: a schedule moves only when the application enters the library.
// On a node whose cores are all busy, a thread that spins to find work would steal a core from the
// computation it is meant to overlap, so this one never spins. It exists from the first nonblocking
// collective of PAMIR_ASYNC_PROGRESS_MIN bytes or more that has to wait (PAMIR_ASYNC_PROGRESS), and
// sleeps on the process's doorbell. Peers' rings wake it only while it is counted among the doorbell's
// sleepers: while such a collective is in flight and the application's thread is outside the library
// (which advances the context itself). Uncounted it costs nothing; counted, it makes one pass of
// progress per ring, so it runs only when there is work, for as long as the work takes. Without the
// shared-memory device it sleeps on a futex of its own and naps between polls while engaged.
//
// While it is engaged every call takes the library lock (pami/lock.h), below MPI_THREAD_MULTIPLE too;
// the user's thread switches it on inside the call that leaves the first collective waiting and off
// in the first call that ends with none in flight, so the point-to-point path of a run with no
// nonblocking collective pending takes no lock.
#pragma once

namespace pamir::progress_thread {

// A nonblocking collective started by a call of the user's thread has to wait: the thread advances it
// until release(). Starts the thread at the first use. With PAMIR_ASYNC_PROGRESS=0 it does nothing.
void engage() noexcept;
// One engaged operation has completed (under the lock; either thread).
void release() noexcept;
// Whether the thread is wanted for a nonblocking collective (PAMIR_ASYNC_PROGRESS).
bool wanted() noexcept;
// Whether the caller is the progress thread (which resumes only the schedules it was engaged for).
bool on_thread() noexcept;
// MPI_Finalize, with no operation in flight: stops the thread and waits for it.
void shutdown() noexcept;

}  // namespace pamir::progress_thread
