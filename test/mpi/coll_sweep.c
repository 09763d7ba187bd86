/* Every collective with every algorithm, forced per communicator with the info key pamir_coll_<name>,
 * in one launch: sizes from 0 elements to 4 MiB, contiguous and derived datatypes (a vector whose
 * gaps must keep what they held), in place and not, blocking and nonblocking (also two nonblocking
 * collectives in flight on one communicator). Every result is compared with a serial reference that each
 * rank computes from the same deterministic inputs.
 *
 * Integer reductions are compared exactly. Floating-point sums are compared with a tolerance: an
 * algorithm may add the p contributions in any grouping, and each of the p-1 additions of
 * values of magnitude below M rounds by at most eps * p * M, so |got - want| <= p * p * eps * M bounds
 * every order (M is the largest partial sum's magnitude, here below p * 2^12).
 *
 * An algorithm that needs what the communicator lacks (recursive doubling allgather on 3 ranks) must
 * fail with MPI_ERR_UNSUPPORTED_OPERATION, and an unknown name in the info key with MPI_ERR_INFO_VALUE. */
#include <float.h>
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "coll_algorithms.h"

static int rank, size;

/* The algorithms of each collective, as pamir_info lists them. */
static const char *const kBarrier[] = {"dissemination", "tree", "shm", "hierarchical", NULL};
static const char *const kBcast[] = {"binomial", "scatter_allgather", "chain", "shm", "hierarchical",
                                     "torus",    "torus_colours",     NULL};
static const char *const kReduce[] = {"binomial", "linear", "shm", "cma", "cma_root", "torus", NULL};
static const char *const kAllreduce[] = {"recursive_doubling", "ring",  "reduce_bcast",  "shm", "cma",
                                         "hierarchical",       "torus", "torus_colours", NULL};
static const char *const kGather[] = {"binomial", "linear", NULL};
static const char *const kScatter[] = {"binomial", "linear", NULL};
static const char *const kAllgather[] = {"ring", "recursive_doubling", "bruck", NULL};
static const char *const kAlltoall[] = {"pairwise", "linear", NULL};
static const char *const kScan[] = {"recursive_doubling", "linear", NULL};
static const char *const kReduceScatter[] = {"reduce_scatterv", "ring", NULL};
static const struct {
  const char *coll, *alg;
} kVector[] = {{"gatherv", "linear"},     {"scatterv", "linear"},    {"allgatherv", "ring"},
               {"allgatherv", "linear"},  {"alltoallv", "pairwise"}, {"alltoallv", "linear"},
               {"alltoallw", "pairwise"}, {"alltoallw", "linear"}};

/* Element counts per rank (per block for gather/scatter/allgather/alltoall). The largest makes
 * alltoall move 5 x 5 x 70000 ints (7 MiB in all) on 5 ranks. */
static const int kCounts[] = {0, 1, 7, 1000, 70000};
/* The big pass (blocking, contiguous int sums only): one count of 2^20 ints, 4 MiB, for every vector
 * a rank reduces or broadcasts, and smaller blocks where every rank holds p of them (gather, allgather:
 * 1 MiB per rank; alltoall: 256 KiB per pair; reduce_scatter_block: 512 KiB per rank). */
static int big;
#define NCOUNTS (big ? 1 : (int)(sizeof kCounts / sizeof kCounts[0]))
#define COUNT(ci, big_divisor) (big ? (1 << 20) / (big_divisor) : kCounts[ci])
#define BIG_SKIP(variant) \
  if (big && (variant)) continue

#define GAP (-77)
static MPI_Datatype vec_int; /* 2 ints with a 1-int gap between: extent 3 ints */

/* The value rank r contributes at element i of case `seed`. */
static int val(int r, long i, int seed) {
  return (int)((r + 1) * 1000003L + i * 7919L + seed * 104729L) % 100000;
}

/* The torus algorithms serve a communicator that holds every rank of the torus (PAMIR_DEVICE=torus):
 * elsewhere the sweep checks once that they are refused, and skips them. TEST_COLL_ALGORITHMS=a,b,...
 * sweeps only the algorithms named (a bigger torus's run of its own algorithms). */
static int swept(const char *alg) {
  const char *only = getenv("TEST_COLL_ALGORITHMS");
  if (coll_torus_algorithm(alg) && !coll_on_torus()) return 0;
  if (!only) return 1;
  const size_t n = strlen(alg);
  for (const char *p = only; (p = strstr(p, alg)) != NULL; p += n)
    if ((p == only || p[-1] == ',') && (p[n] == ',' || p[n] == 0)) return 1;
  return 0;
}

static int is_pow2(int n) {
  return n > 0 && (n & (n - 1)) == 0;
}

/* The shared-memory algorithms serve blocking calls only, and only where the shared-memory device
 * gives them their areas: a call forced onto one elsewhere is refused, on every rank, before anything
 * moves. */
static int refused_nb(const char *coll, const char *alg, int nb, int rc) {
  if (!coll_slot_algorithm(alg) || (!nb && !coll_no_shm_device())) return 0;
  CHECK(err_class(rc) == MPI_ERR_UNSUPPORTED_OPERATION, "%s %s forced to %s: rc %d",
        nb ? "nonblocking" : "blocking", coll, alg, rc);
  return 1;
}

/* Completes a collective: blocking calls are done; a nonblocking one is waited for, by MPI_Test polling
 * on odd cases (progress must come from Test alone) and MPI_Wait on even ones. */
static int complete(int rc, MPI_Request *req, int nb, int k) {
  if (rc != MPI_SUCCESS || !nb) return rc;
  if (k % 2) {
    int flag = 0;
    while (!flag && rc == MPI_SUCCESS) rc = MPI_Test(req, &flag, MPI_STATUS_IGNORE);
    return rc;
  }
  return MPI_Wait(req, MPI_STATUS_IGNORE);
}

/* Buffers of n elements of int or of vec_int (2 ints per element with a gap), filled with GAP. */
static int *alloc_ints(long n, int derived) {
  long len = derived ? 3 * n : n;
  int *b = malloc(sizeof(int) * (size_t)(len + 1));
  for (long i = 0; i < len + 1; ++i) b[i] = GAP;
  return b;
}
/* Element e's data (a derived element holds two ints, data index 2e and 2e+1). */
static int *at(int *b, long i, int derived) {
  return derived ? &b[(i / 2) * 3 + (i % 2) * 2] : &b[i];
}
/* Whether every gap of a derived buffer of n elements (and the slot past the end) still holds GAP. */
static int gaps_ok(const int *b, long n, int derived) {
  if (derived)
    for (long e = 0; e < n; ++e)
      if (b[3 * e + 1] != GAP) return 0;
  return b[derived ? 3 * n : n] == GAP;
}

/* ---------------------------------------------------------------------------------------------------- */

static volatile long *arrivals; /* a counter every rank's process maps */

