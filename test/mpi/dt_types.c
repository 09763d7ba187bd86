/* Derived datatypes on one rank: every constructor and 2000 seeded random type trees against the naive
 * type-map model of typemap.h (sizes, bounds, MPI_Pack bytes, MPI_Unpack leaving gaps alone), envelope and
 * contents rebuilt into equal types, external32 byte order, MPI_Get_elements on derived types, MPI_BOTTOM,
 * the patent's example, and the error classes of bad arguments. Usage: dt_types [seed] */
#include <stdint.h>

#include "check.h"
#include "typemap.h"

static unsigned rng_state = 12345;
static unsigned rnd(unsigned n) {
  rng_state = rng_state * 1103515245u + 12345u;
  return ((rng_state >> 8) & 0xffffff) % n;
}

/* Checks one type against its model: bounds, size, and packing `count` elements of a patterned buffer. */
static void check_type(MPI_Datatype t, const typemap *m, long count, const char *what) {
  MPI_Aint lb, ext, tlb, text;
  MPI_Count size;
  MPI_Type_get_extent(t, &lb, &ext);
  MPI_Type_size_c(t, &size);
  CHECK(lb == m->lb && ext == tm_extent(m), "%s: lb/extent %ld/%ld, model %ld/%ld", what, (long)lb, (long)ext,
        m->lb, tm_extent(m));
  CHECK(size == tm_size(m), "%s: size %lld, model %ld", what, (long long)size, tm_size(m));
  long lo, hi;
  tm_span(m, 1, &lo, &hi);
  MPI_Type_get_true_extent(t, &tlb, &text);
  if (m->n)
    CHECK(tlb == lo && text == hi - lo, "%s: true lb/extent %ld/%ld, model %ld/%ld", what, (long)tlb,
          (long)text, lo, hi - lo);
  tm_span(m, count, &lo, &hi);
  const long span = hi - lo + 64, bytes = tm_size(m) * count;
  char *mem = malloc((size_t)span), *back = malloc((size_t)span);
  char *packed = malloc((size_t)bytes + 1), *model = malloc((size_t)bytes + 1);
  for (long i = 0; i < span; ++i) mem[i] = (char)(i * 7 + 3);
  char *origin = mem + 32 - lo;
  int pos = 0;
  int rc = MPI_Pack(origin, (int)count, t, packed, (int)bytes, &pos, MPI_COMM_WORLD);
  CHECK(rc == MPI_SUCCESS && pos == bytes, "%s: MPI_Pack rc %d position %d of %ld", what, rc, pos, bytes);
  tm_pack(m, count, origin, model);
  CHECK(memcmp(packed, model, (size_t)bytes) == 0, "%s: MPI_Pack bytes differ from the model", what);
  /* Unpack into a buffer of 0x5a: the layout's bytes come back, every other byte stays. */
  memset(back, 0x5a, (size_t)span);
  char *borigin = back + 32 - lo;
  pos = 0;
  rc = MPI_Unpack(packed, (int)bytes, &pos, borigin, (int)count, t, MPI_COMM_WORLD);
  CHECK(rc == MPI_SUCCESS && pos == bytes, "%s: MPI_Unpack rc %d position %d", what, rc, pos);
  char *expect = malloc((size_t)span);
  memset(expect, 0x5a, (size_t)span);
  for (long k = 0; k < count; ++k)
    for (long i = 0; i < m->n; ++i) {
      const long at = 32 - lo + k * tm_extent(m) + m->e[i].off;
      memcpy(expect + at, mem + at, (size_t)m->e[i].len);
    }
  CHECK(memcmp(back, expect, (size_t)span) == 0, "%s: MPI_Unpack touched a gap or missed data", what);
  free(mem);
  free(back);
  free(packed);
  free(model);
  free(expect);
}

/* Basic leaves with their sizes and alignments. */
static const struct {
  MPI_Datatype t;
  int size, align;
} leaves[] = {{MPI_BYTE, 1, 1}, {MPI_SHORT, 2, 2}, {MPI_INT, 4, 4}, {MPI_DOUBLE, 8, 8}, {MPI_CHAR, 1, 1}};

