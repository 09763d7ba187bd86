/* One-sided communication with derived datatypes on the origin and on the target: vector, indexed (blocks
 * out of order), struct with gaps, resized, subarray, contiguous and plain MPI_INT, in every pairing with
 * equal type signatures (48 ints; 12 doubles; a mixed int/double/char struct laid out two ways, for put and
 * get), two of each type on a side. MPI_Put, MPI_Get, MPI_Accumulate (MPI_SUM, MPI_REPLACE) and
 * MPI_Get_accumulate (MPI_SUM, MPI_NO_OP) whose result type is a third layout. Each operation has its own
 * range of the target's window: the target checks every byte of it (the elements its type map names, and
 * the gaps and padding it does not, which keep their old bytes); the origin checks every byte of its
 * result buffers the same way. Fence and lock_all/flush epochs, on MPI_Win_allocate, MPI_Win_create and
 * dynamic windows. Runs with 1 to 4 ranks.
 *
 * Passed on MPICH 4.0.2 (Debian) and on Open MPI 4.1.4 with OMPI_MCA_osc=sm,pt2pt, 1-4 ranks (its default
 * osc/rdma fetches wrong results in MPI_Get_accumulate with derived types). Passes on Pamir. */
#include <stdint.h>

#include "check.h"

static int rank, size;

#define REGION 1024
#define MAXEL 64

enum { B_INT, B_DOUBLE, B_MIXED };

/* A datatype used count times, with the byte offset and size of each basic element in type map order. */
typedef struct {
  const char *name;
  MPI_Datatype type;
  int count, n, basic;
  size_t off[MAXEL], sz[MAXEL];
  size_t span;
} layout_t;

static layout_t layouts[16];
static int nlayouts;

/* Records count copies of a unit whose elements are at unit_off (each of unit_sz bytes), extent apart;
 * checks the extent MPI reports. */
static void record(layout_t *l, const char *name, MPI_Datatype t, int count, int basic,
                   const size_t *unit_off, const size_t *unit_sz, int unit_n, MPI_Aint extent) {
  l->name = name;
  l->type = t;
  l->count = count;
  l->basic = basic;
  l->n = 0;
  l->span = 0;
  MPI_Aint lb = -1, ext = -1;
  MPI_Type_get_extent(t, &lb, &ext);
  CHECK(lb == 0 && ext == extent, "%s: lb %ld extent %ld, want 0 and %ld", name, (long)lb, (long)ext,
        (long)extent);
  for (int c = 0; c < count; ++c)
    for (int k = 0; k < unit_n; ++k) {
      l->off[l->n] = (size_t)c * (size_t)extent + unit_off[k];
      l->sz[l->n] = unit_sz[k];
      if (l->off[l->n] + l->sz[l->n] > l->span) l->span = l->off[l->n] + l->sz[l->n];
      ++l->n;
    }
  CHECK(l->span <= REGION && l->n <= MAXEL, "%s: %zu bytes, %d elements", name, l->span, l->n);
}

static layout_t *new_layout(void) {
  return &layouts[nlayouts++];
}