static void test_barrier(const char *alg, int nb) {
  MPI_Comm c = forced_comm("barrier", alg);
  int bad = 0;
  for (int k = 0; k < 30; ++k) {
    /* Arrive in a different order each round, then check that no rank leaves before all arrived. */
    if ((k + rank) % size == 0)
      for (int y = 0; y < 200; ++y) sched_yield();
    __atomic_fetch_add(arrivals, 1, __ATOMIC_SEQ_CST);
    MPI_Request req;
    int rc = nb ? MPI_Ibarrier(c, &req) : MPI_Barrier(c);
    if (refused_nb("barrier", alg, nb, rc)) {
      MPI_Barrier(MPI_COMM_WORLD);
      break;
    }
    rc = complete(rc, &req, nb, k);
    const long seen = __atomic_load_n(arrivals, __ATOMIC_SEQ_CST);
    if (rc != MPI_SUCCESS || seen < (long)size * (k + 1)) ++bad;
    /* nobody may arrive at round k+1 before every rank has read the counter of round k */
    rc = nb ? MPI_Ibarrier(c, &req) : MPI_Barrier(c);
    if (complete(rc, &req, nb, k) != MPI_SUCCESS) ++bad;
  }
  CHECK(bad == 0, "barrier %s (%s): %d rounds ended early or failed", alg, nb ? "nonblocking" : "blocking",
        bad);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) *arrivals = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Comm_free(&c);
}

static void test_bcast(const char *alg, int nb) {
  MPI_Comm c = forced_comm("bcast", alg);
  int k = 0;
  for (int ci = 0; ci < NCOUNTS; ++ci)
    for (int derived = 0; derived < 2; ++derived)
      for (int root = 0; root < size; root += (size > 2 ? size / 2 : 1), ++k) {
        BIG_SKIP(derived);
        const long n = COUNT(ci, 1), elems = derived ? n / 2 : n; /* ints of data: 2 per derived element */
        int *b = alloc_ints(derived ? elems : n, derived);
        const long data = derived ? 2 * elems : n;
        if (rank == root)
          for (long i = 0; i < data; ++i) *at(b, i, derived) = val(root, i, k);
        MPI_Request req;
        int rc = nb ? MPI_Ibcast(b, (int)(derived ? elems : n), derived ? vec_int : MPI_INT, root, c, &req)
                    : MPI_Bcast(b, (int)(derived ? elems : n), derived ? vec_int : MPI_INT, root, c);
        if (refused_nb("bcast", alg, nb, rc)) {
          free(b);
          continue;
        }
        rc = complete(rc, &req, nb, k);
        long bad = 0;
        for (long i = 0; i < data; ++i) bad += *at(b, i, derived) != val(root, i, k);
        CHECK(rc == MPI_SUCCESS && bad == 0 && gaps_ok(b, derived ? elems : n, derived),
              "bcast %s %s n=%ld derived=%d root=%d: rc %d, %ld wrong", alg, nb ? "nb" : "", n, derived, root,
              rc, bad);
        free(b);
      }
  MPI_Comm_free(&c);
}

/* A non-commutative, associative operation: element (a, b) is the map x -> a*x + b (mod 2^32), and
 * in op inout computes inout o in... MPI's order: inout = in op inout, with in from the lower ranks,
 * so the result of x0 op x1 op ... is f0 o f1 o ... (f0 applied last). */
typedef struct {
  uint32_t a, b;
} affine;
static void affine_op(void *in, void *inout, int *len, MPI_Datatype *t) {
  (void)t;
  affine *x = in, *y = inout;
  for (int i = 0; i < *len; ++i) {
    /* (x o y)(v) = x.a * (y.a * v + y.b) + x.b */
    affine r = {x[i].a * y[i].a, x[i].a * y[i].b + x[i].b};
    y[i] = r;
  }
}
static affine affine_val(int r, long i, int seed) {
  affine f = {(uint32_t)val(r, i, seed) * 2u + 1u, (uint32_t)val(r, i, seed + 1)};
  return f;
}

enum { OP_INT_SUM, OP_DOUBLE_SUM, OP_INT_MAX, OP_AFFINE, OP_DERIVED_SUM, NOPS };
static const char *const kOpNames[] = {"int sum", "double sum", "int max", "affine (non-commutative)",
                                       "resized-int user sum"};
/* Sum on gapped_int (an int in an 8-byte extent): a user operation, as MPI defines the predefined ones
 * on predefined types (and contiguous runs of one) only. */
static void gapped_sum(void *in, void *inout, int *len, MPI_Datatype *t) {
  (void)t;
  const int *x = in;
  int *y = inout;
  for (int i = 0; i < *len; ++i) y[2 * i] += x[2 * i];
}
static MPI_Op affine_mpi_op, gapped_sum_op;
static MPI_Datatype affine_type, gapped_int; /* gapped_int: an int in an 8-byte extent */

/* Fills element i of rank r's contribution for op o; `buf` is laid out as the op's datatype. */
static void put_val(void *buf, int o, int r, long i, int seed) {
  switch (o) {
    case OP_INT_SUM:
    case OP_INT_MAX:
      ((int *)buf)[i] = val(r, i, seed) - 50000;
      break;
    case OP_DOUBLE_SUM:
      ((double *)buf)[i] = (val(r, i, seed) % 4096) * 0.37;
      break;
    case OP_AFFINE:
      ((affine *)buf)[i] = affine_val(r, i, seed);
      break;
    case OP_DERIVED_SUM:
      ((int *)buf)[2 * i] = val(r, i, seed);
      break;
  }
}
static size_t op_extent(int o) {
  return o == OP_DOUBLE_SUM ? sizeof(double) : o == OP_AFFINE ? sizeof(affine) : o == OP_DERIVED_SUM ? 8 : 4;
}
static MPI_Datatype op_type(int o) {
  return o == OP_DOUBLE_SUM    ? MPI_DOUBLE
         : o == OP_AFFINE      ? affine_type
         : o == OP_DERIVED_SUM ? gapped_int
                               : MPI_INT;
}
static MPI_Op op_op(int o) {
  return o == OP_INT_MAX       ? MPI_MAX
         : o == OP_AFFINE      ? affine_mpi_op
         : o == OP_DERIVED_SUM ? gapped_sum_op
                               : MPI_SUM;
}

