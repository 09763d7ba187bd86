// Type constructors over flattened layouts, against a naive reference that applies each constructor's
// definition literally, byte by byte and copy by copy: random type trees (seeded, reproducible) of
// contiguous, hvector, hindexed, struct and resized, nested three deep.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <vector>

#include "datatype/layout.h"

using pamir::dt::Layout;
using pamir::dt::Segment;

namespace {

// The type map written out: every data byte's displacement, in order, and the bounds.
struct Naive {
  std::vector<int64_t> bytes;
  int64_t lb = 0, ub = 0;
  bool bounded = false;
};

Naive naive_basic(uint64_t n) {
  Naive t;
  for (uint64_t i = 0; i < n; ++i) t.bytes.push_back(int64_t(i));
  t.ub = int64_t(n);
  t.bounded = true;
  return t;
}

void naive_block(Naive &out, const Naive &t, uint64_t blocklen, int64_t d) {
  for (uint64_t j = 0; j < blocklen; ++j) {
    const int64_t at = d + int64_t(j) * (t.ub - t.lb);
    for (int64_t b : t.bytes) out.bytes.push_back(at + b);
    const int64_t lo = at + t.lb, hi = at + t.ub;
    out.lb = out.bounded ? std::min(out.lb, lo) : lo;
    out.ub = out.bounded ? std::max(out.ub, hi) : hi;
    out.bounded = true;
  }
}

// Every byte offset of one element, in type-map order, through the loops of the compact form.
std::vector<int64_t> expand(const Layout &l) {
  std::vector<int64_t> out;
  for (const Segment &s : pamir::dt::expanded(l))
    for (uint64_t i = 0; i < s.length; ++i) out.push_back(s.offset + int64_t(i));
  return out;
}

struct Pair {
  Layout fast;
  Naive ref;
};

Pair random_type(std::mt19937_64 &rng, int depth) {
  const unsigned kind = depth == 0 ? 0 : unsigned(rng() % 6);
  if (kind == 0) {
    const uint64_t n = 1 + rng() % 8;
    return {pamir::dt::basic(n), naive_basic(n)};
  }
  Pair old = random_type(rng, depth - 1);
  Pair p;
  switch (kind) {
    case 1: {  // contiguous; sometimes long enough to become a loop
      const uint64_t count = rng() % 8 == 0 ? 20 + rng() % 60 : rng() % 4;
      p.fast = pamir::dt::contiguous(count, old.fast);
      naive_block(p.ref, old.ref, count, 0);
      break;
    }
    case 2: {  // hvector, strides of either sign, possibly overlapping
      const uint64_t count = rng() % 8 == 0 ? 30 + rng() % 70 : rng() % 4, blocklen = rng() % 3;
      const int64_t stride = int64_t(rng() % 41) - 20;
      p.fast = pamir::dt::hvector(count, blocklen, stride, old.fast);
      for (uint64_t i = 0; i < count; ++i) naive_block(p.ref, old.ref, blocklen, int64_t(i) * stride);
      break;
    }
    case 3: {  // hindexed, displacements in any order
      const size_t n = rng() % 4;
      std::vector<uint64_t> bl(n);
      std::vector<int64_t> d(n);
      for (size_t i = 0; i < n; ++i) {
        bl[i] = rng() % 3;
        d[i] = int64_t(rng() % 61) - 30;
      }
      p.fast = pamir::dt::hindexed(n, bl.data(), d.data(), old.fast);
      for (size_t i = 0; i < n; ++i) naive_block(p.ref, old.ref, bl[i], d[i]);
      break;
    }
    case 4: {  // struct of the old type and two more
      Pair o2 = random_type(rng, depth - 1), o3 = random_type(rng, 0);
      const Layout *types[3] = {&old.fast, &o2.fast, &o3.fast};
      const Naive *refs[3] = {&old.ref, &o2.ref, &o3.ref};
      uint64_t bl[3];
      int64_t d[3];
      for (int i = 0; i < 3; ++i) {
        bl[i] = rng() % 3;
        d[i] = int64_t(rng() % 81) - 20;
      }
      p.fast = pamir::dt::structure(3, bl, d, types);
      for (int i = 0; i < 3; ++i) naive_block(p.ref, *refs[i], bl[i], d[i]);
      break;
    }
    default: {  // resized, negative lower bounds and extents included
      const int64_t lb = int64_t(rng() % 21) - 10, extent = int64_t(rng() % 31) - 5;
      p.fast = pamir::dt::resized(old.fast, lb, extent);
      p.ref = old.ref;
      p.ref.lb = lb;
      p.ref.ub = lb + extent;
      p.ref.bounded = true;
      break;
    }
  }
  return p;
}

}  // namespace

