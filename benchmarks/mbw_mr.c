/*
 * Aggregate bandwidth and message rate of n/2 pairs streaming at once, OSU osu_mbw_mr compatible.
 * Rank r < n/2 sends to rank r + n/2 (with an odd n the last rank only joins the barriers). Each
 * iteration starts with an MPI_Barrier of all ranks, as in OSU 7.4; then every sender posts a window
 * of MPI_Isend (64 by default, -W), waits for them and for a 4-byte acknowledgement, while its
 * receiver posts the window of MPI_Irecv, waits and acknowledges. Only the senders' part after the
 * barrier is timed.
 *
 * Reported: "MB/s", the bytes all pairs moved (10^6 bytes per second), and "Messages/s", the
 * messages all pairs moved per second. OSU divides by rank 0's time; here the slowest sender's time
 * is used, so a lagging pair lowers the aggregate instead of being ignored.
 *
 * Like OSU, the timed run sends the whole window from one buffer into one buffer. With -c each slot
 * of the window gets its own buffers and its own pattern, seeded by (size, iteration, slot, sender),
 * so reordering, loss or a message from the wrong rank shows up as a failure.
 */
#include "common.h"

int main(int argc, char **argv) {
  const char *title = "Pamir MPI Multiple Bandwidth / Message Rate Test";
  struct bench_options o;
  int rank, nranks, rc, pairs, sender, receiver, partner, slots, failed_any = 0;
  unsigned char *sbuf, *rbuf;
  unsigned char ack[4] = {0, 0, 0, 0};
  MPI_Request *req;
  MPI_Status *st;
  size_t size, slot_bytes;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);

  rc = bench_parse_options(argc, argv, BENCH_MBW_MR, rank, title, &o);
  if (rc != 0) {
    MPI_Finalize();
    return rc < 0 ? 1 : 0;
  }
  if (nranks < 2) {
    if (rank == 0) fprintf(stderr, "This test requires at least two processes\n");
    MPI_Finalize();
    return 1;
  }
  pairs = nranks / 2;
  sender = rank < pairs;
  receiver = !sender && rank < 2 * pairs;
  partner = sender ? rank + pairs : rank - pairs;

  slots = o.validate ? o.window : 1;
  slot_bytes = o.max_size ? o.max_size : 1;
  sbuf = bench_alloc(slot_bytes * (size_t)slots);
  rbuf = bench_alloc(slot_bytes * (size_t)slots);
  req = malloc(sizeof *req * (size_t)o.window);
  st = malloc(sizeof *st * (size_t)o.window);
  if (sbuf == NULL || rbuf == NULL || req == NULL || st == NULL) {
    fprintf(stderr, "rank %d: cannot allocate buffers for %zu bytes x %d\n", rank, o.max_size, slots);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  memset(sbuf, 'a', slot_bytes * (size_t)slots);
  memset(rbuf, 'b', slot_bytes * (size_t)slots);

  if (rank == 0) {
    printf("# %s %s\n", title, BENCH_VERSION);
    printf("# [ pairs: %d ] [ window size: %d ]\n", pairs, o.window);
    printf("# Datatype: MPI_CHAR.\n");
    printf("%-*s%*s%*s", BENCH_SIZE_WIDTH, "# Size", BENCH_FIELD_WIDTH, "MB/s", BENCH_FIELD_WIDTH,
           "Messages/s");
    if (o.validate) printf("%*s", BENCH_FIELD_WIDTH, "Validation");
    printf("\n");
    fflush(stdout);
  }

  for (size = o.min_size; size <= o.max_size; size = bench_next_size(size)) {
    const int large = size > BENCH_LARGE_SIZE;
    const long iters = large ? o.iterations_large : o.iterations;
    const long skip = large ? o.skip_large : o.skip;
    const int count = (int)size;
    const int w = o.window;
    long i;
    int j, errors = 0, errors_all = 0;
    double t = 0.0, t_max = 0.0, t0, bw, rate;

    if (size == 0) continue; /* bandwidth of empty messages is meaningless; OSU starts at 1 */

    MPI_Barrier(MPI_COMM_WORLD);
    for (i = 0; i < iters + skip; i++) {
      if (o.validate && sender)
        for (j = 0; j < w; j++) bench_fill(sbuf + (size_t)j * slot_bytes, size, bench_seed(size, i, j, rank));
      MPI_Barrier(MPI_COMM_WORLD);
      if (sender) {
        t0 = MPI_Wtime();
        for (j = 0; j < w; j++)
          MPI_Isend(sbuf + (o.validate ? (size_t)j * slot_bytes : 0), count, MPI_CHAR, partner, 100,
                    MPI_COMM_WORLD, &req[j]);
        MPI_Waitall(w, req, st);
        MPI_Recv(ack, 4, MPI_CHAR, partner, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (i >= skip) t += MPI_Wtime() - t0;
      } else if (receiver) {
        for (j = 0; j < w; j++)
          MPI_Irecv(rbuf + (o.validate ? (size_t)j * slot_bytes : 0), count, MPI_CHAR, partner, 100,
                    MPI_COMM_WORLD, &req[j]);
        MPI_Waitall(w, req, st);
        MPI_Send(ack, 4, MPI_CHAR, partner, 101, MPI_COMM_WORLD);
        if (o.validate)
          for (j = 0; j < w; j++)
            if (!bench_count_ok(&st[j], size) ||
                bench_check(rbuf + (size_t)j * slot_bytes, size, bench_seed(size, i, j, partner)))
              errors++;
      }
    }

    MPI_Reduce(&t, &t_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (o.validate) {
      MPI_Allreduce(&errors, &errors_all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      if (errors_all) failed_any = 1;
    }
    if (rank == 0) {
      rate = (double)iters * (double)w * (double)pairs / t_max;
      bw = rate * (double)size / 1e6;
      printf("%-*zu%*.*f%*.*f", BENCH_SIZE_WIDTH, size, BENCH_FIELD_WIDTH, bench_precision, bw,
             BENCH_FIELD_WIDTH, bench_precision, rate);
      if (o.validate) printf("%*s", BENCH_FIELD_WIDTH, errors_all ? "Fail" : "Pass");
      printf("\n");
      fflush(stdout);
    }
  }

  free(req);
  free(st);
  free(sbuf);
  free(rbuf);
  MPI_Finalize();
  return failed_any ? 1 : 0;
}
