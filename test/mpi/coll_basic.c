/* The first collectives against serial references: Barrier, Bcast, Reduce, Allreduce, Gather, Scatter,
 * Allgather, Alltoall with 0, 1, 7, 1000 and 100000 elements, every root, the MPI_IN_PLACE forms,
 * every predefined operation on a representative of every type class MPI allows it on (integer-valued
 * data, so floating sums are exact), MINLOC/MAXLOC with ties, user operations (a non-commutative 2x2
 * matrix product checked for rank order, a commutative one from MPI_Op_create_c), MPI_Reduce_local,
 * arguments that are significant at the root only, the same on a reordered and on split communicators
 * and MPI_COMM_SELF, and bad arguments under MPI_ERRORS_RETURN with their classes. Runs with 1 to 4
 * ranks. */
#define _POSIX_C_SOURCE 200809L
#include <complex.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "check.h"

static int wrank, wsize;

/* Fails (without counting a pass) when an MPI call does not succeed. */
#define OK(call)                                                    \
  do {                                                              \
    int rc_ = (call);                                               \
    if (rc_ != MPI_SUCCESS) CHECK(0, "%s returned %d", #call, rc_); \
  } while (0)

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) {
    fprintf(stderr, "out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  return p;
}

/* --- element types: generators, serial reference operations, comparisons ------------------------- */

enum { GEN_ARITH, GEN_LOGIC, GEN_BITS };
enum { C_ARITH = 1, C_CPLX = 2, C_LOGIC = 4, C_BITS = 8, C_PAIR = 16 };

/* Small integers with negatives (arithmetic), zero or values other than 1 (logical), or spread bits. */
static long long value_of(int r, size_t i, int gen) {
  switch (gen) {
    case GEN_ARITH:
      return (long long)((r * 5 + i * 3) % 7) - 3;
    case GEN_LOGIC:
      return (r + i) % 3 == 0 ? 0 : (long long)((r * 3 + i) % 5 + 1);
    default:
      return (long long)(((unsigned long long)r * 0x9E3779B97F4A7C15ull + i * 0xBF58476D1CE4E5B9ull) >> 17);
  }
}

#define INT_TYPE(T, N)                                                 \
  static void gen_##N(void *b, int r, size_t n, int g) {               \
    T *x = b;                                                          \
    const bool unsig = (T)-1 > 0;                                      \
    for (size_t i = 0; i < n; ++i) {                                   \
      long long v = value_of(r, i, g);                                 \
      x[i] = (T)(unsig && g == GEN_ARITH ? v + 3 : v);                 \
    }                                                                  \
  }                                                                    \
  static void ref_##N(MPI_Op op, const void *a_, void *b_, size_t n) { \
    const T *a = a_;                                                   \
    T *b = b_;                                                         \
    for (size_t i = 0; i < n; ++i) {                                   \
      T x = a[i], y = b[i];                                            \
      if (op == MPI_SUM)                                               \
        b[i] = (T)(x + y);                                             \
      else if (op == MPI_PROD)                                         \
        b[i] = (T)(x * y);                                             \
      else if (op == MPI_MIN)                                          \
        b[i] = x < y ? x : y;                                          \
      else if (op == MPI_MAX)                                          \
        b[i] = x > y ? x : y;                                          \
      else if (op == MPI_LAND)                                         \
        b[i] = (T)(x && y);                                            \
      else if (op == MPI_LOR)                                          \
        b[i] = (T)(x || y);                                            \
      else if (op == MPI_LXOR)                                         \
        b[i] = (T)(!x != !y);                                          \
      else if (op == MPI_BAND)                                         \
        b[i] = (T)(x & y);                                             \
      else if (op == MPI_BOR)                                          \
        b[i] = (T)(x | y);                                             \
      else if (op == MPI_BXOR)                                         \
        b[i] = (T)(x ^ y);                                             \
    }                                                                  \
  }                                                                    \
  static long cmp_##N(const void *a_, const void *b_, size_t n) {      \
    const T *a = a_, *b = b_;                                          \
    for (size_t i = 0; i < n; ++i)                                     \
      if (a[i] != b[i]) return (long)i;                                \
    return -1;                                                         \
  }

#define FLOAT_TYPE(T, N)                                               \
  static void gen_##N(void *b, int r, size_t n, int g) {               \
    T *x = b;                                                          \
    for (size_t i = 0; i < n; ++i) x[i] = (T)value_of(r, i, g);        \
  }                                                                    \
  static void ref_##N(MPI_Op op, const void *a_, void *b_, size_t n) { \
    const T *a = a_;                                                   \
    T *b = b_;                                                         \
    for (size_t i = 0; i < n; ++i) {                                   \
      T x = a[i], y = b[i];                                            \
      if (op == MPI_SUM)                                               \
        b[i] = x + y;                                                  \
      else if (op == MPI_PROD)                                         \
        b[i] = x * y;                                                  \
      else if (op == MPI_MIN)                                          \
        b[i] = x < y ? x : y;                                          \
      else if (op == MPI_MAX)                                          \
        b[i] = x > y ? x : y;                                          \
    }                                                                  \
  }                                                                    \
  static long cmp_##N(const void *a_, const void *b_, size_t n) {      \
    const T *a = a_, *b = b_;                                          \
    for (size_t i = 0; i < n; ++i)                                     \
      if (a[i] != b[i]) return (long)i;                                \
    return -1;                                                         \
  }

#define COMPLEX_TYPE(R, N)                                                                 \
  static void gen_##N(void *b, int r, size_t n, int g) {                                   \
    R _Complex *x = b;                                                                     \
    (void)g;                                                                               \
    for (size_t i = 0; i < n; ++i) {                                                       \
      R re = (R)value_of(r, i, GEN_ARITH), im = (R)((long long)((r * 3 + i * 5) % 5) - 2); \
      x[i] = re + im * (R _Complex)I;                                                      \
    }                                                                                      \
  }                                                                                        \
  static void ref_##N(MPI_Op op, const void *a_, void *b_, size_t n) {                     \
    const R _Complex *a = a_;                                                              \
    R _Complex *b = b_;                                                                    \
    for (size_t i = 0; i < n; ++i) b[i] = op == MPI_SUM ? a[i] + b[i] : a[i] * b[i];       \
  }                                                                                        \
  static long cmp_##N(const void *a_, const void *b_, size_t n) {                          \
    const R _Complex *a = a_, *b = b_;                                                     \
    for (size_t i = 0; i < n; ++i)                                                         \
      if (a[i] != b[i]) return (long)i;                                                    \
    return -1;                                                                             \
  }

