#include "devices/torus/engine.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace pamir::torus {
namespace {

constexpr uint32_t kHeaderBytes = sizeof(PacketHeader);
static_assert(kHeaderBytes + kPacketPayload <= Packet::kMaxBytes, "a packet's wire bytes fit its bit-field");
constexpr size_t kBounceBytes = size_t(1) << 20;

uint32_t data_packets(uint64_t length) {
  return length == 0 ? 1 : uint32_t((length + kPacketPayload - 1) / kPacketPayload);
}

uint64_t now_ns() {
  struct timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

}  // namespace

Engine::Engine(void *area, const Geometry &geometry, int depth, Timing timing)
    : area_(area),
      geometry_(geometry),
      net_(geometry_, depth),
      ranks_(static_cast<AreaHeader *>(area)->ranks),
      taken_(ranks_, 0),
      done_bits_(size_t(ranks_) * kDoneWords, 0),
      rec_head_seen_(ranks_, 0),
      fifo_in_flight_(ranks_, 0),
      kicks_seen_(ranks_, 0),
      pattern_taken_(size_t(ranks_) * kPatternFifos, 0),
      starts_pending_(ranks_, 0),
      rank_stats_(ranks_),
      timing_(timing),
      inject_free_(size_t(geometry.nodes()) * kNodeChannels, 0),
      clock_(ranks_, 0) {
  if (timing_.link_mbps == 0) timing_.link_mbps = Timing{}.link_mbps;
  // A packet's time on a link by its size: the division, once per size rather than once per packet.
  wire_ns_.resize(kHeaderBytes + kPacketPayload + 1);
  for (uint32_t b = 0; b < wire_ns_.size(); ++b)
    wire_ns_[b] = uint32_t(uint64_t(b) * 1000u / timing_.link_mbps);
  node_of_.resize(ranks_);
  for (uint32_t r = 0; r < ranks_; ++r) node_of_[r] = geometry_.node(geometry_.coords(r));
  // The engine rings a rank's doorbell for every packet and counter it writes: registered for the
  // sleepers' barrier (doorbell.h), it rings without a fence, which would wait for each packet's stores.
  dev::shm::unfence_ringers();
  net_.on_arrival(&Engine::arrive, this);
  net_.on_drop(&Engine::dropped, this);
  bounce_.resize(kBounceBytes);
}

bool Engine::work_waiting() const {
  for (uint32_t r = 0; r < ranks_; ++r) {
    const RankBlock *b = rank_block(area_, r);
    if (b->inj_tail.load(std::memory_order_acquire) != taken_[r] ||
        b->pattern_kicks.load(std::memory_order_acquire) != kicks_seen_[r])
      return true;
  }
  return false;
}

inline uint32_t Engine::id_for(const Info &info) {
  if (free_ids_.empty()) {
    infos_.push_back(info);
    return uint32_t(infos_.size() - 1);
  }
  const uint32_t id = free_ids_.back();
  free_ids_.pop_back();
  infos_[id] = info;
  return id;
}

void Engine::send(Info info, uint32_t wire_bytes, uint64_t not_before) {
  Packet p;
  p.src = node_of_[info.from];
  p.dst = node_of_[info.to];
  p.bytes = uint16_t(wire_bytes);
  p.control = info.kind == kRequest || info.kind == kCounter;
  // Leaves once its node's link of the first hop is free, taking the packet's bytes at the link rate;
  // then a latency per hop. A node's links send at once, as the messaging unit's injection FIFOs do.
  uint64_t &free_at = inject_free_[node_channel(p.src, p.dst)];
  const uint64_t depart = std::max(free_at, not_before) + wire_ns_[wire_bytes];
  free_at = depart;
  land(info.from, depart);
  info.vt = depart;  // its arrival adds the hops it took (arrive(), dropped())
  p.id = id_for(info);
  net_.inject(p);
  ++stats_.packets;
  if (p.control) ++stats_.control;
}

// Takes descriptor `index` of `rank`: checks it, keeps a copy, and injects its first packets.
void Engine::take(uint32_t rank, uint64_t index) {
  const uint32_t slot = uint32_t(index % kInjectionSlots);
  take_slot(rank, slot, rank_block(area_, rank)->injection[slot], (index + 1) << 24);
}

// Descriptor `index` of pattern FIFO `p`: the same `size` descriptors walked again at every start.
void Engine::take_pattern(uint32_t rank, uint32_t p, uint64_t index) {
  const PatternFifoArea &f = rank_block(area_, rank)->patterns[p];
  const uint32_t i = f.size ? uint32_t(index % std::min(f.size, kPatternSlots)) : 0;
  Descriptor d = f.slots[i];  // written once; this start leaves no earlier than its stamp
  d.not_before_ns = std::max(d.not_before_ns, f.start_ns.load(std::memory_order_relaxed));
  if (log_.on) {  // a pattern's slots carry no stamp of their own (pattern_add), only its starts do
    const uint32_t start_x = f.start_x.load(std::memory_order_relaxed);
    d.not_before_x =
        d.not_before_x ? log_.later(rank_ref(rank, d.not_before_x), rank_ref(rank, start_x)) : start_x;
  }
  // Its place in the rank's order (the replay's among equal stamps): after the injection FIFO's
  // descriptors written before the start (index i has order (i + 1) << 24), before those after, starts
  // by their kicks, and the pattern's own descriptors in its order.
  const uint64_t order = f.inj_at.load(std::memory_order_relaxed) << 24 | uint64_t(1) << 23 |
                         (f.kick.load(std::memory_order_relaxed) & 0x7ff) << 12 | (index % kPatternSlots);
  take_slot(rank, kInjectionSlots + p * kPatternSlots + i, d, order);
}

void Engine::take_slot(uint32_t rank, uint32_t slot, const Descriptor &d, uint64_t order) {
  uint32_t id;
  if (free_flows_.empty()) {
    id = uint32_t(flows_.size());
    flows_.emplace_back();
  } else {
    id = free_flows_.back();
    free_flows_.pop_back();
  }
  // Each field read once from the rank's slot, which the rank may write again: the checks and the rest
  // read the flow.
  Flow &f = flows_[id];
  f.length = d.length;
  f.local_addr = d.local_addr;
  f.remote_offset = d.remote_offset;
  f.dest = d.dest;
  f.remote_base = d.remote_base;
  f.local_counter = d.local_counter;
  f.remote_counter = d.remote_counter;
  f.status = d.status;
  f.origin = rank;
  f.slot = uint16_t(slot);
  f.dispatch = d.dispatch;
  f.hdr_len = d.hdr_len;
  f.payload_len = d.payload_len;
  f.intent = d.intent;
  f.copied = false;
  const uint64_t not_before = d.not_before_ns;
  ++stats_.descriptors;
  ++open_descriptors_;
  const bool valid =
      f.dest < ranks_ && f.local_counter <= kCounters && f.remote_counter <= kCounters &&
      f.remote_base <= kBases &&
      (f.intent != Intent::memory_fifo || (f.hdr_len <= f.payload_len && f.payload_len <= kPacketPayload)) &&
      (f.intent == Intent::memory_fifo || f.intent == Intent::direct_put || f.intent == Intent::remote_get ||
       f.intent == Intent::counter_put);
  if (!valid) {
    // Nothing the device writes: a stray descriptor fails alone, its counter told, never the engine.
    ++stats_.failures;
    if (f.local_counter <= kCounters) take_bytes(rank, f.local_counter, f.length, -EINVAL, 0, 0);
    f.packets_left = 1;
    finish_packet(id);
    return;
  }
  if (log_.on) [[unlikely]]
    record_descriptor(rank, id, d.not_before_x, order);
  switch (f.intent) {
    case Intent::memory_fifo:
      f.packets_left = 1;
      // Its bytes are read when it lands, some cycles from now: the rank wrote them on another core (or
      // long ago), so the lines are fetched meanwhile rather than waited for then.
      if (slot < kInjectionSlots)
        for (uint32_t at = 0; at < f.payload_len; at += 64)
          __builtin_prefetch(rank_block(area_, rank)->lookaside[slot] + at);
      prefetch_reception(f.dest, f.payload_len);
      send(Info{id, 0, kFifo, rank, f.dest, 0}, kHeaderBytes + f.payload_len, not_before);
      break;
    case Intent::counter_put:
      f.packets_left = 1;
      send(Info{id, 0, kCounter, rank, f.dest, 0}, kHeaderBytes, not_before);
      break;
    case Intent::remote_get:
      // The request travels to the data's owner, whose unit sends the data back (seed 004's remote get).
      f.packets_left = 1 + data_packets(f.length);
      send(Info{id, 0, kRequest, rank, f.dest, 0}, kHeaderBytes, not_before);
      break;
    case Intent::direct_put:
      f.packets_left = data_packets(f.length);
      send_data(id, rank, f.dest, not_before);
      break;
  }
}

bool Engine::arrive(void *self, const Packet &p) {
  auto *e = static_cast<Engine *>(self);
  Info info = e->infos_[p.id];  // a copy: deliver() may inject, and grow infos_
  info.vt += uint64_t(p.hops) * e->timing_.hop_ns;
  if (e->log_.on) [[unlikely]]
    e->note_hops(info, p.hops, false);
  if (!e->deliver(info, p.hops)) return false;
  e->free_ids_.push_back(uint32_t(p.id));
  return true;
}

void Engine::set_faults(const std::vector<LinkFault> &faults) {
  faults_ = faults;
  for (const LinkFault &f : faults) net_.set_fault(f.node, f.dim, f.dir, f.down, f.probability, f.seed);
}

// A packet a fault dropped (or that found every way on down): what it carried is lost, and whoever
// waits for it learns so with the link's name, never by waiting forever. A memory-FIFO packet's
// destination ends the job (its message is gone); a transfer's counters get -ENOLINK, as they would
// if the bytes had landed, so the operation completes with an error.
namespace {

// The first transfer a fault failed on `rank`'s counters, named with its link for the rank's error.
void note_failure(void *area, uint32_t rank, const char *kind, uint32_t from, uint32_t to,
                  const std::string &where) {
  RankBlock *b = rank_block(area, rank);
  if (b->failed.load(std::memory_order_relaxed) == 0)
    std::snprintf(
        b->failed_what, sizeof b->failed_what,
        "a %s from rank %u to rank %u was dropped on link %s (PAMIR_TORUS_FAULT): its transfer failed", kind,
        from, to, where.c_str());
  b->failed.fetch_add(1, std::memory_order_release);
}

}  // namespace

void Engine::dropped(void *self, const Packet &p, uint32_t node, int dim, int dir) {
  auto *e = static_cast<Engine *>(self);
  Info info = e->infos_[p.id];
  info.vt += uint64_t(p.hops) * e->timing_.hop_ns;  // where it was lost
  if (e->log_.on) [[unlikely]]
    e->note_hops(info, p.hops, true);
  e->free_ids_.push_back(uint32_t(p.id));
  ++e->stats_.dropped;
  const Flow &d = e->flows_[info.flow];
  const std::string where = link_name(e->geometry_, node, dim, dir);
  static const char *const kinds[] = {"memory-FIFO packet", "counter put", "remote-get request",
                                      "data packet"};
  // The first loss on each link is named here; the report counts them all.
  if (e->net_.link_dropped(node, dim, dir) <= 1)
    std::fprintf(
        stderr,
        "pamir_torus_engine: PAMIR_TORUS_FAULT: a %s from rank %u to rank %u was dropped on link %s\n",
        kinds[info.kind], info.from, info.to, where.c_str());
  switch (info.kind) {
    case kFifo: {
      --e->fifo_in_flight_[info.to];
      RankBlock *to = rank_block(e->area_, info.to);
      if (to->lost.load(std::memory_order_relaxed) == 0)
        std::snprintf(to->lost_what, sizeof to->lost_what,
                      "a packet from rank %u was dropped on link %s (PAMIR_TORUS_FAULT): its message is lost",
                      info.from, where.c_str());
      to->lost.fetch_add(1, std::memory_order_release);
      (void)to->bell.ring();
      break;
    }
    case kCounter:
      note_failure(e->area_, d.dest, kinds[info.kind], info.from, info.to, where);
      e->take_bytes(d.dest, d.remote_counter, d.length, -ENOLINK, info.vt, e->arrival_x(info));
      break;
    case kRequest: {
      // No data will come: the origin's counter gets all of it, failed, and the data packets are done.
      note_failure(e->area_, d.origin, kinds[info.kind], info.from, info.to, where);
      e->take_bytes(d.origin, d.local_counter, d.length, -ENOLINK, info.vt, e->arrival_x(info));
      for (uint32_t n = data_packets(d.length); n-- > 0;) e->finish_packet(info.flow);
      break;
    }
    case kData:
      note_failure(e->area_, d.origin, kinds[info.kind], info.from, info.to, where);
      e->take_bytes(d.origin, d.local_counter, info.bytes, -ENOLINK, info.vt, e->arrival_x(info));
      if (d.intent == Intent::direct_put) {
        note_failure(e->area_, d.dest, kinds[info.kind], info.from, info.to, where);
        e->take_bytes(d.dest, d.remote_counter, info.bytes, -ENOLINK, info.vt, e->arrival_x(info));
      }
      break;
  }
  e->finish_packet(info.flow);
}

// A memory-FIFO packet's bytes into its reception slot: the header and payload from the lookaside slot,
// or a pattern's header and its payload read from the origin's memory (kFromMemory). False when the
// origin's memory could not be read: the destination learns it as a lost packet.
bool Engine::fill_fifo_payload(const Info &info, ReceptionSlot &r) {
  const Flow &d = flows_[info.flow];
  RankBlock *from = rank_block(area_, d.origin);
  if (d.slot < kInjectionSlots) {
    std::memcpy(r.payload, from->lookaside[d.slot], d.payload_len);
    return true;
  }
  std::memcpy(r.payload, fifo_header(d), d.hdr_len);
  const size_t n = size_t(d.payload_len) - d.hdr_len;
  if (n == 0) return true;
  struct iovec here = {r.payload + d.hdr_len, n};
  struct iovec there = {reinterpret_cast<void *>(uintptr_t(d.local_addr)), n};
  ++stats_.copies;
  if (::process_vm_readv(from->pid.load(std::memory_order_acquire), &here, 1, &there, 1, 0) == ssize_t(n))
    return true;
  RankBlock *to = rank_block(area_, d.dest);
  if (to->lost.load(std::memory_order_relaxed) == 0)
    std::snprintf(to->lost_what, sizeof to->lost_what,
                  "the torus engine could not read rank %u's send buffer for a replayed message: %s",
                  d.origin, std::strerror(errno));
  to->lost.fetch_add(1, std::memory_order_release);
  (void)to->bell.ring();
  ++stats_.failures;
  return false;
}

// A memory-FIFO packet into a reception slot (of the FIFO or a landing): its header, numbered in the
// FIFO's sequence, and its bytes. False when they could not be read (fill_fifo_payload).
inline bool Engine::write_packet(const Info &info, ReceptionSlot &r) {
  const Flow &d = flows_[info.flow];
  r.h.src = d.origin;
  r.h.dispatch = d.dispatch;
  r.h.hdr_len = d.hdr_len;
  r.h.payload_len = d.payload_len;
  r.h.seq = ++fifo_seq_;
  r.h.vt_ns = info.vt;
  r.h.vt_x = arrival_x(info);
  return fill_fifo_payload(info, r);
}

// A memory-FIFO packet's protocol header: in the lookaside slot, or kept beside a pattern's descriptor.
const uint8_t *Engine::fifo_header(const Flow &f) const {
  const RankBlock *from = rank_block(area_, f.origin);
  if (f.slot < kInjectionSlots) return from->lookaside[f.slot];
  const uint32_t p = (f.slot - kInjectionSlots) / kPatternSlots,
                 i = (f.slot - kInjectionSlots) % kPatternSlots;
  return from->patterns[p].headers[i];
}

// A memory-FIFO packet into the destination's open landing for its source and header, if it has one:
// false sends it to the reception FIFO. A landing for it that is not open (closed, or still full) leaves
// it to the FIFO too: the rank orders the two by the packets' sequence numbers.
bool Engine::land(const Info &info, RankBlock *to, uint32_t mask) {
  const Flow &d = flows_[info.flow];
  const uint8_t *hdr = fifo_header(d);
  auto matches = [&](const Landing &l) {
    return l.src == d.origin && l.dispatch == d.dispatch && l.key_len == d.hdr_len &&
           std::memcmp(l.key, hdr, d.hdr_len) == 0;
  };
  for (; mask; mask &= mask - 1) {
    Landing &l = to->landings[__builtin_ctz(mask)];
    if (!matches(l)) continue;
    uint32_t open = kLandingOpen;
    if (!l.state.compare_exchange_strong(open, kLandingClaimed, std::memory_order_acq_rel)) return false;
    // The rank changes a landing's fields only while it is closed: read again now that it is ours, in
    // case it was removed and set up anew for another packet while they were compared.
    if (!matches(l)) {
      l.state.store(kLandingOpen, std::memory_order_release);
      continue;
    }
    if (!write_packet(info, l.slot)) {  // lost, and the destination told, as in the FIFO
      l.state.store(kLandingOpen, std::memory_order_release);
      return true;
    }
    l.state.store(kLandingFull, std::memory_order_release);
    to->landed.fetch_add(1, std::memory_order_release);
    (void)to->bell.ring();
    return true;
  }
  return false;
}

// The reception slot a memory-FIFO packet to `rank` will most likely take (the FIFO's tail plus the
// packets to it still in the network), fetched for writing when the packet leaves: writing a line the
// rank read hundreds of packets ago otherwise stalls the engine as it lands.
void Engine::prefetch_reception(uint32_t rank, uint32_t payload_len) {
  RankBlock *to = rank_block(area_, rank);
  const uint64_t at = to->rec_tail.load(std::memory_order_relaxed) + fifo_in_flight_[rank]++;
  const char *slot = reinterpret_cast<const char *>(&to->reception[at % kReceptionSlots]);
  const uintptr_t first = reinterpret_cast<uintptr_t>(slot) & ~uintptr_t(63);
  for (uintptr_t line = first; line < reinterpret_cast<uintptr_t>(slot) + kHeaderBytes + payload_len;
       line += 64)
    __builtin_prefetch(reinterpret_cast<const void *>(line), 1);
}

// At the packet's destination node. False only when a reception FIFO has no room: the packet waits.
bool Engine::deliver(const Info &info, uint16_t hops) {
  Flow &d = flows_[info.flow];
  switch (info.kind) {
    case kFifo: {
      RankBlock *to = rank_block(area_, d.dest);
      if (const uint32_t mask = to->landing_mask.load(std::memory_order_acquire);
          mask && land(info, to, mask)) [[unlikely]]
        break;
      const uint64_t tail = to->rec_tail.load(std::memory_order_relaxed);
      // The rank's head as last read: room it showed then is room still (the rank only frees more), so
      // the line the rank writes as it consumes is read only when the FIFO looks full.
      uint64_t &head = rec_head_seen_[d.dest];
      if (tail - head >= kReceptionSlots) {
        head = to->rec_head.load(std::memory_order_acquire);
        if (tail - head >= kReceptionSlots) return false;
      }
      if (write_packet(info, to->reception[tail % kReceptionSlots])) {  // else lost, and the destination told
        to->rec_tail.store(tail + 1, std::memory_order_release);
        (void)to->bell.ring();
      }
      break;
    }
    case kCounter: {
      // An acknowledgment of a transfer a fault failed passes the link's name on with its status.
      RankBlock *from = rank_block(area_, d.origin), *to = rank_block(area_, d.dest);
      if (d.status == -ENOLINK && from->failed.load(std::memory_order_acquire) > 0 &&
          to->failed.load(std::memory_order_relaxed) == 0) {
        std::memcpy(to->failed_what, from->failed_what, sizeof to->failed_what);
        to->failed.fetch_add(1, std::memory_order_release);
      }
      take_bytes(d.dest, d.remote_counter, d.length, d.status, info.vt, arrival_x(info));
      break;
    }
    case kRequest:
      // The owner's unit answers with the data, once the request is there and its link is free.
      if (log_.on) {
        const uint32_t request = transfer_of(info);
        // Among the owner's transfers of equal stamps to the requester, in the requester's order.
        flow_transfer_[size_t(info.flow) * 2 + 1] =
            record(d.dest, d.origin, ReplayLog::kGetData, transfer_arrival_[request],
                   log_.transfers[request].order, data_wire_ns(d.length));
      }
      send_data(info.flow, d.dest, d.origin, info.vt);
      break;
    case kData:
      // The descriptor's data moves whole with its first packet; each packet then counts its bytes.
      if (!d.copied) {
        d.status = copy(d);
        d.copied = true;
        if (d.status) ++stats_.failures;
      }
      take_bytes(d.origin, d.local_counter, info.bytes, d.status, info.vt, arrival_x(info));
      if (d.intent == Intent::direct_put)
        take_bytes(d.dest, d.remote_counter, info.bytes, d.status, info.vt, arrival_x(info));
      break;
  }
  land(info.to, info.vt);
  if (info.kind == kFifo) --fifo_in_flight_[info.to];
  if (info.kind == kFifo || info.kind == kData) {
    ++rank_stats_[info.from].injected;
    rank_stats_[info.from].hops += hops;
    ++rank_stats_[info.to].received;
  }
  finish_packet(info.flow);
  return true;
}

// The data packets of descriptor `flow`, from rank `from` to rank `to`.
void Engine::send_data(uint32_t flow, uint32_t from, uint32_t to, uint64_t not_before) {
  const uint64_t length = flows_[flow].length;
  const uint32_t n = data_packets(length);
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t bytes =
        uint32_t(std::min<uint64_t>(kPacketPayload, length - uint64_t(i) * kPacketPayload));
    send(Info{flow, bytes, kData, from, to, 0}, kHeaderBytes + bytes, not_before);
  }
}

