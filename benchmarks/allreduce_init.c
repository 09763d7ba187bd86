/*
 * Pamir's own persistent allreduce against its blocking one, in one run (issue 6, section 4): for each
 * size, R alternating repetitions of N blocking MPI_Allreduce calls and N MPI_Start + MPI_Wait of one
 * MPI_Allreduce_init request (MPI_DOUBLE sum, the same buffers), each timed as a whole; rank 0 prints
 * the mean time per call of every repetition. Open MPI 4.1 has no MPI_Allreduce_init (only MPIX_), so
 * this is not part of benchmarks/compare.
 *
 *   allreduce_init [-n CALLS] [-r REPS] [-m MAX_BYTES]     (defaults 100000, 3, 1024)
 * Exits 1 if a result is wrong.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  long n = 100000, reps = 3, max = 1024;
  MPI_Init(&argc, &argv);
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "-n")) n = atol(argv[i + 1]);
    if (!strcmp(argv[i], "-r")) reps = atol(argv[i + 1]);
    if (!strcmp(argv[i], "-m")) max = atol(argv[i + 1]);
  }
  int rank, size, bad = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double *x = malloc((size_t)max), *y = malloc((size_t)max);
  if (rank == 0)
    printf("# %d ranks, %ld calls per repetition\n# Size       Blocking(us)     Persistent(us)\n", size, n);
  for (long bytes = 8; bytes <= max; bytes *= 2) {
    const int count = (int)(bytes / 8);
    MPI_Request q;
    for (int i = 0; i < count; ++i) x[i] = rank + i;
    MPI_Allreduce_init(x, y, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &q);
    for (long rep = 0; rep < reps; ++rep) {
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      for (long i = 0; i < n; ++i) MPI_Allreduce(x, y, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      double t1 = MPI_Wtime();
      MPI_Barrier(MPI_COMM_WORLD);
      double t2 = MPI_Wtime();
      for (long i = 0; i < n; ++i) {
        MPI_Start(&q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
      }
      double t3 = MPI_Wtime();
      for (int i = 0; i < count; ++i) bad += y[i] != (double)size * (size - 1) / 2 + (double)size * i;
      if (rank == 0) printf("%-12ld %14.3f %18.3f\n", bytes, (t1 - t0) / n * 1e6, (t3 - t2) / n * 1e6);
    }
    MPI_Request_free(&q);
  }
  if (bad) fprintf(stderr, "rank %d: %d wrong results\n", rank, bad);
  free(x);
  free(y);
  MPI_Finalize();
  return bad != 0;
}
