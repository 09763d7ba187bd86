// PAMIR_TORUS_REPORT (issue 20, section 3): what crossed every link, what each rank sent and received,
// and, apart, what depends on timing.
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "devices/torus/engine.h"

namespace pamir::torus {
namespace {

std::string coords_json(const Geometry &g, const Coords &c) {
  std::string s = "[";
  for (int d = 0; d < g.ndims(); ++d) s += (d ? ", " : "") + std::to_string(c.at[size_t(d)]);
  return s + "]";
}

// A node's coordinates from its number (Geometry::node: A slowest).
Coords node_coords(const Geometry &g, uint32_t node) {
  Coords c;
  for (int d = g.ndims(); d-- > 0;) {
    c.at[size_t(d)] = int(node % uint32_t(g.size(d)));
    node /= uint32_t(g.size(d));
  }
  return c;
}

// A faulted link says so beside its counts: down, or the probability it drops with and what it dropped.
std::string fault_fields(const Engine &e, uint32_t node, int dim, int dir) {
  for (const LinkFault &f : e.faults()) {
    if (f.node != node || f.dim != dim || f.dir != dir) continue;
    if (f.down) return ", \"down\": true";
    char p[32];
    std::snprintf(p, sizeof p, "%g", f.probability);
    return ", \"drop_probability\": " + std::string(p) +
           ", \"dropped\": " + std::to_string(e.network().link_dropped(node, dim, dir));
  }
  return "";
}

}  // namespace

ReplayResult replay_run(const Engine &e, const std::string &report) {
  const uint32_t ranks = e.geometry().ranks();
  std::vector<std::vector<uint64_t>> logs(ranks);
  ReplayResult res;
  for (uint32_t r = 0; r < ranks; ++r) {
    const std::string path = replay_log_path(report, r);
    FILE *f = std::fopen(path.c_str(), "rb");
    if (!f) {
      if (res.why.empty())
        res.why = "rank " + std::to_string(r) + " left no log (" + std::strerror(errno) + ")";
      continue;
    }
    long bytes = -1;
    if (std::fseek(f, 0, SEEK_END) == 0) bytes = std::ftell(f);
    std::rewind(f);
    uint64_t head[3] = {};
    const bool ours = bytes >= long(sizeof head) && std::fread(head, sizeof head, 1, f) == 1 &&
                      head[0] == kReplayLogMagic && head[1] == uint64_t(::getpid()) && head[2] == r;
    logs[r].resize(ours ? (size_t(bytes) - sizeof head) / sizeof(uint64_t) : 0);
    const bool whole =
        ours && std::fread(logs[r].data(), sizeof(uint64_t), logs[r].size(), f) == logs[r].size();
    std::fclose(f);
    ::unlink(path.c_str());
    if (!whole && res.why.empty())
      res.why = "rank " + std::to_string(r) + "'s log could not be read, or is not this job's";
  }
  if (!res.why.empty()) return res;
  struct timespec t0, t1;
  ::clock_gettime(CLOCK_MONOTONIC, &t0);
  res = replay(e.replay_log(), logs, size_t(e.geometry().nodes()) * Engine::kNodeChannels, e.timing().hop_ns);
  ::clock_gettime(CLOCK_MONOTONIC, &t1);
  res.seconds = double(t1.tv_sec - t0.tv_sec) + double(t1.tv_nsec - t0.tv_nsec) / 1e9;
  for (const auto &l : logs) res.rank_nodes += l.size();
  return res;
}

bool write_report(const Engine &e, const ReplayResult &replayed, const std::string &path, double wall_seconds,
                  std::string &why) {
  const Geometry &g = e.geometry();
  const Network &net = e.network();
  const EngineStats &st = e.stats();
  std::string j = "{\n  \"pamir_torus_report\": 1,\n";
  j += "  \"geometry\": {\"dims\": [";
  for (int d = 0; d < g.ndims(); ++d) j += (d ? ", " : "") + std::to_string(g.size(d));
  j += "], \"map\": \"" + g.map() + "\", \"ranks\": " + std::to_string(g.ranks()) +
       ", \"nodes\": " + std::to_string(g.nodes()) + ", \"ranks_per_node\": " + std::to_string(g.per_node()) +
       "},\n";
  j += "  \"assumptions\": {\"link_bandwidth_MBps\": " + std::to_string(e.timing().link_mbps) +
       ", \"hop_latency_ns\": " + std::to_string(e.timing().hop_ns) +
       ", \"packet_payload_bytes\": " + std::to_string(kPacketPayload) +
       ", \"packet_header_bytes\": " + std::to_string(sizeof(PacketHeader)) +
       ",\n    \"routing\": \"dimension-ordered (A first), the shorter way round; half-way ties go + from an "
       "even coordinate, - from an odd one; a packet that meets a down link takes the escape channel's "
       "shortest up*/down* route\",\n"
       "    \"virtual_time\": \"a packet leaves when its node's link of the first hop is free (a node sends "
       "on "
       "all its links at once) and not before its rank's stamp (the latest arrival of what the rank's "
       "program had completed), takes its bytes at the "
       "link rate, then the hop latency per hop; contention past the first hop and computation between "
       "messages are not counted; after the run the transfers are timed again, each link taking them in "
       "the order of their stamps (then sender, receiver, kind, the sender's order), each holding it for all "
       "its packets, and every stamp made again from the "
       "new arrivals, so that the times do not depend on the order the engine happened to take them in\"},\n";
  j += "  \"links\": [";
  bool first = true;
  for (uint32_t v = 0; v < g.nodes(); ++v)
    for (int d = 0; d < g.ndims(); ++d)
      for (int dir : {1, -1}) {
        j += first ? "\n" : ",\n";
        first = false;
        j += "    {\"node\": " + std::to_string(v) + ", \"coords\": " + coords_json(g, node_coords(g, v)) +
             ", \"dim\": \"" + std::string(1, "ABCDE"[d]) + "\", \"dir\": \"" + (dir > 0 ? "+" : "-") +
             "\", \"packets\": " + std::to_string(net.link_packets(v, d, dir)) +
             ", \"bytes\": " + std::to_string(net.link_bytes(v, d, dir)) + fault_fields(e, v, d, dir) + "}";
      }
  j += "\n  ],\n  \"ranks\": [";
  for (uint32_t r = 0; r < g.ranks(); ++r) {
    const Coords c = g.coords(r);
    const RankStats &rs = e.rank_stats()[r];
    j += std::string(r ? ",\n" : "\n") + "    {\"rank\": " + std::to_string(r) +
         ", \"node\": " + std::to_string(g.node(c)) + ", \"coords\": " + coords_json(g, c) +
         ", \"t\": " + std::to_string(c.t) + ", \"packets_injected\": " + std::to_string(rs.injected) +
         ", \"packets_received\": " + std::to_string(rs.received) + ", \"hops\": " + std::to_string(rs.hops) +
         "}";
  }
  // The replay's times where it ran; else the engine's, kept as it went, which depend on the order it
  // took descriptors in.
  const std::vector<uint64_t> &times = replayed.complete ? replayed.clock : e.clocks();
  uint64_t vt = 0, online = 0;
  std::string clocks;
  for (uint32_t r = 0; r < g.ranks(); ++r) {
    vt = std::max(vt, times[r]);
    online = std::max(online, e.clocks()[r]);
    clocks += (r ? ", " : "") + std::to_string(times[r]);
  }
  std::string source = replayed.complete ? "\"replay\"" : "\"online\", \"replay_failed\": \"";
  if (!replayed.complete) {
    for (char c : replayed.why) source += c == '"' || c == '\\' ? ' ' : c;
    source += "\"";
  }
  auto seconds = [](double s) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6f", s);
    return std::string(text);
  };
  char wall[64];
  std::snprintf(wall, sizeof wall, "%.6f", wall_seconds);
  j +=
      "\n  ],\n  \"timing\": {\"wall_seconds\": " + std::string(wall) +
      ", \"virtual_time_ns\": " + std::to_string(vt) + ", \"rank_virtual_time_ns\": [" + clocks +
      "],\n    \"virtual_time_from\": " + source + ", \"online_virtual_time_ns\": " + std::to_string(online) +
      ", \"transfers\": " + std::to_string(e.replay_log().transfers.size()) +
      ", \"replay_expressions\": " + std::to_string(replayed.rank_nodes + e.replay_log().nodes.size()) +
      ", \"replay_seconds\": " + seconds(replayed.seconds) +
      ",\n    \"engine_cycles\": " + std::to_string(st.cycles) +
      ", \"descriptors\": " + std::to_string(st.descriptors) +
      ", \"packets\": " + std::to_string(st.packets) +
      ", \"control_packets\": " + std::to_string(st.control) +
      ", \"control_hops\": " + std::to_string(net.control_hops()) + ", \"hops\": " + std::to_string(st.hops) +
      ", \"copies\": " + std::to_string(st.copies) + ", \"failures\": " + std::to_string(st.failures) +
      ", \"peak_buffer_depth\": " + std::to_string(net.peak_depth()) + "}";
  if (!e.faults().empty())
    j += ",\n  \"faults\": {\"links\": " + std::to_string(e.faults().size()) +
         ", \"rerouted_packets\": " + std::to_string(net.rerouted()) +
         ", \"dropped_packets\": " + std::to_string(st.dropped) + "}";
  j += "\n}\n";
  FILE *f = std::fopen(path.c_str(), "w");
  if (!f) {
    why = std::strerror(errno);
    return false;
  }
  const bool ok = std::fwrite(j.data(), 1, j.size(), f) == j.size();
  if (std::fclose(f) != 0 || !ok) {
    why = "could not write it all";
    return false;
  }
  return true;
}

}  // namespace pamir::torus
