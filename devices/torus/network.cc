#include "devices/torus/network.h"

#include <algorithm>

namespace pamir::torus {

Network::Network(const Geometry &g, int depth, int channels)
    : g_(g),
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
  buffers_.resize(size_t(n) * kMaxDims * 2 * size_t(channels_));
  injection_.resize(n);
  link_packets_.assign(size_t(n) * kMaxDims * 2, 0);
  link_bytes_.assign(link_packets_.size(), 0);
  link_used_.assign(link_packets_.size(), 0);
  queued_.assign(n, 0);
  buffer_node_.assign(buffers_.size(), 0);
  for (uint32_t v = 0; v < n; ++v)
    for (int d = 0; d < g.ndims(); ++d)
      for (int dir : {-1, 1})
        for (int vc = 0; vc < channels_; ++vc)
          buffer_node_[link(v, d, dir) * size_t(channels_) + size_t(vc)] =
              neighbour_[v][size_t(d) * 2 + (dir > 0)];
  // Each node's sources in a fixed order: its injection FIFO, then each incoming link's channels.
  sources_per_node_ = 1 + size_t(g.ndims()) * 2 * size_t(channels_);
  static_assert(1 + kMaxDims * 2 * 2 <= 32, "a node's sources fit busy_sources_'s bits");
  sources_.reserve(size_t(n) * sources_per_node_);
  buffer_source_.assign(buffers_.size(), 0);
  for (uint32_t v = 0; v < n; ++v) {
    sources_.push_back(&injection_[v]);
    for (int d = 0; d < g.ndims(); ++d)
      for (int dir : {-1, 1}) {
        const uint32_t from = neighbour_[v][size_t(d) * 2 + (dir < 0)];  // whose link `dir` ends here
        for (int vc = 0; vc < channels_; ++vc) {
          const size_t b = link(from, d, dir) * size_t(channels_) + size_t(vc);
          buffer_source_[b] = uint8_t(sources_.size() - size_t(v) * sources_per_node_);
          sources_.push_back(&buffers_[b]);
        }
      }
  }
  busy_sources_.assign(n, 0);
}

void Network::inject(const Packet &p) {
  injection_[p.src].push_back(p);
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
  if (down)
    down_[l] = 1;
  else
    drops_[l] = Drop{probability, seed, 0};
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
  const Coords &c = node_coords_[node], &to = node_coords_[p.dst];
  // On along the dimension it travels until that coordinate is right (the other way round where its
  // way ahead is down).
  if (p.dim >= 0 && c.at[size_t(p.dim)] != to.at[size_t(p.dim)]) {
    if (!faults_ || !down_[link(node, p.dim, p.dir)]) return kHop;
    if (!down_[link(node, p.dim, -p.dir)]) {
      p.dir = int8_t(-p.dir);
      p.rerouted = true;
      return kHop;
    }
  }
  // The first dimension still to correct, A first, the shorter way round (Geometry's tie rule); with
  // links down, the first such dimension whose way is up, else the first the longer way round.
  int other_dim = -1, other_dir = 0;
  bool left = false, skipped = false;
  for (int i = 0; i < g_.ndims(); ++i) {
    const int k = g_.size(i), a = c.at[size_t(i)];
    const int up = ((to.at[size_t(i)] - a) % k + k) % k, down = k - up;
    if (up == 0) continue;
    left = true;
    const int dir = up < down ? 1 : down < up ? -1 : (a % 2 == 0 ? 1 : -1);
    if (!faults_ || !down_[link(node, i, dir)]) {
      if (skipped) p.rerouted = true;  // a lower dimension's way was down
      p.dim = int8_t(i);
      p.dir = int8_t(dir);
      return kHop;
    }
    skipped = true;
    if (other_dim < 0 && !down_[link(node, i, -dir)]) other_dim = i, other_dir = -dir;
  }
  if (!left) return kArrived;
  if (other_dim >= 0) {
    p.dim = int8_t(other_dim);
    p.dir = int8_t(other_dir);
    p.rerouted = true;
    return kHop;
  }
  return kStuck;
}

