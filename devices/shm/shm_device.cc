#include "devices/shm/shm_device.h"

#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace pamir::dev {

namespace {

// A value peers read from this process's memory, through the address the segment gives, before they
// trust the pid the segment gives (see RankBlock). Process-wide: set once, never changes.
uint64_t g_cma_token = 0;

uint64_t cma_token() {
  if (!g_cma_token) {
    uint64_t t = 0;
    if (::getrandom(&t, sizeof t, GRND_NONBLOCK) != sizeof t) {
      struct timespec ts;
      ::clock_gettime(CLOCK_MONOTONIC, &ts);
      t = (uint64_t(::getpid()) << 32) ^ uint64_t(ts.tv_nsec) ^ (uint64_t(ts.tv_sec) << 20);
    }
    g_cma_token = t | 1;
  }
  return g_cma_token;
}

}  // namespace

std::unique_ptr<ShmDevice> ShmDevice::create(const ShmParams &p, std::string &why) {
  const size_t n = p.tasks.size();
  if (n == 0 || n > (1u << 16)) {
    why = "shm: the node's task list has " + std::to_string(n) + " entries (1 to 65536 supported)";
    return nullptr;
  }
  for (size_t i = 1; i < n; ++i) {
    if (p.tasks[i] <= p.tasks[i - 1]) {
      why = "shm: the node's task list is not strictly ascending";
      return nullptr;
    }
  }
  if (p.local_rank >= n || p.tasks[p.local_rank] != p.my_task) {
    why = "shm: local rank " + std::to_string(p.local_rank) + " is not task " + std::to_string(p.my_task) +
          " in the node's task list";
    return nullptr;
  }
  const size_t ring = p.ring_bytes ? p.ring_bytes : 64 * 1024;
  if (ring < 4096 || ring > (size_t{1} << 30) || (ring & (ring - 1)) != 0) {
    why = "PAMIR_SHM_RING_SIZE=" + std::to_string(ring) +
          ": the ring size must be a power of two from 4096 to 1073741824 bytes";
    return nullptr;
  }
  if (!p.sink.deliver) {
    why = "shm: no sink to deliver packets to";
    return nullptr;
  }
  if (n > 1 && !p.barrier) {
    why = "shm: no node barrier";
    return nullptr;
  }

  std::unique_ptr<ShmDevice> d(new ShmDevice);
  shm::Segment::Attach me;
  me.pid = static_cast<uint32_t>(::getpid());
  me.cma_token_addr = reinterpret_cast<uint64_t>(&g_cma_token);
  me.cma_token = cma_token();
  d->seg_ = shm::Segment::open(p.path, p.local_rank, static_cast<uint32_t>(n), ring, me, p.barrier, why);
  if (!d->seg_) {
    why = "shm: " + why;
    return nullptr;
  }
  d->tasks_ = p.tasks;
  d->first_task_ = p.tasks[0];
  d->contiguous_ = p.tasks.back() - p.tasks.front() == n - 1;
  d->local_rank_ = p.local_rank;
  d->ring_bytes_ = ring;
  d->max_packet_ = shm::ring_max_packet(ring);
  d->sink_ = p.sink;
  d->fatal_ = p.fatal;
  d->spin_before_sleep_ = p.spin_before_sleep;
  d->me_ = &d->seg_->block(p.local_rank);
  d->tx_.resize(n);
  d->txlist_.resize(n);
  d->rx_.reserve(n);
  d->rx_base_ = d->rx_.data();
  d->pids_.resize(n);
  d->cma_.assign(n, 0);
  d->peer_wake_.assign(n, kWakeUnknown);
  // Before this process first rings anyone (doorbell.h: the sleepers' barrier).
  shm::unfence_ringers();
  // Before this process first sleeps in poll(), which is when a peer first reads the number.
  d->wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (d->wake_fd_ < 0) {
    why = std::string("shm: eventfd: ") + std::strerror(errno);
    return nullptr;
  }
  std::atomic_ref<int32_t>(d->me_->doorbell.wake_fd).store(d->wake_fd_, std::memory_order_release);
  for (size_t r = 0; r < n; ++r) {
    d->pids_[r] = d->seg_->block(static_cast<uint32_t>(r)).pid;
    if (d->pids_[r] == 0) {
      why = "shm: local rank " + std::to_string(r) + " did not attach to the segment";
      return nullptr;
    }
  }
  return d;
}

ShmDevice::~ShmDevice() {
  shutdown();
}

