// The node's shared-memory segment of one job: who is attached, everyone's doorbell and connection queue,
// and an arena the per-pair rings are carved from.
//
// Layout (every reference inside is an offset from the start; each process maps it at its own address):
//
//   0                 SegmentHeader: arena bump counter (its own cache line)
//   kBlocksOffset     one RankBlock of 128 bytes per local rank:
//                       +0    Doorbell {futex word, sleepers, eventfd number} (read on every send)
//                       +64   pid, conn_count, CMA token address and value (attach / connect only),
//                             finalized flag
//   conn_offset       per local rank, its connection queue: uint64_t conn[nlocal], the ring offsets of the
//                     senders that connected to it, in order
//   ack_offset        per local rank, kAckSlots AckSlots of 256 bytes (counter, status, shared-copy
//                     state, and the shared copy's note): the acknowledgment objects of its rendezvous
//                     sends, which peers write (seed 001)
//   coll_offset       per local rank, kCollAreaBytes of memory for the shared-memory collectives (seed 002's
//                     "collective network" stand-in), whose layout the collectives own
//   arena_offset      rings, bump-allocated on the first send of a pair (ring_footprint(ring_bytes) each)
//
// The file is sparse: tmpfs allocates only what is touched. Everything below the arena (header, blocks,
// connection queues, acknowledgment slots, collective areas: about 68 KiB per rank and 8 bytes per pair) is
// fallocate()d at attach, and each new ring when a pair connects, so a full /dev/shm is a clear error rather
// than a SIGBUS, and memory grows with the pairs that talk, not with the square of the local ranks (the arena
// has address space for a ring per ordered pair).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "devices/shm/doorbell.h"

namespace pamir::dev::shm {

struct SegmentHeader {
  uint64_t arena_used;  // bytes of the arena handed out (atomic)
};

struct RankBlock {
  Doorbell doorbell;
  uint8_t pad0[64 - sizeof(Doorbell)];
  // Written before the attach barrier: who this rank is, for peers' process_vm_readv. A peer first reads
  // cma_token at cma_token_addr in this pid and compares, so a pid from another pid namespace (or a
  // recycled one) is never read from by mistake.
  uint32_t pid;
  uint32_t conn_count;  // senders that claimed an entry of this rank's connection queue (atomic)
  uint64_t cma_token_addr;
  uint64_t cma_token;
  uint32_t finalized;  // set (release) when the rank leaves the device normally: its exit is no death
  uint8_t pad1[36];
};
static_assert(sizeof(RankBlock) == 128);
static_assert(offsetof(RankBlock, cma_token) == offsetof(RankBlock, cma_token_addr) + 8);

// An acknowledgment object (seed 001): a counter its owner arms with the bytes it expects written, and
// a status. A peer writes the status, then takes its bytes off the counter (release); the owner sees the
// counter reach zero (acquire) and then reads the status. The rest describes a shared copy, where both
// ends move chunks of the message the slot acknowledges: the target publishes `dest` (release) after
// the other fields; each end claims chunk indices from `claimed` and takes what it moved off `remaining`.
// One cache line, so that slots in use by different pairs never share one.
struct AckSlot {
  uint64_t counter;
  int64_t status;
  uint64_t dest;        // the target's buffer; 0 while the copy is not shared
  uint64_t bytes;       // what the shared copy moves
  uint64_t chunk;       // bytes per claim
  uint64_t claimed;     // next chunk index (fetch_add)
  uint64_t remaining;   // bytes not yet moved (fetch_sub)
  int64_t copy_status;  // the first failure of a chunk, -errno (0: none)
  // What the target tells the origin of the shared copy, for the layer above (Device::share_note); on a
  // line of its own past the counters, which the two ends write while the note is only read.
  alignas(64) unsigned char note[192];
};
static_assert(sizeof(AckSlot) == 256);

struct SegmentLayout {
  static constexpr uint64_t kBlocksOffset = 128;
  static constexpr uint32_t kAckSlots = 64;  // per rank: rendezvous sends one rank may have unacknowledged
  static constexpr uint64_t kCollAreaBytes = 528 * 1024;  // per rank: the shared-memory collectives' area
  uint32_t nlocal = 0;
  uint64_t ring_bytes = 0;      // data bytes of a ring
  uint64_t ring_footprint = 0;  // bytes a ring takes in the arena
  uint64_t conn_offset = 0;
  uint64_t conn_stride = 0;
  uint64_t ack_offset = 0;   // each rank's kAckSlots AckSlots, rank after rank
  uint64_t coll_offset = 0;  // each rank's kCollAreaBytes, rank after rank
  uint64_t arena_offset = 0;
  uint64_t arena_bytes = 0;
  uint64_t total = 0;

