/* One-sided communication: every operation (put, get, accumulate, get_accumulate, fetch_and_op,
 * compare_and_swap and the request-based four) under every synchronisation (fence with and without
 * assertions, post/start/complete with wait or test, shared and exclusive locks, lock_all, flush,
 * flush_all, flush_local, flush_local_all) on every window flavour (MPI_Win_create on malloc'd and on
 * MPI_Alloc_mem memory, MPI_Win_allocate, MPI_Win_allocate_shared, MPI_Win_create_dynamic with attached
 * memory), with disp_units 1, 4, 8 and 16. Every predefined reduction op with the types it applies to
 * (int, unsigned, long long, unsigned char, float, double, MPI_2INT with MAXLOC/MINLOC), sizes 0, 1, 7,
 * 100, 1000 elements and 1 MiB. Each epoch carries a batch of operations on disjoint ranges of the target's
 * window, separated by gaps: afterwards the target checks its whole used span byte by byte (results
 * inside the ranges, its own pattern in the gaps and beyond), the origin checks every fetched element
 * and the guard bytes around its result buffers. Ranks target the next rank (a ring), or themselves.
 * Runs with 1 to 4 ranks.
 *
 * Checked on MPICH 4.0.2 (Debian, ch4:ucx), 1-4 ranks: every check passes but MPI_MAX and MPI_MIN on
 * MPI_UNSIGNED and MPI_UNSIGNED_CHAR (MPICH compares them as signed, in MPI_Reduce_local too), and once at 4
 * ranks a 1 MiB put still read its origin buffer after MPI_Win_flush_local_all. On Open MPI 4.1.4 with
 * OMPI_MCA_op=^avx (its AVX sums of 8- and 16-bit integers saturate) and OMPI_MCA_osc=sm,pt2pt, 1-4 ranks,
 * every check passes once lock_all's MPI_MODE_NOCHECK is dropped (osc/pt2pt then hangs in the next lock);
 * its default osc/rdma does MPI_LAND/LOR/LXOR bitwise, MPI_MAX on unsigned as signed, and crashes in
 * MPI_Compare_and_swap. Passes on Pamir. */
#include <stdint.h>

#include "check.h"

static int rank, size;

#define WIN_BYTES ((size_t)(1 << 20) + (256 << 10))
#define GUARD 16
#define MAXITEMS 400
#define LARGE_INTS (1 << 18) /* 1 MiB of int */

/* ---- element types: values, the reduction model, the ops that apply ---- */

static uint32_t mix(unsigned seed, size_t i) {
  uint32_t h = (uint32_t)seed * 0x9E3779B9u + (uint32_t)i * 0x85EBCA6Bu + 0x27d4eb2fu;
  h ^= h >> 15;
  h *= 0x2c1b3c6du;
  h ^= h >> 12;
  h *= 0x297a2d39u;
  h ^= h >> 15;
  return h;
}
/* A quarter of the integer values are 0, so the logical ops see both truths. */
static int zero(uint32_t h) {
  return (h >> 28) % 4 == 0;
}

typedef struct {
  const char *name;
  MPI_Datatype type;
  size_t size;
  void (*value)(void *dst, unsigned seed, size_t i);
  int (*combine)(MPI_Op op, const void *t, const void *o, void *r); /* r = t op o; 0 if op is not for it */
  int cas;                                                          /* MPI_Compare_and_swap applies */
  int nops;
  MPI_Op ops[12];
} dtype_t;

#define INTEGER_TYPE(T, NAME, EXPR)                                             \
  static void val_##NAME(void *d, unsigned seed, size_t i) {                    \
    uint32_t h = mix(seed, i);                                                  \
    T v = zero(h) ? (T)0 : (T)(EXPR);                                           \
    memcpy(d, &v, sizeof v);                                                    \
  }                                                                             \
  static int comb_##NAME(MPI_Op op, const void *pt, const void *po, void *pr) { \
    T t, o, r;                                                                  \
    memcpy(&t, pt, sizeof t);                                                   \
    memcpy(&o, po, sizeof o);                                                   \
    if (op == MPI_SUM)                                                          \
      r = (T)(t + o);                                                           \
    else if (op == MPI_PROD)                                                    \
      r = (T)(t * o);                                                           \
    else if (op == MPI_MAX)                                                     \
      r = t > o ? t : o;                                                        \
    else if (op == MPI_MIN)                                                     \
      r = t < o ? t : o;                                                        \
    else if (op == MPI_BAND)                                                    \
      r = (T)(t & o);                                                           \
    else if (op == MPI_BOR)                                                     \
      r = (T)(t | o);                                                           \
    else if (op == MPI_BXOR)                                                    \
      r = (T)(t ^ o);                                                           \
    else if (op == MPI_LAND)                                                    \
      r = (T)(t && o);                                                          \
    else if (op == MPI_LOR)                                                     \
      r = (T)(t || o);                                                          \
    else if (op == MPI_LXOR)                                                    \
      r = (T)(!t != !o);                                                        \
    else if (op == MPI_REPLACE)                                                 \
      r = o;                                                                    \
    else if (op == MPI_NO_OP)                                                   \
      r = t;                                                                    \
    else                                                                        \
      return 0;                                                                 \
    memcpy(pr, &r, sizeof r);                                                   \
    return 1;                                                                   \
  }
