// The mailboxes of seed 004's ready tokens: how the context lays out a device's pair area
// (Device::pair_area) of one direction, sender -> receiver. The receiver writes tokens; the sender
// claims them and writes messages. A token offers either room in the cell for a small message
// (kBox), or the receive's own buffer to a direct put (kPut, pami/protocols/direct.cc), whose cell then
// carries only the message's header.
//
// A token promises the sender's message number `token - 1` (every message between a pair is numbered,
// Peer::sent and Peer::arrived) to one posted receive, if that message has match bits `bits` and at most
// `capacity` bytes, and if every message from number `base` (the receiver had taken all before it when
// it wrote the token; base = token - 1 - behind) up to it came through the mailbox too: those were promised
// to receives posted earlier, so the promised receive is the one MPI would match. The sender claims a token
// by swapping it for kClaimed, the receiver withdraws one (a cancel) by swapping it for 0: whichever swap
// comes first decides whether the message comes through the mailbox or the rings.
//
// Message n and its token share cell n % kSlots, one cache line: the token, the message's header and up
// to kPayload bytes of data, so a message costs the pair one line each way after the token, as a ring
// packet does. Cells are 256 bytes apart. Measured here, with a replayed halo of 8 messages each way:
//   - the token and the message in lines of their own made an exchange of 8 bytes slower, the sender
//     missing on the token and then on the message;
//   - messages of several lines made a halo of 64-byte messages 1.11x and of 128-byte ones 1.4x slower
//     than the rings, whose consecutive packets the hardware streams;
//   - cells on adjacent lines made the 8-byte halo 1.35x slower, and 128 bytes apart 1.2x, than cells
//     256 bytes apart: the processor fetches lines in pairs, so the receiver writing the next token
//     and the sender writing this message contended for the same pair.
// A receiver promises at most kSlots messages beyond the ones it has taken, so a cell is written again
// only once its last message has been taken; a cell's token and message are known by their sequence
// numbers (never cleared).
#pragma once

#include <cstddef>
#include <cstdint>

namespace pamir::box {

constexpr uint32_t kSlots = 16;
constexpr uint64_t kClaimed = ~uint64_t(0);
constexpr uint64_t kPayload = 32;  // the largest message a mailbox carries

// What a token offers (written by the receiver with the token), and how a put turned out (written by
// the sender with the message, over the token's kind).
enum Kind : uint8_t {
  kBox = 0,        // the message's data goes into the cell: at most `capacity` bytes
  kPut = 1,        // the data goes straight into the receive's buffer: PutTarget in `data`
  kPutFailed = 2,  // the sender claimed a kPut token but could not write the buffer: errno in `len`
};

// A kPut token's buffer, in the cell's data.
struct PutTarget {
  uint64_t addr;
  uint64_t capacity;
};

struct alignas(256) Cell {  // one line used: the distance is the point
  // The token, written by the receiver: message number + 1, stored last (release); kClaimed once the
  // sender took it, 0 once withdrawn. The token's base is its number minus `behind` (< kSlots).
  uint64_t token;
  uint64_t bits;
  // The message, written by the sender: its number + 1, stored last (release).
  uint64_t msg;
  uint16_t capacity;  // the token's (kBox)
  uint8_t behind;     // the token's
  uint8_t kind;       // the token's, then the message's (Kind)
  uint32_t len;       // the message's
  uint8_t data[kPayload];
};
static_assert(offsetof(Cell, data) + kPayload == 64, "a cell's contents are one cache line");
static_assert(sizeof(PutTarget) <= kPayload && kSlots <= UINT8_MAX, "a token fits its cell");

struct Area {
  Cell cells[kSlots];
};
static_assert(sizeof(Area) == 4096, "a ring's pair area (devices/shm/ring.h) holds one");

}  // namespace pamir::box
