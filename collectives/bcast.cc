// Broadcast down a binomial tree rooted at `root`. In ranks relative to the root (vr = rank - root mod
// p), a rank receives once from vr minus its lowest set bit, then sends to vr + 2^j for every 2^j below
// that bit, largest subtree first.
//
// Cost: ceil(log2 p) * (alpha + n*beta) on the critical path. (Large messages want scatter + allgather,
// which the collectives issue adds.)
#include "collectives/coll.h"

namespace pamir::coll {

namespace {
constexpr int kTag = 2;
}  // namespace

int bcast(const Team &t, void *buf, size_t bytes, int root) {
  const int p = t.size;
  if (p == 1 || bytes == 0) return 0;
  const int vr = (t.rank - root + p) % p;
  int mask = 1;
  while (mask < p) {
    if (vr & mask) {
      const int parent = (vr - mask + root) % p;
      if (int e = recv(t, parent, kTag, buf, bytes)) return e;
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (vr + mask < p)
      if (int e = send(t, (vr + mask + root) % p, kTag, buf, bytes)) return e;
  }
  return 0;
}

}  // namespace pamir::coll
