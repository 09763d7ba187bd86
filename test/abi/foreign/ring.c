/* A program built against an independent standard-ABI header (test/abi/foreign/mpi.h), compiled with a
 * plain C compiler and linked with -lmpi_abi: ring, ping-pong, nonblocking exchange, allreduce, status
 * fields, MPI_Comm_split and MPI_Type_get_name. Needs 2 or more ranks. Rank 0 prints
 * "foreign ring: N ranks, K checks passed, F failed"; the exit code is 0 only if every rank passed. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FOREIGN_MPI_H
#error "this program must be built against test/abi/foreign/mpi.h"
#endif

_Static_assert(sizeof(MPI_Status) == 32, "the ABI's MPI_Status is 32 bytes");
_Static_assert(sizeof(MPI_Comm) == sizeof(void *), "handles are pointers");
_Static_assert(sizeof(MPI_Count) == 8 && sizeof(MPI_Aint) == sizeof(void *), "integer types");

static int rank, size, passed, failed;

#define CHECK(cond, ...)                                                      \
  do {                                                                        \
    if (cond) {                                                               \
      ++passed;                                                               \
    } else {                                                                  \
      ++failed;                                                               \
      fprintf(stderr, "FAIL rank %d ring.c:%d: %s: ", rank, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                           \
      fprintf(stderr, "\n");                                                  \
    }                                                                         \
  } while (0)

static void versions(void) {
  int v = -1, sv = -1;
  MPI_Get_version(&v, &sv);
  CHECK(v == MPI_VERSION && sv == MPI_SUBVERSION, "MPI version %d.%d", v, sv);
  v = sv = -1;
  MPI_Abi_get_version(&v, &sv);
  CHECK(v == MPI_ABI_VERSION && sv == MPI_ABI_SUBVERSION, "ABI version %d.%d", v, sv);
}

/* A token around the ring, then a large Sendrecv ring with wildcards checked through the status. */
static void ring(void) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size, token = 0;
  MPI_Status st;
  if (rank == 0) {
    token = 0;
    MPI_Send(&token, 1, MPI_INT, right, 1, MPI_COMM_WORLD);
    MPI_Recv(&token, 1, MPI_INT, left, 1, MPI_COMM_WORLD, &st);
    CHECK(token == size * (size - 1) / 2, "token %d after one round", token);
  } else {
    MPI_Recv(&token, 1, MPI_INT, left, 1, MPI_COMM_WORLD, &st);
    token += rank;
    MPI_Send(&token, 1, MPI_INT, right, 1, MPI_COMM_WORLD);
  }
  CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 1, "token status %d %d", st.MPI_SOURCE, st.MPI_TAG);

  enum { N = 100000 };
  double *out = malloc(N * sizeof(double)), *in = malloc(N * sizeof(double));
  for (int i = 0; i < N; ++i) out[i] = rank * 1e6 + i;
  memset(in, 0, N * sizeof(double));
  MPI_Sendrecv(out, N, MPI_DOUBLE, right, 2, in, N, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
               &st);
  int bad = -1, count = -1;
  for (int i = 0; i < N && bad < 0; ++i)
    if (in[i] != left * 1e6 + i) bad = i;
  MPI_Get_count(&st, MPI_DOUBLE, &count);
  MPI_Count ccount = -1;
  MPI_Get_count_c(&st, MPI_BYTE, &ccount);
  CHECK(bad < 0 && st.MPI_SOURCE == left && st.MPI_TAG == 2 && count == N &&
            ccount == (MPI_Count)N * (MPI_Count)sizeof(double),
        "sendrecv ring: bad %d source %d tag %d count %d bytes %lld", bad, st.MPI_SOURCE, st.MPI_TAG, count,
        (long long)ccount);
  free(out);
  free(in);
}

