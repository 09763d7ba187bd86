// Groups (MPI 4.1 §7.3): ordered sets of PAMI tasks. A group is immutable once made; communicators and
// users share it through its reference count. MPI_GROUP_EMPTY is the one predefined group: every
// operation whose result is empty returns it, and freeing it is accepted (and does nothing), since
// programs free whatever a group constructor returned to them.
#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "mpi/check.h"
#include "pami/context.h"
#include "pamir_alias.h"

namespace pamir::mpi {

namespace {

Group g_empty = [] {
  Group g{};
  g.magic = uint32_t(Kind::group);
  g.predefined = true;
  return g;
}();
[[maybe_unused]] const bool registered = [] {
  predefined_slot<Group>(uintptr_t(MPI_GROUP_EMPTY)) = &g_empty;
  return true;
}();

[[gnu::cold]] int bad_group(const char *fn, MPI_Group h) {
  if (h == MPI_GROUP_NULL) return raise(nullptr, fn, MPI_ERR_GROUP, "MPI_GROUP_NULL is not a group");
  if (is_freed<Group>(h)) return raise(nullptr, fn, MPI_ERR_GROUP, "the group was freed");
  return raise(nullptr, fn, MPI_ERR_GROUP, "invalid group handle %p", static_cast<void *>(h));
}

// Evaluates to the Group*, or returns MPI_ERR_GROUP from the enclosing binding.
#define PAMIR_GROUP(h)                                      \
  ({                                                        \
    Group *g_ = lookup<Group>(h);                           \
    if (__builtin_expect(!g_, 0)) return bad_group(fn_, h); \
    g_;                                                     \
  })

// Ranks of `ranks` checked for MPI_Group_incl/excl: each valid in g and all distinct.
int check_rank_list(const char *fn_, const Group *g, int n, const int ranks[]) {
  PAMIR_CHECK(nullptr, n >= 0, MPI_ERR_ARG, "negative count n = %d", n);
  PAMIR_CHECK(nullptr, n <= g->size(), MPI_ERR_ARG, "n = %d ranks from a group of size %d", n, g->size());
  PAMIR_CHECK(nullptr, n == 0 || ranks, MPI_ERR_ARG, "ranks is NULL with n = %d", n);
  std::vector<char> seen(size_t(g->size()), 0);
  for (int i = 0; i < n; ++i) {
    int r = ranks[i];
    PAMIR_CHECK(nullptr, r >= 0 && r < g->size(), MPI_ERR_RANK,
                "ranks[%d] = %d is outside the group (size %d)", i, r, g->size());
    PAMIR_CHECK(nullptr, !seen[size_t(r)], MPI_ERR_RANK, "rank %d appears twice (ranks[%d])", r, i);
    seen[size_t(r)] = 1;
  }
  return MPI_SUCCESS;
}

// Expands MPI_Group_range_incl/excl triplets (first, last, stride) into ranks, checking that every rank
// is valid and all are distinct.
int expand_ranges(const char *fn_, const Group *g, int n, int ranges[][3], std::vector<int> &out) {
  PAMIR_CHECK(nullptr, n >= 0, MPI_ERR_ARG, "negative count n = %d", n);
  PAMIR_CHECK(nullptr, n == 0 || ranges, MPI_ERR_ARG, "ranges is NULL with n = %d", n);
  const int size = g->size();
  std::vector<char> seen(size_t(size), 0);
  for (int i = 0; i < n; ++i) {
    const int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
    PAMIR_CHECK(nullptr, stride != 0, MPI_ERR_ARG, "range %d (%d, %d, %d) has stride 0", i, first, last,
                stride);
    PAMIR_CHECK(nullptr, first >= 0 && first < size && last >= 0 && last < size, MPI_ERR_RANK,
                "range %d (%d, %d, %d) reaches outside the group (size %d)", i, first, last, stride, size);
    PAMIR_CHECK(nullptr, stride > 0 ? first <= last : first >= last, MPI_ERR_ARG,
                "range %d (%d, %d, %d): the stride does not lead from first to last", i, first, last, stride);
    for (int64_t r = first; stride > 0 ? r <= last : r >= last; r += stride) {
      PAMIR_CHECK(nullptr, !seen[size_t(r)], MPI_ERR_RANK, "rank %lld appears twice (range %d)", (long long)r,
                  i);
      seen[size_t(r)] = 1;
      out.push_back(int(r));
    }
  }
  return MPI_SUCCESS;
}

std::unordered_map<uint32_t, int> rank_of_task(const Group *g) {
  std::unordered_map<uint32_t, int> m;
  m.reserve(g->tasks.size());
  for (int r = 0; r < g->size(); ++r) m.emplace(g->tasks[size_t(r)], r);
  return m;
}

}  // namespace

MPI_Group group_handle(Group *g) {
  return g == &g_empty ? MPI_GROUP_EMPTY : handle_of<MPI_Group>(g);
}

void group_release(Group *g) {
  if (!g || g->predefined) return;
  if (g->refs == 1 && g->int_handle) object_forget_int(Kind::group, g->int_handle);
  release(g);
}

Group *group_empty() {
  return &g_empty;
}

Group *group_make(std::vector<uint32_t> tasks) {
  if (tasks.empty()) return &g_empty;
  Group *g = pool<Group>().make();
  g->tasks = std::move(tasks);
  const uint32_t me = context().task();
  g->rank = MPI_UNDEFINED;
  for (size_t i = 0; i < g->tasks.size(); ++i)
    if (g->tasks[i] == me) {
      g->rank = int(i);
      break;
    }
  return g;
}

}  // namespace pamir::mpi

