// Where a team's ranks live, for the hierarchical algorithms (collectives/algorithms/hierarchical.cc):
// one leader per node, the node's own ranks inside it (shared memory), the leaders between nodes (the
// fabric). Built once per communicator, from the node of every task (Bootstrap::nodes()); selection
// reads what it found as mask bits (kNodeGroups, kNodeOrdered, kOneNode).
#pragma once

#include <cstdint>
#include <vector>

#include "collectives/schedule.h"

namespace pamir::coll {

// What an algorithm reads (Team::nodes). Nodes are numbered in the order of their lowest rank, so a
// node's leader is its lowest rank and the leaders are in rank order.
struct Nodes {
  int count = 0;                      // nodes the team spans
  bool ordered = false;               // every node's ranks are consecutive
  const int *node_of = nullptr;       // team rank -> its node
  const int *local_ranks = nullptr;   // this rank's node: its team ranks, ascending (the leader first)
  const int *leader_ranks = nullptr;  // node -> its leader's team rank
  Team local{};    // the ranks of this rank's node (local.rank: this rank's place among them)
  Team leaders{};  // the leaders, one per node (leaders.rank: this rank's node if it leads, else -1)
};

class NodeLayout {
 public:
  NodeLayout() = default;
  NodeLayout(const NodeLayout &) = delete;  // the view points into its own vectors
  NodeLayout &operator=(const NodeLayout &) = delete;
  // From the team (rank, size, its tasks and collective context) and the node of every task of the job
  // (indexed by task). False, leaving nothing, when a task's node is unknown.
  bool build(int rank, int size, uint16_t ctx, const uint32_t *tasks, const std::vector<uint32_t> &task_node);
  const Nodes *view() const { return built_ ? &view_ : nullptr; }
  void clear() { built_ = false; }
  bool one_node() const { return view_.count == 1; }
  // Every node's ranks are one run of consecutive ranks.
  bool ordered() const { return ordered_; }
  // Some node holds two or more ranks.
  bool groups() const { return groups_; }

 private:
  std::vector<int> node_of_, local_ranks_, leader_ranks_;
  std::vector<uint32_t> local_tasks_, leader_tasks_;
  Nodes view_;
  bool built_ = false, ordered_ = false, groups_ = false;
};

}  // namespace pamir::coll
