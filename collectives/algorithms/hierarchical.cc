// Hierarchical algorithms for communicators that span nodes (collectives/nodes.h): each node's ranks
// work among themselves through shared memory, and only one leader per node (its lowest rank) talks
// over the fabric. Every phase runs an algorithm of the flat ones on a part of the team
// (Sched::SubTeam), so each is written once; envelopes keep the communicator's ranks, which keeps the
// messages of one pair in different phases in order. Where the team's layout is unknown (the launcher
// gave no node per rank) each falls back to the flat algorithm its phases use, so forcing one never
// fails.
//
// barrier: a binomial fan-in to each leader, a dissemination barrier of the leaders, a binomial
// fan-out. 2 * log2(ranks per node) shm steps around log2(nodes) fabric rounds, where a flat
// dissemination barrier pays log2(p) fabric rounds and sends every rank's signals across.
//
// bcast: the root's node first (a binomial tree from the root, which reaches its leader), then the
// leaders (binomial from the root's node), then every other node from its leader. The message crosses
// the fabric once per node, however many ranks each node holds.
//
// allreduce: a binomial reduce to each leader, an allreduce of the leaders (recursive doubling, or a
// ring for long vectors and a commutative operation), a binomial broadcast from each leader. Nodes
// are numbered by their lowest rank, so with node-ordered ranks each leader's partial result covers a
// contiguous run of ranks and the leaders combine them in rank order: a non-commutative operation is
// served then (the selection asks for kCommutative or kNodeOrdered).
#include "collectives/algorithms/algorithms.h"
#include "collectives/nodes.h"
#include "pami/request.h"

namespace pamir::coll {

namespace {

// Above this a commutative allreduce of the leaders goes around a ring (as the flat list from 64 KiB).
constexpr size_t kLeaderRingBytes = size_t(64) << 10;

Task fan_in(Sched &s) {
  const int p = s.team.size, rank = s.team.rank;
  for (int mask = 1; mask < p; mask <<= 1) {
    if (rank & mask) co_return co_await s.send(rank - mask, nullptr, 0);
    if (rank + mask < p)
      if (int e = co_await s.recv(rank + mask, nullptr, 0)) co_return e;
  }
  co_return 0;
}

Task fan_out(Sched &s) {
  const int p = s.team.size, rank = s.team.rank;
  int mask = 1;
  while (mask < p && !(rank & mask)) mask <<= 1;
  if (rank != 0)
    if (int e = co_await s.recv(rank - mask, nullptr, 0)) co_return e;
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (rank + mask < p) s.isend(rank + mask, nullptr, 0);
  co_return co_await s.wait();
}

}  // namespace

Task barrier_hierarchical(Sched &s, Args a) {
  const Nodes *n = s.team.nodes;
  if (!n) co_return co_await barrier_dissemination(s, a);
  {
    Sched::SubTeam node(s, n->local);
    if (int e = co_await fan_in(s)) co_return e;
  }
  if (n->leaders.rank >= 0 && n->count > 1) {
    Sched::SubTeam leaders(s, n->leaders);
    if (int e = co_await barrier_dissemination(s, a)) co_return e;
  }
  Sched::SubTeam node(s, n->local);
  co_return co_await fan_out(s);
}

Task bcast_hierarchical(Sched &s, Args a) {
  const Nodes *n = s.team.nodes;
  if (!n) co_return co_await bcast_binomial(s, a);
  if (a.bytes == 0 || s.team.size == 1) co_return 0;
  const int root_node = n->node_of[a.root];
  const bool root_here = n->node_of[s.team.rank] == root_node;
  if (root_here) {
    Args b = a;
    b.root = 0;
    while (n->local_ranks[b.root] != a.root) ++b.root;
    Sched::SubTeam node(s, n->local);
    if (int e = co_await bcast_binomial(s, b)) co_return e;
  }
  if (n->leaders.rank >= 0 && n->count > 1) {
    Args b = a;
    b.root = root_node;
    Sched::SubTeam leaders(s, n->leaders);
    if (int e = co_await bcast_binomial(s, b)) co_return e;
  }
  if (!root_here) {
    Args b = a;
    b.root = 0;
    Sched::SubTeam node(s, n->local);
    if (int e = co_await bcast_binomial(s, b)) co_return e;
  }
  co_return 0;
}

Task allreduce_hierarchical(Sched &s, Args a) {
  const Nodes *n = s.team.nodes;
  // Leaders combine whole nodes: rank order only where each node's ranks are consecutive.
  if (!n || (!a.op.commutative && !n->ordered)) co_return co_await allreduce_recursive_doubling(s, a);
  const bool leader = n->leaders.rank >= 0;
  {
    Args r = a;
    r.root = 0;
    if (a.in_place && !leader) {
      r.sendbuf = a.recvbuf;  // a non-leader's contribution is its receive buffer
      r.in_place = false;
    }
    Sched::SubTeam node(s, n->local);
    if (int e = co_await reduce_binomial(s, r)) co_return e;
  }
  const size_t bytes = a.count * a.op.extent;
  if (leader && n->count > 1) {
    Args x = a;
    x.in_place = true;  // the node's result is in recvbuf
    Sched::SubTeam leaders(s, n->leaders);
    const bool ring = a.op.commutative && bytes > kLeaderRingBytes && n->count > 2;
    // Two statements, not one co_await of a conditional: GCC 12 mishandles the temporaries of the latter.
    int e = 0;
    if (ring)
      e = co_await allreduce_ring(s, x);
    else
      e = co_await allreduce_recursive_doubling(s, x);
    if (e) co_return e;
  }
  Args b;
  b.recvbuf = a.recvbuf;
  b.bytes = bytes;
  Sched::SubTeam node(s, n->local);
  co_return co_await bcast_binomial(s, b);
}

}  // namespace pamir::coll
