// PAMIR_* settings: sizes, booleans, and load() naming the variable of a bad value.
#include <gtest/gtest.h>
#include <stdlib.h>

#include "pami/config.h"

using namespace pamir::config;

TEST(Config, ParseSize) {
  uint64_t v = 0;
  EXPECT_TRUE(parse_size("64", v));
  EXPECT_EQ(v, 64u);
  EXPECT_TRUE(parse_size("32K", v));
  EXPECT_EQ(v, 32u << 10);
  EXPECT_TRUE(parse_size("4m", v));
  EXPECT_EQ(v, 4u << 20);
  EXPECT_TRUE(parse_size("1GB", v));
  EXPECT_EQ(v, 1ull << 30);
  for (const char *bad : {"", "K", "-1", "12Q", "1.5K", "99999999999999999999", "17179869184G"})
    EXPECT_FALSE(parse_size(bad, v)) << bad;
}

TEST(Config, ParseBool) {
  bool b = false;
  for (const char *t : {"1", "yes", "TRUE", "on"}) {
    EXPECT_TRUE(parse_bool(t, b));
    EXPECT_TRUE(b) << t;
  }
  for (const char *f : {"0", "no", "False", "OFF"}) {
    EXPECT_TRUE(parse_bool(f, b));
    EXPECT_FALSE(b) << f;
  }
  EXPECT_FALSE(parse_bool("2", b));
}

TEST(Config, LoadNamesTheBadVariable) {
  setenv("PAMIR_SHM_RING_SIZE", "3000", 1);
  std::string why;
  std::vector<std::string> warnings;
  EXPECT_FALSE(load(why, warnings));
  EXPECT_NE(why.find("PAMIR_SHM_RING_SIZE"), std::string::npos) << why;
  unsetenv("PAMIR_SHM_RING_SIZE");

  setenv("PAMIR_SEND_PROTOCOLS", "eager:4K", 1);
  EXPECT_FALSE(load(why, warnings));
  EXPECT_NE(why.find("PAMIR_SEND_PROTOCOLS"), std::string::npos) << why;
  unsetenv("PAMIR_SEND_PROTOCOLS");
}

TEST(Config, DefaultsAndTypos) {
  setenv("PAMIR_SPIN_CUONT", "5", 1);
  std::string why;
  std::vector<std::string> warnings;
  ASSERT_TRUE(load(why, warnings)) << why;
  unsetenv("PAMIR_SPIN_CUONT");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("PAMIR_SPIN_CUONT"), std::string::npos);
  EXPECT_EQ(shm_ring_size.number, 64u << 10);
  EXPECT_FALSE(stats.flag);
  for (Setting *s : all()) {
    EXPECT_FALSE(s->from_env) << s->name;
    EXPECT_EQ(s->value, s->default_value) << s->name;
  }
}
