// Point-to-point: sends in every mode, receives, probes, matched probes and the attached buffer.
#include "mpi/pt2pt.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "datatype/signature.h"
#include "mpi/check.h"
#include "mpi/request.h"
#include "mpi/status.h"
#include "pami/config.h"
#include "pami/context.h"
#include "pamir_alias.h"

namespace pamir::mpi {

namespace {

// The request's data; a non-contiguous one holds its type until the request is released, so that
// MPI_Type_free during the operation leaves the layout in place.
inline void set_data(pamir::Request *r, const Data &d, Datatype *t) {
  r->buf = d.base;
  r->bytes = d.bytes;
  if (__builtin_expect(d.layout != nullptr, 0)) {
    r->layout = d.layout;
    r->elems = d.elems;
    if (!t->predefined) {
      ++t->refs;
      r->mpi_type = t;
    }
  }
}

// PAMIR_CHECK_SIGNATURE: a send carries the hash of its signature, a receive keeps its layout to hash
// the prefix a message covers (and holds its type for it).
[[gnu::cold]] void set_signature(pamir::Request *r, Datatype *t, uint64_t count, bool send) {
  if (t->any_signature) return;
  if (send) {
    dt::signature_hash(t->layout, count, r->bytes, r->sig);
    if (!r->sig) r->sig = 1;  // 0 means unchecked
    return;
  }
  r->sig_layout = &t->layout;
  r->sig_elems = count;
  if (!t->predefined && !r->mpi_type) {
    ++t->refs;
    r->mpi_type = t;
  }
}
inline bool checking_signatures() {
  return __builtin_expect(config::check_signature.flag, 0);
}

inline pamir::Request *new_send(Comm *c, const Data &d, Datatype *t, uint64_t count, int dest, int tag,
                                bool sync) {
  pamir::Request *r = request_alloc(ReqKind::send);
  r->ctx = c->ctx;
  r->source = c->rank;
  r->tag = tag;
  r->peer_task = c->task_of(dest);
  set_data(r, d, t);
  if (checking_signatures()) set_signature(r, t, count, true);
  r->sync = sync;
  r->mpi_comm = c;
  return r;
}

inline pamir::Request *new_recv(Comm *c, const Data &d, Datatype *t, uint64_t count, int source, int tag) {
  pamir::Request *r = request_alloc(ReqKind::recv);
  r->ctx = c->ctx;
  r->source = source;
  r->tag = tag;
  set_data(r, d, t);
  if (checking_signatures()) set_signature(r, t, count, false);
  r->mpi_comm = c;
  return r;
}

// A request that is complete from the start (MPI_PROC_NULL operations, a buffered send's copy).
inline MPI_Request done_request(Comm *c, int source) {
  pamir::Request *r = request_alloc(ReqKind::send);
  r->mpi_comm = c;
  r->status.source = source;
  r->status.tag = MPI_ANY_TAG;
  r->complete = true;
  return reinterpret_cast<MPI_Request>(r);
}

// What point-to-point ranks number, for error messages.
inline const char *peer_group(const Comm *c) {
  return c->remote ? "remote group" : "communicator";
}

// The checks and starts of MPI_Isend/MPI_Irecv (mpi/pt2pt.h).
[[gnu::always_inline]] inline int check_send_inl(Comm *c, const char *fn_, const void *buf, int64_t count,
                                                 Datatype *t, int dest, int tag) {
  PAMIR_CHECK(c, count >= 0, MPI_ERR_COUNT, "negative count %lld", (long long)count);
  PAMIR_CHECK(c, dest == MPI_PROC_NULL || (dest >= 0 && dest < c->peer_size), MPI_ERR_RANK,
              "destination rank %d is outside the %s (size %d)", dest, peer_group(c), c->peer_size);
  PAMIR_CHECK(c, tag >= 0 && tag <= kTagUb, MPI_ERR_TAG, "tag %d is outside [0, MPI_TAG_UB=%d]", tag, kTagUb);
  PAMIR_CHECK(c, buffer_ok(buf, count, t), MPI_ERR_BUFFER, "buffer is NULL with count %lld",
              (long long)count);
  return MPI_SUCCESS;
}

[[gnu::always_inline]] inline int check_recv_inl(Comm *c, const char *fn_, const void *buf, int64_t count,
                                                 Datatype *t, int source, int tag) {
  PAMIR_CHECK(c, count >= 0, MPI_ERR_COUNT, "negative count %lld", (long long)count);
  PAMIR_CHECK(
      c, source == MPI_ANY_SOURCE || source == MPI_PROC_NULL || (source >= 0 && source < c->peer_size),
      MPI_ERR_RANK, "source rank %d is outside the %s (size %d)", source, peer_group(c), c->peer_size);
  PAMIR_CHECK(c, tag == MPI_ANY_TAG || (tag >= 0 && tag <= kTagUb), MPI_ERR_TAG,
              "tag %d is neither MPI_ANY_TAG nor in [0, MPI_TAG_UB=%d]", tag, kTagUb);
  PAMIR_CHECK(c, buffer_ok(buf, count, t), MPI_ERR_BUFFER, "buffer is NULL with count %lld",
              (long long)count);
  return MPI_SUCCESS;
}

[[gnu::always_inline]] inline int send_start_inl(Comm *c, const char *fn_, const void *buf, int64_t count,
                                                 Datatype *t, int dest, int tag, Mode mode,
                                                 pamir::Request **out) {
  if (dest == MPI_PROC_NULL) {
    *out = reinterpret_cast<pamir::Request *>(done_request(c, MPI_PROC_NULL));
    return MPI_SUCCESS;
  }
  if (mode == Mode::buffered) {
    if (int rc = bsend_start(c, fn_, buf, t, uint64_t(count), dest, tag)) return rc;
    *out = reinterpret_cast<pamir::Request *>(done_request(c, MPI_ANY_SOURCE));
    return MPI_SUCCESS;
  }
  const Data d = data_of(t, buf, uint64_t(count));
  Context &ctx = context();
  if (mode != Mode::sync && !d.layout && !checking_signatures() &&
      ctx.try_send_immediate(c->task_of(dest), match_bits(c->ctx, c->rank, tag), d.base, d.bytes)) {
    // Out already, and the buffer free again: the send is complete before it returns.
    *out = request_completed_send();
    return MPI_SUCCESS;
  }
  pamir::Request *r = new_send(c, d, t, uint64_t(count), dest, tag, mode == Mode::sync);
  ctx.start_send(r);
  *out = r;
  return MPI_SUCCESS;
}

[[gnu::always_inline]] inline pamir::Request *recv_start_inl(Comm *c, void *buf, int64_t count, Datatype *t,
                                                             int source, int tag) {
  if (source == MPI_PROC_NULL) return reinterpret_cast<pamir::Request *>(done_request(c, MPI_PROC_NULL));
  pamir::Request *r = new_recv(c, data_of(t, buf, uint64_t(count)), t, uint64_t(count), source, tag);
  context().start_recv(r);
  return r;
}

}  // namespace

// The out-of-line forms for mpi/persistent.cc; MPI_Isend and MPI_Irecv inline them.
int check_send(Comm *c, const char *fn_, const void *buf, int64_t count, Datatype *t, int dest, int tag) {
  return check_send_inl(c, fn_, buf, count, t, dest, tag);
}
int check_recv(Comm *c, const char *fn_, const void *buf, int64_t count, Datatype *t, int source, int tag) {
  return check_recv_inl(c, fn_, buf, count, t, source, tag);
}
int send_start(Comm *c, const char *fn_, const void *buf, int64_t count, Datatype *t, int dest, int tag,
               Mode mode, pamir::Request **out) {
  return send_start_inl(c, fn_, buf, count, t, dest, tag, mode, out);
}
pamir::Request *recv_start(Comm *c, void *buf, int64_t count, Datatype *t, int source, int tag) {
  return recv_start_inl(c, buf, count, t, source, tag);
}
pamir::Request *send_request(Comm *c, const void *buf, int64_t count, Datatype *t, int dest, int tag,
                             bool sync) {
  return new_send(c, data_of(t, buf, uint64_t(count)), t, uint64_t(count), dest, tag, sync);
}
pamir::Request *recv_request(Comm *c, void *buf, int64_t count, Datatype *t, int source, int tag) {
  return new_recv(c, data_of(t, buf, uint64_t(count)), t, uint64_t(count), source, tag);
}

namespace {

int send_blocking(const char *fn_, const void *buf, int64_t count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, Mode mode) {
  Comm *c = PAMIR_COMM(comm);
  Datatype *t = PAMIR_TYPE(c, datatype);
  if (int rc = check_send_inl(c, fn_, buf, count, t, dest, tag)) return rc;
  if (dest == MPI_PROC_NULL) return MPI_SUCCESS;
  if (mode == Mode::buffered) return bsend_start(c, fn_, buf, t, uint64_t(count), dest, tag);
  const Data d = data_of(t, buf, uint64_t(count));
  Context &ctx = context();
  if (mode != Mode::sync && !d.layout && !checking_signatures() &&
      ctx.try_send_immediate(c->task_of(dest), match_bits(c->ctx, c->rank, tag), d.base, d.bytes))
    return MPI_SUCCESS;
  pamir::Request *r = new_send(c, d, t, uint64_t(count), dest, tag, mode == Mode::sync);
  ctx.start_send(r);
  ctx.wait_until([r] { return r->complete; });
  return request_finish(r, MPI_STATUS_IGNORE, fn_, true);
}

int send_nonblocking(const char *fn_, const void *buf, int64_t count, MPI_Datatype datatype, int dest,
                     int tag, MPI_Comm comm, MPI_Request *request, Mode mode) {
  Comm *c = PAMIR_COMM(comm);
  Datatype *t = PAMIR_TYPE(c, datatype);
  PAMIR_CHECK(c, request, MPI_ERR_REQUEST, "request is NULL");
  if (int rc = check_send_inl(c, fn_, buf, count, t, dest, tag)) return rc;
  pamir::Request *r = nullptr;
  if (int rc = send_start_inl(c, fn_, buf, count, t, dest, tag, mode, &r)) return rc;
  *request = reinterpret_cast<MPI_Request>(r);
  return MPI_SUCCESS;
}

int recv_blocking(const char *fn_, void *buf, int64_t count, MPI_Datatype datatype, int source, int tag,
                  MPI_Comm comm, MPI_Status *status) {
  Comm *c = PAMIR_COMM(comm);
  Datatype *t = PAMIR_TYPE(c, datatype);
  if (int rc = check_recv_inl(c, fn_, buf, count, t, source, tag)) return rc;
  if (source == MPI_PROC_NULL) {
    status_proc_null(status);
    return MPI_SUCCESS;
  }
  pamir::Request *r = new_recv(c, data_of(t, buf, uint64_t(count)), t, uint64_t(count), source, tag);
  Context &ctx = context();
  ctx.start_recv(r);
  ctx.wait_until([r] { return r->complete; });
  return request_finish(r, status, fn_, true);
}

int recv_nonblocking(const char *fn_, void *buf, int64_t count, MPI_Datatype datatype, int source, int tag,
                     MPI_Comm comm, MPI_Request *request) {
  Comm *c = PAMIR_COMM(comm);
  Datatype *t = PAMIR_TYPE(c, datatype);
  PAMIR_CHECK(c, request, MPI_ERR_REQUEST, "request is NULL");
  if (int rc = check_recv_inl(c, fn_, buf, count, t, source, tag)) return rc;
  *request = reinterpret_cast<MPI_Request>(recv_start_inl(c, buf, count, t, source, tag));
  return MPI_SUCCESS;
}

int sendrecv(const char *fn_, const void *sendbuf, int64_t sendcount, MPI_Datatype sendtype, int dest,
             int sendtag, void *recvbuf, int64_t recvcount, MPI_Datatype recvtype, int source, int recvtag,
             MPI_Comm comm, MPI_Status *status) {
  Comm *c = PAMIR_COMM(comm);
  Datatype *st = PAMIR_TYPE(c, sendtype);
  Datatype *rt = PAMIR_TYPE(c, recvtype);
  if (int rc = check_send_inl(c, fn_, sendbuf, sendcount, st, dest, sendtag)) return rc;
  if (int rc = check_recv_inl(c, fn_, recvbuf, recvcount, rt, source, recvtag)) return rc;
  Context &ctx = context();
  pamir::Request *rr = nullptr, *sr = nullptr;
  if (source != MPI_PROC_NULL) {
    rr = new_recv(c, data_of(rt, recvbuf, uint64_t(recvcount)), rt, uint64_t(recvcount), source, recvtag);
    ctx.start_recv(rr);
  }
  if (dest != MPI_PROC_NULL) {
    sr =
        new_send(c, data_of(st, sendbuf, uint64_t(sendcount)), st, uint64_t(sendcount), dest, sendtag, false);
    ctx.start_send(sr);
  }
  ctx.wait_until([&] { return (!rr || rr->complete) && (!sr || sr->complete); });
  int rc = MPI_SUCCESS;
  if (sr) rc = request_finish(sr, MPI_STATUS_IGNORE, fn_, true);
  if (rr) {
    int rrc = request_finish(rr, status, fn_, true);
    if (rc == MPI_SUCCESS) rc = rrc;
  } else {
    status_proc_null(status);
  }
  return rc;
}

int sendrecv_replace(const char *fn_, void *buf, int64_t count, MPI_Datatype datatype, int dest, int sendtag,
                     int source, int recvtag, MPI_Comm comm, MPI_Status *status) {
  Comm *c = PAMIR_COMM(comm);
  Datatype *t = PAMIR_TYPE(c, datatype);
  if (int rc = check_send_inl(c, fn_, buf, count, t, dest, sendtag)) return rc;
  if (int rc = check_recv_inl(c, fn_, buf, count, t, source, recvtag)) return rc;
  const Data d = data_of(t, buf, uint64_t(count));
  const uint64_t bytes = d.bytes;
  // The outgoing data must leave before the incoming data overwrites it: send from a packed copy.
  void *copy = bytes ? std::malloc(bytes) : nullptr;
  PAMIR_CHECK(c, copy || !bytes, MPI_ERR_NO_MEM, "cannot allocate %llu bytes for the outgoing copy",
              (unsigned long long)bytes);
  if (bytes) pack_data(d, copy);
  int rc = sendrecv(fn_, copy, int64_t(bytes), MPI_BYTE, dest, sendtag, buf, count, datatype, source, recvtag,
                    comm, status);
  std::free(copy);
  return rc;
}

// MPI_Isendrecv and MPI_Isendrecv_replace: a receive and a send started at once under a request of their
// own (ReqKind::pair) that completes when both have. Each part points at the pair (`ext`) and counts
// down its `rdv_counter` as it completes; the receive's status becomes the pair's, and the first error
// of either part its error. A replace sends from a packed copy, the pair's `buf`, freed at completion.
void pair_part_done(pamir::Request *part) {
  auto *pair = static_cast<pamir::Request *>(part->ext);
  const Err first = pair->status.error;
  vt_raise(pair->vt, part->vt);
  if (part->kind == ReqKind::recv) {
    pair->status = part->status;
    pair->bytes = part->bytes;
  }
  pair->status.error = first != Err::ok ? first : part->status.error;
  part->ext = nullptr;
  request_free(part);
  if (--pair->rdv_counter > 0) return;
  std::free(pair->buf);
  pair->buf = nullptr;
  request_complete(pair);
}

int isendrecv(const void *sendbuf, int64_t sendcount, Datatype *st, int dest, int sendtag, void *recvbuf,
              int64_t recvcount, Datatype *rt, int source, int recvtag, Comm *c, void *copy,
              MPI_Request *request) {
  pamir::Request *pair = request_alloc(ReqKind::pair);
  pair->mpi_comm = c;
  pair->buf = copy;
  pair->status.source = MPI_PROC_NULL;  // what a receive from MPI_PROC_NULL leaves
  pair->status.tag = MPI_ANY_TAG;
  pair->rdv_counter = 1 + (source != MPI_PROC_NULL) + (dest != MPI_PROC_NULL);  // the parts, and this start
  *request = reinterpret_cast<MPI_Request>(pair);
  Context &ctx = context();
  if (source != MPI_PROC_NULL) {
    pamir::Request *rr =
        new_recv(c, data_of(rt, recvbuf, uint64_t(recvcount)), rt, uint64_t(recvcount), source, recvtag);
    rr->ext = pair;
    rr->on_complete = pair_part_done;
    ctx.start_recv(rr);
  }
  if (dest != MPI_PROC_NULL) {
    pamir::Request *sr =
        new_send(c, data_of(st, sendbuf, uint64_t(sendcount)), st, uint64_t(sendcount), dest, sendtag, false);
    sr->ext = pair;
    sr->on_complete = pair_part_done;
    ctx.start_send(sr);
  }
  // The start's own count: a part that completed inside its start must not complete the pair before the
  // other part exists.
  if (--pair->rdv_counter == 0) {
    std::free(pair->buf);
    pair->buf = nullptr;
    request_complete(pair);
  }
  return MPI_SUCCESS;
}

int isendrecv_checked(const char *fn_, const void *sendbuf, int64_t sendcount, MPI_Datatype sendtype,
                      int dest, int sendtag, void *recvbuf, int64_t recvcount, MPI_Datatype recvtype,
                      int source, int recvtag, MPI_Comm comm, MPI_Request *request) {
  Comm *c = PAMIR_COMM(comm);
  Datatype *st = PAMIR_TYPE(c, sendtype);
  Datatype *rt = PAMIR_TYPE(c, recvtype);
  PAMIR_CHECK(c, request, MPI_ERR_REQUEST, "request is NULL");
  if (int rc = check_send_inl(c, fn_, sendbuf, sendcount, st, dest, sendtag)) return rc;
  if (int rc = check_recv_inl(c, fn_, recvbuf, recvcount, rt, source, recvtag)) return rc;
  return isendrecv(sendbuf, sendcount, st, dest, sendtag, recvbuf, recvcount, rt, source, recvtag, c, nullptr,
                   request);
}

int isendrecv_replace(const char *fn_, void *buf, int64_t count, MPI_Datatype datatype, int dest, int sendtag,
                      int source, int recvtag, MPI_Comm comm, MPI_Request *request) {
  Comm *c = PAMIR_COMM(comm);
  Datatype *t = PAMIR_TYPE(c, datatype);
  PAMIR_CHECK(c, request, MPI_ERR_REQUEST, "request is NULL");
  if (int rc = check_send_inl(c, fn_, buf, count, t, dest, sendtag)) return rc;
  if (int rc = check_recv_inl(c, fn_, buf, count, t, source, recvtag)) return rc;
  const Data d = data_of(t, buf, uint64_t(count));
  void *copy = d.bytes ? std::malloc(d.bytes) : nullptr;
  PAMIR_CHECK(c, copy || !d.bytes, MPI_ERR_NO_MEM, "cannot allocate %llu bytes for the outgoing copy",
              (unsigned long long)d.bytes);
  if (d.bytes) pack_data(d, copy);
  Datatype *byte = PAMIR_TYPE(c, MPI_BYTE);
  return isendrecv(copy, int64_t(d.bytes), byte, dest, sendtag, buf, count, t, source, recvtag, c, copy,
                   request);
}

int probe(const char *fn_, int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status, bool blocking,
          MPI_Message *message) {
  Comm *c = PAMIR_COMM(comm);
  PAMIR_CHECK(
      c, source == MPI_ANY_SOURCE || source == MPI_PROC_NULL || (source >= 0 && source < c->peer_size),
      MPI_ERR_RANK, "source rank %d is outside the %s (size %d)", source, peer_group(c), c->peer_size);
  PAMIR_CHECK(c, tag == MPI_ANY_TAG || (tag >= 0 && tag <= kTagUb), MPI_ERR_TAG,
              "tag %d is neither MPI_ANY_TAG nor in [0, MPI_TAG_UB=%d]", tag, kTagUb);
  PAMIR_CHECK(c, blocking || flag, MPI_ERR_ARG, "flag is NULL");
  if (message) PAMIR_CHECK(c, message, MPI_ERR_ARG, "message is NULL");
  if (source == MPI_PROC_NULL) {
    if (flag) *flag = 1;
    status_proc_null(status);
    if (message) *message = MPI_MESSAGE_NO_PROC;
    return MPI_SUCCESS;
  }
  Context &ctx = context();
  const bool take = message != nullptr;
  Unexpected *u = nullptr;
  if (blocking) {
    ctx.wait_until([&] { return (u = ctx.probe(c->ctx, source, tag, take)) != nullptr; });
  } else {
    ctx.advance();
    u = ctx.probe(c->ctx, source, tag, take);
    *flag = u != nullptr;
    if (!u) {
      if (message) *message = MPI_MESSAGE_NULL;
      ctx.poll_missed();
      return MPI_SUCCESS;
    }
  }
  if (status != MPI_STATUS_IGNORE) {
    status->MPI_SOURCE = u->src;
    status->MPI_TAG = u->tag;
    status_set_bytes(status, u->total);
    status->MPI_internal[2] = 0;
  }
  if (message) {
    u->probed_out = true;
    *message = message_make(c, u);
  }
  return MPI_SUCCESS;
}

int mrecv(const char *fn_, void *buf, int64_t count, MPI_Datatype datatype, MPI_Message *message,
          MPI_Status *status, MPI_Request *request) {
  PAMIR_CHECK(nullptr, message, MPI_ERR_ARG, "message is NULL");
  if (*message == MPI_MESSAGE_NO_PROC) {
    *message = MPI_MESSAGE_NULL;
    if (request) {
      *request = done_request(comm_self(), MPI_PROC_NULL);
    } else {
      status_proc_null(status);
    }
    return MPI_SUCCESS;
  }
  Message *m = lookup<Message>(*message);
  PAMIR_CHECK(nullptr, m, MPI_ERR_REQUEST, "invalid message handle (MPI_MESSAGE_NULL, or already received)");
  Comm *c = m->comm;
  Datatype *t = PAMIR_TYPE(c, datatype);
  PAMIR_CHECK(c, count >= 0, MPI_ERR_COUNT, "negative count %lld", (long long)count);
  PAMIR_CHECK(c, buffer_ok(buf, count, t), MPI_ERR_BUFFER, "buffer is NULL with count %lld",
              (long long)count);
  pamir::Request *r = new_recv(c, data_of(t, buf, uint64_t(count)), t, uint64_t(count), m->u->src, m->u->tag);
  Unexpected *u = m->u;
  message_release(m);
  *message = MPI_MESSAGE_NULL;
  Context &ctx = context();
  ctx.recv_unexpected(r, u);
  if (request) {
    *request = reinterpret_cast<MPI_Request>(r);
    return MPI_SUCCESS;
  }
  ctx.wait_until([r] { return r->complete; });
  return request_finish(r, status, fn_, true);
}

}  // namespace

}  // namespace pamir::mpi

