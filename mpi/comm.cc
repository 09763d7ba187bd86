// Communicators (MPI 4.1 chapter 7): MPI_COMM_WORLD and MPI_COMM_SELF, duplication, splitting,
// creation from groups, comparison, names and info hints, and the context ids that keep their
// traffic apart.
//
// Context ids: every creation runs one agreement (mpi/context_id.h), blocking here, nonblocking for
// MPI_Comm_idup (mpi/comm_idup.cc).
#include <algorithm>
#include <cstring>
#include <numeric>
#include <optional>
#include <unordered_map>

#include "collectives/coll.h"
#include "collectives/registry.h"
#include "collectives/shm_slot.h"
#include "mpi/check.h"
#include "mpi/context_id.h"
#include "mpi/info.h"
#include "mpi/request.h"
#include "pami/context.h"
#include "pamir_alias.h"

namespace pamir::mpi {

namespace {

Comm g_world{};
Comm g_self{};
[[maybe_unused]] const bool registered = [] {
  for (Comm *c : {&g_world, &g_self}) {
    c->magic = uint32_t(Kind::comm);
    c->predefined = true;
  }
  predefined_slot<Comm>(uintptr_t(MPI_COMM_WORLD)) = &g_world;
  predefined_slot<Comm>(uintptr_t(MPI_COMM_SELF)) = &g_self;
  return true;
}();

// MPI_Comm_create_group's messages: the parent's collective context, under a tag of their own range
// (above the collectives' internal tags) made from the user's tag.
constexpr int32_t kCreateGroupTag = 1 << 27;

// A new communicator over `group` (this process a member) with context `ctx`; inherits parent's error
// handler. Takes its own references.
Comm *comm_make(Comm *parent, Group *group, uint16_t ctx) {
  return comm_from_group(group, ctx, parent->errhandler);
}

// The rank in c of every member of g, or nothing when g has a process that is not in c.
std::optional<std::vector<int>> ranks_in(const Group *g, const Comm *c) {
  std::unordered_map<uint32_t, int> rank_of;
  for (int r = 0; r < c->size; ++r) rank_of.emplace(c->local_task(r), r);
  std::vector<int> ranks;
  ranks.reserve(g->tasks.size());
  for (uint32_t t : g->tasks) {
    const auto it = rank_of.find(t);
    if (it == rank_of.end()) return std::nullopt;
    ranks.push_back(it->second);
  }
  return ranks;
}

// Whether every member of g belongs to c's group.
bool subgroup_of(const Group *g, const Comm *c) {
  return g == c->local || g->size() == 0 || ranks_in(g, c).has_value();
}

[[gnu::cold]] int bad_group(Comm *c, const char *fn, MPI_Group h) {
  if (h == MPI_GROUP_NULL) return raise(c, fn, MPI_ERR_GROUP, "MPI_GROUP_NULL is not a group");
  if (is_freed<Group>(h)) return raise(c, fn, MPI_ERR_GROUP, "the group was freed");
  return raise(c, fn, MPI_ERR_GROUP, "invalid group handle %p", static_cast<void *>(h));
}

#define PAMIR_GROUP(comm, h)                                      \
  ({                                                              \
    Group *g_ = lookup<Group>(h);                                 \
    if (__builtin_expect(!g_, 0)) return bad_group(comm, fn_, h); \
    g_;                                                           \
  })

// The processes of one color among `n` entries of (color, key) from `from`, ordered by key and then
// by their order there, as a group of their job ranks (nullptr for MPI_UNDEFINED or none).
Group *color_group(const int32_t *all, int n, const uint32_t *tasks, int color) {
  if (color == MPI_UNDEFINED) return nullptr;
  std::vector<int> ranks;
  for (int r = 0; r < n; ++r)
    if (all[2 * r] == color) ranks.push_back(r);
  if (ranks.empty()) return nullptr;
  std::stable_sort(ranks.begin(), ranks.end(), [&](int a, int b) { return all[2 * a + 1] < all[2 * b + 1]; });
  std::vector<uint32_t> out;
  out.reserve(ranks.size());
  for (int r : ranks) out.push_back(tasks[r]);
  return group_make(std::move(out));
}

// MPI_Comm_split's work: an allgather of (color, key) over the communicator (both groups of an
// inter-communicator), then the members of this process's color ordered by key and old rank (in each
// group), and one context id for all colors.
int split(Comm *c, const char *fn, int color, int key, Comm **out) {
  *out = nullptr;
  const coll::Team t = c->team();
  std::vector<int32_t> all(size_t(t.size) * 2);
  const int32_t mine[2] = {color, key};
  if (int rc = coll::internal_allgather(t, mine, all.data(), sizeof mine)) return creation_failed(c, fn, rc);
  Group *g = nullptr, *remote = nullptr;
  if (!c->remote) {
    g = color_group(all.data(), c->size, c->local->tasks.data(), color);
  } else {
    g = color_group(all.data() + 2 * c->local_base, c->size, c->local->tasks.data(), color);
    remote = color_group(all.data() + 2 * c->remote_base, c->peer_size, c->peer_tasks, color);
  }
  int rc = comm_create_from(c, g, out, fn, remote);
  group_release(g);
  group_release(remote);
  return rc;
}

bool on_this_node(uint32_t task) {
  const auto &peers = context().boot().local_peers();
  return std::binary_search(peers.begin(), peers.end(), task);
}

}  // namespace

MPI_Comm comm_handle(Comm *c) {
  if (c == &g_world) return MPI_COMM_WORLD;
  if (c == &g_self) return MPI_COMM_SELF;
  return c ? handle_of<MPI_Comm>(c) : MPI_COMM_NULL;
}

// --- the library's internal interface (mpi/comm.h) -------------------------------------------------

// A failed collective step, as an MPI error raised on c.
[[gnu::cold]] int creation_failed(Comm *c, const char *fn, int rc) {
  switch (pamir::Err(rc)) {
    case pamir::Err::proc_failed:
      return raise(c, fn, MPI_ERR_PROC_ABORTED, "a peer process is gone");
    case pamir::Err::truncate:
      return raise(c, fn, MPI_ERR_INTERN, "a message of the communicator-creation protocol was truncated");
    default:
      return raise(c, fn, MPI_ERR_INTERN, "communication failed while creating the communicator (error %d)",
                   rc);
  }
}

// Runs one agreement to its end; what went wrong is raised on parent.
int creation_agree(Comm *parent, const char *fn, BlockingAgreement &a, uint16_t &out) {
  const int rc = a.wait();
  if (rc == Agreement::kNoFreeId)
    return raise(parent, fn, MPI_ERR_OTHER,
                 "no context id is free on all members (all %u id pairs are in use on some process)",
                 kContextIds / 2);
  if (rc) return creation_failed(parent, fn, rc);
  out = a.ctx;
  return MPI_SUCCESS;
}

Comm *comm_world() {
  return &g_world;
}
Comm *comm_self() {
  return &g_self;
}

void comms_init() {
  const uint32_t n = context().ntasks(), me = context().task();
  std::vector<uint32_t> all(n);
  std::iota(all.begin(), all.end(), 0u);
  struct Init {
    Comm *c;
    std::vector<uint32_t> tasks;
    uint16_t ctx;
    const char *name;
  };
  for (Init &i :
       std::vector<Init>{{&g_world, all, 0, "MPI_COMM_WORLD"}, {&g_self, {me}, 2, "MPI_COMM_SELF"}}) {
    Comm &c = *i.c;
    c.magic = uint32_t(Kind::comm);
    c.predefined = true;
    c.refs = 1;
    c.local = group_make(std::move(i.tasks));
    c.remote = nullptr;
    c.rank = c.local->rank;
    c.size = c.local->size();
    c.peer_tasks = c.local->tasks.data();
    c.peer_size = c.size;
    c.ctx = i.ctx;
    c.errhandler = errhandler_fatal();
    c.attrs.clear();
    c.hints.clear();
    c.name = i.name;
    c.coll_seq = 0;
    comm_coll_init(&c);
  }
  context_ids_reset();
}

void comm_coll_init(Comm *c) {
  // Where the ranks live: from every task's node where the launcher gave them (the same answer on
  // every rank), else only whether all are among this node's peers, and node order is then known only
  // on one node.
  const std::vector<uint32_t> &here = context().boot().local_peers();
  bool one_node = true;
  for (uint32_t t : c->local->tasks)
    if (!std::binary_search(here.begin(), here.end(), t)) {
      one_node = false;
      break;
    }
  bool node_ordered = one_node, node_groups = false;
  c->coll_nodes.clear();
  if (!c->remote && c->coll_nodes.build(c->rank, c->size, c->coll_ctx(), c->local->tasks.data(),
                                        context().boot().nodes())) {
    node_ordered = c->coll_nodes.ordered();
    node_groups = c->coll_nodes.groups();
  }
  c->coll_grid.clear();
  const bool torus_grid =
      !c->remote && !context().grid_extents().empty() &&
      c->coll_grid.build(c->rank, c->size, c->coll_ctx(), c->local->tasks.data(), context().grid_extents(),
                         context().grid_has_t(), context().grid_coords());
  const bool shm_slot = one_node && !c->remote && coll::shm_slot_usable(c->coll_ctx(), c->size);
  c->coll_slots.clear();
  if (shm_slot && c->size > 1)
    for (int r = 0; r < c->size; ++r)
      c->coll_slots.push_back(coll::shm_slot(c->local_task(r), c->coll_ctx()));
  const uint32_t m = coll::comm_mask(c->size, one_node, node_ordered, shm_slot, node_groups,
                                     one_node && context().oversubscribed(), torus_grid) |
                     (c->remote ? coll::kInter : 0);
  for (size_t k = 0; k < size_t(coll::Collective::count_); ++k) {
    c->coll_mask[k] = m;
    c->coll_forced[k] = -1;
    c->coll_choice[k] = Comm::CollChoice{};
  }
}

int comm_coll_hints(Comm *c, const std::vector<std::pair<std::string, std::string>> &hints, int16_t *out,
                    const char *fn) {
  static constexpr char kPrefix[] = "pamir_coll_";
  int16_t forced[size_t(coll::Collective::count_)];
  std::fill(std::begin(forced), std::end(forced), int16_t(-1));
  for (const auto &[key, value] : hints) {
    if (key.rfind(kPrefix, 0) != 0) continue;
    const std::string name = key.substr(sizeof kPrefix - 1);
    size_t k = 0;
    while (k < size_t(coll::Collective::count_) && name != coll::collective_name(coll::Collective(k))) ++k;
    if (k == size_t(coll::Collective::count_))
      return raise(c, fn, MPI_ERR_INFO_KEY, "info key %s names no collective (pamir_info lists them)",
                   key.c_str());
    if (value == "auto") continue;
    const int id = coll::find_algorithm(coll::Collective(k), value.c_str());
    if (id < 0)
      return raise(c, fn, MPI_ERR_INFO_VALUE, "%s=%s is not an algorithm of %s (one of: auto,%s)",
                   key.c_str(), value.c_str(), name.c_str(),
                   coll::algorithm_names(coll::Collective(k)).c_str());
    forced[k] = int16_t(id);
  }
  std::copy(std::begin(forced), std::end(forced), out);
  return MPI_SUCCESS;
}

void comms_finalize() {
  // MPI_COMM_SELF's attributes went first (MPI_Finalize calls attrs_delete_all); what other
  // communicators still cache stays with them, as MPI leaves it. The predefined communicators stay
  // usable for the error path until the process ends.
  context_ids_reset();
}

Comm *comm_from_group(Group *g, uint16_t ctx, Errhandler *eh) {
  Comm *c = pool<Comm>().make();
  c->local = g;
  if (!g->predefined) ++g->refs;
  c->rank = g->rank;
  c->size = g->size();
  c->peer_tasks = g->tasks.data();
  c->peer_size = c->size;
  c->ctx = ctx;
  c->errhandler = eh;
  if (eh && !eh->predefined) ++eh->refs;
  comm_coll_init(c);
  return c;
}

Comm *intercomm_make(Group *local, Group *remote, uint16_t ctx, Errhandler *eh) {
  Comm *c = pool<Comm>().make();
  c->local = local;
  c->remote = remote;
  for (Group *g : {local, remote})
    if (!g->predefined) ++g->refs;
  c->rank = local->rank;
  c->size = local->size();
  c->peer_tasks = remote->tasks.data();
  c->peer_size = remote->size();
  const bool low = local->tasks[0] < remote->tasks[0];
  const Group *first = low ? local : remote, *second = low ? remote : local;
  c->both = first->tasks;
  c->both.insert(c->both.end(), second->tasks.begin(), second->tasks.end());
  c->local_base = low ? 0 : c->peer_size;
  c->remote_base = low ? c->size : 0;
  c->ctx = ctx;
  c->errhandler = eh;
  if (eh && !eh->predefined) ++eh->refs;
  comm_coll_init(c);
  return c;
}

int comm_split(Comm *c, const char *fn, int color, int key, Comm **out) {
  return split(c, fn, color, key, out);
}

Comm *comm_dup_of(Comm *parent, uint16_t ctx) {
  if (parent->remote) return intercomm_make(parent->local, parent->remote, ctx, parent->errhandler);
  return comm_make(parent, parent->local, ctx);
}

int comm_create_from(Comm *parent, Group *group, Comm **out, const char *fn, Group *remote) {
  *out = nullptr;
  const bool member =
      group && group->rank != MPI_UNDEFINED && (!parent->remote || (remote && remote->size()));
  const uint64_t seq = parent->coll_seq++;
  BlockingAgreement a(parent->team(), coll::seq_tag(seq),
                      agreement_key(parent->ctx, AgreeKind::collective, seq), member);
  uint16_t ctx = 0;
  if (int rc = creation_agree(parent, fn, a, ctx)) return rc;
  if (member)
    *out = parent->remote ? intercomm_make(group, remote, ctx, parent->errhandler)
                          : comm_make(parent, group, ctx);
  return MPI_SUCCESS;
}

void comm_release(Comm *c) {
  if (!c || c->predefined || --c->refs > 0) return;
  if (c->int_handle) object_forget_int(Kind::comm, c->int_handle);
  group_release(c->local);
  group_release(c->remote);
  c->local = c->remote = nullptr;
  release(c->errhandler);
  c->errhandler = nullptr;
  context_id_free(c->ctx);
  attrs_forget(c);
  c->hints.clear();
  c->name.clear();
  c->topo.reset();
  c->session = nullptr;
  bsend_comm_release(c);
  pool<Comm>().destroy(c);
}

}  // namespace pamir::mpi

