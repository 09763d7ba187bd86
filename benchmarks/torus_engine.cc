// The torus engine's speed alone (issue 20, section 5): packet-hops a second on one core, under
// synthetic injection. Every "rank" is this process; each pass every rank with room injects memory-FIFO
// packets to destinations drawn from a fixed-seed generator, and drains its reception FIFO, so the
// engine is never short of work. Prints the geometry, the packets and hops moved, and the rates.
//
// With `network` as a third argument it drives the Network alone (the links, buffers and routes, with
// packets that carry no payload and are taken at once at their destination), so that the cycle's
// share can be told from the engine's work per packet (descriptors, payload copies, counters).
//
// usage: torus_engine [DIMS] [PACKETS] [network]      (default 8x8x4, 2000000 packets)
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "devices/torus/area.h"
#include "devices/torus/engine.h"
#include "devices/torus/network.h"

using namespace pamir::torus;

namespace {

double now() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

// The same injection pattern (4 a node a pass, random destinations), straight into the Network.
int network_only(const Geometry &g, uint64_t total) {
  Network net(g, 4);
  net.on_arrival([](void *, const Packet &) { return true; }, nullptr);
  uint64_t injected = 0, rng = 88172645463325252ull;
  const double start = now();
  while (injected < total || net.in_flight()) {
    for (uint32_t v = 0; v < g.nodes() && injected < total; ++v)
      for (int k = 0; k < 4 && injected < total; ++k) {
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        Packet p;
        p.src = v;
        p.dst = uint32_t(rng % g.nodes());
        p.id = injected++;
        p.bytes = 32 + 64;
        net.inject(p);
      }
    for (int i = 0; i < 4 && net.in_flight(); ++i) net.cycle();
  }
  const double secs = now() - start;
  std::printf("# torus %s (%u nodes), the network alone: packets of 64 bytes to random destinations\n",
              g.describe().c_str(), g.nodes());
  std::printf("packets %llu  hops %llu  cycles %llu  seconds %.3f\n", (unsigned long long)total,
              (unsigned long long)net.hops(), (unsigned long long)net.cycles(), secs);
  std::printf("packet-hops/s %.3g  packets/s %.3g  cycles/s %.3g\n", double(net.hops()) / secs,
              double(total) / secs, double(net.cycles()) / secs);
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  const std::string dims = argc > 1 ? argv[1] : "8x8x4";
  const uint64_t total = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 2000000;
  Geometry g;
  std::string why;
  uint32_t ranks = 1;
  for (size_t i = 0, j; i < dims.size(); i = j + 1) {
    j = dims.find('x', i);
    if (j == std::string::npos) j = dims.size();
    ranks *= uint32_t(std::stoul(dims.substr(i, j - i)));
  }
  if (!g.make(ranks, dims, "", why)) {
    std::fprintf(stderr, "torus_engine: %s\n", why.c_str());
    return 1;
  }
  if (argc > 3) {
    if (std::string(argv[3]) != "network") {
      std::fprintf(stderr, "torus_engine: the third argument may only be 'network', not '%s'\n", argv[3]);
      return 1;
    }
    return network_only(g, total);
  }
  const size_t len = area_bytes(ranks);
  void *area = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (area == MAP_FAILED) return 1;
  std::memset(area, 0, len);  // its pages faulted in before the clock starts
  auto *h = static_cast<AreaHeader *>(area);
  h->ranks = ranks;
  h->block_bytes = sizeof(RankBlock);
  Engine e(area, g);
  uint64_t injected = 0, received = 0, rng = 88172645463325252ull;
  double in_engine = 0;  // seconds inside Engine::pass, without this driver's writing and draining
  const double start = now();
  while (received < total) {
    for (uint32_t r = 0; r < ranks; ++r) {
      RankBlock *b = rank_block(area, r);
      uint64_t tail = b->inj_tail.load(std::memory_order_relaxed);
      // A few descriptors a rank a pass: what a busy rank writes while the engine runs.
      for (int k = 0; k < 4 && injected < total && tail - b->inj_done.load() < kInjectionSlots; ++k) {
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        Descriptor &d = b->injection[tail % kInjectionSlots];
        d = Descriptor{.intent = Intent::memory_fifo, .dest = uint32_t(rng % ranks), .payload_len = 64};
        ++tail, ++injected;
      }
      b->inj_tail.store(tail, std::memory_order_release);
      const uint64_t rt = b->rec_tail.load(std::memory_order_acquire);
      received += rt - b->rec_head.load(std::memory_order_relaxed);
      b->rec_head.store(rt, std::memory_order_release);
    }
    const double before = now();
    e.pass();
    in_engine += now() - before;
  }
  const double secs = now() - start;
  const EngineStats &s = e.stats();
  std::printf("# torus %s (%u nodes), memory-FIFO packets of 64 bytes to random destinations\n",
              g.describe().c_str(), g.nodes());
  std::printf("packets %llu  hops %llu  cycles %llu  seconds %.3f\n", (unsigned long long)s.packets,
              (unsigned long long)s.hops, (unsigned long long)s.cycles, secs);
  std::printf("packet-hops/s %.3g  packets/s %.3g  cycles/s %.3g\n", double(s.hops) / secs,
              double(s.packets) / secs, double(s.cycles) / secs);
  std::printf("in the engine alone (%.3f s of the %.3f): packet-hops/s %.3g\n", in_engine, secs,
              double(s.hops) / in_engine);
  munmap(area, len);
  return 0;
}
