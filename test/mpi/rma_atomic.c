/* Accumulate atomicity under contention from every rank, on MPI_Win_allocate and MPI_Win_create windows:
 * - a counter incremented by MPI_Fetch_and_op(MPI_SUM, 1) from every rank ends exact, and the fetched
 *   values are exactly 0 .. total-1, each once;
 * - MPI_Accumulate(MPI_SUM) of a 64-element and a 1000-element array from every rank, in shared-lock and
 *   lock_all epochs: every element ends exact, the guard elements around the array untouched;
 * - MPI_Compare_and_swap as a spin lock around a non-atomic get/increment/put of another word (and an owner
 *   word nobody else may see taken): the word ends at the number of critical sections;
 * - MPI_Accumulate and MPI_Fetch_and_op on the same element: fetch_and_op adds 1, accumulate adds 1 << 20.
 *   The low parts fetched are exactly 0 .. fops-1, and each origin's fetched values grow and count all of
 *   its own earlier accumulates (same-origin accumulates are ordered by default).
 * A spin longer than 30 s records a failure rather than hanging. Runs with 2 and 4 ranks (any count works).
 *
 * Passed on MPICH 4.0.2 (Debian) and on Open MPI 4.1.4 with OMPI_MCA_osc=sm,pt2pt (its default osc/rdma
 * crashes in MPI_Compare_and_swap), 1-4 ranks. */
#include <stdint.h>

#include "check.h"

static int rank, size;

#define FOPS 500    /* fetch_and_ops per rank */
#define ACCS 200    /* array accumulates per rank */
#define SECTIONS 40 /* critical sections per rank */
#define MIXED 1000  /* pairs of accumulate + fetch_and_op per rank */
#define GUARD 8

/* Window layout, in long longs (the same on every rank). */
enum {
  W_COUNTER = 0,
  W_LOCK = 8,
  W_DATA = 16,
  W_OWNER = 24,
  W_MIXED = 32,
  W_SMALL = 64,                     /* GUARD + 64 + GUARD */
  W_BIG = W_SMALL + 64 + 2 * GUARD, /* GUARD + 1000 + GUARD */
  W_WORDS = W_BIG + 1000 + 2 * GUARD
};
#define GUARD_VALUE(i) (0x5A5A000000000000LL + (long long)(i))

static int cmp_ll(const void *a, const void *b) {
  long long x = *(const long long *)a, y = *(const long long *)b;
  return x < y ? -1 : x > y;
}

static void counter(MPI_Win win, long long *base, const char *flavour) {
  const int target = size - 1;
  long long *fetched = malloc(sizeof(long long) * FOPS), one = 1;
  MPI_Win_lock_all(0, win);
  for (int i = 0; i < FOPS; ++i) {
    MPI_Fetch_and_op(&one, &fetched[i], MPI_LONG_LONG, target, W_COUNTER, MPI_SUM, win);
    MPI_Win_flush(target, win);
  }
  MPI_Win_unlock_all(win);
  int increasing = 1;
  for (int i = 1; i < FOPS; ++i) increasing &= fetched[i] > fetched[i - 1];
  CHECK(increasing, "%s: this rank's fetched counter values do not increase", flavour);
  long long *all = rank == 0 ? malloc(sizeof(long long) * FOPS * (size_t)size) : NULL;
  MPI_Gather(fetched, FOPS, MPI_LONG_LONG, all, FOPS, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    qsort(all, (size_t)FOPS * (size_t)size, sizeof(long long), cmp_ll);
    long long bad = -1;
    for (long long i = 0; i < (long long)FOPS * size && bad < 0; ++i)
      if (all[i] != i) bad = i;
    CHECK(bad < 0, "%s: the fetched values sorted: position %lld holds %lld (a value fetched twice or never)",
          flavour, bad, bad < 0 ? 0 : all[bad]);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == target) {
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    CHECK(base[W_COUNTER] == (long long)FOPS * size, "%s: the counter is %lld, want %lld", flavour,
          base[W_COUNTER], (long long)FOPS * size);
    MPI_Win_unlock(rank, win);
  }
  free(fetched);
  free(all);
}