/* Whether element bi of buf holds element i reduced over ranks lo .. hi, in rank order. */
static int range_ok(const void *buf, long bi, int o, long i, int seed, int lo, int hi) {
  switch (o) {
    case OP_INT_SUM: {
      int want = 0;
      for (int r = lo; r <= hi; ++r) want += val(r, i, seed) - 50000;
      return ((const int *)buf)[bi] == want;
    }
    case OP_INT_MAX: {
      int want = INT32_MIN;
      for (int r = lo; r <= hi; ++r)
        if (val(r, i, seed) - 50000 > want) want = val(r, i, seed) - 50000;
      return ((const int *)buf)[bi] == want;
    }
    case OP_DOUBLE_SUM: {
      double want = 0;
      for (int r = lo; r <= hi; ++r) want += (val(r, i, seed) % 4096) * 0.37;
      const double tol = (double)size * size * DBL_EPSILON * size * 4096.0;
      return fabs(((const double *)buf)[bi] - want) <= tol;
    }
    case OP_AFFINE: {
      affine want = affine_val(hi, i, seed);
      for (int r = hi - 1; r >= lo; --r) {
        affine f = affine_val(r, i, seed);
        affine x = {f.a * want.a, f.a * want.b + f.b};
        want = x;
      }
      const affine *got = &((const affine *)buf)[bi];
      return got->a == want.a && got->b == want.b;
    }
    case OP_DERIVED_SUM: {
      int want = 0;
      for (int r = lo; r <= hi; ++r) want += val(r, i, seed);
      return ((const int *)buf)[2 * bi] == want && ((const int *)buf)[2 * bi + 1] == GAP;
    }
  }
  return 0;
}
static int reduced_ok(const void *buf, int o, long i, int seed) {
  return range_ok(buf, i, o, i, seed, 0, size - 1);
}

/* Whether element i of buf still holds GAP in every byte slot it spans. */
static int untouched(const void *buf, int o, long i) {
  const int *b = (const int *)((const char *)buf + op_extent(o) * (size_t)i);
  for (size_t k = 0; k < op_extent(o) / 4; ++k)
    if (b[k] != GAP) return 0;
  return 1;
}

static void *alloc_op(long n, int o) {
  int *b = malloc(op_extent(o) * (size_t)n + 8);
  for (size_t i = 0; i < (op_extent(o) * (size_t)n + 8) / 4; ++i) b[i] = GAP;
  return b;
}

static void test_reduce(const char *coll, const char *alg, int nb, int all) {
  MPI_Comm c = forced_comm(coll, alg);
  const int needs_commutative = (all && !strcmp(alg, "ring")) || coll_torus_algorithm(alg);
  int k = 0;
  for (int ci = 0; ci < NCOUNTS; ++ci)
    for (int o = 0; o < NOPS; ++o)
      for (int in_place = 0; in_place < 2; ++in_place)
        for (int root = 0; root < (all ? 1 : size); root += (size > 2 ? size / 2 : 1), ++k) {
          BIG_SKIP(o != OP_INT_SUM || in_place);
          const long n = COUNT(ci, 1);
          if (o == OP_DOUBLE_SUM && n > 1000) continue; /* the float tolerance check is per element */
          void *send = alloc_op(n, o), *recv = alloc_op(n, o);
          for (long i = 0; i < n; ++i) put_val(send, o, rank, i, k);
          const int ip = in_place && (all || rank == root);
          if (ip) memcpy(recv, send, op_extent(o) * (size_t)n);
          MPI_Request req;
          const void *sb = ip ? MPI_IN_PLACE : send;
          int rc;
          if (all)
            rc = nb ? MPI_Iallreduce(sb, recv, (int)n, op_type(o), op_op(o), c, &req)
                    : MPI_Allreduce(sb, recv, (int)n, op_type(o), op_op(o), c);
          else
            rc = nb ? MPI_Ireduce(sb, recv, (int)n, op_type(o), op_op(o), root, c, &req)
                    : MPI_Reduce(sb, recv, (int)n, op_type(o), op_op(o), root, c);
          if (refused_nb(coll, alg, nb, rc)) {
            free(send);
            free(recv);
            continue;
          }
          rc = complete(rc, &req, nb, k);
          if (needs_commutative && o == OP_AFFINE) {
            /* every rank refuses the same call, before sending anything */
            CHECK(err_class(rc) == MPI_ERR_UNSUPPORTED_OPERATION, "%s %s with a non-commutative op: rc %d",
                  coll, alg, rc);
          } else if (all || rank == root) {
            long bad = 0;
            for (long i = 0; i < n; ++i) bad += !reduced_ok(recv, o, i, k);
            CHECK(rc == MPI_SUCCESS && bad == 0, "%s %s %s %s n=%ld in_place=%d root=%d: rc %d, %ld wrong",
                  coll, alg, nb ? "nb" : "", kOpNames[o], n, in_place, root, rc, bad);
          } else {
            CHECK(rc == MPI_SUCCESS, "%s %s: rc %d on a non-root rank", coll, alg, rc);
          }
          free(send);
          free(recv);
        }
  MPI_Comm_free(&c);
}

/* MPI_Scan and MPI_Exscan: rank r gets ranks 0 .. r (exscan: 0 .. r-1; rank 0's buffer is left as it
 * was, which MPI allows). */
static void test_scan(const char *alg, int nb, int exclusive) {
  const char *coll = exclusive ? "exscan" : "scan";
  MPI_Comm c = forced_comm(coll, alg);
  int k = 0;
  for (int ci = 0; ci < NCOUNTS; ++ci)
    for (int o = 0; o < NOPS; ++o)
      for (int in_place = 0; in_place < 2; ++in_place, ++k) {
        BIG_SKIP(o != OP_INT_SUM || in_place);
        const long n = COUNT(ci, 1);
        if (o == OP_DOUBLE_SUM && n > 1000) continue;
        void *send = alloc_op(n, o), *recv = alloc_op(n, o);
        for (long i = 0; i < n; ++i) put_val(send, o, rank, i, k);
        if (in_place) memcpy(recv, send, op_extent(o) * (size_t)n);
        MPI_Request req;
        const void *sb = in_place ? MPI_IN_PLACE : send;
        int rc;
        if (exclusive)
          rc = nb ? MPI_Iexscan(sb, recv, (int)n, op_type(o), op_op(o), c, &req)
                  : MPI_Exscan(sb, recv, (int)n, op_type(o), op_op(o), c);
        else
          rc = nb ? MPI_Iscan(sb, recv, (int)n, op_type(o), op_op(o), c, &req)
                  : MPI_Scan(sb, recv, (int)n, op_type(o), op_op(o), c);
        rc = complete(rc, &req, nb, k);
        long bad = 0;
        for (long i = 0; i < n; ++i) {
          if (exclusive && rank == 0)
            bad += in_place ? memcmp((char *)recv + op_extent(o) * (size_t)i,
                                     (char *)send + op_extent(o) * (size_t)i, op_extent(o)) != 0
                            : !untouched(recv, o, i);
          else
            bad += !range_ok(recv, i, o, i, k, 0, exclusive ? rank - 1 : rank);
        }
        CHECK(rc == MPI_SUCCESS && bad == 0, "%s %s %s %s n=%ld in_place=%d: rc %d, %ld wrong", coll, alg,
              nb ? "nb" : "", kOpNames[o], n, in_place, rc, bad);
        free(send);
        free(recv);
      }
  MPI_Comm_free(&c);
}

