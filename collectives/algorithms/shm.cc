// The shared-memory algorithms (seed 002's stand-in for Blue Gene's collective network): barrier,
// bcast, reduce and allreduce through the communicator's slot in the node's shared collective areas
// (collectives/shm_slot.h), with no point-to-point message at all. They need the slot (kShmSlot) and a
// blocking call in a process without MPI_THREAD_MULTIPLE (kExclusive): the slot then serves one
// collective of its communicator at a time.
//
// An owner publishes data in its next cell; readers wait for the publication's id, use the data in
// place and acknowledge it. Every write another rank may wait on is followed by Context::coll_notify,
// which wakes it if it sleeps (with no fence, so a wake-up may be missed and the waiter's sleep is
// short: collectives/schedule.cc). Messages larger than a cell go in chunks, each its own publication,
// so the two cells pipeline them.
//
// allreduce: every rank publishes its chunk; each reduces all of them itself, from the highest rank
// down, so the operation sees them in rank order (non-commutative operations are fine). One round of
// cache-line transfers instead of log p message latencies; p * n * gamma per rank.
// reduce: the same with only the root reading. bcast: the root publishes, the others copy out.
// barrier: every rank publishes an empty chunk and waits for all the others'.
#include <atomic>
#include <cstring>

#include "collectives/algorithms/algorithms.h"
#include "collectives/algorithms/shm_cells.h"
#include "collectives/shm_slot.h"
#include "pami/context.h"
#include "pami/request.h"

namespace pamir::coll {

using namespace cells;  // NOLINT(google-build-using-namespace): the cells are this file's vocabulary

Task barrier_shm(Sched &s, Args) {
  const int p = s.team.size, me = s.team.rank;
  if (p == 1) co_return 0;
  const uint64_t id = shm_id(s.seq, 0);
  ShmCell *mine = take_cell(s);
  co_await s.until(cell_free, mine);
  publish(s, mine, id, -1);
  Find f{};  // what a step waits for (lives in the frame)
  for (int r = 0; r < p; ++r)
    if (r != me) {
      f = find(s, r, id);
      co_await s.until(found, &f);
      acknowledge(s, f, r);
    }
  prefetch_next(s);
  co_return 0;
}

Task bcast_shm(Sched &s, Args a) {
  const int p = s.team.size, me = s.team.rank, root = a.root;
  if (p == 1 || a.bytes == 0) co_return 0;
  auto *buf = static_cast<unsigned char *>(a.recvbuf);
  Find f{};
  for (size_t off = 0, chunk = 0; off < a.bytes; off += kShmCellData, ++chunk) {
    const size_t n = a.bytes - off < kShmCellData ? a.bytes - off : kShmCellData;
    const uint64_t id = shm_id(s.seq, chunk);
    if (me == root) {
      ShmCell *mine = take_cell(s);
      co_await s.until(cell_free, mine);
      std::memcpy(mine->data, buf + off, n);
      publish(s, mine, id, -1);
    } else {
      f = find(s, root, id);
      co_await s.until(found, &f);
      std::memcpy(buf + off, f.cell->data, n);
      acknowledge(s, f, root);
    }
  }
  prefetch_next(s);
  co_return 0;
}

// Reduce (all false: to the root) and allreduce (all true).
Task reduce_shm_impl(Sched &s, Args a, bool all) {
  const ReduceEnds ends(s, a, all);
  if (ends.trivial(s, a)) co_return 0;
  const int p = s.team.size, me = s.team.rank, root = ends.root;
  const Reduction &op = a.op;
  const size_t ext = op.extent, bytes = ends.bytes;
  const bool gets_result = ends.gets_result;
  const unsigned char *const in = ends.in;
  unsigned char *const out = ends.out;
  const size_t cap = kShmCellData / ext * ext;
  ShmCell *theirs[kShmSlotMaxRanks];
  Find f{};
  // The root of a reduce publishes nothing and combines its own data where it lies, except when, in
  // place and not the last rank, rank order would overwrite it before its turn: then it stages it in
  // its cell.
  const bool publishes = all || me != root;
  const bool stage_own = publishes || (a.in_place && !op.commutative && me != p - 1);
  for (size_t off = 0, chunk = 0; off < bytes; off += cap, ++chunk) {
    const size_t n = bytes - off < cap ? bytes - off : cap;
    const uint64_t id = shm_id(s.seq, chunk);
    const unsigned char *own = in + off;
    if (stage_own) {
      ShmCell *mine = take_cell(s);
      co_await s.until(cell_free, mine);
      std::memcpy(mine->data, in + off, n);
      if (publishes) publish(s, mine, id, all ? -1 : root);
      own = mine->data;
    }
    if (!gets_result) continue;
    for (int r = 0; r < p; ++r)
      if (r != me) {
        f = find(s, r, id);
        co_await s.until(found, &f);
        theirs[r] = f.cell;
      }
    unsigned char *acc = out + off;
    if (!all && op.commutative) {
      // One result, so any fixed order: the root's own data first (where it lies, in place).
      int first = me;  // the rank whose data acc starts with
      if (own != acc) {
        first = me == 0 ? 1 : 0;
        std::memcpy(acc, theirs[first]->data, n);
        op.apply(own, acc, n / ext, op.arg);
      }
      for (int r = 0; r < p; ++r)
        if (r != me && r != first) op.apply(theirs[r]->data, acc, n / ext, op.arg);
    } else {
      // out = x0 op (x1 op (... op x(p-1))): from the highest rank down, lower ranks on the left. Every
      // rank of an allreduce combines in the same order, so all get the same bits.
      auto data = [&](int r) { return r == me ? own : theirs[r]->data; };
      if (data(p - 1) != acc) std::memcpy(acc, data(p - 1), n);
      for (int r = p - 2; r >= 0; --r) op.apply(data(r), acc, n / ext, op.arg);
    }
    for (int r = 0; r < p; ++r)
      if (r != me) acknowledge(s, Find{nullptr, id, theirs[r]}, r);
  }
  prefetch_next(s);
  co_return 0;
}

// Plain functions handing out the one coroutine: no second frame on the latency-critical path.
Task reduce_shm(Sched &s, Args a) {
  return reduce_shm_impl(s, a, false);
}
Task allreduce_shm(Sched &s, Args a) {
  return reduce_shm_impl(s, a, true);
}

}  // namespace pamir::coll
