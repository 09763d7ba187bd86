/*
 * MPI_Iallreduce latency and overlap, OSU osu_iallreduce compatible: MPI_SUM of size/4 MPI_FLOAT
 * elements over MPI_COMM_WORLD (any number of ranks), sizes 4 bytes to 1 MiB by default. Per size,
 * as OSU 7.x does it:
 *   1. pure communication: -x untimed and -i timed MPI_Iallreduce + MPI_Wait, each timed on its
 *      own and followed by an MPI_Barrier (not timed); each rank's mean is its "pure comm" time;
 *   2. overlap: the same loop, but between MPI_Iallreduce and MPI_Wait a dummy compute (a small
 *      floating-point kernel repeated until the clock says so) that lasts the rank's own pure
 *      comm time. With -t CALLS
 *      (OSU's --num_test_calls, default 0 as in OSU) the compute is cut into CALLS equal pieces,
 *      each followed by one MPI_Test; the time of the MPI_Test calls is measured apart.
 * Columns (means over the ranks, microseconds): Overall = Coll. Init + Compute + MPI_Test +
 * MPI_Wait of loop 2; Compute (without the MPI_Test calls); Pure Comm. (loop 1); Overlap(%) =
 * max(0, 100 - 100 * (Overall - Compute) / Pure Comm.), OSU's formula. -f adds Coll. Init,
 * MPI_Test and MPI_Wait times and the lowest and highest pure comm time over the ranks, in OSU's
 * order.
 *
 * With -c, in both loops, the contributions are small whole numbers that depend on (rank,
 * iteration, element), the result buffer gets a sentinel before each call, and after MPI_Wait
 * every element of the result is compared exactly with the sum computed locally and the send
 * buffer must be unchanged (as allreduce.c).
 */
#include "common.h"

#define KERNEL_DIM 10
static float kernel_a[KERNEL_DIM][KERNEL_DIM], kernel_x[KERNEL_DIM], kernel_y[KERNEL_DIM];

/* One step of the dummy compute (a few hundred nanoseconds, so the compute ends close to its
 * target): x = x / 2 + A * A^T-ish products. */
static void kernel_step(void) {
  int i, j;
  for (i = 0; i < KERNEL_DIM; i++)
    for (j = 0; j < KERNEL_DIM; j++)
      kernel_x[i] = kernel_x[i] * 0.5f + kernel_a[i][j] * kernel_a[j][i] + kernel_y[j];
}

/* Computes for `seconds` of wall-clock time (OSU sums the steps' own durations instead, which
 * leaves out the clock reads between them: with steps this short that would overshoot). */
static void compute_for(double seconds) {
  const double end = MPI_Wtime() + seconds;
  while (MPI_Wtime() < end) kernel_step();
}

/* The dummy compute of loop 2; returns the time spent in MPI_Test. */
static double compute_and_test(double seconds, int calls, MPI_Request *req) {
  double test_time = 0.0, t;
  int c, flag = 0;
  if (calls <= 0) {
    compute_for(seconds);
    return 0.0;
  }
  for (c = 0; c < calls; c++) {
    compute_for(seconds / calls);
    t = MPI_Wtime();
    MPI_Test(req, &flag, MPI_STATUS_IGNORE);
    test_time += MPI_Wtime() - t;
  }
  return test_time;
}

