#include "collectives/nodes.h"

#include <unordered_map>

namespace pamir::coll {

bool NodeLayout::build(int rank, int size, uint16_t ctx, const uint32_t *tasks,
                       const std::vector<uint32_t> &task_node) {
  built_ = false;
  node_of_.assign(size_t(size), 0);
  local_ranks_.clear();
  leader_ranks_.clear();
  std::unordered_map<uint32_t, int> number;  // job node -> this team's node
  std::vector<int> members;                  // ranks per node
  for (int r = 0; r < size; ++r) {
    if (tasks[r] >= task_node.size()) return false;
    auto [it, fresh] = number.emplace(task_node[tasks[r]], int(leader_ranks_.size()));
    if (fresh) {
      leader_ranks_.push_back(r);
      members.push_back(0);
    }
    node_of_[size_t(r)] = it->second;
    ++members[size_t(it->second)];
  }
  const int mine = node_of_[size_t(rank)];
  ordered_ = true;
  groups_ = false;
  for (int r = 0; r < size; ++r) {
    if (node_of_[size_t(r)] == mine) local_ranks_.push_back(r);
    // Consecutive ranks by node: a rank is on its predecessor's node or starts the next one.
    if (r > 0 && node_of_[size_t(r)] != node_of_[size_t(r - 1)] &&
        node_of_[size_t(r)] != node_of_[size_t(r - 1)] + 1)
      ordered_ = false;
  }
  for (int m : members) groups_ |= m > 1;
  local_tasks_.clear();
  for (int r : local_ranks_) local_tasks_.push_back(tasks[r]);
  leader_tasks_.clear();
  for (int r : leader_ranks_) leader_tasks_.push_back(tasks[r]);

  view_.count = int(leader_ranks_.size());
  view_.ordered = ordered_;
  view_.node_of = node_of_.data();
  view_.local_ranks = local_ranks_.data();
  view_.leader_ranks = leader_ranks_.data();
  int local_rank = 0;
  while (local_ranks_[size_t(local_rank)] != rank) ++local_rank;
  view_.local = Team{local_rank, int(local_ranks_.size()), ctx, local_tasks_.data()};
  view_.local.ranks = local_ranks_.data();
  view_.leaders = Team{local_rank == 0 ? mine : -1, view_.count, ctx, leader_tasks_.data()};
  view_.leaders.ranks = leader_ranks_.data();
  built_ = true;
  return true;
}

}  // namespace pamir::coll
