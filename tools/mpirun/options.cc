// Command-line parsing for mpirun/mpiexec. Accepts Open MPI's spellings of the options it supports
// (single or double dash, "--opt=value"), so scripts written for Open MPI keep working.
#include "tools/mpirun/options.h"

#include <pmix.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

namespace pamir::mpirun {
namespace {

constexpr int kMaxRanks = 65536;

void usage(FILE *to) {
  std::fputs(
      "Usage: mpirun [options] [--] program [arguments...]\n"
      "Starts N copies of program on this machine as one MPI job (a PMIx server on libpmix).\n"
      "\n"
      "Options:\n"
      "  -n, -np N              number of ranks (default: one per core)\n"
      "  -x NAME[=VALUE]        set NAME in every rank's environment; without a value, pass\n"
      "                         mpirun's current value (repeatable)\n"
      "  --tag-output           prefix each output line with [1,RANK]<stdout>: or [1,RANK]<stderr>:\n"
      "  --timeout SECONDS      end the job after SECONDS and exit 124 (also MPIEXEC_TIMEOUT)\n"
      "  --bind-to core|none    bind rank i to core i mod ncores, or not at all\n"
      "                         (default: core when the ranks fit into the cores, else none)\n"
      "  --version              print the version and exit\n"
      "  -h, --help             print this help and exit\n"
      "  --                     end of options: the program follows\n"
      "Accepted and ignored for Open MPI compatibility: --oversubscribe, --allow-run-as-root.\n"
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

}  // namespace

int parse_options(int argc, char **argv, Options *out) {
  bool timeout_given = false;
  int i = 1;
  for (; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg.empty() || arg[0] != '-' || arg == "-") break;  // the program
    std::string_view name = option_name(arg);
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
        bad("option %s needs %s", argv[i], what);
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
      if (!parse_count(v, &out->nranks))
        return bad("invalid number of ranks '%s' (expected an integer from 1 to 65536)", v);
    } else if (name == "x") {
      const char *v = need_value("NAME or NAME=VALUE");
      if (v == nullptr) return 1;
      std::string_view spec = v;
      size_t eq = spec.find('=');
      std::string var(spec.substr(0, eq));
      if (var.empty()) return bad("invalid -x '%s': the variable name is empty", v);
      if (eq != std::string_view::npos) {
        out->exports.emplace_back(var, std::string(spec.substr(eq + 1)));
      } else if (const char *cur = std::getenv(var.c_str()); cur != nullptr) {
        out->exports.emplace_back(var, cur);
      } else {
        std::fprintf(stderr, "mpirun: warning: -x %s: %s is not set in mpirun's environment; ignored\n",
                     var.c_str(), var.c_str());
      }
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
      const char *v = need_value("core or none");
      if (v == nullptr) return 1;
      std::string_view b = v;
      if (b == "core") {
        out->bind = BindPolicy::kCore;
      } else if (b == "none") {
        out->bind = BindPolicy::kNone;
      } else {
        return bad("invalid --bind-to '%s' (expected core or none)", v);
      }
    } else if (name == "version" || name == "V") {
      if (!no_value()) return 1;
      version();
      return 0;
    } else if (name == "help" || name == "h") {
      if (!no_value()) return 1;
      usage(stdout);
      return 0;
    } else if (name == "oversubscribe" || name == "allow-run-as-root") {
      if (!no_value()) return 1;
    } else {
      return bad("unknown option '%s'", argv[i]);
    }
  }
  for (; i < argc; ++i) out->command.emplace_back(argv[i]);
  if (out->command.empty()) return bad("%s", "no program given");

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
