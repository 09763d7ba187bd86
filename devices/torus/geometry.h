// The emulated torus's geometry (issue 20, section 2): its dimensions, where each rank sits, and the
// route a packet takes between two nodes. Pure arithmetic, shared by the engine (which moves packets
// along the routes) and by the tools that show a job's layout; knows nothing of packets or MPI.
//
// A torus has 1 to 5 dimensions, A to E (Blue Gene/Q's names), each a ring of its size; every node may
// hold several ranks, numbered along a sixth coordinate T. A map is a permutation of the dimensions'
// letters and T, read as the order in which ranks fill the machine: the last letter varies fastest.
// "ABCDET" (the default) puts consecutive ranks on one node, then along E, D, ...
//
// Routing is dimension-ordered, A first, and along each dimension the shorter way round. When both ways
// are as short (an even ring, the destination exactly opposite), a packet goes in the + direction from
// a node whose coordinate in that dimension is even and in the - direction from an odd one, so that the
// half-way traffic of a shift spreads over both directions instead of loading one.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace pamir::torus {

constexpr int kMaxDims = 5;

struct Coords {
  std::array<int, kMaxDims> at{};  // the node's coordinate in each dimension (unused ones 0)
  int t = 0;                       // the rank's place inside its node
  bool operator==(const Coords &o) const { return at == o.at && t == o.t; }
};

// One step of a route: along dimension `dim`, in direction +1 or -1.
struct Hop {
  int dim;
  int dir;
};

class Geometry {
 public:
  // A geometry for `ranks` ranks from a dimension list ("4x4x2x2", empty: a balanced factorisation of
  // the job, one rank per node) and a map ("ABCDET", empty: the default order). False with the reason,
  // which names the setting (`dims_name`, `map_name`), when the text is not valid or does not fit the job.
  bool make(uint32_t ranks, const std::string &dims, const std::string &map, std::string &why,
            const char *dims_name = "PAMIR_TORUS_DIMS", const char *map_name = "PAMIR_TORUS_MAP");

  int ndims() const { return ndims_; }
  int size(int dim) const { return dims_[size_t(dim)]; }
  int per_node() const { return per_node_; }
  uint32_t nodes() const { return nodes_; }
  uint32_t ranks() const { return nodes_ * uint32_t(per_node_); }
  const std::string &map() const { return map_; }
  // "4x4x2x2 (T 2), map ABCDT": what pamir_info and the report print.
  std::string describe() const;

  Coords coords(uint32_t rank) const;
  uint32_t rank(const Coords &c) const;
  // The node of a rank, numbered with A slowest and the last dimension fastest.
  uint32_t node(const Coords &c) const;
  uint32_t node_of(uint32_t rank) const { return node(coords(rank)); }

  // The hops of the route from node coordinates `from` to `to` (T ignored), in order.
  std::vector<Hop> route(const Coords &from, const Coords &to) const;
  int hops(const Coords &from, const Coords &to) const;
  // The link the route's first hop leaves on, numbered dim * 2 + (dir > 0); -1 between ranks of one node.
  int first_link(const Coords &from, const Coords &to) const;
  // The coordinates one hop away.
  Coords step(Coords c, const Hop &h) const;

  // The factorisation a job of `ranks` ranks gets without PAMIR_TORUS_DIMS: at most five non-increasing
  // sizes whose largest is as small as possible, and among those the fewest dimensions.
  static std::vector<int> balanced(uint32_t ranks);

 private:
  int ndims_ = 0;
  std::array<int, kMaxDims> dims_{};
  int per_node_ = 1;
  uint32_t nodes_ = 0;
  std::string map_;
  // Rank order: order_[0] varies slowest; each entry a dimension index, or kMaxDims for T.
  std::vector<int> order_;
  int extent(int d) const { return d == kMaxDims ? per_node_ : dims_[size_t(d)]; }
};

}  // namespace pamir::torus
