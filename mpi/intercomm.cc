// Inter-communicators (MPI 5.0 §7.6): MPI_Intercomm_create, MPI_Intercomm_create_from_groups,
// MPI_Intercomm_merge, and the exchange of groups that MPI_Comm_create on an inter-communicator needs.
//
// An inter-communicator has one context pair, free on every process of both groups (as Open MPI
// does): its point-to-point messages carry the sender's local rank and name the receiver by its rank
// in the other group, and its collectives run on a team of both groups numbered alike by both
// (Comm::team, collectives/algorithms/inter.cc). The pair is agreed in rounds like every other
// (mpi/context_id.h), with the reduction of a round made of three steps: an AND over each group's
// local communicator, a swap of the two results between the groups' leaders over a bridge (the peer
// communicator, or the reserved parentless pair for the _from_groups form), and a broadcast in each
// group. Before the rounds the leaders swap their groups, and the two local communicators' (id,
// sequence number) pairs from which both groups compute the agreement's key.
#include <algorithm>
#include <cstring>
#include <string>
#include <unordered_set>
#include <vector>

#include "collectives/algorithms/algorithms.h"
#include "collectives/coll.h"
#include "collectives/scratch.h"
#include "mpi/check.h"
#include "mpi/context_id.h"
#include "mpi/session.h"
#include "pami/context.h"
#include "pamir_alias.h"

namespace pamir::mpi {

namespace {

// The channel between the two groups' leaders: a two-process team on a context both are on, under a
// tag both computed alike. Team rank 0 is the leader with the lower wire rank.
struct Bridge {
  uint16_t ctx = 0;
  int32_t tag = 0;
  uint32_t tasks[2] = {};
  int wire[2] = {};
  int me = 0;
  Bridge() = default;
  Bridge(uint16_t ctx, int32_t tag, uint32_t my_task, int my_wire, uint32_t peer_task, int peer_wire)
      : ctx(ctx), tag(tag), me(my_wire < peer_wire ? 0 : 1) {
    tasks[me] = my_task;
    wire[me] = my_wire;
    tasks[1 - me] = peer_task;
    wire[1 - me] = peer_wire;
  }
  // Pointers into this object: made afresh by every use.
  coll::Team team() const {
    coll::Team t{me, 2, ctx, tasks};
    t.ranks = wire;
    return t;
  }
};

// Intercomm_create's tag on the peer communicator's collective context: a range of its own below
// the collectives' internal tags (the user's tag, cut to 25 bits).
constexpr int32_t kBridgeTag = 1 << 25;

// What a group's leader tells the other.
struct Side {
  uint32_t size;
  uint16_t ctx;  // the local communicator's, with its sequence number: the agreement's key
  uint16_t pad;
  uint64_t seq;
};

// The leaders swap their Sides and groups over the bridge; each broadcasts the other's in its group
// (the Sched's team: the local communicator, `leader` its rank there).
coll::Task swap_sides(coll::Sched &s, const Bridge *b, int leader, const Side *mine,
                      const std::vector<uint32_t> *my_tasks, Side *theirs,
                      std::vector<uint32_t> *their_tasks) {
  if (s.team.rank == leader) {
    coll::Sched::SubTeam bridge(s, b->team(), b->tag);
    const int peer = 1 - b->me;
    if (int e = co_await s.sendrecv(peer, mine, sizeof *mine, peer, theirs, sizeof *theirs)) co_return e;
    if (theirs->size == 0 || theirs->size > kMaxRanks) co_return int(Err::truncate);
    their_tasks->resize(theirs->size);
    if (int e = co_await s.sendrecv(peer, my_tasks->data(), my_tasks->size() * 4, peer, their_tasks->data(),
                                    their_tasks->size() * 4))
      co_return e;
  }
  coll::Args a;
  a.recvbuf = theirs;
  a.bytes = sizeof *theirs;
  a.root = leader;
  if (int e = co_await coll::bcast_binomial(s, a)) co_return e;
  if (theirs->size == 0 || theirs->size > kMaxRanks) co_return int(Err::truncate);
  their_tasks->resize(theirs->size);
  a.recvbuf = their_tasks->data();
  a.bytes = their_tasks->size() * 4;
  co_return co_await coll::bcast_binomial(s, a);
}

// The agreement of an inter-communicator's pair: each round ANDs over the local communicator, across
// the bridge, and broadcasts the result in the group.
struct InterAgreement final : BlockingAgreement {
  InterAgreement(const coll::Team &local, int32_t tag, uint64_t key, const Bridge *b, int leader)
      : BlockingAgreement(local, tag, key, true), bridge_(b), leader_(leader) {}

