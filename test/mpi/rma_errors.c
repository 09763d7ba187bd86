/* One-sided errors under MPI_ERRORS_RETURN (set on the window, MPI_COMM_WORLD and MPI_COMM_SELF), each
 * checked by its error class:
 *   MPI_ERR_RMA_SYNC: put/get/accumulate/fetch_and_op outside any epoch, MPI_Win_unlock without a lock,
 *     MPI_Win_unlock_all without lock_all, MPI_Win_complete without start, MPI_Win_wait and MPI_Win_test
 *     without post, every flush outside a passive epoch, a request-based operation in a fence epoch,
 *     MPI_Win_lock of a target already locked in this epoch, a fence inside a lock_all epoch;
 *   MPI_ERR_RMA_RANGE: target_disp + count beyond the target's window (MPI_Win_create, sizes differ by rank);
 *   MPI_ERR_WIN: MPI_WIN_NULL, and the handle of a freed window;
 *   MPI_ERR_RANK: a target rank of size, size + 1, -7 and MPI_ANY_SOURCE;
 *   MPI_ERR_TYPE: MPI_DATATYPE_NULL, an uncommitted type, a derived type in MPI_Fetch_and_op, MPI_DOUBLE in
 *     MPI_Compare_and_swap;
 *   MPI_ERR_COUNT: a negative origin or target count;
 *   MPI_ERR_OP: a user-defined op in MPI_Accumulate (only predefined ones are allowed), MPI_OP_NULL,
 *     MPI_BAND on doubles;
 *   MPI_ERR_DISP: a negative target_disp, a disp_unit of 0 at creation;
 *   MPI_ERR_SIZE: a negative size at creation (create, allocate, allocate_shared);
 *   MPI_ERR_LOCKTYPE, MPI_ERR_ASSERT, MPI_ERR_RMA_FLAVOR (attach to a non-dynamic window, shared_query of
 *     one), MPI_ERR_KEYVAL (setting MPI_WIN_BASE), MPI_ERR_ARG (a NULL window pointer), MPI_ERR_INFO
 *     (MPI_INFO_NULL to MPI_Win_set_info, as Pamir's MPI_Comm_set_info).
 * After the errors every window still works: a put and an accumulate in a fence epoch and in a lock epoch,
 * checked element by element.
 *
 * With the argument "fatal", the default MPI_ERRORS_ARE_FATAL: MPI_Put outside any epoch must end the job
 * with a message naming MPI_Put, MPI_ERR_RMA_SYNC and the reason (the driver checks stderr and the exit
 * code). Runs with 1 to 4 ranks.
 *
 * Passes on Pamir. MPICH 4.0.2 (Debian) passes the MPI_ERR_RMA_SYNC part and the fatal case, misses the
 * range, MPI_BAND on doubles (then hangs in the next fence), the request-based operation in a fence epoch
 * and the freed window, and answers MPI_ERR_ARG for the lock type, the assertion and MPI_INFO_NULL. Open MPI
 * 4.1.4 (osc/rdma) detects the range and the bad op but misses complete-without-start, the second lock and
 * the request in a fence epoch, and crashes on the freed window. */
#include <stdint.h>

#include "check.h"

static int rank, size;

