// The rank's side of the torus (issue 20): the PAMI layer's device interface over the area it shares
// with the engine. Every send becomes a descriptor in this rank's injection FIFO, which the engine
// carries; the rank never copies data for another rank, nor routes a packet.
//
// - try_send: a memory-FIFO descriptor, its header and payload in the slot's lookaside bytes (one
//   packet: at most 512 bytes with the protocol header);
// - read_remote, start_read: remote gets, one per common chunk of the two sides' pieces (seed 003),
//   counted on one of this rank's counters (seed 001's RDMA read);
// - write_remote: direct puts, counted the same way (with read_remote, one-sided windows' puts and
//   gets to another rank: passive_rma);
// - ack_write: a counter put, which takes its bytes off the owner's acknowledgment counter;
// - expose, expose_held: entries of this rank's base-address table, which the engine checks every
//   put and get against.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "devices/device.h"
#include "devices/torus/area.h"
#include "pami/vclock.h"

namespace pamir::torus {
// The timing model's times the engine writes (pami/vclock.h): a packet's arrival, and a counter's latest
// bytes, each with its expression for the replay after the run.
inline Vt arrival_of(const PacketHeader &h) {
  return Vt{h.vt_ns, h.vt_x};
}
inline Vt counter_time(const Counter &c) {
  return Vt{c.vt_ns.load(std::memory_order_relaxed), c.vt_x.load(std::memory_order_relaxed)};
}
}  // namespace pamir::torus

namespace pamir::dev {

struct TorusParams {
  std::string path;      // the job's area in /dev/shm
  uint32_t my_task = 0;  // this rank; rank 0 makes the area and starts the engine
  uint32_t ntasks = 1;
  std::string dims, map;         // PAMIR_TORUS_DIMS, PAMIR_TORUS_MAP (checked by rank 0's Geometry first)
  std::string engine;            // the engine's program
  std::string report;            // PAMIR_TORUS_REPORT
  std::string fault;             // PAMIR_TORUS_FAULT
  bool fail_reads = false;       // PAMIR_FAULT=rdma-read: every start_read() fails (-EFAULT)
  uint32_t spin_count = 2000;    // PAMIR_SPIN_COUNT: polls of a transfer's counter before sleeping
  bool yield = false;            // those polls hand the CPU on (PAMIR_YIELD_WHEN_IDLE as the context has it)
  uint32_t link_mbps = 2000;     // PAMIR_TORUS_LINK_MBPS
  uint32_t hop_ns = 40;          // PAMIR_TORUS_HOP_NS
  std::function<int()> barrier;  // every rank of the job
  Sink sink;
  std::function<void(const std::string &)> fatal;  // ends the job
};

class TorusDevice final : public Device {
 public:
  static std::unique_ptr<Device> create(const TorusParams &p, std::string &why);
  ~TorusDevice() override;

