// Landings: replayed receives that the device completes without matching (seed 004's receive side, on
// the torus, whose engine writes packets into this process's memory itself). Context::lands_receives
// in context.h says when they are used; docs/architecture.md argues MPI's order.
//
// The rule that keeps the order: a landing is open, or keeps a message, only while no receive posted
// could take its envelope, and its start arms it only if no message already here could either
// (landing_start). Any other message of its source about to be matched, or a receive or probe of a
// matching envelope about to be posted, first delivers the kept message the ordinary way and closes
// the landing, posting its armed receive where a posted receive would have been all along; the device
// puts a packet that had landed among the others in its order (Device::landing_close). The device
// hands landed packets over in their source's order (Sink::landed), so an armed landing's packet
// completes its receive exactly as the same packet would have matched it.
#include <cstring>

#include "pami/context.h"
#include "pami/stats.h"
#include "pami/vclock.h"

namespace pamir {

namespace {
// The pair of counts that say a landing is open or keeps a message.
inline void count_open(uint32_t &all, uint32_t &peer, bool up) {
  if (up)
    ++all, ++peer;
  else
    --all, --peer;
}
}  // namespace

uint32_t Context::landing_add(uint32_t task, uint64_t bits) {
  if (!lands_receives() || !replays_to(task)) return 0;
  if (!landings_) landings_ = std::make_unique<Landing[]>(kMaxLandings);
  for (uint32_t i = 0; i < kMaxLandings; ++i)
    if (landings_[i].used && landings_[i].task == task && landings_[i].bits == bits)
      return 0;  // one landing an envelope: its first receive's
  const uint32_t id = replay_dev_->landing_add(task, kDispatchShort, &bits, sizeof bits);
  if (id == 0 || id > kMaxLandings) {
    if (id) replay_dev_->landing_remove(id);
    return 0;
  }
  Landing &l = landings_[id - 1];
  l.armed = nullptr;
  l.bits = bits;
  l.task = task;
  l.used = true;
  l.open = l.kept = l.reopen = false;
  return id;
}

void Context::landing_remove(uint32_t id) {
  Landing &l = landings_[id - 1];
  if (l.kept) landing_unkeep(id);
  if (l.open) landing_shut(id);
  l.used = false;
  replay_dev_->landing_remove(id);
}

// Closed, its packet (if one landed) among the others, and its armed receive posted.
void Context::landing_shut(uint32_t id) {
  Landing &l = landings_[id - 1];
  replay_dev_->landing_close(id);
  l.open = false;
  count_open(landings_open_, peers_[l.task].landings, false);
  if (Request *r = l.armed) {
    l.armed = nullptr;
    reset_protocol_state(r);  // armed without them (rearm_landed)
    r->status = Status{};
    matcher_.post(r);
  }
}

// A kept message delivered the ordinary way, as of its arrival.
void Context::landing_unkeep(uint32_t id) {
  Landing &l = landings_[id - 1];
  l.kept = false;
  count_open(landings_open_, peers_[l.task].landings, false);
  VtScope at(l.vt, l.vt);
  deliver(this, l.task, kDispatchShort, &l.bits, sizeof l.bits, l.data, l.len);
}

[[gnu::always_inline]] inline void Context::landing_complete(Request *r, uint64_t bits, const void *payload,
                                                             size_t len) {
  set_recv_status(r, bits_src(bits), bits_tag(bits), len);
  r->status.cancelled = false;  // the rest of the status, which an armed receive does not clear
  r->status.sys_errno = 0;
  // One source and tag: no layout. A replay's messages are mostly a word or two of halo.
  const uint64_t n = r->status.bytes;
  if (n == sizeof(uint64_t)) [[likely]] {
    uint64_t word;
    std::memcpy(&word, payload, sizeof word);
    std::memcpy(r->buf, &word, sizeof word);
  } else {
    std::memcpy(r->buf, payload, n);
  }
  ++stats().pattern_landed;
  request_complete(r);
}

// Whether nothing posted, and no message here, could take the landing's envelope before its receive.
bool Context::landing_clear(const Landing &l) {
  const uint16_t ctx = bits_ctx(l.bits);
  const int32_t src = bits_src(l.bits), tag = bits_tag(l.bits);
  return !(matcher_.posted_count() && matcher_.would_take(ctx, src, tag)) &&
         !(matcher_.unexpected_count() && matcher_.find_unexpected(ctx, src, tag, false));
}

// Open again, early, once the receive a message of its envelope overtook has taken it: the next one
// may then land before its receive starts (else it would find the landing closed, and the next one too).
void Context::landing_reopen(uint32_t id) {
  Landing &l = landings_[id - 1];
  if (!l.used || l.open || l.kept || !landing_clear(l)) return;
  replay_dev_->landing_open(id);
  l.open = true;
  count_open(landings_open_, peers_[l.task].landings, true);
}

void Context::landings_reopen() {
  landings_reopen_ = false;
  for (uint32_t i = 0; i < kMaxLandings; ++i)
    if (landings_[i].reopen) {
      landings_[i].reopen = false;
      landing_reopen(i + 1);
    }
}

bool Context::landing_start(uint32_t id, Request *r) {
  Landing &l = landings_[id - 1];
  if (!landing_clear(l)) [[unlikely]] {
    // Something posted or here takes the envelope first: this receive is posted after it.
    if (l.kept) landing_unkeep(id);  // it arrived after those: it goes after them
    if (l.open) landing_shut(id);
    start_recv(r);
    landing_reopen(id);
    return true;
  }
  if (l.kept) {  // sent before this start: it completes the receive now
    l.kept = false;
    ++peers_[l.task].arrived;
    {
      VtScope at(vt_max(r->vt, l.vt), l.vt);
      landing_complete(r, l.bits, l.data, l.len);
    }
    replay_dev_->landing_open(id);
    l.open = true;  // still counted: it kept a message, it is open now
    return true;
  }
  if (!l.open) {
    replay_dev_->landing_open(id);
    l.open = true;
    count_open(landings_open_, peers_[l.task].landings, true);
  }
  l.armed = r;
  return true;
}

bool Context::landed(void *arg, uint32_t id, uint32_t src_task, const void *payload, size_t payload_len) {
  auto *c = static_cast<Context *>(arg);
  Landing &l = c->landings_[id - 1];
  ++c->peers_[src_task].arrived;
  if (Request *r = l.armed) [[likely]] {
    l.armed = nullptr;
    c->landing_complete(r, l.bits, payload, payload_len);
    return true;  // open for the next start's message
  }
  // Sent before its receive started: kept, closed meanwhile (a second one goes the ordinary way, after it).
  l.open = false;
  if (payload_len > sizeof l.data) [[unlikely]] {  // not a landing's packet size: never kept
    --c->peers_[src_task].arrived;
    count_open(c->landings_open_, c->peers_[l.task].landings, false);
    deliver(c, src_task, kDispatchShort, &l.bits, sizeof l.bits, payload, payload_len);
    return false;
  }
  l.kept = true;
  l.len = uint32_t(payload_len);
  l.vt = g_vclock.arrival;
  std::memcpy(l.data, payload, payload_len);
  --c->peers_[src_task].arrived;  // counted when it is delivered or completes its receive
  return false;
}

void Context::before_packet(void *arg, uint32_t src_task, uint16_t dispatch, const void *hdr) {
  auto *c = static_cast<Context *>(arg);
  if (c->peers_[src_task].landings) c->landings_before_message(src_task, dispatch, hdr);
}

void Context::landings_before_message(uint32_t task, uint16_t dispatch, const void *hdr) {
  // Only a message's first packet is matched; each of these begins with its match bits.
  if (dispatch != kDispatchShort && dispatch != kDispatchMsg && dispatch != kDispatchMsgSig &&
      dispatch != kDispatchRts)
    return;
  uint64_t bits;
  std::memcpy(&bits, hdr, sizeof bits);
  for (uint32_t i = 0; i < kMaxLandings; ++i) {
    const Landing &l = landings_[i];
    if (!l.used || l.task != task) continue;
    // A kept message came first; an armed receive takes this message of its envelope, which came before
    // its own landed.
    if (l.kept) landing_unkeep(i + 1);
    if (l.open && l.armed && l.bits == bits) {
      landing_shut(i + 1);
      landings_[i].reopen = landings_reopen_ = true;  // after this poll, once the message has matched
    }
  }
}

void Context::landings_before_post(uint16_t ctx, int32_t src, int32_t tag) {
  for (uint32_t i = 0; i < kMaxLandings; ++i) {
    const Landing &l = landings_[i];
    if (!l.used || bits_ctx(l.bits) != ctx || !accepts(src, tag, bits_src(l.bits), bits_tag(l.bits)))
      continue;
    if (l.kept) landing_unkeep(i + 1);
    if (l.open) landing_shut(i + 1);
  }
}

void Context::landing_withdraw(Request *r) {
  for (uint32_t i = 0; i < kMaxLandings; ++i)
    if (landings_[i].used && landings_[i].open && landings_[i].armed == r) landing_shut(i + 1);
}

}  // namespace pamir
