// The node layout of a team (collectives/nodes.h): what the hierarchical algorithms and the mask bits
// read, for block and round-robin placements, a node of one rank, and a team that is a part of the job.
#include <gtest/gtest.h>

#include <vector>

#include "collectives/nodes.h"

using pamir::coll::NodeLayout;
using pamir::coll::Nodes;

namespace {

std::vector<int> ranks_of(const int *p, int n) {
  return std::vector<int>(p, p + n);
}

}  // namespace

TEST(CollNodes, BlocksOfTwo) {
  // Job tasks 0..5 on job nodes 7, 7, 3, 3, 9, 9; the team is the whole job.
  const std::vector<uint32_t> node_of_task = {7, 7, 3, 3, 9, 9};
  const uint32_t tasks[] = {0, 1, 2, 3, 4, 5};
  for (int rank = 0; rank < 6; ++rank) {
    NodeLayout l;
    ASSERT_TRUE(l.build(rank, 6, 11, tasks, node_of_task));
    const Nodes &n = *l.view();
    EXPECT_EQ(n.count, 3);
    EXPECT_TRUE(l.ordered() && n.ordered);
    EXPECT_TRUE(l.groups());
    EXPECT_FALSE(l.one_node());
    EXPECT_EQ(n.node_of[rank], rank / 2);  // numbered by lowest rank, not by the job's ids
    EXPECT_EQ(ranks_of(n.leader_ranks, 3), (std::vector<int>{0, 2, 4}));
    EXPECT_EQ(ranks_of(n.local_ranks, n.local.size), (std::vector<int>{rank & ~1, rank | 1}));
    EXPECT_EQ(n.local.rank, rank & 1);
    EXPECT_EQ(n.leaders.rank, rank & 1 ? -1 : rank / 2);
    EXPECT_EQ(n.local.ctx, 11);
    // Envelopes keep the communicator's ranks; messages go to the members' tasks.
    EXPECT_EQ(n.local.wire(1), rank | 1);
    EXPECT_EQ(n.leaders.wire(2), 4);
    EXPECT_EQ(n.leaders.tasks[1], 2u);
  }
}

TEST(CollNodes, RoundRobinIsNotOrdered) {
  // srun -m cyclic: ranks 0, 2, 4 on one node, 1, 3 on the other.
  const std::vector<uint32_t> node_of_task = {0, 1, 0, 1, 0};
  const uint32_t tasks[] = {0, 1, 2, 3, 4};
  NodeLayout l;
  ASSERT_TRUE(l.build(3, 5, 1, tasks, node_of_task));
  const Nodes &n = *l.view();
  EXPECT_FALSE(l.ordered());
  EXPECT_TRUE(l.groups());
  EXPECT_EQ(ranks_of(n.local_ranks, n.local.size), (std::vector<int>{1, 3}));
  EXPECT_EQ(n.local.rank, 1);
  EXPECT_EQ(n.leaders.rank, -1);
  EXPECT_EQ(ranks_of(n.leader_ranks, n.count), (std::vector<int>{0, 1}));
}

TEST(CollNodes, OneRankPerNodeHasNoGroups) {
  const std::vector<uint32_t> node_of_task = {4, 5, 6};
  const uint32_t tasks[] = {0, 1, 2};
  NodeLayout l;
  ASSERT_TRUE(l.build(2, 3, 1, tasks, node_of_task));
  EXPECT_FALSE(l.groups());
  EXPECT_TRUE(l.ordered());
  EXPECT_EQ(l.view()->leaders.rank, 2);
  EXPECT_EQ(l.view()->local.size, 1);
}

TEST(CollNodes, PartOfTheJobAndUnknownTasks) {
  // A team of job tasks 5, 1, 4 (rank order): tasks 1 and 4 share a node.
  const std::vector<uint32_t> node_of_task = {0, 2, 0, 0, 2, 1};
  const uint32_t tasks[] = {5, 1, 4};
  NodeLayout l;
  ASSERT_TRUE(l.build(2, 3, 1, tasks, node_of_task));
  const Nodes &n = *l.view();
  EXPECT_EQ(n.count, 2);
  EXPECT_TRUE(l.ordered());  // rank 0 alone, then ranks 1 and 2
  EXPECT_EQ(ranks_of(n.local_ranks, n.local.size), (std::vector<int>{1, 2}));
  EXPECT_EQ(n.local.tasks[0], 1u);
  EXPECT_EQ(n.local.tasks[1], 4u);
  // The launcher gave no node for some task: no layout at all.
  const std::vector<uint32_t> unknown;  // Bootstrap::nodes() when the launcher gives neither key
  NodeLayout none;
  EXPECT_FALSE(none.build(0, 3, 1, tasks, unknown));
  EXPECT_EQ(none.view(), nullptr);
}