/* A random type tree of at most `depth` levels, with its model; *t is committed by the caller. */
static void random_type(int depth, MPI_Datatype *t, typemap *m) {
  if (depth == 0 || rnd(4) == 0) {
    const int k = (int)rnd(sizeof leaves / sizeof leaves[0]);
    *t = leaves[k].t;
    *m = tm_basic(leaves[k].size, leaves[k].align);
    return;
  }
  MPI_Datatype old;
  typemap om;
  random_type(depth - 1, &old, &om);
  const long ext = tm_extent(&om);
  switch (rnd(9)) {
    case 0: {
      const int n = (int)rnd(4);
      MPI_Type_contiguous(n, old, t);
      *m = tm_contiguous(n, &om);
      break;
    }
    case 1: {
      const int n = (int)rnd(4), bl = (int)rnd(3), stride = (int)rnd(7) - 2;
      MPI_Type_vector(n, bl, stride, old, t);
      *m = tm_hvector(n, bl, stride * ext, &om);
      break;
    }
    case 2: {
      const int n = (int)rnd(4), bl = (int)rnd(3);
      const MPI_Aint stride = (MPI_Aint)rnd(64) - 16;
      MPI_Type_create_hvector(n, bl, stride, old, t);
      *m = tm_hvector(n, bl, stride, &om);
      break;
    }
    case 3: {
      int n = (int)rnd(4), bl[4], d[4];
      long lbl[4], ld[4];
      for (int i = 0; i < n; ++i) {
        bl[i] = (int)rnd(3);
        d[i] = (int)rnd(9) - 3;
        lbl[i] = bl[i];
        ld[i] = d[i] * ext;
      }
      MPI_Type_indexed(n, bl, d, old, t);
      *m = tm_hindexed(n, lbl, ld, &om);
      break;
    }
    case 4: {
      int n = (int)rnd(4), bl[4];
      MPI_Aint d[4];
      long lbl[4], ld[4];
      for (int i = 0; i < n; ++i) {
        bl[i] = (int)rnd(3);
        d[i] = (MPI_Aint)rnd(80) - 20;
        lbl[i] = bl[i];
        ld[i] = d[i];
      }
      MPI_Type_create_hindexed(n, bl, d, old, t);
      *m = tm_hindexed(n, lbl, ld, &om);
      break;
    }
    case 5: {
      int n = (int)rnd(4), bl = (int)rnd(3), d[4];
      long lbl[4], ld[4];
      for (int i = 0; i < n; ++i) {
        d[i] = (int)rnd(9);
        lbl[i] = bl;
        ld[i] = d[i] * ext;
      }
      MPI_Type_create_indexed_block(n, bl, d, old, t);
      *m = tm_hindexed(n, lbl, ld, &om);
      break;
    }
    case 6: {
      int n = (int)rnd(4), bl = (int)rnd(3);
      MPI_Aint d[4];
      long lbl[4], ld[4];
      for (int i = 0; i < n; ++i) {
        d[i] = (MPI_Aint)rnd(80);
        lbl[i] = bl;
        ld[i] = d[i];
      }
      MPI_Type_create_hindexed_block(n, bl, d, old, t);
      *m = tm_hindexed(n, lbl, ld, &om);
      break;
    }
    case 7: {
      /* A struct of the subtree and a second random part. */
      MPI_Datatype other;
      typemap omm;
      random_type(depth - 1, &other, &omm);
      int bl[2] = {(int)rnd(3), (int)rnd(3)};
      MPI_Aint d[2] = {(MPI_Aint)rnd(40), (MPI_Aint)rnd(40) + 8};
      MPI_Datatype ts[2] = {old, other};
      long lbl[2] = {bl[0], bl[1]}, ld[2] = {d[0], d[1]};
      const typemap *ms[2] = {&om, &omm};
      MPI_Type_create_struct(2, bl, d, ts, t);
      *m = tm_struct(2, lbl, ld, ms);
      if (other != MPI_BYTE && other != MPI_SHORT && other != MPI_INT && other != MPI_DOUBLE &&
          other != MPI_CHAR)
        MPI_Type_free(&other);
      tm_free(&omm);
      break;
    }
    default: {
      const MPI_Aint lb = (MPI_Aint)rnd(16) - 8, extent = (MPI_Aint)rnd(48) + 1;
      MPI_Type_create_resized(old, lb, extent, t);
      *m = tm_resized(&om, lb, extent);
      break;
    }
  }
  /* The new type holds what it was made from: freeing the part now must not matter. */
  if (old != MPI_BYTE && old != MPI_SHORT && old != MPI_INT && old != MPI_DOUBLE && old != MPI_CHAR)
    MPI_Type_free(&old);
  tm_free(&om);
}

/* Rebuilds a type from its envelope and contents (recursively through its parts). */
static MPI_Datatype rebuild(MPI_Datatype t) {
  int ni, na, nt, comb;
  MPI_Type_get_envelope(t, &ni, &na, &nt, &comb);
  if (comb == MPI_COMBINER_NAMED) return t;
  int *ints = malloc(sizeof(int) * (size_t)(ni + 1));
  MPI_Aint *aints = malloc(sizeof(MPI_Aint) * (size_t)(na + 1));
  MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)(nt + 1));
  MPI_Type_get_contents(t, ni, na, nt, ints, aints, types);
  MPI_Datatype parts[2], out = MPI_DATATYPE_NULL;
  for (int i = 0; i < nt; ++i) parts[i] = rebuild(types[i]);
  switch (comb) {
    case MPI_COMBINER_DUP:
      MPI_Type_dup(parts[0], &out);
      break;
    case MPI_COMBINER_CONTIGUOUS:
      MPI_Type_contiguous(ints[0], parts[0], &out);
      break;
    case MPI_COMBINER_VECTOR:
      MPI_Type_vector(ints[0], ints[1], ints[2], parts[0], &out);
      break;
    case MPI_COMBINER_HVECTOR:
      MPI_Type_create_hvector(ints[0], ints[1], aints[0], parts[0], &out);
      break;
    case MPI_COMBINER_INDEXED:
      MPI_Type_indexed(ints[0], ints + 1, ints + 1 + ints[0], parts[0], &out);
      break;
    case MPI_COMBINER_HINDEXED:
      MPI_Type_create_hindexed(ints[0], ints + 1, aints, parts[0], &out);
      break;
    case MPI_COMBINER_INDEXED_BLOCK:
      MPI_Type_create_indexed_block(ints[0], ints[1], ints + 2, parts[0], &out);
      break;
    case MPI_COMBINER_HINDEXED_BLOCK:
      MPI_Type_create_hindexed_block(ints[0], ints[1], aints, parts[0], &out);
      break;
    case MPI_COMBINER_STRUCT:
      MPI_Type_create_struct(ints[0], ints + 1, aints, parts, &out);
      break;
    case MPI_COMBINER_RESIZED:
      MPI_Type_create_resized(parts[0], aints[0], aints[1], &out);
      break;
    case MPI_COMBINER_SUBARRAY: {
      const int n = ints[0];
      MPI_Type_create_subarray(n, ints + 1, ints + 1 + n, ints + 1 + 2 * n, ints[1 + 3 * n], parts[0], &out);
      break;
    }
    case MPI_COMBINER_DARRAY: {
      const int n = ints[2];
      MPI_Type_create_darray(ints[0], ints[1], n, ints + 3, ints + 3 + n, ints + 3 + 2 * n, ints + 3 + 3 * n,
                             ints[3 + 4 * n], parts[0], &out);
      break;
    }
    default:
      CHECK(0, "unexpected combiner %d", comb);
  }
  for (int i = 0; i < nt; ++i) {
    int a, b, c, k;
    MPI_Type_get_envelope(types[i], &a, &b, &c, &k);
    if (k != MPI_COMBINER_NAMED) {
      MPI_Type_free(&types[i]); /* the new reference get_contents handed out */
      MPI_Type_free(&parts[i]);
    }
  }
  free(ints);
  free(aints);
  free(types);
  MPI_Type_commit(&out);
  return out;
}

