// Offers: a one-sided operation on a node rank's MPI_Win_create memory (reached otherwise by one
// cross-memory call per operation, microseconds each) posted in the pair's slot of the window segment for
// the target's progress to do with plain loads and stores; if the target has not taken it when the origin
// needs it done, the origin takes it back and does it through the device. The slot's word decides by
// compare-and-swap which of the two does it, so an operation is done once, and passive target still needs
// nothing of the target. Each ordered pair has a ring of slots, up to kOfferSlots offers in flight, which
// both sides finish in order (each carries its seq), so one origin's operations to one target stay in
// order. A target that lets offers lapse is offered nothing for a while (the origin goes straight to the
// device).
#include <algorithm>
#include <cerrno>
#include <cstring>

#include "pami/clock.h"
#include "pami/context.h"
#include "pami/handoff.h"
#include "pami/stream_copy.h"
#include "pami/window.h"

namespace pamir {

namespace {
// Passes of the origin's progress an offer waits through before the origin takes it back: long enough
// for a target asleep in a blocked call to wake (tens of microseconds), after which it stays awake.
constexpr unsigned kOfferPatience = 2000;
// Offers in a row a target let lapse before the origin stops offering, and operations it then sends
// through the device before it offers again.
constexpr uint8_t kOfferMissesMax = 2;
constexpr uint16_t kOfferQuiet = 256;
}  // namespace

bool Window::offer(uint32_t r, uint8_t kind, const WinOp *op, const void *src, const void *compare,
                   void *answer, uint64_t addr, uint32_t len) {
  WinTarget &t = targets_[r];
  if (!op && len < kDeferMinBytes && t.offered() && (kind == kOfferPut || kind == kOfferGet) &&
      grow(r, kind, src, answer, addr, len))
    return true;
  const uint64_t room = kind == kOfferCas ? 3 * uint64_t(len) : kind == kOfferFetch ? 2 * uint64_t(len) : len;
  if (!t.offer || room > offer_bytes_) return false;
  if (t.offer_misses >= kOfferMissesMax) {
    if (++t.offer_skips < kOfferQuiet) return false;
    t.offer_skips = 0;
    t.offer_misses = kOfferMissesMax - 1;  // one more lapse and it waits again
  }
  if (t.offer_head - t.offer_tail == offer_slots_) settle_one(r, false);  // every slot is in flight
  const uint64_t seq = t.offer_head;
  WinOffer *o = offer_slot(t.offer, seq);
  uint8_t *d = offer_data(o);
  const bool stream = !op && len >= kStreamMinBytes && handoff_slow(r);
  if (src && stream)
    stream_copy(d, src, len);
  else if (src)
    std::memcpy(d, src, len);
  if (compare) std::memcpy(d + len, compare, len);
  o->kind = kind;
  o->stream = stream && kind == kOfferGet;
  if (stream) ++stats().win_offers_streamed;
  if (op) {
    o->op = uint8_t(op->op);
    o->elem = uint8_t(op->elem);
    o->elem_bytes = op->elem_bytes;
  }
  o->len = len;
  o->addr = addr;
  o->status = 0;
  uint64_t made = 0;
  if (handoff::sampled(seq) && handoff_measured()) {
    o->alone = t.offer_tail == seq;
    o->taken_tsc = 0;
    o->done_tsc = 0;
    made = counter_now();
  }
  o->made_tsc = made;
  o->word.store(offer_word(seq, kOfferMade), std::memory_order_release);
  if (!offer_scan_) t.ctl->offers.fetch_add(1, std::memory_order_release);
  ctx_.coll_notify(t.task);
  t.offer_answer[seq % kOfferSlots] = answer;
  t.offer_head = seq + 1;
  t.pending |= kPendingOffers;
  ++stats().win_offers;
  return true;
}

// A put or get that continues the newest offer to r in the target's memory (and for a get in this
// process's, where the answer goes) joins it while the target has not taken it: OSU's bandwidth windows
// put side by side, and a target slow to take (a cache line handed over slowly) then takes a few large
// offers instead of many small ones, while one alone is still offered at once. The slot is this
// process's while its word says kOfferGrowing, which the target does not take.
bool Window::grow(uint32_t r, uint8_t kind, const void *src, void *answer, uint64_t addr, uint32_t len) {
  WinTarget &t = targets_[r];
  const uint64_t seq = t.offer_head - 1;
  WinOffer *o = offer_slot(t.offer, seq);
  const uint32_t had = o->len;
  if (o->kind != kind || o->addr + had != addr || uint64_t(had) + len > offer_bytes_) return false;
  if (kind == kOfferGet && static_cast<uint8_t *>(t.offer_answer[seq % kOfferSlots]) + had != answer)
    return false;
  uint64_t w = offer_word(seq, kOfferMade);
  if (!o->word.compare_exchange_strong(w, offer_word(seq, kOfferGrowing), std::memory_order_acquire))
    return false;  // taken, or being taken: a new offer
  if (src) std::memcpy(offer_data(o) + had, src, len);
  o->len = had + len;
  if (o->made_tsc) o->made_tsc = counter_now();  // made again now
  o->word.store(offer_word(seq, kOfferMade), std::memory_order_release);
  ++stats().win_offers_grown;
  return true;
}

// Finishes the oldest outstanding offer to r: waits for the target to take it (unless `impatient`), else
// takes it back and does it. Offers are finished in order, and the target takes them in order, so one
// taken back is never overtaken by a later one the target does.
bool Window::settle_one(uint32_t r, bool impatient) {
  WinTarget &t = targets_[r];
  const uint64_t seq = t.offer_tail;
  WinOffer *o = offer_slot(t.offer, seq);
  const uint64_t made = offer_word(seq, kOfferMade), done = offer_word(seq, kOfferDone);
  const uint64_t arrived = o->made_tsc ? counter_now() : 0;
  uint64_t s = o->word.load(std::memory_order_acquire);
  for (unsigned i = 0; !impatient && s == made && i < kOfferPatience; ++i) {
    ctx_.advance();
    s = o->word.load(std::memory_order_acquire);
  }
  bool taken_back = false;
  if (s == made &&
      o->word.compare_exchange_strong(s, offer_word(seq, kOfferTakenBack), std::memory_order_acquire)) {
    if (!offer_scan_) t.ctl->offers.fetch_sub(1, std::memory_order_relaxed);
    ++stats().win_offers_taken_back;
    o->status = do_offer_there(r, o);
    taken_back = true;
  } else if (s != done) {  // the target is doing it now
    ctx_.wait_until([o, done] { return o->word.load(std::memory_order_acquire) == done; }, 20);
  }
  if (!taken_back && arrived) note_handoff(t, o, arrived);
  if (o->status && !taken_back && (o->kind == kOfferPull || o->kind == kOfferPush))
    o->status = do_share_there(r, o);  // the target could not reach this process's memory: redone here
  const uint8_t *d = offer_data(o);
  const uint32_t len = o->len;
  void *answer = t.offer_answer[seq % kOfferSlots];
  if (!o->status) {
    if (o->kind == kOfferGet) std::memcpy(answer, d, len);
    if (o->kind == kOfferFetch && answer) std::memcpy(answer, d + len, len);
    if (o->kind == kOfferCas) std::memcpy(answer, d + 2 * size_t(len), len);
  } else {
    int64_t none = 0;
    ctls_[rank_]->error.compare_exchange_strong(none, o->status, std::memory_order_relaxed);
  }
  // Empty, its seq kept: a target that has not looked yet sees it finished and goes past it.
  o->word.store(offer_word(seq, kOfferEmpty), std::memory_order_release);
  t.offer_tail = seq + 1;
  if (t.offer_tail == t.offer_head) t.pending &= uint8_t(~kPendingOffers);
  return taken_back;
}

// A timed offer the target did: how long a line took to cross (WinTarget::handoff_ticks).
void Window::note_handoff(WinTarget &t, const WinOffer *o, uint64_t arrived) {
  const bool big = o->len > handoff::kCleanBytes;
  const handoff::Crossings c{o->made_tsc,
                             o->taken_tsc,
                             o->done_tsc,
                             arrived,
                             counter_now(),
                             o->alone != 0,
                             big && o->kind != kOfferGet,
                             big && (o->kind == kOfferGet || o->kind == kOfferFetch || o->kind == kOfferCas)};
  const uint64_t took = handoff::line_ticks(c);
  if (took != handoff::kNone) t.handoff_ticks = handoff::average(t.handoff_ticks, took, handoff_slow_ticks_);
}

void Window::settle(uint32_t r) {
  WinTarget &t = targets_[r];
  bool lapsed = false;
  while (t.offer_tail != t.offer_head) lapsed |= settle_one(r, lapsed);  // one lapse: the target is away
  if (!lapsed)
    t.offer_misses = 0;
  else if (t.offer_misses < kOfferMissesMax)
    ++t.offer_misses;
}

// The target's side: takes what the node's ranks offered it, each rank's in order, and does it on its own
// memory. It stops at an offer its origin took back and is still doing: a later one must not overtake it.
void Window::take_offers() {
  WinCtl *me = ctls_[rank_];
  if (!offer_scan_ && !me->offers.load(std::memory_order_acquire)) return;
  bool took = false;
  for (OfferIn &in : offers_in_) {
    const uint64_t first = in.next;
    for (;;) {
      WinOffer *o = offer_slot(in.first, in.next);
      uint64_t w = o->word.load(std::memory_order_acquire);
      const uint64_t seq = offer_seq(w);
      const WinOfferState s = offer_state(w);
      if (seq > in.next || (seq == in.next && (s == kOfferEmpty || s == kOfferDone))) {
        ++in.next;  // finished by its origin (the slot may already hold a later one)
        continue;
      }
      if (seq != in.next || s != kOfferMade ||
          !o->word.compare_exchange_strong(w, offer_word(seq, kOfferTaken), std::memory_order_acquire))
        break;
      if (o->made_tsc) o->taken_tsc = counter_now();
      if (!offer_scan_) me->offers.fetch_sub(1, std::memory_order_relaxed);
      ++stats().win_offers_taken;
      o->status = do_offer_here(o, in.task);
      if (o->made_tsc) o->done_tsc = counter_now();
      o->word.store(offer_word(seq, kOfferDone), std::memory_order_release);
      ++in.next;
      took = true;
    }
    if (in.next != first) ctx_.coll_notify(in.task);
  }
  if (took) ctx_.note_served();
}

int64_t Window::do_offer_here(WinOffer *o, uint32_t origin_task) {
  const uint32_t len = o->len;
  if (o->kind == kOfferPull || o->kind == kOfferPush) return do_share_here(o, origin_task);
  if (!serves(o->addr, len)) return -EFAULT;
  uint8_t *at = reinterpret_cast<uint8_t *>(uintptr_t(o->addr));
  uint8_t *d = offer_data(o);
  switch (o->kind) {
    case kOfferPut:
      std::memcpy(at, d, len);
      return 0;
    case kOfferGet:
      if (o->stream)
        stream_copy(d, at, len);
      else
        std::memcpy(d, at, len);
      return 0;
    default:
      break;
  }
  WinCtl *me = ctls_[rank_];
  spin_acc_lock();
  if (o->kind == kOfferCas) {
    std::memcpy(d + 2 * size_t(len), at, len);
    if (std::memcmp(at, d + len, len) == 0) std::memcpy(at, d, len);
  } else {
    if (o->kind == kOfferFetch) std::memcpy(d + len, at, len);
    apply(WinOp{coll::OpKind(o->op), coll::ElemType(o->elem), o->elem_bytes}, d, at, len);
  }
  acc_unlock(me);
  return 0;
}

int Window::do_offer_there(uint32_t r, WinOffer *o) {
  const uint32_t len = o->len;
  uint8_t *d = offer_data(o);
  if (o->kind == kOfferPull || o->kind == kOfferPush) return do_share_there(r, o);
  struct iovec l = {d, len}, rm = {reinterpret_cast<void *>(uintptr_t(o->addr)), len};
  switch (o->kind) {
    case kOfferPut:
      return direct(r, true, &l, &rm, 1);
    case kOfferGet:
      return direct(r, false, &l, &rm, 1);
    case kOfferCas:
      return rdma_compare_and_swap(r, d, d + len, d + 2 * size_t(len), o->addr, len);
    default:
      return rdma_accumulate(r, WinOp{coll::OpKind(o->op), coll::ElemType(o->elem), o->elem_bytes}, d,
                             o->kind == kOfferFetch ? d + len : nullptr, rm);
  }
}

}  // namespace pamir
