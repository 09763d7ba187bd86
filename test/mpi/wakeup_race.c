/* Many short waits that each end in a sleep, so that a ringer and a sleeper race for the doorbell tens of
 * thousands of times (doorbell.h: the fence, or the sleepers' barrier that replaces it). run.sh runs it
 * with every wait sleeping at once and no sleep ending on its own: a lost wakeup hangs the job into the
 * timeout. Each rank exchanges with its ring neighbours: ping-pongs of 0 to 64 bytes, then windows of
 * nonblocking sends in both directions, every payload checked. Runs with 2 to 4 ranks; the first argument
 * is the number of ping-pongs (default 20000). With the ringers' fence removed and no barrier in its place,
 * a pair hung after 110,000 to 370,000 ping-pongs in five runs. */
#include <stdint.h>

#include "check.h"

enum { kWindows = 2000, kWindow = 16 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long pingpongs = argc > 1 ? atol(argv[1]) : 20000;
  if (size < 2) return finish("wakeup_race");
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;

  /* Ping-pong pairs (0,1), (2,3): the one waiting sleeps while the other sends. With an odd number of
   * ranks the last has no partner and skips this part. */
  const int partner = rank ^ 1;
  int bad = 0;
  if (partner < size) {
    uint32_t out[16], in[16];
    for (long j = 0; j < pingpongs; ++j) {
      const int i = (int)(j & 0x3fffffff);
      const int n = i % 17; /* 0 to 64 bytes */
      const int first = (rank & 1) == (i & 1);
      if (first) {
        for (int k = 0; k < n; ++k) out[k] = (uint32_t)(i * 31 + k + rank);
        MPI_Send(out, n, MPI_UINT32_T, partner, i & 0xff, MPI_COMM_WORLD);
        MPI_Recv(in, n, MPI_UINT32_T, partner, i & 0xff, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int k = 0; k < n; ++k) bad += in[k] != (uint32_t)(i * 17 + k + partner);
      } else {
        MPI_Recv(in, n, MPI_UINT32_T, partner, i & 0xff, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int k = 0; k < n; ++k) bad += in[k] != (uint32_t)(i * 31 + k + partner);
        for (int k = 0; k < n; ++k) out[k] = (uint32_t)(i * 17 + k + rank);
        MPI_Send(out, n, MPI_UINT32_T, partner, i & 0xff, MPI_COMM_WORLD);
      }
    }
    CHECK(bad == 0, "%d words of the ping-pongs with rank %d were wrong", bad, partner);
  }

  /* Windows around the ring: every rank sends to its right and receives from its left at once, so
   * senders and sleepers of three or four processes interleave. */
  bad = 0;
  for (int w = 0; w < kWindows; ++w) {
    uint64_t out[kWindow], in[kWindow];
    MPI_Request reqs[2 * kWindow];
    for (int k = 0; k < kWindow; ++k) {
      MPI_Irecv(&in[k], 1, MPI_UINT64_T, left, k, MPI_COMM_WORLD, &reqs[k]);
      out[k] = (uint64_t)w << 32 | (uint64_t)rank << 8 | (uint64_t)k;
    }
    for (int k = 0; k < kWindow; ++k)
      MPI_Isend(&out[k], 1, MPI_UINT64_T, right, k, MPI_COMM_WORLD, &reqs[kWindow + k]);
    MPI_Waitall(2 * kWindow, reqs, MPI_STATUSES_IGNORE);
    for (int k = 0; k < kWindow; ++k) bad += in[k] != ((uint64_t)w << 32 | (uint64_t)left << 8 | (uint64_t)k);
  }
  CHECK(bad == 0, "%d messages of the windows from rank %d were wrong", bad, left);
  return finish("wakeup_race");
}
