// The type constructors of the datatype chapter, MPI_Type_commit/dup/free, and the envelope and contents
// queries. Each constructor checks its arguments, builds the new type's layout with datatype/layout.h
// (element strides and displacements turned into bytes here), and records its arguments as
// MPI_Type_get_contents returns them: the `_c` (large-count) forms keep every count and displacement
// in the large-count array, the others in the integer and address arrays, as the standard lists them.
#include <algorithm>
#include <climits>
#include <cstring>
#include <map>
#include <type_traits>
#include <vector>

#include "mpi/check.h"
#include "pamir_alias.h"

namespace pamir::mpi {

namespace {

// Segments beyond this make the flattened form too large to build (16 bytes each: 2 GiB).
constexpr uint64_t kMaxSegments = uint64_t(1) << 27;

struct Contents {
  int combiner;
  bool large;  // made by a `_c` constructor (MPI_Aint and MPI_Count may be one C type: not told by type)
  std::vector<int> ints;
  std::vector<MPI_Aint> aints;
  std::vector<MPI_Count> counts;
  std::vector<Datatype *> parts;

  // Room for n counts and n addresses, so that a type of 10,000 blocks records them without regrowing.
  void reserve(size_t n) {
    if (large) {
      counts.reserve(2 * n + 2);
    } else {
      ints.reserve(n + 2);
      aints.reserve(n);
    }
  }
  // A count or an element displacement: an integer, or a large count for the `_c` forms.
  void count(MPI_Count v) {
    if (large)
      counts.push_back(v);
    else
      ints.push_back(int(v));
  }
  // A byte displacement or stride: an address, or a large count for the `_c` forms.
  void addr(MPI_Count v) {
    if (large)
      counts.push_back(v);
    else
      aints.push_back(MPI_Aint(v));
  }
};

// Whether a constructor's count type is the large one.
template <typename C>
constexpr bool large_v = std::is_same_v<C, MPI_Count> && !std::is_same_v<C, int>;

int make(const char *fn_, dt::Layout &&l, Contents &&c, MPI_Datatype *newtype) {
  Datatype *t = pool<Datatype>().make();
  t->layout = std::move(l);
  datatype_derive_fields(t);
  t->committed = false;
  t->combiner = c.combiner;
  t->ints = std::move(c.ints);
  t->aints = std::move(c.aints);
  t->counts = std::move(c.counts);
  t->parts = std::move(c.parts);
  for (Datatype *p : t->parts)
    if (!p->predefined) ++p->refs;
  // A type of one basic kind reduces as that kind (MPI_Type_contiguous(4, MPI_DOUBLE) with MPI_SUM).
  if (t->layout.sig.size() == 1 && t->dense && t->first == 0 && t->size) {
    if (Datatype *b = datatype_of(t->layout.sig[0].id); b && b->contiguous) {
      t->elem = b->elem;
      t->elem_count = t->layout.sig[0].count;
    }
  }
  (void)fn_;
  *newtype = handle_of<MPI_Datatype>(t);
  return MPI_SUCCESS;
}

// Checks shared by the constructors. `pieces`: segments the flattened form will have at most.
#define PAMIR_NEWTYPE_CHECKS(newtype) PAMIR_CHECK(nullptr, newtype, MPI_ERR_ARG, "newtype is NULL")

#define PAMIR_SEGMENTS(pieces)                                                                         \
  PAMIR_CHECK(nullptr, (pieces) <= kMaxSegments, MPI_ERR_NO_MEM,                                       \
              "the type would have %llu separate pieces, more than the %llu its flattened form holds", \
              (unsigned long long)(pieces), (unsigned long long)kMaxSegments)

// Pieces that `blocks` blocks of `blocklen` copies of t may have.
uint64_t pieces_of(uint64_t blocks, uint64_t blocklen, const Datatype *t) {
  const uint64_t per =
      t->dense ? 1 : std::max<uint64_t>(t->layout.pieces(), 1) * std::max<uint64_t>(blocklen, 1);
  if (blocks && per > UINT64_MAX / blocks) return UINT64_MAX;
  return blocks * per;
}

template <typename C>
int contiguous(const char *fn_, C count, MPI_Datatype oldtype, MPI_Datatype *newtype) {
  Datatype *old = PAMIR_ANY_TYPE(nullptr, oldtype);
  PAMIR_CHECK(nullptr, count >= 0, MPI_ERR_COUNT, "negative count %lld", (long long)count);
  PAMIR_NEWTYPE_CHECKS(newtype);
  PAMIR_SEGMENTS(pieces_of(1, uint64_t(count), old));
  Contents c{MPI_COMBINER_CONTIGUOUS, large_v<C>, {}, {}, {}, {old}};
  c.count(count);
  return make(fn_, dt::contiguous(uint64_t(count), old->layout), std::move(c), newtype);
}

// MPI_Type_vector (stride in elements) and MPI_Type_create_hvector (stride in bytes).
template <typename C, typename S>
int vector(const char *fn_, C count, C blocklength, S stride, MPI_Datatype oldtype, MPI_Datatype *newtype,
           bool bytes) {
  Datatype *old = PAMIR_ANY_TYPE(nullptr, oldtype);
  PAMIR_CHECK(nullptr, count >= 0, MPI_ERR_COUNT, "negative count %lld", (long long)count);
  PAMIR_CHECK(nullptr, blocklength >= 0, MPI_ERR_ARG, "negative blocklength %lld", (long long)blocklength);
  PAMIR_NEWTYPE_CHECKS(newtype);
  PAMIR_SEGMENTS(pieces_of(uint64_t(count), uint64_t(blocklength), old));
  Contents c{bytes ? MPI_COMBINER_HVECTOR : MPI_COMBINER_VECTOR, large_v<C>, {}, {}, {}, {old}};
  c.count(count);
  c.count(blocklength);
  if (bytes)
    c.addr(stride);
  else
    c.count(stride);
  const int64_t stride_bytes = bytes ? int64_t(stride) : int64_t(stride) * old->extent;
  return make(fn_, dt::hvector(uint64_t(count), uint64_t(blocklength), stride_bytes, old->layout),
              std::move(c), newtype);
}

// MPI_Type_indexed, create_hindexed, create_indexed_block, create_hindexed_block. `blocklengths` has
// one entry, or `count` entries; displacements are in elements unless `bytes`.
template <typename C, typename D>
int indexed(const char *fn_, C count, const C *blocklengths, bool one_length, const D *displs,
            MPI_Datatype oldtype, MPI_Datatype *newtype, bool bytes, int combiner) {
  Datatype *old = PAMIR_ANY_TYPE(nullptr, oldtype);
  PAMIR_CHECK(nullptr, count >= 0, MPI_ERR_COUNT, "negative count %lld", (long long)count);
  PAMIR_CHECK(nullptr, count == 0 || (blocklengths && displs) || (one_length && displs), MPI_ERR_ARG,
              "array_of_blocklengths or array_of_displacements is NULL");
  PAMIR_NEWTYPE_CHECKS(newtype);
  const size_t n = size_t(count);
  std::vector<uint64_t> bl(n);
  std::vector<int64_t> d(n);
  uint64_t pieces = 0;
  for (size_t i = 0; i < n; ++i) {
    const C b = one_length ? blocklengths[0] : blocklengths[i];
    PAMIR_CHECK(nullptr, b >= 0, MPI_ERR_ARG, "negative blocklength %lld (block %zu)", (long long)b, i);
    bl[i] = uint64_t(b);
    d[i] = bytes ? int64_t(displs[i]) : int64_t(displs[i]) * old->extent;
    pieces = std::min<uint64_t>(pieces + pieces_of(1, bl[i], old), UINT64_MAX / 2);
  }
  PAMIR_SEGMENTS(pieces);
  Contents c{combiner, large_v<C>, {}, {}, {}, {old}};
  c.reserve(n * 2);
  c.count(count);
  if (one_length)
    c.count(blocklengths[0]);
  else
    for (size_t i = 0; i < n; ++i) c.count(blocklengths[i]);
  for (size_t i = 0; i < n; ++i) {
    if (bytes)
      c.addr(displs[i]);
    else
      c.count(displs[i]);
  }
  return make(fn_, dt::hindexed(n, bl.data(), d.data(), old->layout), std::move(c), newtype);
}

template <typename C, typename A>
int structure(const char *fn_, C count, const C *blocklengths, const A *displs, const MPI_Datatype *types,
              MPI_Datatype *newtype) {
  PAMIR_CHECK(nullptr, count >= 0, MPI_ERR_COUNT, "negative count %lld", (long long)count);
  PAMIR_CHECK(nullptr, count == 0 || (blocklengths && displs && types), MPI_ERR_ARG,
              "array_of_blocklengths, array_of_displacements or array_of_types is NULL");
  PAMIR_NEWTYPE_CHECKS(newtype);
  const size_t n = size_t(count);
  std::vector<uint64_t> bl(n);
  std::vector<int64_t> d(n);
  std::vector<const dt::Layout *> parts(n);
  Contents c{MPI_COMBINER_STRUCT, large_v<C>, {}, {}, {}, {}};
  uint64_t pieces = 0;
  for (size_t i = 0; i < n; ++i) {
    Datatype *t = PAMIR_ANY_TYPE(nullptr, types[i]);
    PAMIR_CHECK(nullptr, blocklengths[i] >= 0, MPI_ERR_ARG, "negative blocklength %lld (block %zu)",
                (long long)blocklengths[i], i);
    bl[i] = uint64_t(blocklengths[i]);
    d[i] = int64_t(displs[i]);
    parts[i] = &t->layout;
    c.parts.push_back(t);
    pieces = std::min<uint64_t>(pieces + pieces_of(1, bl[i], t), UINT64_MAX / 2);
  }
  PAMIR_SEGMENTS(pieces);
  c.count(count);
  for (size_t i = 0; i < n; ++i) c.count(blocklengths[i]);
  for (size_t i = 0; i < n; ++i) c.addr(displs[i]);
  return make(fn_, dt::structure(n, bl.data(), d.data(), parts.data()), std::move(c), newtype);
}

template <typename A>
int resized(const char *fn_, MPI_Datatype oldtype, A lb, A extent, MPI_Datatype *newtype, bool large) {
  Datatype *old = PAMIR_ANY_TYPE(nullptr, oldtype);
  PAMIR_NEWTYPE_CHECKS(newtype);
  Contents c{MPI_COMBINER_RESIZED, large, {}, {}, {}, {old}};
  c.addr(lb);
  c.addr(extent);
  return make(fn_, dt::resized(old->layout, int64_t(lb), int64_t(extent)), std::move(c), newtype);
}

// One dimension of a subarray or darray: the blocks (start, length) of the indices this process holds,
// in increasing order.
struct Range {
  uint64_t start, length;
};

// The nested layout of an n-dimensional array of `old` (dims in memory order, slowest first) of which
// only the index ranges `ranges[d]` are taken in each dimension d; its bounds are the whole array's.
dt::Layout nested(const std::vector<uint64_t> &sizes, const std::vector<std::vector<Range>> &ranges,
                  const Datatype *old) {
  const size_t n = sizes.size();
  dt::Layout t = old->layout;
  int64_t row = old->extent;  // bytes of one index of the current dimension
  for (size_t k = n; k-- > 0;) {
    // One index of dimension k spans `row` bytes; the type of it built so far must step by exactly that.
    const dt::Layout step = dt::resized(t, 0, row);
    if (ranges[k].size() == 1) {
      // One range (every subarray dimension): a contiguous run moved to its start keeps the loop form.
      t = dt::displaced(dt::contiguous(ranges[k][0].length, step), int64_t(ranges[k][0].start) * row);
    } else {
      std::vector<uint64_t> bl;
      std::vector<int64_t> d;
      for (const Range &r : ranges[k]) {
        bl.push_back(r.length);
        d.push_back(int64_t(r.start) * row);
      }
      t = dt::hindexed(bl.size(), bl.data(), d.data(), step);
    }
    row *= int64_t(sizes[k]);
  }
  return dt::resized(t, 0, row);
}

template <typename C>
int subarray(const char *fn_, int ndims, const C *sizes, const C *subsizes, const C *starts, int order,
             MPI_Datatype oldtype, MPI_Datatype *newtype) {
  Datatype *old = PAMIR_ANY_TYPE(nullptr, oldtype);
  PAMIR_CHECK(nullptr, ndims > 0, MPI_ERR_ARG, "ndims %d is not positive", ndims);
  PAMIR_CHECK(nullptr, sizes && subsizes && starts, MPI_ERR_ARG,
              "array_of_sizes, array_of_subsizes or array_of_starts is NULL");
  PAMIR_CHECK(nullptr, order == MPI_ORDER_C || order == MPI_ORDER_FORTRAN, MPI_ERR_ARG,
              "order %d is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN", order);
  PAMIR_NEWTYPE_CHECKS(newtype);
  std::vector<uint64_t> sz(static_cast<size_t>(ndims));
  std::vector<std::vector<Range>> ranges(static_cast<size_t>(ndims));
  for (int i = 0; i < ndims; ++i) {
    PAMIR_CHECK(nullptr, sizes[i] > 0, MPI_ERR_ARG, "array_of_sizes[%d] = %lld is not positive", i,
                (long long)sizes[i]);
    PAMIR_CHECK(nullptr, subsizes[i] >= 0 && subsizes[i] <= sizes[i], MPI_ERR_ARG,
                "array_of_subsizes[%d] = %lld is outside [0, %lld]", i, (long long)subsizes[i],
                (long long)sizes[i]);
    PAMIR_CHECK(nullptr, starts[i] >= 0 && starts[i] <= sizes[i] - subsizes[i], MPI_ERR_ARG,
                "array_of_starts[%d] = %lld is outside [0, %lld]", i, (long long)starts[i],
                (long long)(sizes[i] - subsizes[i]));
    // Memory order: C's last dimension varies fastest, Fortran's first.
    const size_t k = order == MPI_ORDER_C ? size_t(i) : size_t(ndims - 1 - i);
    sz[k] = uint64_t(sizes[i]);
    ranges[k] = {{uint64_t(starts[i]), uint64_t(subsizes[i])}};
  }
  Contents c{MPI_COMBINER_SUBARRAY, large_v<C>, {}, {}, {}, {old}};
  c.ints.push_back(ndims);
  for (int i = 0; i < ndims; ++i) c.count(sizes[i]);
  for (int i = 0; i < ndims; ++i) c.count(subsizes[i]);
  for (int i = 0; i < ndims; ++i) c.count(starts[i]);
  c.ints.push_back(order);
  return make(fn_, nested(sz, ranges, old), std::move(c), newtype);
}

// MPI 5.0 section 5.1.4: HPF-style block, cyclic(k) and undistributed dimensions over a process grid in
// row-major order.
template <typename C>
int darray(const char *fn_, int size, int rank, int ndims, const C *gsizes, const int *distribs,
           const int *dargs, const int *psizes, int order, MPI_Datatype oldtype, MPI_Datatype *newtype) {
  Datatype *old = PAMIR_ANY_TYPE(nullptr, oldtype);
  PAMIR_CHECK(nullptr, size > 0, MPI_ERR_ARG, "size %d is not positive", size);
  PAMIR_CHECK(nullptr, rank >= 0 && rank < size, MPI_ERR_RANK, "rank %d is outside [0, %d)", rank, size);
  PAMIR_CHECK(nullptr, ndims > 0, MPI_ERR_ARG, "ndims %d is not positive", ndims);
  PAMIR_CHECK(nullptr, gsizes && distribs && dargs && psizes, MPI_ERR_ARG,
              "array_of_gsizes, array_of_distribs, array_of_dargs or array_of_psizes is NULL");
  PAMIR_CHECK(nullptr, order == MPI_ORDER_C || order == MPI_ORDER_FORTRAN, MPI_ERR_ARG,
              "order %d is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN", order);
  PAMIR_NEWTYPE_CHECKS(newtype);
  int64_t procs = 1;
  for (int i = 0; i < ndims; ++i) {
    PAMIR_CHECK(nullptr, psizes[i] > 0, MPI_ERR_ARG, "array_of_psizes[%d] = %d is not positive", i,
                psizes[i]);
    procs *= psizes[i];
  }
  PAMIR_CHECK(nullptr, procs == size, MPI_ERR_ARG, "the process grid holds %lld processes, size is %d",
              (long long)procs, size);
  std::vector<uint64_t> sz(static_cast<size_t>(ndims));
  std::vector<std::vector<Range>> ranges(static_cast<size_t>(ndims));
  int rest = rank;
  std::vector<int> coord(static_cast<size_t>(ndims));
  for (int i = ndims; i-- > 0;) {  // row-major grid: the last dimension's coordinate varies fastest
    coord[size_t(i)] = rest % psizes[i];
    rest /= psizes[i];
  }
  uint64_t pieces = 1;
  for (int i = 0; i < ndims; ++i) {
    const int64_t g = int64_t(gsizes[i]), p = psizes[i], me = coord[size_t(i)];
    PAMIR_CHECK(nullptr, g > 0, MPI_ERR_ARG, "array_of_gsizes[%d] = %lld is not positive", i, (long long)g);
    std::vector<Range> r;
    switch (distribs[i]) {
      case MPI_DISTRIBUTE_NONE:
        PAMIR_CHECK(nullptr, p == 1, MPI_ERR_ARG, "dimension %d is not distributed but has %lld processes", i,
                    (long long)p);
        r.push_back({0, uint64_t(g)});
        break;
      case MPI_DISTRIBUTE_BLOCK: {
        const int64_t b = dargs[i] == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : dargs[i];
        PAMIR_CHECK(nullptr, b > 0 && b * p >= g, MPI_ERR_ARG,
                    "block size %lld of dimension %d does not cover %lld elements over %lld processes",
                    (long long)b, i, (long long)g, (long long)p);
        const int64_t lo = std::min(me * b, g), hi = std::min(lo + b, g);
        if (hi > lo) r.push_back({uint64_t(lo), uint64_t(hi - lo)});
        break;
      }
      case MPI_DISTRIBUTE_CYCLIC: {
        const int64_t k = dargs[i] == MPI_DISTRIBUTE_DFLT_DARG ? 1 : dargs[i];
        PAMIR_CHECK(nullptr, k > 0, MPI_ERR_ARG, "cyclic block size %lld of dimension %d is not positive",
                    (long long)k, i);
        for (int64_t s = me * k; s < g; s += p * k) r.push_back({uint64_t(s), uint64_t(std::min(k, g - s))});
        break;
      }
      default:
        return raise(nullptr, fn_, MPI_ERR_ARG, "array_of_distribs[%d] = %d is not a distribution", i,
                     distribs[i]);
    }
    const size_t k = order == MPI_ORDER_C ? size_t(i) : size_t(ndims - 1 - i);
    sz[k] = uint64_t(g);
    pieces = std::min<uint64_t>(pieces * (uint64_t(g) + 1), UINT64_MAX / 4);
    ranges[k] = std::move(r);
  }
  PAMIR_SEGMENTS(pieces_of(pieces, 1, old));
  Contents c{MPI_COMBINER_DARRAY, large_v<C>, {}, {}, {}, {old}};
  c.ints = {size, rank, ndims};
  for (int i = 0; i < ndims; ++i) c.count(gsizes[i]);
  for (int i = 0; i < ndims; ++i) c.ints.push_back(distribs[i]);
  for (int i = 0; i < ndims; ++i) c.ints.push_back(dargs[i]);
  for (int i = 0; i < ndims; ++i) c.ints.push_back(psizes[i]);
  c.ints.push_back(order);
  return make(fn_, nested(sz, ranges, old), std::move(c), newtype);
}

}  // namespace

}  // namespace pamir::mpi

