// A single-producer/single-consumer ring of cache-line-aligned, variable-length packets in shared memory.
//
// Layout of one ring (it lives in the node segment at an offset; nothing in it is a pointer):
//
//   +0    capacity, sender and receiver local ranks (written once, before the ring is published)
//   +64   want_space: raised by a producer that found the ring full, lowered by it once a push succeeds;
//         while it is up, the consumer rings the producer's doorbell after freeing room
//   +128  head: the consumer's position (bytes released, monotonic); written by the consumer only
//   +256  data: `capacity` bytes (a power of two) of packets, each starting on a 64-byte line
//   +256 + capacity   the pair area: kRingPairAreaBytes the ring itself never touches, shared by its two
//         ends alone, which the layer above lays out (Device::pair_area)
//
// A packet occupies ceil((16 + round8(hdr_len) + payload_len) / 64) lines and never wraps: when it does not
// fit before the end of the data area, the producer fills the rest with a padding marker and starts over.
//
//   +0  word         lines | lap parity << 30 | pad flag << 31; never 0; written last (release)
//   +4  dispatch
//   +6  hdr_len
//   +8  payload_len
//   +12 seq          per-ring packet number (a debugging aid)
//   +16 protocol header (hdr_len bytes), then the payload at 16 + round8(hdr_len) (8-byte aligned)
//
// How the consumer tells a new packet from old bytes (old payloads can look like anything): at its position
// it reads `word` and accepts it only if it is non-zero and carries the parity of the current lap
// (position / capacity). That is exact because, in every lap, every line's word is either rewritten by the
// producer (a packet's first line, a padding marker) or zeroed by the consumer when it releases the space
// (every other line of a packet or of a padding run). What the consumer finds at a line it has not been
// sent yet is therefore 0 or a word of the previous lap, whose parity differs.
//
// Costs: the producer keeps its tail privately and a cached copy of head, which it re-reads only when the
// ring looks full, so the head line stays in the consumer's cache. The consumer never reads a line the
// producer wrote unless a packet is there, and clears nothing for a one-line packet, so a ping-pong moves
// one cache line each way. The consumer hands each packet to the handler in place and releases space
// when the handler has returned: every release_batch bytes and at the end of every drain().
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace pamir::dev::shm {

inline constexpr uint64_t kLine = 64;
inline constexpr uint32_t kPadFlag = 0x80000000u;
inline constexpr uint32_t kParityBit = 0x40000000u;
inline constexpr uint32_t kLinesMask = 0x3fffffffu;
inline constexpr uint32_t kRingMagic = 0x52494e47u;  // "RING"
inline constexpr uint64_t kRingWantOffset = 64;
inline constexpr uint64_t kRingHeadOffset = 128;
inline constexpr uint64_t kRingDataOffset = 256;
inline constexpr uint64_t kPacketHeaderBytes = 16;
inline constexpr uint64_t kRingPairAreaBytes = 4096;

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
constexpr uint64_t ring_max_packet(uint64_t capacity) noexcept {
  return capacity / 4;
}
// Bytes a ring of `capacity` occupies in the segment.
constexpr uint64_t ring_footprint(uint64_t capacity) noexcept {
  return kRingDataOffset + capacity + kRingPairAreaBytes;
}

// Formats zeroed memory (ring_footprint(capacity) bytes, 64-byte aligned) as an empty ring.
inline void ring_format(void *mem, uint64_t capacity, uint32_t sender, uint32_t receiver) noexcept {
  auto *h = static_cast<RingHeader *>(mem);
  h->capacity = capacity;
  h->sender = sender;
  h->receiver = receiver;
  h->magic = kRingMagic;
}

namespace detail {
inline uint32_t log2_of(uint64_t pow2) noexcept {
  return static_cast<uint32_t>(__builtin_ctzll(pow2));
}
inline std::atomic_ref<uint32_t> word_at(char *data, uint64_t idx) noexcept {
  return std::atomic_ref<uint32_t>(reinterpret_cast<PacketHeader *>(data + idx)->word);
}
}  // namespace detail

class RingProducer {
 public:
  void attach(void *mem) noexcept {
    char *base = static_cast<char *>(mem);
    cap_ = reinterpret_cast<const RingHeader *>(base)->capacity;
    mask_ = cap_ - 1;
    shift_ = detail::log2_of(cap_);
    want_ = reinterpret_cast<uint32_t *>(base + kRingWantOffset);
    head_ = reinterpret_cast<uint64_t *>(base + kRingHeadOffset);
    data_ = base + kRingDataOffset;
    tail_ = reload_head();
    seq_ = 0;
    pads_ = 0;
    std::atomic_ref<bool>(blocked_).store(false, std::memory_order_relaxed);
  }
  bool attached() const noexcept { return data_ != nullptr; }
  uint64_t capacity() const noexcept { return cap_; }
  char *pair_area() const noexcept { return data_ + cap_; }
  uint64_t tail() const noexcept { return tail_; }
  uint64_t pads() const noexcept { return pads_; }  // how often the producer wrapped with a marker
  // Whether the last try_push failed for lack of room, and the consumer has released room since. What a
  // producer checks before it sleeps; safe to call from another thread than the one that pushes.
  bool blocked_and_head_moved() const noexcept {
    if (!std::atomic_ref<bool>(blocked_).load(std::memory_order_relaxed)) return false;
    return std::atomic_ref<uint64_t>(*head_).load(std::memory_order_acquire) !=
           std::atomic_ref<uint64_t>(head_cache_).load(std::memory_order_relaxed);
  }
  bool blocked() const noexcept { return std::atomic_ref<bool>(blocked_).load(std::memory_order_relaxed); }

  // Copies one packet into the ring. Returns false, having written nothing, when it does not fit now; it
  // then raises want_space, and every drain() that frees room reports that the producer wants waking
  // until a push succeeds.
  // The caller guarantees hdr_len < 65536 and ring_packet_lines(...) * 64 <= ring_max_packet(capacity).
  bool try_push(uint16_t dispatch, const void *hdr, uint32_t hdr_len, const void *payload,
                uint64_t payload_len) noexcept {
    return try_push_with(dispatch, hdr, hdr_len, payload_len,
                         [payload](void *cell, uint64_t n) { std::memcpy(cell, payload, n); });
  }
  // The same, with the payload written into the cell by fill(cell, payload_len): a non-contiguous
  // message is packed straight into the ring (seed 003), with no buffer in between.
  template <typename Fill>
  bool try_push_with(uint16_t dispatch, const void *hdr, uint32_t hdr_len, uint64_t payload_len,
                     Fill &&fill) noexcept {
    const uint64_t lines = ring_packet_lines(hdr_len, payload_len);
    const uint64_t bytes = lines * kLine;
    const uint64_t to_end = cap_ - (tail_ & mask_);
    const uint64_t pad = bytes > to_end ? to_end : 0;
    if (tail_ + pad + bytes - cached_head() > cap_) [[unlikely]] {
      if (!make_room(pad + bytes)) return false;
    } else if (blocked()) [[unlikely]] {
      unblock();
    }
    const uint64_t pos = tail_ + pad;
    char *cell = data_ + (pos & mask_);
    auto *ph = reinterpret_cast<PacketHeader *>(cell);
    ph->dispatch = dispatch;
    ph->hdr_len = static_cast<uint16_t>(hdr_len);
    ph->payload_len = static_cast<uint32_t>(payload_len);
    ph->seq = seq_++;
    if (hdr_len) std::memcpy(cell + kPacketHeaderBytes, hdr, hdr_len);
    if (payload_len) fill(cell + ring_payload_offset(hdr_len), payload_len);
    std::atomic_ref<uint32_t>(ph->word).store(static_cast<uint32_t>(lines) | parity(pos),
                                              std::memory_order_release);
    if (pad) [[unlikely]] {
      // Published after the packet: the consumer reaches the packet only through the marker.
      detail::word_at(data_, tail_ & mask_)
          .store(kPadFlag | static_cast<uint32_t>(pad / kLine) | parity(tail_), std::memory_order_release);
      ++pads_;
    }
    tail_ = pos + bytes;
    return true;
  }

 private:
  uint32_t parity(uint64_t pos) const noexcept { return static_cast<uint32_t>((pos >> shift_) & 1) << 30; }

  // head_cache_ and blocked_ are private to the producer but read by a thread about to sleep in wait()
  // (blocked_and_head_moved), so every access goes through atomic_ref (plain moves on x86).
  uint64_t cached_head() const noexcept {
    return std::atomic_ref<uint64_t>(head_cache_).load(std::memory_order_relaxed);
  }
  uint64_t reload_head() noexcept {
    const uint64_t h = std::atomic_ref<uint64_t>(*head_).load(std::memory_order_acquire);
    std::atomic_ref<uint64_t>(head_cache_).store(h, std::memory_order_relaxed);
    return h;
  }

  bool make_room(uint64_t need) noexcept {
    if (tail_ + need - reload_head() <= cap_) {
      if (blocked()) unblock();
      return true;
    }
    if (blocked()) return false;  // the consumer already knows
    // Ask to be woken, then look once more: either we see the consumer's release or it sees our flag.
    std::atomic_ref<uint32_t>(*want_).store(1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (tail_ + need - reload_head() <= cap_) {
      std::atomic_ref<uint32_t>(*want_).store(0, std::memory_order_relaxed);
      return true;
    }
    std::atomic_ref<bool>(blocked_).store(true, std::memory_order_relaxed);
    return false;
  }
  // Only the producer writes want_space: the consumer keeps ringing while it is set.
  void unblock() noexcept {
    std::atomic_ref<bool>(blocked_).store(false, std::memory_order_relaxed);
    std::atomic_ref<uint32_t>(*want_).store(0, std::memory_order_relaxed);
  }

  char *data_ = nullptr;
  uint32_t *want_ = nullptr;  // shared
  uint64_t *head_ = nullptr;  // shared, written by the consumer
  uint64_t cap_ = 0, mask_ = 0;
  uint32_t shift_ = 0;
  uint64_t tail_ = 0;
  mutable uint64_t head_cache_ = 0;
  uint32_t seq_ = 0;
  alignas(std::atomic_ref<bool>::required_alignment) mutable bool blocked_ = false;
  uint64_t pads_ = 0;
};

class RingConsumer {
 public:
  void attach(void *mem) noexcept {
    char *base = static_cast<char *>(mem);
    const auto *h = reinterpret_cast<const RingHeader *>(base);
    cap_ = h->capacity;
    mask_ = cap_ - 1;
    shift_ = detail::log2_of(cap_);
    release_batch_ = cap_ / 8;
    sender_ = h->sender;
    want_ = reinterpret_cast<uint32_t *>(base + kRingWantOffset);
    shared_head_ = reinterpret_cast<uint64_t *>(base + kRingHeadOffset);
    data_ = base + kRingDataOffset;
    head_ = released_ = std::atomic_ref<uint64_t>(*shared_head_).load(std::memory_order_relaxed);
  }
  bool attached() const noexcept { return data_ != nullptr; }
  uint32_t sender() const noexcept { return sender_; }
  char *pair_area() const noexcept { return data_ + cap_; }
  uint64_t head() const noexcept { return head_; }

  // Whether a packet (or a padding marker, which is always followed by one) is waiting. It reads the
  // shared head, which equals the consumer's own outside drain(), so a thread about to sleep may ask
  // while another drains (at worst it sees a packet being consumed and does not sleep).
  bool ready() const noexcept {
    const uint64_t h = std::atomic_ref<uint64_t>(*shared_head_).load(std::memory_order_relaxed);
    const uint32_t w = detail::word_at(data_, h & mask_).load(std::memory_order_acquire);
    return w != 0 && (w & kParityBit) == parity(h);
  }

  // Hands at most `max` packets to f(dispatch, hdr, hdr_len, payload, payload_len), in order, each in place.
  // Returns how many. Sets wake_producer when it freed room for a producer that had found the ring full:
  // the caller then rings that producer's doorbell.
  template <class F>
  unsigned drain(unsigned max, F &&f, bool &wake_producer) noexcept {
    unsigned n = 0;
    while (n < max) {
      char *cell = data_ + (head_ & mask_);
      auto *ph = reinterpret_cast<PacketHeader *>(cell);
      const uint32_t w = std::atomic_ref<uint32_t>(ph->word).load(std::memory_order_acquire);
      if (w == 0 || (w & kParityBit) != parity(head_)) break;
      if (!(w & kPadFlag)) [[likely]] {
        f(ph->dispatch, static_cast<const void *>(cell + kPacketHeaderBytes), uint32_t{ph->hdr_len},
          static_cast<const void *>(cell + ring_payload_offset(ph->hdr_len)), size_t{ph->payload_len});
        ++n;
      }
      head_ += uint64_t{w & kLinesMask} * kLine;
      if (head_ - released_ >= release_batch_) [[unlikely]]
        release(wake_producer);
    }
    if (head_ != released_) release(wake_producer);
    return n;
  }

 private:
  uint32_t parity(uint64_t pos) const noexcept { return static_cast<uint32_t>((pos >> shift_) & 1) << 30; }

  // Zeroes the word of every line but the first of each packet and padding run consumed since the last
  // release (see the file comment), then publishes the new head.
  void release(bool &wake_producer) noexcept {
    for (uint64_t pos = released_; pos != head_;) {
      const uint64_t idx = pos & mask_;
      const uint64_t lines = detail::word_at(data_, idx).load(std::memory_order_relaxed) & kLinesMask;
      for (uint64_t l = 1; l < lines; ++l)
        detail::word_at(data_, idx + l * kLine).store(0, std::memory_order_relaxed);
      pos += lines * kLine;
    }
    released_ = head_;
    std::atomic_ref<uint64_t>(*shared_head_).store(head_, std::memory_order_release);
    // Pairs with the fence in RingProducer::make_room: either it sees this head or we see its flag.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (std::atomic_ref<uint32_t>(*want_).load(std::memory_order_relaxed)) [[unlikely]]
      wake_producer = true;
  }

  char *data_ = nullptr;
  uint32_t *want_ = nullptr;
  uint64_t *shared_head_ = nullptr;
  uint64_t cap_ = 0, mask_ = 0, release_batch_ = 0;
  uint32_t shift_ = 0;
  uint64_t head_ = 0, released_ = 0;
  uint32_t sender_ = 0;
};

}  // namespace pamir::dev::shm
