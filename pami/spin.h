// One poll's pause in a spin-wait. Where the node's ranks (and a torus job's engine) outnumber its CPUs
// (Context's yield decision, PAMIR_YIELD_WHEN_IDLE), the peer awaited may need this very core to make
// the progress awaited, so the core is handed on; else a pause instruction, which spares the sibling
// hardware thread and the memory system the spin's loads. A leaf header: devices use it too.
#pragma once

#include <sched.h>

namespace pamir {

inline void spin_pause(bool yield) {
  if (yield) {
    sched_yield();
  } else {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
}

}  // namespace pamir
