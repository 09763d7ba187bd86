/* A small blocking collective allocates nothing per call (the hot-path rule, and seed 002's "selection
 * allocates nothing"): this program counts every heap allocation of the process (it interposes malloc
 * and its relatives over glibc's), warms each algorithm of barrier, bcast, reduce, allreduce,
 * allgather, alltoall and scan up (coroutine frames are pooled by size), then counts the allocations
 * of 100 more calls of each. The pools of requests and unexpected messages still grow when a new
 * high-water mark of messages in flight is reached, which timing decides (a receive posted after its
 * message arrived), so a few allocations are allowed: one per call would be 100. A barrier after each
 * call keeps the number in flight bounded. The same for 100 starts of persistent requests (an allreduce,
 * and a send and a receive between ranks 0 and 1). */
#include <stdint.h>

#include "check.h"
#include "coll_algorithms.h"
#include "count_allocs.h"

static int rank, size;

enum { kCount = 16 }; /* ints: 64 bytes, the small messages selection matters most for */

/* Runs collective `coll` once on c. */
static int call(const char *coll, MPI_Comm c, int *in, int *out) {
  if (!strcmp(coll, "barrier")) return MPI_Barrier(c);
  if (!strcmp(coll, "bcast")) return MPI_Bcast(out, kCount, MPI_INT, size - 1, c);
  if (!strcmp(coll, "reduce")) return MPI_Reduce(in, out, kCount, MPI_INT, MPI_SUM, 0, c);
  if (!strcmp(coll, "allreduce")) return MPI_Allreduce(in, out, kCount, MPI_INT, MPI_SUM, c);
  if (!strcmp(coll, "allgather")) return MPI_Allgather(in, 2, MPI_INT, out, 2, MPI_INT, c);
  if (!strcmp(coll, "alltoall")) return MPI_Alltoall(in, 2, MPI_INT, out, 2, MPI_INT, c);
  return MPI_Scan(in, out, kCount, MPI_INT, MPI_SUM, c);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* The collectives call() knows, every algorithm, and the built-in choice of one. */
  static const char *const kColls[] = {"barrier",   "bcast",    "reduce", "allreduce",
                                       "allgather", "alltoall", "scan"};
  int *in = calloc((size_t)size * kCount, sizeof(int)), *out = calloc((size_t)size * kCount, sizeof(int));
  for (int i = 0; i <= N_COLL_ALGORITHMS; ++i) {
    const char *coll = i < N_COLL_ALGORITHMS ? kCollAlgorithms[i].coll : "allreduce";
    const char *alg = i < N_COLL_ALGORITHMS ? kCollAlgorithms[i].alg : "auto";
    int known = 0;
    for (size_t k = 0; k < sizeof kColls / sizeof kColls[0]; ++k) known |= !strcmp(coll, kColls[k]);
    if (!known || (!strcmp(alg, "recursive_doubling") && !strcmp(coll, "allgather") && (size & (size - 1))) ||
        (coll_slot_algorithm(alg) && coll_no_shm_device()) || (coll_torus_algorithm(alg) && !coll_on_torus()))
      continue;
    MPI_Comm c = forced_comm(coll, alg);
    int rc = MPI_SUCCESS;
    for (int k = 0; k < 20 && rc == MPI_SUCCESS; ++k) {
      rc = call(coll, c, in, out);
      MPI_Barrier(c);
    }
    allocations = 0;
    counting = 1;
    for (int k = 0; k < 100 && rc == MPI_SUCCESS; ++k) {
      rc = call(coll, c, in, out);
      MPI_Barrier(c);
    }
    counting = 0;
    const long mine = allocations;
    CHECK(rc == MPI_SUCCESS && mine < 10, "%s %s: rc %d, %ld heap allocations in 100 calls", coll, alg, rc,
          mine);
    MPI_Comm_free(&c);
  }
  /* Persistent requests: a start allocates nothing either (the state of a collective's start lives in
   * its request; a point-to-point start uses the pooled requests of MPI_Isend/MPI_Irecv). */
  MPI_Request q[3];
  int nq = 0;
  MPI_Allreduce_init(in, out, kCount, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &q[nq++]);
  if (size >= 2 && rank < 2) {
    MPI_Recv_init(out + kCount, kCount, MPI_INT, 1 - rank, 5, MPI_COMM_WORLD, &q[nq++]);
    MPI_Send_init(in, kCount, MPI_INT, 1 - rank, 5, MPI_COMM_WORLD, &q[nq++]);
  }
  for (int k = 0; k < 120; ++k) {
    if (k == 20) {
      allocations = 0;
      counting = 1;
    }
    MPI_Startall(nq, q);
    MPI_Waitall(nq, q, MPI_STATUSES_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  counting = 0;
  const long mine = allocations;
  CHECK(mine<10, "persistent allreduce%s: %ld heap allocations in 100 starts", nq> 1 ? " and send/recv" : "",
        mine);
  for (int i = 0; i < nq; ++i) MPI_Request_free(&q[i]);
  free(in);
  free(out);
  return finish("coll_noalloc");
}
