/* A naive model of MPI type maps for the datatype tests: a type is the list of its basic elements
 * (offset, size) in type-map order with its lower and upper bound, built by the definitions of the MPI
 * standard (section 5.1) one element at a time, with nothing merged and nothing clever. The library's
 * flattened layouts are checked against it: pack through the model and through MPI_Pack must agree. */
#ifndef PAMIR_TEST_TYPEMAP_H
#define PAMIR_TEST_TYPEMAP_H

#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  long off;
  int len;
} tm_elem;

typedef struct {
  tm_elem *e;
  long n, cap;
  long lb, ub;
  int align;  /* of the most aligned basic element: struct padding */
  int sticky; /* bounds set by resized: no padding */
  int any;    /* bounds set */
} typemap;

static void tm_push(typemap *t, long off, int len) {
  if (t->n == t->cap) {
    t->cap = t->cap ? 2 * t->cap : 16;
    t->e = (tm_elem *)realloc(t->e, (size_t)t->cap * sizeof(tm_elem));
  }
  t->e[t->n].off = off;
  t->e[t->n].len = len;
  ++t->n;
}

static void tm_free(typemap *t) {
  free(t->e);
  memset(t, 0, sizeof *t);
}

static long tm_extent(const typemap *t) {
  return t->ub - t->lb;
}
static long tm_size(const typemap *t) {
  long s = 0;
  for (long i = 0; i < t->n; ++i) s += t->e[i].len;
  return s;
}

static typemap tm_basic(int size, int align) {
  typemap t = {0};
  tm_push(&t, 0, size);
  t.ub = size;
  t.align = align;
  t.any = 1;
  return t;
}

/* blocklen copies of `old`, the first at byte displacement d. */
static void tm_block(typemap *t, const typemap *old, long blocklen, long d) {
  if (old->align > t->align) t->align = old->align;
  t->sticky |= old->sticky;
  if (blocklen == 0) return;
  const long ext = tm_extent(old);
  for (long j = 0; j < blocklen; ++j)
    for (long i = 0; i < old->n; ++i) tm_push(t, d + j * ext + old->e[i].off, old->e[i].len);
  const long a = d, b = d + (blocklen - 1) * ext;
  const long lo = (a < b ? a : b) + old->lb, hi = (a > b ? a : b) + old->ub;
  if (!t->any || lo < t->lb) t->lb = lo;
  if (!t->any || hi > t->ub) t->ub = hi;
  t->any = 1;
}

static typemap tm_contiguous(long count, const typemap *old) {
  typemap t = {0};
  tm_block(&t, old, count, 0);
  return t;
}

static typemap tm_hvector(long count, long blocklen, long stride_bytes, const typemap *old) {
  typemap t = {0};
  for (long i = 0; i < count; ++i) tm_block(&t, old, blocklen, i * stride_bytes);
  return t;
}

static typemap tm_hindexed(long count, const long *bl, const long *d, const typemap *old) {
  typemap t = {0};
  for (long i = 0; i < count; ++i) tm_block(&t, old, bl[i], d[i]);
  return t;
}

static typemap tm_struct(long count, const long *bl, const long *d, const typemap *const *types) {
  typemap t = {0};
  for (long i = 0; i < count; ++i) tm_block(&t, types[i], bl[i], d[i]);
  if (!t.sticky && t.align > 1) {
    const long ext = tm_extent(&t);
    if (ext % t.align) t.ub += t.align - ext % t.align;
  }
  return t;
}

static typemap tm_resized(const typemap *old, long lb, long extent) {
  typemap t = {0};
  for (long i = 0; i < old->n; ++i) tm_push(&t, old->e[i].off, old->e[i].len);
  t.lb = lb;
  t.ub = lb + extent;
  t.align = old->align;
  t.sticky = 1;
  t.any = 1;
  return t;
}

/* Every element of an n-dimensional array (dims slowest first in memory) for which keep(dim, index)
 * holds in every dimension, in memory order; bounds are the whole array's. */
typedef int (*tm_keep)(int dim, long index, const void *arg);
static typemap tm_array(int n, const long *sizes, tm_keep keep, const void *arg, const typemap *old) {
  typemap t = {0};
  long total = 1;
  for (int i = 0; i < n; ++i) total *= sizes[i];
  const long ext = tm_extent(old);
  for (long lin = 0; lin < total; ++lin) {
    long rest = lin;
    int ok = 1;
    for (int k = n - 1; k >= 0 && ok; --k) {
      ok = keep(k, rest % sizes[k], arg);
      rest /= sizes[k];
    }
    if (!ok) continue;
    for (long i = 0; i < old->n; ++i) tm_push(&t, lin * ext + old->e[i].off, old->e[i].len);
  }
  t.lb = 0;
  t.ub = total * ext;
  t.align = old->align;
  t.sticky = 1;
  t.any = 1;
  return t;
}

/* Packs `count` elements of t at base the naive way: byte by byte in type-map order. */
static long tm_pack(const typemap *t, long count, const char *base, char *out) {
  long at = 0;
  for (long k = 0; k < count; ++k)
    for (long i = 0; i < t->n; ++i) {
      memcpy(out + at, base + k * tm_extent(t) + t->e[i].off, (size_t)t->e[i].len);
      at += t->e[i].len;
    }
  return at;
}

/* The byte range `count` elements of t touch, relative to the buffer origin: [*lo, *hi). */
static void tm_span(const typemap *t, long count, long *lo, long *hi) {
  *lo = 0;
  *hi = 0;
  int first = 1;
  for (long k = 0; k < count; ++k)
    for (long i = 0; i < t->n; ++i) {
      const long a = k * tm_extent(t) + t->e[i].off, b = a + t->e[i].len;
      if (first || a < *lo) *lo = a;
      if (first || b > *hi) *hi = b;
      first = 0;
    }
}

#endif
