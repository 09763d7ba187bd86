// Calibration of MPI_Wtime's counter clock (pami/clock.h).
#include "pami/clock.h"

#include <cstring>
#include <fstream>
#include <string>

#include "pami/config.h"

namespace pamir {

namespace {

struct Sample {
  uint64_t tsc;
  double t;
};
Sample first{};
const char *source = "clock_gettime(CLOCK_MONOTONIC)";

#if defined(__x86_64__)
// The monotonic clock and the counter at the same moment: of five tries, the one whose two counter reads
// around the clock's are closest, at their midpoint.
Sample sample() {
  Sample best{};
  uint64_t best_gap = UINT64_MAX;
  for (int i = 0; i < 5; ++i) {
    const uint64_t a = __rdtsc();
    const double t = monotonic_seconds();
    const uint64_t b = __rdtsc();
    if (b - a < best_gap) {
      best_gap = b - a;
      best = {a + (b - a) / 2, t};
    }
  }
  return best;
}

bool file_has(const char *path, const char *word) {
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line))
    for (size_t at = line.find(word); at != std::string::npos; at = line.find(word, at + 1)) {
      const size_t end = at + std::strlen(word);
      const bool starts = at == 0 || line[at - 1] == ' ' || line[at - 1] == '\t' || line[at - 1] == ':';
      const bool ends = end == line.size() || line[end] == ' ' || line[end] == '\n';
      if (starts && ends) return true;
    }
  return false;
}

// The counter keeps time when it runs at a constant rate through sleep states and the kernel trusts it
// as its own clocksource (so it is synchronised across the CPUs).
bool counter_usable() {
  return file_has("/proc/cpuinfo", "constant_tsc") && file_has("/proc/cpuinfo", "nonstop_tsc") &&
         file_has("/sys/devices/system/clocksource/clocksource0/current_clocksource", "tsc");
}
#endif

}  // namespace

void clock_start() {
#if defined(__x86_64__)
  if (g_wall.sec_per_tick == 0) first = sample();
#endif
}

void clock_finish() {
#if defined(__x86_64__)
  if (g_wall.sec_per_tick > 0 || config::wtime.value == "clock") return;
  if (config::wtime.value == "auto" && !counter_usable()) {
    source =
        "clock_gettime(CLOCK_MONOTONIC) (the time-stamp counter is not invariant or not the kernel's "
        "clocksource)";
    return;
  }
  Sample last = sample();
  while (last.t - first.t < 2e-3) last = sample();
  if (last.tsc <= first.tsc) return;
  WallClock c;
  c.sec_per_tick = (last.t - first.t) / double(last.tsc - first.tsc);
  c.tsc0 = last.tsc;
  c.t0 = last.t;
  g_wall = c;
  source = "the time-stamp counter, scaled by CLOCK_MONOTONIC";
#endif
}

const char *clock_source() {
  return source;
}

}  // namespace pamir
