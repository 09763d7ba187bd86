// Type constructors over flattened layouts (seed 003): each builds the segment list of one element of the
// new type from its parts', with touching pieces merged, and its bounds by MPI's rules (a block of
// `blocklen` copies of a type at displacement d spans the copies' lower and upper bounds; the type's
// lower bound is the least of its blocks', its upper bound the greatest). Byte displacements throughout:
// the binding turns element strides (MPI_Type_vector, MPI_Type_indexed) into bytes. No MPI handles.
//
// Not here yet: the alignment padding MPI_Type_create_struct adds to the extent, subarray and darray
// (built from these by the binding), the signature, and the compact loop form for huge counts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "datatype/segments.h"

namespace pamir::dt {

struct Layout {
  std::vector<Segment> segs;         // one element, type-map order, merged
  uint64_t size = 0;                 // data bytes of one element
  int64_t lb = 0, ub = 0;            // extent = ub - lb
  int64_t true_lb = 0, true_ub = 0;  // the data's own bounds (true_extent = true_ub - true_lb)

  int64_t extent() const { return ub - lb; }
  int64_t true_extent() const { return true_ub - true_lb; }
};

Layout basic(uint64_t bytes);
Layout contiguous(uint64_t count, const Layout &old);
Layout hvector(uint64_t count, uint64_t blocklen, int64_t stride_bytes, const Layout &old);
Layout hindexed(size_t n, const uint64_t *blocklens, const int64_t *displs, const Layout &old);
Layout structure(size_t n, const uint64_t *blocklens, const int64_t *displs, const Layout *const *types);
Layout resized(const Layout &old, int64_t lb, int64_t extent);

}  // namespace pamir::dt
