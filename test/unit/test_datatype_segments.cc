// The flattened form of seed 003: merged segment lists, the cursor (pieces up to a byte budget, resumable
// at any byte), pack/unpack through it, and the common chunks of two layouts, each checked against a
// byte-by-byte expansion of the layouts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "datatype/chunks.h"
#include "datatype/segments.h"

using pamir::dt::append_merged;
using pamir::dt::Chunk;
using pamir::dt::ChunkWalker;
using pamir::dt::Cursor;
using pamir::dt::Loop;
using pamir::dt::Segment;

namespace {

std::vector<Segment> merged(const std::vector<int64_t> &byte_offsets) {
  std::vector<Segment> l;
  for (int64_t o : byte_offsets) append_merged(l, o, 1);
  return l;
}

// Every data byte's offset, in order: the definition the cursor implements.
std::vector<int64_t> expand(const std::vector<Segment> &segs, int64_t extent, uint64_t count) {
  std::vector<int64_t> out;
  for (uint64_t e = 0; e < count; ++e)
    for (const Segment &s : segs)
      for (uint64_t i = 0; i < s.length; ++i) out.push_back(int64_t(e) * extent + s.offset + int64_t(i));
  return out;
}

std::vector<int64_t> walk(Cursor &c, uint64_t budget, std::vector<uint64_t> *lengths = nullptr) {
  std::vector<int64_t> out;
  int64_t off = 0;
  uint64_t len = 0;
  while (c.next(budget, off, len)) {
    EXPECT_GT(len, 0u);
    EXPECT_LE(len, budget);
    if (lengths) lengths->push_back(len);
    for (uint64_t i = 0; i < len; ++i) out.push_back(off + int64_t(i));
  }
  return out;
}

// A random type map: pieces at increasing or scattered offsets, some touching, some negative.
std::vector<Segment> random_segments(std::mt19937_64 &rng, int64_t &extent) {
  std::vector<Segment> l;
  const int n = 1 + int(rng() % 6);
  int64_t at = -int64_t(rng() % 8);
  int64_t hi = at;
  for (int i = 0; i < n; ++i) {
    if (rng() % 4 == 0)
      at -= int64_t(rng() % 16);  // out of order, as a struct may be
    else
      at += int64_t(rng() % 5);  // 0: touches the previous piece
    const uint64_t len = rng() % 7;
    append_merged(l, at, len);
    at += int64_t(len);
    hi = std::max(hi, at);
  }
  extent = hi + int64_t(rng() % 4);
  if (extent <= 0) extent = 1;
  return l;
}

}  // namespace

// Seed 003's own example: an 8-byte buffer of 1-byte elements.
TEST(DatatypeSegments, PatentExample) {
  const std::vector<Segment> src = merged({1, 2, 5, 7}), dst = merged({0, 3, 5, 6});
  ASSERT_EQ(src.size(), 3u);
  EXPECT_EQ(src[0].offset, 1);
  EXPECT_EQ(src[0].length, 2u);
  EXPECT_EQ(src[1].offset, 5);
  EXPECT_EQ(src[1].length, 1u);
  EXPECT_EQ(src[2].offset, 7);
  EXPECT_EQ(src[2].length, 1u);
  ASSERT_EQ(dst.size(), 3u);
  EXPECT_EQ(dst[0].offset, 0);
  EXPECT_EQ(dst[0].length, 1u);
  EXPECT_EQ(dst[1].offset, 3);
  EXPECT_EQ(dst[1].length, 1u);
  EXPECT_EQ(dst[2].offset, 5);
  EXPECT_EQ(dst[2].length, 2u);

  Cursor s(src.data(), src.size(), 8, 1), d(dst.data(), dst.size(), 8, 1);
  ChunkWalker w(s, d);
  const Chunk want[] = {{1, 0, 1}, {2, 3, 1}, {5, 5, 1}, {7, 6, 1}};
  Chunk c{};
  for (const Chunk &x : want) {
    ASSERT_TRUE(w.next(UINT64_MAX, c));
    EXPECT_EQ(c.src, x.src);
    EXPECT_EQ(c.dst, x.dst);
    EXPECT_EQ(c.length, x.length);
  }
  EXPECT_FALSE(w.next(UINT64_MAX, c));

  // Moving the chunks from a buffer into another places every byte where the receiver's layout says.
  const char from[8] = {'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'};
  char to[8];
  std::memset(to, '.', sizeof to);
  Cursor s2(src.data(), src.size(), 8, 1), d2(dst.data(), dst.size(), 8, 1);
  ChunkWalker w2(s2, d2);
  while (w2.next(UINT64_MAX, c)) std::memcpy(to + c.dst, from + c.src, c.length);
  EXPECT_EQ(std::string(to, 8), "b..c.fh.");
}

