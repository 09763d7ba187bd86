/*
 * One-sided communication (RMA) between rank 0 and rank 1, OSU 7.4 compatible: one source for OSU's
 * osu_put_latency, osu_get_latency, osu_put_bw, osu_get_bw, osu_put_bibw, osu_acc_latency,
 * osu_fop_latency, osu_cas_latency and osu_get_acc_latency. The program is picked at build time with
 * -DBENCH_RMA=RMA_PUT_LATENCY (RMA_GET_LATENCY, RMA_PUT_BW, ...; see the table below); built without
 * it, the program's own name (osu_put_latency or put_latency, ...) picks the entry.
 *
 * Options as OSU's: -w/--win-options create|allocate|dynamic (MPI_Win_create of page-aligned memory,
 * MPI_Win_allocate, MPI_Win_create_dynamic + MPI_Win_attach with the address sent over), and
 * -s/--sync-option lock|flush|flush_local|lock_all|fence|pscw (osu_put_bibw: pscw|fence only), plus
 * common.h's -m, -i, -x, -W (bandwidth), -c, --precision, --iterations-large, --warmup-large.
 *
 * What is timed, as in OSU 7.4 (c/mpi/one-sided/ and c/util/osu_util_mpi.c) for every size: a new
 * window (the size, size x the window of 64 for the bandwidth programs, and 4 MiB or -m's maximum
 * for the one-element osu_fop_latency and osu_cas_latency), then
 *  - flush / flush_local (default of all but put_bibw and get_acc_latency): rank 0 locks rank 1 once
 *    (MPI_LOCK_SHARED; get_acc_latency MPI_LOCK_EXCLUSIVE), each iteration issues the operation (the
 *    bandwidth programs: 64, at consecutive offsets) and MPI_Win_flush(_local), unlocks after the
 *    clock stops. Rank 1 is not involved: it sits in the MPI_Barrier that ends the size.
 *  - lock: MPI_Win_lock + operation(s) + MPI_Win_unlock every iteration (SHARED; fop, cas and
 *    get_acc: EXCLUSIVE; the default of get_acc_latency, whose default window is MPI_Win_create).
 *  - lock_all: MPI_Win_lock_all + operation(s) + MPI_Win_unlock_all every iteration.
 *  - fence: the latency programs ping-pong (rank 0: fence, op, fence, fence; rank 1: fence, fence, op,
 *    fence) and report half an iteration; the bandwidth ones: rank 0 fence, 64 ops, fence; rank 1
 *    fence, fence; put_bibw: both fence, 64 puts, fence.
 *  - pscw: the latency programs: rank 0 start, op, complete, post, wait; rank 1 post, wait, start, op,
 *    complete; half an iteration is reported; the bandwidth ones: rank 0 start, 64 ops, complete;
 *    rank 1 post, wait; put_bibw (its default): both post, start, 64 puts, complete, wait.
 * The clock starts at iteration -x (after MPI_Win_start under pscw) and is rank 0's, which, as in OSU,
 * also reads MPI_Wtime before and after every timed iteration (OSU's per-iteration times for its
 * graphs and tail latencies: two calls inside the timed loop that OSU's figures include, so ours do
 * too). The operations move MPI_CHAR (acc/get_acc/fop: MPI_SUM). Latency = time / iterations (fence,
 * pscw: / 2); bandwidth = size * iterations * 64 / time (put_bibw: twice that), in MB/s. Counts: 10000
 * iterations + 100 warm-up, 1000 + 10 above 8 KiB (bandwidth: 100 + 10, 20 + 2); one OSU quirk is kept:
 * osu_acc_latency -s lock warms up with the large iteration count (1000) above 8 KiB. Buffers as OSU:
 * origin buffers of 'a', created windows of 'a' (fop/cas: 'b', get_acc: zeros), MPI_Win_allocate's
 * memory untouched; the origin and target buffers are allocated anew for every size (get_acc_latency:
 * once, at the largest size, as OSU).
 *
 * Output: OSU's lines ("# Window creation: ...", "# Synchronization: ...", "# Datatype: MPI_CHAR.",
 * "# Size" with "Latency (us)" or "Bandwidth (MB/s)"); fop and cas print one row of size 1. The value
 * column is common.h's 18 wide (OSU 7.4 prints 20; the columns are whitespace-separated either way).
 *
 * -c (not in OSU for most of these; OSU's own atomic validation is not this): the data that each
 * operation moves is checked, not just the timing loop run. Every iteration puts, accumulates or
 * swaps data of its own (seeded by size, iteration, slot and sender), and the window starts with a
 * pattern of its own; every rank keeps a model of what its window must hold and of what a fetch
 * from the peer's window must return. Then:
 *  - get, fop, cas, get_acc: after the synchronisation that completes the operation at the origin
 *    (flush, flush_local, unlock, unlock_all, fence, complete) the origin compares every fetched byte
 *    with the model (get: the whole 64-slot window for the bandwidth programs; cas alternates a
 *    matching and a non-matching compare value, so both outcomes are checked);
 *  - put and acc: after every iteration the target compares its whole window with the model. With
 *    passive synchronisation rank 0 then (after MPI_Win_flush if it only flushed locally) tells rank 1
 *    with a message, rank 1 checks inside MPI_Win_lock(SHARED, itself) + MPI_Win_sync and answers;
 *    with fence and pscw each rank checks after the fence or MPI_Win_wait that ends the peer's epoch;
 *  - after every size each target compares its whole window with the model (locked, synced).
 * acc, get_acc and fop add 1..32 to every byte on even iterations and take it back on odd ones, so no
 * sum leaves 0..95 and none depends on how MPI_SUM over MPI_CHAR overflows (see add_data).
 * Rank 1 therefore takes part in the loop under -c; the times printed with -c are not OSU's.
 */