static void arrays(MPI_Win win, long long *base, const char *flavour) {
  const int target = 0;
  long long *src = malloc(sizeof(long long) * 1000);
  for (int i = 0; i < 1000; ++i) src[i] = (long long)(rank + 1) * (i + 1);
  for (int k = 0; k < ACCS; ++k) {
    const int big = k % 4 == 3, n = big ? 1000 : 64;
    const MPI_Aint disp = (big ? W_BIG : W_SMALL) + GUARD;
    if (k % 2) {
      MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win);
      MPI_Accumulate(src, n, MPI_LONG_LONG, target, disp, n, MPI_LONG_LONG, MPI_SUM, win);
      MPI_Win_unlock(target, win);
    } else {
      MPI_Win_lock_all(0, win);
      MPI_Accumulate(src, n, MPI_LONG_LONG, target, disp, n, MPI_LONG_LONG, MPI_SUM, win);
      MPI_Win_flush_local(target, win);
      MPI_Win_unlock_all(win);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == target) {
    const long long ranks = (long long)size * (size + 1) / 2; /* sum of rank + 1 */
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    for (int big = 0; big < 2; ++big) {
      const int n = big ? 1000 : 64, start = big ? W_BIG : W_SMALL, times = big ? ACCS / 4 : ACCS - ACCS / 4;
      int bad = -1;
      for (int i = 0; i < n && bad < 0; ++i)
        if (base[start + GUARD + i] != (long long)times * ranks * (i + 1)) bad = i;
      CHECK(bad < 0, "%s: %d-element array: element %d is %lld, want %lld", flavour, n, bad,
            bad < 0 ? 0 : base[start + GUARD + bad], bad < 0 ? 0 : (long long)times * ranks * (bad + 1));
      int guard = -1;
      for (int i = 0; i < GUARD && guard < 0; ++i) {
        if (base[start + i] != GUARD_VALUE(start + i)) guard = start + i;
        if (base[start + GUARD + n + i] != GUARD_VALUE(start + GUARD + n + i)) guard = start + GUARD + n + i;
      }
      CHECK(guard < 0, "%s: guard word %d around the %d-element array changed", flavour, guard, n);
    }
    MPI_Win_unlock(rank, win);
  }
  free(src);
}

/* Spins on MPI_Compare_and_swap for the lock word at rank 0; the section reads, increments and writes the
 * data word with plain get and put, and takes the owner word (which must be free) for its duration. */
static void spin_lock(MPI_Win win, long long *base, const char *flavour) {
  const int target = 0;
  const long long me = rank + 1, zero = 0;
  int timed_out = 0, overlaps = 0;
  MPI_Win_lock_all(0, win);
  for (int k = 0; k < SECTIONS && !timed_out; ++k) {
    long long old = -1;
    const double start = MPI_Wtime();
    for (;;) {
      MPI_Compare_and_swap(&me, &zero, &old, MPI_LONG_LONG, target, W_LOCK, win);
      MPI_Win_flush(target, win);
      if (old == 0) break;
      if (MPI_Wtime() - start > 30) {
        timed_out = 1;
        break;
      }
    }
    if (timed_out) break;
    long long owner = -1, data = -1;
    MPI_Get(&owner, 1, MPI_LONG_LONG, target, W_OWNER, 1, MPI_LONG_LONG, win);
    MPI_Get(&data, 1, MPI_LONG_LONG, target, W_DATA, 1, MPI_LONG_LONG, win);
    MPI_Win_flush(target, win);
    overlaps += owner != 0;
    MPI_Put(&me, 1, MPI_LONG_LONG, target, W_OWNER, 1, MPI_LONG_LONG, win);
    ++data;
    MPI_Put(&data, 1, MPI_LONG_LONG, target, W_DATA, 1, MPI_LONG_LONG, win);
    MPI_Win_flush(target, win);
    MPI_Put(&zero, 1, MPI_LONG_LONG, target, W_OWNER, 1, MPI_LONG_LONG, win);
    MPI_Win_flush(target, win);
    /* Release: swap our id back to 0; it must still be ours. */
    MPI_Compare_and_swap(&zero, &me, &old, MPI_LONG_LONG, target, W_LOCK, win);
    MPI_Win_flush(target, win);
    CHECK(old == me, "%s: the lock word was %lld while this rank held it", flavour, old);
  }
  MPI_Win_unlock_all(win);
  CHECK(!timed_out, "%s: no lock within 30 s", flavour);
  CHECK(overlaps == 0, "%s: %d critical sections found the owner word taken", flavour, overlaps);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == target) {
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    CHECK(base[W_DATA] == (long long)SECTIONS * size && base[W_LOCK] == 0 && base[W_OWNER] == 0,
          "%s: data %lld (want %lld), lock %lld, owner %lld", flavour, base[W_DATA],
          (long long)SECTIONS * size, base[W_LOCK], base[W_OWNER]);
    MPI_Win_unlock(rank, win);
  }
}

