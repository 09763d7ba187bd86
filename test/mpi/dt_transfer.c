/* Derived datatypes between two ranks, with different but compatible layouts on the two sides, at sizes
 * that go eagerly and by rendezvous: vector into indexed, a struct with gaps into contiguous, 3-D subarray
 * faces (each face of a 3-D block into the facing halo of the other rank), seeded random int-only type
 * trees on both sides, a type freed while its send is in flight, and a receive type that takes only a
 * prefix. Ranks 0 and 1 exchange; other ranks only take part in the barriers. Usage: dt_transfer [seed] */
#include <stdint.h>

#include "check.h"
#include "typemap.h"

static unsigned rng_state;
static unsigned rnd(unsigned n) {
  rng_state = rng_state * 1103515245u + 12345u;
  return ((rng_state >> 8) & 0xffffff) % n;
}

static int rank, nranks;

/* A random type tree of ints only (so any two have compatible signatures), with its model. */
static void random_int_type(int depth, MPI_Datatype *t, typemap *m) {
  if (depth == 0 || rnd(5) == 0) {
    *t = MPI_INT;
    *m = tm_basic(4, 4);
    return;
  }
  MPI_Datatype old;
  typemap om;
  random_int_type(depth - 1, &old, &om);
  const long ext = tm_extent(&om);
  switch (rnd(5)) {
    case 0: {
      const int n = 1 + (int)rnd(4);
      MPI_Type_contiguous(n, old, t);
      *m = tm_contiguous(n, &om);
      break;
    }
    case 1: {
      const int n = 1 + (int)rnd(5), bl = 1 + (int)rnd(3), stride = bl + (int)rnd(4);
      MPI_Type_vector(n, bl, stride, old, t);
      *m = tm_hvector(n, bl, stride * ext, &om);
      break;
    }
    case 2: {
      int n = 1 + (int)rnd(4), bl[4], d[4], at = 0;
      long lbl[4], ld[4];
      for (int i = 0; i < n; ++i) { /* increasing, non-overlapping: a receive type must not overlap */
        bl[i] = 1 + (int)rnd(3);
        d[i] = at + (int)rnd(3);
        at = d[i] + bl[i];
        lbl[i] = bl[i];
        ld[i] = d[i] * ext;
      }
      MPI_Type_indexed(n, bl, d, old, t);
      *m = tm_hindexed(n, lbl, ld, &om);
      break;
    }
    case 3: {
      int bl[2] = {1 + (int)rnd(2), 1};
      const long ext1 = ext * bl[0];
      MPI_Aint d[2] = {0, (MPI_Aint)(ext1 + 4 * (long)rnd(3))};
      MPI_Datatype ts[2] = {old, MPI_INT};
      typemap in = tm_basic(4, 4);
      const typemap *ms[2] = {&om, &in};
      long lbl[2] = {bl[0], bl[1]}, ld[2] = {d[0], d[1]};
      MPI_Type_create_struct(2, bl, d, ts, t);
      *m = tm_struct(2, lbl, ld, ms);
      tm_free(&in);
      break;
    }
    default: {
      const MPI_Aint extent = (MPI_Aint)(ext + 4 * (long)rnd(3));
      MPI_Type_create_resized(old, 0, extent, t);
      *m = tm_resized(&om, 0, extent);
      break;
    }
  }
  if (old != MPI_INT) MPI_Type_free(&old);
  tm_free(&om);
}

/* Fills the bytes a type touches with a pattern from `salt`; the rest of the buffer with 0x5a. */
static char *make_buffer(const typemap *m, long count, long *origin_off, long *span, unsigned salt) {
  long lo, hi;
  tm_span(m, count, &lo, &hi);
  *span = hi - lo + 64;
  *origin_off = 32 - lo;
  char *mem = malloc((size_t)*span);
  for (long i = 0; i < *span; ++i) mem[i] = (char)(i * 31 + salt);
  return mem;
}

/* One message from rank `from` to rank `to`: `scount` elements of st (model sm) into `rcount` of rt. The
 * receiver checks the received prefix against the sender's packed bytes and that no gap was touched. */
