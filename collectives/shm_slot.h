// The communicators' slots in the node's shared collective areas (seed 002's stand-in for Blue Gene's
// collective network), which the shared-memory algorithms (algorithms/shm.cc) publish through.
//
// Every process's area (Device::coll_area) holds kShmSlots slots, one per context id pair: the
// communicator whose point-to-point context is 2k uses slot k of each member's area, if k < kShmSlots
// and it has at most kShmSlotMaxRanks ranks, all on one node (the mask bit kShmSlot). A process is in
// at most one live communicator per pair, so a slot belongs to one communicator at a time and nothing
// published there is ever mistaken for another communicator's.
//
// A slot holds two cells that its owner fills in turn. A cell is a header line (the publication's id,
// who reads it), then data, then one acknowledgement word per reader rank. The owner writes the data
// and then the id (release); a reader waits for the id in either cell of the owner (acquire), uses the
// data in place and stores the id into its acknowledgement word. An owner reuses a cell only once every
// reader of its last publication has acknowledged it, so with two cells a publication waits for the
// readers of the one before last, which are usually long done. Ids grow with the communicator's call
// sequence number and the chunk of the call, so acknowledgements are monotonic and the same id never
// appears twice in one communicator's life. The first 48 bytes of data share the id's cache line: a
// reader that sees the id of a small message has its data too.
//
// When a communicator is freed its context id pair returns to the free pool only once this process's
// cells in that slot have been read by every reader (a reader may still be inside the last collective
// when the owner frees the communicator); the cells are then cleared, so a later communicator with the
// same pair starts from empty cells (shm_slot_reclaim).
#pragma once

#include <cstddef>
#include <cstdint>

namespace pamir::coll {

constexpr unsigned kShmSlots = 16;           // context id pairs 0..15
constexpr int kShmSlotMaxRanks = 64;         // readers one cell can acknowledge
constexpr size_t kShmCellData = 16384 - 16;  // data bytes of a cell (header + data: 16 KiB)

struct ShmCellHead {
  uint64_t id;      // the publication (0: none)
  int32_t readers;  // the one team rank that reads it, or -1: every rank but the owner
  uint16_t size;    // team size
  uint16_t owner;   // the owner's team rank
};

struct alignas(64) ShmCell {
  ShmCellHead head;
  unsigned char data[kShmCellData];
  uint64_t ack[kShmSlotMaxRanks];  // reader rank -> the last id of this cell it has used
};

struct ShmSlot {
  ShmCell cell[2];
};

constexpr size_t kShmAreaBytes = kShmSlots * sizeof(ShmSlot);

// A publication's id: the call's sequence number on its communicator and the chunk of the call.
constexpr unsigned kShmChunkBits = 24;
inline uint64_t shm_id(uint64_t seq, uint64_t chunk) {
  return (seq + 1) << kShmChunkBits | chunk;
}

// Whether a communicator with this collective context id and size (all on this node) gets a slot
// (one of one rank needs none: the algorithms return at once).
bool shm_slot_usable(uint16_t coll_ctx, int size);

// The slot of collective context id coll_ctx in the area of `task` (a process of this node).
ShmSlot *shm_slot(uint32_t task, uint16_t coll_ctx);

// The cell this process fills next in the slot (they alternate), and the other one.
unsigned &shm_next_cell(uint16_t coll_ctx);

// Whether every reader of the cell's last publication has acknowledged it.
bool shm_cell_free(const ShmCell *c);

// Called when the context id pair `pair` is given back: true when this process's cells in its slot
// are read (or the pair has no slot) and have been cleared; false while a reader is still to come,
// in which case the caller keeps the pair out of use and asks again later.
bool shm_slot_reclaim(unsigned pair);

}  // namespace pamir::coll