void ShmDevice::shutdown() noexcept {
  if (me_) std::atomic_ref<uint32_t>(me_->finalized).store(1, std::memory_order_release);
  me_ = nullptr;
  for (int &fd : peer_wake_)
    if (fd >= 0) ::close(std::exchange(fd, kWakeUnknown));
  if (wake_fd_ >= 0) ::close(std::exchange(wake_fd_, -1));
  nrx_.store(0, std::memory_order_relaxed);
  ntx_.store(0, std::memory_order_relaxed);
  rx_.clear();
  if (seg_) seg_->unmap();
}

uint32_t ShmDevice::local_index(uint32_t task) const noexcept {
  if (contiguous_) {
    const uint32_t i = task - first_task_;
    return i < tasks_.size() ? i : kNone;
  }
  auto it = std::lower_bound(tasks_.begin(), tasks_.end(), task);
  return it != tasks_.end() && *it == task ? static_cast<uint32_t>(it - tasks_.begin()) : kNone;
}

size_t ShmDevice::max_payload(uint32_t hdr_len) const noexcept {
  return payload_limit(ring_bytes_, hdr_len);
}

void ShmDevice::fail(const std::string &msg) const noexcept {
  if (fatal_) fatal_(msg);
  std::fprintf(stderr, "pamir: shm: %s\n", msg.c_str());
  std::abort();
}

bool ShmDevice::connect(uint32_t peer) noexcept {
  std::string why;
  const uint64_t off = seg_->allocate(shm::ring_footprint(ring_bytes_), why);
  if (!off) fail(why);
  seg_->prefault(off, shm::ring_footprint(ring_bytes_));
  char *mem = seg_->at<char>(off);
  shm::ring_format(mem, ring_bytes_, local_rank_, peer);
  tx_[peer].attach(mem);
  // Claim an entry of the receiver's connection queue, then publish the ring in it.
  shm::RankBlock &rb = seg_->block(peer);
  const uint32_t slot = std::atomic_ref<uint32_t>(rb.conn_count).fetch_add(1, std::memory_order_relaxed);
  if (slot >= tasks_.size()) fail("connection queue of local rank " + std::to_string(peer) + " overflowed");
  if (!seg_->back(seg_->layout().conn_entry_offset(peer, slot), sizeof(uint64_t), why)) fail(why);
  std::atomic_ref<uint64_t>(seg_->conn(peer)[slot]).store(off, std::memory_order_release);
  // pending() watches the rings we send on (from a thread about to sleep, possibly not this one).
  const uint32_t k = ntx_.load(std::memory_order_relaxed);
  txlist_[k] = peer;
  ntx_.store(k + 1, std::memory_order_release);
  return true;
}

namespace {
// Both sends check the packet the same way and refuse it the same way.
std::string bad_packet(uint32_t task, uint32_t hdr_len, size_t payload_len, bool known, size_t max_packet) {
  return "try_send(task " + std::to_string(task) + ", header " + std::to_string(hdr_len) +
         " bytes, payload " + std::to_string(payload_len) + " bytes): " +
         (!known ? "task not on this node"
                 : "packet larger than max_header/max_payload (" + std::to_string(max_packet) +
                       "-byte packets)");
}
}  // namespace

template <typename Writer>
bool ShmDevice::push(uint32_t task, uint16_t dispatch, const void *hdr, uint32_t hdr_len, size_t payload_len,
                     Writer &&write) noexcept {
  const uint32_t peer = local_index(task);
  if (peer == kNone || hdr_len > kMaxHeader || shm::ring_payload_offset(hdr_len) + payload_len > max_packet_)
      [[unlikely]]
    fail(bad_packet(task, hdr_len, payload_len, peer != kNone, max_packet_));
  shm::RingProducer &tx = tx_[peer];
  if (!tx.attached()) [[unlikely]]
    connect(peer);
  if (!tx.try_push_with(dispatch, hdr, hdr_len, payload_len, write)) return false;
  ring(peer);
  return true;
}

bool ShmDevice::try_send(uint32_t task, uint16_t dispatch, const void *hdr, uint32_t hdr_len,
                         const void *payload, size_t payload_len) noexcept {
  return push(task, dispatch, hdr, hdr_len, payload_len,
              [payload](void *cell, uint64_t n) { std::memcpy(cell, payload, n); });
}

