// Where each rank runs: hwloc's view of the CPUs this process may use, the ranks mapped round-robin over
// a level of it (--map-by), numbered in the order of a level (--rank-by), and bound to the object of a
// level that holds each one's place (--bind-to).
#pragma once

#include <sched.h>

#include <string>
#include <vector>

#include "tools/mpirun/options.h"

namespace pamir::mpirun {

struct Binding {
  bool bound = false;
  cpu_set_t cpus;    // the CPUs of the rank's binding object, when bound
  std::string list;  // the same in hwloc list syntax ("2,3"), for PMIX_CPUSET
};

// One entry per rank. *nranks == 0 means "one rank per core" and is replaced by the core count.
// BindPolicy::kDefault binds to cores when the ranks fit into them; kCore binds to options.bind_level.
// False (with *error) when the machine has no object of a level asked for; on an hwloc failure the
// ranks are left unbound (with a warning when binding was asked for).
bool plan_binding(const Options &options, int *nranks, std::vector<Binding> *plan, std::string *error);

}  // namespace pamir::mpirun
