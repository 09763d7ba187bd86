/* Counting the heap allocations of the process: included by one test program, it interposes malloc and
 * its relatives over glibc's. While `counting` is set, every allocation of at least `count_min` bytes
 * adds one to `allocations`. */
#ifndef PAMIR_TEST_COUNT_ALLOCS_H
#define PAMIR_TEST_COUNT_ALLOCS_H

#include <stddef.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static volatile int counting;
static volatile long allocations;
static size_t count_min; /* bytes: smaller allocations are not counted */

static void note(size_t n) {
  if (counting && n >= count_min) ++allocations;
}
void *malloc(size_t n) {
  note(n);
  return __libc_malloc(n);
}
void *calloc(size_t a, size_t b) {
  note(a * b);
  return __libc_calloc(a, b);
}
void *realloc(void *p, size_t n) {
  note(n);
  return __libc_realloc(p, n);
}
void free(void *p) {
  __libc_free(p);
}
void *aligned_alloc(size_t al, size_t n) {
  note(n);
  return __libc_memalign(al, n);
}
void *memalign(size_t al, size_t n) {
  note(n);
  return __libc_memalign(al, n);
}
int posix_memalign(void **out, size_t al, size_t n) {
  note(n);
  *out = __libc_memalign(al, n);
  return *out ? 0 : 12;
}

#endif
