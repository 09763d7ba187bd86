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
//
// The values the engine gives arrivals depend on the order it happened to take descriptors in (two
// ranks of a node sharing a link, say), so the report's virtual times come from a replay after the run
// (devices/torus/replay.cc) that recomputes every arrival in an order of stamps. For that each time
// also carries `x`, its expression: 0 (the time 0), an arrival the engine named (kVtEngine set), or a
// node of this rank's log, the later of two expressions. Every max of two times goes through vt_max,
// which, while the log is on, records the max instead of deciding it, since the replay's values may
// order the two the other way. The log is on only on the torus with a report asked for.
//
// Only the torus device sets arrivals and reads stamps; elsewhere these stay 0 and cost a compare.
// The library lock serialises them, as it does the requests. A thread that releases the lock inside a
// scope (a user callback's blocking call) lets another's scopes interleave with its own: under
// MPI_THREAD_MULTIPLE the model's stamps are then approximate, never unsafe.
#pragma once

#include <cstdint>
#include <vector>

namespace pamir {

struct Vt {
  uint64_t ns = 0;
  uint32_t x = 0;  // its expression (above); 0 with the log off
};
// An expression's namespace: the engine's arrivals and maxima, or (clear) the rank's log.
constexpr uint32_t kVtEngine = 0x80000000u;

// VirtualClock::flags: the log on (kVtLogged), and below it how many VtScopes are open (`stamp` is the
// innermost's). One byte, so that a message's path tests both with one load. A count, not a bit, so
// that scopes of two threads closed out of order (a callback's blocking call releases the lock) leave
// the program's level as they found it.
constexpr uint8_t kVtLogged = 0x80, kVtScopes = 0x7f;

struct VirtualClock {
  Vt program;
  Vt stamp;
  Vt arrival;
  uint8_t flags = 0;
};

extern VirtualClock g_vclock;

// The rank's log of maxima: node i (its expression is i + 1) is the later of expressions a and b,
// packed as a << 32 | b. The torus device turns it on (vt_log_on) and hands it to the engine at the end.
struct VtLog {
  std::vector<uint64_t> nodes;
  bool overflow = false;  // more maxima than 31 bits name
};
extern VtLog g_vtlog;

inline bool vt_logged() {
  return g_vclock.flags & kVtLogged;
}
inline void vt_log_on(bool on) {
  g_vclock.flags = uint8_t(on ? g_vclock.flags | kVtLogged : g_vclock.flags & ~kVtLogged);
}

Vt vt_join(Vt a, Vt b);           // the logged max (vclock.cc)
void vclock_observe_slow(Vt vt);  // vclock_observe's other cases (vclock.cc)

inline Vt vt_max(Vt a, Vt b) {
  if (!vt_logged()) [[likely]]
    return a.ns >= b.ns ? a : b;
  return vt_join(a, b);
}

// `to` raised to `from`: the later of the two, logged (the form a message's path takes, where the
// time is most often not raised and nothing need be written).
inline void vt_raise(Vt &to, Vt from) {
  if (!vt_logged()) [[likely]] {
    if (from.ns > to.ns) to = from;
    return;
  }
  to = vt_join(to, from);
}

// The program completed an operation whose request carried `vt`. At the program's level the stamp is
// the program's clock; inside a scope it is the scope's, raised. The common case, a time no later
// than the program's outside a scope with the log off, costs a compare and a test.
inline void vclock_observe(Vt vt) {
  if (vt.ns > g_vclock.program.ns || g_vclock.flags) [[unlikely]]
    vclock_observe_slow(vt);
}

// A call that waited for `t` (a synchronous transfer's last bytes): what follows it in a scope happens
// no earlier, and at the program's level the program has seen it.
inline void vclock_waited(Vt t) {
  if (!(g_vclock.flags & kVtScopes)) {
    vclock_observe(t);
    return;
  }
  g_vclock.stamp = vt_max(g_vclock.stamp, t);
  g_vclock.arrival = vt_max(g_vclock.arrival, t);
}

// Sets the stamp and the arrival for a scope, and restores them.
class VtScope {
 public:
  VtScope(Vt stamp, Vt arrival) : stamp_(g_vclock.stamp), arrival_(g_vclock.arrival) {
    g_vclock.stamp = stamp;
    g_vclock.arrival = arrival;
    ++g_vclock.flags;  // scopes nest only through callbacks, never 127 deep
  }
  ~VtScope() {
    // Back at the program's level, the stamp is the program's clock, which the scope may have raised
    // (a blocking call made inside it).
    --g_vclock.flags;
    g_vclock.stamp = g_vclock.flags & kVtScopes ? stamp_ : g_vclock.program;
    g_vclock.arrival = arrival_;
  }
  VtScope(const VtScope &) = delete;
  VtScope &operator=(const VtScope &) = delete;

 private:
  Vt stamp_, arrival_;
};

}  // namespace pamir
