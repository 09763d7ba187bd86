// Every collective algorithm, as a coroutine over a Sched (collectives/schedule.h). All of one
// collective take the same arguments, so the registry (collectives/registry.cc) holds them in one
// table and the selection of seed 002 picks an entry.
//
// Buffers are contiguous bytes (the MPI binding stages non-contiguous datatypes). in_place: the
// MPI_IN_PLACE forms (at the root for reduce/gather/scatter, everywhere for allreduce, allgather and
// alltoall); sendbuf is then ignored.
#pragma once

#include <cstddef>

#include "collectives/reduce_ops.h"
#include "collectives/schedule.h"

namespace pamir::coll {

struct Args {
  const void *sendbuf = nullptr;
  void *recvbuf = nullptr;  // bcast: the buffer
  size_t bytes = 0;         // bcast: the message; gather, scatter, allgather, alltoall: one rank's block
  size_t count = 0;         // reduce, allreduce, scan, exscan: elements
  const size_t *counts = nullptr;  // reduce_scatter(_block): the elements of each rank's block
  // v-collectives: each rank's part of the send and the receive side (p blocks where the call has p
  // parts, one where it has one: gatherv's send, scatterv's receive; null where it has none)
  const Block *sblocks = nullptr;
  const Block *rblocks = nullptr;
  Reduction op{};
  int root = 0;
  bool in_place = false;
  // The neighbourhood collectives: the in- and out-neighbours (team ranks; negative: MPI_PROC_NULL,
  // whose part moves nothing), part k of rblocks/sblocks for neighbour k, and the order in which the
  // receives are posted (null: as listed), which makes in-order matching pair each message with its part.
  const int *in_peers = nullptr;
  const int *out_peers = nullptr;
  const int *recv_order = nullptr;
  int nin = 0;
  int nout = 0;
};

// The root of a rooted collective on an inter-communicator (Team::local_size > 0): Args::root is the
// root's rank in the other group, or one of these in the root's own group (MPI_ROOT, MPI_PROC_NULL).
constexpr int kRootHere = -1;
constexpr int kRootIdle = -2;

using AlgorithmFn = Task (*)(Sched &, Args);

Task neighbor_linear(Sched &s, Args a);

// Inter-communicators: every collective has one algorithm, built from the intra algorithms run on each
// group (Team::local) and messages between the groups (collectives/algorithms/inter.cc).
Task barrier_inter(Sched &s, Args a);
Task bcast_inter(Sched &s, Args a);
Task reduce_inter(Sched &s, Args a);
Task allreduce_inter(Sched &s, Args a);
Task gather_inter(Sched &s, Args a);
Task scatter_inter(Sched &s, Args a);
Task reduce_scatter_inter(Sched &s, Args a);
Task gatherv_inter(Sched &s, Args a);
Task scatterv_inter(Sched &s, Args a);
Task allgatherv_inter(Sched &s, Args a);
Task alltoallv_inter(Sched &s, Args a);

Task barrier_dissemination(Sched &s, Args a);
Task barrier_tree(Sched &s, Args a);
Task barrier_hierarchical(Sched &s, Args a);

Task bcast_binomial(Sched &s, Args a);
Task bcast_scatter_allgather(Sched &s, Args a);
Task bcast_chain(Sched &s, Args a);
Task bcast_hierarchical(Sched &s, Args a);

// On a team that fills the torus (Team::grid; collectives/algorithms/torus.cc).
Task bcast_torus(Sched &s, Args a);
Task bcast_torus_colours(Sched &s, Args a);
Task reduce_torus(Sched &s, Args a);
Task allreduce_torus(Sched &s, Args a);
Task allreduce_torus_colours(Sched &s, Args a);

Task reduce_binomial(Sched &s, Args a);
Task reduce_linear(Sched &s, Args a);

Task allreduce_recursive_doubling(Sched &s, Args a);
Task allreduce_ring(Sched &s, Args a);
Task allreduce_reduce_bcast(Sched &s, Args a);
Task allreduce_hierarchical(Sched &s, Args a);

Task gather_binomial(Sched &s, Args a);
Task gather_linear(Sched &s, Args a);

Task scatter_binomial(Sched &s, Args a);
Task scatter_linear(Sched &s, Args a);

Task allgather_ring(Sched &s, Args a);
Task allgather_recursive_doubling(Sched &s, Args a);
Task allgather_bruck(Sched &s, Args a);

Task scan_recursive_doubling(Sched &s, Args a);
Task scan_linear(Sched &s, Args a);
Task exscan_recursive_doubling(Sched &s, Args a);
Task exscan_linear(Sched &s, Args a);

Task reduce_scatter_reduce_scatterv(Sched &s, Args a);
Task reduce_scatter_ring(Sched &s, Args a);

Task gatherv_linear(Sched &s, Args a);
Task scatterv_linear(Sched &s, Args a);
Task allgatherv_ring(Sched &s, Args a);
Task allgatherv_linear(Sched &s, Args a);
Task alltoallv_pairwise(Sched &s, Args a);
Task alltoallv_linear(Sched &s, Args a);

Task barrier_shm(Sched &s, Args a);
Task bcast_shm(Sched &s, Args a);
Task reduce_shm(Sched &s, Args a);
Task allreduce_shm(Sched &s, Args a);
Task reduce_cma(Sched &s, Args a);
Task reduce_cma_root(Sched &s, Args a);
Task allreduce_cma(Sched &s, Args a);

Task alltoall_pairwise(Sched &s, Args a);
Task alltoall_linear(Sched &s, Args a);

// Pieces the algorithms share: block i of `n` bytes cut into p nearly equal blocks starts at
// block_start(n, p, i) (block_start(n, p, p) == n).
inline size_t block_start(size_t n, int p, int i) {
  const size_t q = n / size_t(p), r = n % size_t(p);
  return size_t(i) * q + (size_t(i) < r ? size_t(i) : r);
}

// The child run of a binomial gather or scatter rooted at `root` (ranks child .. child + cnt - 1 mod
// p) that wraps past rank p - 1, which the root must split or join; cnt is 0 when none does.
struct WrappedRun {
  int child;
  int cnt;
};
inline WrappedRun wrapped_run(int p, int root) {
  for (int mask = 1; mask < p; mask <<= 1) {
    const int child = (mask + root) % p, cnt = mask < p - mask ? mask : p - mask;
    if (child + cnt > p) return {child, cnt};
  }
  return {0, 0};
}

}  // namespace pamir::coll