using namespace pamir::mpi;
using pamir::context;

// --- bindings ------------------------------------------------------------------------------------

int PMPI_Comm_rank(MPI_Comm comm, int *rank) {
  PAMIR_ENTER("MPI_Comm_rank");
  Comm *c = PAMIR_COMM(comm);
  PAMIR_CHECK(c, rank, MPI_ERR_ARG, "rank is NULL");
  *rank = c->rank;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Comm_rank);

int PMPI_Comm_size(MPI_Comm comm, int *size) {
  PAMIR_ENTER("MPI_Comm_size");
  Comm *c = PAMIR_COMM(comm);
  PAMIR_CHECK(c, size, MPI_ERR_ARG, "size is NULL");
  *size = c->size;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Comm_size);

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm) {
  PAMIR_ENTER("MPI_Comm_dup");
  Comm *c = PAMIR_COMM(comm);
  PAMIR_CHECK(c, newcomm, MPI_ERR_ARG, "newcomm is NULL");
  *newcomm = MPI_COMM_NULL;
  Comm *n = nullptr;
  if (int rc = comm_create_from(c, c->local, &n, fn_, c->remote)) return rc;
  n->hints = c->hints;
  n->topo = c->topo;
  std::copy(std::begin(c->coll_forced), std::end(c->coll_forced), n->coll_forced);
  if (int rc = attrs_copy(c, n, fn_)) {
    comm_release(n);
    return rc;
  }
  *newcomm = comm_handle(n);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Comm_dup);

