#include "collectives/registry.h"

#include <cctype>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "pami/config.h"

namespace pamir::coll {

namespace {

using C = Collective;

// Every algorithm, grouped by collective. `needs` is what the algorithm cannot work without; the
// lists below and a tuning file may only choose it where the entry requires those bits.
constexpr const char *kInterPairs = "a message with every process of the other group";
constexpr const char *kInterToRoot = "every process of the other group sends to the root";
constexpr const char *kInterFromRoot = "the root sends to every process of the other group";
constexpr const char *kInterReduceScatter =
    "a binomial reduce in each group, the first processes swap, each scatters the other group's result";
const Algorithm kAlgorithms[] = {
    {C::barrier, "inter", barrier_inter, kInter, "a dissemination barrier over both groups"},
    {C::bcast, "inter", bcast_inter, kInter,
     "the root to the other group's first process, a binomial broadcast in that group"},
    {C::reduce, "inter", reduce_inter, kInter,
     "a binomial reduce in the other group to its first process, which sends the result to the root"},
    {C::allreduce, "inter", allreduce_inter, kInter,
     "a binomial reduce in each group, the first processes swap, a binomial broadcast in each group"},
    {C::gather, "inter", gather_inter, kInter, kInterToRoot},
    {C::scatter, "inter", scatter_inter, kInter, kInterFromRoot},
    {C::allgather, "inter", allgatherv_inter, kInter, kInterPairs},
    {C::alltoall, "inter", alltoallv_inter, kInter, kInterPairs},
    {C::reduce_scatter, "inter", reduce_scatter_inter, kInter, kInterReduceScatter},
    {C::reduce_scatter_block, "inter", reduce_scatter_inter, kInter, kInterReduceScatter},
    {C::gatherv, "inter", gatherv_inter, kInter, kInterToRoot},
    {C::scatterv, "inter", scatterv_inter, kInter, kInterFromRoot},
    {C::allgatherv, "inter", allgatherv_inter, kInter, kInterPairs},
    {C::alltoallv, "inter", alltoallv_inter, kInter, kInterPairs},
    {C::alltoallw, "inter", alltoallv_inter, kInter, kInterPairs},
    {C::barrier, "dissemination", barrier_dissemination, 0, "ceil(log2 p) rounds of paired signals"},
    {C::barrier, "tree", barrier_tree, 0, "binomial fan-in to rank 0 and fan-out"},
    {C::barrier, "shm", barrier_shm, kShmSlot | kExclusive,
     "an empty publication in every rank's shared-memory cell"},
    {C::barrier, "hierarchical", barrier_hierarchical, 0,
     "fan-in to each node's leader, dissemination among the leaders, fan-out"},
    {C::bcast, "hierarchical", bcast_hierarchical, 0,
     "binomial inside the root's node, among the nodes' leaders, inside every other node"},
    {C::allreduce, "hierarchical", allreduce_hierarchical, 0,
     "reduce to each node's leader, allreduce of the leaders, broadcast inside each node"},
    {C::bcast, "shm", bcast_shm, kShmSlot | kExclusive,
     "the root's shared-memory cells, copied out by every rank (in chunks)"},
    {C::reduce, "shm", reduce_shm, kShmSlot | kExclusive,
     "every rank's shared-memory cells, reduced by the root in rank order (in chunks)"},
    {C::allreduce, "shm", allreduce_shm, kShmSlot | kExclusive,
     "every rank's shared-memory cells, reduced by each rank in rank order (in chunks)"},
    {C::reduce, "cma", reduce_cma, kShmSlot | kExclusive,
     "each rank reduces its block straight out of the others' buffers (cross-memory reads) and writes it "
     "into the root's"},
    {C::reduce, "cma_root", reduce_cma_root, kShmSlot | kExclusive,
     "the root reduces every rank's vector straight out of its buffer (cross-memory reads); the others "
     "leave once read"},
    {C::allreduce, "cma", allreduce_cma, kShmSlot | kExclusive,
     "each rank reduces its block straight out of the others' buffers (cross-memory reads), then reads "
     "the others' finished blocks"},
    {C::bcast, "binomial", bcast_binomial, 0, "binomial tree from the root"},
    {C::bcast, "scatter_allgather", bcast_scatter_allgather, 0,
     "binomial scatter of p blocks, then a ring allgather (large messages)"},
    {C::bcast, "chain", bcast_chain, 0,
     "pipelined down a chain of ranks in 64 KiB segments (large messages)"},
    {C::reduce, "binomial", reduce_binomial, 0, "binomial tree to the root (rank order for non-commutative)"},
    {C::reduce, "linear", reduce_linear, 0, "every rank sends to the root, which combines in rank order"},
    {C::allreduce, "recursive_doubling", allreduce_recursive_doubling, 0,
     "log2 p pairwise exchanges of the whole vector (small vectors)"},
    {C::allreduce, "ring", allreduce_ring, kCommutative,
     "ring reduce-scatter and ring allgather of p blocks (large vectors)"},
    {C::allreduce, "reduce_bcast", allreduce_reduce_bcast, 0,
     "binomial reduce to rank 0, binomial broadcast"},
    {C::bcast, "torus", bcast_torus, kTorusGrid,
     "along each torus dimension in turn, both ways round the root's lines, in 64 KiB segments"},
    {C::bcast, "torus_colours", bcast_torus_colours, kTorusGrid,
     "one part per torus dimension, each broadcast along the dimensions from its own first (all links "
     "busy at once)"},
    {C::reduce, "torus", reduce_torus, kTorusGrid | kCommutative,
     "along each torus dimension in turn (a node's ranks first), both ways round towards the root"},
    {C::allreduce, "torus", allreduce_torus, kTorusGrid | kCommutative,
     "a ring reduce-scatter along each torus dimension in turn, then the ring allgathers in reverse"},
    {C::allreduce, "torus_colours", allreduce_torus_colours, kTorusGrid | kCommutative,
     "one part per torus dimension, each reduced along the dimensions from its own first"},
    {C::gather, "binomial", gather_binomial, 0, "binomial tree to the root"},
    {C::gather, "linear", gather_linear, 0, "every rank sends straight to the root"},
    {C::scatter, "binomial", scatter_binomial, 0, "binomial tree from the root"},
    {C::scatter, "linear", scatter_linear, 0, "the root sends straight to every rank"},
    {C::allgather, "ring", allgather_ring, 0, "p-1 steps around a ring (large blocks)"},
    {C::allgather, "recursive_doubling", allgather_recursive_doubling, kPowerOfTwo,
     "log2 p pairwise exchanges of doubling size"},
    {C::allgather, "bruck", allgather_bruck, 0, "ceil(log2 p) steps for any p, then a rotation"},
    {C::alltoall, "pairwise", alltoall_pairwise, 0, "p-1 steps, one partner each"},
    {C::alltoall, "linear", alltoall_linear, 0, "every message posted at once (small blocks)"},
    {C::scan, "recursive_doubling", scan_recursive_doubling, 0, "ceil(log2 p) exchanges of partial results"},
    {C::scan, "linear", scan_linear, 0, "a chain from rank 0 up"},
    {C::exscan, "recursive_doubling", exscan_recursive_doubling, 0,
     "ceil(log2 p) exchanges of partial results"},
    {C::exscan, "linear", exscan_linear, 0, "a chain from rank 0 up"},
    {C::reduce_scatter, "reduce_scatterv", reduce_scatter_reduce_scatterv, 0,
     "binomial reduce to rank 0, which sends every rank its block (small vectors)"},
    {C::reduce_scatter, "ring", reduce_scatter_ring, kCommutative, "p-1 steps around a ring (large vectors)"},
    {C::reduce_scatter_block, "reduce_scatterv", reduce_scatter_reduce_scatterv, 0,
     "binomial reduce to rank 0, which sends every rank its block (small vectors)"},
    {C::reduce_scatter_block, "ring", reduce_scatter_ring, kCommutative,
     "p-1 steps around a ring (large vectors)"},
    {C::gatherv, "linear", gatherv_linear, 0, "every rank sends its part straight to the root"},
    {C::scatterv, "linear", scatterv_linear, 0, "the root sends every rank its part"},
    {C::allgatherv, "ring", allgatherv_ring, 0, "p-1 steps around a ring, straight from the receive buffer"},
    {C::allgatherv, "linear", allgatherv_linear, 0, "every rank sends its part to every other"},
    {C::alltoallv, "pairwise", alltoallv_pairwise, 0, "p steps, one partner each"},
    {C::alltoallv, "linear", alltoallv_linear, 0, "every message posted at once"},
    {C::alltoallw, "pairwise", alltoallv_pairwise, 0, "p steps, one partner each"},
    {C::alltoallw, "linear", alltoallv_linear, 0, "every message posted at once"},
    {C::neighbor_allgather, "linear", neighbor_linear, 0, "every receive posted, then every send"},
    {C::neighbor_allgatherv, "linear", neighbor_linear, 0, "every receive posted, then every send"},
    {C::neighbor_alltoall, "linear", neighbor_linear, 0, "every receive posted, then every send"},
    {C::neighbor_alltoallv, "linear", neighbor_linear, 0, "every receive posted, then every send"},
    {C::neighbor_alltoallw, "linear", neighbor_linear, 0, "every receive posted, then every send"},
};
constexpr int kCount = int(sizeof kAlgorithms / sizeof kAlgorithms[0]);
static_assert(kCount <= kMaxAlgorithms);

// The built-in lists, in order; each ends with an entry without conditions. Sizes are bytes: the
// message of bcast, the vector of reduce and allreduce, one rank's block of the others. Measured on
// the development machine (2 cores, docs/performance.md): the shared-memory algorithms win the
// barrier, and bcast and reduce up to 8 KiB (their size class 0), with 2 ranks and with 4 on the 2
// cores; allreduce keeps recursive doubling below 2 KiB, which every rank reducing every other's cell
// only ties, and takes the cells from 2 to 16 KiB (OSU 7.4, 2 ranks at 4 KiB: 2.3 against 4.0 us; 4 on
// the 2 cores at 8 KiB: 15-17 against 27-31 us). From 16 KiB the cma algorithms (each rank reducing its
// block out of the others' buffers) win allreduce and reduce with 2 ranks; with 4 on the 2 cores
// (oversubscribed) their waits on every rank cost time slices, so allreduce takes them from 64 KiB and
// reduce from 128 KiB (sending straight to the root up to 128 KiB, or having the root read everyone
// above, measured no better there: docs/performance.md). On a team that fills the torus, the torus's
// timing model (16 ranks on 4x4, docs/performance.md) decides: bcast takes scatter_allgather from 16
// KiB (20 against torus_colours' 28 us at 16 KiB, 76 against 106 at 64 KiB, a tie at 256 KiB) and
// torus_colours from 512 KiB (982 against 1233 at 1 MiB), or torus_colours from 16 KiB on 8 ranks or
// fewer; commutative allreduce takes torus_colours from 2 KiB (0.5-0.6x the best other); the torus
// reduce loses to binomial (2.31 against 2.23 ms at 1 MiB); below 2 KiB the fewer rounds of binomial and
// recursive doubling cost less real time.
struct DefaultEntry {
  C coll;
  const char *algorithm;
  uint32_t mask, care;
};
constexpr uint32_t kSC = kSizeClassBits;
const DefaultEntry kDefaults[] = {
    {C::barrier, "shm", kShmSlot | kExclusive, kShmSlot | kExclusive},
    {C::barrier, "hierarchical", kNodeGroups, kOneNode | kNodeGroups},
    {C::barrier, "dissemination", 0, 0},
    {C::bcast, "scatter_allgather", kTorusGrid | size_class_bits(1), kTorusGrid | kSmallComm | kSC},
    {C::bcast, "scatter_allgather", kTorusGrid | size_class_bits(2), kTorusGrid | kSmallComm | kSC},
    {C::bcast, "torus_colours", kTorusGrid | size_class_bits(1), kTorusGrid | kSC},
    {C::bcast, "torus_colours", kTorusGrid | size_class_bits(2), kTorusGrid | kSC},
    {C::bcast, "torus_colours", kTorusGrid | size_class_bits(3), kTorusGrid | kSC},
    {C::bcast, "shm", kShmSlot | kExclusive | size_class_bits(0), kShmSlot | kExclusive | kSC},
    {C::bcast, "hierarchical", kNodeGroups, kOneNode | kNodeGroups},
    {C::bcast, "scatter_allgather", size_class_bits(3), kSmallComm | kSC},
    {C::bcast, "binomial", 0, 0},
    {C::reduce, "shm", kShmSlot | kExclusive | size_class_bits(0), kShmSlot | kExclusive | kSC},
    {C::reduce, "binomial", kOversubscribed | size_class_bits(1), kOversubscribed | kSC},
    {C::reduce, "binomial", kOversubscribed | size_class_bits(2), kOversubscribed | kSC},
    {C::reduce, "cma_root", kShmSlot | kExclusive | size_class_bits(1), kShmSlot | kExclusive | kSC},
    {C::reduce, "cma", kShmSlot | kExclusive | size_class_bits(2), kShmSlot | kExclusive | kSC},
    {C::reduce, "cma", kShmSlot | kExclusive | size_class_bits(3), kShmSlot | kExclusive | kSC},
    {C::reduce, "cma", kShmSlot | kExclusive | size_class_bits(4), kShmSlot | kExclusive | kSC},
    {C::reduce, "binomial", 0, 0},
    {C::allreduce, "torus_colours", kTorusGrid | kCommutative | size_class_bits(1),
     kTorusGrid | kCommutative | kSC},
    {C::allreduce, "torus_colours", kTorusGrid | kCommutative | size_class_bits(2),
     kTorusGrid | kCommutative | kSC},
    {C::allreduce, "torus_colours", kTorusGrid | kCommutative | size_class_bits(3),
     kTorusGrid | kCommutative | kSC},
    {C::allreduce, "torus_colours", kTorusGrid | kCommutative | size_class_bits(4),
     kTorusGrid | kCommutative | kSC},
    {C::allreduce, "shm", kShmSlot | kExclusive | size_class_bits(1), kShmSlot | kExclusive | kSC},
    {C::allreduce, "cma", kShmSlot | kExclusive | size_class_bits(2),
     kShmSlot | kExclusive | kOversubscribed | kSC},
    {C::allreduce, "cma", kShmSlot | kExclusive | size_class_bits(3), kShmSlot | kExclusive | kSC},
    {C::allreduce, "cma", kShmSlot | kExclusive | size_class_bits(4), kShmSlot | kExclusive | kSC},
    {C::allreduce, "hierarchical", kNodeGroups | kCommutative, kOneNode | kNodeGroups | kCommutative},
    {C::allreduce, "hierarchical", kNodeGroups | kNodeOrdered, kOneNode | kNodeGroups | kNodeOrdered},
    {C::allreduce, "ring", kCommutative | size_class_bits(3), kCommutative | kSC},
    {C::allreduce, "ring", kCommutative | size_class_bits(4), kCommutative | kSC},
    {C::allreduce, "recursive_doubling", 0, 0},
    {C::gather, "binomial", 0, 0},
    {C::scatter, "binomial", 0, 0},
    {C::allgather, "recursive_doubling", kPowerOfTwo | size_class_bits(0), kPowerOfTwo | kSC},
    {C::allgather, "bruck", size_class_bits(0), kSC},
    {C::allgather, "ring", 0, 0},
    {C::alltoall, "linear", kSmallComm | size_class_bits(0), kSmallComm | kSC},
    {C::alltoall, "pairwise", 0, 0},
    {C::scan, "recursive_doubling", 0, 0},
    {C::exscan, "recursive_doubling", 0, 0},
    {C::reduce_scatter, "ring", kCommutative | size_class_bits(2), kCommutative | kSC},
    {C::reduce_scatter, "ring", kCommutative | size_class_bits(3), kCommutative | kSC},
    {C::reduce_scatter, "reduce_scatterv", 0, 0},
    {C::reduce_scatter_block, "ring", kCommutative | size_class_bits(2), kCommutative | kSC},
    {C::reduce_scatter_block, "ring", kCommutative | size_class_bits(3), kCommutative | kSC},
    {C::reduce_scatter_block, "reduce_scatterv", 0, 0},
    {C::gatherv, "linear", 0, 0},
    {C::scatterv, "linear", 0, 0},
    {C::allgatherv, "ring", size_class_bits(3), kSC},
    {C::allgatherv, "linear", 0, 0},
    {C::alltoallv, "linear", kSmallComm, kSmallComm},
    {C::alltoallv, "pairwise", 0, 0},
    {C::alltoallw, "linear", kSmallComm, kSmallComm},
    {C::alltoallw, "pairwise", 0, 0},
    {C::neighbor_allgather, "linear", 0, 0},
    {C::neighbor_allgatherv, "linear", 0, 0},
    {C::neighbor_alltoall, "linear", 0, 0},
    {C::neighbor_alltoallv, "linear", 0, 0},
    {C::neighbor_alltoallw, "linear", 0, 0},
};
// Classes: 0 below 2 KiB, 1 to 64 KiB, 2 to 512 KiB, 3 above; bcast and reduce, whose shared-memory
// algorithms win up to 8 KiB here, have class 0 below 16 KiB.
constexpr SizeTable kDefaultSizes{{2048, 65536, 524288}, 3};
constexpr SizeTable kShmSizes{{16384, 65536, 524288}, 3};
// reduce: 0 below 16 KiB (shm), 1 to 64 KiB, 2 to 128 KiB, 3 to 512 KiB, 4 above; allreduce: 0 below
// 2 KiB, 1 to 16 KiB, 2 to 64 KiB (cma unless oversubscribed), 3 to 512 KiB (ring across nodes), 4 above.
constexpr SizeTable kAllreduceSizes{{2048, 16384, 65536, 524288}, 4};
constexpr SizeTable kReduceSizes{{16384, 65536, 131072, 524288}, 4};

Selector g_selector;
SizeTable g_sizes[size_t(C::count_)];
int g_forced[size_t(C::count_)];

// PAMIR_COLL_<NAME>: one setting per collective, whose choices are "auto" and its algorithms.
struct ForceSetting {
  std::string name, choices, help;
  config::Setting setting;
  explicit ForceSetting(C c)
      : name(std::string("PAMIR_COLL_") + upper(collective_name(c))),
        choices("auto," + algorithm_names(c)),
        help(std::string("force the ") + collective_name(c) +
             " algorithm for the job (auto: the selection by bit mask; a communicator's info key "
             "pamir_coll_" +
             collective_name(c) + " overrides it)"),
        setting(name.c_str(), "auto", config::Type::Choice, help.c_str(), choices.c_str()) {}
  static std::string upper(const char *s) {
    std::string u(s);
    for (char &ch : u) ch = char(std::toupper(static_cast<unsigned char>(ch)));
    return u;
  }
};

// Never destroyed: config::all() keeps pointers to the settings until the process ends (and the leak
// checker runs after static destructors).
std::vector<ForceSetting *> &force_settings() {
  static auto *v = [] {
    auto *out = new std::vector<ForceSetting *>;
    for (size_t c = 0; c < size_t(C::count_); ++c) {
      auto *f = new ForceSetting(C(c));
      config::add(&f->setting);
      out->push_back(f);
    }
    return out;
  }();
  return *v;
}

config::Setting tuning{"PAMIR_COLL_TUNING", "", config::Type::Text,
                       "path of a collective tuning file that replaces the built-in algorithm lists and size "
                       "classes (format in docs/configuration.md; empty: the built-in ones)",
                       nullptr};
const bool registered = [] {
  config::add(&tuning);
  force_settings();
  return true;
}();

int collective_by_name(const std::string &name) {
  for (size_t c = 0; c < size_t(C::count_); ++c)
    if (name == collective_name(C(c))) return int(c);
  return -1;
}

// Adds an entry, refusing one that could choose its algorithm for a call the algorithm cannot serve.
bool add_entry(Selector &sel, C c, int id, uint32_t mask, uint32_t care, std::string &why) {
  const uint32_t needs = kAlgorithms[id].needs;
  if (care & rank_local_bits(c)) {
    why = std::string(collective_name(c)) + " " + kAlgorithms[id].name + ": an entry cannot depend on " +
          describe_mask(care & rank_local_bits(c)) + ", which may differ between the ranks of one call";
    return false;
  }
  if ((mask & care & needs) != needs) {
    why = std::string(collective_name(c)) + " " + kAlgorithms[id].name + " needs " + describe_mask(needs) +
          ": the entry must require it";
    return false;
  }
  return sel.add(c, mask, care, uint16_t(id), why);
}

bool check_lists_end(const Selector &sel, std::string &why) {
  for (size_t c = 0; c < size_t(C::count_); ++c) {
    const size_t n = sel.size(C(c));
    if (n == 0 || sel.entry(C(c), n - 1).care != 0) {
      why =
          std::string("the list of ") + collective_name(C(c)) + " must end with an entry without conditions";
      return false;
    }
  }
  return true;
}

}  // namespace

int algorithm_count() {
  return kCount;
}

const Algorithm &algorithm(int id) {
  return kAlgorithms[id];
}

int inter_algorithm(Collective c) {
  for (int i = 0; i < kCount; ++i)
    if (kAlgorithms[i].coll == c && (kAlgorithms[i].needs & kInter)) return i;
  return -1;
}

int find_algorithm(Collective c, const char *name) {
  for (int i = 0; i < kCount; ++i)
    if (kAlgorithms[i].coll == c && std::strcmp(kAlgorithms[i].name, name) == 0) return i;
  return -1;
}

std::string algorithm_names(Collective c) {
  std::string s;
  for (const Algorithm &a : kAlgorithms)
    if (a.coll == c) {
      if (!s.empty()) s += ',';
      s += a.name;
    }
  return s;
}

void load_defaults() {
  for (size_t c = 0; c < size_t(C::count_); ++c) {
    g_selector.clear(C(c));
    g_sizes[c] = C(c) == C::reduce      ? kReduceSizes
                 : C(c) == C::allreduce ? kAllreduceSizes
                 : C(c) == C::bcast     ? kShmSizes
                                        : kDefaultSizes;
  }
  std::string why;
  for (const DefaultEntry &d : kDefaults) {
    const int id = find_algorithm(d.coll, d.algorithm);
    if (id < 0) why = std::string(collective_name(d.coll)) + " has no algorithm " + d.algorithm;
    if (id < 0 || !add_entry(g_selector, d.coll, id, d.mask, d.care, why)) {  // a mistake in the tables above
      std::fprintf(stderr, "pamir: built-in collective list: %s\n", why.c_str());
      __builtin_trap();
    }
  }
}

bool load_tuning(const std::string &text, std::string &why) {
  Selector sel = g_selector;
  SizeTable sizes[size_t(C::count_)];
  std::copy(std::begin(g_sizes), std::end(g_sizes), std::begin(sizes));
  bool replaced[size_t(C::count_)] = {};
  std::istringstream in(text);
  std::string line;
  for (int lineno = 1; std::getline(in, line); ++lineno) {
    if (size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string x; words >> x;) w.push_back(x);
    if (w.empty()) continue;
    auto fail = [&](const std::string &reason) {
      why = "line " + std::to_string(lineno) + ": " + reason;
      return false;
    };
    if (w[0] == "sizes") {
      const int c = w.size() > 1 ? collective_by_name(w[1]) : -1;
      if (c < 0) return fail("\"sizes\" needs a collective name");
      if (w.size() - 2 > size_t(SizeTable::kMax)) return fail("more than 15 size bounds");
      SizeTable t{{}, 0};
      for (size_t i = 2; i < w.size(); ++i) {
        uint64_t b;
        if (!config::parse_size(w[i].c_str(), b)) return fail("\"" + w[i] + "\" is not a size");
        if (t.n && b <= t.bounds[t.n - 1]) return fail("size bounds must increase");
        t.bounds[t.n++] = b;
      }
      sizes[c] = t;
      continue;
    }
    const int c = collective_by_name(w[0]);
    if (c < 0) return fail("\"" + w[0] + "\" is not a collective (or \"sizes\")");
    if (w.size() < 2) return fail("an entry needs an algorithm");
    const int id = find_algorithm(C(c), w[1].c_str());
    if (id < 0)
      return fail("\"" + w[1] + "\" is not a " + w[0] + " algorithm (" + algorithm_names(C(c)) + ")");
    uint32_t mask = 0, care = 0;
    for (size_t i = 2; i < w.size(); ++i) {
      const std::string &cond = w[i];
      if (cond.rfind("size-class=", 0) == 0) {
        uint64_t k;
        if (!config::parse_size(cond.c_str() + 11, k) || k > 15)
          return fail("bad size class in \"" + cond + "\"");
        mask |= size_class_bits(unsigned(k));
        care |= kSizeClassBits;
        continue;
      }
      const bool negated = cond[0] == '!';
      const uint32_t bit = bit_by_name(negated ? cond.substr(1) : cond);
      if (!bit) return fail("\"" + cond + "\" is not a mask bit");
      care |= bit;
      if (!negated) mask |= bit;
    }
    if (!replaced[c]) {
      sel.clear(C(c));
      replaced[c] = true;
    }
    if (!add_entry(sel, C(c), id, mask, care, why)) return fail(why);
  }
  if (!check_lists_end(sel, why)) return false;
  g_selector = sel;
  std::copy(std::begin(sizes), std::end(sizes), std::begin(g_sizes));
  return true;
}

bool registry_init(std::string &why) {
  (void)registered;
  load_defaults();
  if (!tuning.value.empty()) {
    std::ifstream f(tuning.value);
    if (!f) {
      why = "PAMIR_COLL_TUNING=\"" + tuning.value + "\" is not valid: cannot open it (" +
            std::strerror(errno) + ")";
      return false;
    }
    std::stringstream text;
    text << f.rdbuf();
    if (!load_tuning(text.str(), why)) {
      why = "PAMIR_COLL_TUNING=\"" + tuning.value + "\" is not valid: " + why;
      return false;
    }
  }
  for (size_t c = 0; c < size_t(C::count_); ++c) {
    const config::Setting &s = force_settings()[c]->setting;
    g_forced[c] = s.number == 0 ? -1 : find_algorithm(C(c), s.value.c_str());
  }
  return true;
}

const Selector &selector() {
  return g_selector;
}

const SizeTable &size_table(Collective c) {
  return g_sizes[size_t(c)];
}

int forced_for_job(Collective c) {
  return g_forced[size_t(c)];
}

uint64_t g_algorithm_runs[kMaxAlgorithms];

void print_algorithm_stats(int rank) {
  for (int i = 0; i < kCount; ++i)
    std::fprintf(stderr, "pamir stats: rank %d coll.%s.%s %llu\n", rank, collective_name(kAlgorithms[i].coll),
                 kAlgorithms[i].name, (unsigned long long)g_algorithm_runs[i]);
}

std::string describe_selection() {
  std::string out;
  char line[512];
  for (size_t c = 0; c < size_t(C::count_); ++c) {
    const SizeTable &t = g_sizes[c];
    std::string classes;
    for (int k = 0; k <= t.n; ++k) {
      const uint64_t lo = k ? t.bounds[k - 1] : 0;
      classes += " " + std::to_string(k) + ":" + std::to_string(lo) +
                 (k < t.n ? "-" + std::to_string(t.bounds[k] - 1) : "+");
    }
    std::snprintf(line, sizeof line, "  %s (size classes in bytes:%s)\n", collective_name(C(c)),
                  classes.c_str());
    out += line;
    const int forced = g_forced[c];
    if (forced >= 0) {
      std::snprintf(line, sizeof line, "    forced: %s (PAMIR_COLL_%s)\n", kAlgorithms[forced].name,
                    ForceSetting::upper(collective_name(C(c))).c_str());
      out += line;
    }
    for (size_t i = 0; i < g_selector.size(C(c)); ++i) {
      const Selector::Entry &e = g_selector.entry(C(c), i);
      std::string cond;
      if (e.care == 0) cond = "always";
      for (uint32_t bit = 1; bit && bit <= kExclusive; bit <<= 1) {
        if (!(e.care & bit)) continue;
        cond += (cond.empty() ? "" : " ") + std::string(e.mask & bit ? "" : "!") + describe_mask(bit);
      }
      if (e.care & kSizeClassBits)
        cond += (cond.empty() ? "" : " ") + std::string("size-class=") +
                std::to_string((e.mask & kSizeClassBits) >> kSizeClassShift);
      std::snprintf(line, sizeof line, "    %zu. %-19s if %s\n", i + 1, kAlgorithms[e.algorithm].name,
                    cond.c_str());
      out += line;
    }
    out += "    algorithms:\n";
    for (const Algorithm &a : kAlgorithms)
      if (a.coll == C(c)) {
        std::snprintf(line, sizeof line, "      %-20s %s%s%s\n", a.name, a.about, a.needs ? "; needs " : "",
                      a.needs ? describe_mask(a.needs).c_str() : "");
        out += line;
      }
  }
  return out;
}

}  // namespace pamir::coll
