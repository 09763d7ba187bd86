// stream_copy: every byte arrives, whatever the alignments and the length (head before an aligned
// destination, 64-byte blocks, tail), and nothing around the destination is touched. RunCopier: copies
// stream exactly once their destinations' run passes the threshold, and every byte arrives either way.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "pami/stream_copy.h"

namespace {

TEST(StreamCopy, EveryAlignmentAndLength) {
  constexpr size_t kGuard = 64;
  std::vector<uint8_t> src(4096 + 64), dst(4096 + 64 + 2 * kGuard);
  for (size_t i = 0; i < src.size(); ++i) src[i] = uint8_t(i * 7 + 3);
  for (size_t src_off : {0, 1, 5, 16, 33}) {
    for (size_t dst_off : {0, 1, 8, 15, 16, 63}) {
      for (size_t n : {0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 200, 1000, 4096}) {
        std::fill(dst.begin(), dst.end(), uint8_t(0xA5));
        uint8_t *d = dst.data() + kGuard + dst_off;
        pamir::stream_copy(d, src.data() + src_off, n);
        for (size_t i = 0; i < n; ++i)
          ASSERT_EQ(d[i], src[src_off + i])
              << "byte " << i << " of " << n << ", offsets " << src_off << "/" << dst_off;
        for (size_t i = 0; i < kGuard + dst_off; ++i) ASSERT_EQ(dst[i], 0xA5) << "before, " << n;
        for (size_t i = kGuard + dst_off + n; i < dst.size(); ++i) ASSERT_EQ(dst[i], 0xA5) << "after, " << n;
      }
    }
  }
}

// Copies of `piece` bytes into consecutive destinations: which of them streamed.
std::vector<bool> run_of(pamir::RunCopier &c, std::vector<uint8_t> &dst, const std::vector<uint8_t> &src,
                         size_t at, size_t piece, size_t pieces) {
  std::vector<bool> streamed;
  for (size_t j = 0; j < pieces; ++j)
    streamed.push_back(c.copy(dst.data() + at + j * piece, src.data() + j * piece, piece));
  return streamed;
}

TEST(RunCopier, StreamsOncePastTheThreshold) {
  std::vector<uint8_t> src(64 << 10), dst((64 << 10) + 64);
  for (size_t i = 0; i < src.size(); ++i) src[i] = uint8_t(i * 13 + 5);
  pamir::RunCopier c;
  c.set_threshold(16 << 10);
  // Pieces of 4 KiB from an odd place: the first four make a run of 16 KiB, not past it.
  EXPECT_EQ(run_of(c, dst, src, 3, 4096, 8),
            (std::vector<bool>{false, false, false, false, true, true, true, true}));
  for (size_t i = 0; i < 8 * 4096; ++i) ASSERT_EQ(dst[3 + i], src[i]) << "byte " << i;
  // The same place again starts a new run; so does a gap.
  EXPECT_FALSE(c.copy(dst.data() + 3, src.data(), 4096));
  EXPECT_FALSE(c.copy(dst.data() + 3 + 8192, src.data(), 4096));
  // Pieces too short to stream never do, however many follow one another.
  std::vector<bool> small = run_of(c, dst, src, 0, 1000, 60);
  EXPECT_EQ(std::count(small.begin(), small.end(), true), 0);
  for (size_t i = 0; i < 60 * 1000; ++i) ASSERT_EQ(dst[i], src[i]) << "byte " << i;
  // Nor do they end a run: 4 KiB pieces past the threshold, a small copy elsewhere, the run goes on.
  EXPECT_EQ(run_of(c, dst, src, 0, 4096, 5), (std::vector<bool>{false, false, false, false, true}));
  EXPECT_FALSE(c.copy(dst.data() + (40 << 10), src.data(), 8));
  EXPECT_TRUE(c.copy(dst.data() + 5 * 4096, src.data(), 4096));
  // A copy larger than the threshold on its own streams.
  EXPECT_TRUE(c.copy(dst.data() + 1, src.data(), 20 << 10));
  for (size_t i = 0; i < (20 << 10); ++i) ASSERT_EQ(dst[1 + i], src[i]) << "byte " << i;
}

TEST(RunCopier, ThresholdZeroNeverStreams) {
  std::vector<uint8_t> src(64 << 10, 7), dst(64 << 10);
  pamir::RunCopier c;
  c.set_threshold(0);
  std::vector<bool> streamed = run_of(c, dst, src, 0, 4096, 16);
  EXPECT_EQ(std::count(streamed.begin(), streamed.end(), true), 0);
  EXPECT_EQ(dst, src);
}

}  // namespace
