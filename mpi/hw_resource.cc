// MPI_Get_hw_resource_info (MPI 5.0 §11.4): where the calling process may run at the moment of the
// call, read from hwloc. The standard leaves the keys to the implementation (Open MPI returns an empty
// info); Pamir's name hwloc's levels, each valued with the logical indices of the objects of that level
// the process's binding reaches:
//   pamir_hw_cpuset    the binding as a CPU list ("0-3")
//   pamir_hw_package, pamir_hw_numanode, pamir_hw_l3cache, pamir_hw_l2cache, pamir_hw_core, pamir_hw_pu
// A level the machine does not have (no L3 cache, say) is left out.
#include <hwloc.h>

#include <cstdlib>
#include <string>

#include "mpi/check.h"
#include "mpi/info.h"
#include "pamir_alias.h"

namespace pamir::mpi {

namespace {

struct Level {
  hwloc_obj_type_t type;
  const char *key;
};
const Level kLevels[] = {
    {HWLOC_OBJ_PACKAGE, "pamir_hw_package"}, {HWLOC_OBJ_NUMANODE, "pamir_hw_numanode"},
    {HWLOC_OBJ_L3CACHE, "pamir_hw_l3cache"}, {HWLOC_OBJ_L2CACHE, "pamir_hw_l2cache"},
    {HWLOC_OBJ_CORE, "pamir_hw_core"},       {HWLOC_OBJ_PU, "pamir_hw_pu"},
};

// The machine's topology, loaded once (the binding is read at every call).
hwloc_topology_t topology() {
  static hwloc_topology_t topo = [] {
    hwloc_topology_t t = nullptr;
    if (hwloc_topology_init(&t) != 0) return hwloc_topology_t(nullptr);
    if (hwloc_topology_load(t) != 0) {
      hwloc_topology_destroy(t);
      return hwloc_topology_t(nullptr);
    }
    return t;
  }();
  return topo;
}

// Sorted logical indices as "0,1,4".
std::string index_list(hwloc_topology_t topo, hwloc_obj_type_t type, hwloc_const_cpuset_t where) {
  std::string out;
  for (hwloc_obj_t o = hwloc_get_next_obj_by_type(topo, type, nullptr); o;
       o = hwloc_get_next_obj_by_type(topo, type, o)) {
    if (!o->cpuset || !hwloc_bitmap_intersects(o->cpuset, where)) continue;
    if (!out.empty()) out += ',';
    out += std::to_string(o->logical_index);
  }
  return out;
}

}  // namespace

}  // namespace pamir::mpi

using namespace pamir::mpi;

int PMPI_Get_hw_resource_info(MPI_Info *hw_info) {
  PAMIR_ENTER("MPI_Get_hw_resource_info");
  PAMIR_CHECK(nullptr, hw_info, MPI_ERR_ARG, "hw_info is NULL");
  hwloc_topology_t topo = topology();
  PAMIR_CHECK(nullptr, topo, MPI_ERR_OTHER, "hwloc cannot read this machine's topology");
  hwloc_bitmap_t where = hwloc_bitmap_alloc();
  PAMIR_CHECK(nullptr, where, MPI_ERR_NO_MEM, "no memory for a CPU set");
  // Unbound processes (or a system without binding support) may run on every CPU the topology allows.
  if (hwloc_get_cpubind(topo, where, HWLOC_CPUBIND_PROCESS) != 0 || hwloc_bitmap_iszero(where))
    hwloc_bitmap_copy(where, hwloc_topology_get_allowed_cpuset(topo));
  Info *info = info_make();
  char *list = nullptr;
  if (hwloc_bitmap_list_asprintf(&list, where) >= 0 && list) info->set("pamir_hw_cpuset", list);
  std::free(list);
  for (const Level &l : kLevels) {
    const std::string v = index_list(topo, l.type, where);
    if (!v.empty()) info->set(l.key, v);
  }
  hwloc_bitmap_free(where);
  *hw_info = info_handle(info);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Get_hw_resource_info);
