// The node's shared-memory segment of one job: who is attached, everyone's doorbell and connection queue,
// and an arena the per-pair rings are carved from.
//
// Layout (every reference inside is an offset from the start; each process maps it at its own address):
//
//   0                 SegmentHeader: arena bump counter (its own cache line)
//   kBlocksOffset     one RankBlock per local rank, block_stride bytes apart:
//                       +0    Doorbell {futex word, sleeping flag}   (read by senders on every send)
//                       +64   pid, conn_count                        (written at attach / connect only)
//                       +128  conn[nlocal]: ring offsets of the senders that connected, in order
//   arena_offset      rings, bump-allocated on first send of a pair (ring_footprint(ring_bytes) each)
//
// The arena has room for a ring per ordered pair, but the file is sparse (tmpfs allocates only pages that
// are touched, and each new ring is fallocate()d so a full /dev/shm is a clear error, not a SIGBUS): memory
// grows with the pairs that talk, not with the square of the local ranks.
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
  uint32_t pid;         // written before the attach barrier
  uint32_t conn_count;  // senders that claimed an entry of conn[] (atomic)
  uint8_t pad1[56];
  // followed by uint64_t conn[nlocal]
};
static_assert(sizeof(RankBlock) == 128);

struct SegmentLayout {
  static constexpr uint64_t kBlocksOffset = 128;
  uint32_t nlocal = 0;
  uint64_t ring_bytes = 0;      // data bytes of a ring
  uint64_t ring_footprint = 0;  // bytes a ring takes in the arena
  uint64_t block_stride = 0;
  uint64_t arena_offset = 0;
  uint64_t arena_bytes = 0;
  uint64_t total = 0;

  static SegmentLayout compute(uint32_t nlocal, uint64_t ring_bytes) noexcept;
  uint64_t block_offset(uint32_t r) const noexcept { return kBlocksOffset + r * block_stride; }
};

class Segment {
 public:
  // Creates or joins the segment at `path` (see shm_device.h for the protocol). With nlocal == 1 there is
  // no file and no barrier: the segment is a private memfd. Returns nullptr with a reason on failure.
  static std::unique_ptr<Segment> open(const std::string &path, uint32_t local_rank, uint32_t nlocal,
                                       uint64_t ring_bytes, const std::function<int()> &barrier,
                                       std::string &why);
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
  uint64_t *conn(uint32_t r) const noexcept {
    return at<uint64_t>(layout_.block_offset(r) + sizeof(RankBlock));
  }

  // Hands out `bytes` (a multiple of 64) of the arena, backed by real pages, zeroed. Returns the offset,
  // or 0 with a reason (arena exhausted, or no memory left in the file system).
  uint64_t allocate(uint64_t bytes, std::string &why) noexcept;
  uint64_t arena_used() const noexcept;

 private:
  Segment() = default;
  SegmentLayout layout_;
  char *base_ = nullptr;
  int fd_ = -1;
  std::string where_;  // the path, or "memfd", for messages
};

}  // namespace pamir::dev::shm
