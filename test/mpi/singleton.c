/* Started without a launcher, a program is a singleton of size 1 with working self communication. */
#include "check.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, v = 5, r = 0, flag = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(rank == 0 && size == 1, "rank %d size %d", rank, size);
  MPI_Sendrecv(&v, 1, MPI_INT, 0, 1, &r, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CHECK(r == 5, "self sendrecv %d", r);
  MPI_Allreduce(&v, &r, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(r == 5, "allreduce of one %d", r);
  MPI_Initialized(&flag);
  CHECK(flag, "initialized");
  return finish("singleton");
}
