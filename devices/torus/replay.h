// The timing model's replay after the run (issue 20, section 2). While the job runs, the engine times
// each packet as it takes it: a packet leaves when its node's link is free, in the order the engine
// happened to take descriptors, so two ranks of a node, a remote get's data beside its owner's sends,
// or a nonblocking collective beside its program's sends, could share a link in either order from run
// to run, and every time that followed moved with them.
//
// So the engine also records each transfer (a descriptor's packets, or a remote get's data, leaving
// one node by one link) with the expression of its stamp, and each rank records how its stamps were
// made (pami/vclock.h: every max of two times, undecided). After the run the replay times the
// transfers again, each link serving them in the order of their stamps, then sender, receiver, kind
// and the sender's order of writing them, and recomputes every stamp from the new arrivals. A
// transfer is timed once every transfer whose arrival its stamp depends on has been, and the earliest
// stamp goes first; since an arrival is later than the stamp of what it arrives from, no transfer
// timed later can have had an earlier stamp. The result depends on what the program did, not on
// when the engine saw it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pamir::torus {

// An expression as the engine keeps it: 0 (the time 0); the engine's own (its low 32 bits, with
// kVtEngine set and nothing above); or rank r's (rank + 1 above, the rank's 32-bit expression below).
using VtRef = uint64_t;
inline VtRef rank_ref(uint32_t rank, uint32_t x) {
  constexpr uint32_t kEngine = 0x80000000u;  // pami/vclock.h's kVtEngine
  return x == 0 || (x & kEngine) ? VtRef(x) : (VtRef(rank) + 1) << 32 | x;
}

struct ReplayLog {
  struct Transfer {
    VtRef stamp;        // leaves no earlier
    uint64_t order;     // among equal stamps of one rank: the writer's order (its descriptor's index)
    uint32_t from, to;  // ranks: the one whose node sends, and the one it arrives at
    uint32_t kind;      // the descriptor's intent, or kGetData
    uint32_t link;      // the sending node's link: node * channels + the first hop's port
    uint32_t hops;      // the most any of its packets crossed
    uint32_t lost;      // a fault dropped some of its packets: its receiver's clock does not take it
    uint64_t wire_ns;   // all its packets' time on the link
  };
  // The engine's expressions: node k is expression kVtEngine | (k + 1). A transfer's arrival
  // (b == kArrival, a its index) or the later of two expressions.
  static constexpr VtRef kArrival = ~VtRef(0);
  static constexpr uint32_t kGetData = 8;
  struct Node {
    VtRef a, b;
  };
  bool on = false;
  bool overflow = false;  // more expressions than 31 bits name: the replay declines
  std::vector<Transfer> transfers;
  std::vector<Node> nodes;

  uint32_t arrival(uint32_t transfer) { return add(Node{transfer, kArrival}); }
  uint32_t later(VtRef a, VtRef b) { return add(Node{a, b}); }

 private:
  uint32_t add(Node n) {
    if (nodes.size() >= kMaxNodes) {
      overflow = true;
      return 0;
    }
    nodes.push_back(n);
    return 0x80000000u | uint32_t(nodes.size());
  }
  static constexpr size_t kMaxNodes = 0x7ffffffe;
};

struct ReplayResult {
  bool complete = false;
  std::string why;              // when not complete
  uint64_t transfers = 0;       // timed
  uint64_t rank_nodes = 0;      // the ranks' logs' maxima
  double seconds = 0;           // the replay's own time (replay_run)
  std::vector<uint64_t> clock;  // per rank: its last departure or arrival
};

// `ranks_nodes[r]`: rank r's log (pami/vclock.h's VtLog::nodes). `links`: the number of links the
// transfers' `link` indexes.
ReplayResult replay(const ReplayLog &log, const std::vector<std::vector<uint64_t>> &rank_nodes, size_t links,
                    uint32_t hop_ns);

// Where rank `rank` leaves its log for the engine: beside the report. The file holds kReplayLogMagic,
// the engine's pid and the rank, then the rank's nodes (pami/vclock.h's VtLog::nodes).
std::string replay_log_path(const std::string &report, uint32_t rank);
constexpr uint64_t kReplayLogMagic = 0x31676f6c'74764d50ull;  // "PMvtlog1"

}  // namespace pamir::torus