static const char *class_name(int cls) {
  static const struct {
    int cls;
    const char *name;
  } names[] = {{MPI_SUCCESS, "MPI_SUCCESS"},
               {MPI_ERR_RMA_SYNC, "MPI_ERR_RMA_SYNC"},
               {MPI_ERR_RMA_RANGE, "MPI_ERR_RMA_RANGE"},
               {MPI_ERR_RMA_CONFLICT, "MPI_ERR_RMA_CONFLICT"},
               {MPI_ERR_RMA_FLAVOR, "MPI_ERR_RMA_FLAVOR"},
               {MPI_ERR_RMA_ATTACH, "MPI_ERR_RMA_ATTACH"},
               {MPI_ERR_RMA_SHARED, "MPI_ERR_RMA_SHARED"},
               {MPI_ERR_WIN, "MPI_ERR_WIN"},
               {MPI_ERR_RANK, "MPI_ERR_RANK"},
               {MPI_ERR_TYPE, "MPI_ERR_TYPE"},
               {MPI_ERR_COUNT, "MPI_ERR_COUNT"},
               {MPI_ERR_OP, "MPI_ERR_OP"},
               {MPI_ERR_DISP, "MPI_ERR_DISP"},
               {MPI_ERR_SIZE, "MPI_ERR_SIZE"},
               {MPI_ERR_ARG, "MPI_ERR_ARG"},
               {MPI_ERR_INFO, "MPI_ERR_INFO"},
               {MPI_ERR_LOCKTYPE, "MPI_ERR_LOCKTYPE"},
               {MPI_ERR_ASSERT, "MPI_ERR_ASSERT"},
               {MPI_ERR_KEYVAL, "MPI_ERR_KEYVAL"},
               {MPI_ERR_BASE, "MPI_ERR_BASE"},
               {MPI_ERR_OTHER, "MPI_ERR_OTHER"},
               {MPI_ERR_INTERN, "MPI_ERR_INTERN"},
               {MPI_ERR_REQUEST, "MPI_ERR_REQUEST"},
               {MPI_ERR_COMM, "MPI_ERR_COMM"},
               {MPI_ERR_BUFFER, "MPI_ERR_BUFFER"}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
    if (names[i].cls == cls) return names[i].name;
  return "another class";
}

/* The call returns an error of class CLS. */
#define EXPECT(CLS, CALL)                                                                                  \
  do {                                                                                                     \
    const int rc_ = (CALL);                                                                                \
    CHECK(err_class(rc_) == (CLS), "%s returned %s (%d), want %s", #CALL, class_name(err_class(rc_)), rc_, \
          #CLS);                                                                                           \
  } while (0)

/* A window of 16 ints per rank (MPI_Win_create, rank r exposes 16 + r ints), its memory zeroed. */
static MPI_Win make(int *mem, int n) {
  MPI_Win win;
  memset(mem, 0, sizeof(int) * (size_t)n);
  MPI_Win_create(mem, (MPI_Aint)(sizeof(int) * (size_t)n), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  return win;
}

/* The window still works: a put of 4 ints and an accumulate in a fence epoch, then the same in a lock
 * epoch, every element checked. */
static void still_works(MPI_Win win, int *mem, const char *after) {
  const int t = (rank + 1) % size, s = (rank + size - 1) % size;
  int src[4] = {rank * 10 + 1, rank * 10 + 2, rank * 10 + 3, rank * 10 + 4}, one[4] = {100, 100, 100, 100};
  memset(mem, 0, sizeof(int) * 16);
  MPI_Barrier(MPI_COMM_WORLD);
  int rc1 = MPI_Win_fence(0, win);
  int rc2 = MPI_Put(src, 4, MPI_INT, t, 2, 4, MPI_INT, win);
  int rc3 = MPI_Accumulate(one, 2, MPI_INT, t, 8, 2, MPI_INT, MPI_SUM, win);
  int rc4 = MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
  CHECK(rc1 == MPI_SUCCESS && rc2 == MPI_SUCCESS && rc3 == MPI_SUCCESS && rc4 == MPI_SUCCESS,
        "after %s: fence epoch rc %d %d %d %d", after, rc1, rc2, rc3, rc4);
  int bad = -1;
  for (int i = 0; i < 16 && bad < 0; ++i) {
    const int want = i >= 2 && i < 6 ? s * 10 + i - 1 : i >= 8 && i < 10 ? 100 : 0;
    if (mem[i] != want) bad = i;
  }
  CHECK(bad < 0, "after %s: fence epoch: element %d is %d", after, bad, bad < 0 ? 0 : mem[bad]);
  MPI_Barrier(MPI_COMM_WORLD);
  rc1 = MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win);
  rc2 = MPI_Accumulate(one, 4, MPI_INT, t, 2, 4, MPI_INT, MPI_SUM, win);
  int got[4] = {0};
  rc3 = MPI_Get_accumulate(NULL, 0, MPI_INT, got, 4, MPI_INT, t, 2, 4, MPI_INT, MPI_NO_OP, win);
  rc4 = MPI_Win_unlock(t, win);
  CHECK(rc1 == MPI_SUCCESS && rc2 == MPI_SUCCESS && rc3 == MPI_SUCCESS && rc4 == MPI_SUCCESS,
        "after %s: lock epoch rc %d %d %d %d", after, rc1, rc2, rc3, rc4);
  bad = -1;
  for (int i = 0; i < 4 && bad < 0; ++i)
    if (got[i] != src[i] + 100) bad = i;
  CHECK(bad < 0, "after %s: lock epoch read %d at %d", after, bad < 0 ? 0 : got[bad], bad);
  MPI_Barrier(MPI_COMM_WORLD);
}

static void sync_errors(void) {
  int mem[32], v[4] = {0}, r[4] = {0};
  MPI_Win win = make(mem, 16 + rank);
  const int t = (rank + 1) % size;
  /* No epoch at all. */
  EXPECT(MPI_ERR_RMA_SYNC, MPI_Put(v, 1, MPI_INT, t, 0, 1, MPI_INT, win));
  EXPECT(MPI_ERR_RMA_SYNC, MPI_Get(r, 1, MPI_INT, t, 0, 1, MPI_INT, win));
  EXPECT(MPI_ERR_RMA_SYNC, MPI_Accumulate(v, 1, MPI_INT, t, 0, 1, MPI_INT, MPI_SUM, win));
  EXPECT(MPI_ERR_RMA_SYNC, MPI_Fetch_and_op(v, r, MPI_INT, t, 0, MPI_SUM, win));
  EXPECT(MPI_ERR_RMA_SYNC, MPI_Win_unlock(t, win));
  EXPECT(MPI_ERR_RMA_SYNC, MPI_Win_unlock_all(win));
  EXPECT(MPI_ERR_RMA_SYNC, MPI_Win_complete(win));
  EXPECT(MPI_ERR_RMA_SYNC, MPI_Win_wait(win));
  int flag = -1;
  EXPECT(MPI_ERR_RMA_SYNC, MPI_Win_test(win, &flag));
  EXPECT(MPI_ERR_RMA_SYNC, MPI_Win_flush(t, win));
  EXPECT(MPI_ERR_RMA_SYNC, MPI_Win_flush_all(win));
  EXPECT(MPI_ERR_RMA_SYNC, MPI_Win_flush_local(t, win));
  EXPECT(MPI_ERR_RMA_SYNC, MPI_Win_flush_local_all(win));
  still_works(win, mem, "operations outside any epoch");
  /* A request-based operation in a fence epoch: only passive target allows them. */
  MPI_Request req = MPI_REQUEST_NULL;
  MPI_Win_fence(0, win);
  EXPECT(MPI_ERR_RMA_SYNC, MPI_Rput(v, 1, MPI_INT, t, 0, 1, MPI_INT, win, &req));
  MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
  if (req != MPI_REQUEST_NULL) MPI_Wait(&req, MPI_STATUS_IGNORE);
  /* A lock of a target this epoch has locked already (MPI_ERR_RMA_SYNC, as MPICH; not a conflict). */
  MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
  EXPECT(MPI_ERR_RMA_SYNC, MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
  MPI_Win_unlock(t, win);
  /* A fence inside a lock_all epoch. */
  MPI_Win_lock_all(0, win);
  EXPECT(MPI_ERR_RMA_SYNC, MPI_Win_fence(0, win));
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  still_works(win, mem, "epoch errors");
  MPI_Win_free(&win);
}

static void user_fn(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  for (int i = 0; i < *len; ++i) ((int *)inout)[i] += ((int *)in)[i];
}

static void argument_errors(void) {
  int mem[32], v[8] = {0}, r[8] = {0};
  MPI_Win win = make(mem, 16 + rank);
  const int t = (rank + 1) % size;
  MPI_Datatype vec, uncommitted;
  MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  MPI_Type_contiguous(2, MPI_INT, &uncommitted);
  MPI_Op user;
  MPI_Op_create(user_fn, 1, &user);
  double d = 1.0, dr = 0.0, dc = 0.0;

  MPI_Win_fence(0, win);
  /* Range: the target exposes 16 + t ints. */
  EXPECT(MPI_ERR_RMA_RANGE, MPI_Put(v, 2, MPI_INT, t, 16 + t - 1, 2, MPI_INT, win));
  EXPECT(MPI_ERR_RMA_RANGE, MPI_Get(r, 1, MPI_INT, t, 16 + t, 1, MPI_INT, win));
  EXPECT(MPI_ERR_RMA_RANGE, MPI_Accumulate(v, 8, MPI_INT, t, 10 + t, 8, MPI_INT, MPI_SUM, win));
  /* Ranks. */
  EXPECT(MPI_ERR_RANK, MPI_Put(v, 1, MPI_INT, size + 1, 0, 1, MPI_INT, win));
  EXPECT(MPI_ERR_RANK, MPI_Get(r, 1, MPI_INT, -7, 0, 1, MPI_INT, win)); /* no special value */
  EXPECT(MPI_ERR_RANK, MPI_Get(r, 1, MPI_INT, MPI_ANY_SOURCE, 0, 1, MPI_INT, win));
  EXPECT(MPI_ERR_RANK, MPI_Accumulate(v, 1, MPI_INT, size, 0, 1, MPI_INT, MPI_SUM, win));
  /* Types. */
  EXPECT(MPI_ERR_TYPE, MPI_Put(v, 1, MPI_DATATYPE_NULL, t, 0, 1, MPI_INT, win));
  EXPECT(MPI_ERR_TYPE, MPI_Get(r, 1, MPI_INT, t, 0, 1, MPI_DATATYPE_NULL, win));
  EXPECT(MPI_ERR_TYPE, MPI_Put(v, 1, uncommitted, t, 0, 2, MPI_INT, win));
  EXPECT(MPI_ERR_TYPE, MPI_Fetch_and_op(v, r, vec, t, 0, MPI_SUM, win));
  EXPECT(MPI_ERR_TYPE, MPI_Compare_and_swap(&d, &dc, &dr, MPI_DOUBLE, t, 0, win));
  /* Counts and displacements. */
  EXPECT(MPI_ERR_COUNT, MPI_Put(v, -1, MPI_INT, t, 0, 1, MPI_INT, win));
  EXPECT(MPI_ERR_COUNT, MPI_Get(r, 1, MPI_INT, t, 0, -2, MPI_INT, win));
  EXPECT(MPI_ERR_COUNT, MPI_Accumulate(v, -1, MPI_INT, t, 0, -1, MPI_INT, MPI_SUM, win));
  EXPECT(MPI_ERR_DISP, MPI_Put(v, 1, MPI_INT, t, -1, 1, MPI_INT, win));
  EXPECT(MPI_ERR_DISP, MPI_Accumulate(v, 1, MPI_INT, t, -4, 1, MPI_INT, MPI_SUM, win));
  /* Ops: predefined only, and one that applies to the type. */
  EXPECT(MPI_ERR_OP, MPI_Accumulate(v, 1, MPI_INT, t, 0, 1, MPI_INT, user, win));
  EXPECT(MPI_ERR_OP, MPI_Get_accumulate(v, 1, MPI_INT, r, 1, MPI_INT, t, 0, 1, MPI_INT, user, win));
  EXPECT(MPI_ERR_OP, MPI_Accumulate(v, 1, MPI_INT, t, 0, 1, MPI_INT, MPI_OP_NULL, win));
  EXPECT(MPI_ERR_OP, MPI_Accumulate(&d, 1, MPI_DOUBLE, t, 0, 1, MPI_DOUBLE, MPI_BAND, win));
  /* The lock type and the assertions. */
  MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
  EXPECT(MPI_ERR_LOCKTYPE, MPI_Win_lock(12345, t, 0, win));
  EXPECT(MPI_ERR_ASSERT, MPI_Win_fence(0x7f000000, win));
  still_works(win, mem, "argument errors");

  /* Flavours, keyvals, info. */
  void *p = NULL;
  MPI_Aint sz = -1;
  int du = -1;
  EXPECT(MPI_ERR_RMA_FLAVOR, MPI_Win_attach(win, r, sizeof r));
  EXPECT(MPI_ERR_RMA_FLAVOR, MPI_Win_shared_query(win, rank, &sz, &du, &p));
  EXPECT(MPI_ERR_KEYVAL, MPI_Win_set_attr(win, MPI_WIN_BASE, p));
  EXPECT(MPI_ERR_INFO, MPI_Win_set_info(win, MPI_INFO_NULL));
  still_works(win, mem, "flavour, keyval and info errors");
  MPI_Win_free(&win);
  MPI_Type_free(&vec);
  MPI_Type_free(&uncommitted);
  MPI_Op_free(&user);
}

static void window_errors(void) {
  int mem[32], v = 0;
  /* Creation: sizes, disp_units, the window pointer. */
  MPI_Win win = MPI_WIN_NULL;
  void *base = NULL;
  EXPECT(MPI_ERR_SIZE, MPI_Win_create(mem, -8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  EXPECT(MPI_ERR_SIZE, MPI_Win_allocate(-8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  EXPECT(MPI_ERR_SIZE, MPI_Win_allocate_shared(-8, 1, MPI_INFO_NULL, MPI_COMM_SELF, &base, &win));
  EXPECT(MPI_ERR_DISP, MPI_Win_create(mem, sizeof mem, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  EXPECT(MPI_ERR_ARG, MPI_Win_create(mem, sizeof mem, 1, MPI_INFO_NULL, MPI_COMM_WORLD, NULL));
  CHECK(win == MPI_WIN_NULL, "a failed creation set the window handle");
  /* MPI_WIN_NULL and a freed window. */
  EXPECT(MPI_ERR_WIN, MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_WIN_NULL));
  EXPECT(MPI_ERR_WIN, MPI_Win_fence(0, MPI_WIN_NULL));
  EXPECT(MPI_ERR_WIN, MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, MPI_WIN_NULL));
  EXPECT(MPI_ERR_WIN, MPI_Win_free(&win));
  MPI_Win w = make(mem, 16);
  MPI_Win copy = w;
  MPI_Win_free(&w);
  CHECK(w == MPI_WIN_NULL, "MPI_Win_free sets MPI_WIN_NULL");
  EXPECT(MPI_ERR_WIN, MPI_Win_fence(0, copy));
  EXPECT(MPI_ERR_WIN, MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, copy));

  /* What a window's info promises is held to (the standard makes breaking it erroneous; Pamir detects
   * these two, Open MPI and MPICH do not): no_locks=true refuses locks (MPI_ERR_RMA_SYNC), and
   * accumulate_ops=same_op a second operation (MPI_ERR_RMA_CONFLICT), MPI_NO_OP aside. */
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "no_locks", "true");
  MPI_Info_set(info, "accumulate_ops", "same_op");
  MPI_Win hinted;
  MPI_Win_create(mem, sizeof mem, sizeof(int), info, MPI_COMM_WORLD, &hinted);
  MPI_Info_free(&info);
  MPI_Win_set_errhandler(hinted, MPI_ERRORS_RETURN);
  EXPECT(MPI_ERR_RMA_SYNC, MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, hinted));
  EXPECT(MPI_ERR_RMA_SYNC, MPI_Win_lock_all(0, hinted));
  MPI_Win_fence(0, hinted);
  int r = 0;
  EXPECT(MPI_SUCCESS, MPI_Accumulate(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, hinted));
  EXPECT(MPI_SUCCESS, MPI_Fetch_and_op(NULL, &r, MPI_INT, 0, 0, MPI_NO_OP, hinted));
  EXPECT(MPI_ERR_RMA_CONFLICT, MPI_Accumulate(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_MAX, hinted));
  MPI_Win_fence(0, hinted);
  MPI_Win_free(&hinted);
}

/* The default handler: the job ends naming MPI_Put and MPI_ERR_RMA_SYNC. */
static int fatal(void) {
  int mem[4] = {0}, v = 1;
  MPI_Win win;
  MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Put(&v, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win);
  fprintf(stderr, "rank %d: MPI_Put outside any epoch returned under MPI_ERRORS_ARE_FATAL\n", rank);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc > 1 && strcmp(argv[1], "fatal") == 0) return fatal();
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  sync_errors();
  argument_errors();
  window_errors();
  return finish("rma_errors");
}
