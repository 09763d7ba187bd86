// Sessions (MPI 5.0 chapter 11.3): an instance of the library beside or instead of MPI_Init
// (mpi/session.cc). A session has its error handler, its thread level, its process sets and its buffer
// for buffered sends, which the communicators made from its groups use.
#pragma once

#include <mpi.h>

#include "mpi/errors.h"
#include "mpi/object.h"

namespace pamir::mpi {

struct BsendBuffer;

struct Session : Object {
  static constexpr Kind kKind = Kind::session;
  Errhandler *errhandler = nullptr;
  int thread_level = MPI_THREAD_SINGLE;
  BsendBuffer *bsend = nullptr;  // MPI_Session_attach_buffer's (owned)
};

// The session's buffered-send buffer, made on first use (mpi/bsend.cc owns what is in it).
BsendBuffer *session_buffer(Session *s);
void bsend_session_release(Session *s);

}  // namespace pamir::mpi
