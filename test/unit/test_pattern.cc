// The descriptor FIFO of seed 004 on its own: sections placed first-fit, sealed counters, head and
// tail set by a rewind, generations that tell a reused section from the one a caller recorded, and a
// full FIFO that refuses rather than overwrites.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "pami/pattern.h"

using namespace pamir;

namespace {

// Fills section s with n descriptors whose fields derive from `seed`, counter j for descriptor j % k.
void fill(PatternFifo &f, uint32_t s, uint32_t n, uint32_t k, uint64_t seed) {
  Descriptor *d = f.descriptors(s);
  for (uint32_t j = 0; j < n; ++j) {
    d[j].intent = j % 2 ? Intent::receive : Intent::eager_send;
    d[j].task = uint32_t(seed + j);
    d[j].bits = seed * 1000 + j;
    d[j].length = j;
    d[j].counter = f.first(s) + j % k;
  }
  f.seal(s);
}

bool intact(PatternFifo &f, uint32_t s, uint32_t n, uint64_t seed) {
  const Descriptor *d = f.descriptors(s);
  for (uint32_t j = 0; j < n; ++j)
    if (d[j].task != uint32_t(seed + j) || d[j].bits != seed * 1000 + j || d[j].length != j ||
        d[j].section != s)
      return false;
  return true;
}

TEST(Pattern, RecordSealRewind) {
  PatternFifo f(64);
  const uint32_t s = f.record(7, 5, 2);
  ASSERT_NE(s, PatternFifo::kNone);
  EXPECT_EQ(f.size(s), 5u);
  EXPECT_EQ(f.id(s), 7u);
  EXPECT_EQ(f.find(7), s);
  fill(f, s, 5, 2, 3);
  // Counter 0 is named by descriptors 0, 2, 4; counter 1 by 1 and 3.
  EXPECT_EQ(f.counters(s)[0].armed, 3u);
  EXPECT_EQ(f.counters(s)[1].armed, 2u);
  f.counters(s)[0].value = 0;
  f.rewind(s);
  EXPECT_EQ(f.counters(s)[0].value, 3u);
  EXPECT_EQ(f.counters(s)[1].value, 2u);
  EXPECT_EQ(f.head(), f.first(s));
  EXPECT_EQ(f.tail(), f.first(s) + 5);
  uint32_t popped = 0;
  while (!f.empty()) {
    EXPECT_EQ(f.pop().bits, 3000u + popped);
    ++popped;
  }
  EXPECT_EQ(popped, 5u);
}

TEST(Pattern, RefusesWhatDoesNotFit) {
  PatternFifo f(10);
  EXPECT_EQ(f.record(1, 0, 0), PatternFifo::kNone);   // an empty pattern is not recorded
  EXPECT_EQ(f.record(1, 2, 3), PatternFifo::kNone);   // more counters than descriptors
  EXPECT_EQ(f.record(1, 11, 1), PatternFifo::kNone);  // larger than the FIFO
  const uint32_t a = f.record(1, 6, 1);
  ASSERT_NE(a, PatternFifo::kNone);
  fill(f, a, 6, 1, 1);
  EXPECT_EQ(f.record(2, 5, 1), PatternFifo::kNone);  // 4 left
  const uint32_t b = f.record(2, 4, 1);
  ASSERT_NE(b, PatternFifo::kNone);
  fill(f, b, 4, 1, 2);
  EXPECT_EQ(f.used(), 10u);
  EXPECT_EQ(f.record(3, 1, 1), PatternFifo::kNone);
  EXPECT_TRUE(intact(f, a, 6, 1));  // a refusal leaves the recorded sections alone
  EXPECT_TRUE(intact(f, b, 4, 2));
  PatternFifo none(0);
  EXPECT_EQ(none.record(1, 1, 1), PatternFifo::kNone);
}

TEST(Pattern, FirstFitReusesHolesAndNeverPatches) {
  PatternFifo f(12);
  const uint32_t a = f.record(1, 4, 1);
  fill(f, a, 4, 1, 10);
  const uint32_t b = f.record(2, 4, 1);
  fill(f, b, 4, 1, 20);
  const uint32_t c = f.record(3, 4, 1);
  fill(f, c, 4, 1, 30);
  const uint64_t gb = f.generation(b);
  const uint64_t before = f.releases();
  f.release(b, gb);
  EXPECT_EQ(f.releases(), before + 1);
  EXPECT_FALSE(f.live(b, gb));
  f.release(b, gb);  // twice: nothing more
  f.release(PatternFifo::kNone, 0);
  f.release(a, f.generation(a) + 1);  // not a's generation: a stays
  EXPECT_EQ(f.releases(), before + 1);
  EXPECT_EQ(f.find(2), PatternFifo::kNone);
  EXPECT_EQ(f.find(1), a);
  // A 3-descriptor pattern fits the hole b left; a 2-descriptor one then fits what remains of it.
  const uint32_t d = f.record(4, 3, 1);
  ASSERT_NE(d, PatternFifo::kNone);
  EXPECT_EQ(f.first(d), 4u);
  fill(f, d, 3, 1, 40);
  EXPECT_EQ(f.record(5, 2, 1), PatternFifo::kNone);
  const uint32_t e = f.record(5, 1, 1);
  ASSERT_NE(e, PatternFifo::kNone);
  EXPECT_EQ(f.first(e), 7u);
  fill(f, e, 1, 1, 50);
  // The section number b had may be reused, but never under b's generation.
  EXPECT_FALSE(f.live(b, gb));
  EXPECT_TRUE(intact(f, a, 4, 10));
  EXPECT_TRUE(intact(f, c, 4, 30));
  EXPECT_TRUE(intact(f, d, 3, 40));
}

TEST(Pattern, ReleaseNamingAnOperation) {
  PatternFifo f(16);
  Request x, y;
  const uint32_t a = f.record(1, 2, 2);
  f.descriptors(a)[0].req = &x;
  f.descriptors(a)[1].req = &y;
  f.descriptors(a)[1].counter = f.first(a) + 1;
  f.seal(a);
  const uint32_t b = f.record(2, 1, 1);
  f.descriptors(b)[0].req = &y;
  f.seal(b);
  const uint32_t c = f.record(3, 1, 1);
  f.descriptors(c)[0].req = &x;
  f.seal(c);
  const uint64_t ga = f.generation(a), gb = f.generation(b), gc = f.generation(c);
  f.release_naming(&y);
  EXPECT_FALSE(f.live(a, ga));
  EXPECT_FALSE(f.live(b, gb));
  EXPECT_TRUE(f.live(c, gc));
  EXPECT_EQ(f.live_sections(), 1u);
}

// A sealed section of two descriptors arming x and y, each with a counter of its own whose zero counts
// into *zeros.
uint32_t two_operations(PatternFifo &f, Request &x, Request &y, int *zeros, bool rearms) {
  const uint32_t a = f.record(1, 2, 2);
  f.descriptors(a)[0].req = &x;
  f.descriptors(a)[1].req = &y;
  f.descriptors(a)[1].counter = f.first(a) + 1;
  for (int j = 0; j < 2; ++j) {
    f.counters(a)[j].zero = [](void *arg, Request *) { ++*static_cast<int *>(arg); };
    f.counters(a)[j].arg = zeros;
    f.counters(a)[j].rearms = rearms;
  }
  f.seal(a);
  return a;
}

// A section released while its operations run keeps its place until their counters reach zero: a
// new record must not overwrite the counters those completions will count down.
TEST(Pattern, ReleasedWhileRunningDrainsFirst) {
  PatternFifo f(4);
  Request x, y;
  int zeros = 0;
  const uint32_t a = two_operations(f, x, y, &zeros, false);
  f.rewind(a);
  // Both operations start: they count down through their requests.
  for (Request *r : {&x, &y}) {
    r->ext = &f.counter(f.pop().counter);
    r->on_complete = pattern_op_done;
  }
  const uint64_t ga = f.generation(a);
  f.release(a, ga);
  EXPECT_FALSE(f.live(a, ga));
  EXPECT_EQ(f.live_sections(), 0u);
  EXPECT_EQ(f.record(2, 4, 1), PatternFifo::kNone);  // a's two descriptors are still in use
  request_complete(&x);
  EXPECT_EQ(zeros, 1);
  EXPECT_EQ(f.record(2, 4, 1), PatternFifo::kNone);  // y still runs
  PatternFifo::abandon(&y);                          // y's request was freed while active
  y.on_complete = nullptr;
  request_complete(&y);
  EXPECT_EQ(zeros, 1);  // an abandoned counter does not call back
  EXPECT_NE(f.record(2, 4, 1), PatternFifo::kNone);
}

// Counters that rearm (MPI_Start's and MPI_Startall's, whose callbacks take the completion) are at
// rest armed: a rewind leaves them alone, reaching zero arms them again, and a section of them that
// was released drains once each has come back to rest, abandoned or not.
TEST(Pattern, RearmingCountersNeedNoRewind) {
  PatternFifo f(4);
  Request x, y;
  int zeros = 0;
  const uint32_t a = two_operations(f, x, y, &zeros, true);
  EXPECT_EQ(f.counters(a)[0].value, 1u);  // armed at rest
  for (int start = 1; start <= 3; ++start) {
    f.counters(a)[1].value = 7;  // what a rewind would overwrite, were they not rearming
    f.rewind(a);
    EXPECT_EQ(f.counters(a)[1].value, 7u);
    f.counters(a)[1].value = 1;
    for (Request *r : {&x, &y}) {
      r->ext = &f.counter(f.pop().counter);
      r->on_complete = pattern_op_done;
      r->complete = false;
      request_complete(r);
    }
    EXPECT_EQ(zeros, 2 * start);
    EXPECT_EQ(f.counters(a)[0].value, 1u);
    EXPECT_EQ(f.counters(a)[1].value, 1u);
  }
  // A start runs: x completes, y's request is freed while active, then the section is released.
  f.rewind(a);
  for (Request *r : {&x, &y}) {
    r->ext = &f.counter(f.pop().counter);
    r->on_complete = pattern_op_done;
  }
  request_complete(&x);
  f.release(a, f.generation(a));
  EXPECT_EQ(f.record(2, 4, 1), PatternFifo::kNone);  // y still runs
  PatternFifo::abandon(&y);
  EXPECT_EQ(f.counters(a)[1].value, 1u);
  EXPECT_EQ(zeros, 7);
  EXPECT_NE(f.record(2, 4, 1), PatternFifo::kNone);
}

TEST(Pattern, AThousandPatterns) {
  PatternFifo f(4000);
  std::vector<uint32_t> s(1000);
  for (uint32_t i = 0; i < 1000; ++i) {
    s[i] = f.record(i, 1 + i % 4, 1);
    ASSERT_NE(s[i], PatternFifo::kNone) << i;
    fill(f, s[i], 1 + i % 4, 1, i * 7);
  }
  EXPECT_EQ(f.live_sections(), 1000u);
  for (uint32_t i = 0; i < 1000; i += 3) {
    f.rewind(s[i]);
    uint32_t j = 0;
    while (!f.empty()) {
      const Descriptor &d = f.pop();
      EXPECT_EQ(d.section, s[i]);
      EXPECT_EQ(d.bits, i * 7 * 1000 + j);
      ++j;
    }
    EXPECT_EQ(j, 1 + i % 4);
  }
}

}  // namespace

