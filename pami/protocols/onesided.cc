// One-sided transfers (PAMI_Put, PAMI_Get) with their own size tables (seed 000): `rdma` moves the data
// straight between the two processes' memories with the device's remote write or read, and needs nothing
// of the target; `eager` moves it in packets that name their own place (PutHeader, GetDataHeader), which
// the target's progress copies in or answers. A peer whose memory cannot be reached directly (cross-memory
// attach refused, or PAMIR_SHM_CMA=0) is served by packets whatever the table says; that is found on the
// first direct transfer and remembered.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "pami/config.h"
#include "pami/context.h"

namespace pamir {

namespace {
bool refused(ssize_t got) {
  return got == -EPERM || got == -ESRCH;
}
}  // namespace

void Context::start_put(Request *r, uint64_t remote_addr) {
  const bool direct = put_table_.select(r->bytes) == PutProtocol::rdma;
  start_onesided(r, remote_addr, direct, stats().puts_by_protocol, stats().put_bytes_by_protocol);
}

void Context::start_get(Request *r, uint64_t remote_addr) {
  const bool direct = get_table_.select(r->bytes) == GetProtocol::rdma;
  start_onesided(r, remote_addr, direct, stats().gets_by_protocol, stats().get_bytes_by_protocol);
}

// Both classes number their protocols alike (eager 0, rdma 1), so one path serves both: `counts` and
// `bytes` are the class's per-protocol counters.
void Context::start_onesided(Request *r, uint64_t remote_addr, bool direct, uint64_t *counts,
                             uint64_t *bytes) {
  static_assert(unsigned(PutProtocol::eager) == 0 && unsigned(GetProtocol::eager) == 0 &&
                unsigned(PutProtocol::rdma) == 1 && unsigned(GetProtocol::rdma) == 1);
  const bool put = r->kind == ReqKind::put;
  r->remote_addr = remote_addr;
  r->offset = 0;
  r->started = false;
  if (r->bytes == 0) {  // moves nothing, so needs no protocol (and is not counted)
    request_complete(r);
    return;
  }
  void *remote_ptr = reinterpret_cast<void *>(uintptr_t(remote_addr));
  if (r->peer_task == self_) {
    ++counts[direct];
    bytes[direct] += r->bytes;
    std::memmove(put ? remote_ptr : r->buf, put ? r->buf : remote_ptr, r->bytes);
    request_complete(r);
    return;
  }
  Peer &p = peers_[r->peer_task];
  if (direct && !p.cma_refused) {
    struct iovec local = {r->buf, r->bytes};
    struct iovec remote = {remote_ptr, r->bytes};
    const ssize_t got = put ? p.dev->write_remote(r->peer_task, &local, 1, &remote, 1, 0)
                            : p.dev->read_remote(r->peer_task, &local, 1, &remote, 1, 0);
    if (got == ssize_t(r->bytes) || !refused(got)) {
      ++counts[1];
      bytes[1] += r->bytes;
      if (got != ssize_t(r->bytes)) {
        r->status.error = Err::rdma;
        r->status.sys_errno = int32_t(got < 0 ? -got : EIO);
      }
      request_complete(r);
      return;
    }
    p.cma_refused = true;
    if (config::verbose.flag)
      std::fprintf(stderr,
                   "pamir: rank %u: cannot %s rank %u's memory (%s): one-sided transfers with it go "
                   "by packets through the shared-memory rings\n",
                   self_, put ? "write" : "read", r->peer_task, std::strerror(int(-got)));
  }
  ++counts[0];
  bytes[0] += r->bytes;
  // A put now waits for the target's acknowledgment, a get for the answer.
  if (p.sendq.empty() && push_onesided(p, r)) return;
  enqueue(p, r);
}

// The packets of a put, of a get's request, or of a get's answer; true once all of them are out.
bool Context::push_onesided(Peer &p, Request *r) {
  dev::Device *d = p.dev;
  const uint32_t task = r->peer_task;
  switch (r->kind) {
    case ReqKind::put: {
      const uint8_t *buf = static_cast<const uint8_t *>(r->buf);
      const size_t chunk = d->max_payload(sizeof(PutHeader));
      do {
        const size_t n = std::min<uint64_t>(r->bytes - r->offset, chunk);
        const bool last = r->offset + n == r->bytes;
        PutHeader h{r->remote_addr + r->offset, last ? uint64_t(uintptr_t(r)) : 0};
        if (!d->try_send(task, kDispatchPut, &h, sizeof h, buf + r->offset, n)) return false;
        r->offset += n;
      } while (r->offset < r->bytes);
      return true;
    }
    case ReqKind::get: {
      GetHeader h{r->remote_addr, r->bytes, uint64_t(uintptr_t(r))};
      return d->try_send(task, kDispatchGet, &h, sizeof h, nullptr, 0);
    }
    case ReqKind::am: {  // a window's packet queued behind a full device (Context::send_am)
      const uint8_t *b = static_cast<const uint8_t *>(r->buf);
      return d->try_send(task, kDispatchWin, b, uint32_t(r->bytes), b + r->bytes, r->offset);
    }
    case ReqKind::get_reply: {
      const uint8_t *buf = static_cast<const uint8_t *>(r->buf);
      const size_t chunk = d->max_payload(sizeof(GetDataHeader));
      do {
        const size_t n = std::min<uint64_t>(r->bytes - r->offset, chunk);
        GetDataHeader h{r->remote_addr, r->offset};
        if (!d->try_send(task, kDispatchGetData, &h, sizeof h, buf + r->offset, n)) return false;
        r->offset += n;
      } while (r->offset < r->bytes);
      return true;
    }
    default:
      return true;
  }
}

// A put or a get's request has left and now waits for the target; an answer, or a window's queued packet,
// is done with.
void Context::sent_onesided(Request *r) {
  if (r->kind == ReqKind::am) std::free(r->buf);
  if (r->kind == ReqKind::get_reply || r->kind == ReqKind::am) request_release(r);
}

void Context::on_put(uint32_t src_task, const PutHeader &h, const void *payload, size_t len) {
  if (len) std::memcpy(reinterpret_cast<void *>(uintptr_t(h.addr)), payload, len);
  if (!h.cookie) return;
  // Packets from one peer arrive in order, so the last one in means the whole put is in place.
  AckHeader a{h.cookie};
  send_control(src_task, kDispatchPutAck, &a, sizeof a);
}

void Context::on_put_ack(uint64_t cookie) {
  request_complete(reinterpret_cast<Request *>(uintptr_t(cookie)));
}

void Context::on_get(uint32_t src_task, const GetHeader &h) {
  Request *a = request_alloc(ReqKind::get_reply);
  a->peer_task = src_task;
  a->buf = reinterpret_cast<void *>(uintptr_t(h.addr));
  a->bytes = h.bytes;
  a->remote_addr = h.cookie;
  Peer &p = peers_[src_task];
  if (p.sendq.empty() && push_onesided(p, a)) {
    request_release(a);
    return;
  }
  enqueue(p, a);
}

void Context::on_get_data(const GetDataHeader &h, const void *payload, size_t len) {
  Request *r = reinterpret_cast<Request *>(uintptr_t(h.cookie));
  if (len) std::memcpy(static_cast<uint8_t *>(r->buf) + h.offset, payload, len);
  r->offset += len;
  if (r->offset == r->bytes) request_complete(r);
}

}  // namespace pamir