// One transfer for what leaves the rank now (replay.h); a remote get's data gets its own when the
// request arrives (deliver), a put's data is this one.
void Engine::record_descriptor(uint32_t rank, uint32_t flow, uint32_t stamp_x, uint64_t order) {
  const Flow &f = flows_[flow];
  uint64_t wire = wire_ns_[kHeaderBytes];
  if (f.intent == Intent::memory_fifo) wire = wire_ns_[kHeaderBytes + f.payload_len];
  if (f.intent == Intent::direct_put) wire = data_wire_ns(f.length);
  if (flow_transfer_.size() < flows_.size() * 2) flow_transfer_.resize(flows_.size() * 2);
  const uint32_t t = record(rank, f.dest, uint32_t(f.intent), rank_ref(rank, stamp_x), order, wire);
  flow_transfer_[size_t(flow) * 2] = flow_transfer_[size_t(flow) * 2 + 1] = t;
}

uint32_t Engine::record(uint32_t from, uint32_t to, uint32_t kind, VtRef stamp, uint64_t order,
                        uint64_t wire_ns) {
  const uint32_t link = node_channel(node_of_[from], node_of_[to]);
  const uint32_t t = uint32_t(log_.transfers.size());
  log_.transfers.push_back(ReplayLog::Transfer{stamp, order, from, to, kind, link, 0, 0, wire_ns});
  transfer_arrival_.push_back(log_.arrival(t));
  return t;
}

