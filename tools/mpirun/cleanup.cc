#include "tools/mpirun/cleanup.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstring>

namespace pamir::mpirun {

std::string shm_prefix(const std::string &nspace) {
  return "pamir-" + std::to_string(::getuid()) + "-" + nspace + "-";
}

int remove_shm_files(const std::string &dir, const std::string &prefix) {
  DIR *d = ::opendir(dir.c_str());
  if (d == nullptr) return 0;
  int removed = 0;
  while (dirent *e = ::readdir(d)) {
    if (std::strncmp(e->d_name, prefix.c_str(), prefix.size()) != 0) continue;
    if (::unlinkat(::dirfd(d), e->d_name, 0) == 0) ++removed;
  }
  ::closedir(d);
  return removed;
}

}  // namespace pamir::mpirun
