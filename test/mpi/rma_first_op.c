/* Operations issued the moment a window's creation returns, with no other synchronisation: 200 windows
 * (MPI_Win_create on malloc'd memory, so that a target off the node or refusing cross-memory attach is
 * served by packets), each rank at once taking a shared lock on the next rank, getting its 8 values and
 * adding its rank + 1 to a counter there with MPI_Fetch_and_op, then unlocking; after a barrier each
 * rank checks its counter. A target still inside its creation when the first packet arrives must not
 * lose it (issue 21: it was dropped, and the origin's flush waited for ever; mpirun's --timeout then
 * fails the case). Runs with 2 to 4 ranks (any count of 2 or more works).
 *
 * Passed on MPICH 4.0.2 (Debian) and on Open MPI 4.1.4 (osc/rdma), 2-4 ranks. */
#include <stdint.h>

#include "check.h"

#define WINDOWS 200

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "needs 2 or more ranks, has %d", size);
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  long long *base = malloc(16 * sizeof(long long));
  for (int k = 0; k < WINDOWS && size >= 2; ++k) {
    for (int i = 0; i < 8; ++i) base[i] = (long long)rank * 1000000 + k * 100 + i;
    base[8] = 0;
    MPI_Win win;
    MPI_Win_create(base, 16 * sizeof(long long), sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    long long got[8] = {0}, add = rank + 1, old = -1;
    MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win);
    MPI_Get(got, 8, MPI_LONG_LONG, next, 0, 8, MPI_LONG_LONG, win);
    MPI_Fetch_and_op(&add, &old, MPI_LONG_LONG, next, 8, MPI_SUM, win);
    MPI_Win_unlock(next, win);
    int bad = -1;
    for (int i = 0; i < 8 && bad < 0; ++i)
      if (got[i] != (long long)next * 1000000 + k * 100 + i) bad = i;
    CHECK(bad < 0, "window %d: value %d from rank %d reads %lld", k, bad, next, bad < 0 ? 0 : got[bad]);
    CHECK(old == 0, "window %d: the counter at rank %d was %lld before this rank's add", k, next, old);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(base[8] == prev + 1, "window %d: counter %lld, want %d from rank %d", k, base[8], prev + 1, prev);
    MPI_Win_free(&win);
  }
  free(base);
  return finish("rma_first_op");
}