static void build_layouts(void) {
  size_t off[MAXEL], sz[MAXEL];
  int n;
  MPI_Datatype t, u;
  for (int i = 0; i < MAXEL; ++i) sz[i] = sizeof(int);
  /* 48 ints, two units of 24 each. */
  for (int i = 0; i < 48; ++i) off[i] = (size_t)i * 4;
  record(new_layout(), "48 x MPI_INT", MPI_INT, 48, B_INT, off, sz, 1, 4);
  MPI_Type_contiguous(24, MPI_INT, &t);
  MPI_Type_commit(&t);
  record(new_layout(), "contiguous(24 int)", t, 2, B_INT, off, sz, 24, 96);
  MPI_Type_vector(6, 4, 7, MPI_INT, &t); /* blocks of 4 every 7 ints */
  MPI_Type_commit(&t);
  n = 0;
  for (int b = 0; b < 6; ++b)
    for (int i = 0; i < 4; ++i) off[n++] = (size_t)(b * 7 + i) * 4;
  record(new_layout(), "vector(6,4,7)", t, 2, B_INT, off, sz, n, (5 * 7 + 4) * 4);
  {
    int bl[] = {3, 1, 5, 2, 6, 7}, dp[] = {20, 0, 9, 4, 30, 40}; /* out of order, with holes */
    MPI_Type_indexed(6, bl, dp, MPI_INT, &t);
    MPI_Type_commit(&t);
    n = 0;
    for (int b = 0; b < 6; ++b)
      for (int i = 0; i < bl[b]; ++i) off[n++] = (size_t)(dp[b] + i) * 4;
    record(new_layout(), "indexed", t, 2, B_INT, off, sz, n, 47 * 4);
  }
  {
    int bl[] = {8, 8, 8};
    MPI_Aint dp[] = {0, 40, 100};
    MPI_Datatype ty[] = {MPI_INT, MPI_INT, MPI_INT};
    MPI_Type_create_struct(3, bl, dp, ty, &u);
    MPI_Type_create_resized(u, 0, 136, &t); /* 32 bytes after the last block */
    MPI_Type_free(&u);
    MPI_Type_commit(&t);
    n = 0;
    for (int b = 0; b < 3; ++b)
      for (int i = 0; i < 8; ++i) off[n++] = (size_t)dp[b] + (size_t)i * 4;
    record(new_layout(), "struct of ints with gaps", t, 2, B_INT, off, sz, n, 136);
  }
  MPI_Type_contiguous(2, MPI_INT, &u);
  MPI_Type_create_resized(u, 0, 20, &t); /* 2 ints, then 12 bytes skipped */
  MPI_Type_free(&u);
  MPI_Type_commit(&t);
  off[0] = 0;
  off[1] = 4;
  record(new_layout(), "resized(2 int, extent 20)", t, 24, B_INT, off, sz, 2, 20);
  {
    int sizes[] = {8, 10}, sub[] = {4, 6}, start[] = {2, 3};
    MPI_Type_create_subarray(2, sizes, sub, start, MPI_ORDER_C, MPI_INT, &t);
    MPI_Type_commit(&t);
    n = 0;
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 6; ++c) off[n++] = (size_t)((2 + r) * 10 + 3 + c) * 4;
    record(new_layout(), "subarray 4x6 of 8x10", t, 2, B_INT, off, sz, n, 320);
  }
  /* 12 doubles. */
  for (int i = 0; i < MAXEL; ++i) sz[i] = sizeof(double);
  for (int i = 0; i < 12; ++i) off[i] = (size_t)i * 8;
  record(new_layout(), "12 x MPI_DOUBLE", MPI_DOUBLE, 12, B_DOUBLE, off, sz, 1, 8);
  MPI_Type_vector(3, 2, 5, MPI_DOUBLE, &t);
  MPI_Type_commit(&t);
  n = 0;
  for (int b = 0; b < 3; ++b)
    for (int i = 0; i < 2; ++i) off[n++] = (size_t)(b * 5 + i) * 8;
  record(new_layout(), "vector(3,2,5) of double", t, 2, B_DOUBLE, off, sz, n, 12 * 8);
  {
    int bl[] = {1, 2, 3};
    int dp[] = {9, 0, 4};
    MPI_Type_indexed(3, bl, dp, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    const size_t o[] = {72, 0, 8, 32, 40, 48};
    record(new_layout(), "indexed of double", t, 2, B_DOUBLE, o, sz, 6, 80);
  }
  /* int, int, double, char, char, char in two layouts (put and get only: accumulate needs one basic type). */
  {
    int bl[] = {2, 1, 3};
    MPI_Aint dp[] = {0, 16, 28};
    MPI_Datatype ty[] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
    MPI_Type_create_struct(3, bl, dp, ty, &u);
    MPI_Type_create_resized(u, 0, 40, &t);
    MPI_Type_free(&u);
    MPI_Type_commit(&t);
    const size_t o[] = {0, 4, 16, 28, 29, 30}, s[] = {4, 4, 8, 1, 1, 1};
    record(new_layout(), "struct int,int,double,3 char", t, 3, B_MIXED, o, s, 6, 40);
  }
  {
    int bl[] = {1, 1, 1, 1, 1, 1};
    MPI_Aint dp[] = {36, 4, 16, 2, 0, 33};
    MPI_Datatype ty[] = {MPI_INT, MPI_INT, MPI_DOUBLE, MPI_CHAR, MPI_CHAR, MPI_CHAR};
    MPI_Type_create_struct(6, bl, dp, ty, &u);
    MPI_Type_create_resized(u, 0, 48, &t);
    MPI_Type_free(&u);
    MPI_Type_commit(&t);
    const size_t o[] = {36, 4, 16, 2, 0, 33}, s[] = {4, 4, 8, 1, 1, 1};
    record(new_layout(), "struct same signature, other order", t, 3, B_MIXED, o, s, 6, 48);
  }
}

