// What the collective bindings outside mpi/coll.cc share with it: the checks that turn (buffer, counts,
// displacements, types) into the parts an algorithm moves, and the launch of the neighbourhood
// collectives (mpi/neighbor.cc) through coll.cc's selection, staging and request machinery.
#pragma once

#include <cstdint>
#include <new>
#include <vector>

#include "collectives/mask.h"
#include "collectives/schedule.h"
#include "mpi/check.h"

namespace pamir::mpi {

// Whether count elements of t, `times` over, exceed what a byte count holds.
inline bool too_big(int64_t count, const Datatype *t, uint64_t times) {
  const uint64_t extent = uint64_t(t->extent > 0 ? t->extent : 1);
  return uint64_t(count) > uint64_t(INT64_MAX) / extent / (times ? times : 1);
}

// The parts of a v-collective: n parts, part i `counts[i]` elements of types[i] (or of t) at buf plus
// displs[i] extents of t (or displs[i] bytes, when types are given). Raises and returns nonzero on bad
// input.
template <typename CountT, typename DisplT>
int make_blocks(Comm *c, const char *fn_, const void *buf, const CountT *counts, const DisplT *displs,
                Datatype *t, Datatype *const *types, int n, std::vector<coll::Block> &out, const char *what) {
  PAMIR_CHECK(c, n == 0 || (counts && displs), MPI_ERR_ARG, "the %s counts or displacements are NULL", what);
  try {
    out.resize(size_t(n));
  } catch (const std::bad_alloc &) {
    return raise(c, fn_, MPI_ERR_NO_MEM, "no memory for the %d parts of the %s side", n, what);
  }
  for (int i = 0; i < n; ++i) {
    const Datatype *ti = types ? types[i] : t;
    const int64_t count = int64_t(counts[i]);
    PAMIR_CHECK(c, count >= 0, MPI_ERR_COUNT, "negative %s count %lld for part %d", what, (long long)count,
                i);
    PAMIR_CHECK(c, !too_big(count, ti, 1), MPI_ERR_COUNT, "%s count %lld for part %d is too large", what,
                (long long)count, i);
    PAMIR_CHECK(c, buffer_ok(buf, count, ti), MPI_ERR_BUFFER, "%s buffer is NULL with count %lld for part %d",
                what, (long long)count, i);
    // Integer arithmetic: with MPI_BOTTOM the displacements are absolute addresses.
    const int64_t shift = types ? int64_t(displs[i]) : int64_t(displs[i]) * t->extent;
    const Data d =
        data_of(ti, reinterpret_cast<const void *>(reinterpret_cast<uintptr_t>(buf) + uintptr_t(shift)),
                uint64_t(count));
    out[size_t(i)] = coll::Block{d.base, d.bytes, d.layout, d.elems};
  }
  return MPI_SUCCESS;
}

// The types of alltoallw's parts, checked.
inline int check_types(Comm *c, const char *fn_, const MPI_Datatype *handles, int n,
                       std::vector<Datatype *> &out, const char *what) {
  PAMIR_CHECK(c, handles || n == 0, MPI_ERR_ARG, "the %s types are NULL", what);
  out.resize(size_t(n));
  for (int i = 0; i < n; ++i) out[size_t(i)] = PAMIR_TYPE(c, handles[i]);
  return MPI_SUCCESS;
}

// One neighbourhood collective, its parts made: part k of `sblocks` goes to out_peers[k], part k of
// `rblocks` comes from in_peers[k]; receives are posted in recv_order (empty: as listed). `size` is
// what decides the size class; `types` the datatypes a nonblocking or persistent call keeps alive.
// request null: blocking; persistent: MPI_X_init.
struct NeighborCall {
  std::vector<coll::Block> sblocks, rblocks;
  std::vector<int> in_peers, out_peers, recv_order;
};
int launch_neighbor(Comm *c, const char *fn_, coll::Collective k, NeighborCall &&n, uint64_t size,
                    MPI_Request *request, bool persistent, std::vector<Datatype *> &types);

}  // namespace pamir::mpi
