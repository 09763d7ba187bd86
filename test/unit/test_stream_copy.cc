// stream_copy: every byte arrives, whatever the alignments and the length (head before an aligned
// destination, 64-byte blocks, tail), and nothing around the destination is touched.
#include <gtest/gtest.h>

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

}  // namespace
