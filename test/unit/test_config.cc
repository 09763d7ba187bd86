// PAMIR_* settings: sizes, booleans, and load() naming the variable of a bad value.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstring>
#include <string>
#include <vector>

#include "pami/config.h"
#include "pami/send_tables.h"

using namespace pamir::config;

extern char **environ;

namespace {
// Runs a test body with no PAMIR_* variable of the caller's environment (the test scripts export
// some), restoring them afterwards, so that what load() reports comes from the test alone.
class CleanEnv {
 public:
  CleanEnv() {
    std::vector<std::string> names;
    for (char **e = environ; e && *e; ++e)
      if (std::strncmp(*e, "PAMIR_", 6) == 0) {
        saved_.emplace_back(*e);
        names.emplace_back(*e, std::strcspn(*e, "="));
      }
    for (const std::string &n : names) unsetenv(n.c_str());
  }
  ~CleanEnv() {
    for (const std::string &kv : saved_) {
      size_t eq = kv.find('=');
      setenv(kv.substr(0, eq).c_str(), kv.c_str() + eq + 1, 1);
    }
  }

 private:
  std::vector<std::string> saved_;
};
}  // namespace

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
  CleanEnv clean;
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

  // Each class is parsed with its own protocol names: immediate is a send protocol only.
  setenv("PAMIR_PUT_PROTOCOLS", "immediate:64,rdma", 1);
  EXPECT_FALSE(load(why, warnings));
  EXPECT_NE(why.find("PAMIR_PUT_PROTOCOLS"), std::string::npos) << why;
  EXPECT_NE(why.find("known: eager, rdma"), std::string::npos) << why;
  unsetenv("PAMIR_PUT_PROTOCOLS");
  setenv("PAMIR_GET_PROTOCOLS", "eager:8K,rdma", 1);
  EXPECT_TRUE(load(why, warnings)) << why;
  setenv("PAMIR_GET_PROTOCOLS", "rdma:8K", 1);
  EXPECT_FALSE(load(why, warnings));
  EXPECT_NE(why.find("PAMIR_GET_PROTOCOLS"), std::string::npos) << why;
  unsetenv("PAMIR_GET_PROTOCOLS");

  // Credits: 4 (what flow control needs) to 1024.
  for (const char *bad : {"3", "1025", "many"}) {
    setenv("PAMIR_OFI_CREDITS", bad, 1);
    EXPECT_FALSE(load(why, warnings)) << bad;
    EXPECT_NE(why.find("PAMIR_OFI_CREDITS"), std::string::npos) << why;
  }
  setenv("PAMIR_OFI_CREDITS", "4", 1);
  EXPECT_TRUE(load(why, warnings)) << why;
  unsetenv("PAMIR_OFI_CREDITS");
}

TEST(Config, DefaultsAndTypos) {
  CleanEnv clean;
  setenv("PAMIR_SPIN_CUONT", "5", 1);
  setenv("PAMIR_TEST_QUICK", "1", 1);  // the test scripts' own variable is not a typo
  std::string why;
  std::vector<std::string> warnings;
  ASSERT_TRUE(load(why, warnings)) << why;
  unsetenv("PAMIR_SPIN_CUONT");
  unsetenv("PAMIR_TEST_QUICK");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("PAMIR_SPIN_CUONT"), std::string::npos);
  EXPECT_EQ(shm_ring_size.number, 64u << 10);
  EXPECT_FALSE(stats.flag);
  for (Setting *s : all()) {
    EXPECT_FALSE(s->from_env) << s->name;
    EXPECT_EQ(s->value, s->default_value) << s->name;
  }
}

