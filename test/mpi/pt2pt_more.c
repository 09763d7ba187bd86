/* Point-to-point beyond pt2pt_basic: MPI_Sendrecv_replace, cancelling sends and receives,
 * MPI_Request_get_status, the large-count (_c) variants, every predefined C datatype with its size,
 * extent, name and counts, truncation details and the error classes of bad arguments to the _c
 * variants and to MPI_Sendrecv_replace. Runs with 1 to 4 ranks; every rank talks to its ring
 * neighbours (itself when alone). */
#include <complex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>

#include "check.h"

static int rank, size, right, left;

static unsigned char pattern(unsigned seed, size_t i) {
  return (unsigned char)(seed * 29u + i * 13u + (i >> 9));
}
static void fill(void *b, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; ++i) ((unsigned char *)b)[i] = pattern(seed, i);
}
/* The first byte that differs from the pattern, or -1. */
static long bad_at(const void *b, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; ++i)
    if (((const unsigned char *)b)[i] != pattern(seed, i)) return (long)i;
  return -1;
}

/* --- MPI_Sendrecv_replace --------------------------------------------------------------------- */

static void sendrecv_replace(void) {
  /* Ring: send right, receive from left, in place; sizes cross the immediate, eager and 64 KiB marks. */
  static const int counts[] = {0, 1, 7, 48, 1000, 16383, 16385, 100000, 300001};
  int *buf = malloc(300001 * sizeof(int));
  for (size_t k = 0; k < sizeof counts / sizeof counts[0]; ++k) {
    int n = counts[k];
    for (int i = 0; i < n; ++i) buf[i] = rank * 1000003 + i * 7 + (int)k;
    MPI_Status st;
    int rc =
        MPI_Sendrecv_replace(buf, n, MPI_INT, right, 100 + (int)k, left, 100 + (int)k, MPI_COMM_WORLD, &st);
    int bad = -1;
    for (int i = 0; i < n && bad < 0; ++i)
      if (buf[i] != left * 1000003 + i * 7 + (int)k) bad = i;
    int count = -1;
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(rc == MPI_SUCCESS && bad < 0, "replace of %d ints: rc %d, first bad element %d", n, rc, bad);
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 100 + (int)k && count == n, "replace status %d %d %d",
          st.MPI_SOURCE, st.MPI_TAG, count);
  }
  /* The same with wildcards on the receiving side and a type with padding (MPI_DOUBLE_INT). */
  struct {
    double v;
    int i;
  } di[33];
  for (int i = 0; i < 33; ++i) {
    di[i].v = rank + i * 0.25;
    di[i].i = rank * 100 + i;
  }
  MPI_Status st;
  MPI_Sendrecv_replace(di, 33, MPI_DOUBLE_INT, right, 120, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
  int ok = 1;
  for (int i = 0; i < 33; ++i) ok &= di[i].v == left + i * 0.25 && di[i].i == left * 100 + i;
  int count = -1, elements = -1;
  MPI_Get_count(&st, MPI_DOUBLE_INT, &count);
  MPI_Get_elements(&st, MPI_DOUBLE_INT, &elements);
  CHECK(ok && st.MPI_SOURCE == left && st.MPI_TAG == 120 && count == 33 && elements == 66,
        "replace of double_int: ok %d source %d tag %d count %d elements %d", ok, st.MPI_SOURCE, st.MPI_TAG,
        count, elements);

  /* A chain: rank 0 receives from MPI_PROC_NULL, the last rank sends to MPI_PROC_NULL. */
  int next = rank + 1 < size ? rank + 1 : MPI_PROC_NULL, prev = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  int n = 70000; /* > 64 KiB of ints */
  for (int i = 0; i < n; ++i) buf[i] = rank * 31 + i;
  MPI_Sendrecv_replace(buf, n, MPI_INT, next, 130, prev, 130, MPI_COMM_WORLD, &st);
  int src = prev == MPI_PROC_NULL ? rank : prev, bad = -1;
  for (int i = 0; i < n && bad < 0; ++i)
    if (buf[i] != src * 31 + i) bad = i;
  MPI_Get_count(&st, MPI_INT, &count);
  if (prev == MPI_PROC_NULL) {
    CHECK(bad < 0 && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count == 0,
          "replace from PROC_NULL: buffer untouched (bad %d), source %d tag %d count %d", bad, st.MPI_SOURCE,
          st.MPI_TAG, count);
  } else {
    CHECK(bad < 0 && st.MPI_SOURCE == prev && count == n, "chain replace: bad %d source %d count %d", bad,
          st.MPI_SOURCE, count);
  }
  /* Both sides MPI_PROC_NULL: nothing moves. */
  buf[0] = 4242;
  MPI_Sendrecv_replace(buf, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st);
  CHECK(buf[0] == 4242 && st.MPI_SOURCE == MPI_PROC_NULL, "replace with PROC_NULL both ways");
  /* The large-count variant. */
  for (int i = 0; i < 20000; ++i) buf[i] = rank ^ (i * 3);
  MPI_Count ccount = -1;
  MPI_Sendrecv_replace_c(buf, (MPI_Count)20000, MPI_INT, right, 140, left, 140, MPI_COMM_WORLD, &st);
  bad = -1;
  for (int i = 0; i < 20000 && bad < 0; ++i)
    if (buf[i] != (left ^ (i * 3))) bad = i;
  MPI_Get_count_c(&st, MPI_INT, &ccount);
  CHECK(bad < 0 && ccount == 20000, "Sendrecv_replace_c: bad %d count %lld", bad, (long long)ccount);
  free(buf);
}

/* --- cancel and MPI_Request_get_status -------------------------------------------------------- */

