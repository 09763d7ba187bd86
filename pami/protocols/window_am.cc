// The served path of windows: operations on a target this process cannot reach directly travel as
// packets (kDispatchWin) that the target's progress applies, in order, under the same accumulate lock
// as the direct paths; then the target writes the origin's counter for it (seed 001): a store into the
// window segment where they share the node, an acknowledgment packet otherwise. Locks and the signals
// of active target go the same way to ranks off the node. This is the one path that needs the target's
// progress (docs/architecture.md, "One-sided communication").
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "pami/context.h"
#include "pami/window.h"

namespace pamir {

namespace {

enum WinKind : uint8_t {
  kWinPut,       // payload -> addr; acknowledged when `last`
  kWinGet,       // len bytes at addr -> kWinReply packets to cookie, then acknowledged
  kWinAcc,       // payload combined into addr (op, elem); the old values -> cookie first when nonzero
  kWinFetch,     // len bytes at addr -> cookie, under the accumulate lock (a get_accumulate's MPI_NO_OP)
  kWinCas,       // payload: origin value, then compare value; the old value -> cookie
  kWinReply,     // at the origin: payload -> cookie
  kWinAck,       // at the origin: `len` more of its operations are done; `addr` a failure (-errno) or 0
  kWinLock,      // op: LockType
  kWinGrant,     // at the origin: its lock request is granted
  kWinUnlock,    // op: LockType
  kWinPost,      // at the origin: the target posted
  kWinComplete,  // at the target: an origin completed its access epoch
};

}  // namespace

struct WinHeader {
  uint32_t win;  // the window's id
  uint32_t src;  // the sender's window rank
  uint8_t kind;
  uint8_t op;
  uint8_t elem;
  uint8_t last;  // the operation's last packet
  uint32_t elem_bytes;
  uint64_t addr;
  uint64_t cookie;
  uint64_t len;
};

void Window::send(uint32_t r, const void *hdr, uint32_t hdr_len, const void *payload, size_t len) {
  ctx_.send_am(targets_[r].task, hdr, hdr_len, payload, len);
}

// Packets of at most this many payload bytes, cut on element boundaries.
static size_t payload_room(Context &ctx, uint32_t task, uint32_t elem_bytes) {
  size_t room = ctx.am_payload(task, sizeof(WinHeader));
  if (elem_bytes > 1) room -= room % elem_bytes;
  return room;
}

void Window::serve_put(uint32_t r, const struct iovec &local, const struct iovec &remote) {
  const size_t room = payload_room(ctx_, targets_[r].task, 1);
  const uint8_t *src = static_cast<const uint8_t *>(local.iov_base);
  const uint64_t addr = uint64_t(uintptr_t(remote.iov_base));
  size_t off = 0;
  do {
    const size_t n = std::min(room, local.iov_len - off);
    WinHeader h{id_, rank_, kWinPut, 0, 0, uint8_t(off + n == local.iov_len), 1, addr + off, 0, n};
    send(r, &h, sizeof h, src + off, n);
    off += n;
  } while (off < local.iov_len);
  ++targets_[r].issued;
  ++stats().win_served;
}

void Window::serve_get(uint32_t r, const struct iovec &local, const struct iovec &remote) {
  WinHeader h{id_,
              rank_,
              kWinGet,
              0,
              0,
              1,
              1,
              uint64_t(uintptr_t(remote.iov_base)),
              uint64_t(uintptr_t(local.iov_base)),
              local.iov_len};
  send(r, &h, sizeof h, nullptr, 0);
  ++targets_[r].issued;
  ++stats().win_served;
}

void Window::serve_accumulate(uint32_t r, const WinOp &op, const struct iovec &origin,
                              const struct iovec *result, const struct iovec &remote) {
  const uint64_t addr = uint64_t(uintptr_t(remote.iov_base));
  const uint64_t res = result ? uint64_t(uintptr_t(result->iov_base)) : 0;
  if (op.op == coll::OpKind::no_op || !origin.iov_base) {
    WinHeader h{id_, rank_, kWinFetch, 0, 0, 1, op.elem_bytes, addr, res, remote.iov_len};
    send(r, &h, sizeof h, nullptr, 0);
    ++targets_[r].issued;
    return;
  }
  const size_t room = payload_room(ctx_, targets_[r].task, op.elem_bytes);
  const uint8_t *src = static_cast<const uint8_t *>(origin.iov_base);
  size_t off = 0;
  do {
    const size_t n = std::min(room, origin.iov_len - off);
    WinHeader h{id_,
                rank_,
                kWinAcc,
                uint8_t(op.op),
                uint8_t(op.elem),
                uint8_t(off + n == origin.iov_len),
                op.elem_bytes,
                addr + off,
                res ? res + off : 0,
                n};
    send(r, &h, sizeof h, src + off, n);
    off += n;
  } while (off < origin.iov_len);
  ++targets_[r].issued;
  ++stats().win_served;
}

void Window::serve_compare_and_swap(uint32_t r, const void *origin, const void *compare, void *result,
                                    uint64_t addr, uint32_t bytes) {
  uint8_t both[32];
  std::memcpy(both, origin, bytes);
  std::memcpy(both + bytes, compare, bytes);
  WinHeader h{id_, rank_, kWinCas, 0, 0, 1, bytes, addr, uint64_t(uintptr_t(result)), bytes};
  send(r, &h, sizeof h, both, 2 * size_t(bytes));
  ++targets_[r].issued;
  ++stats().win_served;
}

void Window::signal(uint32_t r, uint8_t what) {
  WinHeader h{id_, rank_, what == kWinSignalPost ? uint8_t(kWinPost) : uint8_t(kWinComplete), 0, 0, 1, 0, 0,
              0,   0};
  send(r, &h, sizeof h, nullptr, 0);
}

void Window::signal_lock(uint32_t r, LockType type) {
  WinHeader h{id_, rank_, kWinLock, uint8_t(type), 0, 1, 0, 0, 0, 0};
  send(r, &h, sizeof h, nullptr, 0);
}

void Window::signal_unlock(uint32_t r, LockType type) {
  WinHeader h{id_, rank_, kWinUnlock, uint8_t(type), 0, 1, 0, 0, 0, 0};
  send(r, &h, sizeof h, nullptr, 0);
}

void Window::acknowledge(uint32_t r, int64_t status, bool in_band) {
  if (WinCtl *c = ctls_[r]; c && !in_band) {
    if (status) {
      int64_t none = 0;
      c->error.compare_exchange_strong(none, status, std::memory_order_relaxed);
    }
    done(c, rank_)->fetch_add(1, std::memory_order_release);
    ctx_.coll_notify(targets_[r].task);
    return;
  }
  WinHeader h{id_, rank_, kWinAck, 0, 0, 1, 0, uint64_t(status), 0, 1};
  send(r, &h, sizeof h, nullptr, 0);
}

// Answers `len` bytes to the origin's `cookie`. With `done` the last packet also says the operation is
// done: an answer acknowledges in band, since a store into the origin's counter could overtake it.
void Window::reply(uint32_t r, uint64_t cookie, const uint8_t *data, uint64_t len, bool done) {
  const size_t room = payload_room(ctx_, targets_[r].task, 1);
  uint64_t off = 0;
  do {
    const size_t n = std::min<uint64_t>(room, len - off);
    const uint8_t last = done && off + n == len;
    WinHeader rep{id_, rank_, kWinReply, 0, 0, last, 1, 0, cookie + off, n};
    send(r, &rep, sizeof rep, data + off, n);
    off += n;
  } while (off < len);
}

// The target's side: whether [addr, addr + len) is this rank's window memory.
bool Window::serves(uint64_t addr, uint64_t len) const {
  if (flavor_ == WinFlavor::dynamic) return in_regions(addr, len);
  const WinTarget &me = targets_[rank_];
  return addr >= me.base && addr - me.base <= me.size && len <= me.size - (addr - me.base);
}

void Window::spin_acc_lock() {
  // Inside the device's delivery: no progress may be made here, so a plain spin (the holder is another
  // process in the middle of one operation's copy).
  WinCtl *c = ctls_[rank_];
  while (c->acc_lock.exchange(1, std::memory_order_acquire) != 0)
    while (c->acc_lock.load(std::memory_order_relaxed)) sched_yield();
}

void Window::on_packet(uint32_t src, const WinHeader &h, const void *payload, size_t len) {
  WinCtl *mine = ctls_[rank_];
  switch (h.kind) {
    case kWinPut:
      if (serves(h.addr, len))
        std::memcpy(reinterpret_cast<void *>(uintptr_t(h.addr)), payload, len);
      else
        served_error_ = -EFAULT;
      if (h.last) {
        acknowledge(src, served_error_);
        served_error_ = 0;
      }
      return;
    case kWinGet:
      if (!serves(h.addr, h.len))
        acknowledge(src, -EFAULT, true);  // behind the answers to earlier operations
      else
        reply(src, h.cookie, reinterpret_cast<const uint8_t *>(uintptr_t(h.addr)), h.len, true);
      return;
    case kWinAcc:
    case kWinFetch: {
      const uint64_t bytes = h.kind == kWinAcc ? len : h.len;
      bool answered = false;
      if (!serves(h.addr, bytes)) {
        served_error_ = -EFAULT;
      } else {
        void *at = reinterpret_cast<void *>(uintptr_t(h.addr));
        spin_acc_lock();
        if (h.cookie) {
          // The old values leave after the lock is dropped: a queued packet copies its payload, but
          // one sent at once reads it now, so they are taken while the lock is held.
          old_.assign(static_cast<uint8_t *>(at), static_cast<uint8_t *>(at) + bytes);
        }
        if (h.kind == kWinAcc)
          apply(WinOp{coll::OpKind(h.op), coll::ElemType(h.elem), h.elem_bytes}, payload, at, bytes);
        acc_unlock(mine);
        if (h.cookie) {
          answered = h.last && !served_error_;
          reply(src, h.cookie, old_.data(), bytes, answered);
        }
      }
      if (h.last && !answered) {
        acknowledge(src, served_error_, h.cookie != 0);
        served_error_ = 0;
      }
      return;
    }
    case kWinCas: {
      const uint32_t b = h.elem_bytes;
      if (!serves(h.addr, b) || len != 2 * size_t(b)) {
        acknowledge(src, -EFAULT, true);
        return;
      }
      uint8_t old[16];
      void *at = reinterpret_cast<void *>(uintptr_t(h.addr));
      const uint8_t *in = static_cast<const uint8_t *>(payload);
      spin_acc_lock();
      std::memcpy(old, at, b);
      if (std::memcmp(at, in + b, b) == 0) std::memcpy(at, in, b);
      acc_unlock(mine);
      reply(src, h.cookie, old, b, true);
      return;
    }
    case kWinReply:
      std::memcpy(reinterpret_cast<void *>(uintptr_t(h.cookie)), payload, len);
      if (h.last) done(mine, src)->fetch_add(1, std::memory_order_release);
      return;
    case kWinAck:
      if (h.addr) {
        int64_t none = 0;
        mine->error.compare_exchange_strong(none, int64_t(h.addr), std::memory_order_relaxed);
      }
      done(mine, src)->fetch_add(h.len, std::memory_order_release);
      return;
    case kWinLock:
      waiting_locks_.push_back({src, LockType(h.op)});
      serve_waiting_locks();
      return;
    case kWinGrant:
      granted_[src] = 1;
      return;
    case kWinUnlock:
      release_lock(mine, LockType(h.op));
      acknowledge(src, 0);
      if (!waiting_locks_.empty()) serve_waiting_locks();
      return;
    case kWinPost:
      posted(mine, src)->fetch_add(1, std::memory_order_release);
      return;
    case kWinComplete:
      mine->completes.fetch_add(1, std::memory_order_release);
      return;
    default:
      return;
  }
}

// Grants what can be granted, in the order asked: an exclusive request waits for the shared holders to
// go, and none after it overtakes it.
void Window::serve_waiting_locks() {
  WinCtl *mine = ctls_[rank_];
  size_t i = 0;
  for (; i < waiting_locks_.size(); ++i) {
    const WinWaitingLock &w = waiting_locks_[i];
    if (!try_lock(mine, w.type)) break;
    WinHeader g{id_, rank_, kWinGrant, 0, 0, 1, 0, 0, 0, 0};
    send(w.rank, &g, sizeof g, nullptr, 0);
  }
  waiting_locks_.erase(waiting_locks_.begin(), waiting_locks_.begin() + long(i));
  set_polled(kPollLocks, !waiting_locks_.empty());
}

void window_deliver(const void *hdr, const void *payload, size_t len) {
  WinHeader h;
  std::memcpy(&h, hdr, sizeof h);
  if (Window *w = window_by_id(h.win)) w->on_packet(h.src, h, payload, len);
}

}  // namespace pamir
