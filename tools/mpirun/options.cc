// Command-line parsing for mpirun/mpiexec. Accepts Open MPI's spellings of the options it supports
// (single or double dash, "--opt=value"), so scripts written for Open MPI keep working.
#include "tools/mpirun/options.h"

#include <pmix.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

namespace pamir::mpirun {
namespace {

constexpr int kMaxRanks = 65536;

void usage(FILE *to) {
  std::fputs(
      "Usage: mpirun [options] [--] program [arguments...] [: -n N [-x ...] program [arguments...]]...\n"
      "Starts N copies of program on this machine as one MPI job (a PMIx server on libpmix). Several\n"
      "programs separated by ':' (MPMD) share one MPI_COMM_WORLD, in order; MPI_APPNUM is each one's\n"
      "index, and each needs its -n (after ':', only -n and -x may come before the program).\n"
      "\n"
      "Options:\n"
      "  -n, -np N              number of ranks (default: one per core)\n"
      "  -x NAME[=VALUE]        set NAME in every rank's environment; without a value, pass\n"
      "                         mpirun's current value (repeatable)\n"
      "  --tag-output           prefix each output line with [1,RANK]<stdout>: or [1,RANK]<stderr>:\n"
      "  --timeout SECONDS      end the job after SECONDS and exit 124 (also MPIEXEC_TIMEOUT)\n"
      "  --bind-to LEVEL        bind each rank to the hwthread, core, l3cache, numa or socket (also\n"
      "                         package) where it is mapped, or none (default: core when the ranks\n"
      "                         fit into the cores, else none)\n"
      "  --map-by LEVEL         spread the ranks round-robin over the slots (cores in order; also\n"
      "                         core), hwthreads, l3caches, numa nodes or sockets (default: slot)\n"
      "  --rank-by LEVEL        number the placed ranks by slot (as mapped), hwthread, core,\n"
      "                         l3cache, numa or socket (default: slot)\n"
      "  --output-filename DIR  write rank N's stdout and stderr to DIR/1/rank.N/stdout and\n"
      "                         DIR/1/rank.N/stderr instead of mpirun's\n"
      "  --version              print the version and exit\n"
      "  -h, --help             print this help and exit\n"
      "  --                     end of options: the program follows\n"
      "  -H, --host LIST        hosts with slots, NAME[:N],... (default N 1); every one must be this\n"
      "                         machine (several hosts: srun --mpi=pmix). Without -n the job fills\n"
      "                         the slots; more ranks than slots need --oversubscribe\n"
      "  --hostfile FILE        the same from a file of lines 'NAME [slots=N]' (also --machinefile)\n"
      "  --oversubscribe        allow more ranks than the host list's slots\n"
      "  --report-bindings      print each rank's CPUs (or that it is not bound) before it starts\n"
      "  --torus DIMS           run on the emulated torus (PAMIR_DEVICE=torus) of sizes DIMS (4x4x2x2,\n"
      "                         at most 5; their product divides the job), or auto for a balanced one\n"
      "  -wdir DIR              start the ranks in DIR (also --wdir; per application after ':')\n"
      "  -genv NAME VALUE       as -x NAME=VALUE (MPICH's spelling); -env NAME VALUE for one application\n"
      "Accepted and ignored for Open MPI compatibility: --allow-run-as-root.\n"
      "\n"
      "Exit status: 0 when every rank exits 0; otherwise the first failing rank's exit code,\n"
      "128+N for a rank killed by signal N, the code given to MPI_Abort, 124 on --timeout,\n"
      "128+N when mpirun itself receives signal N, 127/126 when the program cannot be run,\n"
      "1 for a bad option or a rank that exits 0 without MPI_Finalize.\n",
      to);
}

void version() {
  std::printf("mpirun (Pamir) %s\nPMIx server library: %s\n", PACKAGE_VERSION, PMIx_Get_version());
}

int bad(const char *fmt, const char *a, const char *b = "") {
  std::fputs("mpirun: ", stderr);
  std::fprintf(stderr, fmt, a, b);
  std::fputs("\nmpirun: see 'mpirun --help'\n", stderr);
  return 1;
}

bool parse_count(const char *text, int *out) {
  if (text == nullptr || *text == '\0') return false;
  errno = 0;
  char *end = nullptr;
  long v = std::strtol(text, &end, 10);
  if (errno != 0 || *end != '\0' || v < 1 || v > kMaxRanks) return false;
  *out = static_cast<int>(v);
  return true;
}

bool parse_seconds(const char *text, double *out) {
  if (text == nullptr || *text == '\0') return false;
  errno = 0;
  char *end = nullptr;
  double v = std::strtod(text, &end);
  if (errno != 0 || *end != '\0' || !std::isfinite(v) || v <= 0 || v > 1e9) return false;
  *out = v;
  return true;
}

// Strips one or two leading dashes: "-np", "--np" -> "np". Returns "" for something not an option.
std::string_view option_name(std::string_view arg) {
  if (arg.size() < 2 || arg[0] != '-') return {};
  arg.remove_prefix(arg[1] == '-' ? 2 : 1);
  return arg;
}

// Whether a host name of -H or a hostfile names this machine: the loopback names, or this host's name
// (or the part of it before the first dot, either way round).
bool is_this_host(std::string_view name) {
  if (name == "localhost" || name == "127.0.0.1" || name == "::1" || name == "localhost.localdomain")
    return true;
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) return false;
  const std::string_view mine = host;
  auto shortname = [](std::string_view n) { return n.substr(0, n.find('.')); };
  return name == mine || shortname(name) == shortname(mine);
}

// One host and its slot count, from -H ("name" or "name:N") or a hostfile line ("name slots=N").
// Returns an exit code for a bad one (the message printed), or -1.
int add_host(std::string_view name, int slots, int *total) {
  if (!is_this_host(name))
    return bad(
        "host '%s' is not this machine: this mpirun starts ranks on this machine only (for several "
        "hosts, launch with Slurm: srun --mpi=pmix)",
        std::string(name).c_str());
  if (*total + long(slots) > kMaxRanks) return bad("%s", "more than 65536 slots");
  *total += slots;
  return -1;
}

int add_host_list(const char *list, int *total) {
  std::string_view rest = list;
  if (rest.empty()) return bad("%s", "option -H needs a host list");
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    std::string_view entry = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    int slots = 1;
    if (const size_t colon = entry.rfind(':'); colon != std::string_view::npos && entry != "::1") {
      const std::string count(entry.substr(colon + 1));
      if (!parse_count(count.c_str(), &slots))
        return bad("invalid slot count in host '%s' (expected NAME or NAME:N)", std::string(entry).c_str());
      entry = entry.substr(0, colon);
    }
    if (entry.empty()) return bad("invalid host list '%s'", list);
    if (int rc = add_host(entry, slots, total); rc >= 0) return rc;
  }
  return -1;
}

