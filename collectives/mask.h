// Collective algorithm selection by bit mask (seed 002). Every characteristic of a collective call that
// can decide an algorithm is one bit: what does not change per call (the communicator's size is a power
// of two, all its ranks share a node, it is small, its ranks are ordered by node) is computed once when
// the communicator is created, as a partial mask per collective; what the call decides (contiguous
// datatype, built-in and commutative operation, in place, aligned buffers, and the size class from the
// collective's size table, seed 000) is OR-ed in at the call. Each collective has an ordered list of
// (mask, care) -> algorithm entries: an entry matches when (call_mask & care) == mask; the first match
// wins, entries whose care covers every bit are also found by an exact-match table first, and the last
// entry of a list matches everything. Selection sends no message and allocates nothing.
//
// Nothing here knows MPI handles; algorithms are numbers the collectives' registry names.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace pamir::coll {

enum class Collective : uint8_t {
  barrier,
  bcast,
  reduce,
  allreduce,
  gather,
  scatter,
  allgather,
  alltoall,
  scan,
  exscan,
  reduce_scatter,
  reduce_scatter_block,
  gatherv,
  scatterv,
  allgatherv,
  alltoallv,
  alltoallw,
  neighbor_allgather,
  neighbor_allgatherv,
  neighbor_alltoall,
  neighbor_alltoallv,
  neighbor_alltoallw,
  count_
};
const char *collective_name(Collective c);

// The bits. Per communicator: 0-7 and 14; per call: 8-13; the size class: 16-19.
constexpr uint32_t kPowerOfTwo = 1u << 0;   // communicator size is a power of two
constexpr uint32_t kOneNode = 1u << 1;      // every rank on one node
constexpr uint32_t kSmallComm = 1u << 2;    // size <= kSmallCommMax
constexpr uint32_t kNodeOrdered = 1u << 3;  // ranks numbered node by node
// The communicator has a slot in the node's shared collective areas (collectives/shm_slot.h): one node,
// at most kShmSlotMaxRanks ranks, and a context id among the first kShmSlots.
constexpr uint32_t kShmSlot = 1u << 4;
// Where every rank lives is known (the launcher gave each rank's node) and some node holds two or more
// of the communicator's ranks: a hierarchical algorithm (one leader per node, the node's shared
// memory inside it, the fabric between nodes; collectives/nodes.h) has a node phase to do.
constexpr uint32_t kNodeGroups = 1u << 5;
// The node's ranks outnumber its usable CPUs (pami/cpus.h), so a rank that waits for every other to
// arrive waits for time slices: algorithms that synchronise all ranks several times lose to trees.
// The same on every rank of a one-node communicator.
constexpr uint32_t kOversubscribed = 1u << 6;
// An inter-communicator: only the algorithms that need this bit serve it, and they serve nothing else.
constexpr uint32_t kInter = 1u << 7;
constexpr uint32_t kContiguous = 1u << 8;  // the datatype is contiguous
constexpr uint32_t kBuiltinOp = 1u << 9;   // a predefined reduction operation
constexpr uint32_t kCommutative = 1u << 10;
constexpr uint32_t kInPlace = 1u << 11;
constexpr uint32_t kAligned = 1u << 12;  // every buffer 64-byte aligned
// A blocking call in a process that is not MPI_THREAD_MULTIPLE: nothing else of this process can hold
// the node's shared collective area meanwhile (the shared-memory algorithms need that).
constexpr uint32_t kExclusive = 1u << 13;
// The communicator holds every rank of the torus (PAMIR_DEVICE=torus), so its ranks' coordinates form
// the whole grid and each dimension's lines are rings of neighbours (collectives/grid.h): the torus
// algorithms, whose every message crosses one link, can serve it.
constexpr uint32_t kTorusGrid = 1u << 14;
constexpr uint32_t kSizeClassShift = 16;
constexpr uint32_t kSizeClassBits = 0xFu << kSizeClassShift;
constexpr uint32_t kAllBits = 0xFFu | (0x3Fu << 8) | kTorusGrid | kSizeClassBits;
constexpr int kSmallCommMax = 8;

inline uint32_t size_class_bits(unsigned size_class) {
  return (uint32_t(size_class) << kSizeClassShift) & kSizeClassBits;
}

// Bits a call may have on some ranks and not on others: datatype layouts and buffer addresses are each
// rank's own, and MPI_IN_PLACE is the root's alone in a rooted collective. Every rank must run the same
// algorithm, so no list entry may depend on them (they are in the mask for what a rank does with its
// own data, and for PAMIR_STATS and pamir_info).
inline uint32_t rank_local_bits(Collective c) {
  const bool rooted = c == Collective::reduce || c == Collective::gather || c == Collective::scatter ||
                      c == Collective::gatherv || c == Collective::scatterv;
  return kContiguous | kAligned | (rooted ? kInPlace : 0);
}

// The partial mask of a communicator (the same for every collective today; kept per collective so that
// one may care about a characteristic the others do not compute).
uint32_t comm_mask(int size, bool one_node, bool node_ordered, bool shm_slot, bool node_groups = false,
                   bool oversubscribed = false, bool torus_grid = false);

// The bit of one name describe_mask uses ("one-node"); 0 for a name of no bit.
uint32_t bit_by_name(const std::string &name);

// The bits of a mask spelled out, "power-of-two|one-node|contiguous|size-class=2" ("none" for 0).
std::string describe_mask(uint32_t mask);

class Selector {
 public:
  static constexpr size_t kMaxEntries = 32;  // per collective
  static constexpr size_t kExactSlots = 64;  // per collective, open addressing

  struct Entry {
    uint32_t mask;
    uint32_t care;
    uint16_t algorithm;
  };

  // Appends an entry to the collective's ordered list. False, with the reason, for an entry whose mask
  // has bits outside its care, a second entry with the same (mask, care), or a full list.
  bool add(Collective c, uint32_t mask, uint32_t care, uint16_t algorithm, std::string &why);
  // Removes every entry of the collective (a tuning file replaces the list).
  void clear(Collective c);

  // The algorithm for a call's mask: the exact-match table, then the first entry that matches; -1 when
  // none does (a list should end with an entry of care 0, which always does).
  int select(Collective c, uint32_t mask) const noexcept {
    const List &l = lists_[size_t(c)];
    for (size_t i = hash(mask), n = 0; n < kExactSlots; i = (i + 1) % kExactSlots, ++n) {
      const Exact &e = l.exact[i];
      if (!e.used) break;
      if (e.mask == mask) return e.algorithm;
    }
    for (size_t i = 0; i < l.count; ++i)
      if ((mask & l.entries[i].care) == l.entries[i].mask) return l.entries[i].algorithm;
    return -1;
  }

  size_t size(Collective c) const { return lists_[size_t(c)].count; }
  const Entry &entry(Collective c, size_t i) const { return lists_[size_t(c)].entries[i]; }

 private:
  struct Exact {
    uint32_t mask;
    uint16_t algorithm;
    bool used;
  };
  struct List {
    Entry entries[kMaxEntries];
    size_t count = 0;
    Exact exact[kExactSlots] = {};
  };
  static size_t hash(uint32_t mask) noexcept { return size_t((mask * 0x9E3779B1u) >> 26) % kExactSlots; }

  List lists_[size_t(Collective::count_)];
};

}  // namespace pamir::coll
