#include "devices/torus/network.h"

#include <algorithm>
#include <span>

namespace pamir::torus {

Network::Network(const Geometry &g, int depth, int channels)
    : g_(g),
      ports_(size_t(g.ndims()) * 2),
      depth_(depth < 1 ? 1 : depth),
      channels_(channels < 1   ? 1
                : channels > 2 ? 2
                               : channels) {
  const uint32_t n = g.nodes();
  node_coords_.resize(n);
  neighbour_.assign(n, std::vector<uint32_t>(size_t(kMaxDims) * 2, 0));
  // Nodes are numbered as Geometry::node numbers them: A slowest.
  for (uint32_t v = 0; v < n; ++v) {
    Coords c;
    uint32_t rest = v;
    for (int d = g.ndims(); d-- > 0;) {
      c.at[size_t(d)] = int(rest % uint32_t(g.size(d)));
      rest /= uint32_t(g.size(d));
    }
    node_coords_[v] = c;
  }
  for (uint32_t v = 0; v < n; ++v)
    for (int d = 0; d < g.ndims(); ++d)
      for (int dir : {-1, 1})
        neighbour_[v][size_t(d) * 2 + (dir > 0)] = g.node(g.step(node_coords_[v], Hop{d, dir}));
  const size_t buffers = size_t(n) * ports_ * vcs();
  ring_.resize(buffers * size_t(depth_));
  rings_.assign(buffers, Ring{0, 0});
  injection_.resize(n);
  link_packets_.assign(size_t(n) * ports_, 0);
  link_bytes_.assign(link_packets_.size(), 0);
  link_used_.assign(link_packets_.size(), 0);
  queued_.assign(n, 0);
  buffer_node_.assign(buffers, 0);
  for (uint32_t v = 0; v < n; ++v)
    for (int d = 0; d < g.ndims(); ++d)
      for (int dir : {-1, 1})
        for (size_t vc = 0; vc < vcs(); ++vc)
          buffer_node_[link(v, d, dir) * vcs() + vc] = neighbour_[v][size_t(d) * 2 + (dir > 0)];
  // Each node's sources in a fixed order: its injection FIFO, then each incoming link's channels.
  sources_per_node_ = 1 + size_t(g.ndims()) * 2 * vcs();
  static_assert(1 + kMaxDims * 2 * 3 <= 32, "a node's sources fit busy_sources_'s bits");
  source_buffer_.assign(size_t(n) * sources_per_node_, kNoBuffer);
  buffer_source_.assign(buffers, 0);
  for (uint32_t v = 0; v < n; ++v) {
    size_t i = 1;
    for (int d = 0; d < g.ndims(); ++d)
      for (int dir : {-1, 1}) {
        const uint32_t from = neighbour_[v][size_t(d) * 2 + (dir < 0)];  // whose link `dir` ends here
        for (size_t vc = 0; vc < vcs(); ++vc, ++i) {
          const size_t b = link(from, d, dir) * vcs() + vc;
          buffer_source_[b] = uint8_t(i);
          source_buffer_[size_t(v) * sources_per_node_ + i] = uint32_t(b);
        }
      }
  }
  busy_sources_.assign(n, 0);
  // At most one move per source a cycle.
  moves_.resize(size_t(n) * sources_per_node_);
  // A packet that crosses a ring's wrap-around link moves to channel 1 (with two channels).
  dateline_.assign(n, 0);
  for (uint32_t v = 0; v < n && channels_ > 1; ++v)
    for (int d = 0; d < g.ndims(); ++d) {
      const int a = node_coords_[v].at[size_t(d)], k = g.size(d);
      if (a == k - 1) dateline_[v] |= 1u << (d * 2 + 1);
      if (a == 0) dateline_[v] |= 1u << (d * 2);
    }
  if (n <= kTableNodes) {
    dor_.resize(size_t(n) * n);
    for (uint32_t v = 0; v < n; ++v)
      for (uint32_t dst = 0; dst < n; ++dst) dor_[size_t(v) * n + dst] = dor_port(v, dst);
  }
}

// The first dimension still to correct, A first, the shorter way round (Geometry's tie rule). A packet
// on its way keeps its dimension and direction under this rule: a step the shorter way leaves the rest
// of that ring strictly shorter the same way.
uint8_t Network::dor_port(uint32_t node, uint32_t dst) const {
  const Coords &c = node_coords_[node], &to = node_coords_[dst];
  for (int i = 0; i < g_.ndims(); ++i) {
    const int k = g_.size(i), a = c.at[size_t(i)];
    const int up = ((to.at[size_t(i)] - a) % k + k) % k, down = k - up;
    if (up == 0) continue;
    const int dir = up < down ? 1 : down < up ? -1 : (a % 2 == 0 ? 1 : -1);
    return uint8_t(i * 2 + (dir > 0));
  }
  return kHere;
}

void Network::inject(const Packet &p) {
  Packet &q = injection_[p.src].emplace_back(p);
  q.dim = -1;  // the route is the network's to choose
  q.dir = 0;
  q.vc = 0;
  q.rerouted = q.descending = false;
  q.hops = 0;
  ++queued_[p.src];
  busy_sources_[p.src] |= 1u;
  ++in_flight_;
}

void Network::set_fault(uint32_t node, int dim, int dir, bool down, double probability, uint64_t seed) {
  if (!faults_) {
    faults_ = true;
    down_.assign(link_packets_.size(), 0);
    drops_.assign(link_packets_.size(), Drop{});
    dropped_.assign(link_packets_.size(), 0);
  }
  const size_t l = link(node, dim, dir);
  if (down) {
    down_[l] = 1;
    escape_stale_ = true;  // the order and the routes are worked out when a packet first needs them
  } else {
    drops_[l] = Drop{probability, seed, 0};
  }
}

// The up*/down* order: levels by breadth-first search from node 0 over the links that work both ways,
// so that every node it reaches has a way up to node 0 and down from it; a node it cannot reach comes
// last. The routes to each destination follow from it when first asked for (escape_column).
void Network::order_escape() {
  const uint32_t n = g_.nodes();
  constexpr uint32_t kFar = ~0u;
  std::vector<uint32_t> level(n, kFar), queue{0};
  level[0] = 0;
  for (size_t i = 0; i < queue.size(); ++i) {
    const uint32_t v = queue[i];
    for (size_t port = 0; port < ports_; ++port) {
      const uint32_t w = neighbour_[v][port];
      if (level[w] != kFar || down_[v * ports_ + port] || down_[w * ports_ + (port ^ 1)]) continue;
      level[w] = level[v] + 1;
      queue.push_back(w);
    }
  }
  by_place_.resize(n);
  for (uint32_t v = 0; v < n; ++v) by_place_[v] = v;
  std::sort(by_place_.begin(), by_place_.end(),
            [&](uint32_t a, uint32_t b) { return level[a] != level[b] ? level[a] < level[b] : a < b; });
  place_.assign(n, 0);
  for (uint32_t i = 0; i < n; ++i) place_[by_place_[i]] = i;
  escape_next_.assign(n, {});
  escape_stale_ = false;
}

// The escape routes to `dst`, [node * 2 + descending]: the shortest descending distance to it (down
// links only), then the shortest legal one (ups, then downs), both over a DAG with the places in order;
// then at each node the first port (A- first) that starts a shortest route, per phase. A column costs
// the nodes times their ports, once, and only destinations that rerouted packets head for get one.
const uint8_t *Network::escape_column(uint32_t dst) {
  if (escape_stale_) order_escape();
  std::vector<uint8_t> &column = escape_next_[dst];
  if (!column.empty()) return column.data();
  const uint32_t n = g_.nodes();
  auto works = [&](uint32_t v, size_t port) { return !down_[v * ports_ + port]; };
  constexpr uint32_t kNone = ~0u;
  std::vector<uint32_t> down_dist(n), any_dist(n);
  for (uint32_t i = n; i-- > 0;) {
    const uint32_t v = by_place_[i];
    uint32_t best = v == dst ? 0 : kNone;
    for (size_t port = 0; port < ports_ && v != dst; ++port) {
      const uint32_t w = neighbour_[v][port];
      if (works(v, port) && place_[w] > place_[v] && down_dist[w] != kNone)
        best = std::min(best, down_dist[w] + 1);
    }
    down_dist[v] = best;
  }
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t v = by_place_[i];
    uint32_t best = down_dist[v];
    for (size_t port = 0; port < ports_; ++port) {
      const uint32_t w = neighbour_[v][port];
      if (works(v, port) && place_[w] < place_[v] && any_dist[w] != kNone)
        best = std::min(best, any_dist[w] + 1);
    }
    any_dist[v] = best;
  }
  column.assign(size_t(n) * 2, kNoWay);
  for (uint32_t v = 0; v < n; ++v) {
    if (v == dst) continue;
    uint8_t *next = &column[size_t(v) * 2];
    for (size_t port = 0; port < ports_; ++port) {
      const uint32_t w = neighbour_[v][port];
      if (!works(v, port)) continue;
      const bool descends = place_[w] > place_[v];
      const uint32_t via = descends ? down_dist[w] : any_dist[w];
      if (via == kNone) continue;
      if (next[0] == kNoWay && any_dist[v] != kNone && via + 1 == any_dist[v]) next[0] = uint8_t(port);
      if (next[1] == kNoWay && descends && down_dist[v] != kNone && via + 1 == down_dist[v])
        next[1] = uint8_t(port);
    }
  }
  return column.data();
}

