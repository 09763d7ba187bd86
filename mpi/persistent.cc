// Persistent point-to-point requests (MPI 4.1 section 3.9): MPI_Send_init and its modes, MPI_Recv_init,
// MPI_Start and MPI_Startall, on the ordinary path. The handle the user keeps is a request of kind
// `persistent` holding the arguments; each start begins an ordinary operation (the one MPI_Isend or
// MPI_Irecv would), whose completion copies its status into the handle and releases it. An inactive
// handle is complete with an empty status, so the Wait and Test families return at once for it
// (mpi/request.cc also skips inactive handles where MPI treats them like null ones) and leave the
// handle in place rather than freeing it.
#include <new>

#include "mpi/check.h"
#include "mpi/pt2pt.h"
#include "mpi/request.h"
#include "pami/context.h"
#include "pamir_alias.h"

namespace pamir::mpi {

namespace {

// What a persistent request starts, every time.
struct Persistent {
  Comm *comm;
  Datatype *type;
  void *buf;
  int64_t count;
  int peer;  // destination, or source
  int tag;
  bool recv;
  Mode mode;
  pamir::Request *op = nullptr;  // the operation of the current start, until it completes
};

inline Persistent *persistent_of(pamir::Request *h) {
  return static_cast<Persistent *>(h->ext);
}

// The empty status of an inactive request.
inline void set_inactive(pamir::Request *h) {
  h->active = false;
  h->complete = true;
  h->status = pamir::Status{};
  h->status.source = MPI_ANY_SOURCE;
  h->status.tag = MPI_ANY_TAG;
}

// The started operation is over: its status and capacity go to the handle (what Wait reports and
// request_error words), and the operation back to the pool.
void finished(pamir::Request *h, pamir::Request *op) {
  h->status = op->status;
  h->bytes = op->bytes;
  persistent_of(h)->op = nullptr;
  h->complete = true;
  request_free(op);
}

void op_done(pamir::Request *op) {
  finished(static_cast<pamir::Request *>(op->ext), op);
}

int make(const char *fn_, const void *buf, int64_t count, MPI_Datatype datatype, int peer, int tag,
         MPI_Comm comm, MPI_Request *request, bool recv, Mode mode) {
  Comm *c = PAMIR_COMM(comm);
  Datatype *t = PAMIR_TYPE(c, datatype);
  PAMIR_CHECK(c, request, MPI_ERR_REQUEST, "request is NULL");
  if (int rc =
          recv ? check_recv(c, fn_, buf, count, t, peer, tag) : check_send(c, fn_, buf, count, t, peer, tag))
    return rc;
  auto *p = new (std::nothrow) Persistent{c, t, const_cast<void *>(buf), count, peer, tag, recv, mode};
  PAMIR_CHECK(c, p, MPI_ERR_NO_MEM, "no memory for a persistent request");
  // The request keeps its communicator and datatype, which MPI lets the user free meanwhile.
  ++c->refs;
  if (!t->predefined) ++t->refs;
  pamir::Request *h = request_alloc(pamir::ReqKind::persistent);
  h->mpi_comm = c;
  h->ext = p;
  set_inactive(h);
  *request = reinterpret_cast<MPI_Request>(h);
  return MPI_SUCCESS;
}

// Starts h (a valid, inactive persistent request).
int start(const char *fn_, pamir::Request *h) {
  Persistent *p = persistent_of(h);
  pamir::Request *op = nullptr;
  if (p->recv) {
    op = recv_start(p->comm, p->buf, p->count, p->type, p->peer, p->tag);
  } else if (int rc = send_start(p->comm, fn_, p->buf, p->count, p->type, p->peer, p->tag, p->mode, &op)) {
    return rc;
  }
  h->active = true;
  h->complete = false;
  if (op->complete) {
    finished(h, op);
    return MPI_SUCCESS;
  }
  p->op = op;
  op->ext = h;
  op->on_complete = op_done;
  return MPI_SUCCESS;
}

// The inactive persistent request of handle h (MPI_Start's argument), or MPI_ERR_REQUEST.
#define PAMIR_PERSISTENT(h)                                                                                  \
  ({                                                                                                         \
    pamir::Request *p_ = PAMIR_REQUEST(h);                                                                   \
    Comm *c_ = static_cast<Comm *>(p_->mpi_comm);                                                            \
    PAMIR_CHECK(c_, p_->kind == pamir::ReqKind::persistent, MPI_ERR_REQUEST,                                 \
                "the request is not a persistent one (MPI_Start takes those of MPI_Send_init and its kin)"); \
    PAMIR_CHECK(c_, !p_->active, MPI_ERR_REQUEST,                                                            \
                "the persistent request is active already (wait for it first)");                             \
    p_;                                                                                                      \
  })

}  // namespace

void persistent_free(pamir::Request *h) {
  Persistent *p = persistent_of(h);
  // A start still running completes on its own, like any request freed while active.
  if (p->op) request_detach(p->op);
  datatype_release(p->type);
  comm_release(p->comm);
  delete p;
  request_release(h);
}

void persistent_cancel(pamir::Request *h) {
  Persistent *p = persistent_of(h);
  if (p->op && p->recv) context().cancel_recv(p->op);
}

int persistent_finish(pamir::Request *h, MPI_Status *status, const char *fn, bool raise_it) {
  const int rc = request_status(h, status, fn, raise_it);
  set_inactive(h);
  return rc;
}

}  // namespace pamir::mpi

