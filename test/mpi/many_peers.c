/* Many peers (run.sh: 40 and 64 ranks over ofi, past the 30 and 60 peers that 32 credits per peer fit
 * in the shm and tcp;ofi_rxm providers' receive queues): every rank sends every other rank a message of
 * each protocol's size, all posted at once, and checks what it got; then every rank floods rank 0 with
 * BURST small messages before rank 0 posts a receive, so each sender stops at its (fewer) credits and
 * nothing is lost or reordered. Usage: many_peers */
#include "check.h"

enum { SMALL = 2, MEDIUM = 1500, BIG = 12000, BURST = 100 }; /* ints: 8 B, 6 KB, 48 KB */

static int value(int src, int dst, int kind, int k) {
  return src * 7919 + dst * 104729 + kind * 1000003 + k;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int lens[3] = {SMALL, MEDIUM, BIG};
  int *out[3], *in[3];
  for (int k = 0; k < 3; ++k) {
    out[k] = malloc(sizeof(int) * (size_t)lens[k] * (size_t)size);
    in[k] = malloc(sizeof(int) * (size_t)lens[k] * (size_t)size);
  }
  MPI_Request *rq = malloc(sizeof(MPI_Request) * 6 * (size_t)size);
  int n = 0;
  for (int p = 0; p < size; ++p) {
    if (p == rank) continue;
    for (int k = 0; k < 3; ++k) {
      int *o = out[k] + (size_t)p * (size_t)lens[k], *i = in[k] + (size_t)p * (size_t)lens[k];
      for (int j = 0; j < lens[k]; ++j) {
        o[j] = value(rank, p, k, j);
        i[j] = -1;
      }
      MPI_Irecv(i, lens[k], MPI_INT, p, k, MPI_COMM_WORLD, &rq[n++]);
      MPI_Isend(o, lens[k], MPI_INT, p, k, MPI_COMM_WORLD, &rq[n++]);
    }
  }
  MPI_Waitall(n, rq, MPI_STATUSES_IGNORE);
  long bad = 0;
  for (int p = 0; p < size; ++p) {
    if (p == rank) continue;
    for (int k = 0; k < 3; ++k)
      for (int j = 0; j < lens[k]; ++j)
        bad += in[k][(size_t)p * (size_t)lens[k] + (size_t)j] != value(p, rank, k, j);
  }
  CHECK(bad == 0, "all-to-all over %d peers: %ld ints wrong", size - 1, bad);

  /* The burst: rank 0 posts nothing until every sender has started all of its sends. */
  static int burst[BURST][SMALL];
  if (rank != 0) {
    MPI_Request b[BURST];
    for (int i = 0; i < BURST; ++i) {
      burst[i][0] = rank;
      burst[i][1] = i;
      MPI_Isend(burst[i], SMALL, MPI_INT, 0, 9, MPI_COMM_WORLD, &b[i]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Waitall(BURST, b, MPI_STATUSES_IGNORE);
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
    int *next = calloc((size_t)size, sizeof(int));
    long wrong = 0;
    for (long m = 0; m < (long)BURST * (size - 1); ++m) {
      int got[SMALL];
      MPI_Status st;
      MPI_Recv(got, SMALL, MPI_INT, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &st);
      wrong += got[0] != st.MPI_SOURCE || got[1] != next[st.MPI_SOURCE]++;
    }
    int short_of = 0;
    for (int p = 1; p < size; ++p) short_of += next[p] != BURST;
    CHECK(wrong == 0 && short_of == 0, "burst from %d senders: %ld out of order or wrong, %d senders short",
          size - 1, wrong, short_of);
    free(next);
  }
  for (int k = 0; k < 3; ++k) {
    free(out[k]);
    free(in[k]);
  }
  free(rq);
  return finish("many_peers");
}