static unsigned char pattern(int r, size_t i) {
  return (unsigned char)(r * 53 + i * 11 + (i >> 8) + 3);
}

/* Small integers (exact sums) as int or double; bytes for the mixed types. */
static void value(const layout_t *l, int k, unsigned seed, unsigned char *dst) {
  uint32_t h = (uint32_t)seed * 2654435761u + (uint32_t)k * 40503u;
  h ^= h >> 13;
  h *= 0x5bd1e995u;
  h ^= h >> 15;
  if (l->basic == B_INT) {
    int v = (int)(h % 20001) - 10000;
    memcpy(dst, &v, 4);
  } else if (l->basic == B_DOUBLE) {
    double v = (double)((int)(h % 2001) - 1000) + 0.25;
    memcpy(dst, &v, 8);
  } else {
    for (size_t b = 0; b < l->sz[k]; ++b) dst[b] = (unsigned char)((h >> (b % 4 * 8)) + b);
  }
}

static void add_values(int basic, const unsigned char *a, const unsigned char *b, unsigned char *out) {
  if (basic == B_INT) {
    int x, y;
    memcpy(&x, a, 4);
    memcpy(&y, b, 4);
    x += y;
    memcpy(out, &x, 4);
  } else {
    double x, y;
    memcpy(&x, a, 8);
    memcpy(&y, b, 8);
    x += y;
    memcpy(out, &x, 8);
  }
}

enum { K_PUT, K_GET, K_ACC, K_ACC_REPLACE, K_GACC, K_GACC_NOOP };
static const char *kind_name[] = {"MPI_Put",
                                  "MPI_Get",
                                  "MPI_Accumulate(MPI_SUM)",
                                  "MPI_Accumulate(MPI_REPLACE)",
                                  "MPI_Get_accumulate(MPI_SUM)",
                                  "MPI_Get_accumulate(MPI_NO_OP)"};

typedef struct {
  int kind;
  const layout_t *o, *t, *r; /* origin, target, result */
  unsigned char origin[REGION], result[REGION];
} item_t;

#define MAXITEMS 256
static item_t items[MAXITEMS];
static int nitems;

static void add(int kind, const layout_t *o, const layout_t *t, const layout_t *r) {
  if (nitems < MAXITEMS)
    items[nitems++] = (item_t){kind, o, t, r, {0}, {0}};
  else
    CHECK(0, "too many items");
}

/* Every pairing of layouts with equal signatures; the result layout is a third one of the same signature,
 * and the kinds of accumulate turn through the pairs. */
static void build_items(void) {
  nitems = 0;
  int turn = 0;
  for (int a = 0; a < nlayouts; ++a)
    for (int b = 0; b < nlayouts; ++b) {
      const layout_t *o = &layouts[a], *t = &layouts[b];
      if (o->basic != t->basic) continue;
      int group[16], g = 0;
      for (int i = 0; i < nlayouts; ++i)
        if (layouts[i].basic == o->basic) group[g++] = i;
      const layout_t *r = &layouts[group[(a + b + 1) % g]];
      add(K_PUT, o, t, r);
      add(K_GET, o, t, r);
      if (o->basic == B_MIXED) continue;
      add(turn % 2 ? K_ACC_REPLACE : K_ACC, o, t, r);
      add(turn % 3 ? K_GACC : K_GACC_NOOP, o, t, r);
      ++turn;
    }
}

