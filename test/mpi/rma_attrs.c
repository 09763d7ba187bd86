/* Window objects: the predefined attributes (MPI_WIN_BASE, MPI_WIN_SIZE, MPI_WIN_DISP_UNIT,
 * MPI_WIN_CREATE_FLAVOR, MPI_WIN_MODEL) of every flavour; user keyvals with copy and delete callbacks
 * (delete on overwrite, on MPI_Win_delete_attr and on MPI_Win_free, even after MPI_Win_free_keyval; never a
 * copy); names (empty by default); MPI_Win_get_group against the communicator's group; the info hints
 * no_locks, accumulate_ordering, accumulate_ops, same_size, same_disp_unit by default, given at creation
 * and changed by MPI_Win_set_info; error handlers (MPI_ERRORS_ARE_FATAL by default, a user handler called
 * with the window and the code by MPI_Win_call_errhandler and by a failing MPI_Put), MPI_Win_toint and
 * MPI_Win_fromint (MPI 5.0). Runs with 1 to 4 ranks.
 *
 * Passed on MPICH 4.0.2 (Debian) at 1 rank; at 2-4 its MPI_WIN_BASE of an MPI_Win_allocate window is 8
 * bytes off the base it returned on some ranks. Open MPI 4.1.4 fails the info checks (MPI_Win_get_info
 * gives no_locks alone, or nothing) and, on osc/rdma windows, the default name ("rdma window 3"). Passes on
 * Pamir. */
#include <stdint.h>

#include "check.h"

static int rank, size;

/* ---- predefined attributes ---- */

static void predefined(void) {
  enum { CREATE, ALLOCATE, SHARED, DYNAMIC };
  const int flavours[] = {MPI_WIN_FLAVOR_CREATE, MPI_WIN_FLAVOR_ALLOCATE, MPI_WIN_FLAVOR_SHARED,
                          MPI_WIN_FLAVOR_DYNAMIC};
  const char *names[] = {"create", "allocate", "allocate_shared", "dynamic"};
  for (int f = 0; f < 4; ++f) {
    const MPI_Aint bytes = 1000 + 24 * (MPI_Aint)rank;
    const int du = f == DYNAMIC ? 1 : 4 + 4 * (rank % 2);
    void *base = NULL, *mem = NULL;
    MPI_Win win = MPI_WIN_NULL;
    if (f == CREATE) {
      mem = malloc((size_t)bytes);
      base = mem;
      MPI_Win_create(base, bytes, du, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    } else if (f == ALLOCATE) {
      MPI_Win_allocate(bytes, du, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    } else if (f == SHARED) {
      MPI_Win_allocate_shared(bytes, du, MPI_INFO_NULL, MPI_COMM_SELF, &base, &win);
    } else {
      MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
      base = MPI_BOTTOM;
    }
    void *got_base = (void *)1;
    MPI_Aint *got_size = NULL;
    int *got_du = NULL, *flavour = NULL, *model = NULL, f1 = 0, f2 = 0, f3 = 0, f4 = 0, f5 = 0;
    MPI_Win_get_attr(win, MPI_WIN_BASE, &got_base, &f1);
    MPI_Win_get_attr(win, MPI_WIN_SIZE, &got_size, &f2);
    MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &got_du, &f3);
    MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavour, &f4);
    MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &f5);
    CHECK(f1 && got_base == base, "%s: MPI_WIN_BASE %p (flag %d), want %p", names[f], got_base, f1, base);
    CHECK(f2 && got_size && *got_size == (f == DYNAMIC ? 0 : bytes),
          "%s: MPI_WIN_SIZE %ld (flag %d), want %ld", names[f], got_size ? (long)*got_size : -1L, f2,
          f == DYNAMIC ? 0L : (long)bytes);
    CHECK(f3 && got_du && *got_du == du, "%s: MPI_WIN_DISP_UNIT %d (flag %d), want %d", names[f],
          got_du ? *got_du : -1, f3, du);
    CHECK(f4 && flavour && *flavour == flavours[f], "%s: MPI_WIN_CREATE_FLAVOR %d, want %d", names[f],
          flavour ? *flavour : -1, flavours[f]);
    CHECK(f5 && model && *model == MPI_WIN_UNIFIED, "%s: MPI_WIN_MODEL %d, want MPI_WIN_UNIFIED (%d)",
          names[f], model ? *model : -1, MPI_WIN_UNIFIED);
    /* Group: the communicator's. */
    MPI_Group wg, cg;
    int cmp = -1;
    MPI_Win_get_group(win, &wg);
    MPI_Comm_group(f == SHARED ? MPI_COMM_SELF : MPI_COMM_WORLD, &cg);
    MPI_Group_compare(wg, cg, &cmp);
    CHECK(cmp == MPI_IDENT, "%s: the window's group compares %d with the communicator's", names[f], cmp);
    MPI_Group_free(&wg);
    MPI_Group_free(&cg);
    MPI_Win_free(&win);
    free(mem);
  }
  /* A window on a communicator in reversed order: its group is that order. */
  MPI_Comm rev;
  MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
  MPI_Win win;
  int x[4];
  MPI_Win_create(x, sizeof x, sizeof(int), MPI_INFO_NULL, rev, &win);
  MPI_Group wg, wgw;
  MPI_Win_get_group(win, &wg);
  MPI_Comm_group(MPI_COMM_WORLD, &wgw);
  int zero = 0, in_world = -1, cmp = -1;
  MPI_Group_translate_ranks(wg, 1, &zero, wgw, &in_world);
  MPI_Group_compare(wg, wgw, &cmp);
  CHECK(in_world == size - 1 && cmp == (size == 1 ? MPI_IDENT : MPI_SIMILAR),
        "reversed communicator: the window group's rank 0 is world rank %d, compare %d", in_world, cmp);
  MPI_Group_free(&wg);
  MPI_Group_free(&wgw);
  MPI_Win_free(&win);
  MPI_Comm_free(&rev);
}

