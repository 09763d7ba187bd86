#include "tools/mpirun/binding.h"

#include <hwloc.h>
#include <hwloc/glibc-sched.h>

#include <algorithm>
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
  hwloc_obj_type_t core_type() const {
    return hwloc_get_nbobjs_by_type(topo_, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
  }
  int count(hwloc_obj_type_t t) const { return loaded_ ? hwloc_get_nbobjs_by_type(topo_, t) : 0; }
  hwloc_obj_t at(hwloc_obj_type_t t, int i) const { return hwloc_get_obj_by_type(topo_, t, unsigned(i)); }

  hwloc_obj_type_t type_of(Level l) const {
    switch (l) {
      case Level::kHwthread:
        return HWLOC_OBJ_PU;
      case Level::kL3cache:
        return HWLOC_OBJ_L3CACHE;
      case Level::kNuma:
        return HWLOC_OBJ_NUMANODE;
      case Level::kPackage:
        return HWLOC_OBJ_PACKAGE;
      default:
        return core_type();
    }
  }

  // The object of level l that holds `place` (a core or hardware thread). NUMA nodes are memory
  // children in hwloc 2, not ancestors: the one whose CPUs include the place's.
  hwloc_obj_t holder(Level l, hwloc_obj_t place) const {
    const hwloc_obj_type_t t = type_of(l);
    if (place->type == t) return place;
    if (t == HWLOC_OBJ_NUMANODE) {
      for (int i = 0; i < count(t); ++i)
        if (hwloc_obj_t n = at(t, i); n->cpuset && hwloc_bitmap_isincluded(place->cpuset, n->cpuset))
          return n;
      return nullptr;
    }
    if (t == HWLOC_OBJ_PU) return hwloc_get_obj_inside_cpuset_by_type(topo_, place->cpuset, HWLOC_OBJ_PU, 0);
    return hwloc_get_ancestor_obj_by_type(topo_, t, place);
  }

 private:
  hwloc_topology_t topo_{};
  bool loaded_ = false;
};

// The places of the ranks, in mapping order: round-robin over the objects of level `by`, each taking its
// next core (or hardware thread, mapping by hwthread) in turn.
std::vector<hwloc_obj_t> map_places(const Topology &topo, Level by, int nranks) {
  const hwloc_obj_type_t unit = by == Level::kHwthread ? HWLOC_OBJ_PU : topo.core_type();
  std::vector<hwloc_obj_t> units;
  for (int i = 0; i < topo.count(unit); ++i) units.push_back(topo.at(unit, i));
  std::vector<hwloc_obj_t> places;
  if (by == Level::kSlot || by == Level::kCore || by == Level::kHwthread) {
    for (int r = 0; r < nranks; ++r) places.push_back(units[size_t(r) % units.size()]);
    return places;
  }
  // The units of each object of the level, and the next one each hands out.
  std::vector<std::vector<hwloc_obj_t>> groups(size_t(topo.count(topo.type_of(by))));
  for (hwloc_obj_t u : units)
    for (size_t g = 0; g < groups.size(); ++g)
      if (topo.holder(by, u) == topo.at(topo.type_of(by), int(g))) groups[g].push_back(u);
  std::erase_if(groups, [](const auto &g) { return g.empty(); });
  std::vector<size_t> next(groups.size(), 0);
  for (int r = 0; r < nranks; ++r) {
    const size_t g = size_t(r) % groups.size();
    places.push_back(groups[g][next[g]++ % groups[g].size()]);
  }
  return places;
}

bool describe(const Topology &topo, hwloc_obj_t o, Binding *b) {
  if (o == nullptr || o->cpuset == nullptr) return false;
  if (hwloc_cpuset_to_glibc_sched_affinity(topo.get(), o->cpuset, &b->cpus, sizeof b->cpus) != 0)
    return false;
  char *text = nullptr;
  if (hwloc_bitmap_list_asprintf(&text, o->cpuset) >= 0 && text != nullptr) {
    b->list = text;
    std::free(text);
  }
  b->bound = true;
  return true;
}

}  // namespace

bool plan_binding(const Options &options, int *nranks_inout, std::vector<Binding> *plan, std::string *error) {
  const BindPolicy policy = options.bind;
  // hwloc's discovery costs a few milliseconds: skip it when nothing needs it.
  const bool need_topology = policy != BindPolicy::kNone || *nranks_inout == 0;
  std::optional<Topology> topo;
  if (need_topology) topo.emplace();
  const int ncores = topo && topo->loaded() ? topo->count(topo->core_type()) : 0;
  if (*nranks_inout == 0) *nranks_inout = ncores > 0 ? ncores : 1;
  const int nranks = *nranks_inout;
  plan->assign(static_cast<size_t>(nranks), Binding{});
  if (policy == BindPolicy::kNone) return true;
  if (ncores <= 0) {
    if (policy == BindPolicy::kCore) say("warning: hwloc found no cores; ranks are not bound");
    return true;
  }
  if (policy == BindPolicy::kDefault && nranks > ncores) return true;
  for (Level l : {options.bind_level, options.map_by, options.rank_by})
    if (policy == BindPolicy::kCore && topo->count(topo->type_of(l)) == 0) {
      *error = std::string("this machine has no ") + level_name(l) + " that hwloc can see";
      return false;
    }
  std::vector<hwloc_obj_t> places = map_places(*topo, options.map_by, nranks);
  // --rank-by: the places in the order of their objects of that level (ties: as mapped).
  if (options.rank_by != Level::kSlot) {
    const Level by = options.rank_by;
    std::stable_sort(places.begin(), places.end(), [&](hwloc_obj_t a, hwloc_obj_t b) {
      const hwloc_obj_t ha = topo->holder(by, a), hb = topo->holder(by, b);
      return (ha ? ha->logical_index : 0) < (hb ? hb->logical_index : 0);
    });
  }
  const Level bind = policy == BindPolicy::kDefault ? Level::kCore : options.bind_level;
  for (int r = 0; r < nranks; ++r)
    describe(*topo, topo->holder(bind, places[size_t(r)]), &(*plan)[size_t(r)]);
  return true;
}

}  // namespace pamir::mpirun