// Which text each device's send table comes from (pami/send_tables.h): the device's own variable,
// then PAMIR_SEND_PROTOCOLS, then the device's default (ofi's by provider); each checked against its
// own device's packet.
TEST(Config, SendTablePerDevice) {
  CleanEnv clean;
  std::string why;
  std::vector<std::string> warnings;
  pamir::SendTable t;
  auto text = [](pamir::Path p) { return pamir::send_table_choice(p).text; };
  ASSERT_TRUE(load(why, warnings)) << why;
  EXPECT_EQ(text(pamir::Path::shm), "immediate:192,eager:2K,rdma");
  EXPECT_EQ(text(pamir::Path::ofi), "immediate:4K,eager:32K,rdma");  // tcp;ofi_rxm's
  EXPECT_FALSE(pamir::send_table_choice(pamir::Path::ofi).from_env);

  setenv("PAMIR_OFI_PROVIDER", "shm", 1);
  ASSERT_TRUE(load(why, warnings)) << why;
  EXPECT_EQ(text(pamir::Path::ofi), "immediate:4K,rdma");
  setenv("PAMIR_OFI_PROVIDER", "verbs;ofi_rxm", 1);  // not measured here: the generic table
  ASSERT_TRUE(load(why, warnings)) << why;
  EXPECT_EQ(text(pamir::Path::ofi), pamir::kGenericOfiTable);
  unsetenv("PAMIR_OFI_PROVIDER");

  // PAMIR_SEND_PROTOCOLS is every device's, unless the device's own variable is set too.
  setenv("PAMIR_SEND_PROTOCOLS", "eager:1K,rdma", 1);
  setenv("PAMIR_OFI_SEND_PROTOCOLS", "immediate:2K,eager", 1);
  ASSERT_TRUE(load(why, warnings)) << why;
  EXPECT_EQ(text(pamir::Path::shm), "eager:1K,rdma");
  EXPECT_EQ(pamir::send_table_choice(pamir::Path::shm).origin, "PAMIR_SEND_PROTOCOLS");
  EXPECT_EQ(text(pamir::Path::ofi), "immediate:2K,eager");
  EXPECT_EQ(pamir::send_table_choice(pamir::Path::ofi).origin, "PAMIR_OFI_SEND_PROTOCOLS");
  ASSERT_TRUE(pamir::load_send_table(pamir::Path::ofi, t, why)) << why;
  EXPECT_EQ(t.select(2048), pamir::SendProtocol::immediate);
  EXPECT_EQ(t.select(2049), pamir::SendProtocol::eager);
  // The words that leave the choice to the devices are their defaults again.
  setenv("PAMIR_SEND_PROTOCOLS", "device", 1);
  setenv("PAMIR_OFI_SEND_PROTOCOLS", "provider", 1);
  ASSERT_TRUE(load(why, warnings)) << why;
  EXPECT_EQ(text(pamir::Path::shm), "immediate:192,eager:2K,rdma");
  EXPECT_EQ(text(pamir::Path::ofi), "immediate:4K,eager:32K,rdma");
  // ... and only where they belong.
  setenv("PAMIR_SHM_SEND_PROTOCOLS", "provider", 1);
  EXPECT_FALSE(load(why, warnings));
  EXPECT_NE(why.find("PAMIR_SHM_SEND_PROTOCOLS"), std::string::npos) << why;
  unsetenv("PAMIR_SHM_SEND_PROTOCOLS");

  // Each table is bounded by its own device's packet: 10000 bytes fit a 64 KiB ring's, not ofi's 8 KiB.
  setenv("PAMIR_SEND_PROTOCOLS", "immediate:10000,eager", 1);
  unsetenv("PAMIR_OFI_SEND_PROTOCOLS");
  ASSERT_TRUE(load(why, warnings)) << why;
  EXPECT_TRUE(pamir::load_send_table(pamir::Path::shm, t, why)) << why;
  EXPECT_FALSE(pamir::load_send_table(pamir::Path::ofi, t, why));
  EXPECT_NE(why.find("PAMIR_SEND_PROTOCOLS=\"immediate:10000,eager\" is not valid"), std::string::npos)
      << why;
  EXPECT_NE(why.find("ofi packets"), std::string::npos) << why;
  unsetenv("PAMIR_SEND_PROTOCOLS");
  ASSERT_TRUE(load(why, warnings)) << why;
}
