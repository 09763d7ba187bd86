// One-sided windows on the PAMI layer: where each target's memory is, how this process reaches it, the
// passive-target locks, the accumulate lock, the counters that complete operations (seed 001) and the
// signals of active-target synchronisation. Nothing here knows MPI handles; the binding (mpi/rma*.cc)
// checks arguments, walks datatypes into common chunks (seed 003) and calls in.
//
// Each window has a segment of its own per node, made at creation: the node's ranks of the window map it,
// and it holds one control block per node rank (WinCtl, below) and, for MPI_Win_allocate and
// MPI_Win_allocate_shared, their window memory. So a node rank's memory and locks are plain loads,
// stores and atomics here, and need nothing of the target: passive target works while it computes.
//
// The path to a target is chosen once, at creation, and every operation to it takes that path, so one
// origin's operations to one target are ordered as `accumulate_ordering`'s default asks:
//   mapped  its memory is in the window segment: memcpy, and accumulates under its accumulate lock;
//   rdma    the device reads and writes its memory (cross-memory attach on shm): the same, through the
//           device, still under the accumulate lock in the segment;
//   served  neither: packets (kDispatchWin) that its progress serves, in order. An operation counts in
//           `issued`; the target writes what it has done into this process's counter for it (`done`,
//           in this process's control block: a store where they share the node, an acknowledgment
//           packet otherwise), and a flush waits for `done` to reach `issued`.
//   remote  neither mapped nor attached, but reached by a device whose RMA needs nothing of the target
//           (Device::passive_rma: the torus's engine): puts and gets by the device into the memory the
//           target exposed at creation; accumulate-type operations and locks served as above (they need
//           its atomicity).
#pragma once

#include <sys/uio.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "collectives/reduce_ops.h"
#include "pami/stats.h"
#include "pami/stream_copy.h"