bool ShmDevice::try_send_fill(uint32_t task, uint16_t dispatch, const void *hdr, uint32_t hdr_len,
                              size_t payload_len, const Fill &fill) noexcept {
  return push(task, dispatch, hdr, hdr_len, payload_len,
              [&fill](void *cell, uint64_t n) { fill.fn(fill.arg, cell, n); });
}

void ShmDevice::accept() noexcept {
  const uint32_t n = std::atomic_ref<uint32_t>(me_->conn_count).load(std::memory_order_acquire);
  uint64_t *conn = seg_->conn(local_rank_);
  while (rx_.size() < n && rx_.size() < tasks_.size()) {
    const uint64_t off = std::atomic_ref<uint64_t>(conn[rx_.size()]).load(std::memory_order_acquire);
    if (!off) break;  // claimed, not yet published: next time
    Rx r;
    seg_->prefault(off, shm::ring_footprint(ring_bytes_));
    r.ring.attach(seg_->at<char>(off));
    r.src_task = tasks_[r.ring.sender()];
    rx_.push_back(r);  // capacity reserved at create: no allocation, the elements never move
    nrx_.store(static_cast<uint32_t>(rx_.size()), std::memory_order_release);
  }
}

unsigned ShmDevice::poll() noexcept {
  if (in_poll_ || !me_) return 0;  // a handler that advances the context must not re-enter a ring
  in_poll_ = true;
  if (std::atomic_ref<uint32_t>(me_->conn_count).load(std::memory_order_relaxed) != rx_.size()) accept();
  unsigned total = 0;
  const size_t n = rx_.size();
  for (size_t k = 0; k < n && total < kPollBudget; ++k) {
    Rx &r = rx_[rr_];
    const uint32_t src = r.src_task;
    bool wake = false;
    total += r.ring.drain(
        kPollBudget - total,
        [this, src](uint16_t dispatch, const void *hdr, uint32_t hdr_len, const void *payload,
                    size_t payload_len) {
          sink_.deliver(sink_.arg, src, dispatch, hdr, hdr_len, payload, payload_len);
        },
        wake);
    if (wake) [[unlikely]]
      ring(r.ring.sender());  // it found this ring full and may sleep
    if (++rr_ == n) rr_ = 0;
  }
  in_poll_ = false;
  return total;
}

bool ShmDevice::pending() noexcept {
  // Reads only what is safe to read while another thread polls or sends (the caller may have released
  // its lock around wait()): shared words, and rings published through nrx_ and ntx_.
  if (!me_) return false;
  const uint32_t nrx = nrx_.load(std::memory_order_acquire);
  if (std::atomic_ref<uint32_t>(me_->conn_count).load(std::memory_order_acquire) != nrx) return true;
  for (uint32_t i = 0; i < nrx; ++i)
    if (rx_base_[i].ring.ready()) return true;
  // An acknowledgment this rank waits for has come.
  for (uint64_t armed = acks_armed_.load(std::memory_order_acquire); armed; armed &= armed - 1) {
    const auto i = static_cast<uint32_t>(__builtin_ctzll(armed));
    const uint64_t *counter =
        &seg_->at<shm::AckSlot>(seg_->layout().ack_slot_offset(local_rank_, i))->counter;
    if (std::atomic_ref<const uint64_t>(*counter).load(std::memory_order_acquire) == 0) return true;
    // A target opened a shared copy of it: chunks wait for this rank to move them.
    const shm::AckSlot *slot = seg_->at<shm::AckSlot>(seg_->layout().ack_slot_offset(local_rank_, i));
    if (std::atomic_ref<const uint64_t>(slot->dest).load(std::memory_order_acquire) != 0 &&
        std::atomic_ref<const uint64_t>(slot->claimed).load(std::memory_order_relaxed) * slot->chunk <
            slot->bytes)
      return true;
  }
  // A send refused for lack of room may go through now.
  const uint32_t ntx = ntx_.load(std::memory_order_acquire);
  for (uint32_t i = 0; i < ntx; ++i)
    if (tx_[txlist_[i]].blocked_and_head_moved()) return true;
  return false;
}

void ShmDevice::wait(unsigned timeout_us, bool (*also)(void *), void *arg) noexcept {
  if (!timeout_us || !me_) return;
  me_->doorbell.wait(timeout_us, [this, also, arg] { return pending() || (also && also(arg)); });
}