int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm) {
  PAMIR_ENTER("MPI_Comm_dup_with_info");
  Comm *c = PAMIR_COMM(comm);
  PAMIR_CHECK(c, newcomm, MPI_ERR_ARG, "newcomm is NULL");
  // MPI_INFO_NULL gives no hints, as Open MPI and MPICH take it: an empty info.
  static const Info no_hints{};
  const Info *i = info == MPI_INFO_NULL ? &no_hints : info_of(info);
  PAMIR_CHECK(c, i, MPI_ERR_INFO, "info is not a valid info object");
  *newcomm = MPI_COMM_NULL;
  int16_t forced[size_t(pamir::coll::Collective::count_)];
  if (int rc = comm_coll_hints(c, i->items, forced, fn_)) return rc;
  Comm *n = nullptr;
  if (int rc = comm_create_from(c, c->local, &n, fn_, c->remote)) return rc;
  n->hints = i->items;  // the hints of info replace the parent's (MPI 4.1 §7.4.2)
  n->topo = c->topo;
  std::copy(std::begin(forced), std::end(forced), n->coll_forced);
  if (int rc = attrs_copy(c, n, fn_)) {
    comm_release(n);
    return rc;
  }
  *newcomm = comm_handle(n);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Comm_dup_with_info);

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm) {
  PAMIR_ENTER("MPI_Comm_split");
  Comm *c = PAMIR_COMM(comm);
  PAMIR_CHECK(c, newcomm, MPI_ERR_ARG, "newcomm is NULL");
  PAMIR_CHECK(c, color >= 0 || color == MPI_UNDEFINED, MPI_ERR_ARG,
              "color %d is neither non-negative nor MPI_UNDEFINED", color);
  Comm *n = nullptr;
  *newcomm = MPI_COMM_NULL;
  if (int rc = split(c, fn_, color, key, &n)) return rc;
  *newcomm = comm_handle(n);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Comm_split);