namespace pamir {

class Context;
struct WinHeader;  // a served packet's header (pami/protocols/window_am.cc)
namespace dev {
class Device;
}  // namespace dev

enum class WinFlavor : uint8_t { create, allocate, shared, dynamic };
enum class WinPath : uint8_t { mapped, rdma, served, remote };
enum class LockType : uint8_t { none, shared, exclusive };

// A full fence: this process's stores are visible to every core before its later loads (what a flush
// and MPI_Win_sync promise). On x86-64 a locked no-op on the stack does it for a third of mfence's cost.
inline void full_fence() {
#if defined(__x86_64__)
  __asm__ __volatile__("lock; orq $0, (%%rsp)" ::: "memory", "cc");
#else
  std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
}

// A node rank's control block in the window segment. Others write it: each word has its line.
struct alignas(64) WinCtl {
  // Passive-target lock: kExclusive while one origin holds it exclusively, else the shared holders.
  std::atomic<uint64_t> lock;
  uint8_t pad0[56];
  // Accumulate-type operations on this rank's memory, whichever path they take, hold it (a spin lock).
  std::atomic<uint32_t> acc_lock;
  uint8_t pad1[60];
  // Active target: completions (MPI_Win_complete) received by this rank as a target.
  std::atomic<uint64_t> completes;
  // The first error a target reported on this rank's served operations (-errno), 0 if none.
  std::atomic<int64_t> error;
  // Offers (pami/protocols/window_offer.cc) made to this rank and not yet taken, counted only where the
  // node has more than Window::kOfferScanRanks ranks.
  std::atomic<uint64_t> offers;
  uint8_t pad2[40];
  // Then, per window rank r: posted[r], the posts (MPI_Win_post) r sent this rank, and done[r], what r
  // has done of this rank's served operations to it. See WinSegment::posted() and done().
};
static_assert(sizeof(WinCtl) == 192);
constexpr uint64_t kLockExclusive = uint64_t(1) << 63;

// An offer: one operation a node rank posts for a target whose memory it reaches only through the
// device (MPI_Win_create's heap memory), which the target's progress takes and does with plain loads and
// stores, or, if the target does not take it in time, the origin takes back and does itself through the
// device. Either way exactly one of them does it (the state's compare-and-swap decides), so passive
// target still needs nothing of the target. One per ordered pair of node ranks, its data following.
struct alignas(64) WinOffer {
  // The offer's seq (which of the pair's offers it is: the target takes them in order) and its
  // WinOfferState, in one word, so that each side reads and swaps both at once: a seq read apart from
  // its state could belong to the next offer the origin is writing into the slot.
  std::atomic<uint64_t> word;
  uint8_t kind;    // WinOfferKind
  uint8_t op;      // coll::OpKind
  uint8_t elem;    // coll::ElemType
  uint8_t stream;  // the target copies a get's data into the slot with streaming stores (stream_copy.h)
  uint32_t elem_bytes;
  uint32_t len;
  uint32_t alone;  // made with no other offer of the pair in flight (which the target could be busy with)
  uint64_t addr;   // in the target's address space
  int64_t status;
  // Time-stamp counter when the origin made it, when the target took it and when it had done it, on one
  // offer in handoff::kSampleEvery (else 0): how long a cache line takes to cross (pami/handoff.h).
  uint64_t made_tsc;
  uint64_t taken_tsc;
  uint64_t done_tsc;
};
static_assert(sizeof(WinOffer) == 64);
enum : uint8_t { kPendingOffers = 1, kPendingBatch = 2 };  // WinTarget::pending
constexpr uint32_t kOfferSlots = 16;  // per ordered pair at most: offers in flight before the origin waits
// The largest put or get offered in slot-sized pieces when it is alone in its batch (measured here:
// 8 KiB in 1.2 us against 2.1 us by one cross-memory call, even at 32 KiB), and the smallest batch
// whose cross-memory calls the target shares.
constexpr uint64_t kOfferPiecesMax = uint64_t(16) << 10;
constexpr uint64_t kShareMinBytes = uint64_t(32) << 10;
// An operation of up to kOfferPiecesMax is offered in pieces of kOfferPieceBytes; a larger batch, up to
// kOfferPipeMax, in pieces of a whole slot (up to kOfferRoomMax): measured on the machine of issue 21's
// first table in a slow phase (a cache line handed over in 0.3 us), 32 and 64 KiB puts and gets went from
// 1.0-1.24 of the faster other (a shared copy) to 0.55-0.89 so; at 128 KiB it was a draw. On the machine
// of its sixth stop, slow phases went the other way (below).
constexpr uint64_t kOfferPieceBytes = 4096;
constexpr uint64_t kOfferRoomMax = uint64_t(16) << 10;
constexpr uint64_t kOfferPipeMax = uint64_t(64) << 10;
// Where a cache line takes PAMIR_WINDOW_SLOW_HANDOFF_NS or longer to reach the other rank (measured on
// offers, pami/handoff.h), the cores hand lines over slowly: another core complex, another socket, or a
// virtual machine's cores at times (issue 21's sixth stop measured 70-110 ns and 250-450 ns on one
// machine, alternating within seconds). Puts and gets
// offered from kStreamMinBytes then go through memory rather than from cache to cache (stream_copy.h),
// and batches above kOfferPiecesMax are shared rather than offered in whole slots. On that machine, in a
// slow phase, a 16 KiB get took 4.7 us so against 8.3, a 64 KiB one 9.5 against 21.8; in a fast phase
// each way lost (3.6 against 2.3 us at 16 KiB, 7.1 against 6.4 at 64 KiB).
constexpr uint64_t kStreamMinBytes = 4096;
// Puts and gets from this size wait in a batch: a bandwidth window of 64 puts of 4 KiB moves at 14.8
// GB/s so (two cross-memory calls), 7.4 GB/s as offers; of 1 KiB, at 4.1 against 8.6 GB/s as offers.
constexpr uint64_t kDeferMinBytes = 2048;
// kOfferGrowing: its origin is adding a put or get side by side to it (Window::grow); not to be taken.
enum WinOfferState : uint64_t {
  kOfferEmpty,
  kOfferMade,
  kOfferTaken,
  kOfferTakenBack,
  kOfferDone,
  kOfferGrowing
};
constexpr uint64_t offer_word(uint64_t seq, WinOfferState s) {
  return seq << 3 | s;
}
constexpr uint64_t offer_seq(uint64_t word) {
  return word >> 3;
}
constexpr WinOfferState offer_state(uint64_t word) {
  return WinOfferState(word & 7);
}
// kOfferPull and kOfferPush: the target's share of a batch (pami/protocols/window_batch.cc), a list of
// WinSharePiece the target moves between the origin's memory and its own by the device.
enum WinOfferKind : uint8_t {
  kOfferPut,
  kOfferGet,
  kOfferAcc,
  kOfferFetch,
  kOfferCas,
  kOfferPull,
  kOfferPush
};
struct WinSharePiece {
  uint64_t origin;  // in the origin's address space
  uint64_t target;  // in the target's
  uint64_t len;
};

// What a target has, as every rank learns it at creation.
struct WinTarget {
  uint8_t *mapped = nullptr;  // its memory in this process (path mapped), else nullptr
  uint64_t base = 0;          // its memory in its own address space
  uint64_t size = 0;
  uint32_t disp_unit = 1;
  uint32_t task = 0;
  WinPath path = WinPath::served;
  WinCtl *ctl = nullptr;  // its control block (node ranks), else nullptr
  uint64_t rma_addr = 0;  // path remote: the device's address of byte 0 of its memory, and its key
  uint64_t rma_key = 0;
  LockType lock = LockType::none;
  bool locked_by_all = false;  // held through MPI_Win_lock_all
  bool access = false;         // in this process's MPI_Win_start group
  bool lock_nocheck = false;   // locked with MPI_MODE_NOCHECK: nothing was acquired
  uint64_t issued = 0;         // served operations sent to it
  uint64_t posts_seen = 0;     // its posts consumed by MPI_Win_start
  WinOffer *offer = nullptr;   // this rank's first offer slot toward it (path rdma, offers on), else nullptr
  uint64_t offer_head = 1;     // the next offer's seq (from 1: a slot never used has seq 0)
  uint64_t offer_tail = 1;     // the oldest offer not finished
  void *offer_answer[kOfferSlots] = {};  // where each outstanding offer's answer goes
  uint8_t offer_misses = 0;              // offers in a row the target did not take in time
  uint16_t offer_skips = 0;              // operations sent through the device since the target last missed
  uint64_t handoff_ticks = 0;            // moving average of a line's way to it (WinOffer::made_tsc), ticks
  // What a flush of it must finish first, in one byte so that the flush of a target with nothing
  // pending tests it once.
  uint8_t pending = 0;
  bool offered() const { return pending & kPendingOffers; }  // an offer is outstanding (head != tail)
  bool deferred() const { return pending & kPendingBatch; }  // puts or gets to it wait in the batch
  // Its progress serves operations to it: all of them (served), or accumulate-type ones (remote).
  bool serves_some() const { return path == WinPath::served || path == WinPath::remote; }
};

// Served requests the target could not grant yet (a lock), kept until it can.
struct WinWaitingLock {
  uint32_t rank;
  LockType type;
};

// An accumulate's operation: the predefined function on one basic element type, or replace / no-op.
struct WinOp {
  coll::OpKind op = coll::OpKind::replace;
  coll::ElemType elem = coll::ElemType::none;
  uint32_t elem_bytes = 1;
};

class Window {
 public:
  // The collective steps of creation over the window's ranks, supplied by the binding.
  struct Team {
    std::function<int(const void *mine, void *all, size_t bytes)> allgather;
    std::function<int()> barrier;
  };