static void cancel_and_status(void) {
  MPI_Request r;
  MPI_Status st;
  int flag = 0, cancelled = -1, x = 0;

  /* A receive nobody sends to is cancelled; get_status then sees it complete and cancelled. */
  MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 31999, MPI_COMM_WORLD, &r);
  MPI_Request_get_status(r, &flag, &st);
  CHECK(!flag, "unmatched receive is not complete");
  MPI_Cancel(&r);
  CHECK(r != MPI_REQUEST_NULL, "MPI_Cancel leaves the handle");
  for (int i = 0; i < 1000000 && !flag; ++i) MPI_Request_get_status(r, &flag, &st);
  MPI_Test_cancelled(&st, &cancelled);
  CHECK(flag && cancelled && r != MPI_REQUEST_NULL, "get_status of a cancelled receive: flag %d cancelled %d",
        flag, cancelled);
  MPI_Wait(&r, &st);
  MPI_Test_cancelled(&st, &cancelled);
  CHECK(cancelled && r == MPI_REQUEST_NULL, "wait on a cancelled receive: cancelled %d", cancelled);
  /* Cancelled receives from a named source, and with MPI_Test. */
  MPI_Irecv(&x, 1, MPI_INT, left, 31998, MPI_COMM_WORLD, &r);
  MPI_Cancel(&r);
  flag = 0;
  for (int i = 0; i < 1000000 && !flag; ++i) MPI_Test(&r, &flag, &st);
  MPI_Test_cancelled(&st, &cancelled);
  CHECK(flag && cancelled && r == MPI_REQUEST_NULL, "test on a cancelled receive: flag %d cancelled %d", flag,
        cancelled);

  /* Request_get_status on MPI_REQUEST_NULL: complete, empty status. */
  flag = 0;
  st.MPI_SOURCE = 5;
  st.MPI_TAG = 5;
  MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &st);
  int count = -1;
  MPI_Get_count(&st, MPI_INT, &count);
  MPI_Test_cancelled(&st, &cancelled);
  CHECK(flag && st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG && count == 0 && !cancelled,
        "get_status of REQUEST_NULL: flag %d source %d tag %d count %d", flag, st.MPI_SOURCE, st.MPI_TAG,
        count);

  /* A posted receive is active until its message comes (nobody sends before the barrier); then
   * get_status reports it without freeing it, and Wait gives the same status. Cancelling a completed
   * receive does nothing. */
  int in[300] = {0}, out[300];
  for (int i = 0; i < 300; ++i) out[i] = rank * 1000 + i;
  MPI_Irecv(in, 300, MPI_INT, left, 32000, MPI_COMM_WORLD, &r);
  flag = 1;
  MPI_Request_get_status(r, &flag, &st);
  CHECK(!flag, "receive complete before its message was sent");
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Send(out, 300, MPI_INT, right, 32000, MPI_COMM_WORLD);
  flag = 0;
  for (int i = 0; i < 100000000 && !flag; ++i) MPI_Request_get_status(r, &flag, &st);
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(flag && r != MPI_REQUEST_NULL && st.MPI_SOURCE == left && st.MPI_TAG == 32000 && count == 300,
        "get_status of a completed receive: flag %d source %d tag %d count %d", flag, st.MPI_SOURCE,
        st.MPI_TAG, count);
  MPI_Request_get_status(r, &flag, &st); /* again: still there */
  CHECK(flag && r != MPI_REQUEST_NULL, "second get_status");
  MPI_Cancel(&r);
  MPI_Wait(&r, &st);
  MPI_Test_cancelled(&st, &cancelled);
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(!cancelled && count == 300 && st.MPI_SOURCE == left && in[299] == left * 1000 + 299 &&
            in[0] == left * 1000,
        "cancel after completion: cancelled %d count %d data %d", cancelled, count, in[299]);

  /* get_status on a send request: it completes, stays valid until Wait. */
  MPI_Isend(out, 10, MPI_INT, right, 32001, MPI_COMM_WORLD, &r);
  MPI_Recv(in, 10, MPI_INT, left, 32001, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  flag = 0;
  for (int i = 0; i < 100000000 && !flag; ++i) MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE);
  CHECK(flag && r != MPI_REQUEST_NULL && in[9] == left * 1000 + 9, "get_status of a send");
  MPI_Wait(&r, MPI_STATUS_IGNORE);

  /* Cancelling a send that no receive has matched. MPI lets the library fail to cancel it; whatever it
   * reports must be true: not cancelled means the message arrives intact, cancelled means it never
   * matches. The receiver posts its receive only after the sender has cancelled (so a synchronous send
   * can complete), and learns the outcome from a second message. */
  static const int sizes[] = {1, 100, 5000, 40000}; /* ints: immediate, eager, > 64 KiB */
  unsigned char *sbuf = malloc(40000 * sizeof(int)), *rbuf = malloc(40000 * sizeof(int));
  for (int mode = 0; mode < 2; ++mode) {
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
      int n = sizes[k], tag = 33000 + mode * 100 + (int)k;
      size_t bytes = (size_t)n * sizeof(int);
      unsigned seed = (unsigned)(rank * 11 + k + 3 * mode), lseed = (unsigned)(left * 11 + k + 3 * mode);
      fill(sbuf, bytes, seed);
      memset(rbuf, 0, bytes);
      MPI_Request sr, rr;
      if (mode == 0) {
        MPI_Isend(sbuf, n, MPI_INT, right, tag, MPI_COMM_WORLD, &sr);
      } else {
        MPI_Issend(sbuf, n, MPI_INT, right, tag, MPI_COMM_WORLD, &sr);
      }
      MPI_Cancel(&sr);
      int go = 1;
      MPI_Send(&go, 1, MPI_INT, right, tag + 1000, MPI_COMM_WORLD);
      MPI_Recv(&go, 1, MPI_INT, left, tag + 1000, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Irecv(rbuf, n, MPI_INT, left, tag, MPI_COMM_WORLD, &rr);
      MPI_Status sst;
      MPI_Wait(&sr, &sst);
      int mine = -1, theirs = -1;
      MPI_Test_cancelled(&sst, &mine);
      CHECK(sr == MPI_REQUEST_NULL && (mine == 0 || mine == 1), "send cancel outcome %d", mine);
      MPI_Send(&mine, 1, MPI_INT, right, tag + 2000, MPI_COMM_WORLD);
      MPI_Recv(&theirs, 1, MPI_INT, left, tag + 2000, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Status rst;
      if (!theirs) {
        MPI_Wait(&rr, &rst);
        MPI_Get_count(&rst, MPI_INT, &count);
        long b = bad_at(rbuf, bytes, lseed);
        CHECK(b < 0 && count == n && rst.MPI_SOURCE == left && rst.MPI_TAG == tag,
              "%s of %d ints reported not cancelled: data bad at %ld, count %d", mode ? "Issend" : "Isend", n,
              b, count);
      } else {
        MPI_Cancel(&rr);
        MPI_Wait(&rr, &rst);
        MPI_Test_cancelled(&rst, &cancelled);
        CHECK(cancelled, "%s of %d ints reported cancelled, but the message matched a receive",
              mode ? "Issend" : "Isend", n);
      }
    }
  }
  free(sbuf);
  free(rbuf);
}

/* --- large-count variants with counts that fit in int ----------------------------------------- */

