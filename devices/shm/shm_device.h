// The shared-memory device: packets through per-pair rings in a node segment, RDMA reads through
// cross-memory attach (process_vm_readv), and a futex doorbell to sleep on.
//
// Attach protocol (create):
//   1. every local rank opens `path` with O_CREAT|O_NOFOLLOW, mode 0600, checks it owns it, sizes it with
//      ftruncate (all to the same size, so the order does not matter) and writes its pid (and a token for
//      checking it) into its block;
//   2. node barrier;
//   3. everybody unlinks the name (ENOENT ignored) and maps the file: from here no crash can leave it
//      behind; a rank that dies before step 2 leaves the name to the launcher, which removes every file
//      matching shm_segment_path();
//   4. a single-rank node needs no file: a private memfd serves sends to self.
// Rings are created by the sender on its first send to a peer: carved from the segment's arena with an
// atomic bump, formatted, and published with a release store in the receiver's connection queue (an
// atomic count plus an array of ring offsets), so a receiver polls only rings that exist and memory grows
// with the pairs that talk. See ring.h, segment.h and doorbell.h for the layouts.
//
// Not thread-safe: the owning context serialises every call (its lock under MPI_THREAD_MULTIPLE), with one
// exception: wait() (and pending()) may run in threads that do not hold the lock, while one that does
// polls and sends; several threads may sleep in wait() at once.
// The per-packet path (try_send, poll) allocates nothing, takes no lock and makes no system call, except
// futex_wake when the receiver sleeps.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "devices/device.h"
#include "devices/shm/ring.h"
#include "devices/shm/segment.h"

namespace pamir::dev {

struct ShmParams {
  std::string path;                // shm_segment_path(nspace, hostname); unused when tasks.size() == 1
  uint32_t local_rank = 0;         // index of this process in `tasks`
  std::vector<uint32_t> tasks;     // job rank of each local rank, ascending
  uint32_t my_task = 0;            // == tasks[local_rank]
  std::function<int()> barrier;    // node barrier (a PMIx fence); returns 0 on success
  size_t ring_bytes = 64 * 1024;   // data bytes per ring (PAMIR_SHM_RING_SIZE): power of two, 4 KiB..1 GiB
  unsigned spin_before_sleep = 0;  // kept for the caller's spin-then-sleep policy; the device ignores it
  Sink sink{};                     // where poll() hands packets
  // Called (then abort()) when the device cannot go on, e.g. the segment or /dev/shm is full when a new
  // ring is needed. Should end the job with the message (Bootstrap::abort). Unset: message to stderr.
  std::function<void(const std::string &)> fatal;
};

class ShmDevice final : public Device {
 public:
  static constexpr uint32_t kMaxHeader = 256;
  static constexpr unsigned kPollBudget = 32;  // packets delivered by one poll() at most

  // Attaches to the node segment (see above). Returns nullptr with a reason on failure; the caller must
  // then end the job, since peers may be waiting in the barrier.
  static std::unique_ptr<ShmDevice> create(const ShmParams &params, std::string &why);
  // Payload bytes one packet carries next to a header of hdr_len bytes with rings of ring_bytes: what
  // max_payload() of such a device returns, known before any device exists (protocol-table checks).
  static size_t payload_limit(size_t ring_bytes, uint32_t hdr_len) noexcept {
    return hdr_len > kMaxHeader ? 0 : shm::ring_max_packet(ring_bytes) - shm::ring_payload_offset(hdr_len);
  }
  ~ShmDevice() override;