using namespace pamir::mpi;

int PMPI_Group_size(MPI_Group group, int *size) {
  PAMIR_ENTER("MPI_Group_size");
  Group *g = PAMIR_GROUP(group);
  PAMIR_CHECK(nullptr, size, MPI_ERR_ARG, "size is NULL");
  *size = g->size();
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Group_size);

int PMPI_Group_rank(MPI_Group group, int *rank) {
  PAMIR_ENTER("MPI_Group_rank");
  Group *g = PAMIR_GROUP(group);
  PAMIR_CHECK(nullptr, rank, MPI_ERR_ARG, "rank is NULL");
  *rank = g->rank;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Group_rank);

int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]) {
  PAMIR_ENTER("MPI_Group_translate_ranks");
  Group *g1 = PAMIR_GROUP(group1);
  Group *g2 = PAMIR_GROUP(group2);
  PAMIR_CHECK(nullptr, n >= 0, MPI_ERR_ARG, "negative count n = %d", n);
  PAMIR_CHECK(nullptr, n == 0 || (ranks1 && ranks2), MPI_ERR_ARG, "ranks1 or ranks2 is NULL with n = %d", n);
  for (int i = 0; i < n; ++i)
    PAMIR_CHECK(nullptr, ranks1[i] == MPI_PROC_NULL || (ranks1[i] >= 0 && ranks1[i] < g1->size()),
                MPI_ERR_RANK, "ranks1[%d] = %d is outside group1 (size %d)", i, ranks1[i], g1->size());
  if (n == 0) return MPI_SUCCESS;
  if (g1 == g2 || g1->tasks == g2->tasks) {
    std::copy(ranks1, ranks1 + n, ranks2);
    return MPI_SUCCESS;
  }
  auto where = rank_of_task(g2);
  for (int i = 0; i < n; ++i) {
    if (ranks1[i] == MPI_PROC_NULL) {
      ranks2[i] = MPI_PROC_NULL;
      continue;
    }
    auto it = where.find(g1->tasks[size_t(ranks1[i])]);
    ranks2[i] = it == where.end() ? MPI_UNDEFINED : it->second;
  }
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Group_translate_ranks);

int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result) {
  PAMIR_ENTER("MPI_Group_compare");
  Group *g1 = PAMIR_GROUP(group1);
  Group *g2 = PAMIR_GROUP(group2);
  PAMIR_CHECK(nullptr, result, MPI_ERR_ARG, "result is NULL");
  if (g1 == g2 || g1->tasks == g2->tasks) {
    *result = MPI_IDENT;
  } else if (g1->size() != g2->size()) {
    *result = MPI_UNEQUAL;
  } else {
    std::vector<uint32_t> a = g1->tasks, b = g2->tasks;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    *result = a == b ? MPI_SIMILAR : MPI_UNEQUAL;
  }
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Group_compare);

int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup) {
  PAMIR_ENTER("MPI_Group_union");
  Group *g1 = PAMIR_GROUP(group1);
  Group *g2 = PAMIR_GROUP(group2);
  PAMIR_CHECK(nullptr, newgroup, MPI_ERR_ARG, "newgroup is NULL");
  // All of group1 in its order, then the members of group2 not in group1, in group2's order.
  std::vector<uint32_t> tasks = g1->tasks;
  std::unordered_set<uint32_t> in1(g1->tasks.begin(), g1->tasks.end());
  for (uint32_t t : g2->tasks)
    if (!in1.count(t)) tasks.push_back(t);
  *newgroup = group_handle(group_make(std::move(tasks)));
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Group_union);

