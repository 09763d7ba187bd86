// A single-producer/single-consumer ring of cache-line-aligned, variable-length packets in shared memory.
//
// Layout of one ring (it lives in the node segment at an offset; nothing in it is a pointer):
//
//   +0    RingHeader line: capacity, sender and receiver local ranks (written once, before publication)
//   +128  head: the consumer's position (bytes consumed, monotonic); written by the consumer only
//   +256  data: `capacity` bytes (a power of two), a sequence of packets, each starting on a 64-byte line
//
// A packet occupies ceil((16 + round8(hdr_len) + payload_len) / 64) lines and never wraps: when it does not
// fit before the end of the data area the producer writes a padding marker and puts it at the start.
//
//   +0  word         0 = nothing here yet; n = a packet of n lines; kPadFlag|n = skip n lines (to the end)
//   +4  dispatch
//   +6  hdr_len
//   +8  payload_len
//   +12 seq          per-ring packet number (debugging aid)
//   +16 protocol header (hdr_len bytes), then the payload at 16 + round8(hdr_len) (8-byte aligned)
//
// `word` is written last with release semantics; the consumer reads it with acquire. Stale bytes from the
// previous lap (old payloads can look like anything) are never mistaken for a packet: before publishing a
// packet the producer stores 0 into the word of the line right after it, so the line the consumer reads
// next is always either 0 or a freshly published word. That costs one reserved line of capacity.
//
// The producer keeps its tail privately and a cached copy of head; it reads the shared head only when the
// cached copy says the ring looks full, so the head line stays in the consumer's cache. The consumer
// advances head after the packet was handed over, so the handler reads the packet in place.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace pamir::dev::shm {

inline constexpr uint64_t kLine = 64;
inline constexpr uint32_t kPadFlag = 0x80000000u;
inline constexpr uint32_t kRingMagic = 0x52494e47u;  // "RING"
inline constexpr uint64_t kRingHeadOffset = 128;
inline constexpr uint64_t kRingDataOffset = 256;
inline constexpr uint64_t kPacketHeaderBytes = 16;

struct RingHeader {
  uint64_t capacity;  // bytes of the data area, a power of two
  uint32_t sender;    // local rank of the producer
  uint32_t receiver;  // local rank of the consumer
  uint32_t magic;
};

struct PacketHeader {
  uint32_t word;
  uint16_t dispatch;
  uint16_t hdr_len;
  uint32_t payload_len;
  uint32_t seq;
};
static_assert(sizeof(PacketHeader) == kPacketHeaderBytes);

// Bytes from the start of a packet to its payload.
constexpr uint64_t ring_payload_offset(uint32_t hdr_len) noexcept {
  return kPacketHeaderBytes + ((uint64_t{hdr_len} + 7) & ~uint64_t{7});
}
// Lines a packet occupies.
constexpr uint64_t ring_packet_lines(uint32_t hdr_len, uint64_t payload_len) noexcept {
  return (ring_payload_offset(hdr_len) + payload_len + kLine - 1) / kLine;
}
// Largest packet (device header included) a ring of `capacity` bytes accepts.
constexpr uint64_t ring_max_packet(uint64_t capacity) noexcept { return capacity / 4; }
// Bytes a ring of `capacity` occupies in the segment.
constexpr uint64_t ring_footprint(uint64_t capacity) noexcept { return kRingDataOffset + capacity; }

// Formats zeroed memory (ring_footprint(capacity) bytes, 64-byte aligned) as an empty ring.
inline void ring_format(void *mem, uint64_t capacity, uint32_t sender, uint32_t receiver) noexcept {
  auto *h = static_cast<RingHeader *>(mem);
  h->capacity = capacity;
  h->sender = sender;
  h->receiver = receiver;
  h->magic = kRingMagic;
}

class RingProducer {
 public:
  void attach(void *mem) noexcept {
    char *base = static_cast<char *>(mem);
    cap_ = reinterpret_cast<const RingHeader *>(base)->capacity;
    mask_ = cap_ - 1;
    head_ = reinterpret_cast<uint64_t *>(base + kRingHeadOffset);
    data_ = base + kRingDataOffset;
    tail_ = head_cache_ = std::atomic_ref<uint64_t>(*head_).load(std::memory_order_acquire);
    seq_ = 0;
    pads_ = 0;
  }
  bool attached() const noexcept { return data_ != nullptr; }
  uint64_t capacity() const noexcept { return cap_; }
  uint64_t tail() const noexcept { return tail_; }
  uint64_t pads() const noexcept { return pads_; }  // how often the producer wrapped with a marker