/* ---- user attributes ---- */

static int copies, deletes, last_value, extra_seen;
static MPI_Win last_win;

static int copy_cb(MPI_Win old, int keyval, void *extra, void *in, void *out, int *flag) {
  (void)old;
  (void)keyval;
  (void)extra;
  (void)in;
  (void)out;
  ++copies;
  *flag = 0;
  return MPI_SUCCESS;
}
static int delete_cb(MPI_Win win, int keyval, void *value, void *extra) {
  (void)keyval;
  ++deletes;
  last_win = win;
  last_value = (int)(intptr_t)value;
  extra_seen = *(int *)extra;
  return MPI_SUCCESS;
}

static void user_attrs(void) {
  static int extra = 77;
  int kv = MPI_KEYVAL_INVALID, kv2 = MPI_KEYVAL_INVALID, flag = -1;
  void *val = NULL;
  MPI_Win_create_keyval(copy_cb, delete_cb, &kv, &extra);
  MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &kv2, NULL);
  CHECK(kv != MPI_KEYVAL_INVALID && kv2 != MPI_KEYVAL_INVALID && kv != kv2, "keyvals %d %d", kv, kv2);
  MPI_Win win, win2;
  int mem[8], mem2[8];
  MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_create(mem2, sizeof mem2, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win2);
  MPI_Win_get_attr(win, kv, &val, &flag);
  CHECK(flag == 0, "an attribute before any was set");
  MPI_Win_set_attr(win, kv, (void *)(intptr_t)10);
  MPI_Win_set_attr(win2, kv, (void *)(intptr_t)20);
  MPI_Win_set_attr(win, kv2, (void *)(intptr_t)30);
  MPI_Win_get_attr(win, kv, &val, &flag);
  CHECK(flag && (intptr_t)val == 10, "get after set: flag %d value %ld", flag, (long)(intptr_t)val);
  MPI_Win_get_attr(win2, kv, &val, &flag);
  CHECK(flag && (intptr_t)val == 20, "the other window's value: flag %d value %ld", flag,
        (long)(intptr_t)val);
  MPI_Win_get_attr(win, kv2, &val, &flag);
  CHECK(flag && (intptr_t)val == 30, "second keyval: flag %d value %ld", flag, (long)(intptr_t)val);
  /* Overwrite: the old value is deleted. */
  deletes = 0;
  MPI_Win_set_attr(win, kv, (void *)(intptr_t)11);
  CHECK(deletes == 1 && last_value == 10 && last_win == win && extra_seen == 77,
        "overwrite: %d deletes, value %d, extra %d", deletes, last_value, extra_seen);
  /* Delete. */
  MPI_Win_delete_attr(win, kv);
  CHECK(deletes == 2 && last_value == 11 && last_win == win, "delete_attr: %d deletes, value %d", deletes,
        last_value);
  MPI_Win_get_attr(win, kv, &val, &flag);
  CHECK(flag == 0, "the attribute is gone after delete_attr");
  /* Free of the window deletes what it holds; a freed keyval's attributes live until then. */
  MPI_Win_set_attr(win, kv, (void *)(intptr_t)12);
  MPI_Win_free_keyval(&kv2);
  CHECK(kv2 == MPI_KEYVAL_INVALID, "MPI_Win_free_keyval sets MPI_KEYVAL_INVALID");
  int kv_copy = kv;
  MPI_Win_free_keyval(&kv);
  CHECK(kv == MPI_KEYVAL_INVALID, "MPI_Win_free_keyval sets MPI_KEYVAL_INVALID");
  MPI_Win_get_attr(win2, kv_copy, &val, &flag);
  CHECK(flag && (intptr_t)val == 20, "an attribute of a freed keyval is still there: flag %d", flag);
  deletes = 0;
  MPI_Win_free(&win);
  CHECK(deletes == 1 && last_value == 12, "MPI_Win_free: %d deletes, value %d", deletes, last_value);
  MPI_Win_free(&win2);
  CHECK(deletes == 2 && last_value == 20, "MPI_Win_free of the other: %d deletes, value %d", deletes,
        last_value);
  CHECK(copies == 0, "the copy callback ran %d times (windows are never duplicated)", copies);
}

