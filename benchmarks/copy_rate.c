/*
 * copy_rate: how fast one core copies a buffer it has copied before (as the copy of a one-sided latency
 * loop: a get from a mapped window into the origin's buffer), by glibc's memcpy, `rep movsb`, a loop of
 * AVX2 loads and stores, one of AVX-512, and AVX2 with non-temporal stores. Microseconds per copy, the
 * best of 5 timed loops for each size. Not MPI; x86-64 with AVX2 (the AVX-512 column needs AVX-512F).
 *
 *   cc -O2 -o copy_rate benchmarks/copy_rate.c && ./copy_rate
 */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void copy_libc(void *d, const void *s, size_t n) {
  memcpy(d, s, n);
}

static void copy_movsb(void *d, const void *s, size_t n) {
  __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n)::"memory");
}

/* AVX2 loads and stores, or streaming (non-temporal) stores: destinations are page-aligned here, so
 * their 32-byte alignment holds. `stream` is a constant at each caller. */
__attribute__((target("avx2"), always_inline)) static inline void avx2_loop(void *d, const void *s, size_t n,
                                                                            int stream) {
  char *D = d;
  const char *S = s;
  size_t i = 0;
  for (; i + 128 <= n; i += 128) {
    /* Four loads, then four stores, as glibc's loop does. */
    const __m256i a = _mm256_loadu_si256((const __m256i *)(S + i)),
                  b = _mm256_loadu_si256((const __m256i *)(S + i + 32));
    const __m256i c = _mm256_loadu_si256((const __m256i *)(S + i + 64)),
                  e = _mm256_loadu_si256((const __m256i *)(S + i + 96));
    if (stream) {
      _mm256_stream_si256((__m256i *)(D + i), a);
      _mm256_stream_si256((__m256i *)(D + i + 32), b);
      _mm256_stream_si256((__m256i *)(D + i + 64), c);
      _mm256_stream_si256((__m256i *)(D + i + 96), e);
    } else {
      _mm256_storeu_si256((__m256i *)(D + i), a);
      _mm256_storeu_si256((__m256i *)(D + i + 32), b);
      _mm256_storeu_si256((__m256i *)(D + i + 64), c);
      _mm256_storeu_si256((__m256i *)(D + i + 96), e);
    }
  }
  if (stream) _mm_sfence();
  memcpy(D + i, S + i, n - i);
}

__attribute__((target("avx2"))) static void copy_avx2(void *d, const void *s, size_t n) {
  avx2_loop(d, s, n, 0);
}

__attribute__((target("avx512f"))) static void copy_avx512(void *d, const void *s, size_t n) {
  char *D = d;
  const char *S = s;
  size_t i = 0;
  for (; i + 256 <= n; i += 256) {
    __m512i a = _mm512_loadu_si512(S + i), b = _mm512_loadu_si512(S + i + 64);
    __m512i c = _mm512_loadu_si512(S + i + 128), e = _mm512_loadu_si512(S + i + 192);
    _mm512_storeu_si512(D + i, a);
    _mm512_storeu_si512(D + i + 64, b);
    _mm512_storeu_si512(D + i + 128, c);
    _mm512_storeu_si512(D + i + 192, e);
  }
  memcpy(D + i, S + i, n - i);
}

__attribute__((target("avx2"))) static void copy_nt(void *d, const void *s, size_t n) {
  avx2_loop(d, s, n, 1);
}

typedef void (*copy_fn)(void *, const void *, size_t);

int main(void) {
  static const size_t sizes[] = {16384, 32768, 65536, 131072, 262144, 524288, 1048576, 4194304};
  const copy_fn fns[] = {copy_libc, copy_movsb, copy_avx2, copy_avx512, copy_nt};
  const char *names[] = {"memcpy", "movsb", "avx2", "avx512", "avx2-nt"};
  const int nfns = __builtin_cpu_supports("avx512f") ? 5 : 4; /* without AVX-512F the column is skipped */
  const size_t max = (size_t)1 << 23;
  char *s = aligned_alloc(4096, max), *d = aligned_alloc(4096, max);
  memset(s, 1, max);
  memset(d, 2, max);
  printf("%10s", "bytes");
  for (int j = 0; j < 5; ++j)
    if (j != 3 || nfns == 5) printf(" %10s", names[j]);
  printf("   (us per copy)\n");
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
    const size_t n = sizes[k];
    printf("%10zu", n);
    for (int j = 0; j < 5; ++j) {
      if (j == 3 && nfns != 5) continue;
      const int iters = (int)(200000000 / n) + 10;
      double best = 1e9;
      for (int rep = 0; rep < 5; ++rep) {
        double t = now();
        for (int i = 0; i < iters; ++i) {
          fns[j](d, s, n);
          __asm__ volatile("" ::"r"(d) : "memory");
        }
        t = (now() - t) / iters;
        if (t < best) best = t;
      }
      printf(" %10.3f", best * 1e6);
    }
    printf("\n");
  }
  free(s);
  free(d);
  return 0;
}
