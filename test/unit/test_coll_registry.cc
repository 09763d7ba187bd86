// The algorithm registry: the built-in lists are well formed (every list ends with an entry that always
// matches, no entry chooses an algorithm for a call it cannot serve), tuning files replace lists and size
// tables and are refused with the line and the reason when malformed, and selection follows the
// call's bits and size class.
#include <gtest/gtest.h>

#include <string>

#include "collectives/registry.h"

using namespace pamir::coll;

namespace {

class CollRegistry : public ::testing::Test {
 protected:
  void SetUp() override { load_defaults(); }
  void TearDown() override { load_defaults(); }
  static const char *chosen(Collective c, uint32_t mask) {
    const int id = selector().select(c, mask);
    return id < 0 ? "(none)" : algorithm(id).name;
  }
};

}  // namespace

TEST_F(CollRegistry, EveryCollectiveHasAnAlgorithmForEveryMask) {
  // Every combination of the per-communicator and agreed per-call bits, in every size class: something
  // is chosen, and what is chosen can serve the call.
  for (size_t c = 0; c < size_t(Collective::count_); ++c)
    for (uint32_t comm = 0; comm < 32; ++comm)
      for (uint32_t call = 0; call < 8; ++call)
        for (unsigned sc = 0; sc < 16; ++sc) {
          const uint32_t mask = comm | (call & 1 ? kBuiltinOp : 0) | (call & 2 ? kCommutative : 0) |
                                (call & 4 ? kExclusive : 0) | size_class_bits(sc);
          const int id = selector().select(Collective(c), mask);
          ASSERT_GE(id, 0) << collective_name(Collective(c)) << " " << describe_mask(mask);
          EXPECT_EQ(algorithm(id).coll, Collective(c));
          EXPECT_EQ(mask & algorithm(id).needs, algorithm(id).needs)
              << algorithm(id).name << " chosen for " << describe_mask(mask);
        }
}

TEST_F(CollRegistry, NamesAndLookups) {
  EXPECT_GE(find_algorithm(Collective::allreduce, "ring"), 0);
  EXPECT_EQ(find_algorithm(Collective::bcast, "ring"), -1);  // a name of another collective
  EXPECT_EQ(find_algorithm(Collective::allreduce, "bogus"), -1);
  EXPECT_NE(algorithm_names(Collective::allgather).find("bruck"), std::string::npos);
  // at least two algorithms for each collective, but gatherv and scatterv (one message per rank is all a
  // root can do when only it knows every part's size) and the neighbourhood collectives (one message
  // per neighbour, and nothing to combine: a process knows only its own neighbours)
  for (size_t c = 0; c < size_t(Collective::count_); ++c) {
    if (Collective(c) == Collective::gatherv || Collective(c) == Collective::scatterv) continue;
    if (Collective(c) >= Collective::neighbor_allgather) continue;
    EXPECT_NE(algorithm_names(Collective(c)).find(','), std::string::npos) << collective_name(Collective(c));
  }
}