  const char *name() const noexcept override { return "shm"; }
  uint32_t max_header() const noexcept override { return kMaxHeader; }
  size_t max_payload(uint32_t hdr_len) const noexcept override;
  bool reaches(uint32_t task) const noexcept override { return local_index(task) != kNone; }
  bool try_send(uint32_t task, uint16_t dispatch, const void *hdr, uint32_t hdr_len, const void *payload,
                size_t payload_len) noexcept override;
  bool try_send_fill(uint32_t task, uint16_t dispatch, const void *hdr, uint32_t hdr_len, size_t payload_len,
                     const Fill &fill) noexcept override;
  unsigned poll() noexcept override;
  // process_vm_readv / process_vm_writev, looping over partial transfers and batches of iovecs. The
  // first transfer with a peer checks that its pid really is the peer (a token it published); a refusal
  // then (-EPERM: containers, ptrace_scope, seccomp; -ESRCH: another pid namespace) is remembered and
  // returned at once afterwards, for both directions. Every address is readable: the key is unused.
  ssize_t read_remote(uint32_t task, const struct iovec *local, unsigned nlocal, const struct iovec *remote,
                      unsigned nremote, uint64_t key) noexcept override;
  ssize_t write_remote(uint32_t task, const struct iovec *local, unsigned nlocal, const struct iovec *remote,
                       unsigned nremote, uint64_t key) noexcept override;
  // Acknowledgment slots: this rank's SegmentLayout::kAckSlots slots of the node segment, referenced by
  // segment offset. ack_write() checks that the reference is a slot of `task` (else the fatal hook).
  uint64_t ack_alloc(uint64_t expect) noexcept override;
  uint64_t ack_counter(uint64_t ref) const noexcept override;
  int64_t ack_status(uint64_t ref) const noexcept override;
  void ack_free(uint64_t ref) noexcept override;
  void ack_write(uint32_t task, uint64_t ref, uint64_t bytes, int64_t status) noexcept override;
  // Shared copies through the acknowledgment slots (Device::share_*); a reference that is not a slot
  // of `owner` goes to the fatal hook.
  bool share_supported() const noexcept override { return true; }
  void share_open(uint32_t owner, uint64_t ref, uint64_t dest, uint64_t bytes,
                  uint64_t chunk) noexcept override;
  uint64_t share_dest(uint32_t owner, uint64_t ref) const noexcept override;
  bool share_claim(uint32_t owner, uint64_t ref, uint64_t &offset, uint64_t &len) noexcept override;
  void *share_note(uint32_t owner, uint64_t ref) noexcept override {
    return slot_of(owner, ref, "share_note")->note;
  }
  size_t share_note_bytes() const noexcept override { return sizeof(shm::AckSlot::note); }
  uint64_t share_moved(uint32_t owner, uint64_t ref, uint64_t bytes, int64_t status) noexcept override;
  uint64_t share_remaining(uint32_t owner, uint64_t ref) const noexcept override;
  int64_t share_status(uint32_t owner, uint64_t ref) const noexcept override;
  int remote_access(uint32_t task) noexcept override;
  void *coll_area(uint32_t task) noexcept override;
  size_t coll_area_bytes() const noexcept override { return shm::SegmentLayout::kCollAreaBytes; }
  void coll_notify(uint32_t task) noexcept override {
    const uint32_t peer = local_index(task);
    if (seg_->block(peer).doorbell.ring_unfenced()) [[unlikely]]
      ring_fd(peer);
  }
  // The pair area of a ring: beside the data of the ring this process sends to task on, or that task
  // sends to it on (shm::kRingPairAreaBytes).
  void *pair_area(uint32_t task, bool outbound) noexcept override;
  size_t pair_area_bytes() const noexcept override { return shm::kRingPairAreaBytes; }
  void pair_notify(uint32_t task) noexcept override { ring(local_index(task)); }
  // Sleeps until a packet arrives, a ring that refused a send frees room, or timeout_us passes (0: returns
  // at once). Spurious returns are possible; the caller polls and decides again.
  void wait(unsigned timeout_us, bool (*also)(void *) = nullptr, void *arg = nullptr) noexcept override;
  // The same, single-threaded, sleeping in poll() on `fd` too (another device's descriptor): peers then
  // write this process's eventfd instead of waking the futex. also() is the last check before sleeping.
  // Where a peer could not take the eventfd (cross-process access refused), sleeps at most
  // kRefusedWakeUs at a time, since that peer's packets cannot wake it. Returns whether `fd` woke it.
  bool wait_also_on(int fd, unsigned timeout_us, bool (*also)(void *), void *arg) noexcept;
  static constexpr unsigned kRefusedWakeUs = 200;
  void shutdown() noexcept override;