/* MPI_Reduce_scatter (rank r's block has r + n elements: uneven, some empty when n is 0) and
 * MPI_Reduce_scatter_block (n each). */
static void test_reduce_scatter(const char *alg, int nb, int block) {
  const char *coll = block ? "reduce_scatter_block" : "reduce_scatter";
  MPI_Comm c = forced_comm(coll, alg);
  const int needs_commutative = !strcmp(alg, "ring");
  int *counts = malloc(sizeof(int) * (size_t)size);
  int k = 0;
  for (int ci = 0; ci < NCOUNTS; ++ci)
    for (int o = 0; o < NOPS; ++o)
      for (int in_place = 0; in_place < 2; ++in_place, ++k) {
        BIG_SKIP(o != OP_INT_SUM || in_place);
        const long n = COUNT(ci, 8) / (block ? 1 : 2);
        if (o == OP_DOUBLE_SUM && n > 1000) continue;
        long total = 0, first = 0;
        for (int r = 0; r < size; ++r) {
          counts[r] = (int)(block ? n : (n ? n + r : (r % 2)));
          if (r < rank) first += counts[r];
          total += counts[r];
        }
        void *send = alloc_op(total, o), *recv = alloc_op(in_place ? total : counts[rank], o);
        for (long i = 0; i < total; ++i) put_val(send, o, rank, i, k);
        if (in_place) memcpy(recv, send, op_extent(o) * (size_t)total);
        MPI_Request req;
        const void *sb = in_place ? MPI_IN_PLACE : send;
        int rc;
        if (block)
          rc = nb ? MPI_Ireduce_scatter_block(sb, recv, (int)n, op_type(o), op_op(o), c, &req)
                  : MPI_Reduce_scatter_block(sb, recv, (int)n, op_type(o), op_op(o), c);
        else
          rc = nb ? MPI_Ireduce_scatter(sb, recv, counts, op_type(o), op_op(o), c, &req)
                  : MPI_Reduce_scatter(sb, recv, counts, op_type(o), op_op(o), c);
        rc = complete(rc, &req, nb, k);
        if (needs_commutative && o == OP_AFFINE) {
          CHECK(err_class(rc) == MPI_ERR_UNSUPPORTED_OPERATION, "%s %s with a non-commutative op: rc %d",
                coll, alg, rc);
        } else {
          long bad = 0;
          for (long i = 0; i < counts[rank]; ++i) bad += !range_ok(recv, i, o, first + i, k, 0, size - 1);
          /* past the block: untouched (not in place), or the rank's own input (in place) */
          if (!in_place) bad += !untouched(recv, o, counts[rank]);
          CHECK(rc == MPI_SUCCESS && bad == 0, "%s %s %s %s n=%ld in_place=%d: rc %d, %ld wrong", coll, alg,
                nb ? "nb" : "", kOpNames[o], n, in_place, rc, bad);
        }
        free(send);
        free(recv);
      }
  free(counts);
  MPI_Comm_free(&c);
}

/* The v-collectives. Part sizes differ per rank (m(r, d) pairs of ints from rank r to rank d, some
 * empty), the receive side lays the parts out in reverse rank order with a one-element gap after each,
 * as MPI_INT or as the vector type (whose gaps must survive too), and the data of the part from r to d
 * is val(r, i + 1000 * d). */
static long pairs(long n, int r, int d) {
  return n ? n / 2 + r + 2 * d : (r + d) % 2;
}

/* Receive-side layout of p parts (part j: m[j] pairs), reversed, gaps between: displacement of part j
 * in elements of the receive type, and the total span in ints. */
static long layout_parts(const long *m, int derived, int *counts, int *displs) {
  long at = 0; /* in elements */
  for (int j = size - 1; j >= 0; --j) {
    counts[j] = (int)(derived ? m[j] : 2 * m[j]);
    displs[j] = (int)at;
    at += counts[j] + 1;
  }
  return derived ? 3 * at : at; /* ints spanned */
}
static int *filled(long ints) {
  int *b = malloc(sizeof(int) * (size_t)(ints + 1));
  for (long i = 0; i <= ints; ++i) b[i] = GAP;
  return b;
}
/* Checks part j of a receive buffer: data val(from, i + 1000 * to), the gap after it untouched. */
static long part_bad(const int *b, int derived, int displ, long m, int from, int to, int k) {
  long bad = 0;
  const int *base = derived ? b + 3 * (long)displ : b + displ;
  for (long i = 0; i < 2 * m; ++i) bad += *at((int *)base, i, derived) != val(from, i + 1000 * to, k);
  bad += derived ? (m && base[3 * m - 2] != GAP) + (base[3 * m] != GAP) : base[2 * m] != GAP;
  return bad;
}

