// Dispatch ids of the active messages the PAMI layer registers. A device carries the id in every
// packet; the context hands the packet to the handler in its table at that index.
#pragma once

#include <cstdint>

namespace pamir {

enum Dispatch : uint16_t {
  kDispatchMsg = 1,    // first (often only) packet of a point-to-point message: MsgHeader + payload
  kDispatchFrag = 2,   // a following packet of the same message from the same sender: payload only
  kDispatchAck = 3,    // a synchronous send was matched: AckHeader
  kDispatchCount = 4,
};

struct MsgHeader {
  uint64_t bits;         // match bits, see match.h
  uint64_t total;        // message length in bytes
  uint64_t sync_cookie;  // nonzero for a synchronous send: echoed back in the ack
};

struct AckHeader {
  uint64_t sync_cookie;
};

}  // namespace pamir
