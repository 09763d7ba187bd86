/*
 * Streaming bandwidth from rank 0 to rank 1, OSU osu_bw compatible: each iteration rank 0 posts a
 * window of MPI_Isend, rank 1 a window of MPI_Irecv, both wait, and rank 1 acknowledges with a 4-byte
 * message. Reported value: MB/s (10^6 bytes per second).
 *
 * Built with BENCH_BIDIRECTIONAL defined (bibw.c) it is osu_bibw: both ranks post a window of
 * MPI_Irecv and a window of MPI_Isend each iteration, no acknowledgement, and the figure counts the
 * bytes of both directions.
 *
 * Like OSU, the timed run sends the whole window from one buffer into one buffer. With -c each slot
 * of the window gets its own buffers and its own pattern, so reordering shows up as a failure.
 */
#include "common.h"

#ifdef BENCH_BIDIRECTIONAL
#define BENCH_KIND BENCH_BIBW
#define BENCH_TITLE "Pamir MPI Bi-Directional Bandwidth Test"
#else
#define BENCH_KIND BENCH_BW
#define BENCH_TITLE "Pamir MPI Bandwidth Test"
#endif

int main(int argc, char **argv) {
  struct bench_options o;
  int rank, nranks, rc, failed_any = 0;
  unsigned char *sbuf, *rbuf;
#ifndef BENCH_BIDIRECTIONAL
  unsigned char ack[4] = {0, 0, 0, 0};
#endif
  MPI_Request *req;
  MPI_Status *st;
  size_t size, slot_bytes;
  int slots;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);

  rc = bench_parse_options(argc, argv, BENCH_KIND, rank, BENCH_TITLE, &o);
  if (rc != 0) {
    MPI_Finalize();
    return rc < 0 ? 1 : 0;
  }
  if (nranks != 2) {
    if (rank == 0) fprintf(stderr, "This test requires exactly two processes\n");
    MPI_Finalize();
    return 1;
  }

  slots = o.validate ? o.window : 1;
  slot_bytes = o.max_size ? o.max_size : 1;
  sbuf = bench_alloc(slot_bytes * (size_t)slots);
  rbuf = bench_alloc(slot_bytes * (size_t)slots);
  req = malloc(sizeof *req * 2 * (size_t)o.window);
  st = malloc(sizeof *st * 2 * (size_t)o.window);
  if (sbuf == NULL || rbuf == NULL || req == NULL || st == NULL) {
    fprintf(stderr, "rank %d: cannot allocate buffers for %zu bytes x %d\n", rank, o.max_size, slots);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  memset(sbuf, 'a', slot_bytes * (size_t)slots);
  memset(rbuf, 'b', slot_bytes * (size_t)slots);

  if (rank == 0) bench_print_header(BENCH_TITLE, "Bandwidth (MB/s)", o.validate);

  for (size = o.min_size; size <= o.max_size; size = bench_next_size(size)) {
    const int large = size > BENCH_LARGE_SIZE;
    const long iters = large ? o.iterations_large : o.iterations;
    const long skip = large ? o.skip_large : o.skip;
    const int peer = 1 - rank;
    const int count = (int)size;
    const int w = o.window;
    long i, errors = 0;
    int j;
    double t_start = 0.0, t = 0.0, bw;

    if (size == 0) continue; /* bandwidth of empty messages is meaningless; OSU starts at 1 */

    bench_sync(rank);
    for (i = 0; i < iters + skip; i++) {
      if (i == skip) t_start = MPI_Wtime();
      if (o.validate)
        for (j = 0; j < w; j++) bench_fill(sbuf + (size_t)j * slot_bytes, size, bench_seed(size, i, j, rank));
#ifdef BENCH_BIDIRECTIONAL
      for (j = 0; j < w; j++)
        MPI_Irecv(rbuf + (o.validate ? (size_t)j * slot_bytes : 0), count, MPI_CHAR, peer,
                  rank == 0 ? 10 : 100, MPI_COMM_WORLD, &req[j]);
      for (j = 0; j < w; j++)
        MPI_Isend(sbuf + (o.validate ? (size_t)j * slot_bytes : 0), count, MPI_CHAR, peer,
                  rank == 0 ? 100 : 10, MPI_COMM_WORLD, &req[w + j]);
      MPI_Waitall(2 * w, req, st);
      if (o.validate)
        for (j = 0; j < w; j++)
          if (!bench_count_ok(&st[j], size) ||
              bench_check(rbuf + (size_t)j * slot_bytes, size, bench_seed(size, i, j, peer)))
            errors++;
#else
      if (rank == 0) {
        for (j = 0; j < w; j++)
          MPI_Isend(sbuf + (o.validate ? (size_t)j * slot_bytes : 0), count, MPI_CHAR, peer, 100,
                    MPI_COMM_WORLD, &req[j]);
        MPI_Waitall(w, req, st);
        MPI_Recv(ack, 4, MPI_CHAR, peer, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        for (j = 0; j < w; j++)
          MPI_Irecv(rbuf + (o.validate ? (size_t)j * slot_bytes : 0), count, MPI_CHAR, peer, 100,
                    MPI_COMM_WORLD, &req[j]);
        MPI_Waitall(w, req, st);
        MPI_Send(ack, 4, MPI_CHAR, peer, 101, MPI_COMM_WORLD);
        if (o.validate)
          for (j = 0; j < w; j++)
            if (!bench_count_ok(&st[j], size) ||
                bench_check(rbuf + (size_t)j * slot_bytes, size, bench_seed(size, i, j, peer)))
              errors++;
      }
#endif
    }
    t = MPI_Wtime() - t_start;

#ifdef BENCH_BIDIRECTIONAL
    bw = (double)size / 1e6 * (double)iters * (double)w * 2.0 / t;
#else
    bw = (double)size / 1e6 * (double)iters * (double)w / t;
#endif
    if (o.validate) {
      errors = (long)bench_sum2(rank, (double)errors);
      if (errors) failed_any = 1;
    }
    if (rank == 0) bench_print_row(size, bw, o.validate, errors != 0);
  }

  free(req);
  free(st);
  free(sbuf);
  free(rbuf);
  MPI_Finalize();
  return failed_any ? 1 : 0;
}
