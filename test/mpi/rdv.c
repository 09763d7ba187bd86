/* The rendezvous protocol (seed 001) as a program sees it: large messages in both directions with the
 * receive posted first and posted late (an unexpected request-to-send), synchronous and nonblocking sends,
 * probe and matched probe of a request-to-send, truncation, and with `fault` as argument (PAMIR_FAULT=
 * rdma-read) a failed read reported as MPI_ERR_OTHER on both sides without a hang. Run it with a send
 * table that has rdma above 16 KiB; with TEST_REFUSE_CMA=1 the reads are refused and the data must still
 * arrive. Sizes and buffers are odd on purpose: unaligned addresses, lengths that are no multiple of
 * anything. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int rank, size;

static void fill(unsigned char *b, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; ++i) b[i] = (unsigned char)(seed * 131u + i * 7u + (i >> 9));
}
static int intact(const unsigned char *b, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; ++i)
    if (b[i] != (unsigned char)(seed * 131u + i * 7u + (i >> 9))) return 0;
  return 1;
}

static const size_t sizes[] = {16385, 65536 + 3, 1 << 20, (8 << 20) + 1};
enum { NSIZES = sizeof sizes / sizeof sizes[0] };

/* Ring: every rank sends to the next and receives from the previous, posted first or posted late. */
static void ring(unsigned char *sbuf, unsigned char *rbuf) {
  const int to = (rank + 1) % size, from = (rank + size - 1) % size;
  for (int late = 0; late < 2; ++late)
    for (int k = 0; k < NSIZES; ++k) {
      const size_t n = sizes[k];
      const unsigned seed = (unsigned)(rank * 10 + k + 100 * late);
      fill(sbuf, n, seed);
      memset(rbuf, 0, n);
      MPI_Request rq = MPI_REQUEST_NULL, sq;
      MPI_Status st;
      if (!late) MPI_Irecv(rbuf, (int)n, MPI_BYTE, from, k, MPI_COMM_WORLD, &rq);
      if (k % 2)
        MPI_Issend(sbuf, (int)n, MPI_BYTE, to, k, MPI_COMM_WORLD, &sq);
      else
        MPI_Isend(sbuf, (int)n, MPI_BYTE, to, k, MPI_COMM_WORLD, &sq);
      if (late) {
        /* The request-to-send is unexpected by now; a probe sees its whole length. */
        MPI_Probe(from, k, MPI_COMM_WORLD, &st);
        int count = -1;
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK(count == (int)n, "probe of a request-to-send: count %d, want %zu", count, n);
        MPI_Irecv(rbuf, (int)n, MPI_BYTE, from, k, MPI_COMM_WORLD, &rq);
      }
      MPI_Wait(&rq, &st);
      MPI_Wait(&sq, MPI_STATUS_IGNORE);
      int count = -1;
      MPI_Get_count(&st, MPI_BYTE, &count);
      CHECK(count == (int)n && intact(rbuf, n, (unsigned)(from * 10 + k + 100 * late)),
            "%zu bytes from %d (%s): count %d", n, from, late ? "posted late" : "posted first", count);
    }
}

/* A matched probe takes a request-to-send out of the queue; MPI_Mrecv then pulls it. A receive buffer
 * smaller than the message gets MPI_ERR_TRUNCATE and exactly its own length of data. */
static void mprobe_and_truncate(unsigned char *sbuf, unsigned char *rbuf) {
  if (size < 2 || rank > 1) return;
  const size_t n = (1 << 20) + 5;
  if (rank == 0) {
    fill(sbuf, n, 7);
    MPI_Send(sbuf, (int)n, MPI_BYTE, 1, 50, MPI_COMM_WORLD);
    MPI_Send(sbuf, (int)n, MPI_BYTE, 1, 51, MPI_COMM_WORLD);
  } else {
    MPI_Message msg;
    MPI_Status st;
    MPI_Mprobe(0, 50, MPI_COMM_WORLD, &msg, &st);
    memset(rbuf, 0, n);
    MPI_Mrecv(rbuf, (int)n, MPI_BYTE, &msg, &st);
    CHECK(intact(rbuf, n, 7), "matched receive of a request-to-send");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const size_t cap = 100000;
    memset(rbuf, 0, n);
    int rc = MPI_Recv(rbuf, (int)cap, MPI_BYTE, 0, 51, MPI_COMM_WORLD, &st);
    CHECK(err_class(rc) == MPI_ERR_TRUNCATE, "truncated rendezvous: class %d", err_class(rc));
    CHECK(intact(rbuf, cap, 7) && rbuf[cap] == 0, "a truncated rendezvous fills exactly the buffer");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  }
}

