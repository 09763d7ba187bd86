// The torus engine's unit tests' area (test_torus_engine.cc, test_torus_replay.cc): a job's area in
// this process, written as the ranks' devices write it, and the engine run until it is quiet.
#pragma once

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "devices/torus/area.h"
#include "devices/torus/engine.h"

namespace pamir::torus::test {

class Area {
 public:
  explicit Area(uint32_t ranks) : len_(area_bytes(ranks)) {
    mem_ = ::mmap(nullptr, len_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    EXPECT_NE(mem_, MAP_FAILED);
    auto *h = static_cast<AreaHeader *>(mem_);
    h->ranks = ranks;
    h->block_bytes = sizeof(RankBlock);
    for (uint32_t r = 0; r < ranks; ++r) rank_block(mem_, r)->pid.store(::getpid());
  }
  ~Area() { ::munmap(mem_, len_); }
  void *get() const { return mem_; }
  RankBlock *rank(uint32_t r) const { return rank_block(mem_, r); }

  // What the device does: the descriptor (and a memory-FIFO packet's bytes) into the next slot.
  void inject(uint32_t r, const Descriptor &d, const void *bytes = nullptr) {
    RankBlock *b = rank(r);
    const uint64_t tail = b->inj_tail.load();
    ASSERT_LT(tail - b->inj_done.load(), kInjectionSlots);
    b->injection[tail % kInjectionSlots] = d;
    if (bytes) std::memcpy(b->lookaside[tail % kInjectionSlots], bytes, d.payload_len);
    b->inj_tail.store(tail + 1);
  }
  uint32_t expose(uint32_t r, uint32_t index, void *addr, uint64_t len) {
    rank(r)->bases[index].addr.store(uint64_t(uintptr_t(addr)));
    rank(r)->bases[index].len.store(len);
    return index + 1;
  }

 private:
  size_t len_;
  void *mem_;
};

inline Geometry geometry(uint32_t ranks, const char *dims) {
  Geometry g;
  std::string why;
  EXPECT_TRUE(g.make(ranks, dims, "", why)) << why;
  return g;
}

inline void run(Engine &e) {
  for (int i = 0; i < 100000 && (e.pass() || e.busy()); ++i) {
  }
  ASSERT_FALSE(e.busy());
}

}  // namespace pamir::torus::test
