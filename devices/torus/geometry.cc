#include "devices/torus/geometry.h"

#include <algorithm>
#include <cstdlib>
#include <functional>

namespace pamir::torus {

namespace {

constexpr char kLetters[] = "ABCDE";

// "4x4x2" -> {4, 4, 2}; false when it is not 1 to 5 positive sizes separated by 'x'.
bool parse_dims(const std::string &text, std::vector<int> &out) {
  out.clear();
  size_t at = 0;
  while (at <= text.size()) {
    const size_t x = text.find('x', at);
    const std::string part = text.substr(at, x == std::string::npos ? std::string::npos : x - at);
    if (part.empty() || part.size() > 6 || part.find_first_not_of("0123456789") != std::string::npos)
      return false;
    const int v = std::atoi(part.c_str());
    if (v < 1) return false;
    out.push_back(v);
    if (x == std::string::npos) break;
    at = x + 1;
  }
  return !out.empty() && out.size() <= size_t(kMaxDims);
}

}  // namespace

std::vector<int> Geometry::balanced(uint32_t ranks) {
  // Every non-increasing factorisation into at most five factors (sizes above 1), searched depth first.
  std::vector<int> best, cur;
  std::function<void(uint32_t, int)> search = [&](uint32_t rest, int cap) {
    if (rest == 1) {
      if (cur.empty()) cur.push_back(1);
      const int largest = cur.front();
      if (best.empty() || largest < best.front() || (largest == best.front() && cur.size() < best.size()))
        best = cur;
      if (cur.size() == 1 && cur.front() == 1) cur.clear();
      return;
    }
    if (cur.size() == size_t(kMaxDims)) return;
    for (int f = std::min<uint32_t>(uint32_t(cap), rest); f >= 2; --f)
      if (rest % uint32_t(f) == 0) {
        cur.push_back(f);
        search(rest / uint32_t(f), f);
        cur.pop_back();
      }
  };
  search(ranks ? ranks : 1, int(std::min<uint32_t>(ranks ? ranks : 1, 1u << 20)));
  return best;
}

bool Geometry::make(uint32_t ranks, const std::string &dims, const std::string &map, std::string &why,
                    const char *dims_name, const char *map_name) {
  std::vector<int> d;
  if (dims.empty()) {
    d = balanced(ranks);
    if (d.empty()) {
      why = std::string(dims_name) + " is not set and " + std::to_string(ranks) +
            " ranks have no factorisation into five dimensions or fewer: set it (e.g. 4x4x2x2)";
      return false;
    }
  } else if (!parse_dims(dims, d)) {
    why = std::string(dims_name) + "=\"" + dims +
          "\" is not valid: 1 to 5 sizes of at least 1, joined by 'x' " + "(e.g. 4x4x2x2)";
    return false;
  }
  uint64_t n = 1;
  for (int v : d) n *= uint64_t(v);
  if (ranks == 0 || n > ranks || ranks % n != 0) {
    why = std::string(dims_name) + "=\"" + (dims.empty() ? std::string("(default)") : dims) + "\" has " +
          std::to_string(n) + " nodes, which does not fit a job of " + std::to_string(ranks) +
          " ranks: the job must be a multiple of the nodes (several ranks per node)";
    return false;
  }
  ndims_ = int(d.size());
  dims_.fill(1);
  for (size_t i = 0; i < d.size(); ++i) dims_[i] = d[i];
  nodes_ = uint32_t(n);
  per_node_ = int(ranks / n);

  // The map: the first ndims letters and T, each once, in any order.
  std::string expect = std::string(kLetters, size_t(ndims_)) + "T";
  const std::string m = map.empty() ? expect : map;
  std::string sorted_m = m, sorted_e = expect;
  std::sort(sorted_m.begin(), sorted_m.end());
  std::sort(sorted_e.begin(), sorted_e.end());
  if (sorted_m != sorted_e) {
    why = std::string(map_name) + "=\"" + map + "\" is not valid: with " + std::to_string(ndims_) +
          " dimensions it must name " + expect + " each once, in the order ranks fill them (last fastest)";
    return false;
  }
  map_ = m;
  order_.clear();
  for (char ch : m) order_.push_back(ch == 'T' ? kMaxDims : int(ch - 'A'));
  return true;
}

std::string Geometry::describe() const {
  std::string s;
  for (int i = 0; i < ndims_; ++i) s += (i ? "x" : "") + std::to_string(dims_[size_t(i)]);
  s += " (" + std::to_string(nodes_) + " nodes, " + std::to_string(per_node_) + " rank" +
       (per_node_ == 1 ? "" : "s") + " per node), map " + map_;
  return s;
}

Coords Geometry::coords(uint32_t rank) const {
  Coords c;
  for (size_t k = order_.size(); k-- > 0;) {
    const int d = order_[k];
    const uint32_t e = uint32_t(extent(d));
    const int v = int(rank % e);
    rank /= e;
    if (d == kMaxDims) {
      c.t = v;
    } else {
      c.at[size_t(d)] = v;
    }
  }
  return c;
}

uint32_t Geometry::rank(const Coords &c) const {
  uint32_t r = 0;
  for (int d : order_) r = r * uint32_t(extent(d)) + uint32_t(d == kMaxDims ? c.t : c.at[size_t(d)]);
  return r;
}

uint32_t Geometry::node(const Coords &c) const {
  uint32_t n = 0;
  for (int i = 0; i < ndims_; ++i) n = n * uint32_t(dims_[size_t(i)]) + uint32_t(c.at[size_t(i)]);
  return n;
}

std::vector<Hop> Geometry::route(const Coords &from, const Coords &to) const {
  std::vector<Hop> out;
  for (int i = 0; i < ndims_; ++i) {
    const int k = dims_[size_t(i)], a = from.at[size_t(i)], b = to.at[size_t(i)];
    const int up = ((b - a) % k + k) % k, down = k - up;
    if (up == 0) continue;
    int dir = up < down ? 1 : down < up ? -1 : (a % 2 == 0 ? 1 : -1);
    const int n = dir > 0 ? up : down;
    for (int h = 0; h < n; ++h) out.push_back(Hop{i, dir});
  }
  return out;
}

int Geometry::first_link(const Coords &from, const Coords &to) const {
  for (int i = 0; i < ndims_; ++i) {
    const int k = dims_[size_t(i)], a = from.at[size_t(i)], b = to.at[size_t(i)];
    const int up = ((b - a) % k + k) % k, down = k - up;
    if (up == 0) continue;
    const bool plus = up < down || (up == down && a % 2 == 0);
    return i * 2 + (plus ? 1 : 0);
  }
  return -1;
}

int Geometry::hops(const Coords &from, const Coords &to) const {
  int n = 0;
  for (int i = 0; i < ndims_; ++i) {
    const int k = dims_[size_t(i)], up = ((to.at[size_t(i)] - from.at[size_t(i)]) % k + k) % k;
    n += std::min(up, k - up);
  }
  return n;
}

Coords Geometry::step(Coords c, const Hop &h) const {
  const int k = dims_[size_t(h.dim)];
  c.at[size_t(h.dim)] = ((c.at[size_t(h.dim)] + h.dir) % k + k) % k;
  return c;
}

}  // namespace pamir::torus
