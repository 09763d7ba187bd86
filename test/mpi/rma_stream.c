/* Bandwidth windows of puts and gets into mapped window memory, where Pamir's copies stream once their
 * destinations have run on long enough (PAMIR_WINDOW_STREAM_RUN, pami/stream_copy.h): PIECES puts, then
 * PIECES gets, each starting where the last ended, of sizes that leave the streaming loop a head before
 * an aligned destination and a tail, from odd offsets. Windows from MPI_Win_allocate,
 * MPI_Win_allocate_shared and MPI_Win_create on MPI_Alloc_mem memory; puts and gets by the binding's
 * fast path (MPI_BYTE) and by the general one (a contiguous derived type), under lock_all and flush and
 * under fence. Every byte is checked: by the target in its own memory after the puts, by the origin in
 * what it got, and the guard bytes after each run are untouched. Rounds change the pattern, so a stale
 * byte shows. Each rank works on the next one. run.sh counts with PAMIR_STATS that copies streamed. */
#include <stdint.h>

#include "check.h"

#define PIECES 24
#define GUARD 256
#define FILL 0x5A

static const size_t piece_sizes[] = {4096, 65536 + 3, 100000};
#define NSIZES ((int)(sizeof piece_sizes / sizeof piece_sizes[0]))
static const size_t offsets[] = {0, 3};
#define NOFFSETS ((int)(sizeof offsets / sizeof offsets[0]))

enum { FLAVOR_ALLOCATE, FLAVOR_SHARED, FLAVOR_ALLOC_MEM, FLAVORS };
static const char *flavor_name[] = {"allocate", "shared", "alloc_mem"};
enum { SYNC_FLUSH, SYNC_FENCE, SYNCS };
static const char *sync_name[] = {"flush", "fence"};

static unsigned char pattern(int owner, int round, size_t i) {
  return (unsigned char)(owner * 37 + round * 11 + (int)(i * 7 % 253) + 1);
}

/* The first byte of [p, p+n) that differs from want(i) (its index), or -1. */
static long first_bad(const unsigned char *p, size_t n, int owner, int round) {
  for (size_t i = 0; i < n; ++i)
    if (p[i] != pattern(owner, round, i)) return (long)i;
  return -1;
}

static long first_not_fill(const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (p[i] != FILL) return (long)i;
  return -1;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  size_t most = 0;
  for (int s = 0; s < NSIZES; ++s)
    if (piece_sizes[s] * PIECES > most) most = piece_sizes[s] * PIECES;
  const size_t win_bytes = most + 8 + GUARD;
  unsigned char *src = malloc(win_bytes), *got = malloc(win_bytes);
  MPI_Datatype block; /* a contiguous derived type: the general path rather than the fast one */
  MPI_Type_contiguous(4, MPI_BYTE, &block);
  MPI_Type_commit(&block);
  int round = 0;
  for (int flavor = 0; flavor < FLAVORS; ++flavor) {
    unsigned char *mem = NULL, *alloc_mem = NULL;
    MPI_Win win;
    if (flavor == FLAVOR_ALLOCATE) {
      MPI_Win_allocate((MPI_Aint)win_bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    } else if (flavor == FLAVOR_SHARED) {
      MPI_Win_allocate_shared((MPI_Aint)win_bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    } else {
      MPI_Alloc_mem((MPI_Aint)win_bytes, MPI_INFO_NULL, &alloc_mem);
      mem = alloc_mem;
      MPI_Win_create(mem, (MPI_Aint)win_bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    }
    for (int sync = 0; sync < SYNCS; ++sync) {
      for (int s = 0; s < NSIZES; ++s) {
        for (int o = 0; o < NOFFSETS; ++o) {
          for (int general = 0; general < 2; ++general) {
            ++round;
            const size_t piece = general ? piece_sizes[s] / 4 * 4 : piece_sizes[s], off = offsets[o];
            const size_t run = piece * PIECES;
            /* The target's memory: the origin's run goes at off, a guard after it. */
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
            memset(mem, FILL, win_bytes);
            MPI_Win_unlock(rank, win);
            for (size_t i = 0; i < run; ++i) src[i] = pattern(rank, round, i);
            MPI_Barrier(MPI_COMM_WORLD);
            const int count = general ? (int)(piece / 4) : (int)piece;
            const MPI_Datatype type = general ? block : MPI_BYTE;
            if (sync == SYNC_FLUSH)
              MPI_Win_lock_all(0, win);
            else
              MPI_Win_fence(0, win);
            for (int j = 0; j < PIECES; ++j)
              MPI_Put(src + j * piece, count, type, next, (MPI_Aint)(off + j * piece), count, type, win);
            if (sync == SYNC_FLUSH) {
              MPI_Win_flush(next, win);
              MPI_Win_unlock_all(win);
            } else {
              MPI_Win_fence(0, win);
            }
            MPI_Barrier(MPI_COMM_WORLD);
            /* The target checks what its previous rank put. */
            MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
            long bad = first_bad(mem + off, run, prev, round);
            CHECK(bad < 0, "%s %s %s, pieces of %zu at +%zu: byte %ld put by rank %d is 0x%02x",
                  flavor_name[flavor], sync_name[sync], general ? "general" : "fast", piece, off, bad, prev,
                  bad < 0 ? 0 : mem[off + (size_t)bad]);
            bad = first_not_fill(mem, off);
            CHECK(bad < 0, "%s %s, pieces of %zu: byte %ld before the run written", flavor_name[flavor],
                  sync_name[sync], piece, bad);
            bad = first_not_fill(mem + off + run, GUARD);
            CHECK(bad < 0, "%s %s, pieces of %zu: guard byte %ld after the run written", flavor_name[flavor],
                  sync_name[sync], piece, bad);
            MPI_Win_unlock(rank, win);
            MPI_Barrier(MPI_COMM_WORLD);
            /* The origin gets it back, piece after piece into one run, a guard after it. */
            memset(got, FILL, win_bytes);
            if (sync == SYNC_FLUSH)
              MPI_Win_lock_all(0, win);
            else
              MPI_Win_fence(0, win);
            for (int j = 0; j < PIECES; ++j)
              MPI_Get(got + off + j * piece, count, type, next, (MPI_Aint)(off + j * piece), count, type,
                      win);
            if (sync == SYNC_FLUSH) {
              MPI_Win_flush(next, win);
              MPI_Win_unlock_all(win);
            } else {
              MPI_Win_fence(0, win);
            }
            bad = first_bad(got + off, run, rank, round);
            CHECK(bad < 0, "%s %s %s, pieces of %zu at +%zu: byte %ld got from rank %d is 0x%02x",
                  flavor_name[flavor], sync_name[sync], general ? "general" : "fast", piece, off, bad, next,
                  bad < 0 ? 0 : got[off + (size_t)bad]);
            bad = first_not_fill(got, off);
            CHECK(bad < 0, "%s %s, pieces of %zu: byte %ld before the gotten run written",
                  flavor_name[flavor], sync_name[sync], piece, bad);
            bad = first_not_fill(got + off + run, GUARD);
            CHECK(bad < 0, "%s %s, pieces of %zu: guard byte %ld after the gotten run written",
                  flavor_name[flavor], sync_name[sync], piece, bad);
            MPI_Barrier(MPI_COMM_WORLD);
          }
        }
      }
    }
    MPI_Win_free(&win);
    if (alloc_mem) MPI_Free_mem(alloc_mem);
  }
  MPI_Type_free(&block);
  free(src);
  free(got);
  return finish("rma_stream");
}