 private:
  coll::Task reduce(coll::Sched &s, uint32_t *words, size_t n) override {
    return bridged(s, words, n, bridge_, leader_);
  }
  static coll::Task bridged(coll::Sched &s, uint32_t *words, size_t n, const Bridge *b, int leader) {
    const coll::Reduction band =
        coll::builtin_reduction(coll::reduce_fn(coll::OpKind::band, coll::ElemType::u32), 4);
    coll::Args a;
    a.recvbuf = words;
    a.count = n;
    a.op = band;
    a.in_place = true;
    if (int e = co_await coll::allreduce_recursive_doubling(s, a)) co_return e;
    if (s.team.rank == leader) {
      coll::Scratch theirs(n * 4);
      if (!theirs.get()) co_return int(Err::intern);
      {
        coll::Sched::SubTeam bridge(s, b->team(), b->tag);
        const int peer = 1 - b->me;
        if (int e = co_await s.sendrecv(peer, words, n * 4, peer, theirs.get(), n * 4)) co_return e;
      }
      band.apply(theirs.get(), words, n, band.arg);
    }
    coll::Args c;
    c.recvbuf = words;
    c.bytes = n * 4;
    c.root = leader;
    co_return co_await coll::bcast_binomial(s, c);
  }
  const Bridge *bridge_;
  int leader_;
};

// MPI_Intercomm_create's work once the leaders have their bridge (the other processes pass an unused
// one): the new inter-communicator over local's group and the other's, with error handler eh; errors
// are raised on `err` (nullptr: with no communicator).
int intercomm_build(Comm *local, int leader, const Bridge &b, Errhandler *eh, Comm *err, const char *fn,
                    Comm **out) {
  *out = nullptr;
  const uint64_t seq = local->coll_seq;
  local->coll_seq += 2;  // one for the swap, one for the agreement
  const Side mine{uint32_t(local->size), local->ctx, 0, seq};
  Side theirs{};
  std::vector<uint32_t> their_tasks;
  {
    coll::Sched s(local->team(), coll::seq_tag(seq), seq);
    if (int rc = coll::run(s, swap_sides(s, &b, leader, &mine, &local->local->tasks, &theirs, &their_tasks)))
      return creation_failed(err, fn, rc);
  }
  const std::unordered_set<uint32_t> here(local->local->tasks.begin(), local->local->tasks.end());
  for (uint32_t t : their_tasks)
    if (here.count(t))
      return raise(err, fn, MPI_ERR_COMM,
                   "process %u is in both groups (an inter-communicator's groups must be disjoint)", t);
  InterAgreement a(local->team(), coll::seq_tag(seq + 1), inter_key(local->ctx, seq, theirs.ctx, theirs.seq),
                   &b, leader);
  uint16_t ctx = 0;
  const int rc = a.wait();
  if (rc == Agreement::kNoFreeId)
    return raise(err, fn, MPI_ERR_OTHER, "no context id is free on all processes of both groups");
  if (rc) return creation_failed(err, fn, rc);
  ctx = a.ctx;
  Group *remote = group_make(std::move(their_tasks));
  *out = intercomm_make(local->local, remote, ctx, eh);
  group_release(remote);
  return MPI_SUCCESS;
}

// The leaders swap what each group passed (as sizes, then job ranks) over the inter-communicator, and
// each broadcasts the other's in its group.
coll::Task swap_groups(coll::Sched &s, const std::vector<uint32_t> *mine, std::vector<uint32_t> *theirs) {
  const coll::Team whole = s.team;
  const bool first = whole.rank == whole.local_base;
  uint32_t n = uint32_t(mine->size()), m = 0;
  if (first) {
    if (int e = co_await s.sendrecv(whole.remote_base, &n, 4, whole.remote_base, &m, 4)) co_return e;
    if (m > kMaxRanks) co_return int(Err::truncate);
    theirs->resize(m);
    if (int e = co_await s.sendrecv(whole.remote_base, mine->data(), n * 4, whole.remote_base, theirs->data(),
                                    m * 4))
      co_return e;
  }
  coll::Sched::SubTeam local(s, whole.local());
  coll::Args a;
  a.recvbuf = &m;
  a.bytes = 4;
  a.root = 0;
  if (int e = co_await coll::bcast_binomial(s, a)) co_return e;
  if (m > kMaxRanks) co_return int(Err::truncate);
  theirs->resize(m);
  a.recvbuf = theirs->data();
  a.bytes = m * 4;
  co_return co_await coll::bcast_binomial(s, a);
}

}  // namespace

int intercomm_swap_groups(Comm *c, Group *mine, Group **remote, const char *fn) {
  *remote = nullptr;
  std::vector<uint32_t> theirs;
  const uint64_t seq = c->coll_seq++;
  coll::Sched s(c->team(), coll::seq_tag(seq), seq);
  if (int rc = coll::run(s, swap_groups(s, &mine->tasks, &theirs))) return creation_failed(c, fn, rc);
  if (!theirs.empty()) *remote = group_make(std::move(theirs));
  return MPI_SUCCESS;
}

}  // namespace pamir::mpi