/* Products stay in range: |int| <= 1000, |long long| <= 1e9 (with bits above 32). */
INTEGER_TYPE(int, int, (int)(h % 2001) - 1000)
INTEGER_TYPE(unsigned, unsigned, h)
INTEGER_TYPE(long long, longlong, ((long long)(h % 2000001) - 1000000) * 1001)
INTEGER_TYPE(unsigned char, uchar, h & 0xff)

#define FLOAT_TYPE(T, NAME, MOD)                                                                 \
  static void val_##NAME(void *d, unsigned seed, size_t i) {                                     \
    T v = (T)((int)(mix(seed, i) % (MOD)) - (MOD) / 2) + (T)0.5; /* halves: exact, never zero */ \
    memcpy(d, &v, sizeof v);                                                                     \
  }                                                                                              \
  static int comb_##NAME(MPI_Op op, const void *pt, const void *po, void *pr) {                  \
    T t, o, r;                                                                                   \
    memcpy(&t, pt, sizeof t);                                                                    \
    memcpy(&o, po, sizeof o);                                                                    \
    if (op == MPI_SUM)                                                                           \
      r = t + o;                                                                                 \
    else if (op == MPI_PROD)                                                                     \
      r = t * o;                                                                                 \
    else if (op == MPI_MAX)                                                                      \
      r = t > o ? t : o;                                                                         \
    else if (op == MPI_MIN)                                                                      \
      r = t < o ? t : o;                                                                         \
    else if (op == MPI_REPLACE)                                                                  \
      r = o;                                                                                     \
    else if (op == MPI_NO_OP)                                                                    \
      r = t;                                                                                     \
    else                                                                                         \
      return 0;                                                                                  \
    memcpy(pr, &r, sizeof r);                                                                    \
    return 1;                                                                                    \
  }
FLOAT_TYPE(float, float, 201)
FLOAT_TYPE(double, double, 20001)

typedef struct {
  int v, i;
} int2_t;
static void val_int2(void *d, unsigned seed, size_t i) {
  uint32_t h = mix(seed, i);
  int2_t v = {(int)(h % 5), (int)((h >> 8) % 1000)}; /* many ties: the lower index wins */
  memcpy(d, &v, sizeof v);
}
static int comb_int2(MPI_Op op, const void *pt, const void *po, void *pr) {
  int2_t t, o, r;
  memcpy(&t, pt, sizeof t);
  memcpy(&o, po, sizeof o);
  if (op == MPI_MAXLOC || op == MPI_MINLOC) {
    int o_wins = op == MPI_MAXLOC ? o.v > t.v : o.v < t.v;
    if (o.v == t.v)
      r = (int2_t){t.v, t.i < o.i ? t.i : o.i};
    else
      r = o_wins ? o : t;
  } else if (op == MPI_REPLACE) {
    r = o;
  } else if (op == MPI_NO_OP) {
    r = t;
  } else {
    return 0;
  }
  memcpy(pr, &r, sizeof r);
  return 1;
}

static dtype_t types[7];
static int ntypes;
static dtype_t *t_int;

static void setup_types(void) {
  const MPI_Op int_ops[] = {MPI_SUM,  MPI_PROD, MPI_MAX, MPI_MIN,  MPI_BAND,    MPI_BOR,
                            MPI_BXOR, MPI_LAND, MPI_LOR, MPI_LXOR, MPI_REPLACE, MPI_NO_OP};
  const MPI_Op float_ops[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_REPLACE, MPI_NO_OP};
  const MPI_Op loc_ops[] = {MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP};
#define ADD(N, T, CT, C, CAS, OPS)               \
  do {                                           \
    dtype_t *d = &types[ntypes++];               \
    d->name = N;                                 \
    d->type = T;                                 \
    d->size = sizeof(CT);                        \
    d->value = val_##C;                          \
    d->combine = comb_##C;                       \
    d->cas = CAS;                                \
    d->nops = (int)(sizeof OPS / sizeof OPS[0]); \
    memcpy(d->ops, OPS, sizeof OPS);             \
  } while (0)
  ADD("MPI_INT", MPI_INT, int, int, 1, int_ops);
  ADD("MPI_UNSIGNED", MPI_UNSIGNED, unsigned, unsigned, 1, int_ops);
  ADD("MPI_LONG_LONG", MPI_LONG_LONG, long long, longlong, 1, int_ops);
  ADD("MPI_UNSIGNED_CHAR", MPI_UNSIGNED_CHAR, unsigned char, uchar, 1, int_ops);
  ADD("MPI_FLOAT", MPI_FLOAT, float, float, 0, float_ops);
  ADD("MPI_DOUBLE", MPI_DOUBLE, double, double, 0, float_ops);
  ADD("MPI_2INT", MPI_2INT, int2_t, int2, 0, loc_ops);
#undef ADD
  t_int = &types[0];
}