  ~Window();
  // Makes this rank's part of a window over `tasks` (window rank -> task), collectively. For create,
  // `base` is the user's memory; for allocate and shared the memory is made here (base() after). A
  // window id names it in served packets: the same on every rank (the binding's communicator context).
  static std::unique_ptr<Window> create(Context &ctx, uint32_t id, const std::vector<uint32_t> &tasks,
                                        uint32_t rank, WinFlavor flavor, uint64_t size, uint32_t disp_unit,
                                        void *base, const Team &team, std::string &why);

  WinFlavor flavor() const { return flavor_; }
  uint32_t rank() const { return rank_; }
  uint32_t size() const { return uint32_t(targets_.size()); }
  uint32_t id() const { return id_; }
  void *base() const { return reinterpret_cast<void *>(uintptr_t(targets_[rank_].base)); }
  WinTarget &target(uint32_t r) { return targets_[r]; }
  const WinTarget &target(uint32_t r) const { return targets_[r]; }
  // A put's or get's copy on path mapped (the binding's fast path takes it too).
  void copy_mapped(void *dst, const void *src, size_t n) {
    if (copier_.copy(dst, src, n)) ++stats().win_mapped_streamed;
  }
  // Rank r's memory in this process where it is mapped (MPI_Win_shared_query), else nullptr.
  uint8_t *shared_base(uint32_t r) const { return targets_[r].mapped; }

