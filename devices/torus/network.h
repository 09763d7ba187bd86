// The links of the emulated torus (issue 20, section 2): packets moved hop by hop along the geometry's
// dimension-ordered routes, one packet per link per cycle, into bounded buffers with credit-based flow
// control, so that a packet whose next buffer is full waits where it is and nothing is ever dropped.
// Deterministic: the same injections give the same cycles and the same per-link counts.
//
// Deadlock: dimension-ordered routing never waits on a lower dimension, but a ring's wrap-around link
// closes a cycle of buffers inside one dimension, which full buffers turn into a deadlock. Each link has
// two virtual channels with a dateline (Dally and Seitz): a packet travels a dimension on channel 0
// until it crosses that ring's wrap-around link (from the last coordinate to 0 going +, from 0 to the
// last going -), and on channel 1 after it, so no ring's buffers form a cycle. `channels = 1` turns that
// off (to show the deadlock it prevents).
//
// A link down (a fault) breaks that argument: a packet sent round it leaves dimension order, and packets
// of different orders on the same channels close cycles across dimensions. So a packet that meets a
// down link moves to an escape channel of its own on every link, and on it follows up*/down* routes over
// the links that work (Autonet: nodes ordered by breadth-first level from node 0, each working link
// "up" towards a lower place in that order or "down" away from it; a route takes ups, then downs only,
// and the shortest such route is taken). A packet on an up link waits only for an up link from a
// lower place or for a down link; one on a down link only for a down link to a higher place. So waits
// among escape buffers never go from a down link to an up one and otherwise follow the order strictly:
// they form no cycle. The ordinary channels wait on the escape channel, never the reverse.
//
// This is the engine's model of the network alone: what a packet carries beyond its route (payload,
// counters, the descriptor it came from) belongs to the engine that drives it.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "devices/torus/geometry.h"

namespace pamir::torus {

// 16 bytes, so that the links' buffers (a packet a place, 3 channels, 4 places a link) take half the
// cache they took at 32.
struct Packet {
  static constexpr uint32_t kMaxHops = 2047, kMaxBytes = 1023;
  uint32_t src = 0, dst = 0;  // nodes
  uint32_t id = 0;            // the engine's (the order it injected them in, say)
  int32_t dim : 4 = -1;       // the dimension it travels now (-1: not started)
  int32_t dir : 2 = 0;
  uint32_t vc : 2 = 0;
  uint32_t rerouted : 1 = 0;    // a fault made it leave dimension order: it travels the escape channel
  uint32_t descending : 1 = 0;  // on the escape channel: it has taken a down link, so takes no more ups
  uint32_t control : 1 = 0;     // a request or an acknowledgment: counted apart from the data (section 3)
  uint32_t bytes : 10 = 0;      // on the wire, header included (the links' byte counts; kMaxBytes)
  uint32_t hops : 11 = 0;       // links crossed, up to kMaxHops (a count that stops there)
};
static_assert(sizeof(Packet) == 16);

class Network {
 public:
  // Dimension order's first port from node to dst (dim * 2 + (dir > 0), Geometry::first_link's), or -1
  // when dst is node. From the routes' table where it exists: the engine's timing model asks for every
  // packet, and the arithmetic divides twice a dimension.
  int first_port(uint32_t node, uint32_t dst) const {
    const uint8_t p = dor_.empty() ? dor_port(node, dst) : dor_[size_t(node) * g_.nodes() + dst];
    return p == kHere ? -1 : int(p);
  }

  // `depth`: packets each virtual channel's buffer holds at the receiving end of a link.
  Network(const Geometry &g, int depth, int channels = 2);

  // Where a packet that reaches its destination node goes: accept(arg, p) takes it (and the packet
  // leaves the network), or returns false and it waits where it is, holding its buffer, as a packet
  // waits for room in a full reception FIFO. Without a hook packets are kept in delivered().
  void on_arrival(bool (*accept)(void *, const Packet &), void *arg) {
    accept_ = accept;
    accept_arg_ = arg;
  }

  // PAMIR_TORUS_FAULT: a link taken down, or made to drop packets. A packet whose way is down moves to
  // the escape channel and its up*/down* routes; one that a link drops, or that has no way left, leaves the
  // network through on_drop(arg, p, link_node, dim, dir).
  void set_fault(uint32_t node, int dim, int dir, bool down, double probability, uint64_t seed);
  void on_drop(void (*drop)(void *, const Packet &, uint32_t, int, int), void *arg) {
    drop_ = drop;
    drop_arg_ = arg;
  }
  bool link_down(uint32_t node, int dim, int dir) const {
    return !down_.empty() && down_[link(node, dim, dir)];
  }
  uint64_t link_dropped(uint32_t node, int dim, int dir) const {
    return faults_ ? dropped_[link(node, dim, dir)] : 0;
  }
  uint64_t rerouted() const { return rerouted_; }

  // Queues a packet at its source node's injection FIFO (unbounded: the rank side's, which the engine
  // bounds by the FIFO's size).
  void inject(const Packet &p);
  // One cycle: every link moves at most one packet, from the state at the cycle's start. Returns how many
  // packets moved or were delivered.
  int cycle();
  // Cycles until every injected packet is delivered; false when a cycle moves nothing while packets
  // remain (a deadlock), or after `max_cycles`.
  bool drain(uint64_t max_cycles);