/* Packs count elements of a and b from the same patterned memory: equal types give equal bytes. */
static void check_same(MPI_Datatype a, MPI_Datatype b, const char *what) {
  MPI_Aint la, ea, lb2, eb;
  MPI_Count sa, sb;
  MPI_Type_get_extent(a, &la, &ea);
  MPI_Type_get_extent(b, &lb2, &eb);
  MPI_Type_size_c(a, &sa);
  MPI_Type_size_c(b, &sb);
  CHECK(la == lb2 && ea == eb && sa == sb, "%s: bounds or size differ (%ld/%ld/%lld vs %ld/%ld/%lld)", what,
        (long)la, (long)ea, (long long)sa, (long)lb2, (long)eb, (long long)sb);
  static char mem[1 << 16];
  for (size_t i = 0; i < sizeof mem; ++i) mem[i] = (char)(i * 13 + 1);
  char pa[4096], pb[4096];
  int qa = 0, qb = 0;
  if (sa * 2 > (MPI_Count)sizeof pa) return;
  MPI_Pack(mem + 32768, 2, a, pa, sizeof pa, &qa, MPI_COMM_WORLD);
  MPI_Pack(mem + 32768, 2, b, pb, sizeof pb, &qb, MPI_COMM_WORLD);
  CHECK(qa == qb && memcmp(pa, pb, (size_t)qa) == 0, "%s: the rebuilt type packs differently", what);
}

static int keep_subarray(int dim, long index, const void *arg) {
  const long *s = (const long *)arg; /* starts[0..2], subsizes[3..5] in memory order */
  return index >= s[dim] && index < s[dim] + s[3 + dim];
}

struct darray_arg {
  int distrib[3], darg[3], p[3], coord[3];
  long g[3];
};
static int keep_darray(int dim, long index, const void *arg) {
  const struct darray_arg *a = (const struct darray_arg *)arg;
  const long g = a->g[dim], p = a->p[dim];
  switch (a->distrib[dim]) {
    case MPI_DISTRIBUTE_NONE:
      return 1;
    case MPI_DISTRIBUTE_BLOCK: {
      const long b = a->darg[dim] == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : a->darg[dim];
      return index / b == a->coord[dim];
    }
    default: {
      const long k = a->darg[dim] == MPI_DISTRIBUTE_DFLT_DARG ? 1 : a->darg[dim];
      return (index / k) % p == a->coord[dim];
    }
  }
}