static void prepare(int validate, float *sbuf, float *rbuf, size_t count, int rank, long i) {
  size_t k;
  if (!validate) return;
  for (k = 0; k < count; k++) {
    sbuf[k] = bench_contribution(rank, i, k);
    rbuf[k] = -1.0f;
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

static int check(int validate, const float *sbuf, const float *rbuf, size_t count, int rank, int nranks,
                 long i) {
  size_t k;
  int r;
  if (!validate) return 0;
  for (k = 0; k < count; k++) {
    float expect = 0.0f;
    for (r = 0; r < nranks; r++) expect += bench_contribution(r, i, k);
    if (rbuf[k] != expect || sbuf[k] != bench_contribution(rank, i, k)) return 1;
  }
  return 0;
}

/* Sum (or min, max) of one double over the ranks, at rank 0. */
static double at_root(double v, MPI_Op op) {
  double out = 0.0;
  MPI_Reduce(&v, &out, 1, MPI_DOUBLE, op, 0, MPI_COMM_WORLD);
  return out;
}

int main(int argc, char **argv) {
  const char *title = "Pamir MPI Non-blocking Allreduce Latency Test";
  struct bench_options o;
  int rank, nranks, rc, failed_any = 0, i0, j0;
  float *sbuf, *rbuf;
  size_t size, max_count, k;
  const int w = BENCH_FIELD_WIDTH;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);

  rc = bench_parse_options(argc, argv, BENCH_IALLREDUCE, rank, title, &o);
  if (rc != 0) {
    MPI_Finalize();
    return rc < 0 ? 1 : 0;
  }

  for (i0 = 0; i0 < KERNEL_DIM; i0++) {
    kernel_x[i0] = kernel_y[i0] = 1.0f;
    for (j0 = 0; j0 < KERNEL_DIM; j0++) kernel_a[i0][j0] = 2.0f;
  }

  max_count = o.max_size / sizeof(float);
  sbuf = bench_alloc((max_count + 1) * sizeof(float));
  rbuf = bench_alloc((max_count + 1) * sizeof(float));
  if (sbuf == NULL || rbuf == NULL) {
    fprintf(stderr, "rank %d: cannot allocate %zu bytes\n", rank, o.max_size);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (k = 0; k < max_count; k++) sbuf[k] = 1.0f;

  if (rank == 0) {
    printf("# %s %s\n", title, BENCH_VERSION);
    printf("# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait\n\n");
    printf("# Datatype: MPI_FLOAT.\n");
    printf("%-*s%*s%*s", BENCH_SIZE_WIDTH, "# Size", w, "Overall(us)", w, "Compute(us)");
    if (o.full)
      printf("%*s%*s%*s%*s%*s%*s", w, "Coll. Init(us)", w, "MPI_Test(us)", w, "MPI_Wait(us)", w,
             "Pure Comm.(us)", w, "Min Comm.(us)", w, "Max Comm.(us)");
    else
      printf("%*s", w, "Pure Comm.(us)");
    printf("%*s", w, "Overlap(%)");
    if (o.validate) printf("%*s", w, "Validation");
    printf("\n");
    fflush(stdout);
  }

  for (size = o.min_size; size <= o.max_size; size = bench_next_size(size)) {
    const int large = size > BENCH_LARGE_SIZE;
    const long iters = large ? o.iterations_large : o.iterations;
    const long skip = large ? o.skip_large : o.skip;
    const size_t count = size / sizeof(float);
    MPI_Request req;
    long i;
    int errors = 0, errors_all = 0;
    double timer = 0.0, t0, t1, t, comm_s, comm_us;
    double overall = 0.0, comp = 0.0, test = 0.0, wait = 0.0, init = 0.0, step_test;
    double s_overall, s_comp, s_test, s_wait, s_init, s_comm, c_min, c_max;

    if (count == 0) continue; /* as OSU: sizes below one element are skipped */

    /* 1. pure communication */
    MPI_Barrier(MPI_COMM_WORLD);
    for (i = 0; i < iters + skip; i++) {
      prepare(o.validate, sbuf, rbuf, count, rank, i);
      t0 = MPI_Wtime();
      MPI_Iallreduce(sbuf, rbuf, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
      t1 = MPI_Wtime();
      MPI_Barrier(MPI_COMM_WORLD);
      if (i >= skip) timer += t1 - t0;
      errors += check(o.validate, sbuf, rbuf, count, rank, nranks, i);
    }
    comm_s = timer / (double)iters; /* this rank's; its dummy compute lasts as long */
    comm_us = comm_s * 1e6;

    /* 2. the same with the dummy compute between start and wait */
    MPI_Barrier(MPI_COMM_WORLD);
    for (i = 0; i < iters + skip; i++) {
      double d_init, d_comp, d_wait;
      prepare(o.validate, sbuf, rbuf, count, rank, iters + skip + i);
      t0 = MPI_Wtime();
      MPI_Iallreduce(sbuf, rbuf, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &req);
      d_init = MPI_Wtime() - t0;
      t = MPI_Wtime();
      step_test = compute_and_test(comm_s, o.num_tests, &req);
      d_comp = MPI_Wtime() - t;
      t = MPI_Wtime();
      MPI_Wait(&req, MPI_STATUS_IGNORE);
      t1 = MPI_Wtime();
      d_wait = t1 - t;
      MPI_Barrier(MPI_COMM_WORLD);
      if (i >= skip) {
        overall += t1 - t0;
        comp += d_comp; /* includes the MPI_Test calls, as OSU's tcomp */
        test += step_test;
        wait += d_wait;
        init += d_init;
      }
      errors += check(o.validate, sbuf, rbuf, count, rank, nranks, iters + skip + i);
    }

    s_overall = at_root(overall * 1e6 / (double)iters, MPI_SUM) / nranks;
    s_comp = at_root(comp * 1e6 / (double)iters, MPI_SUM) / nranks;
    s_test = at_root(test * 1e6 / (double)iters, MPI_SUM) / nranks;
    s_wait = at_root(wait * 1e6 / (double)iters, MPI_SUM) / nranks;
    s_init = at_root(init * 1e6 / (double)iters, MPI_SUM) / nranks;
    s_comm = at_root(comm_us, MPI_SUM) / nranks;
    c_min = at_root(comm_us, MPI_MIN);
    c_max = at_root(comm_us, MPI_MAX);
    if (o.validate) {
      MPI_Allreduce(&errors, &errors_all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      if (errors_all) failed_any = 1;
    }
    if (rank == 0) {
      const int p = bench_precision;
      double overlap = s_comm > 0.0 ? 100.0 - 100.0 * (s_overall - (s_comp - s_test)) / s_comm : 0.0;
      if (overlap < 0.0) overlap = 0.0;
      printf("%-*zu%*.*f%*.*f", BENCH_SIZE_WIDTH, size, w, p, s_overall, w, p, s_comp - s_test);
      if (o.full)
        printf("%*.*f%*.*f%*.*f%*.*f%*.*f%*.*f", w, p, s_init, w, p, s_test, w, p, s_wait, w, p, s_comm, w, p,
               c_min, w, p, c_max);
      else
        printf("%*.*f", w, p, s_comm);
      printf("%*.*f", w, p, overlap);
      if (o.validate) printf("%*s", w, errors_all ? "Fail" : "Pass");
      printf("\n");
      fflush(stdout);
    }
  }

  free(sbuf);
  free(rbuf);
  MPI_Finalize();
  return failed_any ? 1 : 0;
}
