/* PAMIR_CHECK_SIGNATURE=1: a receive whose datatype does not start with the message's type signature
 * fails with MPI_ERR_TYPE, on every path (posted and unexpected, eager and rendezvous, to self); matching
 * signatures, prefixes, different layouts of the same signature and MPI_BYTE pass. Without the setting
 * nothing is checked. Usage: dt_signature on|off (2 ranks). */
#include "check.h"

static int rank;

/* Rank 0 sends `n` elements of st; rank 1 receives `m` of rt (posted first, or after the message arrived)
 * and returns the error class of its receive. */
static int one(MPI_Datatype st, int n, MPI_Datatype rt, int m, int unexpected, void *sbuf, void *rbuf) {
  int cls = MPI_SUCCESS;
  if (rank == 0) {
    MPI_Request r;
    MPI_Isend(sbuf, n, st, 1, 5, MPI_COMM_WORLD, &r);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  } else if (rank == 1) {
    MPI_Request r = MPI_REQUEST_NULL;
    if (!unexpected) MPI_Irecv(rbuf, m, rt, 0, 5, MPI_COMM_WORLD, &r);
    MPI_Barrier(MPI_COMM_WORLD);
    if (unexpected) {
      MPI_Status st_;
      MPI_Probe(0, 5, MPI_COMM_WORLD, &st_); /* arrived, unexpected */
      MPI_Irecv(rbuf, m, rt, 0, 5, MPI_COMM_WORLD, &r);
    }
    cls = err_class(MPI_Wait(&r, MPI_STATUS_IGNORE));
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Bcast(&cls, 1, MPI_INT, 1, MPI_COMM_WORLD);
  return cls;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int on = argc > 1 && strcmp(argv[1], "on") == 0;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int big = 1 << 20; /* 4 MiB of ints: a rendezvous */
  int *a = malloc(sizeof(int) * 2 * (size_t)big), *b = malloc(sizeof(int) * 2 * (size_t)big);
  for (int i = 0; i < 2 * big; ++i) a[i] = i;
  MPI_Datatype vec, pair, pairs;
  MPI_Type_vector(4, 1, 2, MPI_INT, &vec); /* 4 ints, every other */
  MPI_Type_commit(&vec);
  int bl[2] = {1, 1};
  MPI_Aint d[2] = {0, 8};
  MPI_Datatype ts[2] = {MPI_INT, MPI_DOUBLE};
  MPI_Type_create_struct(2, bl, d, ts, &pair); /* int, double */
  MPI_Type_commit(&pair);
  MPI_Type_contiguous(2, pair, &pairs);
  MPI_Type_commit(&pairs);
  const int bad = on ? MPI_ERR_TYPE : MPI_SUCCESS;
  for (int unexpected = 0; unexpected < 2; ++unexpected) {
    const char *how = unexpected ? "unexpected" : "posted";
    int c;
    c = one(MPI_INT, 8, MPI_INT, 8, unexpected, a, b);
    CHECK(c == MPI_SUCCESS, "%s: int into int: class %d", how, c);
    c = one(MPI_INT, 3, MPI_INT, 5, unexpected, a, b);
    CHECK(c == MPI_SUCCESS, "%s: 3 ints into 5 (a prefix): class %d", how, c);
    c = one(vec, 2, MPI_INT, 8, unexpected, a, b);
    CHECK(c == MPI_SUCCESS, "%s: vector of ints into contiguous ints: class %d", how, c);
    c = one(MPI_INT, 4, MPI_FLOAT, 4, unexpected, a, b);
    CHECK(c == bad, "%s: ints into floats: class %d, want %d", how, c, bad);
    c = one(MPI_DOUBLE, 2, MPI_INT, 4, unexpected, a, b);
    CHECK(c == bad, "%s: doubles into ints: class %d, want %d", how, c, bad);
    c = one(pair, 2, pairs, 1, unexpected, a, b);
    CHECK(c == MPI_SUCCESS, "%s: 2 x {int,double} into 1 x 2 x {int,double}: class %d", how, c);
    c = one(pair, 1, MPI_INT, 3, unexpected, a, b);
    CHECK(c == bad, "%s: {int,double} into ints: class %d, want %d", how, c, bad);
    c = one(MPI_BYTE, 16, MPI_INT, 4, unexpected, a, b);
    CHECK(c == MPI_SUCCESS, "%s: bytes into ints (MPI_BYTE matches anything): class %d", how, c);
    c = one(MPI_INT, big, MPI_INT, big, unexpected, a, b);
    CHECK(c == MPI_SUCCESS, "%s: rendezvous ints into ints: class %d", how, c);
    c = one(MPI_INT, big, MPI_FLOAT, big, unexpected, a, b);
    CHECK(c == bad, "%s: rendezvous ints into floats: class %d, want %d", how, c, bad);
  }
  /* to self */
  float f[4];
  int rc = MPI_Sendrecv(a, 4, MPI_INT, rank, 1, f, 4, MPI_FLOAT, rank, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CHECK(err_class(rc) == bad, "to self: ints into floats: class %d, want %d", err_class(rc), bad);
  MPI_Type_free(&vec);
  MPI_Type_free(&pair);
  MPI_Type_free(&pairs);
  free(a);
  free(b);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  return finish(on ? "dt_signature on" : "dt_signature off");
}
