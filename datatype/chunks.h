// Common chunks (seed 003): the sender's and the receiver's layouts of the same bytes walked together.
// Each chunk is contiguous on both sides, so it moves with one copy, or one iovec pair of a
// process_vm_readv, and nothing is packed on either side.
#pragma once

#include <cstdint>

#include "datatype/segments.h"

namespace pamir::dt {

struct Chunk {
  int64_t src;  // offset in the source buffer
  int64_t dst;  // offset in the destination buffer
  uint64_t length;
};

class ChunkWalker {
 public:
  ChunkWalker(Cursor &src, Cursor &dst) noexcept : src_(src), dst_(dst) {}

  // The next common chunk, of at most `max` bytes (max > 0). False once either side has no bytes left.
  bool next(uint64_t max, Chunk &out) noexcept {
    if (sl_ == 0 && !src_.next(UINT64_MAX, so_, sl_)) return false;
    if (dl_ == 0 && !dst_.next(UINT64_MAX, do_, dl_)) return false;
    uint64_t n = sl_ < dl_ ? sl_ : dl_;
    if (n > max) n = max;
    out = {so_, do_, n};
    so_ += int64_t(n);
    do_ += int64_t(n);
    sl_ -= n;
    dl_ -= n;
    return true;
  }

 private:
  Cursor &src_;
  Cursor &dst_;
  int64_t so_ = 0, do_ = 0;  // the current pieces, what is left of them
  uint64_t sl_ = 0, dl_ = 0;
};

// Hands the first n bytes (n <= both totals) to move(source offset, destination offset, length), one
// common piece at a time, inline and without joining pieces: for copies in one address space, where the
// number of pieces matters less than the cost of each (a send to self).
template <typename Move>
uint64_t for_each_common(Cursor &src, Cursor &dst, uint64_t n, Move &&move) noexcept {
  return src.walk(n, [&](int64_t soff, uint64_t, uint64_t len) {
    dst.walk(len, [&](int64_t doff, uint64_t at, uint64_t l) { move(soff + int64_t(at), doff, l); });
  });
}

}  // namespace pamir::dt