/* ---- names ---- */

static void names(void) {
  MPI_Win win;
  void *base;
  MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  char name[MPI_MAX_OBJECT_NAME];
  int len = -1;
  memset(name, 'x', sizeof name);
  MPI_Win_get_name(win, name, &len);
  CHECK(len == 0 && name[0] == 0, "default name '%.20s' (length %d), want empty", name, len);
  MPI_Win_set_name(win, "pamir window");
  MPI_Win_get_name(win, name, &len);
  CHECK(len == 12 && strcmp(name, "pamir window") == 0, "name '%s' length %d", name, len);
  char longest[MPI_MAX_OBJECT_NAME];
  memset(longest, 'n', sizeof longest - 1);
  longest[sizeof longest - 1] = 0;
  MPI_Win_set_name(win, longest);
  MPI_Win_get_name(win, name, &len);
  CHECK(len == MPI_MAX_OBJECT_NAME - 1 && strcmp(name, longest) == 0, "the longest name: length %d", len);
  MPI_Win_free(&win);
}

/* ---- info ---- */

static void expect_info(MPI_Win win, const char *what, const char *key, const char *want,
                        const char *or_want) {
  MPI_Info info = MPI_INFO_NULL;
  char v[MPI_MAX_INFO_VAL + 1] = "";
  int flag = 0;
  MPI_Win_get_info(win, &info);
  MPI_Info_get(info, key, MPI_MAX_INFO_VAL, v, &flag);
  CHECK(flag && (strcmp(v, want) == 0 || (or_want && strcmp(v, or_want) == 0)),
        "%s: %s is '%s' (flag %d), want '%s'%s%s", what, key, flag ? v : "", flag, want,
        or_want ? " or " : "", or_want ? or_want : "");
  MPI_Info_free(&info);
}

