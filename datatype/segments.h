// The flattened form of a datatype (seed 003): a list of (offset, length) segments in type-map order,
// adjacent pieces merged, repeated over a few nested loops (count, stride) -- the compact loop form, so
// that a vector of a million blocks is one segment and one loop, not a million segments; a cursor that
// walks `count` elements of it and yields pieces up to a byte budget, so a transfer can stop and resume
// at any byte; and pack/unpack through a cursor. Nothing here knows MPI handles: the binding builds the
// form from its constructors.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace pamir::dt {

struct Segment {
  int64_t offset;   // from the element's origin; may be negative (a negative lower bound)
  uint64_t length;  // bytes
};

// One loop of the compact form: what is inside it, `count` times, `stride` bytes apart.
struct Loop {
  uint64_t count;
  int64_t stride;
};
// Loops a cursor walks at most: a layout's own, plus the one over the elements of a transfer.
constexpr size_t kMaxLoops = 8;

// Appends a piece to a type map's segment list, merging it into the last segment when it starts where
// that one ends. Zero-length pieces add nothing.
void append_merged(std::vector<Segment> &list, int64_t offset, uint64_t length);

// `count` elements, `extent` bytes apart, of the segments repeated over `loops` (innermost first; at most
// kMaxLoops - 1), walked in type-map order.
class Cursor {
 public:
  Cursor(const Segment *segs, size_t nsegs, int64_t extent, uint64_t count) noexcept
      : Cursor(segs, nsegs, nullptr, 0, extent, count) {}
  Cursor(const Segment *segs, size_t nsegs, const Loop *loops, size_t nloops, int64_t extent,
         uint64_t count) noexcept;

  // The next contiguous piece, of at most `max` bytes (max > 0): its offset from the buffer's origin
  // and its length. False once every byte has been yielded.
  bool next(uint64_t max, int64_t &offset, uint64_t &length) noexcept;
  // Hands up to n bytes to move(offset in the layout, offset in the contiguous stream, length), piece by
  // piece without joining pieces that touch (a copy does not care how the bytes are cut), inline so that
  // layouts of many small pieces cost a few instructions per piece. Returns the bytes handed.
  template <typename Move>
  uint64_t walk(uint64_t n, Move &&move) noexcept {
    uint64_t done = 0;
    while (done < n && block_ < blocks_) {
      if (seg_ == nsegs_) {
        next_pass();
        continue;
      }
      if (nsegs_ == 1 && within_ == 0 && nloops_ > 0) {
        done += whole_passes(n - done, done, move);
        if (done == n || block_ == blocks_) break;
      }
      const Segment &s = segs_[seg_];
      const uint64_t len = std::min(n - done, s.length - within_);
      move(base_ + s.offset + int64_t(within_), done, len);
      done += len;
      pos_ += len;
      within_ += len;
      if (within_ == s.length) {
        ++seg_;
        within_ = 0;
      }
    }
    return done;
  }
  // Moves to byte `pos` of the data (0 <= pos <= total()); the next piece starts there.
  void seek(uint64_t pos) noexcept;

  uint64_t position() const noexcept { return pos_; }
  uint64_t total() const noexcept { return total_; }

 private:
  bool step(uint64_t max, int64_t &offset, uint64_t &length) noexcept;  // one segment's piece, unmerged

  // One segment per pass, at the start of a pass: the passes left in the innermost loop (all but its
  // last, which carries outwards) that fit in `room` bytes, in a tight loop whose piece length the
  // copy knows when it is a basic type's (a vector of many small blocks: seed 003's common case, where
  // the general walk cost more per piece than the bytes). Returns the bytes handed, from `at` on.
  template <typename Move>
  uint64_t whole_passes(uint64_t room, uint64_t at, Move &move) noexcept {
    const uint64_t len = segs_[0].length;
    const uint64_t m = std::min({loops_[0].count - 1 - idx_[0], room / len, blocks_ - 1 - block_});
    if (m == 0) return 0;
    const int64_t off = segs_[0].offset, stride = loops_[0].stride;
    auto run = [&](auto piece) {
      int64_t b = base_;
#pragma GCC unroll 4
      for (uint64_t k = 0; k < m; ++k, b += stride) move(b + off, at + k * uint64_t(piece), uint64_t(piece));
      base_ = b;
    };
    switch (len) {
      case 1:
        run(std::integral_constant<uint64_t, 1>());
        break;
      case 2:
        run(std::integral_constant<uint64_t, 2>());
        break;
      case 4:
        run(std::integral_constant<uint64_t, 4>());
        break;
      case 8:
        run(std::integral_constant<uint64_t, 8>());
        break;
      case 16:
        run(std::integral_constant<uint64_t, 16>());
        break;
      default:
        run(len);
    }
    idx_[0] += m;
    block_ += m;
    pos_ += m * len;
    return m * len;
  }

  void set_block(uint64_t block) noexcept;  // loop indices of the block-th pass over the segments
  // To the next pass over the segments: the innermost loop advances, carrying outwards.
  void next_pass() noexcept {
    seg_ = 0;
    ++block_;
    for (size_t k = 0; k < nloops_; ++k) {
      base_ += loops_[k].stride;
      if (++idx_[k] < loops_[k].count) return;
      base_ -= int64_t(idx_[k]) * loops_[k].stride;
      idx_[k] = 0;
    }
  }

  const Segment *segs_;
  size_t nsegs_;
  size_t nloops_ = 0;  // the layout's loops and the elements' loop, innermost first
  Loop loops_[kMaxLoops];
  uint64_t block_bytes_ = 0;  // data bytes of one pass over the segments
  uint64_t blocks_ = 0;       // passes in all
  uint64_t total_ = 0;
  // Where the next piece starts: pass over the segments (its loop indices and their offset), segment
  // within it, bytes already taken of that segment.
  uint64_t block_ = 0;
  uint64_t idx_[kMaxLoops] = {};
  int64_t base_ = 0;
  size_t seg_ = 0;
  uint64_t within_ = 0;
  uint64_t pos_ = 0;
};

// One piece of a copy between layouts: the sizes of basic types are copied inline, the rest by memcpy.
inline void copy_piece(void *to, const void *from, uint64_t len) noexcept {
  switch (len) {
    case 1:
      std::memcpy(to, from, 1);
      break;
    case 2:
      std::memcpy(to, from, 2);
      break;
    case 4:
      std::memcpy(to, from, 4);
      break;
    case 8:
      std::memcpy(to, from, 8);
      break;
    case 16:
      std::memcpy(to, from, 16);
      break;
    default:
      std::memcpy(to, from, len);
  }
}

// Copies up to `max` bytes of the data `c` describes (relative to `base`) into `out`, from the cursor's
// position on; returns the bytes copied.
uint64_t pack(const void *base, Cursor &c, void *out, uint64_t max) noexcept;
// Copies `n` bytes from `in` into the layout `c` describes (relative to `base`), from the cursor's
// position on; returns the bytes placed (less than n only at the end of the layout).
uint64_t unpack(void *base, Cursor &c, const void *in, uint64_t n) noexcept;

}  // namespace pamir::dt
