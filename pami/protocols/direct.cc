// The ready-token direct put of seed 004, for replayed persistent requests (pami/pattern.h) of the
// rendezvous sizes. MPI lets any start of a persistent send match any receive, ordinary ones included,
// and ordinary sends may come in between; a direct put must not break that. So the receiver, when a
// replayed receive of a specific source and tag is posted and is the receive that source's next
// message would match, sends a ready token naming that message's number (every message between a
// pair is numbered in ring order, Peer::sent and Peer::arrived). The sender writes straight into the
// receive's buffer only if the send it replays is that very message: its next number to the peer is
// the token's, and its match bits are the token's. Anything else (an ordinary send in between, a
// wildcard receive, which never issues a token) takes the ordinary path, where the receive, still
// posted, is matched as usual. The notice that follows the data is the message: the receiver takes the
// receive out of the posted queue and completes it, without matching.
#include <sys/uio.h>

#include <algorithm>

#include "pami/context.h"

namespace pamir {

void Context::ready_token(Request *r) {
  if (!r->posted || r->peer_task == self_ || !direct_put_pays(r->bytes)) return;
  Peer &p = peers_[r->peer_task];
  if (!p.dev || p.rdv_refused || !matcher_.first_for(r, r->source, r->tag)) return;
  TokenHeader h{p.arrived, match_bits(r->ctx, r->source, r->tag), uint64_t(uintptr_t(r->buf)), r->bytes,
                uint64_t(uintptr_t(r))};
  r->token = true;
  ++stats().direct_tokens;
  send_control(r->peer_task, kDispatchToken, &h, sizeof h);
}

void Context::on_token(uint32_t src_task, const TokenHeader &h) {
  Peer &p = peers_[src_task];
  if (h.seq < p.sent) return;  // that message has gone the ordinary way already
  p.tokens.push_back(ReadyToken{h.seq, h.bits, h.addr, h.capacity, h.cookie});
}

bool Context::direct_put(uint32_t task, uint64_t bits, const void *buf, uint64_t bytes) {
  Peer &p = peers_[task];
  if (p.tokens.empty()) return false;
  // Tokens for messages already sent are stale; one for this message must name these match bits.
  const uint64_t next = p.sent;
  std::erase_if(p.tokens, [next](const ReadyToken &t) { return t.seq < next; });
  auto it = std::find_if(p.tokens.begin(), p.tokens.end(),
                         [next, bits](const ReadyToken &t) { return t.seq == next && t.bits == bits; });
  if (it == p.tokens.end()) return false;
  const ReadyToken t = *it;
  p.tokens.erase(it);
  if (bytes > t.capacity || p.cma_refused || !direct_put_pays(bytes)) return false;
  struct iovec local {
    const_cast<void *>(buf), bytes
  }, remote{reinterpret_cast<void *>(uintptr_t(t.addr)), bytes};
  if (p.dev->write_remote(task, &local, 1, &remote, 1) != ssize_t(bytes)) return false;
  PutDoneHeader h{t.cookie, bits, bytes};
  ++p.sent;
  ++stats().direct_puts;
  stats().direct_put_bytes += bytes;
  send_control(task, kDispatchPutDone, &h, sizeof h);
  return true;
}

void Context::on_put_done(uint32_t src_task, const PutDoneHeader &h) {
  ++peers_[src_task].arrived;
  Request *r = reinterpret_cast<Request *>(uintptr_t(h.cookie));
  // The token made r the receive of this message: nothing else from this peer came before it, and r
  // (which cannot be cancelled while its token is out) is still posted.
  matcher_.unpost(r);
  set_recv_status(r, bits_src(h.bits), bits_tag(h.bits), h.total);
  finish_recv(r);
}

}  // namespace pamir
