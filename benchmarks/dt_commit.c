/*
 * Cost of building, committing and first using a large indexed datatype, between rank 0 and rank 1.
 *
 * The type: MPI_Type_indexed of 10,000 blocks of MPI_INT, block lengths 1..8 and increasing
 * displacements with a gap of 1..4 ints before every block, both from a fixed-seed xorshift32
 * (the same type for every implementation and run: about 45,000 ints, 180 KB moved per element,
 * extent about 280 KB).
 *
 * Before the type exists the two ranks exchange a few extent-sized MPI_BYTE messages, so that
 * connection set-up and first touches of the buffers are not charged to the datatype. Then
 * three steps, each started with the ranks synchronised, printed as three rows:
 *   1  MPI_Type_indexed + MPI_Type_commit (both ranks build the type; mean of the two ranks)
 *   2  the first transfer of one element of it: rank 0 MPI_Send, rank 1 MPI_Recv, then back the
 *      same way; half of the round trip seen by rank 0 (each rank's first send and first receive
 *      of the type)
 *   3  the later transfers: -x untimed round trips (default 10), then the mean half round trip of
 *      -i timed ones (default 1000), the mean of the two ranks, as osu_latency computes it.
 * Step 1 and 2 are single events: repeat the program (benchmarks/compare does) for a median.
 *
 * With -c: the type's size and extent are checked (row 1); before every receive (rows 2 and 3) the
 * receive buffer gets a gap pattern, the sender's buffer a pattern of its own, and after it every
 * byte of the extent is checked (blocks: the sender's ints from the same displacements; gaps: the
 * gap pattern), and MPI_Get_elements must give the number of ints.
 */
#include "common.h"

#define DT_BLOCKS 10000
#define DT_SEED 1u

/* Builds the block lengths and displacements (in ints); returns the extent in ints. */
static int dt_layout(int *len, int *disp, long *ints) {
  uint32_t x = DT_SEED * 2463534242u;
  int k, at = 0;
  *ints = 0;
  for (k = 0; k < DT_BLOCKS; k++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    at += 1 + (int)(x >> 8 & 3u); /* gap 1..4 */
    disp[k] = at;
    len[k] = 1 + (int)(x >> 16 & 7u); /* 1..8 */
    at += len[k];
    *ints += len[k];
  }
  return at;
}

/* The receive buffer as it must be after a receive: gap pattern, sender's ints in the blocks. */
static void dt_expect(unsigned char *want, unsigned char *data, size_t bytes, const int *len, const int *disp,
                      uint32_t gap_seed, uint32_t data_seed) {
  int k;
  bench_fill(want, bytes, gap_seed);
  bench_fill(data, bytes, data_seed);
  for (k = 0; k < DT_BLOCKS; k++)
    memcpy(want + (size_t)disp[k] * sizeof(int), data + (size_t)disp[k] * sizeof(int),
           (size_t)len[k] * sizeof(int));
}

struct dt_state {
  int rank, validate;
  size_t bytes;
  long ints;
  const int *len, *disp;
  unsigned char *sbuf, *rbuf, *want, *data;
  MPI_Datatype type;
};

/* One round trip (rank 0 sends first); iteration `it` seeds the -c patterns. Returns the errors. */
static long dt_round_trip(struct dt_state *s, long it) {
  const int peer = 1 - s->rank;
  const uint32_t gap = bench_seed(s->bytes, it, 1, s->rank);
  MPI_Status st;
  long bad = 0;
  int elems = -1;
  if (s->validate) {
    bench_fill(s->sbuf, s->bytes, bench_seed(s->bytes, it, 0, s->rank));
    bench_fill(s->rbuf, s->bytes, gap);
  }
  if (s->rank == 0) {
    MPI_Send(s->sbuf, 1, s->type, peer, 1, MPI_COMM_WORLD);
    MPI_Recv(s->rbuf, 1, s->type, peer, 1, MPI_COMM_WORLD, &st);
  } else {
    MPI_Recv(s->rbuf, 1, s->type, peer, 1, MPI_COMM_WORLD, &st);
    MPI_Send(s->sbuf, 1, s->type, peer, 1, MPI_COMM_WORLD);
  }
  if (s->validate) {
    dt_expect(s->want, s->data, s->bytes, s->len, s->disp, gap, bench_seed(s->bytes, it, 0, peer));
    MPI_Get_elements(&st, s->type, &elems);
    if (bench_diff(s->rbuf, s->want, s->bytes) != 0 || (long)elems != s->ints) bad++;
  }
  return bad;
}

static void dt_row(int step, double us, int validate, long errors) {
  printf("%-*d%*.*f", BENCH_SIZE_WIDTH, step, BENCH_FIELD_WIDTH, bench_precision, us);
  if (validate) printf("%*s", BENCH_FIELD_WIDTH, errors ? "Fail" : "Pass");
  printf("\n");
  fflush(stdout);
}

