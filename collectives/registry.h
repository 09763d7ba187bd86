// The algorithm registry and the selection of seed 002 over it: every algorithm of every collective
// with what it needs of a call (a power-of-two communicator, a commutative operation), each
// collective's size table (seed 000: the size class is a field of the call mask) and its ordered list
// of (mask, care) -> algorithm, from the built-in defaults or a tuning file (PAMIR_COLL_TUNING), and the
// algorithms forced for the job (PAMIR_COLL_<NAME>). Knows nothing of MPI handles.
//
// A tuning file is text, one directive per line, `#` starting a comment:
//   sizes <collective> <bound> ...         size classes: class k holds sizes in [bound k-1, bound k)
//   <collective> <algorithm> [<bit> | !<bit> | size-class=<k>] ...
// The second form appends an entry to the collective's list: it matches a call whose mask has every
// <bit> set, every !<bit> clear and the size class k. The first entry of a collective in the file
// replaces its built-in list; the list must end with an entry without conditions, and an entry must
// require what its algorithm needs. Bits: the names describe_mask uses (collectives/mask.cc). An
// inter-communicator's calls never read the lists: each collective's `inter` algorithm serves them.
#pragma once

#include <cstdint>
#include <string>

#include "collectives/algorithms/algorithms.h"
#include "collectives/mask.h"

namespace pamir::coll {

struct Algorithm {
  Collective coll;
  const char *name;
  AlgorithmFn fn;
  uint32_t needs;  // bits a call's mask must have for the algorithm to serve it
  const char *about;
};

constexpr int kMaxAlgorithms = 96;

// Every algorithm; an algorithm's id is its index here.
int algorithm_count();
const Algorithm &algorithm(int id);
// Whether algorithm id can serve a call of mask `mask`: it has the bits the algorithm needs, and it is on
// an inter-communicator exactly when the algorithm is one of the inter-communicator's.
inline bool serves(const Algorithm &a, uint32_t mask) {
  return (mask & a.needs) == a.needs && !((mask ^ a.needs) & kInter);
}
// Collective c's algorithm for inter-communicators, or -1 (scan, exscan and the neighbourhood
// collectives have none: the standard defines them on intra-communicators only).
int inter_algorithm(Collective c);
// The id of collective c's algorithm `name`, or -1.
int find_algorithm(Collective c, const char *name);
// c's algorithm names, comma-separated.
std::string algorithm_names(Collective c);

// A collective's size classes: class k holds sizes in [bounds[k-1], bounds[k]); the last class is
// open-ended.
struct SizeTable {
  static constexpr int kMax = 15;
  uint64_t bounds[kMax];
  int n;
  unsigned size_class(uint64_t bytes) const {
    unsigned k = 0;
    while (k < unsigned(n) && bytes >= bounds[k]) ++k;
    return k;
  }
};

// Reads PAMIR_COLL_TUNING and PAMIR_COLL_<NAME> (after config::load). False with the reason, which
// names the variable (and the file's line).
bool registry_init(std::string &why);
// Parses a tuning file's text into the registry's tables (registry_init's work; public for tests).
bool load_tuning(const std::string &text, std::string &why);
// Back to the built-in lists and size tables.
void load_defaults();

const Selector &selector();
const SizeTable &size_table(Collective c);
// The algorithm PAMIR_COLL_<NAME> forces for the job, or -1.
int forced_for_job(Collective c);

// A call's mask: the communicator's partial mask, the call's bits and the size class.
inline uint32_t call_mask(Collective c, uint32_t comm_bits, uint32_t call_bits, uint64_t bytes) {
  return comm_bits | call_bits | size_class_bits(size_table(c).size_class(bytes));
}

// Counts of the algorithms that ran (PAMIR_STATS), by id.
extern uint64_t g_algorithm_runs[kMaxAlgorithms];
void print_algorithm_stats(int rank);
// Each collective's size table and list with the bits spelled out, as pamir_info prints them.
std::string describe_selection();

}  // namespace pamir::coll