int read_hostfile(const char *path, int *total) {
  std::FILE *f = std::fopen(path, "r");
  if (f == nullptr) return bad("cannot read hostfile '%s': %s", path, std::strerror(errno));
  char line[1024];
  int rc = -1;
  while (rc < 0 && std::fgets(line, sizeof line, f) != nullptr) {
    if (char *hash = std::strchr(line, '#')) *hash = '\0';
    char *save = nullptr;
    char *name = strtok_r(line, " \t\r\n", &save);
    if (name == nullptr) continue;
    int slots = 1;
    for (char *w = strtok_r(nullptr, " \t\r\n", &save); w != nullptr && rc < 0;
         w = strtok_r(nullptr, " \t\r\n", &save)) {
      if (std::strncmp(w, "slots=", 6) == 0) {
        if (!parse_count(w + 6, &slots)) rc = bad("invalid '%s' in hostfile '%s'", w, path);
      } else if (std::strncmp(w, "max_slots=", 10) != 0) {
        rc = bad("unknown '%s' in hostfile '%s' (expected slots=N or max_slots=N)", w, path);
      }
    }
    if (rc < 0) rc = add_host(name, slots, total);
  }
  std::fclose(f);
  return rc;
}

// A level's name; `slot` (the cores in order) only where `slot_ok`.
bool parse_level(std::string_view v, bool slot_ok, Level *out) {
  static constexpr struct {
    const char *name;
    Level level;
  } kLevels[] = {{"slot", Level::kSlot},      {"node", Level::kSlot},       {"hwthread", Level::kHwthread},
                 {"core", Level::kCore},      {"l3cache", Level::kL3cache}, {"numa", Level::kNuma},
                 {"socket", Level::kPackage}, {"package", Level::kPackage}};
  for (const auto &l : kLevels)
    if (v == l.name && (slot_ok || l.level != Level::kSlot)) {
      *out = l.level;
      return true;
    }
  return false;
}

}  // namespace