int Network::cycle() {
  ++cycles_;
  const uint32_t stamp = uint32_t(cycles_) + 1;                        // never 0, the links' initial value
  if (stamp == 1) std::fill(link_used_.begin(), link_used_.end(), 0);  // the count wrapped
  const uint32_t n = g_.nodes();
  moves_.clear();
  const size_t per = sources_per_node_;
  const size_t first = cycles_ % per;
  for (uint32_t v = 0; v < n; ++v) {
    if (queued_[v] == 0) continue;
    // This node's sources that hold packets, in their fixed order rotated by the cycle so that none
    // starves: the bits from `first` up, then those below it.
    std::deque<Packet> *const *sources = &sources_[size_t(v) * per];
    const uint32_t busy = busy_sources_[v];
    for (uint32_t part : {busy & ~((1u << first) - 1), busy & ((1u << first) - 1)})
      for (; part; part &= part - 1) {
        const size_t i = size_t(__builtin_ctz(part));
        std::deque<Packet> *q = sources[i];
        Packet p = q->front();
        const int8_t dim_before = p.dim;
        const bool rerouted_before = p.rerouted;
        const Next next = next_hop(p, v);
        if (next == kArrived) {
          if (accept_ && !accept_(accept_arg_, p)) continue;  // no room at the destination: it waits
          moves_.push_back(Move{q, p, nullptr, 0, v, 0, false, uint8_t(i)});
          continue;
        }
        if (next == kStuck) {  // every way on is down: it leaves the network here
          moves_.push_back(
              Move{q, p, nullptr, link(v, p.dim < 0 ? 0 : p.dim, p.dir ? p.dir : 1), v, 0, true, uint8_t(i)});
          continue;
        }
        const size_t l = link(v, p.dim, p.dir);
        if (link_used_[l] == stamp) continue;
        if (faults_ && drops(l)) {  // it crosses the link and is lost
          link_used_[l] = stamp;
          moves_.push_back(Move{q, p, nullptr, l, v, 0, true, uint8_t(i)});
          ++dropped_[l];
          continue;
        }
        const int k = g_.size(p.dim), a = node_coords_[v].at[size_t(p.dim)];
        const bool dateline = (p.dir > 0 && a == k - 1) || (p.dir < 0 && a == 0);
        uint8_t vc = p.dim == dim_before ? p.vc : 0;
        if (dateline && channels_ > 1) vc = 1;
        const size_t b = l * size_t(channels_) + vc;
        // No credit: it waits. (A link carries one packet a cycle, so nothing else joins b this cycle.)
        if (int(buffers_[b].size()) >= depth_) continue;
        link_used_[l] = stamp;
        p.vc = vc;
        ++p.hops;
        if (p.rerouted && !rerouted_before) ++rerouted_;
        moves_.push_back(Move{q, p, &buffers_[b], l, v, b, false, uint8_t(i)});
      }
  }
  for (Move &m : moves_) {
    m.from->pop_front();
    --queued_[m.at];
    if (m.from->empty()) busy_sources_[m.at] &= ~(1u << m.source);
    if (m.dropped) {
      --in_flight_;
      if (drop_) {
        const size_t node = m.link / (size_t(kMaxDims) * 2), rest = m.link % (size_t(kMaxDims) * 2);
        drop_(drop_arg_, m.p, uint32_t(node), int(rest / 2), rest % 2 ? 1 : -1);
      }
      continue;
    }
    if (!m.to) {
      if (!accept_) delivered_.push_back(m.p);
      --in_flight_;
      continue;
    }
    m.to->push_back(m.p);
    ++queued_[buffer_node_[m.to_buffer]];
    busy_sources_[buffer_node_[m.to_buffer]] |= 1u << buffer_source_[m.to_buffer];
    peak_depth_ = std::max(peak_depth_, int(m.to->size()));
    ++hops_;
    if (m.p.control) {
      ++control_hops_;
    } else {
      ++link_packets_[m.link];
      link_bytes_[m.link] += m.p.bytes;
    }
  }
  return int(moves_.size());
}

bool Network::drain(uint64_t max_cycles) {
  for (uint64_t i = 0; i < max_cycles && in_flight_; ++i)
    if (cycle() == 0) return false;
  return in_flight_ == 0;
}

}  // namespace pamir::torus
