#include "tools/mpirun/environment.h"

#include <pmix_common.h>

#include <cstdlib>
#include <string_view>

extern char **environ;

namespace pamir::mpirun {
namespace {

// Variables a PMIx server puts into its clients' environment. Inherited from an enclosing job (an
// mpirun started by srun or by another mpirun) they would point libpmix at the wrong server.
bool stale_pmix_variable(std::string_view entry) {
  if (!entry.starts_with("PMIX_")) return false;
  for (std::string_view keep : {"PMIX_MCA_", "PMIX_SERVER_TMPDIR=", "PMIX_SYSTEM_TMPDIR="})
    if (entry.starts_with(keep)) return false;
  return true;
}

}  // namespace

void prepare_own_environment() {
  std::vector<std::string> stale;
  for (char **e = environ; *e != nullptr; ++e) {
    std::string_view entry = *e;
    if (stale_pmix_variable(entry)) stale.emplace_back(entry.substr(0, entry.find('=')));
  }
  for (const std::string &name : stale) ::unsetenv(name.c_str());
  ::setenv("PMIX_MCA_gds", "hash", 1);
}

std::vector<std::string> rank_environment(const std::vector<std::pair<std::string, std::string>> &exports) {
  std::vector<std::string> env;
  for (char **e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  for (const auto &[name, value] : exports) {
    std::string entry = name + "=" + value;
    bool replaced = false;
    for (std::string &existing : env) {
      if (existing.size() > name.size() && existing.compare(0, name.size(), name) == 0 &&
          existing[name.size()] == '=') {
        existing = entry;
        replaced = true;
        break;
      }
    }
    if (!replaced) env.push_back(std::move(entry));
  }
  return env;
}

const char *find_variable(const std::vector<std::string> &env, const std::string &name) {
  for (const std::string &entry : env)
    if (entry.size() > name.size() && entry.compare(0, name.size(), name) == 0 && entry[name.size()] == '=')
      return entry.c_str() + name.size() + 1;
  return nullptr;
}

char **to_pmix_argv(const std::vector<std::string> &strings) {
  char **argv = nullptr;
  for (const std::string &s : strings) pmix_argv_append_nosize(&argv, s.c_str());
  if (argv == nullptr) argv = static_cast<char **>(std::calloc(1, sizeof(char *)));
  return argv;
}

void free_pmix_argv(char **argv) {
  pmix_argv_free(argv);
}

}  // namespace pamir::mpirun