using namespace pamir::mpi;

// --- constructors --------------------------------------------------------------------------------

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype) {
  PAMIR_ENTER("MPI_Type_contiguous");
  return contiguous(fn_, count, oldtype, newtype);
}
PAMIR_ALIAS(Type_contiguous);
int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype) {
  PAMIR_ENTER("MPI_Type_contiguous_c");
  return contiguous(fn_, count, oldtype, newtype);
}
PAMIR_ALIAS(Type_contiguous_c);

int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype) {
  PAMIR_ENTER("MPI_Type_vector");
  return vector(fn_, count, blocklength, stride, oldtype, newtype, false);
}
PAMIR_ALIAS(Type_vector);
int PMPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
                       MPI_Datatype *newtype) {
  PAMIR_ENTER("MPI_Type_vector_c");
  return vector(fn_, count, blocklength, stride, oldtype, newtype, false);
}
PAMIR_ALIAS(Type_vector_c);

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                             MPI_Datatype *newtype) {
  PAMIR_ENTER("MPI_Type_create_hvector");
  return vector(fn_, count, blocklength, stride, oldtype, newtype, true);
}
PAMIR_ALIAS(Type_create_hvector);
int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
                               MPI_Datatype *newtype) {
  PAMIR_ENTER("MPI_Type_create_hvector_c");
  return vector(fn_, count, blocklength, stride, oldtype, newtype, true);
}
PAMIR_ALIAS(Type_create_hvector_c);

