/* Nonblocking collectives progress while a rank computes outside MPI (pami/progress_thread.h).
 *
 * For each collective, rank 0 starts it and then computes, making no MPI call, until every other rank
 * has finished its MPI_Wait (each says so by creating a file, a channel outside MPI), or until a
 * deadline. Each collective is chosen so that the others cannot finish unless rank 0's side moves:
 * rank 0's data must reach them, and their sends wait for rank 0 to take theirs. Only then does rank 0
 * call MPI_Wait; every rank checks its results element by element. Under PAMIR_ASYNC_PROGRESS=0 the
 * others wait out the deadline and the test fails (run.sh checks that it does), and so it does when
 * PAMIR_ASYNC_PROGRESS_MIN is above every size.
 *
 * Then the waiting side's cost: rank 0 computes ~2 s before it even starts an MPI_Iallreduce the others
 * already wait for, and each other rank measures its process CPU time (both threads) against the wall
 * time of its MPI_Wait: a waiting rank must sleep, not spin, with the progress thread engaged. The bound
 * is 25% of a core so a loaded machine cannot fail it spuriously (idle.c has the same bound).
 *
 * The same for a persistent MPI_Allreduce_init + MPI_Start. An MPI_Iallreduce with a user-defined
 * operation is not advanced by the thread: its function must run on the application's thread only.
 *
 * TEST_THREAD_MULTIPLE=1: the same under MPI_THREAD_MULTIPLE. TEST_ASYNC_DEADLINE: seconds rank 0
 * computes at most per collective (default 30). */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static double seconds(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static char marker_dir[64];

static void marker_path(char *out, size_t n, int round, int rank) {
  snprintf(out, n, "%s/r%d.%d", marker_dir, round, rank);
}

/* Work the compiler cannot drop, with no MPI call. */
static volatile double sink;
static void compute_a_while(void) {
  double x = sink;
  for (int i = 0; i < 20000; ++i) x = x * 0.999999 + 1e-9;
  sink = x;
}

/* Rank 0: computes until every other rank has marked round `round` done, or until the deadline.
 * Returns whether they all did. */
static int others_finished_while_computing(int round, int size, double deadline_s) {
  const double end = seconds(CLOCK_MONOTONIC) + deadline_s;
  for (;;) {
    int all = 1;
    for (int r = 1; r < size && all; ++r) {
      char p[128];
      marker_path(p, sizeof p, round, r);
      all = access(p, F_OK) == 0;
    }
    if (all) return 1;
    if (seconds(CLOCK_MONOTONIC) > end) return 0;
    compute_a_while();
  }
}

static void mark_done(int round, int rank) {
  char p[128];
  marker_path(p, sizeof p, round, rank);
  int fd = open(p, O_CREAT | O_WRONLY, 0600);
  if (fd >= 0) close(fd);
}

enum { kAllreduce, kBcast, kAlltoall, kAllgather, kPersistent, kUserOp, kKinds };
static const char *const kNames[kKinds] = {"MPI_Iallreduce",     "MPI_Ibcast",
                                           "MPI_Ialltoall",      "MPI_Iallgather",
                                           "MPI_Allreduce_init", "MPI_Iallreduce (user op)"};

/* A user-defined sum: the application's code, which must run on the application's thread only (the
 * progress thread never runs it, whatever the size). */
static pthread_t app_thread;
static int user_op_elsewhere;
static void user_sum(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  if (!pthread_equal(pthread_self(), app_thread)) user_op_elsewhere = 1;
  for (int i = 0; i < *len; ++i) ((int *)inout)[i] += ((const int *)in)[i];
}
static MPI_Op user_op;

/* One round: collective `kind` of `n` ints per part; rank 0 computes while the others wait. */
static void round_of(int kind, int round, int n, int rank, int size, double deadline_s) {
  int *in = malloc(sizeof(int) * (size_t)n * (size_t)size);
  int *out = malloc(sizeof(int) * (size_t)n * (size_t)size);
  for (long i = 0; i < (long)n * size; ++i) {
    in[i] = (int)(rank * 1000003 + i);
    out[i] = -1;
  }
  MPI_Request req;
  const int root = size - 1; /* the bcast's root is not rank 0: rank 0 must take its data */
  switch (kind) {
    case kPersistent:
      MPI_Allreduce_init(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
      MPI_Start(&req);
      break;
    case kUserOp:
      MPI_Iallreduce(in, out, n, MPI_INT, user_op, MPI_COMM_WORLD, &req);
      break;
    case kAllreduce:
      MPI_Iallreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
      break;
    case kBcast:
      MPI_Ibcast(rank == root ? in : out, n, MPI_INT, root, MPI_COMM_WORLD, &req);
      break;
    case kAlltoall:
      MPI_Ialltoall(in, n, MPI_INT, out, n, MPI_INT, MPI_COMM_WORLD, &req);
      break;
    default:
      MPI_Iallgather(in, n, MPI_INT, out, n, MPI_INT, MPI_COMM_WORLD, &req);
      break;
  }
  if (rank == 0 && kind == kUserOp) {
    /* Not engaged: the others wait for rank 0's next call, and the sum runs on the callers' threads. */
    const double end = seconds(CLOCK_MONOTONIC) + 0.2;
    while (seconds(CLOCK_MONOTONIC) < end) compute_a_while();
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  } else if (rank == 0) {
    const int finished = others_finished_while_computing(round, size, deadline_s);
    CHECK(finished,
          "%s of %d ints: the other ranks did not complete in %.0f s while rank 0 computed "
          "outside MPI",
          kNames[kind], n, deadline_s);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  } else {
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    mark_done(round, rank);
  }
  if (kind == kPersistent) MPI_Request_free(&req);
  long bad = 0, first = -1;
  for (long i = 0; i < (long)n * size; ++i) {
    int want;
    if (kind == kAllreduce || kind == kPersistent || kind == kUserOp) {
      if (i >= n) break;
      int64_t s = 0;
      for (int r = 0; r < size; ++r) s += (int64_t)r * 1000003 + i;
      want = (int)(uint32_t)s;
    } else if (kind == kBcast) {
      if (i >= n) break;
      if (rank == root) continue; /* the root's buffer is `in` */
      want = (int)(root * 1000003 + i);
    } else if (kind == kAlltoall) {
      const long src = i / n, j = i % n; /* part `rank` of src's buffer */
      want = (int)(src * 1000003 + (long)rank * n + j);
    } else {
      const long src = i / n, j = i % n;
      want = (int)(src * 1000003 + j);
    }
    if (out[i] != want) {
      if (first < 0) first = i;
      ++bad;
    }
  }
  CHECK(bad == 0, "%s of %d ints: %ld wrong elements, the first at %ld", kNames[kind], n, bad, first);
  free(in);
  free(out);
  MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  const char *multiple = getenv("TEST_THREAD_MULTIPLE");
  int provided = MPI_THREAD_SINGLE;
  if (multiple && strcmp(multiple, "1") == 0)
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  else
    MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "needs 2 ranks or more, has %d", size);
  const char *d = getenv("TEST_ASYNC_DEADLINE");
  const double deadline_s = d ? atof(d) : 30.0;
  if (rank == 0) {
    snprintf(marker_dir, sizeof marker_dir, "/tmp/pamir-async-XXXXXX");
    if (!mkdtemp(marker_dir)) marker_dir[0] = 0;
  }
  MPI_Bcast(marker_dir, sizeof marker_dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  app_thread = pthread_self();
  MPI_Op_create(user_sum, 1, &user_op);
  CHECK(marker_dir[0] != 0, "mkdtemp failed");
  if (size < 2 || !marker_dir[0]) return finish("async_progress");

  /* Parts of 256 KiB and 1 MiB: from PAMIR_ASYNC_PROGRESS_MIN's default, and where the data waits for
   * the other side. */
  static const int kCounts[] = {65536, 262144};
  int round = 0;
  for (int k = 0; k < kKinds; ++k)
    for (size_t c = 0; c < sizeof kCounts / sizeof kCounts[0]; ++c)
      round_of(k, round++, kCounts[c], rank, size, deadline_s);

  /* The waiting side sleeps: the others wait in MPI_Wait while rank 0 computes before it starts. */
  enum { kN = 262144 };
  int *in = malloc(sizeof(int) * kN), *out = malloc(sizeof(int) * kN);
  for (int i = 0; i < kN; ++i) in[i] = rank + i;
  double share = 0;
  MPI_Request req;
  if (rank == 0) {
    const double end = seconds(CLOCK_MONOTONIC) + 2.0;
    while (seconds(CLOCK_MONOTONIC) < end) compute_a_while();
    MPI_Iallreduce(in, out, kN, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  } else {
    MPI_Iallreduce(in, out, kN, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &req);
    const double wall0 = seconds(CLOCK_MONOTONIC), cpu0 = seconds(CLOCK_PROCESS_CPUTIME_ID);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    const double wall = seconds(CLOCK_MONOTONIC) - wall0, cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
    share = wall > 0 ? cpu / wall : 1;
    CHECK(share < 0.25, "a rank waiting %.2f s in MPI_Wait for an MPI_Iallreduce used %.0f%% of a core", wall,
          share * 100);
  }
  long bad = 0;
  for (int i = 0; i < kN; ++i) bad += out[i] != size - 1 + i;
  CHECK(bad == 0, "MPI_Iallreduce MAX after the wait: %ld wrong elements", bad);
  double worst = 0;
  MPI_Reduce(&share, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  free(in);
  free(out);

  CHECK(!user_op_elsewhere, "a user-defined reduction ran on a thread other than the application's");
  MPI_Op_free(&user_op);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    for (int r = 0; r < round; ++r)
      for (int q = 1; q < size; ++q) {
        char p[128];
        marker_path(p, sizeof p, r, q);
        unlink(p);
      }
    rmdir(marker_dir);
    printf("async_progress: a waiting rank used at most %.1f%% of a core\n", worst * 100);
  }
  return finish("async_progress");
}
