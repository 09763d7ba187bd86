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

namespace pamir {

struct Vt {
  uint64_t ns = 0;
  uint32_t x = 0;  // its expression (above); 0 with the log off
  // Named so that a copy is two whole words: with tail padding GCC copied the pair through the stack.
  uint32_t unused = 0;
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
// packed as a << 32 | b. The torus device turns it on (vt_log_on, once vt_log_reserve has mapped it)
// and hands it to the engine at the end. Its room is reserved once for every name 31 bits give
// (16 GiB of address space, touched only as it fills), so that a join appends inline and the
// message path's functions, which may join, make no call for it and keep no frame.
constexpr uint32_t kVtMaxNodes = kVtEngine - 2;
struct VtLog {
  uint64_t *nodes = nullptr;
  uint32_t count = 0;
  bool overflow = false;  // more maxima than 31 bits name: the log is not handed over
};
extern VtLog g_vtlog;
bool vt_log_reserve();  // maps the room (vclock.cc); false where the address space is refused
void vt_log_release();  // unmaps it, empty

inline bool vt_logged() {
  return g_vclock.flags & kVtLogged;
}
inline void vt_log_on(bool on) {
  g_vclock.flags = uint8_t(on ? g_vclock.flags | kVtLogged : g_vclock.flags & ~kVtLogged);
}

// The logged max.
inline Vt vt_join(Vt a, Vt b) {
  const uint64_t ns = a.ns >= b.ns ? a.ns : b.ns;
  // The time 0 adds nothing, nor does an expression to itself.
  if (b.x == 0 || b.x == a.x) return Vt{ns, a.x};
  if (a.x == 0) return Vt{ns, b.x};
  const uint32_t n = g_vtlog.count;
  if (n >= kVtMaxNodes) [[unlikely]] {
    g_vtlog.overflow = true;
    return Vt{ns, 0};
  }
  g_vtlog.nodes[n] = uint64_t(a.x) << 32 | b.x;
  g_vtlog.count = n + 1;
  return Vt{ns, n + 1};
}

inline Vt vt_max(Vt a, Vt b) {
  if (!vt_logged()) [[likely]]
    return a.ns >= b.ns ? a : b;
  return vt_join(a, b);
}

// `to` raised to `from`: the later of the two, logged (the form a message's path takes, where the
// time is most often not raised and nothing need be written). vt_raise_as<false> is for a caller that
// has tested the log once for several raises.
template <bool kLogged>
inline void vt_raise_as(Vt &to, Vt from) {
  if constexpr (kLogged)
    to = vt_join(to, from);
  else if (from.ns > to.ns)
    to.ns = from.ns;  // with the log off every expression is 0
}
inline void vt_raise(Vt &to, Vt from) {
  if (vt_logged()) [[unlikely]]
    vt_raise_as<true>(to, from);
  else
    vt_raise_as<false>(to, from);
}

// The program completed an operation whose request carried `vt`. At the program's level the stamp is
// the program's clock; inside a scope it is the scope's, raised. Inside a scope or with the log on it
// is out of line (vclock.cc): the loops that finish arrays of requests keep their registers.
void vclock_observe_flagged(Vt vt);
inline void vclock_observe(Vt vt) {
  if (g_vclock.flags) [[unlikely]] {
    vclock_observe_flagged(vt);
    return;
  }
  if (vt.ns > g_vclock.program.ns) g_vclock.program.ns = g_vclock.stamp.ns = vt.ns;  // expressions 0
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