static unsigned seed_t(int r, int j) {
  return 1000u + (unsigned)r * 7919u + (unsigned)j * 13u;
}
static unsigned seed_o(int r, int j) {
  return 900000u + (unsigned)r * 7919u + (unsigned)j * 13u;
}

/* The target's region of item j at rank tr, before (init) and after (final) origin or's operation; the
 * origin's result buffer after it. */
static void model(int j, int tr, int orr, unsigned char *init, unsigned char *final, unsigned char *result) {
  const item_t *it = &items[j];
  const size_t base = (size_t)j * REGION;
  for (size_t i = 0; i < REGION; ++i) init[i] = pattern(tr, base + i);
  for (int k = 0; k < it->t->n; ++k) value(it->t, k, seed_t(tr, j), init + it->t->off[k]);
  memcpy(final, init, REGION);
  if (result) memset(result, 0xEE, REGION);
  for (int k = 0; k < it->t->n; ++k) {
    unsigned char o[8];
    value(it->o, k, seed_o(orr, j), o);
    unsigned char *t = final + it->t->off[k];
    const unsigned char *told = init + it->t->off[k];
    if (result && it->kind == K_GET) memcpy(result + it->o->off[k], told, it->t->sz[k]);
    if (result && (it->kind == K_GACC || it->kind == K_GACC_NOOP))
      memcpy(result + it->r->off[k], told, it->t->sz[k]);
    if (it->kind == K_PUT || it->kind == K_ACC_REPLACE) memcpy(t, o, it->t->sz[k]);
    if (it->kind == K_ACC || it->kind == K_GACC) add_values(it->t->basic, told, o, t);
  }
}

static void issue(MPI_Win win, int dynamic, MPI_Aint tbase, int j, int target) {
  item_t *it = &items[j];
  const MPI_Aint d = dynamic ? MPI_Aint_add(tbase, (MPI_Aint)j * REGION) : (MPI_Aint)j * REGION;
  const layout_t *o = it->o, *t = it->t, *r = it->r;
  int rc = MPI_SUCCESS;
  switch (it->kind) {
    case K_PUT:
      rc = MPI_Put(it->origin, o->count, o->type, target, d, t->count, t->type, win);
      break;
    case K_GET:
      rc = MPI_Get(it->result, o->count, o->type, target, d, t->count, t->type, win);
      break;
    case K_ACC:
    case K_ACC_REPLACE:
      rc = MPI_Accumulate(it->origin, o->count, o->type, target, d, t->count, t->type,
                          it->kind == K_ACC ? MPI_SUM : MPI_REPLACE, win);
      break;
    case K_GACC:
    case K_GACC_NOOP:
      rc = MPI_Get_accumulate(it->origin, o->count, o->type, it->result, r->count, r->type, target, d,
                              t->count, t->type, it->kind == K_GACC ? MPI_SUM : MPI_NO_OP, win);
      break;
  }
  CHECK(rc == MPI_SUCCESS, "%s from %s to %s: rc %d", kind_name[it->kind], o->name, t->name, rc);
}

static size_t first_diff(const unsigned char *a, const unsigned char *b, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return i;
  return (size_t)-1;
}

enum { F_ALLOCATE, F_CREATE, F_DYNAMIC };
static const char *flavour_name[] = {"allocate", "create", "dynamic"};