int PMPI_Type_indexed(int count, const int array_of_blocklengths[], const int array_of_displacements[],
                      MPI_Datatype oldtype, MPI_Datatype *newtype) {
  PAMIR_ENTER("MPI_Type_indexed");
  return indexed(fn_, count, array_of_blocklengths, false, array_of_displacements, oldtype, newtype, false,
                 MPI_COMBINER_INDEXED);
}
PAMIR_ALIAS(Type_indexed);
int PMPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                        const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                        MPI_Datatype *newtype) {
  PAMIR_ENTER("MPI_Type_indexed_c");
  return indexed(fn_, count, array_of_blocklengths, false, array_of_displacements, oldtype, newtype, false,
                 MPI_COMBINER_INDEXED);
}
PAMIR_ALIAS(Type_indexed_c);

int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                              MPI_Datatype *newtype) {
  PAMIR_ENTER("MPI_Type_create_hindexed");
  return indexed(fn_, count, array_of_blocklengths, false, array_of_displacements, oldtype, newtype, true,
                 MPI_COMBINER_HINDEXED);
}
PAMIR_ALIAS(Type_create_hindexed);
int PMPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                MPI_Datatype *newtype) {
  PAMIR_ENTER("MPI_Type_create_hindexed_c");
  return indexed(fn_, count, array_of_blocklengths, false, array_of_displacements, oldtype, newtype, true,
                 MPI_COMBINER_HINDEXED);
}
PAMIR_ALIAS(Type_create_hindexed_c);