static const char *op_name(MPI_Op op) {
  const MPI_Op ops[] = {MPI_SUM,  MPI_PROD, MPI_MAX,  MPI_MIN,     MPI_BAND,  MPI_BOR,    MPI_BXOR,
                        MPI_LAND, MPI_LOR,  MPI_LXOR, MPI_REPLACE, MPI_NO_OP, MPI_MAXLOC, MPI_MINLOC};
  static const char *names[] = {"MPI_SUM",     "MPI_PROD",  "MPI_MAX",    "MPI_MIN",   "MPI_BAND",
                                "MPI_BOR",     "MPI_BXOR",  "MPI_LAND",   "MPI_LOR",   "MPI_LXOR",
                                "MPI_REPLACE", "MPI_NO_OP", "MPI_MAXLOC", "MPI_MINLOC"};
  for (size_t k = 0; k < sizeof ops / sizeof ops[0]; ++k)
    if (op == ops[k]) return names[k];
  return "?";
}

/* ---- windows ---- */

enum { F_CREATE, F_ALLOC_MEM, F_ALLOCATE, F_SHARED, F_DYNAMIC, NFLAVOURS };
static const char *flavour_name[] = {"create(malloc)", "create(MPI_Alloc_mem)", "allocate", "allocate_shared",
                                     "dynamic"};
static const int flavour_du[] = {4, 1, 8, 16, 1};

typedef struct {
  MPI_Win win;
  unsigned char *base;
  int flavour, du;
  MPI_Aint *addr; /* dynamic: every rank's attached memory */
} win_t;

static unsigned char pattern(int r, size_t i) {
  return (unsigned char)(r * 37 + i * 13 + (i >> 9) + 1);
}

static void make_window(int flavour, win_t *w) {
  memset(w, 0, sizeof *w);
  w->flavour = flavour;
  w->du = flavour_du[flavour];
  int rc = MPI_ERR_OTHER;
  void *p = NULL;
  switch (flavour) {
    case F_CREATE:
      w->base = malloc(WIN_BYTES);
      rc = MPI_Win_create(w->base, (MPI_Aint)WIN_BYTES, w->du, MPI_INFO_NULL, MPI_COMM_WORLD, &w->win);
      break;
    case F_ALLOC_MEM:
      rc = MPI_Alloc_mem((MPI_Aint)WIN_BYTES, MPI_INFO_NULL, &p);
      CHECK(rc == MPI_SUCCESS && p, "MPI_Alloc_mem: rc %d", rc);
      w->base = p;
      rc = MPI_Win_create(w->base, (MPI_Aint)WIN_BYTES, w->du, MPI_INFO_NULL, MPI_COMM_WORLD, &w->win);
      break;
    case F_ALLOCATE:
      rc = MPI_Win_allocate((MPI_Aint)WIN_BYTES, w->du, MPI_INFO_NULL, MPI_COMM_WORLD, &p, &w->win);
      w->base = p;
      break;
    case F_SHARED:
      rc = MPI_Win_allocate_shared((MPI_Aint)WIN_BYTES, w->du, MPI_INFO_NULL, MPI_COMM_WORLD, &p, &w->win);
      w->base = p;
      break;
    case F_DYNAMIC: {
      rc = MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w->win);
      w->base = malloc(WIN_BYTES);
      int rc2 = MPI_Win_attach(w->win, w->base, (MPI_Aint)WIN_BYTES);
      CHECK(rc2 == MPI_SUCCESS, "MPI_Win_attach: rc %d", rc2);
      MPI_Aint mine;
      MPI_Get_address(w->base, &mine);
      w->addr = malloc(sizeof(MPI_Aint) * (size_t)size);
      MPI_Allgather(&mine, 1, MPI_AINT, w->addr, 1, MPI_AINT, MPI_COMM_WORLD);
      break;
    }
  }
  CHECK(rc == MPI_SUCCESS && w->base, "%s window: rc %d", flavour_name[flavour], rc);
  /* The pattern everywhere, written under an exclusive lock on this rank's own window. */
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, w->win);
  for (size_t i = 0; i < WIN_BYTES; ++i) w->base[i] = pattern(rank, i);
  MPI_Win_unlock(rank, w->win);
  MPI_Barrier(MPI_COMM_WORLD);
}

/* The whole window still holds this rank's pattern: nothing wrote outside the ranges of the tests. */
static void free_window(win_t *w) {
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, w->win);
  size_t bad = (size_t)-1;
  for (size_t i = 0; i < WIN_BYTES && bad == (size_t)-1; ++i)
    if (w->base[i] != pattern(rank, i)) bad = i;
  MPI_Win_unlock(rank, w->win);
  CHECK(bad == (size_t)-1, "%s window: byte %zu changed after all the tests", flavour_name[w->flavour], bad);
  if (w->flavour == F_DYNAMIC) {
    int rc = MPI_Win_detach(w->win, w->base);
    CHECK(rc == MPI_SUCCESS, "MPI_Win_detach: rc %d", rc);
  }
  int rc = MPI_Win_free(&w->win);
  CHECK(rc == MPI_SUCCESS && w->win == MPI_WIN_NULL, "MPI_Win_free: rc %d", rc);
  if (w->flavour == F_CREATE || w->flavour == F_DYNAMIC) free(w->base);
  if (w->flavour == F_ALLOC_MEM) MPI_Free_mem(w->base);
  free(w->addr);
}

