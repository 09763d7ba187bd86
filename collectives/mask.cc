#include "collectives/mask.h"

namespace pamir::coll {

namespace {
const char *const kCollectiveNames[] = {"barrier",
                                        "bcast",
                                        "reduce",
                                        "allreduce",
                                        "gather",
                                        "scatter",
                                        "allgather",
                                        "alltoall",
                                        "scan",
                                        "exscan",
                                        "reduce_scatter",
                                        "reduce_scatter_block",
                                        "gatherv",
                                        "scatterv",
                                        "allgatherv",
                                        "alltoallv",
                                        "alltoallw",
                                        "neighbor_allgather",
                                        "neighbor_allgatherv",
                                        "neighbor_alltoall",
                                        "neighbor_alltoallv",
                                        "neighbor_alltoallw"};
static_assert(sizeof kCollectiveNames / sizeof kCollectiveNames[0] == size_t(Collective::count_));

const struct {
  uint32_t bit;
  const char *name;
} kBitNames[] = {
    {kPowerOfTwo, "power-of-two"},       {kOneNode, "one-node"},      {kSmallComm, "small"},
    {kNodeOrdered, "node-ordered"},      {kContiguous, "contiguous"}, {kBuiltinOp, "builtin-op"},
    {kCommutative, "commutative"},       {kInPlace, "in-place"},      {kAligned, "aligned"},
    {kExclusive, "exclusive"},           {kShmSlot, "shm-slot"},      {kNodeGroups, "node-groups"},
    {kOversubscribed, "oversubscribed"}, {kInter, "inter"},           {kTorusGrid, "torus-grid"},
};
}  // namespace

const char *collective_name(Collective c) {
  return size_t(c) < size_t(Collective::count_) ? kCollectiveNames[size_t(c)] : "?";
}

uint32_t comm_mask(int size, bool one_node, bool node_ordered, bool shm_slot, bool node_groups,
                   bool oversubscribed, bool torus_grid) {
  uint32_t m = 0;
  if (size > 0 && (size & (size - 1)) == 0) m |= kPowerOfTwo;
  if (one_node) m |= kOneNode;
  if (size <= kSmallCommMax) m |= kSmallComm;
  if (node_ordered) m |= kNodeOrdered;
  if (shm_slot) m |= kShmSlot;
  if (node_groups) m |= kNodeGroups;
  if (oversubscribed) m |= kOversubscribed;
  if (torus_grid) m |= kTorusGrid;
  return m;
}

uint32_t bit_by_name(const std::string &name) {
  for (const auto &b : kBitNames)
    if (name == b.name) return b.bit;
  return 0;
}

std::string describe_mask(uint32_t mask) {
  std::string s;
  for (const auto &b : kBitNames)
    if (mask & b.bit) {
      if (!s.empty()) s += '|';
      s += b.name;
    }
  if (mask & kSizeClassBits) {
    if (!s.empty()) s += '|';
    s += "size-class=" + std::to_string((mask & kSizeClassBits) >> kSizeClassShift);
  }
  return s.empty() ? "none" : s;
}

bool Selector::add(Collective c, uint32_t mask, uint32_t care, uint16_t algorithm, std::string &why) {
  List &l = lists_[size_t(c)];
  if (mask & ~care) {
    why = std::string(collective_name(c)) + ": mask " + describe_mask(mask) +
          " has bits outside its care mask " + describe_mask(care);
    return false;
  }
  for (size_t i = 0; i < l.count; ++i)
    if (l.entries[i].mask == mask && l.entries[i].care == care) {
      why = std::string(collective_name(c)) + ": a second entry for mask " + describe_mask(mask) +
            " / care " + describe_mask(care);
      return false;
    }
  if (l.count == kMaxEntries) {
    why = std::string(collective_name(c)) + ": more than " + std::to_string(kMaxEntries) + " entries";
    return false;
  }
  l.entries[l.count++] = {mask, care, algorithm};
  // An entry that cares about every bit names one mask exactly: found by hashing, unless an earlier
  // entry already matches that mask (first match wins, so the exact table must agree with the scan).
  if (care == kAllBits) {
    bool earlier = false;
    for (size_t i = 0; i + 1 < l.count; ++i)
      if ((mask & l.entries[i].care) == l.entries[i].mask) earlier = true;
    if (!earlier)
      for (size_t i = hash(mask), n = 0; n < kExactSlots; i = (i + 1) % kExactSlots, ++n)
        if (!l.exact[i].used) {
          l.exact[i] = {mask, algorithm, true};
          break;
        }
  }
  return true;
}

void Selector::clear(Collective c) {
  lists_[size_t(c)] = List{};
}

}  // namespace pamir::coll