static void test_vector(const char *coll, const char *alg, int nb) {
  MPI_Comm c = forced_comm(coll, alg);
  const int gv = !strcmp(coll, "gatherv"), sv = !strcmp(coll, "scatterv"), agv = !strcmp(coll, "allgatherv"),
            w = !strcmp(coll, "alltoallw");
  long *m = malloc(sizeof(long) * (size_t)size);
  int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
  int *scounts = malloc(sizeof(int) * (size_t)size), *sdispls = malloc(sizeof(int) * (size_t)size);
  MPI_Datatype *stypes = malloc(sizeof(MPI_Datatype) * (size_t)size),
               *rtypes = malloc(sizeof(MPI_Datatype) * (size_t)size);
  int k = 0;
  for (int ci = 0; ci < NCOUNTS; ++ci)
    for (int derived = 0; derived < 2; ++derived)
      for (int in_place = 0; in_place < 2; ++in_place)
        for (int root = 0; root < ((gv || sv) ? size : 1); root += (size > 2 ? size / 2 : 1), ++k) {
          const long n = kCounts[ci] / 8;
          const MPI_Datatype rt = derived ? vec_int : MPI_INT;
          int rc = MPI_SUCCESS;
          long bad = 0;
          MPI_Request req;
          if (gv || sv || agv) {
            /* part j holds rank j's data (gatherv/allgatherv) or rank j's share (scatterv) */
            for (int j = 0; j < size; ++j) m[j] = pairs(n, j, 0);
            const long ints = layout_parts(m, derived, counts, displs);
            const int is_root = (gv || sv) ? rank == root : 1;
            const int ip = in_place && is_root;
            int *big = filled(ints);
            int *mine = filled(2 * m[rank]);
            if (sv) {
              if (is_root)
                for (int j = 0; j < size; ++j)
                  for (long i = 0; i < 2 * m[j]; ++i)
                    *at((derived ? big + 3 * (long)displs[j] : big + displs[j]), i, derived) = val(j, i, k);
            } else {
              for (long i = 0; i < 2 * m[rank]; ++i) mine[i] = val(rank, i, k);
              if (ip)
                for (long i = 0; i < 2 * m[rank]; ++i)
                  *at((derived ? big + 3 * (long)displs[rank] : big + displs[rank]), i, derived) =
                      val(rank, i, k);
            }
            const int mc = (int)(2 * m[rank]);
            if (gv)
              rc = nb ? MPI_Igatherv(ip ? MPI_IN_PLACE : mine, mc, MPI_INT, big, counts, displs, rt, root, c,
                                     &req)
                      : MPI_Gatherv(ip ? MPI_IN_PLACE : mine, mc, MPI_INT, big, counts, displs, rt, root, c);
            else if (sv)
              rc = nb ? MPI_Iscatterv(big, counts, displs, rt, ip ? MPI_IN_PLACE : mine, mc, MPI_INT, root, c,
                                      &req)
                      : MPI_Scatterv(big, counts, displs, rt, ip ? MPI_IN_PLACE : mine, mc, MPI_INT, root, c);
            else
              rc = nb ? MPI_Iallgatherv(ip ? MPI_IN_PLACE : mine, mc, MPI_INT, big, counts, displs, rt, c,
                                        &req)
                      : MPI_Allgatherv(ip ? MPI_IN_PLACE : mine, mc, MPI_INT, big, counts, displs, rt, c);
            rc = complete(rc, &req, nb, k);
            if (sv) {
              if (!ip)
                for (long i = 0; i < 2 * m[rank]; ++i) bad += mine[i] != val(rank, i, k);
              if (is_root) bad += part_bad(big, derived, displs[rank], m[rank], rank, 0, k);
            } else if (is_root) {
              for (int j = 0; j < size; ++j) bad += part_bad(big, derived, displs[j], m[j], j, 0, k);
            }
            free(big);
            free(mine);
          } else {
            /* alltoallv / alltoallw: the part from r to d has pr(r, d) pairs (in place the counts must be
             * symmetric: recvbuf's part j is both what goes to j and what comes from j) */
#define PR(r, d) (in_place ? (n ? n / 2 + (r) + (d) : ((r) + (d)) % 2) : pairs(n, (r), (d)))
            for (int j = 0; j < size; ++j) m[j] = PR(j, rank); /* what this rank receives from j */
            long ints;
            if (w) {
              /* part j arrives as vec_int when j is odd, as MPI_INT otherwise; displacements in bytes */
              long at_b = 0;
              for (int j = size - 1; j >= 0; --j) {
                const int dj = j % 2;
                rtypes[j] = dj ? vec_int : MPI_INT;
                counts[j] = (int)(dj ? m[j] : 2 * m[j]);
                displs[j] = (int)at_b;
                at_b += (dj ? 3 * m[j] : 2 * m[j]) * (long)sizeof(int) + 3 * (long)sizeof(int);
              }
              ints = at_b / (long)sizeof(int);
            } else {
              ints = layout_parts(m, derived, counts, displs);
            }
            int *recv = filled(ints);
            /* where part j of recv starts, and its type's shape */
#define PART(j) \
  (w ? recv + displs[j] / (int)sizeof(int) : (derived ? recv + 3 * (long)displs[j] : recv + displs[j]))
#define PART_DERIVED(j) (w ? (j) % 2 : derived)
            long stotal = 0;
            for (int d = 0; d < size; ++d) {
              scounts[d] = (int)(2 * PR(rank, d));
              sdispls[d] = (int)stotal * (w ? (int)sizeof(int) : 1);
              stypes[d] = MPI_INT;
              stotal += scounts[d];
            }
            int *send = filled(stotal);
            for (int d = 0; d < size; ++d)
              for (long i = 0; i < scounts[d]; ++i) {
                const int v = val(rank, i + 1000 * d, k);
                if (in_place)
                  *at(PART(d), i, PART_DERIVED(d)) = v;
                else
                  send[(w ? sdispls[d] / (int)sizeof(int) : sdispls[d]) + i] = v;
              }
            const void *sb = in_place ? MPI_IN_PLACE : send;
            if (w)
              rc = nb ? MPI_Ialltoallw(sb, scounts, sdispls, stypes, recv, counts, displs, rtypes, c, &req)
                      : MPI_Alltoallw(sb, scounts, sdispls, stypes, recv, counts, displs, rtypes, c);
            else
              rc = nb ? MPI_Ialltoallv(sb, scounts, sdispls, MPI_INT, recv, counts, displs, rt, c, &req)
                      : MPI_Alltoallv(sb, scounts, sdispls, MPI_INT, recv, counts, displs, rt, c);
            rc = complete(rc, &req, nb, k);
            for (int j = 0; j < size; ++j) {
              if (w) {
                for (long i = 0; i < 2 * m[j]; ++i)
                  bad += *at(PART(j), i, PART_DERIVED(j)) != val(j, i + 1000 * rank, k);
                bad += PART(j)[PART_DERIVED(j) ? 3 * m[j] : 2 * m[j]] != GAP;
              } else {
                bad += part_bad(recv, derived, displs[j], m[j], j, rank, k);
              }
            }
#undef PR
#undef PART
#undef PART_DERIVED
            free(recv);
            free(send);
          }
          CHECK(rc == MPI_SUCCESS && bad == 0,
                "%s %s %s n=%ld derived=%d in_place=%d root=%d: rc %d, %ld wrong", coll, alg, nb ? "nb" : "",
                n, derived, in_place, root, rc, bad);
        }
  free(m);
  free(counts);
  free(displs);
  free(scounts);
  free(sdispls);
  free(stypes);
  free(rtypes);
  MPI_Comm_free(&c);
}

