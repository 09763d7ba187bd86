/* test/multinode/mn_idle.c - a blocked receive costs almost no CPU on a rank that has both devices.
 *
 * Run with 2 ranks per host on 2 hosts (srun -N 2 -n 4 --mpi=pmix, block distribution: ranks 0 and 1 on
 * the first host, 2 and 3 on the second), so that every rank has a shm peer and ofi peers. Rank 0 sleeps
 * outside MPI, then sends to rank 1 (shm) and to ranks 2 and 3 (ofi); each of those sits in MPI_Recv and
 * measures its own process CPU time (every thread) against the wall time of the receive. A rank that
 * sleeps on the fabric's descriptor and the shm doorbell at once wakes only for work; one that naps
 * between polls of the fabric burns a share of a core. Measured here: 0.3-0.4% sleeping on both, 2.1-2.7%
 * napping 200 us at a time (the design before); the bound, 1.5%, tells them apart with room for a loaded
 * machine. Each rank prints its share. Exit 0 iff every check held.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static double seconds(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0, bad = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  const double sleep_s = 3.0, max_share = 0.015;
  if (size < 4) {
    fprintf(stderr, "mn_idle: needs 4 ranks (2 per host), has %d\n", size);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    struct timespec nap = {3, 0};
    while (nanosleep(&nap, &nap) != 0) {
    }
    for (int r = 1; r < 4; ++r) {
      int v = 1000 + r;
      MPI_Send(&v, 1, MPI_INT, r, 7, MPI_COMM_WORLD);
    }
  } else if (rank < 4) {
    int v = 0;
    const double wall0 = seconds(CLOCK_MONOTONIC), cpu0 = seconds(CLOCK_PROCESS_CPUTIME_ID);
    MPI_Recv(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    const double cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu0, wall = seconds(CLOCK_MONOTONIC) - wall0;
    const double share = wall > 0 ? cpu / wall : 1;
    const char *how = rank == 1 ? "shm" : "ofi";
    if (v != 1000 + rank) {
      printf("FAIL rank %d: received %d, expected %d\n", rank, v, 1000 + rank);
      bad = 1;
    }
    if (wall < sleep_s * 0.8) {
      printf("FAIL rank %d: the receive returned after %.2f s, before the message was sent\n", rank, wall);
      bad = 1;
    }
    if (share > max_share) {
      printf(
          "FAIL rank %d on %s: blocked in MPI_Recv (message over %s) it used %.1f%% of a core over %.2f s "
          "(bound %.1f%%)\n",
          rank, host, how, 100 * share, wall, 100 * max_share);
      bad = 1;
    }
    printf("rank %d on %s: MPI_Recv over %s used %.1f%% CPU over %.2f s\n", rank, host, how, 100 * share,
           wall);
    fflush(stdout);
  }
  int any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any ? 1 : 0;
}