#include "common.h"

enum rma_op { OP_PUT, OP_GET, OP_ACC, OP_FOP, OP_CAS, OP_GET_ACC };
/* LAT: one operation of `size` bytes per iteration; BW: a window of operations at consecutive
 * offsets, one direction; BIBW: that both ways; ATOMIC: one element (size 1), 4 MiB window. */
enum rma_shape { SHAPE_LAT, SHAPE_BW, SHAPE_BIBW, SHAPE_ATOMIC };
/* OSU's enums, in OSU's order (osu_util.h enum WINDOW and enum SYNC). */
enum rma_win { WIN_CREATE, WIN_ALLOCATE, WIN_DYNAMIC };
enum rma_sync { SYNC_LOCK, SYNC_PSCW, SYNC_FENCE, SYNC_FLUSH, SYNC_FLUSH_LOCAL, SYNC_LOCK_ALL };

static const char *const win_names[] = {"create", "allocate", "dynamic"};
static const char *const win_calls[] = {"MPI_Win_create", "MPI_Win_allocate", "MPI_Win_create_dynamic"};
static const char *const sync_names[] = {"lock", "pscw", "fence", "flush", "flush_local", "lock_all"};
static const char *const sync_calls[] = {"MPI_Win_lock/unlock", "MPI_Win_post/start/complete/wait",
                                         "MPI_Win_fence",       "MPI_Win_flush",
                                         "MPI_Win_flush_local", "MPI_Win_lock_all/unlock_all"};
#define SYNCS_ALL 0x3fu
#define SYNCS_ACTIVE ((1u << SYNC_PSCW) | (1u << SYNC_FENCE))

/* The programs. lock_excl: -s lock takes MPI_LOCK_EXCLUSIVE; epoch_excl: the one lock of -s flush
 * and flush_local is exclusive. fill: the byte created windows start with. */
enum {
  RMA_PUT_LATENCY,
  RMA_GET_LATENCY,
  RMA_PUT_BW,
  RMA_GET_BW,
  RMA_PUT_BIBW,
  RMA_ACC_LATENCY,
  RMA_FOP_LATENCY,
  RMA_CAS_LATENCY,
  RMA_GET_ACC_LATENCY,
  RMA_NBENCH
};
static const struct rma_bench {
  const char *name, *title;
  enum rma_op op;
  enum rma_shape shape;
  enum rma_win win;
  enum rma_sync sync;
  unsigned syncs;
  int lock_excl, epoch_excl;
  unsigned char win_fill;
} rma_benches[RMA_NBENCH] = {
    {"osu_put_latency", "Pamir MPI_Put Latency Test", OP_PUT, SHAPE_LAT, WIN_ALLOCATE, SYNC_FLUSH, SYNCS_ALL,
     0, 0, 'a'},
    {"osu_get_latency", "Pamir MPI_Get latency Test", OP_GET, SHAPE_LAT, WIN_ALLOCATE, SYNC_FLUSH, SYNCS_ALL,
     0, 0, 'a'},
    {"osu_put_bw", "Pamir MPI_Put Bandwidth Test", OP_PUT, SHAPE_BW, WIN_ALLOCATE, SYNC_FLUSH, SYNCS_ALL, 0,
     0, 'a'},
    {"osu_get_bw", "Pamir MPI_Get Bandwidth Test", OP_GET, SHAPE_BW, WIN_ALLOCATE, SYNC_FLUSH, SYNCS_ALL, 0,
     0, 'a'},
    {"osu_put_bibw", "Pamir MPI_Put Bi-directional Bandwidth Test", OP_PUT, SHAPE_BIBW, WIN_ALLOCATE,
     SYNC_PSCW, SYNCS_ACTIVE, 0, 0, 'a'},
    {"osu_acc_latency", "Pamir MPI_Accumulate latency Test", OP_ACC, SHAPE_LAT, WIN_ALLOCATE, SYNC_FLUSH,
     SYNCS_ALL, 0, 0, 'a'},
    {"osu_fop_latency", "Pamir MPI_Fetch_and_op latency Test", OP_FOP, SHAPE_ATOMIC, WIN_ALLOCATE, SYNC_FLUSH,
     SYNCS_ALL, 1, 0, 'b'},
    {"osu_cas_latency", "Pamir MPI_Compare_and_swap latency Test", OP_CAS, SHAPE_ATOMIC, WIN_ALLOCATE,
     SYNC_FLUSH, SYNCS_ALL, 1, 0, 'b'},
    {"osu_get_acc_latency", "Pamir MPI_Get_accumulate latency Test", OP_GET_ACC, SHAPE_LAT, WIN_CREATE,
     SYNC_LOCK, SYNCS_ALL, 1, 1, 0},
};

#ifdef BENCH_RMA
/* A constant entry: the compiler folds the operation and shape out of the timed loops. */
#define B (&rma_benches[BENCH_RMA])
#else
static const struct rma_bench *B;
#endif

