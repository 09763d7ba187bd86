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

const char *protocol_name(SendProtocol p);

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

// Parses "immediate:192,eager:32K,eager" style text. Every entry but the last has a bound; bounds
// strictly increase. Returns false with the reason in `why`.
bool parse_send_table(const char *text, SendTable &out, std::string &why);
std::string format_send_table(const SendTable &t);

// Whether the devices can serve every range of a parsed table: an immediate range must fit in one
// packet (`immediate_limit` payload bytes), so it cannot be the last, unbounded range either. `limit_why`
// says where the limit comes from (e.g. "shm packets with PAMIR_SHM_RING_SIZE=64K"). Returns false with
// the bad part in `why`.
bool check_send_table(const SendTable &t, uint64_t immediate_limit, const std::string &limit_why,
                      std::string &why);

}  // namespace pamir