bool ShmDevice::wait_also_on(int fd, unsigned timeout_us, bool (*also)(void *), void *arg) noexcept {
  if (!timeout_us || !me_) return false;
  shm::Doorbell &d = me_->doorbell;
  if (std::atomic_ref<uint32_t>(d.wake_fd_refused).load(std::memory_order_relaxed))
    timeout_us = std::min(timeout_us, kRefusedWakeUs);
  return d.wait_poll(timeout_us, wake_fd_, fd,
                     [this, also, arg] { return pending() || (also && also(arg)); });
}

// The first ring of a peer asleep in poll(): its eventfd, duplicated into this process with
// pidfd_getfd(), which asks for the permission cross-memory attach asks for; the pid is the one the
// token check vouched for, so a recycled pid or another pid namespace's is never touched.
void ShmDevice::ring_fd(uint32_t peer) noexcept {
  int fd = peer_wake_[peer];
  if (fd == kWakeUnknown) {
    fd = kWakeRefused;
    if (cma_[peer] == 0) cma_[peer] = probe(peer);
    if (cma_[peer] > 0) {
      const int pidfd = int(::syscall(SYS_pidfd_open, pid_t(pids_[peer]), 0));
      if (pidfd >= 0) {
        // Ordered after the sleeper count that sent us here, which the owner raised after writing it.
        std::atomic_thread_fence(std::memory_order_acquire);
        const int32_t remote =
            std::atomic_ref<int32_t>(seg_->block(peer).doorbell.wake_fd).load(std::memory_order_relaxed);
        const int got = int(::syscall(SYS_pidfd_getfd, pidfd, remote, 0));
        ::close(pidfd);
        if (got >= 0) fd = got;
      }
    }
    if (fd == kWakeRefused)
      std::atomic_ref<uint32_t>(seg_->block(peer).doorbell.wake_fd_refused)
          .store(1, std::memory_order_relaxed);
    peer_wake_[peer] = fd;
  }
  if (fd >= 0) {
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t put = ::write(fd, &one, sizeof one);
  }
}

void *ShmDevice::coll_area(uint32_t task) noexcept {
  const uint32_t peer = local_index(task);
  return peer == kNone ? nullptr : seg_->at<char>(seg_->layout().coll_area_offset(peer));
}

void *ShmDevice::pair_area(uint32_t task, bool outbound) noexcept {
  const uint32_t peer = local_index(task);
  if (peer == kNone || !me_) return nullptr;
  if (outbound) return tx_[peer].attached() ? tx_[peer].pair_area() : nullptr;
  if (!in_poll_) accept();  // a handler's call: poll() accepts before it drains
  for (const Rx &r : rx_)
    if (r.src_task == task) return r.ring.pair_area();
  return nullptr;
}

namespace {

// A position in an iovec array.
struct IovCursor {
  const struct iovec *v;
  unsigned n;
  unsigned i = 0;
  size_t off = 0;

  void skip_empty() noexcept {
    while (i < n && off == v[i].iov_len) {
      ++i;
      off = 0;
    }
  }
  bool done() const noexcept { return i == n; }
  // Copies up to `max` entries from the current position into out; returns how many.
  unsigned fill(struct iovec *out, unsigned max) const noexcept {
    unsigned k = 0;
    for (unsigned j = i; j < n && k < max; ++j) {
      const size_t o = j == i ? off : 0;
      if (v[j].iov_len == o) continue;
      out[k].iov_base = static_cast<char *>(v[j].iov_base) + o;
      out[k].iov_len = v[j].iov_len - o;
      ++k;
    }
    return k;
  }
  void advance(size_t bytes) noexcept {
    while (bytes && i < n) {
      const size_t take = std::min(bytes, v[i].iov_len - off);
      off += take;
      bytes -= take;
      if (off == v[i].iov_len) {
        ++i;
        off = 0;
      }
    }
  }
};

}  // namespace

ssize_t ShmDevice::read_remote(uint32_t task, const struct iovec *local, unsigned nlocal,
                               const struct iovec *remote, unsigned nremote, uint64_t) noexcept {
  return cross_copy(task, local, nlocal, remote, nremote, false);
}

ssize_t ShmDevice::write_remote(uint32_t task, const struct iovec *local, unsigned nlocal,
                                const struct iovec *remote, unsigned nremote, uint64_t) noexcept {
  return cross_copy(task, local, nlocal, remote, nremote, true);
}