const char *level_name(Level l) {
  switch (l) {
    case Level::kSlot:
      return "slot";
    case Level::kHwthread:
      return "hwthread";
    case Level::kCore:
      return "core";
    case Level::kL3cache:
      return "l3cache";
    case Level::kNuma:
      return "numa";
    case Level::kPackage:
      return "socket";
  }
  return "?";
}

int parse_options(int argc, char **argv, Options *out) {
  bool timeout_given = false;
  int i = 1;
  // Options, then a program and its arguments, up to a ':' that starts the next application context,
  // whose own options may be only -n and -x.
  out->apps.emplace_back();
  bool in_context = false;  // after a ':'
  for (;;) {
    App &app = out->apps.back();
    for (; i < argc; ++i) {
      std::string_view arg = argv[i];
      if (arg == "--") {
        ++i;
        break;
      }
      if (arg.empty() || arg[0] != '-' || arg == "-") break;  // the program
      std::string_view name = option_name(arg);
      const char *const opt = argv[i];
      const char *value = nullptr;  // from "--opt=value"
      std::string name_buf;
      if (size_t eq = name.find('='); eq != std::string_view::npos && arg.starts_with("--")) {
        name_buf = std::string(name.substr(0, eq));
        value = argv[i] + (arg.size() - name.size()) + eq + 1;
        name = name_buf;
      }
      auto need_value = [&](const char *what) -> const char * {
        if (value != nullptr) return value;
        if (i + 1 >= argc) {
          bad("option %s needs %s", opt, what);
          return nullptr;
        }
        return argv[++i];
      };
      auto no_value = [&]() {
        if (value == nullptr) return true;
        bad("option --%s takes no value", std::string(name).c_str());
        return false;
      };
      if (name == "n" || name == "np" || name == "c") {
        const char *v = need_value("a number of ranks");
        if (v == nullptr) return 1;
        if (!parse_count(v, &app.nranks))
          return bad("invalid number of ranks '%s' (expected an integer from 1 to 65536)", v);
      } else if (name == "x") {
        const char *v = need_value("NAME or NAME=VALUE");
        if (v == nullptr) return 1;
        std::string_view spec = v;
        size_t eq = spec.find('=');
        std::string var(spec.substr(0, eq));
        if (var.empty()) return bad("invalid -x '%s': the variable name is empty", v);
        Exports &to = in_context ? app.exports : out->exports;
        if (eq != std::string_view::npos) {
          to.emplace_back(var, std::string(spec.substr(eq + 1)));
        } else if (const char *cur = std::getenv(var.c_str()); cur != nullptr) {
          to.emplace_back(var, cur);
        } else {
          std::fprintf(stderr, "mpirun: warning: -x %s: %s is not set in mpirun's environment; ignored\n",
                       var.c_str(), var.c_str());
        }
      } else if (name == "env" || name == "genv") {
        // MPICH's spellings: -genv NAME VALUE for every application, -env NAME VALUE for this one.
        const char *var = need_value("NAME VALUE");
        if (var == nullptr) return 1;
        const char *val = need_value("NAME VALUE");
        if (val == nullptr) return 1;
        if (*var == '\0' || std::strchr(var, '=') != nullptr)
          return bad("invalid -%s name '%s'", std::string(name).c_str(), var);
        (name == "genv" && !in_context ? out->exports : app.exports).emplace_back(var, val);
      } else if (name == "wdir") {
        const char *v = need_value("a directory");
        if (v == nullptr) return 1;
        if (*v == '\0') return bad("%s", "option -wdir needs a directory");
        (in_context ? app.wdir : out->wdir) = v;
      } else if (in_context) {
        return bad(
            "option '%s' after ':' (an application context takes only -n, -x, -env and -wdir; "
            "put the job's options before the first program)",
            argv[i]);
      } else if (name == "H" || name == "host") {
        const char *v = need_value("a host list");
        if (v == nullptr) return 1;
        if (int rc = add_host_list(v, &out->slots); rc >= 0) return rc;
      } else if (name == "hostfile" || name == "machinefile" || name == "f") {
        const char *v = need_value("a file");
        if (v == nullptr) return 1;
        if (int rc = read_hostfile(v, &out->slots); rc >= 0) return rc;
      } else if (name == "torus") {
        const char *v = need_value("the torus's sizes (4x4x2x2) or auto");
        if (v == nullptr) return 1;
        out->torus = v;
      } else if (name == "report-bindings") {
        if (!no_value()) return 1;
        out->report_bindings = true;
      } else if (name == "tag-output") {
        if (!no_value()) return 1;
        out->tag_output = true;
      } else if (name == "timeout") {
        const char *v = need_value("a number of seconds");
        if (v == nullptr) return 1;
        if (!parse_seconds(v, &out->timeout_s))
          return bad("invalid --timeout '%s' (expected a positive number of seconds)", v);
        out->timeout_text = v;
        timeout_given = true;
      } else if (name == "bind-to") {
        const char *v = need_value("a level or none");
        if (v == nullptr) return 1;
        if (std::string_view(v) == "none") {
          out->bind = BindPolicy::kNone;
        } else if (parse_level(v, false, &out->bind_level)) {
          out->bind = BindPolicy::kCore;
        } else {
          return bad(
              "invalid --bind-to '%s' (expected hwthread, core, l3cache, numa, socket, package or none)", v);
        }
      } else if (name == "map-by" || name == "rank-by") {
        const char *v = need_value("a level");
        if (v == nullptr) return 1;
        if (!parse_level(v, true, name == "map-by" ? &out->map_by : &out->rank_by))
          return bad(std::string("invalid --" + std::string(name) +
                                 " '%s' (expected slot, hwthread, core, l3cache, numa, socket or package%s)")
                         .c_str(),
                     v, std::strchr(v, ':') ? "; modifiers after ':' are not supported" : "");
      } else if (name == "output-filename") {
        const char *v = need_value("a directory");
        if (v == nullptr) return 1;
        if (*v == '\0') return bad("%s", "option --output-filename needs a directory");
        out->output_dir = v;
      } else if (name == "version" || name == "V") {
        if (!no_value()) return 1;
        version();
        return 0;
      } else if (name == "help" || name == "h") {
        if (!no_value()) return 1;
        usage(stdout);
        return 0;
      } else if (name == "oversubscribe") {
        if (!no_value()) return 1;
        out->oversubscribe = true;
      } else if (name == "allow-run-as-root") {
        if (!no_value()) return 1;
      } else {
        return bad("unknown option '%s'", argv[i]);
      }
    }
    for (; i < argc && std::string_view(argv[i]) != ":"; ++i) app.command.emplace_back(argv[i]);
    if (app.command.empty()) return bad("%s", in_context ? "no program given after ':'" : "no program given");
    if (i >= argc) break;
    ++i;  // the ':'
    out->apps.emplace_back();
    in_context = true;
  }
  if (out->apps.size() > 1) {
    long total = 0;
    for (size_t a = 0; a < out->apps.size(); ++a) {
      if (out->apps[a].nranks == 0)
        return bad("application %s (%s) of an MPMD job has no -n: give each its number of ranks",
                   std::to_string(a).c_str(), out->apps[a].command[0].c_str());
      total += out->apps[a].nranks;
    }
    if (total > kMaxRanks) return bad("%s ranks in all; at most 65536", std::to_string(total).c_str());
  }
  // A host list gives the slots: a lone application without -n fills them, and more ranks than slots
  // need --oversubscribe, as with Open MPI.
  if (out->slots > 0) {
    if (out->apps.size() == 1 && out->apps[0].nranks == 0) out->apps[0].nranks = out->slots;
    long total = 0;
    for (const App &a : out->apps) total += a.nranks;
    if (total > out->slots && !out->oversubscribe)
      return bad("%s ranks, but the host list gives this machine %s slots (add --oversubscribe to run more)",
                 std::to_string(total).c_str(), std::to_string(out->slots).c_str());
  }

  if (!timeout_given) {
    if (const char *env = std::getenv("MPIEXEC_TIMEOUT"); env != nullptr && *env != '\0') {
      if (!parse_seconds(env, &out->timeout_s))
        return bad("invalid MPIEXEC_TIMEOUT '%s' (expected a positive number of seconds)", env);
      out->timeout_text = env;
    }
  }
  return -1;
}

}  // namespace pamir::mpirun