static MPI_Aint tdisp(const win_t *w, int target, size_t off) {
  if (w->flavour == F_DYNAMIC)
    return target == MPI_PROC_NULL ? 0 : MPI_Aint_add(w->addr[target], (MPI_Aint)off);
  return (MPI_Aint)(off / (size_t)w->du);
}

/* ---- batches of operations ---- */

enum { K_PUT, K_GET, K_ACC, K_GACC, K_FOP, K_CAS, K_RPUT, K_RGET, K_RACC, K_RGACC, K_FOP2, K_ORDER, NKINDS };
static const char *kind_name[] = {"MPI_Put",
                                  "MPI_Get",
                                  "MPI_Accumulate",
                                  "MPI_Get_accumulate",
                                  "MPI_Fetch_and_op",
                                  "MPI_Compare_and_swap",
                                  "MPI_Rput",
                                  "MPI_Rget",
                                  "MPI_Raccumulate",
                                  "MPI_Rget_accumulate",
                                  "two MPI_Fetch_and_op",
                                  "MPI_Accumulate then MPI_Get_accumulate"};
static int is_request(int k) {
  return k >= K_RPUT && k <= K_RGACC;
}
static int fetches(int k) {
  return k != K_PUT && k != K_ACC && k != K_RPUT && k != K_RACC;
}

typedef struct {
  int kind;
  const dtype_t *dt;
  MPI_Op op;
  int count, cas_match, null_target;
  size_t off, len;
  unsigned seed_t, seed_o;                   /* the target's old values (+ 97 * its rank), the origin's */
  unsigned char *origin, *origin2, *compare; /* what the origin sends */
  unsigned char *result, *result2;           /* GUARD bytes either side */
  MPI_Request req;
} item_t;

typedef struct {
  item_t it[MAXITEMS];
  int n, readonly;
  size_t end, span;
} batch_t;

static void add(batch_t *b, int kind, const dtype_t *dt, MPI_Op op, int count, int flags) {
  if (b->n == MAXITEMS) {
    CHECK(0, "too many items in a batch");
    return;
  }
  item_t *it = &b->it[b->n];
  memset(it, 0, sizeof *it);
  it->kind = kind;
  it->dt = dt;
  it->op = op;
  it->count = count;
  it->cas_match = flags & 1;
  it->null_target = (flags & 2) != 0;
  it->len = (size_t)count * dt->size;
  it->off = (b->end + 64 + 63) & ~(size_t)63; /* 64 untouched bytes before each range at least */
  it->seed_t = 1000u + (unsigned)b->n * 7u;
  it->seed_o = 50000u + (unsigned)b->n * 7u;
  b->end = it->off + it->len;
  b->span = b->end + 4096 < WIN_BYTES ? b->end + 4096 : WIN_BYTES;
  CHECK(b->end <= WIN_BYTES, "batch of %zu bytes does not fit", b->end);
  const int reads = kind == K_GET || kind == K_RGET ||
                    ((kind == K_GACC || kind == K_RGACC || kind == K_FOP) && op == MPI_NO_OP);
  if (!reads) b->readonly = 0;
  ++b->n;
}

static unsigned char *alloc_fill(size_t n, int c) {
  unsigned char *p = malloc(n + 1);
  memset(p, c, n + 1);
  return p;
}

/* The target's values of item j at rank trank after origin orank's operations: tgt (len bytes), and what
 * the origin fetched: res (and res2 for the second fetch of K_FOP2). */
static void model(const item_t *it, int trank, int orank, unsigned char *tgt, unsigned char *res,
                  unsigned char *res2) {
  const dtype_t *dt = it->dt;
  const size_t es = dt->size;
  unsigned char told[16], o[16], o2[16], c[16], r[16];
  for (int i = 0; i < it->count; ++i) {
    dt->value(told, it->seed_t + 97u * (unsigned)trank, (size_t)i);
    dt->value(o, it->seed_o + 97u * (unsigned)orank, (size_t)i);
    unsigned char *t = tgt + (size_t)i * es;
    if (it->null_target) {
      memcpy(t, told, es);
      continue;
    }
    if (res) memcpy(res + (size_t)i * es, told, es);
    switch (it->kind) {
      case K_PUT:
      case K_RPUT:
        memcpy(t, o, es);
        break;
      case K_GET:
      case K_RGET:
        memcpy(t, told, es);
        break;
      case K_ACC:
      case K_RACC:
      case K_GACC:
      case K_RGACC:
      case K_FOP:
        dt->combine(it->op, told, o, t);
        break;
      case K_CAS:
        memcpy(c, told, es);
        if (!it->cas_match) c[0] ^= 1;
        memcpy(t, memcmp(c, told, es) == 0 ? o : told, es);
        break;
      case K_FOP2:
        dt->value(o2, it->seed_o + 97u * (unsigned)orank + 3u, (size_t)i);
        dt->combine(MPI_SUM, told, o, r);
        if (res2) memcpy(res2 + (size_t)i * es, r, es);
        dt->combine(MPI_SUM, r, o2, t);
        break;
      case K_ORDER: /* replaced, then fetched: the fetch sees the replacement (accumulate ordering) */
        memcpy(t, o, es);
        if (res) memcpy(res + (size_t)i * es, o, es);
        break;
    }
  }
}