TEST_F(CollRegistry, DefaultsFollowSizeAndOperation) {
  const SizeTable &t = size_table(Collective::allreduce);
  const unsigned big = t.size_class(uint64_t(1) << 30), small = t.size_class(8);
  EXPECT_STREQ(chosen(Collective::allreduce, kCommutative | size_class_bits(big)), "ring");
  // a non-commutative operation never gets the ring, however large
  EXPECT_STREQ(chosen(Collective::allreduce, size_class_bits(big)), "recursive_doubling");
  EXPECT_STREQ(chosen(Collective::allreduce, kCommutative | size_class_bits(small)), "recursive_doubling");
  // allgather: recursive doubling only on powers of two
  EXPECT_STREQ(chosen(Collective::allgather, kPowerOfTwo | size_class_bits(0)), "recursive_doubling");
  EXPECT_STREQ(chosen(Collective::allgather, size_class_bits(0)), "bruck");
  // the shared-memory algorithms: a communicator with a slot, in a blocking call outside
  // MPI_THREAD_MULTIPLE; barrier always, bcast and reduce below 16 KiB
  const uint32_t shm = kShmSlot | kOneNode | kExclusive;
  EXPECT_STREQ(chosen(Collective::barrier, shm), "shm");
  EXPECT_STREQ(chosen(Collective::barrier, kShmSlot | kOneNode), "dissemination");
  EXPECT_STREQ(chosen(Collective::barrier, kOneNode | kExclusive), "dissemination");
  EXPECT_EQ(size_table(Collective::bcast).size_class(8192), 0u);
  EXPECT_EQ(size_table(Collective::bcast).size_class(16384), 1u);
  EXPECT_EQ(size_table(Collective::reduce).size_class(8192), 0u);
  EXPECT_STREQ(chosen(Collective::bcast, shm | size_class_bits(0)), "shm");
  EXPECT_STREQ(chosen(Collective::bcast, shm | size_class_bits(1)), "binomial");
  EXPECT_STREQ(chosen(Collective::reduce, shm | kCommutative | size_class_bits(0)), "shm");
  EXPECT_STREQ(chosen(Collective::allreduce, shm | kCommutative | size_class_bits(0)), "recursive_doubling");
  // From 16 KiB on one node, reduced straight out of each other's buffers, whatever the operation
  // (allreduce oversubscribed from 64 KiB); allreduce through the cells from 2 to 16 KiB; a reduce on an
  // oversubscribed node keeps the tree up to 128 KiB.
  const struct {
    Collective coll;
    uint32_t bits;
    uint64_t bytes;
    const char *want;
  } kCases[] = {
      {Collective::reduce, shm, 16384, "cma_root"},
      {Collective::reduce, shm, 65536, "cma"},
      {Collective::reduce, shm, 1 << 30, "cma"},
      {Collective::reduce, shm | kOversubscribed, 16384, "binomial"},
      {Collective::reduce, shm | kOversubscribed, 65536, "binomial"},
      {Collective::reduce, shm | kOversubscribed, 131072, "cma"},
      {Collective::reduce, kOneNode, 65536, "binomial"},  // no slot
      {Collective::allreduce, shm, 2048, "shm"},
      {Collective::allreduce, shm | kOversubscribed, 8192, "shm"},
      {Collective::allreduce, kOneNode | kCommutative, 8192, "recursive_doubling"},  // no slot
      {Collective::allreduce, shm, 16384, "cma"},
      {Collective::allreduce, shm, 65536, "cma"},
      {Collective::allreduce, shm | kCommutative, 1 << 30, "cma"},
      {Collective::allreduce, shm | kOversubscribed, 16384, "recursive_doubling"},
      {Collective::allreduce, shm | kOversubscribed, 65536, "cma"},
      {Collective::allreduce, kOneNode | kCommutative, 32768, "recursive_doubling"},
      {Collective::allreduce, kOneNode | kCommutative, 65536, "ring"},
      {Collective::allreduce, kOneNode | kCommutative, 1 << 30, "ring"},
  };
  for (const auto &c : kCases)
    EXPECT_STREQ(chosen(c.coll, c.bits | size_class_bits(size_table(c.coll).size_class(c.bytes))), c.want)
        << collective_name(c.coll) << " " << describe_mask(c.bits) << " " << c.bytes;
}

// Across nodes with several ranks on some node: one leader per node. Never on one node, and a
// non-commutative allreduce only where each node's ranks are consecutive.
TEST_F(CollRegistry, HierarchicalAcrossNodes) {
  for (unsigned sc = 0; sc < 4; ++sc) {
    const uint32_t c = size_class_bits(sc);
    EXPECT_STREQ(chosen(Collective::barrier, kNodeGroups), "hierarchical");
    EXPECT_STREQ(chosen(Collective::bcast, kNodeGroups | c), "hierarchical");
    EXPECT_STREQ(chosen(Collective::allreduce, kNodeGroups | kCommutative | c), "hierarchical");
    EXPECT_STREQ(chosen(Collective::allreduce, kNodeGroups | kNodeOrdered | c), "hierarchical");
    EXPECT_STRNE(chosen(Collective::allreduce, kNodeGroups | c), "hierarchical");
    EXPECT_STRNE(chosen(Collective::bcast, kNodeGroups | kOneNode | c), "hierarchical");
    EXPECT_STRNE(chosen(Collective::allreduce, kNodeGroups | kOneNode | kCommutative | c), "hierarchical");
    EXPECT_STRNE(chosen(Collective::bcast, c), "hierarchical");  // one rank per node: nothing to group
  }
  EXPECT_STRNE(chosen(Collective::barrier, kNodeGroups | kOneNode), "hierarchical");
  EXPECT_EQ(bit_by_name("node-groups"), kNodeGroups);
}

