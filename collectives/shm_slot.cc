#include "collectives/shm_slot.h"

#include <atomic>
#include <cstring>

#include "pami/context.h"

namespace pamir::coll {

namespace {

unsigned g_next_cell[kShmSlots];  // this process's next cell per slot (only it writes its cells)

inline unsigned pair_of(uint16_t coll_ctx) {
  return coll_ctx / 2u;
}

}  // namespace

bool shm_slot_usable(uint16_t coll_ctx, int size) {
  if (size == 1) return true;  // the algorithms touch no memory then
  Context &ctx = context();
  return pair_of(coll_ctx) < kShmSlots && size <= kShmSlotMaxRanks &&
         ctx.coll_area_bytes() >= kShmAreaBytes && ctx.coll_area(ctx.task()) != nullptr;
}

ShmSlot *shm_slot(uint32_t task, uint16_t coll_ctx) {
  return static_cast<ShmSlot *>(context().coll_area(task)) + pair_of(coll_ctx);
}

unsigned &shm_next_cell(uint16_t coll_ctx) {
  return g_next_cell[pair_of(coll_ctx)];
}

bool shm_cell_free(const ShmCell *c) {
  const uint64_t id = c->head.id;  // the owner's own write
  if (id == 0) return true;
  for (int r = 0; r < c->head.size; ++r) {
    if (r == c->head.owner || (c->head.readers >= 0 && r != c->head.readers)) continue;
    if (std::atomic_ref<const uint64_t>(c->ack[r]).load(std::memory_order_acquire) < id) return false;
  }
  return true;
}

bool shm_slot_reclaim(unsigned pair) {
  Context &ctx = context();
  if (pair >= kShmSlots || ctx.coll_area_bytes() < kShmAreaBytes) return true;
  void *area = ctx.coll_area(ctx.task());
  if (!area) return true;
  ShmSlot *slot = static_cast<ShmSlot *>(area) + pair;
  for (const ShmCell &c : slot->cell)
    if (!shm_cell_free(&c)) return false;
  // Every reader is done with these cells, so none writes an acknowledgement here again: a later
  // communicator's readers start from zero, as its ids do.
  for (ShmCell &c : slot->cell) {
    std::memset(&c.head, 0, sizeof c.head);
    std::memset(c.ack, 0, sizeof c.ack);
  }
  g_next_cell[pair] = 0;
  return true;
}

}  // namespace pamir::coll
