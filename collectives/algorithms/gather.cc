// Gather algorithms.
//
// binomial: up a binomial tree rooted at `root`. In ranks relative to the root (v = rank - root mod p), rank
// v collects the blocks of v .. v + s - 1 (s = its subtree size: the lowest set bit of v, capped at
// p - v) in one buffer, its own first, receiving each child's run of blocks straight into place, and
// sends the run to its parent in one message. The root receives straight into recvbuf, except for the
// one child run that wraps past rank p - 1, which it splits.
//
// Cost: ceil(log2 p) * alpha + (p-1) * n * beta at the root (n: bytes per rank). Scratch: the subtree's
// blocks on inner ranks.
//
// linear: every rank sends its block to the root, which receives them straight into place, a window
// of messages at a time. (p-1) * alpha at the root but no inner hops and no scratch: for large blocks,
// where the tree would move each block log p times.
#include <algorithm>
#include <cstring>

#include "collectives/algorithms/algorithms.h"
#include "collectives/scratch.h"
#include "pami/request.h"

namespace pamir::coll {

Task gather_binomial(Sched &s, Args a) {
  const int p = s.team.size, root = a.root;
  const size_t bytes = a.bytes;
  if (bytes == 0) co_return 0;
  auto *out = static_cast<unsigned char *>(a.recvbuf);
  const int v = (s.team.rank - root + p) % p;
  if (v == 0) {
    if (!a.in_place) std::memcpy(out + size_t(root) * bytes, a.sendbuf, bytes);
    const WrappedRun w = wrapped_run(p, root);
    Scratch tmp(size_t(w.cnt) * bytes);
    if (!tmp.get()) co_return int(Err::intern);
    for (int mask = 1; mask < p; mask <<= 1) {
      const int child = (mask + root) % p;  // its run: relative ranks mask .. mask + cnt - 1
      const size_t cnt = size_t(std::min(mask, p - mask));
      if (size_t(child) + cnt <= size_t(p)) {
        s.irecv(child, out + size_t(child) * bytes, cnt * bytes);
        continue;
      }
      // The run wraps past rank p - 1: received aside, split below.
      s.irecv(child, tmp.get(), cnt * bytes);
    }
    if (int e = co_await s.wait()) co_return e;
    if (w.cnt) {
      const size_t head = size_t(p - w.child);
      std::memcpy(out + size_t(w.child) * bytes, tmp.get(), head * bytes);
      std::memcpy(out, tmp.get() + head * bytes, (size_t(w.cnt) - head) * bytes);
    }
    co_return 0;
  }
  const int lowbit = v & -v;
  const int parent = (v - lowbit + root) % p;
  const int subtree = std::min(lowbit, p - v);
  if (subtree == 1) co_return co_await s.send(parent, a.sendbuf, bytes);
  Scratch tmp(size_t(subtree) * bytes);
  unsigned char *run = tmp.get();
  if (!run) co_return int(Err::intern);
  std::memcpy(run, a.sendbuf, bytes);
  for (int mask = 1; mask < subtree; mask <<= 1) {
    const size_t cnt = size_t(std::min(mask, subtree - mask));
    s.irecv((v + mask + root) % p, run + size_t(mask) * bytes, cnt * bytes);
  }
  if (int e = co_await s.wait()) co_return e;
  co_return co_await s.send(parent, run, size_t(subtree) * bytes);
}

Task gather_linear(Sched &s, Args a) {
  const int p = s.team.size, rank = s.team.rank, root = a.root;
  const size_t bytes = a.bytes;
  if (bytes == 0) co_return 0;
  if (rank != root) co_return co_await s.send(root, a.sendbuf, bytes);
  auto *out = static_cast<unsigned char *>(a.recvbuf);
  if (!a.in_place) std::memcpy(out + size_t(root) * bytes, a.sendbuf, bytes);
  int posted = 0;
  for (int r = 0; r < p; ++r) {
    if (r == root) continue;
    s.irecv(r, out + size_t(r) * bytes, bytes);
    if (++posted == Sched::kMaxPending) {
      posted = 0;
      if (int e = co_await s.wait()) co_return e;
    }
  }
  co_return co_await s.wait();
}

}  // namespace pamir::coll