  // Data movement, one contiguous piece each; `addr` is in the target's address space. Returns 0 or
  // -errno (a served operation's failure shows at its flush).
  int put(uint32_t r, uint64_t addr, const void *src, size_t len);
  int get(uint32_t r, uint64_t addr, void *dst, size_t len);
  // Several pieces of one operation: local[i] to or from remote[i] (same lengths), under one lock for
  // accumulates. `result` (get_accumulate, fetch_and_op) receives the target's old values, piece by piece
  // alongside `local`.
  int put_pieces(uint32_t r, const struct iovec *local, const struct iovec *remote, unsigned n);
  int get_pieces(uint32_t r, const struct iovec *local, const struct iovec *remote, unsigned n);
  int accumulate(uint32_t r, const WinOp &op, const struct iovec *origin, const struct iovec *result,
                 const struct iovec *remote, unsigned n);
  int compare_and_swap(uint32_t r, const void *origin, const void *compare, void *result, uint64_t addr,
                       uint32_t bytes);

  // The accumulate lock of a target on this node (its control block), and an operation's combination:
  // for the binding's fast paths.
  void acc_lock(WinCtl *c);
  static void acc_unlock(WinCtl *c) { c->acc_lock.store(0, std::memory_order_release); }
  static void apply(const WinOp &op, const void *in, void *inout, size_t bytes);

  // Synchronisation.
  void lock(uint32_t r, LockType type);  // waits until granted (serving others meanwhile)
  void unlock(uint32_t r);               // after a flush of r
  void flush(uint32_t r);                // every operation to r is done at r
  void flush_all();
  int64_t take_error();  // the first failure a target reported since the last call, -errno, or 0
  void post(const std::vector<uint32_t> &origins);
  void start(const std::vector<uint32_t> &targets);  // waits for their posts
  void complete(const std::vector<uint32_t> &targets);
  bool test_completes(uint64_t expected) const;  // all of the exposure epoch's completes arrived
  void wait_completes(uint64_t expected);
  uint64_t completes_seen() const { return ctl(rank_)->completes.load(std::memory_order_acquire); }
  int barrier() { return team_.barrier(); }
  // A flush of a target reached directly is a fence alone, unless peers' served operations or offers need
  // this process's progress.
  bool flush_is_fence(const WinTarget &t) const {
    return !t.serves_some() && !t.pending && !progress_in_calls_;
  }

  // The progress hook's call: served lock requests that wait are granted once they can be, and offers
  // made to this rank are taken.
  void poll() {
    if (!waiting_locks_.empty()) serve_waiting_locks();
    if (!offers_in_.empty()) take_offers();
  }
  // Served packets addressed to this window (from Context's dispatch).
  void on_packet(uint32_t src_rank, const WinHeader &h, const void *payload, size_t len);

  // MPI_Win_attach / detach (dynamic windows): the regions served operations may touch.
  void attach(uint64_t addr, uint64_t len) { regions_.push_back({addr, len}); }
  bool detach(uint64_t addr);
  bool in_regions(uint64_t addr, uint64_t len) const;

