// mpirun command line: what the user asked for, validated, nothing more.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace pamir::mpirun {

enum class BindPolicy { kDefault, kCore, kNone };

// A level of the machine's hierarchy (hwloc), for --map-by, --rank-by and --bind-to. kSlot: the cores
// in order (what Open MPI's "slot" and "core" mean on one node).
enum class Level { kSlot, kHwthread, kCore, kL3cache, kNuma, kPackage };
// Its name as the options spell it ("socket" is Open MPI's word for a package).
const char *level_name(Level l);

using Exports = std::vector<std::pair<std::string, std::string>>;  // -x NAME[=VALUE], resolved

// One application context of an MPMD command line (`mpirun -n 2 ./a : -n 1 ./b`): its ranks follow the
// previous context's in MPI_COMM_WORLD, and MPI_APPNUM is its index.
struct App {
  int nranks = 0;                    // 0: not given (a lone application: the slots, or one rank per core)
  Exports exports;                   // its own -x / -env, after the global ones
  std::string wdir;                  // its own -wdir; empty: the job's
  std::vector<std::string> command;  // program and its arguments
};

struct Options {
  Exports exports;   // -x / -genv before the first program: every application's
  std::string wdir;  // -wdir before the first program; empty: mpirun's own
  int slots = 0;     // slots of this host that -H / --hostfile gave; 0: none given
  bool oversubscribe = false;
  bool tag_output = false;
  bool report_bindings = false;  // print each rank's CPUs before the job starts
  double timeout_s = 0;          // 0: no time limit
  std::string timeout_text;      // as the user wrote it, for the message
  BindPolicy bind = BindPolicy::kDefault;
  Level bind_level = Level::kCore;  // with BindPolicy::kCore: what a rank is bound to
  Level map_by = Level::kSlot;      // how ranks are spread over the machine
  Level rank_by = Level::kSlot;     // in which order the placed ranks are numbered
  std::string output_dir;           // --output-filename: DIR/1/rank.N/stdout and stderr
  std::string torus;                // --torus: the torus's sizes, "auto", or empty (not a torus job)
  std::vector<App> apps;            // at least one
};

// Parses argv (and MPIEXEC_TIMEOUT). Returns -1 when the job should run, otherwise the exit code
// mpirun must return at once (0 after --help/--version, 1 after a bad option; the message is printed).
int parse_options(int argc, char **argv, Options *out);

}  // namespace pamir::mpirun
