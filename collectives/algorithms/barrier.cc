// Barrier algorithms.
//
// dissemination (Hensgen, Finkel and Manber): in round k every rank signals rank + 2^k and waits for
// rank - 2^k (mod p). After ceil(log2 p) rounds every rank has heard, directly or through a chain, from
// every other, whatever p is. Cost: ceil(log2 p) * alpha, each round's send and receive overlapping.
//
// tree: fan-in up a binomial tree to rank 0, fan-out back down. 2 * ceil(log2 p) * alpha on the
// critical path, but each rank sends at most log p messages in total instead of log p per round: the
// better choice when the ranks share few cores, since fewer messages wake fewer sleeping ranks.
#include "collectives/algorithms/algorithms.h"

namespace pamir::coll {

Task barrier_dissemination(Sched &s, Args) {
  const int p = s.team.size, rank = s.team.rank;
  for (int k = 1; k < p; k <<= 1)
    if (int e = co_await s.sendrecv((rank + k) % p, nullptr, 0, (rank - k + p) % p, nullptr, 0)) co_return e;
  co_return 0;
}

Task barrier_tree(Sched &s, Args) {
  const int p = s.team.size, rank = s.team.rank;
  int mask = 1;
  for (; mask < p; mask <<= 1) {
    if (rank & mask) {
      if (int e = co_await s.send(rank - mask, nullptr, 0)) co_return e;
      break;
    }
    if (rank + mask < p)
      if (int e = co_await s.recv(rank + mask, nullptr, 0)) co_return e;
  }
  if (rank != 0)
    if (int e = co_await s.recv(rank - mask, nullptr, 0)) co_return e;
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (rank + mask < p) s.isend(rank + mask, nullptr, 0);
  co_return co_await s.wait();
}

}  // namespace pamir::coll