static void test_constructors(void) {
  typemap dbl = tm_basic(8, 8), in = tm_basic(4, 4), ch = tm_basic(1, 1);
  MPI_Datatype t;
  /* contiguous, vector, hvector */
  MPI_Type_contiguous(5, MPI_INT, &t);
  MPI_Type_commit(&t);
  typemap m = tm_contiguous(5, &in);
  check_type(t, &m, 3, "contiguous");
  tm_free(&m);
  MPI_Type_free(&t);
  MPI_Type_vector(4, 2, 5, MPI_DOUBLE, &t);
  MPI_Type_commit(&t);
  m = tm_hvector(4, 2, 40, &dbl);
  check_type(t, &m, 3, "vector");
  tm_free(&m);
  MPI_Type_free(&t);
  MPI_Type_vector(3, 1, -2, MPI_INT, &t); /* negative stride: a negative lower bound */
  MPI_Type_commit(&t);
  m = tm_hvector(3, 1, -8, &in);
  check_type(t, &m, 2, "vector, negative stride");
  tm_free(&m);
  MPI_Type_free(&t);
  MPI_Type_create_hvector(3, 2, 20, MPI_INT, &t);
  MPI_Type_commit(&t);
  m = tm_hvector(3, 2, 20, &in);
  check_type(t, &m, 2, "hvector");
  tm_free(&m);
  MPI_Type_free(&t);
  /* indexed family */
  {
    int bl[3] = {2, 0, 3}, d[3] = {4, 1, -2};
    long lbl[3] = {2, 0, 3}, ld[3] = {16, 4, -8};
    MPI_Type_indexed(3, bl, d, MPI_INT, &t);
    MPI_Type_commit(&t);
    m = tm_hindexed(3, lbl, ld, &in);
    check_type(t, &m, 2, "indexed");
    tm_free(&m);
    MPI_Type_free(&t);
    MPI_Aint hd[3] = {3, 40, -5};
    long lhd[3] = {3, 40, -5};
    MPI_Type_create_hindexed(3, bl, hd, MPI_CHAR, &t);
    MPI_Type_commit(&t);
    m = tm_hindexed(3, lbl, lhd, &ch);
    check_type(t, &m, 2, "hindexed");
    tm_free(&m);
    MPI_Type_free(&t);
    long b2[3] = {2, 2, 2};
    MPI_Type_create_indexed_block(3, 2, d, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    long ldd[3] = {32, 8, -16};
    m = tm_hindexed(3, b2, ldd, &dbl);
    check_type(t, &m, 2, "indexed_block");
    tm_free(&m);
    MPI_Type_free(&t);
    MPI_Type_create_hindexed_block(3, 2, hd, MPI_CHAR, &t);
    MPI_Type_commit(&t);
    m = tm_hindexed(3, b2, lhd, &ch);
    check_type(t, &m, 2, "hindexed_block");
    tm_free(&m);
    MPI_Type_free(&t);
  }
  /* struct {double; char}: the extent is padded to 16, as the C struct's size */
  {
    struct s {
      double d;
      char c;
    };
    int bl[2] = {1, 1};
    MPI_Aint d[2] = {0, 8};
    MPI_Datatype ts[2] = {MPI_DOUBLE, MPI_CHAR};
    MPI_Type_create_struct(2, bl, d, ts, &t);
    MPI_Type_commit(&t);
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);
    CHECK(ext == (MPI_Aint)sizeof(struct s), "struct {double; char} extent %ld, C says %zu", (long)ext,
          sizeof(struct s));
    long lbl[2] = {1, 1}, ld[2] = {0, 8};
    const typemap *ms[2] = {&dbl, &ch};
    m = tm_struct(2, lbl, ld, ms);
    check_type(t, &m, 4, "struct");
    tm_free(&m);
    /* resized to 9: no padding from then on */
    MPI_Datatype r;
    MPI_Type_create_resized(t, 0, 9, &r);
    MPI_Type_commit(&r);
    typemap sm = tm_struct(2, lbl, ld, ms);
    m = tm_resized(&sm, 0, 9);
    check_type(r, &m, 4, "resized struct");
    tm_free(&m);
    tm_free(&sm);
    MPI_Type_free(&r);
    MPI_Type_free(&t);
  }
  /* subarray, 3-D, C and Fortran order */
  for (int order = 0; order < 2; ++order) {
    int sizes[3] = {5, 4, 6}, sub[3] = {2, 3, 4}, starts[3] = {1, 0, 2};
    MPI_Type_create_subarray(3, sizes, sub, starts, order ? MPI_ORDER_FORTRAN : MPI_ORDER_C, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    long msizes[3], arg[6];
    for (int i = 0; i < 3; ++i) {
      const int k = order ? 2 - i : i; /* memory order: Fortran's first dimension varies fastest */
      msizes[k] = sizes[i];
      arg[k] = starts[i];
      arg[3 + k] = sub[i];
    }
    m = tm_array(3, msizes, keep_subarray, arg, &dbl);
    check_type(t, &m, 2, order ? "subarray, Fortran order" : "subarray, C order");
    tm_free(&m);
    MPI_Datatype back = rebuild(t);
    check_same(t, back, "subarray rebuilt from its contents");
    MPI_Type_free(&back);
    MPI_Type_free(&t);
  }
  /* darray: every rank of a 2 x 3 grid, block / cyclic(2) / none and default block, both orders */
  for (int order = 0; order < 2; ++order)
    for (int rank = 0; rank < 6; ++rank) {
      int g[3] = {7, 10, 3}, dist[3] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE};
      int darg[3] = {MPI_DISTRIBUTE_DFLT_DARG, 2, MPI_DISTRIBUTE_DFLT_DARG}, ps[3] = {2, 3, 1};
      MPI_Type_create_darray(6, rank, 3, g, dist, darg, ps, order ? MPI_ORDER_FORTRAN : MPI_ORDER_C, MPI_INT,
                             &t);
      MPI_Type_commit(&t);
      struct darray_arg a;
      const int coord[3] = {rank / 3, rank % 3, 0};
      long msizes[3];
      for (int i = 0; i < 3; ++i) {
        const int k = order ? 2 - i : i;
        a.distrib[k] = dist[i];
        a.darg[k] = darg[i];
        a.p[k] = ps[i];
        a.coord[k] = coord[i];
        a.g[k] = g[i];
        msizes[k] = g[i];
      }
      m = tm_array(3, msizes, keep_darray, &a, &in);
      char what[64];
      snprintf(what, sizeof what, "darray rank %d %s order", rank, order ? "Fortran" : "C");
      check_type(t, &m, 1, what);
      tm_free(&m);
      MPI_Type_free(&t);
    }
  /* dup keeps the layout and reports MPI_COMBINER_DUP */
  {
    MPI_Datatype v, d;
    MPI_Type_vector(3, 1, 2, MPI_INT, &v);
    MPI_Type_commit(&v);
    MPI_Type_dup(v, &d);
    check_same(v, d, "dup");
    int ni, na, nt, comb;
    MPI_Type_get_envelope(d, &ni, &na, &nt, &comb);
    CHECK(comb == MPI_COMBINER_DUP && ni == 0 && na == 0 && nt == 1, "dup envelope %d %d %d %d", comb, ni, na,
          nt);
    MPI_Type_free(&v);
    MPI_Type_free(&d);
  }
  tm_free(&dbl);
  tm_free(&in);
  tm_free(&ch);
}

