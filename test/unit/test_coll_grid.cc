// The grid of a team on the torus (collectives/grid.h): each dimension's line through a rank, in the
// communicator's ranks and the job's tasks, for a team in the job's order and one renumbered; a team
// that does not fill the torus has none; and selection takes the torus algorithms only with its bit.
#include <gtest/gtest.h>

#include <vector>

#include "collectives/grid.h"
#include "collectives/registry.h"

using namespace pamir::coll;

namespace {

// A 3x2 torus with two ranks a node (T last): task t sits at A = t / 4, B = t / 2 % 2, T = t % 2.
const std::vector<int> kExtents = {3, 2, 2};
std::vector<int> task_coords() {
  std::vector<int> c;
  for (int t = 0; t < 12; ++t) c.insert(c.end(), {t / 4, t / 2 % 2, t % 2});
  return c;
}

std::vector<int> line_ranks(const Team &t) {
  return std::vector<int>(t.ranks, t.ranks + t.size);
}

}  // namespace

TEST(CollGrid, LinesThroughEveryRank) {
  const uint32_t tasks[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  for (int rank = 0; rank < 12; ++rank) {
    GridLayout l;
    ASSERT_TRUE(l.build(rank, 12, 5, tasks, kExtents, true, task_coords()));
    const Grid &g = *l.view();
    EXPECT_EQ(g.ndims, 3);
    EXPECT_EQ(g.node_dims, 2);
    EXPECT_EQ(g.coord(rank, 0), rank / 4);
    // Along A the line is every fourth rank; along B two apart; along T the node's pair.
    EXPECT_EQ(line_ranks(g.line[0]), (std::vector<int>{rank % 4, rank % 4 + 4, rank % 4 + 8}));
    EXPECT_EQ(line_ranks(g.line[1]), (std::vector<int>{rank & ~2, rank | 2}));
    EXPECT_EQ(line_ranks(g.line[2]), (std::vector<int>{rank & ~1, rank | 1}));
    for (int d = 0; d < 3; ++d) {
      EXPECT_EQ(g.line[d].rank, g.coord(rank, d));
      EXPECT_EQ(g.line[d].size, kExtents[size_t(d)]);
      EXPECT_EQ(g.line[d].ctx, 5);
      EXPECT_EQ(g.line[d].grid, nullptr);  // a line is no torus of its own
    }
  }
}

TEST(CollGrid, ARenumberedTeamKeepsItsOwnRanks) {
  // The communicator numbers the job's tasks backwards: its lines name its ranks and the job's tasks.
  uint32_t tasks[12];
  for (int r = 0; r < 12; ++r) tasks[r] = uint32_t(11 - r);
  GridLayout l;
  ASSERT_TRUE(l.build(0, 12, 5, tasks, kExtents, true, task_coords()));  // rank 0 is task 11: (2, 1, 1)
  const Grid &g = *l.view();
  EXPECT_EQ(g.line[0].rank, 2);
  EXPECT_EQ(line_ranks(g.line[0]), (std::vector<int>{8, 4, 0}));  // tasks 3, 7, 11
  EXPECT_EQ(g.line[0].tasks[0], 3u);
  EXPECT_EQ(line_ranks(g.line[2]), (std::vector<int>{1, 0}));
}

TEST(CollGrid, APartOfTheTorusHasNone) {
  const uint32_t half[] = {0, 2, 4, 6, 8, 10};
  GridLayout l;
  EXPECT_FALSE(l.build(0, 6, 5, half, kExtents, true, task_coords()));
  EXPECT_EQ(l.view(), nullptr);
  // As many ranks as positions, but one position twice: no grid either.
  std::vector<int> twice = task_coords();
  twice[3 * 1 + 2] = 0;  // task 1 claims task 0's place
  const uint32_t all[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  EXPECT_FALSE(l.build(0, 12, 5, all, kExtents, true, twice));
}

TEST(CollGrid, SelectionTakesTheTorusAlgorithmsOnlyWithTheirBit) {
  load_defaults();
  auto chosen = [](Collective c, uint32_t mask) { return algorithm(selector().select(c, mask)).name; };
  const uint32_t mb = size_class_bits(2);  // bcast 64-512 KiB, allreduce 16-64 KiB
  EXPECT_STREQ(chosen(Collective::bcast, kTorusGrid | mb), "scatter_allgather");
  EXPECT_STREQ(chosen(Collective::bcast, kTorusGrid | kSmallComm | mb), "torus_colours");
  EXPECT_STREQ(chosen(Collective::bcast, kTorusGrid | size_class_bits(1)), "scatter_allgather");
  EXPECT_STREQ(chosen(Collective::bcast, kTorusGrid | size_class_bits(3)), "torus_colours");
  EXPECT_STREQ(chosen(Collective::bcast, kTorusGrid | size_class_bits(0)), "binomial");
  EXPECT_STREQ(chosen(Collective::allreduce, kTorusGrid | kCommutative | mb), "torus_colours");
  EXPECT_STRNE(chosen(Collective::allreduce, kTorusGrid | mb), "torus_colours");  // not commutative
  EXPECT_STRNE(chosen(Collective::bcast, mb), "torus_colours");
  EXPECT_EQ(bit_by_name("torus-grid"), kTorusGrid);
  // The algorithms need the bit: a tuning file may not choose them without it.
  std::string why;
  EXPECT_FALSE(load_tuning("bcast torus\n", why));
  EXPECT_TRUE(load_tuning("bcast torus torus-grid\nbcast binomial\n", why)) << why;
  EXPECT_STREQ(chosen(Collective::bcast, kTorusGrid), "torus");
  load_defaults();
}