// All a transfer of `length` data bytes takes on a link: its packets' times, as send() adds them.
uint64_t Engine::data_wire_ns(uint64_t length) const {
  const uint64_t n = data_packets(length);
  const uint64_t last = length - (n - 1) * kPacketPayload;
  return (n - 1) * uint64_t(wire_ns_[kHeaderBytes + kPacketPayload]) + wire_ns_[kHeaderBytes + last];
}

// The counter's time is the latest of the arrivals it took since its owner armed it (which cleared the
// expression): one more expression per transfer, not per packet.
void Engine::counter_took(uint32_t rank, uint32_t counter, uint32_t x) {
  Counter &c = rank_block(area_, rank)->counters[counter - 1];
  uint32_t &last = counter_arrival_[size_t(rank) * kCounters + counter - 1];
  const uint32_t cx = c.vt_x.load(std::memory_order_relaxed);
  if (cx == 0)
    c.vt_x.store(x, std::memory_order_relaxed);
  else if (cx != x && last != x)
    c.vt_x.store(log_.later(cx, x), std::memory_order_relaxed);
  last = x;
}

void Engine::note_hops(const Info &info, uint32_t hops, bool lost) {
  ReplayLog::Transfer &t = log_.transfers[transfer_of(info)];
  t.hops = std::max(t.hops, hops);
  t.lost |= lost;
}

