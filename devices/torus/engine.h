// The torus job's messaging unit (issue 20, section 1): one process beside the ranks that walks their
// injection FIFOs, cuts each descriptor into packets, moves the packets hop by hop through the Network,
// and at each packet's destination does what its descriptor asks: writes it into a reception FIFO,
// lands put or get data (one cross-memory copy per descriptor, at its first packet), and takes the
// packet's bytes off the counters it names. The ranks' CPUs take no part once a descriptor is written.
//
// Only packet metadata travels the Network; the payload moves once, at the destination, from the
// origin's lookaside slot or memory (docs/architecture.md, "The torus device", says why).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "devices/torus/area.h"
#include "devices/torus/fault.h"
#include "devices/torus/geometry.h"
#include "devices/torus/network.h"
#include "devices/torus/replay.h"

namespace pamir::torus {

struct EngineStats {
  uint64_t descriptors = 0;  // taken from the injection FIFOs
  uint64_t packets = 0;      // injected into the network (control packets included)
  uint64_t hops = 0;         // link crossings
  uint64_t cycles = 0;
  uint64_t copies = 0;    // cross-memory copies (one per put or get descriptor)
  uint64_t failures = 0;  // transfers that ended with a status
  uint64_t control = 0;   // control packets (remote-get requests, counter puts) among `packets`
  uint64_t dropped = 0;   // packets a fault dropped (PAMIR_TORUS_FAULT)
};

// Per rank, what the report's `ranks` section shows: data packets it injected (a get's data counts for
// the rank whose memory it leaves) and received, and the hops those it injected travelled.
struct RankStats {
  uint64_t injected = 0, received = 0, hops = 0;
};

// The timing model's parameters (section 2): Blue Gene/Q's link, 2 GB/s each way, about 40 ns a hop.
struct Timing {
  uint32_t link_mbps = 2000;
  uint32_t hop_ns = 40;
};

class Engine {
 public:
  // `area` maps the whole job's area; `geometry` places its ranks. `depth`: packets each link's
  // virtual channel buffers.
  Engine(void *area, const Geometry &geometry, int depth = 4, Timing timing = Timing{});

  // One pass: takes new descriptors, moves packets until the network is quiet or blocked on a full
  // reception FIFO. Returns whether anything happened.
  bool pass();
  // Packets in the network, and descriptors taken whose packets are not all delivered.
  uint64_t in_flight() const { return net_.in_flight(); }
  bool busy() const { return net_.in_flight() != 0 || open_descriptors_ != 0; }
  // Applies PAMIR_TORUS_FAULT's faults (before the first pass).
  void set_faults(const std::vector<LinkFault> &faults);
  const std::vector<LinkFault> &faults() const { return faults_; }
  // Whether some rank has written descriptors not yet taken.
  bool work_waiting() const;

  const EngineStats &stats() const { return stats_; }
  const Network &network() const { return net_; }
  const Geometry &geometry() const { return geometry_; }
  const std::vector<RankStats> &rank_stats() const { return rank_stats_; }
  // Each rank's virtual clock: its last departure or arrival in the timing model.
  const std::vector<uint64_t> &clocks() const { return clock_; }
  const Timing &timing() const { return timing_; }
  // Records the transfers and the arrivals' expressions for the replay after the run (replay.h): on
  // when a report is asked for, before the first pass.
  void record_replay() {
    log_.on = true;
    counter_arrival_.assign(size_t(ranks_) * kCounters, 0);
  }
  const ReplayLog &replay_log() const { return log_; }
  static constexpr size_t kNodeChannels = kMaxDims * 2 + 1;

 private:
  // A descriptor in flight: what the engine needs of it once taken (never read from shared memory
  // again), in one cache line, from a pool the engine reuses last-freed first, so that the flows of the
  // packets moving now stay in the cache (a per-rank array mirroring the FIFO's slots touched a cold line
  // for every descriptor, twice).
  struct alignas(64) Flow {
    uint64_t length;  // the descriptor's fields the engine reads after taking it (area.h)
    uint64_t local_addr;
    uint64_t remote_offset;
    uint32_t dest, remote_base, local_counter, remote_counter;
    int32_t status;  // counter_put: the status it stores; a put or get: its copy's, once made
    uint32_t origin;
    uint32_t packets_left;
    uint16_t slot;  // its injection slot, or kInjectionSlots + its pattern slot
    uint16_t dispatch, hdr_len, payload_len;
    Intent intent;
    bool copied;
  };
  static_assert(sizeof(Flow) == 64);
  static_assert(kInjectionSlots + kPatternFifos * kPatternSlots <= 0xffff && kInjectionSlots % 64 == 0);
  enum : uint8_t { kFifo, kCounter, kRequest, kData };
  struct Info {         // what a packet in the network carries beyond its route
    uint32_t flow;      // its descriptor's, in flows_
    uint32_t bytes;     // data bytes it counts for
    uint8_t kind;       // kRequest, kData, kFifo, kCounter
    uint32_t from, to;  // the ranks it leaves and reaches
    uint64_t vt;        // the timing model's: its departure, and at its destination its arrival
  };
  static bool arrive(void *self, const Packet &p);
  static void dropped(void *self, const Packet &p, uint32_t node, int dim, int dir);
  bool deliver(const Info &info, uint16_t hops);
  void send_data(uint32_t flow, uint32_t from, uint32_t to, uint64_t not_before);
  void take(uint32_t rank, uint64_t index);
  void take_pattern(uint32_t rank, uint32_t p, uint64_t index);
  bool take_in_order(uint32_t rank, uint64_t tail);
  void take_slot(uint32_t rank, uint32_t slot, const Descriptor &from, uint64_t order);
  void prefetch_reception(uint32_t rank, uint32_t payload_len);
  bool fill_fifo_payload(const Info &info, ReceptionSlot &r);
  const uint8_t *fifo_header(const Flow &f) const;
  [[gnu::always_inline]] bool write_packet(const Info &info, ReceptionSlot &r);
  bool land(const Info &info, RankBlock *to, uint32_t mask);
  // Injects one packet from `info.from`'s node to `info.to`'s, leaving in the timing model when its
  // rank's injection link is free and not before `not_before`.
  void send(Info info, uint32_t wire_bytes, uint64_t not_before);
  void finish_packet(uint32_t flow);
  int32_t copy(const Flow &f);
  void take_bytes(uint32_t rank, uint32_t counter, uint64_t bytes, int64_t status, uint64_t vt, uint32_t x);
  [[gnu::always_inline]] uint32_t id_for(const Info &info);

