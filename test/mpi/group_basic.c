/* Groups: size, rank, incl, excl, range_incl, range_excl, union, intersection, difference,
 * translate_ranks, compare, free, MPI_GROUP_EMPTY, the group of a communicator, and the error paths
 * (bad ranks, duplicates, bad ranges, freed and null groups) under MPI_ERRORS_RETURN. Runs with 1 to 4
 * ranks; the results are checked as lists of world ranks. */
#include <string.h>

#include "check.h"

static int rank, size;
static MPI_Group world;

/* The world ranks of g's members, in g's order; returns the size. */
static int members(MPI_Group g, int *out) {
  int n = 0;
  MPI_Group_size(g, &n);
  int in[64];
  for (int i = 0; i < n; ++i) in[i] = i;
  MPI_Group_translate_ranks(g, n, in, world, out);
  return n;
}

static int same(const int *a, int na, const int *b, int nb) {
  if (na != nb) return 0;
  for (int i = 0; i < na; ++i)
    if (a[i] != b[i]) return 0;
  return 1;
}

static void expect(MPI_Group g, const int *want, int nwant, const char *what) {
  int got[64];
  int n = members(g, got);
  CHECK(same(got, n, want, nwant), "%s: got %d members (first %d), want %d (first %d)", what, n,
        n ? got[0] : -1, nwant, nwant ? want[0] : -1);
  /* This process's rank agrees with the member list. */
  int r = -2, want_rank = MPI_UNDEFINED;
  for (int i = 0; i < nwant; ++i)
    if (want[i] == rank) want_rank = i;
  MPI_Group_rank(g, &r);
  CHECK(r == want_rank, "%s: rank %d, want %d", what, r, want_rank);
}

static void constructors(void) {
  int all[64], n = members(world, all);
  CHECK(n == size, "world group size %d", n);
  for (int i = 0; i < size; ++i) CHECK(all[i] == i, "world member %d is %d", i, all[i]);

  /* incl: reversed. */
  int rev[64];
  for (int i = 0; i < size; ++i) rev[i] = size - 1 - i;
  MPI_Group g;
  MPI_Group_incl(world, size, rev, &g);
  expect(g, rev, size, "incl reversed");
  int res = -1;
  MPI_Group_compare(world, g, &res);
  CHECK(res == (size == 1 ? MPI_IDENT : MPI_SIMILAR), "compare(world, reversed) = %d", res);
  MPI_Group_free(&g);
  CHECK(g == MPI_GROUP_NULL, "free sets MPI_GROUP_NULL");

  /* excl of rank 0. */
  MPI_Group_excl(world, 1, (int[]){0}, &g);
  expect(g, all + 1, size - 1, "excl 0");
  MPI_Group_compare(world, g, &res);
  CHECK(res == MPI_UNEQUAL, "compare(world, excl 0) = %d", res);
  if (size == 1) CHECK(g == MPI_GROUP_EMPTY, "an empty result is MPI_GROUP_EMPTY");
  MPI_Group_free(&g);

  /* range_incl: evens, and the odds counted down. */
  int evens[64] = {0}, ne = 0, odds_down[64] = {0}, no = 0;
  for (int i = 0; i < size; i += 2) evens[ne++] = i;
  for (int i = size - 1; i >= 0; --i)
    if (i % 2) odds_down[no++] = i;
  int r1[1][3] = {{0, size - 1, 2}};
  /* (void *): some headers declare ranges[] as int[] instead of the standard int[][3]. */
  MPI_Group_range_incl(world, 1, (void *)r1, &g);
  expect(g, evens, ne, "range_incl evens");
  MPI_Group ev = g;
  if (no > 0) {
    int r2[1][3] = {{odds_down[0], 1, -2}};
    MPI_Group_range_incl(world, 1, (void *)r2, &g);
    expect(g, odds_down, no, "range_incl odds down");
    MPI_Group_free(&g);
  }
  /* range_excl of the evens leaves the odds in order. */
  int odds[64] = {0}, nodd = 0;
  for (int i = 1; i < size; i += 2) odds[nodd++] = i;
  MPI_Group_range_excl(world, 1, (void *)r1, &g);
  expect(g, odds, nodd, "range_excl evens");
  MPI_Group od = g;

  /* Set operations. */
  MPI_Group u, in, d;
  MPI_Group_union(od, ev, &u);
  int uo[64] = {0}, nu = 0;
  for (int i = 0; i < nodd; ++i) uo[nu++] = odds[i];
  for (int i = 0; i < ne; ++i) uo[nu++] = evens[i];
  expect(u, uo, nu, "union odds+evens");
  MPI_Group_compare(u, world, &res);
  CHECK(res == (size <= 1 ? MPI_IDENT : MPI_SIMILAR), "compare(union, world) = %d", res);
  MPI_Group_intersection(world, ev, &in);
  expect(in, evens, ne, "intersection");
  MPI_Group_compare(in, ev, &res);
  CHECK(res == MPI_IDENT, "compare(intersection, evens) = %d", res);
  MPI_Group_difference(world, ev, &d);
  expect(d, odds, nodd, "difference");
  MPI_Group empty;
  MPI_Group_intersection(ev, od, &empty);
  CHECK(empty == MPI_GROUP_EMPTY, "the intersection of evens and odds is MPI_GROUP_EMPTY");
  int esize = -1, erank = 0;
  MPI_Group_size(MPI_GROUP_EMPTY, &esize);
  MPI_Group_rank(MPI_GROUP_EMPTY, &erank);
  CHECK(esize == 0 && erank == MPI_UNDEFINED, "MPI_GROUP_EMPTY size %d rank %d", esize, erank);
  MPI_Group_free(&empty); /* freeing what a constructor returned, even MPI_GROUP_EMPTY */
  CHECK(empty == MPI_GROUP_NULL, "freeing MPI_GROUP_EMPTY");
  MPI_Group_union(MPI_GROUP_EMPTY, world, &g);
  MPI_Group_compare(g, world, &res);
  CHECK(res == MPI_IDENT, "union with the empty group = %d", res);
  MPI_Group_free(&g);

  /* translate_ranks: MPI_PROC_NULL stays, absent members are MPI_UNDEFINED. */
  int from[3] = {MPI_PROC_NULL, 0, size - 1}, to[3] = {7, 7, 7};
  MPI_Group_translate_ranks(world, 3, from, ev, to);
  CHECK(to[0] == MPI_PROC_NULL && to[1] == 0 && to[2] == ((size - 1) % 2 ? MPI_UNDEFINED : (size - 1) / 2),
        "translate: %d %d %d", to[0], to[1], to[2]);

  /* The group of a communicator made from a group is that group. */
  MPI_Comm c;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, 0, &c);
  MPI_Group cg;
  MPI_Comm_group(c, &cg);
  MPI_Group_compare(cg, rank % 2 ? od : ev, &res);
  CHECK(res == MPI_IDENT, "group of the parity split = %d", res);
  MPI_Group_free(&cg);
  MPI_Comm_free(&c);

  /* Integer handles. */
  int gi = MPI_Group_toint(ev);
  CHECK(MPI_Group_fromint(gi) == ev, "group integer %d", gi);

  MPI_Group_free(&u);
  MPI_Group_free(&in);
  MPI_Group_free(&d);
  MPI_Group_free(&ev);
  MPI_Group_free(&od);
}