  const std::vector<Packet> &delivered() const { return delivered_; }
  uint64_t in_flight() const { return in_flight_; }
  uint64_t cycles() const { return cycles_; }
  // Link crossings of every packet moved so far.
  uint64_t hops() const { return hops_; }
  // Packets that crossed the link leaving `node` along `dim` in direction `dir` (+1 or -1).
  uint64_t link_packets(uint32_t node, int dim, int dir) const { return link_packets_[link(node, dim, dir)]; }
  uint64_t link_bytes(uint32_t node, int dim, int dir) const { return link_bytes_[link(node, dim, dir)]; }
  // Link crossings of control packets, which link_packets() leaves out.
  uint64_t control_hops() const { return control_hops_; }
  // The most packets any one virtual channel's buffer held at once.
  int peak_depth() const { return peak_depth_; }

 private:
  const Geometry &g_;
  const size_t ports_;  // links out of a node: two a dimension (link l = node * ports_ + dim * 2 + up)
  const int depth_;
  const int channels_;
  std::vector<Coords> node_coords_;
  std::vector<std::vector<uint32_t>> neighbour_;  // [node][dim * 2 + (dir > 0)]
  // Virtual channels per link: the ordinary ones, then the escape channel (index channels_).
  size_t vcs() const { return size_t(channels_) + 1; }
  // Buffers at the receiving end of each link, per virtual channel (buffer b = link * vcs() + vc): rings
  // of depth_ packets in one array, since a cycle moves at most one packet into each and the credit
  // check keeps each within its depth.
  std::vector<Packet> ring_;  // [b * depth_ + i]
  struct Ring {
    uint32_t head, count;
  };
  std::vector<Ring> rings_;                    // [b]
  std::vector<std::deque<Packet>> injection_;  // per node
  std::vector<uint64_t> link_packets_, link_bytes_;
  uint64_t control_hops_ = 0;
  int peak_depth_ = 0;
  std::vector<Packet> delivered_;
  uint64_t in_flight_ = 0;
  uint64_t cycles_ = 0;
  uint64_t hops_ = 0;
  bool (*accept_)(void *, const Packet &) = nullptr;
  void *accept_arg_ = nullptr;
  // cycle()'s working state, kept so that a cycle allocates nothing.
  static constexpr uint32_t kNoBuffer = ~0u;
  // A packet that moves is updated where it waits (its source's front) and copied once, when the
  // moves are carried out.
  struct Move {
    uint32_t at;         // the node it leaves from (or arrives at)
    uint32_t to_buffer;  // kNoBuffer: delivered, or dropped
    uint32_t link;
    uint8_t source;  // its place among the node's sources
    bool dropped;
  };
  std::vector<Move> moves_;  // room for one per source: a cycle fills a prefix, never growing it
  // The cycle (its low 32 bits, plus one) in which each link last carried a packet: reset by the count.
  std::vector<uint32_t> link_used_;
  // Packets waiting at each node (its injection FIFO and its incoming links' buffers): a cycle skips
  // the nodes with none.
  std::vector<uint32_t> queued_;
  std::vector<uint32_t> buffer_node_;    // the node each buffer is at
  std::vector<uint8_t> buffer_source_;   // and its place among that node's sources
  std::vector<uint32_t> source_buffer_;  // [node * sources_per_node_ + i]: source i's buffer (i > 0)
  size_t sources_per_node_ = 0;
  // Per node, a bit per source that holds packets: a cycle visits those alone (at most 1 + 5 * 2 * 3).
  std::vector<uint32_t> busy_sources_;
  // Dimension-order routing's port (dim * 2 + (dir > 0)) from each node to each destination, kHere at
  // it: a route is a function of the two nodes alone, so a table (up to kTableNodes nodes) replaces
  // the per-hop arithmetic.
  static constexpr uint8_t kHere = 0xfe;
  static constexpr uint32_t kTableNodes = 2048;
  std::vector<uint8_t> dor_;
  // Per node, a bit per port whose link is its ring's wrap-around (the dateline), with two channels.
  std::vector<uint16_t> dateline_;
  uint8_t dor_port(uint32_t node, uint32_t dst) const;
  Packet &front(uint32_t node, size_t source) {
    if (source == 0) return injection_[node].front();
    const uint32_t b = source_buffer_[node * sources_per_node_ + source];
    return ring_[size_t(b) * size_t(depth_) + rings_[b].head];
  }

  size_t link(uint32_t node, int dim, int dir) const {
    return size_t(node) * ports_ + size_t(dim) * 2 + (dir > 0);
  }
  // The packet's next hop from `node` (its dim and dir updated): kHop, or kArrived at its destination,
  // or kStuck where every link that leads on is down.
  enum Next { kArrived, kHop, kStuck };
  Next next_hop(Packet &p, uint32_t node);
  Next escape_hop(Packet &p, uint32_t node);
  // The escape routes, worked out once a link is down and a packet needs them: each node's place in the
  // up*/down* order, and per destination, node and phase (climbing, descending) the port to take,
  // kNoWay where the working links reach no further.
  static constexpr uint8_t kNoWay = 0xff;
  bool escape_stale_ = false;
  std::vector<uint32_t> place_, by_place_;
  std::vector<std::vector<uint8_t>> escape_next_;  // [destination][node * 2 + descending], when asked for
  void order_escape();
  const uint8_t *escape_column(uint32_t dst);
  bool faults_ = false;
  std::vector<uint8_t> down_;
  struct Drop {
    double probability = 0;
    uint64_t seed = 0, crossings = 0;
  };
  std::vector<Drop> drops_;
  std::vector<uint64_t> dropped_;
  uint64_t rerouted_ = 0;
  void (*drop_)(void *, const Packet &, uint32_t, int, int) = nullptr;
  void *drop_arg_ = nullptr;
  bool drops(size_t link);
};

}  // namespace pamir::torus
