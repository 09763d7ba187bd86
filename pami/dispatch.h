// Dispatch ids of the active messages the PAMI layer registers. A device carries the id in every
// packet; the context hands the packet to the handler in its table at that index.
#pragma once

#include <cstdint>

namespace pamir {

enum Dispatch : uint16_t {
  kDispatchMsg = 1,       // first (often only) packet of a point-to-point message: MsgHeader + payload
  kDispatchFrag = 2,      // a following packet of the same message from the same sender: payload only
  kDispatchAck = 3,       // a synchronous send was matched: AckHeader
  kDispatchRts = 4,       // rendezvous request-to-send (seed 001): RtsHeader (+ layout: kLayoutInPacket)
  kDispatchResend = 5,    // the target cannot read the origin's memory: ResendHeader; the origin pushes
  kDispatchRdvData = 6,   // first packet of data pushed after a resend request: RdvDataHeader + payload
  kDispatchPut = 7,       // one-sided put by packets: PutHeader + payload, copied to PutHeader::addr
  kDispatchPutAck = 8,    // every packet of a put is in place: AckHeader with the origin's cookie
  kDispatchGet = 9,       // one-sided get by packets: GetHeader; the target answers with kDispatchGetData
  kDispatchGetData = 10,  // part of a get's answer: GetDataHeader + payload
  kDispatchShort = 11,    // a whole message in one packet, sent at once: the match bits (8 bytes) + payload
  kDispatchMsgSig = 12,   // kDispatchMsg with the hash of the message's type signature: MsgSigHeader
  kDispatchWin = 13,      // a served window operation (pami/protocols/window_am.cc): its own header
  kDispatchCount = 14,
};

struct MsgHeader {
  uint64_t bits;         // match bits, see match.h
  uint64_t total;        // message length in bytes
  uint64_t sync_cookie;  // nonzero for a synchronous send: echoed back in the ack
};

struct MsgSigHeader {
  MsgHeader msg;
  uint64_t sig;
};

struct AckHeader {
  uint64_t sync_cookie;
};

// The acknowledgment a rendezvous target writes into the origin's slot: its counter is armed with this
// many bytes before the request-to-send leaves.
constexpr uint64_t kRdvAckBytes = sizeof(uint64_t);

// Where a rendezvous message's data lies in the origin's memory: `addr`, contiguous when `segs` is 0;
// else `count` elements `extent` bytes apart of the `nsegs` (offset, length) segments at `segs`, repeated
// over the `nloops` loops at `loops` (the origin's committed layout, which the target reads before the
// data: seed 003). Where the target cannot read the origin's metadata (Device::reads_layouts() false:
// only exposed data is readable on ofi), `segs` is kLayoutInPacket and the segments, then the loops,
// are the request-to-send's payload; `addr` is then where the element at offset 0 would be read, so
// that `addr` + a segment's offset is readable for every segment of the message.
constexpr uint64_t kLayoutInPacket = 1;  // never a segment array's address (they are 8-byte aligned)

struct RdvSource {
  uint64_t addr;     // as Device::expose gave it: the address or the offset the target reads at
  uint64_t ack_ref;  // the origin's acknowledgment slot (Device::ack_alloc)
  uint64_t key = 0;  // the memory key of the exposed data (Device::expose; 0 on shm)
  uint64_t segs = 0;
  uint64_t nsegs = 0;
  uint64_t loops = 0;
  uint64_t nloops = 0;
  uint64_t piece = 0;  // the origin's average contiguous piece in bytes (the whole message if contiguous)
  int64_t extent = 0;
  uint64_t count = 0;
};

struct RtsHeader {
  uint64_t bits;   // match bits
  uint64_t total;  // message length in bytes
  RdvSource src;
  uint64_t sig;  // hash of the message's type signature, 0 when not checked (PAMIR_CHECK_SIGNATURE)
};

struct ResendHeader {
  uint64_t ack_ref;        // names the origin's send
  uint64_t target_cookie;  // the matched receive, echoed in RdvDataHeader
  uint64_t refused;        // 1: the target cannot read the origin (later large messages go eagerly);
                           // 0: it chose packets for this message (layouts of small pieces)
};

struct RdvDataHeader {
  uint64_t target_cookie;
  uint64_t total;
};

// One-sided transfers: every packet names its own place, so packets of a put or of a get's answer
// need no per-peer reassembly state. `cookie` is the origin's request, echoed back.
struct PutHeader {
  uint64_t addr;    // where this packet's payload goes, in the target's address space
  uint64_t cookie;  // nonzero on the last packet only: acknowledge the put with it
};

struct GetHeader {
  uint64_t addr;  // the data, in the target's address space
  uint64_t bytes;
  uint64_t cookie;
};

struct GetDataHeader {
  uint64_t cookie;
  uint64_t offset;  // of this packet's payload within the get
};

}  // namespace pamir
