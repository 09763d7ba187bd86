// The torus algorithms (issue 20): broadcasts and reductions along the torus's dimensions, for a team
// that fills the torus (Team::grid, the kTorusGrid bit). Each phase runs along one dimension's lines,
// each line a ring of neighbours, so every message crosses exactly one link and the lines of one phase
// load disjoint links. T, the ranks of one node, is a dimension too: crossing it costs no link.
//
// torus (bcast): dimension-ordered, A first and T last. In phase d the ranks that hold the data (those
// on the root's coordinates in every later dimension) pass it both ways round their line of d, in
// segments, each rank forwarding segment k while segment k+1 is on its way: ceil((k-1)/2) hops a line
// instead of the k-1 of a chain, and the message crosses each link once.
//
// torus_colours (bcast): the message is cut into one colour per link dimension, and colour c runs the
// dimension-ordered broadcast starting at dimension c (c, c+1, ..., then T). The colours' phases load
// different dimensions' links at once: on a D-dimensional torus every link direction carries a share,
// which is how Blue Gene/Q's MPI broadcast large messages ("rectangle" broadcasts).
//
// torus (reduce): the dimension-ordered broadcast reversed: T first, then each line reduces both ways
// round to the root's coordinate, in segments. Commutative operations only (the lines combine in no
// rank order).
//
// torus (allreduce): a reduce-scatter along every dimension in turn (T first, so the vector is split
// before it crosses a link), each a ring of the line over the part the previous dimensions left, then
// the allgathers in reverse. Every rank sends about 2n in all, as a ring does, but in D rings of
// k^(1/D) ranks: D * 2(k-1) steps instead of 2(p-1).
//
// torus_colours (allreduce): the vector cut into one colour per link dimension, colour c's dimensions
// rotated to start at c; the colours' ring steps are posted together.
#include <algorithm>
#include <cstring>

#include "collectives/algorithms/algorithms.h"
#include "collectives/grid.h"
#include "collectives/scratch.h"
#include "pami/request.h"

