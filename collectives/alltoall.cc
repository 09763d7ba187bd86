// Alltoall by pairwise exchange: in step s (1 .. p-1) every rank sends its block for rank + s and
// receives the block of rank - s, so each step is a permutation and no rank is hit twice at once.
//
// In place (sendbuf is recvbuf) a rank must not overwrite a block before sending it, so the steps pair
// ranks instead (the round-robin "circle" schedule, with an idle rank per round when p is odd): in
// each of the p-1 (p odd: p) rounds a rank swaps one block with one partner through a one-block scratch.
//
// Cost: (p-1) * (alpha + n*beta) (n: bytes per pair), plus a copy of n per round in place.
#include <cstdlib>
#include <cstring>

#include "collectives/coll.h"
#include "collectives/scratch.h"
#include "pami/request.h"

namespace pamir::coll {

namespace {

constexpr int kTag = 8;

// The partner of rank i in round r of the circle schedule over P (even) players; >= p means idle.
int partner(int i, int r, int P) {
  const int n = P - 1;                                 // odd
  if (i == n) return int((int64_t(r) * (P / 2)) % n);  // the j with 2j = r (mod n)
  const int j = ((r - i) % n + n) % n;
  return j == i ? n : j;
}

}  // namespace

int alltoall(const Team &t, const void *sendbuf, void *recvbuf, size_t bytes, bool in_place) {
  const int p = t.size, rank = t.rank;
  if (bytes == 0) return 0;
  auto *out = static_cast<unsigned char *>(recvbuf);
  if (!in_place) {
    const auto *in = static_cast<const unsigned char *>(sendbuf);
    std::memcpy(out + size_t(rank) * bytes, in + size_t(rank) * bytes, bytes);
    for (int s = 1; s < p; ++s) {
      const int dst = (rank + s) % p, src = (rank - s + p) % p;
      if (int e = sendrecv(t, dst, kTag, in + size_t(dst) * bytes, bytes, src, kTag,
                           out + size_t(src) * bytes, bytes))
        return e;
    }
    return 0;
  }
  if (p == 1) return 0;
  Scratch s(bytes);
  if (!s.get()) return int(Err::intern);
  const int P = p % 2 == 0 ? p : p + 1;
  for (int r = 0; r < P - 1; ++r) {
    const int peer = partner(rank, r, P);
    if (peer >= p) continue;
    unsigned char *block = out + size_t(peer) * bytes;
    std::memcpy(s.get(), block, bytes);
    if (int e = sendrecv(t, peer, kTag, s.get(), bytes, peer, kTag, block, bytes)) return e;
  }
  return 0;
}

}  // namespace pamir::coll