static void large_count(void) {
  enum { N = 40000 }; /* 160 KB of ints */
  int *s = malloc(N * sizeof(int)), *r = malloc(N * sizeof(int));
  static const MPI_Count counts[] = {0, 1, 47, 1024, 16385, N};
  MPI_Status st;
  MPI_Count c = -1;
  int ci = -1;
  for (size_t k = 0; k < sizeof counts / sizeof counts[0]; ++k) {
    MPI_Count n = counts[k];
    int tag = 200 + (int)k;
    for (MPI_Count i = 0; i < n; ++i) s[i] = (int)(rank * 7919 + i * 3 + (MPI_Count)k);
    MPI_Request sr, rr;
    /* Isend_c + Recv_c */
    memset(r, 0, N * sizeof(int));
    MPI_Isend_c(s, n, MPI_INT, right, tag, MPI_COMM_WORLD, &sr);
    MPI_Recv_c(r, n, MPI_INT, left, tag, MPI_COMM_WORLD, &st);
    MPI_Wait(&sr, MPI_STATUS_IGNORE);
    int bad = -1;
    for (MPI_Count i = 0; i < n && bad < 0; ++i)
      if (r[i] != (int)(left * 7919 + i * 3 + (MPI_Count)k)) bad = (int)i;
    MPI_Get_count_c(&st, MPI_INT, &c);
    MPI_Get_count(&st, MPI_INT, &ci);
    CHECK(bad < 0 && c == n && ci == (int)n && st.MPI_SOURCE == left && st.MPI_TAG == tag,
          "Isend_c/Recv_c %lld: bad %d count_c %lld count %d", (long long)n, bad, (long long)c, ci);
    MPI_Get_elements_c(&st, MPI_INT, &c);
    CHECK(c == n, "Get_elements_c %lld", (long long)c);
    MPI_Get_count_c(&st, MPI_BYTE, &c);
    CHECK(c == n * (MPI_Count)sizeof(int), "count in bytes %lld", (long long)c);
    /* Irecv_c + Send_c (receive posted before the barrier) */
    memset(r, 0, N * sizeof(int));
    MPI_Irecv_c(r, n, MPI_INT, left, tag, MPI_COMM_WORLD, &rr);
    MPI_Barrier(MPI_COMM_WORLD);
    if (size == 1) {
      MPI_Isend_c(s, n, MPI_INT, right, tag, MPI_COMM_WORLD, &sr);
      MPI_Wait(&sr, MPI_STATUS_IGNORE);
    } else {
      MPI_Send_c(s, n, MPI_INT, right, tag, MPI_COMM_WORLD);
    }
    MPI_Wait(&rr, &st);
    bad = -1;
    for (MPI_Count i = 0; i < n && bad < 0; ++i)
      if (r[i] != (int)(left * 7919 + i * 3 + (MPI_Count)k)) bad = (int)i;
    MPI_Get_count_c(&st, MPI_INT, &c);
    CHECK(bad < 0 && c == n, "Irecv_c/Send_c %lld: bad %d count %lld", (long long)n, bad, (long long)c);
    /* Sendrecv_c in the ring, received into a larger buffer */
    memset(r, 0, N * sizeof(int));
    MPI_Sendrecv_c(s, n, MPI_INT, right, tag, r, (MPI_Count)N, MPI_INT, left, tag, MPI_COMM_WORLD, &st);
    bad = -1;
    for (MPI_Count i = 0; i < n && bad < 0; ++i)
      if (r[i] != (int)(left * 7919 + i * 3 + (MPI_Count)k)) bad = (int)i;
    MPI_Get_count_c(&st, MPI_INT, &c);
    CHECK(bad < 0 && c == n && st.MPI_SOURCE == left, "Sendrecv_c %lld: bad %d count %lld", (long long)n, bad,
          (long long)c);
    /* Issend_c, then Probe + Get_count_c + Recv_c of exactly that many */
    MPI_Issend_c(s, n, MPI_INT, right, tag, MPI_COMM_WORLD, &sr);
    MPI_Probe(left, tag, MPI_COMM_WORLD, &st);
    MPI_Get_count_c(&st, MPI_INT, &c);
    MPI_Count el = -1;
    MPI_Get_elements_c(&st, MPI_INT, &el);
    CHECK(c == n && el == n && st.MPI_SOURCE == left && st.MPI_TAG == tag, "probe count_c %lld elements %lld",
          (long long)c, (long long)el);
    memset(r, 0, N * sizeof(int));
    MPI_Recv_c(r, c, MPI_INT, left, tag, MPI_COMM_WORLD, &st);
    MPI_Wait(&sr, MPI_STATUS_IGNORE);
    bad = -1;
    for (MPI_Count i = 0; i < n && bad < 0; ++i)
      if (r[i] != (int)(left * 7919 + i * 3 + (MPI_Count)k)) bad = (int)i;
    CHECK(bad < 0, "probed receive %lld: bad %d", (long long)n, bad);
  }

  /* Ssend_c (pairs pass through a nonblocking receive first), Mprobe + Mrecv_c, Improbe + Imrecv_c */
  MPI_Request rr, sr;
  for (int i = 0; i < N; ++i) s[i] = i - rank;
  MPI_Irecv_c(r, (MPI_Count)5000, MPI_INT, left, 300, MPI_COMM_WORLD, &rr);
  if (size == 1) {
    MPI_Issend_c(s, (MPI_Count)5000, MPI_INT, right, 300, MPI_COMM_WORLD, &sr);
    MPI_Wait(&sr, MPI_STATUS_IGNORE);
  } else {
    MPI_Ssend_c(s, (MPI_Count)5000, MPI_INT, right, 300, MPI_COMM_WORLD);
  }
  MPI_Wait(&rr, &st);
  MPI_Get_count_c(&st, MPI_INT, &c);
  CHECK(c == 5000 && r[4999] == 4999 - left, "Ssend_c: count %lld", (long long)c);

  MPI_Isend_c(s, (MPI_Count)777, MPI_INT, right, 301, MPI_COMM_WORLD, &sr);
  MPI_Message m;
  MPI_Mprobe(left, 301, MPI_COMM_WORLD, &m, &st);
  MPI_Get_count_c(&st, MPI_INT, &c);
  memset(r, 0, 777 * sizeof(int));
  MPI_Mrecv_c(r, c, MPI_INT, &m, &st);
  MPI_Wait(&sr, MPI_STATUS_IGNORE);
  MPI_Count c2 = -1;
  MPI_Get_count_c(&st, MPI_INT, &c2);
  CHECK(c == 777 && c2 == 777 && m == MPI_MESSAGE_NULL && r[776] == 776 - left, "Mprobe/Mrecv_c: %lld %lld",
        (long long)c, (long long)c2);

  MPI_Isend_c(s, (MPI_Count)20000, MPI_INT, right, 302, MPI_COMM_WORLD, &sr);
  int flag = 0;
  while (!flag) MPI_Improbe(left, 302, MPI_COMM_WORLD, &flag, &m, &st);
  MPI_Get_count_c(&st, MPI_INT, &c);
  MPI_Imrecv_c(r, c, MPI_INT, &m, &rr);
  MPI_Wait(&rr, &st);
  MPI_Wait(&sr, MPI_STATUS_IGNORE);
  MPI_Get_count_c(&st, MPI_INT, &c2);
  CHECK(c == 20000 && c2 == 20000 && r[19999] == 19999 - left, "Improbe/Imrecv_c: %lld %lld", (long long)c,
        (long long)c2);

  /* Rsend_c and Irsend_c with the receive posted before a barrier */
  MPI_Irecv_c(r, (MPI_Count)64, MPI_INT, left, 303, MPI_COMM_WORLD, &rr);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Irsend_c(s, (MPI_Count)64, MPI_INT, right, 303, MPI_COMM_WORLD, &sr);
  MPI_Wait(&sr, MPI_STATUS_IGNORE);
  MPI_Wait(&rr, &st);
  MPI_Get_count_c(&st, MPI_INT, &c);
  CHECK(c == 64 && r[63] == 63 - left, "Irsend_c count %lld", (long long)c);
  MPI_Irecv_c(r, (MPI_Count)65, MPI_INT, left, 304, MPI_COMM_WORLD, &rr);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Rsend_c(s, (MPI_Count)65, MPI_INT, right, 304, MPI_COMM_WORLD);
  MPI_Wait(&rr, &st);
  MPI_Get_count_c(&st, MPI_INT, &c);
  CHECK(c == 65 && r[64] == 64 - left, "Rsend_c count %lld", (long long)c);

  /* Bsend_c and Ibsend_c from a buffer attached with Buffer_attach_c */
  MPI_Count bsize = 2 * (MPI_Count)(3000 * sizeof(int) + MPI_BSEND_OVERHEAD) + 64;
  void *bbuf = malloc((size_t)bsize);
  MPI_Buffer_attach_c(bbuf, bsize);
  MPI_Bsend_c(s, (MPI_Count)3000, MPI_INT, right, 305, MPI_COMM_WORLD);
  MPI_Ibsend_c(s, (MPI_Count)2999, MPI_INT, right, 306, MPI_COMM_WORLD, &sr);
  MPI_Recv_c(r, (MPI_Count)3000, MPI_INT, left, 305, MPI_COMM_WORLD, &st);
  MPI_Get_count_c(&st, MPI_INT, &c);
  CHECK(c == 3000 && r[2999] == 2999 - left, "Bsend_c count %lld", (long long)c);
  MPI_Recv_c(r, (MPI_Count)3000, MPI_INT, left, 306, MPI_COMM_WORLD, &st);
  MPI_Get_count_c(&st, MPI_INT, &c);
  CHECK(c == 2999 && r[2998] == 2998 - left, "Ibsend_c count %lld", (long long)c);
  MPI_Wait(&sr, MPI_STATUS_IGNORE);
  void *det = NULL;
  MPI_Count detsize = 0;
  MPI_Buffer_detach_c(&det, &detsize);
  CHECK(det == bbuf && detsize == bsize, "Buffer_detach_c gives back %lld bytes", (long long)detsize);
  free(bbuf);

  /* Pairs with padding: elements count both members; a receive of a shorter message into a pair type. */
  struct {
    double v;
    int i;
  } di[10], dr[10];
  for (int i = 0; i < 10; ++i) {
    di[i].v = rank + i;
    di[i].i = i;
  }
  MPI_Sendrecv_c(di, (MPI_Count)10, MPI_DOUBLE_INT, right, 307, dr, (MPI_Count)10, MPI_DOUBLE_INT, left, 307,
                 MPI_COMM_WORLD, &st);
  MPI_Get_count_c(&st, MPI_DOUBLE_INT, &c);
  MPI_Get_elements_c(&st, MPI_DOUBLE_INT, &c2);
  CHECK(c == 10 && c2 == 20 && dr[9].v == left + 9 && dr[9].i == 9, "double_int _c counts %lld %lld",
        (long long)c, (long long)c2);
  MPI_Count sz = -1, lb = -1, ext = -1;
  MPI_Type_size_c(MPI_DOUBLE_INT, &sz);
  MPI_Type_get_extent_c(MPI_DOUBLE_INT, &lb, &ext);
  CHECK(sz == (MPI_Count)(sizeof(double) + sizeof(int)) && lb == 0 && ext == (MPI_Count)sizeof di[0],
        "double_int size %lld lb %lld extent %lld", (long long)sz, (long long)lb, (long long)ext);

  /* MPI_PROC_NULL with the _c calls, and Status_set_elements_c round trips. */
  MPI_Recv_c(r, (MPI_Count)5, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
  MPI_Get_count_c(&st, MPI_INT, &c);
  CHECK(c == 0 && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "Recv_c from PROC_NULL");
  MPI_Send_c(s, (MPI_Count)5, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
  MPI_Status_set_elements_c(&st, MPI_DOUBLE, (MPI_Count)123456);
  MPI_Get_elements_c(&st, MPI_DOUBLE, &c);
  MPI_Get_count_c(&st, MPI_DOUBLE, &c2);
  CHECK(c == 123456 && c2 == 123456, "Status_set_elements_c round trip %lld %lld", (long long)c,
        (long long)c2);
  free(s);
  free(r);
}

/* --- every predefined C datatype -------------------------------------------------------------- */

struct tcase {
  MPI_Datatype type;
  const char *name, *alias; /* the standard name; a synonym with the same handle, or NULL */
  size_t size, extent;
  int elements;                  /* basic elements per element */
  size_t part1, part2_at, part2; /* pairs: bytes of the value, offset and bytes of the int */
};

#define T1(h, ctype) \
  { h, #h, NULL, sizeof(ctype), sizeof(ctype), 1, sizeof(ctype), 0, 0 }
/* P is the C struct of the pair: {V v; int i;} with its padding. */
#define PAIR(h, V, P) \
  { h, #h, NULL, sizeof(V) + sizeof(int), sizeof(P), 2, sizeof(V), offsetof(P, i), sizeof(int) }

static void datatypes(void) {
  typedef struct {
    float v;
    int i;
  } fi_t;
  typedef struct {
    double v;
    int i;
  } di_t;
  typedef struct {
    long v;
    int i;
  } li_t;
  typedef struct {
    int v;
    int i;
  } ii_t;
  typedef struct {
    short v;
    int i;
  } si_t;
  typedef struct {
    long double v;
    int i;
  } ldi_t;
  const struct tcase cases[] = {
      T1(MPI_CHAR, char),
      T1(MPI_SIGNED_CHAR, signed char),
      T1(MPI_UNSIGNED_CHAR, unsigned char),
      T1(MPI_BYTE, unsigned char),
      T1(MPI_WCHAR, wchar_t),
      T1(MPI_SHORT, short),
      T1(MPI_UNSIGNED_SHORT, unsigned short),
      T1(MPI_INT, int),
      T1(MPI_UNSIGNED, unsigned),
      T1(MPI_LONG, long),
      T1(MPI_UNSIGNED_LONG, unsigned long),
      {MPI_LONG_LONG, "MPI_LONG_LONG", "MPI_LONG_LONG_INT", sizeof(long long), sizeof(long long), 1,
       sizeof(long long), 0, 0},
      T1(MPI_UNSIGNED_LONG_LONG, unsigned long long),
      T1(MPI_FLOAT, float),
      T1(MPI_DOUBLE, double),
      T1(MPI_LONG_DOUBLE, long double),
      T1(MPI_INT8_T, int8_t),
      T1(MPI_INT16_T, int16_t),
      T1(MPI_INT32_T, int32_t),
      T1(MPI_INT64_T, int64_t),
      T1(MPI_UINT8_T, uint8_t),
      T1(MPI_UINT16_T, uint16_t),
      T1(MPI_UINT32_T, uint32_t),
      T1(MPI_UINT64_T, uint64_t),
      T1(MPI_C_BOOL, bool),
      {MPI_C_COMPLEX, "MPI_C_COMPLEX", "MPI_C_FLOAT_COMPLEX", sizeof(float _Complex), sizeof(float _Complex),
       1, sizeof(float _Complex), 0, 0},
      {MPI_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX", "MPI_C_COMPLEX", sizeof(float _Complex),
       sizeof(float _Complex), 1, sizeof(float _Complex), 0, 0},
      T1(MPI_C_DOUBLE_COMPLEX, double _Complex),
      T1(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex),
      T1(MPI_AINT, MPI_Aint),
      T1(MPI_OFFSET, MPI_Offset),
      T1(MPI_COUNT, MPI_Count),
      PAIR(MPI_FLOAT_INT, float, fi_t),
      PAIR(MPI_DOUBLE_INT, double, di_t),
      PAIR(MPI_LONG_INT, long, li_t),
      PAIR(MPI_2INT, int, ii_t),
      PAIR(MPI_SHORT_INT, short, si_t),
      PAIR(MPI_LONG_DOUBLE_INT, long double, ldi_t),
      {MPI_PACKED, "MPI_PACKED", NULL, 1, 1, 1, 1, 0, 0},
  };
  enum { N = 5 };
  unsigned char sbuf[N * 64], rbuf[N * 64];
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    const struct tcase *t = &cases[k];
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1, isz = -1;
    MPI_Aint lb = -1, ext = -1, tlb = -1, text = -1;
    MPI_Count csz = -1;
    MPI_Type_get_name(t->type, name, &len);
    CHECK(
        (strcmp(name, t->name) == 0 || (t->alias && strcmp(name, t->alias) == 0)) && len == (int)strlen(name),
        "%s: MPI_Type_get_name gives \"%s\" (length %d)", t->name, name, len);
    MPI_Type_size(t->type, &isz);
    MPI_Type_size_c(t->type, &csz);
    MPI_Type_get_extent(t->type, &lb, &ext);
    MPI_Type_get_true_extent(t->type, &tlb, &text);
    CHECK(isz == (int)t->size && csz == (MPI_Count)t->size, "%s: size %d / %lld, sizeof %zu", t->name, isz,
          (long long)csz, t->size);
    CHECK(lb == 0 && ext == (MPI_Aint)t->extent, "%s: lb %ld extent %ld, expected 0 and %zu", t->name,
          (long)lb, (long)ext, t->extent);
    CHECK(tlb == 0 && text == (MPI_Aint)(t->part2 ? t->part2_at + t->part2 : t->size),
          "%s: true lb %ld true extent %ld", t->name, (long)tlb, (long)text);
    /* A few elements around the ring; only the value bytes are compared (not a pair's padding). */
    const int n = k % 2 ? N : N - 2;
    unsigned seed = (unsigned)(k * 5 + rank), lseed = (unsigned)(k * 5 + left);
    fill(sbuf, sizeof sbuf, seed);
    if (t->type == MPI_C_BOOL)
      for (size_t i = 0; i < sizeof sbuf; ++i) sbuf[i] &= 1;
    memset(rbuf, 0xee, sizeof rbuf);
    MPI_Status st;
    int rc = MPI_Sendrecv(sbuf, n, t->type, right, 400 + (int)k, rbuf, N, t->type, left, 400 + (int)k,
                          MPI_COMM_WORLD, &st);
    unsigned char expect[N * 64];
    fill(expect, sizeof expect, lseed);
    if (t->type == MPI_C_BOOL)
      for (size_t i = 0; i < sizeof expect; ++i) expect[i] &= 1;
    int ok = rc == MPI_SUCCESS;
    for (int e = 0; e < n; ++e) {
      size_t at = (size_t)e * t->extent;
      ok &= memcmp(rbuf + at, expect + at, t->part1) == 0;
      if (t->part2) ok &= memcmp(rbuf + at + t->part2_at, expect + at + t->part2_at, t->part2) == 0;
    }
    ok &= rbuf[n * t->extent] == 0xee; /* nothing beyond the message */
    CHECK(ok, "%s: %d elements arrive intact (rc %d)", t->name, n, rc);
    int count = -1, elements = -1;
    MPI_Count ccount = -1, celements = -1;
    MPI_Get_count(&st, t->type, &count);
    MPI_Get_elements(&st, t->type, &elements);
    MPI_Get_count_c(&st, t->type, &ccount);
    MPI_Get_elements_c(&st, t->type, &celements);
    CHECK(count == n && ccount == n && elements == n * t->elements && celements == n * t->elements,
          "%s: count %d/%lld elements %d/%lld for %d elements", t->name, count, (long long)ccount, elements,
          (long long)celements, n);
  }
  /* Handles that are synonyms by the ABI. */
  CHECK(MPI_LONG_LONG_INT == MPI_LONG_LONG && MPI_C_COMPLEX == MPI_C_FLOAT_COMPLEX, "ABI synonyms");

  /* A message shorter than one pair: the value alone is a legal prefix of the pair's type signature.
   * MPI_Get_count is MPI_UNDEFINED and MPI_Get_elements counts the value. */
  struct {
    MPI_Datatype pair, value;
    size_t value_size;
    const char *name;
  } partial[] = {
      {MPI_SHORT_INT, MPI_SHORT, sizeof(short), "MPI_SHORT_INT"},
      {MPI_FLOAT_INT, MPI_FLOAT, sizeof(float), "MPI_FLOAT_INT"},
      {MPI_DOUBLE_INT, MPI_DOUBLE, sizeof(double), "MPI_DOUBLE_INT"},
      {MPI_LONG_INT, MPI_LONG, sizeof(long), "MPI_LONG_INT"},
      {MPI_2INT, MPI_INT, sizeof(int), "MPI_2INT"},
      {MPI_LONG_DOUBLE_INT, MPI_LONG_DOUBLE, sizeof(long double), "MPI_LONG_DOUBLE_INT"},
  };
  for (size_t k = 0; k < sizeof partial / sizeof partial[0]; ++k) {
    fill(sbuf, partial[k].value_size, (unsigned)rank);
    MPI_Status st;
    MPI_Sendrecv(sbuf, 1, partial[k].value, right, 450 + (int)k, rbuf, 2, partial[k].pair, left, 450 + (int)k,
                 MPI_COMM_WORLD, &st);
    int count = 0, elements = -1;
    MPI_Get_count(&st, partial[k].pair, &count);
    MPI_Get_elements(&st, partial[k].pair, &elements);
    CHECK(count == MPI_UNDEFINED && elements == 1 && bad_at(rbuf, partial[k].value_size, (unsigned)left) < 0,
          "%s receiving one value: count %d elements %d", partial[k].name, count, elements);
  }
}

/* --- truncation and bad arguments ------------------------------------------------------------- */

static void errors(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  char text[MPI_MAX_ERROR_STRING], want[200];
  int len, rc;
  MPI_Status st;
  MPI_Request r, sr;

  /* Recv truncated: from the left neighbour, an eager message > 64 KiB into 1000 bytes. */
  enum { BIG = 100000 };
  unsigned char *big = malloc(BIG), *small = malloc(BIG);
  fill(big, BIG, (unsigned)rank);
  memset(small, 0, BIG);
  MPI_Isend(big, BIG, MPI_BYTE, right, 500, MPI_COMM_WORLD, &sr);
  rc = MPI_Recv(small, 1000, MPI_BYTE, left, 500, MPI_COMM_WORLD, &st);
  MPI_Wait(&sr, MPI_STATUS_IGNORE);
  MPI_Error_string(rc, text, &len);
  snprintf(want, sizeof want, "rank %d with tag 500", left);
  CHECK(err_class(rc) == MPI_ERR_TRUNCATE && strstr(text, "MPI_Recv") && strstr(text, "MPI_ERR_TRUNCATE") &&
            strstr(text, want) && strstr(text, " 100000 bytes") && strstr(text, " 1000 bytes") &&
            len == (int)strlen(text),
        "Recv truncation: class %d text \"%s\"", err_class(rc), text);
  CHECK(bad_at(small, 1000, (unsigned)left) < 0 && small[1000] == 0,
        "truncated receive keeps the first 1000 bytes");
  CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 500, "truncated status source %d tag %d", st.MPI_SOURCE,
        st.MPI_TAG);
  /* The channel is fine afterwards. */
  MPI_Sendrecv(big, 5000, MPI_BYTE, right, 501, small, BIG, MPI_BYTE, left, 501, MPI_COMM_WORLD, &st);
  CHECK(bad_at(small, 5000, (unsigned)left) < 0, "message after a truncation");

  /* Irecv/Wait truncated, and the _c receive. */
  MPI_Irecv(small, 3, MPI_INT, left, 502, MPI_COMM_WORLD, &r);
  MPI_Send(big, 40, MPI_BYTE, right, 502, MPI_COMM_WORLD);
  rc = MPI_Wait(&r, &st);
  MPI_Error_string(rc, text, &len);
  snprintf(want, sizeof want, "rank %d with tag 502", left);
  CHECK(err_class(rc) == MPI_ERR_TRUNCATE && strstr(text, "MPI_Wait") && strstr(text, want) &&
            strstr(text, " 40 bytes") && strstr(text, " 12 bytes") && r == MPI_REQUEST_NULL,
        "Irecv/Wait truncation: class %d text \"%s\"", err_class(rc), text);
  MPI_Isend(big, 41, MPI_BYTE, right, 503, MPI_COMM_WORLD, &sr);
  rc = MPI_Recv_c(small, (MPI_Count)10, MPI_SHORT, left, 503, MPI_COMM_WORLD, &st);
  MPI_Wait(&sr, MPI_STATUS_IGNORE);
  MPI_Error_string(rc, text, &len);
  CHECK(err_class(rc) == MPI_ERR_TRUNCATE && strstr(text, "MPI_Recv_c") && strstr(text, "41 bytes") &&
            strstr(text, "20 bytes"),
        "Recv_c truncation: %s", text);

  /* Waitall: one truncated receive among good ones. */
  enum { NR = 5, BAD = 2 };
  int vals[NR][4];
  MPI_Request rs[NR + 1];
  MPI_Status sts[NR + 1];
  for (int i = 0; i < NR; ++i)
    MPI_Irecv(vals[i], i == BAD ? 1 : 4, MPI_INT, left, 510 + i, MPI_COMM_WORLD, &rs[i]);
  int four[4] = {rank, rank + 1, rank + 2, rank + 3};
  for (int i = 0; i < NR; ++i) MPI_Send(four, i == BAD ? 2 : 4, MPI_INT, right, 510 + i, MPI_COMM_WORLD);
  rs[NR] = MPI_REQUEST_NULL;
  rc = MPI_Waitall(NR + 1, rs, sts);
  CHECK(err_class(rc) == MPI_ERR_IN_STATUS, "Waitall class %d", err_class(rc));
  for (int i = 0; i < NR; ++i) {
    int count = -1;
    if (i == BAD) {
      CHECK(err_class(sts[i].MPI_ERROR) == MPI_ERR_TRUNCATE && sts[i].MPI_SOURCE == left,
            "status %d error %d", i, sts[i].MPI_ERROR);
    } else {
      MPI_Get_count(&sts[i], MPI_INT, &count);
      CHECK(sts[i].MPI_ERROR == MPI_SUCCESS && count == 4 && vals[i][3] == left + 3 &&
                sts[i].MPI_TAG == 510 + i,
            "status %d: error %d count %d", i, sts[i].MPI_ERROR, count);
    }
    CHECK(rs[i] == MPI_REQUEST_NULL, "request %d freed", i);
  }
  CHECK(sts[NR].MPI_ERROR == MPI_SUCCESS && sts[NR].MPI_SOURCE == MPI_ANY_SOURCE, "null request's status");
  /* The same through Testall. */
  for (int i = 0; i < 2; ++i) MPI_Irecv(vals[i], i ? 1 : 4, MPI_INT, left, 520 + i, MPI_COMM_WORLD, &rs[i]);
  for (int i = 0; i < 2; ++i) MPI_Send(four, 3, MPI_INT, right, 520 + i, MPI_COMM_WORLD);
  int flag = 0;
  rc = MPI_SUCCESS;
  for (long i = 0; i < 100000000 && !flag && rc == MPI_SUCCESS; ++i) rc = MPI_Testall(2, rs, &flag, sts);
  CHECK(flag && err_class(rc) == MPI_ERR_IN_STATUS && sts[0].MPI_ERROR == MPI_SUCCESS &&
            err_class(sts[1].MPI_ERROR) == MPI_ERR_TRUNCATE,
        "Testall: flag %d class %d", flag, err_class(rc));

  /* Bad arguments to the large-count calls and to Sendrecv_replace. */
  int v[4] = {0}, x = 0;
  int *tag_ub = NULL;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
  int too_big_tag = flag && *tag_ub < 0x7fffffff ? *tag_ub + 1 : -7;
  MPI_Datatype garbage = (MPI_Datatype)(void *)&x;   /* points at an int, not at a datatype */
  MPI_Datatype unused = (MPI_Datatype)(intptr_t)516; /* a predefined-range value no datatype has */
  MPI_Datatype comm_as_type = (MPI_Datatype)(void *)MPI_COMM_WORLD;
  struct {
    const char *what;
    int rc, cls;
  } cases[] = {
      {"Send_c count -1", MPI_Send_c(v, (MPI_Count)-1, MPI_INT, right, 0, MPI_COMM_WORLD), MPI_ERR_COUNT},
      {"Send_c count -2^40", MPI_Send_c(v, -((MPI_Count)1 << 40), MPI_INT, right, 0, MPI_COMM_WORLD),
       MPI_ERR_COUNT},
      {"Send_c tag -1", MPI_Send_c(v, (MPI_Count)1, MPI_INT, right, -1, MPI_COMM_WORLD), MPI_ERR_TAG},
      {"Send_c tag MPI_ANY_TAG", MPI_Send_c(v, (MPI_Count)1, MPI_INT, right, MPI_ANY_TAG, MPI_COMM_WORLD),
       MPI_ERR_TAG},
      {"Send_c tag above MPI_TAG_UB",
       MPI_Send_c(v, (MPI_Count)1, MPI_INT, right, too_big_tag, MPI_COMM_WORLD), MPI_ERR_TAG},
      {"Send_c rank size", MPI_Send_c(v, (MPI_Count)1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK},
      {"Send_c rank MPI_ANY_SOURCE", MPI_Send_c(v, (MPI_Count)1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD),
       MPI_ERR_RANK},
      {"Send_c NULL buffer", MPI_Send_c(NULL, (MPI_Count)3, MPI_INT, right, 0, MPI_COMM_WORLD),
       MPI_ERR_BUFFER},
      {"Send_c garbage type", MPI_Send_c(v, (MPI_Count)1, garbage, right, 0, MPI_COMM_WORLD), MPI_ERR_TYPE},
      {"Send_c unused predefined value", MPI_Send_c(v, (MPI_Count)1, unused, right, 0, MPI_COMM_WORLD),
       MPI_ERR_TYPE},
      {"Send_c communicator as type", MPI_Send_c(v, (MPI_Count)1, comm_as_type, right, 0, MPI_COMM_WORLD),
       MPI_ERR_TYPE},
      {"Send_c MPI_DATATYPE_NULL", MPI_Send_c(v, (MPI_Count)1, MPI_DATATYPE_NULL, right, 0, MPI_COMM_WORLD),
       MPI_ERR_TYPE},
      {"Send_c MPI_COMM_NULL", MPI_Send_c(v, (MPI_Count)1, MPI_INT, right, 0, MPI_COMM_NULL), MPI_ERR_COMM},
      {"Ssend_c count -1", MPI_Ssend_c(v, (MPI_Count)-1, MPI_INT, right, 0, MPI_COMM_WORLD), MPI_ERR_COUNT},
      {"Rsend_c rank -7", MPI_Rsend_c(v, (MPI_Count)1, MPI_INT, -7, 0, MPI_COMM_WORLD), MPI_ERR_RANK},
      {"Bsend_c NULL type", MPI_Bsend_c(v, (MPI_Count)1, MPI_DATATYPE_NULL, right, 0, MPI_COMM_WORLD),
       MPI_ERR_TYPE},
      {"Recv_c count -1", MPI_Recv_c(v, (MPI_Count)-1, MPI_INT, left, 0, MPI_COMM_WORLD, &st), MPI_ERR_COUNT},
      {"Recv_c tag -5", MPI_Recv_c(v, (MPI_Count)1, MPI_INT, left, -5, MPI_COMM_WORLD, &st), MPI_ERR_TAG},
      {"Recv_c rank size", MPI_Recv_c(v, (MPI_Count)1, MPI_INT, size, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK},
      {"Recv_c NULL buffer", MPI_Recv_c(NULL, (MPI_Count)2, MPI_INT, left, 0, MPI_COMM_WORLD, &st),
       MPI_ERR_BUFFER},
      {"Recv_c garbage type", MPI_Recv_c(v, (MPI_Count)1, garbage, left, 0, MPI_COMM_WORLD, &st),
       MPI_ERR_TYPE},
      {"Recv_c MPI_DATATYPE_NULL",
       MPI_Recv_c(v, (MPI_Count)1, MPI_DATATYPE_NULL, left, 0, MPI_COMM_WORLD, &st), MPI_ERR_TYPE},
      {"Isend_c count -1", MPI_Isend_c(v, (MPI_Count)-1, MPI_INT, right, 0, MPI_COMM_WORLD, &r),
       MPI_ERR_COUNT},
      {"Isend_c tag -3", MPI_Isend_c(v, (MPI_Count)1, MPI_INT, right, -3, MPI_COMM_WORLD, &r), MPI_ERR_TAG},
      {"Isend_c rank size+3", MPI_Isend_c(v, (MPI_Count)1, MPI_INT, size + 3, 0, MPI_COMM_WORLD, &r),
       MPI_ERR_RANK},
      {"Isend_c NULL buffer", MPI_Isend_c(NULL, (MPI_Count)1, MPI_INT, right, 0, MPI_COMM_WORLD, &r),
       MPI_ERR_BUFFER},
      {"Isend_c garbage type", MPI_Isend_c(v, (MPI_Count)1, garbage, right, 0, MPI_COMM_WORLD, &r),
       MPI_ERR_TYPE},
      {"Issend_c NULL type", MPI_Issend_c(v, (MPI_Count)1, MPI_DATATYPE_NULL, right, 0, MPI_COMM_WORLD, &r),
       MPI_ERR_TYPE},
      {"Irecv_c count -1", MPI_Irecv_c(v, (MPI_Count)-1, MPI_INT, left, 0, MPI_COMM_WORLD, &r),
       MPI_ERR_COUNT},
      {"Irecv_c tag -5", MPI_Irecv_c(v, (MPI_Count)1, MPI_INT, left, -5, MPI_COMM_WORLD, &r), MPI_ERR_TAG},
      {"Irecv_c rank -9", MPI_Irecv_c(v, (MPI_Count)1, MPI_INT, -9, 0, MPI_COMM_WORLD, &r), MPI_ERR_RANK},
      {"Irecv_c NULL buffer", MPI_Irecv_c(NULL, (MPI_Count)4, MPI_INT, left, 0, MPI_COMM_WORLD, &r),
       MPI_ERR_BUFFER},
      {"Irecv_c unused predefined value", MPI_Irecv_c(v, (MPI_Count)1, unused, left, 0, MPI_COMM_WORLD, &r),
       MPI_ERR_TYPE},
      {"Irecv_c MPI_DATATYPE_NULL",
       MPI_Irecv_c(v, (MPI_Count)1, MPI_DATATYPE_NULL, left, 0, MPI_COMM_WORLD, &r), MPI_ERR_TYPE},
      {"Sendrecv_c send count -1",
       MPI_Sendrecv_c(v, (MPI_Count)-1, MPI_INT, right, 0, v, (MPI_Count)1, MPI_INT, left, 0, MPI_COMM_WORLD,
                      &st),
       MPI_ERR_COUNT},
      {"Sendrecv_c recv count -1",
       MPI_Sendrecv_c(v, (MPI_Count)1, MPI_INT, right, 0, v, (MPI_Count)-1, MPI_INT, left, 0, MPI_COMM_WORLD,
                      &st),
       MPI_ERR_COUNT},
      {"Sendrecv_c recv tag -4",
       MPI_Sendrecv_c(v, (MPI_Count)1, MPI_INT, right, 0, v, (MPI_Count)1, MPI_INT, left, -4, MPI_COMM_WORLD,
                      &st),
       MPI_ERR_TAG},
      {"Sendrecv_c dest size",
       MPI_Sendrecv_c(v, (MPI_Count)1, MPI_INT, size, 0, v, (MPI_Count)1, MPI_INT, left, 0, MPI_COMM_WORLD,
                      &st),
       MPI_ERR_RANK},
      {"Sendrecv_c recv NULL buffer",
       MPI_Sendrecv_c(v, (MPI_Count)1, MPI_INT, right, 0, NULL, (MPI_Count)1, MPI_INT, left, 0,
                      MPI_COMM_WORLD, &st),
       MPI_ERR_BUFFER},
      {"Sendrecv_c recv NULL type",
       MPI_Sendrecv_c(v, (MPI_Count)1, MPI_INT, right, 0, v, (MPI_Count)1, MPI_DATATYPE_NULL, left, 0,
                      MPI_COMM_WORLD, &st),
       MPI_ERR_TYPE},
      {"Sendrecv_c send garbage type",
       MPI_Sendrecv_c(v, (MPI_Count)1, garbage, right, 0, v, (MPI_Count)1, MPI_INT, left, 0, MPI_COMM_WORLD,
                      &st),
       MPI_ERR_TYPE},
      {"Sendrecv_replace count -1",
       MPI_Sendrecv_replace(v, -1, MPI_INT, right, 0, left, 0, MPI_COMM_WORLD, &st), MPI_ERR_COUNT},
      {"Sendrecv_replace send tag -1",
       MPI_Sendrecv_replace(v, 1, MPI_INT, right, -1, left, 0, MPI_COMM_WORLD, &st), MPI_ERR_TAG},
      {"Sendrecv_replace send tag MPI_ANY_TAG",
       MPI_Sendrecv_replace(v, 1, MPI_INT, right, MPI_ANY_TAG, left, 0, MPI_COMM_WORLD, &st), MPI_ERR_TAG},
      {"Sendrecv_replace recv tag -9",
       MPI_Sendrecv_replace(v, 1, MPI_INT, right, 0, left, -9, MPI_COMM_WORLD, &st), MPI_ERR_TAG},
      {"Sendrecv_replace dest size",
       MPI_Sendrecv_replace(v, 1, MPI_INT, size, 0, left, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK},
      {"Sendrecv_replace source size",
       MPI_Sendrecv_replace(v, 1, MPI_INT, right, 0, size, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK},
      {"Sendrecv_replace NULL buffer",
       MPI_Sendrecv_replace(NULL, 2, MPI_INT, right, 0, left, 0, MPI_COMM_WORLD, &st), MPI_ERR_BUFFER},
      {"Sendrecv_replace garbage type",
       MPI_Sendrecv_replace(v, 1, garbage, right, 0, left, 0, MPI_COMM_WORLD, &st), MPI_ERR_TYPE},
      {"Sendrecv_replace MPI_DATATYPE_NULL",
       MPI_Sendrecv_replace(v, 1, MPI_DATATYPE_NULL, right, 0, left, 0, MPI_COMM_WORLD, &st), MPI_ERR_TYPE},
      {"Sendrecv_replace MPI_COMM_NULL",
       MPI_Sendrecv_replace(v, 1, MPI_INT, right, 0, left, 0, MPI_COMM_NULL, &st), MPI_ERR_COMM},
      {"Sendrecv_replace_c count -1",
       MPI_Sendrecv_replace_c(v, (MPI_Count)-1, MPI_INT, right, 0, left, 0, MPI_COMM_WORLD, &st),
       MPI_ERR_COUNT},
      {"Sendrecv_replace_c NULL type",
       MPI_Sendrecv_replace_c(v, (MPI_Count)1, MPI_DATATYPE_NULL, right, 0, left, 0, MPI_COMM_WORLD, &st),
       MPI_ERR_TYPE},
      {"Get_count_c NULL type", MPI_Get_count_c(&st, MPI_DATATYPE_NULL, &(MPI_Count){0}), MPI_ERR_TYPE},
      {"Get_elements_c garbage type", MPI_Get_elements_c(&st, garbage, &(MPI_Count){0}), MPI_ERR_TYPE},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    MPI_Error_string(cases[k].rc, text, &len);
    CHECK(err_class(cases[k].rc) == cases[k].cls, "%s: class %d, expected %d (%s)", cases[k].what,
          err_class(cases[k].rc), cases[k].cls, text);
  }
  /* Zero counts with NULL buffers are fine. */
  rc = MPI_Sendrecv_replace(NULL, 0, MPI_INT, right, 530, left, 530, MPI_COMM_WORLD, &st);
  int count = -1;
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(rc == MPI_SUCCESS && count == 0 && st.MPI_SOURCE == left, "zero-count replace with NULL: rc %d", rc);
  rc = MPI_Sendrecv_c(NULL, (MPI_Count)0, MPI_INT, right, 531, NULL, (MPI_Count)0, MPI_INT, left, 531,
                      MPI_COMM_WORLD, &st);
  CHECK(rc == MPI_SUCCESS && st.MPI_SOURCE == left, "zero-count Sendrecv_c with NULL: rc %d", rc);
  /* Nothing stray is left behind by the failed calls: a probe for anything finds nothing. */
  MPI_Barrier(MPI_COMM_WORLD);
  flag = 1;
  MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
  CHECK(!flag, "a stray message (source %d tag %d) is left", st.MPI_SOURCE, st.MPI_TAG);
  MPI_Barrier(MPI_COMM_WORLD);
  free(big);
  free(small);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* Small standard sends leave in one packet inside MPI_Isend and share one completed request: every
 * completion call must still treat each handle as its own, and the data must arrive in order. */
static void sends_complete_at_start(void) {
  enum { N = 200 };
  MPI_Request s[N], r[N];
  MPI_Status st[N];
  int out[N], in[N];
  for (int i = 0; i < N; ++i) {
    out[i] = rank * 100000 + i;
    in[i] = -1;
    MPI_Irecv(&in[i], 1, MPI_INT, left, 32001, MPI_COMM_WORLD, &r[i]);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < N; ++i) MPI_Isend(&out[i], 1, MPI_INT, right, 32001, MPI_COMM_WORLD, &s[i]);
  /* One at a time, each way of completing or freeing a send request. */
  int flag = 0, cancelled = -1, idx = -1, outcount = -1, indices[N];
  MPI_Request_get_status(s[0], &flag, &st[0]);
  CHECK(flag && s[0] != MPI_REQUEST_NULL, "get_status of a small send: flag %d", flag);
  MPI_Cancel(&s[1]);
  MPI_Wait(&s[1], &st[1]);
  MPI_Test_cancelled(&st[1], &cancelled);
  CHECK(!cancelled && s[1] == MPI_REQUEST_NULL, "cancel after a small send left: cancelled %d", cancelled);
  MPI_Request_free(&s[2]);
  CHECK(s[2] == MPI_REQUEST_NULL, "request_free of a small send");
  MPI_Test(&s[3], &flag, MPI_STATUS_IGNORE);
  CHECK(s[3] == MPI_REQUEST_NULL, "test of a small send");
  MPI_Waitany(N - 4, &s[4], &idx, MPI_STATUS_IGNORE);
  CHECK(idx >= 0 && s[4 + idx] == MPI_REQUEST_NULL, "waitany over small sends: index %d", idx);
  /* A small ring may have queued some of them: those are not complete yet, and keep their handles. */
  int null_before = 0, null_after = 0;
  for (int i = 4; i < N; ++i) null_before += s[i] == MPI_REQUEST_NULL;
  MPI_Testsome(N - 4, &s[4], &outcount, indices, MPI_STATUSES_IGNORE);
  for (int i = 4; i < N; ++i) null_after += s[i] == MPI_REQUEST_NULL;
  CHECK(outcount >= 1 && null_after - null_before == outcount, "testsome: outcount %d, %d handles nulled",
        outcount, null_after - null_before);
  for (int k = 0; k < outcount && k < N; ++k)
    CHECK(s[4 + indices[k]] == MPI_REQUEST_NULL, "testsome index %d still active", indices[k]);
  MPI_Waitall(N, s, MPI_STATUSES_IGNORE); /* only nulls are left */
  int all_null = 1;
  for (int i = 0; i < N; ++i) all_null &= s[i] == MPI_REQUEST_NULL;
  CHECK(all_null, "every send request is MPI_REQUEST_NULL after waitall");
  MPI_Waitall(N, r, st);
  int bad = 0;
  for (int i = 0; i < N; ++i) bad += in[i] != left * 100000 + i || st[i].MPI_SOURCE != left;
  CHECK(bad == 0, "%d of %d small messages wrong or out of order", bad, N);
  /* A freed handle of a small send is not taken again as an active one. */
  MPI_Request dup;
  MPI_Isend(&out[0], 1, MPI_INT, right, 32002, MPI_COMM_WORLD, &dup);
  MPI_Recv(&in[0], 1, MPI_INT, left, 32002, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Wait(&dup, MPI_STATUS_IGNORE);
  CHECK(dup == MPI_REQUEST_NULL && in[0] == left * 100000, "isend/recv/wait: got %d", in[0]);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  right = (rank + 1) % size;
  left = (rank + size - 1) % size;
  sendrecv_replace();
  cancel_and_status();
  sends_complete_at_start();
  large_count();
  datatypes();
  errors();
  return finish("pt2pt_more");
}
