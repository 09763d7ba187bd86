// Environment inquiries: time, memory, addresses.
#include <time.h>

#include <cstdlib>

#include "mpi/check.h"
#include "pami/clock.h"
#include "pami/node_memory.h"
#include "pamir_alias.h"

using namespace pamir::mpi;

double PMPI_Wtime(void) {
  return pamir::wtime();
}
PAMIR_ALIAS(Wtime);

double PMPI_Wtick(void) {
  if (pamir::g_wall.sec_per_tick > 0) return pamir::g_wall.sec_per_tick;
  struct timespec ts;
  clock_getres(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}
PAMIR_ALIAS(Wtick);

int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr) {
  PAMIR_ENTER("MPI_Alloc_mem");
  (void)info;  // no hints are interpreted yet
  PAMIR_CHECK(nullptr, size >= 0, MPI_ERR_ARG, "negative size %lld", (long long)size);
  PAMIR_CHECK(nullptr, baseptr, MPI_ERR_ARG, "baseptr is NULL");
  // A page or more goes where the node's other ranks can map it (a window over it is then reached by
  // loads and stores); smaller pieces, and any once kNodeAllocations live, come from the heap.
  void *p = size >= 4096 ? pamir::node_alloc(size_t(size)) : nullptr;
  if (!p && posix_memalign(&p, 64, size_t(size ? size : 1)) != 0)
    return raise(nullptr, fn_, MPI_ERR_NO_MEM, "cannot allocate %lld bytes", (long long)size);
  *static_cast<void **>(baseptr) = p;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Alloc_mem);

int PMPI_Free_mem(void *base) {
  PAMIR_ENTER("MPI_Free_mem");
  if (!pamir::node_free(base)) std::free(base);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Free_mem);

int PMPI_Get_address(const void *location, MPI_Aint *address) {
  PAMIR_ENTER("MPI_Get_address");
  PAMIR_CHECK(nullptr, address, MPI_ERR_ARG, "address is NULL");
  *address = reinterpret_cast<MPI_Aint>(location);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Get_address);

MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp) {
  return base + disp;
}
PAMIR_ALIAS(Aint_add);

MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) {
  return addr1 - addr2;
}
PAMIR_ALIAS(Aint_diff);

int PMPI_Pcontrol(const int level, ...) {
  (void)level;  // no profiling layer of its own: MPI defines this as a hook for tools
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Pcontrol);
