// MPI_Wtime's clock. On x86-64 with an invariant time-stamp counter that the kernel itself keeps time
// with, the counter read and scaled (about 10 ns here) rather than clock_gettime (about 23 ns): programs
// time loops with MPI_Wtime, and OSU's one-sided latency loops call it twice per operation. The scale
// comes from the monotonic clock, sampled at the start and the end of library_start (at least 2 ms
// apart, each sample bracketed by two counter reads), and the counter's time is anchored to it, so the
// clock stays monotonic and continuous with the one before calibration. PAMIR_WTIME chooses.
#pragma once

#include <cstdint>
#include <ctime>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace pamir {

struct WallClock {
  double sec_per_tick = 0;  // 0: not calibrated (or not chosen): clock_gettime
  uint64_t tsc0 = 0;
  double t0 = 0;
};
inline WallClock g_wall;

inline double monotonic_seconds() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

inline double wtime() {
#if defined(__x86_64__)
  if (__builtin_expect(g_wall.sec_per_tick > 0, 1))
    return g_wall.t0 + double(__rdtsc() - g_wall.tsc0) * g_wall.sec_per_tick;
#endif
  return monotonic_seconds();
}

// The time-stamp counter itself, for intervals between this process's cores and other processes' (the
// window offers' line measure, pami/handoff.h): 0 where there is none, and meaningful across cores only
// where g_wall.sec_per_tick is set (the counter is invariant and the kernel's clocksource).
inline uint64_t counter_now() {
#if defined(__x86_64__)
  return __rdtsc();
#else
  return 0;
#endif
}

// The first sample (start of library_start) and the calibration (its end); the second is a no-op unless
// the counter is chosen (PAMIR_WTIME and the machine). `why` says which clock and why, for pamir_info.
void clock_start();
void clock_finish();
const char *clock_source();

}  // namespace pamir