using namespace pamir::mpi;

int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader,
                          int tag, MPI_Comm *newintercomm) {
  PAMIR_ENTER("MPI_Intercomm_create");
  Comm *lc = PAMIR_COMM(local_comm);
  PAMIR_CHECK(lc, newintercomm, MPI_ERR_ARG, "newintercomm is NULL");
  PAMIR_CHECK(lc, !lc->remote, MPI_ERR_COMM, "local_comm is an inter-communicator");
  PAMIR_CHECK(lc, local_leader >= 0 && local_leader < lc->size, MPI_ERR_RANK,
              "local_leader %d is outside local_comm (size %d)", local_leader, lc->size);
  Bridge b;
  if (lc->rank == local_leader) {
    // peer_comm, remote_leader and tag are significant at the leaders only.
    Comm *pc = PAMIR_COMM(peer_comm);
    PAMIR_CHECK(lc, !pc->remote, MPI_ERR_COMM,
                "peer_comm is an inter-communicator (Pamir bridges the leaders over an intra-communicator)");
    PAMIR_CHECK(lc, remote_leader >= 0 && remote_leader < pc->size, MPI_ERR_RANK,
                "remote_leader %d is outside peer_comm (size %d)", remote_leader, pc->size);
    PAMIR_CHECK(lc, remote_leader != pc->rank, MPI_ERR_RANK,
                "remote_leader %d is this process, the local leader: the groups must be disjoint",
                remote_leader);
    PAMIR_CHECK(lc, tag >= 0 && tag <= pamir::kTagUb, MPI_ERR_TAG, "tag %d is outside [0, MPI_TAG_UB=%d]",
                tag, pamir::kTagUb);
    b = Bridge(pc->coll_ctx(), kBridgeTag | (tag & (kBridgeTag - 1)), pc->local_task(pc->rank), pc->rank,
               pc->local_task(remote_leader), remote_leader);
  }
  *newintercomm = MPI_COMM_NULL;
  Comm *n = nullptr;
  if (int rc = intercomm_build(lc, local_leader, b, lc->errhandler, lc, fn_, &n)) return rc;
  *newintercomm = comm_handle(n);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Intercomm_create);

