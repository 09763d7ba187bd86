// The flattened form of a datatype (seed 003): a list of (offset, length) segments of one element, in
// type-map order, adjacent pieces merged; a cursor that walks `count` elements of it and yields pieces up
// to a byte budget, so a transfer can stop and resume at any byte; and pack/unpack through a cursor.
// Nothing here knows MPI handles: the binding builds the list from its constructors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace pamir::dt {

struct Segment {
  int64_t offset;   // from the element's origin; may be negative (a negative lower bound)
  uint64_t length;  // bytes
};

// Appends a piece to a type map's segment list, merging it into the last segment when it starts where
// that one ends. Zero-length pieces add nothing.
void append_merged(std::vector<Segment> &list, int64_t offset, uint64_t length);

// `count` elements of a segment list laid out `extent` bytes apart, walked in type-map order.
class Cursor {
 public:
  Cursor(const Segment *segs, size_t nsegs, int64_t extent, uint64_t count) noexcept;

  // The next contiguous piece, of at most `max` bytes (max > 0): its offset from the buffer's origin
  // and its length. False once every byte has been yielded.
  bool next(uint64_t max, int64_t &offset, uint64_t &length) noexcept;
  // Moves to byte `pos` of the data (0 <= pos <= total()); the next piece starts there.
  void seek(uint64_t pos) noexcept;

  uint64_t position() const noexcept { return pos_; }
  uint64_t total() const noexcept { return total_; }

 private:
  bool step(uint64_t max, int64_t &offset, uint64_t &length) noexcept;  // one segment's piece, unmerged

  const Segment *segs_;
  size_t nsegs_;
  int64_t extent_;
  uint64_t count_;
  uint64_t element_bytes_ = 0;  // data bytes of one element
  uint64_t total_ = 0;
  // Where the next piece starts: element, segment within it, bytes already taken of that segment.
  uint64_t elem_ = 0;
  size_t seg_ = 0;
  uint64_t within_ = 0;
  uint64_t pos_ = 0;
};

// Copies up to `max` bytes of the data `c` describes (relative to `base`) into `out`, from the cursor's
// position on; returns the bytes copied.
uint64_t pack(const void *base, Cursor &c, void *out, uint64_t max) noexcept;
// Copies `n` bytes from `in` into the layout `c` describes (relative to `base`), from the cursor's
// position on; returns the bytes placed (less than n only at the end of the layout).
uint64_t unpack(void *base, Cursor &c, const void *in, uint64_t n) noexcept;

}  // namespace pamir::dt
