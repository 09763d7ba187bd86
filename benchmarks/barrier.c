/*
 * MPI_Barrier latency, OSU osu_barrier compatible: MPI_COMM_WORLD, any number of ranks (at least
 * two), -x untimed then -i timed barriers (default 100 and 1000), each timed on its own. No size
 * column: the header is "# Avg Latency(us)" and the one row is each rank's mean time per barrier
 * in microseconds, averaged over the ranks; -f adds the lowest and highest of the ranks' means and
 * the iteration count. As in OSU, the barriers follow each other directly (a barrier is its own
 * synchronisation; no extra barrier between them). -m is accepted and ignored, as in OSU.
 *
 * With -c (not in OSU) every timed barrier is preceded by a checked one, which rank (i mod ranks)
 * enters 200 us late; around both each rank reads CLOCK_MONOTONIC just before entering and just
 * after leaving, and afterwards rank 0 collects the times and checks for every barrier that no rank
 * left it before the last rank had entered it (max entry <= min exit). The clock is one clock for
 * all processes of a host, so -c needs all ranks on one host (or MPI_WTIME_IS_GLOBAL, then
 * MPI_Wtime is used); otherwise it refuses to run. With -c the latency figure includes the
 * checked barriers' after-effects and is not a measurement.
 */
#include "common.h"
/* After common.h, whose _POSIX_C_SOURCE <time.h> reads (clock_gettime, nanosleep); this line keeps
 * clang-format from sorting the two. */
#include <time.h>

#define BARRIER_DELAY_NS 200000L

static int use_wtime; /* ranks on several hosts with MPI_WTIME_IS_GLOBAL */

static double now(void) {
  struct timespec ts;
  if (use_wtime) return MPI_Wtime();
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* 1 when every rank runs on the host rank 0 runs on (names compared by rank 0, point-to-point). */
static int one_host(int rank, int nranks) {
  char name[MPI_MAX_PROCESSOR_NAME + 1], other[MPI_MAX_PROCESSOR_NAME + 1];
  int len = 0, r, same = 1;
  memset(name, 0, sizeof name);
  MPI_Get_processor_name(name, &len);
  if (rank == 0) {
    for (r = 1; r < nranks; r++) {
      memset(other, 0, sizeof other);
      MPI_Recv(other, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, r, BENCH_TAG_SYNC, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (strcmp(name, other) != 0) same = 0;
    }
    for (r = 1; r < nranks; r++) MPI_Send(&same, 1, MPI_INT, r, BENCH_TAG_SYNC, MPI_COMM_WORLD);
  } else {
    MPI_Send(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, BENCH_TAG_SYNC, MPI_COMM_WORLD);
    MPI_Recv(&same, 1, MPI_INT, 0, BENCH_TAG_SYNC, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  return same;
}

int main(int argc, char **argv) {
  const char *title = "Pamir MPI Barrier Latency Test";
  struct bench_options o;
  int rank, nranks, rc, errors = 0;
  long i, n = 0, b;
  double timer = 0.0, t0, t1;
  double *enter = NULL, *leave = NULL; /* per checked or timed barrier, this rank's clock */

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);

  rc = bench_parse_options(argc, argv, BENCH_BARRIER, rank, title, &o);
  if (rc != 0) {
    MPI_Finalize();
    return rc < 0 ? 1 : 0;
  }
  if (nranks < 2) {
    if (rank == 0) fprintf(stderr, "This test requires at least two processes\n");
    MPI_Finalize();
    return 1;
  }

  if (o.validate) {
    if (!one_host(rank, nranks)) {
      int flag = 0, *global = NULL;
      MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &global, &flag);
      if (!flag || global == NULL || !*global) {
        if (rank == 0)
          fprintf(stderr, "%s: -c needs all ranks on one host (or a global MPI_Wtime)\n", argv[0]);
        MPI_Finalize();
        return 1;
      }
      use_wtime = 1;
    }
    n = 2 * (o.iterations + o.skip);
    enter = malloc((size_t)n * sizeof *enter);
    leave = malloc((size_t)n * sizeof *leave);
    if (enter == NULL || leave == NULL) {
      fprintf(stderr, "rank %d: cannot allocate %ld timestamps\n", rank, 2 * n);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }

  if (rank == 0) bench_coll_header(title, NULL, &o);

  MPI_Barrier(MPI_COMM_WORLD);
  for (i = 0; i < o.iterations + o.skip; i++) {
    if (o.validate) {
      if (rank == (int)(i % nranks)) {
        struct timespec d = {0, BARRIER_DELAY_NS};
        nanosleep(&d, NULL);
      }
      enter[2 * i] = now();
      MPI_Barrier(MPI_COMM_WORLD);
      leave[2 * i] = now();
      enter[2 * i + 1] = now();
    }
    t0 = MPI_Wtime();
    MPI_Barrier(MPI_COMM_WORLD);
    t1 = MPI_Wtime();
    if (o.validate) leave[2 * i + 1] = now();
    if (i >= o.skip) timer += t1 - t0;
  }

  if (o.validate) {
    /* rank 0 folds every rank's times in: latest entry and earliest exit per barrier */
    if (rank == 0) {
      double *e = malloc((size_t)n * sizeof *e), *l = malloc((size_t)n * sizeof *l);
      int r;
      if (e == NULL || l == NULL) MPI_Abort(MPI_COMM_WORLD, 1);
      for (r = 1; r < nranks; r++) {
        MPI_Recv(e, (int)n, MPI_DOUBLE, r, BENCH_TAG_SYNC, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(l, (int)n, MPI_DOUBLE, r, BENCH_TAG_SYNC, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (b = 0; b < n; b++) {
          if (e[b] > enter[b]) enter[b] = e[b];
          if (l[b] < leave[b]) leave[b] = l[b];
        }
      }
      for (b = 0; b < n; b++)
        if (leave[b] < enter[b]) errors++;
      if (errors)
        fprintf(stderr,
                "%s: %d of %ld barriers were left by some rank before every rank had "
                "entered them\n",
                argv[0], errors, n);
      free(e);
      free(l);
    } else {
      MPI_Send(enter, (int)n, MPI_DOUBLE, 0, BENCH_TAG_SYNC, MPI_COMM_WORLD);
      MPI_Send(leave, (int)n, MPI_DOUBLE, 0, BENCH_TAG_SYNC, MPI_COMM_WORLD);
    }
  }

  errors =
      bench_coll_report(rank, nranks, 0, 0, timer * 1e6 / (double)o.iterations, o.iterations, errors, &o);

  free(enter);
  free(leave);
  MPI_Finalize();
  return errors ? 1 : 0;
}
