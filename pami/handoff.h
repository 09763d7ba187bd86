// How long a cache line takes between two node ranks' cores, measured on a window's offers
// (pami/protocols/window_offer.cc) in time-stamp counter ticks: which offers are timed, which of
// their crossings count, and the moving average Window::handoff_slow compares with
// PAMIR_WINDOW_SLOW_HANDOFF_NS. Apart from the window so that the unit tests can drive it.
#pragma once

#include <algorithm>
#include <cstdint>

namespace pamir::handoff {

constexpr unsigned kSampleBits = 3;
constexpr uint64_t kSampleEvery = uint64_t(1) << kSampleBits;
constexpr unsigned kWeight = 8;        // the average's weight of one sample is 1/kWeight
constexpr uint32_t kCleanBytes = 256;  // data in the slot up to this still leaves a crossing clean
constexpr uint64_t kNone = ~uint64_t(0);

// One offer in kSampleEvery, picked by a Fibonacci hash of its seq rather than every eighth, which the
// pieces of operations that come in 2 or 4 would always meet at the same piece.
inline bool sampled(uint64_t seq) {
  return (seq * 0x9e3779b97f4a7c15ull) >> (64 - kSampleBits) == 0;
}

// A timed offer's stamps: the origin's making, the target's take and finish, the origin's arrival to
// wait for it and its sight of the finish.
struct Crossings {
  uint64_t made, taken, done, arrived, seen;
  bool alone;         // nothing else of the pair was in flight, which the target could be busy with
  bool origin_wrote;  // the origin wrote more than kCleanBytes into the slot before making it
  bool target_wrote;  // the target wrote more than that into the slot before finishing it
};

// A line's way each way holds more than the line where data went into the slot just before: the take
// waits out the invalidations of the lines the origin wrote, the origin's sight of the finish those of
// the lines the target wrote. So each way counts only after little data: the take with nothing before
// it in flight, the finish if the origin was already waiting for it. The shorter is the line; kNone if
// neither counts.
inline uint64_t line_ticks(const Crossings &c) {
  uint64_t took = kNone;
  if (c.alone && !c.origin_wrote && c.taken > c.made) took = c.taken - c.made;
  if (!c.target_wrote && c.done > c.arrived && c.seen >= c.done) took = std::min(took, c.seen - c.done);
  return took;
}

// The moving average with one more sample. A target away from its progress for a while counts as a
// slow line, but as no more than twice the threshold, so one such sample does not tip a quick average.
inline uint64_t average(uint64_t avg, uint64_t took, uint64_t slow_ticks) {
  took = std::min(took, 2 * slow_ticks);
  return (avg * (kWeight - 1) + took) / kWeight;
}

}  // namespace pamir::handoff
