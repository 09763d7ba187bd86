/* The torus algorithms chosen by default (issue 20): on MPI_COMM_WORLD, which fills the torus, a 64 KiB
 * broadcast and a 64 KiB sum take them; on half the ranks, which do not fill it, the same calls take
 * others. Each result is checked; test/torus/run.sh reads which algorithms ran from PAMIR_STATS. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, bad = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  enum { N = 16384 }; /* ints: 64 KiB */
  int *a = malloc(N * sizeof(int)), *b = malloc(N * sizeof(int));
  MPI_Comm comms[2] = {MPI_COMM_WORLD, half};
  for (int k = 0; k < 2; ++k) {
    int r, p;
    MPI_Comm_rank(comms[k], &r);
    MPI_Comm_size(comms[k], &p);
    for (int i = 0; i < N; ++i) a[i] = r == p - 1 ? i * 3 + k : -1;
    MPI_Bcast(a, N, MPI_INT, p - 1, comms[k]);
    for (int i = 0; i < N; ++i) bad += a[i] != i * 3 + k;
    for (int i = 0; i < N; ++i) a[i] = r + i;
    MPI_Allreduce(a, b, N, MPI_INT, MPI_SUM, comms[k]);
    for (int i = 0; i < N; ++i) bad += b[i] != p * (p - 1) / 2 + p * i;
  }
  if (bad) fprintf(stderr, "selection: rank %d: %d wrong elements\n", rank, bad);
  MPI_Comm_free(&half);
  free(a);
  free(b);
  MPI_Finalize();
  return bad ? 1 : 0;
}