  // Copies one packet into the ring. Returns false, having written nothing, when it does not fit now.
  // The caller guarantees hdr_len < 65536 and ring_packet_lines(...) * 64 <= ring_max_packet(capacity).
  bool try_push(uint16_t dispatch, const void *hdr, uint32_t hdr_len, const void *payload,
                uint64_t payload_len) noexcept {
    const uint64_t lines = ring_packet_lines(hdr_len, payload_len);
    const uint64_t bytes = lines * kLine;
    uint64_t idx = tail_ & mask_;
    const uint64_t to_end = cap_ - idx;
    const uint64_t pad = bytes > to_end ? to_end : 0;
    // The packet, the padding before it, and the line after it (which gets a zero word).
    const uint64_t need = pad + bytes + kLine;
    if (tail_ + need - head_cache_ > cap_) [[unlikely]] {
      head_cache_ = std::atomic_ref<uint64_t>(*head_).load(std::memory_order_acquire);
      if (tail_ + need - head_cache_ > cap_) return false;
    }
    const uint64_t pad_idx = idx;
    if (pad) idx = 0;
    char *cell = data_ + idx;
    auto *ph = reinterpret_cast<PacketHeader *>(cell);
    ph->dispatch = dispatch;
    ph->hdr_len = static_cast<uint16_t>(hdr_len);
    ph->payload_len = static_cast<uint32_t>(payload_len);
    ph->seq = seq_++;
    if (hdr_len) std::memcpy(cell + kPacketHeaderBytes, hdr, hdr_len);
    if (payload_len) std::memcpy(cell + ring_payload_offset(hdr_len), payload, payload_len);
    auto *next = reinterpret_cast<PacketHeader *>(data_ + ((idx + bytes) & mask_));
    std::atomic_ref<uint32_t>(next->word).store(0, std::memory_order_relaxed);
    std::atomic_ref<uint32_t>(ph->word).store(static_cast<uint32_t>(lines), std::memory_order_release);
    if (pad) [[unlikely]] {
      // Published after the packet: the consumer reaches the packet only through the marker.
      auto *marker = reinterpret_cast<PacketHeader *>(data_ + pad_idx);
      std::atomic_ref<uint32_t>(marker->word)
          .store(kPadFlag | static_cast<uint32_t>(pad / kLine), std::memory_order_release);
      ++pads_;
    }
    tail_ += pad + bytes;
    return true;
  }

 private:
  char *data_ = nullptr;
  uint64_t *head_ = nullptr;  // shared, written by the consumer
  uint64_t cap_ = 0, mask_ = 0;
  uint64_t tail_ = 0, head_cache_ = 0;
  uint32_t seq_ = 0;
  uint64_t pads_ = 0;
};

class RingConsumer {
 public:
  void attach(void *mem) noexcept {
    char *base = static_cast<char *>(mem);
    const auto *h = reinterpret_cast<const RingHeader *>(base);
    cap_ = h->capacity;
    mask_ = cap_ - 1;
    sender_ = h->sender;
    shared_head_ = reinterpret_cast<uint64_t *>(base + kRingHeadOffset);
    data_ = base + kRingDataOffset;
    head_ = std::atomic_ref<uint64_t>(*shared_head_).load(std::memory_order_relaxed);
  }
  bool attached() const noexcept { return data_ != nullptr; }
  uint32_t sender() const noexcept { return sender_; }
  uint64_t head() const noexcept { return head_; }

  // Whether a packet (or a padding marker, which is always followed by one) is waiting.
  bool ready() const noexcept {
    auto *ph = reinterpret_cast<PacketHeader *>(data_ + (head_ & mask_));
    return std::atomic_ref<uint32_t>(ph->word).load(std::memory_order_acquire) != 0;
  }

  // Hands at most `max` packets to f(dispatch, hdr, hdr_len, payload, payload_len), in order, each in
  // place; its space is released when f returns. Returns how many.
  template <class F>
  unsigned drain(unsigned max, F &&f) noexcept {
    unsigned n = 0;
    while (n < max) {
      char *cell = data_ + (head_ & mask_);
      auto *ph = reinterpret_cast<PacketHeader *>(cell);
      const uint32_t w = std::atomic_ref<uint32_t>(ph->word).load(std::memory_order_acquire);
      if (w == 0) break;
      if (w & kPadFlag) [[unlikely]] {
        head_ += uint64_t{w & ~kPadFlag} * kLine;
        continue;
      }
      f(ph->dispatch, static_cast<const void *>(cell + kPacketHeaderBytes), uint32_t{ph->hdr_len},
        static_cast<const void *>(cell + ring_payload_offset(ph->hdr_len)), size_t{ph->payload_len});
      head_ += uint64_t{w} * kLine;
      std::atomic_ref<uint64_t>(*shared_head_).store(head_, std::memory_order_release);
      ++n;
    }
    return n;
  }

 private:
  char *data_ = nullptr;
  uint64_t *shared_head_ = nullptr;
  uint64_t cap_ = 0, mask_ = 0;
  uint64_t head_ = 0;
  uint32_t sender_ = 0;
};

}  // namespace pamir::dev::shm
