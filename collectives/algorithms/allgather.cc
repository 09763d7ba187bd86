// Allgather algorithms.
//
// ring: in step s (0 .. p-2) every rank passes the block it received last (its own
// first) to rank + 1 and receives block rank - s - 1 from rank - 1, straight into place in recvbuf.
// Bandwidth-optimal and correct for any p; no scratch.
//
// Cost: (p-1) * (alpha + n*beta) (n: bytes per rank): for large blocks.
//
// recursive_doubling (p a power of two): in step j every rank swaps the 2^j blocks its half of the
// exchange holds with rank XOR 2^j, straight into place. log2 p * alpha + (p-1) * n * beta.
//
// bruck: any p. Each rank keeps its blocks rotated so that its own comes first; in step j it sends its
// first min(2^j, p - 2^j) blocks to rank - 2^j and appends as many from rank + 2^j, then rotates them
// into place. ceil(log2 p) * alpha + (p-1) * n * beta, plus a copy of p blocks: for small blocks when
// p is not a power of two. Scratch: p blocks.
#include <cstring>

#include "collectives/algorithms/algorithms.h"
#include "collectives/scratch.h"
#include "pami/request.h"

namespace pamir::coll {

Task allgather_ring(Sched &s, Args a) {
  const int p = s.team.size, rank = s.team.rank;
  const size_t bytes = a.bytes;
  if (bytes == 0) co_return 0;
  auto *out = static_cast<unsigned char *>(a.recvbuf);
  if (!a.in_place) std::memcpy(out + size_t(rank) * bytes, a.sendbuf, bytes);
  const int right = (rank + 1) % p, left = (rank - 1 + p) % p;
  for (int k = 0; k < p - 1; ++k) {
    const int sblock = (rank - k + p) % p;
    const int rblock = (rank - k - 1 + p) % p;
    if (int e = co_await s.sendrecv(right, out + size_t(sblock) * bytes, bytes, left,
                                    out + size_t(rblock) * bytes, bytes))
      co_return e;
  }
  co_return 0;
}

Task allgather_recursive_doubling(Sched &s, Args a) {
  const int p = s.team.size, rank = s.team.rank;
  const size_t bytes = a.bytes;
  if (bytes == 0) co_return 0;
  auto *out = static_cast<unsigned char *>(a.recvbuf);
  if (!a.in_place) std::memcpy(out + size_t(rank) * bytes, a.sendbuf, bytes);
  for (int mask = 1; mask < p; mask <<= 1) {
    const int peer = rank ^ mask;
    const size_t mine = size_t(rank & ~(mask - 1)), theirs = size_t(peer & ~(mask - 1));
    if (int e = co_await s.sendrecv(peer, out + mine * bytes, size_t(mask) * bytes, peer,
                                    out + theirs * bytes, size_t(mask) * bytes))
      co_return e;
  }
  co_return 0;
}

Task allgather_bruck(Sched &s, Args a) {
  const int p = s.team.size, rank = s.team.rank;
  const size_t bytes = a.bytes;
  if (bytes == 0) co_return 0;
  auto *out = static_cast<unsigned char *>(a.recvbuf);
  Scratch scratch(size_t(p) * bytes);
  unsigned char *tmp = scratch.get();
  if (!tmp) co_return int(Err::intern);
  // tmp block i is the block of rank + i.
  std::memcpy(tmp, a.in_place ? out + size_t(rank) * bytes : a.sendbuf, bytes);
  for (int d = 1; d < p; d <<= 1) {
    const size_t cnt = size_t(d < p - d ? d : p - d);
    if (int e = co_await s.sendrecv((rank - d + p) % p, tmp, cnt * bytes, (rank + d) % p,
                                    tmp + size_t(d) * bytes, cnt * bytes))
      co_return e;
  }
  const size_t head = size_t(p - rank);  // blocks rank .. p-1
  std::memcpy(out + size_t(rank) * bytes, tmp, head * bytes);
  std::memcpy(out, tmp + head * bytes, size_t(rank) * bytes);
  co_return 0;
}

}  // namespace pamir::coll
