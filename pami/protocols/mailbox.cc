// The mailboxes of seed 004's ready tokens, for small messages (the layout: pami/protocols/mailbox.h).
//
// A replayed persistent receive of one source and tag that is the receive the source's next messages
// would reach writes a token into the pair's shared memory; the replayed send that is the message the
// token names (its number, its match bits, and nothing sent through the rings since the token's base)
// claims it and writes the message into the pair's mailbox. The receiver takes it from there into the
// receive it promised: no packet, no dispatch, no matching, and the sender's data is copied once each
// way as in a ring. Everything the token does not cover goes through the rings as before, where the
// receive, still posted, is matched as usual. So MPI's rules hold whatever the peer sends: ordinary
// sends in between take the rings, and they end the run of promises the token was based on.
//
// Messages are taken in number order with the rings': before a packet from a peer with promises out is
// handled, the mailbox is emptied of the messages that come first (deliver()).
//
// The direct put's tokens (direct.cc) are cells of this same area, numbered, claimed, withdrawn and
// taken here; only what a token offers (box::Kind) and where the data goes differ.
#include <algorithm>
#include <atomic>
#include <cstring>

#include "pami/context.h"

namespace pamir {

namespace {
uint64_t load_acquire(uint64_t &w) {
  return std::atomic_ref<uint64_t>(w).load(std::memory_order_acquire);
}
void store_release(uint64_t &w, uint64_t v) {
  std::atomic_ref<uint64_t>(w).store(v, std::memory_order_release);
}
bool swap(uint64_t &w, uint64_t from, uint64_t to) {
  return std::atomic_ref<uint64_t>(w).compare_exchange_strong(from, to, std::memory_order_acq_rel);
}
}  // namespace

box::Cell *Context::box_cell(Request *r, bool first, uint64_t &n) {
  const uint32_t task = r->peer_task;
  Peer &p = peers_[task];
  if (!r->posted || task == self_) return nullptr;
  if (!p.box_in) [[unlikely]] {
    // Once per peer: the pair area exists once the peer has sent here.
    if (!p.dev || !(p.box_in = static_cast<box::Area *>(p.dev->pair_area(task, false)))) return nullptr;
    p.box_recv = std::make_unique<Request *[]>(box::kSlots);
  }
  n = std::max(p.promised, p.arrived);
  if (n - p.arrived >= box::kSlots || (!first && !matcher_.first_for(r, r->source, r->tag))) return nullptr;
  box::Cell &c = p.box_in->cells[n % box::kSlots];
  c.bits = match_bits(r->ctx, r->source, r->tag);
  c.behind = uint8_t(n - p.arrived);
  return &c;
}

void Context::box_promise(Request *r, box::Cell &c, uint64_t n) {
  const uint32_t task = r->peer_task;
  Peer &p = peers_[task];
  p.box_recv[n % box::kSlots] = r;
  store_release(c.token, n + 1);
  p.promised = n + 1;
  if (!p.box_listed) {
    p.box_listed = true;
    box_peers_.push_back(task);
  }
  r->promised = true;
}

// box_token and box_send are flattened: the steps they share with the direct put's tokens stay off a
// small message's path as calls.
[[gnu::flatten]] void Context::box_token(Request *r, bool first) {
  uint64_t n;
  box::Cell *c = box_cell(r, first, n);
  if (!c) return;
  c->kind = box::kBox;
  c->capacity = uint16_t(std::min<uint64_t>(r->bytes, box::kPayload));
  box_promise(r, *c, n);
  ++stats().box_tokens;
}

box::Cell *Context::box_claimable(Peer &p, uint32_t task, uint64_t bits, uint8_t kind) {
  box::Area *a = p.box_out;
  if (!a) [[unlikely]] {
    if (task == self_ || !p.dev) return nullptr;
    if (!(a = p.box_out = static_cast<box::Area *>(p.dev->pair_area(task, true)))) return nullptr;
  }
  const uint64_t n = p.sent;
  box::Cell &c = a->cells[n % box::kSlots];
  if (load_acquire(c.token) != n + 1) return nullptr;
  // One past the last message that went through the rings: the token holds only if the receiver had
  // taken it when it wrote the token.
  const uint64_t ring_end = p.run_end == n ? p.run_start : n;
  if (c.kind != kind || c.bits != bits || n - c.behind < ring_end) return nullptr;
  return &c;
}

bool Context::box_claim(Peer &p, box::Cell &c) {
  return swap(c.token, p.sent + 1, box::kClaimed);  // false: withdrawn by a cancel just now
}

void Context::box_sent(Peer &p, uint32_t task, box::Cell &c) {
  const uint64_t n = p.sent;
  store_release(c.msg, n + 1);
  if (p.run_end != n) p.run_start = n;
  p.run_end = p.sent = n + 1;
  p.dev->pair_notify(task);
}

[[gnu::flatten]] bool Context::box_send(uint32_t task, uint64_t bits, const void *buf, uint64_t bytes) {
  Peer &p = peers_[task];
  box::Cell *c = box_claimable(p, task, bits, box::kBox);
  if (!c || bytes > c->capacity || !box_claim(p, *c)) return false;
  c->len = uint32_t(bytes);
  if (bytes) std::memcpy(c->data, buf, bytes);
  box_sent(p, task, *c);
  ++stats().box_sent;
  return true;
}

void Context::deliver_box(uint32_t src_task) {
  Peer &p = peers_[src_task];
  while (p.arrived < p.promised) {
    const uint64_t n = p.arrived;
    box::Cell &c = p.box_in->cells[n % box::kSlots];
    if (load_acquire(c.msg) != n + 1) return;
    // The token made r this message's receive; it cannot have been cancelled since (the claim won).
    Request *r = p.box_recv[n % box::kSlots];
    p.arrived = n + 1;
    matcher_.unpost(r);
    r->promised = false;
    switch (c.kind) {
      case box::kBox:
        set_recv_status(r, bits_src(c.bits), bits_tag(c.bits), c.len);
        if (c.len) std::memcpy(r->buf, c.data, c.len);
        ++stats().box_taken;
        break;
      case box::kPut:  // the data is in r's buffer already
        set_recv_status(r, bits_src(c.bits), bits_tag(c.bits), c.len);
        break;
      default:  // box::kPutFailed: the sender could not write r's buffer
        set_recv_status(r, bits_src(c.bits), bits_tag(c.bits), 0);
        r->status.error = Err::put;
        r->status.sys_errno = int32_t(c.len);
        break;
    }
    finish_recv(r);
  }
}

bool Context::box_ready(Peer &p) {
  return load_acquire(p.box_in->cells[p.arrived % box::kSlots].msg) == p.arrived + 1;
}

void Context::poll_boxes() {
  // deliver_box may complete a pattern whose next phase writes tokens: the vector may grow meanwhile.
  for (size_t i = 0; i < box_peers_.size();) {
    const uint32_t task = box_peers_[i];
    Peer &p = peers_[task];
    if (p.arrived < p.promised && box_ready(p)) deliver_box(task);
    if (p.arrived < p.promised) {
      ++i;
      continue;
    }
    p.box_listed = false;
    box_peers_[i] = box_peers_.back();
    box_peers_.pop_back();
  }
}

bool Context::box_arrived() {
  for (const uint32_t task : box_peers_) {
    Peer &p = peers_[task];
    if (p.arrived < p.promised && box_ready(p)) return true;
  }
  return false;
}

bool Context::box_withdraw(Request *r) {
  Peer &p = peers_[r->peer_task];
  // The newest promise naming r is this start's (a request is re-armed at every start). None among
  // those whose messages have not come: r's message number went by through the rings to another
  // receive, and the token can no longer be claimed.
  for (uint64_t n = p.promised; n > p.arrived; --n)
    if (p.box_recv[(n - 1) % box::kSlots] == r)
      return swap(p.box_in->cells[(n - 1) % box::kSlots].token, n, 0);
  return true;
}

}  // namespace pamir
