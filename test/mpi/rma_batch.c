/* Many puts and gets in one epoch to MPI_Win_create memory, where Pamir moves them in batches of
 * cross-memory calls, in offers of a slot each, or shared with the target's progress
 * (pami/protocols/window_batch.cc): sizes around each of those switches, laid out with gaps in the
 * target's memory, under lock and flush, fence, and post/start/complete/wait, mixed with small puts,
 * request-based puts and accumulates to the same target; every region and every gap is checked byte by
 * byte by the origin (reading back) and by the target (its own memory); then every region alone, each
 * flushed before the next. Each rank works on the next one, so every rank is an origin and a target at
 * once. With the argument "computing", rank 1 then puts and gets large regions at rank 0 while rank 0
 * computes without MPI calls: the target cannot share the copies, and the origin must not wait for it
 * (the flag protocol and its 15 s limit are rma_passive's; like rma_passive, a quality goal beyond the
 * standard, which needs cross-memory attach). With "paths", 2 ranks, only rank 0's put and get of
 * PATH_BYTES and put of SHARE_BYTES to rank 1 run, so that run.sh can count with PAMIR_STATS which path
 * each took. 2 to 4 ranks. */
#include <stdint.h>

#include "check.h"

static int rank, size;

static const int sizes[] = {1,     100,   2047,  2048,  4095,  4096,  4097,   8192,   12288,
                            16384, 16385, 24576, 32768, 40000, 65536, 131072, 300000, 1048576};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))
#define GAP 64
#define FILL 0xEE
#define SMALL_AT 0      /* a word for small puts, request-based puts and accumulates */
#define REGIONS_AT 4096 /* then the regions, each followed by a gap */
#define TIMEOUT_S 15.0

static size_t region_at(int k) {
  size_t at = REGIONS_AT;
  for (int i = 0; i < k; ++i) at += (size_t)sizes[i] + GAP;
  return at;
}

static unsigned char pattern(int origin, int round, size_t i) {
  return (unsigned char)(origin * 31 + round * 7 + (int)(i * 13 % 251));
}

enum { SYNC_LOCK, SYNC_FENCE, SYNC_PSCW, SYNCS };
static const char *sync_name[] = {"lock", "fence", "pscw"};

/* Opens, flushes and closes the access (and exposure) epoch of one synchronisation mode. */
static void open_epoch(int mode, MPI_Win win, int peer, MPI_Group from, MPI_Group to) {
  if (mode == SYNC_LOCK) MPI_Win_lock(MPI_LOCK_EXCLUSIVE, peer, 0, win);
  if (mode == SYNC_FENCE) MPI_Win_fence(0, win);
  if (mode == SYNC_PSCW) {
    MPI_Win_post(from, 0, win);
    MPI_Win_start(to, 0, win);
  }
}
static void mid_epoch(int mode, MPI_Win win, int peer, MPI_Group from, MPI_Group to) {
  if (mode == SYNC_LOCK) MPI_Win_flush(peer, win);
  if (mode == SYNC_FENCE) MPI_Win_fence(0, win);
  if (mode == SYNC_PSCW) {
    MPI_Win_complete(win);
    MPI_Win_wait(win);
    MPI_Win_post(from, 0, win);
    MPI_Win_start(to, 0, win);
  }
}
static void close_epoch(int mode, MPI_Win win, int peer) {
  if (mode == SYNC_LOCK) MPI_Win_unlock(peer, win);
  if (mode == SYNC_FENCE) MPI_Win_fence(0, win);
  if (mode == SYNC_PSCW) {
    MPI_Win_complete(win);
    MPI_Win_wait(win);
  }
}

/* Every region put to the next rank in one epoch, then read back in one more, with small operations in
 * between; the origin checks what it reads, the target (after a barrier) its own memory. */
