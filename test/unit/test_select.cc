// The size table (seed 000): parsing, branch-free lookup at and around every bound.
#include <gtest/gtest.h>

#include "pami/select.h"

using pamir::SendProtocol;
using pamir::SendTable;

TEST(SendTable, ParsesDefault) {
  SendTable t;
  std::string why;
  ASSERT_TRUE(pamir::parse_send_table("immediate:192,eager", t, why)) << why;
  EXPECT_EQ(t.ranges, 2u);
  EXPECT_EQ(t.select(0), SendProtocol::immediate);
  EXPECT_EQ(t.select(192), SendProtocol::immediate);
  EXPECT_EQ(t.select(193), SendProtocol::eager);
  EXPECT_EQ(t.select(UINT64_MAX), SendProtocol::eager);
}

TEST(SendTable, BoundsAreInclusiveAndSuffixesScale) {
  SendTable t;
  std::string why;
  ASSERT_TRUE(pamir::parse_send_table("eager:1K,immediate:4K,eager:1M,immediate", t, why)) << why;
  EXPECT_EQ(t.index(1024), 0u);
  EXPECT_EQ(t.index(1025), 1u);
  EXPECT_EQ(t.index(4096), 1u);
  EXPECT_EQ(t.index(4097), 2u);
  EXPECT_EQ(t.index(1u << 20), 2u);
  EXPECT_EQ(t.index((1u << 20) + 1), 3u);
  EXPECT_EQ(t.select(5000), SendProtocol::eager);
  EXPECT_EQ(t.select(2000), SendProtocol::immediate);
  EXPECT_EQ(pamir::format_send_table(t),
            "eager [0, 1024], immediate [1025, 4096], eager [4097, 1048576], immediate [1048577, inf)");
}

TEST(SendTable, SingleEntryCoversEverything) {
  SendTable t;
  std::string why;
  ASSERT_TRUE(pamir::parse_send_table("eager", t, why)) << why;
  for (uint64_t s : {0ull, 1ull, 1ull << 40}) EXPECT_EQ(t.select(s), SendProtocol::eager);
}

TEST(SendTable, RejectsBadStrings) {
  const char *bad[] = {"",           "bogus",          "immediate:192",   "eager:10,immediate:10,eager",
                       "eager:x,eager", "eager,immediate", "eager:5,,eager", "immediate:-1,eager",
                       "eager:1,eager:2,eager:3,eager:4,eager:5,eager:6,eager:7,eager:8,eager"};
  for (const char *s : bad) {
    SendTable t;
    std::string why;
    EXPECT_FALSE(pamir::parse_send_table(s, t, why)) << "accepted \"" << s << "\"";
    EXPECT_FALSE(why.empty()) << s;
  }
}

TEST(SendTable, FailureLeavesTableUntouched) {
  SendTable t;
  std::string why;
  ASSERT_TRUE(pamir::parse_send_table("immediate:64,eager", t, why));
  EXPECT_FALSE(pamir::parse_send_table("eager:9,immediate:3,eager", t, why));
  EXPECT_EQ(t.select(64), SendProtocol::immediate);
  EXPECT_EQ(t.select(65), SendProtocol::eager);
}