int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm) {
  PAMIR_ENTER("MPI_Comm_split_type");
  Comm *c = PAMIR_COMM(comm);
  PAMIR_CHECK(c, newcomm, MPI_ERR_ARG, "newcomm is NULL");
  PAMIR_CHECK(c, !c->remote, MPI_ERR_COMM, "comm is an inter-communicator");
  Info *hints = info == MPI_INFO_NULL ? nullptr : info_of(info);
  PAMIR_CHECK(c, info == MPI_INFO_NULL || hints, MPI_ERR_INFO, "info is not a valid info object");
  auto hint = [&](const char *k) -> std::string {
    const std::string *v = hints ? hints->find(k) : nullptr;
    return v ? *v : std::string();
  };
  // This node's color: its lowest job rank (the same on every process of the node).
  const int node = int(context().boot().local_peers().front());
  int color = MPI_UNDEFINED;
  switch (split_type) {
    case MPI_UNDEFINED:
      break;
    case MPI_COMM_TYPE_SHARED:
      color = node;
      break;
    case MPI_COMM_TYPE_HW_GUIDED:
      // The one hardware resource Pamir knows: the node's shared memory (MPI 4.1 §7.4.2).
      if (hint("mpi_hw_resource_type") == "mpi_shared_memory") color = node;
      break;
    case MPI_COMM_TYPE_HW_UNGUIDED: {
      // A strict subset of comm at the next hardware level: the node, when comm spans more than one.
      int here = 0;
      for (int r = 0; r < c->size; ++r) here += on_this_node(c->local_task(r));
      if (here < c->size) color = node;
      break;
    }
    case MPI_COMM_TYPE_RESOURCE_GUIDED: {
      // A process set by name, or the hardware resource that HW_GUIDED's hint names: a program asking
      // for the node's shared memory either way gets the node.
      const std::string pset = hint("mpi_pset_name");
      if (pset == "mpi://WORLD") color = 0;
      if (pset == "mpi://SELF") color = c->rank;
      if (pset.empty() && hint("mpi_hw_resource_type") == "mpi_shared_memory") color = node;
      break;
    }
    default:
      return raise(c, fn_, MPI_ERR_ARG, "split_type %d is not one of MPI_COMM_TYPE_* or MPI_UNDEFINED",
                   split_type);
  }
  // Processes of the same color keep their order in comm unless key says otherwise.
  Comm *n = nullptr;
  *newcomm = MPI_COMM_NULL;
  if (int rc = split(c, fn_, color, key, &n)) return rc;
  *newcomm = comm_handle(n);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Comm_split_type);