namespace pamir::coll {

namespace {

constexpr size_t kSegment = 64 * 1024;

// Colour c's dimension order: the link dimensions starting at c, then T.
struct Order {
  int n = 0;
  int dim[kMaxGridDims];
};
Order order_of(const Grid &g, int colour) {
  Order o;
  for (int i = 0; i < g.node_dims; ++i) o.dim[o.n++] = (colour + i) % g.node_dims;
  for (int d = g.node_dims; d < g.ndims; ++d) o.dim[o.n++] = d;
  return o;
}

// Whether team rank r shares the root's coordinates in o's dimensions from position `from` on.
bool on_root_lines(const Grid &g, const Order &o, int from, int r, int root) {
  for (int i = from; i < o.n; ++i)
    if (g.coord(r, o.dim[i]) != g.coord(root, o.dim[i])) return false;
  return true;
}

// On a line of k ranks whose data starts at `src`: where position `pos` gets it from (the data goes
// both ways round, the + way to the nearer half) and where it passes it to (up to two).
struct Flow {
  int from = -1;
  int to[2] = {-1, -1};
};
Flow line_flow(int pos, int src, int k) {
  Flow f;
  const int v = (pos - src + k) % k, half = k / 2;
  auto at = [&](int rel) { return (rel + src) % k; };
  if (v == 0) {
    if (k > 1) f.to[0] = at(1);
    if (k - 1 > half) f.to[1] = at(k - 1);
  } else if (v <= half) {
    f.from = at(v - 1);
    if (v < half) f.to[0] = at(v + 1);
  } else {
    f.from = at((v + 1) % k);
    if (v > half + 1) f.to[0] = at(v - 1);
  }
  return f;
}

Task bcast_colours(Sched &s, Args a, int colours) {
  const Grid &g = *s.team.grid;
  const int root = a.root;
  if (s.team.size == 1 || a.bytes == 0) co_return 0;
  auto *buf = static_cast<unsigned char *>(a.recvbuf);
  Order order[kMaxGridDims];
  for (int c = 0; c < colours; ++c) order[c] = order_of(g, c);
  const Team whole = s.team;
  for (int phase = 0; phase < order[0].n; ++phase) {
    // Each colour's line this phase, if this rank is on one that has the data.
    Flow flow[kMaxGridDims];
    bool in[kMaxGridDims] = {};
    size_t longest = 0;
    for (int c = 0; c < colours; ++c) {
      const int d = order[c].dim[phase];
      in[c] = on_root_lines(g, order[c], phase + 1, whole.rank, root);
      if (in[c]) flow[c] = line_flow(g.line[d].rank, g.coord(root, d), g.extent[d]);
      longest = std::max(longest, block_start(a.bytes, colours, c + 1) - block_start(a.bytes, colours, c));
    }
    // Segment by segment, colour by colour: receive it, pass it on. A receive waits for the sends
    // posted before it too, so no rank that receives has more than one segment per colour in flight.
    int posted = 0;
    for (size_t off = 0; off < longest; off += kSegment)
      for (int c = 0; c < colours; ++c) {
        if (!in[c]) continue;
        const size_t lo = block_start(a.bytes, colours, c), len = block_start(a.bytes, colours, c + 1) - lo;
        if (off >= len) continue;
        const size_t n = std::min(kSegment, len - off);
        Sched::SubTeam line(s, g.line[order[c].dim[phase]]);
        if (flow[c].from >= 0) {
          if (int e = co_await s.recv(flow[c].from, buf + lo + off, n)) co_return e;
          posted = 0;
        }
        for (int to : flow[c].to)
          if (to >= 0) s.isend(to, buf + lo + off, n), ++posted;
        // A source receives nothing that would wait for its sends: it waits every window of them.
        if (posted >= Sched::kMaxPending - 2) {
          if (int e = co_await s.wait()) co_return e;
          posted = 0;
        }
      }
    if (int e = co_await s.wait()) co_return e;
  }
  co_return 0;
}

Task allreduce_colours(Sched &s, Args a, int colours) {
  const Grid &g = *s.team.grid;
  const Reduction &op = a.op;
  const size_t count = a.count, ext = op.extent;
  auto *buf = static_cast<unsigned char *>(a.recvbuf);
  if (!a.in_place && count) std::memcpy(buf, a.sendbuf, count * ext);
  if (s.team.size == 1 || count == 0) co_return 0;
  // Colour c's dimensions, T first: the reduce-scatters shrink the vector before it crosses a link.
  Order order[kMaxGridDims];
  for (int c = 0; c < colours; ++c) {
    const Order o = order_of(g, c);
    order[c].n = o.n;
    const int t = o.n - g.node_dims;  // 0 or 1
    for (int i = 0; i < t; ++i) order[c].dim[i] = o.dim[g.node_dims + i];
    for (int i = 0; i < g.node_dims; ++i) order[c].dim[t + i] = o.dim[i];
  }
  // Each colour's part [lo, hi) before each phase (elements), and a receive area per colour.
  size_t lo[kMaxGridDims][kMaxGridDims + 1], hi[kMaxGridDims][kMaxGridDims + 1];
  size_t tmp_at[kMaxGridDims + 1] = {};
  for (int c = 0; c < colours; ++c) {
    lo[c][0] = block_start(count, colours, c);
    hi[c][0] = block_start(count, colours, c + 1);
    tmp_at[c + 1] = tmp_at[c] + ((hi[c][0] - lo[c][0]) / 2 + 1) * ext;
  }
  Scratch scratch(tmp_at[colours]);
  unsigned char *tmp = scratch.get();
  if (!tmp) co_return int(Err::intern);
  const int phases = order[0].n;
  // A colour's block b of phase i: elements first(c, i, b) .. first(c, i, b + 1).
  auto first = [&](int c, int i, int b) {
    const int k = g.extent[order[c].dim[i]];
    return lo[c][i] + block_start(hi[c][i] - lo[c][i], k, b);
  };
  auto bytes = [&](int c, int i, int b) { return (first(c, i, b + 1) - first(c, i, b)) * ext; };
  auto steps = [&](int i) {
    int n = 0;
    for (int c = 0; c < colours; ++c) n = std::max(n, g.extent[order[c].dim[i]] - 1);
    return n;
  };
  // Step j of every colour's ring in phase i, posted together: block pos-j-lag to the right, block
  // pos-j-lag-1 from the left (into the colour's receive area, or in place).
  auto post = [&](int i, int j, int lag, bool into_tmp) {
    for (int c = 0; c < colours; ++c) {
      const int d = order[c].dim[i], k = g.extent[d], pos = g.line[d].rank;
      if (j >= k - 1) continue;
      const int sb = (pos - j - lag + 2 * k) % k, rb = (sb - 1 + k) % k;
      Sched::SubTeam line(s, g.line[d]);
      s.irecv((pos - 1 + k) % k, into_tmp ? tmp + tmp_at[c] : buf + first(c, i, rb) * ext, bytes(c, i, rb));
      s.isend((pos + 1) % k, buf + first(c, i, sb) * ext, bytes(c, i, sb));
    }
  };
  // Ring reduce-scatters: in step j, pass on block pos-j-1 and add the left neighbour's block pos-j-2,
  // so that after k-1 steps this rank holds block pos reduced over the line.
  for (int i = 0; i < phases; ++i) {
    for (int j = 0; j < steps(i); ++j) {
      post(i, j, 1, true);
      if (int e = co_await s.wait()) co_return e;
      for (int c = 0; c < colours; ++c) {
        const int d = order[c].dim[i], k = g.extent[d], pos = g.line[d].rank;
        if (j >= k - 1) continue;
        const int rb = (pos - j - 2 + 2 * k) % k;
        op.apply(tmp + tmp_at[c], buf + first(c, i, rb) * ext, first(c, i, rb + 1) - first(c, i, rb), op.arg);
      }
    }
    for (int c = 0; c < colours; ++c) {
      const int pos = g.line[order[c].dim[i]].rank;
      lo[c][i + 1] = first(c, i, pos);
      hi[c][i + 1] = first(c, i, pos + 1);
    }
  }
  // Ring allgathers in reverse: in step j, pass on block pos-j and take block pos-j-1 from the left.
  for (int i = phases - 1; i >= 0; --i)
    for (int j = 0; j < steps(i); ++j) {
      post(i, j, 0, false);
      if (int e = co_await s.wait()) co_return e;
    }
  co_return 0;
}

}  // namespace

Task bcast_torus(Sched &s, Args a) {
  return bcast_colours(s, a, 1);
}

Task bcast_torus_colours(Sched &s, Args a) {
  return bcast_colours(s, a, std::max(1, s.team.grid->node_dims));
}

Task allreduce_torus(Sched &s, Args a) {
  return allreduce_colours(s, a, 1);
}

Task allreduce_torus_colours(Sched &s, Args a) {
  return allreduce_colours(s, a, std::max(1, s.team.grid->node_dims));
}

Task reduce_torus(Sched &s, Args a) {
  const Grid &g = *s.team.grid;
  const Reduction &op = a.op;
  const size_t count = a.count, ext = op.extent, bytes = count * ext;
  const int root = a.root;
  const bool is_root = s.team.rank == root;
  const void *mine = is_root && a.in_place ? a.recvbuf : a.sendbuf;
  if (s.team.size == 1 || count == 0) {
    if (is_root && !a.in_place && bytes) std::memcpy(a.recvbuf, a.sendbuf, bytes);
    co_return 0;
  }
  // acc: this rank's partial result (the root's is its receive buffer); tmp: a segment from a child.
  const size_t seg = std::max<size_t>(1, kSegment / ext);
  Scratch s1(is_root ? 0 : bytes), s2(std::min(count, seg) * ext);
  unsigned char *acc = is_root ? static_cast<unsigned char *>(a.recvbuf) : s1.get();
  unsigned char *tmp = s2.get();
  if (!acc || !tmp) co_return int(Err::intern);
  if (acc != mine) std::memcpy(acc, mine, bytes);
  const Order o = order_of(g, 0);
  // The broadcast's phases backwards: the last (T) first, each line reducing towards the root's
  // coordinate along the broadcast's flow reversed.
  for (int phase = o.n - 1; phase >= 0; --phase) {
    if (!on_root_lines(g, o, phase + 1, s.team.rank, root)) continue;
    const int d = o.dim[phase];
    const Flow f = line_flow(g.line[d].rank, g.coord(root, d), g.extent[d]);
    Sched::SubTeam line(s, g.line[d]);
    for (size_t off = 0; off < count; off += seg) {
      const size_t n = std::min(seg, count - off);
      for (int from : f.to) {
        if (from < 0) continue;
        if (int e = co_await s.recv(from, tmp, n * ext)) co_return e;
        op.apply(tmp, acc + off * ext, n, op.arg);
      }
      if (f.from >= 0) s.isend(f.from, acc + off * ext, n * ext);
      // A line's end receives nothing that would wait for its sends: it waits every window of them.
      if (f.to[0] < 0 && f.to[1] < 0 && (off / seg + 1) % (Sched::kMaxPending / 2) == 0)
        if (int e = co_await s.wait()) co_return e;
    }
    if (int e = co_await s.wait()) co_return e;
    if (f.from >= 0) break;  // this rank's part has gone towards the root
  }
  co_return 0;
}

}  // namespace pamir::coll