static void test_random(unsigned seed, int n) {
  rng_state = seed;
  for (int i = 0; i < n; ++i) {
    MPI_Datatype t;
    typemap m;
    random_type(3, &t, &m);
    const int predefined =
        t == MPI_BYTE || t == MPI_SHORT || t == MPI_INT || t == MPI_DOUBLE || t == MPI_CHAR;
    if (!predefined) MPI_Type_commit(&t);
    char what[64];
    snprintf(what, sizeof what, "random type %d (seed %u)", i, seed);
    check_type(t, &m, 1 + (long)rnd(4), what);
    if (!predefined) {
      MPI_Datatype back = rebuild(t);
      check_same(t, back, what);
      if (back != t) MPI_Type_free(&back);
      MPI_Type_free(&t);
    }
    tm_free(&m);
  }
}

/* The patent's example: 1-byte elements at offsets 1, 2, 5, 7 sent into offsets 0, 3, 5, 6. */
static void test_patent_example(void) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int one[4] = {1, 1, 1, 1}, from[4] = {1, 2, 5, 7}, to[4] = {0, 3, 5, 6};
  MPI_Datatype a, b;
  MPI_Type_indexed(4, one, from, MPI_BYTE, &a);
  MPI_Type_indexed(4, one, to, MPI_BYTE, &b);
  MPI_Type_commit(&a);
  MPI_Type_commit(&b);
  char src[8] = {'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'}, dst[8];
  memset(dst, '.', sizeof dst);
  MPI_Sendrecv(src, 1, a, rank, 7, dst, 1, b, rank, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CHECK(memcmp(dst, "b..c.fh.", 8) == 0, "patent example: got %.8s, want b..c.fh.", dst);
  MPI_Type_free(&a);
  MPI_Type_free(&b);
}

static void test_external32(void) {
  unsigned char out[64];
  MPI_Aint pos = 0, size = 0;
  int i = 0x01020304;
  MPI_Pack_external("external32", &i, 1, MPI_INT, out, sizeof out, &pos);
  CHECK(pos == 4 && out[0] == 1 && out[1] == 2 && out[2] == 3 && out[3] == 4,
        "external32 int: %02x %02x %02x %02x", out[0], out[1], out[2], out[3]);
  double d = 1.0;
  pos = 0;
  MPI_Pack_external("external32", &d, 1, MPI_DOUBLE, out, sizeof out, &pos);
  CHECK(pos == 8 && out[0] == 0x3f && out[1] == 0xf0 && out[7] == 0, "external32 double 1.0: %02x %02x",
        out[0], out[1]);
  long double ld = -2.0L;
  pos = 0;
  MPI_Pack_external("external32", &ld, 1, MPI_LONG_DOUBLE, out, sizeof out, &pos);
  /* binary128 -2.0: sign 1, exponent 0x4000, fraction 0 */
  CHECK(pos == 16 && out[0] == 0xc0 && out[1] == 0x00 && out[2] == 0 && out[15] == 0,
        "external32 long double -2.0: %02x %02x %02x", out[0], out[1], out[2]);
  float _Complex z = 1.0f + 2.0f * (float _Complex)__builtin_complex(0.0f, 1.0f);
  pos = 0;
  MPI_Pack_external("external32", &z, 1, MPI_C_FLOAT_COMPLEX, out, sizeof out, &pos);
  CHECK(pos == 8 && out[0] == 0x3f && out[1] == 0x80 && out[4] == 0x40 && out[5] == 0x00,
        "external32 complex 1+2i: %02x %02x %02x %02x", out[0], out[1], out[4], out[5]);
  /* a struct round trip, and the size query */
  struct {
    short s;
    int i;
    double d;
    long double l;
  } v = {-3, 77, 2.5, 1.25L}, w;
  memset(&w, 0, sizeof w);
  int bl[4] = {1, 1, 1, 1};
  MPI_Aint disp[4] = {0, 4, 8, 16};
  MPI_Datatype ts[4] = {MPI_SHORT, MPI_INT, MPI_DOUBLE, MPI_LONG_DOUBLE}, t;
  MPI_Type_create_struct(4, bl, disp, ts, &t);
  MPI_Type_commit(&t);
  MPI_Pack_external_size("external32", 1, t, &size);
  CHECK(size == 30, "external32 size of {short,int,double,long double} %ld, want 30", (long)size);
  pos = 0;
  MPI_Pack_external("external32", &v, 1, t, out, sizeof out, &pos);
  CHECK(out[0] == 0xff && out[1] == 0xfd && out[2] == 0 && out[5] == 77, "external32 struct bytes");
  MPI_Aint back = 0;
  MPI_Unpack_external("external32", out, pos, &back, &w, 1, t);
  CHECK(back == pos && w.s == -3 && w.i == 77 && w.d == 2.5 && w.l == 1.25L, "external32 round trip");
  MPI_Type_free(&t);

  /* MPI_LONG and MPI_UNSIGNED_LONG are 4 bytes in external32 (8 natively): sizes, big-endian bytes,
   * sign and zero extension back, a struct that mixes them, and a value that does not fit. */
  MPI_Aint lsize = 0, usize = 0, pisize = 0;
  MPI_Pack_external_size("external32", 2, MPI_LONG, &lsize);
  MPI_Pack_external_size("external32", 3, MPI_UNSIGNED_LONG, &usize);
  MPI_Pack_external_size("external32", 1, MPI_LONG_INT, &pisize);
  CHECK(lsize == 8 && usize == 12 && pisize == 8,
        "external32 sizes: 2 longs %ld, 3 unsigned longs %ld, long+int %ld", (long)lsize, (long)usize,
        (long)pisize);
  long longs[2] = {-2, 0x12345678}, longs_back[2] = {0, 0};
  pos = 0;
  MPI_Pack_external("external32", longs, 2, MPI_LONG, out, sizeof out, &pos);
  CHECK(pos == 8 && out[0] == 0xff && out[3] == 0xfe && out[4] == 0x12 && out[7] == 0x78,
        "external32 longs: position %ld, bytes %02x..%02x %02x..%02x", (long)pos, out[0], out[3], out[4],
        out[7]);
  back = 0;
  MPI_Unpack_external("external32", out, pos, &back, longs_back, 2, MPI_LONG);
  CHECK(back == 8 && longs_back[0] == -2 && longs_back[1] == 0x12345678, "external32 longs back: %ld %ld",
        longs_back[0], longs_back[1]);
  unsigned long ul = 0xfffffffeUL, ul_back = 0;
  pos = 0;
  MPI_Pack_external("external32", &ul, 1, MPI_UNSIGNED_LONG, out, sizeof out, &pos);
  back = 0;
  MPI_Unpack_external("external32", out, pos, &back, &ul_back, 1, MPI_UNSIGNED_LONG);
  CHECK(pos == 4 && ul_back == 0xfffffffeUL, "external32 unsigned long round trip: %lx", ul_back);
  struct {
    long l;
    int i;
  } li = {-5, 9}, li_back = {0, 0};
  pos = 0;
  MPI_Pack_external("external32", &li, 1, MPI_LONG_INT, out, sizeof out, &pos);
  back = 0;
  MPI_Unpack_external("external32", out, pos, &back, &li_back, 1, MPI_LONG_INT);
  CHECK(pos == 8 && li_back.l == -5 && li_back.i == 9, "external32 MPI_LONG_INT: %ld bytes, %ld %d",
        (long)pos, li_back.l, li_back.i);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  long big = 1L << 40;
  pos = 0;
  CHECK(err_class(MPI_Pack_external("external32", &big, 1, MPI_LONG, out, sizeof out, &pos)) == MPI_ERR_ARG,
        "a long beyond 32 bits is refused");
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

/* MPI_Get_elements and MPI_Get_count on a derived type, from the bytes a status carries. */
static void test_get_elements(void) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int bl[2] = {1, 1};
  MPI_Aint d[2] = {0, 8};
  MPI_Datatype ts[2] = {MPI_INT, MPI_DOUBLE}, t;
  MPI_Type_create_struct(2, bl, d, ts, &t); /* size 12: int, double */
  MPI_Type_commit(&t);
  char bytes[64] = {0};
  char into[256];
  const int sizes[] = {0, 4, 12, 16, 24, 6};
  const int counts[] = {0, MPI_UNDEFINED, 1, MPI_UNDEFINED, 2, MPI_UNDEFINED};
  const int elements[] = {0, 1, 2, 3, 4, MPI_UNDEFINED};
  for (int k = 0; k < 6; ++k) {
    MPI_Status st;
    MPI_Sendrecv(bytes, sizes[k], MPI_BYTE, rank, 3, into, 8, t, rank, 3, MPI_COMM_WORLD, &st);
    int n = -7, e = -7;
    MPI_Get_count(&st, t, &n);
    MPI_Get_elements(&st, t, &e);
    CHECK(n == counts[k] && e == elements[k], "%d bytes of {int,double}: count %d elements %d, want %d %d",
          sizes[k], n, e, counts[k], elements[k]);
  }
  MPI_Type_free(&t);
}