static void mixed(MPI_Win win, long long *base, const char *flavour) {
  const int target = size > 1 ? 1 : 0;
  const long long one = 1, high = 1LL << 20;
  long long *fetched = malloc(sizeof(long long) * MIXED);
  MPI_Win_lock_all(0, win);
  for (int k = 0; k < MIXED; ++k) {
    MPI_Accumulate(&high, 1, MPI_LONG_LONG, target, W_MIXED, 1, MPI_LONG_LONG, MPI_SUM, win);
    MPI_Fetch_and_op(&one, &fetched[k], MPI_LONG_LONG, target, W_MIXED, MPI_SUM, win);
    if (k % 3 == 0) MPI_Win_flush(target, win);
    if (k % 3 == 2) MPI_Win_flush_all(win);
  }
  MPI_Win_unlock_all(win);
  /* The k-th fetch follows this rank's k + 1 accumulates; each fetch sees the one before it. */
  int missed = -1, shrank = -1;
  for (int k = 0; k < MIXED; ++k) {
    if (missed < 0 && (fetched[k] >> 20) < k + 1) missed = k;
    if (shrank < 0 && k && fetched[k] <= fetched[k - 1]) shrank = k;
  }
  CHECK(missed < 0,
        "%s: fetch_and_op %d fetched %lld (%lld accumulates, %lld fetch_and_ops): fewer than this rank's %d "
        "accumulates before it",
        flavour, missed, missed < 0 ? 0 : fetched[missed], missed < 0 ? 0 : fetched[missed] >> 20,
        missed < 0 ? 0 : fetched[missed] & (high - 1), missed + 1);
  CHECK(shrank < 0, "%s: fetch_and_op %d fetched %lld, not more than the %lld fetched before it", flavour,
        shrank, shrank < 0 ? 0 : fetched[shrank], shrank < 0 ? 0 : fetched[shrank - 1]);
  long long *all = rank == 0 ? malloc(sizeof(long long) * MIXED * (size_t)size) : NULL;
  for (int k = 0; k < MIXED; ++k) fetched[k] &= high - 1;
  MPI_Gather(fetched, MIXED, MPI_LONG_LONG, all, MIXED, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    qsort(all, (size_t)MIXED * (size_t)size, sizeof(long long), cmp_ll);
    long long bad = -1;
    for (long long i = 0; i < (long long)MIXED * size && bad < 0; ++i)
      if (all[i] != i) bad = i;
    CHECK(bad < 0, "%s: the fetch_and_op counts sorted: position %lld holds %lld", flavour, bad,
          bad < 0 ? 0 : all[bad]);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == target) {
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    const long long want = (long long)MIXED * size * (high + 1);
    CHECK(base[W_MIXED] == want, "%s: mixed element %lld, want %lld", flavour, base[W_MIXED], want);
    MPI_Win_unlock(rank, win);
  }
  free(fetched);
  free(all);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int flavour = 0; flavour < 2; ++flavour) {
    const char *name = flavour ? "MPI_Win_create" : "MPI_Win_allocate";
    const MPI_Aint bytes = (MPI_Aint)(sizeof(long long) * W_WORDS);
    long long *base = NULL;
    MPI_Win win;
    if (flavour) {
      base = malloc((size_t)bytes);
      for (int i = 0; i < W_WORDS; ++i) base[i] = GUARD_VALUE(i);
      for (int i = 0; i < 64; ++i) base[W_SMALL + GUARD + i] = 0;
      for (int i = 0; i < 1000; ++i) base[W_BIG + GUARD + i] = 0;
      base[W_COUNTER] = base[W_LOCK] = base[W_DATA] = base[W_OWNER] = base[W_MIXED] = 0;
      MPI_Win_create(base, bytes, sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    } else {
      MPI_Win_allocate(bytes, sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
      for (int i = 0; i < W_WORDS; ++i) base[i] = GUARD_VALUE(i);
      for (int i = 0; i < 64; ++i) base[W_SMALL + GUARD + i] = 0;
      for (int i = 0; i < 1000; ++i) base[W_BIG + GUARD + i] = 0;
      base[W_COUNTER] = base[W_LOCK] = base[W_DATA] = base[W_OWNER] = base[W_MIXED] = 0;
      MPI_Win_unlock(rank, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    counter(win, base, name);
    arrays(win, base, name);
    spin_lock(win, base, name);
    mixed(win, base, name);
    MPI_Win_free(&win);
    if (flavour) free(base);
  }
  return finish("rma_atomic");
}
