/* MPI's non-overtaking rule under random traffic: every rank but 0 sends a seeded random stream of
 * messages (random tags and sizes across every protocol) to rank 0, which receives them with random
 * mixes of specific and wildcard sources and tags. Each received message must be the earliest one not
 * yet received from its sender that the receive accepts. */
#include <string.h>

#include "check.h"

enum { MSGS = 400, TAGS = 4, MAXLEN = 40000 };

typedef struct {
  int tag;
  int len; /* ints */
} Msg;

static unsigned lcg(unsigned *s) {
  return *s = *s * 1103515245u + 12345u, (*s >> 8);
}

static void plan(int sender, Msg *m) {
  unsigned s = 977u * (unsigned)sender + 13u;
  for (int i = 0; i < MSGS; ++i) {
    m[i].tag = (int)(lcg(&s) % TAGS);
    unsigned k = lcg(&s) % 10;
    m[i].len = k < 6   ? (int)(lcg(&s) % 16) + 1
               : k < 9 ? (int)(lcg(&s) % 2000) + 1
                       : (int)(lcg(&s) % MAXLEN) + 1;
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  static Msg msgs[8][MSGS];
  for (int s = 1; s < size; ++s) plan(s, msgs[s]);
  int *buf = malloc(sizeof(int) * MAXLEN);
  if (rank != 0) {
    MPI_Request reqs[MSGS];
    int **bufs = malloc(sizeof(int *) * MSGS);
    for (int i = 0; i < MSGS; ++i) {
      bufs[i] = malloc(sizeof(int) * (size_t)msgs[rank][i].len);
      for (int j = 0; j < msgs[rank][i].len; ++j) bufs[i][j] = rank * 1000000 + i * 1000 + j % 1000;
      /* Mix blocking and nonblocking sends; both keep order. */
      if (i % 3 == 0) {
        MPI_Send(bufs[i], msgs[rank][i].len, MPI_INT, 0, msgs[rank][i].tag, MPI_COMM_WORLD);
        reqs[i] = MPI_REQUEST_NULL;
      } else {
        MPI_Isend(bufs[i], msgs[rank][i].len, MPI_INT, 0, msgs[rank][i].tag, MPI_COMM_WORLD, &reqs[i]);
      }
    }
    MPI_Waitall(MSGS, reqs, MPI_STATUSES_IGNORE);
    for (int i = 0; i < MSGS; ++i) free(bufs[i]);
    free(bufs);
  } else {
    int received[8][MSGS];
    memset(received, 0, sizeof received);
    int remaining = (size - 1) * MSGS;
    unsigned s = 4242u;
    while (remaining > 0) {
      /* Pick a message still to come, then maybe widen the source and/or the tag. */
      int src, idx;
      do {
        src = 1 + (int)(lcg(&s) % (unsigned)(size - 1));
        idx = (int)(lcg(&s) % MSGS);
      } while (received[src][idx]);
      int want_src = (lcg(&s) % 2) ? MPI_ANY_SOURCE : src;
      int want_tag = (lcg(&s) % 2) ? MPI_ANY_TAG : msgs[src][idx].tag;
      MPI_Status st;
      MPI_Recv(buf, MAXLEN, MPI_INT, want_src, want_tag, MPI_COMM_WORLD, &st);
      int from = st.MPI_SOURCE, seq = (buf[0] - from * 1000000) / 1000, count;
      MPI_Get_count(&st, MPI_INT, &count);
      CHECK(from >= 1 && from < size && seq >= 0 && seq < MSGS, "bad header from %d seq %d", from, seq);
      if (!(from >= 1 && from < size && seq >= 0 && seq < MSGS)) break;
      CHECK(!received[from][seq], "message %d from %d received twice", seq, from);
      CHECK(count == msgs[from][seq].len && st.MPI_TAG == msgs[from][seq].tag, "length/tag of %d from %d",
            seq, from);
      int intact = 1;
      for (int j = 0; j < count; ++j) intact &= buf[j] == from * 1000000 + seq * 1000 + j % 1000;
      CHECK(intact, "payload of message %d from %d", seq, from);
      /* Non-overtaking: no earlier message from `from` that this receive accepts may still be pending. */
      for (int e = 0; e < seq; ++e)
        if (!received[from][e] && (want_tag == MPI_ANY_TAG || msgs[from][e].tag == want_tag)) {
          CHECK(0, "message %d from %d overtook message %d (receive src %d tag %d)", seq, from, e, want_src,
                want_tag);
          break;
        }
      received[from][seq] = 1;
      --remaining;
    }
    CHECK(remaining == 0, "%d messages never arrived", remaining);
  }
  free(buf);
  return finish("pt2pt_order");
}