static void exchange(int from, int to, MPI_Datatype st, const typemap *sm, long scount, MPI_Datatype rt,
                     const typemap *rm, long rcount, int nonblocking, const char *what) {
  const long bytes = tm_size(sm) * scount;
  if (rank == from) {
    long off, span;
    char *mem = make_buffer(sm, scount, &off, &span, 7);
    if (nonblocking) {
      MPI_Request r;
      MPI_Isend(mem + off, (int)scount, st, to, 1, MPI_COMM_WORLD, &r);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else {
      MPI_Send(mem + off, (int)scount, st, to, 1, MPI_COMM_WORLD);
    }
    free(mem);
  } else if (rank == to) {
    long soff, sspan, off, span;
    char *smem = make_buffer(sm, scount, &soff, &sspan, 7); /* what the sender holds */
    char *expect_stream = malloc((size_t)bytes + 1);
    tm_pack(sm, scount, smem + soff, expect_stream);
    long lo, hi;
    tm_span(rm, rcount, &lo, &hi);
    span = hi - lo + 64;
    off = 32 - lo;
    char *mem = malloc((size_t)span), *expect = malloc((size_t)span);
    memset(mem, 0x5a, (size_t)span);
    memset(expect, 0x5a, (size_t)span);
    /* The expected receive buffer: the stream placed along the receive type's map, as far as it goes. */
    long at = 0;
    for (long k = 0; k < rcount && at < bytes; ++k)
      for (long i = 0; i < rm->n && at < bytes; ++i) {
        memcpy(expect + off + k * tm_extent(rm) + rm->e[i].off, expect_stream + at, (size_t)rm->e[i].len);
        at += rm->e[i].len;
      }
    MPI_Status st_;
    if (nonblocking) {
      MPI_Request r;
      MPI_Irecv(mem + off, (int)rcount, rt, from, 1, MPI_COMM_WORLD, &r);
      MPI_Wait(&r, &st_);
    } else {
      MPI_Recv(mem + off, (int)rcount, rt, from, 1, MPI_COMM_WORLD, &st_);
    }
    MPI_Count got = 0;
    MPI_Get_count_c(&st_, MPI_BYTE, &got);
    CHECK(got == bytes, "%s: %lld bytes arrived, %ld sent", what, (long long)got, bytes);
    long bad = -1;
    for (long i = 0; i < span && bad < 0; ++i)
      if (mem[i] != expect[i]) bad = i;
    CHECK(bad < 0, "%s (%ld bytes): first wrong byte at %ld of %ld (got %d, want %d)", what, bytes, bad, span,
          bad >= 0 ? mem[bad] : 0, bad >= 0 ? expect[bad] : 0);
    free(smem);
    free(expect_stream);
    free(mem);
    free(expect);
  }
}

static void test_vector_to_indexed(void) {
  /* counts chosen to go immediate, eager and by rendezvous */
  const long counts[] = {1, 16, 1000, 40000, 300000};
  for (size_t c = 0; c < sizeof counts / sizeof counts[0]; ++c) {
    const long n = counts[c];
    MPI_Datatype v, x;
    MPI_Type_vector((int)n, 2, 3, MPI_DOUBLE, &v);
    MPI_Type_commit(&v);
    typemap dbl = tm_basic(8, 8), vm = tm_hvector(n, 2, 24, &dbl);
    /* the receiver: blocks of 1 and 3 doubles alternating, 1 double apart */
    int *bl = malloc(sizeof(int) * (size_t)n), *d = malloc(sizeof(int) * (size_t)n);
    long *lbl = malloc(sizeof(long) * (size_t)n), *ld = malloc(sizeof(long) * (size_t)n);
    int at = 0;
    for (long i = 0; i < n; ++i) {
      bl[i] = (i % 2) ? 3 : 1;
      d[i] = at;
      at += bl[i] + 1;
      lbl[i] = bl[i];
      ld[i] = d[i] * 8L;
    }
    MPI_Type_indexed((int)n, bl, d, MPI_DOUBLE, &x);
    MPI_Type_commit(&x);
    typemap xm = tm_hindexed(n, lbl, ld, &dbl);
    char what[64];
    snprintf(what, sizeof what, "vector of %ld x 2 doubles -> indexed", n);
    /* n odd: one indexed element holds 2n - 1 doubles; two take the message as a prefix */
    const long rcount = n % 2 ? 2 : 1;
    exchange(0, 1, v, &vm, 1, x, &xm, rcount, 0, what);
    exchange(1, 0, v, &vm, 1, x, &xm, rcount, 1, what);
    MPI_Type_free(&v);
    MPI_Type_free(&x);
    tm_free(&dbl);
    tm_free(&vm);
    tm_free(&xm);
    free(bl);
    free(d);
    free(lbl);
    free(ld);
  }
}

static void test_struct_to_contiguous(void) {
  struct particle {
    double x[3];
    char tag;
    int id;
    double w;
  };
  int bl[4] = {3, 1, 1, 1};
  MPI_Aint d[4] = {0, 24, 28, 32};
  MPI_Datatype ts[4] = {MPI_DOUBLE, MPI_CHAR, MPI_INT, MPI_DOUBLE}, s;
  MPI_Type_create_struct(4, bl, d, ts, &s);
  MPI_Type_commit(&s);
  MPI_Aint lb, ext;
  MPI_Type_get_extent(s, &lb, &ext);
  CHECK(ext == (MPI_Aint)sizeof(struct particle), "particle extent %ld, C %zu", (long)ext,
        sizeof(struct particle));
  typemap dbl = tm_basic(8, 8), ch = tm_basic(1, 1), in = tm_basic(4, 4);
  const typemap *ms[4] = {&dbl, &ch, &in, &dbl};
  long lbl[4] = {3, 1, 1, 1}, ld[4] = {0, 24, 28, 32};
  typemap sm = tm_struct(4, lbl, ld, ms), bm = tm_basic(1, 1);
  const long counts[] = {1, 100, 5000, 100000};
  for (size_t c = 0; c < 4; ++c) {
    char what[64];
    snprintf(what, sizeof what, "%ld particles -> bytes", counts[c]);
    exchange(0, 1, s, &sm, counts[c], MPI_BYTE, &bm, counts[c] * 37, c % 2, what);
    snprintf(what, sizeof what, "bytes -> %ld particles", counts[c]);
    exchange(1, 0, MPI_BYTE, &bm, counts[c] * 37, s, &sm, counts[c], 0, what);
  }
  MPI_Type_free(&s);
  tm_free(&dbl);
  tm_free(&ch);
  tm_free(&in);
  tm_free(&sm);
  tm_free(&bm);
}

static int keep_range(int dim, long index, const void *arg) {
  const long *s = (const long *)arg;
  return index >= s[dim] && index < s[dim] + s[3 + dim];
}

/* A halo exchange's messages: each face of an n^3 block of doubles (with a one-cell halo, so (n+2)^3)
 * into the opposite halo of the other rank. */
static void test_subarray_faces(int n) {
  const int full = n + 2;
  typemap dbl = tm_basic(8, 8);
  for (int dim = 0; dim < 3; ++dim)
    for (int side = 0; side < 2; ++side) {
      int sizes[3] = {full, full, full}, sub[3] = {n, n, n}, send_at[3] = {1, 1, 1}, recv_at[3] = {1, 1, 1};
      sub[dim] = 1;
      send_at[dim] = side ? n : 1;     /* the last or first interior plane */
      recv_at[dim] = side ? 0 : n + 1; /* lands in the opposite halo plane */
      MPI_Datatype s, r;
      MPI_Type_create_subarray(3, sizes, sub, send_at, MPI_ORDER_C, MPI_DOUBLE, &s);
      MPI_Type_create_subarray(3, sizes, sub, recv_at, MPI_ORDER_C, MPI_DOUBLE, &r);
      MPI_Type_commit(&s);
      MPI_Type_commit(&r);
      long msz[3] = {full, full, full}, sa[6], ra[6];
      for (int i = 0; i < 3; ++i) {
        sa[i] = send_at[i];
        ra[i] = recv_at[i];
        sa[3 + i] = ra[3 + i] = sub[i];
      }
      typemap sm = tm_array(3, msz, keep_range, sa, &dbl), rm = tm_array(3, msz, keep_range, ra, &dbl);
      char what[80];
      snprintf(what, sizeof what, "%d^3 face %c%s", n, "xyz"[dim], side ? "+" : "-");
      exchange(0, 1, s, &sm, 1, r, &rm, 1, side, what);
      exchange(1, 0, s, &sm, 1, r, &rm, 1, !side, what);
      MPI_Type_free(&s);
      MPI_Type_free(&r);
      tm_free(&sm);
      tm_free(&rm);
    }
  tm_free(&dbl);
}

static void test_random_pairs(unsigned seed, int n) {
  rng_state = seed;
  for (int i = 0; i < n; ++i) {
    MPI_Datatype s, r;
    typemap sm, rm;
    random_int_type(3, &s, &sm);
    random_int_type(3, &r, &rm);
    if (s != MPI_INT) MPI_Type_commit(&s);
    if (r != MPI_INT) MPI_Type_commit(&r);
    /* Mostly small, sometimes large enough for a rendezvous. */
    const long scount = rnd(8) == 0 ? 20000 + (long)rnd(20000) : 1 + (long)rnd(40);
    const long ints = tm_size(&sm) / 4 * scount, per = tm_size(&rm) / 4;
    const long rcount = (ints + per - 1) / per + (long)rnd(2);
    char what[80];
    snprintf(what, sizeof what, "random pair %d (seed %u)", i, seed);
    exchange(i % 2, 1 - i % 2, s, &sm, scount, r, &rm, rcount, (int)rnd(2), what);
    if (s != MPI_INT) MPI_Type_free(&s);
    if (r != MPI_INT) MPI_Type_free(&r);
    tm_free(&sm);
    tm_free(&rm);
  }
}

/* Pieces of kilobytes on both sides, a megabyte in all: by default read as common chunks by both ends at
 * once (the shared copy between layouts), in both directions and with either side contiguous. */
static void test_large_pieces(void) {
  typemap dbl = tm_basic(8, 8), bm = tm_basic(1, 1);
  MPI_Datatype v, x;
  MPI_Type_vector(128, 1024, 1100, MPI_DOUBLE, &v); /* 128 pieces of 8 KiB */
  MPI_Type_commit(&v);
  typemap vm = tm_hvector(128, 1024, 1100 * 8, &dbl);
  int bl[256], d[256];
  long lbl[256], ld[256];
  for (int i = 0; i < 256; ++i) { /* 256 pieces of 4 KiB, 3 doubles apart */
    bl[i] = 512;
    d[i] = i * 515;
    lbl[i] = 512;
    ld[i] = d[i] * 8L;
  }
  MPI_Type_indexed(256, bl, d, MPI_DOUBLE, &x);
  MPI_Type_commit(&x);
  typemap xm = tm_hindexed(256, lbl, ld, &dbl);
  exchange(0, 1, v, &vm, 1, x, &xm, 1, 0, "1 MiB vector of 8 KiB pieces -> indexed of 4 KiB pieces");
  exchange(1, 0, x, &xm, 1, v, &vm, 1, 1, "1 MiB indexed of 4 KiB pieces -> vector of 8 KiB pieces");
  exchange(0, 1, v, &vm, 1, MPI_BYTE, &bm, 1 << 20, 0, "1 MiB vector of 8 KiB pieces -> bytes");
  exchange(1, 0, MPI_BYTE, &bm, 1 << 20, x, &xm, 1, 0, "1 MiB of bytes -> indexed of 4 KiB pieces");
  /* 160 KiB: below the contiguous shared copy's 256 KiB, above the 32 KiB from which layouts share. */
  MPI_Datatype v2, x2;
  MPI_Type_vector(20, 1024, 1100, MPI_DOUBLE, &v2);
  MPI_Type_commit(&v2);
  typemap v2m = tm_hvector(20, 1024, 1100 * 8, &dbl);
  MPI_Type_indexed(40, bl, d, MPI_DOUBLE, &x2);
  MPI_Type_commit(&x2);
  typemap x2m = tm_hindexed(40, lbl, ld, &dbl);
  exchange(0, 1, v2, &v2m, 1, x2, &x2m, 1, 0, "160 KiB vector of 8 KiB pieces -> indexed of 4 KiB pieces");
  exchange(1, 0, x2, &x2m, 1, v2, &v2m, 1, 1, "160 KiB indexed of 4 KiB pieces -> vector of 8 KiB pieces");
  MPI_Type_free(&v);
  MPI_Type_free(&x);
  MPI_Type_free(&v2);
  MPI_Type_free(&x2);
  tm_free(&dbl);
  tm_free(&bm);
  tm_free(&vm);
  tm_free(&xm);
  tm_free(&v2m);
  tm_free(&x2m);
}

/* A window of shared copies between layouts, more than the target keeps in flight (8): each message
 * 160 KiB, a vector of 8 KiB pieces into an indexed type of 4 KiB pieces, all posted at once as osu_bw
 * does. With `sender_computes` the sender stays out of MPI for 50 ms after posting, so the target must
 * take back every chunk it left to the origin. */
static void test_share_window(int sender_computes) {
  enum { kMsgs = 24, kVecBlocks = 20, kVecBlock = 1024, kVecStride = 1100, kIdxBlocks = 40, kIdxBlock = 512 };
  const long elems = (long)kVecBlocks * kVecBlock;
  if (rank == 0) {
    MPI_Datatype v;
    MPI_Type_vector(kVecBlocks, kVecBlock, kVecStride, MPI_DOUBLE, &v);
    MPI_Type_commit(&v);
    const long span = (long)kVecBlocks * kVecStride;
    double *a = malloc(sizeof(double) * (size_t)span * kMsgs);
    MPI_Request r[kMsgs];
    for (int m = 0; m < kMsgs; ++m) {
      double *b = a + (long)m * span;
      for (long k = 0; k < elems; ++k) b[(k / kVecBlock) * kVecStride + k % kVecBlock] = m * 1e6 + (double)k;
      MPI_Isend(b, 1, v, 1, m, MPI_COMM_WORLD, &r[m]);
    }
    if (sender_computes) {
      const double until = MPI_Wtime() + 0.05;
      volatile double x = 0;
      while (MPI_Wtime() < until) x += 1;
    }
    MPI_Waitall(kMsgs, r, MPI_STATUSES_IGNORE);
    MPI_Type_free(&v);
    free(a);
  } else if (rank == 1) {
    int bl[kIdxBlocks], d[kIdxBlocks];
    for (int i = 0; i < kIdxBlocks; ++i) {
      bl[i] = kIdxBlock;
      d[i] = i * (kIdxBlock + 3);
    }
    MPI_Datatype x;
    MPI_Type_indexed(kIdxBlocks, bl, d, MPI_DOUBLE, &x);
    MPI_Type_commit(&x);
    const long span = (long)kIdxBlocks * (kIdxBlock + 3);
    double *a = malloc(sizeof(double) * (size_t)span * kMsgs);
    for (long i = 0; i < span * kMsgs; ++i) a[i] = -1;
    MPI_Request r[kMsgs];
    for (int m = 0; m < kMsgs; ++m) MPI_Irecv(a + (long)m * span, 1, x, 0, m, MPI_COMM_WORLD, &r[m]);
    MPI_Waitall(kMsgs, r, MPI_STATUSES_IGNORE);
    long bad = 0;
    for (int m = 0; m < kMsgs; ++m) {
      const double *b = a + (long)m * span;
      for (long k = 0; k < elems; ++k)
        bad += b[(k / kIdxBlock) * (kIdxBlock + 3) + k % kIdxBlock] != m * 1e6 + (double)k;
      for (long blk = 0; blk < kIdxBlocks; ++blk)
        for (long j = kIdxBlock; j < kIdxBlock + 3; ++j) bad += b[blk * (kIdxBlock + 3) + j] != -1;
    }
    CHECK(bad == 0, "window of %d 160 KiB layout shares%s: %ld doubles wrong or gaps written", kMsgs,
          sender_computes ? ", sender out of MPI" : "", bad);
    MPI_Type_free(&x);
    free(a);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* MPI_Type_free while the send is in flight: the operation keeps the type alive. */
static void test_free_in_flight(void) {
  const int n = 200000;
  if (rank == 0) {
    double *a = malloc(sizeof(double) * 2 * n);
    for (int i = 0; i < 2 * n; ++i) a[i] = i;
    MPI_Datatype v;
    MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &v);
    MPI_Type_commit(&v);
    MPI_Request r[2];
    MPI_Isend(a, 1, v, 1, 2, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(a + 1, 1, v, 1, 3, MPI_COMM_WORLD, &r[1]);
    MPI_Type_free(&v);
    /* New types that may reuse the freed one's memory if it were released too early. */
    MPI_Datatype junk[80];
    for (int i = 0; i < 80; ++i) {
      MPI_Type_contiguous(i + 1, MPI_CHAR, &junk[i]);
      MPI_Type_commit(&junk[i]);
    }
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    for (int i = 0; i < 80; ++i) MPI_Type_free(&junk[i]);
    free(a);
  } else if (rank == 1) {
    double *b = malloc(sizeof(double) * n), *c = malloc(sizeof(double) * n);
    MPI_Barrier(MPI_COMM_SELF);
    MPI_Recv(c, n, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(b, n, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int bad = 0;
    for (int i = 0; i < n; ++i) bad += b[i] != 2.0 * i || c[i] != 2.0 * i + 1;
    CHECK(bad == 0, "sends whose type was freed in flight: %d wrong values", bad);
    free(b);
    free(c);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  const unsigned seed = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 20261122u;
  if (nranks >= 2) {
    test_vector_to_indexed();
    test_struct_to_contiguous();
    test_subarray_faces(8);
    test_subarray_faces(64);
    test_random_pairs(seed, 300);
    test_large_pieces();
    test_share_window(0);
    test_share_window(1);
    test_free_in_flight();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return finish("dt_transfer");
}
