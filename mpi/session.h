// Sessions (MPI 5.0 chapter 11.3): an instance of the library beside or instead of MPI_Init
// (mpi/session.cc). A session has its error handler, its thread level, its process sets and its buffer
// for buffered sends, which the communicators made from its groups use.
#pragma once

#include <mpi.h>

#include <cstdint>

#include "mpi/errors.h"
#include "mpi/object.h"

namespace pamir::mpi {

struct BsendBuffer;
struct Comm;
struct Group;

struct Session : Object {
  static constexpr Kind kKind = Kind::session;
  Errhandler *errhandler = nullptr;
  int thread_level = MPI_THREAD_SINGLE;
  BsendBuffer *bsend = nullptr;  // MPI_Session_attach_buffer's (owned)
};

// The session's buffered-send buffer, made on first use (mpi/bsend.cc owns what is in it).
BsendBuffer *session_buffer(Session *s);
void bsend_session_release(Session *s);

// A 64-bit hash of a string tag (never 0).
uint64_t string_tag_hash(const char *s);
// The checks of the creations without a parent (MPI_Comm_create_from_group,
// MPI_Intercomm_create_from_groups): info, and an error handler made for communicators (MPI_ERRHANDLER_NULL:
// MPI_ERRORS_ARE_FATAL), raised with no communicator.
int parentless_args(const char *fn, MPI_Info info, MPI_Errhandler errhandler, Errhandler **eh);
// MPI_Comm_create_from_group's work: a communicator over g (this process a member) with no parent,
// its context id agreed among g's members on the reserved pair (mpi/context_id.h), keyed by stringtag.
// Errors are raised with no communicator.
int comm_create_parentless(Group *g, const char *stringtag, Errhandler *eh, Comm **out, const char *fn);

}  // namespace pamir::mpi