/* {value, index} pairs: few distinct values, so many ties; the index is not always the rank, so the
 * lower index sometimes belongs to the higher rank. */
#define PAIR_TYPE(V, X, N)                                                \
  typedef struct {                                                        \
    V v;                                                                  \
    X i;                                                                  \
  } N##_t;                                                                \
  static void gen_##N(void *b, int r, size_t n, int g) {                  \
    N##_t *x = b;                                                         \
    (void)g;                                                              \
    memset(b, 0, n * sizeof *x);                                          \
    for (size_t i = 0; i < n; ++i) {                                      \
      x[i].v = (V)((r + i) % 3);                                          \
      x[i].i = (X)(i % 2 ? r : 10 - r);                                   \
    }                                                                     \
  }                                                                       \
  static void ref_##N(MPI_Op op, const void *a_, void *b_, size_t n) {    \
    const N##_t *a = a_;                                                  \
    N##_t *b = b_;                                                        \
    for (size_t i = 0; i < n; ++i) {                                      \
      bool better = op == MPI_MINLOC ? a[i].v < b[i].v : a[i].v > b[i].v; \
      if (better)                                                         \
        b[i] = a[i];                                                      \
      else if (a[i].v == b[i].v && a[i].i < b[i].i)                       \
        b[i].i = a[i].i;                                                  \
    }                                                                     \
  }                                                                       \
  static long cmp_##N(const void *a_, const void *b_, size_t n) {         \
    const N##_t *a = a_, *b = b_;                                         \
    for (size_t i = 0; i < n; ++i)                                        \
      if (a[i].v != b[i].v || a[i].i != b[i].i) return (long)i;           \
    return -1;                                                            \
  }

INT_TYPE(signed char, schar)
INT_TYPE(unsigned char, uchar)
INT_TYPE(short, short)
INT_TYPE(int, int)
INT_TYPE(unsigned, unsigned)
INT_TYPE(long, long)
INT_TYPE(unsigned long long, ull)
INT_TYPE(int8_t, i8)
INT_TYPE(uint64_t, u64)
FLOAT_TYPE(float, float)
FLOAT_TYPE(double, double)
FLOAT_TYPE(long double, ldouble)
COMPLEX_TYPE(float, cfloat)
COMPLEX_TYPE(double, cdouble)
COMPLEX_TYPE(long double, cldouble)