void Engine::finish_packet(uint32_t flow) {
  Flow &f = flows_[flow];
  if (--f.packets_left != 0) return;
  --open_descriptors_;
  const uint32_t rank = f.origin, slot = f.slot;
  free_flows_.push_back(flow);
  RankBlock *b = rank_block(area_, rank);
  if (slot >= kInjectionSlots) {  // a pattern's: its rank waits for every one of a start
    std::atomic<uint64_t> &done = b->patterns[(slot - kInjectionSlots) / kPatternSlots].done;
    done.store(done.load(std::memory_order_relaxed) + 1, std::memory_order_release);
    (void)b->bell.ring();
    return;
  }
  // Slots free in order: inj_done passes every leading descriptor that is done.
  uint64_t *bits = &done_bits_[size_t(rank) * kDoneWords];
  bits[slot / 64] |= uint64_t(1) << (slot % 64);
  uint64_t done = b->inj_done.load(std::memory_order_relaxed);
  const uint64_t before = done;
  for (; done < taken_[rank]; ++done) {
    const uint32_t i = uint32_t(done % kInjectionSlots);
    uint64_t &word = bits[i / 64];
    const uint64_t bit = uint64_t(1) << (i % 64);
    if (!(word & bit)) break;
    word &= ~bit;
  }
  if (done == before) return;  // an earlier descriptor is still in flight
  b->inj_done.store(done, std::memory_order_release);
  (void)b->bell.ring();  // a rank may wait for room in its injection FIFO
}