int main(int argc, char **argv) {
  const char *title = "Pamir MPI Datatype Commit Test";
  struct bench_options o;
  struct dt_state s;
  int rank, nranks, rc, k, extent_ints, type_size = -1, failed_any = 0;
  int *len, *disp;
  long ints, i, errors;
  MPI_Aint lb = -1, extent = -1;
  double t0, t_commit, t_first, t_later, sum;
  char line[200];

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);

  rc = bench_parse_options(argc, argv, BENCH_DT_COMMIT, rank, title, &o);
  if (rc != 0) {
    MPI_Finalize();
    return rc < 0 ? 1 : 0;
  }
  if (nranks != 2) {
    if (rank == 0) fprintf(stderr, "This test requires exactly two processes\n");
    MPI_Finalize();
    return 1;
  }

  len = malloc(DT_BLOCKS * sizeof(int));
  disp = malloc(DT_BLOCKS * sizeof(int));
  if (len == NULL || disp == NULL) MPI_Abort(MPI_COMM_WORLD, 1);
  extent_ints = dt_layout(len, disp, &ints);
  memset(&s, 0, sizeof s);
  s.rank = rank;
  s.validate = o.validate;
  s.bytes = (size_t)extent_ints * sizeof(int);
  s.ints = ints;
  s.len = len;
  s.disp = disp;
  s.sbuf = bench_alloc(s.bytes);
  s.rbuf = bench_alloc(s.bytes);
  s.want = bench_alloc(s.bytes);
  s.data = bench_alloc(s.bytes);
  if (!s.sbuf || !s.rbuf || !s.want || !s.data) {
    fprintf(stderr, "rank %d: cannot allocate %zu bytes\n", rank, s.bytes);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }

  if (rank == 0) {
    snprintf(line, sizeof line,
             "MPI_Type_indexed of %d blocks of 1..8 MPI_INT (seed %u): %ld ints (%ld bytes), "
             "extent %zu bytes",
             DT_BLOCKS, DT_SEED, ints, ints * (long)sizeof(int), s.bytes);
    printf("# %s %s\n", title, BENCH_VERSION);
    printf("# Datatype: %s.\n", line);
    printf(
        "# Steps: 1 = MPI_Type_indexed + MPI_Type_commit, 2 = first transfer of one element "
        "(half round trip), 3 = later transfers (mean of %ld after %ld untimed).\n",
        o.iterations, o.skip);
    printf("%-*s%*s", BENCH_SIZE_WIDTH, "# Step", BENCH_FIELD_WIDTH, "Time(us)");
    if (o.validate) printf("%*s", BENCH_FIELD_WIDTH, "Validation");
    printf("\n");
    fflush(stdout);
  }

  /* Connection set-up and buffer pages, outside the measurement. */
  for (k = 0; k < 4; k++) {
    if (rank == 0) {
      MPI_Send(s.sbuf, (int)s.bytes, MPI_BYTE, 1, 2, MPI_COMM_WORLD);
      MPI_Recv(s.rbuf, (int)s.bytes, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(s.rbuf, (int)s.bytes, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(s.sbuf, (int)s.bytes, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
    }
  }

  /* 1: build and commit. */
  bench_sync(rank);
  t0 = MPI_Wtime();
  MPI_Type_indexed(DT_BLOCKS, len, disp, MPI_INT, &s.type);
  MPI_Type_commit(&s.type);
  t_commit = (MPI_Wtime() - t0) * 1e6;
  sum = bench_sum2(rank, t_commit);
  errors = 0;
  if (o.validate) {
    MPI_Type_size(s.type, &type_size);
    MPI_Type_get_extent(s.type, &lb, &extent);
    errors = (long)type_size != ints * (long)sizeof(int) || lb != (MPI_Aint)disp[0] * (MPI_Aint)sizeof(int) ||
             extent != (MPI_Aint)(extent_ints - disp[0]) * (MPI_Aint)sizeof(int);
    errors = (long)bench_sum2(rank, (double)errors);
    if (errors) failed_any = 1;
  }
  if (rank == 0) dt_row(1, sum / 2.0, o.validate, errors);

  /* 2: the first round trip. */
  bench_sync(rank);
  t0 = MPI_Wtime();
  errors = dt_round_trip(&s, 0);
  t_first = (MPI_Wtime() - t0) * 1e6 / 2.0;
  if (o.validate) {
    errors = (long)bench_sum2(rank, (double)errors);
    if (errors) failed_any = 1;
  }
  if (rank == 0) dt_row(2, t_first, o.validate, errors);

  /* 3: later round trips. */
  errors = 0;
  bench_sync(rank);
  for (i = 0; i < o.skip; i++) errors += dt_round_trip(&s, 1 + i);
  t0 = MPI_Wtime();
  for (i = 0; i < o.iterations; i++) errors += dt_round_trip(&s, 1 + o.skip + i);
  t_later = (MPI_Wtime() - t0) * 1e6 / (2.0 * (double)o.iterations);
  sum = bench_sum2(rank, t_later);
  if (o.validate) {
    errors = (long)bench_sum2(rank, (double)errors);
    if (errors) failed_any = 1;
  }
  if (rank == 0) dt_row(3, sum / 2.0, o.validate, errors);

  MPI_Type_free(&s.type);
  free(s.sbuf);
  free(s.rbuf);
  free(s.want);
  free(s.data);
  free(len);
  free(disp);
  MPI_Finalize();
  return failed_any ? 1 : 0;
}