// Both directions need the same permission (ptrace attach), so one probe per peer serves both.
ssize_t ShmDevice::cross_copy(uint32_t task, const struct iovec *local, unsigned nlocal,
                              const struct iovec *remote, unsigned nremote, bool write) noexcept {
  const uint32_t peer = local_index(task);
  if (peer == kNone) return -EHOSTUNREACH;
  const pid_t pid = static_cast<pid_t>(pids_[peer]);
  if (cma_[peer] == 0) cma_[peer] = probe(peer);
  if (cma_[peer] < 0) return cma_[peer];
  constexpr unsigned kBatch = 64;
  struct iovec lv[kBatch], rv[kBatch];
  IovCursor lc{local, nlocal}, rc{remote, nremote};
  ssize_t total = 0;
  for (;;) {
    lc.skip_empty();
    rc.skip_empty();
    if (lc.done() || rc.done()) return total;
    const unsigned nl = lc.fill(lv, kBatch), nr = rc.fill(rv, kBatch);
    // A fault part-way returns what was copied; the next call then reports the error.
    const ssize_t got =
        write ? ::process_vm_writev(pid, lv, nl, rv, nr, 0) : ::process_vm_readv(pid, lv, nl, rv, nr, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      return -errno;
    }
    if (got == 0) return -EFAULT;
    total += got;
    lc.advance(static_cast<size_t>(got));
    rc.advance(static_cast<size_t>(got));
  }
}

uint64_t ShmDevice::ack_alloc(uint64_t expect) noexcept {
  const uint64_t armed = acks_armed_.load(std::memory_order_relaxed);
  if (armed == ~uint64_t{0} || !me_) return 0;
  const auto i = static_cast<uint32_t>(__builtin_ctzll(~armed));
  const uint64_t ref = seg_->layout().ack_slot_offset(local_rank_, i);
  shm::AckSlot *slot = seg_->at<shm::AckSlot>(ref);
  slot->status = 0;
  slot->dest = 0;  // not shared until a target opens it
  // Armed before the reference leaves in a packet, whose publication in the ring orders this store.
  std::atomic_ref<uint64_t>(slot->counter).store(expect, std::memory_order_relaxed);
  acks_armed_.store(armed | uint64_t{1} << i, std::memory_order_release);
  return ref;
}

uint64_t ShmDevice::ack_counter(uint64_t ref) const noexcept {
  return std::atomic_ref<uint64_t>(seg_->at<shm::AckSlot>(ref)->counter).load(std::memory_order_acquire);
}

int64_t ShmDevice::ack_status(uint64_t ref) const noexcept {
  // Written before the counter's release, read after its acquire: a plain read.
  return seg_->at<shm::AckSlot>(ref)->status;
}

void ShmDevice::ack_free(uint64_t ref) noexcept {
  const uint64_t i = (ref - seg_->layout().ack_slot_offset(local_rank_, 0)) / sizeof(shm::AckSlot);
  acks_armed_.fetch_and(~(uint64_t{1} << i), std::memory_order_relaxed);
}

shm::AckSlot *ShmDevice::slot_of(uint32_t owner, uint64_t ref, const char *what) const noexcept {
  const uint32_t peer = local_index(owner);
  const shm::SegmentLayout &l = seg_->layout();
  const uint64_t first = peer == kNone ? 0 : l.ack_slot_offset(peer, 0);
  if (peer == kNone || ref < first ||
      ref >= first + uint64_t{shm::SegmentLayout::kAckSlots} * sizeof(shm::AckSlot) ||
      (ref - first) % sizeof(shm::AckSlot) != 0) [[unlikely]]
    fail(std::string(what) + "(task " + std::to_string(owner) + ", reference " + std::to_string(ref) +
         "): not an acknowledgment slot of that task");
  return seg_->at<shm::AckSlot>(ref);
}

void ShmDevice::ack_write(uint32_t task, uint64_t ref, uint64_t bytes, int64_t status) noexcept {
  shm::AckSlot *slot = slot_of(task, ref, "ack_write");
  if (status) slot->status = status;
  std::atomic_ref<uint64_t>(slot->counter).fetch_sub(bytes, std::memory_order_release);
  ring(local_index(task));
}

void ShmDevice::share_open(uint32_t owner, uint64_t ref, uint64_t dest, uint64_t bytes,
                           uint64_t chunk) noexcept {
  shm::AckSlot *slot = slot_of(owner, ref, "share_open");
  slot->bytes = bytes;
  slot->chunk = chunk;
  slot->copy_status = 0;
  std::atomic_ref<uint64_t>(slot->claimed).store(0, std::memory_order_relaxed);
  std::atomic_ref<uint64_t>(slot->remaining).store(bytes, std::memory_order_relaxed);
  // Published last: an owner that sees dest sees the rest. Woken, an owner asleep comes to help.
  std::atomic_ref<uint64_t>(slot->dest).store(dest, std::memory_order_release);
  ring(local_index(owner));
}