using namespace pamir::mpi;

// --- sends ---------------------------------------------------------------------------------------

int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Send");
  return send_blocking(fn_, buf, count, datatype, dest, tag, comm, Mode::standard);
}
PAMIR_ALIAS(Send);
int PMPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Send_c");
  return send_blocking(fn_, buf, count, datatype, dest, tag, comm, Mode::standard);
}
PAMIR_ALIAS(Send_c);
int PMPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Ssend");
  return send_blocking(fn_, buf, count, datatype, dest, tag, comm, Mode::sync);
}
PAMIR_ALIAS(Ssend);
int PMPI_Ssend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Ssend_c");
  return send_blocking(fn_, buf, count, datatype, dest, tag, comm, Mode::sync);
}
PAMIR_ALIAS(Ssend_c);
int PMPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Rsend");
  return send_blocking(fn_, buf, count, datatype, dest, tag, comm, Mode::ready);
}
PAMIR_ALIAS(Rsend);
int PMPI_Rsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Rsend_c");
  return send_blocking(fn_, buf, count, datatype, dest, tag, comm, Mode::ready);
}
PAMIR_ALIAS(Rsend_c);
int PMPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Bsend");
  return send_blocking(fn_, buf, count, datatype, dest, tag, comm, Mode::buffered);
}
PAMIR_ALIAS(Bsend);
int PMPI_Bsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Bsend_c");
  return send_blocking(fn_, buf, count, datatype, dest, tag, comm, Mode::buffered);
}
PAMIR_ALIAS(Bsend_c);

int PMPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request) {
  PAMIR_ENTER("MPI_Isend");
  return send_nonblocking(fn_, buf, count, datatype, dest, tag, comm, request, Mode::standard);
}
PAMIR_ALIAS(Isend);
int PMPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                 MPI_Request *request) {
  PAMIR_ENTER("MPI_Isend_c");
  return send_nonblocking(fn_, buf, count, datatype, dest, tag, comm, request, Mode::standard);
}
PAMIR_ALIAS(Isend_c);
int PMPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request) {
  PAMIR_ENTER("MPI_Issend");
  return send_nonblocking(fn_, buf, count, datatype, dest, tag, comm, request, Mode::sync);
}
PAMIR_ALIAS(Issend);
int PMPI_Issend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                  MPI_Request *request) {
  PAMIR_ENTER("MPI_Issend_c");
  return send_nonblocking(fn_, buf, count, datatype, dest, tag, comm, request, Mode::sync);
}
PAMIR_ALIAS(Issend_c);
int PMPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request) {
  PAMIR_ENTER("MPI_Irsend");
  return send_nonblocking(fn_, buf, count, datatype, dest, tag, comm, request, Mode::ready);
}
PAMIR_ALIAS(Irsend);
int PMPI_Irsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                  MPI_Request *request) {
  PAMIR_ENTER("MPI_Irsend_c");
  return send_nonblocking(fn_, buf, count, datatype, dest, tag, comm, request, Mode::ready);
}
PAMIR_ALIAS(Irsend_c);
int PMPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request) {
  PAMIR_ENTER("MPI_Ibsend");
  return send_nonblocking(fn_, buf, count, datatype, dest, tag, comm, request, Mode::buffered);
}
PAMIR_ALIAS(Ibsend);
int PMPI_Ibsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                  MPI_Request *request) {
  PAMIR_ENTER("MPI_Ibsend_c");
  return send_nonblocking(fn_, buf, count, datatype, dest, tag, comm, request, Mode::buffered);
}
PAMIR_ALIAS(Ibsend_c);