static void errors(void) {
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Group g = MPI_GROUP_NULL;
  int rc = MPI_Group_incl(world, 1, (int[]){size}, &g);
  CHECK(err_class(rc) == MPI_ERR_RANK, "incl of rank %d: class %d", size, err_class(rc));
  rc = MPI_Group_incl(world, 1, (int[]){-1}, &g);
  CHECK(err_class(rc) == MPI_ERR_RANK, "incl of rank -1: class %d", err_class(rc));
  if (size > 1) {
    rc = MPI_Group_incl(world, 2, (int[]){0, 0}, &g);
    CHECK(err_class(rc) == MPI_ERR_RANK, "incl with a duplicate: class %d", err_class(rc));
    rc = MPI_Group_excl(world, 2, (int[]){1, 1}, &g);
    CHECK(err_class(rc) == MPI_ERR_RANK, "excl with a duplicate: class %d", err_class(rc));
  }
  rc = MPI_Group_excl(world, 1, (int[]){size + 3}, &g);
  CHECK(err_class(rc) == MPI_ERR_RANK, "excl of a bad rank: class %d", err_class(rc));
  rc = MPI_Group_incl(world, -1, (int[]){0}, &g);
  CHECK(err_class(rc) == MPI_ERR_ARG, "negative n: class %d", err_class(rc));
  int zero_stride[1][3] = {{0, size - 1, 0}};
  rc = MPI_Group_range_incl(world, 1, (void *)zero_stride, &g);
  CHECK(err_class(rc) == MPI_ERR_ARG, "stride 0: class %d", err_class(rc));
  int outside[1][3] = {{0, size, 1}};
  rc = MPI_Group_range_incl(world, 1, (void *)outside, &g);
  CHECK(err_class(rc) == MPI_ERR_RANK, "range past the end: class %d", err_class(rc));
  int twice[2][3] = {{0, 0, 1}, {0, size - 1, 1}};
  rc = MPI_Group_range_excl(world, 2, (void *)twice, &g);
  CHECK(err_class(rc) == MPI_ERR_RANK, "overlapping ranges: class %d", err_class(rc));
  if (size > 1) {
    int backwards[1][3] = {{size - 1, 0, 1}};
    rc = MPI_Group_range_incl(world, 1, (void *)backwards, &g);
    CHECK(err_class(rc) == MPI_ERR_ARG, "a range whose stride leads away from last: class %d", err_class(rc));
  }
  int sz;
  rc = MPI_Group_size(MPI_GROUP_NULL, &sz);
  CHECK(err_class(rc) == MPI_ERR_GROUP, "MPI_GROUP_NULL: class %d", err_class(rc));
  MPI_Group tmp, keep;
  MPI_Group_incl(world, 1, (int[]){0}, &tmp);
  keep = tmp;
  MPI_Group_free(&tmp);
  rc = MPI_Group_size(keep, &sz);
  CHECK(err_class(rc) == MPI_ERR_GROUP, "a freed group: class %d", err_class(rc));
  rc = MPI_Group_free(&tmp);
  CHECK(err_class(rc) == MPI_ERR_GROUP, "freeing MPI_GROUP_NULL: class %d", err_class(rc));
  int out;
  rc = MPI_Group_translate_ranks(world, 1, (int[]){size}, world, &out);
  CHECK(err_class(rc) == MPI_ERR_RANK, "translate of a bad rank: class %d", err_class(rc));
  CHECK(g == MPI_GROUP_NULL, "failed calls left newgroup alone");
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  constructors();
  errors();
  MPI_Group_free(&world);
  return finish("group_basic");
}
