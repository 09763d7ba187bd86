// A copy whose stores go around the cache (non-temporal), for data another core reads next. A line the
// reader still holds from the last round, overwritten with ordinary stores, is first taken back from the
// reader's cache, then handed to it again when it reads: two handoffs per line, and where the cores
// hand lines over slowly (0.3 us a line at times on the machine of issue 21's sixth stop) a 64 KiB get
// through an offer slot took 21 us against 7 us when they do it quickly. Streamed, the line goes to
// memory and the reader takes it from there, whatever the cores' phase (benchmarks/slot_copy.c).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace pamir {

// Copies n bytes; the stores are globally visible (ordered before any later store) on return.
void stream_copy(void *dst, const void *src, size_t n);

// Copies that stream once their destinations run on past a threshold: each copy starting where the last
// ended extends the run. By then the run's first lines are out of the cache when it comes back to them
// (a bandwidth window of 64 gets of 128 KiB writes 8 MiB before its next round), so ordinary stores
// would first read every line from memory and push out what the cache holds for nothing. Streamed,
// 64 such gets of 128 KiB to 4 MiB copied at 1.1-1.7 times the rate here (benchmarks/run_copy.c). A
// copy into the same place again (a latency loop) never runs on, and stays in the cache. UCX decides
// the same way by a transfer's total length (UCX_NT_BUFFER_TRANSFER_MIN); a window's puts and gets come
// one by one, so their run stands for it.
class RunCopier {
 public:
  // 0: never stream.
  void set_threshold(uint64_t bytes) { threshold_ = bytes; }
  // True if this copy streamed.
  bool copy(void *dst, const void *src, size_t n) {
    // Too short for streaming stores to pay for their fence; the run neither grows nor ends, so a
    // small put to a flag between a bandwidth window's pieces costs one compare.
    if (n < kMinBytes) {
      std::memcpy(dst, src, n);
      return false;
    }
    auto *d = static_cast<uint8_t *>(dst);
    run_ = d == next_ ? run_ + n : n;
    next_ = d + n;
    if (run_ <= threshold_ || threshold_ == 0) {
      std::memcpy(dst, src, n);
      return false;
    }
    stream_copy(dst, src, n);
    return true;
  }

 private:
  static constexpr size_t kMinBytes = 4096;
  uint8_t *next_ = nullptr;
  uint64_t run_ = 0;
  uint64_t threshold_ = 0;
};

}  // namespace pamir
