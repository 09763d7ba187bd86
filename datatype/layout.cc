#include "datatype/layout.h"

#include <algorithm>
#include <limits>

namespace pamir::dt {

namespace {

// Accumulates blocks into a new layout: `blocklen` copies of `t`, the first at byte displacement `d`.
struct Builder {
  Layout out;
  bool any_bounds = false;  // a block has been added (bounds start from its own)
  bool any_data = false;

  void block(const Layout &t, uint64_t blocklen, int64_t d) {
    if (blocklen == 0) return;
    const int64_t ext = t.extent();
    for (uint64_t j = 0; j < blocklen; ++j) {
      const int64_t at = d + int64_t(j) * ext;
      for (const Segment &s : t.segs) append_merged(out.segs, at + s.offset, s.length);
    }
    out.size += t.size * blocklen;
    // The first and the last copy hold the extremes, whatever the sign of the extent.
    const int64_t last = d + int64_t(blocklen - 1) * ext;
    bound(std::min(d, last) + t.lb, std::max(d, last) + t.ub);
    if (t.size) {
      const int64_t lo = std::min(d, last) + t.true_lb, hi = std::max(d, last) + t.true_ub;
      out.true_lb = any_data ? std::min(out.true_lb, lo) : lo;
      out.true_ub = any_data ? std::max(out.true_ub, hi) : hi;
      any_data = true;
    }
  }
  void bound(int64_t lo, int64_t hi) {
    out.lb = any_bounds ? std::min(out.lb, lo) : lo;
    out.ub = any_bounds ? std::max(out.ub, hi) : hi;
    any_bounds = true;
  }
  Layout done() {
    if (!any_data) out.true_lb = out.true_ub = 0;
    return std::move(out);
  }
};

}  // namespace

Layout basic(uint64_t bytes) {
  Layout l;
  append_merged(l.segs, 0, bytes);
  l.size = bytes;
  l.ub = l.true_ub = int64_t(bytes);
  return l;
}

Layout contiguous(uint64_t count, const Layout &old) {
  Builder b;
  b.block(old, count, 0);
  return b.done();
}

Layout hvector(uint64_t count, uint64_t blocklen, int64_t stride_bytes, const Layout &old) {
  Builder b;
  for (uint64_t i = 0; i < count; ++i) b.block(old, blocklen, int64_t(i) * stride_bytes);
  return b.done();
}

Layout hindexed(size_t n, const uint64_t *blocklens, const int64_t *displs, const Layout &old) {
  Builder b;
  for (size_t i = 0; i < n; ++i) b.block(old, blocklens[i], displs[i]);
  return b.done();
}

Layout structure(size_t n, const uint64_t *blocklens, const int64_t *displs, const Layout *const *types) {
  Builder b;
  for (size_t i = 0; i < n; ++i) b.block(*types[i], blocklens[i], displs[i]);
  return b.done();
}

Layout resized(const Layout &old, int64_t lb, int64_t extent) {
  Layout l = old;
  l.lb = lb;
  l.ub = lb + extent;
  return l;
}

}  // namespace pamir::dt
