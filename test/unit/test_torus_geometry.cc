// The emulated torus's geometry (devices/torus/geometry.h): parsing and fitting the dimensions and the
// map, with errors naming the setting; ranks to coordinates and back under several maps; routes and hop
// counts on small tori (wrap-around, the tie rule), checked against the coordinates they reach.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "devices/torus/geometry.h"
#include "devices/torus/network.h"

using pamir::torus::Coords;
using pamir::torus::Geometry;
using pamir::torus::Hop;

namespace {

Coords at(std::initializer_list<int> v, int t = 0) {
  Coords c;
  size_t i = 0;
  for (int x : v) c.at[i++] = x;
  c.t = t;
  return c;
}

}  // namespace

TEST(TorusGeometry, Balanced) {
  EXPECT_EQ(Geometry::balanced(64), (std::vector<int>{4, 4, 4}));
  EXPECT_EQ(Geometry::balanced(256), (std::vector<int>{4, 4, 4, 4}));
  EXPECT_EQ(Geometry::balanced(1024), (std::vector<int>{4, 4, 4, 4, 4}));
  EXPECT_EQ(Geometry::balanced(12), (std::vector<int>{3, 2, 2}));
  EXPECT_EQ(Geometry::balanced(7), (std::vector<int>{7}));
  EXPECT_EQ(Geometry::balanced(1), (std::vector<int>{1}));
  // The largest size first, then the fewest dimensions: 4x4x4x2 before 4x2x2x2x2.
  EXPECT_EQ(Geometry::balanced(128), (std::vector<int>{4, 4, 4, 2}));
}

TEST(TorusGeometry, ErrorsNameTheSetting) {
  Geometry g;
  std::string why;
  EXPECT_FALSE(g.make(64, "4x4x0", "", why));
  EXPECT_NE(why.find("PAMIR_TORUS_DIMS=\"4x4x0\""), std::string::npos) << why;
  EXPECT_FALSE(g.make(64, "2x2x2x2x2x2", "", why));
  EXPECT_NE(why.find("1 to 5 sizes"), std::string::npos) << why;
  EXPECT_FALSE(g.make(64, "4xx4", "", why));
  EXPECT_FALSE(g.make(60, "4x4", "", why));
  EXPECT_NE(why.find("does not fit a job of 60 ranks"), std::string::npos) << why;
  EXPECT_FALSE(g.make(8, "4x4", "", why));  // more nodes than ranks
  EXPECT_FALSE(g.make(16, "4x4", "ABCT", why));
  EXPECT_NE(why.find("PAMIR_TORUS_MAP=\"ABCT\""), std::string::npos) << why;
  EXPECT_FALSE(g.make(16, "4x4", "AAT", why));
  EXPECT_FALSE(g.make(16, "4x4", "AB", why));
}

TEST(TorusGeometry, SeveralRanksPerNodeAndMaps) {
  Geometry g;
  std::string why;
  ASSERT_TRUE(g.make(32, "4x4", "", why)) << why;
  EXPECT_EQ(g.per_node(), 2);
  EXPECT_EQ(g.nodes(), 16u);
  EXPECT_EQ(g.describe(), "4x4 (16 nodes, 2 ranks per node), map ABT");
  // ABT: T fastest, so ranks 0 and 1 share node (0,0); B next.
  EXPECT_EQ(g.coords(0), at({0, 0}, 0));
  EXPECT_EQ(g.coords(1), at({0, 0}, 1));
  EXPECT_EQ(g.coords(2), at({0, 1}, 0));
  EXPECT_EQ(g.coords(9), at({1, 0}, 1));
  // TAB: T slowest, so the first 16 ranks cover every node once.
  ASSERT_TRUE(g.make(32, "4x4", "TAB", why)) << why;
  EXPECT_EQ(g.coords(1), at({0, 1}, 0));
  EXPECT_EQ(g.coords(16), at({0, 0}, 1));
  // Every map is a bijection between ranks and (node, t).
  for (const char *m : {"ABT", "BAT", "TAB", "ATB", "TBA"}) {
    ASSERT_TRUE(g.make(32, "4x4", m, why)) << why;
    std::set<std::pair<uint32_t, int>> seen;
    for (uint32_t r = 0; r < 32; ++r) {
      const Coords c = g.coords(r);
      EXPECT_EQ(g.rank(c), r) << m;
      seen.insert({g.node(c), c.t});
    }
    EXPECT_EQ(seen.size(), 32u) << m;
  }
}

