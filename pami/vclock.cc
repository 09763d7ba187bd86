// The rank's log for the torus timing model's replay (pami/vclock.h): its room, reserved once.
#include "pami/vclock.h"

#include <sys/mman.h>

namespace pamir {

VirtualClock g_vclock;
VtLog g_vtlog;

namespace {
constexpr size_t kLogBytes = size_t(kVtMaxNodes) * sizeof(uint64_t);
}

bool vt_log_reserve() {
  if (g_vtlog.nodes) return true;
  void *m =
      ::mmap(nullptr, kLogBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return false;
  g_vtlog.nodes = static_cast<uint64_t *>(m);
  g_vtlog.count = 0;
  g_vtlog.overflow = false;
  return true;
}

void vclock_observe_flagged(Vt vt) {
  g_vclock.program = vt_max(g_vclock.program, vt);
  g_vclock.stamp = g_vclock.flags & kVtScopes ? vt_max(g_vclock.stamp, vt) : g_vclock.program;
}

void vt_log_release() {
  if (g_vtlog.nodes) ::munmap(g_vtlog.nodes, kLogBytes);
  g_vtlog = VtLog{};
}

}  // namespace pamir