TEST_F(CollRegistry, SizeClasses) {
  SizeTable t{{100, 1000}, 2};
  EXPECT_EQ(t.size_class(0), 0u);
  EXPECT_EQ(t.size_class(99), 0u);
  EXPECT_EQ(t.size_class(100), 1u);
  EXPECT_EQ(t.size_class(999), 1u);
  EXPECT_EQ(t.size_class(1000), 2u);
  EXPECT_EQ(t.size_class(UINT64_MAX), 2u);
}

TEST_F(CollRegistry, TuningFileReplacesOnlyTheListsItNames) {
  std::string why;
  ASSERT_TRUE(
      load_tuning("# comment\n"
                  "sizes allreduce 1K 1M   # two bounds\n"
                  "allreduce reduce_bcast size-class=0 !power-of-two\n"
                  "allreduce ring commutative\n"
                  "allreduce recursive_doubling\n",
                  why))
      << why;
  EXPECT_EQ(size_table(Collective::allreduce).n, 2);
  EXPECT_EQ(size_table(Collective::allreduce).bounds[1], uint64_t(1) << 20);
  EXPECT_STREQ(chosen(Collective::allreduce, size_class_bits(0)), "reduce_bcast");
  EXPECT_STREQ(chosen(Collective::allreduce, kPowerOfTwo | kCommutative | size_class_bits(0)), "ring");
  EXPECT_STREQ(chosen(Collective::allreduce, kPowerOfTwo | size_class_bits(2)), "recursive_doubling");
  // bcast was not named: its built-in list stays
  EXPECT_STREQ(chosen(Collective::bcast, 0), "binomial");
}

TEST_F(CollRegistry, TuningFileErrorsNameTheLine) {
  const struct {
    const char *text, *reason;
  } cases[] = {
      {"allreduce\n", "line 1: an entry needs an algorithm"},
      {"allreduce bogus\n", "line 1: \"bogus\" is not a allreduce algorithm"},
      {"reduction binomial\n", "line 1: \"reduction\" is not a collective"},
      {"\nallreduce ring fast\n", "line 2: \"fast\" is not a mask bit"},
      {"allreduce ring\n", "needs commutative"},
      {"allgather recursive_doubling size-class=0\nallgather ring\n", "needs power-of-two"},
      {"allreduce ring commutative\n", "must end with an entry without conditions"},
      {"allreduce ring commutative\nallreduce ring commutative\nallreduce ring\n", "second entry"},
      {"allreduce recursive_doubling contiguous\nallreduce ring\n", "may differ between the ranks"},
      {"reduce linear in-place\nreduce binomial\n", "may differ between the ranks"},
      {"sizes allreduce 1K 512\n", "size bounds must increase"},
      {"sizes allreduce 1X\n", "\"1X\" is not a size"},
      {"allreduce ring size-class=16 commutative\n", "bad size class"},
  };
  for (const auto &c : cases) {
    std::string why;
    EXPECT_FALSE(load_tuning(c.text, why)) << c.text;
    EXPECT_NE(why.find(c.reason), std::string::npos) << c.text << " -> " << why;
    // a refused file changes nothing
    EXPECT_STREQ(chosen(Collective::allreduce, kCommutative | size_class_bits(3)), "ring");
    EXPECT_STREQ(chosen(Collective::allreduce, size_class_bits(0)), "recursive_doubling");
  }
  // in-place is agreed by every rank of an allreduce, so an allreduce entry may depend on it
  std::string why;
  EXPECT_TRUE(load_tuning("allreduce reduce_bcast in-place\nallreduce recursive_doubling\n", why)) << why;
}

TEST_F(CollRegistry, DescriptionSpellsOutTheLists) {
  const std::string d = describe_selection();
  EXPECT_NE(d.find("allreduce"), std::string::npos);
  EXPECT_NE(d.find("ring"), std::string::npos);
  EXPECT_NE(d.find("commutative size-class=3"), std::string::npos) << d;
  EXPECT_NE(d.find("needs power-of-two"), std::string::npos) << d;
}
