/*
 * cma_cost: what one cross-memory read costs against plain copies, between two processes on two cores:
 * a process_vm_readv of N bytes of the other process's memory, a memcpy of N bytes of shared memory the
 * other core wrote just before, and a memcpy of local memory. Each of the other's buffers is written
 * once (`clean`, as the send buffer of a benchmark loop) or before every copy (`written`). Not MPI.
 *
 *   cc -O2 -o cma_cost benchmarks/cma_cost.c && ./cma_cost [BYTES]    (default 65536)
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(int argc, char **argv) {
  const size_t n = argc > 1 ? strtoul(argv[1], NULL, 0) : 65536;
  const int iters = 2000;
  for (int rewrite = 0; rewrite < 2; ++rewrite) {
    char *shared = mmap(NULL, 4096 + n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    _Atomic long *flag = (_Atomic long *)shared;
    char *sdata = shared + 4096, *priv = aligned_alloc(64, n), *dst = aligned_alloc(64, n);
    memset(priv, 1, n);
    memset(dst, 0, n);
    atomic_store(flag, 0);
    const pid_t child = fork();
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(child == 0 ? 1 : 0, &set);
    sched_setaffinity(0, sizeof set, &set);
    if (child == 0) { /* on request k (flag 2k-1): writes its buffers if asked, answers 2k */
      for (long k = 1; k <= 3L * iters; ++k) {
        while (atomic_load(flag) != 2 * k - 1) {
        }
        if (rewrite || k < 4) {
          memset(sdata, (int)k, n);
          memset(priv, (int)k, n);
        }
        atomic_store(flag, 2 * k);
      }
      _exit(0);
    }
    long k = 0;
    double t_shm = 0, t_cma = 0, t_local = 0;
    for (int i = 0; i < iters; ++i) {
      atomic_store(flag, 2 * ++k - 1);
      while (atomic_load(flag) != 2 * k) {
      }
      double t0 = now_us();
      memcpy(dst, sdata, n);
      t_shm += now_us() - t0;
      atomic_store(flag, 2 * ++k - 1);
      while (atomic_load(flag) != 2 * k) {
      }
      struct iovec l = {dst, n}, r = {priv, n};
      t0 = now_us();
      if (process_vm_readv(child, &l, 1, &r, 1, 0) != (ssize_t)n) {
        perror("process_vm_readv");
        return 1;
      }
      t_cma += now_us() - t0;
      atomic_store(flag, 2 * ++k - 1);
      while (atomic_load(flag) != 2 * k) {
      }
      t0 = now_us();
      memcpy(dst, priv, n);
      t_local += now_us() - t0;
    }
    waitpid(child, NULL, 0);
    printf("%zu bytes, %s: process_vm_readv %.2f us, memcpy of shared memory %.2f us, local memcpy %.2f us\n",
           n, rewrite ? "written before each copy" : "clean", t_cma / iters, t_shm / iters, t_local / iters);
    munmap(shared, 4096 + n);
    free(priv);
    free(dst);
  }
  return 0;
}
