// MPI_Alloc_mem's node-mappable memory: one memfd per allocation (pami/node_memory.h).
#include "pami/node_memory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <map>

namespace pamir {

namespace {

struct Allocation {
  int fd;
  uint64_t bytes;
  uint64_t inode;
};
// By start address; an allocation lives from node_alloc to node_free.
std::map<uintptr_t, Allocation> &allocations() {
  static auto *m = new std::map<uintptr_t, Allocation>;
  return *m;
}

constexpr uint64_t kPage = 4096;

}  // namespace

void *node_alloc(size_t bytes) {
  if (allocations().size() >= kNodeAllocations) return nullptr;
  const uint64_t len = (uint64_t(bytes ? bytes : 1) + kPage - 1) / kPage * kPage;
  const int fd = ::memfd_create("pamir-alloc-mem", MFD_CLOEXEC);
  if (fd < 0) return nullptr;
  // Pages now, so a full memory is this call's error rather than a SIGBUS later.
  if (::ftruncate(fd, off_t(len)) != 0 || ::fallocate(fd, 0, 0, off_t(len)) != 0) {
    ::close(fd);
    return nullptr;
  }
  struct stat st;
  void *p =
      ::fstat(fd, &st) == 0 ? ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
  if (p == MAP_FAILED) {
    ::close(fd);
    return nullptr;
  }
  allocations()[uintptr_t(p)] = {fd, len, uint64_t(st.st_ino)};
  return p;
}

bool node_free(void *p) {
  auto &m = allocations();
  auto it = m.find(uintptr_t(p));
  if (it == m.end()) return false;
  ::munmap(p, it->second.bytes);
  ::close(it->second.fd);
  m.erase(it);
  return true;
}

bool node_region_of(const void *p, uint64_t len, NodeRegion &out) {
  auto &m = allocations();
  auto it = m.upper_bound(uintptr_t(p));
  if (it == m.begin()) return false;
  --it;
  const uint64_t off = uintptr_t(p) - it->first;
  if (off > it->second.bytes || len > it->second.bytes - off) return false;
  out = {it->second.fd, off, it->second.bytes, it->second.inode};
  return true;
}

void *node_map(pid_t pid, int32_t fd, uint64_t bytes, uint64_t inode) {
  const int pidfd = int(::syscall(SYS_pidfd_open, pid, 0));
  if (pidfd < 0) return nullptr;
  const int mine = int(::syscall(SYS_pidfd_getfd, pidfd, fd, 0));
  const int err = errno;
  ::close(pidfd);
  if (mine < 0) {
    errno = err;
    return nullptr;
  }
  struct stat st;
  void *p = ::fstat(mine, &st) == 0 && uint64_t(st.st_ino) == inode && uint64_t(st.st_size) >= bytes
                ? ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, mine, 0)
                : MAP_FAILED;
  ::close(mine);
  return p == MAP_FAILED ? nullptr : p;
}

}  // namespace pamir
