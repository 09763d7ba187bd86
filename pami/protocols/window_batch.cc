// Batches: puts and gets through the device (cross-memory attach to a node rank's MPI_Win_create
// memory) wait here until their target's next synchronisation or next operation of another kind. A
// cross-memory call costs about 1.5 us here before it moves a byte (then 0.3 us a page), and an offer a
// handoff of a slot between the cores, so the 64 puts of a bandwidth window are one call, or a few
// offers, instead of 64. MPI lets a put or get be done any time up to its flush, and the origin's buffer
// is the user's until then. Whatever follows to the same target (an operation on another path, an
// offer, a flush) submits the batch first, so one origin's operations to one target stay in order.
//
// Operations side by side in both memories join into one entry. A batch is then moved by whichever is
// fastest for its entries: up to kOfferPiecesMax in all, and entries below kOfferEntryMax, in offers of
// pieces (the origin fills a slot while the target empties the one before); the rest from
// kShareMinBytes by two cores at once, the origin's cross-memory call doing the first half while the
// target's progress does the second (an offer whose data is the list of the target's pieces, which the
// origin takes back and does itself if the target is not there to take it); else one call.
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

// A failure shows at the flush, as a served operation's does. Entries below kOfferEntryMax (or all, if
// the batch is small) are offered, in pieces; the rest go through the device, shared with the target
// from kShareMinBytes, while the target takes the offers. One batch holds only puts or only gets, which
// MPI leaves unordered among themselves, so offered and direct entries need no order between them.
void Window::submit() {
  const uint32_t r = batch_.target;
  const unsigned n = batch_.n;
  WinTarget &t = targets_[r];
  t.pending &= uint8_t(~kPendingBatch);
  batch_.n = 0;
  uint64_t bytes = 0;
  for (unsigned i = 0; i < n; ++i) bytes += batch_.local[i].iov_len;
  const bool offer_all = bytes <= kOfferPiecesMax;
  struct iovec local[kBatchMax], remote[kBatchMax];  // the entries that go through the device
  unsigned m = 0;
  uint64_t through = 0;
  int rc = 0;
  for (unsigned i = 0; i < n; ++i) {
    const uint64_t len = batch_.local[i].iov_len;
    uint8_t *mine = static_cast<uint8_t *>(batch_.local[i].iov_base);
    int one = 0;
    if ((offer_all || len < kOfferEntryMax) &&
        offer_pieces(r, batch_.write ? kOfferPut : kOfferGet, nullptr, batch_.write ? mine : nullptr,
                     batch_.write ? nullptr : mine, uint64_t(uintptr_t(batch_.remote[i].iov_base)), len,
                     one)) {
      if (!rc) rc = one;
      continue;
    }
    local[m] = batch_.local[i];
    remote[m++] = batch_.remote[i];
    through += len;
  }
  int moved = 0;
  if (m && (through < kShareMinBytes || !share(r, local, remote, m, through, moved)))
    moved = direct(r, batch_.write, local, remote, m);
  if (!rc) rc = moved;
  if (rc) {
    int64_t none = 0;
    ctls_[rank_]->error.compare_exchange_strong(none, rc, std::memory_order_relaxed);
  }
}

// An operation offered in pieces of about a quarter of it (at least kPieceMinBytes, at most a slot),
// whole elements each for accumulates (which are atomic per element, not per operation): the target
// starts on the first piece while the origin fills the next, so a 4 KiB operation is done in about
// half the time of one slot-sized piece. If the target lets offers lapse, the rest goes through the
// device.
bool Window::offer_pieces(uint32_t r, uint8_t kind, const WinOp *op, uint8_t *src, uint8_t *answer,
                          uint64_t addr, uint64_t len, int &rc) {
  WinTarget &t = targets_[r];
  const uint32_t unit = op ? op->elem_bytes : 1;
  const uint64_t room = kind == kOfferFetch ? offer_bytes_ / 2 : offer_bytes_;
  const uint64_t quarter = std::max(kPieceMinBytes, (len / 4 + 63) & ~uint64_t(63));
  const uint64_t piece = std::min(room, quarter) / unit * unit;
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

// The origin moves the first half of a batch's entries (to a page boundary) by one cross-memory call
// while the target's progress moves the rest by one of its own.
bool Window::share(uint32_t r, const struct iovec *local_in, const struct iovec *remote_in, unsigned n,
                   uint64_t bytes, int &rc) {
  if (!targets_[r].offer || (n + 1) * sizeof(WinSharePiece) > offer_bytes_) return false;
  const uint64_t half = (bytes / 2 + 4095) & ~uint64_t(4095);
  struct iovec local[kBatchMax], remote[kBatchMax];
  WinSharePiece theirs[kBatchMax];
  unsigned mine = 0, given = 0;
  uint64_t at = 0;
  for (unsigned i = 0; i < n; ++i) {
    const uint64_t len = local_in[i].iov_len;
    const uint64_t keep = at >= half ? 0 : std::min(len, half - at);
    if (keep) {
      local[mine] = {local_in[i].iov_base, keep};
      remote[mine++] = {remote_in[i].iov_base, keep};
    }
    if (keep < len)
      theirs[given++] = {uint64_t(uintptr_t(local_in[i].iov_base)) + keep,
                         uint64_t(uintptr_t(remote_in[i].iov_base)) + keep, len - keep};
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
