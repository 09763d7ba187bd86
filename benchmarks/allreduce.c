/*
 * MPI_Allreduce latency, OSU osu_allreduce compatible: MPI_SUM of size/4 MPI_FLOAT elements over
 * MPI_COMM_WORLD (any number of ranks), sizes 4 bytes to 1 MiB by default. As in OSU 7.4, each call
 * is timed on its own and followed by an MPI_Barrier (not timed), so every call starts with the
 * ranks roughly together. Reported value: each rank's mean time per call in microseconds, averaged
 * over the ranks; -f adds the lowest and highest of the ranks' means and the iteration count.
 *
 * With -c every element of every rank's contribution is a small whole number that depends on
 * (rank, iteration, element), the result buffer is overwritten with a sentinel before each call, and
 * every element of the result is compared exactly with the sum computed locally (sums of small
 * whole numbers are exact in float whatever the order of the additions), and the send buffer is
 * checked to be unchanged.
 */
#include "common.h"

int main(int argc, char **argv) {
  const char *title = "Pamir MPI Allreduce Latency Test";
  struct bench_options o;
  int rank, nranks, rc, failed_any = 0;
  float *sbuf, *rbuf;
  size_t size, max_count, k;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);

  rc = bench_parse_options(argc, argv, BENCH_ALLREDUCE, rank, title, &o);
  if (rc != 0) {
    MPI_Finalize();
    return rc < 0 ? 1 : 0;
  }

  max_count = o.max_size / sizeof(float);
  sbuf = bench_alloc((max_count + 1) * sizeof(float));
  rbuf = bench_alloc((max_count + 1) * sizeof(float));
  if (sbuf == NULL || rbuf == NULL) {
    fprintf(stderr, "rank %d: cannot allocate %zu bytes\n", rank, o.max_size);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (k = 0; k < max_count; k++) sbuf[k] = 1.0f;

  if (rank == 0) bench_coll_header(title, "MPI_FLOAT", &o);

  for (size = o.min_size; size <= o.max_size; size = bench_next_size(size)) {
    const int large = size > BENCH_LARGE_SIZE;
    const long iters = large ? o.iterations_large : o.iterations;
    const long skip = large ? o.skip_large : o.skip;
    const size_t count = size / sizeof(float);
    long i;
    int r, errors = 0;
    double timer = 0.0, t0, t1, latency;

    if (count == 0) continue; /* as OSU: sizes below one element are skipped */

    MPI_Barrier(MPI_COMM_WORLD);
    for (i = 0; i < iters + skip; i++) {
      if (o.validate) {
        for (k = 0; k < count; k++) {
          sbuf[k] = bench_contribution(rank, i, k);
          rbuf[k] = -1.0f;
        }
        MPI_Barrier(MPI_COMM_WORLD);
      }
      t0 = MPI_Wtime();
      MPI_Allreduce(sbuf, rbuf, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      t1 = MPI_Wtime();
      MPI_Barrier(MPI_COMM_WORLD);
      if (i >= skip) timer += t1 - t0;
      if (o.validate) {
        int bad = 0;
        for (k = 0; k < count && !bad; k++) {
          float expect = 0.0f;
          for (r = 0; r < nranks; r++) expect += bench_contribution(r, i, k);
          if (rbuf[k] != expect || sbuf[k] != bench_contribution(rank, i, k)) bad = 1;
        }
        errors += bad;
      }
    }

    latency = timer * 1e6 / (double)iters;
    if (bench_coll_report(rank, nranks, 1, size, latency, iters, errors, &o)) failed_any = 1;
  }

  free(sbuf);
  free(rbuf);
  MPI_Finalize();
  return failed_any ? 1 : 0;
}
