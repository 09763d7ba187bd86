/* A blocked receive must not burn a core: rank 0 sleeps ~3 s (outside MPI) before sending, rank 1 sits in
 * MPI_Recv and measures its own process CPU time (every thread) against the wall time of the receive.
 * The target is under 5% over 10 s; the bound here is 25% so a loaded machine cannot fail it
 * spuriously. Rank 0 prints the measured share on the summary line. Run with 2 ranks (others idle). */
#define _POSIX_C_SOURCE 200809L
#include <string.h>
#include <time.h>

#include "check.h"

static double seconds(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "needs 2 ranks, has %d", size);
  const double sleep_s = 3.0, max_share = 0.25;
  double result[2] = {0, 0}; /* CPU share, wall seconds of the blocked receive */
  MPI_Barrier(MPI_COMM_WORLD);
  if (size >= 2 && rank == 0) {
    struct timespec nap = {3, 0};
    while (nanosleep(&nap, &nap) != 0) {
    }
    int v = 12345;
    MPI_Send(&v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
    MPI_Recv(result, 2, MPI_DOUBLE, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (size >= 2 && rank == 1) {
    int v = 0;
    double wall0 = seconds(CLOCK_MONOTONIC), cpu0 = seconds(CLOCK_PROCESS_CPUTIME_ID);
    MPI_Recv(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu0, wall = seconds(CLOCK_MONOTONIC) - wall0;
    result[0] = wall > 0 ? cpu / wall : 1;
    result[1] = wall;
    CHECK(v == 12345, "received %d", v);
    CHECK(wall > sleep_s * 0.8, "the receive returned after %.2f s, before the message was sent", wall);
    CHECK(result[0] <= max_share, "the blocked receive used %.1f%% of a core over %.2f s (bound %.0f%%)",
          100 * result[0], wall, 100 * max_share);
    MPI_Send(result, 2, MPI_DOUBLE, 0, 8, MPI_COMM_WORLD);
  }
  char name[128];
  snprintf(name, sizeof name, "idle (receiver used %.1f%% CPU over %.2f s in MPI_Recv)", 100 * result[0],
           result[1]);
  return finish(name);
}