using namespace pamir::mpi;

int PMPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                   MPI_Request *request) {
  PAMIR_ENTER("MPI_Send_init");
  return make(fn_, buf, count, datatype, dest, tag, comm, request, false, Mode::standard);
}
PAMIR_ALIAS(Send_init);
int PMPI_Send_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Send_init_c");
  return make(fn_, buf, count, datatype, dest, tag, comm, request, false, Mode::standard);
}
PAMIR_ALIAS(Send_init_c);
int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                    MPI_Request *request) {
  PAMIR_ENTER("MPI_Ssend_init");
  return make(fn_, buf, count, datatype, dest, tag, comm, request, false, Mode::sync);
}
PAMIR_ALIAS(Ssend_init);
int PMPI_Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Ssend_init_c");
  return make(fn_, buf, count, datatype, dest, tag, comm, request, false, Mode::sync);
}
PAMIR_ALIAS(Ssend_init_c);
int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                    MPI_Request *request) {
  PAMIR_ENTER("MPI_Rsend_init");
  return make(fn_, buf, count, datatype, dest, tag, comm, request, false, Mode::ready);
}
PAMIR_ALIAS(Rsend_init);
int PMPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Rsend_init_c");
  return make(fn_, buf, count, datatype, dest, tag, comm, request, false, Mode::ready);
}
PAMIR_ALIAS(Rsend_init_c);
int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                    MPI_Request *request) {
  PAMIR_ENTER("MPI_Bsend_init");
  return make(fn_, buf, count, datatype, dest, tag, comm, request, false, Mode::buffered);
}
PAMIR_ALIAS(Bsend_init);
int PMPI_Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Bsend_init_c");
  return make(fn_, buf, count, datatype, dest, tag, comm, request, false, Mode::buffered);
}
PAMIR_ALIAS(Bsend_init_c);
int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                   MPI_Request *request) {
  PAMIR_ENTER("MPI_Recv_init");
  return make(fn_, buf, count, datatype, source, tag, comm, request, true, Mode::standard);
}
PAMIR_ALIAS(Recv_init);
int PMPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                     MPI_Request *request) {
  PAMIR_ENTER("MPI_Recv_init_c");
  return make(fn_, buf, count, datatype, source, tag, comm, request, true, Mode::standard);
}
PAMIR_ALIAS(Recv_init_c);

int PMPI_Start(MPI_Request *request) {
  PAMIR_ENTER("MPI_Start");
  PAMIR_CHECK(nullptr, request, MPI_ERR_REQUEST, "request is NULL");
  return start(fn_, PAMIR_PERSISTENT(*request));
}
PAMIR_ALIAS(Start);

int PMPI_Startall(int count, MPI_Request array_of_requests[]) {
  PAMIR_ENTER("MPI_Startall");
  PAMIR_CHECK(nullptr, count >= 0, MPI_ERR_COUNT, "negative count %d", count);
  PAMIR_CHECK(nullptr, array_of_requests || count == 0, MPI_ERR_REQUEST, "array_of_requests is NULL");
  // Every request is checked before any starts, so an error leaves them all inactive.
  for (int i = 0; i < count; ++i) (void)PAMIR_PERSISTENT(array_of_requests[i]);
  for (int i = 0; i < count; ++i)
    if (int rc = start(fn_, request_of(array_of_requests[i]))) return rc;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Startall);
