/*
 * MPI_Allgather latency, OSU osu_allgather compatible: every rank of MPI_COMM_WORLD (any number of
 * ranks) contributes size bytes of MPI_CHAR and receives all of them (size * ranks bytes), sizes
 * 1 byte to 1 MiB per rank by default (OSU lowers the maximum so that size * ranks stays within
 * 512 MiB). As in OSU 7.4, each call is timed on its own and followed by an MPI_Barrier (not timed).
 * Reported value: each rank's mean time per call in microseconds, averaged over the ranks; -f adds
 * the lowest and highest of the ranks' means and the iteration count.
 *
 * With -c every rank's contribution is a pattern that depends on (size, iteration, rank), the
 * receive buffer is overwritten with another pattern before each call, and after it every byte of
 * every rank's block in it is checked, and the send buffer must be unchanged.
 */
#include "common.h"

int main(int argc, char **argv) {
  const char *title = "Pamir MPI Allgather Latency Test";
  struct bench_options o;
  int rank, nranks, rc, failed_any = 0;
  unsigned char *sbuf, *rbuf;
  size_t size;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);

  rc = bench_parse_options(argc, argv, BENCH_ALLGATHER, rank, title, &o);
  if (rc != 0) {
    MPI_Finalize();
    return rc < 0 ? 1 : 0;
  }
  bench_coll_mem_limit(rank, nranks, &o);

  sbuf = bench_alloc(o.max_size);
  rbuf = bench_alloc(o.max_size * (size_t)nranks);
  if (sbuf == NULL || rbuf == NULL) {
    fprintf(stderr, "rank %d: cannot allocate %zu bytes\n", rank, o.max_size * (size_t)(nranks + 1));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  memset(sbuf, 1, o.max_size);

  if (rank == 0) bench_coll_header(title, "MPI_CHAR", &o);

  for (size = o.min_size; size <= o.max_size; size = bench_next_size(size)) {
    const int large = size > BENCH_LARGE_SIZE;
    const long iters = large ? o.iterations_large : o.iterations;
    const long skip = large ? o.skip_large : o.skip;
    long i;
    int r, errors = 0;
    double timer = 0.0, t0, t1;

    if (size == 0) continue; /* OSU: no zero-byte collectives */

    MPI_Barrier(MPI_COMM_WORLD);
    for (i = 0; i < iters + skip; i++) {
      if (o.validate) {
        bench_fill(sbuf, size, bench_seed(size, i, 0, rank));
        for (r = 0; r < nranks; r++) bench_fill(rbuf + (size_t)r * size, size, bench_seed(size, i, 1, r));
        MPI_Barrier(MPI_COMM_WORLD);
      }
      t0 = MPI_Wtime();
      MPI_Allgather(sbuf, (int)size, MPI_CHAR, rbuf, (int)size, MPI_CHAR, MPI_COMM_WORLD);
      t1 = MPI_Wtime();
      MPI_Barrier(MPI_COMM_WORLD);
      if (i >= skip) timer += t1 - t0;
      if (o.validate) {
        int bad = bench_check(sbuf, size, bench_seed(size, i, 0, rank)) != 0;
        for (r = 0; r < nranks && !bad; r++)
          if (bench_check(rbuf + (size_t)r * size, size, bench_seed(size, i, 0, r)) != 0) bad = 1;
        errors += bad;
      }
    }

    if (bench_coll_report(rank, nranks, 1, size, timer * 1e6 / (double)iters, iters, errors, &o))
      failed_any = 1;
  }

  free(sbuf);
  free(rbuf);
  MPI_Finalize();
  return failed_any ? 1 : 0;
}
