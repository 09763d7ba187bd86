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
  reserved_.assign(buffers_.size(), 0);
  // Each node's sources in a fixed order: its injection FIFO, then each incoming link's channels.
  sources_per_node_ = 1 + size_t(g.ndims()) * 2 * size_t(channels_);
  sources_.reserve(size_t(n) * sources_per_node_);
  for (uint32_t v = 0; v < n; ++v) {
    sources_.push_back(&injection_[v]);
    for (int d = 0; d < g.ndims(); ++d)
      for (int dir : {-1, 1}) {
        const uint32_t from = neighbour_[v][size_t(d) * 2 + (dir < 0)];  // whose link `dir` ends here
        for (int vc = 0; vc < channels_; ++vc)
          sources_.push_back(&buffers_[link(from, d, dir) * size_t(channels_) + size_t(vc)]);
      }
  }
}

void Network::inject(const Packet &p) {
  injection_[p.src].push_back(p);
  ++in_flight_;
}

bool Network::next_hop(Packet &p, uint32_t node) const {
  const Coords &c = node_coords_[node], &to = node_coords_[p.dst];
  if (p.dim >= 0 && c.at[size_t(p.dim)] != to.at[size_t(p.dim)]) return true;
  for (int i = p.dim + 1; i < g_.ndims(); ++i) {
    const int k = g_.size(i), a = c.at[size_t(i)];
    const int up = ((to.at[size_t(i)] - a) % k + k) % k, down = k - up;
    if (up == 0) continue;
    p.dim = int8_t(i);
    p.dir = int8_t(up < down ? 1 : down < up ? -1 : (a % 2 == 0 ? 1 : -1));  // Geometry's tie rule
    return true;
  }
  return false;
}

int Network::cycle() {
  ++cycles_;
  const uint32_t n = g_.nodes();
  moves_.clear();
  std::fill(link_used_.begin(), link_used_.end(), 0);
  std::fill(reserved_.begin(), reserved_.end(), 0);
  const size_t per = sources_per_node_;
  for (uint32_t v = 0; v < n; ++v) {
    // This node's sources in their fixed order, rotated by the cycle so that none starves.
    std::deque<Packet> *const *sources = &sources_[size_t(v) * per];
    const size_t first = cycles_ % per;
    for (size_t s = 0; s < per; ++s) {
      std::deque<Packet> *q = sources[(first + s) % per];
      if (q->empty()) continue;
      Packet p = q->front();
      const int8_t dim_before = p.dim;
      if (!next_hop(p, v)) {
        if (accept_ && !accept_(accept_arg_, p)) continue;  // no room at the destination: it waits
        moves_.push_back(Move{q, p, nullptr, 0});
        continue;
      }
      const size_t l = link(v, p.dim, p.dir);
      if (link_used_[l]) continue;
      const int k = g_.size(p.dim), a = node_coords_[v].at[size_t(p.dim)];
      const bool dateline = (p.dir > 0 && a == k - 1) || (p.dir < 0 && a == 0);
      uint8_t vc = p.dim == dim_before ? p.vc : 0;
      if (dateline && channels_ > 1) vc = 1;
      const size_t b = l * size_t(channels_) + vc;
      if (int(buffers_[b].size()) + reserved_[b] >= depth_) continue;  // no credit: it waits
      link_used_[l] = 1;
      ++reserved_[b];
      p.vc = vc;
      ++p.hops;
      moves_.push_back(Move{q, p, &buffers_[b], l});
    }
  }
  for (Move &m : moves_) {
    m.from->pop_front();
    if (!m.to) {
      if (!accept_) delivered_.push_back(m.p);
      --in_flight_;
      continue;
    }
    m.to->push_back(m.p);
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
