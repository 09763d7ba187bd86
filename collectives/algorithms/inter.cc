// The collectives of an inter-communicator (MPI 5.0 §6.2.2). The team is both groups, numbered alike
// by both (Team: the lower group first), on the inter-communicator's own collective context; each
// group's part runs an intra algorithm on Team::local(), whose messages keep their whole-team ranks, so
// they never meet the messages between the groups.
//
// barrier: a dissemination barrier over both groups, which lets no process out before every process of
// the other group has come in.
// bcast: the root sends to the other group's first process, which broadcasts in its group (binomial).
// reduce, allreduce, reduce_scatter(_block): each group reduces its data to its first process (binomial,
// rank order for a non-commutative operation); the two first processes swap their results (allreduce,
// reduce_scatter) or the other group's first process sends its group's to the root (reduce); the result
// is broadcast (allreduce) or scattered (reduce_scatter) in the receiving group.
// gather(v), scatter(v): the root exchanges a message with every process of the other group.
// allgather(v), alltoall(v/w) (the MPI binding gives allgather and alltoall as parts, since a group's
// parts need not be as long as the other's): every process exchanges one message with every process of the
// other group, all posted at once (the other group's sizes may differ from this one's, so nothing pairs up
// step by step), each process starting at a different peer.
#include <cstring>

#include "collectives/algorithms/algorithms.h"
#include "collectives/scratch.h"
#include "pami/request.h"