TEST(DatatypeSegments, AppendMergesOnlyTouchingPieces) {
  std::vector<Segment> l;
  append_merged(l, 0, 4);
  append_merged(l, 4, 4);   // touches: merged
  append_merged(l, 9, 0);   // empty: nothing
  append_merged(l, 12, 2);  // a gap
  append_merged(l, 0, 1);   // before: a new piece, not merged backwards
  ASSERT_EQ(l.size(), 3u);
  EXPECT_EQ(l[0].length, 8u);
  EXPECT_EQ(l[1].offset, 12);
  EXPECT_EQ(l[2].offset, 0);
}

// A contiguous layout is one piece however many elements, and the budget cuts it anywhere.
TEST(DatatypeSegments, ContiguousElementsComeOutAsOnePiece) {
  const std::vector<Segment> l = {{0, 8}};
  Cursor c(l.data(), l.size(), 8, 1000);
  std::vector<uint64_t> lengths;
  walk(c, UINT64_MAX, &lengths);
  ASSERT_EQ(lengths.size(), 1u);
  EXPECT_EQ(lengths[0], 8000u);
  Cursor c2(l.data(), l.size(), 8, 1000);
  lengths.clear();
  walk(c2, 3000, &lengths);
  EXPECT_EQ(lengths, (std::vector<uint64_t>{3000, 3000, 2000}));
}

// Random layouts, counts, budgets and seek points: the cursor yields exactly the expansion's bytes in
// order, pieces never exceed the budget and are contiguous, and pack/unpack round-trip through it.
TEST(DatatypeSegments, RandomLayoutsMatchTheExpansion) {
  std::mt19937_64 rng(20261122);
  for (int trial = 0; trial < 3000; ++trial) {
    int64_t extent = 0;
    const std::vector<Segment> l = random_segments(rng, extent);
    const uint64_t count = rng() % 5;
    const std::vector<int64_t> want = expand(l, extent, count);
    const uint64_t budget = 1 + rng() % 9;
    Cursor c(l.data(), l.size(), extent, count);
    ASSERT_EQ(c.total(), want.size());
    ASSERT_EQ(walk(c, budget), want) << "trial " << trial;
    ASSERT_EQ(c.position(), want.size());

    // Resume from any byte.
    const uint64_t at = want.empty() ? 0 : rng() % (want.size() + 1);
    Cursor r(l.data(), l.size(), extent, count);
    r.seek(at);
    ASSERT_EQ(walk(r, budget), std::vector<int64_t>(want.begin() + int64_t(at), want.end())) << "seek " << at;

    // Pack in pieces of the budget, then unpack into a fresh buffer: the layout's bytes come back.
    // The buffer covers every offset the layout reaches, negative ones included.
    int64_t lowest = 0, highest = 0;
    for (int64_t o : want) {
      lowest = std::min(lowest, o);
      highest = std::max(highest, o);
    }
    const int64_t origin = 8 - lowest;
    std::vector<unsigned char> buf(size_t(origin + highest + 8)), back(buf.size(), 0);
    for (size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<unsigned char>(rng());
    std::vector<unsigned char> packed(want.size() + 1);
    Cursor p(l.data(), l.size(), extent, count);
    uint64_t done = 0;
    while (uint64_t n = pamir::dt::pack(buf.data() + origin, p, packed.data() + done, budget)) done += n;
    ASSERT_EQ(done, want.size());
    for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(packed[i], buf[size_t(origin + want[i])]);
    Cursor u(l.data(), l.size(), extent, count);
    ASSERT_EQ(pamir::dt::unpack(back.data() + origin, u, packed.data(), done), done);
    for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(back[size_t(origin + want[i])], packed[i]);
  }
}

// Two random layouts holding the same number of bytes: the common chunks pair their i-th bytes, each
// chunk is contiguous on both sides and within the budget, and no two consecutive chunks could have
// been one (unless the budget cut them).
TEST(DatatypeSegments, CommonChunksPairTheBytesOfTwoLayouts) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 2000; ++trial) {
    int64_t ea = 0, eb = 0;
    std::vector<Segment> a = random_segments(rng, ea), b = random_segments(rng, eb);
    uint64_t bytes_a = 0, bytes_b = 0;
    for (const Segment &s : a) bytes_a += s.length;
    for (const Segment &s : b) bytes_b += s.length;
    if (!bytes_a || !bytes_b) continue;
    // Same total: count_a * bytes_a == count_b * bytes_b.
    const uint64_t count_a = bytes_b, count_b = bytes_a;
    const std::vector<int64_t> xa = expand(a, ea, count_a), xb = expand(b, eb, count_b);
    ASSERT_EQ(xa.size(), xb.size());
    const uint64_t budget = trial % 3 ? UINT64_MAX : 1 + rng() % 5;
    Cursor ca(a.data(), a.size(), ea, count_a), cb(b.data(), b.size(), eb, count_b);
    ChunkWalker w(ca, cb);
    Chunk c{}, prev{};
    size_t i = 0;
    bool first = true;
    while (w.next(budget, c)) {
      ASSERT_GT(c.length, 0u);
      ASSERT_LE(c.length, budget);
      for (uint64_t k = 0; k < c.length; ++k, ++i) {
        ASSERT_LT(i, xa.size());
        ASSERT_EQ(c.src + int64_t(k), xa[i]) << "trial " << trial << " byte " << i;
        ASSERT_EQ(c.dst + int64_t(k), xb[i]) << "trial " << trial << " byte " << i;
      }
      if (!first && budget == UINT64_MAX) {
        ASSERT_FALSE(prev.src + int64_t(prev.length) == c.src && prev.dst + int64_t(prev.length) == c.dst)
            << "trial " << trial << ": two chunks that are one";
      }
      prev = c;
      first = false;
    }
    ASSERT_EQ(i, xa.size());
  }
}

