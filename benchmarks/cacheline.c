/*
 * The floor under any shared-memory latency on this machine: two processes, one per core (0 and 1),
 * hand one cache line back and forth through a shared mapping, with nothing else. Prints the one-way
 * time (half a round trip) in microseconds, the figure osu_latency reports, for two halves of the run.
 * No MPI:
 *
 *   cc -O2 -o cacheline benchmarks/cacheline.c && ./cacheline [ROUND_TRIPS]     (default 1000000)
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  const uint64_t n = (argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000) / 2 * 2; /* two equal halves */
  /* Two words on lines of their own: each side writes one and waits on the other. */
  volatile uint64_t *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return 1;
  volatile uint64_t *ping = m, *pong = m + 8;
  const pid_t child = fork();
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(child ? 0 : 1, &set);
  if (sched_setaffinity(0, sizeof set, &set)) perror("sched_setaffinity");
  if (!child) {
    for (uint64_t i = 1; i <= n; ++i) {
      while (*ping != i) {
      }
      *pong = i;
    }
    return 0;
  }
  for (uint64_t half = 0; half < 2; ++half) {
    const double t0 = now();
    for (uint64_t i = half * (n / 2) + 1; i <= (half + 1) * (n / 2); ++i) {
      *ping = i;
      while (*pong != i) {
      }
    }
    printf("one cache line, one way: %.3f us\n", (now() - t0) / (double)(n / 2) / 2 * 1e6);
  }
  waitpid(child, NULL, 0);
  return 0;
}
