/* The buffers of buffered sends (MPI 4.1): a communicator's own buffer (MPI_Comm_attach_buffer), which
 * its sends use before the process's; MPI_Buffer_flush/_iflush and MPI_Comm_flush_buffer/_iflush_buffer
 * waiting for rendezvous-sized messages the receiver takes only later; MPI_BUFFER_AUTOMATIC; detach
 * returning what was attached; a communicator freed while its buffered message is still leaving; and
 * the errors. Every message's contents checked. */
#include "check.h"

static int rank, size;

enum { kBig = 1 << 20 }; /* goes by rendezvous: leaves only once the receiver takes it */

static void fill(int *p, int n, int seed) {
  for (int i = 0; i < n; ++i) p[i] = seed * 7919 + i;
}
static int same(const int *p, int n, int seed) {
  for (int i = 0; i < n; ++i)
    if (p[i] != seed * 7919 + i) return 0;
  return 1;
}

/* A communicator's own buffer, sized for exactly its messages, while the process has none. */
static void comm_buffer(void) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Comm d;
  MPI_Comm_dup(MPI_COMM_WORLD, &d);
  int one;
  MPI_Pack_size(100, MPI_INT, d, &one);
  const int bytes = 3 * (one + MPI_BSEND_OVERHEAD);
  char *buf = malloc((size_t)bytes);
  MPI_Comm_attach_buffer(d, buf, bytes);
  int out[3][100], in[3][100];
  for (int k = 0; k < 3; ++k) {
    fill(out[k], 100, rank * 10 + k);
    MPI_Bsend(out[k], 100, MPI_INT, right, k, d);
  }
  for (int k = 0; k < 3; ++k) {
    MPI_Recv(in[k], 100, MPI_INT, left, k, d, MPI_STATUS_IGNORE);
    CHECK(same(in[k], 100, left * 10 + k), "message %d through the communicator's buffer", k);
  }
  /* MPI_COMM_WORLD has no buffer of its own and the process none: MPI_ERR_BUFFER. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK(err_class(MPI_Bsend(out[0], 1, MPI_INT, right, 9, MPI_COMM_WORLD)) == MPI_ERR_BUFFER,
        "no process buffer attached");
  MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN);
  CHECK(err_class(MPI_Comm_attach_buffer(d, buf, bytes)) == MPI_ERR_BUFFER, "a second attach");
  void *back = NULL;
  int back_size = -1;
  MPI_Comm_detach_buffer(d, &back, &back_size);
  CHECK(back == buf && back_size == bytes, "detach gives the buffer back (%d bytes)", back_size);
  CHECK(err_class(MPI_Comm_detach_buffer(d, &back, &back_size)) == MPI_ERR_BUFFER, "detach with none");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  free(buf);
  MPI_Comm_free(&d);
}

/* Flushes wait for a rendezvous message the receiver takes after a barrier. */
static void flushes(int use_comm) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Comm d;
  MPI_Comm_dup(MPI_COMM_WORLD, &d);
  const int bytes = kBig * (int)sizeof(int) + MPI_BSEND_OVERHEAD;
  char *buf = malloc((size_t)bytes);
  if (use_comm)
    MPI_Comm_attach_buffer(d, buf, bytes);
  else
    MPI_Buffer_attach(buf, bytes);
  int *out = malloc(sizeof(int) * kBig), *in = malloc(sizeof(int) * kBig);
  fill(out, kBig, rank);
  MPI_Bsend(out, kBig, MPI_INT, right, 1, d);
  fill(out, kBig, -1); /* the buffered copy is what travels */
  MPI_Request r;
  if (use_comm)
    MPI_Comm_iflush_buffer(d, &r);
  else
    MPI_Buffer_iflush(&r);
  int flag = -1;
  MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
  /* (A send to itself may be copied at once, so one rank alone proves nothing here.) */
  CHECK(flag == 0 || size == 1, "%s iflush before the receiver took the message: flag %d",
        use_comm ? "comm" : "process", flag);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Recv(in, kBig, MPI_INT, left, 1, d, MPI_STATUS_IGNORE);
  CHECK(same(in, kBig, left), "the buffered 4 MiB message");
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  CHECK(r == MPI_REQUEST_NULL, "the flush completed");
  /* A blocking flush of an empty buffer returns at once; detach then too. */
  if (use_comm)
    MPI_Comm_flush_buffer(d);
  else
    MPI_Buffer_flush();
  void *back;
  int back_size;
  if (use_comm)
    MPI_Comm_detach_buffer(d, &back, &back_size);
  else
    MPI_Buffer_detach(&back, &back_size);
  CHECK(back == buf && back_size == bytes, "detach after the flush");
  free(buf);
  free(out);
  free(in);
  MPI_Comm_free(&d);
}

/* MPI_BUFFER_AUTOMATIC: any number and size of messages, no space to size. */
static void automatic(void) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0);
  enum { kMsgs = 40 };
  int *out = malloc(sizeof(int) * 4096), *in = malloc(sizeof(int) * 4096);
  for (int k = 0; k < kMsgs; ++k) {
    const int n = 1 + (k * 97) % 4096;
    fill(out, n, rank * 100 + k);
    MPI_Bsend(out, n, MPI_INT, right, k, MPI_COMM_WORLD);
  }
  for (int k = 0; k < kMsgs; ++k) {
    const int n = 1 + (k * 97) % 4096;
    MPI_Recv(in, n, MPI_INT, left, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(same(in, n, left * 100 + k), "automatic message %d", k);
  }
  void *back = NULL;
  int back_size = -1;
  MPI_Buffer_detach(&back, &back_size);
  CHECK(back == MPI_BUFFER_AUTOMATIC && back_size == 0, "detach of MPI_BUFFER_AUTOMATIC: %p %d", back,
        back_size);
  free(out);
  free(in);
}

/* A communicator freed while its buffered message still waits for the receiver: rank 0 sends to rank 1
 * and frees its communicator at once; rank 1 takes the message only after a barrier. */
static void freed_while_leaving(void) {
  if (size < 2) return;
  MPI_Comm d;
  MPI_Comm_dup(MPI_COMM_WORLD, &d);
  const int bytes = kBig * (int)sizeof(int) + MPI_BSEND_OVERHEAD;
  char *buf = malloc((size_t)bytes);
  int *data = malloc(sizeof(int) * kBig);
  if (rank == 0) {
    MPI_Comm_attach_buffer(d, buf, bytes);
    fill(data, kBig, 50);
    MPI_Bsend(data, kBig, MPI_INT, 1, 3, d);
    MPI_Comm_free(&d); /* its buffer's bookkeeping outlives it until the message has left */
    MPI_Barrier(MPI_COMM_WORLD);
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
      MPI_Recv(data, kBig, MPI_INT, 0, 3, d, MPI_STATUS_IGNORE);
      CHECK(same(data, kBig, 50), "received after the sender freed its communicator");
    }
    MPI_Comm_free(&d);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  free(data);
  free(buf);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  comm_buffer();
  flushes(0);
  flushes(1);
  automatic();
  freed_while_leaving();
  return finish("bsend_buffers");
}