TEST(DatatypeLayout, VectorOfDoubles) {
  // MPI_Type_vector(3, 2, 4, MPI_DOUBLE): blocks of 16 bytes every 32.
  const Layout v = pamir::dt::hvector(3, 2, 32, pamir::dt::basic(8));
  ASSERT_EQ(v.segs.size(), 3u);
  EXPECT_EQ(v.segs[1].offset, 32);
  EXPECT_EQ(v.segs[1].length, 16u);
  EXPECT_EQ(v.size, 48u);
  EXPECT_EQ(v.lb, 0);
  EXPECT_EQ(v.extent(), 80);
  EXPECT_EQ(v.true_extent(), 80);
  // Two of them in a row: the first copy's last block ends at 80, where the second copy's first block
  // starts, so the two merge ...
  const Layout two = pamir::dt::contiguous(2, v);
  ASSERT_EQ(two.segs.size(), 5u);
  EXPECT_EQ(two.segs[2].offset, 64);
  EXPECT_EQ(two.segs[2].length, 32u);
  // ... while resized to 96 bytes they leave a gap, and nothing merges.
  EXPECT_EQ(pamir::dt::contiguous(2, pamir::dt::resized(v, 0, 96)).segs.size(), 6u);
}

TEST(DatatypeLayout, RandomTreesMatchTheNaiveTypeMap) {
  std::mt19937_64 rng(4242);
  int looped = 0;
  for (int trial = 0; trial < 5000; ++trial) {
    const Pair p = random_type(rng, 1 + trial % 3);
    ASSERT_EQ(expand(p.fast), p.ref.bytes) << "trial " << trial;
    ASSERT_EQ(p.fast.size, p.ref.bytes.size()) << "trial " << trial;
    if (p.ref.bounded) {
      ASSERT_EQ(p.fast.lb, p.ref.lb) << "trial " << trial;
      ASSERT_EQ(p.fast.ub, p.ref.ub) << "trial " << trial;
    }
    if (!p.ref.bytes.empty()) {
      const auto [lo, hi] = std::minmax_element(p.ref.bytes.begin(), p.ref.bytes.end());
      ASSERT_EQ(p.fast.true_lb, *lo) << "trial " << trial;
      ASSERT_EQ(p.fast.true_ub, *hi + 1) << "trial " << trial;
    }
    // Merged: no two neighbouring segments touch.
    for (size_t i = 1; i < p.fast.segs.size(); ++i)
      ASSERT_NE(p.fast.segs[i - 1].offset + int64_t(p.fast.segs[i - 1].length), p.fast.segs[i].offset);
    looped += !p.fast.loops.empty();
  }
  EXPECT_GT(looped, 40) << "the trees should exercise the loop form";
}

// The compact loop form: a vector of a million single doubles is one segment and one loop, and its
// cursor walks, cuts and seeks through it like the list it stands for.
TEST(DatatypeLayout, VectorsKeepTheLoopForm) {
  const Layout v = pamir::dt::hvector(1000000, 1, 16, pamir::dt::basic(8, 0, 8));
  ASSERT_EQ(v.segs.size(), 1u);
  ASSERT_EQ(v.loops.size(), 1u);
  EXPECT_EQ(v.pieces(), 1000000u);
  EXPECT_EQ(v.size, 8000000u);
  EXPECT_EQ(v.extent(), 16 * 999999 + 8);
  pamir::dt::Cursor c = pamir::dt::cursor(v, 2);
  EXPECT_EQ(c.total(), 16000000u);
  int64_t off = 0;
  uint64_t len = 0;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(c.next(UINT64_MAX, off, len));
    EXPECT_EQ(off, 16 * i);
    EXPECT_EQ(len, 8u);
  }
  c.seek(8 * 1000000 + 8 * 5 + 3);  // second element, sixth double, byte 3
  ASSERT_TRUE(c.next(UINT64_MAX, off, len));
  EXPECT_EQ(off, v.extent() + 16 * 5 + 3);
  EXPECT_EQ(len, 5u);
  // a vector of vectors: two loops, the inner one's blocks of 3 doubles
  const Layout vv =
      pamir::dt::hvector(500, 1, 4096, pamir::dt::hvector(100, 3, 40, pamir::dt::basic(8, 0, 8)));
  ASSERT_EQ(vv.loops.size(), 2u);
  EXPECT_EQ(vv.segs.size(), 1u);
  EXPECT_EQ(vv.size, 500u * 100 * 24);
  const std::vector<Segment> flat = pamir::dt::expanded(vv);
  ASSERT_EQ(flat.size(), 50000u);
  EXPECT_EQ(flat[101].offset, 4096 + 40);
  EXPECT_EQ(flat[101].length, 24u);
}