/* Rank 0 ping-pongs with every other rank over a few sizes. */
static void pingpong(void) {
  static const int sizes[] = {0, 1, 100, 4096, 70000, 1 << 20};
  unsigned char *buf = malloc(1 << 20);
  for (int peer = 1; peer < size; ++peer) {
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
      int n = sizes[k];
      for (int it = 0; it < 3; ++it) {
        MPI_Status st;
        int count = -1;
        if (rank == 0) {
          for (int i = 0; i < n; ++i) buf[i] = (unsigned char)(i + k + it);
          MPI_Send(buf, n, MPI_BYTE, peer, 10 + it, MPI_COMM_WORLD);
          MPI_Recv(buf, n, MPI_BYTE, peer, 20 + it, MPI_COMM_WORLD, &st);
          int bad = -1;
          for (int i = 0; i < n && bad < 0; ++i)
            if (buf[i] != (unsigned char)(i + k + it + 1)) bad = i;
          MPI_Get_count(&st, MPI_BYTE, &count);
          CHECK(bad < 0 && count == n && st.MPI_SOURCE == peer && st.MPI_TAG == 20 + it,
                "pong of %d bytes from %d: bad %d count %d", n, peer, bad, count);
        } else if (rank == peer) {
          MPI_Recv(buf, n, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
          MPI_Get_count(&st, MPI_BYTE, &count);
          CHECK(count == n && st.MPI_TAG == 10 + it && st.MPI_SOURCE == 0, "ping count %d tag %d", count,
                st.MPI_TAG);
          for (int i = 0; i < n; ++i) buf[i] = (unsigned char)(buf[i] + 1);
          MPI_Send(buf, n, MPI_BYTE, 0, 20 + it, MPI_COMM_WORLD);
        }
      }
    }
  }
  free(buf);
}

/* Nonblocking exchange with both neighbours; every status checked. */
static void nonblocking(void) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  long long out[2][64], in[2][64];
  for (int i = 0; i < 64; ++i) {
    out[0][i] = rank * 1000LL + i;
    out[1][i] = -rank * 1000LL - i;
  }
  MPI_Request reqs[5];
  MPI_Status sts[5];
  MPI_Irecv(in[0], 64, MPI_LONG_LONG, left, 30, MPI_COMM_WORLD, &reqs[0]);
  MPI_Irecv(in[1], 64, MPI_INT64_T, right, 31, MPI_COMM_WORLD, &reqs[1]);
  MPI_Isend(out[0], 64, MPI_LONG_LONG, right, 30, MPI_COMM_WORLD, &reqs[2]);
  MPI_Isend(out[1], 40, MPI_INT64_T, left, 31, MPI_COMM_WORLD, &reqs[3]);
  reqs[4] = MPI_REQUEST_NULL;
  int rc = MPI_Waitall(5, reqs, sts);
  int c0 = -1, c1 = -1;
  MPI_Get_count(&sts[0], MPI_LONG_LONG, &c0);
  MPI_Get_count(&sts[1], MPI_INT64_T, &c1);
  CHECK(rc == MPI_SUCCESS && reqs[0] == MPI_REQUEST_NULL && reqs[3] == MPI_REQUEST_NULL, "waitall rc %d", rc);
  CHECK(sts[0].MPI_SOURCE == left && sts[0].MPI_TAG == 30 && c0 == 64 && in[0][63] == left * 1000LL + 63,
        "irecv from left: source %d tag %d count %d", sts[0].MPI_SOURCE, sts[0].MPI_TAG, c0);
  CHECK(sts[1].MPI_SOURCE == right && sts[1].MPI_TAG == 31 && c1 == 40 && in[1][39] == -right * 1000LL - 39,
        "irecv from right: source %d tag %d count %d", sts[1].MPI_SOURCE, sts[1].MPI_TAG, c1);
  CHECK(sts[4].MPI_SOURCE == MPI_ANY_SOURCE && sts[4].MPI_TAG == MPI_ANY_TAG, "null request's status");
}

