// The v-collectives: MPI_Gatherv, MPI_Scatterv, MPI_Allgatherv, MPI_Alltoallv and MPI_Alltoallw. Every
// part is a Block that may carry a datatype layout, so the messages move non-contiguous parts straight
// between the two layouts (seed 003) and a rank's own part goes through a message to itself. Parts
// differ in size, which is why these are their own collectives: no algorithm can split or join parts
// it does not know the sizes of (a non-root rank of gatherv knows only its own).
//
// gatherv/scatterv linear: the root posts one message per rank, a window at a time.
// allgatherv ring: in step k every rank passes part rank - k on to the right, straight from its receive
// buffer, and takes part rank - k - 1 from the left: (p-1) steps, no scratch.
// allgatherv linear: every rank sends its part to every other and receives theirs, a window at a time.
// alltoallv (and w) pairwise: in step k rank r sends to r + k and receives from r - k.
// alltoallv (and w) linear: every message posted at once, a window at a time.
//
// In place (gatherv at the root, scatterv at the root, allgatherv) the rank's own part is already where
// it belongs; alltoallv/w in place is turned into the ordinary form by the MPI binding, which packs the
// receive buffer's parts first.
#include "collectives/algorithms/algorithms.h"

namespace pamir::coll {

namespace {
constexpr int kWindow = Sched::kMaxPending / 2;
}  // namespace

namespace {

// Gatherv (gather true) and scatterv, which mirror each other: the root's p parts (`many`) and each
// rank's one part (`one`), moved to the root or from it.
Task rooted_linear(Sched &s, Args a, bool gather) {
  const int p = s.team.size, rank = s.team.rank, root = a.root;
  const Block *many = gather ? a.rblocks : a.sblocks, *one = gather ? a.sblocks : a.rblocks;
  if (rank != root) {
    if (one[0].bytes == 0) co_return 0;
    if (gather) co_return co_await s.send(root, one[0]);
    co_return co_await s.recv(root, one[0]);
  }
  if (!a.in_place) {
    s.irecv(rank, gather ? many[rank] : one[0]);
    s.isend(rank, gather ? one[0] : many[rank]);
  }
  int posted = 0;
  for (int r = 0; r < p; ++r) {
    if (r == root || many[r].bytes == 0) continue;
    if (gather)
      s.irecv(r, many[r]);
    else
      s.isend(r, many[r]);
    if (++posted == kWindow * 2 - 2) {
      posted = 0;
      if (int e = co_await s.wait()) co_return e;
    }
  }
  co_return co_await s.wait();
}

}  // namespace

Task gatherv_linear(Sched &s, Args a) {
  return rooted_linear(s, a, true);
}

Task scatterv_linear(Sched &s, Args a) {
  return rooted_linear(s, a, false);
}

Task allgatherv_ring(Sched &s, Args a) {
  const int p = s.team.size, rank = s.team.rank;
  if (!a.in_place) {
    s.irecv(rank, a.rblocks[rank]);
    s.isend(rank, a.sblocks[0]);
    if (int e = co_await s.wait()) co_return e;
  }
  const int right = (rank + 1) % p, left = (rank - 1 + p) % p;
  for (int k = 0; k < p - 1; ++k) {
    const int sb = (rank - k + p) % p, rb = (rank - k - 1 + p) % p;
    if (a.rblocks[rb].bytes) s.irecv(left, a.rblocks[rb]);
    if (a.rblocks[sb].bytes) s.isend(right, a.rblocks[sb]);
    if (int e = co_await s.wait()) co_return e;
  }
  co_return 0;
}

Task allgatherv_linear(Sched &s, Args a) {
  const int p = s.team.size, rank = s.team.rank;
  const Block &mine = a.in_place ? a.rblocks[rank] : a.sblocks[0];
  if (!a.in_place) {
    s.irecv(rank, a.rblocks[rank]);
    s.isend(rank, mine);
  }
  for (int k = 1; k < p; ++k) {
    const int dst = (rank + k) % p, src = (rank - k + p) % p;
    if (a.rblocks[src].bytes) s.irecv(src, a.rblocks[src]);
    if (mine.bytes) s.isend(dst, mine);
    if (k % (kWindow - 1) == 0)
      if (int e = co_await s.wait()) co_return e;
  }
  co_return co_await s.wait();
}

Task alltoallv_pairwise(Sched &s, Args a) {
  const int p = s.team.size, rank = s.team.rank;
  for (int k = 0; k < p; ++k) {
    const int dst = (rank + k) % p, src = (rank - k + p) % p;
    if (a.rblocks[src].bytes) s.irecv(src, a.rblocks[src]);
    if (a.sblocks[dst].bytes) s.isend(dst, a.sblocks[dst]);
    if (int e = co_await s.wait()) co_return e;
  }
  co_return 0;
}

Task alltoallv_linear(Sched &s, Args a) {
  const int p = s.team.size, rank = s.team.rank;
  for (int k = 0; k < p; ++k) {
    const int dst = (rank + k) % p, src = (rank - k + p) % p;
    if (a.rblocks[src].bytes) s.irecv(src, a.rblocks[src]);
    if (a.sblocks[dst].bytes) s.isend(dst, a.sblocks[dst]);
    if ((k + 1) % kWindow == 0)
      if (int e = co_await s.wait()) co_return e;
  }
  co_return co_await s.wait();
}

}  // namespace pamir::coll
