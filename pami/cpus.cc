#include "pami/cpus.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace pamir {

unsigned count_cpu_list(const char *text) {
  // A list is ranges "a" or "a-b" (a <= b) separated by single commas, optionally ending in a newline.
  auto at_end = [](const char *p) { return *p == '\0' || (*p == '\n' && p[1] == '\0'); };
  auto number = [](const char *&p, unsigned long &out) {
    if (*p < '0' || *p > '9') return false;
    char *end;
    out = std::strtoul(p, &end, 10);
    p = end;
    return true;
  };
  unsigned n = 0;
  const char *p = text;
  do {
    unsigned long lo, hi;
    if (!number(p, lo)) return 0;
    hi = lo;
    if (*p == '-' && (!number(++p, hi) || hi < lo)) return 0;
    n += unsigned(hi - lo + 1);
    if (at_end(p)) return n;
  } while (*p++ == ',');
  return 0;
}

namespace {

// Where each cgroup hierarchy keeps the effective cpuset: v2 (unified) and v1 (the cpuset controller).
struct CpusetFile {
  const char *prefix;  // of the line in /proc/self/cgroup, up to the path
  const char *root;    // where the hierarchy is mounted
  const char *file;
};
constexpr CpusetFile kCpusetFiles[] = {
    {"0::", "/sys/fs/cgroup", "cpuset.cpus.effective"},
    {"cpuset:", "/sys/fs/cgroup/cpuset", "cpuset.effective_cpus"},
};

// CPUs in the cpuset file of `path` or, where that cgroup does not have the controller, of the
// nearest ancestor that does; 0 when none can be read.
unsigned cpuset_cpus(const CpusetFile &where, std::string path) {
  char line[4096];
  for (;;) {
    const std::string file = std::string(where.root) + (path == "/" ? "" : path) + "/" + where.file;
    if (FILE *c = std::fopen(file.c_str(), "r")) {
      unsigned n = 0;
      if (std::fgets(line, sizeof line, c)) n = count_cpu_list(line);
      std::fclose(c);
      if (n) return n;
    }
    if (path == "/" || path.empty()) return 0;
    const size_t slash = path.rfind('/');
    path.resize(slash == 0 || slash == std::string::npos ? 1 : slash);
  }
}

// The smallest effective cpuset among this process's cgroups, or 0 when there is none to read.
unsigned cgroup_cpus() {
  FILE *f = std::fopen("/proc/self/cgroup", "r");
  if (!f) return 0;
  char line[4096];
  unsigned best = 0;
  while (std::fgets(line, sizeof line, f)) {
    for (const CpusetFile &where : kCpusetFiles) {
      const char *p = std::strstr(line, where.prefix);
      // v1 lines are "N:controllers:path"; v2's is "0::path".
      if (!p || (where.prefix[0] == '0' ? p != line : p[-1] != ':' && p[-1] != ',')) continue;
      std::string path(p + std::strlen(where.prefix));
      while (!path.empty() && path.back() == '\n') path.pop_back();
      if (const unsigned n = cpuset_cpus(where, path); n && (!best || n < best)) best = n;
    }
  }
  std::fclose(f);
  return best;
}

}  // namespace

unsigned usable_cpus() {
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  unsigned n = online > 0 ? unsigned(online) : 1;
  if (unsigned c = cgroup_cpus(); c && c < n) n = c;
  return n;
}

}  // namespace pamir
