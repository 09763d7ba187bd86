/*
 * Ping-pong latency between rank 0 and rank 1, OSU osu_latency compatible.
 * Reported value: half the average round-trip time in microseconds.
 *
 * -D vect:STRIDE:BLOCK is OSU 7.x's derived-datatype latency (c/util/osu_util.c
 * omb_ddt_process_options, c/util/osu_util_mpi.c omb_ddt_assign / omb_ddt_get_size): for message
 * size S (bytes, MPI_CHAR) both ranks build MPI_Type_vector(S / STRIDE, BLOCK, STRIDE, MPI_CHAR),
 * commit it, and every MPI_Send and MPI_Recv moves count 1 of it from / into the start of the
 * S-byte buffers: (S / STRIDE) * BLOCK bytes are moved (the Transmit Size column), taken from and
 * put at offsets k * STRIDE, and the gaps between blocks (and the tail after the last block) are
 * neither sent nor written. Below STRIDE the vector has no block and the message is empty, as in
 * OSU. -D cont is MPI_Type_contiguous(S, MPI_CHAR). As in OSU, size 0 is skipped with -D, the
 * "large" loop counts still go by S, and the type is created and freed outside the timed loop.
 * With -c the receive buffer is filled with a second pattern before each receive, and after it
 * every byte of the S-byte buffer is checked: the blocks must hold the sender's bytes from the
 * same offsets, the gaps the second pattern; MPI_Get_elements must give the bytes moved.
 */
#include "common.h"

/* The receive buffer as it must be after a -D receive: the gap pattern, the sender's bytes in
 * the blocks. `data` is scratch. */
static void ddt_expect(unsigned char *want, unsigned char *data, size_t size, const struct bench_options *o,
                       uint32_t gap_seed, uint32_t data_seed) {
  size_t k, nblocks;
  bench_fill(want, size, gap_seed);
  bench_fill(data, size, data_seed);
  if (o->ddt == BENCH_DDT_CONT) {
    memcpy(want, data, size);
    return;
  }
  nblocks = size / (size_t)o->ddt_stride;
  for (k = 0; k < nblocks; k++)
    memcpy(want + k * (size_t)o->ddt_stride, data + k * (size_t)o->ddt_stride, (size_t)o->ddt_block);
}

/* -c check of one -D receive: the whole buffer against the expectation, and the element count. */
static int ddt_bad(const unsigned char *rbuf, unsigned char *want, unsigned char *data, size_t size,
                   const struct bench_options *o, uint32_t gap_seed, uint32_t data_seed, MPI_Status *st,
                   MPI_Datatype dt, long long moved) {
  int elems = -1;
  ddt_expect(want, data, size, o, gap_seed, data_seed);
  MPI_Get_elements(st, dt, &elems);
  return bench_diff(rbuf, want, size) != 0 || (long long)elems != moved;
}

