// One job from start to end: prepare, start the PMIx server, start the ranks, run the event loop
// (signals, PMIx events, stdio, timers), and clean up on every path.
#pragma once

#include "tools/mpirun/options.h"

namespace pamir::mpirun {

// Returns mpirun's exit code.
int run_job(const Options &options);

}  // namespace pamir::mpirun
