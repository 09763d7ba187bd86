// The neighbourhood collectives (MPI 5.0 §8.6): one message with each in- and out-neighbour, and
// nothing to combine, since a process knows only its own neighbours. Every receive is posted, then
// every send, all in one step (Sched::unbounded): the peers' lists do not pair up position by
// position, so windows of messages could wait on each other across ranks once some are rendezvous.
#include "collectives/algorithms/algorithms.h"

namespace pamir::coll {

Task neighbor_linear(Sched &s, Args a) {
  s.unbounded = true;
  for (int i = 0; i < a.nin; ++i) {
    const int k = a.recv_order ? a.recv_order[i] : i;
    if (a.in_peers[k] >= 0 && a.rblocks[k].bytes) s.irecv(a.in_peers[k], a.rblocks[k]);
  }
  for (int k = 0; k < a.nout; ++k)
    if (a.out_peers[k] >= 0 && a.sblocks[k].bytes) s.isend(a.out_peers[k], a.sblocks[k]);
  const int e = co_await s.wait();
  s.unbounded = false;
  co_return e;
}

}  // namespace pamir::coll