static void one_round(int mode, int round, MPI_Win win, unsigned char *mine, size_t bytes, MPI_Group from,
                      MPI_Group to) {
  const int peer = (rank + 1) % size, prev = (rank + size - 1) % size;
  const size_t total = region_at(NSIZES);
  unsigned char *src = malloc(total), *dst = malloc(total);
  for (size_t i = 0; i < total; ++i) src[i] = pattern(rank, round, i);
  memset(dst, 0, total);
  memset(mine, FILL, bytes);
  int zero = 0;
  memcpy(mine + SMALL_AT, &zero, sizeof zero);
  MPI_Barrier(MPI_COMM_WORLD);

  const int one = 1;
  const unsigned char small[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  MPI_Request req = MPI_REQUEST_NULL;
  open_epoch(mode, win, peer, from, to);
  for (int k = 0; k < NSIZES; ++k) {
    MPI_Put(src + region_at(k), sizes[k], MPI_BYTE, peer, (MPI_Aint)region_at(k), sizes[k], MPI_BYTE, win);
    if (k == NSIZES / 3) MPI_Accumulate(&one, 1, MPI_INT, peer, SMALL_AT, 1, MPI_INT, MPI_SUM, win);
    if (k == NSIZES / 2 && mode == SYNC_LOCK) /* request-based operations are passive target's */
      MPI_Rput(small, 8, MPI_BYTE, peer, SMALL_AT + 8, 8, MPI_BYTE, win, &req);
    else if (k == NSIZES / 2)
      MPI_Put(small, 8, MPI_BYTE, peer, SMALL_AT + 8, 8, MPI_BYTE, win);
    if (k == 2 * NSIZES / 3) MPI_Put(small, 4, MPI_BYTE, peer, SMALL_AT + 16, 4, MPI_BYTE, win);
  }
  MPI_Accumulate(&one, 1, MPI_INT, peer, SMALL_AT, 1, MPI_INT, MPI_SUM, win);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  mid_epoch(mode, win, peer, from, to);
  if (mode == SYNC_LOCK) {
    /* A completed request-based get or get_accumulate has its data, before any flush (MPI 5.0 §12.3.5). */
    unsigned char early[100], old[8];
    int before = -1, add = 0;
    memset(early, 0, sizeof early);
    MPI_Rget(early, 100, MPI_BYTE, peer, (MPI_Aint)region_at(1), 100, MPI_BYTE, win, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(memcmp(early, src + region_at(1), 100) == 0, "round %d: MPI_Rget's data is not there at completion",
          round);
    MPI_Rget_accumulate(&add, 1, MPI_INT, &before, 1, MPI_INT, peer, SMALL_AT, 1, MPI_INT, MPI_SUM, win,
                        &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(before == 2, "round %d: MPI_Rget_accumulate's old value at completion is %d, want 2", round,
          before);
    MPI_Rget_accumulate(NULL, 0, MPI_BYTE, old, 8, MPI_BYTE, peer, SMALL_AT + 8, 8, MPI_BYTE, MPI_NO_OP, win,
                        &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(memcmp(old, small, 8) == 0,
          "round %d: MPI_Rget_accumulate(MPI_NO_OP)'s data is not there at completion", round);
  }
  int sum = -1;
  for (int k = NSIZES - 1; k >= 0; --k) {
    MPI_Get(dst + region_at(k), sizes[k], MPI_BYTE, peer, (MPI_Aint)region_at(k), sizes[k], MPI_BYTE, win);
    if (k == NSIZES / 2) MPI_Get(&sum, 1, MPI_INT, peer, SMALL_AT, 1, MPI_INT, win);
  }
  close_epoch(mode, win, peer);

  CHECK(sum == 2, "%s round %d: the accumulated word at rank %d reads %d, want 2", sync_name[mode], round,
        peer, sum);
  for (int k = 0; k < NSIZES; ++k) {
    const size_t at = region_at(k);
    int bad = -1;
    for (int i = 0; i < sizes[k] && bad < 0; ++i)
      if (dst[at + (size_t)i] != src[at + (size_t)i]) bad = i;
    CHECK(bad < 0, "%s round %d: %d bytes read back from rank %d differ at byte %d (%u, want %u)",
          sync_name[mode], round, sizes[k], peer, bad, bad < 0 ? 0 : dst[at + (size_t)bad],
          bad < 0 ? 0 : src[at + (size_t)bad]);
  }

  /* The target's view of its own memory: the previous rank's regions, and the gaps untouched. */
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
  int got = -1;
  memcpy(&got, mine + SMALL_AT, sizeof got);
  CHECK(got == 2, "%s round %d: rank %d's accumulates left %d, want 2", sync_name[mode], round, prev, got);
  CHECK(memcmp(mine + SMALL_AT + 8, small, 8) == 0 && memcmp(mine + SMALL_AT + 16, small, 4) == 0,
        "%s round %d: rank %d's small puts are not in place", sync_name[mode], round, prev);
  for (int k = 0; k < NSIZES; ++k) {
    const size_t at = region_at(k);
    int bad = -1;
    for (int i = 0; i < sizes[k] && bad < 0; ++i)
      if (mine[at + (size_t)i] != pattern(prev, round, at + (size_t)i)) bad = i;
    CHECK(bad < 0, "%s round %d: rank %d's %d-byte put differs here at byte %d", sync_name[mode], round, prev,
          sizes[k], bad);
    int touched = -1;
    for (int i = 0; i < GAP && touched < 0; ++i)
      if (mine[at + (size_t)sizes[k] + (size_t)i] != FILL) touched = i;
    CHECK(touched < 0, "%s round %d: the gap after the %d-byte region was written at byte %d",
          sync_name[mode], round, sizes[k], touched);
  }
  MPI_Win_unlock(rank, win);
  free(src);
  free(dst);
}

/* Every region put and read back alone, each flushed before the next: alone in its batch, a region goes
 * to the target as Pamir's size and the cores' handoff choose (offers in pieces or in whole slots, with
 * streaming stores or not, shared, or one call), rather than in the large batches of one_round. */
static void one_by_one(int round, MPI_Win win, unsigned char *mine, size_t bytes) {
  const int peer = (rank + 1) % size, prev = (rank + size - 1) % size;
  const size_t total = region_at(NSIZES);
  unsigned char *src = malloc(total), *dst = malloc(total);
  for (size_t i = 0; i < total; ++i) src[i] = pattern(rank, round + 2, i);
  memset(dst, 0, total);
  memset(mine, FILL, bytes);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, peer, 0, win);
  for (int k = 0; k < NSIZES; ++k) {
    MPI_Put(src + region_at(k), sizes[k], MPI_BYTE, peer, (MPI_Aint)region_at(k), sizes[k], MPI_BYTE, win);
    MPI_Win_flush(peer, win);
  }
  for (int k = 0; k < NSIZES; ++k) {
    MPI_Get(dst + region_at(k), sizes[k], MPI_BYTE, peer, (MPI_Aint)region_at(k), sizes[k], MPI_BYTE, win);
    MPI_Win_flush(peer, win);
  }
  MPI_Win_unlock(peer, win);
  for (int k = 0; k < NSIZES; ++k) {
    const size_t at = region_at(k);
    CHECK(memcmp(dst + at, src + at, (size_t)sizes[k]) == 0,
          "one by one, round %d: %d bytes read back from rank %d differ", round, sizes[k], peer);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
  for (int k = 0; k < NSIZES; ++k) {
    const size_t at = region_at(k);
    int bad = -1, touched = -1;
    for (int i = 0; i < sizes[k] && bad < 0; ++i)
      if (mine[at + (size_t)i] != pattern(prev, round + 2, at + (size_t)i)) bad = i;
    for (int i = 0; i < GAP && touched < 0; ++i)
      if (mine[at + (size_t)sizes[k] + (size_t)i] != FILL) touched = i;
    CHECK(bad < 0 && touched < 0, "one by one, round %d: rank %d's %d-byte put differs at byte %d, gap at %d",
          round, prev, sizes[k], bad, touched);
  }
  MPI_Win_unlock(rank, win);
  MPI_Barrier(MPI_COMM_WORLD);
  free(src);
  free(dst);
}

/* Puts and gets side by side, as OSU's bandwidth programs make them. Pamir joins those adjacent in both
 * memories into one entry of its batch (from 2 KiB), or into an offer the target has not taken yet
 * (smaller ones); a get joins only if adjacent in the origin's memory too, where its answer goes. Each
 * group has more pieces than a batch holds entries or a pair has offer slots. */
struct side_group {
  int n, len;
  int reversed; /* the origin's pieces in reverse order: adjacent in the target's memory only */
  int gap;      /* bytes left between the pieces in the target's memory: adjacent in the origin's only */
};
static const struct side_group side_groups[] = {
    {80, 2048, 0, 0}, {40, 3000, 1, 0}, {80, 2048, 0, GAP}, {100, 200, 0, 0}, {60, 100, 1, 0}, {50, 64, 0, 8},
};
#define SIDE_GROUPS ((int)(sizeof side_groups / sizeof side_groups[0]))

/* Piece i of group g: where it is at the origin and at the target (the group's base is the same in both). */
static void side_piece(int g, int i, size_t *local_at, size_t *remote_at) {
  size_t base = REGIONS_AT;
  for (int k = 0; k < g; ++k)
    base += (size_t)side_groups[k].n * (size_t)(side_groups[k].len + side_groups[k].gap) + GAP;
  const struct side_group *sg = &side_groups[g];
  *local_at = base + (size_t)(sg->reversed ? sg->n - 1 - i : i) * (size_t)sg->len;
  *remote_at = base + (size_t)i * (size_t)(sg->len + sg->gap);
}

static void side_by_side(int mode, MPI_Win win, unsigned char *mine, size_t bytes, MPI_Group from,
                         MPI_Group to) {
  const int peer = (rank + 1) % size, prev = (rank + size - 1) % size, tag = 50 + mode;
  unsigned char *src = malloc(bytes), *dst = malloc(bytes);
  for (size_t i = 0; i < bytes; ++i) src[i] = pattern(rank, tag, i);
  memset(dst, 0, bytes);
  memset(mine, FILL, bytes);
  MPI_Barrier(MPI_COMM_WORLD);

  size_t local_at, remote_at;
  open_epoch(mode, win, peer, from, to);
  for (int g = 0; g < SIDE_GROUPS; ++g)
    for (int i = 0; i < side_groups[g].n; ++i) {
      const int len = side_groups[g].len;
      side_piece(g, i, &local_at, &remote_at);
      MPI_Put(src + local_at, len, MPI_BYTE, peer, (MPI_Aint)remote_at, len, MPI_BYTE, win);
    }
  mid_epoch(mode, win, peer, from, to);
  for (int g = 0; g < SIDE_GROUPS; ++g)
    for (int i = 0; i < side_groups[g].n; ++i) {
      const int len = side_groups[g].len;
      side_piece(g, i, &local_at, &remote_at);
      MPI_Get(dst + local_at, len, MPI_BYTE, peer, (MPI_Aint)remote_at, len, MPI_BYTE, win);
    }
  close_epoch(mode, win, peer);

  for (int g = 0; g < SIDE_GROUPS; ++g)
    for (int i = 0; i < side_groups[g].n; ++i) {
      side_piece(g, i, &local_at, &remote_at);
      CHECK(memcmp(dst + local_at, src + local_at, (size_t)side_groups[g].len) == 0,
            "%s side by side: group %d's piece %d read back from rank %d differs", sync_name[mode], g, i,
            peer);
    }

  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
  for (int g = 0; g < SIDE_GROUPS; ++g) {
    const struct side_group *sg = &side_groups[g];
    int bad = -1, bad_piece = -1;
    for (int i = 0; i < sg->n && bad < 0; ++i) {
      side_piece(g, i, &local_at, &remote_at);
      for (int k = 0; k < sg->len + sg->gap && bad < 0; ++k) {
        const unsigned char want = k < sg->len ? pattern(prev, tag, local_at + (size_t)k) : FILL;
        if (mine[remote_at + (size_t)k] != want) bad = k, bad_piece = i;
      }
    }
    CHECK(bad < 0, "%s side by side: group %d's piece %d from rank %d differs here at byte %d",
          sync_name[mode], g, bad_piece, prev, bad);
  }
  MPI_Win_unlock(rank, win);
  free(src);
  free(dst);
}

/* Small puts side by side after the regions, which join one offer that the computing target never
 * takes (rma_batch.grown counts them), taken back at the flush. */
#define TINY_N 50
#define TINY_LEN 64
#define TAIL_BYTES (TINY_N * TINY_LEN)

/* Rank 1 against rank 0, which computes without MPI calls until rank 1 raises its flag word. */
static void computing_target(MPI_Win win, unsigned char *mine) {
  const size_t tail_at = region_at(NSIZES), total = tail_at + TAIL_BYTES;
  const int flag_at = SMALL_AT + 32;
  memset(mine, FILL, total);
  memset(mine + flag_at, 0, sizeof(long long));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    const int timed_out = !compute_until_flag((const long long *)(mine + flag_at), TIMEOUT_S);
    CHECK(!timed_out, "rank 1's large puts and gets waited for rank 0's MPI calls (%.0f s)", TIMEOUT_S);
    MPI_Barrier(MPI_COMM_WORLD);
    if (timed_out) return;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    for (int k = 0; k < NSIZES; ++k) {
      const size_t at = region_at(k);
      int bad = -1;
      for (int i = 0; i < sizes[k] && bad < 0; ++i)
        if (mine[at + (size_t)i] != pattern(1, 99, at + (size_t)i)) bad = i;
      CHECK(bad < 0, "computing target: rank 1's %d-byte put differs at byte %d", sizes[k], bad);
    }
    int bad = -1;
    for (int i = 0; i < TAIL_BYTES && bad < 0; ++i)
      if (mine[tail_at + (size_t)i] != pattern(1, 99, tail_at + (size_t)i)) bad = i;
    CHECK(bad < 0, "computing target: rank 1's %d puts of %d bytes side by side differ at byte %d", TINY_N,
          TINY_LEN, bad);
    MPI_Win_unlock(0, win);
    return;
  }
  if (rank == 1) {
    unsigned char *src = malloc(total), *dst = malloc(total);
    for (size_t i = 0; i < total; ++i) src[i] = pattern(1, 99, i);
    memset(dst, 0, total);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    for (int i = 0; i < TINY_N; ++i) {
      const size_t at = tail_at + (size_t)i * TINY_LEN;
      MPI_Put(src + at, TINY_LEN, MPI_BYTE, 0, (MPI_Aint)at, TINY_LEN, MPI_BYTE, win);
    }
    MPI_Win_flush(0, win);
    for (int k = NSIZES - 1; k >= 0; --k)
      MPI_Put(src + region_at(k), sizes[k], MPI_BYTE, 0, (MPI_Aint)region_at(k), sizes[k], MPI_BYTE, win);
    MPI_Win_flush(0, win);
    for (int k = 0; k < NSIZES; ++k)
      MPI_Get(dst + region_at(k), sizes[k], MPI_BYTE, 0, (MPI_Aint)region_at(k), sizes[k], MPI_BYTE, win);
    MPI_Win_flush(0, win);
    for (int k = 0; k < NSIZES; ++k) {
      const size_t at = region_at(k);
      CHECK(memcmp(dst + at, src + at, (size_t)sizes[k]) == 0,
            "computing target: %d bytes read back from rank 0 differ", sizes[k]);
    }
    const long long up = 1;
    MPI_Accumulate(&up, 1, MPI_LONG_LONG, 0, flag_at, 1, MPI_LONG_LONG, MPI_REPLACE, win);
    MPI_Win_unlock(0, win);
    free(src);
    free(dst);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Between the 4 KiB pieces' limit (16 KiB) and the shared copies' start, a batch goes in offers of a
 * whole 16 KiB slot: 3 for each of these (12 in pieces of 4 KiB). A batch of SHARE_BYTES is shared. */
#define PATH_BYTES (48 << 10)
#define SHARE_BYTES (256 << 10)

static void one_path_each(MPI_Win win, unsigned char *mine) {
  memset(mine, FILL, SHARE_BYTES);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    unsigned char *src = malloc(SHARE_BYTES), *dst = malloc(PATH_BYTES);
    for (size_t i = 0; i < SHARE_BYTES; ++i) src[i] = pattern(0, 5, i);
    memset(dst, 0, PATH_BYTES);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(src, PATH_BYTES, MPI_BYTE, 1, 0, PATH_BYTES, MPI_BYTE, win);
    MPI_Win_flush(1, win);
    MPI_Get(dst, PATH_BYTES, MPI_BYTE, 1, 0, PATH_BYTES, MPI_BYTE, win);
    MPI_Win_flush(1, win);
    CHECK(memcmp(dst, src, PATH_BYTES) == 0, "paths: %d bytes read back from rank 1 differ", PATH_BYTES);
    MPI_Put(src, SHARE_BYTES, MPI_BYTE, 1, 0, SHARE_BYTES, MPI_BYTE, win);
    MPI_Win_unlock(1, win);
    free(src);
    free(dst);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    int bad = -1;
    for (size_t i = 0; i < SHARE_BYTES && bad < 0; ++i)
      if (mine[i] != pattern(0, 5, i)) bad = (int)i;
    CHECK(bad < 0, "paths: rank 0's %d-byte put differs at byte %d", SHARE_BYTES, bad);
    MPI_Win_unlock(1, win);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2 && size <= 4, "needs 2 to 4 ranks, has %d", size);
  if (size < 2 || size > 4) return finish("rma_batch");
  const size_t bytes = region_at(NSIZES) + TAIL_BYTES;
  unsigned char *mine = malloc(bytes); /* heap memory: reached by cross-memory attach, not mapped */
  MPI_Win win;
  MPI_Win_create(mine, (MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Group world, from, to;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  const int prev = (rank + size - 1) % size, next = (rank + 1) % size;
  MPI_Group_incl(world, 1, &prev, &from);
  MPI_Group_incl(world, 1, &next, &to);
  if (argc > 1 && strcmp(argv[1], "paths") == 0) {
    CHECK(size == 2, "paths: needs 2 ranks, has %d", size);
    if (size == 2) one_path_each(win, mine);
  } else {
    for (int mode = 0; mode < SYNCS; ++mode)
      for (int round = 0; round < 2; ++round) one_round(mode, round, win, mine, bytes, from, to);
    for (int mode = 0; mode < SYNCS; ++mode) side_by_side(mode, win, mine, bytes, from, to);
    for (int round = 0; round < 2; ++round) one_by_one(round, win, mine, bytes);
    if (argc > 1 && strcmp(argv[1], "computing") == 0) computing_target(win, mine);
  }
  MPI_Win_free(&win);
  MPI_Group_free(&from);
  MPI_Group_free(&to);
  MPI_Group_free(&world);
  free(mine);
  return finish("rma_batch");
}
