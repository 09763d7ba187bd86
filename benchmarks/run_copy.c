/*
 * When a window's puts and gets should stream (pami/stream_copy.h, RunCopier), with no MPI: one process
 * copies WINDOW pieces of N bytes each from shared memory (as from a Win_allocate window) into a private
 * buffer, one after the other, as OSU's bandwidth programs do with their window of 64 operations, over
 * and over (at least 20 rounds, 256 MiB in all). Three ways are timed in turn:
 *   memcpy  glibc's memcpy for every piece;
 *   stream  streaming stores for every piece (the same loop as pami/stream_copy.cc);
 *   run     memcpy until the pieces' run passes RUN bytes, streaming stores after (Pamir's default).
 * With WINDOW 1 the same place is copied again and again (a latency loop): the run never grows.
 * On the machine of issue 21's eighth stop (two launches, WINDOW 64): from pieces of 128 KiB, memcpy
 * 4.8-13 GB/s, streaming 6.7-19, the run 6.3-21 (1.1-1.7 times memcpy); below 128 KiB the run never
 * passes 4 MiB and matches memcpy (26-35 GB/s; streaming 12-20). WINDOW 1: memcpy at 29-32 GB/s from
 * 128 KiB to 4 MiB, streaming 18-20, and the run as memcpy: it never grows.
 *
 *   cc -O2 -o run_copy benchmarks/run_copy.c && ./run_copy [WINDOW [RUN]]   (64, 4194304)
 */
#include <emmintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static void stream_copy(void *dst, const void *src, size_t n) {
  uint8_t *d = dst;
  const uint8_t *s = src;
  size_t head = (size_t)(-(uintptr_t)d & 15);
  if (head > n) head = n;
  memcpy(d, s, head);
  d += head, s += head, n -= head;
  for (; n >= 64; n -= 64, d += 64, s += 64) {
    __m128i a = _mm_loadu_si128((const __m128i *)s), b = _mm_loadu_si128((const __m128i *)(s + 16));
    __m128i c = _mm_loadu_si128((const __m128i *)(s + 32)), e = _mm_loadu_si128((const __m128i *)(s + 48));
    _mm_stream_si128((__m128i *)d, a);
    _mm_stream_si128((__m128i *)(d + 16), b);
    _mm_stream_si128((__m128i *)(d + 32), c);
    _mm_stream_si128((__m128i *)(d + 48), e);
  }
  memcpy(d, s, n);
  _mm_sfence();
}

static size_t run_threshold;
static uint8_t *run_next;
static size_t run_bytes;

static void run_copy(void *dst, const void *src, size_t n) {
  run_bytes = (uint8_t *)dst == run_next ? run_bytes + n : n;
  run_next = (uint8_t *)dst + n;
  if (run_bytes > run_threshold && n >= 4096)
    stream_copy(dst, src, n);
  else
    memcpy(dst, src, n);
}

static void plain_copy(void *dst, const void *src, size_t n) {
  memcpy(dst, src, n);
}

typedef void (*copy_fn)(void *, const void *, size_t);

int main(int argc, char **argv) {
  const int window = argc > 1 ? atoi(argv[1]) : 64;
  run_threshold = argc > 2 ? strtoull(argv[2], NULL, 0) : (size_t)4 << 20;
  const size_t max = (size_t)4 << 20;
  if (window < 1) return 1;
  uint8_t *src = mmap(NULL, max * window, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  uint8_t *dst = aligned_alloc(4096, max * window);
  if (src == MAP_FAILED || !dst) return 1;
  memset(src, 1, max * window);
  memset(dst, 2, max * window);
  const copy_fn fn[] = {plain_copy, stream_copy, run_copy};
  const char *name[] = {"memcpy", "stream", "run"};
  printf("# window %d, run %zu bytes; GB/s, best of 3\n%-10s %10s %10s %10s\n", window, run_threshold,
         "bytes", name[0], name[1], name[2]);
  for (size_t n = 4096; n <= max; n *= 2) {
    printf("%-10zu", n);
    for (int k = 0; k < 3; ++k) {
      int rounds = (int)(((size_t)256 << 20) / (n * window));
      if (rounds < 20) rounds = 20;
      double best = 1e30;
      for (int rep = 0; rep < 3; ++rep) {
        const double t0 = now();
        for (int r = 0; r < rounds; ++r)
          for (int j = 0; j < window; ++j) fn[k](dst + j * n, src + j * n, n);
        const double t = now() - t0;
        if (t < best) best = t;
      }
      printf(" %10.1f", (double)n * window * rounds / best / 1e9);
    }
    printf("\n");
  }
  return 0;
}
