/* MPI_Win_allocate_shared on the MPI_COMM_TYPE_SHARED split of the world: MPI_Win_shared_query for every
 * rank and for MPI_PROC_NULL (the lowest rank with a nonzero size), the contiguous layout (rank i's segment
 * starts right after rank i-1's), segments of different sizes and disp_units, zero-size segments (some,
 * the lowest ones, and all), the alloc_shared_noncontig info key. Ranks write segments with plain stores
 * (their own, then their neighbour's), MPI_Win_sync + barrier + MPI_Win_sync, and the others read them
 * with plain loads, element by element; MPI_Put into a neighbour's segment is read by its owner with plain
 * loads. Runs with 1 to 4 ranks.
 *
 * Checked on MPICH 4.0.2 and Open MPI 4.1.4 (Debian), 1-4 ranks: each fails one part the other passes.
 * MPICH's query of a rank's zero-size segment gives the caller's disp_unit when every segment is empty;
 * Open MPI's query gives a page-rounded size with alloc_shared_noncontig. Passes on Pamir. */
#include <stdint.h>

#include "check.h"

static int rank, size;
static MPI_Comm node;
static int nrank, nsize;

static unsigned value(int owner, int writer, size_t i) {
  return (unsigned)owner * 0x1000000u + (unsigned)writer * 0x10000u + (unsigned)i;
}

/* Sizes: pass a function of the rank; disp_unit 4 on even ranks, 8 on odd ones. */
typedef MPI_Aint (*size_fn)(int r);
static MPI_Aint varied(int r) {
  return 4096 + 1000 * (MPI_Aint)r;
} /* multiples of 8 */
static MPI_Aint low_zero(int r) {
  return r < 2 && r < nsize - 1 ? 0 : 2048 + 8 * (MPI_Aint)r;
}
static MPI_Aint all_zero(int r) {
  (void)r;
  return 0;
}
static int du_of(int r) {
  return r % 2 ? 8 : 4;
}

