/* Shared helpers for the multi-rank test programs: count checks, print failures with their place. */
#ifndef PAMIR_TEST_CHECK_H
#define PAMIR_TEST_CHECK_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../refuse_cma.h"

static int checks_passed, checks_failed;

/* Before main (so before MPI_Init) this process refuses itself system calls the library must do without
 * (refuse_cma.h), when NAME=1, or NAME_RANK=N names its rank (the launcher's PMIX_RANK) so the others keep
 * them. TEST_REFUSE_CMA: cross-memory attach; the library must notice and move the data another way.
 * TEST_REFUSE_MEMBARRIER: the sleepers' barrier; this process's ringers keep their fence and its sleepers
 * cap their sleeps (doorbell.h). */
static void refuse_if_asked(const char *name, int (*refuse)(void)) {
  char rank_var[64];
  snprintf(rank_var, sizeof rank_var, "%s_RANK", name);
  const char *v = getenv(name), *only = getenv(rank_var), *me = getenv("PMIX_RANK");
  const int one = only && me && strcmp(only, me) == 0;
  if (!one && (!v || strcmp(v, "1") != 0)) return;
  const int rc = refuse();
  if (rc != 0) {
    fprintf(stderr, "%s: cannot install the seccomp filter: %s\n", name, strerror(-rc));
    exit(2);
  }
}
__attribute__((constructor)) static void refuse_what_is_asked(void) {
  refuse_if_asked("TEST_REFUSE_CMA", refuse_cma);
  refuse_if_asked("TEST_REFUSE_MEMBARRIER", refuse_membarrier);
}

#define CHECK(cond, ...)                                                          \
  do {                                                                            \
    if (cond) {                                                                   \
      ++checks_passed;                                                            \
    } else {                                                                      \
      ++checks_failed;                                                            \
      int r_ = -1;                                                                \
      MPI_Comm_rank(MPI_COMM_WORLD, &r_);                                         \
      fprintf(stderr, "FAIL rank %d %s:%d: %s: ", r_, __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                               \
      fprintf(stderr, "\n");                                                      \
    }                                                                             \
  } while (0)

/* Seconds on the monotonic clock. */
static inline double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A target that computes and makes no MPI call until another rank raises the word at `flag` (one-sided,
 * to a nonzero value), for at most `timeout_s` seconds: 1 if the flag came, 0 if not. Passive target
 * must not wait on such a rank (a quality goal beyond the standard, which lets it wait for the target's
 * next MPI call). */
static inline int compute_until_flag(const long long *flag, double timeout_s) {
  const double start = now();
  volatile double sink;
  double x = 1.0;
  unsigned long spins = 0;
  while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) == 0) {
    for (int i = 0; i < 100; ++i) x = x * 0.999 + 1.0; /* some arithmetic (x tends to 1000) */
    if ((++spins & 0x3ff) == 0 && now() - start > timeout_s) return 0;
  }
  sink = x;
  (void)sink;
  return 1;
}

/* The class of an MPI error code. */
static inline int err_class(int code) {
  int cls = -1;
  MPI_Error_class(code, &cls);
  return cls;
}

/* Ends the program: one summary line per rank 0 and exit 0 only if every rank passed. */
static inline int finish(const char *name) {
  int failed = checks_failed, total_failed = 0, passed = checks_passed, total_passed = 0, rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Allreduce(&failed, &total_failed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&passed, &total_passed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("%s: %d checks passed, %d failed\n", name, total_passed, total_failed);
  MPI_Finalize();
  return total_failed ? 1 : 0;
}

#endif
