/*
 * reduce_local: the speed of an implementation's predefined reduction kernels alone, with
 * MPI_Reduce_local (inoutvec = invec op inoutvec) on vectors that stay in L1, in L2 and beyond: GB/s of
 * inoutvec per (type, op, size), the median of 7 timings of enough calls to last about 2 ms. Not an OSU
 * program; one process. Plain MPI: builds with any mpicc.
 *
 *   mpirun -n 1 reduce_local            # Pamir: PAMIR_REDUCE_ISA=sse2|avx2|avx512 picks the kernels
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  static const struct {
    MPI_Datatype type;
    MPI_Op op;
    const char *name;
    size_t size;
  } kCases[] = {{MPI_CHAR, MPI_SUM, "MPI_CHAR SUM", 1},     {MPI_INT, MPI_SUM, "MPI_INT SUM", 4},
                {MPI_FLOAT, MPI_SUM, "MPI_FLOAT SUM", 4},   {MPI_DOUBLE, MPI_SUM, "MPI_DOUBLE SUM", 8},
                {MPI_DOUBLE, MPI_MAX, "MPI_DOUBLE MAX", 8}, {MPI_INT, MPI_BAND, "MPI_INT BAND", 4}};
  static const size_t kBytes[] = {4096, 65536, 1 << 20, 16 << 20};
  const size_t max = 16 << 20;
  char *in = aligned_alloc(64, max), *io = aligned_alloc(64, max);
  memset(in, 1, max);
  memset(io, 2, max);
  printf("# %-16s %10s %10s\n", "type op", "bytes", "GB/s");
  for (size_t c = 0; c < sizeof kCases / sizeof kCases[0]; ++c)
    for (size_t b = 0; b < sizeof kBytes / sizeof kBytes[0]; ++b) {
      const int count = (int)(kBytes[b] / kCases[c].size);
      int reps = 1;
      for (;;) { /* calls enough for 2 ms */
        const double t0 = MPI_Wtime();
        for (int r = 0; r < reps; ++r) MPI_Reduce_local(in, io, count, kCases[c].type, kCases[c].op);
        if (MPI_Wtime() - t0 > 2e-3 || reps > (1 << 24)) break;
        reps *= 2;
      }
      double t[7];
      for (int k = 0; k < 7; ++k) {
        /* SUM on chars and ints wraps; the values do not matter to the speed */
        const double t0 = MPI_Wtime();
        for (int r = 0; r < reps; ++r) MPI_Reduce_local(in, io, count, kCases[c].type, kCases[c].op);
        t[k] = (MPI_Wtime() - t0) / reps;
      }
      qsort(t, 7, sizeof t[0], cmp_double);
      printf("  %-16s %10zu %10.2f\n", kCases[c].name, kBytes[b], (double)kBytes[b] / t[3] / 1e9);
    }
  free(in);
  free(io);
  MPI_Finalize();
  return 0;
}