int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm) {
  PAMIR_ENTER("MPI_Comm_create");
  Comm *c = PAMIR_COMM(comm);
  PAMIR_CHECK(c, newcomm, MPI_ERR_ARG, "newcomm is NULL");
  Group *g = PAMIR_GROUP(c, group);
  PAMIR_CHECK(c, subgroup_of(g, c), MPI_ERR_GROUP, "the group has processes that are not in the %s",
              c->remote ? "local group" : "communicator");
  Comm *n = nullptr;
  *newcomm = MPI_COMM_NULL;
  // On an inter-communicator each group names its side, and learns the other's.
  Group *remote = nullptr;
  if (c->remote)
    if (int rc = intercomm_swap_groups(c, g, &remote, fn_)) return rc;
  const int rc = comm_create_from(c, g, &n, fn_, remote);
  group_release(remote);
  if (rc) return rc;
  *newcomm = comm_handle(n);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Comm_create);

int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm) {
  PAMIR_ENTER("MPI_Comm_create_group");
  Comm *c = PAMIR_COMM(comm);
  PAMIR_CHECK(c, newcomm, MPI_ERR_ARG, "newcomm is NULL");
  Group *g = PAMIR_GROUP(c, group);
  PAMIR_CHECK(c, !c->remote, MPI_ERR_COMM, "comm is an inter-communicator");
  PAMIR_CHECK(c, tag >= 0 && tag <= pamir::kTagUb, MPI_ERR_TAG, "tag %d is outside [0, MPI_TAG_UB=%d]", tag,
              pamir::kTagUb);
  const std::optional<std::vector<int>> wire = ranks_in(g, c);
  PAMIR_CHECK(c, wire.has_value(), MPI_ERR_GROUP, "the group has processes that are not in the communicator");
  *newcomm = MPI_COMM_NULL;
  if (g->rank == MPI_UNDEFINED) return MPI_SUCCESS;  // not a member: nothing to agree on
  // Only the group's members take part; their messages name their ranks in the parent, so that two
  // creations on overlapping groups never take each other's messages.
  pamir::coll::Team team{g->rank, g->size(), c->coll_ctx(), g->tasks.data()};
  team.ranks = wire->data();
  BlockingAgreement a(team, kCreateGroupTag | (tag & (kCreateGroupTag - 1)),
                      agreement_key(c->ctx, AgreeKind::create_group, uint64_t(tag)), true);
  uint16_t ctx = 0;
  if (int rc = creation_agree(c, fn_, a, ctx)) return rc;
  *newcomm = comm_handle(comm_make(c, g, ctx));
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Comm_create_group);