static void reductions(void) {
  int sum = -1, one = rank + 1;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(sum == size * (size + 1) / 2, "sum %d", sum);
  double d[3] = {rank * 0.5, -rank, 7}, dmax[3];
  MPI_Allreduce(d, dmax, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  CHECK(dmax[0] == (size - 1) * 0.5 && dmax[1] == 0 && dmax[2] == 7, "max %g %g %g", dmax[0], dmax[1],
        dmax[2]);
  int m = 100 - rank;
  MPI_Allreduce(MPI_IN_PLACE, &m, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  CHECK(m == 100 - (size - 1), "in-place min %d", m);
  struct {
    int v, i;
  } loc = {rank % 2, rank}, best = {-1, -1};
  MPI_Allreduce(&loc, &best, 1, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD);
  CHECK(best.v == 1 && best.i == 1, "maxloc %d at %d", best.v, best.i);
}

static void split(void) {
  MPI_Comm sub = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &sub); /* reversed order inside each colour */
  int srank = -1, ssize = -1;
  MPI_Comm_rank(sub, &srank);
  MPI_Comm_size(sub, &ssize);
  int expect_size = (size + 1 - rank % 2) / 2;
  CHECK(ssize == expect_size && srank == (expect_size - 1) - rank / 2, "split: rank %d of %d", srank, ssize);
  int s = -1;
  MPI_Allreduce(&rank, &s, 1, MPI_INT, MPI_SUM, sub);
  int expect = 0;
  for (int r = rank % 2; r < size; r += 2) expect += r;
  CHECK(s == expect, "sum over the colour %d", s);
  int cmp = -1;
  MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &cmp);
  CHECK(cmp == MPI_IDENT, "world vs world %d", cmp);
  MPI_Comm_compare(MPI_COMM_WORLD, sub, &cmp);
  CHECK(cmp == MPI_UNEQUAL, "world vs colour %d", cmp);
  MPI_Comm_free(&sub);
  CHECK(sub == MPI_COMM_NULL, "freed communicator is MPI_COMM_NULL");
}

static void names(void) {
  struct {
    MPI_Datatype t;
    const char *name;
    int size;
  } cases[] = {
      {MPI_INT, "MPI_INT", (int)sizeof(int)},
      {MPI_DOUBLE, "MPI_DOUBLE", (int)sizeof(double)},
      {MPI_CHAR, "MPI_CHAR", 1},
      {MPI_BYTE, "MPI_BYTE", 1},
      {MPI_INT64_T, "MPI_INT64_T", 8},
      {MPI_2INT, "MPI_2INT", 2 * (int)sizeof(int)},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1, sz = -1;
    MPI_Type_get_name(cases[k].t, name, &len);
    MPI_Type_size(cases[k].t, &sz);
    CHECK(strcmp(name, cases[k].name) == 0 && len == (int)strlen(cases[k].name) && sz == cases[k].size,
          "%s: name \"%s\" length %d size %d", cases[k].name, name, len, sz);
  }
}

static void errors(void) {
  /* An invalid communicator raises on MPI_COMM_SELF's handler (MPI 4.0 and later). */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  int v[4] = {1, 2, 3, 4}, cls = -1, len = 0;
  char text[MPI_MAX_ERROR_STRING];
  int rc = MPI_Send(v, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
  MPI_Error_class(rc, &cls);
  MPI_Error_string(rc, text, &len);
  CHECK(cls == MPI_ERR_RANK && len > 0 && len == (int)strlen(text), "bad rank: class %d \"%s\"", cls, text);
  rc = MPI_Send(v, 1, MPI_INT, 0, -1, MPI_COMM_WORLD);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_TAG, "bad tag: class %d", cls);
  rc = MPI_Send(v, 1, MPI_INT, 0, 0, MPI_COMM_NULL);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_COMM, "null communicator: class %d", cls);
  /* Truncation between ranks 0 and 1. */
  if (rank == 0) {
    MPI_Send(v, 4, MPI_INT, 1, 40, MPI_COMM_WORLD);
  } else if (rank == 1) {
    int small[2] = {0, 0};
    rc = MPI_Recv(small, 2, MPI_INT, 0, 40, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE && small[0] == 1 && small[1] == 2, "truncation: class %d", cls);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    if (rank == 0) fprintf(stderr, "ring needs 2 or more ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  double t0 = MPI_Wtime();
  versions();
  ring();
  pingpong();
  nonblocking();
  reductions();
  split();
  names();
  errors();
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(MPI_Wtime() >= t0, "MPI_Wtime goes forward");
  int counts[2] = {passed, failed}, totals[2] = {0, 0};
  MPI_Allreduce(counts, totals, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("foreign ring: %d ranks, %d checks passed, %d failed\n", size, totals[0], totals[1]);
  MPI_Finalize();
  return totals[1] ? 1 : 0;
}
