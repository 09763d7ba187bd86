// Allgather around a ring: in step s (0 .. p-2) every rank passes the block it received last (its own
// first) to rank + 1 and receives block rank - s - 1 from rank - 1, straight into place in recvbuf.
// Bandwidth-optimal and correct for any p; no scratch.
//
// Cost: (p-1) * (alpha + n*beta) (n: bytes per rank). (Small blocks want recursive doubling or Bruck's
// log p rounds, which the collectives issue adds.)
#include <cstring>

#include "collectives/coll.h"

namespace pamir::coll {

namespace {
constexpr int kTag = 7;
}  // namespace

int allgather(const Team &t, const void *sendbuf, void *recvbuf, size_t bytes, bool in_place) {
  const int p = t.size, rank = t.rank;
  if (bytes == 0) return 0;
  auto *out = static_cast<unsigned char *>(recvbuf);
  if (!in_place) std::memcpy(out + size_t(rank) * bytes, sendbuf, bytes);
  const int right = (rank + 1) % p, left = (rank - 1 + p) % p;
  for (int s = 0; s < p - 1; ++s) {
    const int sblock = (rank - s + p) % p;
    const int rblock = (rank - s - 1 + p) % p;
    if (int e = sendrecv(t, right, kTag, out + size_t(sblock) * bytes, bytes, left, kTag,
                         out + size_t(rblock) * bytes, bytes))
      return e;
  }
  return 0;
}

}  // namespace pamir::coll
