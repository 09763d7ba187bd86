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
#include "devices/torus/geometry.h"
#include "devices/torus/network.h"

namespace pamir::torus {

struct EngineStats {
  uint64_t descriptors = 0;  // taken from the injection FIFOs
  uint64_t packets = 0;      // injected into the network (control packets included)
  uint64_t hops = 0;         // link crossings
  uint64_t cycles = 0;
  uint64_t copies = 0;    // cross-memory copies (one per put or get descriptor)
  uint64_t failures = 0;  // transfers that ended with a status
};

class Engine {
 public:
  // `area` maps the whole job's area; `geometry` places its ranks. `depth`: packets each link's
  // virtual channel buffers.
  Engine(void *area, const Geometry &geometry, int depth = 4);

  // One pass: takes new descriptors, moves packets until the network is quiet or blocked on a full
  // reception FIFO. Returns whether anything happened.
  bool pass();
  // Packets in the network, and descriptors taken whose packets are not all delivered.
  uint64_t in_flight() const { return net_.in_flight(); }
  bool busy() const { return net_.in_flight() != 0 || open_descriptors_ != 0; }
  // Whether some rank has written descriptors not yet taken.
  bool work_waiting() const;

  const EngineStats &stats() const { return stats_; }
  const Network &network() const { return net_; }

 private:
  struct Flow;        // a descriptor in flight
  struct Info {       // what a packet in the network carries beyond its route
    uint32_t origin;  // the rank whose descriptor it came from
    uint32_t slot;    // that descriptor's injection slot
    uint32_t bytes;   // data bytes it counts for
    uint8_t kind;     // kRequest, kData, kFifo, kCounter
  };
  static bool arrive(void *self, const Packet &p);
  bool deliver(const Info &info);
  void take(uint32_t rank, uint64_t index);
  void send(uint32_t from_rank, uint32_t to_rank, const Info &info);
  void finish_packet(uint32_t rank, uint32_t slot);
  int64_t copy(uint32_t rank, uint32_t slot);
  void take_bytes(uint32_t rank, uint32_t counter, uint64_t bytes, int64_t status);
  uint32_t id_for(const Info &info);

  void *area_;
  const Geometry geometry_;
  Network net_;
  uint32_t ranks_;
  std::vector<uint32_t> node_of_;
  // Per rank: descriptors taken (the engine's consumer index) and, per injection slot, the descriptor
  // as taken (never read from shared memory again), packets still to deliver, and its copy's result.
  struct Slot {
    Descriptor d;
    uint32_t packets_left = 0;
    bool copied = false;
    int64_t status = 0;
  };
  std::vector<uint64_t> taken_;
  std::vector<std::vector<Slot>> slots_;
  uint64_t open_descriptors_ = 0;
  std::vector<Info> infos_;  // indexed by Packet::id
  std::vector<uint32_t> free_ids_;
  std::vector<uint8_t> bounce_;
  uint64_t fifo_seq_ = 0;
  EngineStats stats_;
};

// The engine's process: serves the area at `path` until every rank has detached (0) or one has died
// or the area is not valid (1, the reason on stderr and in the area's header). Removes the file.
int serve_area(const std::string &path);

}  // namespace pamir::torus
