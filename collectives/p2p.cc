// Point-to-point for the collective algorithms: blocking send, receive and send-receive on the team's
// collective context, addressed by team rank. Each algorithm uses fixed tags of its own; that is enough
// because every rank calls the collectives of a communicator in the same order and the matcher keeps
// each sender's messages in order on a context.
//
// A collective's message sizes are fixed by the call, so a receive whose message is not exactly the
// expected length means the ranks disagree on a count or datatype: it fails with Err::truncate.
#include "collectives/coll.h"
#include "pami/context.h"
#include "pami/match.h"
#include "pami/request.h"

namespace pamir::coll {

namespace {

inline Request *make_send(const Team &t, int peer, int tag, const void *buf, size_t bytes) {
  Request *r = request_alloc(ReqKind::send);
  r->ctx = t.ctx;
  r->source = t.rank;
  r->tag = tag;
  r->peer_task = t.tasks[peer];
  r->buf = const_cast<void *>(buf);
  r->bytes = bytes;
  return r;
}

inline Request *make_recv(const Team &t, int peer, int tag, void *buf, size_t bytes) {
  Request *r = request_alloc(ReqKind::recv);
  r->ctx = t.ctx;
  r->source = peer;
  r->tag = tag;
  r->peer_task = t.tasks[peer];
  r->buf = buf;
  r->bytes = bytes;
  return r;
}

// The outcome of a completed request, which is released.
inline int finish(Request *r) {
  Err e = r->status.error;
  if (r->kind == ReqKind::recv && e == Err::ok && r->status.sent_bytes != r->bytes) e = Err::truncate;
  request_release(r);
  return int(e);
}

}  // namespace

int send(const Team &t, int peer, int tag, const void *buf, size_t bytes) {
  Context &ctx = context();
  if (ctx.try_send_immediate(t.tasks[peer], match_bits(t.ctx, t.rank, tag), buf, bytes)) return 0;
  Request *r = make_send(t, peer, tag, buf, bytes);
  ctx.start_send(r);
  ctx.wait_until([r] { return r->complete; });
  return finish(r);
}

int recv(const Team &t, int peer, int tag, void *buf, size_t bytes) {
  Context &ctx = context();
  Request *r = make_recv(t, peer, tag, buf, bytes);
  ctx.start_recv(r);
  ctx.wait_until([r] { return r->complete; });
  return finish(r);
}

int sendrecv(const Team &t, int dest, int stag, const void *sbuf, size_t sbytes, int source, int rtag,
             void *rbuf, size_t rbytes) {
  Context &ctx = context();
  // The receive is posted first, so the peer's message need not wait in the unexpected queue.
  Request *rr = make_recv(t, source, rtag, rbuf, rbytes);
  ctx.start_recv(rr);
  Request *sr = nullptr;
  if (!ctx.try_send_immediate(t.tasks[dest], match_bits(t.ctx, t.rank, stag), sbuf, sbytes)) {
    sr = make_send(t, dest, stag, sbuf, sbytes);
    ctx.start_send(sr);
  }
  ctx.wait_until([rr, sr] { return rr->complete && (!sr || sr->complete); });
  const int se = sr ? finish(sr) : 0;
  const int re = finish(rr);
  return se ? se : re;
}

}  // namespace pamir::coll
