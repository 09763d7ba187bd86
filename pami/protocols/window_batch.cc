// Batches: puts and gets through the device (cross-memory attach to a node rank's MPI_Win_create
// memory) of kDeferMinBytes or more wait here until their target's next synchronisation or next
// operation of another kind. A cross-memory call costs about 1.5 us here before it moves a byte (then
// 0.3 us a page), so the 64 puts of a bandwidth window are one call instead of 64. MPI lets a put or
// get be done any time up to its flush, and the origin's buffer is the user's until then. Whatever
// follows to the same target (an operation on another path, an offer, a flush) submits the batch
// first, so one origin's operations to one target stay in order.
//
// Operations side by side in both memories join into one entry. A batch is then moved by whichever is
// fastest for its size: up to kOfferPiecesMax in all, in offers of kOfferPieceBytes each (the origin
// fills a slot while the target empties the one before); up to kOfferPipeMax, in offers of a whole slot
// each where slots are kOfferRoomMax and the cores hand a cache line over quickly (Window::handoff_slow);
// from kShareMinBytes beyond those, by two cores at once, the origin's cross-memory call doing the first
// half while the target's progress does the second (an offer whose data is the list of the target's
// pieces, which the origin takes back and does itself if the target is not there to take it); else one
// call.
#include <algorithm>
#include <cerrno>

#include "pami/context.h"
#include "pami/window.h"