uint64_t ShmDevice::share_dest(uint32_t owner, uint64_t ref) const noexcept {
  return std::atomic_ref<uint64_t>(slot_of(owner, ref, "share_dest")->dest).load(std::memory_order_acquire);
}

bool ShmDevice::share_claim(uint32_t owner, uint64_t ref, uint64_t &offset, uint64_t &len) noexcept {
  shm::AckSlot *slot = slot_of(owner, ref, "share_claim");
  // A claim past the end is harmless: the slot is reused only after the target's acknowledgment, which
  // comes after both ends have stopped claiming.
  const uint64_t i = std::atomic_ref<uint64_t>(slot->claimed).fetch_add(1, std::memory_order_relaxed);
  offset = i * slot->chunk;
  if (offset >= slot->bytes) return false;
  len = std::min(slot->chunk, slot->bytes - offset);
  return true;
}

uint64_t ShmDevice::share_moved(uint32_t owner, uint64_t ref, uint64_t bytes, int64_t status) noexcept {
  shm::AckSlot *slot = slot_of(owner, ref, "share_moved");
  if (status) {
    int64_t none = 0;
    std::atomic_ref<int64_t>(slot->copy_status)
        .compare_exchange_strong(none, status, std::memory_order_relaxed);
  }
  return std::atomic_ref<uint64_t>(slot->remaining).fetch_sub(bytes, std::memory_order_acq_rel) - bytes;
}

uint64_t ShmDevice::share_remaining(uint32_t owner, uint64_t ref) const noexcept {
  return std::atomic_ref<uint64_t>(slot_of(owner, ref, "share_remaining")->remaining)
      .load(std::memory_order_acquire);
}

int64_t ShmDevice::share_status(uint32_t owner, uint64_t ref) const noexcept {
  return std::atomic_ref<int64_t>(slot_of(owner, ref, "share_status")->copy_status)
      .load(std::memory_order_relaxed);
}

int ShmDevice::remote_access(uint32_t task) noexcept {
  const uint32_t peer = local_index(task);
  if (peer == kNone) return -EHOSTUNREACH;
  if (cma_[peer] == 0) cma_[peer] = probe(peer);
  return cma_[peer] < 0 ? cma_[peer] : 0;
}

// The first read from a peer: its token, at the address it published, must read back. -EPERM where
// cross-memory attach is refused; -ESRCH where the pid is not the peer (another pid namespace).
int ShmDevice::probe(uint32_t peer) noexcept {
  const shm::RankBlock &b = seg_->block(peer);
  uint64_t v = 0;
  struct iovec l = {&v, sizeof v}, r = {reinterpret_cast<void *>(b.cma_token_addr), sizeof v};
  const ssize_t got = ::process_vm_readv(static_cast<pid_t>(pids_[peer]), &l, 1, &r, 1, 0);
  if (got < 0) return errno == EFAULT ? -ESRCH : -errno;
  return got == sizeof v && v == b.cma_token ? 1 : -ESRCH;
}

uint64_t ShmDevice::segment_bytes() const noexcept {
  return seg_ ? seg_->layout().total : 0;
}

uint64_t ShmDevice::arena_used() const noexcept {
  return seg_ && seg_->mapped() ? seg_->arena_used() : 0;
}

uint32_t ShmDevice::peer_pid(uint32_t task) const noexcept {
  const uint32_t peer = local_index(task);
  return peer == kNone ? 0 : pids_[peer];
}

bool ShmDevice::peer_finalized(uint32_t task) const noexcept {
  const uint32_t peer = local_index(task);
  if (peer == kNone || !seg_ || !seg_->mapped()) return false;
  return std::atomic_ref<uint32_t>(seg_->block(peer).finalized).load(std::memory_order_acquire) != 0;
}

bool ShmDevice::peer_sleeping(uint32_t task) const noexcept {
  const uint32_t peer = local_index(task);
  if (peer == kNone || !me_) return false;
  return std::atomic_ref<uint32_t>(seg_->block(peer).doorbell.sleeping).load(std::memory_order_relaxed) != 0;
}

}  // namespace pamir::dev
