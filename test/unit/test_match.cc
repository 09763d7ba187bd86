// The matcher: arrival order, wildcards, per-context isolation, cancel, and the match-bit layout.
#include <gtest/gtest.h>

#include <vector>

#include "pami/match.h"

using namespace pamir;

namespace {
Request *recv(uint16_t ctx, int32_t src, int32_t tag) {
  Request *r = request_alloc(ReqKind::recv);
  r->ctx = ctx;
  r->source = src;
  r->tag = tag;
  return r;
}
Unexpected *arrival(uint16_t ctx, int32_t src, int32_t tag) {
  Unexpected *u = unexpected_alloc(8);
  u->ctx = ctx;
  u->src = src;
  u->tag = tag;
  return u;
}
}  // namespace

TEST(MatchBits, RoundTripAtTheLimits) {
  for (uint16_t ctx : {uint16_t(0), uint16_t(1), uint16_t(65535)})
    for (int32_t src : {0, 1, int32_t(kMaxRanks - 1)})
      for (int32_t tag : {0, 7, kTagUb}) {
        uint64_t b = match_bits(ctx, src, tag);
        EXPECT_EQ(bits_ctx(b), ctx);
        EXPECT_EQ(bits_src(b), src);
        EXPECT_EQ(bits_tag(b), tag);
      }
}

TEST(Matcher, PostedReceivesMatchInPostOrder) {
  Matcher m;
  Request *any = recv(4, kAnySource, kAnyTag), *exact = recv(4, 1, 9);
  m.post(any);
  m.post(exact);
  EXPECT_EQ(m.take_posted(4, 1, 9), any);  // the earlier wildcard wins
  EXPECT_EQ(m.take_posted(4, 1, 9), exact);
  EXPECT_EQ(m.take_posted(4, 1, 9), nullptr);
  request_release(any);
  request_release(exact);
}

TEST(Matcher, UnexpectedMatchInArrivalOrderWithWildcards) {
  Matcher m;
  std::vector<Unexpected *> us{arrival(2, 0, 5), arrival(2, 1, 6), arrival(2, 0, 6), arrival(2, 1, 5)};
  for (Unexpected *u : us) m.add_unexpected(u);
  EXPECT_EQ(m.find_unexpected(2, kAnySource, 6, false), us[1]);
  EXPECT_EQ(m.find_unexpected(2, 0, kAnyTag, true), us[0]);
  EXPECT_EQ(m.find_unexpected(2, 0, kAnyTag, true), us[2]);
  EXPECT_EQ(m.find_unexpected(2, kAnySource, kAnyTag, true), us[1]);
  EXPECT_EQ(m.find_unexpected(2, 1, 5, true), us[3]);
  EXPECT_EQ(m.unexpected_count(), 0u);
  for (Unexpected *u : us) unexpected_release(u);
}

TEST(Matcher, ContextsAreIsolated) {
  Matcher m;
  Request *r = recv(10, kAnySource, kAnyTag);
  m.post(r);
  EXPECT_EQ(m.take_posted(11, 0, 0), nullptr);
  EXPECT_EQ(m.take_posted(12, 0, 0), nullptr);
  EXPECT_EQ(m.take_posted(10, 0, 0), r);
  request_release(r);
}

TEST(Matcher, UnpostOnlyBeforeMatch) {
  Matcher m;
  Request *a = recv(1, 0, 1), *b = recv(1, 0, 1);
  m.post(a);
  m.post(b);
  EXPECT_TRUE(m.unpost(a));
  EXPECT_FALSE(m.unpost(a));
  EXPECT_EQ(m.take_posted(1, 0, 1), b);
  EXPECT_FALSE(m.unpost(b));
  EXPECT_EQ(m.posted_count(), 0u);
  request_release(a);
  request_release(b);
}

TEST(Matcher, LargeUnexpectedPayloadsLiveOffLine) {
  Unexpected *small = unexpected_alloc(Unexpected::kInline);
  Unexpected *big = unexpected_alloc(Unexpected::kInline + 1);
  EXPECT_EQ(small->data, small->inline_data);
  EXPECT_NE(big->data, big->inline_data);
  unexpected_release(small);
  unexpected_release(big);
}

TEST(Requests, ReleasedRequestLosesItsMagic) {
  size_t before = requests_in_use();
  Request *r = request_alloc(ReqKind::send);
  EXPECT_EQ(r->magic, kRequestMagic);
  EXPECT_EQ(requests_in_use(), before + 1);
  request_release(r);
  EXPECT_NE(r->magic, kRequestMagic);
  EXPECT_EQ(requests_in_use(), before);
}
