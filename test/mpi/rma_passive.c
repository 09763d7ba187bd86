/* Passive target against a target that makes no MPI calls: rank 0 computes in a plain loop, reading a flag
 * word of its own window with atomic loads (the unified memory model: MPI_WIN_MODEL is MPI_WIN_UNIFIED),
 * while every other rank works on it: exclusive and shared locks, lock_all, put, get, accumulate,
 * get_accumulate, fetch_and_op, compare_and_swap, rput/rget, flush, flush_local, of 8 bytes up to 256 KiB,
 * checking what it reads back element by element. When all are done the lowest of them writes the flag with
 * MPI_Accumulate(MPI_REPLACE); rank 0 must see it without any MPI call, then checks every word the others
 * left in its window. On MPI_Win_allocate and MPI_Win_create windows (argument "allocate" or "create": that
 * one alone).
 *
 * Progress of passive-target operations while the target makes no MPI calls is a quality goal beyond the
 * standard (MPI 5.0 allows an implementation to need the target's calls), so this is Pamir's requirement,
 * not MPI's. If the flag has not come after 15 s, rank 0 records a failure and goes on (its MPI calls then
 * let the others finish) rather than hanging. Runs with 2 and 3 ranks (any count of 2 or more works).
 *
 * With a second argument "lock_all", the others take MPI_Win_lock_all before rank 0 starts computing (its
 * barrier grants it) and keep it: puts read back after each flush, MPI_Rget and MPI_Rput, and the flag
 * raised by MPI_Put and a flush, no accumulate. Off the node a lock and an accumulate need the target's
 * progress unless the device has atomics; puts and gets need none where the device's RMA is its own
 * (the torus's engine), and this mode is what requires that there.
 *
 * Passed on Open MPI 4.1.4 with OMPI_MCA_osc=sm,pt2pt for MPI_Win_allocate (osc/sm), and on Pamir. Open
 * MPI's MPI_Win_create windows (osc/pt2pt, osc/rdma) and MPICH 4.0.2 (ch4:ucx, both windows) need the
 * target's MPI calls and fail by the timeout, as the standard allows. */
#include <stdint.h>

#include "check.h"

static int rank, size;

#define REGION (32 * 1024) /* long longs per origin: 256 KiB */
#define ROUNDS 6
#define SMALL 64
#define TIMEOUT_S 15.0

enum { W_FLAG = 0, W_COUNTER = 8, W_SWAP = 16, W_REGIONS = 64 }; /* W_SWAP + rank: each origin's word */

static long long value(int origin, int round, int i) {
  return ((long long)origin << 40) + ((long long)round << 24) + i;
}

/* Checks that got[i] == want[i] + plus for every i < n; a failure names the first that is not. */
static void check_read(const long long *got, const long long *want, int n, long long plus, const char *what,
                       const char *flavour, int round) {
  int bad = -1;
  for (int i = 0; i < n && bad < 0; ++i)
    if (got[i] != want[i] + plus) bad = i;
  CHECK(bad < 0, "%s round %d: %s %lld at %d, want %lld", flavour, round, what, bad < 0 ? 0 : got[bad], bad,
        bad < 0 ? 0 : want[bad] + plus);
}

/* Puts n values to this rank's region at rank 0, flushes, reads them back and checks them. */
static void put_and_read_back(MPI_Win win, MPI_Aint region, const long long *put, long long *got, int n,
                              const char *flavour, int round) {
  MPI_Put(put, n, MPI_LONG_LONG, 0, region, n, MPI_LONG_LONG, win);
  MPI_Win_flush(0, win);
  memset(got, 0, sizeof(long long) * (size_t)n);
  MPI_Get(got, n, MPI_LONG_LONG, 0, region, n, MPI_LONG_LONG, win);
  MPI_Win_flush(0, win);
  check_read(got, put, n, 0, "read back after the put", flavour, round);
}

/* Request-based: MPI_Rget of the region, checked against put + plus, then MPI_Rput of its first 8 words
 * (the values put last), and a flush of all. */
