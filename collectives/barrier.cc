// Barrier by dissemination (Hensgen, Finkel and Manber): in round k every rank signals rank + 2^k and
// waits for rank - 2^k (mod p). After ceil(log2 p) rounds every rank has heard, directly or through a
// chain, from every other, whatever p is.
//
// Cost: ceil(log2 p) * alpha (zero-byte messages; each round's send and receive overlap).
#include "collectives/coll.h"

namespace pamir::coll {

namespace {
constexpr int kTag = 1;
}  // namespace

int barrier(const Team &t) {
  const int p = t.size;
  for (int k = 1; k < p; k <<= 1) {
    const int to = (t.rank + k) % p;
    const int from = (t.rank - k + p) % p;
    if (int e = sendrecv(t, to, kTag, nullptr, 0, from, kTag, nullptr, 0)) return e;
  }
  return 0;
}

}  // namespace pamir::coll