/* The expected image of rank trank's window span after orank's operations of the batch. */
static void image(const batch_t *b, int trank, int orank, unsigned char *img) {
  for (size_t i = 0; i < b->span; ++i) img[i] = pattern(trank, i);
  for (int j = 0; j < b->n; ++j) model(&b->it[j], trank, orank, img + b->it[j].off, NULL, NULL);
}

/* Which item covers byte i, for the messages. */
static const char *where(const batch_t *b, size_t i, char *buf, size_t n) {
  for (int j = 0; j < b->n; ++j)
    if (i >= b->it[j].off && i < b->it[j].off + b->it[j].len) {
      const item_t *it = &b->it[j];
      snprintf(buf, n, "item %d %s %s %s count %d element %zu", j, kind_name[it->kind], it->dt->name,
               op_name(it->op), it->count, (i - it->off) / it->dt->size);
      return buf;
    }
  snprintf(buf, n, "outside every target range");
  return buf;
}

static size_t first_diff(const unsigned char *a, const unsigned char *b, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return i;
  return (size_t)-1;
}

static void issue(const win_t *w, item_t *it, int target) {
  const int t = it->null_target ? MPI_PROC_NULL : target;
  const MPI_Aint d = tdisp(w, t, it->off);
  const MPI_Datatype ty = it->dt->type;
  const int n = it->count;
  void *res = it->result + GUARD;
  int rc = MPI_SUCCESS, rc2 = MPI_SUCCESS;
  switch (it->kind) {
    case K_PUT:
      rc = MPI_Put(it->origin, n, ty, t, d, n, ty, w->win);
      break;
    case K_GET:
      rc = MPI_Get(res, n, ty, t, d, n, ty, w->win);
      break;
    case K_ACC:
      rc = MPI_Accumulate(it->origin, n, ty, t, d, n, ty, it->op, w->win);
      break;
    case K_GACC:
      rc = MPI_Get_accumulate(it->origin, n, ty, res, n, ty, t, d, n, ty, it->op, w->win);
      break;
    case K_FOP:
      rc = MPI_Fetch_and_op(it->origin, res, ty, t, d, it->op, w->win);
      break;
    case K_CAS:
      rc = MPI_Compare_and_swap(it->origin, it->compare, res, ty, t, d, w->win);
      break;
    case K_RPUT:
      rc = MPI_Rput(it->origin, n, ty, t, d, n, ty, w->win, &it->req);
      break;
    case K_RGET:
      rc = MPI_Rget(res, n, ty, t, d, n, ty, w->win, &it->req);
      break;
    case K_RACC:
      rc = MPI_Raccumulate(it->origin, n, ty, t, d, n, ty, it->op, w->win, &it->req);
      break;
    case K_RGACC:
      rc = MPI_Rget_accumulate(it->origin, n, ty, res, n, ty, t, d, n, ty, it->op, w->win, &it->req);
      break;
    case K_FOP2:
      rc = MPI_Fetch_and_op(it->origin, res, ty, t, d, MPI_SUM, w->win);
      rc2 = MPI_Fetch_and_op(it->origin2, it->result2 + GUARD, ty, t, d, MPI_SUM, w->win);
      break;
    case K_ORDER:
      rc = MPI_Accumulate(it->origin, n, ty, t, d, n, ty, MPI_REPLACE, w->win);
      rc2 = MPI_Get_accumulate(NULL, 0, ty, res, n, ty, t, d, n, ty, MPI_NO_OP, w->win);
      break;
  }
  CHECK(rc == MPI_SUCCESS && rc2 == MPI_SUCCESS, "%s: rc %d %d", kind_name[it->kind], rc, rc2);
}

/* Fetched values and the guards around them, at the origin. */
static void check_results(const batch_t *b, int target, const char *ctx) {
  for (int j = 0; j < b->n; ++j) {
    const item_t *it = &b->it[j];
    if (!fetches(it->kind)) continue;
    unsigned char *want = malloc(it->len + 2 * GUARD + 1), *want2 = malloc(it->len + 2 * GUARD + 1);
    unsigned char *tgt = malloc(it->len + 1);
    memset(want, 0xEE, it->len + 2 * GUARD);
    memset(want2, 0xEE, it->len + 2 * GUARD);
    if (!it->null_target) model(it, target, rank, tgt, want + GUARD, want2 + GUARD);
    size_t bad = first_diff(it->result, want, it->len + 2 * GUARD);
    CHECK(bad == (size_t)-1,
          "%s: item %d %s %s %s count %d%s: fetched byte %ld (element %ld) is %#x, want %#x", ctx, j,
          kind_name[it->kind], it->dt->name, op_name(it->op), it->count,
          it->null_target ? " to MPI_PROC_NULL" : "", (long)bad - GUARD,
          ((long)bad - GUARD) / (long)it->dt->size, bad == (size_t)-1 ? 0 : it->result[bad],
          bad == (size_t)-1 ? 0 : want[bad]);
    if (it->kind == K_FOP2) {
      bad = first_diff(it->result2, want2, it->len + 2 * GUARD);
      CHECK(bad == (size_t)-1, "%s: item %d: the second MPI_Fetch_and_op fetched byte %ld wrong", ctx, j,
            (long)bad - GUARD);
    }
    free(want);
    free(want2);
    free(tgt);
  }
}

