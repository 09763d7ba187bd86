// Allreduce by recursive doubling. With p = 2^k, in step j every rank exchanges its partial result with
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
// power of two. (Large vectors want Rabenseifner's reduce-scatter + allgather, which the collectives
// issue adds.) Scratch: one vector, on the stack up to 4 KiB.
#include <cstdlib>
#include <cstring>

#include "collectives/coll.h"
#include "collectives/scratch.h"
#include "pami/request.h"

namespace pamir::coll {

namespace {

constexpr int kTag = 4;

}  // namespace

int allreduce(const Team &t, const void *sendbuf, void *recvbuf, size_t count, const Reduction &op,
              bool in_place) {
  const int p = t.size, rank = t.rank;
  const size_t bytes = count * op.extent;
  if (!in_place && bytes) std::memcpy(recvbuf, sendbuf, bytes);
  if (p == 1 || count == 0) return 0;

  int pof2 = 1;
  while (pof2 * 2 <= p) pof2 *= 2;
  const int rem = p - pof2;

  Scratch s(bytes);
  unsigned char *acc = static_cast<unsigned char *>(recvbuf);
  unsigned char *tmp = s.get();
  if (!tmp) return int(Err::intern);

  // Fold in: among the first 2*rem ranks, the even ones hand their vector to the odd one above.
  int newrank;
  if (rank < 2 * rem) {
    if (rank % 2 == 0) {
      if (int e = send(t, rank + 1, kTag, acc, bytes)) return e;
      newrank = -1;
    } else {
      if (int e = recv(t, rank - 1, kTag, tmp, bytes)) return e;
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
      if (int e = sendrecv(t, dst, kTag, acc, bytes, dst, kTag, tmp, bytes)) return e;
      if (op.commutative || dst < rank) {
        op.apply(tmp, acc, count, op.arg);  // acc = theirs op mine
      } else {
        op.apply(acc, tmp, count, op.arg);  // tmp = mine op theirs
        unsigned char *x = acc;
        acc = tmp;
        tmp = x;
      }
    }
  }

  // Fold out: the odd ranks give the result back to the even ones below.
  if (rank < 2 * rem) {
    if (rank % 2 == 0) return recv(t, rank + 1, kTag, recvbuf, bytes);
    if (int e = send(t, rank - 1, kTag, acc, bytes)) return e;
  }
  if (acc != recvbuf) std::memcpy(recvbuf, acc, bytes);
  return 0;
}

}  // namespace pamir::coll
