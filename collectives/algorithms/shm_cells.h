// The cells of a communicator's slot in the node's shared collective areas (collectives/shm_slot.h), as
// the algorithms that publish through them use them (algorithms/shm.cc, algorithms/cma.cc): take the
// next cell, publish into it, find a rank's publication, acknowledge it.
#pragma once

#include <atomic>
#include <cstring>

#include "collectives/algorithms/algorithms.h"
#include "collectives/schedule.h"
#include "collectives/shm_slot.h"
#include "pami/context.h"

namespace pamir::coll::cells {

inline bool cell_free(const void *cell) {
  return shm_cell_free(static_cast<const ShmCell *>(cell));
}

// Which of rank r's cells holds publication `id`: what a reader waits for (lives in the frame).
struct Find {
  ShmSlot *slot;
  uint64_t id;
  mutable ShmCell *cell;
};
inline bool found(const void *arg) {
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
inline void prefetch_next(const Sched &s) {
  const ShmCell *c = &s.team.slots[s.team.rank]->cell[shm_next_cell(s.team.ctx)];
  __builtin_prefetch(&c->head, 1);
  for (int r = 0; r < s.team.size; r += 8) __builtin_prefetch(&c->ack[r], 0);
}

// The data of `c` is written: publishes it as `id` to `readers` (a team rank, or -1 for all others).
inline void publish(Sched &s, ShmCell *c, uint64_t id, int readers) {
  c->head.readers = readers;
  c->head.size = uint16_t(s.team.size);
  c->head.owner = uint16_t(s.team.rank);
  std::atomic_ref<uint64_t>(c->head.id).store(id, std::memory_order_release);
  if (readers >= 0) return context().coll_notify(s.team.tasks[readers]);
  for (int r = 0; r < s.team.size; ++r)
    if (r != s.team.rank) context().coll_notify(s.team.tasks[r]);
}

// Done with rank r's publication in `f`: the owner may reuse its cell.
inline void acknowledge(Sched &s, const Find &f, int r) {
  std::atomic_ref<uint64_t>(f.cell->ack[s.team.rank]).store(f.id, std::memory_order_release);
  context().coll_notify(s.team.tasks[r]);
}

// The ends of a reduce (all false) or allreduce (all true) through the slot: who gets the result,
// where this rank's contribution lies (its receive buffer in place) and where the result goes.
struct ReduceEnds {
  int root;
  bool gets_result;
  const unsigned char *in;
  unsigned char *out;
  size_t bytes;
  ReduceEnds(const Sched &s, const Args &a, bool all)
      : root(all ? s.team.rank : a.root),
        gets_result(all || s.team.rank == root),
        in(static_cast<const unsigned char *>(a.in_place ? a.recvbuf : a.sendbuf)),
        out(static_cast<unsigned char *>(a.recvbuf)),
        bytes(a.count * a.op.extent) {}
  // Nothing to combine (one rank, or no element): copies what the call still needs; true then.
  bool trivial(const Sched &s, const Args &a) const {
    if (s.team.size != 1 && a.count != 0) return false;
    if (gets_result && !a.in_place && bytes) std::memcpy(out, in, bytes);
    return true;
  }
};

}  // namespace pamir::coll::cells
