// Protocol selection by message size (seed 000): a table of strictly increasing inclusive upper bounds
// b0 < b1 < ... < SIZE_MAX, one protocol per range. The index of a size is the number of bounds below
// it, counted without branches over a fixed-length array, so a lookup costs the same for every size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace pamir {

enum class SendProtocol : uint8_t {
  immediate,  // the whole message in one packet next to its header; the send completes at once
  eager,      // packets through the device's FIFO; the receiver copies out of them
  rdma,       // rendezvous (seed 001): a request-to-send, the receiver reads the data from the sender
  count_
};

// One-sided transfers into and out of a peer's memory (Context::start_put / start_get).
enum class PutProtocol : uint8_t {
  eager,  // packets through the device's FIFO, each naming its place; the target copies them in
  rdma,   // the origin writes straight into the target's memory (shm: process_vm_writev)
  count_
};
enum class GetProtocol : uint8_t {
  eager,  // a request packet; the target answers with packets the origin copies out of
  rdma,   // the origin reads straight from the target's memory (shm: process_vm_readv)
  count_
};

const char *protocol_name(SendProtocol p);
const char *protocol_name(PutProtocol p);
const char *protocol_name(GetProtocol p);

template <typename Proto, unsigned MaxRanges = 8>
struct SizeTable {
  static constexpr unsigned max_ranges = MaxRanges;
  uint64_t bounds[MaxRanges];  // inclusive upper bound of each range; unused tail is UINT64_MAX
  Proto protos[MaxRanges];
  unsigned ranges = 0;

  unsigned index(uint64_t bytes) const {
    unsigned i = 0;
    for (unsigned k = 0; k < MaxRanges - 1; ++k) i += bounds[k] < bytes;
    return i;
  }
  Proto select(uint64_t bytes) const { return protos[index(bytes)]; }
};

using SendTable = SizeTable<SendProtocol>;
using PutTable = SizeTable<PutProtocol>;
using GetTable = SizeTable<GetProtocol>;

// The text form shared by every class, "immediate:192,eager:32K,rdma": every entry but the last has an
// inclusive bound (K/M/G suffixes), bounds strictly increase, and the last entry, without a bound,
// covers every larger size. `names` lists the class's protocols in enum order. Returns false with the
// reason in `why`; `protos` receives enum values.
bool parse_ranges(const char *text, const char *const *names, unsigned nnames, unsigned max_ranges,
                  uint64_t *bounds, uint8_t *protos, unsigned &ranges, std::string &why);
// The names of a class's protocols, in enum order.
template <typename Proto>
const char *const *protocol_names();
template <>
const char *const *protocol_names<SendProtocol>();
template <>
const char *const *protocol_names<PutProtocol>();
template <>
const char *const *protocol_names<GetProtocol>();

template <typename Proto, unsigned M>
bool parse_table(const char *text, SizeTable<Proto, M> &out, std::string &why) {
  uint8_t protos[M];
  SizeTable<Proto, M> t;
  if (!parse_ranges(text, protocol_names<Proto>(), unsigned(Proto::count_), M, t.bounds, protos, t.ranges,
                    why))
    return false;
  for (unsigned k = 0; k < M; ++k) t.protos[k] = Proto(protos[k]);
  out = t;
  return true;
}

// "eager [0, 1024], rdma [1025, inf)"
template <typename Proto, unsigned M>
std::string format_table(const SizeTable<Proto, M> &t) {
  std::string s;
  uint64_t lo = 0;
  for (unsigned k = 0; k < t.ranges; ++k) {
    if (k) s += ", ";
    s += protocol_name(t.protos[k]);
    s += " [" + std::to_string(lo) + ", ";
    s += t.bounds[k] == UINT64_MAX ? std::string("inf)") : std::to_string(t.bounds[k]) + "]";
    lo = t.bounds[k] + 1;
  }
  return s;
}

// Whether the devices can serve every range of a parsed table: an immediate range must fit in one
// packet (`immediate_limit` payload bytes), so it cannot be the last, unbounded range either. `limit_why`
// says where the limit comes from (e.g. "shm packets with PAMIR_SHM_RING_SIZE=64K"). Returns false with
// the bad part in `why`.
bool check_send_table(const SendTable &t, uint64_t immediate_limit, const std::string &limit_why,
                      std::string &why);

}  // namespace pamir