/* gather (dir 0) and scatter (dir 1): rank r's block is val(r, i). */
static void test_rooted(const char *coll, const char *alg, int nb, int scatter) {
  MPI_Comm c = forced_comm(coll, alg);
  int k = 0;
  for (int ci = 0; ci < NCOUNTS; ++ci)
    for (int derived = 0; derived < 2; ++derived)
      for (int in_place = 0; in_place < 2; ++in_place)
        for (int root = 0; root < size; root += (size > 2 ? size / 2 : 1), ++k) {
          BIG_SKIP(derived || in_place);
          const long n = COUNT(ci, 4) & ~1L; /* even: a derived element holds 2 ints */
          const long elems = derived ? n / 2 : n;
          const MPI_Datatype t = derived ? vec_int : MPI_INT;
          const int is_root = rank == root, ip = in_place && is_root;
          /* the root's big buffer is derived, the small ones contiguous (the signatures match) */
          int *big = is_root ? alloc_ints(elems * size, derived) : NULL;
          int *small = alloc_ints(n, 0);
          if (scatter) {
            if (is_root)
              for (int r = 0; r < size; ++r)
                for (long i = 0; i < n; ++i) *at(big, r * n + i, derived) = val(r, i, k);
          } else {
            for (long i = 0; i < n; ++i) small[i] = val(rank, i, k);
            if (ip)
              for (long i = 0; i < n; ++i) *at(big, root * n + i, derived) = val(root, i, k);
          }
          MPI_Request req;
          int rc;
          if (scatter)
            rc = nb ? MPI_Iscatter(big, (int)elems, t, ip ? MPI_IN_PLACE : small, (int)n, MPI_INT, root, c,
                                   &req)
                    : MPI_Scatter(big, (int)elems, t, ip ? MPI_IN_PLACE : small, (int)n, MPI_INT, root, c);
          else
            rc = nb ? MPI_Igather(ip ? MPI_IN_PLACE : small, (int)n, MPI_INT, big, (int)elems, t, root, c,
                                  &req)
                    : MPI_Gather(ip ? MPI_IN_PLACE : small, (int)n, MPI_INT, big, (int)elems, t, root, c);
          rc = complete(rc, &req, nb, k);
          long bad = 0;
          if (scatter) {
            if (!ip)
              for (long i = 0; i < n; ++i) bad += small[i] != val(rank, i, k);
            if (ip)
              for (long i = 0; i < n; ++i) bad += *at(big, root * n + i, derived) != val(root, i, k);
          } else if (is_root) {
            for (int r = 0; r < size; ++r)
              for (long i = 0; i < n; ++i) bad += *at(big, r * n + i, derived) != val(r, i, k);
          }
          const int gaps = !is_root || gaps_ok(big, elems * size, derived);
          CHECK(rc == MPI_SUCCESS && bad == 0 && gaps,
                "%s %s %s n=%ld derived=%d in_place=%d root=%d: rc %d, %ld wrong%s", coll, alg,
                nb ? "nb" : "", n, derived, in_place, root, rc, bad, gaps ? "" : ", gaps written");
          free(big);
          free(small);
        }
  MPI_Comm_free(&c);
}

/* allgather and alltoall: block (from r, to d) holds val(r, i + d * n) for alltoall, val(r, i) for
 * allgather. */
static void test_all(const char *coll, const char *alg, int nb, int alltoall) {
  MPI_Comm c = forced_comm(coll, alg);
  const int refuse = !strcmp(alg, "recursive_doubling") && !is_pow2(size);
  int k = 0;
  for (int ci = 0; ci < NCOUNTS; ++ci)
    for (int derived = 0; derived < 2; ++derived)
      for (int in_place = 0; in_place < 2; ++in_place, ++k) {
        BIG_SKIP(derived || in_place);
        const long n = COUNT(ci, alltoall ? 16 : 4) & ~1L;
        const long elems = derived ? n / 2 : n;
        const MPI_Datatype t = derived ? vec_int : MPI_INT;
        int *recv = alloc_ints(elems * size, derived);
        const long sblocks = alltoall ? size : 1;
        int *send = alloc_ints(n * sblocks, 0);
        for (long d = 0; d < sblocks; ++d)
          for (long i = 0; i < n; ++i) send[d * n + i] = val(rank, i + d * n, k);
        if (in_place) {
          if (alltoall)
            for (long j = 0; j < n * size; ++j) *at(recv, j, derived) = send[j];
          else
            for (long i = 0; i < n; ++i) *at(recv, rank * n + i, derived) = send[i];
        }
        MPI_Request req;
        const void *sb = in_place ? MPI_IN_PLACE : send;
        int rc;
        if (alltoall)
          rc = nb ? MPI_Ialltoall(sb, (int)n, MPI_INT, recv, (int)elems, t, c, &req)
                  : MPI_Alltoall(sb, (int)n, MPI_INT, recv, (int)elems, t, c);
        else
          rc = nb ? MPI_Iallgather(sb, (int)n, MPI_INT, recv, (int)elems, t, c, &req)
                  : MPI_Allgather(sb, (int)n, MPI_INT, recv, (int)elems, t, c);
        rc = complete(rc, &req, nb, k);
        if (refuse) {
          CHECK(err_class(rc) == MPI_ERR_UNSUPPORTED_OPERATION,
                "%s %s on %d ranks: rc %d, expected a refusal", coll, alg, size, rc);
        } else {
          long bad = 0;
          for (int r = 0; r < size; ++r)
            for (long i = 0; i < n; ++i)
              bad += *at(recv, r * n + i, derived) != val(r, i + (alltoall ? rank * n : 0), k);
          const int gaps = gaps_ok(recv, elems * size, derived);
          CHECK(rc == MPI_SUCCESS && bad == 0 && gaps,
                "%s %s %s n=%ld derived=%d in_place=%d: rc %d, %ld wrong%s", coll, alg, nb ? "nb" : "", n,
                derived, in_place, rc, bad, gaps ? "" : ", gaps written");
        }
        free(recv);
        free(send);
      }
  MPI_Comm_free(&c);
}

/* Two nonblocking collectives in flight on one communicator, waited for in the reverse order, with a
 * blocking one between: each must get its own messages. */
static void test_overlap(void) {
  int a[64], b[64], x = rank + 1, y = 0;
  for (int i = 0; i < 64; ++i) {
    a[i] = rank * 64 + i;
    b[i] = rank == size - 1 ? 1000 + i : -1;
  }
  MPI_Request req[2];
  MPI_Iallreduce(MPI_IN_PLACE, a, 64, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[0]);
  MPI_Ibcast(b, 64, MPI_INT, size - 1, MPI_COMM_WORLD, &req[1]);
  MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Wait(&req[1], MPI_STATUS_IGNORE);
  MPI_Wait(&req[0], MPI_STATUS_IGNORE);
  int bad = y != size * (size + 1) / 2;
  for (int i = 0; i < 64; ++i) {
    bad += a[i] != 64 * size * (size - 1) / 2 + size * i;
    bad += b[i] != 1000 + i;
  }
  CHECK(bad == 0, "two nonblocking collectives and a blocking one in flight: %d wrong", bad);
}

/* MPI_Comm_idup is nonblocking: rank 0 starts it, then receives a rendezvous-sized message that rank 1
 * sends before it starts its own idup (a blocking dup inside idup would deadlock here). The new
 * communicators work, have their own context, copy attributes, and take hints from the info. */