int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype *newtype) {
  PAMIR_ENTER("MPI_Type_create_indexed_block");
  return indexed(fn_, count, &blocklength, true, array_of_displacements, oldtype, newtype, false,
                 MPI_COMBINER_INDEXED_BLOCK);
}
PAMIR_ALIAS(Type_create_indexed_block);
int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                     const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                     MPI_Datatype *newtype) {
  PAMIR_ENTER("MPI_Type_create_indexed_block_c");
  return indexed(fn_, count, &blocklength, true, array_of_displacements, oldtype, newtype, false,
                 MPI_COMBINER_INDEXED_BLOCK);
}
PAMIR_ALIAS(Type_create_indexed_block_c);

int PMPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint array_of_displacements[],
                                    MPI_Datatype oldtype, MPI_Datatype *newtype) {
  PAMIR_ENTER("MPI_Type_create_hindexed_block");
  return indexed(fn_, count, &blocklength, true, array_of_displacements, oldtype, newtype, true,
                 MPI_COMBINER_HINDEXED_BLOCK);
}
PAMIR_ALIAS(Type_create_hindexed_block);
int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                      const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                      MPI_Datatype *newtype) {
  PAMIR_ENTER("MPI_Type_create_hindexed_block_c");
  return indexed(fn_, count, &blocklength, true, array_of_displacements, oldtype, newtype, true,
                 MPI_COMBINER_HINDEXED_BLOCK);
}
PAMIR_ALIAS(Type_create_hindexed_block_c);

