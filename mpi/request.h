// What the MPI binding keeps around a pamir::Request: finishing one (status, error, release), and
// the bookkeeping that MPI_Finalize needs (requests freed while active, buffered sends).
#pragma once

#include <mpi.h>

#include "mpi/comm.h"
#include "mpi/datatype.h"
#include "pami/match.h"
#include "pami/request.h"

namespace pamir::mpi {

inline pamir::Request *request_of(MPI_Request h) {
  auto *r = reinterpret_cast<pamir::Request *>(h);
  return (reinterpret_cast<uintptr_t>(h) >= kPredefinedLimit && r->magic == pamir::kRequestMagic) ? r
                                                                                                  : nullptr;
}

// The MPI error code of a completed request (MPI_SUCCESS, or a detailed code raised on its
// communicator's error handler when `raise_it`).
int request_error(pamir::Request *r, const char *fn, bool raise_it);

// Fills the status and returns the request's error code (raised on the handler of the request's
// communicator when `raise_it`).
int request_status(pamir::Request *r, MPI_Status *status, const char *fn, bool raise_it);
// The same, then frees the request.
int request_finish(pamir::Request *r, MPI_Status *status, const char *fn, bool raise_it);

// The request of handle h, in a function with `fn_` that returns an MPI error code: a handle that is
// not a live request raises MPI_ERR_REQUEST and returns.
#define PAMIR_REQUEST(h)                                                                                     \
  ({                                                                                                         \
    pamir::Request *r_ = ::pamir::mpi::request_of(h);                                                        \
    if (__builtin_expect(!r_, 0))                                                                            \
      return ::pamir::mpi::raise(nullptr, fn_, MPI_ERR_REQUEST,                                              \
                                 "invalid request handle %p (freed or never made)", static_cast<void *>(h)); \
    r_;                                                                                                      \
  })

// What a persistent request starts (its `ext`): point-to-point (mpi/persistent.cc) or a collective
// (mpi/coll.cc). start() begins the operation and makes h active; its completion completes h.
struct PersistentOp {
  explicit PersistentOp(bool collective) : collective(collective) {}
  virtual ~PersistentOp() = default;
  // Point-to-point starts are dispatched without this indirect call (mpi/persistent.cc), so that a start
  // reaches the device through one indirect call only, as an MPI_Isend does.
  virtual int start(const char *fn_, pamir::Request *h) = 0;
  const bool collective;
  const uint64_t serial = ++serials;  // unique for the process's life (handles are reused)
  uint64_t mark = 0;                  // MPI_Startall's recording: seen in this array already
  static inline uint64_t serials = 0;
  virtual void cancel() {}
  virtual void free_active() {}  // h is freed while active: the running operation completes alone
};
inline PersistentOp *persistent_op(const pamir::Request *h) {
  return static_cast<PersistentOp *>(h->ext);
}
// A new persistent request of c for op, inactive; holds a reference on c.
pamir::Request *persistent_handle(Comm *c, PersistentOp *op);
// finish: the status and error of the last start, then the request is inactive again (it stays the
// user's). free: MPI_Request_free, or MPI_ERR_REQUEST for an active persistent collective. cancel:
// MPI_Cancel (of a running receive).
int persistent_finish(pamir::Request *h, MPI_Status *status, const char *fn, bool raise_it);
// An inactive persistent request: complete, and what Wait, Test and MPI_Request_get_status report for
// it is the empty status, whatever h->status still holds (each completion writes it anew).
inline void set_inactive(pamir::Request *h) {
  h->active = false;
  h->complete = true;
}
int persistent_free(pamir::Request *h, const char *fn);
void persistent_cancel(pamir::Request *h);
// Whether a request is one the multiple-completion calls treat as null: an inactive persistent one.
inline bool request_inactive(const pamir::Request *r) {
  return r->kind == pamir::ReqKind::persistent && !r->active;
}

// Generalized requests (mpi/grequest.cc): the status from query_fn; finish: then free_fn, and the
// request goes; free: MPI_Request_free (free_fn now); cancel: cancel_fn.
int grequest_status(pamir::Request *r, MPI_Status *status, const char *fn, bool raise_it);
int grequest_finish(pamir::Request *r, MPI_Status *status, const char *fn, bool raise_it);
int grequest_free(pamir::Request *r, const char *fn);
int grequest_cancel(pamir::Request *r, const char *fn);
// MPI_Request_free on an active request: it is released when it completes.
void request_detach(pamir::Request *r);
// Operations MPI_Finalize must still wait for (detached requests, buffered sends).
size_t detached_outstanding();

// A message taken by MPI_Mprobe/MPI_Improbe, waiting for MPI_Mrecv/MPI_Imrecv.
struct Message : Object {
  static constexpr Kind kKind = Kind::message;
  pamir::Unexpected *u = nullptr;
  Comm *comm = nullptr;
};
MPI_Message message_make(Comm *c, pamir::Unexpected *u);
void message_release(Message *m);

// Buffered sends (MPI_Buffer_attach): copies the message into the attached buffer and sends from
// there. Returns MPI_SUCCESS or raises.
int bsend_start(Comm *c, const char *fn, const void *buf, const Datatype *t, uint64_t count, int dest,
                int tag);
// Returns a request to the pool, dropping the reference its operation held on a derived datatype.
void request_free(pamir::Request *r);
// Waits until every buffered send has left its buffer (MPI_Finalize).
void bsend_drain();
// A communicator's last reference goes: its buffer goes too, once its messages have left.
void bsend_comm_release(Comm *c);

}  // namespace pamir::mpi