namespace {
// The members of g1 that are (keep_common) or are not in g2, in g1's order: intersection and difference.
MPI_Group filter_members(const Group *g1, const Group *g2, bool keep_common) {
  std::unordered_set<uint32_t> in2(g2->tasks.begin(), g2->tasks.end());
  std::vector<uint32_t> tasks;
  for (uint32_t t : g1->tasks)
    if (bool(in2.count(t)) == keep_common) tasks.push_back(t);
  return group_handle(group_make(std::move(tasks)));
}
}  // namespace

int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup) {
  PAMIR_ENTER("MPI_Group_intersection");
  Group *g1 = PAMIR_GROUP(group1);
  Group *g2 = PAMIR_GROUP(group2);
  PAMIR_CHECK(nullptr, newgroup, MPI_ERR_ARG, "newgroup is NULL");
  *newgroup = filter_members(g1, g2, true);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Group_intersection);

int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup) {
  PAMIR_ENTER("MPI_Group_difference");
  Group *g1 = PAMIR_GROUP(group1);
  Group *g2 = PAMIR_GROUP(group2);
  PAMIR_CHECK(nullptr, newgroup, MPI_ERR_ARG, "newgroup is NULL");
  *newgroup = filter_members(g1, g2, false);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Group_difference);

int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup) {
  PAMIR_ENTER("MPI_Group_incl");
  Group *g = PAMIR_GROUP(group);
  PAMIR_CHECK(nullptr, newgroup, MPI_ERR_ARG, "newgroup is NULL");
  if (int rc = check_rank_list(fn_, g, n, ranks)) return rc;
  std::vector<uint32_t> tasks(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) tasks[size_t(i)] = g->tasks[size_t(ranks[i])];
  *newgroup = group_handle(group_make(std::move(tasks)));
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Group_incl);

int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup) {
  PAMIR_ENTER("MPI_Group_excl");
  Group *g = PAMIR_GROUP(group);
  PAMIR_CHECK(nullptr, newgroup, MPI_ERR_ARG, "newgroup is NULL");
  if (int rc = check_rank_list(fn_, g, n, ranks)) return rc;
  std::vector<char> out(size_t(g->size()), 0);
  for (int i = 0; i < n; ++i) out[size_t(ranks[i])] = 1;
  std::vector<uint32_t> tasks;
  tasks.reserve(size_t(g->size() - n));
  for (int r = 0; r < g->size(); ++r)
    if (!out[size_t(r)]) tasks.push_back(g->tasks[size_t(r)]);
  *newgroup = group_handle(group_make(std::move(tasks)));
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Group_excl);

int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup) {
  PAMIR_ENTER("MPI_Group_range_incl");
  Group *g = PAMIR_GROUP(group);
  PAMIR_CHECK(nullptr, newgroup, MPI_ERR_ARG, "newgroup is NULL");
  std::vector<int> ranks;
  if (int rc = expand_ranges(fn_, g, n, ranges, ranks)) return rc;
  std::vector<uint32_t> tasks;
  tasks.reserve(ranks.size());
  for (int r : ranks) tasks.push_back(g->tasks[size_t(r)]);
  *newgroup = group_handle(group_make(std::move(tasks)));
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Group_range_incl);

int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup) {
  PAMIR_ENTER("MPI_Group_range_excl");
  Group *g = PAMIR_GROUP(group);
  PAMIR_CHECK(nullptr, newgroup, MPI_ERR_ARG, "newgroup is NULL");
  std::vector<int> ranks;
  if (int rc = expand_ranges(fn_, g, n, ranges, ranks)) return rc;
  std::vector<char> out(size_t(g->size()), 0);
  for (int r : ranks) out[size_t(r)] = 1;
  std::vector<uint32_t> tasks;
  for (int r = 0; r < g->size(); ++r)
    if (!out[size_t(r)]) tasks.push_back(g->tasks[size_t(r)]);
  *newgroup = group_handle(group_make(std::move(tasks)));
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Group_range_excl);

int PMPI_Group_free(MPI_Group *group) {
  PAMIR_ENTER("MPI_Group_free");
  PAMIR_CHECK(nullptr, group, MPI_ERR_ARG, "group is NULL");
  Group *g = PAMIR_GROUP(*group);
  group_release(g);  // MPI_GROUP_EMPTY: nothing to free
  *group = MPI_GROUP_NULL;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Group_free);
