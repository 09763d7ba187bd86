/*
 * doorbell_cost: what the two halves of the shm doorbell's fence cost (devices/shm/doorbell.h), between
 * two processes on cores 0 and 1: a cache line's round trip (one process stores, the other sees it and
 * answers on a second line), which is what a ringer's full fence waits for when its packet's line was
 * last read by the receiver; and the sleepers' barrier, membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED),
 * alone and with a registered process spinning on the other core (the barrier then interrupts it).
 * Not MPI.
 *
 *   cc -O2 -o doorbell_cost benchmarks/doorbell_cost.c && ./doorbell_cost
 */
#define _GNU_SOURCE
#include <linux/membarrier.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

static void pin(int cpu) {
  cpu_set_t s;
  CPU_ZERO(&s);
  CPU_SET(cpu, &s);
  sched_setaffinity(0, sizeof s, &s);
}

static double barrier_ns(int calls) {
  const double t0 = now_ns();
  for (int i = 0; i < calls; ++i)
    if (syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL_EXPEDITED, 0, 0) != 0) return -1;
  return (now_ns() - t0) / calls;
}

int main(void) {
  /* Two lines, one written by each process. */
  _Atomic long *line = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  _Atomic long *ping = line, *pong = line + 8;
  const long trips = 2000000;
  pid_t child = fork();
  if (child == 0) {
    pin(1);
    for (long i = 1; i <= trips; ++i) {
      while (atomic_load_explicit(ping, memory_order_acquire) != i) {
      }
      atomic_store_explicit(pong, i, memory_order_release);
    }
    _exit(0);
  }
  pin(0);
  double t0 = now_ns();
  for (long i = 1; i <= trips; ++i) {
    atomic_store_explicit(ping, i, memory_order_release);
    while (atomic_load_explicit(pong, memory_order_acquire) != i) {
    }
  }
  const double trip = (now_ns() - t0) / trips;
  waitpid(child, NULL, 0);
  printf("cache line round trip between cores 0 and 1: %.0f ns (%.0f ns one way)\n", trip, trip / 2);

  if (syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0, 0) != 0) {
    printf("membarrier GLOBAL_EXPEDITED: refused here\n");
    return 0;
  }
  printf("sleepers' barrier, no registered process running elsewhere: %.2f us\n", barrier_ns(10000) / 1e3);
  child = fork();
  if (child == 0) {
    pin(1);
    syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0, 0);
    for (volatile long x = 0;; ++x) {
    }
  }
  usleep(100000);
  printf("sleepers' barrier, a registered process spinning on core 1: %.2f us\n", barrier_ns(10000) / 1e3);
  kill(child, SIGKILL);
  waitpid(child, NULL, 0);
  return 0;
}
