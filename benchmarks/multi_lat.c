/*
 * Latency of many pairs at once, OSU osu_multi_lat compatible. With n ranks (n even), rank r < n/2
 * ping-pongs with rank r + n/2, every pair at the same time. As in OSU 7.4, each exchange (one
 * message there and one back) is preceded by an MPI_Barrier of all ranks and only the exchange is
 * timed, so the pairs stay in step and the figure is the latency under that much concurrent
 * traffic. Reported value: half the round-trip time in microseconds, the mean over the pairs (OSU
 * 7.4 prints rank 0's pair; with every exchange started together the pairs differ little, and the
 * mean does not hide a slow pair).
 *
 * With -c each message carries a pattern seeded by (size, iteration, sender), so a message that is
 * stale, truncated or from the wrong rank fails the check.
 */
#include "common.h"

int main(int argc, char **argv) {
  const char *title = "Pamir MPI Multi Latency Test";
  struct bench_options o;
  int rank, nranks, rc, pairs, partner, initiator, failed_any = 0;
  unsigned char *sbuf, *rbuf;
  size_t size;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);

  rc = bench_parse_options(argc, argv, BENCH_MULTI_LAT, rank, title, &o);
  if (rc != 0) {
    MPI_Finalize();
    return rc < 0 ? 1 : 0;
  }
  if (nranks < 2 || nranks % 2 != 0) {
    if (rank == 0)
      fprintf(stderr,
              "This test requires an even number of processes (rank r is paired with r + n/2); "
              "got %d\n",
              nranks);
    MPI_Finalize();
    return 1;
  }
  pairs = nranks / 2;
  initiator = rank < pairs;
  partner = initiator ? rank + pairs : rank - pairs;

  sbuf = bench_alloc(o.max_size);
  rbuf = bench_alloc(o.max_size);
  if (sbuf == NULL || rbuf == NULL) {
    fprintf(stderr, "rank %d: cannot allocate %zu bytes\n", rank, o.max_size);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  memset(sbuf, 'a', o.max_size);
  memset(rbuf, 'b', o.max_size);

  if (rank == 0) bench_print_header(title, "Avg Latency(us)", o.validate);

  for (size = o.min_size; size <= o.max_size; size = bench_next_size(size)) {
    const int large = size > BENCH_LARGE_SIZE;
    const long iters = large ? o.iterations_large : o.iterations;
    const long skip = large ? o.skip_large : o.skip;
    const int count = (int)size;
    long i;
    int errors = 0, errors_all = 0;
    double t_total = 0.0, t0, t1, latency, sum = 0.0;
    MPI_Status st;

    MPI_Barrier(MPI_COMM_WORLD);
    for (i = 0; i < iters + skip; i++) {
      /* Both sides prepare their message before the barrier: the reply does not depend on what
       * arrives, so the filling stays out of the timed exchange. */
      if (o.validate) bench_fill(sbuf, size, bench_seed(size, i, 0, rank));
      MPI_Barrier(MPI_COMM_WORLD);
      if (initiator) {
        t0 = MPI_Wtime();
        MPI_Send(sbuf, count, MPI_CHAR, partner, 1, MPI_COMM_WORLD);
        MPI_Recv(rbuf, count, MPI_CHAR, partner, 1, MPI_COMM_WORLD, &st);
        t1 = MPI_Wtime();
        if (i >= skip) t_total += t1 - t0;
      } else {
        MPI_Recv(rbuf, count, MPI_CHAR, partner, 1, MPI_COMM_WORLD, &st);
        MPI_Send(sbuf, count, MPI_CHAR, partner, 1, MPI_COMM_WORLD);
      }
      if (o.validate &&
          (!bench_count_ok(&st, size) || bench_check(rbuf, size, bench_seed(size, i, 0, partner))))
        errors++;
    }

    latency = initiator ? t_total * 1e6 / (2.0 * (double)iters) : 0.0;
    MPI_Reduce(&latency, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (o.validate) {
      MPI_Allreduce(&errors, &errors_all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      if (errors_all) failed_any = 1;
    }
    if (rank == 0) bench_print_row(size, sum / (double)pairs, o.validate, errors_all != 0);
  }

  free(sbuf);
  free(rbuf);
  MPI_Finalize();
  return failed_any ? 1 : 0;
}
