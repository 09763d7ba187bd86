#include "datatype/segments.h"

#include <algorithm>
#include <cstring>

namespace pamir::dt {

void append_merged(std::vector<Segment> &list, int64_t offset, uint64_t length) {
  if (length == 0) return;
  if (!list.empty() && list.back().offset + int64_t(list.back().length) == offset) {
    list.back().length += length;
    return;
  }
  list.push_back({offset, length});
}

Cursor::Cursor(const Segment *segs, size_t nsegs, const Loop *loops, size_t nloops, int64_t extent,
               uint64_t count) noexcept
    : segs_(segs), nsegs_(nsegs) {
  for (size_t i = 0; i < nsegs; ++i) block_bytes_ += segs[i].length;
  blocks_ = 1;
  for (size_t k = 0; k < nloops && k + 1 < kMaxLoops; ++k) {
    loops_[nloops_++] = loops[k];
    blocks_ *= loops[k].count;
  }
  loops_[nloops_++] = {count, extent};  // the elements: the outermost loop
  blocks_ *= count;
  total_ = block_bytes_ * blocks_;
  if (block_bytes_ == 0) block_ = blocks_;  // nothing to yield
}

void Cursor::set_block(uint64_t block) noexcept {
  block_ = block;
  base_ = 0;
  for (size_t k = 0; k < nloops_; ++k) {  // mixed radix, the innermost loop fastest
    const uint64_t c = loops_[k].count;
    idx_[k] = c ? block % c : 0;
    block = c ? block / c : 0;
    base_ += int64_t(idx_[k]) * loops_[k].stride;
  }
}

// Pieces that touch (the last segment of one pass and the first of the next, for instance) come out
// as one, so a contiguous layout is a single piece however many elements it has.
bool Cursor::next(uint64_t max, int64_t &offset, uint64_t &length) noexcept {
  if (!step(max, offset, length)) return false;
  while (length < max) {
    const uint64_t b = block_, w = within_, p = pos_;
    const size_t g = seg_;
    uint64_t saved[kMaxLoops];
    std::memcpy(saved, idx_, sizeof saved);
    const int64_t base = base_;
    int64_t o2 = 0;
    uint64_t l2 = 0;
    if (!step(max - length, o2, l2)) break;
    if (o2 != offset + int64_t(length)) {
      block_ = b;
      seg_ = g;
      within_ = w;
      pos_ = p;
      std::memcpy(idx_, saved, sizeof saved);
      base_ = base;
      break;
    }
    length += l2;
  }
  return true;
}

bool Cursor::step(uint64_t max, int64_t &offset, uint64_t &length) noexcept {
  while (block_ < blocks_) {
    if (seg_ == nsegs_) {
      next_pass();
      continue;
    }
    const Segment &s = segs_[seg_];
    if (within_ == s.length) {
      ++seg_;
      within_ = 0;
      continue;
    }
    offset = base_ + s.offset + int64_t(within_);
    length = std::min(max, s.length - within_);
    within_ += length;
    pos_ += length;
    return true;
  }
  return false;
}

void Cursor::seek(uint64_t pos) noexcept {
  if (block_bytes_ == 0) return;
  pos_ = std::min(pos, total_);
  set_block(pos_ / block_bytes_);
  uint64_t rest = pos_ % block_bytes_;
  seg_ = 0;
  while (seg_ < nsegs_ && rest >= segs_[seg_].length) rest -= segs_[seg_++].length;
  within_ = rest;
}

// The base may be MPI_BOTTOM, a null pointer with absolute offsets: addresses are computed as integers.
uint64_t pack(const void *base, Cursor &c, void *out, uint64_t max) noexcept {
  const uintptr_t b = reinterpret_cast<uintptr_t>(base);
  char *o = static_cast<char *>(out);
  return c.walk(max, [&](int64_t off, uint64_t at, uint64_t len) {
    copy_piece(o + at, reinterpret_cast<const void *>(b + uintptr_t(off)), len);
  });
}

uint64_t unpack(void *base, Cursor &c, const void *in, uint64_t n) noexcept {
  const uintptr_t b = reinterpret_cast<uintptr_t>(base);
  const char *i = static_cast<const char *>(in);
  return c.walk(n, [&](int64_t off, uint64_t at, uint64_t len) {
    copy_piece(reinterpret_cast<void *>(b + uintptr_t(off)), i + at, len);
  });
}

}  // namespace pamir::dt