static void one_window(const char *name, size_fn seg, int noncontig) {
  MPI_Info info = MPI_INFO_NULL;
  if (noncontig) {
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
  }
  unsigned *mine = NULL;
  MPI_Win win;
  int rc = MPI_Win_allocate_shared(seg(nrank), du_of(nrank), info, node, &mine, &win);
  CHECK(rc == MPI_SUCCESS, "%s: MPI_Win_allocate_shared rc %d", name, rc);
  if (info != MPI_INFO_NULL) MPI_Info_free(&info);
  if (rc != MPI_SUCCESS) return;

  /* Every rank's segment as this rank sees it. */
  unsigned **at = malloc(sizeof(unsigned *) * (size_t)nsize);
  for (int r = 0; r < nsize; ++r) {
    MPI_Aint sz = -1;
    int du = -1;
    void *p = NULL;
    rc = MPI_Win_shared_query(win, r, &sz, &du, &p);
    CHECK(rc == MPI_SUCCESS && sz == seg(r) && du == du_of(r),
          "%s: query of rank %d: rc %d size %ld (want %ld) disp_unit %d (want %d)", name, r, rc, (long)sz,
          (long)seg(r), du, du_of(r));
    CHECK(sz == 0 || p != NULL, "%s: rank %d's segment has no address", name, r);
    at[r] = p;
    if (r == nrank && sz > 0)
      CHECK(p == (void *)mine, "%s: the query of this rank gives %p, allocation gave %p", name, p,
            (void *)mine);
  }
  /* Contiguous: each nonempty segment starts where the previous nonempty one ends. */
  if (!noncontig) {
    unsigned char *end = NULL;
    for (int r = 0; r < nsize; ++r) {
      if (seg(r) == 0) continue;
      if (end)
        CHECK((unsigned char *)at[r] == end, "%s: rank %d's segment at %p, rank before ends at %p", name, r,
              (void *)at[r], (void *)end);
      end = (unsigned char *)at[r] + seg(r);
    }
  }
  /* MPI_PROC_NULL: the lowest rank with a nonzero size (size 0 when all are). */
  {
    int low = -1;
    for (int r = 0; r < nsize && low < 0; ++r)
      if (seg(r) > 0) low = r;
    MPI_Aint sz = -1;
    int du = -1;
    void *p = NULL;
    rc = MPI_Win_shared_query(win, MPI_PROC_NULL, &sz, &du, &p);
    if (low >= 0)
      CHECK(rc == MPI_SUCCESS && sz == seg(low) && du == du_of(low) && p == (void *)at[low],
            "%s: MPI_PROC_NULL query: rc %d size %ld disp_unit %d base %p, want rank %d's %ld %d %p", name,
            rc, (long)sz, du, p, low, (long)seg(low), du_of(low), (void *)at[low]);
    else
      CHECK(rc == MPI_SUCCESS && sz == 0, "%s: MPI_PROC_NULL query with every size 0: rc %d size %ld", name,
            rc, (long)sz);
  }

  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  /* Own segment by plain stores, read by everyone with plain loads. */
  const size_t n = (size_t)seg(nrank) / sizeof(unsigned);
  for (size_t i = 0; i < n; ++i) mine[i] = value(nrank, nrank, i);
  MPI_Win_sync(win);
  MPI_Barrier(node);
  MPI_Win_sync(win);
  for (int r = 0; r < nsize; ++r) {
    const size_t m = (size_t)seg(r) / sizeof(unsigned);
    size_t bad = (size_t)-1;
    for (size_t i = 0; i < m && bad == (size_t)-1; ++i)
      if (at[r][i] != value(r, r, i)) bad = i;
    CHECK(bad == (size_t)-1, "%s: rank %d's own stores: element %zu reads %#x, want %#x", name, r, bad,
          bad == (size_t)-1 ? 0 : at[r][bad], bad == (size_t)-1 ? 0 : value(r, r, bad));
  }
  MPI_Barrier(node);
  /* Stores into the next rank's segment, read by its owner. */
  const int next = (nrank + 1) % nsize, prev = (nrank + nsize - 1) % nsize;
  const size_t nn = (size_t)seg(next) / sizeof(unsigned);
  for (size_t i = 0; i < nn; ++i) at[next][i] = value(next, nrank, i);
  MPI_Win_sync(win);
  MPI_Barrier(node);
  MPI_Win_sync(win);
  {
    size_t bad = (size_t)-1;
    for (size_t i = 0; i < n && bad == (size_t)-1; ++i)
      if (mine[i] != value(nrank, prev, i)) bad = i;
    CHECK(bad == (size_t)-1, "%s: rank %d's stores into this segment: element %zu reads %#x, want %#x", name,
          prev, bad, bad == (size_t)-1 ? 0 : mine[bad], bad == (size_t)-1 ? 0 : value(nrank, prev, bad));
  }
  MPI_Barrier(node);
  /* MPI_Put into the next rank's segment (its disp_unit), read by its owner with loads. */
  if (nn > 0) {
    unsigned *src = malloc(nn * sizeof(unsigned));
    for (size_t i = 0; i < nn; ++i) src[i] = value(next, nrank, i) ^ 0xFFFFu;
    MPI_Put(src, (int)nn, MPI_UNSIGNED, next, 0, (int)nn, MPI_UNSIGNED, win);
    MPI_Win_flush(next, win);
    free(src);
  }
  MPI_Win_sync(win);
  MPI_Barrier(node);
  MPI_Win_sync(win);
  {
    size_t bad = (size_t)-1;
    for (size_t i = 0; i < n && bad == (size_t)-1; ++i)
      if (mine[i] != (value(nrank, prev, i) ^ 0xFFFFu)) bad = i;
    CHECK(bad == (size_t)-1, "%s: rank %d's MPI_Put into this segment: element %zu reads %#x", name, prev,
          bad, bad == (size_t)-1 ? 0 : mine[bad]);
  }
  MPI_Win_unlock_all(win);
  free(at);
  rc = MPI_Win_free(&win);
  CHECK(rc == MPI_SUCCESS, "%s: MPI_Win_free rc %d", name, rc);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &nrank);
  MPI_Comm_size(node, &nsize);
  CHECK(nsize == size, "the shared-memory split has %d of the %d ranks (one node expected)", nsize, size);
  one_window("different sizes", varied, 0);
  one_window("the lowest ranks empty", low_zero, 0);
  one_window("all empty", all_zero, 0);
  one_window("alloc_shared_noncontig", varied, 1);
  MPI_Comm_free(&node);
  return finish("rma_shared");
}