// seal() marks the receives with a ready token, for a mailbox or a direct put, that no earlier receive of
// the section accepts the messages of (kDescFirst): a later receive of the same source and tag, anything
// after a wildcard in the same context, is not; another context, another tag, or an earlier send does
// not matter. A receive that offers no token (a typed one, say) is not marked either.
TEST(Pattern, SealMarksFirstReceives) {
  PatternFifo f(64);
  struct Recv {
    Intent intent;
    uint16_t ctx;
    int32_t src, tag;
    bool first;
    uint8_t token = kDescBoxToken;
  };
  const std::vector<Recv> want = {
      {Intent::eager_send, 2, 1, 5, false},  // a send accepts nothing
      {Intent::receive, 2, 1, 5, true},
      {Intent::receive, 2, 1, 6, true},            // another tag
      {Intent::receive, 4, 1, 5, true},            // another context
      {Intent::receive, 2, 1, 5, false},           // the second receive of (1, 5)
      {Intent::receive, 2, 3, 5, true},            // another source
      {Intent::receive, 2, kAnySource, 9, false},  // a wildcard never gets a token, so never first
      {Intent::receive, 2, 3, 9, false},           // the wildcard before it accepts (3, 9)
      {Intent::receive, 2, 3, 8, true},
      {Intent::receive, 2, 5, 5, true, kDescToken},  // a direct put's token
      {Intent::receive, 2, 5, 5, false, kDescToken},
      {Intent::receive, 2, 6, 5, false, 0},  // no token
  };
  const uint32_t n = uint32_t(want.size());
  const uint32_t s = f.record(1, n, 1);
  ASSERT_NE(s, PatternFifo::kNone);
  std::vector<Request> reqs(n);
  Descriptor *d = f.descriptors(s);
  for (uint32_t j = 0; j < n; ++j) {
    reqs[j].ctx = want[j].ctx;
    reqs[j].source = want[j].src;
    reqs[j].tag = want[j].tag;
    d[j].intent = want[j].intent;
    d[j].req = &reqs[j];
    d[j].counter = f.first(s);
    if (want[j].intent == Intent::receive && want[j].src != kAnySource) d[j].flags = want[j].token;
  }
  f.seal(s);
  for (uint32_t j = 0; j < n; ++j)
    EXPECT_EQ((d[j].flags & kDescFirst) != 0, want[j].first) << "descriptor " << j;
}
