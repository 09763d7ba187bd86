// The mailboxes of seed 004's ready tokens, for small messages: how the context lays out a device's
// pair area (Device::pair_area) of one direction, sender -> receiver. The receiver writes tokens, the
// sender writes messages; each side only reads what the other wrote.
//
// A token promises the sender's message number `seq1 - 1` (every message between a pair is numbered,
// Peer::sent and Peer::arrived) to one posted receive, if that message has match bits `bits` and at most
// `capacity` bytes, and if every message from number `base` (the receiver had taken all before it when
// it wrote the token) up to it came through the mailbox too: those were promised to receives posted
// earlier, so the promised receive is the one MPI would match. The sender claims a token by swapping
// seq1 for kClaimed, the receiver withdraws one (a cancel) by swapping it for 0: whichever swap comes
// first decides whether the message comes through the mailbox or the rings.
//
// Message n lives in slot n % kSlots, token n in token n % kSlots: a receiver promises at most kSlots
// messages beyond the ones it has taken, so a slot or token is written again only once its last message
// has been taken, and each is known by its sequence number (never cleared).
#pragma once

#include <cstddef>
#include <cstdint>

namespace pamir::box {

constexpr uint32_t kSlots = 16;
constexpr uint64_t kClaimed = ~uint64_t(0);

struct alignas(64) Token {
  uint64_t seq1;  // message number + 1, stored last (release); kClaimed once taken, 0 once withdrawn
  uint64_t base;
  uint64_t bits;
  uint64_t capacity;
};

constexpr size_t kSlotBytes = 192;
constexpr size_t kSlotHeader = 24;
constexpr uint64_t kPayload = kSlotBytes - kSlotHeader;  // the largest message a mailbox carries

struct alignas(64) Slot {
  uint64_t seq1;  // message number + 1, stored last (release)
  uint64_t bits;
  uint64_t len;
  uint8_t data[kPayload];
};
static_assert(sizeof(Slot) == kSlotBytes);

struct Area {
  Token tokens[kSlots];
  Slot slots[kSlots];
};
static_assert(sizeof(Area) == 4096, "a ring's pair area (devices/shm/ring.h) holds one");

}  // namespace pamir::box
