/* An error handler that calls a procedure which fails again on the same communicator, every time: the
 * standard calls the handler again for the nested error, so this recurses without end. The job must end
 * with a message naming the loop and the error's class as exit code, not overflow the stack (the driver
 * checks stderr and the exit code). */
#include <mpi.h>

static void fails_again(MPI_Comm *comm, int *code, ...) {
  (void)code;
  int size = 0, x = 0;
  MPI_Comm_size(*comm, &size);
  MPI_Send(&x, 1, MPI_INT, size + 5, 0, *comm);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Errhandler eh;
  MPI_Comm_create_errhandler(fails_again, &eh);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
  int size = 0, x = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Send(&x, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
