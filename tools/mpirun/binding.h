// Where each rank runs: hwloc's view of the cores this process may use, and a core per rank.
#pragma once

#include <sched.h>

#include <string>
#include <vector>

#include "tools/mpirun/options.h"

namespace pamir::mpirun {

struct Binding {
  bool bound = false;
  cpu_set_t cpus;    // the rank's core (all its hardware threads), when bound
  std::string list;  // the same in hwloc list syntax ("2,3"), for PMIX_CPUSET
};

// One entry per rank. *nranks == 0 means "one rank per core" and is replaced by the core count.
// Policy kDefault binds when the ranks fit into the cores; rank i gets core i mod ncores. On an hwloc
// failure the ranks are left unbound (with a warning when binding was asked for).
std::vector<Binding> plan_binding(BindPolicy policy, int *nranks);

}  // namespace pamir::mpirun
