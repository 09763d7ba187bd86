/* Attribute caching: keyvals, set/get/delete, copy callbacks on dup (user functions and the
 * MPI_COMM_DUP_FN / MPI_COMM_NULL_COPY_FN sentinels), delete callbacks on free, delete and overwrite,
 * failing callbacks, a keyval freed while still in use, the deprecated MPI-1 calls, the predefined
 * attributes, and the delete order of MPI_COMM_SELF's attributes at MPI_Finalize. Runs with 1 to 4
 * ranks. */
#include <string.h>

#include "check.h"

static int rank, size;

/* What the callbacks saw. */
static int copies, deletes, last_deleted_value, copy_flag_out = 1, copy_fail, delete_fail;
static MPI_Comm last_copy_comm, last_delete_comm;
static void *last_extra;

static int copy_cb(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag) {
  (void)keyval;
  ++copies;
  last_copy_comm = oldcomm;
  last_extra = extra;
  if (copy_fail) return MPI_ERR_OTHER;
  *(void **)out = (void *)((char *)in + 1); /* the copy's value is in + 1 */
  *flag = copy_flag_out;
  return MPI_SUCCESS;
}

static int delete_cb(MPI_Comm comm, int keyval, void *value, void *extra) {
  (void)keyval;
  (void)extra;
  if (delete_fail) return MPI_ERR_OTHER;
  ++deletes;
  last_delete_comm = comm;
  last_deleted_value = (int)(intptr_t)value;
  return MPI_SUCCESS;
}

static void basics(void) {
  int kv = MPI_KEYVAL_INVALID, extra = 0, flag = 0;
  void *val = NULL;
  MPI_Comm_create_keyval(copy_cb, delete_cb, &kv, &extra);
  CHECK(kv != MPI_KEYVAL_INVALID, "keyval created");
  MPI_Comm a;
  MPI_Comm_dup(MPI_COMM_WORLD, &a);
  MPI_Comm_get_attr(a, kv, &val, &flag);
  CHECK(!flag, "no value before set");
  MPI_Comm_set_attr(a, kv, (void *)(intptr_t)10);
  MPI_Comm_get_attr(a, kv, &val, &flag);
  CHECK(flag && (intptr_t)val == 10, "get after set: flag %d value %ld", flag, (long)(intptr_t)val);

  /* Overwrite: the old value is deleted first. */
  deletes = 0;
  MPI_Comm_set_attr(a, kv, (void *)(intptr_t)20);
  CHECK(deletes == 1 && last_deleted_value == 10 && last_delete_comm == a, "overwrite deleted %d (value %d)",
        deletes, last_deleted_value);

  /* Dup: the copy callback runs with the old communicator and extra_state. */
  copies = 0;
  MPI_Comm b;
  MPI_Comm_dup(a, &b);
  CHECK(copies == 1 && last_copy_comm == a && last_extra == &extra, "copy callback: %d calls", copies);
  MPI_Comm_get_attr(b, kv, &val, &flag);
  CHECK(flag && (intptr_t)val == 21, "copied value %ld", (long)(intptr_t)val);
  MPI_Comm_get_attr(a, kv, &val, &flag);
  CHECK(flag && (intptr_t)val == 20, "original value unchanged %ld", (long)(intptr_t)val);

  /* flag = 0 from the callback: not copied. */
  copy_flag_out = 0;
  MPI_Comm c;
  MPI_Comm_dup(a, &c);
  MPI_Comm_get_attr(c, kv, &val, &flag);
  CHECK(!flag, "a copy callback answering flag = 0 copies nothing");
  copy_flag_out = 1;
  MPI_Comm_free(&c);

  /* Free runs the delete callback with the freed communicator's handle. */
  deletes = 0;
  MPI_Comm bb = b;
  MPI_Comm_free(&b);
  CHECK(deletes == 1 && last_deleted_value == 21 && last_delete_comm == bb, "free deleted %d (value %d)",
        deletes, last_deleted_value);

  /* Delete_attr runs it too, and the attribute is gone. */
  deletes = 0;
  MPI_Comm_delete_attr(a, kv);
  MPI_Comm_get_attr(a, kv, &val, &flag);
  CHECK(deletes == 1 && !flag, "delete_attr: %d deletes, flag %d", deletes, flag);

  /* A keyval freed while an attribute uses it stays alive until that attribute is deleted. */
  MPI_Comm_set_attr(a, kv, (void *)(intptr_t)30);
  int kv_copy = kv;
  MPI_Comm_free_keyval(&kv);
  CHECK(kv == MPI_KEYVAL_INVALID, "free_keyval sets MPI_KEYVAL_INVALID");
  MPI_Comm_set_errhandler(a, MPI_ERRORS_RETURN);
  /* It stays valid for the attributes still cached with it: get and delete them by its integer. */
  int rc = MPI_Comm_get_attr(a, kv_copy, &val, &flag);
  CHECK(rc == MPI_SUCCESS && flag && (intptr_t)val == 30, "get with a freed keyval: class %d, flag %d",
        err_class(rc), flag);
  deletes = 0;
  rc = MPI_Comm_delete_attr(a, kv_copy);
  CHECK(rc == MPI_SUCCESS && deletes == 1 && last_deleted_value == 30,
        "delete with a freed keyval: class %d, %d deletes", err_class(rc), deletes);
  /* With its last attribute gone, the integer is no keyval any more. */
  rc = MPI_Comm_get_attr(a, kv_copy, &val, &flag);
  CHECK(err_class(rc) == MPI_ERR_KEYVAL, "get with a freed keyval of no attribute: class %d", err_class(rc));
  /* And one still cached when the communicator goes is deleted then. */
  int kv2;
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_cb, &kv2, NULL);
  MPI_Comm_set_attr(a, kv2, (void *)(intptr_t)31);
  MPI_Comm_free_keyval(&kv2);
  deletes = 0;
  MPI_Comm_free(&a);
  CHECK(deletes == 1 && last_deleted_value == 31, "the freed keyval's delete callback still ran (%d)",
        deletes);
}