  void *area_;
  const Geometry geometry_;
  Network net_;
  uint32_t ranks_;
  std::vector<uint32_t> node_of_;
  // Per rank: descriptors taken (the engine's consumer index), and a bit per injection slot whose
  // descriptor is done, so that inj_done can pass them in order.
  std::vector<uint64_t> taken_;
  static constexpr size_t kDoneWords = kInjectionSlots / 64;
  std::vector<uint64_t> done_bits_;       // [rank * kDoneWords + slot / 64]
  std::vector<uint64_t> rec_head_seen_;   // per rank: RankBlock::rec_head as last read
  std::vector<uint32_t> fifo_in_flight_;  // per rank: memory-FIFO packets to it taken and not landed
  std::vector<Flow> flows_;
  std::vector<uint32_t> free_flows_;
  std::vector<uint64_t> kicks_seen_;     // per rank: RankBlock::pattern_kicks as last looked at
  std::vector<uint64_t> pattern_taken_;  // per rank and pattern FIFO: descriptors taken
  // Per rank, the pattern FIFOs started and not yet taken: each waits until the injection FIFO's
  // descriptors written before it are taken, so that two messages of one envelope keep their order.
  std::vector<uint32_t> starts_pending_;
  uint64_t open_descriptors_ = 0;
  std::vector<Info> infos_;  // indexed by Packet::id
  std::vector<uint32_t> free_ids_;
  std::vector<uint8_t> bounce_;
  uint64_t fifo_seq_ = 0;
  std::vector<LinkFault> faults_;
  EngineStats stats_;
  std::vector<RankStats> rank_stats_;
  Timing timing_;
  // Per node and outgoing link (and one channel between the node's own ranks, kNodeChannels in all):
  // when it is next free (virtual ns).
  std::vector<uint64_t> inject_free_;
  // The channel a packet from node `src` to node `dst` leaves by: its first hop's port, or the node's own.
  uint32_t node_channel(uint32_t src, uint32_t dst) const {
    const int first = net_.first_port(src, dst);
    return uint32_t(size_t(src) * kNodeChannels + (first < 0 ? kNodeChannels - 1 : size_t(first)));
  }
  std::vector<uint32_t> wire_ns_;  // by bytes on the wire: the time a link takes to send them
  std::vector<uint64_t> clock_;
  // The replay's record (replay.h): per flow, its transfer and, for a remote get, its data's (the
  // same for a put); per transfer the expression of its arrival; per counter the last arrival it
  // took, so that a transfer's packets add one expression to a counter, not one each.
  ReplayLog log_;
  std::vector<uint32_t> flow_transfer_;  // [flow * 2 + (data)]
  std::vector<uint32_t> transfer_arrival_;
  std::vector<uint32_t> counter_arrival_;  // [rank * kCounters + counter - 1]
  uint32_t record(uint32_t from, uint32_t to, uint32_t kind, VtRef stamp, uint64_t order, uint64_t wire_ns);
  uint64_t data_wire_ns(uint64_t length) const;
  [[gnu::noinline]] void record_descriptor(uint32_t rank, uint32_t flow, uint32_t stamp_x, uint64_t order);
  [[gnu::noinline]] void counter_took(uint32_t rank, uint32_t counter, uint32_t x);
  [[gnu::noinline]] void note_hops(const Info &info, uint32_t hops, bool lost);
  uint32_t transfer_of(const Info &info) const {
    return flow_transfer_[size_t(info.flow) * 2 + (info.kind == kData)];
  }
  uint32_t arrival_x(const Info &info) const { return log_.on ? transfer_arrival_[transfer_of(info)] : 0; }
  void land(uint32_t rank, uint64_t vt) {
    if (vt > clock_[rank]) clock_[rank] = vt;
  }
};

// The engine's process: serves the area at `path` until every rank has detached (0) or one has died
// or the area is not valid (1, the reason on stderr and in the area's header). Removes the file.
int serve_area(const std::string &path);

// The report of PAMIR_TORUS_REPORT (section 3), as JSON: `links` and `ranks` hold counts that only
// the program's traffic decides; everything that depends on timing is under `timing`.
// `replayed`: the replay's times (replay.h), or, where it could not run, why (the report then gives the
// times the engine kept as it went, and says so).
bool write_report(const Engine &e, const ReplayResult &replayed, const std::string &path, double wall_seconds,
                  std::string &why);

// The replay of the run the engine served, with the ranks' logs read from beside the report (and
// removed).
ReplayResult replay_run(const Engine &e, const std::string &report);

}  // namespace pamir::torus