#define TAG_DONE 997 /* -c: "iteration done" to the target; its answer */
#define TAG_CHECKED 996
#define ITER_INIT (-1L) /* the seed "iteration" of a window's initial pattern */

static int fetching(void) {
  return B->op == OP_GET || B->op == OP_FOP || B->op == OP_CAS || B->op == OP_GET_ACC;
}

/* Everything one size needs. */
struct rma_run {
  int rank, peer;
  enum rma_win win_kind;
  enum rma_sync sync;
  int validate;
  size_t size;      /* bytes per operation */
  int nops;         /* operations per iteration (1, or the -W window) */
  size_t win_bytes; /* window size */
  MPI_Aint disp;    /* target displacement of the window's start (dynamic: an address) */
  MPI_Win win;
  unsigned char *wbase;   /* this rank's window memory */
  unsigned char *own_mem; /* window memory we allocated (create, dynamic), else NULL */
  unsigned char *sbuf;    /* origin: put/acc source, get destination, fop/cas/get_acc operand */
  unsigned char *tbuf;    /* fop, cas, get_acc: the fetched result */
  unsigned char *cbuf;    /* cas: the compare value */
  /* -c */
  unsigned char *own_model;  /* what this rank's window must hold */
  unsigned char *peer_model; /* what the peer's window holds as far as our operations go */
  unsigned char *scratch;
  long own_applied; /* iterations of the peer's operations applied to own_model */
  long errors;
};

