// The timing model's replay after the run (devices/torus/replay.h): the engine alone in this process,
// with descriptors written as ranks would write them, in an order that is not their stamps' order.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "devices/torus/area.h"
#include "devices/torus/engine.h"
#include "devices/torus/replay.h"
#include "test/unit/torus_area.h"

namespace {

using pamir::torus::Descriptor;
using pamir::torus::Engine;
using pamir::torus::Intent;
using pamir::torus::RankBlock;
using pamir::torus::ReceptionSlot;
using pamir::torus::replay;
using pamir::torus::ReplayLog;
using pamir::torus::ReplayResult;
using pamir::torus::test::geometry;
using pamir::torus::test::run;

struct Area : pamir::torus::test::Area {
  using pamir::torus::test::Area::Area;
  // A memory-FIFO packet of `bytes` payload bytes, leaving no earlier than the stamp (ns, x).
  void send(uint32_t from, uint32_t to, uint16_t bytes, uint64_t ns, uint32_t x) {
    inject(from, Descriptor{.intent = Intent::memory_fifo,
                            .dest = to,
                            .payload_len = bytes,
                            .not_before_x = x,
                            .not_before_ns = ns});
  }
  // Rank r's packet from `src`.
  const ReceptionSlot &from(uint32_t r, uint32_t src) const {
    for (uint64_t i = 0; i < rank(r)->rec_tail.load(); ++i)
      if (rank(r)->reception[i].h.src == src) return rank(r)->reception[i];
    ADD_FAILURE() << "rank " << r << " has no packet from " << src;
    return rank(r)->reception[0];
  }
};

// An engine on `dims` recording for the replay, with Blue Gene/Q's link (2 GB/s, 40 ns a hop).
struct Recording {
  Recording(const Area &a, uint32_t ranks, const char *dims)
      : g(geometry(ranks, dims)), e(a.get(), g, 4, pamir::torus::Timing{2000, 40}) {
    e.record_replay();
  }
  ReplayResult replayed(const std::vector<std::vector<uint64_t>> &logs) const {
    return replay(e.replay_log(), logs, size_t(g.nodes()) * Engine::kNodeChannels, 40);
  }
  pamir::torus::Geometry g;
  Engine e;
};

// Two ranks of one node share its link. The engine takes the later stamp first (it was written first),
// so its own times depend on that order; the replay serves the earlier stamp first, and every time that
// followed from the two arrivals (a third rank's stamp, its max in that rank's log) moves with them.
//
// Two nodes of two ranks ("2": ranks 0 and 1 on node 0, 2 and 3 on node 1), 2 GB/s, 40 ns a hop:
// a 1-byte packet is 33 bytes on the wire, 16 ns; a 512-byte one 544 bytes, 272 ns.
TEST(TorusReplay, ALinkServesEarlierStampsFirstWhateverOrderTheEngineTookThem) {
  Area a(4);
  Recording rec(a, 4, "2");
  Engine &e = rec.e;
  // Node 1 to node 0, stamps 0, in this order both ways: rank 2's departs at 16 and arrives at 56,
  // rank 3's departs at 16 + 272 = 288 and arrives at 328.
  a.send(2, 0, 1, 0, 0);
  a.send(3, 1, 512, 0, 0);
  run(e);
  const ReceptionSlot &at0 = a.from(0, 2), &at1 = a.from(1, 3);
  EXPECT_EQ(at0.h.vt_ns, 56u);
  EXPECT_EQ(at1.h.vt_ns, 328u);
  ASSERT_NE(at0.h.vt_x, 0u);
  ASSERT_NE(at1.h.vt_x, at0.h.vt_x);
  // Each answers rank 2 as of what it received: rank 1 (stamp 328) first, then rank 0 (stamp 56).
  a.send(1, 2, 512, at1.h.vt_ns, at1.h.vt_x);
  run(e);
  a.send(0, 2, 512, at0.h.vt_ns, at0.h.vt_x);
  run(e);
  // The engine's order: rank 1's departs at 328 + 272 = 600, rank 0's at 600 + 272 = 872.
  const ReceptionSlot &from1 = a.from(2, 1), &from0 = a.from(2, 0);
  EXPECT_EQ(from1.h.vt_ns, 640u);
  EXPECT_EQ(from0.h.vt_ns, 912u);
  // Rank 2 then writes to rank 1 as of both: its log's first node is the later of the two arrivals.
  const std::vector<std::vector<uint64_t>> logs = {{}, {}, {uint64_t(from1.h.vt_x) << 32 | from0.h.vt_x}, {}};
  a.send(2, 1, 1, 912, 1);
  run(e);
  EXPECT_EQ(a.from(1, 2).h.vt_ns, 912u + 16 + 40);
  EXPECT_EQ(e.clocks(), (std::vector<uint64_t>{872, 968, 928, 288}));

  const ReplayResult r = rec.replayed(logs);
  ASSERT_TRUE(r.complete) << r.why;
  EXPECT_EQ(r.transfers, 5u);
  // The replay: rank 0's (stamp 56) departs at 328 and arrives at 368, then rank 1's (stamp 328) at
  // 328 + 272 = 600, arriving at 640; rank 2's stamp is the later, 640: it departs at 656 and arrives at
  // 696. Each rank's clock is its last departure or arrival.
  EXPECT_EQ(r.clock, (std::vector<uint64_t>{328, 696, 656, 288}));
}

// A remote get's data is a transfer of its own, stamped with its request's arrival at the owner.
TEST(TorusReplay, ARemoteGetsDataLeavesAsOfItsRequestsArrival) {
  Area a(2);
  Recording rec(a, 2, "2");
  Engine &e = rec.e;
  std::vector<uint8_t> src(1024, 5), dst(1024, 0);
  const uint32_t base = a.expose(1, 0, src.data(), src.size());
  a.rank(0)->counters[0].value.store(1024);
  a.inject(0, Descriptor{.intent = Intent::remote_get,
                         .dest = 1,
                         .remote_base = base,
                         .length = 1024,
                         .local_addr = uint64_t(uintptr_t(dst.data())),
                         .local_counter = 1});
  run(e);
  RankBlock *b = a.rank(0);
  EXPECT_EQ(dst, src);
  // The request: 32 bytes, 16 ns, arrives at 56; the data: two packets of 544 bytes from 56, the last
  // leaving at 56 + 544 = 600, arriving at 640, which is the counter's time.
  EXPECT_EQ(b->counters[0].vt_ns.load(), 640u);
  ASSERT_NE(b->counters[0].vt_x.load(), 0u);
  const ReplayResult r = rec.replayed({{}, {}});
  ASSERT_TRUE(r.complete) << r.why;
  EXPECT_EQ(r.transfers, 2u);
  EXPECT_EQ(r.clock, (std::vector<uint64_t>{640, 600}));
}

// A packet a fault dropped: its sender's clock takes its departure, its receiver's nothing, in the
// replay as in the engine's own clocks.
TEST(TorusReplay, ADroppedPacketArrivesNowhere) {
  Area a(2);
  Recording rec(a, 2, "2");
  std::vector<pamir::torus::LinkFault> faults;
  std::string why;
  ASSERT_TRUE(pamir::torus::parse_faults("drop:0:A+:1:7", rec.g, faults, why)) << why;
  rec.e.set_faults(faults);
  a.send(0, 1, 1, 0, 0);
  run(rec.e);
  EXPECT_EQ(a.rank(1)->lost.load(), 1u);
  EXPECT_EQ(rec.e.clocks(), (std::vector<uint64_t>{16, 0}));
  const ReplayResult r = rec.replayed({{}, {}});
  ASSERT_TRUE(r.complete) << r.why;
  EXPECT_EQ(r.clock, (std::vector<uint64_t>{16, 0}));
}

// The ranks' logs beside the report: read only when headed by this engine's pid and their rank, and
// removed whatever they hold, so a log another job left is neither read nor left behind.
TEST(TorusReplay, OnlyThisJobsLogsAreReadAndAllAreRemoved) {
  Area a(2);
  Recording rec(a, 2, "2");
  char dir[] = "/tmp/pamir-replay-test.XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  const std::string report = std::string(dir) + "/r.json";
  auto write = [&](uint32_t rank, uint64_t pid) {
    const uint64_t log[4] = {pamir::torus::kReplayLogMagic, pid, rank, 0};  // one node: the later of 0 and 0
    FILE *f = std::fopen(pamir::torus::replay_log_path(report, rank).c_str(), "wb");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(std::fwrite(log, sizeof log, 1, f), 1u);
    std::fclose(f);
  };
  auto gone = [&](uint32_t rank) {
    return ::access(pamir::torus::replay_log_path(report, rank).c_str(), F_OK) != 0;
  };

  write(0, uint64_t(::getpid()));
  write(1, uint64_t(::getpid()));
  ReplayResult r = pamir::torus::replay_run(rec.e, report);
  EXPECT_TRUE(r.complete) << r.why;
  EXPECT_EQ(r.rank_nodes, 2u);  // one node each, the header not counted
  EXPECT_TRUE(gone(0) && gone(1));

  write(0, uint64_t(::getpid()));
  write(1, uint64_t(::getpid()) + 1);  // another engine's
  r = pamir::torus::replay_run(rec.e, report);
  EXPECT_FALSE(r.complete);
  EXPECT_NE(r.why.find("rank 1's log could not be read, or is not this job's"), std::string::npos) << r.why;
  EXPECT_TRUE(gone(0) && gone(1));

  write(1, uint64_t(::getpid()));  // rank 0 left none
  r = pamir::torus::replay_run(rec.e, report);
  EXPECT_FALSE(r.complete);
  EXPECT_NE(r.why.find("rank 0 left no log"), std::string::npos) << r.why;
  EXPECT_TRUE(gone(1));
  ::rmdir(dir);
}

// A stamp that names an expression no log holds: the replay says so rather than guess.
TEST(TorusReplay, AnExpressionNoLogHoldsIsReportedNotGuessed) {
  Area a(2);
  Recording rec(a, 2, "2");
  Engine &e = rec.e;
  a.send(0, 1, 8, 100, 3);  // rank 0's node 3: its log has none
  run(e);
  const ReplayResult r = rec.replayed({{}, {}});
  EXPECT_FALSE(r.complete);
  EXPECT_NE(r.why.find("names nothing"), std::string::npos) << r.why;
}

// Expressions that wait on each other in a cycle (no log a program makes, but a corrupt one): the
// transfers they hold back are counted, and the replay ends.
TEST(TorusReplay, TransfersWhoseStampsNeverResolveAreCounted) {
  ReplayLog log;
  log.on = true;
  // Transfer 0's stamp is rank 0's node 1, the later of its own node 2 and transfer 0's arrival; node 2
  // is the later of node 1 and 0.
  log.transfers.push_back(ReplayLog::Transfer{pamir::torus::rank_ref(0, 1), 0, 0, 1, 1, 0, 1, 0, 16});
  const uint32_t arrival = log.arrival(0);
  const std::vector<std::vector<uint64_t>> logs = {{uint64_t(2) << 32 | arrival, uint64_t(1) << 32}, {}};
  const ReplayResult r = replay(log, logs, 4, 40);
  EXPECT_FALSE(r.complete);
  EXPECT_EQ(r.transfers, 0u);
  EXPECT_NE(r.why.find("1 transfers"), std::string::npos) << r.why;
}

}  // namespace
