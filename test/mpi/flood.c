/* Flow control under a flood: every rank but 0 sends rank 0 a long stream of messages (immediate,
 * eager and rendezvous sizes, each filled with its sender and number) with nonblocking sends, while
 * rank 0 does not receive until the others have started all of theirs. Then rank 0 receives
 * everything with wildcard sources, and each sender's messages must arrive complete and in order:
 * nothing lost, nothing duplicated, whatever the device's credits or rings held back. */
#include "check.h"

enum { PER_SENDER = 3000, BIG_EVERY = 100, SMALL = 8, MEDIUM = 3000, BIG = 100000 };

static int length_of(int i) {
  return i % BIG_EVERY == BIG_EVERY - 1 ? BIG : i % 3 == 2 ? MEDIUM : SMALL;
}

static void fill(int *buf, int n, int src, int i) {
  for (int k = 0; k < n; ++k) buf[k] = src * 1000003 + i * 31 + k;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank != 0) {
    static int bufs[PER_SENDER][SMALL];
    static int medium[PER_SENDER / 3 + 1][MEDIUM];
    static int big[PER_SENDER / BIG_EVERY + 1][BIG];
    static MPI_Request reqs[PER_SENDER];
    for (int i = 0; i < PER_SENDER; ++i) {
      const int n = length_of(i);
      int *b = n == BIG ? big[i / BIG_EVERY] : n == MEDIUM ? medium[i / 3] : bufs[i];
      fill(b, n, rank, i);
      MPI_Isend(b, n, MPI_INT, 0, i % 7, MPI_COMM_WORLD, &reqs[i]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Waitall(PER_SENDER, reqs, MPI_STATUSES_IGNORE);
  } else {
    /* Everything arrives unexpected: the others have posted their sends before this rank receives. */
    MPI_Barrier(MPI_COMM_WORLD);
    static int buf[BIG];
    int next[64] = {0};
    long bad = 0;
    for (long m = 0; m < (long)(size - 1) * PER_SENDER; ++m) {
      MPI_Status st;
      MPI_Recv(buf, BIG, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
      const int src = st.MPI_SOURCE, i = next[src]++;
      int count = 0;
      MPI_Get_count(&st, MPI_INT, &count);
      if (count != length_of(i) || st.MPI_TAG != i % 7) {
        ++bad;
        continue;
      }
      for (int k = 0; k < count; ++k) bad += buf[k] != src * 1000003 + i * 31 + k;
    }
    CHECK(bad == 0, "%ld wrong messages or elements", bad);
    for (int s = 1; s < size; ++s) CHECK(next[s] == PER_SENDER, "rank %d: %d messages", s, next[s]);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("flood: %d checks passed, %d failed\n", checks_passed, checks_failed);
  MPI_Finalize();
  return checks_failed != 0;
}
