/* MPMD: `mpirun -n 2 mpmd 0 2 1 : -n 1 -x MPMD_SIDE=b mpmd 1 2 1` starts both applications in one
 * MPI_COMM_WORLD. Each rank is told its application's number and both applications' sizes on its command
 * line, and checks MPI_APPNUM, the world's size and order (the first application's ranks first), its
 * application's own -x, and that the applications talk (a split by application, a reduction over all). */
#include <stdlib.h>

#include "check.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(argc == 4, "%d arguments, want the application's number and both sizes", argc - 1);
  if (argc != 4) return finish("mpmd");
  const int want_app = atoi(argv[1]), n0 = atoi(argv[2]), n1 = atoi(argv[3]);
  CHECK(size == n0 + n1, "the world has %d ranks, want %d + %d", size, n0, n1);
  int *appnum = NULL, flag = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
  CHECK(flag && *appnum == want_app, "MPI_APPNUM is %d, want %d", flag ? *appnum : -1, want_app);
  const char *side = getenv("MPMD_SIDE");
  CHECK((want_app == 1) == (side != NULL && strcmp(side, "b") == 0), "application %d sees MPMD_SIDE=%s",
        want_app, side ? side : "(unset)");

  MPI_Comm mine;
  MPI_Comm_split(MPI_COMM_WORLD, flag ? *appnum : 0, rank, &mine);
  int my_size = 0, my_rank = 0;
  MPI_Comm_size(mine, &my_size);
  MPI_Comm_rank(mine, &my_rank);
  CHECK(my_size == (want_app == 0 ? n0 : n1), "application %d has %d ranks", want_app, my_size);
  CHECK(rank == (want_app == 0 ? 0 : n0) + my_rank, "rank %d of the world is rank %d of application %d", rank,
        my_rank, want_app);
  int apps = want_app, sum = 0;
  MPI_Allreduce(&apps, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(sum == n1, "the sum of MPI_APPNUM over the world is %d, want %d", sum, n1);
  MPI_Comm_free(&mine);
  return finish("mpmd");
}
