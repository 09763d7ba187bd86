/*
 * What a one-sided get through a window's offer slot costs in copies alone, with no MPI: two processes,
 * one per core (0 and 1), share a slot; the origin asks, the target copies N bytes of its own memory
 * into the slot and says so, the origin copies the slot into its own memory. Each line crosses between
 * the cores' caches twice, as in Pamir's offers (pami/protocols/window_offer.cc). Four copy loops are
 * timed in turn (glibc's memcpy, an AVX2 loop, an SSE2 loop, `rep movsb`), so that the copy's own
 * instructions can be told from the handoff: on the machine of issue 21's fifth stop all four took the
 * same time, 5-7 us for 64 KiB in a fast phase of benchmarks/cacheline.c and 19-23 us in a slow one.
 * A fifth, "streamed", has the target copy into the slot with streaming stores (as Pamir does where it
 * measures a slow line, pami/stream_copy.cc) and the origin out of it with memcpy: the lines go through
 * memory, not from one cache to the other; at the sixth stop 64 KiB took 8.9-10.9 us in either phase.
 *
 *   cc -O2 -o slot_copy benchmarks/slot_copy.c && ./slot_copy [BYTES [ROUND_TRIPS]]   (65536, 20000)
 */
#define _GNU_SOURCE
#include <immintrin.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

__attribute__((target("avx2"))) static void copy_avx2(void *dst, const void *src, size_t n) {
  uint8_t *d = dst;
  const uint8_t *s = src;
  size_t i = 0;
  for (; i + 128 <= n; i += 128) {
    const __m256i a = _mm256_loadu_si256((const __m256i *)(s + i));
    const __m256i b = _mm256_loadu_si256((const __m256i *)(s + i + 32));
    const __m256i c = _mm256_loadu_si256((const __m256i *)(s + i + 64));
    const __m256i e = _mm256_loadu_si256((const __m256i *)(s + i + 96));
    _mm256_storeu_si256((__m256i *)(d + i), a);
    _mm256_storeu_si256((__m256i *)(d + i + 32), b);
    _mm256_storeu_si256((__m256i *)(d + i + 64), c);
    _mm256_storeu_si256((__m256i *)(d + i + 96), e);
  }
  memcpy(d + i, s + i, n - i);
}

/* 64 bytes a pass in four 16-byte loads and stores; the stores streaming (non-temporal, to a 16-byte
 * aligned destination: the slot is page aligned) or not. Inlined with a constant `stream`. */
static inline __attribute__((always_inline)) void copy_sse2_loop(void *dst, const void *src, size_t n,
                                                                 int stream) {
  uint8_t *d = dst;
  const uint8_t *s = src;
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    for (int k = 0; k < 64; k += 16) {
      const __m128i v = _mm_loadu_si128((const __m128i *)(s + i + k));
      if (stream)
        _mm_stream_si128((__m128i *)(d + i + k), v);
      else
        _mm_storeu_si128((__m128i *)(d + i + k), v);
    }
  }
  memcpy(d + i, s + i, n - i);
}

static void copy_sse2(void *dst, const void *src, size_t n) {
  copy_sse2_loop(dst, src, n, 0);
}

/* As pami/stream_copy.cc: streamed, then a fence before the word that says the data is there. */
static void copy_streamed(void *dst, const void *src, size_t n) {
  copy_sse2_loop(dst, src, n, 1);
  _mm_sfence();
}

static void copy_libc(void *dst, const void *src, size_t n) {
  memcpy(dst, src, n);
}

static void copy_rep_movsb(void *dst, const void *src, size_t n) {
  __asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
}

static void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set)) perror("sched_setaffinity");
}

int main(int argc, char **argv) {
  const size_t bytes = argc > 1 ? strtoull(argv[1], NULL, 10) : 65536;
  const uint64_t trips = argc > 2 ? strtoull(argv[2], NULL, 10) : 20000;
  if (!bytes || trips < 10) return 1;
  /* The target's copy into the slot, then the origin's out of it. */
  static const struct {
    const char *name;
    void (*copy)(void *, const void *, size_t);
    void (*out)(void *, const void *, size_t);
  } loops[] = {{"memcpy", copy_libc, copy_libc},
               {"avx2", copy_avx2, copy_avx2},
               {"sse2", copy_sse2, copy_sse2},
               {"rep movsb", copy_rep_movsb, copy_rep_movsb},
               {"streamed", copy_streamed, copy_libc}};
  /* The request word on a page of its own, then the slot. */
  uint8_t *shared = mmap(NULL, 4096 + bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) return 1;
  _Atomic uint64_t *word = (_Atomic uint64_t *)shared;
  uint8_t *slot = shared + 4096;
  __builtin_cpu_init();
  for (size_t l = 0; l < sizeof loops / sizeof loops[0]; ++l) {
    if (loops[l].copy == copy_avx2 && !__builtin_cpu_supports("avx2")) continue;
    atomic_store(word, 0);
    const pid_t child = fork();
    if (child < 0) return 1;
    uint8_t *own = aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
    if (!own) return 1;
    memset(own, child ? 1 : 2, bytes);
    pin(child ? 0 : 1);
    if (!child) { /* the target: request 2k+1, answer 2k+2 */
      for (uint64_t k = 0; k < trips; ++k) {
        while (atomic_load_explicit(word, memory_order_acquire) != 2 * k + 1) {
        }
        loops[l].copy(slot, own, bytes);
        atomic_store_explicit(word, 2 * k + 2, memory_order_release);
      }
      _exit(0);
    }
    double t0 = 0;
    for (uint64_t k = 0; k < trips; ++k) {
      if (k == trips / 10) t0 = now(); /* the first tenth warms up */
      atomic_store_explicit(word, 2 * k + 1, memory_order_release);
      while (atomic_load_explicit(word, memory_order_acquire) != 2 * k + 2) {
      }
      loops[l].out(own, slot, bytes);
    }
    const double per = (now() - t0) / (double)(trips - trips / 10);
    waitpid(child, NULL, 0);
    if (own[0] != 2 || own[bytes - 1] != 2) {
      fprintf(stderr, "%s: the data did not arrive\n", loops[l].name);
      return 1;
    }
    printf("%-10s %8zu bytes through the slot and out: %.3f us\n", loops[l].name, bytes, per * 1e6);
    free(own);
  }
  return 0;
}