int main(int argc, char **argv) {
  const char *title = "Pamir MPI Latency Test";
  struct bench_options o;
  int rank, nranks, rc, failed_any = 0;
  unsigned char *sbuf, *rbuf, *want = NULL, *data = NULL;
  size_t size;
  char ddt_name[96];

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);

  rc = bench_parse_options(argc, argv, BENCH_LATENCY, rank, title, &o);
  if (rc != 0) {
    MPI_Finalize();
    return rc < 0 ? 1 : 0;
  }
  if (nranks != 2) {
    if (rank == 0) fprintf(stderr, "This test requires exactly two processes\n");
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
  if (o.ddt != BENCH_DDT_NONE && o.validate) {
    want = bench_alloc(o.max_size);
    data = bench_alloc(o.max_size);
    if (want == NULL || data == NULL) {
      fprintf(stderr, "rank %d: cannot allocate %zu bytes\n", rank, o.max_size);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }

  if (o.ddt == BENCH_DDT_VECT)
    snprintf(ddt_name, sizeof ddt_name, "MPI_Type_vector(size / %ld, %ld, %ld, MPI_CHAR)", o.ddt_stride,
             o.ddt_block, o.ddt_stride);
  else
    snprintf(ddt_name, sizeof ddt_name, "%s",
             o.ddt == BENCH_DDT_CONT ? "MPI_Type_contiguous(size, MPI_CHAR)" : "MPI_CHAR");
  if (rank == 0)
    bench_print_header_ex(title, ddt_name, "# Size", "Avg Latency(us)", o.validate,
                          o.ddt != BENCH_DDT_NONE ? "Transmit Size" : NULL);

  for (size = o.min_size; size <= o.max_size; size = bench_next_size(size)) {
    const int large = size > BENCH_LARGE_SIZE;
    const long iters = large ? o.iterations_large : o.iterations;
    const long skip = large ? o.skip_large : o.skip;
    const int peer = 1 - rank;
    int count = (int)size;
    long i, errors = 0;
    long long moved = -1;
    double t_start = 0.0, t_end, latency, sum;
    MPI_Status st;
    MPI_Datatype dt = MPI_CHAR;

    if (o.ddt != BENCH_DDT_NONE) {
      /* OSU: num_elements = size / sizeof(char); 0 is skipped; then one element of the type. */
      if (size == 0) continue;
      if (o.ddt == BENCH_DDT_VECT) {
        const int nblocks = (int)(size / (size_t)o.ddt_stride);
        MPI_Type_vector(nblocks, (int)o.ddt_block, (int)o.ddt_stride, MPI_CHAR, &dt);
        moved = (long long)nblocks * o.ddt_block;
      } else {
        MPI_Type_contiguous(count, MPI_CHAR, &dt);
        moved = (long long)size;
      }
      MPI_Type_commit(&dt);
      count = 1;
    }

    bench_sync(rank);
    for (i = 0; i < iters + skip; i++) {
      if (i == skip) t_start = MPI_Wtime();
      /* With -c every message carries a pattern seeded by (size, iteration, sender), so a
       * stale, misdirected or truncated message fails the check. */
      /* With -D the receive buffer first gets a gap pattern (slot 1) that must survive. */
      if (rank == 0) {
        if (o.validate) {
          bench_fill(sbuf, size, bench_seed(size, i, 0, 0));
          if (dt != MPI_CHAR) bench_fill(rbuf, size, bench_seed(size, i, 1, 0));
        }
        MPI_Send(sbuf, count, dt, peer, 1, MPI_COMM_WORLD);
        MPI_Recv(rbuf, count, dt, peer, 1, MPI_COMM_WORLD, &st);
        if (o.validate) {
          if (dt != MPI_CHAR
                  ? ddt_bad(rbuf, want, data, size, &o, bench_seed(size, i, 1, 0), bench_seed(size, i, 0, 1),
                            &st, dt, moved)
                  : !bench_count_ok(&st, size) || bench_check(rbuf, size, bench_seed(size, i, 0, 1)))
            errors++;
        }
      } else {
        if (o.validate && dt != MPI_CHAR) bench_fill(rbuf, size, bench_seed(size, i, 1, 1));
        MPI_Recv(rbuf, count, dt, peer, 1, MPI_COMM_WORLD, &st);
        if (o.validate) {
          if (dt != MPI_CHAR
                  ? ddt_bad(rbuf, want, data, size, &o, bench_seed(size, i, 1, 1), bench_seed(size, i, 0, 0),
                            &st, dt, moved)
                  : !bench_count_ok(&st, size) || bench_check(rbuf, size, bench_seed(size, i, 0, 0)))
            errors++;
          bench_fill(sbuf, size, bench_seed(size, i, 0, 1));
        }
        MPI_Send(sbuf, count, dt, peer, 1, MPI_COMM_WORLD);
      }
    }
    t_end = MPI_Wtime();
    latency = (t_end - t_start) * 1e6 / (2.0 * (double)iters);

    /* OSU reports the mean of both ranks' figures. */
    sum = bench_sum2(rank, latency);
    if (o.validate) {
      errors = (long)bench_sum2(rank, (double)errors);
      if (errors) failed_any = 1;
    }
    if (rank == 0) bench_print_row_ex(size, sum / 2.0, o.validate, errors != 0, moved);
    if (dt != MPI_CHAR) MPI_Type_free(&dt);
  }

  free(sbuf);
  free(rbuf);
  free(want);
  free(data);
  MPI_Finalize();
  return failed_any ? 1 : 0;
}
