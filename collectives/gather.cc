// Gather up a binomial tree rooted at `root`. In ranks relative to the root (v = rank - root mod p), rank
// v collects the blocks of v .. v + s - 1 (s = its subtree size: the lowest set bit of v, capped at
// p - v) in one buffer, its own first, receiving each child's run of blocks straight into place, and
// sends the run to its parent in one message. The root receives straight into recvbuf, except for the
// one child run that wraps past rank p - 1, which it splits.
//
// Cost: ceil(log2 p) * alpha + (p-1) * n * beta at the root (n: bytes per rank). Scratch: the subtree's
// blocks on inner ranks (stack up to 4 KiB).
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "collectives/coll.h"
#include "collectives/scratch.h"
#include "pami/request.h"

namespace pamir::coll {

namespace {

constexpr int kTag = 5;

}  // namespace

int gather(const Team &t, const void *sendbuf, void *recvbuf, size_t bytes, int root, bool in_place) {
  const int p = t.size;
  if (bytes == 0) return 0;
  auto *out = static_cast<unsigned char *>(recvbuf);
  const int v = (t.rank - root + p) % p;
  if (v == 0) {
    if (!in_place) std::memcpy(out + size_t(root) * bytes, sendbuf, bytes);
    for (int mask = 1; mask < p; mask <<= 1) {
      const int child = (mask + root) % p;  // its run: relative ranks mask .. mask + cnt - 1
      const size_t cnt = size_t(std::min(mask, p - mask));
      if (size_t(child) + cnt <= size_t(p)) {
        if (int e = recv(t, child, kTag, out + size_t(child) * bytes, cnt * bytes)) return e;
        continue;
      }
      // The run wraps past rank p - 1: receive it aside and split it.
      Scratch s(cnt * bytes);
      if (!s.get()) return int(Err::intern);
      if (int e = recv(t, child, kTag, s.get(), cnt * bytes)) return e;
      const size_t head = size_t(p - child);
      std::memcpy(out + size_t(child) * bytes, s.get(), head * bytes);
      std::memcpy(out, s.get() + head * bytes, (cnt - head) * bytes);
    }
    return 0;
  }
  const int lowbit = v & -v;
  const int parent = (v - lowbit + root) % p;
  const int subtree = std::min(lowbit, p - v);
  if (subtree == 1) return send(t, parent, kTag, sendbuf, bytes);
  Scratch s(size_t(subtree) * bytes);
  unsigned char *run = s.get();
  if (!run) return int(Err::intern);
  std::memcpy(run, sendbuf, bytes);
  for (int mask = 1; mask < subtree; mask <<= 1) {
    const size_t cnt = size_t(std::min(mask, subtree - mask));
    if (int e = recv(t, (v + mask + root) % p, kTag, run + size_t(mask) * bytes, cnt * bytes)) return e;
  }
  return send(t, parent, kTag, run, size_t(subtree) * bytes);
}

}  // namespace pamir::coll
