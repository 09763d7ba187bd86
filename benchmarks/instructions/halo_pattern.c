/*
 * A halo-like pattern for instruction counts (benchmarks/instructions/count): between 2 ranks, K
 * receives and K sends of 8 bytes (tags 0..K-1) per iteration, waited for together.
 *
 *   halo_pattern ITERATIONS MODE [K]
 *     MODE p: persistent requests (MPI_Recv_init/MPI_Send_init once), MPI_Startall + MPI_Waitall
 *     MODE o: MPI_Irecv + MPI_Isend every iteration, MPI_Waitall
 * Rank 0 prints the mean time per iteration of the last half of the iterations (the first half warms
 * up), which is how the mailboxes' effect on time is measured (docs/performance.md); any MPI runs it.
 * Exits 1 if a message carried the wrong value.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (argc < 3) {
    fprintf(stderr, "usage: halo_pattern ITERATIONS p|o [K]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int n = atoi(argv[1]), pers = argv[2][0] == 'p', k = argc > 3 ? atoi(argv[3]) : 8;
  int rank, bad = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int peer = 1 - rank;
  double *s = malloc(sizeof(double) * (size_t)k), *r = malloc(sizeof(double) * (size_t)k);
  MPI_Request *q = malloc(sizeof(MPI_Request) * 2 * (size_t)k);
  if (pers)
    for (int j = 0; j < k; ++j) {
      MPI_Recv_init(&r[j], 1, MPI_DOUBLE, peer, j, MPI_COMM_WORLD, &q[j]);
      MPI_Send_init(&s[j], 1, MPI_DOUBLE, peer, j, MPI_COMM_WORLD, &q[k + j]);
    }
  double t0 = 0;
  for (int i = 0; i < n; ++i) {
    if (i == n / 2) t0 = MPI_Wtime();
    for (int j = 0; j < k; ++j) s[j] = i * 100 + j;
    if (pers) {
      MPI_Startall(2 * k, q);
    } else {
      for (int j = 0; j < k; ++j) MPI_Irecv(&r[j], 1, MPI_DOUBLE, peer, j, MPI_COMM_WORLD, &q[j]);
      for (int j = 0; j < k; ++j) MPI_Isend(&s[j], 1, MPI_DOUBLE, peer, j, MPI_COMM_WORLD, &q[k + j]);
    }
    MPI_Waitall(2 * k, q, MPI_STATUSES_IGNORE);
    for (int j = 0; j < k; ++j) bad += r[j] != i * 100 + j;
  }
  const double t = MPI_Wtime() - t0;
  if (rank == 0 && n - n / 2 > 0)
    printf("halo_pattern %s, %d messages of 8 bytes each way: %.3f us per iteration\n",
           pers ? "persistent" : "ordinary", k, t * 1e6 / (n - n / 2));
  if (pers)
    for (int j = 0; j < 2 * k; ++j) MPI_Request_free(&q[j]);
  if (bad) fprintf(stderr, "rank %d: %d wrong values\n", rank, bad);
  free(s);
  free(r);
  free(q);
  MPI_Finalize();
  return bad != 0;
}
