// Allreduce algorithms.
//
// recursive_doubling: with p = 2^k, in step j every rank exchanges its partial result with
// rank XOR 2^j and combines the two; after k steps every rank holds the whole reduction. For other p,
// with p' the largest power of two below p and r = p - p', the first 2r ranks fold in pairwise first
// (each even rank gives its vector to the odd rank above it and sits out), p' ranks run the exchange,
// and the even ranks get the result back at the end.
//
// Every partial result covers a contiguous run of ranks (the folded pairs are adjacent), so combining
// with the lower run on the left keeps MPI's rank order: the same code serves non-commutative
// operations, and every rank combines the same runs in the same grouping.
//
// Cost: ceil(log2 p) * (alpha + n*beta + n*gamma), plus 2*(alpha + n*beta) + n*gamma when p is not a
// power of two. Scratch: one vector. The choice for small vectors.
//
// ring: a reduce-scatter around the ring (in step k every rank passes its partial block rank - k on to
// the right and combines block rank - k - 1 from the left into its own), then an allgather around the
// ring of the finished blocks. 2 * (p-1)/p * n * beta + (p-1)/p * n * gamma + 2 * (p-1) * alpha: the
// least data per rank, for large vectors. Blocks are combined in ring order, not rank order, so it
// needs a commutative operation. Scratch: one block.
//
// reduce_bcast: a binomial reduce to rank 0, then a binomial broadcast. Twice recursive doubling's
// latency, but every rank sends each vector at most once per phase: on oversubscribed cores, where an
// exchange makes both partners runnable at once, the tree wakes fewer ranks.
#include <cstring>
#include <utility>

#include "collectives/algorithms/algorithms.h"
#include "collectives/scratch.h"
#include "pami/request.h"

namespace pamir::coll {

Task allreduce_recursive_doubling(Sched &s, Args a) {
  const int p = s.team.size, rank = s.team.rank;
  const Reduction &op = a.op;
  const size_t count = a.count, bytes = count * op.extent;
  if (!a.in_place && bytes) std::memcpy(a.recvbuf, a.sendbuf, bytes);
  if (p == 1 || count == 0) co_return 0;

  int pof2 = 1;
  while (pof2 * 2 <= p) pof2 *= 2;
  const int rem = p - pof2;

  Scratch scratch(bytes);
  auto *acc = static_cast<unsigned char *>(a.recvbuf);
  unsigned char *tmp = scratch.get();
  if (!tmp) co_return int(Err::intern);

  // Fold in: among the first 2*rem ranks, the even ones hand their vector to the odd one above.
  int newrank;
  if (rank < 2 * rem) {
    if (rank % 2 == 0) {
      if (int e = co_await s.send(rank + 1, acc, bytes)) co_return e;
      newrank = -1;
    } else {
      if (int e = co_await s.recv(rank - 1, tmp, bytes)) co_return e;
      op.apply(tmp, acc, count, op.arg);  // acc = x(rank-1) op x(rank)
      newrank = rank / 2;
    }
  } else {
    newrank = rank - rem;
  }

  if (newrank >= 0) {
    for (int mask = 1; mask < pof2; mask <<= 1) {
      const int newdst = newrank ^ mask;
      const int dst = newdst < rem ? newdst * 2 + 1 : newdst + rem;
      if (int e = co_await s.sendrecv(dst, acc, bytes, dst, tmp, bytes)) co_return e;
      if (op.commutative || dst < rank) {
        op.apply(tmp, acc, count, op.arg);  // acc = theirs op mine
      } else {
        op.apply(acc, tmp, count, op.arg);  // tmp = mine op theirs
        std::swap(acc, tmp);
      }
    }
  }

  // Fold out: the odd ranks give the result back to the even ones below.
  if (rank < 2 * rem) {
    if (rank % 2 == 0) co_return co_await s.recv(rank + 1, a.recvbuf, bytes);
    if (int e = co_await s.send(rank - 1, acc, bytes)) co_return e;
  }
  if (acc != a.recvbuf) std::memcpy(a.recvbuf, acc, bytes);
  co_return 0;
}

Task allreduce_ring(Sched &s, Args a) {
  const int p = s.team.size, rank = s.team.rank;
  const Reduction &op = a.op;
  const size_t count = a.count, ext = op.extent;
  auto *buf = static_cast<unsigned char *>(a.recvbuf);
  if (!a.in_place && count) std::memcpy(buf, a.sendbuf, count * ext);
  if (p == 1 || count == 0) co_return 0;
  // Block b: elements block_start(count, p, b) .. block_start(count, p, b + 1).
  auto first = [&](int b) { return block_start(count, p, b); };
  auto len = [&](int b) { return first(b + 1) - first(b); };
  Scratch scratch((count / size_t(p) + 1) * ext);
  unsigned char *tmp = scratch.get();
  if (!tmp) co_return int(Err::intern);
  const int right = (rank + 1) % p, left = (rank - 1 + p) % p;
  for (int k = 0; k < p - 1; ++k) {
    const int sb = (rank - k + p) % p, rb = (rank - k - 1 + p) % p;
    if (int e = co_await s.sendrecv(right, buf + first(sb) * ext, len(sb) * ext, left, tmp, len(rb) * ext))
      co_return e;
    op.apply(tmp, buf + first(rb) * ext, len(rb), op.arg);
  }
  // Rank r now holds block r + 1 reduced over every rank; pass the finished blocks around.
  for (int k = 0; k < p - 1; ++k) {
    const int sb = (rank + 1 - k + p) % p, rb = (rank - k + p) % p;
    if (int e = co_await s.sendrecv(right, buf + first(sb) * ext, len(sb) * ext, left, buf + first(rb) * ext,
                                    len(rb) * ext))
      co_return e;
  }
  co_return 0;
}

Task allreduce_reduce_bcast(Sched &s, Args a) {
  Args r = a;
  r.root = 0;
  if (a.in_place && s.team.rank != 0) {
    r.sendbuf = a.recvbuf;  // a non-root's contribution is its receive buffer
    r.in_place = false;
  }
  if (int e = co_await reduce_binomial(s, r)) co_return e;
  Args b;
  b.recvbuf = a.recvbuf;
  b.bytes = a.count * a.op.extent;
  co_return co_await bcast_binomial(s, b);
}

}  // namespace pamir::coll
