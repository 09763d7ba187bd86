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

TEST(Matcher, ReceiveNamingItsSourceSkipsAnotherSourcesFlood) {
  Matcher m;
  std::vector<Unexpected *> flood;
  for (int i = 0; i < 10000; ++i) {
    flood.push_back(arrival(6, 2, 1));
    m.add_unexpected(flood.back());
  }
  Unexpected *mine = arrival(6, 1, 1);
  m.add_unexpected(mine);
  EXPECT_EQ(m.find_unexpected(6, 1, 1, true), mine);
  EXPECT_EQ(m.find_unexpected(6, 1, 1, true), nullptr);
  EXPECT_EQ(m.find_unexpected(6, kAnySource, 1, true), flood[0]);  // the wildcard still sees them
  EXPECT_EQ(m.unexpected_count(), flood.size() - 1);
  for (size_t i = 1; i < flood.size(); ++i) EXPECT_EQ(m.find_unexpected(6, 2, kAnyTag, true), flood[i]);
  for (Unexpected *u : flood) unexpected_release(u);
  unexpected_release(mine);
}

TEST(Matcher, SpecificReceivePostedBeforeAWildcardWins) {
  Matcher m;
  Request *exact = recv(3, 1, 4), *any = recv(3, kAnySource, 4);
  m.post(exact);
  m.post(any);
  EXPECT_TRUE(m.first_for(exact, 1, 4));
  EXPECT_FALSE(m.first_for(any, 1, 4));
  EXPECT_TRUE(m.first_for(any, 0, 4));  // another source's message would take the wildcard
  EXPECT_EQ(m.take_posted(3, 1, 4), exact);
  EXPECT_TRUE(m.unpost(any));
  EXPECT_EQ(m.take_posted(3, 1, 4), nullptr);
  request_release(exact);
  request_release(any);
}

// The rule written plainly: the first element of a queue in order that pred accepts, taken out when
// `remove`.
template <typename T, typename P>
T *first_accepted(std::vector<T *> &queue, P pred, bool remove) {
  for (size_t i = 0; i < queue.size(); ++i)
    if (pred(queue[i])) {
      T *x = queue[i];
      if (remove) queue.erase(queue.begin() + long(i));
      return x;
    }
  return nullptr;
}

// Random posts, arrivals, probes, cancels and wildcards, against one queue of receives in post order and
// one of messages in arrival order, each searched from the front.
TEST(Matcher, AgreesWithOneQueueInOrderOnRandomTraffic) {
  struct Model {
    std::vector<Request *> posted;
    std::vector<Unexpected *> unexpected;
  };
  uint64_t seed = 20261126;
  auto rnd = [&](unsigned n) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return unsigned((seed >> 33) % n);
  };
  for (int round = 0; round < 20; ++round) {
    Matcher m;
    Model model[2];  // contexts 8 and 9
    std::vector<Request *> reqs;
    std::vector<Unexpected *> msgs;
    for (int step = 0; step < 3000; ++step) {
      const unsigned c = rnd(2);
      const uint16_t ctx = uint16_t(8 + c);
      Model &md = model[c];
      const int32_t src = int32_t(rnd(5)), tag = int32_t(rnd(3));
      switch (rnd(5)) {
        case 0: {  // a receive is posted (it first looks among the messages, as a receive does)
          const int32_t want_src = rnd(3) == 0 ? kAnySource : src, want_tag = rnd(3) == 0 ? kAnyTag : tag;
          Unexpected *got = m.find_unexpected(ctx, want_src, want_tag, true);
          Unexpected *want = first_accepted(
              md.unexpected, [&](Unexpected *u) { return accepts(want_src, want_tag, u->src, u->tag); },
              true);
          ASSERT_EQ(got, want) << "round " << round << " step " << step;
          if (!got) {
            Request *r = recv(ctx, want_src, want_tag);
            reqs.push_back(r);
            m.post(r);
            md.posted.push_back(r);
          }
          break;
        }
        case 1:
        case 2: {  // a message arrives
          Request *got = m.take_posted(ctx, src, tag);
          Request *want = first_accepted(
              md.posted, [&](Request *p) { return accepts(p->source, p->tag, src, tag); }, true);
          ASSERT_EQ(got, want) << "round " << round << " step " << step;
          if (!got) {
            Unexpected *u = arrival(ctx, src, tag);
            msgs.push_back(u);
            m.add_unexpected(u);
            md.unexpected.push_back(u);
          }
          break;
        }
        case 3: {  // a probe, possibly a wildcard one
          const int32_t want_src = rnd(2) ? kAnySource : src, want_tag = rnd(2) ? kAnyTag : tag;
          Unexpected *want = first_accepted(
              md.unexpected, [&](Unexpected *u) { return accepts(want_src, want_tag, u->src, u->tag); },
              false);
          ASSERT_EQ(m.find_unexpected(ctx, want_src, want_tag, false), want);
          break;
        }
        default: {  // a cancel, and first_for on what stays
          if (md.posted.empty()) break;
          const size_t i = rnd(unsigned(md.posted.size()));
          Request *r = md.posted[i];
          Request *first = first_accepted(
              md.posted, [&](Request *p) { return accepts(p->source, p->tag, src, tag); }, false);
          ASSERT_EQ(m.first_for(r, src, tag), first == r);
          if (rnd(2)) {
            ASSERT_TRUE(m.unpost(r));
            md.posted.erase(md.posted.begin() + long(i));
          }
        }
      }
      ASSERT_EQ(m.posted_count(), model[0].posted.size() + model[1].posted.size());
      ASSERT_EQ(m.unexpected_count(), model[0].unexpected.size() + model[1].unexpected.size());
    }
    for (Model &md : model)
      for (Request *r : md.posted) m.unpost(r);
    for (Request *r : reqs) request_release(r);
    for (Model &md : model)
      for (Unexpected *u : md.unexpected) m.find_unexpected(u->ctx, u->src, u->tag, true);
    for (Unexpected *u : msgs) unexpected_release(u);
  }
}
