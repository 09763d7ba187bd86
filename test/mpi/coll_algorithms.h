/* The collective tests' shared pieces: every algorithm of every collective, as pamir_info lists them,
 * and a communicator with one of them forced. */
#ifndef PAMIR_TEST_COLL_ALGORITHMS_H
#define PAMIR_TEST_COLL_ALGORITHMS_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether the "shm" algorithms have no areas to run in on MPI_COMM_WORLD: PAMIR_DEVICE=ofi (or torus)
 * reaches every peer through libfabric (or the torus engine), or the ranks are on several nodes (a job of one
 * rank has no peer to reach, and its "shm" algorithms have nothing to do). Collective at its first call:
 * every rank makes that call at the same point of the test. */
static inline int coll_no_shm_device(void) {
  static int known = -1;
  if (known >= 0) return known;
  const char *d = getenv("PAMIR_DEVICE");
  int size = 1, node_size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &node_size);
  MPI_Comm_free(&node);
  known = size > 1 && ((d && (strcmp(d, "ofi") == 0 || strcmp(d, "torus") == 0)) || node_size < size);
  return known;
}

/* The algorithms that work through the communicator's slot in the node's shared collective areas:
 * blocking calls only, and only where the shared-memory device gives them their areas. */
static inline int coll_slot_algorithm(const char *alg) {
  return !strcmp(alg, "shm") || !strcmp(alg, "cma") || !strcmp(alg, "cma_root");
}

/* The torus algorithms, which serve only a communicator holding every rank of the torus
 * (PAMIR_DEVICE=torus, set by mpirun --torus too): elsewhere they are refused. */
static inline int coll_torus_algorithm(const char *alg) {
  return !strncmp(alg, "torus", 5);
}
static inline int coll_on_torus(void) {
  const char *d = getenv("PAMIR_DEVICE");
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size > 1 && d && !strcmp(d, "torus");
}

static const struct {
  const char *coll, *alg;
} kCollAlgorithms[] = {{"barrier", "dissemination"},
                       {"barrier", "tree"},
                       {"barrier", "shm"},
                       {"barrier", "hierarchical"},
                       {"bcast", "binomial"},
                       {"bcast", "scatter_allgather"},
                       {"bcast", "chain"},
                       {"bcast", "shm"},
                       {"bcast", "hierarchical"},
                       {"bcast", "torus"},
                       {"bcast", "torus_colours"},
                       {"reduce", "binomial"},
                       {"reduce", "linear"},
                       {"reduce", "shm"},
                       {"reduce", "cma"},
                       {"reduce", "cma_root"},
                       {"reduce", "torus"},
                       {"allreduce", "recursive_doubling"},
                       {"allreduce", "ring"},
                       {"allreduce", "reduce_bcast"},
                       {"allreduce", "shm"},
                       {"allreduce", "cma"},
                       {"allreduce", "hierarchical"},
                       {"allreduce", "torus"},
                       {"allreduce", "torus_colours"},
                       {"gather", "binomial"},
                       {"gather", "linear"},
                       {"scatter", "binomial"},
                       {"scatter", "linear"},
                       {"allgather", "ring"},
                       {"allgather", "recursive_doubling"},
                       {"allgather", "bruck"},
                       {"alltoall", "pairwise"},
                       {"alltoall", "linear"},
                       {"scan", "recursive_doubling"},
                       {"scan", "linear"},
                       {"exscan", "recursive_doubling"},
                       {"exscan", "linear"},
                       {"reduce_scatter_block", "reduce_scatterv"},
                       {"reduce_scatter_block", "ring"},
                       {"reduce_scatter", "reduce_scatterv"},
                       {"reduce_scatter", "ring"},
                       {"gatherv", "linear"},
                       {"scatterv", "linear"},
                       {"allgatherv", "ring"},
                       {"allgatherv", "linear"},
                       {"alltoallv", "pairwise"},
                       {"alltoallv", "linear"},
                       {"alltoallw", "pairwise"},
                       {"alltoallw", "linear"}};
#define N_COLL_ALGORITHMS ((int)(sizeof kCollAlgorithms / sizeof kCollAlgorithms[0]))

/* A duplicate of MPI_COMM_WORLD whose collective `coll` runs algorithm `alg` (the info key
 * pamir_coll_<coll>), with errors returned. */
static inline MPI_Comm forced_comm(const char *coll, const char *alg) {
  MPI_Info info;
  MPI_Info_create(&info);
  char key[64];
  snprintf(key, sizeof key, "pamir_coll_%s", coll);
  MPI_Info_set(info, key, alg);
  MPI_Comm c;
  MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &c);
  MPI_Info_free(&info);
  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  return c;
}

#endif
