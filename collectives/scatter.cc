// Scatter down a binomial tree rooted at `root`, the mirror of gather: in ranks relative to the root
// (v = rank - root mod p), rank v receives the blocks of its whole subtree (v .. v + s - 1) in one
// message, keeps the first and sends each child its run, largest first. The root sends straight from
// sendbuf, except for the one child run that wraps past rank p - 1, which it joins first.
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

constexpr int kTag = 6;

int highest_bit_below(int p) {
  int m = 1;
  while (m * 2 < p) m *= 2;
  return m;
}

}  // namespace

int scatter(const Team &t, const void *sendbuf, void *recvbuf, size_t bytes, int root, bool in_place) {
  const int p = t.size;
  if (bytes == 0) return 0;
  const int v = (t.rank - root + p) % p;
  if (v == 0) {
    const auto *in = static_cast<const unsigned char *>(sendbuf);
    for (int mask = p > 1 ? highest_bit_below(p) : 0; mask > 0; mask >>= 1) {
      const int child = (mask + root) % p;  // its run: relative ranks mask .. mask + cnt - 1
      const size_t cnt = size_t(std::min(mask, p - mask));
      if (size_t(child) + cnt <= size_t(p)) {
        if (int e = send(t, child, kTag, in + size_t(child) * bytes, cnt * bytes)) return e;
        continue;
      }
      // The run wraps past rank p - 1: join its two pieces.
      Scratch s(cnt * bytes);
      if (!s.get()) return int(Err::intern);
      const size_t head = size_t(p - child);
      std::memcpy(s.get(), in + size_t(child) * bytes, head * bytes);
      std::memcpy(s.get() + head * bytes, in, (cnt - head) * bytes);
      if (int e = send(t, child, kTag, s.get(), cnt * bytes)) return e;
    }
    if (!in_place) std::memcpy(recvbuf, in + size_t(root) * bytes, bytes);
    return 0;
  }
  const int lowbit = v & -v;
  const int parent = (v - lowbit + root) % p;
  const int subtree = std::min(lowbit, p - v);
  if (subtree == 1) return recv(t, parent, kTag, recvbuf, bytes);
  Scratch s(size_t(subtree) * bytes);
  unsigned char *run = s.get();
  if (!run) return int(Err::intern);
  if (int e = recv(t, parent, kTag, run, size_t(subtree) * bytes)) return e;
  for (int mask = lowbit >> 1; mask > 0; mask >>= 1) {
    if (mask >= subtree) continue;
    const size_t cnt = size_t(std::min(mask, subtree - mask));
    if (int e = send(t, (v + mask + root) % p, kTag, run + size_t(mask) * bytes, cnt * bytes)) return e;
  }
  std::memcpy(recvbuf, run, bytes);
  return 0;
}

}  // namespace pamir::coll
