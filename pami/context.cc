#include "pami/context.h"

#include <dlfcn.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "devices/ofi/ofi_device.h"
#include "devices/shm/shm_device.h"
#include "devices/torus/geometry.h"
#include "devices/torus/torus_device.h"
#include "pami/config.h"
#include "pami/cpus.h"
#include "pami/pattern.h"
#include "pami/send_tables.h"

namespace pamir {

Context *const g_context = new Context;

Context::Context() = default;
Context::~Context() = default;

namespace {
constexpr const char *kAgreedKey = "pamir.agreed";  // rank 0's config::agreed_text()
}  // namespace

int Context::init(std::string &why) {
  if (boot_.init(why) != 0) return 1;
  // Rank 0's settings that every rank must share are published before the devices' set-up fences the
  // job, and compared by every other rank after it.
  const std::string agreed = config::agreed_text();
  if (boot_.size() > 1 && boot_.rank() == 0 && boot_.put(kAgreedKey, agreed.data(), agreed.size()) != 0) {
    why = "cannot publish this rank's settings through PMIx";
    return 1;
  }
  if (open_devices(why) != 0) return 1;
  return check_settings_agree(agreed, why);
}

// A rank whose protocol tables or collective choices differ from rank 0's (an environment set per
// application, or an MPI_T write of an MPI_T_SCOPE_ALL_EQ variable before MPI_Init on some ranks only)
// would wait for ever in its first collective or rendezvous: it stops here, naming the setting.
int Context::check_settings_agree(const std::string &mine, std::string &why) {
  if (ntasks_ == 1 || self_ == 0) return 0;
  std::vector<uint8_t> theirs;
  if (boot_.get(0, kAgreedKey, theirs) != 0) {
    why = "cannot read rank 0's settings through PMIx";
    return 1;
  }
  std::string name, here, there;
  if (!config::first_difference(mine, std::string(theirs.begin(), theirs.end()), name, here, there)) return 0;
  why = name + " is \"" + here + "\" on this rank but \"" + there +
        "\" on rank 0; it must be alike on every " +
        "rank (MPI_T_SCOPE_ALL_EQ: the protocol tables and PAMIR_COLL_*), whether set in the environment or "
        "written through MPI_T before MPI_Init";
  return 1;
}

int Context::open_devices(std::string &why) {
  self_ = boot_.rank();
  ntasks_ = boot_.size();
  if (ntasks_ > kMaxRanks) {
    why = "jobs of more than " + std::to_string(kMaxRanks) + " ranks are not supported";
    return 1;
  }
  peers_ = std::vector<Peer>(ntasks_);
  box_peers_.reserve(ntasks_);  // joined and left as tokens go out and messages come in: no allocation
  if (!parse_table(config::put_protocols.value.c_str(), put_table_, why)) {
    why = "PAMIR_PUT_PROTOCOLS=\"" + config::put_protocols.value + "\" is not valid: " + why;
    return 1;
  }
  if (!parse_table(config::get_protocols.value.c_str(), get_table_, why)) {
    why = "PAMIR_GET_PROTOCOLS=\"" + config::get_protocols.value + "\" is not valid: " + why;
    return 1;
  }
  spin_ = unsigned(config::spin_count.number);
  patterns().set_capacity(uint32_t(config::pattern_fifo.number));
  direct_put_ = config::direct_put.flag;
  mailbox_ = config::mailbox.flag;
  sleep_max_us_ = unsigned(std::max<uint64_t>(1, config::sleep_max_us.number));
  fault_rdma_read_ = config::fault.number == 1;  // the index of rdma-read in PAMIR_FAULT's choices
  enum { kYieldAuto, kYieldYes, kYieldNo };      // the order of PAMIR_YIELD_WHEN_IDLE's choices (auto,yes,no)
  // A torus job's engine is one more busy process on the node: the ranks share the CPUs with it.
  enum { kDeviceAuto, kDeviceShm, kDeviceOfi, kDeviceTorus };  // PAMIR_DEVICE's choices, in order
  oversubscribed_ = boot_.local_size() + (config::device.number == kDeviceTorus ? 1 : 0) > usable_cpus();
  switch (config::yield_when_idle.number) {
    case kYieldYes:
      yield_ = true;
      break;
    case kYieldNo:
      yield_ = false;
      break;
    default:
      yield_ = oversubscribed_;
      break;
  }
  // A pass that yields the core costs a system call and often a context switch already: the fabric's
  // poll then adds little, and skipping it for PAMIR_OFI_POLL_INTERVAL such passes would cost ofi
  // traffic that many switches (measured: 8-byte allreduce over 2 emulated hosts x 2 ranks on 2 cores,
  // 80-134 us skipping, 40 us polling every pass).
  ofi_interval_ = yield_ ? 1 : unsigned(config::ofi_poll_interval.number);  // 1 to 2^20, checked when read
  ofi_interval_min_ = ofi_interval_;
  // A shared copy needs the sender on a core of its own: oversubscribed, the receiver would wait for a
  // chunk its descheduled sender claimed. The choices are in PAMIR_SHM_SHARED_COPY's order, as above.
  switch (config::shm_shared_copy.number) {
    case kYieldYes:
      shared_copy_ = true;
      break;
    case kYieldNo:
      shared_copy_ = false;
      break;
    default:
      shared_copy_ = boot_.local_size() <= usable_cpus();
      break;
  }
  dt_chunk_min_[unsigned(Path::self)] = dt_chunk_min_[unsigned(Path::shm)] = config::dt_chunk_min.number;
  dt_chunk_min_[unsigned(Path::ofi)] = config::ofi_dt_chunk_min.number;
  dt_chunk_min_[unsigned(Path::torus)] = config::dt_chunk_min.number;

  // Each peer is reached through one device for the whole job, so per-pair order (and the message
  // numbers tokens name) is what one device gives. The choices are in PAMIR_DEVICE's order.
  const auto choice = config::device.number;
  if (choice == kDeviceTorus) return open_torus(why);
  std::vector<bool> local(ntasks_, false);
  for (uint32_t t : boot_.local_peers()) local[t] = true;
  std::vector<uint32_t> remote;
  for (uint32_t t = 0; t < ntasks_; ++t)
    if (t != self_ && (choice == kDeviceOfi || !local[t])) remote.push_back(t);
  if (choice == kDeviceShm && !remote.empty()) {
    why = "PAMIR_DEVICE=shm, but rank " + std::to_string(remote.front()) +
          " is on another node; the shm device reaches only this node's ranks (PAMIR_DEVICE=auto adds "
          "ofi for the others)";
    return 1;
  }
  // The shm device's set-up fences the whole job once (a PMIx fence of the node's ranks alone returned
  // before every one had arrived, about 1 job in 100 under our mpirun). A rank with no shm device to set
  // up, alone on its node, makes the same fence: with a fence fewer on that node, every rank of the
  // other nodes would wait in the next one (srun -N 2 -n 3 hung in MPI_Init).
  if (choice != kDeviceOfi && boot_.local_size() > 1 && open_shm(why) != 0) return 1;
  if (choice != kDeviceOfi && boot_.local_size() == 1 && ntasks_ > 1 && boot_.fence(false) != 0) {
    why = "the PMIx fence that matches the other nodes' shared-memory set-up failed";
    return 1;
  }
  // Each device's table is checked only where some peer uses the device. A message to oneself takes
  // shm's table, or ofi's where every peer is on ofi: its protocol is counted, and rdma is refused.
  const bool shm_peers = remote.size() + 1 < ntasks_ || ntasks_ == 1;
  if (shm_peers && !load_send_table(Path::shm, send_tables_[unsigned(Path::shm)], why)) return 1;
  if (!remote.empty() &&
      (!load_send_table(Path::ofi, send_tables_[unsigned(Path::ofi)], why) || open_ofi(remote, why) != 0))
    return 1;
  send_tables_[unsigned(Path::self)] = send_tables_[unsigned(shm_peers ? Path::shm : Path::ofi)];
  for (uint32_t t = 0; t < ntasks_; ++t) {
    if (t == self_) continue;
    dev::Device *d = shm_ && shm_->reaches(t) ? shm_.get() : ofi_ && ofi_->reaches(t) ? ofi_.get() : nullptr;
    if (!d) {
      why = "no device reaches rank " + std::to_string(t);
      return 1;
    }
    Peer &p = peers_[t];
    p.dev = d;
    p.path = d == shm_.get() ? Path::shm : Path::ofi;
    p.table = &send_tables_[unsigned(p.path)];
    // check_send_table() bounded every immediate range by one packet, so bounds[0] + 1 cannot overflow.
    p.immediate_end = p.table->protos[0] == SendProtocol::immediate ? p.table->bounds[0] + 1 : 0;
    // One-sided transfers over ofi go by packets until RMA writes come (remote_access is shm's probe).
    if (d == ofi_.get()) peers_[t].cma_refused = true;
  }
  peers_[self_].table = &send_tables_[unsigned(Path::self)];
  // PAMIR_SHM_CMA=0: every peer is treated as one that cannot read us, from the first message on.
  if (!config::shm_cma.flag) {
    for (Peer &p : peers_)
      if (p.path == Path::shm) p.rdv_refused = p.cma_refused = true;
    if (config::verbose.flag)
      std::fprintf(stderr,
                   "pamir: rank %u: PAMIR_SHM_CMA=0: messages of the rdma range go through the "
                   "shared-memory rings (no cross-memory attach)\n",
                   self_);
  }
  // This host's peers are watched through pidfds: under srun no launcher of ours notices a death. Only
  // where the CMA token check vouched for the pid (another pid namespace's pid is someone else).
  if (shm_ && config::shm_cma.flag) {
    auto &shm = static_cast<dev::ShmDevice &>(*shm_);
    for (uint32_t t : boot_.local_peers())
      if (t != self_ && shm.remote_access(t) == 0) watch_.add(t, pid_t(shm.peer_pid(t)));
  }
  shm_immediate_ = shm_ && send_tables_[unsigned(Path::shm)].protos[0] == SendProtocol::immediate;
  initialized_ = true;
  return 0;
}

// What a device calls when it cannot go on: one line naming the rank, its host and the device, then the
// job ends.
std::function<void(const std::string &)> Context::device_fatal(const char *device) {
  return [this, device](const std::string &msg) {
    std::fprintf(stderr, "Pamir: rank %u on %s: %s: %s\n", self_, boot_.hostname().c_str(), device,
                 msg.c_str());
    boot_.abort(1, msg.c_str());
  };
}

int Context::open_shm(std::string &why) {
  dev::ShmParams p;
  p.path = shm_segment_path(boot_.nspace(), boot_.hostname());
  p.local_rank = boot_.local_rank();
  p.tasks = boot_.local_peers();
  p.my_task = self_;
  p.barrier = [this]() { return boot_.fence(false); };
  p.ring_bytes = size_t(config::shm_ring_size.number);
  p.spin_before_sleep = spin_;
  p.sink = dev::Sink{&Context::deliver, this};
  p.fatal = device_fatal("shared-memory device");
  shm_ = dev::ShmDevice::create(p, why);
  if (!shm_) {
    why = "shared-memory device: " + why;
    return 1;
  }
  return 0;
}

namespace {

// The engine beside the library that holds this code (its ../bin), so that a prefix copied elsewhere
// (a host that sees the libraries at another path) finds its own; else where the build installed it.
std::string torus_engine_path() {
  Dl_info info;
  if (::dladdr(reinterpret_cast<void *>(&torus_engine_path), &info) != 0 && info.dli_fname) {
    const std::string lib = info.dli_fname;
    const size_t slash = lib.rfind('/');
    if (slash != std::string::npos) {
      const std::string beside = lib.substr(0, slash) + "/../bin/pamir_torus_engine";
      if (::access(beside.c_str(), X_OK) == 0) return beside;
    }
  }
  return std::string(PAMIR_BINDIR) + "/pamir_torus_engine";
}

}  // namespace

int Context::open_torus(std::string &why) {
  if (boot_.local_size() != ntasks_) {
    why = "PAMIR_DEVICE=torus: the engine emulates the whole torus on one node, but this job has " +
          std::to_string(ntasks_ - boot_.local_size()) + " ranks on other nodes";
    return 1;
  }
  if (!load_send_table(Path::torus, send_tables_[unsigned(Path::torus)], why)) return 1;
  dev::TorusParams p;
  p.path = shm_segment_path(boot_.nspace(), boot_.hostname()) + "-torus";
  p.my_task = self_;
  p.ntasks = ntasks_;
  p.dims = config::torus_dims.value;
  p.map = config::torus_map.value;
  p.report = config::torus_report.value;
  p.fault = config::torus_fault.value;
  p.fail_reads = fault_rdma_read_;
  p.spin_count = uint32_t(std::min<uint64_t>(config::spin_count.number, UINT32_MAX));
  p.yield = yield_;
  // Checked here, as the settings' ranges are: a Count setting is any non-negative number.
  if (config::torus_link_mbps.number < 1 || config::torus_link_mbps.number > 1000000 ||
      config::torus_hop_ns.number > 1000000) {
    why = config::torus_link_mbps.number < 1 || config::torus_link_mbps.number > 1000000
              ? "PAMIR_TORUS_LINK_MBPS=" + config::torus_link_mbps.value + " is not valid: 1 to 1000000 MB/s"
              : "PAMIR_TORUS_HOP_NS=" + config::torus_hop_ns.value + " is not valid: 0 to 1000000 ns";
    return 1;
  }
  p.link_mbps = uint32_t(config::torus_link_mbps.number);
  p.hop_ns = uint32_t(config::torus_hop_ns.number);
  p.engine = torus_engine_path();
  p.barrier = [this]() { return boot_.fence(false); };
  p.sink = dev::Sink{&Context::deliver, this, &Context::read_done, &Context::landed, &Context::before_packet};
  p.fatal = device_fatal("torus device");
  torus_ = dev::TorusDevice::create(p, why);
  if (!torus_) {
    why = "torus device: " + why;
    return 1;
  }
  send_tables_[unsigned(Path::self)] = send_tables_[unsigned(Path::torus)];
  // Every rank's coordinates, for the collectives' torus algorithms (rank 0's Geometry has checked the
  // settings, so this one cannot fail where that one did not).
  torus::Geometry g;
  if (!g.make(ntasks_, p.dims, p.map, why)) return 1;
  for (int d = 0; d < g.ndims(); ++d)
    if (g.size(d) > 1) grid_extents_.push_back(g.size(d));
  grid_has_t_ = g.per_node() > 1;
  if (grid_has_t_) grid_extents_.push_back(g.per_node());
  grid_coords_.reserve(size_t(ntasks_) * grid_extents_.size());
  for (uint32_t t = 0; t < ntasks_; ++t) {
    const torus::Coords c = g.coords(t);
    for (int d = 0; d < g.ndims(); ++d)
      if (g.size(d) > 1) grid_coords_.push_back(c.at[size_t(d)]);
    if (grid_has_t_) grid_coords_.push_back(c.t);
  }
  // Recorded patterns of immediate sends are the engine's to replay (seed 004): their FIFOs are closed
  // with the sections that recorded them.
  replay_dev_ = torus_.get();
  device_patterns_.reserve(dev::TorusDevice::kMaxPatterns);
  patterns().on_device_release([](uint32_t id) {
    if (dev::Device *d = context().replay_device()) d->pattern_close(id);
  });
  patterns().on_landing_release([](uint32_t id) { context().landing_remove(id); });
  for (uint32_t t = 0; t < ntasks_; ++t) {
    Peer &peer = peers_[t];
    peer.table = &send_tables_[unsigned(t == self_ ? Path::self : Path::torus)];
    if (t == self_) continue;
    peer.dev = torus_.get();
    peer.path = Path::torus;
    peer.immediate_end = peer.table->protos[0] == SendProtocol::immediate ? peer.table->bounds[0] + 1 : 0;
    // The engine reaches only what a peer exposed in its base-address table: one-sided transfers to
    // plain addresses go by packets.
    peer.cma_refused = true;
  }
  initialized_ = true;
  return 0;
}

void Context::collect_device_stats() {
  if (torus_) stats().torus_descriptors = static_cast<dev::TorusDevice &>(*torus_).descriptors_written();
}

void Context::poll_device_patterns() {
  for (size_t i = 0; i < device_patterns_.size();) {
    const DevicePattern p = device_patterns_[i];
    if (!replay_dev_->pattern_done(p.id)) {
      ++i;
      continue;
    }
    device_patterns_[i] = device_patterns_.back();
    device_patterns_.pop_back();
    device_pattern_done(patterns(), p.section);
  }
}

int Context::open_ofi(const std::vector<uint32_t> &tasks, std::string &why) {
  dev::OfiParams p;
  p.provider = config::ofi_provider.value;
  p.atomic_acks = config::ofi_ack.value == "atomic" ||
                  (config::ofi_ack.value == "auto" && dev::OfiDevice::atomic_acks_faster(p.provider));
  p.atomic_acks_forced = config::ofi_ack.value == "atomic";
  p.atomic_acks_sent = &stats().rdv_atomic_acks;
  p.fail_reads = fault_rdma_read_;
  p.credits = unsigned(config::ofi_credits.number);
  p.mr_local = config::fault.number == 2;  // the index of mr-local in PAMIR_FAULT's choices
  p.local_registrations = &stats().ofi_local_registrations;
  // Beside the node segment's name (basename of shm_segment_path), which mpirun's clean-up matches.
  const std::string seg = shm_segment_path(boot_.nspace(), boot_.hostname());
  p.endpoint_name = seg.substr(seg.rfind('/') + 1) + "-ofi-" + std::to_string(self_);
  p.my_task = self_;
  p.ntasks = ntasks_;
  p.tasks = tasks;
  p.publish = [this](const void *data, size_t len) {
    return boot_.put(dev::OfiDevice::kAddressKey, data, len);
  };
  p.lookup = [this](uint32_t task, std::vector<uint8_t> &out) {
    return boot_.get(task, dev::OfiDevice::kAddressKey, out);
  };
  p.sink = dev::Sink{&Context::deliver, this, &Context::read_done};
  p.fatal = device_fatal("ofi device");
  ofi_ = dev::OfiDevice::create(p, why);
  if (!ofi_) {
    why = "ofi device: " + why;
    return 1;
  }
  stats().ofi_credits = static_cast<dev::OfiDevice &>(*ofi_).credits();
  // Every address is published before any peer looks one up; each is read at the first packet.
  if (boot_.fence(false) != 0) {
    why = "ofi device: the PMIx fence after publishing the fabric addresses failed";
    return 1;
  }
  return 0;
}

void Context::finalize() {
  if (!initialized_) return;
  wait_until([this] { return pending_.empty(); });
  watch_.clear();
  if (shm_) shm_->shutdown();
  // Closed, not only shut down: the context lives on after MPI_Finalize, and closing is what removes
  // what the provider made (the shm provider's files in /dev/shm).
  if (ofi_) ofi_->shutdown();
  if (torus_) torus_->shutdown();
  for (Peer &p : peers_)
    if (p.dev == ofi_.get()) {
      p.dev = nullptr;
      p.immediate_end = 0;
    }
  ofi_.reset();
  boot_.finalize();
  initialized_ = false;
}

const char *Context::device_name(uint32_t task) const {
  if (task == self_) return "self";
  return peers_[task].dev ? peers_[task].dev->name() : "none";
}

namespace {
uint64_t now_ns() {
  struct timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}
}  // namespace

void Context::poll_ofi_timed() {
  const uint64_t start = now_ns();
  ofi_->poll();
  const uint64_t end = now_ns();
  if (ofi_last_end_ns_) {
    // A flood arrives in bursts: one poll copies a batch out of the sockets, the next finds nothing.
    // The average of the last several costs, not the last one, decides, or the interval would halve
    // after every empty poll and the expensive ones would come back at the short interval.
    ofi_poll_cost_ns_ = (ofi_poll_cost_ns_ * 7 + (end - start)) / 8;
    const uint64_t gap = start - ofi_last_end_ns_;
    if (ofi_poll_cost_ns_ * kOfiPollShare > gap) {
      if (ofi_interval_ < kOfiMaxInterval) {
        ofi_interval_ *= 2;
        stats().ofi_interval_max = std::max<uint64_t>(stats().ofi_interval_max, ofi_interval_);
      }
    } else if (ofi_poll_cost_ns_ * kOfiPollShare * 4 < gap && ofi_interval_ > ofi_interval_min_) {
      ofi_interval_ = std::max(ofi_interval_ / 2, ofi_interval_min_);
    }
  }
  ofi_last_end_ns_ = end;
}

void Context::relax() {
  Unlocked unlocked;
  sched_yield();
}

void Context::peer_died(uint32_t task) {
  char msg[256];
  std::snprintf(msg, sizeof msg,
                "rank %u (pid %d, on this host, %s) ended without calling MPI_Finalize; ending the job", task,
                int(watch_.pid_of(task)), boot_.hostname().c_str());
  std::fprintf(stderr, "Pamir: rank %u on %s: %s\n", self_, boot_.hostname().c_str(), msg);
  // A launcher that watches its ranks (Pamir's mpirun, Open MPI's) has seen the death at once and ends
  // the job with the dead rank's own status; an abort from here first would replace that status.
  // Under srun nobody does: after this pause the abort ends the job.
  struct timespec pause = {0, 200 * 1000 * 1000};
  while (nanosleep(&pause, &pause) != 0) {
  }
  boot_.abort(1, msg);
}

dev::shm::Doorbell *Context::own_doorbell() {
  return shm_ ? static_cast<dev::ShmDevice &>(*shm_).own_doorbell() : nullptr;
}

void Context::idle(bool (*done)(void *), void *arg, unsigned sleep_us) {
  // A blocked call is where a dead peer would leave this rank forever; checked at most every 10 ms.
  if (watch_.size()) {
    const uint32_t dead = watch_.check(
        [this](uint32_t t) { return static_cast<const dev::ShmDevice &>(*shm_).peer_finalized(t); });
    if (dead != PeerWatch::kNone) peer_died(dead);
  }
  // A shared copy in flight ends when the origin moves its last chunk, or when the next pass takes the
  // chunks back: polled, never slept through (the origin rings only sleepers already counted).
  if (shares_in_flight()) {
    relax();
    return;
  }
  // With threads, done() would read requests other threads complete under the lock: not passed.
  const bool threaded = library_lock().enabled;
  if (threaded) done = nullptr;
  Unlocked unlocked;
  if (torus_) {
    ++stats().sleeps;
    torus_->wait(sleep_us && sleep_us < sleep_max_us_ ? sleep_us : sleep_max_us_, done, arg);
    return;
  }
  if (!shm_ && !ofi_) {
    sched_yield();
    return;
  }
  // Queued sends need no spinning either: a producer that finds a ring full marks it, and the consumer
  // rings this doorbell once it has drained room (the device's pending() also sees the room).
  ++stats().sleeps;
  unsigned us = sleep_us && sleep_us < sleep_max_us_ ? sleep_us : sleep_max_us_;
  if (!shm_) {
    // The ofi device is not thread-safe, and this thread no longer holds the lock: others nap.
    if (!threaded)
      ofi_->wait(us, done, arg);
    else if (static_cast<dev::OfiDevice &>(*ofi_).reads_in_flight())
      sched_yield();  // a read in flight moves only with this process's polls
    else
      usleep(std::min(us, kOfiNapUs));
    return;
  }
  // A message in a mailbox shows only in memory, so the sleeper's last check looks there too (tokens
  // are written only single-threaded).
  // Threaded, the mailboxes are not looked at without the lock (tokens written before the progress
  // thread engaged may still be out): a message there waits for a ring or the timeout.
  struct Check {
    Context *c;
    bool (*done)(void *);
    void *arg;
    bool boxes;
  } k{this, done, arg, !threaded};
  auto check = [](void *p) {
    auto *k = static_cast<Check *>(p);
    return (k->boxes && k->c->box_arrived()) || (k->done && k->done(k->arg));
  };
  if (ofi_) {
    // Both devices, one thread: poll() on the fabric's descriptor and the shm eventfd together,
    // with fi_trywait() the very last check. Threaded, or a provider without a descriptor: the futex,
    // for a sleep short enough that ofi traffic is noticed soon.
    auto &ofi = static_cast<dev::OfiDevice &>(*ofi_);
    if (!threaded && ofi.wait_fd() >= 0) {
      struct Both {
        Check k;
        dev::OfiDevice *ofi;
      } b{k, &ofi};
      const bool by_fabric = static_cast<dev::ShmDevice &>(*shm_).wait_also_on(
          ofi.wait_fd(), us,
          [](void *p) {
            auto *b = static_cast<Both *>(p);
            return (b->k.boxes && b->k.c->box_arrived()) || (b->k.done && b->k.done(b->k.arg)) ||
                   !b->ofi->may_sleep();
          },
          &b);
      if (by_fabric) ofi.woken_by_fd();
      return;
    }
    if (ofi.reads_in_flight()) {
      sched_yield();  // the nap would stall a read that only this process's polls move
      return;
    }
    us = std::min(us, kOfiNapUs);
  }
  if (box_peers_.empty())
    shm_->wait(us, done, arg);
  else
    shm_->wait(us, check, &k);
}

}  // namespace pamir