int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                            const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[],
                            MPI_Datatype *newtype) {
  PAMIR_ENTER("MPI_Type_create_struct");
  return structure(fn_, count, array_of_blocklengths, array_of_displacements, array_of_types, newtype);
}
PAMIR_ALIAS(Type_create_struct);
int PMPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                              const MPI_Count array_of_displacements[], const MPI_Datatype array_of_types[],
                              MPI_Datatype *newtype) {
  PAMIR_ENTER("MPI_Type_create_struct_c");
  return structure(fn_, count, array_of_blocklengths, array_of_displacements, array_of_types, newtype);
}
PAMIR_ALIAS(Type_create_struct_c);

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype) {
  PAMIR_ENTER("MPI_Type_create_resized");
  return resized(fn_, oldtype, lb, extent, newtype, false);
}
PAMIR_ALIAS(Type_create_resized);
int PMPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent, MPI_Datatype *newtype) {
  PAMIR_ENTER("MPI_Type_create_resized_c");
  return resized(fn_, oldtype, lb, extent, newtype, true);
}
PAMIR_ALIAS(Type_create_resized_c);

int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                              const int array_of_starts[], int order, MPI_Datatype oldtype,
                              MPI_Datatype *newtype) {
  PAMIR_ENTER("MPI_Type_create_subarray");
  return subarray(fn_, ndims, array_of_sizes, array_of_subsizes, array_of_starts, order, oldtype, newtype);
}
PAMIR_ALIAS(Type_create_subarray);
int PMPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
                                const MPI_Count array_of_subsizes[], const MPI_Count array_of_starts[],
                                int order, MPI_Datatype oldtype, MPI_Datatype *newtype) {
  PAMIR_ENTER("MPI_Type_create_subarray_c");
  return subarray(fn_, ndims, array_of_sizes, array_of_subsizes, array_of_starts, order, oldtype, newtype);
}
PAMIR_ALIAS(Type_create_subarray_c);