/* The send completes only when the receiver acknowledges: while rank 1 has not posted its receive, MPI_Test
 * on rank 0's MPI_Isend stays false (an eager protocol would complete it at once). Not where reads are
 * refused (TEST_REFUSE_CMA=1) or turned off (PAMIR_SHM_CMA=0): large messages then go through the rings,
 * and the receiver's progress may drain them as unexpected before it posts the receive, completing the
 * send as an eager one may. */
static void delayed_ack(unsigned char *sbuf, unsigned char *rbuf) {
  const char *refused = getenv("TEST_REFUSE_CMA"), *cma = getenv("PAMIR_SHM_CMA");
  if (size < 2 || rank > 1 || (refused && strcmp(refused, "1") == 0) || (cma && strcmp(cma, "0") == 0))
    return;
  const size_t n = 1 << 20;
  int go = 1;
  if (rank == 0) {
    fill(sbuf, n, 9);
    MPI_Request rq;
    int flag = 0, tests = 0;
    MPI_Isend(sbuf, (int)n, MPI_BYTE, 1, 70, MPI_COMM_WORLD, &rq);
    for (; tests < 2000 && !flag; ++tests) MPI_Test(&rq, &flag, MPI_STATUS_IGNORE);
    CHECK(!flag, "the send completed after %d tests, before the receiver posted its receive", tests);
    MPI_Send(&go, 1, MPI_INT, 1, 71, MPI_COMM_WORLD);
    if (!flag) MPI_Wait(&rq, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(&go, 1, MPI_INT, 0, 71, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    memset(rbuf, 0, n);
    MPI_Recv(rbuf, (int)n, MPI_BYTE, 0, 70, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(intact(rbuf, n, 9), "data of the delayed rendezvous");
  }
}

/* PAMIR_FAULT=rdma-read: the read fails; the receive and the send both end with MPI_ERR_OTHER, whose text
 * says why, and small messages still flow afterwards. */
static void fault(unsigned char *sbuf, unsigned char *rbuf) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const size_t n = 1 << 20;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0, rc;
  if (rank == 0) {
    rc = MPI_Send(sbuf, (int)n, MPI_BYTE, 1, 60, MPI_COMM_WORLD);
    MPI_Error_string(rc, text, &len);
    CHECK(err_class(rc) == MPI_ERR_OTHER && strstr(text, "rendezvous read"), "sender: class %d: %s",
          err_class(rc), text);
  } else if (rank == 1) {
    rc = MPI_Recv(rbuf, (int)n, MPI_BYTE, 0, 60, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Error_string(rc, text, &len);
    CHECK(err_class(rc) == MPI_ERR_OTHER && strstr(text, "rendezvous read"), "receiver: class %d: %s",
          err_class(rc), text);
  }
  int v = rank, sum = 0;
  rc = MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(rc == MPI_SUCCESS && sum == size * (size - 1) / 2, "small messages after the failure: %d", sum);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t max = (8 << 20) + 16;
  unsigned char *sraw = malloc(max + 1), *rraw = malloc(max + 1);
  unsigned char *sbuf = sraw + 1, *rbuf = rraw + 1; /* unaligned on both sides */
  if (argc > 1 && strcmp(argv[1], "fault") == 0) {
    fault(sbuf, rbuf);
  } else {
    ring(sbuf, rbuf);
    mprobe_and_truncate(sbuf, rbuf);
    delayed_ack(sbuf, rbuf);
  }
  free(sraw);
  free(rraw);
  return finish("rdv");
}