/* C _Bool: the logical operations only. */
static void gen_bool(void *b, int r, size_t n, int g) {
  bool *x = b;
  for (size_t i = 0; i < n; ++i) x[i] = value_of(r, i, g) != 0;
}
static void ref_bool(MPI_Op op, const void *a_, void *b_, size_t n) {
  const bool *a = a_;
  bool *b = b_;
  for (size_t i = 0; i < n; ++i)
    b[i] = op == MPI_LAND ? a[i] && b[i] : op == MPI_LOR ? a[i] || b[i] : a[i] != b[i];
}
static long cmp_bool(const void *a_, const void *b_, size_t n) {
  const bool *a = a_, *b = b_;
  for (size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return (long)i;
  return -1;
}
PAIR_TYPE(float, int, float_int)
PAIR_TYPE(double, int, double_int)
PAIR_TYPE(long, int, long_int)
PAIR_TYPE(int, int, int2)
PAIR_TYPE(short, int, short_int)
PAIR_TYPE(long double, int, ldouble_int)
PAIR_TYPE(float, float, real2)
PAIR_TYPE(double, double, double2)

typedef struct {
  const char *name;
  MPI_Datatype type;
  size_t extent;
  void (*gen)(void *, int, size_t, int);
  void (*ref)(MPI_Op, const void *, void *, size_t);
  long (*cmp)(const void *, const void *, size_t);
  int classes;   /* the operations MPI defines on the type */
  int unchecked; /* classes MPI forbids but Pamir cannot tell apart (MPI_INTEGER is a C int to it) */
} TypeCase;

#define TC(h, n, T, cls, unchecked) \
  { #h, h, sizeof(T), gen_##n, ref_##n, cmp_##n, cls, unchecked }
#define INTS (C_ARITH | C_LOGIC | C_BITS)

static TypeCase types[] = {
    TC(MPI_INT, int, int, INTS, 0),
    TC(MPI_SIGNED_CHAR, schar, signed char, INTS, 0),
    TC(MPI_UNSIGNED_CHAR, uchar, unsigned char, INTS, 0),
    TC(MPI_SHORT, short, short, INTS, 0),
    TC(MPI_UNSIGNED, unsigned, unsigned, INTS, 0),
    TC(MPI_LONG, long, long, INTS, 0),
    TC(MPI_UNSIGNED_LONG_LONG, ull, unsigned long long, INTS, 0),
    TC(MPI_INT8_T, i8, int8_t, INTS, 0),
    TC(MPI_UINT64_T, u64, uint64_t, INTS, 0),
    TC(MPI_INTEGER, int, int, C_ARITH | C_BITS, C_LOGIC),
    TC(MPI_FLOAT, float, float, C_ARITH, 0),
    TC(MPI_DOUBLE, double, double, C_ARITH, 0),
    TC(MPI_LONG_DOUBLE, ldouble, long double, C_ARITH, 0),
    TC(MPI_REAL, float, float, C_ARITH, 0),
    TC(MPI_DOUBLE_PRECISION, double, double, C_ARITH, 0),
    TC(MPI_C_FLOAT_COMPLEX, cfloat, float _Complex, C_CPLX, 0),
    TC(MPI_C_DOUBLE_COMPLEX, cdouble, double _Complex, C_CPLX, 0),
    TC(MPI_C_LONG_DOUBLE_COMPLEX, cldouble, long double _Complex, C_CPLX, 0),
    TC(MPI_C_BOOL, bool, bool, C_LOGIC, 0),
    TC(MPI_LOGICAL, int, int, C_LOGIC, 0),
    TC(MPI_BYTE, uchar, unsigned char, C_BITS, 0),
    TC(MPI_FLOAT_INT, float_int, float_int_t, C_PAIR, 0),
    TC(MPI_DOUBLE_INT, double_int, double_int_t, C_PAIR, 0),
    TC(MPI_LONG_INT, long_int, long_int_t, C_PAIR, 0),
    TC(MPI_2INT, int2, int2_t, C_PAIR, 0),
    TC(MPI_SHORT_INT, short_int, short_int_t, C_PAIR, 0),
    TC(MPI_LONG_DOUBLE_INT, ldouble_int, ldouble_int_t, C_PAIR, 0),
    TC(MPI_2REAL, real2, real2_t, C_PAIR, 0),
    TC(MPI_2DOUBLE_PRECISION, double2, double2_t, C_PAIR, 0),
    TC(MPI_2INTEGER, int2, int2_t, C_PAIR, 0),
};
#define NTYPES ((int)(sizeof types / sizeof types[0]))

typedef struct {
  const char *name;
  MPI_Op op;
  int classes; /* it is defined on types of these classes */
  int gen;
} OpCase;

static const OpCase ops[] = {
    {"MPI_SUM", MPI_SUM, C_ARITH | C_CPLX, GEN_ARITH},
    {"MPI_PROD", MPI_PROD, C_ARITH | C_CPLX, GEN_ARITH},
    {"MPI_MIN", MPI_MIN, C_ARITH, GEN_ARITH},
    {"MPI_MAX", MPI_MAX, C_ARITH, GEN_ARITH},
    {"MPI_LAND", MPI_LAND, C_LOGIC, GEN_LOGIC},
    {"MPI_LOR", MPI_LOR, C_LOGIC, GEN_LOGIC},
    {"MPI_LXOR", MPI_LXOR, C_LOGIC, GEN_LOGIC},
    {"MPI_BAND", MPI_BAND, C_BITS, GEN_BITS},
    {"MPI_BOR", MPI_BOR, C_BITS, GEN_BITS},
    {"MPI_BXOR", MPI_BXOR, C_BITS, GEN_BITS},
    {"MPI_MINLOC", MPI_MINLOC, C_PAIR, GEN_ARITH},
    {"MPI_MAXLOC", MPI_MAXLOC, C_PAIR, GEN_ARITH},
};
#define NOPS ((int)(sizeof ops / sizeof ops[0]))

static const TypeCase *find_type(MPI_Datatype t) {
  for (int i = 0; i < NTYPES; ++i)
    if (types[i].type == t) return &types[i];
  abort();
}

static const OpCase *find_op(MPI_Op op) {
  for (int i = 0; i < NOPS; ++i)
    if (ops[i].op == op) return &ops[i];
  abort();
}

/* The reduction over ranks 0..p-1 in rank order, computed locally. */
static void reference(const TypeCase *t, const OpCase *o, int p, size_t n, void *out, void *tmp) {
  t->gen(out, 0, n, o->gen);
  for (int r = 1; r < p; ++r) {
    t->gen(tmp, r, n, o->gen);
    /* out = out op tmp, through ref's (in, inout) form: commutative operations only here */
    t->ref(o->op, tmp, out, n);
  }
}

/* --- reductions with predefined operations ---------------------------------------------------------- */

static void check_reduction(const char *what, const TypeCase *t, const OpCase *o, size_t n, int root,
                            const void *got, const void *want) {
  long bad = t->cmp(got, want, n);
  CHECK(bad < 0, "%s %s on %s, %zu elements, root %d: element %ld differs", what, o->name, t->name, n, root,
        bad);
}

static void reductions_case(MPI_Comm comm, const TypeCase *t, const OpCase *o, size_t n, int root) {
  int rank, p;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  const size_t bytes = n * t->extent;
  unsigned char *send = xmalloc(bytes), *recv = xmalloc(bytes + 16), *want = xmalloc(bytes),
                *tmp = xmalloc(bytes);
  reference(t, o, p, n, want, tmp);
  const int count = (int)n;

  /* MPI_Reduce; a non-root passes NULL as recvbuf (insignificant there). */
  t->gen(send, rank, n, o->gen);
  memset(recv, 0xA5, bytes + 16);
  OK(MPI_Reduce(send, rank == root ? recv : NULL, count, t->type, o->op, root, comm));
  if (rank == root) {
    check_reduction("MPI_Reduce", t, o, n, root, recv, want);
    CHECK(recv[bytes] == 0xA5 && recv[bytes + 15] == 0xA5, "MPI_Reduce wrote past the buffer");
  }

  /* MPI_Reduce, MPI_IN_PLACE at the root. */
  t->gen(rank == root ? recv : send, rank, n, o->gen);
  OK(MPI_Reduce(rank == root ? MPI_IN_PLACE : send, recv, count, t->type, o->op, root, comm));
  if (rank == root) check_reduction("MPI_Reduce(in place)", t, o, n, root, recv, want);

  /* MPI_Allreduce, and in place. */
  t->gen(send, rank, n, o->gen);
  memset(recv, 0x5A, bytes);
  OK(MPI_Allreduce(send, recv, count, t->type, o->op, comm));
  check_reduction("MPI_Allreduce", t, o, n, root, recv, want);
  t->gen(recv, rank, n, o->gen);
  OK(MPI_Allreduce(MPI_IN_PLACE, recv, count, t->type, o->op, comm));
  check_reduction("MPI_Allreduce(in place)", t, o, n, root, recv, want);

  /* The large-count variants. */
  t->gen(send, rank, n, o->gen);
  OK(MPI_Allreduce_c(send, recv, (MPI_Count)n, t->type, o->op, comm));
  check_reduction("MPI_Allreduce_c", t, o, n, root, recv, want);

  /* MPI_Reduce_local: contribution of "rank 1" into that of "rank 0". */
  t->gen(send, 1, n, o->gen);
  t->gen(recv, 0, n, o->gen);
  t->gen(want, 0, n, o->gen);
  t->ref(o->op, send, want, n);
  OK(MPI_Reduce_local(send, recv, count, t->type, o->op));
  check_reduction("MPI_Reduce_local", t, o, n, root, recv, want);

  free(send);
  free(recv);
  free(want);
  free(tmp);
}

static void reductions(MPI_Comm comm, bool full) {
  int p, cases = 0;
  MPI_Comm_size(comm, &p);
  static const size_t counts[] = {0, 1, 7, 1000};
  for (int ti = 0; ti < NTYPES; ++ti) {
    for (int oi = 0; oi < NOPS; ++oi) {
      if (!(types[ti].classes & ops[oi].classes)) continue;
      for (size_t k = 0; k < sizeof counts / sizeof counts[0]; ++k) {
        if (!full && counts[k] != 7) continue;
        reductions_case(comm, &types[ti], &ops[oi], counts[k], cases++ % p);
      }
    }
  }
  /* Every root, and 100000 elements. */
  const TypeCase *tint = find_type(MPI_INT), *tdouble = find_type(MPI_DOUBLE),
                 *tdi = find_type(MPI_DOUBLE_INT);
  const OpCase *sum = find_op(MPI_SUM), *prod = find_op(MPI_PROD), *max = find_op(MPI_MAX),
               *maxloc = find_op(MPI_MAXLOC);
  for (int root = 0; root < p; ++root) {
    reductions_case(comm, tint, sum, 1000, root);
    reductions_case(comm, tint, prod, 7, root);
    reductions_case(comm, tdouble, sum, 7, root);
    reductions_case(comm, tdi, maxloc, 7, root);
    if (full) {
      reductions_case(comm, tint, sum, 100000, root);
      reductions_case(comm, tdouble, max, 100000, root);
    }
  }
}

/* --- user operations -------------------------------------------------------------------------------- */

static int user_fn_bad_type;

/* 2x2 matrices of unsigned (row major, four MPI_UNSIGNED each): inout = in x inout. Not commutative. */
static void matmul(void *in_, void *inout_, int *len, MPI_Datatype *dt) {
  if (*dt != MPI_UNSIGNED || *len % 4) ++user_fn_bad_type;
  const unsigned *a = in_;
  unsigned *b = inout_;
  for (int k = 0; k + 3 < *len; k += 4) {
    unsigned c0 = a[k] * b[k] + a[k + 1] * b[k + 2], c1 = a[k] * b[k + 1] + a[k + 1] * b[k + 3];
    unsigned c2 = a[k + 2] * b[k] + a[k + 3] * b[k + 2], c3 = a[k + 2] * b[k + 1] + a[k + 3] * b[k + 3];
    b[k] = c0;
    b[k + 1] = c1;
    b[k + 2] = c2;
    b[k + 3] = c3;
  }
}

static void matrices(unsigned *m, int r, size_t nmat) {
  for (size_t k = 0; k < nmat; ++k) {
    m[4 * k] = (unsigned)(r + k + 1);
    m[4 * k + 1] = (unsigned)(2 * r + 1);
    m[4 * k + 2] = (unsigned)(r * k + 3);
    m[4 * k + 3] = (unsigned)(k % 5);
  }
}

/* A0 x A1 x ... x A(p-1). */
static void matrices_product(unsigned *out, int p, size_t nmat) {
  unsigned *a = xmalloc(nmat * 4 * sizeof *a);
  matrices(out, p - 1, nmat);
  for (int r = p - 2; r >= 0; --r) {
    matrices(a, r, nmat);
    int len = (int)(nmat * 4);
    MPI_Datatype t = MPI_UNSIGNED;
    matmul(a, out, &len, &t); /* out = A(r) x out */
  }
  free(a);
}

static void isum_c(void *in_, void *inout_, MPI_Count *len, MPI_Datatype *dt) {
  if (*dt != MPI_INT) ++user_fn_bad_type;
  const int *a = in_;
  int *b = inout_;
  for (MPI_Count i = 0; i < *len; ++i) b[i] += a[i];
}

static void user_ops(MPI_Comm comm) {
  int rank, p;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  MPI_Op mat, usum;
  OK(MPI_Op_create(matmul, 0, &mat));
  OK(MPI_Op_create_c(isum_c, 1, &usum));
  int commute = -1;
  OK(MPI_Op_commutative(mat, &commute));
  CHECK(commute == 0, "user matmul op commutative %d", commute);
  OK(MPI_Op_commutative(usum, &commute));
  CHECK(commute == 1, "user sum op commutative %d", commute);
  OK(MPI_Op_commutative(MPI_SUM, &commute));
  CHECK(commute == 1, "MPI_SUM commutative %d", commute);

  static const size_t nmats[] = {1, 7, 1000};
  for (size_t k = 0; k < sizeof nmats / sizeof nmats[0]; ++k) {
    const size_t nm = nmats[k], n = 4 * nm;
    unsigned *mine = xmalloc(n * sizeof *mine), *got = xmalloc(n * sizeof *got),
             *want = xmalloc(n * sizeof *want);
    matrices_product(want, p, nm);
    for (int root = 0; root < p; ++root) {
      matrices(mine, rank, nm);
      memset(got, 0, n * sizeof *got);
      OK(MPI_Reduce(mine, got, (int)n, MPI_UNSIGNED, mat, root, comm));
      if (rank == root)
        CHECK(memcmp(got, want, n * sizeof *got) == 0,
              "non-commutative MPI_Reduce, %zu matrices, root %d: not in rank order", nm, root);
      matrices(rank == root ? got : mine, rank, nm);
      OK(MPI_Reduce(rank == root ? MPI_IN_PLACE : mine, got, (int)n, MPI_UNSIGNED, mat, root, comm));
      if (rank == root)
        CHECK(memcmp(got, want, n * sizeof *got) == 0,
              "non-commutative MPI_Reduce in place, %zu matrices, root %d: not in rank order", nm, root);
    }
    matrices(mine, rank, nm);
    OK(MPI_Allreduce(mine, got, (int)n, MPI_UNSIGNED, mat, comm));
    CHECK(memcmp(got, want, n * sizeof *got) == 0,
          "non-commutative MPI_Allreduce, %zu matrices: not in rank order", nm);
    matrices(got, rank, nm);
    OK(MPI_Allreduce_c(MPI_IN_PLACE, got, (MPI_Count)n, MPI_UNSIGNED, mat, comm));
    CHECK(memcmp(got, want, n * sizeof *got) == 0,
          "non-commutative MPI_Allreduce_c in place, %zu matrices: not in rank order", nm);

    /* Reduce_local applies in x inout. */
    matrices(mine, 0, nm);
    matrices(got, 1, nm);
    OK(MPI_Reduce_local(mine, got, (int)n, MPI_UNSIGNED, mat));
    matrices_product(want, 2, nm);
    CHECK(memcmp(got, want, n * sizeof *got) == 0, "MPI_Reduce_local with a user op: not in x inout");

    /* The commutative user op (MPI_Op_create_c). */
    int *isend = (int *)mine, *irecv = (int *)got;
    for (size_t i = 0; i < n; ++i) isend[i] = rank * 3 + (int)i;
    OK(MPI_Allreduce(isend, irecv, (int)n, MPI_INT, usum, comm));
    long bad = -1;
    for (size_t i = 0; i < n && bad < 0; ++i)
      if (irecv[i] != 3 * p * (p - 1) / 2 + p * (int)i) bad = (long)i;
    CHECK(bad < 0, "user sum MPI_Allreduce, %zu elements: element %ld is %d", n, bad,
          bad < 0 ? 0 : irecv[bad]);
    OK(MPI_Reduce(isend, irecv, (int)n, MPI_INT, usum, p - 1, comm));
    if (rank == p - 1) {
      for (size_t i = 0; i < n && bad < 0; ++i)
        if (irecv[i] != 3 * p * (p - 1) / 2 + p * (int)i) bad = (long)i;
      CHECK(bad < 0, "user sum MPI_Reduce, %zu elements: element %ld", n, bad);
    }
    free(mine);
    free(got);
    free(want);
  }
  CHECK(user_fn_bad_type == 0, "a user function got the wrong datatype or length %d times", user_fn_bad_type);
  OK(MPI_Op_free(&mat));
  OK(MPI_Op_free(&usum));
  CHECK(mat == MPI_OP_NULL && usum == MPI_OP_NULL, "MPI_Op_free did not set MPI_OP_NULL");
}

/* --- data movement ---------------------------------------------------------------------------------- */

static int item(int r, size_t i, int salt) {
  return r * 1000003 + (int)i * 7 + salt;
}

/* Index of the first element of b[0..n) that is not item(r, i, salt), or -1. */
static long bad_block(const int *b, size_t n, int r, int salt) {
  for (size_t i = 0; i < n; ++i)
    if (b[i] != item(r, i, salt)) return (long)i;
  return -1;
}

static const size_t sizes[] = {0, 1, 7, 1000, 100000};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static void bcasts(MPI_Comm comm, bool full) {
  int rank, p;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  int *buf = xmalloc(100000 * sizeof(int) + 64);
  for (size_t k = 0; k < NSIZES; ++k) {
    const size_t n = sizes[k];
    if (!full && n > 1000) continue;
    for (int root = 0; root < p; ++root) {
      for (size_t i = 0; i < n; ++i) buf[i] = rank == root ? item(root, i, (int)k) : -1;
      buf[n] = 0x7777;
      OK(MPI_Bcast(buf, (int)n, MPI_INT, root, comm));
      long bad = bad_block(buf, n, root, (int)k);
      CHECK(bad < 0 && buf[n] == 0x7777, "MPI_Bcast %zu ints from root %d: element %ld differs", n, root,
            bad);
    }
  }
  /* A pair type travels with its padding (extent 16 for MPI_DOUBLE_INT); and the large-count variant. */
  for (int root = 0; root < p; ++root) {
    double_int_t di[9];
    for (int i = 0; i < 9; ++i) {
      di[i].v = rank == root ? i * 0.5 : -1;
      di[i].i = rank == root ? i + root : -1;
    }
    OK(MPI_Bcast_c(di, 9, MPI_DOUBLE_INT, root, comm));
    int bad = -1;
    for (int i = 0; i < 9; ++i)
      if (di[i].v != i * 0.5 || di[i].i != i + root) bad = i;
    CHECK(bad < 0, "MPI_Bcast_c of MPI_DOUBLE_INT from root %d: element %d differs", root, bad);
  }
  free(buf);
}

static void gathers(MPI_Comm comm, bool full) {
  int rank, p;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  for (size_t k = 0; k < NSIZES; ++k) {
    const size_t n = sizes[k];
    if (!full && n > 1000) continue;
    int *mine = xmalloc(n * sizeof(int) + 1), *all = xmalloc((size_t)p * n * sizeof(int) + 64);
    for (int root = 0; root < p; ++root) {
      for (size_t i = 0; i < n; ++i) mine[i] = item(rank, i, root);
      /* Gather: recvbuf, recvcount and recvtype are significant at the root only. */
      if (rank == root) {
        memset(all, 0xEE, (size_t)p * n * sizeof(int) + 64);
        OK(MPI_Gather(mine, (int)n, MPI_INT, all, (int)n, MPI_INT, root, comm));
        int bad = -1;
        for (int r = 0; r < p; ++r)
          if (bad_block(all + (size_t)r * n, n, r, root) >= 0) bad = r;
        CHECK(bad < 0 && ((unsigned char *)all)[(size_t)p * n * sizeof(int)] == 0xEE,
              "MPI_Gather %zu ints to root %d: block of rank %d differs", n, root, bad);
      } else {
        OK(MPI_Gather(mine, (int)n, MPI_INT, NULL, -5, MPI_DATATYPE_NULL, root, comm));
      }
      /* Gather in place: the root's block is already in recvbuf. */
      if (rank == root) {
        memset(all, 0xEE, (size_t)p * n * sizeof(int));
        memcpy(all + (size_t)root * n, mine, n * sizeof(int));
        OK(MPI_Gather_c(MPI_IN_PLACE, -3, MPI_DATATYPE_NULL, all, (MPI_Count)n, MPI_INT, root, comm));
        int bad = -1;
        for (int r = 0; r < p; ++r)
          if (bad_block(all + (size_t)r * n, n, r, root) >= 0) bad = r;
        CHECK(bad < 0, "MPI_Gather_c in place %zu ints to root %d: block of rank %d differs", n, root, bad);
      } else {
        OK(MPI_Gather_c(mine, (MPI_Count)n, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, root, comm));
      }
      /* Scatter: sendbuf, sendcount and sendtype are significant at the root only. */
      if (rank == root)
        for (int r = 0; r < p; ++r)
          for (size_t i = 0; i < n; ++i) all[(size_t)r * n + i] = item(r, i, root + 11);
      memset(mine, 0xEE, n * sizeof(int) + 1);
      if (rank == root)
        OK(MPI_Scatter(all, (int)n, MPI_INT, mine, (int)n, MPI_INT, root, comm));
      else
        OK(MPI_Scatter(NULL, -1, MPI_DATATYPE_NULL, mine, (int)n, MPI_INT, root, comm));
      long bad = bad_block(mine, n, rank, root + 11);
      CHECK(bad < 0 && ((unsigned char *)mine)[n * sizeof(int)] == 0xEE,
            "MPI_Scatter %zu ints from root %d: element %ld differs", n, root, bad);
      /* Scatter in place: the root keeps its block where it is in sendbuf. */
      if (rank == root) {
        OK(MPI_Scatter_c(all, (MPI_Count)n, MPI_INT, MPI_IN_PLACE, -2, MPI_DATATYPE_NULL, root, comm));
        bad = bad_block(all + (size_t)root * n, n, root, root + 11);
        CHECK(bad < 0, "MPI_Scatter_c in place at root %d changed the root's block (element %ld)", root, bad);
      } else {
        memset(mine, 0xEE, n * sizeof(int));
        OK(MPI_Scatter_c(NULL, 0, MPI_DATATYPE_NULL, mine, (MPI_Count)n, MPI_INT, root, comm));
        bad = bad_block(mine, n, rank, root + 11);
        CHECK(bad < 0, "MPI_Scatter_c %zu ints from root %d (in place there): element %ld differs", n, root,
              bad);
      }
    }
    free(mine);
    free(all);
  }
  /* Gather of a pair type: blocks are placed by extent. */
  short_int_t si[3], all_si[4 * 3];
  for (int i = 0; i < 3; ++i) {
    si[i].v = (short)(rank + i);
    si[i].i = rank * 10 + i;
  }
  if (p <= 4) {
    OK(MPI_Gather(si, 3, MPI_SHORT_INT, all_si, 3, MPI_SHORT_INT, p - 1, comm));
    if (rank == p - 1) {
      int bad = -1;
      for (int r = 0; r < p; ++r)
        for (int i = 0; i < 3; ++i)
          if (all_si[r * 3 + i].v != r + i || all_si[r * 3 + i].i != r * 10 + i) bad = r;
      CHECK(bad < 0, "MPI_Gather of MPI_SHORT_INT: block of rank %d differs", bad);
    }
  }
}

static void allgathers_alltoalls(MPI_Comm comm, bool full) {
  int rank, p;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  for (size_t k = 0; k < NSIZES; ++k) {
    const size_t n = sizes[k];
    if (!full && n > 1000) continue;
    const size_t total = (size_t)p * n;
    int *mine = xmalloc(total * sizeof(int) + 1), *all = xmalloc(total * sizeof(int) + 64);
    /* Allgather, and in place. */
    for (size_t i = 0; i < n; ++i) mine[i] = item(rank, i, 5);
    memset(all, 0xEE, total * sizeof(int) + 64);
    OK(MPI_Allgather(mine, (int)n, MPI_INT, all, (int)n, MPI_INT, comm));
    int bad = -1;
    for (int r = 0; r < p; ++r)
      if (bad_block(all + (size_t)r * n, n, r, 5) >= 0) bad = r;
    CHECK(bad < 0 && ((unsigned char *)all)[total * sizeof(int)] == 0xEE,
          "MPI_Allgather %zu ints: block of rank %d differs", n, bad);
    memset(all, 0xEE, total * sizeof(int));
    for (size_t i = 0; i < n; ++i) all[(size_t)rank * n + i] = item(rank, i, 6);
    OK(MPI_Allgather_c(MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, all, (MPI_Count)n, MPI_INT, comm));
    bad = -1;
    for (int r = 0; r < p; ++r)
      if (bad_block(all + (size_t)r * n, n, r, 6) >= 0) bad = r;
    CHECK(bad < 0, "MPI_Allgather_c in place %zu ints: block of rank %d differs", n, bad);

    /* Alltoall: rank r's block for rank d is item(r, i, 100 + d). */
    for (int d = 0; d < p; ++d)
      for (size_t i = 0; i < n; ++i) mine[(size_t)d * n + i] = item(rank, i, 100 + d);
    memset(all, 0xEE, total * sizeof(int) + 64);
    OK(MPI_Alltoall(mine, (int)n, MPI_INT, all, (int)n, MPI_INT, comm));
    bad = -1;
    for (int r = 0; r < p; ++r)
      if (bad_block(all + (size_t)r * n, n, r, 100 + rank) >= 0) bad = r;
    CHECK(bad < 0 && ((unsigned char *)all)[total * sizeof(int)] == 0xEE,
          "MPI_Alltoall %zu ints: block from rank %d differs", n, bad);
    memcpy(all, mine, total * sizeof(int));
    OK(MPI_Alltoall_c(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, (MPI_Count)n, MPI_INT, comm));
    bad = -1;
    for (int r = 0; r < p; ++r)
      if (bad_block(all + (size_t)r * n, n, r, 100 + rank) >= 0) bad = r;
    CHECK(bad < 0, "MPI_Alltoall_c in place %zu ints: block from rank %d differs", n, bad);
    free(mine);
    free(all);
  }
}

/* No rank leaves a barrier before the last one has entered it. */
static void barriers(MPI_Comm comm) {
  int rank, p;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  for (int i = 0; i < 20; ++i) OK(MPI_Barrier(comm));
  if (p == 1) return;
  for (int late = 0; late < p; ++late) {
    OK(MPI_Barrier(comm));
    if (rank == late) nanosleep(&(struct timespec){0, 60000000}, NULL);
    double t0 = MPI_Wtime();
    OK(MPI_Barrier(comm));
    double waited = MPI_Wtime() - t0;
    if (rank != late)
      CHECK(waited > 0.03, "left the barrier after %.3f s, before rank %d (60 ms late) entered", waited,
            late);
  }
}

/* Counts of zero with NULL buffers everywhere. */
static void zero_counts(MPI_Comm comm) {
  OK(MPI_Bcast(NULL, 0, MPI_INT, 0, comm));
  OK(MPI_Reduce(NULL, NULL, 0, MPI_INT, MPI_SUM, 0, comm));
  OK(MPI_Allreduce(NULL, NULL, 0, MPI_DOUBLE, MPI_MAX, comm));
  OK(MPI_Gather(NULL, 0, MPI_INT, NULL, 0, MPI_INT, 0, comm));
  OK(MPI_Scatter(NULL, 0, MPI_INT, NULL, 0, MPI_INT, 0, comm));
  OK(MPI_Allgather(NULL, 0, MPI_INT, NULL, 0, MPI_INT, comm));
  OK(MPI_Alltoall(NULL, 0, MPI_INT, NULL, 0, MPI_INT, comm));
}

static void everything(MPI_Comm comm, bool full) {
  barriers(comm);
  zero_counts(comm);
  bcasts(comm, full);
  gathers(comm, full);
  allgathers_alltoalls(comm, full);
  reductions(comm, full);
  user_ops(comm);
}

/* --- bad arguments ---------------------------------------------------------------------------------- */

static void expect_class(int rc, int cls, const char *what) {
  CHECK(err_class(rc) == cls, "%s: class %d, expected %d", what, err_class(rc), cls);
}

/* Every rank makes the same mistake, so no rank is left waiting in a collective. */
static void bad_arguments(void) {
  MPI_Comm w = MPI_COMM_WORLD;
  int buf[8] = {0}, out[8 * 4] = {0};
  expect_class(MPI_Bcast(buf, 1, MPI_INT, wsize, w), MPI_ERR_ROOT, "MPI_Bcast root = size");
  expect_class(MPI_Bcast(buf, 1, MPI_INT, -1, w), MPI_ERR_ROOT, "MPI_Bcast root = -1");
  expect_class(MPI_Reduce(buf, out, 1, MPI_INT, MPI_SUM, wsize + 3, w), MPI_ERR_ROOT, "MPI_Reduce bad root");
  expect_class(MPI_Gather(buf, 1, MPI_INT, out, 1, MPI_INT, wsize, w), MPI_ERR_ROOT, "MPI_Gather bad root");
  expect_class(MPI_Scatter(out, 1, MPI_INT, buf, 1, MPI_INT, -7, w), MPI_ERR_ROOT, "MPI_Scatter bad root");
  {
    int rc = MPI_Bcast(buf, 1, MPI_INT, wsize + 41, w);
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    char want[32];
    snprintf(want, sizeof want, "root %d", wsize + 41);
    CHECK(strstr(msg, "MPI_Bcast") && strstr(msg, want),
          "error string \"%s\" names neither function nor root", msg);
  }

  expect_class(MPI_Bcast(buf, -1, MPI_INT, 0, w), MPI_ERR_COUNT, "MPI_Bcast count -1");
  expect_class(MPI_Reduce(buf, out, -2, MPI_INT, MPI_SUM, 0, w), MPI_ERR_COUNT, "MPI_Reduce count -2");
  expect_class(MPI_Allreduce(buf, out, -1, MPI_INT, MPI_SUM, w), MPI_ERR_COUNT, "MPI_Allreduce count -1");
  expect_class(MPI_Allreduce_c(buf, out, -1, MPI_INT, MPI_SUM, w), MPI_ERR_COUNT, "MPI_Allreduce_c count -1");
  expect_class(MPI_Allgather(buf, -1, MPI_INT, out, 1, MPI_INT, w), MPI_ERR_COUNT,
               "MPI_Allgather sendcount -1");
  expect_class(MPI_Alltoall(buf, 1, MPI_INT, out, -1, MPI_INT, w), MPI_ERR_COUNT,
               "MPI_Alltoall recvcount -1");
  expect_class(MPI_Gather(buf, -1, MPI_INT, out, 1, MPI_INT, 0, w), MPI_ERR_COUNT, "MPI_Gather sendcount -1");
  expect_class(MPI_Reduce_local(buf, out, -1, MPI_INT, MPI_SUM), MPI_ERR_COUNT, "MPI_Reduce_local count -1");

  expect_class(MPI_Bcast(buf, 1, MPI_DATATYPE_NULL, 0, w), MPI_ERR_TYPE, "MPI_Bcast null type");
  expect_class(MPI_Allreduce(buf, out, 1, MPI_DATATYPE_NULL, MPI_SUM, w), MPI_ERR_TYPE,
               "MPI_Allreduce null type");
  expect_class(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM, "MPI_Barrier(MPI_COMM_NULL)");
  expect_class(MPI_Allreduce(buf, out, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL), MPI_ERR_COMM,
               "MPI_Allreduce null comm");

  /* Operations on types MPI does not define them for; MPI_OP_NULL; the one-sided-only operations. */
  int bad_ops = 0, tried = 0;
  for (int ti = 0; ti < NTYPES; ++ti) {
    for (int oi = 0; oi < NOPS; ++oi) {
      if (types[ti].classes & ops[oi].classes) continue;
      if (types[ti].unchecked & ops[oi].classes) continue;
      unsigned char in[64] = {0}, io[64] = {0};
      ++tried;
      int rc = MPI_Allreduce(in, io, 1, types[ti].type, ops[oi].op, w);
      if (err_class(rc) != MPI_ERR_OP) {
        ++bad_ops;
        fprintf(stderr, "rank %d: MPI_Allreduce %s on %s gives class %d, expected MPI_ERR_OP\n", wrank,
                ops[oi].name, types[ti].name, err_class(rc));
      }
      rc = MPI_Reduce_local(in, io, 1, types[ti].type, ops[oi].op);
      if (err_class(rc) != MPI_ERR_OP) ++bad_ops;
    }
  }
  CHECK(bad_ops == 0 && tried > 100, "%d of %d forbidden (op, type) pairs not refused with MPI_ERR_OP",
        bad_ops, tried);
  expect_class(MPI_Allreduce(buf, out, 1, MPI_WCHAR, MPI_SUM, w), MPI_ERR_OP, "MPI_SUM on MPI_WCHAR");
  expect_class(MPI_Allreduce(buf, out, 1, MPI_CHARACTER, MPI_MAX, w), MPI_ERR_OP, "MPI_MAX on MPI_CHARACTER");
  {
    /* MPI_CHAR reduces as a C char, as in Open MPI and MPICH (OSU 7's default reduction type). */
    char c[3] = {1, (char)(wrank + 1), 3}, sum[3] = {0};
    int rc = MPI_Allreduce(c, sum, 3, MPI_CHAR, MPI_SUM, w);
    CHECK(rc == MPI_SUCCESS && sum[0] == (char)wsize && sum[1] == (char)(wsize * (wsize + 1) / 2) &&
              sum[2] == (char)(3 * wsize),
          "MPI_SUM on MPI_CHAR: rc %d, {%d, %d, %d}", rc, sum[0], sum[1], sum[2]);
    rc = MPI_Allreduce(c, sum, 3, MPI_CHAR, MPI_MAX, w);
    CHECK(rc == MPI_SUCCESS && sum[1] == (char)wsize, "MPI_MAX on MPI_CHAR: rc %d, %d", rc, sum[1]);
  }
  expect_class(MPI_Allreduce(buf, out, 1, MPI_PACKED, MPI_BOR, w), MPI_ERR_OP, "MPI_BOR on MPI_PACKED");
  expect_class(MPI_Allreduce(buf, out, 1, MPI_INT, MPI_REPLACE, w), MPI_ERR_OP,
               "MPI_REPLACE in MPI_Allreduce");
  expect_class(MPI_Reduce(buf, out, 1, MPI_INT, MPI_NO_OP, 0, w), MPI_ERR_OP, "MPI_NO_OP in MPI_Reduce");
  expect_class(MPI_Allreduce(buf, out, 1, MPI_INT, MPI_OP_NULL, w), MPI_ERR_OP,
               "MPI_OP_NULL in MPI_Allreduce");
  expect_class(MPI_Reduce(buf, out, 0, MPI_C_BOOL, MPI_SUM, 0, w), MPI_ERR_OP,
               "MPI_SUM on MPI_C_BOOL, count 0");
  MPI_Op sum = MPI_SUM;
  expect_class(MPI_Op_free(&sum), MPI_ERR_OP, "MPI_Op_free(MPI_SUM)");
  MPI_Op null_op = MPI_OP_NULL;
  expect_class(MPI_Op_free(&null_op), MPI_ERR_OP, "MPI_Op_free(MPI_OP_NULL)");
  int commute;
  expect_class(MPI_Op_commutative(MPI_OP_NULL, &commute), MPI_ERR_OP, "MPI_Op_commutative(MPI_OP_NULL)");
  expect_class(MPI_Op_create(NULL, 1, &sum), MPI_ERR_ARG, "MPI_Op_create(NULL)");

  /* Buffers: NULL with a count, aliased send and receive buffers, MPI_IN_PLACE where it is not allowed. */
  expect_class(MPI_Bcast(NULL, 3, MPI_INT, 0, w), MPI_ERR_BUFFER, "MPI_Bcast NULL buffer");
  expect_class(MPI_Allreduce(NULL, out, 2, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER,
               "MPI_Allreduce NULL sendbuf");
  expect_class(MPI_Allreduce(buf, buf, 2, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER,
               "MPI_Allreduce sendbuf == recvbuf");
  expect_class(MPI_Allreduce(buf, buf + 1, 2, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER,
               "MPI_Allreduce overlapping");
  expect_class(MPI_Allreduce(buf, MPI_IN_PLACE, 2, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER,
               "MPI_Allreduce recvbuf MPI_IN_PLACE");
  expect_class(MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, 0, w), MPI_ERR_BUFFER, "MPI_Bcast MPI_IN_PLACE");
  expect_class(MPI_Allgather(out, 1, MPI_INT, out, 1, MPI_INT, w), MPI_ERR_BUFFER, "MPI_Allgather aliased");
  expect_class(MPI_Alltoall(out, 1, MPI_INT, out, 1, MPI_INT, w), MPI_ERR_BUFFER, "MPI_Alltoall aliased");
  /* At the root MPI_IN_PLACE is no receive buffer; elsewhere it is no send buffer: every rank fails. */
  expect_class(MPI_Reduce(MPI_IN_PLACE, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, 0, w), MPI_ERR_BUFFER,
               "MPI_Reduce MPI_IN_PLACE as both buffers");
  expect_class(MPI_Reduce_local(buf, buf, 2, MPI_INT, MPI_SUM), MPI_ERR_BUFFER, "MPI_Reduce_local aliased");
  expect_class(MPI_Allgather(buf, 2, MPI_INT, out, 1, MPI_INT, w), MPI_ERR_TRUNCATE,
               "MPI_Allgather send part longer than receive part");

  /* Nothing above left a message behind: the communicator still works. */
  int one = 1, total = 0;
  OK(MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, w));
  CHECK(total == wsize, "MPI_Allreduce after the errors: %d, expected %d", total, wsize);
  OK(MPI_Barrier(w));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

  everything(MPI_COMM_WORLD, true);
  everything(MPI_COMM_SELF, false);

  /* Ranks in reverse order (team rank != world rank), and two halves, if communicators can be split. */
  MPI_Comm rev, half;
  if (MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - wrank, &rev) == MPI_SUCCESS) {
    MPI_Comm_set_errhandler(rev, MPI_ERRORS_RETURN);
    everything(rev, false);
    MPI_Comm_free(&rev);
  } else if (wrank == 0) {
    printf("coll_basic: note: MPI_Comm_split failed; reordered communicators not tested\n");
  }
  if (MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, &half) == MPI_SUCCESS) {
    MPI_Comm_set_errhandler(half, MPI_ERRORS_RETURN);
    everything(half, false);
    MPI_Comm_free(&half);
  }

  bad_arguments();
  return finish("coll_basic");
}
