/* MPI_ERRORS_ARE_FATAL: an invalid rank ends the job with a message naming the function, the error
 * class and the reason (the driver checks stderr and the exit code). */
#include <mpi.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int x = 0, size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Send(&x, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
