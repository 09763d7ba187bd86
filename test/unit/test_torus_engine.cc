// The torus engine alone (devices/torus/engine.h): descriptors written into an area as a rank's device
// writes them, the engine driven pass by pass in this process (every "rank" is this process, so the
// engine's cross-memory copies read and write our own memory).
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "devices/torus/area.h"
#include "devices/torus/engine.h"
#include "devices/torus/fault.h"
#include "test/unit/torus_area.h"

namespace {

using pamir::torus::area_bytes;
using pamir::torus::AreaHeader;
using pamir::torus::Descriptor;
using pamir::torus::Engine;
using pamir::torus::Geometry;
using pamir::torus::Intent;
using pamir::torus::rank_block;
using pamir::torus::RankBlock;
using pamir::torus::test::Area;
using pamir::torus::test::geometry;
using pamir::torus::test::run;

TEST(TorusEngine, TwoKiBPutIsFourPacketsAndItsCountersReachZeroOnce) {
  Area a(2);
  const Geometry g = geometry(2, "2");
  Engine e(a.get(), g);
  std::vector<uint8_t> src(2048), dst(2048, 0);
  std::iota(src.begin(), src.end(), uint8_t(1));
  const uint32_t base = a.expose(1, 0, dst.data(), dst.size());
  a.rank(0)->counters[0].value.store(2048);
  a.rank(1)->counters[3].value.store(2048);
  a.inject(0, Descriptor{.intent = Intent::direct_put,
                         .dest = 1,
                         .remote_base = base,
                         .length = 2048,
                         .local_addr = uint64_t(uintptr_t(src.data())),
                         .local_counter = 1,
                         .remote_counter = 4});
  run(e);
  EXPECT_EQ(e.stats().packets, 4u);  // seed 004: "a two kilobyte message ... four 512 byte packets"
  EXPECT_EQ(e.stats().copies, 1u);   // the payload moved once, not once per packet
  EXPECT_EQ(e.stats().hops, 4u);     // one hop each on a ring of 2
  EXPECT_EQ(dst, src);
  EXPECT_EQ(a.rank(0)->counters[0].value.load(), 0);
  EXPECT_EQ(a.rank(1)->counters[3].value.load(), 0);
  EXPECT_EQ(a.rank(0)->counters[0].status.load(), 0);
  EXPECT_EQ(a.rank(0)->zeroed.load(), 1u);  // reached zero exactly once
  EXPECT_EQ(a.rank(1)->zeroed.load(), 1u);
  EXPECT_EQ(a.rank(0)->inj_done.load(), 1u);
}

TEST(TorusEngine, RemoteGetIsARequestAndTheDataBack) {
  Area a(4);
  const Geometry g = geometry(4, "4");
  Engine e(a.get(), g);
  std::vector<uint8_t> src(1000), dst(1000, 0);
  std::iota(src.begin(), src.end(), uint8_t(7));
  const uint32_t base = a.expose(2, 5, src.data(), src.size());
  a.rank(0)->counters[9].value.store(1000);
  a.inject(0, Descriptor{.intent = Intent::remote_get,
                         .dest = 2,
                         .remote_base = base,
                         .length = 1000,
                         .local_addr = uint64_t(uintptr_t(dst.data())),
                         .local_counter = 10});
  run(e);
  EXPECT_EQ(e.stats().packets, 3u);  // the request, then 512 + 488 bytes
  EXPECT_EQ(e.stats().hops, 6u);     // two hops each way on a ring of 4
  EXPECT_EQ(dst, src);
  EXPECT_EQ(a.rank(0)->counters[9].value.load(), 0);
}

TEST(TorusEngine, OutsideTheBaseRegionFailsTheTransferNotTheEngine) {
  Area a(2);
  const Geometry g = geometry(2, "2");
  Engine e(a.get(), g);
  std::vector<uint8_t> src(600, 1), dst(512, 0);
  const uint32_t base = a.expose(1, 0, dst.data(), dst.size());
  a.rank(0)->counters[0].value.store(600);
  a.inject(0, Descriptor{.intent = Intent::direct_put,
                         .dest = 1,
                         .remote_base = base,
                         .length = 600,
                         .local_addr = uint64_t(uintptr_t(src.data())),
                         .local_counter = 1});
  a.inject(0, Descriptor{.intent = Intent::direct_put, .dest = 7});  // no such rank
  run(e);
  EXPECT_EQ(a.rank(0)->counters[0].status.load(), -EFAULT);
  EXPECT_EQ(a.rank(0)->counters[0].value.load(), 0);  // still counted down: the owner is not left waiting
  EXPECT_EQ(std::count(dst.begin(), dst.end(), 0), 512);
  EXPECT_EQ(e.stats().failures, 2u);
  EXPECT_EQ(a.rank(0)->inj_done.load(), 2u);
}

TEST(TorusEngine, MemoryFifoPacketsArriveInOrderWithTheirHeaders) {
  Area a(3);
  const Geometry g = geometry(3, "3");
  Engine e(a.get(), g);
  for (uint8_t i = 0; i < 5; ++i) {
    uint8_t bytes[40];
    std::memset(bytes, i, sizeof bytes);
    a.inject(2,
             Descriptor{.intent = Intent::memory_fifo,
                        .dispatch = uint16_t(100 + i),
                        .dest = 0,
                        .hdr_len = 8,
                        .payload_len = 40},
             bytes);
  }
  run(e);
  RankBlock *to = a.rank(0);
  ASSERT_EQ(to->rec_tail.load(), 5u);
  for (uint8_t i = 0; i < 5; ++i) {
    const auto &slot = to->reception[i];
    EXPECT_EQ(slot.h.src, 2u);
    EXPECT_EQ(slot.h.dispatch, 100 + i);
    EXPECT_EQ(slot.h.hdr_len, 8);
    EXPECT_EQ(slot.h.payload_len, 40u);
    EXPECT_EQ(slot.payload[39], i);
  }
}

TEST(TorusEngine, AFullReceptionFifoHoldsPacketsBackUntilItDrains) {
  Area a(2);
  const Geometry g = geometry(2, "2");
  Engine e(a.get(), g);
  const uint32_t n = pamir::torus::kReceptionSlots + pamir::torus::kInjectionSlots + 100;  // both FIFOs fill
  uint8_t byte = 0;
  uint64_t received = 0;
  for (uint32_t i = 0; i < n; ++i) {
    while (a.rank(0)->inj_tail.load() - a.rank(0)->inj_done.load() >= pamir::torus::kInjectionSlots) {
      e.pass();
      // The receiver drains only once its FIFO is full: back-pressure, never a dropped packet.
      RankBlock *to = a.rank(1);
      if (to->rec_tail.load() - to->rec_head.load() == pamir::torus::kReceptionSlots) {
        received += to->rec_tail.load() - to->rec_head.load();
        to->rec_head.store(to->rec_tail.load());
      }
    }
    a.inject(0, Descriptor{.intent = Intent::memory_fifo, .dest = 1, .payload_len = 1}, &byte);
  }
  for (int i = 0; i < 100000 && received + (a.rank(1)->rec_tail.load() - a.rank(1)->rec_head.load()) < n;
       ++i) {
    e.pass();
    RankBlock *to = a.rank(1);
    received += to->rec_tail.load() - to->rec_head.load();
    to->rec_head.store(to->rec_tail.load());
  }
  EXPECT_EQ(received, n);
  EXPECT_EQ(a.rank(1)->rec_tail.load(), n);
}

// Injection slots free in the order they were written, whatever order their descriptors finish in: a
// packet held back by a full reception FIFO keeps the slots after it taken, though their packets landed.
TEST(TorusEngine, InjectionSlotsFreeInOrderWhenALaterDescriptorFinishesFirst) {
  Area a(3);
  const Geometry g = geometry(3, "3");
  Engine e(a.get(), g);
  uint8_t byte = 0;
  for (uint32_t i = 0; i < pamir::torus::kReceptionSlots; ++i) {  // rank 2's FIFO full, never read
    a.inject(1, Descriptor{.intent = Intent::memory_fifo, .dest = 2, .payload_len = 1}, &byte);
    if (i % 64 == 63) run(e);
  }
  run(e);
  ASSERT_EQ(a.rank(2)->rec_tail.load(), pamir::torus::kReceptionSlots);
  a.inject(0, Descriptor{.intent = Intent::memory_fifo, .dest = 2, .payload_len = 1}, &byte);  // held back
  a.inject(0, Descriptor{.intent = Intent::memory_fifo, .dest = 1, .payload_len = 1}, &byte);
  a.inject(0, Descriptor{.intent = Intent::memory_fifo, .dest = 1, .payload_len = 1}, &byte);
  for (int i = 0; i < 50; ++i) e.pass();
  EXPECT_EQ(a.rank(1)->rec_tail.load(), 2u);  // the later two landed
  EXPECT_EQ(a.rank(0)->inj_done.load(), 0u);  // but their slots wait for the first
  a.rank(2)->rec_head.store(1);               // one slot of room
  run(e);
  EXPECT_EQ(a.rank(2)->rec_tail.load(), pamir::torus::kReceptionSlots + 1);
  EXPECT_EQ(a.rank(0)->inj_done.load(), 3u);
}

// A ring shift on a 4x4 torus, one packet from each rank to the next: rank (a, b) sends one hop +B,
// except at b = 3, whose packet goes +A to (a + 1, 3) and then +B round the wrap-around to (a + 1, 0).
TEST(TorusEngine, RingShiftOnA4x4LoadsExactlyTheLinksItMust) {
  Area a(16);
  const Geometry g = geometry(16, "4x4");
  Engine e(a.get(), g);
  uint8_t byte = 1;
  for (uint32_t r = 0; r < 16; ++r)
    a.inject(r, Descriptor{.intent = Intent::memory_fifo, .dest = (r + 1) % 16, .payload_len = 1}, &byte);
  run(e);
  uint64_t total = 0;
  for (uint32_t node = 0; node < 16; ++node) {
    const int col = int(node % 4);
    EXPECT_EQ(e.network().link_packets(node, 1, +1), 1u) << "node " << node;
    EXPECT_EQ(e.network().link_packets(node, 1, -1), 0u) << "node " << node;
    EXPECT_EQ(e.network().link_packets(node, 0, +1), col == 3 ? 1u : 0u) << "node " << node;
    EXPECT_EQ(e.network().link_packets(node, 0, -1), 0u) << "node " << node;
    total += e.network().link_packets(node, 0, +1) + e.network().link_packets(node, 1, +1);
  }
  EXPECT_EQ(total, 20u);
  EXPECT_EQ(e.stats().hops, 20u);
  for (uint32_t r = 0; r < 16; ++r) EXPECT_EQ(a.rank(r)->rec_tail.load(), 1u);
}

// Several ranks per node: a packet between two ranks of one node crosses no link.
TEST(TorusEngine, RanksOfOneNodeReachEachOtherWithoutALink) {
  Area a(4);
  const Geometry g = geometry(4, "2");  // two nodes of two ranks
  Engine e(a.get(), g);
  uint8_t byte = 3;
  a.inject(0, Descriptor{.intent = Intent::memory_fifo, .dest = 1, .payload_len = 1}, &byte);
  a.inject(0, Descriptor{.intent = Intent::memory_fifo, .dest = 2, .payload_len = 1}, &byte);
  run(e);
  EXPECT_EQ(e.stats().hops, 1u);
  EXPECT_EQ(a.rank(1)->rec_tail.load(), 1u);
  EXPECT_EQ(a.rank(2)->rec_tail.load(), 1u);
}

// The timing model: a packet leaves once its bytes (header included) have crossed the link at its rate,
// then takes the hop latency per hop; a descriptor starts no earlier than its not_before_ns.
TEST(TorusEngine, TimingModelChargesTheLinkRateThenEachHop) {
  Area a(4);
  const Geometry g = geometry(4, "4");
  Engine e(a.get(), g, 4, pamir::torus::Timing{2000, 40});
  std::vector<uint8_t> bytes(512, 9);
  a.inject(0, Descriptor{.intent = Intent::memory_fifo, .dest = 2, .payload_len = 512}, bytes.data());
  a.inject(0, Descriptor{.intent = Intent::memory_fifo, .dest = 2, .payload_len = 512, .not_before_ns = 1000},
           bytes.data());
  run(e);
  // 544 bytes at 2 bytes/ns: 272 ns on the link, then two hops of 40 ns.
  EXPECT_EQ(a.rank(2)->reception[0].h.vt_ns, 272u + 80u);
  EXPECT_EQ(a.rank(2)->reception[1].h.vt_ns, 1000u + 272u + 80u);
  EXPECT_EQ(e.clocks()[2], 1352u);
  EXPECT_EQ(e.clocks()[0], 1272u);  // its last departure
}

// A pattern FIFO (seed 004): its descriptors written once, walked again at every start, each packet's
// payload read from the rank's memory as it is at that start, and leaving no earlier than the stamp
// the rank wrote beside the FIFO for that start (the descriptors' own stamps are the first start's).
TEST(TorusEngine, APatternFifoIsWalkedAgainAtEveryStart) {
  Area a(2);
  const Geometry g = geometry(2, "2");
  Engine e(a.get(), g);
  pamir::torus::PatternFifoArea &f = a.rank(0)->patterns[3];
  f.size = 2;
  uint64_t data[2] = {0, 0};
  for (uint32_t i = 0; i < 2; ++i) {
    f.slots[i] = Descriptor{.intent = Intent::memory_fifo,
                            .flags = pamir::torus::kFromMemory,
                            .dispatch = uint16_t(7 + i),
                            .dest = 1,
                            .hdr_len = 4,
                            .payload_len = 4 + sizeof(uint64_t),
                            .local_addr = uint64_t(uintptr_t(&data[i]))};
    std::memset(f.headers[i], 0xa0 + int(i), 4);
  }
  for (uint64_t start = 1; start <= 3; ++start) {
    data[0] = start * 10, data[1] = start * 10 + 1;
    f.start_ns.store(start * 100000);
    f.tail.store(start * 2);
    a.rank(0)->pattern_kicks.store(start);
    run(e);
    EXPECT_EQ(f.done.load(), start * 2);
    RankBlock *to = a.rank(1);
    ASSERT_EQ(to->rec_tail.load(), start * 2);
    for (uint32_t i = 0; i < 2; ++i) {
      const auto &slot = to->reception[(start - 1) * 2 + i];
      uint64_t got;
      std::memcpy(&got, slot.payload + 4, sizeof got);
      EXPECT_EQ(got, start * 10 + i);
      EXPECT_EQ(slot.h.dispatch, 7 + i);
      EXPECT_EQ(slot.payload[0], 0xa0 + i);
      EXPECT_GE(slot.h.vt_ns, start * 100000);  // not before the start's stamp
      EXPECT_LT(slot.h.vt_ns, start * 100000 + 1000);
    }
  }
  EXPECT_EQ(a.rank(0)->inj_tail.load(), 0u);  // nothing went through the injection FIFO
  EXPECT_EQ(e.stats().descriptors, 6u);
}

// MPI's order between two messages of one envelope, one replayed and one not: a pattern start is taken
// after the injection FIFO's descriptors written before it and before those written after it, and two
// starts in the order they were made, whatever the engine sees in one pass. Before, the engine took
// every new injection descriptor first, so a replayed send overtook nothing but was overtaken.
TEST(TorusEngine, PatternStartsKeepTheirPlaceAmongTheRanksOtherSends) {
  Area a(2);
  const Geometry g = geometry(2, "2");
  Engine e(a.get(), g);
  RankBlock *b = a.rank(0);
  uint64_t data = 42;
  for (uint32_t p : {2u, 5u}) {
    pamir::torus::PatternFifoArea &f = b->patterns[p];
    f.size = 1;
    f.slots[0] = Descriptor{.intent = Intent::memory_fifo,
                            .flags = pamir::torus::kFromMemory,
                            .dispatch = uint16_t(100 + p),
                            .dest = 1,
                            .payload_len = sizeof data,
                            .local_addr = uint64_t(uintptr_t(&data))};
  }
  auto send = [&](uint16_t dispatch) {
    a.inject(0, Descriptor{.intent = Intent::memory_fifo, .dispatch = dispatch, .dest = 1, .payload_len = 1},
             "x");
  };
  uint64_t kicks = 0;
  auto start = [&](uint32_t p, uint64_t inj_at) {
    pamir::torus::PatternFifoArea &f = b->patterns[p];
    f.inj_at.store(inj_at);
    f.kick.store(++kicks);
    f.tail.store(f.tail.load() + 1);
    b->pattern_kicks.store(kicks);
  };
  // All written before the engine looks: 1, start of 5, 2, start of 2, 3.
  send(1);
  start(5, 1);
  send(2);
  start(2, 2);
  send(3);
  run(e);
  // A start that the engine sees before the descriptor written ahead of it (published late) waits.
  start(5, 4);
  run(e);
  EXPECT_EQ(b->patterns[5].done.load(), 1u);
  send(4);
  run(e);
  std::vector<uint16_t> order;
  for (uint64_t i = 0; i < a.rank(1)->rec_tail.load(); ++i)
    order.push_back(a.rank(1)->reception[i].h.dispatch);
  EXPECT_EQ(order, (std::vector<uint16_t>{1, 105, 2, 102, 3, 4, 105}));
}

// Landings (seed 004's receive side): a packet from the landing's source with its header goes into the
// open landing, not the reception FIFO, numbered in the FIFO's sequence; one that finds it full or closed,
// or has another header, goes into the FIFO. A pattern's packet lands as an ordinary one does.
TEST(TorusEngine, APacketWithALandingsHeaderLandsThereWhileItIsOpen) {
  using pamir::torus::kLandingClosed;
  using pamir::torus::kLandingFull;
  using pamir::torus::kLandingOpen;
  Area a(2);
  const Geometry g = geometry(2, "2");
  Engine e(a.get(), g);
  RankBlock *to = a.rank(1);
  pamir::torus::Landing &l = to->landings[5];
  const uint64_t key = 0x1122334455667788ull, other = 0x99;
  l.src = 0;
  l.dispatch = 11;
  l.key_len = sizeof key;
  std::memcpy(l.key, &key, sizeof key);
  l.state.store(kLandingOpen);
  to->landing_mask.store(1u << 5);
  auto send = [&](uint64_t header, uint64_t value) {
    uint8_t bytes[16];
    std::memcpy(bytes, &header, 8);
    std::memcpy(bytes + 8, &value, 8);
    a.inject(
        0,
        Descriptor{.intent = Intent::memory_fifo, .dispatch = 11, .dest = 1, .hdr_len = 8, .payload_len = 16},
        bytes);
  };
  auto value_of = [](const pamir::torus::ReceptionSlot &r) {
    uint64_t v;
    std::memcpy(&v, r.payload + 8, sizeof v);
    return v;
  };
  send(other, 1);  // another header: the FIFO
  send(key, 2);    // lands
  send(key, 3);    // the landing is full: the FIFO, after it
  run(e);
  EXPECT_EQ(l.state.load(), kLandingFull);
  EXPECT_EQ(to->landed.load(), 1u);
  EXPECT_EQ(value_of(l.slot), 2u);
  EXPECT_EQ(l.slot.h.src, 0u);
  EXPECT_EQ(l.slot.h.hdr_len, 8u);
  ASSERT_EQ(to->rec_tail.load(), 2u);
  EXPECT_EQ(value_of(to->reception[0]), 1u);
  EXPECT_EQ(value_of(to->reception[1]), 3u);
  EXPECT_LT(to->reception[0].h.seq, l.slot.h.seq);
  EXPECT_GT(to->reception[1].h.seq, l.slot.h.seq);

  // Taken and closed: the next one goes to the FIFO. Reopened: a pattern's packet lands.
  l.state.store(kLandingClosed);
  send(key, 4);
  run(e);
  EXPECT_EQ(to->rec_tail.load(), 3u);
  EXPECT_EQ(value_of(to->reception[2]), 4u);
  uint64_t data = 5;
  pamir::torus::PatternFifoArea &f = a.rank(0)->patterns[0];
  f.size = 1;
  f.slots[0] = Descriptor{.intent = Intent::memory_fifo,
                          .flags = pamir::torus::kFromMemory,
                          .dispatch = 11,
                          .dest = 1,
                          .hdr_len = 8,
                          .payload_len = 16,
                          .local_addr = uint64_t(uintptr_t(&data))};
  std::memcpy(f.headers[0], &key, sizeof key);
  l.state.store(kLandingOpen);
  f.inj_at.store(a.rank(0)->inj_tail.load());
  f.kick.store(1);
  f.tail.store(1);
  a.rank(0)->pattern_kicks.store(1);
  run(e);
  EXPECT_EQ(l.state.load(), kLandingFull);
  EXPECT_EQ(value_of(l.slot), 5u);
  EXPECT_EQ(to->landed.load(), 2u);
  EXPECT_EQ(to->rec_tail.load(), 3u);
  EXPECT_EQ(f.done.load(), 1u);  // the sender's side completes as for the FIFO
}

std::vector<pamir::torus::LinkFault> faults(const Geometry &g, const char *text) {
  std::vector<pamir::torus::LinkFault> out;
  std::string why;
  EXPECT_TRUE(pamir::torus::parse_faults(text, g, out, why)) << why;
  return out;
}

// A link down: a packet that meets it takes the escape channel's shortest up*/down* route. Node 0 is the
// top of that order, so from it every route descends: A- three times round the ring to (1,0), or B+
// then A+ to (1,1).
TEST(TorusFaults, ALinkDownIsRoutedRound) {
  Area a(16);
  const Geometry g = geometry(16, "4x4");
  Engine e(a.get(), g);
  e.set_faults(faults(g, "down:0,0:A+"));
  uint8_t byte = 1;
  a.inject(0, Descriptor{.intent = Intent::memory_fifo, .dest = 4, .payload_len = 1}, &byte);  // (1,0)
  run(e);
  EXPECT_EQ(a.rank(4)->rec_tail.load(), 1u);
  EXPECT_EQ(e.stats().hops, 3u);  // A- three times round the ring of 4
  // The timing model charges the hops the packet took, not its shortest route's one: 33 bytes at 2 bytes
  // a ns (16 ns), then 3 hops of 40 ns.
  EXPECT_EQ(a.rank(4)->reception[0].h.vt_ns, 16u + 3 * 40u);
  EXPECT_EQ(e.network().link_packets(0, 0, +1), 0u);
  EXPECT_EQ(e.network().link_packets(0, 0, -1), 1u);
  EXPECT_EQ(e.network().rerouted(), 1u);

  a.inject(0, Descriptor{.intent = Intent::memory_fifo, .dest = 5, .payload_len = 1}, &byte);  // (1,1)
  run(e);
  EXPECT_EQ(a.rank(5)->rec_tail.load(), 1u);
  EXPECT_EQ(e.stats().hops, 5u);                      // B+ first, then A+ from (0,1)
  EXPECT_EQ(e.network().link_packets(0, 1, +1), 1u);  // (0,0) B+
  EXPECT_EQ(e.network().link_packets(1, 0, +1), 1u);  // (0,1) A+
  EXPECT_EQ(e.network().rerouted(), 2u);
}

// A link that drops everything: each operation that lost data completes with an error, nothing waits.
TEST(TorusFaults, DroppedPacketsFailTheirOperationsWithoutAHang) {
  Area a(2);
  const Geometry g = geometry(2, "2");
  Engine e(a.get(), g);
  e.set_faults(faults(g, "drop:0:A+:1:7"));
  uint8_t byte = 1;
  a.inject(0, Descriptor{.intent = Intent::memory_fifo, .dest = 1, .payload_len = 1}, &byte);
  std::vector<uint8_t> src(1500, 1), dst(1500, 0);
  const uint32_t base = a.expose(1, 0, dst.data(), dst.size());
  a.rank(0)->counters[0].value.store(1500);
  a.inject(0, Descriptor{.intent = Intent::direct_put,
                         .dest = 1,
                         .remote_base = base,
                         .length = 1500,
                         .local_addr = uint64_t(uintptr_t(src.data())),
                         .local_counter = 1});
  // A get from rank 1: its request crosses 1 -> 0 (A- from node 1... here A+ of a ring of 2 from node 1
  // leads to 0 too, not faulted), and its data comes back over node 0's A+, which drops it.
  const uint32_t base0 = a.expose(0, 0, src.data(), src.size());
  a.rank(1)->counters[2].value.store(1500);
  a.inject(1, Descriptor{.intent = Intent::remote_get,
                         .dest = 0,
                         .remote_base = base0,
                         .length = 1500,
                         .local_addr = uint64_t(uintptr_t(dst.data())),
                         .local_counter = 3});
  run(e);
  EXPECT_EQ(a.rank(1)->lost.load(), 1u);
  EXPECT_NE(std::string(a.rank(1)->lost_what).find("dropped on link (0) A+"), std::string::npos)
      << a.rank(1)->lost_what;
  EXPECT_EQ(a.rank(0)->counters[0].status.load(), -ENOLINK);
  EXPECT_EQ(a.rank(0)->counters[0].value.load(), 0);
  EXPECT_EQ(a.rank(1)->counters[2].status.load(), -ENOLINK);
  EXPECT_EQ(a.rank(1)->counters[2].value.load(), 0);
  // Each rank whose counters failed has the first failure's link, for its error.
  EXPECT_GT(a.rank(0)->failed.load(), 0u);
  EXPECT_NE(std::string(a.rank(0)->failed_what).find("from rank 0 to rank 1 was dropped on link (0) A+"),
            std::string::npos)
      << a.rank(0)->failed_what;
  EXPECT_NE(std::string(a.rank(1)->failed_what).find("dropped on link (0) A+"), std::string::npos)
      << a.rank(1)->failed_what;
  EXPECT_EQ(a.rank(0)->inj_done.load(), 2u);
  EXPECT_EQ(a.rank(1)->inj_done.load(), 1u);
  EXPECT_EQ(e.stats().dropped, 1u + 3u + 3u);
  EXPECT_EQ(std::count(dst.begin(), dst.end(), 0), 1500);
}

// A dropped remote-get request: no data will come, and the origin's counter says so at once.
TEST(TorusFaults, ADroppedGetRequestFailsTheGet) {
  Area a(2);
  const Geometry g = geometry(2, "2");
  Engine e(a.get(), g);
  e.set_faults(faults(g, "drop:0:A+:1:1"));
  std::vector<uint8_t> src(100, 1), dst(100, 0);
  const uint32_t base = a.expose(1, 0, src.data(), src.size());
  a.rank(0)->counters[0].value.store(100);
  a.inject(0, Descriptor{.intent = Intent::remote_get,
                         .dest = 1,
                         .remote_base = base,
                         .length = 100,
                         .local_addr = uint64_t(uintptr_t(dst.data())),
                         .local_counter = 1});
  run(e);
  EXPECT_EQ(a.rank(0)->counters[0].status.load(), -ENOLINK);
  EXPECT_EQ(a.rank(0)->counters[0].value.load(), 0);
  EXPECT_EQ(a.rank(0)->inj_done.load(), 1u);
  EXPECT_NE(
      std::string(a.rank(0)->failed_what).find("a remote-get request from rank 0 to rank 1 was dropped"),
      std::string::npos)
      << a.rank(0)->failed_what;
}

TEST(TorusFaults, BadFaultTextNamesTheSetting) {
  const Geometry g = geometry(16, "4x4");
  std::vector<pamir::torus::LinkFault> out;
  std::string why;
  for (const char *bad : {"up:0,0:A+", "down:0:A+", "down:0,4:A+", "down:0,0:C+", "down:0,0:A",
                          "drop:0,0:A+:0:1", "drop:0,0:A+:1.5:1", "drop:0,0:A+:0.5:x", "down:0,0:A+;"}) {
    EXPECT_FALSE(pamir::torus::parse_faults(bad, g, out, why)) << bad;
    EXPECT_EQ(why.rfind("PAMIR_TORUS_FAULT=", 0), 0u) << why;
  }
  EXPECT_TRUE(pamir::torus::parse_faults("down:3,3:B-;drop:1,2:A+:0.25:99", g, out, why)) << why;
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].node, 6u);
  EXPECT_EQ(pamir::torus::link_name(g, 6, 0, 1), "(1,2) A+");
}

}  // namespace