/* Overwrite what the origin sent: after local completion the operation must not read it again. */
static void scribble(batch_t *b, int only_requests) {
  for (int j = 0; j < b->n; ++j) {
    item_t *it = &b->it[j];
    if (only_requests && !is_request(it->kind)) continue;
    memset(it->origin, 0xA5, it->len + 1);
    if (it->origin2) memset(it->origin2, 0xA5, it->len + 1);
    if (it->compare) memset(it->compare, 0xA5, it->len + 1);
  }
}

static void wait_requests(batch_t *b) {
  for (int j = 0; j < b->n; ++j) {
    if (!is_request(b->it[j].kind)) continue;
    int rc = MPI_Wait(&b->it[j].req, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS && b->it[j].req == MPI_REQUEST_NULL, "MPI_Wait on %s: rc %d",
          kind_name[b->it[j].kind], rc);
  }
}

enum {
  M_FENCE,
  M_FENCE_ASSERT,
  M_PSCW_WAIT,
  M_PSCW_TEST,
  M_LOCK_SHARED,
  M_LOCK_EXCL,
  M_LOCK_ALL,
  M_FLUSH,
  M_FLUSH_ALL,
  M_FLUSH_LOCAL,
  M_FLUSH_LOCAL_ALL,
  NMODES
};
static const char *mode_name[] = {"fence",
                                  "fence with assertions",
                                  "pscw+wait",
                                  "pscw+test",
                                  "lock shared",
                                  "lock exclusive",
                                  "lock_all",
                                  "lock+flush",
                                  "lock_all+flush_all",
                                  "lock+flush_local",
                                  "lock_all+flush_local_all"};
static int passive(int m) {
  return m >= M_LOCK_SHARED;
}

/* At the origin, inside a passive epoch after a flush: the target's span read back must already be the
 * expected image. */
static void verify_remote(const win_t *w, const batch_t *b, int t, const char *ctx) {
  unsigned char *got = malloc(b->span), *want = malloc(b->span);
  memset(got, 0xEE, b->span);
  int rc = MPI_Get(got, (int)b->span, MPI_BYTE, t, tdisp(w, t, 0), (int)b->span, MPI_BYTE, w->win);
  CHECK(rc == MPI_SUCCESS, "%s: MPI_Get of the span: rc %d", ctx, rc);
  MPI_Win_flush(t, w->win);
  image(b, t, rank, want);
  size_t bad = first_diff(got, want, b->span);
  char buf[200];
  CHECK(bad == (size_t)-1, "%s: after the flush rank %d's byte %zu (%s) reads %#x, want %#x", ctx, t, bad,
        bad == (size_t)-1 ? "" : where(b, bad, buf, sizeof buf), bad == (size_t)-1 ? 0 : got[bad],
        bad == (size_t)-1 ? 0 : want[bad]);
  free(got);
  free(want);
}

