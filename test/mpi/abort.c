/* MPI_Abort from one rank ends the whole job with its code; the others are blocked in a receive. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, x;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == size - 1) MPI_Abort(MPI_COMM_WORLD, 7);
  MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  printf("rank %d should not get here\n", rank);
  MPI_Finalize();
  return 0;
}