TEST(TorusGeometry, RoutesAreDimensionOrderedAndShortest) {
  Geometry g;
  std::string why;
  ASSERT_TRUE(g.make(40, "4x5x2", "", why)) << why;
  // Wrap-around: from 0 to 3 on a ring of 4 is one hop down.
  std::vector<Hop> r = g.route(at({0, 0, 0}), at({3, 0, 0}));
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].dim, 0);
  EXPECT_EQ(r[0].dir, -1);
  // Ties (distance 2 on a ring of 4): + from an even coordinate, - from an odd one.
  r = g.route(at({0, 0, 0}), at({2, 0, 0}));
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].dir, 1);
  r = g.route(at({1, 0, 0}), at({3, 0, 0}));
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].dir, -1);
  // A ring of 2: the one hop is a tie too.
  r = g.route(at({0, 0, 1}), at({0, 0, 0}));
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].dir, -1);
  // Every pair: A's hops before B's before C's, the count is the shortest distance, and walking the
  // route reaches the destination.
  for (uint32_t a = 0; a < g.ranks(); ++a)
    for (uint32_t b = 0; b < g.ranks(); ++b) {
      const Coords from = g.coords(a), to = g.coords(b);
      const std::vector<Hop> hops = g.route(from, to);
      EXPECT_EQ(int(hops.size()), g.hops(from, to));
      Coords c = from;
      for (size_t i = 0; i < hops.size(); ++i) {
        if (i) {
          EXPECT_LE(hops[i - 1].dim, hops[i].dim);
        }
        c = g.step(c, hops[i]);
      }
      c.t = to.t;
      EXPECT_EQ(c, to);
      int shortest = 0;
      for (int d = 0; d < 3; ++d) {
        const int k = g.size(d), up = ((to.at[size_t(d)] - from.at[size_t(d)]) % k + k) % k;
        shortest += std::min(up, k - up);
      }
      EXPECT_EQ(g.hops(from, to), shortest);
    }
}

// --- the links (devices/torus/network.h) -----------------------------------------------------------

namespace {

using pamir::torus::Network;
using pamir::torus::Packet;

// Every node sends `per_pair` packets to every other node, in a fixed order.
void all_to_all(Network &net, uint32_t nodes, int per_pair) {
  uint64_t id = 0;
  for (int k = 0; k < per_pair; ++k)
    for (uint32_t s = 0; s < nodes; ++s)
      for (uint32_t i = 1; i < nodes; ++i) {
        Packet p;
        p.src = s;
        p.dst = (s + i) % nodes;
        p.id = id++;
        net.inject(p);
      }
}

}  // namespace

TEST(TorusNetwork, AllToAllWithOnePacketBuffersCompletes) {
  Geometry g;
  std::string why;
  ASSERT_TRUE(g.make(16, "4x4", "", why)) << why;
  Network net(g, 1);
  all_to_all(net, 16, 3);
  ASSERT_TRUE(net.drain(1000000)) << net.in_flight() << " packets stuck after " << net.cycles() << " cycles";
  EXPECT_EQ(net.delivered().size(), 16u * 15u * 3u);
  // Each packet travelled its shortest route.
  for (const Packet &p : net.delivered()) EXPECT_EQ(int(p.hops), g.hops(g.coords(p.src), g.coords(p.dst)));
}

