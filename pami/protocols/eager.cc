// The point-to-point protocols over the devices' packets: immediate (one packet) and eager (a header
// packet, then payload fragments), the loopback path to self, synchronous-send acks, and the receive
// side that matches and fills buffers. Rendezvous by RDMA read (seed 001) joins them in its own file.
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "datatype/signature.h"
#include "pami/context.h"
#include "pami/protocols/packets.h"
#include "pami/window.h"

namespace pamir {

// --- sending ---------------------------------------------------------------------------------------

void Context::start_send(Request *r, SendProtocol proto) {
  ++peers_[r->peer_task].sent;
  r->offset = 0;
  r->started = false;
  r->acked = false;
  r->rdv = kRdvNone;
  if (proto == SendProtocol::rdma) [[unlikely]] {
    // A rendezvous needs a peer that can read us and a free acknowledgment slot; without either the
    // message goes eagerly, which is the pipelined copy through shared memory.
    Peer &p = peers_[r->peer_task];
    if (r->peer_task != self_ && !p.rdv_refused && (r->ack_ref = p.dev->ack_alloc(kRdvAckBytes)) != 0) {
      r->rdv = kRdvRts;
      stats().rdv_origin_armed += p.dev->ack_counter(r->ack_ref);  // what the target will count down
    } else
      proto = SendProtocol::eager;
  }
  const Path path = peers_[r->peer_task].path;
  ++stats().sends_by_path[unsigned(path)][unsigned(proto)];
  stats().bytes_by_path[unsigned(path)][unsigned(proto)] += r->bytes;
  if (r->peer_task == self_) {
    // Loopback: the message is delivered in one piece, straight into the matcher.
    ++stats().self_sends;
    MsgHeader h{match_bits(r->ctx, r->source, r->tag), r->bytes, r->sync ? uint64_t(uintptr_t(r)) : 0};
    r->started = true;
    r->offset = r->bytes;
    if (r->layout) [[unlikely]]
      on_msg_self_typed(h, r);
    else
      on_msg(self_, h, r->buf, r->bytes, r->sig);
    finish_send(r);
    return;
  }
  Peer &p = peers_[r->peer_task];
  if (p.sendq.empty() && push(p, r)) {
    finish_send(r);
    return;
  }
  ++stats().send_queued;
  enqueue(p, r);
}

// Queues r behind what already waits for the peer; push_pending() hands it to the device.
void Context::enqueue(Peer &p, Request *r) {
  p.sendq.push_back(r);
  if (!p.pending) {
    p.pending = true;
    pending_.push_back(&p);
  }
}

// Hands as much of r to the device as it takes now; true once all of it is out. Packets of one
// message are never interleaved with another message's to the same peer, so the receiver keeps one
// partial message per sender.
bool Context::push(Peer &p, Request *r) {
  dev::Device *d = p.dev;
  if (r->control) return d->try_send(r->peer_task, uint16_t(r->tag), r->ctrl, uint32_t(r->bytes), nullptr, 0);
  if (r->kind != ReqKind::send) [[unlikely]]
    return push_onesided(p, r);
  const uint8_t *buf = static_cast<const uint8_t *>(r->buf);
  if (r->rdv == kRdvRts) {
    RtsHeader h{
        match_bits(r->ctx, r->source, r->tag), r->bytes, {uint64_t(uintptr_t(r->buf)), r->ack_ref}, r->sig};
    h.src.piece = r->bytes;
    if (r->layout) [[unlikely]] {
      if (!push_rts_typed(d, r, h)) return false;
    } else {
      if (!expose_send(d, r, r->buf, r->bytes, h.src.addr, h.src.key)) [[unlikely]]
        h.src.piece = 0;  // the fabric would not register the buffer: the target asks for packets
      if (!d->try_send(r->peer_task, kDispatchRts, &h, sizeof h, nullptr, 0)) return false;
    }
    r->rdv = kRdvWait;
    r->started = true;
    r->offset = r->bytes;
    return true;
  }
  if (r->layout) [[unlikely]]
    return push_typed(p, r);
  return push_packets(d, r, [d, r, buf](uint16_t dispatch, const void *hdr, uint32_t hdr_len, size_t n) {
    return d->try_send(r->peer_task, dispatch, hdr, hdr_len, buf + r->offset, n);
  });
}

void Context::push_pending() {
  pending_.for_each([this](Peer *p) {
    while (Request *r = p->sendq.front()) {
      {
        // Sent as of its post, whenever the device had room: the room is the machine's, not the model's.
        VtScope as_posted(r->vt, g_vclock.arrival);
        if (!push(*p, r)) return;
      }
      p->sendq.remove(r);
      if (r->control) {
        request_release(r);
      } else if (r->kind != ReqKind::send) {
        sent_onesided(r);
      } else {
        finish_send(r);
      }
    }
    pending_.remove(p);
    p->pending = false;
  });
}

void Context::finish_send(Request *r) {
  if (r->rdv) {
    // A rendezvous send completes when its acknowledgment arrives, however its data left.
    r->rdv = kRdvWait;
    rdv_sends_.push_back(r);
    return;
  }
  if (r->complete || (r->sync && !r->acked)) return;  // a synchronous send completes at its match ack
  request_complete(r);
}

void Context::send_ack(uint32_t task, uint64_t cookie) {
  if (task == self_) {
    on_ack(cookie);
    return;
  }
  AckHeader a{cookie};
  send_control(task, kDispatchAck, &a, sizeof a);
}

// A protocol packet without payload, in order with the messages to that peer: sent at once when nothing
// is queued and the device has room, else queued behind them.
void Context::send_control(uint32_t task, uint16_t dispatch, const void *hdr, uint32_t hdr_len) {
  Peer &p = peers_[task];
  if (p.sendq.empty() && p.dev->try_send(task, dispatch, hdr, hdr_len, nullptr, 0)) return;
  Request *c = request_alloc(ReqKind::send);
  c->control = true;
  c->peer_task = task;
  c->tag = dispatch;
  c->bytes = hdr_len;
  std::memcpy(c->ctrl, hdr, hdr_len);
  enqueue(p, c);
}

void Context::send_am(uint32_t task, const void *hdr, uint32_t hdr_len, const void *payload, size_t len) {
  if (task == self_) {
    window_deliver(hdr, payload, len);
    return;
  }
  Peer &p = peers_[task];
  if (p.sendq.empty() && p.dev->try_send(task, kDispatchWin, hdr, hdr_len, payload, len)) return;
  ++stats().send_queued;
  Request *c = request_alloc(ReqKind::am);
  c->peer_task = task;
  c->bytes = hdr_len;
  c->offset = len;
  auto *b = static_cast<uint8_t *>(std::malloc(hdr_len + len));
  std::memcpy(b, hdr, hdr_len);
  if (len) std::memcpy(b + hdr_len, payload, len);
  c->buf = b;
  enqueue(p, c);
}

void Context::on_ack(uint64_t cookie) {
  Request *r = reinterpret_cast<Request *>(uintptr_t(cookie));
  r->acked = true;
  // Complete only once all of it is out: a queued send is done when it has left the send queue.
  if (!r->complete && r->started && r->offset == r->bytes && !r->linked()) request_complete(r);
}

// --- receiving -------------------------------------------------------------------------------------

void Context::deliver(void *arg, uint32_t src_task, uint16_t dispatch, const void *hdr, uint32_t hdr_len,
                      const void *payload, size_t payload_len) {
  auto *c = static_cast<Context *>(arg);
  // Messages of this peer's mailbox that come before this packet are taken first (mailbox.cc).
  if (const Peer &p = c->peers_[src_task]; p.promised > p.arrived) [[unlikely]]
    c->deliver_box(src_task);
  switch (dispatch) {
    case kDispatchMsg: {
      MsgHeader h;
      std::memcpy(&h, hdr, sizeof h);
      (void)hdr_len;
      c->on_msg(src_task, h, payload, payload_len);
      break;
    }
    case kDispatchMsgSig: {
      MsgSigHeader h;
      std::memcpy(&h, hdr, sizeof h);
      c->on_msg(src_task, h.msg, payload, payload_len, h.sig);
      break;
    }
    case kDispatchShort: {
      MsgHeader h{0, payload_len, 0};
      std::memcpy(&h.bits, hdr, sizeof h.bits);
      c->on_msg(src_task, h, payload, payload_len);
      break;
    }
    case kDispatchFrag:
      c->on_frag(src_task, payload, payload_len);
      break;
    case kDispatchAck: {
      AckHeader a;
      std::memcpy(&a, hdr, sizeof a);
      c->on_ack(a.sync_cookie);
      break;
    }
    case kDispatchRts: {
      RtsHeader h;
      std::memcpy(&h, hdr, sizeof h);
      c->on_rts(src_task, h, payload, payload_len);
      break;
    }
    case kDispatchResend: {
      ResendHeader h;
      std::memcpy(&h, hdr, sizeof h);
      c->on_resend(src_task, h);
      break;
    }
    case kDispatchRdvData: {
      RdvDataHeader h;
      std::memcpy(&h, hdr, sizeof h);
      c->on_rdv_data(src_task, h, payload, payload_len);
      break;
    }
    case kDispatchPut: {
      PutHeader h;
      std::memcpy(&h, hdr, sizeof h);
      c->on_put(src_task, h, payload, payload_len);
      break;
    }
    case kDispatchPutAck: {
      AckHeader a;
      std::memcpy(&a, hdr, sizeof a);
      c->on_put_ack(a.sync_cookie);
      break;
    }
    case kDispatchGet: {
      GetHeader h;
      std::memcpy(&h, hdr, sizeof h);
      c->on_get(src_task, h);
      break;
    }
    case kDispatchWin:
      window_deliver(hdr, payload, payload_len);
      break;
    case kDispatchGetData: {
      GetDataHeader h;
      std::memcpy(&h, hdr, sizeof h);
      c->on_get_data(h, payload, payload_len);
      break;
    }
    default:
      break;
  }
}

void Context::fill(Request *r, uint64_t offset, const void *data, size_t len) {
  if (offset >= r->bytes) return;  // truncated part: dropped
  size_t n = std::min<uint64_t>(len, r->bytes - offset);
  if (!n) return;
  if (r->layout) [[unlikely]]
    fill_typed(r, offset, data, n);
  else
    std::memcpy(static_cast<uint8_t *>(r->buf) + offset, data, n);
}

// The message's signature must be a prefix of the receive's; a longer message is a truncation, which is
// reported as such.
void Context::check_signature(Request *r, uint64_t sig, uint64_t total) {
  if (!r->sig_layout || total > r->bytes) return;
  uint64_t mine = 0;
  if (!dt::signature_hash(*r->sig_layout, r->sig_elems, total, mine) || mine != sig)
    r->status.error = Err::signature;
}

void Context::finish_recv(Request *r) {
  if (r->ack_ref) {
    // A rendezvous receive whose data was pushed: the origin's send completes on this acknowledgment.
    peers_[r->peer_task].dev->ack_write(r->peer_task, r->ack_ref, kRdvAckBytes, 0);
    r->ack_ref = 0;
  }
  request_complete(r);
}

void Context::on_msg(uint32_t src_task, const MsgHeader &h, const void *payload, size_t len, uint64_t sig) {
  ++peers_[src_task].arrived;
  const uint16_t ctx = bits_ctx(h.bits);
  const int32_t src = bits_src(h.bits), tag = bits_tag(h.bits);
  if (Request *r = matcher_.take_posted(ctx, src, tag)) {
    set_recv_status(r, src, tag, h.total);
    if (sig) [[unlikely]]
      check_signature(r, sig, h.total);
    fill(r, 0, payload, len);
    if (h.sync_cookie) {
      VtScope as_of(vt_max(r->vt, g_vclock.arrival), g_vclock.arrival);  // matched when both were there
      send_ack(src_task, h.sync_cookie);
    }
    if (len < h.total) {
      peers_[src_task].in = Incoming{r, nullptr, len, h.total};
    } else {
      finish_recv(r);
    }
    return;
  }
  Unexpected *u = unexpected(h.bits, src_task, h.total, h.total, h.sync_cookie, sig);
  if (len) std::memcpy(u->data, payload, len);
  u->received = len;
  matcher_.add_unexpected(u);
  if (len < h.total) peers_[src_task].in = Incoming{nullptr, u, len, h.total};
}

Unexpected *Context::unexpected(uint64_t bits, uint32_t src_task, uint64_t total, uint64_t hold,
                                uint64_t sync_cookie, uint64_t sig) {
  ++stats().unexpected;
  Unexpected *u = unexpected_alloc(hold);
  u->ctx = bits_ctx(bits);
  u->src = bits_src(bits);
  u->tag = bits_tag(bits);
  u->src_task = src_task;
  u->total = total;
  u->sync_cookie = sync_cookie;
  u->sig = sig;
  u->vt = g_vclock.arrival;
  return u;
}

void Context::on_frag(uint32_t src_task, const void *payload, size_t len) {
  Incoming &in = peers_[src_task].in;
  if (in.req) {
    fill(in.req, in.received, payload, len);
  } else if (in.unexp) {
    std::memcpy(in.unexp->data + in.received, payload, len);
    in.unexp->received = in.received + len;
    vt_raise(in.unexp->vt, g_vclock.arrival);
  }
  in.received += len;
  if (in.received < in.total) return;
  Request *done = in.req;
  Unexpected *u = in.unexp;
  in = Incoming{};
  if (done) finish_recv(done);
  if (u && u->claimed) {
    Request *r = u->claimed;
    fill(r, 0, u->data, u->total);
    unexpected_release(u);
    finish_recv(r);
  }
}

void Context::recv_unexpected(Request *r, Unexpected *u) {
  // Matched as of the later of the receive's post and the message's arrival, whichever came first here.
  VtScope as_of(vt_max(r->vt, u->vt), u->vt);
  set_recv_status(r, u->src, u->tag, u->total);
  if (u->sig) [[unlikely]]
    check_signature(r, u->sig, u->total);
  if (u->rts) {
    const uint32_t src_task = u->src_task;
    const RdvSource src = u->rdv;
    pull(r, src_task, src, u->data, u->received);  // the origin's layout, where it came in the packet
    unexpected_release(u);
    return;
  }
  if (u->sync_cookie) send_ack(u->src_task, u->sync_cookie);
  if (u->received == u->total) {
    fill(r, 0, u->data, u->total);
    unexpected_release(u);
    finish_recv(r);
  } else {
    u->claimed = r;  // the rest is still arriving; on_frag hands it over
  }
}

void Context::start_recv(Request *r) {
  if (landings_open_) [[unlikely]]
    landings_before_post(r->ctx, r->source, r->tag);
  if (Unexpected *u = matcher_.find_unexpected(r->ctx, r->source, r->tag, true)) {
    recv_unexpected(r, u);
    return;
  }
  matcher_.post(r);
}

bool Context::cancel_recv(Request *r) {
  if (landings_open_) [[unlikely]]
    landing_withdraw(r);
  // A ready token is withdrawn first, unless its message has claimed it (it then completes r).
  if ((r->promised && !box_withdraw(r)) || !matcher_.unpost(r)) return false;
  r->promised = false;
  r->status.cancelled = true;
  request_complete(r);
  return true;
}

}  // namespace pamir