  const char *name() const noexcept override { return "torus"; }
  static constexpr uint32_t kMaxHeader = 128;
  static constexpr uint32_t kMaxPatterns = torus::kPatternFifos;
  static size_t payload_limit(uint32_t hdr_len) noexcept {
    return hdr_len > kMaxHeader ? 0 : torus::kPacketPayload - hdr_len;
  }
  uint32_t max_header() const noexcept override { return kMaxHeader; }
  size_t max_payload(uint32_t hdr_len) const noexcept override { return payload_limit(hdr_len); }
  bool reaches(uint32_t task) const noexcept override { return task < ntasks_; }
  bool try_send(uint32_t task, uint16_t dispatch, const void *hdr, uint32_t hdr_len, const void *payload,
                size_t payload_len) noexcept override;
  bool try_send_fill(uint32_t task, uint16_t dispatch, const void *hdr, uint32_t hdr_len, size_t payload_len,
                     const Fill &fill) noexcept override;
  unsigned poll() noexcept override;
  ssize_t read_remote(uint32_t task, const struct iovec *local, unsigned nlocal, const struct iovec *remote,
                      unsigned nremote, uint64_t key) noexcept override;
  bool start_read(uint32_t task, const struct iovec *local, unsigned nlocal, const struct iovec *remote,
                  unsigned nremote, uint64_t key, uint64_t cookie) noexcept override;
  ssize_t write_remote(uint32_t task, const struct iovec *local, unsigned nlocal, const struct iovec *remote,
                       unsigned nremote, uint64_t key) noexcept override;
  bool expose(uint64_t ack_ref, const void *addr, uint64_t len, uint64_t &remote_addr,
              uint64_t &key) noexcept override;
  bool expose_held(uint32_t &hold, const void *addr, uint64_t len, uint64_t &remote_addr,
                   uint64_t &key) noexcept override;
  void release_held(uint32_t hold) noexcept override;
  bool reads_layouts() const noexcept override { return false; }
  bool passive_rma() const noexcept override { return true; }  // the engine moves the data
  uint64_t ack_alloc(uint64_t expect) noexcept override;
  uint64_t ack_counter(uint64_t ref) const noexcept override;
  int64_t ack_status(uint64_t ref) const noexcept override;
  Vt ack_time(uint64_t ref) const noexcept override;
  void ack_free(uint64_t ref) noexcept override;
  void ack_write(uint32_t task, uint64_t ref, uint64_t bytes, int64_t status) noexcept override;
  uint32_t pattern_open(uint32_t n) noexcept override;
  bool pattern_add(uint32_t id, uint32_t task, uint16_t dispatch, const void *hdr, uint32_t hdr_len,
                   const void *payload, size_t payload_len) noexcept override;
  void pattern_start(uint32_t id) noexcept override;
  bool pattern_done(uint32_t id) noexcept override {
    if (me_->patterns[id - 1].done.load(std::memory_order_acquire) != pattern_tail_[id - 1]) return false;
    running_.fetch_and(~(1u << (id - 1)), std::memory_order_relaxed);
    return true;
  }
  void pattern_close(uint32_t id) noexcept override;
  uint32_t landing_add(uint32_t task, uint16_t dispatch, const void *key, uint32_t key_len) noexcept override;
  void landing_open(uint32_t id) noexcept override;
  void landing_close(uint32_t id) noexcept override;
  void landing_remove(uint32_t id) noexcept override;
  void wait(unsigned timeout_us, bool (*also)(void *), void *arg) noexcept override;
  void shutdown() noexcept override;

  // Descriptors this rank has written (the report's, and the replay test's), and pattern starts.
  uint64_t descriptors_written() const noexcept { return descriptors_written_; }
  uint64_t pattern_starts() const noexcept { return pattern_starts_; }
  // Whether an asynchronous read is still in flight (its counter has not reached zero).
  bool reads_in_flight() const noexcept { return !reads_.empty(); }

