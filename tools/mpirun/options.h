// mpirun command line: what the user asked for, validated, nothing more.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace pamir::mpirun {

enum class BindPolicy { kDefault, kCore, kNone };

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
  std::vector<App> apps;  // at least one
};

// Parses argv (and MPIEXEC_TIMEOUT). Returns -1 when the job should run, otherwise the exit code
// mpirun must return at once (0 after --help/--version, 1 after a bad option; the message is printed).
int parse_options(int argc, char **argv, Options *out);

}  // namespace pamir::mpirun
