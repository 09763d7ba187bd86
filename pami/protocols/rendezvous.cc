// Rendezvous by RDMA read with an acknowledgment counter (seed 001). Above the eager range the origin
// arms an acknowledgment slot with kRdvAckBytes and sends only a request-to-send: match bits, length,
// the data's address and the slot's reference. The target matches it like any message, sets its own
// counter to the bytes it will take, reads them straight from the origin's memory (the device's
// read_remote: process_vm_readv on shm), takes each completed read off its counter, and at zero writes the
// acknowledgment into the origin's slot. The origin's send completes only when its counter reaches zero.
//
// A target that cannot read the origin (cross-memory attach refused: containers, ptrace_scope, seccomp)
// asks it to push the data instead (kDispatchResend); the origin sends it through the rings addressed to
// the matched receive (kDispatchRdvData) and sends later large messages to that peer eagerly; the target
// acknowledges once all of it has arrived. A read that fails otherwise completes the receive with an
// error and writes the error into the origin's slot, so both sides fail and neither hangs.

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "datatype/layout.h"
#include "pami/config.h"
#include "pami/context.h"
#include "pami/spin.h"

namespace pamir {

namespace {
// One read covers at most this much, so the target's counter moves as the data arrives.
constexpr uint64_t kPullChunk = uint64_t(64) << 20;
}  // namespace

void Context::on_rts(uint32_t src_task, const RtsHeader &h, const void *layout, size_t layout_len) {
  ++peers_[src_task].arrived;
  const uint16_t ctx = bits_ctx(h.bits);
  const int32_t src = bits_src(h.bits), tag = bits_tag(h.bits);
  if (Request *r = matcher_.take_posted(ctx, src, tag)) {
    set_recv_status(r, src, tag, h.total);
    if (h.sig) [[unlikely]]
      check_signature(r, h.sig, h.total);
    VtScope as_of(vt_max(r->vt, g_vclock.arrival), g_vclock.arrival);  // matched when both were there
    pull(r, src_task, h.src, layout, layout_len);
    return;
  }
  // Nothing to hold but the origin's layout where it came along: the data stays with the origin until
  // matched.
  Unexpected *u = unexpected(h.bits, src_task, h.total, layout_len, 0, h.sig);
  if (layout_len) std::memcpy(u->data, layout, layout_len);
  u->received = layout_len;
  u->rts = true;
  u->rdv = h.src;
  matcher_.add_unexpected(u);
}

void Context::pull(Request *r, uint32_t src_task, const RdvSource &src, const void *layout,
                   size_t layout_len) {
  dev::Device *d = peers_[src_task].dev;
  const uint64_t addr = src.addr, ack_ref = src.ack_ref, key = src.key;
  r->peer_task = src_task;
  r->rdv_counter = r->status.bytes;  // what fits; a longer message is MPI_ERR_TRUNCATE, status set already
  stats().rdv_target_armed += r->rdv_counter;
  ssize_t got = 0;
  uint64_t done = 0;
  const bool typed = r->layout || src.segs || !src.piece;
  const bool share = r->rdv_counter >= (typed ? kShareTypedMinBytes : kShareMinBytes) && shared_copy_ &&
                     d->share_supported() && d->remote_access(src_task) == 0;
  if (typed) [[unlikely]] {
    // Either side is not contiguous: common chunks, straight from the origin's layout into ours -- unless
    // the pieces are small, when a process_vm_readv of many small iovecs (each pins its pages anew) loses
    // to the origin packing them into the rings and us unpacking them out (no buffer either way). Two
    // cores sharing the reads move twice as fast, so sharing halves the piece size that pays.
    // An origin that could not expose its data (piece 0: the fabric refused, or its layout did not fit
    // in the request-to-send where the target cannot read it) has the origin send packets too.
    const uint64_t mine = r->layout ? r->layout->average_piece() : r->bytes;
    const uint64_t bound = dt_chunk_min_[unsigned(peers_[src_task].path)];
    if (!src.piece || std::min(mine, src.piece) < (share ? bound / 2 : bound)) {
      ++stats().dt_pushed;
      r->ack_ref = ack_ref;
      ResendHeader h{ack_ref, uint64_t(uintptr_t(r)), 0};
      send_control(src_task, kDispatchResend, &h, sizeof h);
      return;
    }
    if (share) {
      pull_typed_shared(r, src_task, src, layout, layout_len);
      return;
    }
    got = pull_typed(r, src_task, src, layout, layout_len);
    done = r->status.bytes - r->rdv_counter;
  } else if (share && !fault_rdma_read_) {
    // (PAMIR_FAULT=rdma-read fails the target's reads; in a contiguous shared copy the origin may move
    // every chunk before the target reads one, and the fault would not show: the faulted run reads
    // alone. The typed shared copy keeps sharing, as its fault test wants; its pieces leave the target
    // reads to do.)
    pull_shared(r, src_task, addr, ack_ref);
    return;
  } else {
    // Where the device reads in the background (ofi), the receive completes at read_done and this
    // process goes on serving its other peers meanwhile (PAMIR_FAULT=rdma-read fails them there).
    struct iovec local = {r->buf, r->rdv_counter};
    struct iovec remote = {reinterpret_cast<void *>(uintptr_t(addr)), r->rdv_counter};
    if (d->start_read(src_task, &local, 1, &remote, 1, key, uint64_t(uintptr_t(r)))) {
      r->ack_ref = ack_ref;
      ++stats().rdv_async_reads;
      return;
    }
  }
  while (r->rdv_counter > 0 && got >= 0) {
    const uint64_t n = std::min(r->rdv_counter, kPullChunk);
    struct iovec local = {static_cast<char *>(r->buf) + done, n};
    struct iovec remote = {reinterpret_cast<void *>(uintptr_t(addr + done)), n};
    got = fault_rdma_read_ ? -EFAULT : d->read_remote(src_task, &local, 1, &remote, 1, key);
    if (got <= 0) break;
    r->rdv_counter -= uint64_t(got);
    done += uint64_t(got);
  }
  if (r->rdv_counter == 0) {
    ++stats().rdv_reads;
    ++stats().rdv_target_zero;
    d->ack_write(src_task, ack_ref, kRdvAckBytes, 0);
    request_complete(r);
    return;
  }
  if (done == 0 && (got == -EPERM || got == -ESRCH)) {
    // Refused before anything moved: the origin pushes the data; the receive completes when it is in.
    ++stats().rdv_resends;
    if (config::verbose.flag)
      std::fprintf(stderr,
                   "pamir: rank %u: cannot read rank %u's memory (%s): asking it to push its "
                   "large messages through the shared-memory rings\n",
                   self_, src_task, std::strerror(int(-got)));
    r->ack_ref = ack_ref;
    ResendHeader h{ack_ref, uint64_t(uintptr_t(r)), 1};
    send_control(src_task, kDispatchResend, &h, sizeof h);
    return;
  }
  r->status.error = Err::rdma;
  r->status.sys_errno = int32_t(got < 0 ? -got : EIO);
  d->ack_write(src_task, ack_ref, kRdvAckBytes, got < 0 ? got : -EIO);
  request_complete(r);
}

// The origin, waiting for its acknowledgment in its own progress, writes chunks into our buffer while we
// read others, so two cores copy one message. Our counter is what remains of the message, whoever moved
// the rest; an origin that is busy elsewhere just leaves every chunk to us.
// Every read of a start_read() is done: the receive completes as a synchronous read's would have.
void Context::read_done(void *arg, uint64_t cookie, int64_t status) {
  auto *c = static_cast<Context *>(arg);
  Request *r = reinterpret_cast<Request *>(uintptr_t(cookie));
  dev::Device *d = c->peers_[r->peer_task].dev;
  if (status == 0) {
    r->rdv_counter = 0;
    ++stats().rdv_reads;
    ++stats().rdv_target_zero;
  } else {
    r->status.error = Err::rdma;
    r->status.sys_errno = int32_t(-status);
  }
  d->ack_write(r->peer_task, r->ack_ref, kRdvAckBytes, status);
  r->ack_ref = 0;
  request_complete(r);
}

void Context::pull_shared(Request *r, uint32_t src_task, uint64_t addr, uint64_t ack_ref) {
  dev::Device *d = peers_[src_task].dev;
  const uint64_t n = r->rdv_counter;
  ++stats().rdv_shared;
  d->share_open(src_task, ack_ref, uint64_t(uintptr_t(r->buf)), n, share_chunk(n));
  uint64_t off = 0, len = 0;
  while (d->share_claim(src_task, ack_ref, off, len)) {
    struct iovec local = {static_cast<char *>(r->buf) + off, len};
    struct iovec remote = {reinterpret_cast<void *>(uintptr_t(addr + off)), len};
    const ssize_t got = fault_rdma_read_ ? -EFAULT : d->read_remote(src_task, &local, 1, &remote, 1, 0);
    r->rdv_counter = d->share_moved(src_task, ack_ref, len, got == ssize_t(len) ? 0 : got < 0 ? got : -EIO);
  }
  finish_shared(r, src_task, ack_ref);
}

// The end of a shared copy on the target: once every chunk is claimed the origin may still be moving its
// last one; then the acknowledgment, with the first failure's status.
void Context::finish_shared(Request *r, uint32_t src_task, uint64_t ack_ref) {
  dev::Device *d = peers_[src_task].dev;
  while ((r->rdv_counter = d->share_remaining(src_task, ack_ref)) != 0) spin_pause(yield_);
  complete_shared(r, src_task, ack_ref);
}

void Context::complete_shared(Request *r, uint32_t src_task, uint64_t ack_ref) {
  dev::Device *d = peers_[src_task].dev;
  const int64_t status = d->share_status(src_task, ack_ref);
  ++stats().rdv_reads;
  ++stats().rdv_target_zero;
  if (status) {
    r->status.error = Err::rdma;
    r->status.sys_errno = int32_t(-status);
  }
  d->ack_write(src_task, ack_ref, kRdvAckBytes, status);
  request_complete(r);
}

// The origin's part of a shared copy: claims chunks of a send its target has opened and writes them.
void Context::help(Request *r) {
  dev::Device *d = peers_[r->peer_task].dev;
  const uint64_t dest = d->share_dest(self_, r->ack_ref);
  if (!dest) return;
  r->rdv = kRdvHelped;  // once: the chunks are all claimed when this returns
  if (peers_[r->peer_task].cma_refused || d->remote_access(r->peer_task) != 0) return;
  if (dest & kShareLayout) {
    help_typed(r);
    return;
  }
  uint64_t off = 0, len = 0;
  while (d->share_claim(self_, r->ack_ref, off, len)) {
    struct iovec local = {static_cast<char *>(r->buf) + off, len};
    struct iovec remote = {reinterpret_cast<void *>(uintptr_t(dest + off)), len};
    const ssize_t got = d->write_remote(r->peer_task, &local, 1, &remote, 1, 0);
    d->share_moved(self_, r->ack_ref, len, got == ssize_t(len) ? 0 : got < 0 ? got : -EIO);
    stats().rdv_helped_bytes += len;
  }
}

void Context::on_resend(uint32_t src_task, const ResendHeader &h) {
  Peer &p = peers_[src_task];
  if (h.refused) {
    if (!p.rdv_refused && config::verbose.flag)
      std::fprintf(stderr,
                   "pamir: rank %u: rank %u cannot read this process's memory: large messages to it "
                   "go through the shared-memory rings from now on\n",
                   self_, src_task);
    p.rdv_refused = true;
  }
  Request *r = nullptr;
  rdv_sends_.for_each([&](Request *x) {
    if (!r && x->peer_task == src_task && x->ack_ref == h.ack_ref) r = x;
  });
  if (!r) return;  // cannot happen: a resend names a send that waits for its acknowledgment
  rdv_sends_.remove(r);
  r->rdv = kRdvResend;
  r->rdv_cookie = h.target_cookie;
  r->started = false;
  r->offset = 0;
  enqueue(p, r);
}

void Context::on_rdv_data(uint32_t src_task, const RdvDataHeader &h, const void *payload, size_t len) {
  Request *r = reinterpret_cast<Request *>(uintptr_t(h.target_cookie));
  fill(r, 0, payload, len);
  if (len < h.total) {
    peers_[src_task].in = Incoming{r, nullptr, len, h.total};
  } else {
    finish_recv(r);  // writes the acknowledgment
  }
}

// Registers a rendezvous send's data for the target's reads: with its acknowledgment slot, or once for
// all starts of a recorded pattern (seed 004), whose descriptors then replay with no registration.
bool Context::expose_send(dev::Device *d, Request *r, const void *addr, uint64_t len, uint64_t &remote_addr,
                          uint64_t &key) {
  if (!r->keep_exposed) return d->expose(r->ack_ref, addr, len, remote_addr, key);
  const bool had = r->held != 0;
  if (!d->expose_held(r->held, addr, len, remote_addr, key)) return false;
  if (r->held) ++(had ? stats().rdv_held_reuses : stats().rdv_holds);
  return true;
}

void Context::check_rdv_sends() {
  rdv_sends_.for_each([this](Request *r) {
    dev::Device *d = peers_[r->peer_task].dev;
    if (d->ack_counter(r->ack_ref) != 0) {
      if (r->rdv == kRdvWait && shared_copy_) help(r);  // no share to look for when sharing is off
      return;
    }
    const int64_t status = d->ack_status(r->ack_ref);
    VtScope acked(g_vclock.stamp, d->ack_time(r->ack_ref));  // the send completes as of its acknowledgment
    d->ack_free(r->ack_ref);
    ++stats().rdv_origin_acked;
    rdv_sends_.remove(r);
    r->ack_ref = 0;
    r->rdv = kRdvNone;
    r->acked = true;  // matched, which is all a synchronous send waits for
    if (status) {
      r->status.error = Err::rdma;
      r->status.sys_errno = int32_t(-status);
    }
    request_complete(r);
  });
}

}  // namespace pamir
