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
#include "collectives/shm_slot.h"
#include "pami/context.h"
#include "pami/request.h"

namespace pamir::coll {

namespace {

bool cell_free(const void *cell) {
  return shm_cell_free(static_cast<const ShmCell *>(cell));
}

// Which of rank r's cells holds publication `id`: what a reader waits for (lives in the frame).
struct Find {
  ShmSlot *slot;
  uint64_t id;
  mutable ShmCell *cell;
};
bool found(const void *arg) {
  const auto *f = static_cast<const Find *>(arg);
  for (ShmCell &c : f->slot->cell)
    if (std::atomic_ref<uint64_t>(c.head.id).load(std::memory_order_acquire) == f->id) {
      f->cell = &c;
      return true;
    }
  return false;
}
inline Find find(const Sched &s, int r, uint64_t id) {
  return Find{s.team.slots[r], id, nullptr};
}

// This process's next cell in the slot; `co_await s.until(cell_free, cell)` before writing into it.
inline ShmCell *take_cell(const Sched &s) {
  unsigned &next = shm_next_cell(s.team.ctx);
  ShmCell *c = &s.team.slots[s.team.rank]->cell[next];
  next ^= 1u;
  return c;
}

// At the end of a call: starts fetching what the next publication reads (its cell's acknowledgements,
// whose readers are usually done with it by now) and writes (the header), so that it does not wait for
// those cache lines.
void prefetch_next(const Sched &s) {
  const ShmCell *c = &s.team.slots[s.team.rank]->cell[shm_next_cell(s.team.ctx)];
  __builtin_prefetch(&c->head, 1);
  for (int r = 0; r < s.team.size; r += 8) __builtin_prefetch(&c->ack[r], 0);
}

// The data of `c` is written: publishes it as `id` to `readers` (a team rank, or -1 for all others).
void publish(Sched &s, ShmCell *c, uint64_t id, int readers) {
  c->head.readers = readers;
  c->head.size = uint16_t(s.team.size);
  c->head.owner = uint16_t(s.team.rank);
  std::atomic_ref<uint64_t>(c->head.id).store(id, std::memory_order_release);
  if (readers >= 0) return context().coll_notify(s.team.tasks[readers]);
  for (int r = 0; r < s.team.size; ++r)
    if (r != s.team.rank) context().coll_notify(s.team.tasks[r]);
}

// Done with rank r's publication in `f`: the owner may reuse its cell.
void acknowledge(Sched &s, const Find &f, int r) {
  std::atomic_ref<uint64_t>(f.cell->ack[s.team.rank]).store(f.id, std::memory_order_release);
  context().coll_notify(s.team.tasks[r]);
}

}  // namespace

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
  const int p = s.team.size, me = s.team.rank, root = all ? me : a.root;
  const Reduction &op = a.op;
  const size_t ext = op.extent, bytes = a.count * ext;
  const bool gets_result = all || me == root;
  const auto *in = static_cast<const unsigned char *>(a.in_place ? a.recvbuf : a.sendbuf);
  auto *out = static_cast<unsigned char *>(a.recvbuf);
  if (p == 1 || a.count == 0) {
    if (gets_result && !a.in_place && bytes) std::memcpy(out, in, bytes);
    co_return 0;
  }
  const size_t cap = kShmCellData / ext * ext;
  ShmCell *theirs[kShmSlotMaxRanks];
  Find f{};
  for (size_t off = 0, chunk = 0; off < bytes; off += cap, ++chunk) {
    const size_t n = bytes - off < cap ? bytes - off : cap;
    const uint64_t id = shm_id(s.seq, chunk);
    // The root of a reduce copies its own chunk too: in place, out is its input.
    ShmCell *mine = take_cell(s);
    co_await s.until(cell_free, mine);
    std::memcpy(mine->data, in + off, n);
    if (all || me != root) publish(s, mine, id, all ? -1 : root);
    if (!gets_result) continue;
    for (int r = 0; r < p; ++r)
      if (r != me) {
        f = find(s, r, id);
        co_await s.until(found, &f);
        theirs[r] = f.cell;
      }
    // out = x0 op (x1 op (... op x(p-1))): from the highest rank down, lower ranks on the left.
    theirs[me] = mine;
    std::memcpy(out + off, theirs[p - 1]->data, n);
    for (int r = p - 2; r >= 0; --r) op.apply(theirs[r]->data, out + off, n / ext, op.arg);
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
