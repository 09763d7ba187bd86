// The environment the ranks start from: mpirun's own, without the PMIx variables of any job that
// mpirun itself runs in, with the -x exports, and with PMIX_MCA_gds=hash (PMIx keeps its data store
// in memory: a killed launcher leaves no pmix_dstor files). libpmix adds its connection variables.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace pamir::mpirun {

// Cleans mpirun's own environment (before PMIx_server_init; the ranks inherit the result).
void prepare_own_environment();

// NAME=VALUE strings for the ranks.
std::vector<std::string> rank_environment(const std::vector<std::pair<std::string, std::string>> &exports);

// The value of name in env, or nullptr.
const char *find_variable(const std::vector<std::string> &env, const std::string &name);

// A pmix_argv-style copy (malloc'ed, NULL-terminated) that PMIx_server_setup_fork can extend;
// release it with free_pmix_argv.
char **to_pmix_argv(const std::vector<std::string> &strings);
void free_pmix_argv(char **argv);

}  // namespace pamir::mpirun