TEST(TorusNetwork, OneChannelDeadlocksWhereTheDatelineDoesNot) {
  // A ring of 8 with one-packet buffers, every node sending to the nodes 2-4 hops ahead: with one
  // channel the ring's buffers fill in a cycle and nothing moves; with the dateline it drains.
  Geometry g;
  std::string why;
  ASSERT_TRUE(g.make(8, "8", "", why)) << why;
  for (int channels : {1, 2}) {
    Network net(g, 1, channels);
    for (int k = 0; k < 8; ++k)
      for (uint32_t s = 0; s < 8; ++s)
        for (uint32_t i : {3u, 2u}) {
          Packet p;
          p.src = s;
          p.dst = (s + i) % 8;
          net.inject(p);
        }
    const bool drained = net.drain(100000);
    if (channels == 1) {
      EXPECT_FALSE(drained) << "expected the single-channel ring to deadlock";
    } else {
      EXPECT_TRUE(drained) << net.in_flight() << " packets stuck";
    }
  }
}

// Links down (issue 20, section 2's escape channel): packets sent round them must not deadlock. Two
// links of one A ring down in opposite directions made plain rerouting (another dimension order on the
// ordinary channels) deadlock this all-to-all with one-packet buffers; on the escape channel it drains,
// every packet arrives, and those that met no down link kept their shortest route.
TEST(TorusNetwork, ReroutedTrafficTakesTheEscapeChannelAndDrains) {
  Geometry g;
  std::string why;
  ASSERT_TRUE(g.make(16, "4x4", "", why)) << why;
  Network net(g, 1);
  net.set_fault(4, 0, +1, true, 0, 0);  // (1,0) A+
  net.set_fault(0, 0, -1, true, 0, 0);  // (0,0) A-
  all_to_all(net, 16, 3);
  ASSERT_TRUE(net.drain(1000000)) << net.in_flight() << " packets stuck after " << net.cycles() << " cycles";
  EXPECT_EQ(net.delivered().size(), 16u * 15u * 3u);
  EXPECT_GT(net.rerouted(), 0u);
  for (const Packet &p : net.delivered()) {
    const int shortest = g.hops(g.coords(p.src), g.coords(p.dst));
    if (p.rerouted)
      EXPECT_GE(int(p.hops), shortest);
    else
      EXPECT_EQ(int(p.hops), shortest);
  }
  EXPECT_EQ(net.link_packets(4, 0, +1), 0u);
  EXPECT_EQ(net.link_packets(0, 0, -1), 0u);
}

// Cables cut (both directions of a link down) in random places on 4x4 and 4x4x4: while the links that
// work connect the torus, an all-to-all with one-packet buffers drains and delivers everything.
TEST(TorusNetwork, RandomCutLinksNeverDeadlock) {
  for (const auto &[dims, n] : {std::pair{"4x4", 16u}, std::pair{"4x4x4", 64u}}) {
    Geometry g;
    std::string why;
    ASSERT_TRUE(g.make(int(n), dims, "", why)) << why;
    uint64_t z = 12345;
    auto next = [&z] {  // splitmix64: the same fault sets in every run
      z += 0x9e3779b97f4a7c15ull;
      uint64_t x = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
      return x ^ (x >> 31);
    };
    for (int trial = 0; trial < 40; ++trial) {
      Network net(g, 1);
      std::string cut;
      for (int f = 0; f <= trial % 3; ++f) {
        const uint32_t v = uint32_t(next() % n);
        const int d = int(next() % uint64_t(g.ndims())), dir = next() % 2 ? 1 : -1;
        Coords c = g.coords(v);  // the node's (one rank a node)
        const uint32_t w = g.node(g.step(c, Hop{d, dir}));
        net.set_fault(g.node(c), d, dir, true, 0, 0);
        net.set_fault(w, d, -dir, true, 0, 0);
        cut += " " + std::to_string(v) + ":" + "ABCDE"[d] + (dir > 0 ? "+" : "-");
      }
      all_to_all(net, n, 2);
      ASSERT_TRUE(net.drain(1000000)) << dims << " cut" << cut << ": " << net.in_flight() << " stuck";
      EXPECT_EQ(net.delivered().size(), size_t(n) * (n - 1) * 2) << dims << " cut" << cut;
    }
  }
}