/* One epoch: every rank runs the batch against rank + k. */
static void run_batch(const win_t *w, batch_t *b, int mode, int k) {
  const int t = (rank + k) % size, s = (rank - k % size + size) % size;
  char ctx[160];
  snprintf(ctx, sizeof ctx, "%s, %s, target +%d%s", flavour_name[w->flavour], mode_name[mode], k,
           b->readonly ? ", read-only" : "");
  /* This rank as target: the old values of every range, under an exclusive lock on itself. */
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, w->win);
  for (int j = 0; j < b->n; ++j) {
    item_t *it = &b->it[j];
    for (int i = 0; i < it->count; ++i)
      it->dt->value(w->base + it->off + (size_t)i * it->dt->size, it->seed_t + 97u * (unsigned)rank,
                    (size_t)i);
  }
  MPI_Win_unlock(rank, w->win);
  /* This rank as origin. */
  for (int j = 0; j < b->n; ++j) {
    item_t *it = &b->it[j];
    const size_t es = it->dt->size;
    it->origin = alloc_fill(it->len, 0);
    it->result = alloc_fill(it->len + 2 * GUARD, 0xEE);
    for (int i = 0; i < it->count; ++i)
      it->dt->value(it->origin + (size_t)i * es, it->seed_o + 97u * (unsigned)rank, (size_t)i);
    if (it->kind == K_CAS) {
      it->compare = alloc_fill(it->len, 0);
      it->dt->value(it->compare, it->seed_t + 97u * (unsigned)t, 0);
      if (!it->cas_match) it->compare[0] ^= 1;
    }
    if (it->kind == K_FOP2) {
      it->origin2 = alloc_fill(it->len, 0);
      it->result2 = alloc_fill(it->len + 2 * GUARD, 0xEE);
      it->dt->value(it->origin2, it->seed_o + 97u * (unsigned)rank + 3u, 0);
    }
    it->req = MPI_REQUEST_NULL;
  }
  MPI_Group world, gt, gs;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, 1, &t, &gt);
  MPI_Group_incl(world, 1, &s, &gs);
  MPI_Barrier(MPI_COMM_WORLD);

  MPI_Win win = w->win;
  int rc = MPI_SUCCESS, flag = 0;
  switch (mode) {
    case M_FENCE:
      MPI_Win_fence(0, win);
      for (int j = 0; j < b->n; ++j) issue(w, &b->it[j], t);
      MPI_Win_fence(0, win);
      rc = MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
      break;
    case M_FENCE_ASSERT:
      MPI_Win_fence(MPI_MODE_NOPRECEDE | (b->readonly ? MPI_MODE_NOPUT : 0), win);
      for (int j = 0; j < b->n; ++j) issue(w, &b->it[j], t);
      rc = MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOSUCCEED, win);
      break;
    case M_PSCW_WAIT:
    case M_PSCW_TEST:
      MPI_Win_post(gs, b->readonly ? MPI_MODE_NOPUT : 0, win);
      MPI_Win_start(gt, 0, win);
      for (int j = 0; j < b->n; ++j) issue(w, &b->it[j], t);
      MPI_Win_complete(win);
      if (mode == M_PSCW_WAIT) {
        rc = MPI_Win_wait(win);
      } else {
        while (!flag && rc == MPI_SUCCESS) rc = MPI_Win_test(win, &flag);
      }
      break;
    case M_LOCK_SHARED:
    case M_LOCK_EXCL:
      MPI_Win_lock(mode == M_LOCK_SHARED ? MPI_LOCK_SHARED : MPI_LOCK_EXCLUSIVE, t, 0, win);
      for (int j = 0; j < b->n; ++j) issue(w, &b->it[j], t);
      if (mode == M_LOCK_EXCL) { /* requests completed inside the epoch, or (shared) after it */
        wait_requests(b);
        scribble(b, 1);
      }
      rc = MPI_Win_unlock(t, win);
      wait_requests(b);
      break;
    case M_LOCK_ALL:
      MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
      for (int j = 0; j < b->n; ++j) issue(w, &b->it[j], t);
      wait_requests(b);
      scribble(b, 1);
      rc = MPI_Win_unlock_all(win);
      break;
    case M_FLUSH:
    case M_FLUSH_ALL:
      if (mode == M_FLUSH)
        MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
      else
        MPI_Win_lock_all(0, win);
      for (int j = 0; j < b->n; ++j) issue(w, &b->it[j], t);
      wait_requests(b);
      rc = mode == M_FLUSH ? MPI_Win_flush(t, win) : MPI_Win_flush_all(win);
      check_results(b, t, ctx);
      verify_remote(w, b, t, ctx);
      if (mode == M_FLUSH)
        MPI_Win_unlock(t, win);
      else
        MPI_Win_unlock_all(win);
      break;
    case M_FLUSH_LOCAL:
    case M_FLUSH_LOCAL_ALL:
      if (mode == M_FLUSH_LOCAL)
        MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
      else
        MPI_Win_lock_all(0, win);
      for (int j = 0; j < b->n; ++j) issue(w, &b->it[j], t);
      rc = mode == M_FLUSH_LOCAL ? MPI_Win_flush_local(t, win) : MPI_Win_flush_local_all(win);
      wait_requests(b);
      check_results(b, t, ctx);
      scribble(b, 0);
      if (mode == M_FLUSH_LOCAL)
        MPI_Win_unlock(t, win);
      else
        MPI_Win_unlock_all(win);
      break;
  }
  CHECK(rc == MPI_SUCCESS, "%s: the synchronisation returned %d", ctx, rc);
  MPI_Barrier(MPI_COMM_WORLD);
  check_results(b, t, ctx);

  /* This rank as target: the whole span against the model of what rank s did, then the pattern back. */
  unsigned char *want = malloc(b->span);
  image(b, rank, s, want);
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
  size_t bad = first_diff(w->base, want, b->span);
  char buf[200];
  CHECK(bad == (size_t)-1, "%s: byte %zu of the window (%s) is %#x, want %#x (origin rank %d)", ctx, bad,
        bad == (size_t)-1 ? "" : where(b, bad, buf, sizeof buf), bad == (size_t)-1 ? 0 : w->base[bad],
        bad == (size_t)-1 ? 0 : want[bad], s);
  for (int j = 0; j < b->n; ++j)
    for (size_t i = b->it[j].off; i < b->it[j].off + b->it[j].len; ++i) w->base[i] = pattern(rank, i);
  MPI_Win_unlock(rank, win);
  free(want);

  for (int j = 0; j < b->n; ++j) {
    free(b->it[j].origin);
    free(b->it[j].origin2);
    free(b->it[j].compare);
    free(b->it[j].result);
    free(b->it[j].result2);
  }
  MPI_Group_free(&gt);
  MPI_Group_free(&gs);
  MPI_Group_free(&world);
}

