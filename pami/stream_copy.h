// A copy whose stores go around the cache (non-temporal), for data another core reads next. A line the
// reader still holds from the last round, overwritten with ordinary stores, is first taken back from the
// reader's cache, then handed to it again when it reads: two handoffs per line, and where the cores
// hand lines over slowly (0.3 us a line at times on the machine of issue 21's sixth stop) a 64 KiB get
// through an offer slot took 21 us against 7 us when they do it quickly. Streamed, the line goes to
// memory and the reader takes it from there, whatever the cores' phase (benchmarks/slot_copy.c).
#pragma once

#include <cstddef>

namespace pamir {

// Copies n bytes; the stores are globally visible (ordered before any later store) on return.
void stream_copy(void *dst, const void *src, size_t n);

}  // namespace pamir
