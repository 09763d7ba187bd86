// The shm device's single-producer/single-consumer packet ring (devices/shm/ring.h), alone.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <vector>

#include "devices/shm/ring.h"
#include "test/unit/test_shm_util.h"

namespace {

using namespace pamir::dev::shm;

// Zeroed, 64-byte aligned memory for one ring, private or shared with forked children.
struct RingMem {
  explicit RingMem(uint64_t capacity, bool shared = false) : bytes(ring_footprint(capacity)), shared(shared) {
    if (shared) {
      mem = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
      if (mem == MAP_FAILED) mem = nullptr;
    } else {
      mem = std::aligned_alloc(64, bytes);
      if (mem) std::memset(mem, 0, bytes);
    }
    if (mem) ring_format(mem, capacity, 1, 2);
  }
  ~RingMem() {
    if (shared)
      ::munmap(mem, bytes);
    else
      std::free(mem);
  }
  uint64_t bytes;
  bool shared;
  void *mem = nullptr;
};

// What a test expects the consumer to see, in order.
struct Expected {
  uint16_t dispatch;
  std::vector<unsigned char> hdr, payload;
};

// `lookalike`: fill the payload with words that would pass for packet words of either lap parity, so a
// consumer that trusted old bytes would go wrong.
Expected make_packet(uint64_t seed, uint32_t hdr_len, size_t payload_len, bool lookalike = false) {
  Expected e;
  e.dispatch = static_cast<uint16_t>(shm_test::mix(seed) & 0xffff);
  e.hdr.resize(hdr_len);
  e.payload.resize(payload_len);
  shm_test::fill(e.hdr.data(), hdr_len, seed * 3 + 1);
  shm_test::fill(e.payload.data(), payload_len, seed * 3 + 2);
  if (lookalike) {
    for (size_t i = 0; i + 4 <= payload_len; i += 4) {
      const uint32_t w = (1u + static_cast<uint32_t>((seed + i) % 3)) | ((i / 4) % 2 ? kParityBit : 0u);
      std::memcpy(e.payload.data() + i, &w, 4);
    }
  }
  return e;
}

bool push(RingProducer &p, const Expected &e) {
  return p.try_push(e.dispatch, e.hdr.data(), static_cast<uint32_t>(e.hdr.size()), e.payload.data(),
                    e.payload.size());
}

// Drains up to max packets and checks each against the front of `want`. Returns how many; `wake` tells
// whether the consumer found the producer asking for room.
unsigned drain_check(RingConsumer &c, std::deque<Expected> &want, unsigned max, bool *wake = nullptr) {
  bool w = false;
  const unsigned n = c.drain(
      max,
      [&](uint16_t dispatch, const void *hdr, uint32_t hdr_len, const void *payload, size_t payload_len) {
        ASSERT_FALSE(want.empty()) << "a packet nobody sent";
        const Expected &e = want.front();
        EXPECT_EQ(dispatch, e.dispatch);
        ASSERT_EQ(hdr_len, e.hdr.size());
        ASSERT_EQ(payload_len, e.payload.size());
        EXPECT_EQ(reinterpret_cast<uintptr_t>(hdr) % 16, 0u);
        EXPECT_EQ(reinterpret_cast<uintptr_t>(payload) % 8, 0u);
        EXPECT_TRUE(hdr_len == 0 || std::memcmp(hdr, e.hdr.data(), hdr_len) == 0);
        EXPECT_TRUE(payload_len == 0 || std::memcmp(payload, e.payload.data(), payload_len) == 0);
        want.pop_front();
      },
      w);
  if (wake) *wake = w;
  return n;
}

TEST(ShmRing, PacketGeometry) {
  EXPECT_EQ(ring_payload_offset(0), 16u);
  EXPECT_EQ(ring_payload_offset(1), 24u);
  EXPECT_EQ(ring_payload_offset(8), 24u);
  EXPECT_EQ(ring_payload_offset(17), 40u);
  EXPECT_EQ(ring_packet_lines(0, 0), 1u);
  EXPECT_EQ(ring_packet_lines(16, 32), 1u);  // an immediate packet fits one line
  EXPECT_EQ(ring_packet_lines(16, 33), 2u);
  EXPECT_EQ(ring_packet_lines(0, 48), 1u);
  EXPECT_EQ(ring_packet_lines(0, 49), 2u);
  EXPECT_EQ(ring_max_packet(65536), 16384u);
}

TEST(ShmRing, RoundTripAndEmpty) {
  RingMem m(4096);
  ASSERT_NE(m.mem, nullptr);
  RingProducer p;
  RingConsumer c;
  p.attach(m.mem);
  c.attach(m.mem);
  EXPECT_EQ(c.sender(), 1u);
  EXPECT_FALSE(c.ready());
  std::deque<Expected> want;
  for (uint32_t i = 0; i < 5; ++i) {
    want.push_back(make_packet(i, i * 3, i * 40));
    ASSERT_TRUE(push(p, want.back()));
  }
  EXPECT_TRUE(c.ready());
  EXPECT_EQ(drain_check(c, want, 3), 3u);  // the budget is respected
  EXPECT_EQ(drain_check(c, want, 100), 2u);
  EXPECT_TRUE(want.empty());
  EXPECT_FALSE(c.ready());
  EXPECT_EQ(drain_check(c, want, 100), 0u);
}

// One-line packets: the ring holds capacity/64 of them. A refused push raises want_space, so the consumer
// reports, when it frees room, that the producer wants waking, until a push succeeds again.
TEST(ShmRing, FullReturnsFalseThenSucceedsAfterDrain) {
  const uint64_t cap = 4096;
  RingMem m(cap);
  RingProducer p;
  RingConsumer c;
  p.attach(m.mem);
  c.attach(m.mem);
  std::deque<Expected> want;
  uint64_t seed = 0;
  for (;;) {
    Expected e = make_packet(seed++, 8, 24);
    if (!push(p, e)) break;
    want.push_back(std::move(e));
  }
  EXPECT_EQ(want.size(), cap / 64);
  EXPECT_TRUE(p.blocked());
  EXPECT_FALSE(p.blocked_and_head_moved());
  const uint64_t tail = p.tail();
  Expected extra = make_packet(1000, 8, 24);
  EXPECT_FALSE(push(p, extra));  // still full, and a refused push writes nothing
  EXPECT_EQ(p.tail(), tail);
  bool wake = false;
  EXPECT_EQ(drain_check(c, want, 1, &wake), 1u);
  EXPECT_TRUE(wake) << "the consumer must report the waiting producer";
  EXPECT_TRUE(p.blocked_and_head_moved());
  EXPECT_TRUE(push(p, extra));
  EXPECT_FALSE(p.blocked());
  want.push_back(extra);
  EXPECT_FALSE(push(p, make_packet(1001, 8, 24)));
  EXPECT_EQ(drain_check(c, want, 1, &wake), 1u);
  EXPECT_TRUE(wake);
  Expected e2 = make_packet(seed++, 8, 24);
  EXPECT_TRUE(push(p, e2));
  want.push_back(std::move(e2));
  EXPECT_EQ(drain_check(c, want, 1, &wake), 1u);
  EXPECT_FALSE(wake) << "the producer is no longer waiting";
  Expected e3 = make_packet(seed++, 8, 24);
  EXPECT_TRUE(push(p, e3));
  want.push_back(std::move(e3));
  // Wrap: keep cycling through the full ring for several laps.
  for (int lap = 0; lap < 10 * 64; ++lap) {
    ASSERT_EQ(drain_check(c, want, 1), 1u);
    Expected e = make_packet(seed++, 8, 24);
    ASSERT_TRUE(push(p, e));
    want.push_back(std::move(e));
  }
  EXPECT_EQ(drain_check(c, want, 1000), cap / 64);
  EXPECT_TRUE(want.empty());
}

// Largest packets: capacity/4 each, so four fit.
TEST(ShmRing, MaxSizePackets) {
  const uint64_t cap = 8192;
  RingMem m(cap);
  RingProducer p;
  RingConsumer c;
  p.attach(m.mem);
  c.attach(m.mem);
  const uint32_t hdr_len = 40;
  const size_t max_payload = ring_max_packet(cap) - ring_payload_offset(hdr_len);
  std::deque<Expected> want;
  uint64_t seed = 7;
  for (int round = 0; round < 20; ++round) {
    unsigned n = 0;
    for (;;) {
      Expected e = make_packet(seed++, hdr_len, max_payload);
      if (!push(p, e)) break;
      want.push_back(std::move(e));
      ++n;
    }
    ASSERT_EQ(n, 4u);
    ASSERT_EQ(drain_check(c, want, 1000), n);
  }
}

// Random sizes from empty to the largest, the consumer draining random amounts: many laps, with padding
// markers, every byte checked.
class ShmRingWrap : public ::testing::TestWithParam<bool> {};

TEST_P(ShmRingWrap, WrapAroundMixedSizes) {
  const bool lookalike = GetParam();
  const uint64_t cap = 4096;
  RingMem m(cap);
  RingProducer p;
  RingConsumer c;
  p.attach(m.mem);
  c.attach(m.mem);
  std::deque<Expected> want;
  uint64_t rnd = 12345, seed = 0, delivered = 0, accepted = 0;
  for (int step = 0; step < 200000 && !HasFatalFailure(); ++step) {
    rnd = shm_test::mix(rnd);
    if (rnd % 3 != 0) {
      const uint32_t hdr_len = static_cast<uint32_t>((rnd >> 8) % 65);
      const size_t room = ring_max_packet(cap) - ring_payload_offset(hdr_len);
      const size_t len = (rnd >> 16) % 4 == 0 ? (rnd >> 20) % (room + 1) : (rnd >> 20) % 100;
      Expected e = make_packet(seed++, hdr_len, len, lookalike);
      if (push(p, e)) {
        want.push_back(std::move(e));
        ++accepted;
      }
    } else {
      delivered += drain_check(c, want, static_cast<unsigned>((rnd >> 8) % 8));
    }
  }
  delivered += drain_check(c, want, ~0u);
  EXPECT_TRUE(want.empty());
  EXPECT_EQ(delivered, accepted);  // every accepted packet arrived
  EXPECT_GT(accepted, 50000u);
  EXPECT_GT(p.tail(), 100 * cap) << "the test should go round the ring many times";
  EXPECT_GT(p.pads(), 100u) << "the test should exercise padding markers";
  EXPECT_EQ(c.head(), p.tail());
}

INSTANTIATE_TEST_SUITE_P(Payloads, ShmRingWrap, ::testing::Values(false, true));

// A producer process and a consumer process, concurrently, through shared memory: order and contents.
TEST(ShmRing, ConcurrentAcrossProcesses) {
  const uint64_t cap = 65536;
  RingMem m(cap, true);
  ASSERT_NE(m.mem, nullptr);
  const uint32_t count = 200000;
  struct Hdr {
    uint32_t seq;
    uint32_t len;
    uint64_t sum;
  };
  std::fflush(nullptr);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    RingProducer p;
    p.attach(m.mem);
    std::vector<unsigned char> buf(ring_max_packet(cap));
    for (uint32_t i = 0; i < count; ++i) {
      uint64_t r = shm_test::mix(i);
      Hdr h{i, static_cast<uint32_t>(r % 4 == 0 ? (r >> 8) % (ring_max_packet(cap) - 40) : (r >> 8) % 200),
            0};
      shm_test::fill(buf.data(), h.len, r);
      h.sum = shm_test::checksum(buf.data(), h.len);
      while (!p.try_push(static_cast<uint16_t>(i), &h, sizeof h, buf.data(), h.len)) {
      }
    }
    _exit(0);
  }
  RingConsumer c;
  c.attach(m.mem);
  uint32_t next = 0, bad = 0;
  int status = -1;
  bool exited = false;
  while (next < count && bad == 0) {
    bool wake = false;
    unsigned got = c.drain(
        64,
        [&](uint16_t dispatch, const void *hdr, uint32_t hdr_len, const void *payload, size_t payload_len) {
          Hdr h;
          std::memcpy(&h, hdr, sizeof h);
          if (hdr_len != sizeof h || h.seq != next || dispatch != static_cast<uint16_t>(next) ||
              payload_len != h.len || shm_test::checksum(payload, payload_len) != h.sum)
            ++bad;
          ++next;
        },
        wake);
    if (got == 0 && !exited && ::waitpid(pid, &status, WNOHANG) == pid) exited = true;
    if (got == 0 && exited && !c.ready()) break;  // the producer is gone and nothing is left
  }
  if (!exited) {
    if (bad) ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
  }
  EXPECT_EQ(bad, 0u);
  EXPECT_EQ(next, count);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

}  // namespace
