// The memory a torus job's ranks share with the engine (issue 20, section 1): what a Blue Gene/Q node's
// cores share with its messaging unit. One file in /dev/shm holds a header and one block per rank; the
// engine maps all of it, each rank maps it too and touches its own block (and the header's doorbell).
//
// A rank's block (docs/torus-seeds.md gives the seeds' words for each piece):
// - an injection FIFO of fixed-size descriptors: the rank produces (writes a descriptor, then moves
//   inj_tail), the engine consumes, and moves inj_done once every packet of a descriptor has been
//   delivered, which frees its slot (seed 004's producer and consumer addresses);
// - beside each descriptor slot, its lookaside payload: the bytes of a memory-FIFO packet (protocol
//   header and data, at most one packet's payload), since the caller of a send keeps its buffer only
//   for the call (PAMI on Blue Gene/Q copies short payloads to such a buffer too);
// - a reception FIFO of packets, each a 32-byte header and at most 512 bytes of payload: the engine
//   produces, the rank consumes (seed 004: "Information in the packet header tells the DMA ... what to
//   do with the packet");
// - byte counters, which the engine decrements as the bytes they count land (seed 004's reception
//   counters; seed 001's acknowledgment counters), each with a status that a failed transfer sets;
// - a base-address table: the regions of the rank's memory peers may put into or get from, named by
//   index, as offsets within them (the engine refuses anything outside);
// - the rank's doorbell, which the engine rings after writing a packet or a counter the rank may sleep
//   on, and the rank's pid, which the engine's cross-memory copies name.
//
// The engine never trusts a descriptor: a bad destination, counter or base index fails that transfer
// (the status of the rank's counter, or a packet dropped with the reason in the header), never the
// engine.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "devices/shm/doorbell.h"

