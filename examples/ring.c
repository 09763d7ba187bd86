/* ring: a token goes around the ranks of MPI_COMM_WORLD. On the first lap each rank prints its rank, the
 * size and its host while it holds the token (so the lines come out in rank order), adds its rank to the
 * token and passes it on; rank 0 checks the sum. Then the token makes more laps and rank 0 prints the
 * time per hop.
 *
 *   mpicc -o ring examples/ring.c && mpirun -n 4 ./ring [LAPS]      (LAPS defaults to 1000)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, len;
  char host[MPI_MAX_PROCESSOR_NAME];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Get_processor_name(host, &len);
  int laps = argc > 1 ? atoi(argv[1]) : 1000;
  if (laps < 0) laps = 0;
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;

  /* First lap: print while holding the token. */
  long token = 0;
  if (rank != 0) MPI_Recv(&token, 1, MPI_LONG, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  printf("rank %d of %d on %s\n", rank, size, host);
  fflush(stdout);
  token += rank;
  if (size == 1) {
    /* A ring of one: rank 0 is its own neighbour. */
  } else if (rank == 0) {
    MPI_Send(&token, 1, MPI_LONG, next, 0, MPI_COMM_WORLD);
    MPI_Recv(&token, 1, MPI_LONG, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Send(&token, 1, MPI_LONG, next, 0, MPI_COMM_WORLD);
  }
  int ok = 1;
  if (rank == 0) {
    long expect = (long)size * (size - 1) / 2;
    ok = token == expect;
    printf("ring: the token went around %d rank%s: sum of ranks %ld (%s)\n", size, size == 1 ? "" : "s",
           token, ok ? "correct" : "WRONG");
    fflush(stdout);
  }

  /* Timed laps. */
  if (size > 1 && laps > 0) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int lap = 0; lap < laps; ++lap) {
      if (rank == 0) {
        MPI_Send(&token, 1, MPI_LONG, next, 1, MPI_COMM_WORLD);
        MPI_Recv(&token, 1, MPI_LONG, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(&token, 1, MPI_LONG, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&token, 1, MPI_LONG, next, 1, MPI_COMM_WORLD);
      }
    }
    double t = MPI_Wtime() - t0;
    if (rank == 0)
      printf("ring: %d laps of %d hops in %.3f ms: %.2f us per hop\n", laps, size, t * 1e3,
             t * 1e6 / ((double)laps * size));
  }
  MPI_Finalize();
  return ok ? 0 : 1;
}
