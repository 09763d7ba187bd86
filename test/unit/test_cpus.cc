// Counting usable CPUs: the CPU-list grammar of sysfs and cgroups, and a sane count on this machine.
#include <gtest/gtest.h>
#include <unistd.h>

#include "pami/cpus.h"

using pamir::count_cpu_list;

TEST(Cpus, CountsLists) {
  EXPECT_EQ(count_cpu_list("0"), 1u);
  EXPECT_EQ(count_cpu_list("0-1\n"), 2u);
  EXPECT_EQ(count_cpu_list("0-3,8,10-11"), 7u);
  EXPECT_EQ(count_cpu_list("5,7"), 2u);
}

TEST(Cpus, RejectsWhatIsNotAList) {
  for (const char *bad : {"", "\n", "a", "3-1", "0-", "-2", "1;2", "0-3,", "0,,1"})
    EXPECT_EQ(count_cpu_list(bad), 0u) << bad;
}

TEST(Cpus, UsableIsAtMostOnline) {
  const unsigned n = pamir::usable_cpus();
  EXPECT_GE(n, 1u);
  EXPECT_LE(long(n), sysconf(_SC_NPROCESSORS_ONLN));
}
