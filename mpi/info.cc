// Info objects (MPI 4.1 chapter 10) and MPI_INFO_ENV (§11.2.2). Every MPI_Info_* call may be made
// before MPI_Init and after MPI_Finalize (MPI 4.0 made them usable with sessions), so these bindings do
// not use PAMIR_ENTER: they take the library lock and report through raise_anytime().
#include "mpi/info.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

#include "mpi/check.h"
#include "pami/context.h"
#include "pamir_alias.h"

namespace pamir::mpi {

namespace {

Info g_env = [] {
  Info i{};
  i.magic = uint32_t(Kind::info);
  i.predefined = true;
  return i;
}();
[[maybe_unused]] const bool registered = [] {
  predefined_slot<Info>(uintptr_t(MPI_INFO_ENV)) = &g_env;
  return true;
}();
bool env_filled = false, env_filled_initialized = false;

std::vector<std::string> own_command_line() {
  std::ifstream f("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  size_t start = 0;
  while (start < all.size()) {
    size_t end = all.find('\0', start);
    if (end == std::string::npos) end = all.size();
    args.push_back(all.substr(start, end - start));
    start = end + 1;
  }
  return args;
}

// The processes the job was started with: the job's own answer once MPI is initialized; before, what
// the launcher put in the environment (Pamir's mpirun, srun, Open MPI's and MPICH's launchers), and 1 for
// a process that no launcher started (a singleton). Empty when a launcher started it without saying.
std::string job_size() {
  if (usable()) return std::to_string(context().ntasks());
  for (const char *var : {"PAMIR_JOB_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"})
    if (const char *v = std::getenv(var); v && *v) return v;
  return std::getenv("PMIX_RANK") ? std::string() : std::string("1");
}

// MPI_INFO_ENV's keys (MPI 4.1 §11.2.2) as far as Pamir knows them: command, argv, maxprocs, host,
// arch, wdir; the same before, during and after MPI_Init.
void fill_env(Info &info, const std::vector<std::string> &args) {
  info.items.clear();
  if (!args.empty()) {
    info.set("command", args[0]);
    std::string rest;
    for (size_t i = 1; i < args.size(); ++i) {
      if (i > 1) rest += ' ';
      rest += args[i];
    }
    if (args.size() > 1) info.set("argv", rest);
  }
  if (std::string n = job_size(); !n.empty()) info.set("maxprocs", n);
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) info.set("host", host);
  struct utsname u;
  if (uname(&u) == 0) info.set("arch", u.machine);
  char cwd[4096];
  if (getcwd(cwd, sizeof cwd)) info.set("wdir", cwd);
}

Info *env() {
  if (!env_filled || (!env_filled_initialized && usable())) {
    fill_env(g_env, own_command_line());
    env_filled = true;
    env_filled_initialized = usable();
  }
  return &g_env;
}

// Key and value checks shared by the calls.
int check_key(const char *fn, const char *key) {
  if (!key) return raise_anytime(fn, MPI_ERR_INFO_KEY, "key is NULL");
  size_t n = strnlen(key, MPI_MAX_INFO_KEY);
  if (n == 0) return raise_anytime(fn, MPI_ERR_INFO_KEY, "the key is empty");
  if (n >= MPI_MAX_INFO_KEY)
    return raise_anytime(fn, MPI_ERR_INFO_KEY, "key longer than MPI_MAX_INFO_KEY-1 = %d characters",
                         MPI_MAX_INFO_KEY - 1);
  return MPI_SUCCESS;
}

int bad_info(const char *fn, MPI_Info h) {
  if (h == MPI_INFO_NULL) return raise_anytime(fn, MPI_ERR_INFO, "MPI_INFO_NULL is not an info object");
  if (is_freed<Info>(h)) return raise_anytime(fn, MPI_ERR_INFO, "the info object was freed");
  return raise_anytime(fn, MPI_ERR_INFO, "invalid info handle %p", static_cast<void *>(h));
}

}  // namespace

int raise_anytime(const char *fn, int cls, const char *fmt, ...) {
  if (!usable()) return cls;
  char reason[400];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(reason, sizeof reason, fmt, ap);
  va_end(ap);
  return raise(nullptr, fn, cls, "%s", reason);
}

Info *info_make(std::vector<std::pair<std::string, std::string>> items) {
  Info *i = pool<Info>().make();
  i->items = std::move(items);
  return i;
}

void info_release(Info *info) {
  if (!info || info->predefined || --info->refs > 0) return;
  if (info->int_handle) object_forget_int(Kind::info, info->int_handle);
  info->items.clear();
  pool<Info>().destroy(info);
}

Info *info_of(MPI_Info h) {
  if (h == MPI_INFO_ENV) return env();
  return lookup<Info>(h);
}

}  // namespace pamir::mpi

using namespace pamir::mpi;

// Evaluates to the Info*, or returns MPI_ERR_INFO from the enclosing binding.
#define INFO_OF(h)                                         \
  ({                                                       \
    Info *i_ = info_of(h);                                 \
    if (__builtin_expect(!i_, 0)) return bad_info(fn_, h); \
    i_;                                                    \
  })
#define INFO_ENTER(name)                   \
  static constexpr const char *fn_ = name; \
  ::pamir::CallGuard guard_

int PMPI_Info_create(MPI_Info *info) {
  INFO_ENTER("MPI_Info_create");
  if (!info) return raise_anytime(fn_, MPI_ERR_ARG, "info is NULL");
  *info = info_handle(info_make());
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Info_create);

