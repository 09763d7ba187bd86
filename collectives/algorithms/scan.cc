// Scan and exscan algorithms. Both keep MPI's rank order, so they serve non-commutative operations.
//
// recursive_doubling: in step j every rank swaps its partial result (the reduction of a run of 2^j ranks
// ending or starting with it) with rank XOR 2^j; a partial from a lower rank combines on the left of the
// result, and of the partial; one from a higher rank only on the right of the partial. ceil(log2 p) *
// (alpha + n*beta + 2n*gamma). Scratch: two vectors.
//
// linear: a chain: rank r receives the prefix of ranks 0 .. r-1 from r-1, combines its own and sends the
// prefix on. (p-1) * (alpha + n*beta + n*gamma) on the last rank, but each rank sends once: for few ranks
// on few cores.
#include <cstring>
#include <utility>

#include "collectives/algorithms/algorithms.h"
#include "collectives/scratch.h"
#include "pami/request.h"

namespace pamir::coll {

namespace {

// exclusive: MPI_Exscan (rank 0's recvbuf is left alone).
Task scan_doubling(Sched &s, Args a, bool exclusive) {
  const int p = s.team.size, rank = s.team.rank;
  const Reduction &op = a.op;
  const size_t count = a.count, bytes = count * op.extent;
  const void *mine = a.in_place ? a.recvbuf : a.sendbuf;
  if (count == 0) co_return 0;
  Scratch s1(bytes), s2(bytes);
  unsigned char *partial = s1.get(), *tmp = s2.get();
  if (!partial || !tmp) co_return int(Err::intern);
  std::memcpy(partial, mine, bytes);
  auto *out = static_cast<unsigned char *>(a.recvbuf);
  if (!exclusive && !a.in_place) std::memcpy(out, mine, bytes);
  bool have = !exclusive;  // whether out holds a value yet (exscan: not before the first lower partial)
  for (int mask = 1; mask < p; mask <<= 1) {
    const int dst = rank ^ mask;
    if (dst >= p) continue;
    if (int e = co_await s.sendrecv(dst, partial, bytes, dst, tmp, bytes)) co_return e;
    if (dst < rank) {
      if (have) {
        op.apply(tmp, out, count, op.arg);  // out = theirs op out
      } else {
        std::memcpy(out, tmp, bytes);
        have = true;
      }
      op.apply(tmp, partial, count, op.arg);  // partial = theirs op partial
    } else if (op.commutative) {
      op.apply(tmp, partial, count, op.arg);
    } else {
      op.apply(partial, tmp, count, op.arg);  // tmp = partial op theirs
      std::swap(partial, tmp);
    }
  }
  co_return 0;
}

Task scan_chain(Sched &s, Args a, bool exclusive) {
  const int p = s.team.size, rank = s.team.rank;
  const Reduction &op = a.op;
  const size_t count = a.count, bytes = count * op.extent;
  if (count == 0) co_return 0;
  const void *mine = a.in_place ? a.recvbuf : a.sendbuf;
  auto *out = static_cast<unsigned char *>(a.recvbuf);
  Scratch s1(bytes);
  unsigned char *prefix = s1.get();  // the prefix this rank passes on
  if (!prefix) co_return int(Err::intern);
  if (rank == 0) {
    std::memcpy(prefix, mine, bytes);
    if (!exclusive && !a.in_place) std::memcpy(out, mine, bytes);
  } else {
    // out receives the prefix of the ranks below; mine (possibly out itself) is saved first.
    std::memcpy(prefix, mine, bytes);
    Scratch s2(bytes);
    if (!s2.get()) co_return int(Err::intern);
    if (int e = co_await s.recv(rank - 1, s2.get(), bytes)) co_return e;
    op.apply(s2.get(), prefix, count, op.arg);  // prefix = below op mine
    std::memcpy(out, exclusive ? s2.get() : prefix, bytes);
  }
  if (rank + 1 < p) co_return co_await s.send(rank + 1, prefix, bytes);
  co_return 0;
}

}  // namespace

Task scan_recursive_doubling(Sched &s, Args a) {
  return scan_doubling(s, a, false);
}
Task scan_linear(Sched &s, Args a) {
  return scan_chain(s, a, false);
}
Task exscan_recursive_doubling(Sched &s, Args a) {
  return scan_doubling(s, a, true);
}
Task exscan_linear(Sched &s, Args a) {
  return scan_chain(s, a, true);
}

}  // namespace pamir::coll
