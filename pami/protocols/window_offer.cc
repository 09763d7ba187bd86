// Offers: a one-sided operation on a node rank's MPI_Win_create memory (reached otherwise by one
// cross-memory call per operation, microseconds each) posted in the pair's slot of the window segment for
// the target's progress to do with plain loads and stores; if the target has not taken it when the origin
// needs it done, the origin takes it back and does it through the device. The slot's state decides by
// compare-and-swap which of the two does it, so an operation is done once, and passive target still needs
// nothing of the target. One slot per ordered pair keeps one origin's operations to one target in order.
// A target that lets offers lapse is offered nothing for a while (the origin goes straight to the device).
#include <cerrno>
#include <cstring>

#include "pami/context.h"
#include "pami/window.h"

namespace pamir {

namespace {
// Passes of the origin's progress an offer waits through before the origin takes it back: long enough
// for a target asleep in a blocked call to wake (tens of microseconds), which it stays for the next.
constexpr unsigned kOfferPatience = 2000;
// Offers in a row a target let lapse before the origin stops offering, and operations it then sends
// through the device before it offers again.
constexpr uint8_t kOfferMissesMax = 2;
constexpr uint16_t kOfferQuiet = 256;
}  // namespace

bool Window::offer(uint32_t r, uint8_t kind, const WinOp *op, const void *src, const void *compare, void *answer,
                   uint64_t addr, uint32_t len) {
  WinTarget &t = targets_[r];
  WinOffer *o = t.offer;
  const uint64_t room = kind == kOfferCas ? 3 * uint64_t(len) : kind == kOfferFetch ? 2 * uint64_t(len) : len;
  if (!o || room > offer_bytes_) return false;
  if (t.offer_misses >= kOfferMissesMax) {
    if (++t.offer_skips < kOfferQuiet) return false;
    t.offer_skips = 0;
    t.offer_misses = kOfferMissesMax - 1;  // one more lapse and it waits again
  }
  if (t.offered) settle(r);
  uint8_t *d = offer_data(o);
  if (src) std::memcpy(d, src, len);
  if (compare) std::memcpy(d + len, compare, len);
  o->kind = kind;
  if (op) {
    o->op = uint8_t(op->op);
    o->elem = uint8_t(op->elem);
    o->elem_bytes = op->elem_bytes;
  }
  o->len = len;
  o->addr = addr;
  o->status = 0;
  o->state.store(kOfferMade, std::memory_order_release);
  t.ctl->offers.fetch_add(1, std::memory_order_release);
  ctx_.coll_notify(t.task);
  t.offered = true;
  t.offer_answer = answer;
  ++stats().win_offers;
  return true;
}

void Window::settle(uint32_t r) {
  WinTarget &t = targets_[r];
  WinOffer *o = t.offer;
  uint32_t s = o->state.load(std::memory_order_acquire);
  for (unsigned i = 0; s == kOfferMade && i < kOfferPatience; ++i) {
    ctx_.advance();
    s = o->state.load(std::memory_order_acquire);
  }
  if (s == kOfferMade && o->state.compare_exchange_strong(s, kOfferTakenBack, std::memory_order_acquire)) {
    t.ctl->offers.fetch_sub(1, std::memory_order_relaxed);
    if (t.offer_misses < kOfferMissesMax) ++t.offer_misses;
    ++stats().win_offers_taken_back;
    o->status = do_offer_there(r, o);
    s = kOfferDone;
  } else {
    t.offer_misses = 0;
    if (s != kOfferDone)  // the target is doing it now
      ctx_.wait_until([o] { return o->state.load(std::memory_order_acquire) == kOfferDone; }, 20);
  }
  const uint8_t *d = offer_data(o);
  const uint32_t len = o->len;
  if (!o->status) {
    if (o->kind == kOfferGet) std::memcpy(t.offer_answer, d, len);
    if (o->kind == kOfferFetch && t.offer_answer) std::memcpy(t.offer_answer, d + len, len);
    if (o->kind == kOfferCas) std::memcpy(t.offer_answer, d + 2 * size_t(len), len);
  } else {
    int64_t none = 0;
    ctls_[rank_]->error.compare_exchange_strong(none, o->status, std::memory_order_relaxed);
  }
  o->state.store(kOfferEmpty, std::memory_order_relaxed);
  t.offered = false;
}

// The target's side: takes what the node's ranks offered it and does it on its own memory.
void Window::take_offers() {
  WinCtl *me = ctls_[rank_];
  if (!me->offers.load(std::memory_order_acquire)) return;
  for (const auto &[o, task] : offers_in_) {
    uint32_t s = kOfferMade;
    if (o->state.load(std::memory_order_relaxed) != kOfferMade ||
        !o->state.compare_exchange_strong(s, kOfferTaken, std::memory_order_acquire))
      continue;
    me->offers.fetch_sub(1, std::memory_order_relaxed);
    ++stats().win_offers_taken;
    o->status = do_offer_here(o);
    o->state.store(kOfferDone, std::memory_order_release);
    ctx_.coll_notify(task);
    ctx_.note_served();
  }
}

int64_t Window::do_offer_here(WinOffer *o) {
  const uint32_t len = o->len;
  if (!serves(o->addr, len)) return -EFAULT;
  uint8_t *at = reinterpret_cast<uint8_t *>(uintptr_t(o->addr));
  uint8_t *d = offer_data(o);
  switch (o->kind) {
    case kOfferPut:
      std::memcpy(at, d, len);
      return 0;
    case kOfferGet:
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