// A node cut off (both its links on a ring of 4 down both ways): a packet for it has no escape route,
// leaves the network, and its loss names the down link it met, not the way it came.
TEST(TorusNetwork, APacketWithNoWayLeftNamesTheLinkItMet) {
  Geometry g;
  std::string why;
  ASSERT_TRUE(g.make(4, "4", "", why)) << why;
  Network net(g, 1);
  net.set_fault(0, 0, +1, true, 0, 0);
  net.set_fault(1, 0, -1, true, 0, 0);
  net.set_fault(1, 0, +1, true, 0, 0);
  net.set_fault(2, 0, -1, true, 0, 0);
  struct Loss {
    uint32_t node = 99;
    int dim = -1, dir = 0;
    int count = 0;
  } loss;
  net.on_drop(
      [](void *arg, const Packet &, uint32_t node, int dim, int dir) {
        auto *l = static_cast<Loss *>(arg);
        *l = Loss{node, dim, dir, l->count + 1};
      },
      &loss);
  Packet p;
  p.src = 0;
  p.dst = 1;
  net.inject(p);
  p.src = 3;  // 3 to 0 still works, round the other way from the cut
  p.dst = 0;
  net.inject(p);
  ASSERT_TRUE(net.drain(1000));
  EXPECT_EQ(loss.count, 1);
  EXPECT_EQ(loss.node, 0u);
  EXPECT_EQ(loss.dim, 0);
  EXPECT_EQ(loss.dir, +1);
  EXPECT_EQ(net.link_dropped(0, 0, +1), 1u);
  EXPECT_EQ(net.delivered().size(), 1u);
}

// The network's table of first ports (what the engine's timing model reads per packet) agrees with the
// geometry's arithmetic for every pair of nodes, ties and wrap-arounds included.
TEST(TorusNetwork, FirstPortsMatchTheGeometry) {
  const struct {
    uint32_t ranks;
    const char *dims;
  } tori[] = {{40, "4x5x2"}, {256, "8x8x4"}, {3, "3"}, {32, "2x2x2x2x2"}};
  for (const auto &t : tori) {
    Geometry g;
    std::string why;
    ASSERT_TRUE(g.make(t.ranks, t.dims, "", why)) << why;
    Network net(g, 1);
    for (uint32_t ra = 0; ra < g.ranks(); ++ra)
      for (uint32_t rb = 0; rb < g.ranks(); ++rb) {
        const Coords from = g.coords(ra), to = g.coords(rb);
        const uint32_t a = g.node(from), b = g.node(to);
        ASSERT_EQ(net.first_port(a, b), g.first_link(from, to)) << t.dims << " " << a << " -> " << b;
      }
  }
}

TEST(TorusNetwork, RingShiftLoadsExactlyItsLinks) {
  Geometry g;
  std::string why;
  ASSERT_TRUE(g.make(16, "4x4", "", why)) << why;
  Network net(g, 2);
  // Every node sends two packets one step along A.
  for (uint32_t r = 0; r < 16; ++r)
    for (int k = 0; k < 2; ++k) {
      Coords to = g.coords(r);
      to.at[0] = (to.at[0] + 1) % 4;
      Packet p;
      p.src = g.node_of(r);
      p.dst = g.node(to);
      net.inject(p);
    }
  ASSERT_TRUE(net.drain(1000));
  for (uint32_t v = 0; v < 16; ++v)
    for (int d = 0; d < 2; ++d)
      for (int dir : {-1, 1})
        EXPECT_EQ(net.link_packets(v, d, dir), d == 0 && dir == 1 ? 2u : 0u) << v << " " << d << " " << dir;
}

TEST(TorusNetwork, Deterministic) {
  Geometry g;
  std::string why;
  ASSERT_TRUE(g.make(32, "4x2x4", "", why)) << why;
  std::vector<uint64_t> first;
  for (int run = 0; run < 2; ++run) {
    Network net(g, 1);
    all_to_all(net, 32, 1);
    ASSERT_TRUE(net.drain(1000000));
    std::vector<uint64_t> seen{net.cycles()};
    for (uint32_t v = 0; v < 32; ++v)
      for (int d = 0; d < 3; ++d)
        for (int dir : {-1, 1}) seen.push_back(net.link_packets(v, d, dir));
    for (const Packet &p : net.delivered()) seen.push_back(p.id);
    if (run == 0) first = seen;
    EXPECT_EQ(seen, first);
  }
}
