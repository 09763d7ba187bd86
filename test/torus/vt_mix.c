/* The three orders the torus engine takes by real time (docs/architecture.md, "The timing model"), in
 * one program, so that run.sh can check that the report's virtual times do not follow them:
 * - a 1 MiB broadcast, whose rendezvous children's remote gets share the owners' links;
 * - a nonblocking allreduce left running while the program exchanges large messages round a ring;
 * - run with two ranks a node, whose sends share the node's links.
 * Every result is checked. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BCAST_BYTES (1 << 20)
#define RING_DOUBLES (64 * 1024)
#define REDUCE_INTS 4096

static int failures;

static void check(int ok, const char *what, int rank) {
  if (!ok && failures++ < 5) fprintf(stderr, "vt_mix: rank %d: %s\n", rank, what);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char *b = malloc(BCAST_BYTES);
  double *out = malloc(RING_DOUBLES * sizeof(double)), *in = malloc(RING_DOUBLES * sizeof(double));
  int *mine = malloc(REDUCE_INTS * sizeof(int)), *sum = malloc(REDUCE_INTS * sizeof(int));
  for (int iter = 0; iter < 3; ++iter) {
    for (int i = 0; i < BCAST_BYTES; ++i) b[i] = rank == iter % size ? (char)(i * 7 + iter) : 0;
    MPI_Bcast(b, BCAST_BYTES, MPI_CHAR, iter % size, MPI_COMM_WORLD);
    int ok = 1;
    for (int i = 0; i < BCAST_BYTES; ++i) ok &= b[i] == (char)(i * 7 + iter);
    check(ok, "broadcast data", rank);

    for (int i = 0; i < REDUCE_INTS; ++i) mine[i] = rank * 3 + i + iter;
    MPI_Request red;
    MPI_Iallreduce(mine, sum, REDUCE_INTS, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &red);
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int step = 0; step < 4; ++step) {
      for (int i = 0; i < RING_DOUBLES; ++i) out[i] = rank * 1000.0 + step + i * 0.5;
      MPI_Request r[2];
      MPI_Irecv(in, RING_DOUBLES, MPI_DOUBLE, left, step, MPI_COMM_WORLD, &r[0]);
      MPI_Isend(out, RING_DOUBLES, MPI_DOUBLE, right, step, MPI_COMM_WORLD, &r[1]);
      MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
      ok = 1;
      for (int i = 0; i < RING_DOUBLES; ++i) ok &= in[i] == left * 1000.0 + step + i * 0.5;
      check(ok, "ring data", rank);
    }
    MPI_Wait(&red, MPI_STATUS_IGNORE);
    ok = 1;
    for (int i = 0; i < REDUCE_INTS; ++i) ok &= sum[i] == 3 * size * (size - 1) / 2 + size * (i + iter);
    check(ok, "allreduce sums", rank);
  }
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf(all ? "vt_mix: FAILED (%d)\n" : "vt_mix: ok\n", all);
  free(b), free(out), free(in), free(mine), free(sum);
  MPI_Finalize();
  return all != 0;
}
