#include "datatype/layout.h"

#include <algorithm>
#include <limits>

namespace pamir::dt {

void append_signature(std::vector<SigRun> &to, const std::vector<SigRun> &from, uint64_t times) {
  if (from.empty() || times == 0) return;
  auto add = [&to](const SigRun &r, uint64_t count) {
    if (!to.empty() && to.back().id == r.id)
      to.back().count += count;
    else
      to.push_back({r.id, r.bytes, count});
  };
  if (from.size() == 1) {  // copies of one run are one run, whatever `times` is
    add(from[0], from[0].count * times);
    return;
  }
  for (uint64_t k = 0; k < times; ++k)
    for (const SigRun &r : from) add(r, r.count);
}

namespace {

// Accumulates blocks into a new layout: `blocklen` copies of `t`, the first at byte displacement `d`.
struct Builder {
  Layout out;
  bool any_bounds = false;  // a block has been added (bounds start from its own)
  bool any_data = false;

  // `segments` false: bounds, size and signature only (the caller builds the loop form itself).
  void block(const Layout &t, uint64_t blocklen, int64_t d, bool segments = true) {
    out.align = std::max(out.align, t.align);
    out.explicit_bounds |= t.explicit_bounds;
    if (blocklen == 0) return;
    const int64_t ext = t.extent();
    if (!segments) {
    } else if (t.dense() && ext > 0) {
      // Copies of a dense type touch: one piece, however many (contiguous(1e9, MPI_INT) is one segment).
      append_merged(out.segs, d + t.segs[0].offset, t.segs[0].length * blocklen);
    } else {
      const std::vector<Segment> flat = t.loops.empty() ? std::vector<Segment>() : expanded(t);
      const std::vector<Segment> &segs = t.loops.empty() ? t.segs : flat;
      for (uint64_t j = 0; j < blocklen; ++j) {
        const int64_t at = d + int64_t(j) * ext;
        for (const Segment &s : segs) append_merged(out.segs, at + s.offset, s.length);
      }
    }
    append_signature(out.sig, t.sig, blocklen);
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

Layout basic(uint64_t bytes, uint32_t id, uint32_t align) {
  Layout l;
  append_merged(l.segs, 0, bytes);
  if (bytes) l.sig.push_back({id, uint32_t(bytes), 1});
  l.size = bytes;
  l.ub = l.true_ub = int64_t(bytes);
  l.align = align;
  return l;
}

std::vector<Segment> expanded(const Layout &l) {
  std::vector<Segment> out;
  Cursor c = cursor(l, 1);
  int64_t off = 0;
  uint64_t len = 0;
  while (c.next(UINT64_MAX, off, len)) append_merged(out, off, len);
  return out;
}

namespace {

// Up to this many pieces a repetition is listed segment by segment (touching pieces merge); beyond,
// it becomes a loop.
constexpr uint64_t kListedPieces = 64;

// `count` copies of `inner`, `stride` bytes apart, as one more loop around it; the bounds are those of
// the first and the last copy, which hold the extremes.
Layout looped(const Layout &inner, uint64_t count, int64_t stride) {
  Builder b;
  b.block(inner, 1, 0, false);
  b.block(inner, 1, int64_t(count - 1) * stride, false);
  Layout l = b.done();
  l.segs = inner.segs;
  l.loops = inner.loops;
  l.loops.push_back({count, stride});
  l.sig.clear();
  append_signature(l.sig, inner.sig, count);
  l.size = inner.size * count;
  return l;
}

// Whether `count` copies of t, stride apart, are better kept as a loop than listed.
bool as_loop(const Layout &t, uint64_t count, int64_t stride) {
  if (count <= 1 || t.size == 0 || t.loops.size() + 2 > kMaxLoops) return false;
  if (t.dense() && stride == t.extent()) return false;  // the copies touch: one segment
  const uint64_t p = t.pieces();
  return p > kListedPieces / count || p * count > kListedPieces;
}

}  // namespace

Layout contiguous(uint64_t count, const Layout &old) {
  if (count == 1) return old;  // the same type map and bounds (and the loops kept)
  if (as_loop(old, count, old.extent())) return looped(old, count, old.extent());
  Builder b;
  b.block(old, count, 0);
  return b.done();
}

Layout hvector(uint64_t count, uint64_t blocklen, int64_t stride_bytes, const Layout &old) {
  const Layout inner = contiguous(blocklen, old);
  if (blocklen > 0 && as_loop(inner, count, stride_bytes)) return looped(inner, count, stride_bytes);
  Builder b;
  for (uint64_t i = 0; i < count; ++i) b.block(old, blocklen, int64_t(i) * stride_bytes);
  return b.done();
}

Layout displaced(const Layout &old, int64_t d) {
  Layout l = old;
  for (Segment &s : l.segs) s.offset += d;
  l.lb += d;
  l.ub += d;
  if (l.size) {
    l.true_lb += d;
    l.true_ub += d;
  }
  return l;
}

Layout hindexed(size_t n, const uint64_t *blocklens, const int64_t *displs, const Layout &old) {
  Builder b;
  b.out.segs.reserve(n * std::min<size_t>(old.segs.size(), 64));
  for (size_t i = 0; i < n; ++i) b.block(old, blocklens[i], displs[i]);
  return b.done();
}

// MPI 5.0 section 5.1.6: the extent of a struct is padded so that an array of it keeps every member
// aligned, as the C compiler pads a struct; Open MPI and MPICH do the same. Bounds set by
// MPI_Type_create_resized are the user's word and are not padded.
Layout structure(size_t n, const uint64_t *blocklens, const int64_t *displs, const Layout *const *types) {
  Builder b;
  for (size_t i = 0; i < n; ++i) b.block(*types[i], blocklens[i], displs[i]);
  Layout l = b.done();
  if (!l.explicit_bounds && l.align > 1) {
    const int64_t ext = l.extent(), a = int64_t(l.align);
    if (ext % a) l.ub += a - ext % a;  // ext >= 0: ub is the greatest bound
  }
  return l;
}

Layout resized(const Layout &old, int64_t lb, int64_t extent) {
  Layout l = old;
  l.lb = lb;
  l.ub = lb + extent;
  l.explicit_bounds = true;
  return l;
}

}  // namespace pamir::dt