static void test_idup(void) {
  enum { N = 1 << 20 };
  char *big = malloc(N);
  int keyval, attr = 42, *got = NULL, flag = 0;
  MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &keyval, NULL);
  MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, &attr);
  MPI_Comm d1 = MPI_COMM_NULL, d2 = MPI_COMM_NULL;
  MPI_Request req[3];
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "pamir_coll_allreduce", "ring");
  if (rank == 0) {
    MPI_Comm_idup(MPI_COMM_WORLD, &d1, &req[0]);
    if (size > 1) MPI_Recv(big, N, MPI_CHAR, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    if (rank == 1) {
      memset(big, 7, N);
      MPI_Send(big, N, MPI_CHAR, 0, 5, MPI_COMM_WORLD);
    }
    MPI_Comm_idup(MPI_COMM_WORLD, &d1, &req[0]);
  }
  int x = rank, sum = -1;
  MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[1]);
  MPI_Comm_idup_with_info(MPI_COMM_WORLD, info, &d2, &req[2]);
  MPI_Waitall(3, req, MPI_STATUSES_IGNORE);
  CHECK(sum == size * (size - 1) / 2, "an allreduce between two idups: %d", sum);
  CHECK(d1 != MPI_COMM_NULL && d2 != MPI_COMM_NULL && d1 != d2, "idup gave two communicators");
  int cmp = -1;
  MPI_Comm_compare(d1, MPI_COMM_WORLD, &cmp);
  CHECK(cmp == MPI_CONGRUENT, "the duplicate is congruent to its parent (%d)", cmp);
  MPI_Comm_get_attr(d1, keyval, &got, &flag);
  CHECK(flag && got && *got == 42, "idup copied the attribute");
  /* own context: a message on d1 is not received on world */
  if (size > 1) {
    int v = -1, found = 0;
    if (rank == 0) MPI_Send(&x, 1, MPI_INT, 1, 9, d1);
    if (rank == 1) {
      MPI_Recv(&v, 1, MPI_INT, 0, 9, d1, MPI_STATUS_IGNORE);
      MPI_Iprobe(0, 9, MPI_COMM_WORLD, &found, MPI_STATUS_IGNORE);
      CHECK(v == 0 && !found, "the message on the duplicate stayed on it");
    }
  }
  /* d2 took the info's hint: ring cannot serve a non-commutative operation */
  MPI_Comm_set_errhandler(d2, MPI_ERRORS_RETURN);
  affine a = {3, 1}, r;
  CHECK(err_class(MPI_Allreduce(&a, &r, 1, affine_type, affine_mpi_op, d2)) == MPI_ERR_UNSUPPORTED_OPERATION,
        "idup_with_info's hint forces ring on the new communicator");
  MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, d2);
  CHECK(sum == size * (size - 1) / 2, "allreduce on the new communicator: %d", sum);
  MPI_Info_free(&info);
  MPI_Comm_free(&d1);
  MPI_Comm_free(&d2);
  MPI_Comm_delete_attr(MPI_COMM_WORLD, keyval);
  MPI_Comm_free_keyval(&keyval);
  free(big);
}

static void test_bad_info(void) {
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  /* A hint set after calls on the communicator applies to the next one, though the call's mask is the
   * same (the communicator keeps its last choice per collective): ring refuses a non-commutative op. */
  affine a = {3, 1}, r;
  CHECK(MPI_Allreduce(&a, &r, 1, affine_type, affine_mpi_op, c) == MPI_SUCCESS, "allreduce before the hint");
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "pamir_coll_allreduce", "ring");
  MPI_Comm_set_info(c, info);
  CHECK(err_class(MPI_Allreduce(&a, &r, 1, affine_type, affine_mpi_op, c)) == MPI_ERR_UNSUPPORTED_OPERATION,
        "a hint set after a call forces ring on the next one");
  MPI_Info_set(info, "pamir_coll_allreduce", "auto");
  MPI_Comm_set_info(c, info);
  CHECK(MPI_Allreduce(&a, &r, 1, affine_type, affine_mpi_op, c) == MPI_SUCCESS, "auto again after the hint");
  MPI_Info_free(&info);
  MPI_Info_create(&info);
  MPI_Info_set(info, "pamir_coll_allreduce", "no_such_algorithm");
  CHECK(err_class(MPI_Comm_set_info(c, info)) == MPI_ERR_INFO_VALUE, "an unknown algorithm is refused");
  MPI_Info_free(&info);
  MPI_Info_create(&info);
  MPI_Info_set(info, "pamir_coll_allreducex", "ring");
  CHECK(err_class(MPI_Comm_set_info(c, info)) == MPI_ERR_INFO_KEY, "an unknown collective is refused");
  MPI_Info_free(&info);
  /* bad input to the newer collectives: each a clear error, on every rank, before anything moves */
  int in[8] = {0}, out[64];
  int counts[8], displs[8];
  MPI_Datatype types[8];
  for (int i = 0; i < 8; ++i) {
    counts[i] = 1;
    displs[i] = i;
    types[i] = MPI_INT;
  }
  MPI_Request req;
  CHECK(err_class(MPI_Iallreduce(in, out, 1, MPI_INT, MPI_SUM, c, NULL)) == MPI_ERR_ARG,
        "Iallreduce request NULL");
  CHECK(err_class(MPI_Ibcast(MPI_IN_PLACE, 1, MPI_INT, 0, c, &req)) == MPI_ERR_BUFFER, "Ibcast MPI_IN_PLACE");
  CHECK(err_class(MPI_Igatherv(in, 1, MPI_INT, out, counts, displs, MPI_INT, size, c, &req)) == MPI_ERR_ROOT,
        "Igatherv root = size");
  CHECK(err_class(MPI_Scatterv(in, counts, displs, MPI_INT, out, 1, MPI_INT, -1, c)) == MPI_ERR_ROOT,
        "Scatterv root = -1");
  CHECK(err_class(MPI_Scan(in, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, c)) == MPI_ERR_BUFFER,
        "Scan recvbuf MPI_IN_PLACE");
  CHECK(err_class(MPI_Iexscan(in, out, 1, MPI_INT, MPI_OP_NULL, c, &req)) == MPI_ERR_OP,
        "Iexscan MPI_OP_NULL");
  CHECK(err_class(MPI_Scan(in, out, 1, MPI_FLOAT, MPI_BAND, c)) == MPI_ERR_OP, "Scan MPI_BAND on MPI_FLOAT");
  counts[size - 1] = -1;
  CHECK(err_class(MPI_Reduce_scatter(in, out, counts, MPI_INT, MPI_SUM, c)) == MPI_ERR_COUNT,
        "Reduce_scatter a negative count");
  CHECK(err_class(MPI_Allgatherv(in, 1, MPI_INT, out, counts, displs, MPI_INT, c)) == MPI_ERR_COUNT,
        "Allgatherv a negative count");
  counts[size - 1] = 1;
  CHECK(err_class(MPI_Reduce_scatter(in, out, NULL, MPI_INT, MPI_SUM, c)) == MPI_ERR_ARG,
        "Reduce_scatter counts NULL");
  CHECK(err_class(MPI_Reduce_scatter_block(in, out, -3, MPI_INT, MPI_SUM, c)) == MPI_ERR_COUNT,
        "Reduce_scatter_block count -3");
  CHECK(err_class(MPI_Alltoallw(in, counts, displs, NULL, out, counts, displs, types, c)) == MPI_ERR_ARG,
        "Alltoallw sendtypes NULL");
  types[0] = MPI_DATATYPE_NULL;
  CHECK(err_class(MPI_Ialltoallw(in, counts, displs, types, out, counts, displs, types, c, &req)) ==
            MPI_ERR_TYPE,
        "Ialltoallw a null type");
  CHECK(err_class(MPI_Comm_idup(c, NULL, &req)) == MPI_ERR_ARG, "Comm_idup newcomm NULL");
  /* the refused hints left the communicator as it was: the default algorithm still serves it */
  int x = 1, y = 0;
  CHECK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, c) == MPI_SUCCESS && y == size,
        "allreduce after refusals");
  MPI_Comm_free(&c);
}

