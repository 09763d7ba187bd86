// Collective selection by bit mask (seed 002): the partial masks of communicators, registration rules,
// first-match order, and the exact-match table agreeing with the ordered scan.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "collectives/mask.h"

using namespace pamir::coll;

TEST(CollMask, EachCommunicatorCharacteristicFlipsOneBit) {
  const uint32_t base = comm_mask(6, false, false, false);  // not a power of two, small, not one node
  EXPECT_EQ(base, uint32_t(kSmallComm));
  EXPECT_EQ(comm_mask(8, false, false, false) ^ base, uint32_t(kPowerOfTwo));
  EXPECT_EQ(comm_mask(6, true, false, false) ^ base, uint32_t(kOneNode));
  EXPECT_EQ(comm_mask(6, false, true, false) ^ base, uint32_t(kNodeOrdered));
  EXPECT_EQ(comm_mask(6, false, false, true) ^ base, uint32_t(kShmSlot));
  EXPECT_EQ(comm_mask(9, false, false, false) ^ comm_mask(7, false, false, false), uint32_t(kSmallComm));
  EXPECT_EQ(comm_mask(1, true, true, true),
            uint32_t(kPowerOfTwo | kOneNode | kSmallComm | kNodeOrdered | kShmSlot));
}

TEST(CollMask, DescribesEveryBit) {
  EXPECT_EQ(describe_mask(0), "none");
  EXPECT_EQ(describe_mask(kPowerOfTwo | kContiguous | size_class_bits(2)),
            "power-of-two|contiguous|size-class=2");
  EXPECT_EQ(describe_mask(kInPlace | kCommutative), "commutative|in-place");
  EXPECT_EQ(describe_mask(kShmSlot | kExclusive), "exclusive|shm-slot");
  for (unsigned i = 0; i < kSizeClassShift; ++i) {  // every named bit, by its name
    const uint32_t bit = 1u << i;
    if (bit & kAllBits) {
      EXPECT_EQ(bit_by_name(describe_mask(bit)), bit) << describe_mask(bit);
    }
  }
}

TEST(CollMask, RegistrationRules) {
  Selector s;
  std::string why;
  EXPECT_TRUE(s.add(Collective::allreduce, kPowerOfTwo, kPowerOfTwo, 1, why));
  EXPECT_FALSE(s.add(Collective::allreduce, kPowerOfTwo, kPowerOfTwo, 2, why));
  EXPECT_NE(why.find("second entry"), std::string::npos) << why;
  // the same mask with another care mask is another entry
  EXPECT_TRUE(s.add(Collective::allreduce, kPowerOfTwo, kPowerOfTwo | kOneNode, 2, why));
  // a mask bit the entry does not care about can never match
  EXPECT_FALSE(s.add(Collective::allreduce, kInPlace, kPowerOfTwo, 3, why));
  EXPECT_NE(why.find("outside its care"), std::string::npos) << why;
  // another collective's list is separate
  EXPECT_TRUE(s.add(Collective::bcast, kPowerOfTwo, kPowerOfTwo, 1, why));
  // 32 distinct entries fill a list (16 size classes, with and without caring about one more bit)
  for (size_t i = 0; i < Selector::kMaxEntries; ++i)
    ASSERT_TRUE(s.add(Collective::barrier, size_class_bits(unsigned(i % 16)),
                      kSizeClassBits | uint32_t(i / 16), 1, why))
        << why;
  EXPECT_FALSE(s.add(Collective::barrier, 0, 0, 9, why));
  EXPECT_NE(why.find("more than"), std::string::npos) << why;
}

TEST(CollMask, FirstMatchWinsAndTheLastEntryCatchesAll) {
  Selector s;
  std::string why;
  // allreduce: small power-of-two messages -> 1; any commutative built-in -> 2; everything else -> 3
  ASSERT_TRUE(
      s.add(Collective::allreduce, kPowerOfTwo | size_class_bits(0), kPowerOfTwo | kSizeClassBits, 1, why));
  ASSERT_TRUE(s.add(Collective::allreduce, kBuiltinOp | kCommutative, kBuiltinOp | kCommutative, 2, why));
  ASSERT_TRUE(s.add(Collective::allreduce, 0, 0, 3, why));
  EXPECT_EQ(s.select(Collective::allreduce, kPowerOfTwo | kBuiltinOp | kCommutative), 1);
  EXPECT_EQ(s.select(Collective::allreduce, kPowerOfTwo | kBuiltinOp | kCommutative | size_class_bits(1)), 2);
  EXPECT_EQ(s.select(Collective::allreduce, kBuiltinOp | size_class_bits(3)), 3);
  EXPECT_EQ(s.select(Collective::bcast, 0), -1);  // nothing registered
}

// Random lists with exact entries mixed in: select() (exact table, then scan) must give what a plain
// first-match scan gives, for every mask tried.
TEST(CollMask, ExactTableAgreesWithTheScan) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    Selector s;
    std::string why;
    // Few bits, so that general entries often match an exact entry's mask before it does.
    const uint32_t universe = kPowerOfTwo | kOneNode | kContiguous | kInPlace;
    const int n = 1 + int(rng() % 20);
    for (int i = 0; i < n; ++i) {
      const uint32_t care = (rng() % 2 == 0) ? kAllBits : (rng() & universe);
      const uint32_t mask = rng() & care & universe;
      s.add(Collective::reduce, mask, care, uint16_t(i), why);  // duplicates refused: fine
    }
    s.add(Collective::reduce, 0, 0, 999, why);
    for (int k = 0; k < 500; ++k) {
      uint32_t m = rng() & universe;
      if (k % 3 == 0 && s.size(Collective::reduce) > 0)
        m = s.entry(Collective::reduce, rng() % s.size(Collective::reduce)).mask;
      int want = -1;
      for (size_t i = 0; i < s.size(Collective::reduce) && want < 0; ++i) {
        const auto &e = s.entry(Collective::reduce, i);
        if ((m & e.care) == e.mask) want = e.algorithm;
      }
      ASSERT_EQ(s.select(Collective::reduce, m), want) << "trial " << trial << " mask " << describe_mask(m);
    }
  }
}