static void sentinels(void) {
  int kdup, knull, flag = 0;
  void *val;
  MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &kdup, NULL);
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &knull, NULL);
  MPI_Comm a, b;
  MPI_Comm_dup(MPI_COMM_WORLD, &a);
  static int target = 5;
  MPI_Comm_set_attr(a, kdup, &target);
  MPI_Comm_set_attr(a, knull, &target);
  MPI_Comm_dup(a, &b);
  MPI_Comm_get_attr(b, kdup, &val, &flag);
  CHECK(flag && val == &target, "MPI_COMM_DUP_FN copies the value itself");
  MPI_Comm_get_attr(b, knull, &val, &flag);
  CHECK(!flag, "MPI_COMM_NULL_COPY_FN copies nothing");
  MPI_Comm_free(&b);
  MPI_Comm_free(&a);
  MPI_Comm_free_keyval(&kdup);
  MPI_Comm_free_keyval(&knull);

  /* The deprecated MPI-1 interface with its own sentinels. */
  int old;
  MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &old, NULL);
  MPI_Comm_dup(MPI_COMM_WORLD, &a);
  MPI_Attr_put(a, old, &target);
  MPI_Comm_dup(a, &b);
  MPI_Attr_get(b, old, &val, &flag);
  CHECK(flag && val == &target, "MPI_DUP_FN through MPI_Attr_put/get");
  MPI_Attr_delete(b, old);
  MPI_Attr_get(b, old, &val, &flag);
  CHECK(!flag, "MPI_Attr_delete");
  MPI_Comm_free(&b);
  MPI_Comm_free(&a);
  MPI_Keyval_free(&old);
  CHECK(old == MPI_KEYVAL_INVALID, "MPI_Keyval_free");
}

