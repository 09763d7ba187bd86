/* A rank that dies mid-run: rank 1 kills itself with SIGKILL (or exits without MPI_Finalize with
 * argv[1] = "exit") while the others wait in a receive. The launcher must end the job. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, x = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  /* Traffic first, so the shared-memory rings exist when the rank dies. */
  MPI_Allreduce(&rank, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 1) {
    if (argc > 1 && strcmp(argv[1], "exit") == 0) _exit(3);
    raise(SIGKILL);
  }
  MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Finalize();
  return 0;
}