/* Every operation with MPI_INT at sizes 0, 1 and 1000 (request-based ones in passive epochs only), the
 * atomics, accumulate ordering, MPI_PROC_NULL targets, and one 1 MiB operation (which one turns with n). */
static void build_ops(batch_t *b, int mode, int with_large, int n) {
  memset(b, 0, sizeof *b);
  b->readonly = 1;
  const int counts[] = {0, 1, 1000};
  const int kinds[] = {K_PUT, K_GET, K_ACC, K_GACC, K_RPUT, K_RGET, K_RACC, K_RGACC};
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k) {
    if (is_request(kinds[k]) && !passive(mode)) continue;
    for (size_t c = 0; c < 3; ++c) add(b, kinds[k], t_int, MPI_SUM, counts[c], 0);
  }
  add(b, K_FOP, t_int, MPI_SUM, 1, 0);
  add(b, K_FOP, t_int, MPI_NO_OP, 1, 0);
  add(b, K_CAS, t_int, MPI_NO_OP, 1, 1);
  add(b, K_CAS, t_int, MPI_NO_OP, 1, 0);
  add(b, K_FOP2, t_int, MPI_SUM, 1, 0);
  add(b, K_ORDER, t_int, MPI_REPLACE, 7, 0);
  add(b, K_PUT, t_int, MPI_SUM, 3, 2);
  add(b, K_GET, t_int, MPI_SUM, 3, 2);
  add(b, K_ACC, t_int, MPI_SUM, 3, 2);
  add(b, K_GACC, t_int, MPI_SUM, 3, 2);
  add(b, K_FOP, t_int, MPI_SUM, 1, 2);
  add(b, K_CAS, t_int, MPI_NO_OP, 1, 3);
  if (passive(mode)) add(b, K_RGET, t_int, MPI_SUM, 3, 2);
  if (with_large) {
    const int large[] = {K_PUT, K_GET, K_ACC, K_GACC, K_RPUT, K_RGET, K_RACC, K_RGACC};
    int kind = large[n % (passive(mode) ? 8 : 4)];
    add(b, kind, t_int, kind == K_ACC || kind == K_RACC ? MPI_BXOR : MPI_SUM, LARGE_INTS, 0);
  }
}

/* Only reads: MPI_MODE_NOPUT at the fence and the post. */
static void build_readonly(batch_t *b, int mode) {
  memset(b, 0, sizeof *b);
  b->readonly = 1;
  add(b, K_GET, t_int, MPI_SUM, 0, 0);
  add(b, K_GET, t_int, MPI_SUM, 1, 0);
  add(b, K_GET, t_int, MPI_SUM, 1000, 0);
  add(b, K_GACC, t_int, MPI_NO_OP, 100, 0);
  add(b, K_FOP, t_int, MPI_NO_OP, 1, 0);
  add(b, K_GET, &types[5], MPI_SUM, 33, 0); /* MPI_DOUBLE */
  if (passive(mode)) {
    add(b, K_RGET, t_int, MPI_SUM, 17, 0);
    add(b, K_RGACC, t_int, MPI_NO_OP, 17, 0);
  }
}

/* Every op that applies to the type, in accumulate and get_accumulate at 1, 7 and 100 elements, and
 * fetch_and_op; compare_and_swap for the integer types. */
static void build_reductions(batch_t *b, const dtype_t *dt, int mode) {
  memset(b, 0, sizeof *b);
  b->readonly = 1;
  const int counts[] = {1, 7, 100};
  for (int o = 0; o < dt->nops; ++o) {
    MPI_Op op = dt->ops[o];
    for (size_t c = 0; c < 3; ++c) {
      if (op != MPI_NO_OP) add(b, K_ACC, dt, op, counts[c], 0); /* MPI_NO_OP is for the fetching ones */
      add(b, K_GACC, dt, op, counts[c], 0);
    }
    add(b, K_FOP, dt, op, 1, 0);
    if (passive(mode)) {
      if (op != MPI_NO_OP) add(b, K_RACC, dt, op, 7, 0);
      add(b, K_RGACC, dt, op, 7, 0);
    }
  }
  if (dt->cas) {
    add(b, K_CAS, dt, MPI_NO_OP, 1, 1);
    add(b, K_CAS, dt, MPI_NO_OP, 1, 0);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  setup_types();
  batch_t *b = malloc(sizeof *b);
  int n = 0;
  for (int f = 0; f < NFLAVOURS; ++f) {
    win_t w;
    make_window(f, &w);
    for (int m = 0; m < NMODES; ++m) {
      build_ops(b, m, 1, n++);
      run_batch(&w, b, m, 1);
      build_ops(b, m, 0, 0);
      run_batch(&w, b, m, 0);
      build_readonly(b, m);
      run_batch(&w, b, m, 1);
      /* The reductions: each type under a few of the modes, turning with the flavour. */
      for (int ty = 0; ty < ntypes; ++ty) {
        if ((ty + m + f) % 3 != 0) continue;
        build_reductions(b, &types[ty], m);
        run_batch(&w, b, m, 1);
      }
    }
    free_window(&w);
  }
  free(b);
  return finish("rma_ops");
}