Network::Next Network::escape_hop(Packet &p, uint32_t node) {
  if (node == p.dst) return kArrived;
  const uint8_t port = escape_column(p.dst)[size_t(node) * 2 + p.descending];
  if (port == kNoWay) return kStuck;  // p.dim and p.dir still name the link it cannot pass
  p.dim = int8_t(port / 2);
  p.dir = int8_t(port % 2 ? 1 : -1);
  return kHop;
}

// Whether the next packet across link l is dropped: the seed and the crossing's number decide
// (splitmix64), so a run's drops depend only on the order in which packets cross the link.
bool Network::drops(size_t l) {
  Drop &d = drops_[l];
  if (d.probability <= 0) return false;
  uint64_t z = d.seed + 0x9e3779b97f4a7c15ull * ++d.crossings;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return double(z >> 11) * 0x1.0p-53 < d.probability;
}

Network::Next Network::next_hop(Packet &p, uint32_t node) {
  if (p.rerouted) return escape_hop(p, node);
  const uint8_t port = dor_.empty() ? dor_port(node, p.dst) : dor_[size_t(node) * g_.nodes() + p.dst];
  if (port == kHere) return kArrived;
  if (faults_ && down_[size_t(node) * ports_ + port]) {  // its way is down: the escape channel
    p.rerouted = true;
    p.descending = false;
    p.dim = int8_t(port / 2);  // named if no escape route leads on
    p.dir = int8_t(port % 2 ? 1 : -1);
    return escape_hop(p, node);
  }
  p.dim = int8_t(port / 2);
  p.dir = int8_t(port % 2 ? 1 : -1);
  return kHop;
}