void Engine::take_bytes(uint32_t rank, uint32_t counter, uint64_t bytes, int64_t status, uint64_t vt,
                        uint32_t x) {
  if (counter == 0) return;
  RankBlock *b = rank_block(area_, rank);
  Counter &c = b->counters[counter - 1];
  if (vt > c.vt_ns.load(std::memory_order_relaxed)) c.vt_ns.store(vt, std::memory_order_relaxed);
  if (log_.on && x) [[unlikely]]
    counter_took(rank, counter, x);
  if (status) {
    int64_t none = 0;
    c.status.compare_exchange_strong(none, status, std::memory_order_relaxed);
  }
  if (c.value.fetch_sub(int64_t(bytes), std::memory_order_acq_rel) <= int64_t(bytes)) {
    b->zeroed.fetch_add(1, std::memory_order_release);
    (void)b->bell.ring();
  }
}

// The data of a put or get, from one rank's memory into another's through the engine's buffer: the
// region's bounds are checked against the owner's base-address table first.
int32_t Engine::copy(const Flow &d) {
  if (d.length == 0) return 0;
  RankBlock *peer = rank_block(area_, d.dest);
  if (d.remote_base == 0) return -EINVAL;
  const BaseEntry &e = peer->bases[d.remote_base - 1];
  const uint64_t base = e.addr.load(std::memory_order_acquire), len = e.len.load(std::memory_order_acquire);
  if (d.remote_offset > len || d.length > len - d.remote_offset) return -EFAULT;
  const pid_t origin = rank_block(area_, d.origin)->pid.load(std::memory_order_acquire);
  const pid_t target = peer->pid.load(std::memory_order_acquire);
  const bool put = d.intent == Intent::direct_put;
  const pid_t from = put ? origin : target, to = put ? target : origin;
  const uint64_t from_addr = put ? d.local_addr : base + d.remote_offset;
  const uint64_t to_addr = put ? base + d.remote_offset : d.local_addr;
  ++stats_.copies;
  for (uint64_t done = 0; done < d.length;) {
    const size_t n = size_t(std::min<uint64_t>(bounce_.size(), d.length - done));
    struct iovec here = {bounce_.data(), n};
    struct iovec there = {reinterpret_cast<void *>(uintptr_t(from_addr + done)), n};
    ssize_t got = ::process_vm_readv(from, &here, 1, &there, 1, 0);
    if (got != ssize_t(n)) return got < 0 ? -errno : -EFAULT;
    there.iov_base = reinterpret_cast<void *>(uintptr_t(to_addr + done));
    got = ::process_vm_writev(to, &here, 1, &there, 1, 0);
    if (got != ssize_t(n)) return got < 0 ? -errno : -EFAULT;
    done += n;
  }
  return 0;
}