/* MPI_BOTTOM with absolute addresses, and a negative lower bound. */
static void test_bottom(void) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  static int a = 11;
  static double b = 2.75;
  int bl[2] = {1, 1};
  MPI_Aint d[2];
  MPI_Get_address(&a, &d[0]);
  MPI_Get_address(&b, &d[1]);
  MPI_Datatype ts[2] = {MPI_INT, MPI_DOUBLE}, t;
  MPI_Type_create_struct(2, bl, d, ts, &t);
  MPI_Type_commit(&t);
  struct {
    int a;
    double b;
  } got = {0, 0};
  int pos = 0;
  char packed[16];
  MPI_Pack(MPI_BOTTOM, 1, t, packed, sizeof packed, &pos, MPI_COMM_WORLD);
  int gi;
  double gd;
  memcpy(&gi, packed, 4);
  memcpy(&gd, packed + 4, 8);
  CHECK(pos == 12 && gi == 11 && gd == 2.75, "MPI_Pack from MPI_BOTTOM: %d %g", gi, gd);
  MPI_Datatype r;
  MPI_Aint rd[2] = {0, 8};
  MPI_Type_create_struct(2, bl, rd, ts, &r);
  MPI_Type_commit(&r);
  MPI_Sendrecv(MPI_BOTTOM, 1, t, rank, 4, &got, 1, r, rank, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CHECK(got.a == 11 && got.b == 2.75, "send from MPI_BOTTOM: %d %g", got.a, got.b);
  MPI_Type_free(&t);
  MPI_Type_free(&r);
  /* Displacement -8: the data sits before the buffer pointer. */
  double arr[4] = {1, 2, 3, 4}, out[2] = {0, 0};
  int bl2[2] = {1, 1};
  MPI_Aint nd[2] = {-8, 8};
  MPI_Datatype n;
  MPI_Type_create_hindexed(2, bl2, nd, MPI_DOUBLE, &n);
  MPI_Type_commit(&n);
  MPI_Aint lb, ext;
  MPI_Type_get_extent(n, &lb, &ext);
  CHECK(lb == -8 && ext == 24, "negative lb: %ld %ld", (long)lb, (long)ext);
  MPI_Sendrecv(arr + 1, 1, n, rank, 5, out, 2, MPI_DOUBLE, rank, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CHECK(out[0] == 1 && out[1] == 3, "negative lb send: %g %g", out[0], out[1]);
  MPI_Type_free(&n);
}

static void test_errors(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  MPI_Session_set_errhandler(MPI_SESSION_NULL, MPI_ERRORS_RETURN);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Datatype t = MPI_DATATYPE_NULL, v;
  int rc = MPI_Type_contiguous(-1, MPI_INT, &t);
  CHECK(err_class(rc) == MPI_ERR_COUNT, "negative count: class %d", err_class(rc));
  int bl[2] = {1, -1}, d[2] = {0, 4};
  rc = MPI_Type_indexed(2, bl, d, MPI_INT, &t);
  CHECK(err_class(rc) == MPI_ERR_ARG, "negative blocklength: class %d", err_class(rc));
  rc = MPI_Type_vector(2, 1, 2, MPI_DATATYPE_NULL, &t);
  CHECK(err_class(rc) == MPI_ERR_TYPE, "null oldtype: class %d", err_class(rc));
  int sz[2] = {4, 4}, sub[2] = {2, 2}, st[2] = {3, 0};
  rc = MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_C, MPI_INT, &t);
  CHECK(err_class(rc) == MPI_ERR_ARG, "subarray start past the end: class %d", err_class(rc));
  int g[1] = {8}, di[1] = {MPI_DISTRIBUTE_BLOCK}, da[1] = {MPI_DISTRIBUTE_DFLT_DARG}, ps[1] = {3};
  rc = MPI_Type_create_darray(4, 0, 1, g, di, da, ps, MPI_ORDER_C, MPI_INT, &t);
  CHECK(err_class(rc) == MPI_ERR_ARG, "darray grid of 3 for 4 processes: class %d", err_class(rc));
  rc = MPI_Type_free(&(MPI_Datatype){MPI_INT});
  CHECK(err_class(rc) == MPI_ERR_TYPE, "freeing MPI_INT: class %d", err_class(rc));
  /* An uncommitted type cannot carry data; its queries work. */
  MPI_Type_vector(2, 1, 2, MPI_INT, &v);
  int buf[8] = {0}, size = 0;
  CHECK(MPI_Type_size(v, &size) == MPI_SUCCESS && size == 8, "size of an uncommitted type");
  rc = MPI_Send(buf, 1, v, rank, 0, MPI_COMM_WORLD);
  CHECK(err_class(rc) == MPI_ERR_TYPE, "send with an uncommitted type: class %d", err_class(rc));
  MPI_Type_commit(&v);
  MPI_Datatype keep = v;
  MPI_Type_free(&v);
  CHECK(v == MPI_DATATYPE_NULL, "MPI_Type_free sets the handle to MPI_DATATYPE_NULL");
  rc = MPI_Send(buf, 1, keep, rank, 0, MPI_COMM_WORLD);
  CHECK(err_class(rc) == MPI_ERR_TYPE, "send with a freed type: class %d", err_class(rc));
  /* A receive type that holds less than the message */
  MPI_Type_contiguous(3, MPI_INT, &t);
  MPI_Type_commit(&t);
  MPI_Request r;
  MPI_Isend(buf, 8, MPI_INT, rank, 9, MPI_COMM_WORLD, &r);
  rc = MPI_Recv(buf, 2, t, rank, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CHECK(err_class(rc) == MPI_ERR_TRUNCATE, "8 ints into 2 x 3 ints: class %d", err_class(rc));
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  char small[8];
  int pos = 0;
  rc = MPI_Pack(buf, 1, t, small, sizeof small, &pos, MPI_COMM_WORLD);
  CHECK(err_class(rc) == MPI_ERR_TRUNCATE && pos == 0, "12 bytes packed into 8: class %d", err_class(rc));
  MPI_Aint apos = 0;
  rc = MPI_Pack_external("native", buf, 1, t, small, sizeof small, &apos);
  CHECK(err_class(rc) == MPI_ERR_UNSUPPORTED_DATAREP, "datarep \"native\": class %d", err_class(rc));
  int ints[4];
  MPI_Aint aints[1];
  MPI_Datatype types[1];
  rc = MPI_Type_get_contents(MPI_INT, 4, 1, 1, ints, aints, types);
  CHECK(err_class(rc) == MPI_ERR_TYPE, "contents of MPI_INT: class %d", err_class(rc));
  MPI_Type_free(&t);
  MPI_Datatype m = MPI_DATATYPE_NULL;
  rc = MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &m);
  CHECK(err_class(rc) == MPI_ERR_ARG, "no 3-byte integer type: class %d", err_class(rc));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* The large-count constructors build the same types as the others, and report their arguments as large
 * counts through MPI_Type_get_envelope_c / get_contents_c (the int form refuses such a type). */
static void test_large_count(void) {
  MPI_Datatype a, b;
  MPI_Type_vector(4, 3, 5, MPI_INT, &a);
  MPI_Type_vector_c(4, 3, 5, MPI_INT, &b);
  MPI_Type_commit(&a);
  MPI_Type_commit(&b);
  check_same(a, b, "MPI_Type_vector_c");
  MPI_Count ni = -1, na = -1, nc = -1, nt = -1;
  int comb = 0;
  MPI_Type_get_envelope_c(b, &ni, &na, &nc, &nt, &comb);
  CHECK(comb == MPI_COMBINER_VECTOR && ni == 0 && na == 0 && nc == 3 && nt == 1,
        "envelope_c of vector_c: %d %lld %lld %lld %lld", comb, (long long)ni, (long long)na, (long long)nc,
        (long long)nt);
  MPI_Count counts[3] = {0, 0, 0};
  MPI_Datatype parts[1];
  MPI_Type_get_contents_c(b, 0, 0, 3, 1, NULL, NULL, counts, parts);
  CHECK(counts[0] == 4 && counts[1] == 3 && counts[2] == 5 && parts[0] == MPI_INT, "contents_c of vector_c");
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  int i1, i2, i3, c2;
  const int rc = MPI_Type_get_envelope(b, &i1, &i2, &i3, &c2);
  CHECK(err_class(rc) == MPI_ERR_TYPE, "MPI_Type_get_envelope of a _c type: class %d", err_class(rc));
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
  MPI_Type_free(&a);
  MPI_Type_free(&b);
  /* struct, resized, subarray and darray */
  int bl[2] = {2, 1};
  MPI_Aint d[2] = {0, 16};
  MPI_Count blc[2] = {2, 1}, dc[2] = {0, 16};
  MPI_Datatype ts[2] = {MPI_DOUBLE, MPI_CHAR};
  MPI_Type_create_struct(2, bl, d, ts, &a);
  MPI_Type_create_struct_c(2, blc, dc, ts, &b);
  MPI_Datatype ra, rb;
  MPI_Type_create_resized(a, -8, 40, &ra);
  MPI_Type_create_resized_c(b, -8, 40, &rb);
  MPI_Type_commit(&ra);
  MPI_Type_commit(&rb);
  check_same(ra, rb, "MPI_Type_create_struct_c + resized_c");
  MPI_Type_free(&a);
  MPI_Type_free(&b);
  MPI_Type_free(&ra);
  MPI_Type_free(&rb);
  int sz[3] = {5, 4, 6}, sub[3] = {2, 3, 4}, st[3] = {1, 0, 2};
  MPI_Count szc[3] = {5, 4, 6}, subc[3] = {2, 3, 4}, stc[3] = {1, 0, 2};
  MPI_Type_create_subarray(3, sz, sub, st, MPI_ORDER_FORTRAN, MPI_INT, &a);
  MPI_Type_create_subarray_c(3, szc, subc, stc, MPI_ORDER_FORTRAN, MPI_INT, &b);
  MPI_Type_commit(&a);
  MPI_Type_commit(&b);
  check_same(a, b, "MPI_Type_create_subarray_c");
  MPI_Type_free(&a);
  MPI_Type_free(&b);
  int g[2] = {7, 9}, dist[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
      darg[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, ps[2] = {2, 2};
  MPI_Count gc[2] = {7, 9};
  MPI_Type_create_darray(4, 3, 2, g, dist, darg, ps, MPI_ORDER_C, MPI_INT, &a);
  MPI_Type_create_darray_c(4, 3, 2, gc, dist, darg, ps, MPI_ORDER_C, MPI_INT, &b);
  MPI_Type_commit(&a);
  MPI_Type_commit(&b);
  check_same(a, b, "MPI_Type_create_darray_c");
  MPI_Type_free(&a);
  MPI_Type_free(&b);
}

/* The _x queries, the MINLOC/MAXLOC pair of a value type, the Fortran type of a class and size. */
static void test_queries(void) {
  MPI_Datatype v, m, p;
  MPI_Type_vector(3, 2, 4, MPI_INT, &v); /* ints 0,1, 4,5, 8,9: extent 40, size 24 */
  MPI_Count size = 0, lb = -1, ext = 0, tlb = -1, text = 0;
  MPI_Type_size_x(v, &size);
  MPI_Type_get_extent_x(v, &lb, &ext);
  MPI_Type_get_true_extent_x(v, &tlb, &text);
  CHECK(size == 24 && lb == 0 && ext == 40 && tlb == 0 && text == 40, "_x queries: %lld %lld %lld %lld %lld",
        (long long)size, (long long)lb, (long long)ext, (long long)tlb, (long long)text);
  MPI_Type_free(&v);
  MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &p);
  CHECK(p == MPI_DOUBLE_INT, "value index of (MPI_DOUBLE, MPI_INT) is MPI_DOUBLE_INT");
  MPI_Type_get_value_index(MPI_CHAR, MPI_INT, &p);
  CHECK(p == MPI_DATATYPE_NULL, "no pair for (MPI_CHAR, MPI_INT)");
  MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &m);
  CHECK(m == MPI_REAL8, "MPI_Type_match_size(REAL, 8) is MPI_REAL8");
  MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 16, &m);
  CHECK(m == MPI_COMPLEX16, "MPI_Type_match_size(COMPLEX, 16) is MPI_COMPLEX16");
  MPI_Type_match_size(MPIX_TYPECLASS_LOGICAL, 4, &m);
  CHECK(m == MPI_LOGICAL4, "MPI_Type_match_size(MPIX_TYPECLASS_LOGICAL, 4) is MPI_LOGICAL4");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const unsigned seed = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 20261122u;
  test_constructors();
  test_random(seed, 2000);
  test_patent_example();
  test_external32();
  test_get_elements();
  test_bottom();
  test_queries();
  test_large_count();
  test_errors();
  return finish("dt_types");
}