int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                            const int array_of_distribs[], const int array_of_dargs[],
                            const int array_of_psizes[], int order, MPI_Datatype oldtype,
                            MPI_Datatype *newtype) {
  PAMIR_ENTER("MPI_Type_create_darray");
  return darray(fn_, size, rank, ndims, array_of_gsizes, array_of_distribs, array_of_dargs, array_of_psizes,
                order, oldtype, newtype);
}
PAMIR_ALIAS(Type_create_darray);
int PMPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                              const int array_of_distribs[], const int array_of_dargs[],
                              const int array_of_psizes[], int order, MPI_Datatype oldtype,
                              MPI_Datatype *newtype) {
  PAMIR_ENTER("MPI_Type_create_darray_c");
  return darray(fn_, size, rank, ndims, array_of_gsizes, array_of_distribs, array_of_dargs, array_of_psizes,
                order, oldtype, newtype);
}
PAMIR_ALIAS(Type_create_darray_c);

// --- lifetime ------------------------------------------------------------------------------------

int PMPI_Type_commit(MPI_Datatype *datatype) {
  PAMIR_ENTER("MPI_Type_commit");
  PAMIR_CHECK(nullptr, datatype, MPI_ERR_ARG, "datatype is NULL");
  Datatype *t = PAMIR_ANY_TYPE(nullptr, *datatype);
  t->committed = true;  // the flattened form was built with the type: there is nothing left to do
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Type_commit);

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype) {
  PAMIR_ENTER("MPI_Type_dup");
  Datatype *old = PAMIR_ANY_TYPE(nullptr, oldtype);
  PAMIR_NEWTYPE_CHECKS(newtype);
  Contents c{MPI_COMBINER_DUP, false, {}, {}, {}, {old}};
  pamir::dt::Layout l = old->layout;
  if (int rc = make(fn_, std::move(l), std::move(c), newtype)) return rc;
  Datatype *t = lookup<Datatype>(*newtype);
  t->committed = old->committed;  // a duplicate of a committed type is committed
  t->elem = old->elem;
  t->elem_count = old->elem_count;
  if (int rc = attrs_copy(old, t, fn_)) {
    datatype_release(t);
    *newtype = MPI_DATATYPE_NULL;
    return rc;
  }
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Type_dup);

// --- MPI_Type_create_f90_integer, _real, _complex (MPI 5.0 §19.2.5) --------------------------------
// The type of the Fortran kind SELECTED_INT_KIND(r) or SELECTED_REAL_KIND(p, r) gives with gfortran on
// this machine (integers of 1, 2, 4, 8, 16 bytes; reals of 4, 8 and 16), with combiner
// MPI_COMBINER_F90_* and the arguments as its contents. One type per (kind, p, r), made at the first
// call and handed out again: the standard makes them predefined, so MPI_Type_free refuses them.

