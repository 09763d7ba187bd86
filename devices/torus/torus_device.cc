#include "devices/torus/torus_device.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "devices/torus/fault.h"
#include "devices/torus/geometry.h"
#include "devices/torus/replay.h"
#include "pami/spin.h"

namespace pamir::dev {

using torus::Descriptor;
using torus::Intent;
using torus::kCounters;
using torus::kInjectionSlots;

namespace {

constexpr unsigned kEngineStartSeconds = 20;
constexpr unsigned kEngineCheckUs = 100 * 1000;

// Starts the engine as a grandchild that nobody waits for (reaped by the launcher, a subreaper, or
// init): the ranks' sibling, not a child whose end rank 0 would have to collect. It keeps rank 0's
// process group, so a launcher that ends the job ends it too. Returns 0 or -errno.
int spawn_engine(const std::string &program, const std::string &path, torus::AreaHeader *h) {
  const pid_t child = ::fork();
  if (child < 0) return -errno;
  if (child == 0) {
    if (::fork() != 0) ::_exit(0);
    // Only what the engine needs stays open: not rank 0's PMIx socket, whose end announces rank 0's.
    ::syscall(SYS_close_range, 3u, ~0u, 0u);
    // The engine serves every rank: not confined to rank 0's CPUs.
    cpu_set_t all;
    CPU_ZERO(&all);
    for (int c = 0; c < CPU_SETSIZE; ++c) CPU_SET(c, &all);
    (void)::sched_setaffinity(0, sizeof all, &all);
    ::execl(program.c_str(), "pamir_torus_engine", path.c_str(), static_cast<char *>(nullptr));
    // The area is shared: every rank waiting for the engine learns why at once.
    std::snprintf(h->failure, sizeof h->failure, "cannot run %s: %s", program.c_str(), std::strerror(errno));
    h->engine_state.store(torus::kEngineFailed, std::memory_order_release);
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return 0;
}

// Rank 0 makes the area (`create`) and every other rank maps it: `len` bytes, or nullptr with the reason.
void *map_area(const std::string &path, bool create, size_t len, std::string &why) {
  const int fd =
      ::open(path.c_str(), create ? O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC : O_RDWR | O_CLOEXEC, 0600);
  struct stat st;
  if (fd < 0 ||
      (create ? ::ftruncate(fd, off_t(len)) != 0 : ::fstat(fd, &st) != 0 || size_t(st.st_size) != len)) {
    why = std::string(create ? "cannot create the torus area " : "cannot open the torus area ") + path +
          ": " + (fd < 0 || create ? std::strerror(errno) : "it is not the size this build makes");
    if (fd >= 0) ::close(fd);
    if (create && fd >= 0) ::unlink(path.c_str());
    return nullptr;
  }
  void *a = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (a != MAP_FAILED) return a;
  why = "cannot map the torus area " + path + ": " + std::strerror(errno);
  if (create) ::unlink(path.c_str());
  return nullptr;
}

void sleep_us(unsigned us) {
  struct timespec ts = {time_t(us / 1000000u), long(us % 1000000u) * 1000};
  while (::nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

}  // namespace

std::unique_ptr<Device> TorusDevice::create(const TorusParams &p, std::string &why) {
  std::unique_ptr<TorusDevice> d(new TorusDevice);
  d->self_ = p.my_task;
  d->ntasks_ = p.ntasks;
  d->sink_ = p.sink;
  d->fatal_ = p.fatal;
  d->fail_reads_ = p.fail_reads;
  d->spin_count_ = p.spin_count;
  d->yield_ = p.yield;
  d->area_len_ = torus::area_bytes(p.ntasks);
  if (p.my_task == 0) {
    torus::Geometry g;
    if (!g.make(p.ntasks, p.dims, p.map, why)) return nullptr;
    std::vector<torus::LinkFault> faults;
    if (!torus::parse_faults(p.fault, g, faults, why)) return nullptr;
    // The ranks leave their logs for the replay beside the report, where the engine (started from here)
    // and every rank, whatever its directory, find them.
    std::string report = p.report;
    if (!report.empty() && report[0] != '/') {
      char cwd[4096];
      if (::getcwd(cwd, sizeof cwd)) report = std::string(cwd) + "/" + report;
    }
    // The texts the engine reads from the area's header, each in a field of its own.
    using H = torus::AreaHeader;
    const struct {
      const std::string &text;
      size_t room;
      const char *name;
    } texts[] = {{p.dims, sizeof(H::dims), "PAMIR_TORUS_DIMS"},
                 {p.map, sizeof(H::map), "PAMIR_TORUS_MAP"},
                 {report, sizeof(H::report), "PAMIR_TORUS_REPORT"},
                 {p.fault, sizeof(H::fault), "PAMIR_TORUS_FAULT"}};
    for (const auto &t : texts)
      if (t.text.size() >= t.room) {
        why = std::string(t.name) + " is longer than " + std::to_string(t.room - 1) + " characters" +
              (&t.text == &report ? " (as an absolute path)" : "");
        return nullptr;
      }
    void *a = map_area(p.path, true, d->area_len_, why);
    if (!a) return nullptr;
    d->area_ = a;
    auto *h = static_cast<torus::AreaHeader *>(a);
    h->ranks = p.ntasks;
    h->block_bytes = sizeof(torus::RankBlock);
    std::snprintf(h->dims, sizeof h->dims, "%s", p.dims.c_str());
    std::snprintf(h->map, sizeof h->map, "%s", p.map.c_str());
    std::snprintf(h->report, sizeof h->report, "%s", report.c_str());
    std::snprintf(h->fault, sizeof h->fault, "%s", p.fault.c_str());
    h->link_mbps = p.link_mbps;
    h->hop_ns = p.hop_ns;
    std::atomic_thread_fence(std::memory_order_release);
    h->magic = torus::kAreaMagic;
    if (const int rc = spawn_engine(p.engine, p.path, h); rc != 0) {
      why = "cannot start the torus engine: " + std::string(std::strerror(-rc));
      ::unlink(p.path.c_str());
      return nullptr;
    }
  }
  // Rank 0 made the area before this fence; every rank maps it after.
  if (p.barrier() != 0) {
    why = "the PMIx fence after the torus area was made failed";
    return nullptr;
  }
  if (!d->area_) {
    void *a = map_area(p.path, false, d->area_len_, why);
    if (!a) return nullptr;
    d->area_ = a;
  }
  d->header_ = static_cast<torus::AreaHeader *>(d->area_);
  d->me_ = torus::rank_block(d->area_, d->self_);
  // Before this rank first rings the engine (doorbell.h: the sleepers' barrier stands in for a fence a
  // descriptor; the shm device, which registers the process too, is not made for a torus job).
  dev::shm::unfence_ringers();
  for (unsigned waited = 0;; waited += 1000) {
    const uint32_t state = d->header_->engine_state.load(std::memory_order_acquire);
    if (state == torus::kEngineServing) break;
    if (state == torus::kEngineFailed) {
      d->header_->failure[sizeof d->header_->failure - 1] = '\0';
      why = std::string("the torus engine failed: ") + d->header_->failure;
      if (d->self_ == 0) ::unlink(p.path.c_str());  // no engine will remove it
      return nullptr;
    }
    if (waited >= kEngineStartSeconds * 1000000u) {
      why = "the torus engine (" + p.engine + ") did not start within " +
            std::to_string(kEngineStartSeconds) + " s";
      if (d->self_ == 0) ::unlink(p.path.c_str());
      return nullptr;
    }
    sleep_us(1000);
  }
  d->engine_pid_ = d->header_->engine_pid.load(std::memory_order_acquire);
  // With a report asked for, the stamps' maxima are logged for the replay after the run (replay.h).
  d->report_.assign(d->header_->report, strnlen(d->header_->report, sizeof d->header_->report));
  if (!d->report_.empty()) {
    const bool room = vt_log_reserve();
    if (!room)
      std::fprintf(stderr,
                   "pamir: PAMIR_TORUS_REPORT: rank %u cannot reserve its log for the replay (%s); the "
                   "report's virtual times will be the engine's, not the replay's\n",
                   d->self_, std::strerror(errno));
    vt_log_on(room);
  }
  d->engine_pidfd_ = int(::syscall(SYS_pidfd_open, d->engine_pid_, 0));
  // Where Yama restricts cross-memory access, the engine (not our ancestor) needs leave.
  (void)::prctl(PR_SET_PTRACER, static_cast<unsigned long>(d->engine_pid_), 0, 0, 0);
  for (uint32_t i = kCounters; i-- > 0;) d->free_counters_.push_back(i);
  for (uint32_t i = torus::kBases; i-- > 0;) d->free_bases_.push_back(i);
  for (uint32_t i = torus::kPatternFifos; i-- > 0;) {
    d->free_patterns_.push_back(i);
    d->pattern_tail_[i] = d->me_->patterns[i].tail.load(std::memory_order_relaxed);
  }
  d->exposed_.resize(kCounters);
  d->reads_.reserve(kCounters);
  d->tail_ = d->published_ = d->me_->inj_tail.load(std::memory_order_relaxed);
  d->consumed_ = d->me_->rec_head.load(std::memory_order_relaxed);
  d->me_->pid.store(int32_t(::getpid()), std::memory_order_release);
  d->me_->state.store(torus::kRankAttached, std::memory_order_release);
  return d;
}

TorusDevice::~TorusDevice() {
  if (engine_pidfd_ >= 0) ::close(engine_pidfd_);
  if (area_) ::munmap(area_, area_len_);
}

Descriptor *TorusDevice::next_slot() noexcept {
  if (tail_ - me_->inj_done.load(std::memory_order_acquire) >= kInjectionSlots) return nullptr;
  return &me_->injection[tail_ % kInjectionSlots];
}

void TorusDevice::publish() noexcept {
  if (tail_ == published_) return;
  descriptors_written_ += tail_ - published_;
  me_->descriptors_written.store(descriptors_written_, std::memory_order_relaxed);
  published_ = tail_;
  me_->inj_tail.store(tail_, std::memory_order_release);
  (void)header_->bell.ring();
}

Descriptor *TorusDevice::wait_slot() noexcept {
  for (;;) {
    if (Descriptor *s = next_slot()) return s;
    publish();
    stash();
    check_engine();
    sched_yield();
  }
}

void TorusDevice::stash() noexcept {
  const uint64_t tail = me_->rec_tail.load(std::memory_order_acquire);
  if (consumed_ == tail) return;
  for (; consumed_ != tail; ++consumed_)
    overflow_.push_back(me_->reception[consumed_ % torus::kReceptionSlots]);
  me_->rec_head.store(std::min(consumed_, pinned_), std::memory_order_release);
}

// The memory-FIFO descriptor of slot `s`, whose lookaside bytes (header, then payload) are written.
void TorusDevice::push_fifo(Descriptor *s, uint32_t task, uint16_t dispatch, uint32_t hdr_len,
                            size_t payload_len) noexcept {
  *s = Descriptor{.intent = Intent::memory_fifo,
                  .dispatch = dispatch,
                  .dest = task,
                  .hdr_len = uint16_t(hdr_len),
                  .payload_len = uint16_t(hdr_len + payload_len),
                  .not_before_x = g_vclock.stamp.x,
                  .not_before_ns = g_vclock.stamp.ns};
  ++tail_;
  publish();
}

bool TorusDevice::try_send(uint32_t task, uint16_t dispatch, const void *hdr, uint32_t hdr_len,
                           const void *payload, size_t payload_len) noexcept {
  Descriptor *s = next_slot();
  if (!s) [[unlikely]]
    return false;
  uint8_t *look = me_->lookaside[tail_ % kInjectionSlots];
  if (hdr_len) std::memcpy(look, hdr, hdr_len);
  if (payload_len) std::memcpy(look + hdr_len, payload, payload_len);
  push_fifo(s, task, dispatch, hdr_len, payload_len);
  return true;
}

bool TorusDevice::try_send_fill(uint32_t task, uint16_t dispatch, const void *hdr, uint32_t hdr_len,
                                size_t payload_len, const Fill &fill) noexcept {
  Descriptor *s = next_slot();
  if (!s) [[unlikely]]
    return false;
  uint8_t *look = me_->lookaside[tail_ % kInjectionSlots];
  if (hdr_len) std::memcpy(look, hdr, hdr_len);
  fill.fn(fill.arg, look + hdr_len, payload_len);
  push_fifo(s, task, dispatch, hdr_len, payload_len);
  return true;
}

unsigned TorusDevice::poll() noexcept {
  unsigned got = 0;
  for (;; ++got) {
    if (!overflow_.empty()) [[unlikely]] {
      const torus::ReceptionSlot r = overflow_.front();
      overflow_.pop_front();
      deliver(r);
      continue;
    }
    if (consumed_ == me_->rec_tail.load(std::memory_order_acquire)) {
      if (me_->lost.load(std::memory_order_relaxed)) [[unlikely]]
        lost();
      if (landing_count_) [[unlikely]] {
        const int handed = landings_full();
        if (handed < 0) continue;  // packets before them arrived meanwhile: those first
        got += unsigned(handed);
      }
      break;
    }
    // The slot stays ours while it is delivered: a stash() from inside frees only what comes before it.
    pinned_ = consumed_++;
    deliver(me_->reception[pinned_ % torus::kReceptionSlots]);
    pinned_ = UINT64_MAX;
    me_->rec_head.store(consumed_, std::memory_order_release);
  }
  if (!reads_.empty()) [[unlikely]] {
    zeroed_seen_.store(me_->zeroed.load(std::memory_order_acquire), std::memory_order_relaxed);
    for (size_t i = 0; i < reads_.size();) {
      const torus::Counter &c = me_->counters[reads_[i].counter - 1];
      if (c.value.load(std::memory_order_acquire) > 0) {
        ++i;
        continue;
      }
      const Read done = reads_[i];
      reads_[i] = reads_.back();
      reads_.pop_back();
      reads_count_.store(uint32_t(reads_.size()), std::memory_order_relaxed);
      const int64_t status = c.status.load(std::memory_order_relaxed);
      const Vt landed = torus::counter_time(c);
      ack_free(done.counter);
      VtScope at(landed, landed);  // the receive completes, and acknowledges, as of its last bytes
      sink_.read_done(sink_.arg, done.cookie, status);
      ++got;
    }
  }
  return got;
}

bool TorusDevice::transfer(Intent intent, uint32_t task, const struct iovec *local, unsigned nlocal,
                           const struct iovec *remote, unsigned nremote, uint64_t key, uint32_t counter,
                           bool wait) noexcept {
  // The common chunks of the two lists of pieces: one descriptor each.
  unsigned li = 0, ri = 0;
  uint64_t lo = 0, ro = 0;
  if (!wait) {
    unsigned chunks = 0;
    while (li < nlocal && ri < nremote) {
      const uint64_t n = std::min<uint64_t>(local[li].iov_len - lo, remote[ri].iov_len - ro);
      lo += n, ro += n, ++chunks;
      if (lo == local[li].iov_len) ++li, lo = 0;
      if (ro == remote[ri].iov_len) ++ri, ro = 0;
    }
    if (tail_ - me_->inj_done.load(std::memory_order_acquire) + chunks > kInjectionSlots) return false;
    li = ri = 0;
    lo = ro = 0;
  }
  while (li < nlocal && ri < nremote) {
    const uint64_t n = std::min<uint64_t>(local[li].iov_len - lo, remote[ri].iov_len - ro);
    if (n) {
      Descriptor *s = wait ? wait_slot() : next_slot();
      *s = Descriptor{.intent = intent,
                      .dest = task,
                      .remote_base = uint32_t(key),
                      .length = n,
                      .local_addr = uint64_t(uintptr_t(local[li].iov_base)) + lo,
                      .remote_offset = uint64_t(uintptr_t(remote[ri].iov_base)) + ro,
                      .local_counter = counter,
                      .not_before_x = g_vclock.stamp.x,
                      .not_before_ns = g_vclock.stamp.ns};
      ++tail_;
    }
    lo += n, ro += n;
    if (lo == local[li].iov_len) ++li, lo = 0;
    if (ro == remote[ri].iov_len) ++ri, ro = 0;
  }
  publish();
  return true;
}

ssize_t TorusDevice::transfer_sync(Intent intent, uint32_t task, const struct iovec *local, unsigned nlocal,
                                   const struct iovec *remote, unsigned nremote, uint64_t key) noexcept {
  uint64_t total = 0, rtotal = 0;
  for (unsigned i = 0; i < nlocal; ++i) total += local[i].iov_len;
  for (unsigned i = 0; i < nremote; ++i) rtotal += remote[i].iov_len;
  total = std::min(total, rtotal);
  if (total == 0) return 0;
  uint32_t counter = uint32_t(ack_alloc(total));
  while (counter == 0) {  // every counter armed: one is freed by the reads the next polls finish
    stash();
    check_engine();
    sched_yield();
    counter = uint32_t(ack_alloc(total));
  }
  transfer(intent, task, local, nlocal, remote, nremote, key, counter, true);
  const torus::Counter &c = me_->counters[counter - 1];
  // Polled a while before sleeping, as a blocked call is (PAMIR_SPIN_COUNT): a small transfer is done
  // sooner than a sleeper wakes (a one-sided put of 64 bytes took 10 us so against 25 us asleep). Where
  // the ranks and the engine outnumber the CPUs, each poll hands the CPU on: the engine doing this
  // transfer may be waiting for it.
  for (uint32_t spin = 0; spin < spin_count_ && c.value.load(std::memory_order_acquire) > 0; ++spin)
    spin_pause(yield_);
  while (c.value.load(std::memory_order_acquire) > 0) {
    stash();
    check_engine();
    me_->bell.wait(kEngineCheckUs, [&] {
      return c.value.load(std::memory_order_acquire) <= 0 ||
             me_->rec_tail.load(std::memory_order_acquire) != consumed_;
    });
  }
  const int64_t status = c.status.load(std::memory_order_relaxed);
  // What the caller does next (completes a receive, acknowledges) happens after the last bytes landed,
  // as it would had the transfer gone through start_read and read_done.
  vclock_waited(torus::counter_time(c));
  ack_free(counter);
  return status ? ssize_t(status) : ssize_t(total);
}

ssize_t TorusDevice::read_remote(uint32_t task, const struct iovec *local, unsigned nlocal,
                                 const struct iovec *remote, unsigned nremote, uint64_t key) noexcept {
  return transfer_sync(Intent::remote_get, task, local, nlocal, remote, nremote, key);
}

ssize_t TorusDevice::write_remote(uint32_t task, const struct iovec *local, unsigned nlocal,
                                  const struct iovec *remote, unsigned nremote, uint64_t key) noexcept {
  return transfer_sync(Intent::direct_put, task, local, nlocal, remote, nremote, key);
}

bool TorusDevice::start_read(uint32_t task, const struct iovec *local, unsigned nlocal,
                             const struct iovec *remote, unsigned nremote, uint64_t key,
                             uint64_t cookie) noexcept {
  uint64_t total = 0;
  for (unsigned i = 0; i < nlocal; ++i) total += local[i].iov_len;
  const uint32_t counter = uint32_t(ack_alloc(total));
  if (counter == 0) return false;
  if (fail_reads_) {  // the fault test's: reported by the next poll, as a failed read would be
    me_->counters[counter - 1].status.store(-EFAULT, std::memory_order_relaxed);
    me_->counters[counter - 1].value.store(0, std::memory_order_release);
  } else if (!transfer(Intent::remote_get, task, local, nlocal, remote, nremote, key, counter, false)) {
    ack_free(counter);
    return false;
  }
  reads_.push_back(Read{cookie, counter});
  reads_count_.store(uint32_t(reads_.size()), std::memory_order_relaxed);
  return true;
}

uint32_t TorusDevice::base_alloc(const void *addr, uint64_t len) noexcept {
  if (free_bases_.empty()) return 0;
  const uint32_t i = free_bases_.back();
  free_bases_.pop_back();
  me_->bases[i].addr.store(uint64_t(uintptr_t(addr)), std::memory_order_relaxed);
  me_->bases[i].len.store(len, std::memory_order_release);
  return i + 1;
}

void TorusDevice::base_free(uint32_t index) noexcept {
  me_->bases[index - 1].len.store(0, std::memory_order_release);
  free_bases_.push_back(index - 1);
}

bool TorusDevice::expose(uint64_t ack_ref, const void *addr, uint64_t len, uint64_t &remote_addr,
                         uint64_t &key) noexcept {
  if (ack_ref == 0 || ack_ref > kCounters) return false;
  const uint32_t b = base_alloc(addr, len);
  if (b == 0) return false;
  exposed_[ack_ref - 1].push_back(b);
  remote_addr = 0;
  key = b;
  return true;
}

bool TorusDevice::expose_held(uint32_t &hold, const void *addr, uint64_t len, uint64_t &remote_addr,
                              uint64_t &key) noexcept {
  if (hold == 0 && (hold = base_alloc(addr, len)) == 0) return false;
  remote_addr = 0;
  key = hold;
  return true;
}

void TorusDevice::release_held(uint32_t hold) noexcept {
  if (hold) base_free(hold);
}

uint64_t TorusDevice::ack_alloc(uint64_t expect) noexcept {
  if (free_counters_.empty()) return 0;
  const uint32_t i = free_counters_.back();
  free_counters_.pop_back();
  me_->counters[i].status.store(0, std::memory_order_relaxed);
  me_->counters[i].vt_ns.store(0, std::memory_order_relaxed);
  me_->counters[i].vt_x.store(0, std::memory_order_relaxed);
  me_->counters[i].value.store(int64_t(expect), std::memory_order_release);
  return i + 1;
}

uint64_t TorusDevice::ack_counter(uint64_t ref) const noexcept {
  const int64_t v = me_->counters[ref - 1].value.load(std::memory_order_acquire);
  return v > 0 ? uint64_t(v) : 0;
}

Vt TorusDevice::ack_time(uint64_t ref) const noexcept {
  return torus::counter_time(me_->counters[ref - 1]);
}

int64_t TorusDevice::ack_status(uint64_t ref) const noexcept {
  return me_->counters[ref - 1].status.load(std::memory_order_acquire);
}

void TorusDevice::ack_free(uint64_t ref) noexcept {
  // A transfer a fault failed: the operation's error says ENOLINK, and this names the link, once.
  if (me_->counters[ref - 1].status.load(std::memory_order_relaxed) == -ENOLINK && !failure_named_ &&
      me_->failed.load(std::memory_order_acquire) > 0) {
    failure_named_ = true;
    me_->failed_what[sizeof me_->failed_what - 1] = '\0';
    std::fprintf(stderr, "Pamir: rank %u: torus device: %s\n", self_, me_->failed_what);
  }
  for (uint32_t b : exposed_[ref - 1]) base_free(b);
  exposed_[ref - 1].clear();
  free_counters_.push_back(uint32_t(ref - 1));
}

void TorusDevice::ack_write(uint32_t task, uint64_t ref, uint64_t bytes, int64_t status) noexcept {
  Descriptor *s = wait_slot();
  *s = Descriptor{.intent = Intent::counter_put,
                  .dest = task,
                  .length = bytes,
                  .remote_counter = uint32_t(ref),
                  .status = int32_t(status),
                  .not_before_x = g_vclock.stamp.x,
                  .not_before_ns = g_vclock.stamp.ns};
  ++tail_;
  publish();
}

void TorusDevice::lost() noexcept {
  std::atomic_thread_fence(std::memory_order_acquire);
  me_->lost_what[sizeof me_->lost_what - 1] = '\0';
  if (fatal_) fatal_(me_->lost_what);
}

uint32_t TorusDevice::pattern_open(uint32_t n) noexcept {
  if (n == 0 || n > torus::kPatternSlots || free_patterns_.empty()) return 0;
  const uint32_t p = free_patterns_.back();
  free_patterns_.pop_back();
  me_->patterns[p].size = n;
  pattern_added_[p] = 0;
  return p + 1;
}

bool TorusDevice::pattern_add(uint32_t id, uint32_t task, uint16_t dispatch, const void *hdr,
                              uint32_t hdr_len, const void *payload, size_t payload_len) noexcept {
  torus::PatternFifoArea &f = me_->patterns[id - 1];
  uint32_t &i = pattern_added_[id - 1];
  if (i >= f.size || hdr_len > torus::kPatternHeader || hdr_len + payload_len > torus::kPacketPayload)
    return false;
  if (hdr_len) std::memcpy(f.headers[i], hdr, hdr_len);
  f.slots[i] = Descriptor{.intent = Intent::memory_fifo,
                          .flags = torus::kFromMemory,
                          .dispatch = dispatch,
                          .dest = task,
                          .hdr_len = uint16_t(hdr_len),
                          .payload_len = uint16_t(hdr_len + payload_len),
                          .local_addr = uint64_t(uintptr_t(payload))};
  ++i;
  return true;
}

// A replay: the tail moves by the pattern's size and the engine walks the same descriptors again.
void TorusDevice::pattern_start(uint32_t id) noexcept {
  torus::PatternFifoArea &f = me_->patterns[id - 1];
  publish();
  f.start_ns.store(g_vclock.stamp.ns, std::memory_order_relaxed);
  f.start_x.store(g_vclock.stamp.x, std::memory_order_relaxed);
  f.inj_at.store(tail_, std::memory_order_relaxed);
  f.kick.store(++pattern_kicks_, std::memory_order_relaxed);
  pattern_tail_[id - 1] += f.size;
  f.tail.store(pattern_tail_[id - 1], std::memory_order_release);
  me_->pattern_kicks.store(pattern_kicks_, std::memory_order_release);
  running_.fetch_or(1u << (id - 1), std::memory_order_relaxed);
  ++pattern_starts_;
  (void)header_->bell.ring();
}

void TorusDevice::pattern_close(uint32_t id) noexcept {
  free_patterns_.push_back(id - 1);
}

uint32_t TorusDevice::landing_add(uint32_t task, uint16_t dispatch, const void *key,
                                  uint32_t key_len) noexcept {
  if (key_len > torus::kPatternHeader || task >= ntasks_ || task == self_) return 0;
  for (uint32_t i = 0; i < torus::kLandings; ++i) {
    if (landings_[i].used) continue;
    torus::Landing &l = me_->landings[i];
    l.state.store(torus::kLandingClosed, std::memory_order_relaxed);
    l.src = task;
    l.dispatch = dispatch;
    l.key_len = uint16_t(key_len);
    std::memcpy(l.key, key, key_len);
    landings_[i] = LandingUse{true, task};
    ++landing_count_;
    if (landings_from_.empty()) landings_from_.resize(ntasks_);  // once: the poll's check per source
    ++landings_from_[task];
    // The engine reads the fields once it sees the bit.
    me_->landing_mask.store(me_->landing_mask.load(std::memory_order_relaxed) | 1u << i,
                            std::memory_order_release);
    return i + 1;
  }
  return 0;
}

void TorusDevice::landing_open(uint32_t id) noexcept {
  me_->landings[id - 1].state.store(torus::kLandingOpen, std::memory_order_release);
}

// Closed, or its packet (landed, or being written: waited for) moved among the others in its order.
void TorusDevice::landing_close(uint32_t id) noexcept {
  torus::Landing &l = me_->landings[id - 1];
  uint32_t st = torus::kLandingOpen;
  if (l.state.compare_exchange_strong(st, torus::kLandingClosed, std::memory_order_acq_rel)) return;
  // The engine is writing it: a few hundred nanoseconds, unless the engine died meanwhile.
  for (unsigned spins = 0; st == torus::kLandingClaimed; st = l.state.load(std::memory_order_acquire))
    if (++spins % 4096 == 0) check_engine();
  if (st != torus::kLandingFull) return;
  // Everything that arrived before it (and after) goes to the overflow first, so that its place there
  // is fixed: before the first later packet of its source.
  stash();
  auto at = overflow_.begin();
  while (at != overflow_.end() && !(at->h.src == l.slot.h.src && at->h.seq > l.slot.h.seq)) ++at;
  overflow_.insert(at, l.slot);
  l.state.store(torus::kLandingClosed, std::memory_order_release);
}

void TorusDevice::landing_remove(uint32_t id) noexcept {
  me_->landing_mask.store(me_->landing_mask.load(std::memory_order_relaxed) & ~(1u << (id - 1)),
                          std::memory_order_release);
  --landings_from_[landings_[id - 1].src];
  landings_[id - 1] = LandingUse{};
  --landing_count_;
}

// The landing's packet to the sink, closed first (the sink reads the slot); open again if it says so.
void TorusDevice::hand_over(uint32_t i) noexcept {
  torus::Landing &l = me_->landings[i];
  l.state.store(torus::kLandingClosed, std::memory_order_relaxed);
  const torus::ReceptionSlot &r = l.slot;
  VtScope at(torus::arrival_of(r.h), torus::arrival_of(r.h));
  if (sink_.landed(sink_.arg, i + 1, r.h.src, r.payload + r.h.hdr_len, r.h.payload_len - r.h.hdr_len))
    l.state.store(torus::kLandingOpen, std::memory_order_release);
}

void TorusDevice::landings_before(uint32_t src, uint64_t seq) noexcept {
  for (;;) {
    uint32_t first = torus::kLandings;
    for (uint32_t i = 0; i < torus::kLandings; ++i) {
      if (!landings_[i].used || landings_[i].src != src) continue;
      const torus::Landing &l = me_->landings[i];
      if (l.state.load(std::memory_order_acquire) == torus::kLandingFull && l.slot.h.seq < seq &&
          (first == torus::kLandings || l.slot.h.seq < me_->landings[first].slot.h.seq))
        first = i;
    }
    if (first == torus::kLandings) return;
    hand_over(first);
  }
}

int TorusDevice::landings_full() noexcept {
  const uint64_t landed = me_->landed.load(std::memory_order_acquire);
  if (landed == landed_seen_) return 0;
  uint32_t full[torus::kLandings], n = 0;
  for (uint32_t i = 0; i < torus::kLandings; ++i)
    if (landings_[i].used && me_->landings[i].state.load(std::memory_order_acquire) == torus::kLandingFull)
      full[n++] = i;
  // A packet the engine put in the FIFO before one of these is delivered first (the poll loops).
  if (n && me_->rec_tail.load(std::memory_order_acquire) != consumed_) return -1;
  landed_seen_ = landed;
  std::sort(full, full + n, [this](uint32_t a, uint32_t b) {
    return me_->landings[a].slot.h.seq < me_->landings[b].slot.h.seq;
  });
  for (uint32_t k = 0; k < n; ++k) hand_over(full[k]);
  return int(n);
}

void TorusDevice::check_engine() noexcept {
  if (engine_pidfd_ < 0) return;
  struct pollfd p = {engine_pidfd_, POLLIN, 0};
  if (::poll(&p, 1, 0) == 1 && fatal_) {
    fatal_("the torus engine (pid " + std::to_string(engine_pid_) +
           ") ended while this rank was running; its messages cannot move");
  }
}

void TorusDevice::wait(unsigned timeout_us, bool (*also)(void *), void *arg) noexcept {
  check_engine();
  me_->bell.wait(std::min(timeout_us, kEngineCheckUs), [&] {
    if (me_->rec_tail.load(std::memory_order_acquire) != me_->rec_head.load(std::memory_order_relaxed))
      return true;
    for (uint32_t m = running_.load(std::memory_order_relaxed); m; m &= m - 1) {
      const torus::PatternFifoArea &f = me_->patterns[__builtin_ctz(m)];
      if (f.done.load(std::memory_order_acquire) == f.tail.load(std::memory_order_relaxed)) return true;
    }
    if (landing_count_ && me_->landed.load(std::memory_order_acquire) != landed_seen_) return true;
    if (reads_count_.load(std::memory_order_relaxed) &&
        me_->zeroed.load(std::memory_order_acquire) != zeroed_seen_.load(std::memory_order_relaxed))
      return true;
    return also && also(arg);
  });
}

void TorusDevice::shutdown() noexcept {
  publish();
  // Before detaching: the engine reads every rank's log once all have detached. An engine no longer
  // serving (it stopped for a rank that died) writes no report and would leave the file behind.
  if (vt_logged() && header_->engine_state.load(std::memory_order_acquire) == torus::kEngineServing) {
    const std::string path = torus::replay_log_path(report_, self_);
    const char *why = g_vtlog.overflow ? "it outgrew 2^31 expressions" : nullptr;
    if (!why) {
      // Named by the engine serving this job, so that a log another job left is never read.
      const uint64_t head[3] = {torus::kReplayLogMagic, uint64_t(engine_pid_), self_};
      const size_t n = g_vtlog.count;
      FILE *f = std::fopen(path.c_str(), "wb");
      bool ok = f && std::fwrite(head, sizeof head, 1, f) == 1 &&
                std::fwrite(g_vtlog.nodes, sizeof(uint64_t), n, f) == n;
      if (f && std::fclose(f) != 0) ok = false;
      if (!ok) why = std::strerror(errno);
    }
    if (why)
      std::fprintf(stderr,
                   "pamir: PAMIR_TORUS_REPORT: rank %u's log for the replay, %s: %s; the report's virtual "
                   "times will be the engine's, not the replay's\n",
                   self_, path.c_str(), why);
  }
  vt_log_on(false);
  vt_log_release();
  me_->state.store(torus::kRankDetached, std::memory_order_release);
  (void)header_->bell.ring();
  // Rank 0 started the engine: it waits (bounded) for it to write the report and remove the area, so
  // a launcher that ends the job's processes with its ranks (Slurm's step) cannot cut that short.
  if (self_ == 0 && engine_pidfd_ >= 0) {
    struct pollfd p = {engine_pidfd_, POLLIN, 0};
    while (::poll(&p, 1, kEngineExitWaitMs) < 0 && errno == EINTR) {
    }
  }
}

}  // namespace pamir::dev
