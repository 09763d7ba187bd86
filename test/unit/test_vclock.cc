// The rank's side of the torus timing model (pami/vclock.h): with the log on, every max of two times
// is recorded, undecided, for the replay after the run; with it off, it is a plain max.
#include <gtest/gtest.h>

#include "pami/vclock.h"

namespace {

using pamir::g_vclock;
using pamir::g_vtlog;
using pamir::Vt;
using pamir::vt_max;

struct LogOn {
  LogOn() {
    g_vclock = {};
    EXPECT_TRUE(pamir::vt_log_reserve());
    pamir::vt_log_on(true);
  }
  ~LogOn() {
    pamir::vt_log_on(false);
    pamir::vt_log_release();
    g_vclock = {};
  }
};

TEST(VirtualClock, OffItIsAPlainMaxAndLogsNothing) {
  const Vt a{100, 0}, b{200, 0};
  EXPECT_EQ(vt_max(a, b).ns, 200u);
  EXPECT_EQ(vt_max(b, a).ns, 200u);
  EXPECT_EQ(g_vtlog.count, 0u);
}

TEST(VirtualClock, OnEveryMaxOfTwoExpressionsIsLoggedWhicheverIsLater) {
  LogOn on;
  const Vt early{100, pamir::kVtEngine | 1}, late{200, pamir::kVtEngine | 2};
  // The later value wins now, but both are kept: the replay may find them the other way round.
  const Vt m = vt_max(late, early);
  EXPECT_EQ(m.ns, 200u);
  EXPECT_EQ(m.x, 1u);
  ASSERT_EQ(g_vtlog.count, 1u);
  EXPECT_EQ(g_vtlog.nodes[0], uint64_t(late.x) << 32 | early.x);
  // The time 0, and an expression with itself, add nothing.
  EXPECT_EQ(vt_max(m, Vt{}).x, m.x);
  EXPECT_EQ(vt_max(Vt{}, m).x, m.x);
  EXPECT_EQ(vt_max(m, m).x, m.x);
  EXPECT_EQ(g_vtlog.count, 1u);
  // A node's children may be the rank's own nodes.
  const Vt n = vt_max(m, Vt{150, pamir::kVtEngine | 3});
  EXPECT_EQ(n.x, 2u);
  EXPECT_EQ(g_vtlog.nodes[1], uint64_t(1) << 32 | (pamir::kVtEngine | 3));
}

TEST(VirtualClock, AScopeRestoresTheProgramsStampAndKeepsWhatTheProgramSawInIt) {
  LogOn on;
  const Vt seen{50, pamir::kVtEngine | 1}, arrival{300, pamir::kVtEngine | 2};
  pamir::vclock_observe(seen);
  EXPECT_EQ(g_vclock.stamp.x, seen.x);
  {
    pamir::VtScope at(arrival, arrival);
    EXPECT_EQ(g_vclock.stamp.x, arrival.x);
    // A blocking call inside the scope: the program saw it, and the scope's stamp is no earlier.
    pamir::vclock_observe(Vt{400, pamir::kVtEngine | 3});
    EXPECT_EQ(g_vclock.stamp.ns, 400u);
  }
  EXPECT_EQ(g_vclock.flags & pamir::kVtScopes, 0);
  EXPECT_EQ(g_vclock.stamp.ns, 400u);
  EXPECT_EQ(g_vclock.stamp.x, g_vclock.program.x);
  EXPECT_EQ(g_vclock.arrival.x, 0u);
}

// A synchronous transfer's last bytes (vclock_waited): at the program's level the program has seen
// them; in a scope, what follows in it is stamped and completes no earlier.
TEST(VirtualClock, AWaitedTransferRaisesTheProgramOrTheScope) {
  LogOn on;
  const Vt landed{500, pamir::kVtEngine | 4};
  pamir::vclock_waited(landed);
  EXPECT_EQ(g_vclock.program.x, landed.x);
  EXPECT_EQ(g_vclock.stamp.x, landed.x);
  {
    pamir::VtScope at(Vt{100, pamir::kVtEngine | 5}, Vt{100, pamir::kVtEngine | 5});
    pamir::vclock_waited(Vt{700, pamir::kVtEngine | 6});
    EXPECT_EQ(g_vclock.stamp.ns, 700u);
    EXPECT_EQ(g_vclock.arrival.ns, 700u);
    EXPECT_NE(g_vclock.stamp.x, 0u);
    EXPECT_EQ(g_vclock.program.x, landed.x);  // the program has not seen it
  }
  EXPECT_EQ(g_vclock.stamp.ns, 500u);
}

// Two threads' scopes closed out of order (a callback's blocking call releases the library lock): the
// program's level is back once both are closed, not left looking like a scope.
TEST(VirtualClock, ScopesClosedOutOfOrderLeaveTheProgramsLevel) {
  LogOn on;
  pamir::vclock_observe(Vt{10, pamir::kVtEngine | 1});
  auto *first = new pamir::VtScope(Vt{20, pamir::kVtEngine | 2}, Vt{});
  auto *second = new pamir::VtScope(Vt{30, pamir::kVtEngine | 3}, Vt{});
  delete first;
  EXPECT_NE(g_vclock.flags & pamir::kVtScopes, 0);  // the second is still open
  delete second;
  EXPECT_EQ(g_vclock.flags & pamir::kVtScopes, 0);
  EXPECT_EQ(g_vclock.stamp.x, g_vclock.program.x);
  EXPECT_EQ(g_vclock.stamp.ns, 10u);
}

}  // namespace
