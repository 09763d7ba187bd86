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

// The empty status of an inactive request.
inline void set_inactive(pamir::Request *h) {
  h->active = false;
  h->complete = true;
  h->status = pamir::Status{};
  h->status.source = MPI_ANY_SOURCE;
  h->status.tag = MPI_ANY_TAG;
}

// A persistent send or receive: what it starts, every time.
struct Persistent final : PersistentOp {
  Persistent(Datatype *type, void *buf, int64_t count, int peer, int tag, bool recv, Mode mode)
      : PersistentOp(false),
        type(type),
        buf(buf),
        count(count),
        peer(peer),
        tag(tag),
        recv(recv),
        mode(mode) {
    if (!type->predefined) ++type->refs;  // the user may free it meanwhile
  }
  ~Persistent() override { datatype_release(type); }
  int start(const char *fn_, pamir::Request *h) override;
  void cancel() override {
    if (op && recv) context().cancel_recv(op);
  }
  void free_active() override {
    if (op) request_detach(op);
  }
  Datatype *type;
  void *buf;
  int64_t count;
  int peer;  // destination, or source
  int tag;
  bool recv;
  Mode mode;
  pamir::Request *op = nullptr;  // the operation of the current start, until it completes
};

// The started operation is over: its status and capacity go to the handle (what Wait reports and
// request_error words), and the operation back to the pool.
void finished(pamir::Request *h, pamir::Request *op) {
  h->status = op->status;
  h->bytes = op->bytes;
  static_cast<Persistent *>(persistent_op(h))->op = nullptr;
  request_free(op);
  request_complete(h);
}

void op_done(pamir::Request *op) {
  finished(static_cast<pamir::Request *>(op->ext), op);
}

int Persistent::start(const char *fn_, pamir::Request *h) {
  Comm *c = static_cast<Comm *>(h->mpi_comm);
  pamir::Request *started = nullptr;
  if (recv) {
    started = recv_start(c, buf, count, type, peer, tag);
  } else if (int rc = send_start(c, fn_, buf, count, type, peer, tag, mode, &started)) {
    return rc;
  }
  h->active = true;
  h->complete = false;
  op = started;
  if (started->complete) {
    finished(h, started);
    return MPI_SUCCESS;
  }
  started->ext = h;
  started->on_complete = op_done;
  return MPI_SUCCESS;
}

int make(const char *fn_, const void *buf, int64_t count, MPI_Datatype datatype, int peer, int tag,
         MPI_Comm comm, MPI_Request *request, bool recv, Mode mode) {
  Comm *c = PAMIR_COMM(comm);
  Datatype *t = PAMIR_TYPE(c, datatype);
  PAMIR_CHECK(c, request, MPI_ERR_REQUEST, "request is NULL");
  if (int rc =
          recv ? check_recv(c, fn_, buf, count, t, peer, tag) : check_send(c, fn_, buf, count, t, peer, tag))
    return rc;
  auto *p = new (std::nothrow) Persistent(t, const_cast<void *>(buf), count, peer, tag, recv, mode);
  PAMIR_CHECK(c, p, MPI_ERR_NO_MEM, "no memory for a persistent request");
  *request = reinterpret_cast<MPI_Request>(persistent_handle(c, p));
  return MPI_SUCCESS;
}

// The inactive persistent request of handle h (MPI_Start's argument), or MPI_ERR_REQUEST.
#define PAMIR_PERSISTENT(h)                                                                     \
  ({                                                                                            \
    pamir::Request *p_ = PAMIR_REQUEST(h);                                                      \
    Comm *c_ = static_cast<Comm *>(p_->mpi_comm);                                               \
    PAMIR_CHECK(c_, p_->kind == pamir::ReqKind::persistent, MPI_ERR_REQUEST,                    \
                "the request is not a persistent one (MPI_Start takes those of MPI_Send_init, " \
                "MPI_Bcast_init and their kin)");                                               \
    PAMIR_CHECK(c_, !p_->active, MPI_ERR_REQUEST,                                               \
                "the persistent request is active already (wait for it first)");                \
    p_;                                                                                         \
  })

// Starts h: a point-to-point one directly (Persistent is final), a collective one through its op.
inline int start(const char *fn_, pamir::Request *h) {
  PersistentOp *op = persistent_op(h);
  return op->collective ? op->start(fn_, h) : static_cast<Persistent *>(op)->start(fn_, h);
}

}  // namespace

pamir::Request *persistent_handle(Comm *c, PersistentOp *op) {
  ++c->refs;  // the user may free the communicator meanwhile
  pamir::Request *h = request_alloc(pamir::ReqKind::persistent);
  h->mpi_comm = c;
  h->ext = op;
  set_inactive(h);
  return h;
}

int persistent_free(pamir::Request *h, const char *fn_) {
  PersistentOp *op = persistent_op(h);
  Comm *c = static_cast<Comm *>(h->mpi_comm);
  const bool running = h->active && !h->complete;
  PAMIR_CHECK(c, !running || !op->collective, MPI_ERR_REQUEST,
              "a persistent collective request cannot be freed while a start of it runs (wait for it first)");
  if (running) op->free_active();
  delete op;
  comm_release(c);
  request_release(h);
  return MPI_SUCCESS;
}

void persistent_cancel(pamir::Request *h) {
  if (h->active && !h->complete) persistent_op(h)->cancel();
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
