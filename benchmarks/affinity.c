/*
 * Prints the CPUs each rank may run on, so a comparison can show that every implementation bound
 * its ranks the same way. Linux-only (sched_getaffinity); not a benchmark.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  int rank, nranks, cpu, r;
  char mine[256] = "", *all = NULL;
  cpu_set_t set;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    size_t n = 0;
    for (cpu = 0; cpu < CPU_SETSIZE && n + 8 < sizeof mine; cpu++)
      if (CPU_ISSET(cpu, &set)) n += (size_t)snprintf(mine + n, sizeof mine - n, "%s%d", n ? "," : "", cpu);
  } else {
    strcpy(mine, "?");
  }
  /* Point-to-point only (no MPI_Gather), so it runs on an implementation without collectives. */
  if (rank == 0) {
    all = malloc((size_t)nranks * 256);
    if (all == NULL) MPI_Abort(MPI_COMM_WORLD, 1);
    memcpy(all, mine, 256);
    for (r = 1; r < nranks; r++)
      MPI_Recv(all + r * 256, 256, MPI_CHAR, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("# cpus allowed per rank:");
    for (r = 0; r < nranks; r++) printf(" rank%d=[%s]", r, all + r * 256);
    printf("\n");
    free(all);
  } else {
    MPI_Send(mine, 256, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
