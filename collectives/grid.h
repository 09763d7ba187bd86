// Where a team's ranks sit on the torus, for the torus algorithms (collectives/algorithms/torus.cc):
// the grid's dimensions, every rank's coordinates, and this rank's line along each dimension as a team
// of its own, so that an algorithm written for a ring runs along one dimension of the torus and every
// message it sends crosses one link. Built once per communicator from the device's geometry
// (Context::grid_extents); selection reads that it was built as the kTorusGrid bit.
//
// A team has a grid when it holds every rank of the torus (MPI_COMM_WORLD and its duplicates, in any
// rank order): a part of the torus has lines with holes, which the ring algorithms cannot use.
#pragma once

#include <cstdint>
#include <vector>

#include "collectives/schedule.h"

namespace pamir::coll {

constexpr int kMaxGridDims = 6;  // the torus's five (A to E) and the ranks of a node (T)

// What an algorithm reads (Team::grid). Dimensions with one position are left out; T, where a node
// holds several ranks, is the last (node_dims counts the others, whose lines cross links).
struct Grid {
  int ndims = 0;
  int node_dims = 0;
  int extent[kMaxGridDims] = {};
  const int *coords = nullptr;   // team rank r's coordinate in dimension d: coords[r * ndims + d]
  Team line[kMaxGridDims] = {};  // this rank's line along d (line[d].rank: its coordinate in d)
  int coord(int r, int d) const { return coords[size_t(r) * size_t(ndims) + size_t(d)]; }
};

class GridLayout {
 public:
  GridLayout() = default;
  GridLayout(const GridLayout &) = delete;  // the view points into its own vectors
  GridLayout &operator=(const GridLayout &) = delete;
  // From the team (rank, size, its tasks and collective context), the grid's extents (T last when
  // `has_t`) and every task's coordinates (task-major, extents.size() each). False, leaving nothing, when
  // the team does not fill the grid (some position held by no rank, or by two).
  bool build(int rank, int size, uint16_t ctx, const uint32_t *tasks, const std::vector<int> &extents,
             bool has_t, const std::vector<int> &task_coords);
  const Grid *view() const { return built_ ? &view_ : nullptr; }
  void clear() { built_ = false; }

 private:
  std::vector<int> coords_;
  std::vector<int> line_ranks_[kMaxGridDims];
  std::vector<uint32_t> line_tasks_[kMaxGridDims];
  Grid view_;
  bool built_ = false;
};

}  // namespace pamir::coll