 private:
  TorusDevice() = default;
  torus::Descriptor *next_slot() noexcept;  // nullptr: the injection FIFO is full
  void publish() noexcept;                  // moves inj_tail past the slots written
  void push_fifo(torus::Descriptor *s, uint32_t task, uint16_t dispatch, uint32_t hdr_len,
                 size_t payload_len) noexcept;
  torus::Descriptor *wait_slot() noexcept;  // next_slot(), waiting for the engine to free one
  uint32_t base_alloc(const void *addr, uint64_t len) noexcept;
  void base_free(uint32_t index) noexcept;
  // Puts or gets of the common chunks of local and remote, counted on `counter`; false with nothing
  // written when the FIFO has no room for all of them and `wait` is false.
  bool transfer(torus::Intent intent, uint32_t task, const struct iovec *local, unsigned nlocal,
                const struct iovec *remote, unsigned nremote, uint64_t key, uint32_t counter,
                bool wait) noexcept;
  ssize_t transfer_sync(torus::Intent intent, uint32_t task, const struct iovec *local, unsigned nlocal,
                        const struct iovec *remote, unsigned nremote, uint64_t key) noexcept;
  void check_engine() noexcept;
  [[gnu::cold]] void lost() noexcept;  // a fault dropped a packet to this rank: the job ends
  // While this rank waits inside a call (for an injection slot, a counter), packets keep arriving and
  // must not stay in the reception FIFO: the engine's packets to us wait behind a full one, and the one
  // this rank waits for may be among them (a peer's get data, or the peer's own wait for our packets).
  // They move to the overflow, which poll() delivers first, in order.
  void stash() noexcept;
  // Landings: the full ones of `src` numbered before `seq` handed over first (a packet of that source
  // is about to be delivered); the full ones handed over (returns how many, or -1 when a packet numbered
  // before one of them is still in the FIFO: the caller delivers those first).
  void landings_before(uint32_t src, uint64_t seq) noexcept;
  int landings_full() noexcept;
  std::string report_;  // PAMIR_TORUS_REPORT, absolute ("": none)
  void hand_over(uint32_t i) noexcept;
  void deliver(const torus::ReceptionSlot &r) noexcept {
    // Handled as of its arrival: what completes now completes then, and what it makes this rank send
    // leaves no earlier (pami/vclock.h).
    VtScope at(torus::arrival_of(r.h), torus::arrival_of(r.h));
    // A packet of a source with landings: what landed before it is handed over first, and the context
    // deals with what the packet would overtake. Other sources' packets pay one load.
    if (landing_count_ && landings_from_[r.h.src]) [[unlikely]] {
      landings_before(r.h.src, r.h.seq);
      sink_.before(sink_.arg, r.h.src, r.h.dispatch, r.payload);
    }
    sink_.deliver(sink_.arg, r.h.src, r.h.dispatch, r.payload, r.h.hdr_len, r.payload + r.h.hdr_len,
                  r.h.payload_len - r.h.hdr_len);
  }

  void *area_ = nullptr;
  size_t area_len_ = 0;
  torus::AreaHeader *header_ = nullptr;
  torus::RankBlock *me_ = nullptr;
  uint32_t self_ = 0, ntasks_ = 0;
  uint64_t tail_ = 0;  // inj_tail as this rank has written it (slots up to it may be unpublished)
  uint64_t published_ = 0;
  bool failure_named_ = false;  // a failed transfer's link has been printed
  uint64_t descriptors_written_ = 0;
  uint64_t consumed_ = 0;         // reception slots taken (delivered, being delivered, or stashed)
  uint64_t pinned_ = UINT64_MAX;  // the slot poll() is delivering from: not yet free for the engine
  std::deque<torus::ReceptionSlot> overflow_;
  struct LandingUse {
    bool used = false;
    uint32_t src = 0;
  };
  LandingUse landings_[torus::kLandings];
  uint32_t landing_count_ = 0;          // landings added: the poll looks at them only when some are
  std::vector<uint8_t> landings_from_;  // per source task: its landings (sized at the first one)
  uint64_t landed_seen_ = 0;            // RankBlock::landed when the poll last looked for full ones
  bool fail_reads_ = false;
  uint32_t spin_count_ = 2000;
  bool yield_ = false;
  int engine_pidfd_ = -1;
  // Rank 0 at shutdown: the rest of the job detaching, then the engine's replay and report.
  static constexpr int kEngineExitWaitMs = 120000;
  pid_t engine_pid_ = 0;
  Sink sink_;
  std::function<void(const std::string &)> fatal_;
  std::vector<uint32_t> free_counters_, free_bases_, free_patterns_;
  uint64_t pattern_tail_[torus::kPatternFifos] = {};  // each pattern FIFO's tail as this rank moved it
  uint32_t pattern_added_[torus::kPatternFifos] = {};
  uint64_t pattern_kicks_ = 0, pattern_starts_ = 0;
  std::atomic<uint32_t> running_{0};  // pattern FIFOs started and not yet seen done (a sleeper's check)
  std::vector<std::vector<uint32_t>> exposed_;  // per acknowledgment counter: the base entries it holds
  struct Read {
    uint64_t cookie;
    uint32_t counter;
  };
  std::vector<Read> reads_;
  // RankBlock::zeroed as of the last poll that looked at the reads: a sleeper of another thread
  // compares, where reads_ is not its to read.
  std::atomic<uint64_t> zeroed_seen_{0};
  std::atomic<uint32_t> reads_count_{0};  // reads_.size(), for that sleeper
};

}  // namespace pamir::dev
