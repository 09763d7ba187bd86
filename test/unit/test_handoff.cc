// The window offers' line measure (pami/handoff.h): which offers are timed, which crossings count, and
// how the average moves, with stamps made up in ticks.
#include <gtest/gtest.h>

#include <cstdint>

#include "pami/handoff.h"

namespace {

using pamir::handoff::average;
using pamir::handoff::Crossings;
using pamir::handoff::kNone;
using pamir::handoff::line_ticks;
using pamir::handoff::sampled;

// One in 8 over a long run, and every piece of operations that come in 2 or 4 is met about as often.
TEST(Handoff, SampledMeetsEveryPiece) {
  constexpr uint64_t kOffers = 1 << 16;
  uint64_t all = 0, of2[2] = {}, of4[4] = {};
  for (uint64_t seq = 1; seq <= kOffers; ++seq) {
    if (!sampled(seq)) continue;
    ++all;
    ++of2[seq % 2];
    ++of4[seq % 4];
  }
  EXPECT_NEAR(double(all), kOffers / 8.0, kOffers / 8.0 * 0.02);
  for (uint64_t n : of2) EXPECT_NEAR(double(n), all / 2.0, all / 2.0 * 0.05);
  for (uint64_t n : of4) EXPECT_NEAR(double(n), all / 4.0, all / 4.0 * 0.05);
}

TEST(Handoff, TheShorterCleanCrossing) {
  // made 1000, taken 1100 (100 across), done 1500, origin waiting since 1200, saw it at 1530 (30).
  Crossings c{1000, 1100, 1500, 1200, 1530, true, false, false};
  EXPECT_EQ(line_ticks(c), 30u);
  // The finish after a get's data in the slot does not count: the take does.
  c.target_wrote = true;
  EXPECT_EQ(line_ticks(c), 100u);
  // Nor the take after a put's data, or with an offer before it in flight: nothing counts then.
  c.origin_wrote = true;
  EXPECT_EQ(line_ticks(c), kNone);
  c.origin_wrote = false;
  c.alone = false;
  EXPECT_EQ(line_ticks(c), kNone);
  // The finish counts only if the origin was already waiting when it came.
  c = {1000, 1100, 1500, 1600, 1630, false, false, false};
  EXPECT_EQ(line_ticks(c), kNone);
  // Stamps out of order (no take seen after the making) are not a crossing.
  c = {1000, 900, 1500, 1200, 1530, true, false, true};
  EXPECT_EQ(line_ticks(c), kNone);
}

TEST(Handoff, AverageTipsOnlyOnSlowLines) {
  constexpr uint64_t kSlow = 150;
  uint64_t avg = 0;
  for (int i = 0; i < 64; ++i) avg = average(avg, 90, kSlow);  // a quick line
  EXPECT_LT(avg, kSlow);
  avg = average(avg, 1000000, kSlow);  // a target away once: capped at twice the threshold
  EXPECT_LT(avg, kSlow);
  for (int i = 0; i < 16; ++i) avg = average(avg, 300, kSlow);  // the line turns slow
  EXPECT_GE(avg, kSlow);
  for (int i = 0; i < 16; ++i) avg = average(avg, 80, kSlow);  // and quick again
  EXPECT_LT(avg, kSlow);
}

}  // namespace