namespace pamir::coll {

namespace {

bool leader(const Team &t) {
  return t.rank == t.local_base;
}

// What a process moves with each process of the other group: Block i of `blocks` (or block 0 for
// every peer), or `bytes` at base + i * stride (stride 0: the same bytes for every peer), or nothing.
struct Parts {
  const Block *blocks = nullptr;
  bool one_block = false;
  const void *base = nullptr;
  size_t bytes = 0, stride = 0;
  bool none() const { return !blocks && !bytes; }
  Block at(int i) const {
    if (blocks) return blocks[one_block ? 0 : i];
    return Block{static_cast<char *>(const_cast<void *>(base)) + size_t(i) * stride, bytes, nullptr, 0};
  }
  static Parts of(const Block *b) { return Parts{b, false, nullptr, 0, 0}; }
  static Parts one(const Block *b) { return Parts{b, true, nullptr, 0, 0}; }
  static Parts each(const void *base, size_t bytes) { return Parts{nullptr, false, base, bytes, bytes}; }
  static Parts same(const void *base, size_t bytes) { return Parts{nullptr, false, base, bytes, 0}; }
};

// One message from and one to every process of the other group, all in one step: every receive, then
// every send, each process starting at the peer its rank points at.
Task with_every_remote(Sched &s, Parts in, Parts out) {
  const Team &t = s.team;
  const int m = t.remote_size(), me = t.rank - t.local_base;
  s.unbounded = true;
  for (int pass = 0; pass < 2; ++pass)
    for (int k = 0; k < m; ++k) {
      const int i = (me + k) % m;
      const Parts &p = pass ? out : in;
      if (p.none()) continue;
      const Block b = p.at(i);
      if (!b.bytes) continue;
      if (pass) {
        s.isend(t.remote_base + i, b);
      } else {
        s.irecv(t.remote_base + i, b);
      }
    }
  const int e = co_await s.wait();
  s.unbounded = false;
  co_return e;
}

// This group's vectors reduced to its first process's `out` (count elements).
Task reduce_in_group(Sched &s, const Args &a, size_t count, void *out) {
  Sched::SubTeam local(s, s.team.local());
  Args b;
  b.sendbuf = a.sendbuf;
  b.recvbuf = out;
  b.count = count;
  b.op = a.op;
  b.root = 0;
  co_return co_await reduce_binomial(s, b);
}

Task bcast_in_group(Sched &s, void *buf, size_t bytes) {
  Sched::SubTeam local(s, s.team.local());
  Args b;
  b.recvbuf = buf;
  b.bytes = bytes;
  b.root = 0;
  co_return co_await bcast_binomial(s, b);
}

}  // namespace

Task barrier_inter(Sched &s, Args a) {
  co_return co_await barrier_dissemination(s, a);
}

Task bcast_inter(Sched &s, Args a) {
  if (a.root == kRootIdle) co_return 0;
  if (a.root == kRootHere) co_return co_await s.send(s.team.remote_base, a.recvbuf, a.bytes);
  if (leader(s.team))
    if (int e = co_await s.recv(s.team.remote_base + a.root, a.recvbuf, a.bytes)) co_return e;
  co_return co_await bcast_in_group(s, a.recvbuf, a.bytes);
}

Task reduce_inter(Sched &s, Args a) {
  const size_t bytes = a.count * a.op.extent;
  if (a.root == kRootIdle) co_return 0;
  if (a.root == kRootHere) co_return co_await s.recv(s.team.remote_base, a.recvbuf, bytes);
  Scratch tmp(leader(s.team) ? bytes : 0);
  if (!tmp.get()) co_return int(Err::intern);
  if (int e = co_await reduce_in_group(s, a, a.count, tmp.get())) co_return e;
  if (leader(s.team)) co_return co_await s.send(s.team.remote_base + a.root, tmp.get(), bytes);
  co_return 0;
}

Task allreduce_inter(Sched &s, Args a) {
  const size_t bytes = a.count * a.op.extent;
  const bool first = leader(s.team);
  Scratch tmp(first ? bytes : 0);
  if (!tmp.get()) co_return int(Err::intern);
  if (int e = co_await reduce_in_group(s, a, a.count, tmp.get())) co_return e;
  if (first)
    if (int e =
            co_await s.sendrecv(s.team.remote_base, tmp.get(), bytes, s.team.remote_base, a.recvbuf, bytes))
      co_return e;
  co_return co_await bcast_in_group(s, a.recvbuf, bytes);
}

// a.counts: the elements of each process of this group; the other group's vectors have their sum too.
Task reduce_scatter_inter(Sched &s, Args a) {
  const int n = s.team.local_size, me = s.team.rank - s.team.local_base;
  size_t total = 0;
  for (int i = 0; i < n; ++i) total += a.counts[i];
  const size_t extent = a.op.extent, bytes = total * extent;
  const bool first = leader(s.team);
  Scratch mine(first ? bytes : 0), theirs(first ? bytes : 0);
  if (!mine.get() || !theirs.get()) co_return int(Err::intern);
  if (int e = co_await reduce_in_group(s, a, total, mine.get())) co_return e;
  if (first)
    if (int e = co_await s.sendrecv(s.team.remote_base, mine.get(), bytes, s.team.remote_base, theirs.get(),
                                    bytes))
      co_return e;
  Sched::SubTeam local(s, s.team.local());
  if (!first) {
    if (!a.counts[me]) co_return 0;
    co_return co_await s.recv(0, a.recvbuf, a.counts[me] * extent);
  }
  s.unbounded = true;
  size_t off = a.counts[0] * extent;
  for (int i = 1; i < n; ++i) {
    if (a.counts[i]) s.isend(i, theirs.get() + off, a.counts[i] * extent);
    off += a.counts[i] * extent;
  }
  if (a.counts[0]) std::memcpy(a.recvbuf, theirs.get(), a.counts[0] * extent);
  const int e = co_await s.wait();
  s.unbounded = false;
  co_return e;
}

Task gather_inter(Sched &s, Args a) {
  if (a.root == kRootIdle) co_return 0;
  if (a.root == kRootHere) co_return co_await with_every_remote(s, Parts::each(a.recvbuf, a.bytes), Parts{});
  co_return co_await s.send(s.team.remote_base + a.root, a.sendbuf, a.bytes);
}

Task scatter_inter(Sched &s, Args a) {
  if (a.root == kRootIdle) co_return 0;
  if (a.root == kRootHere) co_return co_await with_every_remote(s, Parts{}, Parts::each(a.sendbuf, a.bytes));
  co_return co_await s.recv(s.team.remote_base + a.root, a.recvbuf, a.bytes);
}

Task gatherv_inter(Sched &s, Args a) {
  if (a.root == kRootIdle) co_return 0;
  if (a.root == kRootHere) co_return co_await with_every_remote(s, Parts::of(a.rblocks), Parts{});
  if (!a.sblocks[0].bytes) co_return 0;
  co_return co_await s.send(s.team.remote_base + a.root, a.sblocks[0]);
}

Task scatterv_inter(Sched &s, Args a) {
  if (a.root == kRootIdle) co_return 0;
  if (a.root == kRootHere) co_return co_await with_every_remote(s, Parts{}, Parts::of(a.sblocks));
  if (!a.rblocks[0].bytes) co_return 0;
  co_return co_await s.recv(s.team.remote_base + a.root, a.rblocks[0]);
}

Task allgatherv_inter(Sched &s, Args a) {
  co_return co_await with_every_remote(s, Parts::of(a.rblocks), Parts::one(a.sblocks));
}

Task alltoallv_inter(Sched &s, Args a) {
  co_return co_await with_every_remote(s, Parts::of(a.rblocks), Parts::of(a.sblocks));
}

}  // namespace pamir::coll