/* A torus algorithm forced where the communicator does not fill the torus (no torus at all, or half of
 * it) is refused on every rank before anything moves. */
static void test_torus_refused(void) {
  if (size < 2 || (coll_on_torus() && size < 4)) return;
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, coll_on_torus() ? rank % 2 : 0, rank, &half);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "pamir_coll_bcast", "torus");
  MPI_Info_set(info, "pamir_coll_allreduce", "torus_colours");
  MPI_Comm c;
  MPI_Comm_dup_with_info(half, info, &c);
  MPI_Info_free(&info);
  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  int v = rank, sum = 0;
  int rc1 = MPI_Bcast(&v, 1, MPI_INT, 0, c);
  int rc2 = MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c);
  CHECK(err_class(rc1) == MPI_ERR_UNSUPPORTED_OPERATION && err_class(rc2) == MPI_ERR_UNSUPPORTED_OPERATION,
        "torus algorithms on a communicator that does not fill the torus: classes %d and %d", err_class(rc1),
        err_class(rc2));
  MPI_Comm_free(&c);
  MPI_Comm_free(&half);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Type_vector(2, 1, 2, MPI_INT, &vec_int);
  MPI_Type_commit(&vec_int);
  MPI_Type_contiguous(2, MPI_UINT32_T, &affine_type);
  MPI_Type_commit(&affine_type);
  MPI_Type_create_resized(MPI_INT, 0, 8, &gapped_int);
  MPI_Type_commit(&gapped_int);
  MPI_Op_create(affine_op, 0, &affine_mpi_op);
  MPI_Op_create(gapped_sum, 1, &gapped_sum_op);

  /* the barrier counter: a file rank 0 creates, every rank maps, removed once mapped; in a directory
   * every host sees (TEST_SHARED_DIR) where the ranks are on several */
  char path[256] = "";
  if (rank == 0) {
    const char *dir = getenv("TEST_SHARED_DIR");
    snprintf(path, sizeof path, "%s/pamir-coll-sweep-%d", dir ? dir : "/tmp", (int)getpid());
    FILE *f = fopen(path, "w");
    if (!f) {
      fprintf(stderr, "coll_sweep: cannot create %s\n", path);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long zero = 0;
    fwrite(&zero, sizeof zero, 1, f);
    fclose(f);
  }
  MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
  FILE *f = fopen(path, "r+");
  if (!f) {
    fprintf(stderr, "coll_sweep: rank %d cannot open %s (ranks on several hosts need TEST_SHARED_DIR)\n",
            rank, path);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  arrivals = mmap(NULL, sizeof(long), PROT_READ | PROT_WRITE, MAP_SHARED, fileno(f), 0);
  fclose(f);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) unlink(path);

  for (int nb = 0; nb < 2; ++nb) {
    for (const char *const *a = kBarrier; *a; ++a)
      if (swept(*a)) test_barrier(*a, nb);
    for (const char *const *a = kBcast; *a; ++a)
      if (swept(*a)) test_bcast(*a, nb);
    for (const char *const *a = kReduce; *a; ++a)
      if (swept(*a)) test_reduce("reduce", *a, nb, 0);
    for (const char *const *a = kAllreduce; *a; ++a)
      if (swept(*a)) test_reduce("allreduce", *a, nb, 1);
    for (const char *const *a = kGather; *a; ++a)
      if (swept(*a)) test_rooted("gather", *a, nb, 0);
    for (const char *const *a = kScatter; *a; ++a)
      if (swept(*a)) test_rooted("scatter", *a, nb, 1);
    for (const char *const *a = kAllgather; *a; ++a)
      if (swept(*a)) test_all("allgather", *a, nb, 0);
    for (const char *const *a = kAlltoall; *a; ++a)
      if (swept(*a)) test_all("alltoall", *a, nb, 1);
    for (const char *const *a = kScan; *a; ++a)
      if (swept(*a)) test_scan(*a, nb, 0);
    for (const char *const *a = kScan; *a; ++a)
      if (swept(*a)) test_scan(*a, nb, 1);
    for (const char *const *a = kReduceScatter; *a; ++a)
      if (swept(*a)) test_reduce_scatter(*a, nb, 0);
    for (const char *const *a = kReduceScatter; *a; ++a)
      if (swept(*a)) test_reduce_scatter(*a, nb, 1);
    for (size_t v = 0; v < sizeof kVector / sizeof kVector[0]; ++v)
      if (swept(kVector[v].alg)) test_vector(kVector[v].coll, kVector[v].alg, nb);
  }
  /* sizes of several MiB, blocking only */
  big = 1;
  for (const char *const *a = kBcast; *a; ++a)
    if (swept(*a)) test_bcast(*a, 0);
  for (const char *const *a = kReduce; *a; ++a)
    if (swept(*a)) test_reduce("reduce", *a, 0, 0);
  for (const char *const *a = kAllreduce; *a; ++a)
    if (swept(*a)) test_reduce("allreduce", *a, 0, 1);
  for (const char *const *a = kGather; *a; ++a)
    if (swept(*a)) test_rooted("gather", *a, 0, 0);
  for (const char *const *a = kScatter; *a; ++a)
    if (swept(*a)) test_rooted("scatter", *a, 0, 1);
  for (const char *const *a = kAllgather; *a; ++a)
    if (swept(*a)) test_all("allgather", *a, 0, 0);
  for (const char *const *a = kAlltoall; *a; ++a)
    if (swept(*a)) test_all("alltoall", *a, 0, 1);
  for (const char *const *a = kScan; *a; ++a)
    if (swept(*a)) test_scan(*a, 0, 0);
  for (const char *const *a = kReduceScatter; *a; ++a)
    if (swept(*a)) test_reduce_scatter(*a, 0, 1);
  big = 0;
  test_torus_refused();
  if (!getenv("TEST_COLL_ALGORITHMS")) {
    test_overlap();
    test_idup();
    test_bad_info();
  }
  munmap((void *)arrivals, sizeof(long));
  MPI_Op_free(&affine_mpi_op);
  MPI_Op_free(&gapped_sum_op);
  MPI_Type_free(&vec_int);
  MPI_Type_free(&affine_type);
  MPI_Type_free(&gapped_int);
  return finish("coll_sweep");
}