 private:
  Window(Context &ctx) : ctx_(ctx) {}
  WinCtl *ctl(uint32_t node_rank_of_window) const;
  std::atomic<uint64_t> *posted(WinCtl *c, uint32_t r) const;
  std::atomic<uint64_t> *done(WinCtl *c, uint32_t r) const;
  bool try_lock(WinCtl *c, LockType type);
  static void release_lock(WinCtl *c, LockType type);
  void serve_waiting_locks();
  // Polled by the progress hook while any reason holds (kPollLocks: served lock requests wait;
  // kPollOffers: node ranks may offer operations).
  static constexpr uint8_t kPollLocks = 1, kPollOffers = 2;
  void set_polled(uint8_t reason, bool on);
  // Offers (pami/protocols/window_offer.cc).
  uint8_t *offer_data(WinOffer *o) const { return reinterpret_cast<uint8_t *>(o + 1); }
  WinOffer *offer_slot(WinOffer *first, uint64_t seq) const {
    return reinterpret_cast<WinOffer *>(reinterpret_cast<uint8_t *>(first) +
                                        (seq % offer_slots_) * offer_stride_);
  }
  bool settle_one(uint32_t r, bool impatient);  // the oldest outstanding offer; true if taken back
  void note_handoff(WinTarget &t, const WinOffer *o, uint64_t arrived);
  bool offer(uint32_t r, uint8_t kind, const WinOp *op, const void *src, const void *compare, void *answer,
             uint64_t addr, uint32_t len);
  bool grow(uint32_t r, uint8_t kind, const void *src, void *answer, uint64_t addr, uint32_t len);
  // Puts and gets through the device from kDeferMinBytes wait in one batch (pami/protocols/
  // window_batch.cc) until a synchronisation or another operation to their target needs them done, so
  // that a batch is moved at once (a cross-memory call is about 1.5 us here, whatever it moves).
  int defer(uint32_t r, bool write, uint64_t addr, void *local, size_t len);
  void submit();
  // A put or get offered in pieces, or a batch shared with the target: false if not offered at all,
  // else true with its result in rc.
  bool offer_pieces(uint32_t r, uint8_t kind, const WinOp *op, uint8_t *src, uint8_t *answer, uint64_t addr,
                    uint64_t len, uint64_t piece_max, int &rc);
  bool share(uint32_t r, uint64_t bytes, int &rc);
  void settle(uint32_t r);  // the outstanding offers to r are done, by r or by this process
  void take_offers();
  int64_t do_offer_here(WinOffer *o, uint32_t origin_task);  // the target's side, on its own memory
  int do_offer_there(uint32_t r, WinOffer *o);               // the origin's, through the device
  int64_t do_share_here(WinOffer *o, uint32_t origin_task);
  int do_share_there(uint32_t r, WinOffer *o);
  int rdma_accumulate(uint32_t r, const WinOp &op, const void *origin, void *result,
                      const struct iovec &remote);
  int rdma_compare_and_swap(uint32_t r, const void *origin, const void *compare, void *result, uint64_t addr,
                            uint32_t bytes);
  // The served path (pami/protocols/window_am.cc).
  static constexpr uint8_t kWinSignalPost = 0, kWinSignalComplete = 1;
  void signal(uint32_t r, uint8_t what);  // a post or a complete, to a rank off the node
  void signal_lock(uint32_t r, LockType type);
  void signal_unlock(uint32_t r, LockType type);
  void send(uint32_t r, const void *hdr, uint32_t hdr_len, const void *payload, size_t len);
  // The origin's counter for this rank takes one more done operation: a store where they share the node,
  // unless `in_band` (an answer to it may still be on its way), else a packet.
  void acknowledge(uint32_t r, int64_t status, bool in_band = false);
  void reply(uint32_t r, uint64_t cookie, const uint8_t *data, uint64_t len, bool done);
  void serve_put(uint32_t r, const struct iovec &local, const struct iovec &remote);
  void serve_get(uint32_t r, const struct iovec &local, const struct iovec &remote);
  void serve_accumulate(uint32_t r, const WinOp &op, const struct iovec &origin, const struct iovec *result,
                        const struct iovec &remote);
  void serve_compare_and_swap(uint32_t r, const void *origin, const void *compare, void *result,
                              uint64_t addr, uint32_t bytes);
  bool serves(uint64_t addr, uint64_t len) const;
  void spin_acc_lock();
  void wait_done(uint32_t r);
  int direct(uint32_t r, bool write, const struct iovec *local, const struct iovec *remote, unsigned n);
  // Path remote's puts and gets (pami/protocols/window_remote.cc); the exposure of this rank's memory.
  int device_rma(uint32_t r, bool write, const struct iovec *local, const struct iovec *remote, unsigned n);
  bool expose_for_remote(uint64_t base, uint64_t size, uint64_t &addr, uint64_t &key);

