// Alltoall algorithms.
//
// pairwise: in step s (1 .. p-1) every rank sends its block for rank + s and
// receives the block of rank - s, so each step is a permutation and no rank is hit twice at once.
//
// In place (sendbuf is recvbuf) a rank must not overwrite a block before sending it, so the steps pair
// ranks instead (the round-robin "circle" schedule, with an idle rank per round when p is odd): in
// each of the p-1 (p odd: p) rounds a rank swaps one block with one partner through a one-block scratch.
//
// Cost: (p-1) * (alpha + n*beta) (n: bytes per pair), plus a copy of n per round in place.
//
// linear: every rank posts all its receives and sends at once (a window at a time), leaving the order
// to the network: (p-1) * n * beta with the latencies overlapped, for small blocks on few ranks. In
// place, the receive buffer is first copied aside. Scratch: p blocks in place.
#include <cstring>

#include "collectives/algorithms/algorithms.h"
#include "collectives/scratch.h"
#include "pami/request.h"

namespace pamir::coll {

namespace {

// The circle schedule's partner of rank i in round r among P (even) slots.
int partner(int i, int r, int P) {
  const int n = P - 1;                                 // odd
  if (i == n) return int((int64_t(r) * (P / 2)) % n);  // the j with 2j = r (mod n)
  const int j = ((r - i) % n + n) % n;
  return j == i ? n : j;
}

}  // namespace

Task alltoall_pairwise(Sched &s, Args a) {
  const int p = s.team.size, rank = s.team.rank;
  const size_t bytes = a.bytes;
  if (bytes == 0) co_return 0;
  auto *out = static_cast<unsigned char *>(a.recvbuf);
  if (!a.in_place) {
    const auto *in = static_cast<const unsigned char *>(a.sendbuf);
    std::memcpy(out + size_t(rank) * bytes, in + size_t(rank) * bytes, bytes);
    for (int k = 1; k < p; ++k) {
      const int dst = (rank + k) % p, src = (rank - k + p) % p;
      if (int e = co_await s.sendrecv(dst, in + size_t(dst) * bytes, bytes, src, out + size_t(src) * bytes,
                                      bytes))
        co_return e;
    }
    co_return 0;
  }
  if (p == 1) co_return 0;
  Scratch scratch(bytes);
  if (!scratch.get()) co_return int(Err::intern);
  const int P = p % 2 == 0 ? p : p + 1;
  for (int r = 0; r < P - 1; ++r) {
    const int peer = partner(rank, r, P);
    if (peer >= p) continue;
    unsigned char *block = out + size_t(peer) * bytes;
    std::memcpy(scratch.get(), block, bytes);
    if (int e = co_await s.sendrecv(peer, scratch.get(), bytes, peer, block, bytes)) co_return e;
  }
  co_return 0;
}

Task alltoall_linear(Sched &s, Args a) {
  const int p = s.team.size, rank = s.team.rank;
  const size_t bytes = a.bytes;
  if (bytes == 0) co_return 0;
  auto *out = static_cast<unsigned char *>(a.recvbuf);
  Scratch scratch(a.in_place ? size_t(p) * bytes : 0);
  if (!scratch.get()) co_return int(Err::intern);
  const auto *in = static_cast<const unsigned char *>(a.in_place ? scratch.get() : a.sendbuf);
  if (a.in_place) std::memcpy(scratch.get(), out, size_t(p) * bytes);
  std::memcpy(out + size_t(rank) * bytes, in + size_t(rank) * bytes, bytes);
  constexpr int kWindow = Sched::kMaxPending / 2;
  for (int k = 1; k < p; ++k) {
    const int dst = (rank + k) % p, src = (rank - k + p) % p;
    s.irecv(src, out + size_t(src) * bytes, bytes);
    s.isend(dst, in + size_t(dst) * bytes, bytes);
    if (k % kWindow == 0 || k == p - 1)
      if (int e = co_await s.wait()) co_return e;
  }
  co_return 0;
}

}  // namespace pamir::coll