namespace pamir::torus {

constexpr uint64_t kAreaMagic = 0x32737572'6f74504dull;  // "MPtorus2"
constexpr uint32_t kPacketPayload = 512;                 // seed 004: "a packet could be ... up to 512 bytes"
constexpr uint32_t kInjectionSlots = 256;
constexpr uint32_t kReceptionSlots = 512;
constexpr uint32_t kCounters = 256;
constexpr uint32_t kBases = 256;
// Recorded patterns (seed 004) the engine replays itself: a pool of FIFOs per rank.
constexpr uint32_t kPatternFifos = 8;
constexpr uint32_t kPatternSlots = 64;
static_assert(kPatternFifos <= 32, "the device keeps the running ones in a 32-bit mask");
constexpr uint32_t kPatternHeader = 16;  // protocol header bytes a pattern descriptor keeps

// A descriptor's intent (seed 004: "deposited on a destination buffer or FIFO or ... a remote get").
enum class Intent : uint8_t {
  memory_fifo = 1,  // the lookaside bytes, as one packet, into the destination's reception FIFO
  direct_put = 2,   // `length` bytes of the origin's memory into the destination's base region
  remote_get = 3,   // `length` bytes of the destination's base region into the origin's memory
  counter_put = 4,  // take `length` off the destination's counter `remote_counter` (and set `status`)
};

struct Descriptor {
  Intent intent = Intent::memory_fifo;
  uint8_t hints : 4 = 0;     // routing hints (0: dimension order, the only one so far)
  uint8_t flags : 4 = 0;     // kFromMemory
  uint16_t dispatch = 0;     // memory_fifo: the device's dispatch id
  uint32_t dest = 0;         // destination task
  uint16_t hdr_len = 0;      // memory_fifo: protocol header bytes at the start of the lookaside payload
  uint16_t payload_len = 0;  // memory_fifo: bytes of the lookaside payload in all
  uint32_t remote_base = 0;  // index + 1 in the destination's base-address table (0: none)
  uint64_t length = 0;       // direct_put, remote_get, counter_put: bytes
  uint64_t local_addr = 0;   // direct_put: source, remote_get: destination, in the origin's memory
  uint64_t remote_offset = 0;
  uint32_t local_counter = 0;   // index + 1 of the origin's counter that the landed bytes take from (0: none)
  uint32_t remote_counter = 0;  // index + 1 of the destination's counter (direct_put, counter_put; 0: none)
  int32_t status = 0;           // counter_put: stored in the destination's counter when nonzero
  // The timing model's (section 2): the rank's stamp when it wrote this, from what its program had
  // completed (pami/vclock.h); the descriptor starts no earlier. And the stamp's expression, for the
  // replay after the run.
  uint32_t not_before_x = 0;
  uint64_t not_before_ns = 0;
};
static_assert(sizeof(Descriptor) == 64);
// A memory-FIFO descriptor of a pattern FIFO: its payload is read from the rank's memory at
// `local_addr` at every start (the data changes between starts, the descriptor does not), its header
// from the pattern's header bytes.
constexpr uint32_t kFromMemory = 1;

// A recorded pattern's FIFO: `size` descriptors written once; each start adds `size` to `tail`, and the
// engine walks the same descriptors again (seed 004: "the descriptor would be identical").
struct alignas(64) PatternFifoArea {
  alignas(64) std::atomic<uint64_t> tail;  // rank: descriptors started
  alignas(64) std::atomic<uint64_t> done;  // engine: descriptors carried
  // The timing model's: the rank's stamp at the latest start (its descriptors leave no earlier). A start
  // waits for the previous one's sends to be carried, so one value serves, as for the next two.
  std::atomic<uint64_t> start_ns;
  std::atomic<uint32_t> start_x;  // and its expression (pami/vclock.h)
  // Where the latest start falls among the rank's other sends (MPI's order between two messages of one
  // envelope): the injection FIFO's descriptors written before it, and the rank's pattern_kicks it set.
  // The engine takes the start after the first and in the order of the second.
  std::atomic<uint64_t> inj_at;
  std::atomic<uint64_t> kick;
  uint32_t size;
  Descriptor slots[kPatternSlots];
  uint8_t headers[kPatternSlots][kPatternHeader];
};

// Why a transfer failed, as a counter's status or a packet's: -errno, the values the device returns.
struct PacketHeader {
  uint32_t src;  // the sending task
  uint16_t dispatch;
  uint16_t hdr_len;
  uint32_t payload_len;
  uint32_t vt_x;   // the expression of its arrival (pami/vclock.h): the replay's
  uint64_t seq;    // the engine's count of packets into this FIFO (a check, and the tests')
  uint64_t vt_ns;  // the timing model's arrival time
};
static_assert(sizeof(PacketHeader) == 32);

struct ReceptionSlot {
  PacketHeader h;
  uint8_t payload[kPacketPayload];
};

struct Counter {
  std::atomic<int64_t> value;   // bytes still to land; the owner arms it, the engine takes from it
  std::atomic<int64_t> status;  // 0, or the first failure's -errno
  std::atomic<uint64_t> vt_ns;  // the timing model's time of the latest bytes to land
  std::atomic<uint32_t> vt_x;   // and its expression (pami/vclock.h)
  uint32_t pad;
};
static_assert(sizeof(Counter) == 32 && std::atomic<int64_t>::is_always_lock_free);

// A landing (seed 004's receive side): a reception slot the rank keeps for the packets of one source
// whose protocol header equals `key` (a recorded receive's match bits). While the rank holds it open, the
// engine writes such a packet there instead of into the reception FIFO, numbered in the same sequence
// as the FIFO's packets, so the rank can take it without matching and still keep the source's order.
constexpr uint32_t kLandings = 32;
constexpr uint32_t kLandingClosed = 0, kLandingOpen = 1, kLandingClaimed = 2, kLandingFull = 3;
struct alignas(64) Landing {
  // Closed and Open are the rank's to set; the engine claims an Open landing (Claimed), writes the slot,
  // then marks it Full; the rank takes the packet and closes or reopens it. A rank that closes an Open
  // landing does so with a compare-exchange, so it and the engine never both think they own the slot.
  std::atomic<uint32_t> state;
  uint32_t src;  // the task whose packets it takes
  uint16_t dispatch;
  uint16_t key_len;
  uint8_t key[kPatternHeader];
  ReceptionSlot slot;
};

struct BaseEntry {
  std::atomic<uint64_t> addr;  // in the owner's address space
  std::atomic<uint64_t> len;   // 0: the entry is free
};

struct alignas(64) RankBlock {
  alignas(64) std::atomic<uint64_t> inj_tail;  // rank: descriptors written
  alignas(64) std::atomic<uint64_t> inj_done;  // engine: descriptors whose every packet was delivered
  // The line the engine reads or writes for every packet it delivers here, and the rank polls.
  alignas(64) std::atomic<uint64_t> rec_tail;  // engine: packets written
  std::atomic<uint32_t> landing_mask;          // rank: the landings set up, which the engine looks through
  std::atomic<uint32_t> lost;  // engine: memory-FIFO packets to this rank that a fault dropped (lost_what)
  dev::shm::Doorbell bell;
  std::atomic<uint64_t> landed;  // engine: packets written into landings (a sleeper's check)
  std::atomic<uint64_t> zeroed;  // engine: counters of this rank that reached zero (a sleeper's check)
  alignas(64) std::atomic<uint64_t> rec_head;  // rank: packets consumed (the engine reads it when full)
  alignas(64) std::atomic<int32_t> pid;        // set once the rank has let the engine read its memory
  std::atomic<uint32_t> state;                 // kRankAbsent, kRankAttached, kRankDetached
  std::atomic<uint64_t> descriptors_written;   // the device's count (report: zero on a replay)
  char lost_what[192];  // engine: the first lost packet's source and link, for the rank's error
  // engine: transfers on this rank's counters that a fault failed (-ENOLINK), and the first one's
  // link, for the rank's error
  std::atomic<uint32_t> failed;
  char failed_what[188];
  Counter counters[kCounters];
  BaseEntry bases[kBases];
  Landing landings[kLandings];
  alignas(64) std::atomic<uint64_t> pattern_kicks;  // rank: pattern starts (the engine looks when it moves)
  PatternFifoArea patterns[kPatternFifos];
  Descriptor injection[kInjectionSlots];
  uint8_t lookaside[kInjectionSlots][kPacketPayload];
  ReceptionSlot reception[kReceptionSlots];
};
constexpr uint32_t kRankAbsent = 0, kRankAttached = 1, kRankDetached = 2;

struct alignas(64) AreaHeader {
  uint64_t magic;  // kAreaMagic once the header is complete
  uint32_t ranks;
  uint32_t block_bytes;                // sizeof(RankBlock): a rank built differently refuses the area
  std::atomic<int32_t> engine_pid;     // set by the engine once it serves the area
  std::atomic<uint32_t> engine_state;  // kEngineStarting, kEngineServing, kEngineFailed, kEngineDone
  char dims[64];                       // the geometry the ranks asked for (PAMIR_TORUS_DIMS, PAMIR_TORUS_MAP)
  char map[16];
  char failure[256];   // the engine's reason when kEngineFailed
  char report[256];    // PAMIR_TORUS_REPORT: where the engine writes its report at the end ("": none)
  char fault[256];     // PAMIR_TORUS_FAULT (fault.h), checked by rank 0
  uint32_t link_mbps;  // the timing model's link bandwidth, per direction (PAMIR_TORUS_LINK_MBPS)
  uint32_t hop_ns;     // and per-hop latency (PAMIR_TORUS_HOP_NS)
  alignas(64) dev::shm::Doorbell bell;  // the engine's: ranks ring it after moving inj_tail
};
constexpr uint32_t kEngineStarting = 0, kEngineServing = 1, kEngineFailed = 2, kEngineDone = 3;

constexpr size_t area_bytes(uint32_t ranks) {
  return sizeof(AreaHeader) + size_t(ranks) * sizeof(RankBlock);
}
inline RankBlock *rank_block(void *area, uint32_t rank) {
  return reinterpret_cast<RankBlock *>(static_cast<char *>(area) + sizeof(AreaHeader)) + rank;
}

}  // namespace pamir::torus