static void rget_then_rput(MPI_Win win, MPI_Aint region, const long long *put, long long *got, int n,
                           long long plus, const char *flavour, int round) {
  MPI_Request req;
  memset(got, 0, sizeof(long long) * (size_t)n);
  MPI_Rget(got, n, MPI_LONG_LONG, 0, region, n, MPI_LONG_LONG, win, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  check_read(got, put, n, plus, "MPI_Rget read", flavour, round);
  MPI_Rput(put, 8, MPI_LONG_LONG, 0, region, 8, MPI_LONG_LONG, win, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MPI_Win_flush_all(win);
}

/* The others' work against rank 0. */
static void origin_work(MPI_Win win, MPI_Comm origins, const char *flavour) {
  const MPI_Aint region = W_REGIONS + (MPI_Aint)(rank - 1) * REGION;
  long long *put = malloc(sizeof(long long) * REGION), *got = malloc(sizeof(long long) * REGION);
  const long long one = 1;
  for (int r = 0; r < ROUNDS; ++r) {
    const int n = r % 2 ? REGION : SMALL; /* 512 bytes and 256 KiB */
    for (int i = 0; i < n; ++i) put[i] = value(rank, r, i);
    /* Exclusive: put, read back, add 1 to each. */
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    put_and_read_back(win, region, put, got, n, flavour, r);
    for (int i = 0; i < n; ++i) got[i] = 1;
    MPI_Accumulate(got, n, MPI_LONG_LONG, 0, region, n, MPI_LONG_LONG, MPI_SUM, win);
    MPI_Win_unlock(0, win);
    /* Shared: read the sums with get_accumulate, count, swap. */
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    memset(got, 0, sizeof(long long) * (size_t)n);
    MPI_Get_accumulate(NULL, 0, MPI_LONG_LONG, got, n, MPI_LONG_LONG, 0, region, n, MPI_LONG_LONG, MPI_NO_OP,
                       win);
    long long before = -1, old = -1, next = r + 1, expect = r;
    MPI_Fetch_and_op(&one, &before, MPI_LONG_LONG, 0, W_COUNTER, MPI_SUM, win);
    MPI_Compare_and_swap(&next, &expect, &old, MPI_LONG_LONG, 0, W_SWAP + rank, win); /* this rank's word */
    MPI_Win_flush_local(0, win);
    check_read(got, put, n, 1, "the sum reads", flavour, r);
    CHECK(before >= 0 && before < (long long)ROUNDS * (size - 1) && old == r,
          "%s round %d: fetched counter %lld, swap word %lld (want %d)", flavour, r, before, old, r);
    MPI_Win_unlock(0, win);
    /* lock_all: request-based get of the region, put of its first words. */
    MPI_Win_lock_all(0, win);
    rget_then_rput(win, region, put, got, n, 1, flavour, r);
    MPI_Win_unlock_all(win);
  }
  /* All done: the lowest origin raises the flag. */
  MPI_Barrier(origins);
  if (rank == 1) {
    const long long raised = 1;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Accumulate(&raised, 1, MPI_LONG_LONG, 0, W_FLAG, 1, MPI_LONG_LONG, MPI_REPLACE, win);
    MPI_Win_unlock(0, win);
  }
  free(put);
  free(got);
}

/* The lock_all mode's work against rank 0: its lock_all was granted before rank 0 started computing. */
static void origin_work_lock_all(MPI_Win win, MPI_Comm origins, const char *flavour) {
  const MPI_Aint region = W_REGIONS + (MPI_Aint)(rank - 1) * REGION;
  long long *put = malloc(sizeof(long long) * REGION), *got = malloc(sizeof(long long) * REGION);
  for (int r = 0; r < ROUNDS; ++r) {
    const int n = r % 2 ? REGION : SMALL;
    for (int i = 0; i < n; ++i) put[i] = value(rank, r, i);
    put_and_read_back(win, region, put, got, n, flavour, r);
    rget_then_rput(win, region, put, got, n, 0, flavour, r);
  }
  MPI_Barrier(origins);
  if (rank == 1) {
    const long long raised = 1;
    MPI_Put(&raised, 1, MPI_LONG_LONG, 0, W_FLAG, 1, MPI_LONG_LONG, win);
    MPI_Win_flush(0, win);
  }
  MPI_Win_unlock_all(win); /* off the node this may wait for rank 0's next call: the flag is up by now */
  free(put);
  free(got);
}

/* Rank 0: a loop with no MPI call until the flag is up, then the window checked. */
static void target_work(MPI_Win win, long long *base, const char *flavour, int lock_all) {
  const int timed_out = !compute_until_flag(&base[W_FLAG], TIMEOUT_S);
  CHECK(!timed_out, "%s: the flag did not come within %.0f s of computing without MPI calls", flavour,
        TIMEOUT_S);
  if (timed_out) return; /* the others finish once this rank's calls progress them; nothing to check */
  MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
  if (!lock_all) {
    CHECK(base[W_COUNTER] == (long long)ROUNDS * (size - 1), "%s: counter %lld, want %lld", flavour,
          base[W_COUNTER], (long long)ROUNDS * (size - 1));
    for (int o = 1; o < size; ++o)
      CHECK(base[W_SWAP + o] == ROUNDS, "%s: rank %d's swap word %lld, want %d", flavour, o, base[W_SWAP + o],
            ROUNDS);
  }
  /* The last round (odd: the whole region) put its values everywhere (then added 1 to each, but for the
   * lock_all mode), then its first 8 words again. */
  const int plus = !lock_all;
  for (int o = 1; o < size; ++o) {
    const long long *region = base + W_REGIONS + (size_t)(o - 1) * REGION;
    int bad = -1;
    for (int i = 0; i < REGION && bad < 0; ++i)
      if (region[i] != value(o, ROUNDS - 1, i) + plus * (i >= 8)) bad = i;
    CHECK(bad < 0, "%s: rank %d's region at %d holds %lld, want %lld", flavour, o, bad,
          bad < 0 ? 0 : region[bad], bad < 0 ? 0 : value(o, ROUNDS - 1, bad) + plus * (bad >= 8));
  }
  MPI_Win_unlock(0, win);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2 && size <= 40, "needs 2 to 40 ranks, has %d", size);
  MPI_Comm origins;
  MPI_Comm_split(MPI_COMM_WORLD, rank == 0, rank, &origins);
  const MPI_Aint words = W_REGIONS + (MPI_Aint)(size - 1) * REGION;
  /* argv[1]: "allocate" or "create" runs that window alone, "both" or nothing both; argv[2]: "lock_all". */
  const char *only = argc > 1 && strcmp(argv[1], "both") != 0 ? argv[1] : "";
  const int lock_all = argc > 2 && strcmp(argv[2], "lock_all") == 0;
  for (int flavour = 0; flavour < 2 && size >= 2 && size <= 40; ++flavour) {
    if (*only && strcmp(only, flavour ? "create" : "allocate") != 0) continue;
    const char *name = flavour ? "MPI_Win_create" : "MPI_Win_allocate";
    long long *base = NULL;
    MPI_Win win;
    const MPI_Aint bytes = rank == 0 ? words * (MPI_Aint)sizeof(long long) : 0;
    if (flavour) {
      base = rank == 0 ? calloc((size_t)words, sizeof(long long)) : NULL;
      MPI_Win_create(base, bytes, sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    } else {
      MPI_Win_allocate(bytes, sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
      if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        memset(base, 0, (size_t)bytes);
        MPI_Win_unlock(0, win);
      }
    }
    int *model = NULL, flag = 0;
    MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag);
    CHECK(flag && *model == MPI_WIN_UNIFIED, "%s: MPI_WIN_MODEL is not MPI_WIN_UNIFIED", name);
    if (lock_all) { /* after rank 0's exclusive lock above, which the lock_all epochs would block */
      MPI_Barrier(MPI_COMM_WORLD);
      if (rank != 0) MPI_Win_lock_all(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
      target_work(win, base, name, lock_all);
    else if (lock_all)
      origin_work_lock_all(win, origins, name);
    else
      origin_work(win, origins, name);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    if (flavour) free(base);
  }
  MPI_Comm_free(&origins);
  return finish("rma_passive");
}