static void info(void) {
  MPI_Win win;
  void *base;
  MPI_Win_allocate(64, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  expect_info(win, "default", "no_locks", "false", NULL);
  expect_info(win, "default", "accumulate_ordering", "rar,raw,war,waw", NULL);
  expect_info(win, "default", "accumulate_ops", "same_op_no_op", NULL);
  expect_info(win, "default", "same_size", "false", NULL);
  expect_info(win, "default", "same_disp_unit", "false", NULL);
  /* Set later: it applies, or the implementation keeps the old value (MPI may ignore hints). */
  MPI_Info in;
  MPI_Info_create(&in);
  MPI_Info_set(in, "accumulate_ordering", "rar,waw");
  int rc = MPI_Win_set_info(win, in);
  CHECK(rc == MPI_SUCCESS, "MPI_Win_set_info rc %d", rc);
  MPI_Info_free(&in);
  expect_info(win, "after MPI_Win_set_info", "accumulate_ordering", "rar,waw", "rar,raw,war,waw");
  /* The info object returned is the caller's: freeing it leaves the window alone. */
  MPI_Info mine;
  MPI_Win_get_info(win, &mine);
  MPI_Info_set(mine, "no_locks", "true");
  MPI_Info_free(&mine);
  expect_info(win, "after changing a returned info", "no_locks", "false", NULL);
  MPI_Win_free(&win);

  MPI_Info_create(&in);
  MPI_Info_set(in, "no_locks", "true");
  MPI_Info_set(in, "accumulate_ordering", "none");
  MPI_Info_set(in, "accumulate_ops", "same_op");
  MPI_Info_set(in, "same_size", "true");
  MPI_Info_set(in, "same_disp_unit", "true");
  int *mem = malloc(64);
  MPI_Win_create(mem, 64, 8, in, MPI_COMM_WORLD, &win);
  MPI_Info_free(&in);
  expect_info(win, "at creation", "no_locks", "true", NULL);
  expect_info(win, "at creation", "accumulate_ordering", "none", NULL);
  expect_info(win, "at creation", "accumulate_ops", "same_op", NULL);
  expect_info(win, "at creation", "same_size", "true", NULL);
  expect_info(win, "at creation", "same_disp_unit", "true", NULL);
  /* no_locks: fence epochs still work. */
  MPI_Win_fence(0, win);
  int v = 1000 + rank;
  MPI_Put(&v, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win);
  MPI_Win_fence(0, win);
  CHECK(mem[0] == 1000 + (rank + size - 1) % size, "a put on a no_locks window: %d", mem[0]);
  MPI_Win_free(&win);
  free(mem);
}

/* ---- error handlers ---- */

static int handled, handled_code;
static MPI_Win handled_win;
static void handler(MPI_Win *win, int *code, ...) {
  ++handled;
  handled_win = *win;
  handled_code = *code;
}

static void errhandlers(void) {
  MPI_Win win;
  void *base;
  MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL, got = MPI_ERRHANDLER_NULL;
  MPI_Win_get_errhandler(win, &got);
  CHECK(got == MPI_ERRORS_ARE_FATAL, "a new window's error handler is not MPI_ERRORS_ARE_FATAL");
  MPI_Errhandler_free(&got);
  int rc = MPI_Win_create_errhandler(handler, &eh);
  CHECK(rc == MPI_SUCCESS && eh != MPI_ERRHANDLER_NULL, "MPI_Win_create_errhandler rc %d", rc);
  MPI_Win_set_errhandler(win, eh);
  MPI_Win_get_errhandler(win, &got);
  CHECK(got == eh, "MPI_Win_get_errhandler gives another handler");
  MPI_Errhandler_free(&got);
  MPI_Errhandler_free(&eh); /* the window keeps it */
  handled = 0;
  rc = MPI_Win_call_errhandler(win, MPI_ERR_OTHER);
  CHECK(handled == 1 && handled_win == win && handled_code == MPI_ERR_OTHER,
        "MPI_Win_call_errhandler: called %d times, same window %d, code %d", handled, handled_win == win,
        handled_code);
  CHECK(rc == MPI_SUCCESS, "MPI_Win_call_errhandler returned %d", rc);
  /* A failing call on the window: a put to a rank that does not exist. */
  handled = 0;
  int v = 0;
  MPI_Win_fence(0, win);
  rc = MPI_Put(&v, 1, MPI_INT, size + 3, 0, 1, MPI_INT, win);
  MPI_Win_fence(0, win);
  CHECK(handled == 1 && handled_win == win && err_class(handled_code) == MPI_ERR_RANK && rc == handled_code,
        "MPI_Put to rank %d: handler called %d times with class %d, rc %d", size + 3, handled,
        err_class(handled_code), rc);
  /* MPI_ERRORS_RETURN: call_errhandler returns the code... or MPI_SUCCESS; it must not end the job. */
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  handled = 0;
  rc = MPI_Win_call_errhandler(win, MPI_ERR_OTHER);
  CHECK(handled == 0, "the user handler ran after MPI_ERRORS_RETURN was set");
  MPI_Win_free(&win);
}

/* ---- integer handles (MPI 5.0) ---- */

static void handles(void) {
#if MPI_VERSION >= 5
  MPI_Win win;
  void *base;
  MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  const int i = MPI_Win_toint(win);
  CHECK(MPI_Win_fromint(i) == win && MPI_Win_toint(win) == i, "MPI_Win_toint/fromint round trip (%d)", i);
  CHECK(MPI_Win_fromint(MPI_Win_toint(MPI_WIN_NULL)) == MPI_WIN_NULL, "MPI_WIN_NULL round trip");
  CHECK(i != MPI_Win_toint(MPI_WIN_NULL), "a window's integer %d is MPI_WIN_NULL's", i);
  MPI_Win_free(&win);
#endif
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  predefined();
  user_attrs();
  names();
  info();
  errhandlers();
  handles();
  return finish("rma_attrs");
}