  static SegmentLayout compute(uint32_t nlocal, uint64_t ring_bytes) noexcept;
  uint64_t block_offset(uint32_t r) const noexcept { return kBlocksOffset + uint64_t{r} * sizeof(RankBlock); }
  uint64_t ack_slot_offset(uint32_t r, uint32_t i) const noexcept {
    return ack_offset + (uint64_t{r} * kAckSlots + i) * sizeof(AckSlot);
  }
  uint64_t coll_area_offset(uint32_t r) const noexcept { return coll_offset + uint64_t{r} * kCollAreaBytes; }
  uint64_t conn_entry_offset(uint32_t r, uint32_t i) const noexcept {
    return conn_offset + uint64_t{r} * conn_stride + uint64_t{i} * sizeof(uint64_t);
  }
};

class Segment {
 public:
  // Creates or joins the segment at `path` (see shm_device.h for the protocol). With nlocal == 1 there is
  // no file and no barrier: the segment is a private memfd. Returns nullptr with a reason on failure.
  struct Attach {
    uint32_t pid;
    uint64_t cma_token_addr, cma_token;
  };
  static std::unique_ptr<Segment> open(const std::string &path, uint32_t local_rank, uint32_t nlocal,
                                       uint64_t ring_bytes, const Attach &me,
                                       const std::function<int()> &barrier, std::string &why);
  ~Segment();
  Segment(const Segment &) = delete;
  Segment &operator=(const Segment &) = delete;

  void unmap() noexcept;
  bool mapped() const noexcept { return base_ != nullptr; }

  const SegmentLayout &layout() const noexcept { return layout_; }
  char *base() const noexcept { return base_; }
  template <class T>
  T *at(uint64_t offset) const noexcept {
    return reinterpret_cast<T *>(base_ + offset);
  }
  RankBlock &block(uint32_t r) const noexcept { return *at<RankBlock>(layout_.block_offset(r)); }
  uint64_t *conn(uint32_t r) const noexcept { return at<uint64_t>(layout_.conn_entry_offset(r, 0)); }

  // Hands out `bytes` (a multiple of 64) of the arena, backed by real pages, zeroed. Returns the offset,
  // or 0 with a reason (arena exhausted, or no memory left in the file system).
  uint64_t allocate(uint64_t bytes, std::string &why) noexcept;
  // Backs [offset, offset + bytes) with real pages (a no-op where they exist). False with a reason.
  bool back(uint64_t offset, uint64_t bytes, std::string &why) noexcept;
  uint64_t arena_used() const noexcept;
  // Maps [offset, offset + bytes) into this process's page tables now, writable. A ring's pages are
  // otherwise faulted in one by one as messages first reach them, each fault costing tens to hundreds of
  // microseconds on a virtual machine: one stall every 64 small messages until the ring has wrapped.
  void prefault(uint64_t offset, uint64_t bytes) noexcept;

 private:
  Segment() = default;
  SegmentLayout layout_;
  char *base_ = nullptr;
  int fd_ = -1;
  std::string where_;  // the path, or "memfd", for messages
};

}  // namespace pamir::dev::shm
