// Memory the node's other processes can map (MPI_Alloc_mem's): each allocation is a memfd of its own,
// mapped shared here, so a window made over it (MPI_Win_create) is reached by plain loads and stores
// from the node's ranks, as MPI_Win_allocate's memory is, instead of cross-memory attach. A peer maps it
// by taking a copy of the descriptor from this process (pidfd_getfd, which needs the same permission as
// cross-memory attach); where that is refused the window takes its other paths.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

namespace pamir {

// An allocation of `bytes` (page-rounded) in node-mappable memory; nullptr when none can be made (the
// caller then allocates ordinary memory). Each holds a descriptor, so at most kNodeAllocations live.
constexpr size_t kNodeAllocations = 256;
void *node_alloc(size_t bytes);
// Frees memory node_alloc gave; false (nothing done) for any other pointer.
bool node_free(void *p);

// Where [p, p + len) lies in a node_alloc allocation of this process: the descriptor to take, the
// offset of p in it and the allocation's size. False when it does not lie in one.
struct NodeRegion {
  int32_t fd;
  uint64_t offset;
  uint64_t bytes;
  uint64_t inode;  // the memfd's, so that a peer checks it took this descriptor and no other
};
bool node_region_of(const void *p, uint64_t len, NodeRegion &out);

// Maps process `pid`'s allocation (its descriptor `fd`, `bytes` long, of inode `inode`) here; nullptr
// when the descriptor cannot be taken, is not that allocation's, or cannot be mapped. Unmap with
// munmap(p, bytes).
void *node_map(pid_t pid, int32_t fd, uint64_t bytes, uint64_t inode);

}  // namespace pamir
