// Broadcast algorithms. Ranks are relative to the root (v = rank - root mod p) throughout.
//
// binomial: rank v receives once from v minus its lowest set bit, then sends to v + 2^j for every 2^j
// below that bit, largest subtree first. ceil(log2 p) * (alpha + n*beta) on the critical path: the
// choice for small messages.
//
// scatter_allgather (van de Geijn): the message is cut into p blocks; a binomial scatter gives rank v
// block v, then a ring allgather passes every block around. 2 * (p-1)/p * n * beta + (log p + p - 1)
// * alpha: no rank sends more than about 2n, so large messages to many ranks do not queue behind the
// root's link.
//
// chain: the ranks form a chain from the root (relative rank order) and the message flows down it in
// 64 KiB segments, each rank passing segment k on while segment k+1 is on its way:
// (p - 2 + n/S) * (alpha + S*beta) for segments of S bytes, close to n*beta when n is much larger than
// p*S. Every rank sends at most n once.
#include <algorithm>

#include "collectives/algorithms/algorithms.h"

namespace pamir::coll {

Task bcast_binomial(Sched &s, Args a) {
  const int p = s.team.size, root = a.root;
  if (p == 1 || a.bytes == 0) co_return 0;
  const int vr = (s.team.rank - root + p) % p;
  int mask = 1;
  while (mask < p) {
    if (vr & mask) {
      if (int e = co_await s.recv((vr - mask + root) % p, a.recvbuf, a.bytes)) co_return e;
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (vr + mask < p) s.isend((vr + mask + root) % p, a.recvbuf, a.bytes);
  co_return co_await s.wait();
}

Task bcast_scatter_allgather(Sched &s, Args a) {
  const int p = s.team.size, root = a.root;
  if (p == 1 || a.bytes == 0) co_return 0;
  const int vr = (s.team.rank - root + p) % p;
  auto *buf = static_cast<unsigned char *>(a.recvbuf);
  const size_t n = a.bytes;
  auto at = [&](int block) { return block_start(n, p, std::min(block, p)); };
  auto real = [&](int v) { return (v + root) % p; };

  // Scatter: rank v receives the blocks of its subtree (v .. v + lowbit(v) - 1, capped at p) in one
  // message and hands each child its run.
  int lowbit = p;  // the root's "lowest bit" is above every child
  if (vr != 0) {
    lowbit = vr & -vr;
    const int end = std::min(vr + lowbit, p);
    if (int e = co_await s.recv(real(vr - lowbit), buf + at(vr), at(end) - at(vr))) co_return e;
  }
  int top = 1;
  while (top < lowbit && top < p) top <<= 1;
  for (int mask = top >> 1; mask > 0; mask >>= 1) {
    const int child = vr + mask;
    if (child >= p || mask >= lowbit) continue;
    const int end = std::min(child + mask, p);
    s.isend(real(child), buf + at(child), at(end) - at(child));
  }
  if (int e = co_await s.wait()) co_return e;

  // Ring allgather: in step k, pass on block v - k and take block v - k - 1 from the left.
  const int right = real((vr + 1) % p), left = real((vr - 1 + p) % p);
  for (int k = 0; k < p - 1; ++k) {
    const int sb = (vr - k + p) % p, rb = (vr - k - 1 + p) % p;
    if (int e = co_await s.sendrecv(right, buf + at(sb), at(sb + 1) - at(sb), left, buf + at(rb),
                                    at(rb + 1) - at(rb)))
      co_return e;
  }
  co_return 0;
}

Task bcast_chain(Sched &s, Args a) {
  constexpr size_t kSegment = 64 * 1024;
  constexpr size_t kSendWindow = Sched::kMaxPending / 2;  // segments sent before waiting for them
  const int p = s.team.size, root = a.root;
  if (p == 1 || a.bytes == 0) co_return 0;
  const int vr = (s.team.rank - root + p) % p;
  const int prev = (vr - 1 + root + p) % p, next = (vr + 1 + root) % p;
  auto *buf = static_cast<unsigned char *>(a.recvbuf);
  size_t sent = 0;
  for (size_t off = 0; off < a.bytes; off += kSegment) {
    const size_t n = std::min(kSegment, a.bytes - off);
    if (vr != 0)
      if (int e = co_await s.recv(prev, buf + off, n)) co_return e;
    if (vr == p - 1) continue;
    s.isend(next, buf + off, n);
    if (++sent % kSendWindow == 0)
      if (int e = co_await s.wait()) co_return e;
  }
  co_return co_await s.wait();
}

}  // namespace pamir::coll
