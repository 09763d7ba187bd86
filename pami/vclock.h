// The torus timing model's clock on the rank's side (issue 20, section 2). A rank's virtual time must
// come from what its program observed, not from what its progress happened to see first, or the model's
// times change from run to run:
// - every request carries `vt`: the stamp when it was posted, raised to the arrival of what completed
//   it (a packet, a counter's last bytes);
// - `program` is the latest `vt` of the requests the program has completed (a Wait, a Test that
//   returned true, a blocking call), so it advances in program order;
// - `stamp` is what descriptors written now carry as their earliest departure, and what new requests
//   start from: `program`, except inside a scope that knows better (a collective's schedule, which
//   carries its own; a packet being delivered, which answers as of its arrival; a rendezvous pull, as of
//   the later of the receive and its request-to-send);
// - `arrival` is the virtual arrival of the packet or counter whose handling runs now (0 elsewhere):
//   request_complete raises the request's `vt` to it.
// Only the torus device sets arrivals and reads stamps; elsewhere these stay 0 and cost a compare.
// The library lock serialises them, as it does the requests. A thread that releases the lock inside a
// scope (a user callback's blocking call) lets another's scopes interleave with its own: under
// MPI_THREAD_MULTIPLE the model's stamps are then approximate, never unsafe.
#pragma once

#include <cstdint>

namespace pamir {

struct VirtualClock {
  uint64_t program = 0;
  uint64_t stamp = 0;
  uint64_t arrival = 0;
};

extern VirtualClock g_vclock;

// The program completed an operation whose request carried `vt`.
inline void vclock_observe(uint64_t vt) {
  if (vt > g_vclock.program) g_vclock.program = g_vclock.stamp = vt;
}

// Sets the stamp and the arrival for a scope, and restores them.
class VtScope {
 public:
  VtScope(uint64_t stamp, uint64_t arrival) : saved_(g_vclock) {
    g_vclock.stamp = stamp;
    g_vclock.arrival = arrival;
  }
  ~VtScope() {
    // Back at the program's level, the stamp is the program's clock, which the scope may have raised
    // (a blocking call made inside it).
    g_vclock.stamp = saved_.stamp == saved_.program ? g_vclock.program : saved_.stamp;
    g_vclock.arrival = saved_.arrival;
  }
  VtScope(const VtScope &) = delete;
  VtScope &operator=(const VtScope &) = delete;

 private:
  VirtualClock saved_;
};

}  // namespace pamir
