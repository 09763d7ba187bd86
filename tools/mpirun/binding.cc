#include "tools/mpirun/binding.h"

#include <hwloc.h>
#include <hwloc/glibc-sched.h>

#include <cstdlib>
#include <optional>

#include "tools/mpirun/output.h"

namespace pamir::mpirun {
namespace {

class Topology {
 public:
  Topology() {
    if (hwloc_topology_init(&topo_) != 0) return;
    if (hwloc_topology_load(topo_) != 0) {
      hwloc_topology_destroy(topo_);
      return;
    }
    loaded_ = true;
  }
  ~Topology() {
    if (loaded_) hwloc_topology_destroy(topo_);
  }
  Topology(const Topology &) = delete;
  Topology &operator=(const Topology &) = delete;

  bool loaded() const { return loaded_; }
  hwloc_topology_t get() const { return topo_; }
  // Cores, or hardware threads where hwloc sees no cores.
  hwloc_obj_type_t unit() const {
    return hwloc_get_nbobjs_by_type(topo_, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
  }
  int count() const { return loaded_ ? hwloc_get_nbobjs_by_type(topo_, unit()) : 0; }

 private:
  hwloc_topology_t topo_{};
  bool loaded_ = false;
};

}  // namespace

std::vector<Binding> plan_binding(BindPolicy policy, int *nranks_inout) {
  // hwloc's discovery costs a few milliseconds: skip it when nothing needs it.
  const bool need_topology = policy != BindPolicy::kNone || *nranks_inout == 0;
  std::optional<Topology> topo;
  if (need_topology) topo.emplace();
  const int ncores = topo ? topo->count() : 0;
  if (*nranks_inout == 0) *nranks_inout = ncores > 0 ? ncores : 1;
  const int nranks = *nranks_inout;
  std::vector<Binding> plan(static_cast<size_t>(nranks));
  if (policy == BindPolicy::kNone) return plan;
  if (ncores <= 0) {
    if (policy == BindPolicy::kCore) say("warning: hwloc found no cores; ranks are not bound");
    return plan;
  }
  if (policy == BindPolicy::kDefault && nranks > ncores) return plan;
  for (int r = 0; r < nranks; ++r) {
    hwloc_obj_t core = hwloc_get_obj_by_type(topo->get(), topo->unit(), static_cast<unsigned>(r % ncores));
    if (core == nullptr || core->cpuset == nullptr) continue;
    Binding &b = plan[static_cast<size_t>(r)];
    if (hwloc_cpuset_to_glibc_sched_affinity(topo->get(), core->cpuset, &b.cpus, sizeof b.cpus) != 0)
      continue;
    char *text = nullptr;
    if (hwloc_bitmap_list_asprintf(&text, core->cpuset) >= 0 && text != nullptr) {
      b.list = text;
      std::free(text);
    }
    b.bound = true;
  }
  return plan;
}

}  // namespace pamir::mpirun
