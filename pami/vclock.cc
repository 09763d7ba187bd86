// The logged max of two virtual times (pami/vclock.h): the replay after the run decides it.
#include "pami/vclock.h"

#include <algorithm>

namespace pamir {

VirtualClock g_vclock;
VtLog g_vtlog;

Vt vt_join(Vt a, Vt b) {
  const uint64_t ns = std::max(a.ns, b.ns);
  // The time 0 adds nothing, nor does an expression to itself.
  if (b.x == 0 || b.x == a.x) return Vt{ns, a.x};
  if (a.x == 0) return Vt{ns, b.x};
  if (g_vtlog.nodes.size() >= kVtEngine - 2) [[unlikely]] {  // no more names: the log is not handed over
    g_vtlog.overflow = true;
    return Vt{ns, 0};
  }
  g_vtlog.nodes.push_back(uint64_t(a.x) << 32 | b.x);
  return Vt{ns, uint32_t(g_vtlog.nodes.size())};
}

void vclock_observe_slow(Vt vt) {
  if (!vt_logged()) {
    if (vt.ns > g_vclock.program.ns) {
      g_vclock.program = vt;
      if (!(g_vclock.flags & kVtScopes)) g_vclock.stamp = vt;
    }
    if ((g_vclock.flags & kVtScopes) && vt.ns > g_vclock.stamp.ns) g_vclock.stamp = vt;
    return;
  }
  g_vclock.program = vt_join(g_vclock.program, vt);
  g_vclock.stamp = g_vclock.flags & kVtScopes ? vt_join(g_vclock.stamp, vt) : g_vclock.program;
}

}  // namespace pamir