int PMPI_Comm_free(MPI_Comm *comm) {
  PAMIR_ENTER("MPI_Comm_free");
  PAMIR_CHECK(nullptr, comm, MPI_ERR_ARG, "comm is NULL");
  Comm *c = PAMIR_COMM(*comm);
  PAMIR_CHECK(c, !c->predefined, MPI_ERR_COMM, "%s cannot be freed",
              c == &g_world ? "MPI_COMM_WORLD" : "MPI_COMM_SELF");
  // Attributes first: a failing delete callback fails the call and leaves the communicator alone.
  if (int rc = attrs_delete_all(c, fn_)) return rc;
  comm_release(c);
  *comm = MPI_COMM_NULL;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Comm_free);

int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result) {
  PAMIR_ENTER("MPI_Comm_compare");
  Comm *a = PAMIR_COMM(comm1);
  Comm *b = PAMIR_COMM(comm2);
  PAMIR_CHECK(a, result, MPI_ERR_ARG, "result is NULL");
  if (a == b) {
    *result = MPI_IDENT;
  } else if (!a->remote != !b->remote) {
    *result = MPI_UNEQUAL;
  } else if (a->remote) {
    // Inter-communicators: congruent when both groups are the same, in the same order, else unequal.
    *result = a->local->tasks == b->local->tasks && a->remote->tasks == b->remote->tasks ? MPI_CONGRUENT
                                                                                         : MPI_UNEQUAL;
  } else if (a->local->tasks == b->local->tasks) {
    *result = MPI_CONGRUENT;
  } else if (a->size == b->size) {
    std::vector<uint32_t> x = a->local->tasks, y = b->local->tasks;
    std::sort(x.begin(), x.end());
    std::sort(y.begin(), y.end());
    *result = x == y ? MPI_SIMILAR : MPI_UNEQUAL;
  } else {
    *result = MPI_UNEQUAL;
  }
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Comm_compare);

