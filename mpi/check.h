// The argument checks every MPI function makes, out of line where they fail. Conventions for an
// implementation file of mpi/:
//
//   extern "C" int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
//                            MPI_Comm comm) {
//     PAMIR_ENTER("MPI_Send");            // initialized? takes the library lock under THREAD_MULTIPLE
//     Comm *c = PAMIR_COMM(comm);         // raises MPI_ERR_COMM and returns on a bad handle
//     PAMIR_CHECK(c, count >= 0, MPI_ERR_COUNT, "negative count %d", count);
//     ...
//   }
//
// `fn_` (the MPI name) is in scope after PAMIR_ENTER for raise().
#pragma once

#include <mpi.h>

#include "mpi/comm.h"
#include "mpi/datatype.h"
#include "mpi/errors.h"
#include "mpi/state.h"
#include "pami/lock.h"

#define PAMIR_ENTER(name)                                                               \
  static constexpr const char *fn_ = name;                                              \
  if (__builtin_expect(!::pamir::mpi::usable(), 0)) ::pamir::mpi::not_initialized(fn_); \
  ::pamir::CallGuard guard_

// For the procedures MPI allows at any time, before MPI_Init and after MPI_Finalize too: their errors
// go through raise_anytime.
#define PAMIR_ENTER_ANYTIME(name)          \
  static constexpr const char *fn_ = name; \
  ::pamir::CallGuard guard_

// Evaluates to the Comm*, or returns the MPI_ERR_COMM code from the enclosing function.
#define PAMIR_COMM(h)                                                     \
  ({                                                                      \
    ::pamir::mpi::Comm *c_ = ::pamir::mpi::lookup<::pamir::mpi::Comm>(h); \
    if (__builtin_expect(!c_, 0)) return ::pamir::mpi::bad_comm(fn_, h);  \
    c_;                                                                   \
  })

#define PAMIR_CHECK(comm, cond, cls, ...)                                                      \
  do {                                                                                         \
    if (__builtin_expect(!(cond), 0)) return ::pamir::mpi::raise(comm, fn_, cls, __VA_ARGS__); \
  } while (0)

// Evaluates to the Datatype*, or returns MPI_ERR_TYPE (also for an uncommitted derived type).
#define PAMIR_TYPE(comm, h)                                                                      \
  ({                                                                                             \
    ::pamir::mpi::Datatype *t_ = ::pamir::mpi::lookup<::pamir::mpi::Datatype>(h);                \
    if (__builtin_expect(!t_ || !t_->committed, 0)) return ::pamir::mpi::bad_type(comm, fn_, h); \
    t_;                                                                                          \
  })

// The same for the calls MPI allows on an uncommitted type (constructors, queries, names, free).
#define PAMIR_ANY_TYPE(comm, h)                                                   \
  ({                                                                              \
    ::pamir::mpi::Datatype *t_ = ::pamir::mpi::lookup<::pamir::mpi::Datatype>(h); \
    if (__builtin_expect(!t_, 0)) return ::pamir::mpi::bad_type(comm, fn_, h);    \
    t_;                                                                           \
  })

namespace pamir::mpi {

[[gnu::cold]] int bad_comm(const char *fn, MPI_Comm h);
[[gnu::cold]] int bad_type(Comm *c, const char *fn, MPI_Datatype h);

// Buffer check: a null buffer with a nonzero count is an error, except MPI_BOTTOM (also null) with a
// type whose displacements are absolute addresses, which a type with data at offset 0 cannot be.
inline bool buffer_ok(const void *buf, int64_t count) {
  return buf != nullptr || count == 0;
}
inline bool buffer_ok(const void *buf, int64_t count, const Datatype *t) {
  return buf != nullptr || count == 0 || t->size == 0 || (!t->predefined && t->true_lb != 0);
}

}  // namespace pamir::mpi