int PMPI_Info_create_env(int argc, char *argv[], MPI_Info *info) {
  INFO_ENTER("MPI_Info_create_env");
  if (!info) return raise_anytime(fn_, MPI_ERR_ARG, "info is NULL");
  Info *i = info_make(env()->items);
  if (argc > 0 && argv && argv[0]) {
    std::vector<std::string> args;
    for (int k = 0; k < argc && argv[k]; ++k) args.emplace_back(argv[k]);
    Info fresh{};
    fill_env(fresh, args);
    i->items = fresh.items;
  }
  *info = info_handle(i);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Info_create_env);

int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo) {
  INFO_ENTER("MPI_Info_dup");
  Info *i = INFO_OF(info);
  if (!newinfo) return raise_anytime(fn_, MPI_ERR_ARG, "newinfo is NULL");
  *newinfo = info_handle(info_make(i->items));
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Info_dup);

int PMPI_Info_free(MPI_Info *info) {
  INFO_ENTER("MPI_Info_free");
  if (!info) return raise_anytime(fn_, MPI_ERR_ARG, "info is NULL");
  Info *i = INFO_OF(*info);
  if (i->predefined) return raise_anytime(fn_, MPI_ERR_INFO, "MPI_INFO_ENV cannot be freed");
  info_release(i);
  *info = MPI_INFO_NULL;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Info_free);

int PMPI_Info_set(MPI_Info info, const char *key, const char *value) {
  INFO_ENTER("MPI_Info_set");
  Info *i = INFO_OF(info);
  if (i->predefined) return raise_anytime(fn_, MPI_ERR_INFO, "MPI_INFO_ENV is read-only");
  if (int rc = check_key(fn_, key)) return rc;
  if (!value) return raise_anytime(fn_, MPI_ERR_INFO_VALUE, "value is NULL");
  if (strnlen(value, MPI_MAX_INFO_VAL) >= MPI_MAX_INFO_VAL)
    return raise_anytime(fn_, MPI_ERR_INFO_VALUE, "value of key \"%s\" longer than MPI_MAX_INFO_VAL-1 = %d",
                         key, MPI_MAX_INFO_VAL - 1);
  i->set(key, value);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Info_set);

int PMPI_Info_delete(MPI_Info info, const char *key) {
  INFO_ENTER("MPI_Info_delete");
  Info *i = INFO_OF(info);
  if (i->predefined) return raise_anytime(fn_, MPI_ERR_INFO, "MPI_INFO_ENV is read-only");
  if (int rc = check_key(fn_, key)) return rc;
  if (!i->erase(key)) return raise_anytime(fn_, MPI_ERR_INFO_NOKEY, "no key \"%s\" in the info object", key);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Info_delete);

int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag) {
  INFO_ENTER("MPI_Info_get_string");
  Info *i = INFO_OF(info);
  if (int rc = check_key(fn_, key)) return rc;
  if (!buflen || !flag) return raise_anytime(fn_, MPI_ERR_ARG, "buflen or flag is NULL");
  if (*buflen < 0) return raise_anytime(fn_, MPI_ERR_ARG, "negative buflen %d", *buflen);
  if (*buflen > 0 && !value) return raise_anytime(fn_, MPI_ERR_ARG, "value is NULL with buflen %d", *buflen);
  const std::string *v = i->find(key);
  *flag = v != nullptr;
  if (!v) return MPI_SUCCESS;
  if (*buflen > 0) {
    size_t n = std::min(v->size(), size_t(*buflen - 1));
    std::memcpy(value, v->data(), n);
    value[n] = '\0';
  }
  *buflen = int(v->size()) + 1;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Info_get_string);

int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag) {
  INFO_ENTER("MPI_Info_get");
  Info *i = INFO_OF(info);
  if (int rc = check_key(fn_, key)) return rc;
  if (!flag) return raise_anytime(fn_, MPI_ERR_ARG, "flag is NULL");
  if (valuelen < 0) return raise_anytime(fn_, MPI_ERR_ARG, "negative valuelen %d", valuelen);
  if (!value) return raise_anytime(fn_, MPI_ERR_ARG, "value is NULL");
  const std::string *v = i->find(key);
  *flag = v != nullptr;
  if (!v) return MPI_SUCCESS;
  // valuelen excludes the terminating null (MPI 4.1 §10, MPI_INFO_GET).
  size_t n = std::min(v->size(), size_t(valuelen));
  std::memcpy(value, v->data(), n);
  value[n] = '\0';
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Info_get);

int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag) {
  INFO_ENTER("MPI_Info_get_valuelen");
  Info *i = INFO_OF(info);
  if (int rc = check_key(fn_, key)) return rc;
  if (!valuelen || !flag) return raise_anytime(fn_, MPI_ERR_ARG, "valuelen or flag is NULL");
  const std::string *v = i->find(key);
  *flag = v != nullptr;
  if (v) *valuelen = int(v->size());
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Info_get_valuelen);

int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys) {
  INFO_ENTER("MPI_Info_get_nkeys");
  Info *i = INFO_OF(info);
  if (!nkeys) return raise_anytime(fn_, MPI_ERR_ARG, "nkeys is NULL");
  *nkeys = int(i->items.size());
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Info_get_nkeys);

int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key) {
  INFO_ENTER("MPI_Info_get_nthkey");
  Info *i = INFO_OF(info);
  if (!key) return raise_anytime(fn_, MPI_ERR_ARG, "key is NULL");
  if (n < 0 || size_t(n) >= i->items.size())
    return raise_anytime(fn_, MPI_ERR_ARG, "n = %d is outside [0, %zu)", n, i->items.size());
  const std::string &k = i->items[size_t(n)].first;
  std::memcpy(key, k.c_str(), k.size() + 1);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Info_get_nthkey);
