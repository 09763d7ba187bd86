/* A recorded halo exchange on the torus: every rank sends 64 bytes to each neighbour of a ring with
 * persistent requests started together (MPI_Startall), ITERS times (argv[1], default 100). The data
 * changes at every start, so each check shows that the engine read the send buffer of that start; the
 * driver compares the torus.descriptors each rank wrote at two iteration counts (a replay writes none).
 * With "barrier" (argv[2]) a barrier follows each exchange: a neighbour then sends only once this rank's
 * receives have completed, so every message finds its receive's landing open, and the driver checks
 * that every receive completed from its landing. */
#include <stdlib.h>
#include <string.h>

#include "../mpi/check.h"

enum { N = 16 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iters = argc > 1 ? atoi(argv[1]) : 100;
  const int barrier = argc > 2 && strcmp(argv[2], "barrier") == 0;
  const int left = (rank + size - 1) % size, right = (rank + 1) % size;
  int to_left[N], to_right[N], from_left[N], from_right[N];
  MPI_Request req[4];
  MPI_Recv_init(from_left, N, MPI_INT, left, 1, MPI_COMM_WORLD, &req[0]);
  MPI_Recv_init(from_right, N, MPI_INT, right, 2, MPI_COMM_WORLD, &req[1]);
  MPI_Send_init(to_right, N, MPI_INT, right, 1, MPI_COMM_WORLD, &req[2]);
  MPI_Send_init(to_left, N, MPI_INT, left, 2, MPI_COMM_WORLD, &req[3]);
  long bad = 0;
  for (int it = 0; it < iters; ++it) {
    for (int i = 0; i < N; ++i) {
      to_right[i] = rank * 1000000 + it * 100 + i;
      to_left[i] = -(rank * 1000000 + it * 100 + i);
    }
    MPI_Startall(4, req);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    if (barrier) MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < N; ++i) {
      bad += from_left[i] != left * 1000000 + it * 100 + i;
      bad += from_right[i] != -(right * 1000000 + it * 100 + i);
    }
  }
  CHECK(bad == 0, "%ld values wrong over %d exchanges", bad, iters);
  for (int i = 0; i < 4; ++i) MPI_Request_free(&req[i]);
  return finish("replay");
}
