#include "collectives/grid.h"

namespace pamir::coll {

bool GridLayout::build(int rank, int size, uint16_t ctx, const uint32_t *tasks,
                       const std::vector<int> &extents, bool has_t, const std::vector<int> &task_coords) {
  built_ = false;
  const size_t nd = extents.size();
  if (nd > size_t(kMaxGridDims) || size < 2) return false;
  size_t positions = 1;
  for (int e : extents) positions *= size_t(e);
  if (positions != size_t(size)) return false;
  // The team rank at each position (row-major over the extents), which must be held exactly once.
  std::vector<int> at(positions, -1);
  coords_.assign(size_t(size) * nd, 0);
  for (int r = 0; r < size; ++r) {
    const size_t from = size_t(tasks[r]) * nd;
    if (from + nd > task_coords.size()) return false;
    size_t index = 0;
    for (size_t d = 0; d < nd; ++d) {
      const int c = task_coords[from + d];
      coords_[size_t(r) * nd + d] = c;
      index = index * size_t(extents[d]) + size_t(c);
    }
    if (at[index] >= 0) return false;
    at[index] = r;
  }
  view_ = Grid{};
  view_.ndims = int(nd);
  view_.node_dims = int(nd) - (has_t ? 1 : 0);
  view_.coords = coords_.data();
  const int *mine = coords_.data() + size_t(rank) * nd;
  for (size_t d = 0; d < nd; ++d) {
    view_.extent[d] = extents[d];
    line_ranks_[d].clear();
    line_tasks_[d].clear();
    // Walk the line through this rank: its coordinates with d running over the ring.
    for (int k = 0; k < extents[d]; ++k) {
      size_t index = 0;
      for (size_t e = 0; e < nd; ++e) index = index * size_t(extents[e]) + size_t(e == d ? k : mine[e]);
      line_ranks_[d].push_back(at[index]);
      line_tasks_[d].push_back(tasks[at[index]]);
    }
    view_.line[d] = Team{mine[d], extents[d], ctx, line_tasks_[d].data()};
    view_.line[d].ranks = line_ranks_[d].data();
  }
  built_ = true;
  return true;
}

}  // namespace pamir::coll
