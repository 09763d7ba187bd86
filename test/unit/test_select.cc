// The size table (seed 000): parsing, branch-free lookup at and around every bound.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "pami/select.h"

using pamir::check_send_table;
using pamir::parse_table;
using pamir::SendProtocol;
using pamir::SendTable;

TEST(SendTable, ParsesDefault) {
  SendTable t;
  std::string why;
  ASSERT_TRUE(pamir::parse_table("immediate:192,eager", t, why)) << why;
  EXPECT_EQ(t.ranges, 2u);
  EXPECT_EQ(t.select(0), SendProtocol::immediate);
  EXPECT_EQ(t.select(192), SendProtocol::immediate);
  EXPECT_EQ(t.select(193), SendProtocol::eager);
  EXPECT_EQ(t.select(UINT64_MAX), SendProtocol::eager);
}

TEST(SendTable, BoundsAreInclusiveAndSuffixesScale) {
  SendTable t;
  std::string why;
  ASSERT_TRUE(pamir::parse_table("eager:1K,immediate:4K,eager:1M,immediate", t, why)) << why;
  EXPECT_EQ(t.index(1024), 0u);
  EXPECT_EQ(t.index(1025), 1u);
  EXPECT_EQ(t.index(4096), 1u);
  EXPECT_EQ(t.index(4097), 2u);
  EXPECT_EQ(t.index(1u << 20), 2u);
  EXPECT_EQ(t.index((1u << 20) + 1), 3u);
  EXPECT_EQ(t.select(5000), SendProtocol::eager);
  EXPECT_EQ(t.select(2000), SendProtocol::immediate);
  EXPECT_EQ(pamir::format_table(t),
            "eager [0, 1024], immediate [1025, 4096], eager [4097, 1048576], immediate [1048577, inf)");
}

TEST(SendTable, SingleEntryCoversEverything) {
  SendTable t;
  std::string why;
  ASSERT_TRUE(pamir::parse_table("eager", t, why)) << why;
  for (uint64_t s : {0ull, 1ull, 1ull << 40}) EXPECT_EQ(t.select(s), SendProtocol::eager);
}

TEST(SendTable, RejectsBadStrings) {
  const char *bad[] = {"",
                       "bogus",
                       "immediate:192",
                       "eager:10,immediate:10,eager",
                       "eager:x,eager",
                       "eager,immediate",
                       "eager:5,,eager",
                       "immediate:-1,eager",
                       "eager:1,eager:2,eager:3,eager:4,eager:5,eager:6,eager:7,eager:8,eager"};
  for (const char *s : bad) {
    SendTable t;
    std::string why;
    EXPECT_FALSE(pamir::parse_table(s, t, why)) << "accepted \"" << s << "\"";
    EXPECT_FALSE(why.empty()) << s;
  }
}

TEST(SendTable, FailureLeavesTableUntouched) {
  SendTable t;
  std::string why;
  ASSERT_TRUE(pamir::parse_table("immediate:64,eager", t, why));
  EXPECT_FALSE(pamir::parse_table("eager:9,immediate:3,eager", t, why));
  EXPECT_EQ(t.select(64), SendProtocol::immediate);
  EXPECT_EQ(t.select(65), SendProtocol::eager);
}

namespace {
// A table over `bounds` (strictly increasing, the last UINT64_MAX) with alternating protocols.
SendTable table_of(const std::vector<uint64_t> &bounds) {
  SendTable t;
  t.ranges = unsigned(bounds.size());
  for (unsigned k = 0; k < SendTable::max_ranges; ++k) {
    t.bounds[k] = k < bounds.size() ? bounds[k] : UINT64_MAX;
    t.protos[k] = SendProtocol(k < bounds.size() ? k % 2 : (bounds.size() - 1) % 2);
  }
  return t;
}
// The definition the table implements, by search: the first range whose inclusive bound holds the size.
unsigned reference_index(const std::vector<uint64_t> &bounds, uint64_t size) {
  unsigned k = 0;
  while (bounds[k] < size) ++k;
  return k;
}
}  // namespace

// Seed 000's own example: bounds 100, 1000 and 10000.
TEST(SizeTable, PatentExample) {
  const SendTable t = table_of({100, 1000, 10000, UINT64_MAX});
  for (uint64_t s : {1, 50, 100}) EXPECT_EQ(t.index(s), 0u) << s;
  for (uint64_t s : {101, 500, 1000}) EXPECT_EQ(t.index(s), 1u) << s;
  for (uint64_t s : {1001, 5000, 10000}) EXPECT_EQ(t.index(s), 2u) << s;
  EXPECT_EQ(t.index(10001), 3u);
  EXPECT_EQ(t.index(UINT64_MAX), 3u);
}