// The rank's descriptors in the order it wrote them: the injection FIFO's up to `tail`, each pattern
// start once the descriptors written before it are taken, and starts in the order they were made. Returns
// whether any was taken.
bool Engine::take_in_order(uint32_t rank, uint64_t tail) {
  RankBlock *b = rank_block(area_, rank);
  bool any = false;
  for (;;) {
    uint32_t next = kPatternFifos;  // the earliest start pending
    uint64_t next_kick = 0;
    for (uint32_t m = starts_pending_[rank]; m; m &= m - 1) {
      const uint32_t p = uint32_t(__builtin_ctz(m));
      const uint64_t kick = b->patterns[p].kick.load(std::memory_order_relaxed);
      if (next == kPatternFifos || kick < next_kick) next = p, next_kick = kick;
    }
    if (next != kPatternFifos && b->patterns[next].inj_at.load(std::memory_order_relaxed) <= taken_[rank]) {
      uint64_t &taken = pattern_taken_[size_t(rank) * kPatternFifos + next];
      const uint64_t ptail = b->patterns[next].tail.load(std::memory_order_acquire);
      while (taken < ptail) take_pattern(rank, next, taken++);
      starts_pending_[rank] &= ~(1u << next);
    } else if (taken_[rank] < tail) {
      take(rank, taken_[rank]++);
    } else {
      return any;  // a start waits for descriptors written before it that this pass did not see
    }
    any = true;
  }
}