namespace {

struct F90Kind {
  int digits, range;  // the precision (decimal digits) and exponent range a kind offers
  MPI_Datatype real, complex;
};
const F90Kind kF90Reals[] = {{6, 37, MPI_REAL4, MPI_COMPLEX8},
                             {15, 307, MPI_REAL8, MPI_COMPLEX16},
                             {33, 4931, MPI_REAL16, MPI_COMPLEX32}};
const struct {
  int range;
  MPI_Datatype type;
} kF90Integers[] = {
    {2, MPI_INTEGER1}, {4, MPI_INTEGER2}, {9, MPI_INTEGER4}, {18, MPI_INTEGER8}, {38, MPI_INTEGER16}};

int f90_type(const char *fn_, int combiner, MPI_Datatype base, std::vector<int> ints, MPI_Datatype *newtype) {
  // The objects themselves (not their handles), which also keeps them reachable for the leak checker.
  static auto *made = new std::map<std::vector<int>, Datatype *>;
  std::vector<int> key = ints;
  key.push_back(combiner);
  if (auto it = made->find(key); it != made->end()) {
    *newtype = handle_of_type(it->second);
    return MPI_SUCCESS;
  }
  Datatype *b = datatype_of(uintptr_t(base));
  Contents c{combiner, false, std::move(ints), {}, {}, {}};
  pamir::dt::Layout l = b->layout;
  if (int rc = make(fn_, std::move(l), std::move(c), newtype)) return rc;
  Datatype *t = lookup<Datatype>(*newtype);
  t->committed = true;
  t->permanent = true;
  t->elem = b->elem;
  t->elem_count = b->elem_count;
  (*made)[key] = t;
  return MPI_SUCCESS;
}

}  // namespace

int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype) {
  PAMIR_ENTER("MPI_Type_create_f90_integer");
  PAMIR_NEWTYPE_CHECKS(newtype);
  for (const auto &k : kF90Integers)
    if (r <= k.range) return f90_type(fn_, MPI_COMBINER_F90_INTEGER, k.type, {r}, newtype);
  return raise(nullptr, fn_, MPI_ERR_ARG, "no integer kind has %d decimal digits (at most %d)", r,
               kF90Integers[std::size(kF90Integers) - 1].range);
}
PAMIR_ALIAS(Type_create_f90_integer);

namespace {
int f90_real(const char *fn_, int p, int r, bool complex, MPI_Datatype *newtype) {
  PAMIR_CHECK(nullptr, p != MPI_UNDEFINED || r != MPI_UNDEFINED, MPI_ERR_ARG,
              "p and r are both MPI_UNDEFINED");
  for (const F90Kind &k : kF90Reals)
    if ((p == MPI_UNDEFINED || p <= k.digits) && (r == MPI_UNDEFINED || r <= k.range))
      return f90_type(fn_, complex ? MPI_COMBINER_F90_COMPLEX : MPI_COMBINER_F90_REAL,
                      complex ? k.complex : k.real, {p, r}, newtype);
  return raise(nullptr, fn_, MPI_ERR_ARG, "no real kind has %d digits and an exponent range of %d", p, r);
}
}  // namespace

int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype) {
  PAMIR_ENTER("MPI_Type_create_f90_real");
  PAMIR_NEWTYPE_CHECKS(newtype);
  return f90_real(fn_, p, r, false, newtype);
}
PAMIR_ALIAS(Type_create_f90_real);

int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype) {
  PAMIR_ENTER("MPI_Type_create_f90_complex");
  PAMIR_NEWTYPE_CHECKS(newtype);
  return f90_real(fn_, p, r, true, newtype);
}
PAMIR_ALIAS(Type_create_f90_complex);

// Operations that use the type hold references: it lives until the last of them completes.
int PMPI_Type_free(MPI_Datatype *datatype) {
  PAMIR_ENTER("MPI_Type_free");
  PAMIR_CHECK(nullptr, datatype, MPI_ERR_ARG, "datatype is NULL");
  Datatype *t = PAMIR_ANY_TYPE(nullptr, *datatype);
  PAMIR_CHECK(nullptr, !t->predefined && !t->permanent, MPI_ERR_TYPE, "%s is predefined and cannot be freed",
              t->permanent ? "a type of MPI_Type_create_f90_*" : type_name(t));
  // The attributes' delete callbacks run now (MPI 4.1 §7.7.4), the most recently set first; one that fails
  // fails the call and leaves the type to the user.
  if (int rc = attrs_delete_all(t, fn_)) return rc;
  *datatype = MPI_DATATYPE_NULL;
  datatype_release(t);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Type_free);