static void run(int flavour, int passive) {
  const int t = (rank + 1) % size, s = (rank + size - 1) % size;
  const size_t bytes = (size_t)nitems * REGION;
  unsigned char *base = NULL;
  MPI_Win win;
  MPI_Aint *addr = NULL;
  int rc;
  if (flavour == F_ALLOCATE) {
    rc = MPI_Win_allocate((MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  } else if (flavour == F_CREATE) {
    base = malloc(bytes);
    rc = MPI_Win_create(base, (MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  } else {
    base = malloc(bytes);
    rc = MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_attach(win, base, (MPI_Aint)bytes);
    MPI_Aint mine;
    MPI_Get_address(base, &mine);
    addr = malloc(sizeof(MPI_Aint) * (size_t)size);
    MPI_Allgather(&mine, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD);
  }
  CHECK(rc == MPI_SUCCESS, "%s window: rc %d", flavour_name[flavour], rc);
  unsigned char *init = malloc(REGION), *final = malloc(REGION), *result = malloc(REGION);
  /* This rank's window as target; its buffers as origin. */
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
  for (int j = 0; j < nitems; ++j) {
    model(j, rank, s, init, final, NULL);
    memcpy(base + (size_t)j * REGION, init, REGION);
  }
  MPI_Win_unlock(rank, win);
  for (int j = 0; j < nitems; ++j) {
    item_t *it = &items[j];
    memset(it->origin, 0xDD, REGION);
    memset(it->result, 0xEE, REGION);
    for (int k = 0; k < it->o->n; ++k) value(it->o, k, seed_o(rank, j), it->origin + it->o->off[k]);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const MPI_Aint tbase = addr ? addr[t] : 0;
  if (!passive) {
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    for (int j = 0; j < nitems; ++j) issue(win, flavour == F_DYNAMIC, tbase, j, t);
    rc = MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
  } else {
    MPI_Win_lock_all(0, win);
    for (int j = 0; j < nitems; ++j) {
      issue(win, flavour == F_DYNAMIC, tbase, j, t);
      if (j % 16 == 15) MPI_Win_flush(t, win);
    }
    rc = MPI_Win_flush_all(win);
    MPI_Win_unlock_all(win);
  }
  CHECK(rc == MPI_SUCCESS, "closing the epoch: rc %d", rc);
  MPI_Barrier(MPI_COMM_WORLD);
  const char *how = passive ? "lock_all" : "fence";
  for (int j = 0; j < nitems; ++j) {
    const item_t *it = &items[j];
    model(j, t, rank, init, final, result);
    size_t bad = first_diff(it->result, result, REGION);
    CHECK(bad == (size_t)-1, "%s %s: %s origin %s target %s result %s: result byte %zu is %#x, want %#x",
          flavour_name[flavour], how, kind_name[it->kind], it->o->name, it->t->name, it->r->name, bad,
          bad == (size_t)-1 ? 0 : it->result[bad], bad == (size_t)-1 ? 0 : result[bad]);
  }
  MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
  for (int j = 0; j < nitems; ++j) {
    const item_t *it = &items[j];
    model(j, rank, s, init, final, NULL);
    size_t bad = first_diff(base + (size_t)j * REGION, final, REGION);
    CHECK(bad == (size_t)-1, "%s %s: %s origin %s target %s: target byte %zu is %#x, want %#x (was %#x)",
          flavour_name[flavour], how, kind_name[it->kind], it->o->name, it->t->name, bad,
          bad == (size_t)-1 ? 0 : base[(size_t)j * REGION + bad], bad == (size_t)-1 ? 0 : final[bad],
          bad == (size_t)-1 ? 0 : init[bad]);
  }
  MPI_Win_unlock(rank, win);
  if (flavour == F_DYNAMIC) MPI_Win_detach(win, base);
  MPI_Win_free(&win);
  if (flavour != F_ALLOCATE) free(base);
  free(addr);
  free(init);
  free(final);
  free(result);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  build_layouts();
  build_items();
  for (int f = 0; f < 3; ++f)
    for (int passive = 0; passive < 2; ++passive) run(f, passive);
  for (int i = 0; i < nlayouts; ++i) {
    MPI_Datatype t = layouts[i].type;
    if (t != MPI_INT && t != MPI_DOUBLE) MPI_Type_free(&t);
  }
  return finish("rma_datatypes");
}