bool Engine::pass() {
  bool any = false;
  for (uint32_t r = 0; r < ranks_; ++r) {
    RankBlock *b = rank_block(area_, r);
    // The injection FIFO's tail first: a start seen after it follows every descriptor it counts.
    const uint64_t tail = b->inj_tail.load(std::memory_order_acquire);
    const uint64_t kicks = b->pattern_kicks.load(std::memory_order_acquire);
    if (kicks != kicks_seen_[r]) [[unlikely]] {
      kicks_seen_[r] = kicks;
      for (uint32_t p = 0; p < kPatternFifos; ++p)
        if (b->patterns[p].tail.load(std::memory_order_acquire) !=
            pattern_taken_[size_t(r) * kPatternFifos + p])
          starts_pending_[r] |= 1u << p;
    }
    if (starts_pending_[r]) [[unlikely]] {
      any |= take_in_order(r, tail);
      continue;
    }
    while (taken_[r] < tail) {
      take(r, taken_[r]++);
      any = true;
    }
  }
  // A bounded run of cycles, so that descriptors written meanwhile join the traffic soon.
  for (int i = 0; i < 256 && net_.in_flight(); ++i) {
    if (net_.cycle() == 0) break;  // blocked on full reception FIFOs: the ranks must drain them
    any = true;
  }
  stats_.cycles = net_.cycles();
  stats_.hops = net_.hops();
  return any;
}