int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader, MPI_Group remote_group,
                                      int remote_leader, const char *stringtag, MPI_Info info,
                                      MPI_Errhandler errhandler, MPI_Comm *newintercomm) {
  PAMIR_ENTER("MPI_Intercomm_create_from_groups");
  Group *lg = lookup<Group>(local_group);
  PAMIR_CHECK(nullptr, lg, MPI_ERR_GROUP, "local_group is not a valid group");
  PAMIR_CHECK(nullptr, stringtag && newintercomm, MPI_ERR_ARG, "stringtag or newintercomm is NULL");
  Errhandler *eh = nullptr;
  if (int rc = parentless_args(fn_, info, errhandler, &eh)) return rc;
  PAMIR_CHECK(nullptr, lg->rank != MPI_UNDEFINED, MPI_ERR_GROUP, "the calling process is not in local_group");
  PAMIR_CHECK(nullptr, local_leader >= 0 && local_leader < lg->size(), MPI_ERR_RANK,
              "local_leader %d is outside local_group (size %d)", local_leader, lg->size());
  // The leaders' bridge: the reserved parentless pair, messages naming job ranks, under a tag made
  // from the string tag (and not the one the local communicators' agreements use).
  const std::string bridge_tag = std::string(stringtag) + "\x1fpamir-bridge";
  Bridge b;
  if (lg->rank == local_leader) {
    Group *rg = lookup<Group>(remote_group);
    PAMIR_CHECK(nullptr, rg, MPI_ERR_GROUP, "remote_group is not a valid group");
    PAMIR_CHECK(nullptr, remote_leader >= 0 && remote_leader < rg->size(), MPI_ERR_RANK,
                "remote_leader %d is outside remote_group (size %d)", remote_leader, rg->size());
    const uint32_t me = lg->tasks[size_t(lg->rank)], peer = rg->tasks[size_t(remote_leader)];
    PAMIR_CHECK(nullptr, me != peer, MPI_ERR_RANK,
                "the remote leader is this process, the local leader: the groups must be disjoint");
    b = Bridge(uint16_t(kParentlessCtx + 1), int32_t(string_tag_hash(bridge_tag.c_str()) & 0x7FFFFFF), me,
               int(me), peer, int(peer));
  }
  *newintercomm = MPI_COMM_NULL;
  // Each group's local communicator first (disjoint groups: the same tag cannot mix them), then the
  // same protocol as MPI_Intercomm_create; the local communicator goes when it is done.
  Comm *local = nullptr;
  const std::string local_tag = std::string(stringtag) + "\x1fpamir-local";
  if (int rc = comm_create_parentless(lg, local_tag.c_str(), eh, &local, fn_)) return rc;
  Comm *n = nullptr;
  const int rc = intercomm_build(local, local_leader, b, eh, nullptr, fn_, &n);
  comm_release(local);
  if (rc) return rc;
  n->session = lg->session;
  *newintercomm = comm_handle(n);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Intercomm_create_from_groups);

int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm) {
  PAMIR_ENTER("MPI_Intercomm_merge");
  Comm *c = PAMIR_COMM(intercomm);
  PAMIR_CHECK(c, newintracomm, MPI_ERR_ARG, "newintracomm is NULL");
  PAMIR_CHECK(c, c->remote, MPI_ERR_COMM, "intercomm is not an inter-communicator");
  *newintracomm = MPI_COMM_NULL;
  // Every process's `high` (the same within a group): the group that passed false comes first, and
  // with equal values the lower group of the team (the same answer on both).
  const pamir::coll::Team t = c->team();
  std::vector<int32_t> all(size_t(t.size));
  const int32_t mine = high ? 1 : 0;
  if (int rc = pamir::coll::internal_allgather(t, &mine, all.data(), sizeof mine))
    return creation_failed(c, fn_, rc);
  const int32_t theirs = all[size_t(c->remote_base)];
  const bool local_first = mine != theirs ? !mine : c->local_base == 0;
  std::vector<uint32_t> tasks = local_first ? c->local->tasks : c->remote->tasks;
  const std::vector<uint32_t> &second = local_first ? c->remote->tasks : c->local->tasks;
  tasks.insert(tasks.end(), second.begin(), second.end());
  const uint64_t seq = c->coll_seq++;
  BlockingAgreement a(t, pamir::coll::seq_tag(seq), agreement_key(c->ctx, AgreeKind::collective, seq), true);
  uint16_t ctx = 0;
  if (int rc = creation_agree(c, fn_, a, ctx)) return rc;
  Group *g = group_make(std::move(tasks));
  Comm *n = comm_from_group(g, ctx, c->errhandler);
  group_release(g);
  *newintracomm = comm_handle(n);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Intercomm_merge);