namespace pamir {

int Window::defer(uint32_t r, bool write, uint64_t addr, void *local, size_t len) {
  WinTarget &t = targets_[r];
  if (batch_.n && (batch_.target != r || batch_.write != write)) submit();
  if (batch_.n) {
    // One that continues the last in both memories extends it: the kernel pins each remote entry's
    // pages on its own, so 64 puts of 2 KiB side by side pin 64 times as entries, twice as one.
    struct iovec &l = batch_.local[batch_.n - 1], &rm = batch_.remote[batch_.n - 1];
    if (static_cast<uint8_t *>(l.iov_base) + l.iov_len == local &&
        uintptr_t(rm.iov_base) + rm.iov_len == addr) {
      l.iov_len += len;
      rm.iov_len += len;
      return 0;
    }
    if (batch_.n == kBatchMax) submit();
  }
  if (t.offered()) settle(r);  // after the offers before it
  batch_.target = r;
  batch_.write = write;
  batch_.local[batch_.n] = {local, len};
  batch_.remote[batch_.n] = {reinterpret_cast<void *>(uintptr_t(addr)), len};
  ++batch_.n;
  t.pending |= kPendingBatch;
  return 0;
}

// A failure shows at the flush, as a served operation's does.
void Window::submit() {
  const uint32_t r = batch_.target;
  const unsigned n = batch_.n;
  targets_[r].pending &= uint8_t(~kPendingBatch);
  uint64_t bytes = 0;
  for (unsigned i = 0; i < n; ++i) bytes += batch_.local[i].iov_len;
  int rc = 0;
  const bool small = bytes <= kOfferPiecesMax;
  const bool pipe = bytes <= kOfferPipeMax && offer_bytes_ >= kOfferRoomMax && !handoff_slow(r);
  if (targets_[r].offer && (small || pipe)) {
    const uint64_t piece = small ? kOfferPieceBytes : offer_bytes_;
    for (unsigned i = 0; i < n; ++i) {
      int one = 0;
      uint8_t *local = static_cast<uint8_t *>(batch_.local[i].iov_base);
      offer_pieces(r, batch_.write ? kOfferPut : kOfferGet, nullptr, batch_.write ? local : nullptr,
                   batch_.write ? nullptr : local, uint64_t(uintptr_t(batch_.remote[i].iov_base)),
                   batch_.local[i].iov_len, piece, one);
      if (!rc) rc = one;
    }
  } else if (bytes < kShareMinBytes || !share(r, bytes, rc)) {
    rc = direct(r, batch_.write, batch_.local, batch_.remote, n);
  }
  batch_.n = 0;
  if (rc) {
    int64_t none = 0;
    ctls_[rank_]->error.compare_exchange_strong(none, rc, std::memory_order_relaxed);
  }
}

// An operation offered in pieces of up to piece_max (and a slot), whole elements each for accumulates
// (which are atomic per element, not per operation), so the target empties one slot while the origin
// fills the next. Pieces of a quarter of the operation gained in one quick round and lost wherever the
// cores hand a cache line over slowly (docs/performance.md). If the target lets offers lapse, the rest
// goes through the device.
bool Window::offer_pieces(uint32_t r, uint8_t kind, const WinOp *op, uint8_t *src, uint8_t *answer,
                          uint64_t addr, uint64_t len, uint64_t piece_max, int &rc) {
  WinTarget &t = targets_[r];
  const uint32_t unit = op ? op->elem_bytes : 1;
  const uint64_t room = std::min<uint64_t>(piece_max, kind == kOfferFetch ? offer_bytes_ / 2 : offer_bytes_);
  const uint64_t piece = room / unit * unit;
  if (!t.offer || !piece) return false;
  uint64_t off = 0;
  while (off < len) {
    const uint32_t n = uint32_t(std::min<uint64_t>(piece, len - off));
    if (!offer(r, kind, op, src ? src + off : nullptr, nullptr, answer ? answer + off : nullptr, addr + off,
               n))
      break;
    off += n;
  }
  rc = 0;
  if (off == len) return true;
  if (t.offered()) settle(r);  // the rest in order after the pieces offered
  struct iovec rm = {reinterpret_cast<void *>(uintptr_t(addr + off)), len - off};
  struct iovec l = {kind == kOfferPut ? src + off : answer ? answer + off : nullptr, len - off};
  if (kind == kOfferPut || kind == kOfferGet)
    rc = direct(r, kind == kOfferPut, &l, &rm, 1);
  else
    rc = rdma_accumulate(r, *op, src ? src + off : nullptr, answer ? answer + off : nullptr, rm);
  return true;
}

// The origin moves the batch's first half (a page boundary) by one cross-memory call while the target's
// progress moves the rest by one of its own.
bool Window::share(uint32_t r, uint64_t bytes, int &rc) {
  const unsigned n = batch_.n;
  if (!targets_[r].offer || (n + 1) * sizeof(WinSharePiece) > offer_bytes_) return false;
  const uint64_t half = (bytes / 2 + 4095) & ~uint64_t(4095);
  struct iovec local[kBatchMax], remote[kBatchMax];
  WinSharePiece theirs[kBatchMax];
  unsigned mine = 0, given = 0;
  uint64_t at = 0;
  for (unsigned i = 0; i < n; ++i) {
    const uint64_t len = batch_.local[i].iov_len;
    const uint64_t keep = at >= half ? 0 : std::min(len, half - at);
    if (keep) {
      local[mine] = {batch_.local[i].iov_base, keep};
      remote[mine++] = {batch_.remote[i].iov_base, keep};
    }
    if (keep < len)
      theirs[given++] = {uint64_t(uintptr_t(batch_.local[i].iov_base)) + keep,
                         uint64_t(uintptr_t(batch_.remote[i].iov_base)) + keep, len - keep};
    at += len;
  }
  if (!given || !offer(r, batch_.write ? kOfferPull : kOfferPush, nullptr, theirs, nullptr, nullptr, 0,
                       uint32_t(given * sizeof(WinSharePiece))))
    return false;
  ++stats().win_shared;
  rc = direct(r, batch_.write, local, remote, mine);
  settle(r);  // the target's half, by the target or, if it is away, by this process
  return true;
}

// The target's half: from the origin's memory into its own (a put), or the other way (a get).
int64_t Window::do_share_here(WinOffer *o, uint32_t origin_task) {
  if (!ctx_.node_memory_reachable(origin_task)) return -EPERM;  // the origin does it (settle_one)
  const auto *p = reinterpret_cast<const WinSharePiece *>(offer_data(o));
  const unsigned n = o->len / sizeof(WinSharePiece);
  struct iovec mine[kBatchMax], theirs[kBatchMax];
  size_t want = 0;
  for (unsigned i = 0; i < n; ++i) {
    if (!serves(p[i].target, p[i].len)) return -EFAULT;
    mine[i] = {reinterpret_cast<void *>(uintptr_t(p[i].target)), p[i].len};
    theirs[i] = {reinterpret_cast<void *>(uintptr_t(p[i].origin)), p[i].len};
    want += p[i].len;
  }
  const ssize_t got = o->kind == kOfferPull ? ctx_.node_readv(origin_task, mine, n, theirs, n)
                                            : ctx_.node_writev(origin_task, mine, n, theirs, n);
  return got < 0 ? got : size_t(got) == want ? 0 : -EFAULT;
}

// The target's half done by the origin: the target did not take it in time, or could not reach the
// origin's memory.
int Window::do_share_there(uint32_t r, WinOffer *o) {
  const auto *p = reinterpret_cast<const WinSharePiece *>(offer_data(o));
  const unsigned n = o->len / sizeof(WinSharePiece);
  struct iovec mine[kBatchMax], theirs[kBatchMax];
  for (unsigned i = 0; i < n; ++i) {
    mine[i] = {reinterpret_cast<void *>(uintptr_t(p[i].origin)), p[i].len};
    theirs[i] = {reinterpret_cast<void *>(uintptr_t(p[i].target)), p[i].len};
  }
  return direct(r, o->kind == kOfferPull, mine, theirs, n);
}

}  // namespace pamir