namespace {

void fail(AreaHeader *h, const std::string &why) {
  std::snprintf(h->failure, sizeof h->failure, "%s", why.c_str());
  h->engine_state.store(kEngineFailed, std::memory_order_release);
  (void)h->bell.ring();
  std::fprintf(stderr, "pamir_torus_engine: %s\n", why.c_str());
}

// Rank `r` exited without detaching: the job is over (its launcher says how).
bool rank_died(std::vector<int> &pidfds, void *area, uint32_t ranks, uint32_t &dead) {
  for (uint32_t r = 0; r < ranks; ++r) {
    RankBlock *b = rank_block(area, r);
    if (pidfds[r] < 0) {
      const pid_t pid = b->pid.load(std::memory_order_acquire);
      if (pid > 0) pidfds[r] = int(::syscall(SYS_pidfd_open, pid, 0));
      continue;
    }
    struct pollfd p = {pidfds[r], POLLIN, 0};
    if (::poll(&p, 1, 0) == 1 && b->state.load(std::memory_order_acquire) != kRankDetached) {
      dead = r;
      return true;
    }
  }
  return false;
}

}  // namespace

int serve_area(const std::string &path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    std::fprintf(stderr, "pamir_torus_engine: cannot open %s: %s\n", path.c_str(), std::strerror(errno));
    return 1;
  }
  struct stat st;
  void *area = MAP_FAILED;
  if (::fstat(fd, &st) == 0 && size_t(st.st_size) >= sizeof(AreaHeader))
    area = ::mmap(nullptr, size_t(st.st_size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (area == MAP_FAILED) {
    std::fprintf(stderr, "pamir_torus_engine: cannot map %s\n", path.c_str());
    ::unlink(path.c_str());
    return 1;
  }
  auto *h = static_cast<AreaHeader *>(area);
  std::string why;
  Geometry g;
  if (h->magic != kAreaMagic || h->block_bytes != sizeof(RankBlock) ||
      size_t(st.st_size) != area_bytes(h->ranks)) {
    why = "the area " + path + " was made by another build of Pamir";
  } else {
    h->dims[sizeof h->dims - 1] = h->map[sizeof h->map - 1] = '\0';
    g.make(h->ranks, h->dims, h->map, why);
  }
  if (!why.empty()) {
    fail(h, why);
    ::unlink(path.c_str());
    return 1;
  }
  const uint64_t started = now_ns();
  Engine engine(area, g, 4, Timing{h->link_mbps, h->hop_ns});
  h->report[sizeof h->report - 1] = h->fault[sizeof h->fault - 1] = '\0';
  const std::string report = h->report;
  std::vector<LinkFault> faults;
  if (!parse_faults(h->fault, g, faults, why)) {
    fail(h, why);
    ::unlink(path.c_str());
    return 1;
  }
  engine.set_faults(faults);
  if (!report.empty()) engine.record_replay();
  h->engine_pid.store(int32_t(::getpid()), std::memory_order_release);
  h->engine_state.store(kEngineServing, std::memory_order_release);
  (void)h->bell.ring();

  std::vector<int> pidfds(h->ranks, -1);
  uint64_t next_check = 0;
  unsigned idle = 0;
  int code = 0;
  for (;;) {
    if (engine.pass()) {
      idle = 0;
      continue;
    }
    const uint64_t now = now_ns();
    if (now >= next_check) {
      next_check = now + 10 * 1000 * 1000;
      uint32_t dead = 0, detached = 0;
      if (rank_died(pidfds, area, h->ranks, dead)) {
        std::fprintf(stderr, "pamir_torus_engine: rank %u ended without detaching; the engine stops\n", dead);
        code = 1;
        break;
      }
      for (uint32_t r = 0; r < h->ranks; ++r)
        detached += rank_block(area, r)->state.load(std::memory_order_acquire) == kRankDetached;
      // Every rank is done: what is still in the network has nobody left to read it.
      if (detached == h->ranks) break;
    }
    // Packets blocked on a full reception FIFO: the engine never sleeps while packets are in flight.
    if (engine.busy()) {
      ::sched_yield();
      continue;
    }
    if (++idle < 64) {
      ::sched_yield();
      continue;
    }
    h->bell.wait(10 * 1000, [&] { return engine.work_waiting(); });
  }
  for (int p : pidfds)
    if (p >= 0) ::close(p);
  if (code != 0 && !report.empty())  // no report: the logs ranks left for its replay go too
    for (uint32_t r = 0; r < h->ranks; ++r) ::unlink(replay_log_path(report, r).c_str());
  if (code == 0 && !report.empty() &&
      !write_report(engine, replay_run(engine, report), report, double(now_ns() - started) / 1e9, why)) {
    std::fprintf(stderr, "pamir_torus_engine: PAMIR_TORUS_REPORT=%s: %s\n", report.c_str(), why.c_str());
    code = 1;
  }
  h->engine_state.store(kEngineDone, std::memory_order_release);
  ::unlink(path.c_str());
  return code;
}

}  // namespace pamir::torus