int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group) {
  PAMIR_ENTER("MPI_Comm_group");
  Comm *c = PAMIR_COMM(comm);
  PAMIR_CHECK(c, group, MPI_ERR_ARG, "group is NULL");
  if (!c->local->predefined) ++c->local->refs;  // the caller frees it with MPI_Group_free
  *group = group_handle(c->local);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Comm_group);

int PMPI_Comm_test_inter(MPI_Comm comm, int *flag) {
  PAMIR_ENTER("MPI_Comm_test_inter");
  Comm *c = PAMIR_COMM(comm);
  PAMIR_CHECK(c, flag, MPI_ERR_ARG, "flag is NULL");
  *flag = c->remote != nullptr;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Comm_test_inter);

int PMPI_Comm_remote_size(MPI_Comm comm, int *size) {
  PAMIR_ENTER("MPI_Comm_remote_size");
  Comm *c = PAMIR_COMM(comm);
  PAMIR_CHECK(c, size, MPI_ERR_ARG, "size is NULL");
  PAMIR_CHECK(c, c->remote, MPI_ERR_COMM, "the communicator is not an inter-communicator");
  *size = c->remote->size();
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Comm_remote_size);

int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group) {
  PAMIR_ENTER("MPI_Comm_remote_group");
  Comm *c = PAMIR_COMM(comm);
  PAMIR_CHECK(c, group, MPI_ERR_ARG, "group is NULL");
  PAMIR_CHECK(c, c->remote, MPI_ERR_COMM, "the communicator is not an inter-communicator");
  if (!c->remote->predefined) ++c->remote->refs;
  *group = group_handle(c->remote);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Comm_remote_group);

int PMPI_Comm_get_parent(MPI_Comm *parent) {
  PAMIR_ENTER("MPI_Comm_get_parent");
  PAMIR_CHECK(nullptr, parent, MPI_ERR_ARG, "parent is NULL");
  *parent = MPI_COMM_NULL;  // no process of a Pamir job was spawned
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Comm_get_parent);

int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info) {
  PAMIR_ENTER("MPI_Comm_set_info");
  Comm *c = PAMIR_COMM(comm);
  Info *i = info_of(info);
  PAMIR_CHECK(c, i, MPI_ERR_INFO, "info is not a valid info object");
  // Keys given replace their old values; other hints stay.
  Info merged{};
  merged.items = c->hints;
  for (const auto &kv : i->items) merged.set(kv.first, kv.second);
  if (int rc = comm_coll_hints(c, merged.items, c->coll_forced, fn_)) return rc;
  c->hints = std::move(merged.items);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Comm_set_info);

int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used) {
  PAMIR_ENTER("MPI_Comm_get_info");
  Comm *c = PAMIR_COMM(comm);
  PAMIR_CHECK(c, info_used, MPI_ERR_ARG, "info_used is NULL");
  *info_used = info_handle(info_make(c->hints));
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Comm_get_info);

int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name) {
  PAMIR_ENTER("MPI_Comm_set_name");
  Comm *c = PAMIR_COMM(comm);
  PAMIR_CHECK(c, comm_name, MPI_ERR_ARG, "comm_name is NULL");
  c->name.assign(comm_name, strnlen(comm_name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Comm_set_name);

int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen) {
  PAMIR_ENTER("MPI_Comm_get_name");
  if (comm == MPI_COMM_NULL) {  // MPI 4.1: the null handle's name
    PAMIR_CHECK(nullptr, comm_name && resultlen, MPI_ERR_ARG, "comm_name or resultlen is NULL");
    static constexpr char kNull[] = "MPI_COMM_NULL";
    std::memcpy(comm_name, kNull, sizeof kNull);
    *resultlen = int(sizeof kNull - 1);
    return MPI_SUCCESS;
  }
  Comm *c = PAMIR_COMM(comm);
  PAMIR_CHECK(c, comm_name && resultlen, MPI_ERR_ARG, "comm_name or resultlen is NULL");
  std::memcpy(comm_name, c->name.c_str(), c->name.size() + 1);
  *resultlen = int(c->name.size());
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Comm_get_name);