int Network::cycle() {
  ++cycles_;
  // The links' stamps: never 0, their initial value; back to 1, with the stamps cleared, every 2^32 - 1.
  const uint32_t stamp = uint32_t(cycles_ % 0xffffffffull) + 1;
  if (stamp == 1) std::fill(link_used_.begin(), link_used_.end(), 0);
  const uint32_t n = g_.nodes();
  Move *moves = moves_.data(), *end = moves;
  const size_t per = sources_per_node_, vcs = this->vcs();
  const size_t first = cycles_ % per;
  const uint32_t all = uint32_t((uint64_t(1) << per) - 1);
  const uint32_t depth = uint32_t(depth_);
  for (uint32_t v = 0; v < n; ++v) {
    if (queued_[v] == 0) continue;
    const uint8_t *dor_row = dor_.empty() ? nullptr : &dor_[size_t(v) * n];
    // This node's sources that hold packets, in their fixed order rotated by the cycle so that none
    // starves: source `first` as bit 0, the sources below it after the last.
    const uint32_t busy = busy_sources_[v];
    for (uint32_t rot = ((busy >> first) | (busy << (per - first))) & all; rot; rot &= rot - 1) {
      size_t i = size_t(__builtin_ctz(rot)) + first;
      if (i >= per) i -= per;
      Packet &at_front = front(v, i);
      // The common case first: dimension order, no fault to check, decided on the packet where it
      // waits and written there only if it moves (a packet examined may wait, for a link or a credit).
      if (const uint8_t port = at_front.rerouted || faults_ || !dor_row ? kNoWay : dor_row[at_front.dst];
          port == kHere) {
        if (accept_ && !accept_(accept_arg_, at_front)) continue;  // no room at the destination: it waits
        *end++ = Move{v, kNoBuffer, 0, uint8_t(i), false};
        continue;
      } else if (port != kNoWay) {
        const uint32_t l = uint32_t(v * ports_ + port);
        if (link_used_[l] == stamp) continue;
        const int8_t dim = int8_t(port / 2);
        uint8_t vc = dim == at_front.dim ? at_front.vc : 0;
        if (dateline_[v] >> port & 1u) vc = 1;
        const uint32_t b = uint32_t(l * vcs + vc);
        if (rings_[b].count >= depth) continue;  // no credit: it waits
        link_used_[l] = stamp;
        at_front.dim = dim;
        at_front.dir = int8_t(port % 2 ? 1 : -1);
        at_front.vc = vc;
        at_front.hops += at_front.hops < Packet::kMaxHops;
        *end++ = Move{v, b, l, uint8_t(i), false};
        continue;
      }
      Packet p = at_front;
      const int8_t dim_before = p.dim;
      const bool rerouted_before = p.rerouted;
      const Next next = next_hop(p, v);
      if (next == kArrived) {
        if (accept_ && !accept_(accept_arg_, p)) continue;  // no room at the destination: it waits
        at_front = p;
        *end++ = Move{v, kNoBuffer, 0, uint8_t(i), false};
        continue;
      }
      if (next == kStuck) {  // every way on is down: it leaves the network here
        const size_t l = link(v, p.dim < 0 ? 0 : p.dim, p.dir ? p.dir : 1);
        at_front = p;
        *end++ = Move{v, kNoBuffer, uint32_t(l), uint8_t(i), true};
        ++dropped_[l];
        continue;
      }
      const size_t l = link(v, p.dim, p.dir);
      if (link_used_[l] == stamp) continue;
      if (faults_ && drops(l)) {  // it crosses the link and is lost
        link_used_[l] = stamp;
        at_front = p;
        *end++ = Move{v, kNoBuffer, uint32_t(l), uint8_t(i), true};
        ++dropped_[l];
        continue;
      }
      uint8_t vc;
      if (p.rerouted) [[unlikely]] {
        vc = uint8_t(channels_);
        if (place_[neighbour_[v][size_t(p.dim) * 2 + (p.dir > 0)]] > place_[v]) p.descending = true;
      } else {
        vc = p.dim == dim_before ? p.vc : 0;
        if (dateline_[v] >> (size_t(p.dim) * 2 + (p.dir > 0)) & 1u) vc = 1;
      }
      const size_t b = l * vcs + vc;
      // No credit: it waits. (A link carries one packet a cycle, so nothing else joins b this cycle.)
      if (rings_[b].count >= depth) continue;
      link_used_[l] = stamp;
      p.vc = vc;
      p.hops += p.hops < Packet::kMaxHops;
      if (p.rerouted && !rerouted_before) ++rerouted_;
      at_front = p;
      *end++ = Move{v, uint32_t(b), uint32_t(l), uint8_t(i), false};
    }
  }
  for (const Move &m : std::span<const Move>(moves, end)) {
    // Copied to where it goes, then off its source: a buffer that passes its front packet on may take
    // a new one this cycle (at its tail, which is never its front).
    Packet *from;
    std::deque<Packet> *queue = nullptr;
    Ring *ring = nullptr;
    if (m.source == 0) {
      queue = &injection_[m.at];
      from = &queue->front();
    } else {
      const uint32_t b = source_buffer_[m.at * per + m.source];
      ring = &rings_[b];
      from = &ring_[size_t(b) * depth + ring->head];
    }
    if (m.to_buffer == kNoBuffer) {
      --in_flight_;
      if (m.dropped) {
        if (drop_) {
          const size_t node = m.link / ports_, rest = m.link % ports_;
          drop_(drop_arg_, *from, uint32_t(node), int(rest / 2), rest % 2 ? 1 : -1);
        }
      } else if (!accept_) {
        delivered_.push_back(*from);
      }
    } else {
      const uint32_t b = m.to_buffer, at = buffer_node_[b];
      Ring &to = rings_[b];
      uint32_t slot = to.head + to.count;
      if (slot >= depth) slot -= depth;
      Packet &p = ring_[size_t(b) * depth + slot];
      p = *from;
      const uint32_t depth_now = ++to.count;
      ++queued_[at];
      busy_sources_[at] |= 1u << buffer_source_[b];
      if (int(depth_now) > peak_depth_) peak_depth_ = int(depth_now);
      ++hops_;
      if (p.control) {
        ++control_hops_;
      } else {
        ++link_packets_[m.link];
        link_bytes_[m.link] += p.bytes;
      }
    }
    bool empty;
    if (queue) {
      queue->pop_front();
      empty = queue->empty();
    } else {
      ring->head = ring->head + 1 == depth ? 0 : ring->head + 1;
      empty = --ring->count == 0;
    }
    --queued_[m.at];
    if (empty) busy_sources_[m.at] &= ~(1u << m.source);
  }
  return int(end - moves);
}

bool Network::drain(uint64_t max_cycles) {
  for (uint64_t i = 0; i < max_cycles && in_flight_; ++i)
    if (cycle() == 0) return false;
  return in_flight_ == 0;
}

}  // namespace pamir::torus
