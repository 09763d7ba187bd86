// Scatter algorithms.
//
// binomial: down a binomial tree rooted at `root`, the mirror of gather: in ranks relative to the root
// (v = rank - root mod p), rank v receives the blocks of its whole subtree (v .. v + s - 1) in one
// message, keeps the first and sends each child its run, largest first. The root sends straight from
// sendbuf, except for the one child run that wraps past rank p - 1, which it joins first.
//
// Cost: ceil(log2 p) * alpha + (p-1) * n * beta at the root (n: bytes per rank). Scratch: the subtree's
// blocks on inner ranks.
//
// linear: the root sends every rank its block straight from sendbuf, a window of messages at a time.
// (p-1) * alpha at the root, no inner hops and no scratch: for large blocks.
#include <algorithm>
#include <cstring>

#include "collectives/algorithms/algorithms.h"
#include "collectives/scratch.h"
#include "pami/request.h"

namespace pamir::coll {

namespace {
int highest_bit_below(int p) {
  int m = 1;
  while (m * 2 < p) m *= 2;
  return m;
}
}  // namespace

Task scatter_binomial(Sched &s, Args a) {
  const int p = s.team.size, root = a.root;
  const size_t bytes = a.bytes;
  if (bytes == 0) co_return 0;
  const int v = (s.team.rank - root + p) % p;
  if (v == 0) {
    const auto *in = static_cast<const unsigned char *>(a.sendbuf);
    Scratch tmp(size_t(wrapped_run(p, root).cnt) * bytes);
    for (int mask = p > 1 ? highest_bit_below(p) : 0; mask > 0; mask >>= 1) {
      const int child = (mask + root) % p;  // its run: relative ranks mask .. mask + cnt - 1
      const size_t cnt = size_t(std::min(mask, p - mask));
      if (size_t(child) + cnt <= size_t(p)) {
        s.isend(child, in + size_t(child) * bytes, cnt * bytes);
        continue;
      }
      // The run wraps past rank p - 1: join its two pieces.
      if (!tmp.get()) co_return int(Err::intern);
      const size_t head = size_t(p - child);
      std::memcpy(tmp.get(), in + size_t(child) * bytes, head * bytes);
      std::memcpy(tmp.get() + head * bytes, in, (cnt - head) * bytes);
      s.isend(child, tmp.get(), cnt * bytes);
    }
    if (!a.in_place) std::memcpy(a.recvbuf, in + size_t(root) * bytes, bytes);
    co_return co_await s.wait();
  }
  const int lowbit = v & -v;
  const int parent = (v - lowbit + root) % p;
  const int subtree = std::min(lowbit, p - v);
  if (subtree == 1) co_return co_await s.recv(parent, a.recvbuf, bytes);
  Scratch tmp(size_t(subtree) * bytes);
  unsigned char *run = tmp.get();
  if (!run) co_return int(Err::intern);
  if (int e = co_await s.recv(parent, run, size_t(subtree) * bytes)) co_return e;
  for (int mask = lowbit >> 1; mask > 0; mask >>= 1) {
    if (mask >= subtree) continue;
    const size_t cnt = size_t(std::min(mask, subtree - mask));
    s.isend((v + mask + root) % p, run + size_t(mask) * bytes, cnt * bytes);
  }
  if (int e = co_await s.wait()) co_return e;
  std::memcpy(a.recvbuf, run, bytes);
  co_return 0;
}

Task scatter_linear(Sched &s, Args a) {
  const int p = s.team.size, rank = s.team.rank, root = a.root;
  const size_t bytes = a.bytes;
  if (bytes == 0) co_return 0;
  if (rank != root) co_return co_await s.recv(root, a.recvbuf, bytes);
  const auto *in = static_cast<const unsigned char *>(a.sendbuf);
  int posted = 0;
  for (int r = 0; r < p; ++r) {
    if (r == root) continue;
    s.isend(r, in + size_t(r) * bytes, bytes);
    if (++posted == Sched::kMaxPending) {
      posted = 0;
      if (int e = co_await s.wait()) co_return e;
    }
  }
  if (!a.in_place) std::memcpy(a.recvbuf, in + size_t(root) * bytes, bytes);
  co_return co_await s.wait();
}

}  // namespace pamir::coll