// A vector of small blocks (one segment repeated over nested loops, the common case of seed 003):
// pack and unpack hand whole passes of the innermost loop to a tight loop, with the block's length
// known to the copy for the basic sizes. Against the naive expansion, for every block length from 1 to
// 17, negative strides, budgets that stop anywhere (also right before an innermost loop's last pass),
// and a resume from any byte.
TEST(DatatypeSegments, VectorsOfSmallBlocksPackAndUnpack) {
  std::mt19937_64 rng(20261126);
  for (int trial = 0; trial < 4000; ++trial) {
    const uint64_t len = 1 + rng() % 17;
    const Segment seg{int64_t(rng() % 5), len};
    const size_t nloops = 1 + rng() % 3;
    Loop loops[3];
    int64_t span = int64_t(len) + seg.offset;
    for (size_t k = 0; k < nloops; ++k) {
      loops[k].count = 1 + rng() % 9;
      const int64_t stride = span + int64_t(rng() % 4);
      loops[k].stride = rng() % 5 == 0 ? -stride : stride;
      span = std::abs(loops[k].stride) * int64_t(loops[k].count) + span;
    }
    const int64_t extent = span + int64_t(rng() % 3);
    const uint64_t count = rng() % 4;
    std::vector<int64_t> want;  // every data byte's offset, innermost loop fastest
    for (uint64_t e = 0; e < count; ++e) {
      uint64_t idx[3] = {};
      for (;;) {
        int64_t off = int64_t(e) * extent + seg.offset;
        for (size_t k = 0; k < nloops; ++k) off += int64_t(idx[k]) * loops[k].stride;
        for (uint64_t i = 0; i < len; ++i) want.push_back(off + int64_t(i));
        size_t k = 0;
        while (k < nloops && ++idx[k] == loops[k].count) idx[k++] = 0;
        if (k == nloops) break;
      }
    }
    int64_t lowest = 0, highest = 0;
    for (int64_t o : want) lowest = std::min(lowest, o), highest = std::max(highest, o);
    const int64_t origin = 8 - lowest;
    std::vector<unsigned char> buf(size_t(origin + highest + 8)), back(buf.size(), 0);
    for (auto &b : buf) b = static_cast<unsigned char>(rng());
    const uint64_t at = want.empty() ? 0 : rng() % (want.size() + 1);
    Cursor p(&seg, 1, loops, nloops, extent, count);
    ASSERT_EQ(p.total(), want.size());
    p.seek(at);
    std::vector<unsigned char> packed(want.size() + 1);
    uint64_t done = at;
    while (done < want.size()) {
      const uint64_t budget = rng() % 3 == 0 ? len * (1 + rng() % 12) : 1 + rng() % 40;
      const uint64_t n = pamir::dt::pack(buf.data() + origin, p, packed.data() + done, budget);
      ASSERT_GT(n, 0u);
      ASSERT_LE(n, budget);
      done += n;
      ASSERT_EQ(p.position(), done);
    }
    for (size_t i = at; i < want.size(); ++i)
      ASSERT_EQ(packed[i], buf[size_t(origin + want[i])]) << "trial " << trial << " byte " << i;
    Cursor u(&seg, 1, loops, nloops, extent, count);
    u.seek(at);
    for (uint64_t put = at; put < want.size();) {
      const uint64_t n = std::min<uint64_t>(want.size() - put, 1 + rng() % 50);
      ASSERT_EQ(pamir::dt::unpack(back.data() + origin, u, packed.data() + put, n), n);
      put += n;
    }
    for (size_t i = at; i < want.size(); ++i) ASSERT_EQ(back[size_t(origin + want[i])], packed[i]) << trial;
  }
}
