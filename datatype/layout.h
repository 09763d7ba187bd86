// Type constructors over flattened layouts (seed 003): each builds the segment list of one element of the
// new type from its parts', with touching pieces merged, its type signature, and its bounds by MPI's rules
// (a block of `blocklen` copies of a type at displacement d spans the copies' lower and upper bounds; the
// type's lower bound is the least of its blocks', its upper bound the greatest; a struct's extent is
// padded to the alignment of its most aligned member unless a member's bounds were set explicitly). Byte
// displacements throughout: the binding turns element strides (MPI_Type_vector, MPI_Type_indexed) into
// bytes. No MPI handles: a basic type is a number the binding chooses and its size and alignment.
//
// Contiguous and vector types keep the compact loop form (segments.h): their segments once, and a loop
// (count, stride) for the repetition, so their size in memory and on the wire does not grow with their
// count. Indexed and struct types list their blocks' segments (a block of a looped type is expanded).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "datatype/segments.h"

namespace pamir::dt {

// `count` consecutive basic elements of one kind in type-map order: the type signature, run-length
// coded, so that contiguous(1e9, int) has a one-run signature.
struct SigRun {
  uint32_t id;     // the basic type (the binding's number for it)
  uint32_t bytes;  // its size
  uint64_t count;
};

struct Layout {
  std::vector<Segment> segs;         // one pass over the loops' body, type-map order, merged
  std::vector<Loop> loops;           // innermost first: one element is `segs` repeated over these
  std::vector<SigRun> sig;           // one element's basic types, type-map order, merged
  uint64_t size = 0;                 // data bytes of one element
  int64_t lb = 0, ub = 0;            // extent = ub - lb
  int64_t true_lb = 0, true_ub = 0;  // the data's own bounds (true_extent = true_ub - true_lb)
  uint32_t align = 1;                // of the most aligned basic member (struct padding)
  bool explicit_bounds = false;      // set by resized, kept by every type built on it: no struct padding

  int64_t extent() const { return ub - lb; }
  int64_t true_extent() const { return true_ub - true_lb; }
  // One element is `size` bytes in one piece, and consecutive elements touch: `n` elements are one piece.
  bool dense() const { return segs.size() == 1 && loops.empty() && int64_t(segs[0].length) == extent(); }
  // Segments one element has when its loops are expanded (before any merging across passes).
  uint64_t pieces() const {
    uint64_t n = segs.size();
    for (const Loop &l : loops) n = l.count && n > UINT64_MAX / l.count ? UINT64_MAX : n * l.count;
    return n;
  }
  // Average bytes of a contiguous piece (before pieces that touch across passes merge).
  uint64_t average_piece() const {
    const uint64_t p = pieces();
    return p ? size / p : size;
  }
  // Basic elements in one element.
  uint64_t basic_count() const {
    uint64_t n = 0;
    for (const SigRun &r : sig) n += r.count;
    return n;
  }
};

Layout basic(uint64_t bytes, uint32_t id = 0, uint32_t align = 1);
Layout contiguous(uint64_t count, const Layout &old);
Layout hvector(uint64_t count, uint64_t blocklen, int64_t stride_bytes, const Layout &old);
Layout hindexed(size_t n, const uint64_t *blocklens, const int64_t *displs, const Layout &old);
Layout structure(size_t n, const uint64_t *blocklens, const int64_t *displs, const Layout *const *types);
Layout resized(const Layout &old, int64_t lb, int64_t extent);
// The same type moved by d bytes (hindexed with one block of one copy, without expanding its loops).
Layout displaced(const Layout &old, int64_t d);

// A cursor over `count` elements of l.
inline Cursor cursor(const Layout &l, uint64_t count) {
  return Cursor(l.segs.data(), l.segs.size(), l.loops.data(), l.loops.size(), l.extent(), count);
}
// One element's segments with its loops expanded, merged.
std::vector<Segment> expanded(const Layout &l);

// Appends `times` copies of a signature to another, merging runs of the same basic type.
void append_signature(std::vector<SigRun> &to, const std::vector<SigRun> &from, uint64_t times);

}  // namespace pamir::dt