static void failures(void) {
  int kv;
  MPI_Comm_create_keyval(copy_cb, delete_cb, &kv, NULL);
  MPI_Comm a, b = MPI_COMM_WORLD;
  MPI_Comm_dup(MPI_COMM_WORLD, &a);
  MPI_Comm_set_errhandler(a, MPI_ERRORS_RETURN);
  MPI_Comm_set_attr(a, kv, (void *)(intptr_t)1);
  /* A failing copy callback fails the dup. */
  copy_fail = 1;
  int rc = MPI_Comm_dup(a, &b);
  copy_fail = 0;
  CHECK(err_class(rc) == MPI_ERR_OTHER && b == MPI_COMM_NULL, "failing copy: class %d", err_class(rc));
  /* A failing delete callback fails delete_attr and free; the attribute stays. */
  delete_fail = 1;
  rc = MPI_Comm_delete_attr(a, kv);
  CHECK(err_class(rc) == MPI_ERR_OTHER, "failing delete: class %d", err_class(rc));
  MPI_Comm aa = a;
  rc = MPI_Comm_free(&a);
  CHECK(err_class(rc) == MPI_ERR_OTHER && a == aa, "free with a failing delete: class %d", err_class(rc));
  delete_fail = 0;
  void *val;
  int flag = 0;
  MPI_Comm_get_attr(a, kv, &val, &flag);
  CHECK(flag && (intptr_t)val == 1, "the attribute survived the failed delete");
  MPI_Comm_free(&a);
  /* Bad keyvals. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  rc = MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, &flag);
  CHECK(err_class(rc) == MPI_ERR_KEYVAL, "setting MPI_TAG_UB: class %d", err_class(rc));
  rc = MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_TAG_UB);
  CHECK(err_class(rc) == MPI_ERR_KEYVAL, "deleting MPI_TAG_UB: class %d", err_class(rc));
  rc = MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, &val, &flag);
  CHECK(err_class(rc) == MPI_ERR_KEYVAL, "MPI_KEYVAL_INVALID: class %d", err_class(rc));
  int freed = kv;
  MPI_Comm_free_keyval(&kv);
  rc = MPI_Comm_free_keyval(&freed);
  CHECK(err_class(rc) == MPI_ERR_KEYVAL, "freeing a keyval twice: class %d", err_class(rc));
  int pre = MPI_TAG_UB;
  rc = MPI_Comm_free_keyval(&pre);
  CHECK(err_class(rc) == MPI_ERR_KEYVAL, "freeing a predefined keyval: class %d", err_class(rc));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

static void predefined(void) {
  int *v, flag = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag);
  CHECK(flag && *v >= 32767, "MPI_TAG_UB %d", flag ? *v : -1);
  int tag_ub = flag ? *v : 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &v, &flag);
  CHECK(flag && *v == MPI_PROC_NULL, "MPI_HOST");
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &v, &flag);
  CHECK(flag && (*v == MPI_ANY_SOURCE || (*v >= 0 && *v < size)), "MPI_IO %d", flag ? *v : -1);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &v, &flag);
  CHECK(flag && (*v == 0 || *v == 1), "MPI_WTIME_IS_GLOBAL");
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &v, &flag);
  CHECK(flag && *v >= size, "MPI_UNIVERSE_SIZE %d", flag ? *v : -1);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &v, &flag);
  CHECK(flag && *v == 0, "MPI_APPNUM %d", flag ? *v : -1);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag);
  CHECK(flag && *v >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE %d", flag ? *v : -1);
  /* The largest tag works. */
  int x = 3, y = 0;
  MPI_Sendrecv(&x, 1, MPI_INT, rank, tag_ub, &y, 1, MPI_INT, rank, tag_ub, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CHECK(y == 3, "a message with tag MPI_TAG_UB");
  /* Also answered on a duplicate (libraries ask their own communicator). */
  MPI_Comm d;
  MPI_Comm_dup(MPI_COMM_WORLD, &d);
  MPI_Comm_get_attr(d, MPI_TAG_UB, &v, &flag);
  CHECK(flag && *v == tag_ub, "MPI_TAG_UB on a duplicate");
  MPI_Attr_get(d, MPI_TAG_UB, &v, &flag);
  CHECK(flag && *v == tag_ub, "MPI_TAG_UB through MPI_Attr_get");
  MPI_Comm_free(&d);
}

/* MPI_COMM_SELF's attributes are deleted first at MPI_Finalize, in the reverse order of being set,
 * while MPI still works. */
enum { SELF_KEYS = 4 };
static int self_order[SELF_KEYS], self_deleted, self_mpi_ok = 1;
static int self_delete(MPI_Comm comm, int keyval, void *value, void *extra) {
  (void)keyval;
  (void)extra;
  if (self_deleted < SELF_KEYS) self_order[self_deleted] = (int)(intptr_t)value;
  ++self_deleted;
  int finalized = 1, r = -1;
  MPI_Finalized(&finalized);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  if (finalized || r != rank || comm != MPI_COMM_SELF) self_mpi_ok = 0;
  return MPI_SUCCESS;
}

static void self_attrs(void) {
  int keys[SELF_KEYS];
  for (int i = 0; i < SELF_KEYS; ++i)
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &keys[i], NULL);
  /* Set in the order 2, 0, 3, 1, then set 0 again: it was set last. */
  int order[] = {2, 0, 3, 1, 0};
  for (int i = 0; i < 5; ++i)
    MPI_Comm_set_attr(MPI_COMM_SELF, keys[order[i]], (void *)(intptr_t)(order[i] + 1));
  /* The keyvals may be freed before MPI_Finalize. */
  for (int i = 0; i < SELF_KEYS; ++i) MPI_Comm_free_keyval(&keys[i]);
  /* self_delete ran once so far (the overwrite of key 0). */
  CHECK(self_deleted == 1, "the overwrite deleted %d", self_deleted);
  self_deleted = 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  basics();
  sentinels();
  failures();
  predefined();
  self_attrs();
  /* finish() with the finalize-time checks after MPI_Finalize. */
  int failed = checks_failed, total_failed = 0, passed = checks_passed, total_passed = 0;
  MPI_Allreduce(&failed, &total_failed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&passed, &total_passed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  /* Expected: the reverse of the last set order 2, 3, 1, 0 -> values 1, 2, 4, 3. */
  const int expect[SELF_KEYS] = {1, 2, 4, 3};
  int ok = self_deleted == SELF_KEYS && self_mpi_ok;
  for (int i = 0; ok && i < SELF_KEYS; ++i) ok = self_order[i] == expect[i];
  if (!ok) {
    fprintf(stderr,
            "FAIL rank %d: MPI_COMM_SELF attributes at MPI_Finalize: %d deleted, order %d %d %d %d, MPI "
            "usable %d\n",
            rank, self_deleted, self_order[0], self_order[1], self_order[2], self_order[3], self_mpi_ok);
    return 1;
  }
  if (rank == 0) printf("attr_basic: %d checks passed, %d failed\n", total_passed + size, total_failed);
  return total_failed ? 1 : 0;
}