  Context &ctx_;
  uint32_t id_ = 0;
  uint32_t rank_ = 0;
  WinFlavor flavor_ = WinFlavor::create;
  std::vector<WinTarget> targets_;
  std::vector<WinCtl *> ctls_;  // by window rank: the control block on this node, else nullptr
  uint8_t *seg_ = nullptr;      // the node's window segment
  size_t seg_bytes_ = 0;
  size_t ctl_stride_ = 0;
  Team team_;
  std::vector<WinWaitingLock> waiting_locks_;  // served lock requests not granted yet
  std::vector<uint8_t> granted_;               // per window rank: a served lock grant arrived
  std::vector<std::pair<uint64_t, uint64_t>> regions_;
  std::vector<uint8_t> scratch_;    // an accumulate through the device reads the target's values here
  std::vector<uint8_t> old_;        // a served fetch's old values, taken under the lock
  int64_t served_error_ = 0;        // a served operation's failure, until its last packet
  uint8_t polled_ = 0;              // reasons it is in the progress hook's list (kPoll*)
  bool progress_in_calls_ = false;  // some rank's operations need another's progress: flushes advance
  uint32_t offer_bytes_ = 0;        // data room of an offer slot (0: no offers)
  uint32_t offer_slots_ = 0;        // slots per ordered pair
  // Few node ranks: the target looks at each one's next slot at every poll, and the offers count (an
  // atomic read-modify-write on the target's line by both sides, per offer) is not kept.
  static constexpr size_t kOfferScanRanks = 8;
  bool offer_scan_ = false;
  uint64_t offer_stride_ = 0;  // bytes from one slot to the next
  // PAMIR_WINDOW_SLOW_HANDOFF_NS in time-stamp counter ticks: 0, always slow; never reached where the
  // counter is not the clock. Only between those is the way measured.
  uint64_t handoff_slow_ticks_ = ~uint64_t(0);
  bool handoff_measured() const { return handoff_slow_ticks_ && handoff_slow_ticks_ != ~uint64_t(0); }
  bool handoff_slow(uint32_t r) const { return targets_[r].handoff_ticks >= handoff_slow_ticks_; }
  struct OfferIn {
    WinOffer *first;  // the node rank's slots toward this rank
    uint32_t task;
    uint64_t next;  // the seq of its next offer this rank has not seen finished
  };
  std::vector<OfferIn> offers_in_;
  // The deferred puts or gets (one target, one direction) not yet submitted.
  static constexpr unsigned kBatchMax = 64;
  struct Batch {
    uint32_t target = 0;
    bool write = false;
    unsigned n = 0;
    struct iovec local[kBatchMax], remote[kBatchMax];
  };
  Batch batch_;
  std::vector<std::pair<void *, uint64_t>> maps_;  // peers' MPI_Alloc_mem memory mapped here
  RunCopier copier_;                               // path mapped's puts and gets (PAMIR_WINDOW_STREAM_RUN)
  dev::Device *rma_dev_ = nullptr;  // where this rank's memory is exposed for path remote, else nullptr
  uint32_t rma_hold_ = 0;           // that exposure (Device::expose_held)
  uint8_t *map_region(int32_t pid, int32_t fd, uint64_t bytes, uint64_t inode, uint64_t offset);
};

// Served packets (kDispatchWin), from Context's dispatch; the progress hook for waiting lock requests.
void window_deliver(const void *hdr, const void *payload, size_t len);
void windows_poll();

// Every live window of this process, by id, for the dispatch of served packets.
void window_register(Window *w);
void window_unregister(Window *w);
Window *window_by_id(uint32_t id);

}  // namespace pamir