// --- envelope and contents ------------------------------------------------------------------------

namespace {

// The `_c` forms report every count in the large-count array; the others cannot describe a type made by
// a `_c` constructor, which MPI makes an error (MPI_ERR_TYPE) only when a value does not fit.
template <typename C>
int envelope(const char *fn_, MPI_Datatype datatype, C *ni, C *na, C *nc, C *nt, int *combiner, bool large) {
  Datatype *t = PAMIR_ANY_TYPE(nullptr, datatype);
  PAMIR_CHECK(nullptr, ni && na && nt && combiner && (!large || nc), MPI_ERR_ARG,
              "an output argument is NULL");
  if (t->predefined) {
    *ni = *na = *nt = 0;
    if (nc) *nc = 0;
    *combiner = MPI_COMBINER_NAMED;
    return MPI_SUCCESS;
  }
  if (!large)
    PAMIR_CHECK(nullptr, t->counts.empty(), MPI_ERR_TYPE,
                "the type was made by a large-count constructor: use MPI_Type_get_envelope_c");
  *ni = C(t->ints.size());
  *na = C(t->aints.size());
  if (nc) *nc = C(t->counts.size());
  *nt = C(t->parts.size());
  *combiner = t->combiner;
  return MPI_SUCCESS;
}

template <typename C>
int contents(const char *fn_, MPI_Datatype datatype, C max_i, C max_a, C max_c, C max_t, int *ints,
             MPI_Aint *aints, MPI_Count *counts, MPI_Datatype *types) {
  Datatype *t = PAMIR_ANY_TYPE(nullptr, datatype);
  PAMIR_CHECK(nullptr, !t->predefined, MPI_ERR_TYPE, "%s is predefined: it has no contents", type_name(t));
  PAMIR_CHECK(nullptr,
              uint64_t(max_i) >= t->ints.size() && uint64_t(max_a) >= t->aints.size() &&
                  uint64_t(max_c) >= t->counts.size() && uint64_t(max_t) >= t->parts.size(),
              MPI_ERR_ARG,
              "the arrays are too small: the type has %zu integers, %zu addresses, %zu large counts and %zu "
              "datatypes (MPI_Type_get_envelope)",
              t->ints.size(), t->aints.size(), t->counts.size(), t->parts.size());
  PAMIR_CHECK(nullptr,
              (t->ints.empty() || ints) && (t->aints.empty() || aints) && (t->counts.empty() || counts) &&
                  (t->parts.empty() || types),
              MPI_ERR_ARG, "an output array is NULL");
  for (size_t i = 0; i < t->ints.size(); ++i) ints[i] = t->ints[i];
  for (size_t i = 0; i < t->aints.size(); ++i) aints[i] = t->aints[i];
  for (size_t i = 0; i < t->counts.size(); ++i) counts[i] = t->counts[i];
  for (size_t i = 0; i < t->parts.size(); ++i) {
    Datatype *p = t->parts[i];
    // A derived part is handed out as a new reference, which the caller frees with MPI_Type_free.
    if (!p->predefined) ++p->refs;
    types[i] = handle_of_type(p);
  }
  return MPI_SUCCESS;
}

}  // namespace

int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses, int *num_datatypes,
                           int *combiner) {
  PAMIR_ENTER("MPI_Type_get_envelope");
  return envelope<int>(fn_, datatype, num_integers, num_addresses, nullptr, num_datatypes, combiner, false);
}
PAMIR_ALIAS(Type_get_envelope);
int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers, MPI_Count *num_addresses,
                             MPI_Count *num_large_counts, MPI_Count *num_datatypes, int *combiner) {
  PAMIR_ENTER("MPI_Type_get_envelope_c");
  return envelope<MPI_Count>(fn_, datatype, num_integers, num_addresses, num_large_counts, num_datatypes,
                             combiner, true);
}
PAMIR_ALIAS(Type_get_envelope_c);

int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes,
                           int array_of_integers[], MPI_Aint array_of_addresses[],
                           MPI_Datatype array_of_datatypes[]) {
  PAMIR_ENTER("MPI_Type_get_contents");
  return contents<int>(fn_, datatype, max_integers, max_addresses, 0, max_datatypes, array_of_integers,
                       array_of_addresses, nullptr, array_of_datatypes);
}
PAMIR_ALIAS(Type_get_contents);
int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                             MPI_Count max_large_counts, MPI_Count max_datatypes, int array_of_integers[],
                             MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                             MPI_Datatype array_of_datatypes[]) {
  PAMIR_ENTER("MPI_Type_get_contents_c");
  return contents<MPI_Count>(fn_, datatype, max_integers, max_addresses, max_large_counts, max_datatypes,
                             array_of_integers, array_of_addresses, array_of_large_counts,
                             array_of_datatypes);
}
PAMIR_ALIAS(Type_get_contents_c);
