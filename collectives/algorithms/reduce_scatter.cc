// Reduce-scatter algorithms (MPI_Reduce_scatter and MPI_Reduce_scatter_block): the input is the
// concatenation of p blocks, block i of a.counts[i] elements, and rank i gets block i reduced over every
// rank. With in_place the input is recvbuf, and block `rank`'s result goes to its start.
//
// reduce_scatterv: a binomial reduce of the whole vector to rank 0 (rank order kept, so any
// operation), which then sends every rank its block. log p * (alpha + n*beta + n*gamma) + p * alpha:
// for small vectors. Scratch: the vector at rank 0 and on inner ranks of the tree.
//
// ring: in step k every rank passes its partial block rank - k - 1 on to the right and combines block
// rank - k - 2 from the left into its own; after p-1 steps it holds its own block finished. (p-1) *
// alpha + (p-1)/p * n * (beta + gamma): for large vectors. Blocks combine in ring order: needs a
// commutative operation. Scratch: the vector and the largest block.
#include <cstring>

#include "collectives/algorithms/algorithms.h"
#include "collectives/scratch.h"
#include "pami/request.h"

namespace pamir::coll {

namespace {

size_t total_of(const size_t *counts, int p) {
  size_t n = 0;
  for (int i = 0; i < p; ++i) n += counts[i];
  return n;
}

}  // namespace

Task reduce_scatter_reduce_scatterv(Sched &s, Args a) {
  const int p = s.team.size, rank = s.team.rank;
  const size_t ext = a.op.extent, total = total_of(a.counts, p);
  size_t first = 0;
  for (int i = 0; i < rank; ++i) first += a.counts[i];
  const void *input = a.in_place ? a.recvbuf : a.sendbuf;
  Scratch whole(rank == 0 ? total * ext : 0);
  if (!whole.get()) co_return int(Err::intern);
  Args r = a;
  r.sendbuf = input;
  r.recvbuf = whole.get();
  r.count = total;
  r.root = 0;
  r.in_place = false;
  if (int e = co_await reduce_binomial(s, r)) co_return e;
  if (rank != 0) {
    if (a.counts[rank] == 0) co_return 0;
    co_return co_await s.recv(0, a.recvbuf, a.counts[rank] * ext);
  }
  size_t off = a.counts[0];
  int posted = 0;
  for (int i = 1; i < p; ++i) {
    if (a.counts[i]) {
      s.isend(i, whole.get() + off * ext, a.counts[i] * ext);
      if (++posted == Sched::kMaxPending) {
        posted = 0;
        if (int e = co_await s.wait()) co_return e;
      }
    }
    off += a.counts[i];
  }
  if (a.counts[0]) std::memcpy(a.recvbuf, whole.get(), a.counts[0] * ext);
  co_return co_await s.wait();
}

Task reduce_scatter_ring(Sched &s, Args a) {
  const int p = s.team.size, rank = s.team.rank;
  const Reduction &op = a.op;
  const size_t ext = op.extent, total = total_of(a.counts, p);
  const void *input = a.in_place ? a.recvbuf : a.sendbuf;
  if (p == 1) {
    if (!a.in_place && total) std::memcpy(a.recvbuf, input, total * ext);
    co_return 0;
  }
  size_t biggest = 0;
  for (int i = 0; i < p; ++i) biggest = a.counts[i] > biggest ? a.counts[i] : biggest;
  Scratch s1(total * ext), s2(biggest * ext);
  unsigned char *acc = s1.get(), *tmp = s2.get();
  if (!acc || !tmp) co_return int(Err::intern);
  if (total) std::memcpy(acc, input, total * ext);
  // A block's first element: O(p) each, O(p^2) a call, nothing beside the p-1 messages.
  auto start = [&](int b) {
    size_t off = 0;
    for (int i = 0; i < b; ++i) off += a.counts[i];
    return off;
  };
  const int right = (rank + 1) % p, left = (rank - 1 + p) % p;
  for (int k = 0; k < p - 1; ++k) {
    const int sb = ((rank - k - 1) % p + p) % p, rb = ((rank - k - 2) % p + p) % p;
    if (int e = co_await s.sendrecv(right, acc + start(sb) * ext, a.counts[sb] * ext, left, tmp,
                                    a.counts[rb] * ext))
      co_return e;
    op.apply(tmp, acc + start(rb) * ext, a.counts[rb], op.arg);
  }
  if (a.counts[rank]) std::memcpy(a.recvbuf, acc + start(rank) * ext, a.counts[rank] * ext);
  co_return 0;
}

}  // namespace pamir::coll