  // shm specifics, for the context, pamir_info and tests.
  uint32_t local_rank() const noexcept { return local_rank_; }
  uint32_t local_size() const noexcept { return static_cast<uint32_t>(tasks_.size()); }
  unsigned spin_before_sleep() const noexcept { return spin_before_sleep_; }
  size_t ring_bytes() const noexcept { return ring_bytes_; }
  uint64_t segment_bytes() const noexcept;  // mapped (mostly sparse) size
  uint64_t arena_used() const noexcept;     // bytes of rings allocated on this node so far, all pairs
  uint32_t peer_pid(uint32_t task) const noexcept;
  // Whether a local peer has announced that it sleeps in wait() or wait_also_on() (tests).
  bool peer_sleeping(uint32_t task) const noexcept;
  // Whether a local peer has left the device normally (shutdown()): its exit is then no death.
  bool peer_finalized(uint32_t task) const noexcept;
  // This process's doorbell (the progress thread sleeps on it beside the calls that block).
  shm::Doorbell *own_doorbell() noexcept { return me_ ? &me_->doorbell : nullptr; }
  // Whether a peer found it could not take this process's eventfd (tests).
  bool wake_refused() const noexcept {
    return me_ && std::atomic_ref<uint32_t>(me_->doorbell.wake_fd_refused).load(std::memory_order_relaxed);
  }
  // Whether a packet or a new connection waits for poll(), or a ring a send found full has room again:
  // what wait() re-checks after announcing that it sleeps.
  bool pending() noexcept;

 private:
  template <typename Writer>
  bool push(uint32_t task, uint16_t dispatch, const void *hdr, uint32_t hdr_len, size_t payload_len,
            Writer &&write) noexcept;
  static constexpr uint32_t kNone = ~0u;
  ShmDevice() = default;
  uint32_t local_index(uint32_t task) const noexcept;
  bool connect(uint32_t peer) noexcept;
  int probe(uint32_t peer) noexcept;
  // After publishing work for local rank `peer`; writes its eventfd when it sleeps in poll().
  void ring(uint32_t peer) noexcept {
    if (seg_->block(peer).doorbell.ring()) [[unlikely]]
      ring_fd(peer);
  }
  void ring_fd(uint32_t peer) noexcept;
  shm::AckSlot *slot_of(uint32_t owner, uint64_t ref, const char *what) const noexcept;
  ssize_t cross_copy(uint32_t task, const struct iovec *local, unsigned nlocal, const struct iovec *remote,
                     unsigned nremote, bool write) noexcept;
  void accept() noexcept;
  [[noreturn]] void fail(const std::string &msg) const noexcept;

  struct Rx {
    shm::RingConsumer ring;
    uint32_t src_task;
  };

  std::unique_ptr<shm::Segment> seg_;
  std::vector<uint32_t> tasks_;
  std::vector<shm::RingProducer> tx_;      // by local rank of the receiver; unattached until the first send
  std::vector<uint32_t> txlist_;           // receivers we connected to, in order; the first ntx_ are valid
  std::vector<Rx> rx_;                     // rings whose receiver is this process, in order of connection
  Rx *rx_base_ = nullptr;                  // rx_.data(): capacity reserved at create, so it never moves
  std::atomic<uint32_t> nrx_{0}, ntx_{0};  // published sizes of rx_ and txlist_ (for pending())
  std::vector<uint32_t> pids_;
  std::vector<int> cma_;        // per peer: 0 not probed yet, 1 readable, -errno refused
  int wake_fd_ = -1;            // this process's eventfd (Doorbell::wake_fd)
  std::vector<int> peer_wake_;  // per peer: its eventfd in this process's table, kWakeUnknown, kWakeRefused
  static constexpr int kWakeUnknown = -1, kWakeRefused = -2;
  // Own acknowledgment slots in use, one bit each; read by a thread about to sleep (pending()).
  std::atomic<uint64_t> acks_armed_{0};
  static_assert(shm::SegmentLayout::kAckSlots == 64, "acks_armed_ holds one bit per slot");
  shm::RankBlock *me_ = nullptr;
  Sink sink_{};
  std::function<void(const std::string &)> fatal_;
  size_t ring_bytes_ = 0;
  uint64_t max_packet_ = 0;
  uint32_t local_rank_ = 0;
  uint32_t first_task_ = 0;
  bool contiguous_ = false;
  bool in_poll_ = false;
  unsigned spin_before_sleep_ = 0;
  size_t rr_ = 0;  // next ring poll() starts with
};

}  // namespace pamir::dev
