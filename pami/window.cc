// Windows: creation of the node segment, the paths to targets, and the operations on mapped and
// device-reached memory. The served path's packets are in pami/protocols/window_am.cc.
#include "pami/window.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <unordered_map>

#include "pami/bootstrap.h"
#include "pami/clock.h"
#include "pami/config.h"
#include "pami/context.h"
#include "pami/node_memory.h"

namespace pamir {

namespace {

constexpr uint64_t kPage = 4096;
uint64_t round_up(uint64_t v, uint64_t a) {
  return (v + a - 1) / a * a;
}

std::unordered_map<uint32_t, Window *> &windows() {
  static auto *m = new std::unordered_map<uint32_t, Window *>;
  return *m;
}

int fallocate_all(int fd, uint64_t len) {
  while (len && ::fallocate(fd, 0, 0, off_t(len)) != 0) {
    if (errno == EINTR) continue;
    if (errno == EOPNOTSUPP) return 0;  // not tmpfs: pages come on first touch
    return errno;
  }
  return 0;
}

std::string errno_text(const char *what, const std::string &where, int err) {
  return std::string(what) + " " + where + ": " + std::strerror(err);
}

// Allgathered at creation: what each rank has.
struct Announce {
  uint64_t base;
  uint64_t size;
  uint32_t disp_unit;
  int32_t status;  // 0, or the errno of this rank's failure so far
  // MPI_Win_create over MPI_Alloc_mem's memory: where the node's ranks map it (fd -1: it is not).
  int32_t pid;
  int32_t fd;
  uint64_t region_offset;
  uint64_t region_bytes;
  uint64_t region_inode;
  // Its memory exposed for path remote (WinPath): the device's address of byte 0 and key, if rma.
  uint64_t rma_addr;
  uint64_t rma_key;
  int32_t rma;
  int32_t pad;
};

}  // namespace

void window_register(Window *w) {
  windows()[w->id()] = w;
}
void window_unregister(Window *w) {
  auto it = windows().find(w->id());
  if (it != windows().end() && it->second == w) windows().erase(it);
}
Window *window_by_id(uint32_t id) {
  auto it = windows().find(id);
  return it == windows().end() ? nullptr : it->second;
}

std::unique_ptr<Window> Window::create(Context &ctx, uint32_t id, const std::vector<uint32_t> &tasks,
                                       uint32_t rank, WinFlavor flavor, uint64_t size, uint32_t disp_unit,
                                       void *base, const Team &team, std::string &why) {
  std::unique_ptr<Window> w(new Window(ctx));
  w->id_ = id;
  w->rank_ = rank;
  w->flavor_ = flavor;
  w->team_ = team;
  const uint32_t n = uint32_t(tasks.size());
  w->targets_.resize(n);
  w->ctls_.assign(n, nullptr);
  w->granted_.assign(n, 0);

  // Sizes first: the node's memory is laid out from them.
  std::vector<Announce> all(n);
  Announce mine{uint64_t(uintptr_t(base)), size, disp_unit, 0, int32_t(::getpid()), -1, 0, 0, 0, 0, 0, 0, 0};
  NodeRegion region;
  if (flavor == WinFlavor::create && size && node_region_of(base, size, region)) {
    mine.fd = region.fd;
    mine.region_offset = region.offset;
    mine.region_bytes = region.bytes;
    mine.region_inode = region.inode;
  }
  if (int rc = team.allgather(&mine, all.data(), sizeof mine)) {
    why = "the exchange of window sizes failed (" + std::to_string(rc) + ")";
    return nullptr;
  }
  const auto &local = ctx.boot().local_peers();
  std::vector<uint32_t> node;  // window ranks on this node, in rank order
  for (uint32_t r = 0; r < n; ++r)
    if (std::find(local.begin(), local.end(), tasks[r]) != local.end()) node.push_back(r);
  const bool has_memory = flavor == WinFlavor::allocate || flavor == WinFlavor::shared;
  w->ctl_stride_ = round_up(sizeof(WinCtl) + 2 * sizeof(uint64_t) * n, 64);
  uint64_t at = round_up(w->ctl_stride_ * node.size(), kPage);
  std::vector<uint64_t> data_at(node.size(), 0);
  for (size_t i = 0; i < node.size(); ++i) {
    if (!has_memory) break;
    // MPI_Win_allocate_shared's memory is contiguous across the ranks (MPI 5.0 §12.2.3); an allocated
    // window's starts on a page of its own.
    if (flavor == WinFlavor::allocate) at = round_up(at, kPage);
    data_at[i] = at;
    at += all[node[i]].size;
  }
  // Offer slots for the pairs of node ranks that reach each other's memory through the device only:
  // kOfferSlots per pair of up to kOfferRoomMax of data each, smaller and fewer where the node has many
  // ranks (the pairs' slots stay within 8 MiB); none where a slot would hold less than 256 bytes.
  uint64_t offers_at = 0, pair_bytes = 0;
  if (!has_memory && node.size() > 1 && config::window_offers.flag) {
    const uint64_t budget = (uint64_t(8) << 20) / (node.size() * node.size());
    // 16 slots of up to kOfferRoomMax where the budget allows; else, as before slots grew, up to 4 KiB
    // each and fewer of them (a node of 41 to 162 ranks keeps one slot per pair instead of none).
    const auto data = [](uint64_t bytes) { return bytes > sizeof(WinOffer) ? bytes - sizeof(WinOffer) : 0; };
    const uint64_t room = std::max(std::min(kOfferRoomMax, data(budget / kOfferSlots)),
                                   std::min<uint64_t>(4096, data(budget))) /
                          64 * 64;
    if (room >= 256) {
      w->offer_bytes_ = uint32_t(room);
      w->offer_stride_ = sizeof(WinOffer) + room;
      w->offer_slots_ = uint32_t(std::min<uint64_t>(kOfferSlots, budget / w->offer_stride_));
      w->offer_scan_ = node.size() <= kOfferScanRanks;
      const uint64_t slow_ns = config::window_slow_handoff_ns.number;
      if (!slow_ns)
        w->handoff_slow_ticks_ = 0;
      else if (g_wall.sec_per_tick > 0)
        w->handoff_slow_ticks_ =
            std::max<uint64_t>(1, uint64_t(double(slow_ns) * 1e-9 / g_wall.sec_per_tick));
      pair_bytes = w->offer_stride_ * w->offer_slots_;
      offers_at = round_up(at, kPage);
      at = offers_at + pair_bytes * node.size() * node.size();
    }
  }
  w->seg_bytes_ = round_up(std::max<uint64_t>(at, kPage), kPage);

  // The node's first rank makes the segment; the others open it once it exists; the name goes once all
  // have it open (as the device's segment: a crash before leaves it to the launcher's clean-up).
  const bool leader = !node.empty() && node.front() == rank;
  const bool alone = node.size() == 1;
  std::string path;
  int fd = -1;
  int err = 0;
  if (!alone) {
    path = shm_segment_path(ctx.boot().nspace(), ctx.boot().hostname()) + "-win" + std::to_string(id) + "-" +
           std::to_string(tasks[node.front()]);
    if (leader) {
      fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
      if (fd < 0 && errno == EEXIST) {  // a crashed job's leftover of the same name
        ::unlink(path.c_str());
        fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
      }
      if (fd < 0) err = errno;
      if (!err && ::ftruncate(fd, off_t(w->seg_bytes_)) != 0) err = errno;
      if (!err) err = fallocate_all(fd, w->seg_bytes_);
      if (err) why = errno_text("cannot make the window segment", path, err);
    }
  }
  mine.status = err;
  if (int rc = team.allgather(&mine, all.data(), sizeof mine)) {
    why = "the window's creation exchange failed (" + std::to_string(rc) + ")";
    err = EIO;
  }
  for (uint32_t r = 0; r < n && !err; ++r)
    if (all[r].status) {
      err = all[r].status;
      why = "rank " + std::to_string(r) + " of the window could not make its node's window segment (" +
            std::strerror(err) + ")";
    }
  void *map = MAP_FAILED;
  if (!err) {
    if (alone) {
      map = ::mmap(nullptr, w->seg_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    } else {
      if (!leader) fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW);
      if (fd >= 0) map = ::mmap(nullptr, w->seg_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    }
    if (map == MAP_FAILED) {
      err = errno;
      why = errno_text("cannot map the window segment", alone ? std::string("(anonymous)") : path, err);
    }
  }
  if (fd >= 0) ::close(fd);
  if (map != MAP_FAILED) {
    w->seg_ = static_cast<uint8_t *>(map);
    for (size_t i = 0; i < node.size(); ++i) {
      w->ctls_[node[i]] = reinterpret_cast<WinCtl *>(w->seg_ + i * w->ctl_stride_);
      if (node[i] == rank && has_memory) base = w->seg_ + data_at[i];
    }
  }
  w->copier_.set_threshold(config::window_stream_run.number);
  // Second round: everybody has it open (or says why not), and the bases of made memory are known.
  mine.base = uint64_t(uintptr_t(base));
  mine.status = err;
  // Ranks that neither map nor attach this memory may reach it by a device that needs nothing of this
  // process (path remote): created memory where only such a device reaches its owner, allocated memory
  // off the node.
  if (config::window_device_rma.flag) w->rma_dev_ = ctx.passive_rma_device();
  bool remote_peers = false;
  for (uint32_t r = 0; r < n && w->rma_dev_ && !remote_peers; ++r)
    remote_peers = r != rank && ctx.passive_rma_to(tasks[r]) == w->rma_dev_ &&
                   (flavor == WinFlavor::create || std::find(node.begin(), node.end(), r) == node.end());
  if (!err && remote_peers && base && size && (flavor == WinFlavor::create || flavor == WinFlavor::allocate))
    mine.rma = w->expose_for_remote(mine.base, size, mine.rma_addr, mine.rma_key);
  const int rc = team.allgather(&mine, all.data(), sizeof mine);
  if (!alone && leader) ::unlink(path.c_str());
  if (rc && !err) {
    err = EIO;
    why = "the window's creation exchange failed (" + std::to_string(rc) + ")";
  }
  for (uint32_t r = 0; r < n && !err; ++r)
    if (all[r].status) {
      err = all[r].status;
      why = "rank " + std::to_string(r) + " of the window could not map its node's window segment (" +
            std::strerror(err) + ")";
    }
  if (err) return nullptr;

  for (uint32_t r = 0; r < n; ++r) {
    WinTarget &t = w->targets_[r];
    t.base = all[r].base;
    t.size = all[r].size;
    t.disp_unit = all[r].disp_unit;
    t.task = tasks[r];
    t.ctl = w->ctls_[r];
    if (r == rank) {
      t.path = WinPath::mapped;
      t.mapped = static_cast<uint8_t *>(base);
    } else if (t.ctl && has_memory) {
      t.path = WinPath::mapped;
      for (size_t i = 0; i < node.size(); ++i)
        if (node[i] == r) t.mapped = w->seg_ + data_at[i];
    } else if (t.ctl && all[r].fd >= 0 && ctx.node_memory_reachable(t.task) &&
               (t.mapped = w->map_region(all[r].pid, all[r].fd, all[r].region_bytes, all[r].region_inode,
                                         all[r].region_offset))) {
      t.path = WinPath::mapped;  // MPI_Alloc_mem's memory, mapped here too
    } else if (t.ctl && ctx.node_memory_reachable(t.task)) {
      t.path = WinPath::rdma;
      if (w->offer_bytes_) {
        size_t me = 0, them = 0;
        for (size_t i = 0; i < node.size(); ++i) {
          if (node[i] == rank) me = i;
          if (node[i] == r) them = i;
        }
        t.offer = reinterpret_cast<WinOffer *>(w->seg_ + offers_at + (me * node.size() + them) * pair_bytes);
        w->offers_in_.push_back(
            {reinterpret_cast<WinOffer *>(w->seg_ + offers_at + (them * node.size() + me) * pair_bytes),
             t.task, 1});
      }
    } else if (w->rma_dev_ && all[r].rma && ctx.passive_rma_to(t.task) == w->rma_dev_) {
      t.path = WinPath::remote;
      t.rma_addr = all[r].rma_addr;
      t.rma_key = all[r].rma_key;
    } else {
      t.path = WinPath::served;
    }
  }
  if (!w->offers_in_.empty()) w->set_polled(kPollOffers, true);
  // Whether some rank reaches another by served packets or offers: then every flush of every rank makes
  // progress, so that a rank spinning on its own memory (a lock word it polls with compare-and-swap and
  // flush) still serves the others.
  int32_t mine_needs = 0, any = 0;
  for (const WinTarget &t : w->targets_) mine_needs |= t.serves_some() || t.offer != nullptr;
  std::vector<int32_t> needs(n);
  // Registered before the last exchange, which no rank leaves before every rank has entered it: a
  // served packet sent as soon as its origin's creation returns finds the window here (one that found
  // no window by its id was dropped, and its origin's flush waited for ever).
  window_register(w.get());
  if (team.allgather(&mine_needs, needs.data(), sizeof mine_needs) != 0) {
    why = "the window's creation exchange failed";
    return nullptr;
  }
  for (int32_t v : needs) any |= v;
  w->progress_in_calls_ = any != 0;
  return w;
}

uint8_t *Window::map_region(int32_t pid, int32_t fd, uint64_t bytes, uint64_t inode, uint64_t offset) {
  void *p = node_map(pid_t(pid), fd, bytes, inode);
  if (!p) return nullptr;
  maps_.push_back({p, bytes});
  return static_cast<uint8_t *>(p) + offset;
}

Window::~Window() {
  set_polled(kPollLocks | kPollOffers, false);
  window_unregister(this);
  if (seg_) ::munmap(seg_, seg_bytes_);
  for (const auto &m : maps_) ::munmap(m.first, m.second);
  if (rma_hold_) rma_dev_->release_held(rma_hold_);
}

WinCtl *Window::ctl(uint32_t r) const {
  return ctls_[r];
}
std::atomic<uint64_t> *Window::posted(WinCtl *c, uint32_t r) const {
  return reinterpret_cast<std::atomic<uint64_t> *>(reinterpret_cast<uint8_t *>(c) + sizeof(WinCtl)) + r;
}
std::atomic<uint64_t> *Window::done(WinCtl *c, uint32_t r) const {
  return posted(c, 0) + targets_.size() + r;
}

bool Window::detach(uint64_t addr) {
  for (size_t i = 0; i < regions_.size(); ++i)
    if (regions_[i].first == addr) {
      regions_.erase(regions_.begin() + long(i));
      return true;
    }
  return false;
}

bool Window::in_regions(uint64_t addr, uint64_t len) const {
  for (const auto &reg : regions_)
    if (addr >= reg.first && addr - reg.first <= reg.second && len <= reg.second - (addr - reg.first))
      return true;
  return false;
}

// --- accumulate lock and passive-target locks -------------------------------------------------------

namespace {
// Windows whose served lock requests wait, polled from the context's progress hook.
std::vector<Window *> &polled_windows() {
  static auto *v = new std::vector<Window *>;
  return *v;
}
}  // namespace

void Window::set_polled(uint8_t reason, bool on) {
  const uint8_t was = polled_;
  polled_ = on ? uint8_t(polled_ | reason) : uint8_t(polled_ & ~reason);
  if (!was == !polled_) return;
  auto &v = polled_windows();
  Context::ProgressHook &hook = ctx_.progress_hook();
  if (polled_) {
    v.push_back(this);
    hook.windows = windows_poll;
    ++hook.active;
    ++hook.windows_active;
  } else {
    v.erase(std::find(v.begin(), v.end(), this));
    --hook.active;
    --hook.windows_active;
  }
}

void windows_poll() {
  // Backwards: a window whose last request is granted takes itself off the list.
  auto &v = polled_windows();
  for (size_t i = v.size(); i-- > 0;) v[i]->poll();
}

void Window::acc_lock(WinCtl *c) {
  for (;;) {
    if (c->acc_lock.exchange(1, std::memory_order_acquire) == 0) return;
    // Held for one operation's copy at most: spin, serving this process's own packets meanwhile (a
    // holder may be waiting on nothing of ours, but an oversubscribed node needs the CPU handed on).
    while (c->acc_lock.load(std::memory_order_relaxed)) {
      ctx_.advance();
      if (ctx_.oversubscribed()) sched_yield();
    }
  }
}

bool Window::try_lock(WinCtl *c, LockType type) {
  if (type == LockType::exclusive) {
    uint64_t expect = 0;
    return c->lock.compare_exchange_strong(expect, kLockExclusive, std::memory_order_acquire);
  }
  uint64_t v = c->lock.fetch_add(1, std::memory_order_acquire);
  if (!(v & kLockExclusive)) return true;
  c->lock.fetch_sub(1, std::memory_order_relaxed);
  return false;
}

void Window::release_lock(WinCtl *c, LockType type) {
  if (type == LockType::exclusive)
    c->lock.store(0, std::memory_order_release);
  else
    c->lock.fetch_sub(1, std::memory_order_release);
}

void Window::lock(uint32_t r, LockType type) {
  WinTarget &t = targets_[r];
  if (t.ctl) {
    ctx_.wait_until([&] { return try_lock(t.ctl, type); }, 50);
  } else {
    granted_[r] = 0;
    signal_lock(r, type);
    ctx_.wait_until([&] { return granted_[r] != 0; });
  }
  t.lock = type;
}

void Window::unlock(uint32_t r) {
  WinTarget &t = targets_[r];
  flush(r);
  if (t.ctl) {
    release_lock(t.ctl, t.lock);
    if (!waiting_locks_.empty()) serve_waiting_locks();
  } else {
    // Acknowledged like an operation, so that no unlock is still on its way when the window is freed.
    signal_unlock(r, t.lock);
    ++t.issued;
    wait_done(r);
  }
  t.lock = LockType::none;
}

// --- completion --------------------------------------------------------------------------------------

void Window::wait_done(uint32_t r) {
  WinTarget &t = targets_[r];
  std::atomic<uint64_t> *d = done(ctls_[rank_], r);
  if (d->load(std::memory_order_acquire) >= t.issued) return;
  ctx_.wait_until([&] { return d->load(std::memory_order_acquire) >= t.issued; }, 50);
}

void Window::flush(uint32_t r) {
  if (progress_in_calls_) ctx_.advance();
  if (targets_[r].serves_some()) wait_done(r);
  if (targets_[r].deferred()) submit();
  if (targets_[r].offered()) settle(r);
  // Direct stores are done at return; the fence makes them visible before what this process does next
  // (a later load, a release of a lock, a signal).
  full_fence();
}

void Window::flush_all() {
  if (progress_in_calls_) ctx_.advance();
  if (batch_.n) submit();
  for (uint32_t r = 0; r < targets_.size(); ++r)
    if (targets_[r].serves_some() && targets_[r].issued)
      wait_done(r);
    else if (targets_[r].offered())
      settle(r);
  full_fence();
}

int64_t Window::take_error() {
  WinCtl *c = ctls_[rank_];
  if (!c->error.load(std::memory_order_relaxed)) return 0;
  return c->error.exchange(0, std::memory_order_acq_rel);
}

// --- active target --------------------------------------------------------------------------------

void Window::post(const std::vector<uint32_t> &origins) {
  full_fence();  // this rank's stores before the origins' puts
  for (uint32_t o : origins) {
    WinCtl *c = ctls_[o];
    if (c) {
      posted(c, rank_)->fetch_add(1, std::memory_order_release);
      ctx_.coll_notify(targets_[o].task);
    } else {
      signal(o, kWinSignalPost);
    }
  }
}

void Window::start(const std::vector<uint32_t> &tgts) {
  WinCtl *me = ctls_[rank_];
  for (uint32_t t : tgts) {
    WinTarget &tg = targets_[t];
    std::atomic<uint64_t> *p = posted(me, t);
    if (p->load(std::memory_order_acquire) <= tg.posts_seen)
      ctx_.wait_until([&] { return p->load(std::memory_order_acquire) > tg.posts_seen; }, 50);
    ++tg.posts_seen;
    tg.access = true;
  }
}

void Window::complete(const std::vector<uint32_t> &tgts) {
  for (uint32_t t : tgts) {
    flush(t);
    targets_[t].access = false;
    WinCtl *c = ctls_[t];
    if (c) {
      c->completes.fetch_add(1, std::memory_order_release);
      ctx_.coll_notify(targets_[t].task);
    } else {
      signal(t, kWinSignalComplete);
    }
  }
}

bool Window::test_completes(uint64_t expected) const {
  return ctls_[rank_]->completes.load(std::memory_order_acquire) >= expected;
}

void Window::wait_completes(uint64_t expected) {
  if (test_completes(expected)) return;
  ctx_.wait_until([&] { return test_completes(expected); }, 50);
}

// --- data -------------------------------------------------------------------------------------------

int Window::direct(uint32_t r, bool write, const struct iovec *local, const struct iovec *remote,
                   unsigned n) {
  // The device takes a bounded number of pieces per call.
  constexpr unsigned kBatch = 512;
  for (unsigned i = 0; i < n; i += kBatch) {
    const unsigned k = std::min(kBatch, n - i);
    size_t want = 0;
    for (unsigned j = 0; j < k; ++j) want += local[i + j].iov_len;
    const ssize_t got = write ? ctx_.node_writev(targets_[r].task, local + i, k, remote + i, k)
                              : ctx_.node_readv(targets_[r].task, local + i, k, remote + i, k);
    if (got < 0) return int(got);
    if (size_t(got) != want) return -EFAULT;
  }
  return 0;
}

int Window::put(uint32_t r, uint64_t addr, const void *src, size_t len) {
  if (targets_[r].path == WinPath::rdma && len >= kDeferMinBytes)
    return defer(r, true, addr, const_cast<void *>(src), len);
  struct iovec l = {const_cast<void *>(src), len}, rm = {reinterpret_cast<void *>(uintptr_t(addr)), len};
  return put_pieces(r, &l, &rm, 1);
}

int Window::get(uint32_t r, uint64_t addr, void *dst, size_t len) {
  if (targets_[r].path == WinPath::rdma && len >= kDeferMinBytes) return defer(r, false, addr, dst, len);
  struct iovec l = {dst, len}, rm = {reinterpret_cast<void *>(uintptr_t(addr)), len};
  return get_pieces(r, &l, &rm, 1);
}

int Window::put_pieces(uint32_t r, const struct iovec *local, const struct iovec *remote, unsigned n) {
  WinTarget &t = targets_[r];
  if (t.deferred()) submit();  // in order after them
  switch (t.path) {
    case WinPath::mapped: {
      const uint64_t shift = uint64_t(uintptr_t(t.mapped)) - t.base;
      for (unsigned i = 0; i < n; ++i)
        copy_mapped(reinterpret_cast<void *>(uintptr_t(uint64_t(uintptr_t(remote[i].iov_base)) + shift)),
                    local[i].iov_base, local[i].iov_len);
      return 0;
    }
    case WinPath::rdma:
      if (n == 1 && local[0].iov_len <= UINT32_MAX &&
          offer(r, kOfferPut, nullptr, local[0].iov_base, nullptr, nullptr,
                uint64_t(uintptr_t(remote[0].iov_base)), uint32_t(local[0].iov_len)))
        return 0;
      if (t.offered()) settle(r);  // in order after it
      return direct(r, true, local, remote, n);
    case WinPath::served:
      for (unsigned i = 0; i < n; ++i) serve_put(r, local[i], remote[i]);
      return 0;
    case WinPath::remote:
      return device_rma(r, true, local, remote, n);
  }
  return 0;
}

int Window::get_pieces(uint32_t r, const struct iovec *local, const struct iovec *remote, unsigned n) {
  WinTarget &t = targets_[r];
  if (t.deferred()) submit();  // in order after them
  switch (t.path) {
    case WinPath::mapped: {
      const uint64_t shift = uint64_t(uintptr_t(t.mapped)) - t.base;
      for (unsigned i = 0; i < n; ++i)
        copy_mapped(local[i].iov_base,
                    reinterpret_cast<void *>(uintptr_t(uint64_t(uintptr_t(remote[i].iov_base)) + shift)),
                    local[i].iov_len);
      return 0;
    }
    case WinPath::rdma:
      if (n == 1 && local[0].iov_len <= UINT32_MAX &&
          offer(r, kOfferGet, nullptr, nullptr, nullptr, local[0].iov_base,
                uint64_t(uintptr_t(remote[0].iov_base)), uint32_t(local[0].iov_len)))
        return 0;
      if (t.offered()) settle(r);
      return direct(r, false, local, remote, n);
    case WinPath::served:
      for (unsigned i = 0; i < n; ++i) serve_get(r, local[i], remote[i]);
      return 0;
    case WinPath::remote:
      return device_rma(r, false, local, remote, n);
  }
  return 0;
}

void Window::apply(const WinOp &op, const void *in, void *inout, size_t bytes) {
  switch (op.op) {
    case coll::OpKind::replace:
      std::memcpy(inout, in, bytes);
      return;
    case coll::OpKind::no_op:
      return;
    default:
      coll::reduce_fn(op.op, op.elem)(in, inout, bytes / op.elem_bytes);
  }
}

int Window::accumulate(uint32_t r, const WinOp &op, const struct iovec *origin, const struct iovec *result,
                       const struct iovec *remote, unsigned n) {
  WinTarget &t = targets_[r];
  if (t.deferred()) submit();
  if (t.serves_some()) {
    for (unsigned i = 0; i < n; ++i)
      serve_accumulate(r, op, origin ? origin[i] : iovec{nullptr, remote[i].iov_len},
                       result ? &result[i] : nullptr, remote[i]);
    return 0;
  }
  if (t.path == WinPath::rdma) {
    if (n == 1 && (origin || result) && remote[0].iov_len <= kOfferPiecesMax) {
      int rc = 0;
      if (offer_pieces(r, result ? kOfferFetch : kOfferAcc, &op,
                       origin ? static_cast<uint8_t *>(origin[0].iov_base) : nullptr,
                       result ? static_cast<uint8_t *>(result[0].iov_base) : nullptr,
                       uint64_t(uintptr_t(remote[0].iov_base)), remote[0].iov_len, kOfferPieceBytes, rc))
        return rc;
    }
    if (t.offered()) settle(r);
    for (unsigned i = 0; i < n; ++i)
      if (int rc = rdma_accumulate(r, op, origin ? origin[i].iov_base : nullptr,
                                   result ? result[i].iov_base : nullptr, remote[i]))
        return rc;
    return 0;
  }
  acc_lock(t.ctl);
  const uint64_t shift = uint64_t(uintptr_t(t.mapped)) - t.base;
  for (unsigned i = 0; i < n; ++i) {
    void *at = reinterpret_cast<void *>(uintptr_t(uint64_t(uintptr_t(remote[i].iov_base)) + shift));
    if (result) std::memcpy(result[i].iov_base, at, remote[i].iov_len);
    if (origin) apply(op, origin[i].iov_base, at, remote[i].iov_len);
  }
  acc_unlock(t.ctl);
  return 0;
}

// Through the device: read the target's values, combine here, write them back, all under its
// accumulate lock (a cross-memory write is not atomic, so the lock is what makes the elements so).
int Window::rdma_accumulate(uint32_t r, const WinOp &op, const void *origin, void *result,
                            const struct iovec &remote) {
  WinTarget &t = targets_[r];
  const size_t len = remote.iov_len;
  if (scratch_.size() < len) scratch_.resize(len);
  struct iovec s = {scratch_.data(), len};
  acc_lock(t.ctl);
  int rc = direct(r, false, &s, &remote, 1);
  if (!rc) {
    if (result) std::memcpy(result, scratch_.data(), len);
    if (origin && op.op != coll::OpKind::no_op) {
      apply(op, origin, scratch_.data(), len);
      rc = direct(r, true, &s, &remote, 1);
    }
  }
  acc_unlock(t.ctl);
  return rc;
}

int Window::compare_and_swap(uint32_t r, const void *origin, const void *compare, void *result, uint64_t addr,
                             uint32_t bytes) {
  WinTarget &t = targets_[r];
  if (t.deferred()) submit();
  switch (t.path) {
    case WinPath::served:
    case WinPath::remote:
      serve_compare_and_swap(r, origin, compare, result, addr, bytes);
      return 0;
    case WinPath::rdma:
      if (offer(r, kOfferCas, nullptr, origin, compare, result, addr, bytes)) return 0;
      if (t.offered()) settle(r);
      return rdma_compare_and_swap(r, origin, compare, result, addr, bytes);
    case WinPath::mapped:
      break;
  }
  acc_lock(t.ctl);
  void *at = t.mapped + (addr - t.base);
  std::memcpy(result, at, bytes);
  if (std::memcmp(at, compare, bytes) == 0) std::memcpy(at, origin, bytes);
  acc_unlock(t.ctl);
  return 0;
}

int Window::rdma_compare_and_swap(uint32_t r, const void *origin, const void *compare, void *result,
                                  uint64_t addr, uint32_t bytes) {
  WinTarget &t = targets_[r];
  uint8_t old[16];
  struct iovec s = {old, bytes}, rm = {reinterpret_cast<void *>(uintptr_t(addr)), bytes};
  acc_lock(t.ctl);
  int rc = direct(r, false, &s, &rm, 1);
  if (!rc) {
    std::memcpy(result, old, bytes);
    if (std::memcmp(old, compare, bytes) == 0) {
      struct iovec o = {const_cast<void *>(origin), bytes};
      rc = direct(r, true, &o, &rm, 1);
    }
  }
  acc_unlock(t.ctl);
  return rc;
}

}  // namespace pamir