static void fail_alloc(int rank, size_t bytes) {
  fprintf(stderr, "rank %d: cannot allocate %zu bytes\n", rank, bytes);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Page-aligned memory filled with `byte` (touched, as OSU's memset does). */
static unsigned char *alloc_fill(int rank, size_t bytes, int byte) {
  unsigned char *p = bench_alloc(bytes);
  if (p == NULL) fail_alloc(rank, bytes);
  memset(p, byte, bytes ? bytes : 1);
  return p;
}

/* ---- -c: the data of every iteration and the models --------------------------------------- */

/* Whether the operation adds (MPI_SUM). */
static int adding(void) {
  return B->op == OP_ACC || B->op == OP_GET_ACC || B->op == OP_FOP;
}

/* A window's initial pattern; 0..63 in every byte for the adding operations. */
static void window_pattern(unsigned char *buf, const struct rma_run *r, int owner) {
  size_t k;
  bench_fill(buf, r->win_bytes, bench_seed(r->size, ITER_INIT, 0, owner));
  if (adding())
    for (k = 0; k < r->win_bytes; k++) buf[k] &= 63;
}

/* Slot j of iteration i's data from `sender` (put, acc, get_acc). */
static uint32_t data_seed(const struct rma_run *r, long i, int j, int sender) {
  return bench_seed(r->size, i, j, sender);
}

/* What acc, get_acc and fop add in iteration i: 1..32 to each byte on even iterations, the same
 * taken back on odd ones, so that a window byte stays within 0..95: MPI_SUM over MPI_CHAR (OSU's
 * type, though the standard defines MPI_SUM for MPI_SIGNED_CHAR, not MPI_CHAR) never overflows,
 * and no answer depends on how an implementation handles that (Open MPI 4.1.4's vectorised sum of
 * 16 bytes and more saturates at 127). Every operation changes every byte it reaches. */
static void add_data(unsigned char *buf, size_t n, const struct rma_run *r, long i, int sender) {
  size_t k;
  bench_fill(buf, n, data_seed(r, i & ~1L, 0, sender));
  for (k = 0; k < n; k++) {
    const unsigned char d = (unsigned char)(1 + (buf[k] & 31));
    buf[k] = (i & 1) ? (unsigned char)(256 - d) : d;
  }
}

/* fop's operand and cas's new value of iteration i. */
static unsigned char atomic_operand(const struct rma_run *r, long i, int sender) {
  unsigned char v = (unsigned char)(bench_seed(r->size, i, 0, sender) >> 8);
  if (B->op == OP_FOP) add_data(&v, 1, r, i, sender);
  return v;
}

/* cas's compare value of iteration i, given the target's current value: the current value on even
 * iterations (the swap happens), another one on odd ones (it must not). */
static unsigned char cas_compare(long i, unsigned char current) {
  return (i & 1) ? (unsigned char)(current ^ 0x5a) : current;
}

/* The effect of `sender`'s operations of iteration i on a model of the target window. MPI_SUM on
 * MPI_CHAR adds bytes modulo 256. */
static void model_apply(unsigned char *model, struct rma_run *r, long i, int sender) {
  int j;
  size_t k;
  switch (B->op) {
    case OP_PUT:
      for (j = 0; j < r->nops; j++)
        bench_fill(model + (size_t)j * r->size, r->size, data_seed(r, i, j, sender));
      break;
    case OP_GET:
      break;
    case OP_ACC:
    case OP_GET_ACC:
      add_data(r->scratch, r->size, r, i, sender);
      for (k = 0; k < r->size; k++) model[k] = (unsigned char)(model[k] + r->scratch[k]);
      break;
    case OP_FOP:
      model[0] = (unsigned char)(model[0] + atomic_operand(r, i, sender));
      break;
    case OP_CAS:
      if (cas_compare(i, model[0]) == model[0]) model[0] = atomic_operand(r, i, sender);
      break;
  }
}

/* Origin, before the operation(s) of iteration i: the data to send, and junk where results land. */
static void origin_prepare(struct rma_run *r, long i) {
  int j;
  switch (B->op) {
    case OP_PUT:
      for (j = 0; j < r->nops; j++)
        bench_fill(r->sbuf + (size_t)j * r->size, r->size, data_seed(r, i, j, r->rank));
      break;
    case OP_GET:
      bench_fill(r->sbuf, r->size * (size_t)r->nops, bench_seed(r->size, i, 1000, r->rank));
      break;
    case OP_ACC:
      add_data(r->sbuf, r->size, r, i, r->rank);
      break;
    case OP_GET_ACC:
      add_data(r->sbuf, r->size, r, i, r->rank);
      bench_fill(r->tbuf, r->size, bench_seed(r->size, i, 1000, r->rank));
      break;
    case OP_FOP:
    case OP_CAS:
      r->sbuf[0] = atomic_operand(r, i, r->rank);
      if (B->op == OP_CAS) r->cbuf[0] = cas_compare(i, r->peer_model[0]);
      r->tbuf[0] = (unsigned char)~r->peer_model[0];
      break;
  }
}

/* Origin, once its operation(s) of iteration i are complete locally: the fetched bytes against the
 * model of the peer's window, which then takes the operation's effect. */
static void origin_check(struct rma_run *r, long i) {
  const size_t n = r->size * (size_t)r->nops;
  int bad = 0;
  switch (B->op) {
    case OP_GET:
      bad = bench_diff(r->sbuf, r->peer_model, n) != 0;
      break;
    case OP_GET_ACC:
      bad = bench_diff(r->tbuf, r->peer_model, r->size) != 0;
      break;
    case OP_FOP:
    case OP_CAS:
      bad = r->tbuf[0] != r->peer_model[0];
      break;
    default:
      return;
  }
  if (bad) r->errors++;
  model_apply(r->peer_model, r, i, r->rank);
}

/* Target: the whole window against the model after the peer's operations of iterations < upto. */
static void target_check(struct rma_run *r, long upto) {
  while (r->own_applied < upto) model_apply(r->own_model, r, r->own_applied++, r->peer);
  if (bench_diff(r->wbase, r->own_model, r->win_bytes) != 0) r->errors++;
}

/* Passive target, -c: rank 0 says iteration i is complete at the target; rank 1 checks its window
 * under a shared lock on itself (compatible with rank 0's shared lock) and answers. Only for put and
 * acc: the fetching operations are checked by the origin (get_acc's flush epoch is exclusive). */
static void passive_handshake_origin(struct rma_run *r, long i) {
  char token = 0;
  if (fetching()) return;
  if (r->sync == SYNC_FLUSH_LOCAL) MPI_Win_flush(r->peer, r->win); /* remote completion */
  MPI_Send(&i, 1, MPI_LONG, r->peer, TAG_DONE, MPI_COMM_WORLD);
  MPI_Recv(&token, 1, MPI_CHAR, r->peer, TAG_CHECKED, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void passive_handshake_target(struct rma_run *r, long total) {
  long i, got;
  char token = 0;
  if (fetching()) return;
  for (i = 0; i < total; i++) {
    MPI_Recv(&got, 1, MPI_LONG, r->peer, TAG_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (got != i) r->errors++;
    MPI_Win_lock(MPI_LOCK_SHARED, r->rank, 0, r->win);
    MPI_Win_sync(r->win);
    target_check(r, i + 1);
    MPI_Win_unlock(r->rank, r->win);
    MPI_Send(&token, 1, MPI_CHAR, r->peer, TAG_CHECKED, MPI_COMM_WORLD);
  }
}

/* ---- windows --------------------------------------------------------------------------------- */

static void window_open(struct rma_run *r) {
  const size_t bytes = r->win_bytes;
  const int byte = B->win_fill;
  r->own_mem = NULL;
  r->disp = 0;
  switch (r->win_kind) {
    case WIN_CREATE:
      r->own_mem = alloc_fill(r->rank, bytes, byte);
      if (r->validate) window_pattern(r->own_mem, r, r->rank);
      MPI_Win_create(r->own_mem, (MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &r->win);
      r->wbase = r->own_mem;
      break;
    case WIN_ALLOCATE:
      MPI_Win_allocate((MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &r->wbase, &r->win);
      if (r->validate) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, r->rank, 0, r->win);
        window_pattern(r->wbase, r, r->rank);
        MPI_Win_unlock(r->rank, r->win);
      }
      break;
    case WIN_DYNAMIC: {
      MPI_Aint mine = 0, theirs = 0;
      r->own_mem = alloc_fill(r->rank, bytes, byte);
      if (r->validate) window_pattern(r->own_mem, r, r->rank);
      MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &r->win);
      MPI_Win_attach(r->win, r->own_mem, (MPI_Aint)(bytes ? bytes : 1));
      MPI_Get_address(r->own_mem, &mine);
      MPI_Sendrecv(&mine, 1, MPI_AINT, r->peer, 1, &theirs, 1, MPI_AINT, r->peer, 1, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
      r->disp = theirs;
      r->wbase = r->own_mem;
      break;
    }
  }
  if (r->validate) MPI_Barrier(MPI_COMM_WORLD); /* both windows hold their pattern */
}

static void window_close(struct rma_run *r) {
  if (r->win_kind == WIN_DYNAMIC) MPI_Win_detach(r->win, r->own_mem);
  MPI_Win_free(&r->win);
  free(r->own_mem);
  r->own_mem = NULL;
}

/* ---- the operations ------------------------------------------------------------------------ */

/* One iteration's operation(s) toward `target`. */
static inline void issue(const struct rma_run *r, int target) {
  const int count = (int)r->size;
  int j;
  switch (B->op) {
    case OP_PUT:
      for (j = 0; j < r->nops; j++)
        MPI_Put(r->sbuf + (size_t)j * r->size, count, MPI_CHAR, target,
                r->disp + (MPI_Aint)((size_t)j * r->size), count, MPI_CHAR, r->win);
      break;
    case OP_GET:
      for (j = 0; j < r->nops; j++)
        MPI_Get(r->sbuf + (size_t)j * r->size, count, MPI_CHAR, target,
                r->disp + (MPI_Aint)((size_t)j * r->size), count, MPI_CHAR, r->win);
      break;
    case OP_ACC:
      MPI_Accumulate(r->sbuf, count, MPI_CHAR, target, r->disp, count, MPI_CHAR, MPI_SUM, r->win);
      break;
    case OP_FOP:
      MPI_Fetch_and_op(r->sbuf, r->tbuf, MPI_CHAR, target, r->disp, MPI_SUM, r->win);
      break;
    case OP_CAS:
      MPI_Compare_and_swap(r->sbuf, r->cbuf, r->tbuf, MPI_CHAR, target, r->disp, r->win);
      break;
    case OP_GET_ACC:
      MPI_Get_accumulate(r->sbuf, count, MPI_CHAR, r->tbuf, count, MPI_CHAR, target, r->disp, count, MPI_CHAR,
                         MPI_SUM, r->win);
      break;
  }
}

/* ---- the timed loops: each returns rank 0's seconds from iteration `skip` to the end ---------- */

/* OSU 7.4 also times each timed iteration on its own, on rank 0 (for its -G graphs and tail
 * latencies, though neither is asked for by default): an MPI_Wtime before the iteration's
 * operation(s) and one after its synchronisation, inside the timed loop. The same two calls are made
 * here, so that the figures compare with OSU's. */
static volatile double lap_sink;
#define LAP_BEGIN(i, skip) const double lap0 = (i) >= (skip) ? MPI_Wtime() : 0.0
#define LAP_END(i, skip)                              \
  do {                                                \
    if ((i) >= (skip)) lap_sink = MPI_Wtime() - lap0; \
  } while (0)

/* flush, flush_local, lock, lock_all: rank 0 alone; rank 1 goes straight to the closing barrier
 * (under -c it answers rank 0's notes first). */
static double run_passive(struct rma_run *r, long iters, long skip) {
  const int lock_type = B->lock_excl ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED;
  const int epoch_type = B->epoch_excl ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED;
  const int t = r->peer;
  double t_start = 0.0, t_end = 0.0;
  long i;
  if (r->rank != 0) {
    if (r->validate) passive_handshake_target(r, iters + skip);
    return 0.0;
  }
  switch (r->sync) {
    case SYNC_FLUSH:
    case SYNC_FLUSH_LOCAL:
      MPI_Win_lock(epoch_type, t, 0, r->win);
      for (i = 0; i < iters + skip; i++) {
        if (i == skip) t_start = MPI_Wtime();
        if (r->validate) origin_prepare(r, i);
        {
          LAP_BEGIN(i, skip);
          issue(r, t);
          if (r->sync == SYNC_FLUSH)
            MPI_Win_flush(t, r->win);
          else
            MPI_Win_flush_local(t, r->win);
          LAP_END(i, skip);
        }
        if (r->validate) {
          origin_check(r, i);
          passive_handshake_origin(r, i);
        }
      }
      t_end = MPI_Wtime();
      MPI_Win_unlock(t, r->win);
      break;
    case SYNC_LOCK:
      for (i = 0; i < iters + skip; i++) {
        if (i == skip) t_start = MPI_Wtime();
        if (r->validate) origin_prepare(r, i);
        {
          LAP_BEGIN(i, skip);
          MPI_Win_lock(lock_type, t, 0, r->win);
          issue(r, t);
          MPI_Win_unlock(t, r->win);
          LAP_END(i, skip);
        }
        if (r->validate) {
          origin_check(r, i);
          passive_handshake_origin(r, i);
        }
      }
      t_end = MPI_Wtime();
      break;
    default: /* SYNC_LOCK_ALL */
      for (i = 0; i < iters + skip; i++) {
        if (i == skip) t_start = MPI_Wtime();
        if (r->validate) origin_prepare(r, i);
        {
          LAP_BEGIN(i, skip);
          MPI_Win_lock_all(0, r->win);
          issue(r, t);
          MPI_Win_unlock_all(r->win);
          LAP_END(i, skip);
        }
        if (r->validate) {
          origin_check(r, i);
          passive_handshake_origin(r, i);
        }
      }
      t_end = MPI_Wtime();
      break;
  }
  return t_end - t_start;
}

/* fence. Latency-type: a ping-pong of epochs. Bandwidth: rank 0's window of operations per epoch
 * pair, rank 1 only fences. bibw: both put. */
static double run_fence(struct rma_run *r, long iters, long skip) {
  const int t = r->peer;
  double t_start = 0.0, t_end = 0.0;
  long i;
  MPI_Barrier(MPI_COMM_WORLD);
  if (B->shape == SHAPE_BIBW) {
    for (i = 0; i < iters + skip; i++) {
      const long lap_from = r->rank == 0 ? skip : iters + skip; /* rank 0 times */
      if (r->rank == 0 && i == skip) t_start = MPI_Wtime();
      if (r->validate) origin_prepare(r, i);
      {
        LAP_BEGIN(i, lap_from);
        MPI_Win_fence(0, r->win);
        issue(r, t);
        MPI_Win_fence(0, r->win);
        LAP_END(i, lap_from);
      }
      if (r->validate) target_check(r, i + 1);
    }
  } else if (B->shape == SHAPE_BW) {
    for (i = 0; i < iters + skip; i++) {
      if (r->rank == 0) {
        if (i == skip) t_start = MPI_Wtime();
        if (r->validate) origin_prepare(r, i);
        {
          LAP_BEGIN(i, skip);
          MPI_Win_fence(0, r->win);
          issue(r, t);
          MPI_Win_fence(0, r->win);
          LAP_END(i, skip);
        }
        if (r->validate) origin_check(r, i);
      } else {
        MPI_Win_fence(0, r->win);
        MPI_Win_fence(0, r->win);
        if (r->validate) target_check(r, i + 1);
      }
    }
  } else if (r->rank == 0) {
    for (i = 0; i < iters + skip; i++) {
      if (i == skip) t_start = MPI_Wtime();
      if (r->validate) origin_prepare(r, i);
      {
        LAP_BEGIN(i, skip);
        MPI_Win_fence(0, r->win);
        issue(r, t);
        MPI_Win_fence(0, r->win);
        if (r->validate) origin_check(r, i);
        MPI_Win_fence(0, r->win);
        LAP_END(i, skip);
      }
      if (r->validate) target_check(r, i + 1); /* rank 1's operation of this iteration */
    }
  } else {
    for (i = 0; i < iters + skip; i++) {
      MPI_Win_fence(0, r->win);
      MPI_Win_fence(0, r->win);
      if (r->validate) {
        target_check(r, i + 1); /* rank 0's operation of this iteration */
        origin_prepare(r, i);
      }
      issue(r, t);
      MPI_Win_fence(0, r->win);
      if (r->validate) origin_check(r, i);
    }
  }
  if (r->rank == 0) t_end = MPI_Wtime();
  return t_end - t_start;
}

/* post/start/complete/wait, each rank's group being the other rank. */
static double run_pscw(struct rma_run *r, long iters, long skip, MPI_Group peer_group) {
  const int t = r->peer;
  double t_start = 0.0, t_end = 0.0;
  long i;
  MPI_Barrier(MPI_COMM_WORLD);
  if (B->shape == SHAPE_BIBW) {
    for (i = 0; i < iters + skip; i++) {
      const long lap_from = r->rank == 0 ? skip : iters + skip; /* rank 0 times */
      if (r->rank == 0 && i == skip) t_start = MPI_Wtime();
      if (r->validate) origin_prepare(r, i);
      {
        LAP_BEGIN(i, lap_from);
        MPI_Win_post(peer_group, 0, r->win);
        MPI_Win_start(peer_group, 0, r->win);
        issue(r, t);
        MPI_Win_complete(r->win);
        MPI_Win_wait(r->win);
        LAP_END(i, lap_from);
      }
      if (r->validate) target_check(r, i + 1);
    }
  } else if (B->shape == SHAPE_BW) {
    for (i = 0; i < iters + skip; i++) {
      if (r->rank == 0) {
        if (r->validate) origin_prepare(r, i);
        MPI_Win_start(peer_group, 0, r->win);
        if (i == skip) t_start = MPI_Wtime();
        {
          LAP_BEGIN(i, skip);
          issue(r, t);
          MPI_Win_complete(r->win);
          LAP_END(i, skip);
        }
        if (r->validate) origin_check(r, i);
      } else {
        MPI_Win_post(peer_group, 0, r->win);
        MPI_Win_wait(r->win);
        if (r->validate) target_check(r, i + 1);
      }
    }
  } else if (r->rank == 0) {
    for (i = 0; i < iters + skip; i++) {
      if (r->validate) origin_prepare(r, i);
      MPI_Win_start(peer_group, 0, r->win);
      if (i == skip) t_start = MPI_Wtime();
      {
        LAP_BEGIN(i, skip);
        issue(r, t);
        MPI_Win_complete(r->win);
        if (r->validate) origin_check(r, i);
        MPI_Win_post(peer_group, 0, r->win);
        MPI_Win_wait(r->win);
        LAP_END(i, skip);
      }
      if (r->validate) target_check(r, i + 1);
    }
  } else {
    for (i = 0; i < iters + skip; i++) {
      MPI_Win_post(peer_group, 0, r->win);
      MPI_Win_wait(r->win);
      if (r->validate) {
        target_check(r, i + 1);
        origin_prepare(r, i);
      }
      MPI_Win_start(peer_group, 0, r->win);
      issue(r, t);
      MPI_Win_complete(r->win);
      if (r->validate) origin_check(r, i);
    }
  }
  if (r->rank == 0) t_end = MPI_Wtime();
  return t_end - t_start;
}

/* ---- options and output ---------------------------------------------------------------------- */

static int parse_choice(const char *val, const char *const *names, int n) {
  int k;
  for (k = 0; k < n; k++)
    if (strcmp(val, names[k]) == 0) return k;
  return -1;
}

static const struct rma_bench *pick_by_name(const char *argv0) {
  const char *base = argv0 ? strrchr(argv0, '/') : NULL;
  int k;
  base = base ? base + 1 : (argv0 ? argv0 : "");
  for (k = 0; k < RMA_NBENCH; k++)
    if (strcmp(base, rma_benches[k].name) == 0 || strcmp(base, rma_benches[k].name + 4) == 0)
      return &rma_benches[k];
  return NULL;
}

int main(int argc, char **argv) {
  struct bench_options o;
  struct rma_run r;
  enum rma_win win_kind;
  enum rma_sync sync;
  int rank, nranks, rc, failed_any = 0, k, peer_rank;
  char usage[1024], *u = usage;
  MPI_Group world_group, peer_group = MPI_GROUP_NULL;
  size_t size;
  unsigned char *keep_win = NULL, *keep_s = NULL, *keep_t = NULL;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
#ifndef BENCH_RMA
  B = pick_by_name(argv[0]);
  if (B == NULL) {
    if (rank == 0) {
      fprintf(stderr, "%s: built without -DBENCH_RMA=...; name the program one of:", argv[0]);
      for (k = 0; k < RMA_NBENCH; k++) fprintf(stderr, " %s", rma_benches[k].name);
      fprintf(stderr, "\n");
    }
    MPI_Finalize();
    return 1;
  }
#else
  (void)pick_by_name;
#endif

  /* -h's lines about -w and -s, with this program's defaults and choices */
  u += snprintf(u, sizeof usage,
                "  -w, --win-options WIN         window creation: create, allocate or dynamic\n"
                "                                (MPI_Win_create, MPI_Win_allocate, MPI_Win_create_dynamic;\n"
                "                                default %s)\n",
                win_names[B->win]);
  u += snprintf(u, sizeof usage - (size_t)(u - usage), "  -s, --sync-option SYNC        synchronization:");
  for (k = 0; k <= SYNC_LOCK_ALL; k++)
    if (B->syncs & (1u << k)) u += snprintf(u, sizeof usage - (size_t)(u - usage), " %s", sync_names[k]);
  snprintf(u, sizeof usage - (size_t)(u - usage), "\n                                (default %s)\n",
           sync_names[B->sync]);
  bench_usage_extra = usage;

  rc = bench_parse_options(argc, argv,
                           B->shape == SHAPE_BW || B->shape == SHAPE_BIBW ? BENCH_RMA_BW : BENCH_RMA_LAT,
                           rank, B->title, &o);
  if (rc != 0) {
    MPI_Finalize();
    return rc < 0 ? 1 : 0;
  }
  win_kind = B->win;
  sync = B->sync;
  if (o.rma_win) {
    k = parse_choice(o.rma_win, win_names, 3);
    if (k < 0) {
      if (rank == 0)
        fprintf(stderr, "%s: invalid window creation '%s' (create, allocate or dynamic)\n", argv[0],
                o.rma_win);
      MPI_Finalize();
      return 1;
    }
    win_kind = (enum rma_win)k;
  }
  if (o.rma_sync) {
    k = parse_choice(o.rma_sync, sync_names, SYNC_LOCK_ALL + 1);
    if (k < 0 || !(B->syncs & (1u << k))) {
      if (rank == 0)
        fprintf(stderr, "%s: invalid synchronization '%s' for this program (see -h)\n", argv[0], o.rma_sync);
      MPI_Finalize();
      return 1;
    }
    sync = (enum rma_sync)k;
  }
  if (nranks != 2) {
    if (rank == 0) fprintf(stderr, "This test requires exactly two processes\n");
    MPI_Finalize();
    return 1;
  }

  peer_rank = 1 - rank;
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  MPI_Group_incl(world_group, 1, &peer_rank, &peer_group);

  if (rank == 0) {
    printf("# %s %s\n", B->title, BENCH_VERSION);
    printf("# Window creation: %s\n", win_calls[win_kind]);
    printf("# Synchronization: %s\n", sync_calls[sync]);
    printf("# Datatype: MPI_CHAR.\n");
    printf("%-*s%*s", BENCH_SIZE_WIDTH, "# Size", BENCH_FIELD_WIDTH,
           B->shape == SHAPE_BW || B->shape == SHAPE_BIBW ? "Bandwidth (MB/s)" : "Latency (us)");
    if (o.validate) printf("%*s", BENCH_FIELD_WIDTH, "Validation");
    printf("\n");
    fflush(stdout);
  }

  /* get_acc_latency (OSU): origin buffers, and the created window's memory, once at the largest
   * size, zeroed. */
  if (B->op == OP_GET_ACC) {
    keep_s = alloc_fill(rank, o.max_size, 0);
    keep_t = alloc_fill(rank, o.max_size, 0);
    if (win_kind != WIN_ALLOCATE) keep_win = alloc_fill(rank, o.max_size, 0);
  }

  memset(&r, 0, sizeof r);
  r.rank = rank;
  r.peer = peer_rank;
  r.win_kind = win_kind;
  r.sync = sync;
  r.validate = o.validate;
  r.nops = B->shape == SHAPE_BW || B->shape == SHAPE_BIBW ? o.window : 1;

  for (size = B->shape == SHAPE_ATOMIC ? 1 : o.min_size; size <= o.max_size; size = bench_next_size(size)) {
    const int large = size > BENCH_LARGE_SIZE;
    long iters = large ? o.iterations_large : o.iterations;
    long skip = large ? o.skip_large : o.skip;
    double secs, value;
    long errors;

    if (size == 0 && B->shape != SHAPE_LAT) continue;
    /* OSU's osu_acc_latency -s lock sets the warm-up count to the large iteration count above 8 KiB */
    if (B->op == OP_ACC && sync == SYNC_LOCK && large) skip = o.iterations_large;
    r.size = size;
    r.win_bytes = B->shape == SHAPE_ATOMIC ? o.max_size : size * (size_t)r.nops;
    r.errors = 0;
    r.own_applied = 0;

    if (B->op == OP_GET_ACC) {
      r.sbuf = keep_s;
      r.tbuf = keep_t;
    } else {
      r.sbuf = alloc_fill(rank, B->shape == SHAPE_ATOMIC ? o.max_size : r.win_bytes, 'a');
      r.tbuf = B->shape == SHAPE_ATOMIC ? alloc_fill(rank, o.max_size, 'c') : NULL;
    }
    r.cbuf = B->op == OP_CAS ? alloc_fill(rank, o.max_size, 'a') : NULL;
    if (r.validate) {
      r.own_model = alloc_fill(rank, r.win_bytes, 0);
      r.peer_model = alloc_fill(rank, r.win_bytes, 0);
      r.scratch = alloc_fill(rank, size, 0);
      window_pattern(r.own_model, &r, rank);
      window_pattern(r.peer_model, &r, peer_rank);
    }
    if (B->op == OP_GET_ACC && win_kind != WIN_ALLOCATE) {
      /* OSU's get_acc window is its one zeroed buffer, created (or attached) anew for each size */
      r.win_kind = win_kind;
      r.own_mem = NULL;
      if (win_kind == WIN_CREATE) {
        if (r.validate) window_pattern(keep_win, &r, rank);
        MPI_Win_create(keep_win, (MPI_Aint)size, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &r.win);
        r.disp = 0;
      } else {
        MPI_Aint mine = 0, theirs = 0;
        if (r.validate) window_pattern(keep_win, &r, rank);
        MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &r.win);
        MPI_Win_attach(r.win, keep_win, (MPI_Aint)(size ? size : 1));
        MPI_Get_address(keep_win, &mine);
        MPI_Sendrecv(&mine, 1, MPI_AINT, peer_rank, 1, &theirs, 1, MPI_AINT, peer_rank, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        r.disp = theirs;
      }
      r.wbase = keep_win;
      if (r.validate) MPI_Barrier(MPI_COMM_WORLD);
    } else {
      window_open(&r);
    }

    switch (sync) {
      case SYNC_FENCE:
        secs = run_fence(&r, iters, skip);
        break;
      case SYNC_PSCW:
        secs = run_pscw(&r, iters, skip, peer_group);
        break;
      default:
        secs = run_passive(&r, iters, skip);
        break;
    }
    MPI_Barrier(MPI_COMM_WORLD);

    if (r.validate) {
      /* Every window, whole, after all of the peer's operations (passive: under a lock on itself,
       * rank 0's epochs being over). Rank 1 is always a target; rank 0 is one when both ranks
       * operate (the latency programs under fence and pscw, put_bibw); else its window must be as
       * it started. */
      const int active = sync == SYNC_FENCE || sync == SYNC_PSCW;
      const int target = rank == 1 || (active && B->shape != SHAPE_BW);
      if (!active) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, r.win);
        MPI_Win_sync(r.win);
      }
      if (target)
        target_check(&r, iters + skip);
      else if (bench_diff(r.wbase, r.own_model, r.win_bytes) != 0)
        r.errors++;
      if (!active) MPI_Win_unlock(rank, r.win);
    }

    if (B->op == OP_GET_ACC && win_kind != WIN_ALLOCATE) {
      if (win_kind == WIN_DYNAMIC) MPI_Win_detach(r.win, keep_win);
      MPI_Win_free(&r.win);
    } else {
      window_close(&r);
    }

    errors = 0;
    if (o.validate) {
      errors = (long)bench_sum2(rank, (double)r.errors);
      if (errors) failed_any = 1;
    }
    if (rank == 0) {
      if (B->shape == SHAPE_BW || B->shape == SHAPE_BIBW)
        value =
            (double)size / 1e6 * (double)iters * (double)r.nops / secs * (B->shape == SHAPE_BIBW ? 2.0 : 1.0);
      else
        value = secs * 1e6 / (double)iters / (sync == SYNC_FENCE || sync == SYNC_PSCW ? 2.0 : 1.0);
      bench_print_row(size, value, o.validate, errors != 0);
    }

    if (B->op != OP_GET_ACC) {
      free(r.sbuf);
      free(r.tbuf);
    }
    free(r.cbuf);
    free(r.own_model);
    free(r.peer_model);
    free(r.scratch);
    r.own_model = r.peer_model = r.scratch = NULL;
    if (B->shape == SHAPE_ATOMIC) break; /* one element, one row */
  }

  free(keep_s);
  free(keep_t);
  free(keep_win);
  MPI_Group_free(&peer_group);
  MPI_Group_free(&world_group);
  MPI_Finalize();
  return failed_any ? 1 : 0;
}
