// mpirun command line: what the user asked for, validated, nothing more.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace pamir::mpirun {

enum class BindPolicy { kDefault, kCore, kNone };

struct Options {
  int nranks = 0;                                            // 0: not given, one rank per core
  std::vector<std::pair<std::string, std::string>> exports;  // -x NAME[=VALUE], resolved
  bool tag_output = false;
  double timeout_s = 0;      // 0: no time limit
  std::string timeout_text;  // as the user wrote it, for the message
  BindPolicy bind = BindPolicy::kDefault;
  std::vector<std::string> command;  // program and its arguments
};

// Parses argv (and MPIEXEC_TIMEOUT). Returns -1 when the job should run, otherwise the exit code
// mpirun must return at once (0 after --help/--version, 1 after a bad option; the message is printed).
int parse_options(int argc, char **argv, Options *out);

}  // namespace pamir::mpirun