// Every bound b belongs to its own range and b + 1 to the next, for random tables of every length,
// and random sizes land where a search of the bounds puts them.
TEST(SizeTable, BoundariesAndRandomTablesMatchASearch) {
  std::mt19937_64 rng(20261122);
  for (int trial = 0; trial < 2000; ++trial) {
    const unsigned ranges = 1 + unsigned(rng() % SendTable::max_ranges);
    std::vector<uint64_t> bounds;
    uint64_t b = 0;
    for (unsigned k = 0; k + 1 < ranges; ++k) {
      b += 1 + rng() % (trial % 2 ? 1000 : (uint64_t(1) << (rng() % 40)));
      bounds.push_back(b);
    }
    bounds.push_back(UINT64_MAX);
    const SendTable t = table_of(bounds);
    for (unsigned k = 0; k + 1 < ranges; ++k) {
      ASSERT_EQ(t.index(bounds[k]), k) << "bound " << bounds[k];
      ASSERT_EQ(t.index(bounds[k] + 1), k + 1) << "bound + 1 " << bounds[k] + 1;
      ASSERT_EQ(t.select(bounds[k] + 1), t.protos[k + 1]);
    }
    for (int i = 0; i < 50; ++i) {
      const uint64_t s = i % 2 ? rng() : rng() % (b + 2);
      ASSERT_EQ(t.index(s), reference_index(bounds, s)) << "size " << s;
    }
  }
}

// Two tables over the same sizes choose independently: what one operation class does with a size says
// nothing of another's choice.
TEST(SizeTable, TablesChooseIndependently) {
  SendTable a, b;
  std::string why;
  ASSERT_TRUE(parse_table("immediate:192,eager", a, why)) << why;
  ASSERT_TRUE(parse_table("eager:64,immediate:1K,eager", b, why)) << why;
  EXPECT_EQ(a.select(100), SendProtocol::immediate);
  EXPECT_EQ(b.select(100), SendProtocol::immediate);
  EXPECT_EQ(a.select(32), SendProtocol::immediate);
  EXPECT_EQ(b.select(32), SendProtocol::eager);
  EXPECT_EQ(a.select(500), SendProtocol::eager);
  EXPECT_EQ(b.select(500), SendProtocol::immediate);
}

// The operation classes each parse their own names and choose by their own bounds: with the default
// tables one size goes three ways (an eager send, a direct put, a get by packets here).
TEST(SizeTable, ClassesChooseDifferentlyForOneSize) {
  pamir::SendTable send;
  pamir::PutTable put;
  pamir::GetTable get;
  std::string why;
  ASSERT_TRUE(parse_table("immediate:192,eager:64K,rdma", send, why)) << why;
  ASSERT_TRUE(parse_table("eager:16K,rdma", put, why)) << why;
  ASSERT_TRUE(parse_table("rdma:4K,eager", get, why)) << why;
  EXPECT_EQ(send.select(32768), SendProtocol::eager);
  EXPECT_EQ(put.select(32768), pamir::PutProtocol::rdma);
  EXPECT_EQ(get.select(32768), pamir::GetProtocol::eager);
  EXPECT_EQ(put.select(16384), pamir::PutProtocol::eager);
  EXPECT_EQ(get.select(4096), pamir::GetProtocol::rdma);
  EXPECT_EQ(pamir::format_table(get), "rdma [0, 4096], eager [4097, inf)");

  EXPECT_FALSE(parse_table("immediate:64,eager", put, why));
  EXPECT_NE(why.find("unknown protocol \"immediate\" (known: eager, rdma)"), std::string::npos) << why;
  EXPECT_FALSE(parse_table("rdma:1K,bogus", get, why));
  EXPECT_NE(why.find("(known: eager, rdma)"), std::string::npos) << why;
  EXPECT_FALSE(parse_table("rdma:1K,rdmaX", send, why));
  EXPECT_NE(why.find("(known: immediate, eager, rdma)"), std::string::npos) << why;
  EXPECT_EQ(put.select(32768), pamir::PutProtocol::rdma);  // a failed parse leaves the table as it was
}

// What the devices cannot serve is refused with the bad part and the limit named.
TEST(SendTable, CheckRefusesWhatAPacketCannotCarry) {
  SendTable t;
  std::string why;
  ASSERT_TRUE(parse_table("immediate:192,eager", t, why));
  EXPECT_TRUE(check_send_table(t, 192, "test limit", why)) << why;
  EXPECT_FALSE(check_send_table(t, 191, "test limit", why));
  EXPECT_NE(why.find("immediate:192"), std::string::npos) << why;
  EXPECT_NE(why.find("191 bytes"), std::string::npos) << why;
  EXPECT_NE(why.find("test limit"), std::string::npos) << why;

  ASSERT_TRUE(parse_table("eager:100,immediate:4K,eager", t, why));
  EXPECT_FALSE(check_send_table(t, 4095, "x", why));
  EXPECT_NE(why.find("immediate:4096"), std::string::npos) << why;
  EXPECT_TRUE(check_send_table(t, 4096, "x", why));

  ASSERT_TRUE(parse_table("immediate", t, why));
  EXPECT_FALSE(check_send_table(t, 16344, "x", why));
  EXPECT_NE(why.find("last, unbounded range"), std::string::npos) << why;

  ASSERT_TRUE(parse_table("eager", t, why));
  EXPECT_TRUE(check_send_table(t, 0, "x", why)) << why;
}