// --- receives ------------------------------------------------------------------------------------

int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Status *status) {
  PAMIR_ENTER("MPI_Recv");
  return recv_blocking(fn_, buf, count, datatype, source, tag, comm, status);
}
PAMIR_ALIAS(Recv);
int PMPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                MPI_Status *status) {
  PAMIR_ENTER("MPI_Recv_c");
  return recv_blocking(fn_, buf, count, datatype, source, tag, comm, status);
}
PAMIR_ALIAS(Recv_c);
int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
               MPI_Request *request) {
  PAMIR_ENTER("MPI_Irecv");
  return recv_nonblocking(fn_, buf, count, datatype, source, tag, comm, request);
}
PAMIR_ALIAS(Irecv);
int PMPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                 MPI_Request *request) {
  PAMIR_ENTER("MPI_Irecv_c");
  return recv_nonblocking(fn_, buf, count, datatype, source, tag, comm, request);
}
PAMIR_ALIAS(Irecv_c);

int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                  MPI_Status *status) {
  PAMIR_ENTER("MPI_Sendrecv");
  return sendrecv(fn_, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                  recvtag, comm, status);
}
PAMIR_ALIAS(Sendrecv);
int PMPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                    void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                    MPI_Comm comm, MPI_Status *status) {
  PAMIR_ENTER("MPI_Sendrecv_c");
  return sendrecv(fn_, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                  recvtag, comm, status);
}
PAMIR_ALIAS(Sendrecv_c);
int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                          int recvtag, MPI_Comm comm, MPI_Status *status) {
  PAMIR_ENTER("MPI_Sendrecv_replace");
  return sendrecv_replace(fn_, buf, count, datatype, dest, sendtag, source, recvtag, comm, status);
}
PAMIR_ALIAS(Sendrecv_replace);
int PMPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag,
                            int source, int recvtag, MPI_Comm comm, MPI_Status *status) {
  PAMIR_ENTER("MPI_Sendrecv_replace_c");
  return sendrecv_replace(fn_, buf, count, datatype, dest, sendtag, source, recvtag, comm, status);
}
PAMIR_ALIAS(Sendrecv_replace_c);

int PMPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                   MPI_Comm comm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Isendrecv");
  return isendrecv_checked(fn_, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                           source, recvtag, comm, request);
}
PAMIR_ALIAS(Isendrecv);
int PMPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                     void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                     MPI_Comm comm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Isendrecv_c");
  return isendrecv_checked(fn_, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                           source, recvtag, comm, request);
}
PAMIR_ALIAS(Isendrecv_c);

int PMPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                           int recvtag, MPI_Comm comm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Isendrecv_replace");
  return isendrecv_replace(fn_, buf, count, datatype, dest, sendtag, source, recvtag, comm, request);
}
PAMIR_ALIAS(Isendrecv_replace);
int PMPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag,
                             int source, int recvtag, MPI_Comm comm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Isendrecv_replace_c");
  return isendrecv_replace(fn_, buf, count, datatype, dest, sendtag, source, recvtag, comm, request);
}
PAMIR_ALIAS(Isendrecv_replace_c);

// --- probes --------------------------------------------------------------------------------------

int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status) {
  PAMIR_ENTER("MPI_Probe");
  return probe(fn_, source, tag, comm, nullptr, status, true, nullptr);
}
PAMIR_ALIAS(Probe);
int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status) {
  PAMIR_ENTER("MPI_Iprobe");
  return probe(fn_, source, tag, comm, flag, status, false, nullptr);
}
PAMIR_ALIAS(Iprobe);
int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status) {
  PAMIR_ENTER("MPI_Mprobe");
  if (!message) return raise(lookup<Comm>(comm), fn_, MPI_ERR_ARG, "message is NULL");
  return probe(fn_, source, tag, comm, nullptr, status, true, message);
}
PAMIR_ALIAS(Mprobe);
int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status) {
  PAMIR_ENTER("MPI_Improbe");
  if (!message) return raise(lookup<Comm>(comm), fn_, MPI_ERR_ARG, "message is NULL");
  return probe(fn_, source, tag, comm, flag, status, false, message);
}
PAMIR_ALIAS(Improbe);
int PMPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status) {
  PAMIR_ENTER("MPI_Mrecv");
  return mrecv(fn_, buf, count, datatype, message, status, nullptr);
}
PAMIR_ALIAS(Mrecv);
int PMPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                 MPI_Status *status) {
  PAMIR_ENTER("MPI_Mrecv_c");
  return mrecv(fn_, buf, count, datatype, message, status, nullptr);
}
PAMIR_ALIAS(Mrecv_c);
int PMPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request) {
  PAMIR_ENTER("MPI_Imrecv");
  if (!request) return raise(nullptr, fn_, MPI_ERR_REQUEST, "request is NULL");
  return mrecv(fn_, buf, count, datatype, message, MPI_STATUS_IGNORE, request);
}
PAMIR_ALIAS(Imrecv);
int PMPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                  MPI_Request *request) {
  PAMIR_ENTER("MPI_Imrecv_c");
  if (!request) return raise(nullptr, fn_, MPI_ERR_REQUEST, "request is NULL");
  return mrecv(fn_, buf, count, datatype, message, MPI_STATUS_IGNORE, request);
}
PAMIR_ALIAS(Imrecv_c);
