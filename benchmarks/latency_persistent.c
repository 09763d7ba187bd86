/*
 * Ping-pong latency between rank 0 and rank 1 with persistent requests, OSU 7.x
 * osu_latency_persistent compatible: for each message size both ranks make one MPI_Send_init and
 * one MPI_Recv_init (outside the timed loop), and every iteration is MPI_Start + MPI_Wait of the
 * send and of the receive in ping-pong order; the requests are freed after the size. Reported
 * value: half the average round-trip time in microseconds.
 * With -c the sender writes a pattern seeded by (size, iteration, sender) into its buffer before
 * each start, so a replay that sent stale data, or a receive that kept it, fails the check.
 */
#include "common.h"

int main(int argc, char **argv) {
  const char *title = "Pamir MPI Latency Persistent Test";
  struct bench_options o;
  int rank, nranks, rc, failed_any = 0;
  unsigned char *sbuf, *rbuf;
  size_t size;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);

  rc = bench_parse_options(argc, argv, BENCH_LATENCY, rank, title, &o);
  if (rc != 0) {
    MPI_Finalize();
    return rc < 0 ? 1 : 0;
  }
  if (nranks != 2 || o.ddt != BENCH_DDT_NONE) {
    if (rank == 0)
      fprintf(stderr, nranks != 2 ? "This test requires exactly two processes\n"
                                  : "-D is osu_latency's option, not this test's\n");
    MPI_Finalize();
    return 1;
  }

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
    const int peer = 1 - rank;
    long i, errors = 0;
    double t_start = 0.0, t_end, latency, sum;
    MPI_Status st;
    MPI_Request send, recv;

    MPI_Send_init(sbuf, (int)size, MPI_CHAR, peer, 1, MPI_COMM_WORLD, &send);
    MPI_Recv_init(rbuf, (int)size, MPI_CHAR, peer, 1, MPI_COMM_WORLD, &recv);
    bench_sync(rank);
    for (i = 0; i < iters + skip; i++) {
      if (i == skip) t_start = MPI_Wtime();
      if (rank == 0) {
        if (o.validate) bench_fill(sbuf, size, bench_seed(size, i, 0, 0));
        MPI_Start(&send);
        MPI_Wait(&send, MPI_STATUS_IGNORE);
        MPI_Start(&recv);
        MPI_Wait(&recv, &st);
        if (o.validate && (!bench_count_ok(&st, size) || bench_check(rbuf, size, bench_seed(size, i, 0, 1))))
          errors++;
      } else {
        MPI_Start(&recv);
        MPI_Wait(&recv, &st);
        if (o.validate) {
          if (!bench_count_ok(&st, size) || bench_check(rbuf, size, bench_seed(size, i, 0, 0))) errors++;
          bench_fill(sbuf, size, bench_seed(size, i, 0, 1));
        }
        MPI_Start(&send);
        MPI_Wait(&send, MPI_STATUS_IGNORE);
      }
    }
    t_end = MPI_Wtime();
    latency = (t_end - t_start) * 1e6 / (2.0 * (double)iters);
    MPI_Request_free(&send);
    MPI_Request_free(&recv);

    /* OSU reports the mean of both ranks' figures. */
    sum = bench_sum2(rank, latency);
    if (o.validate) {
      errors = (long)bench_sum2(rank, (double)errors);
      if (errors) failed_any = 1;
    }
    if (rank == 0) bench_print_row(size, sum / 2.0, o.validate, errors != 0);
  }

  free(sbuf);
  free(rbuf);
  MPI_Finalize();
  return failed_any ? 1 : 0;
}
