/* Attributes on datatypes (MPI_Type_create_keyval, _set_attr, _get_attr, _delete_attr, _free_keyval:
 * copy callbacks on MPI_Type_dup, delete callbacks on MPI_Type_delete_attr, on replacement and on
 * MPI_Type_free, the predefined copy functions, keyvals of the wrong kind, a failing callback), and the
 * Fortran 90 parameterized types (MPI_Type_create_f90_integer, _real, _complex). */
#include "check.h"

static int copies, deletes, last_deleted;

static int copy_plus_one(MPI_Datatype t, int keyval, void *extra, void *in, void *out, int *flag) {
  (void)t;
  (void)keyval;
  CHECK(extra == &copies, "the copy callback gets its extra_state");
  ++copies;
  *(void **)out = (char *)in + 1;
  *flag = 1;
  return MPI_SUCCESS;
}

static int record_delete(MPI_Datatype t, int keyval, void *value, void *extra) {
  (void)t;
  (void)keyval;
  (void)extra;
  ++deletes;
  last_deleted = (int)(intptr_t)value;
  return MPI_SUCCESS;
}

static int refusing = 1; /* refuse_delete fails while set */
static int refuse_delete(MPI_Datatype t, int keyval, void *value, void *extra) {
  (void)t;
  (void)keyval;
  (void)value;
  (void)extra;
  return refusing ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static void attributes(void) {
  int kv, dupkv, nullkv;
  MPI_Type_create_keyval(copy_plus_one, record_delete, &kv, &copies);
  MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, &dupkv, NULL);
  MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, record_delete, &nullkv, NULL);
  MPI_Datatype t, d;
  MPI_Type_vector(3, 1, 2, MPI_INT, &t);
  MPI_Type_commit(&t);
  void *v = NULL;
  int flag = -1;
  MPI_Type_get_attr(t, kv, &v, &flag);
  CHECK(flag == 0, "no attribute yet");
  MPI_Type_set_attr(t, kv, (void *)(intptr_t)100);
  MPI_Type_set_attr(t, dupkv, (void *)(intptr_t)7);
  MPI_Type_set_attr(t, nullkv, (void *)(intptr_t)9);
  MPI_Type_get_attr(t, kv, &v, &flag);
  CHECK(flag == 1 && (intptr_t)v == 100, "get: flag %d value %ld", flag, (long)(intptr_t)v);
  /* Replacing a value deletes the old one first. */
  deletes = 0;
  MPI_Type_set_attr(t, kv, (void *)(intptr_t)200);
  CHECK(deletes == 1 && last_deleted == 100, "replacement deleted %d (value %d)", deletes, last_deleted);

  /* MPI_Type_dup: the copy callback's value, MPI_TYPE_DUP_FN's value, no MPI_TYPE_NULL_COPY_FN one. */
  copies = 0;
  MPI_Type_dup(t, &d);
  CHECK(copies == 1, "dup ran the copy callback %d times", copies);
  MPI_Type_get_attr(d, kv, &v, &flag);
  CHECK(flag && (intptr_t)v == 201, "the duplicate's copied value %ld", (long)(intptr_t)v);
  MPI_Type_get_attr(d, dupkv, &v, &flag);
  CHECK(flag && (intptr_t)v == 7, "MPI_TYPE_DUP_FN copies the value");
  MPI_Type_get_attr(d, nullkv, &v, &flag);
  CHECK(!flag, "MPI_TYPE_NULL_COPY_FN copies nothing");

  /* Delete, and free: the remaining attributes' delete callbacks run at MPI_Type_free. */
  deletes = 0;
  MPI_Type_delete_attr(d, kv);
  CHECK(deletes == 1 && last_deleted == 201, "delete_attr: %d callbacks, value %d", deletes, last_deleted);
  MPI_Type_get_attr(d, kv, &v, &flag);
  CHECK(!flag, "deleted");
  deletes = 0;
  MPI_Type_free(&t);
  CHECK(deletes == 2, "MPI_Type_free ran %d delete callbacks (kv and nullkv)", deletes);
  MPI_Type_free(&d);

  /* Attributes on a predefined type. */
  MPI_Type_set_attr(MPI_INT, dupkv, (void *)(intptr_t)5);
  MPI_Type_get_attr(MPI_INT, dupkv, &v, &flag);
  CHECK(flag && (intptr_t)v == 5, "an attribute on MPI_INT");
  MPI_Type_delete_attr(MPI_INT, dupkv);

  /* A keyval freed while an attribute uses it still gets and deletes it. */
  MPI_Type_contiguous(2, MPI_INT, &t);
  MPI_Type_set_attr(t, kv, (void *)(intptr_t)300);
  int kv_copy = kv;
  MPI_Type_free_keyval(&kv);
  CHECK(kv == MPI_KEYVAL_INVALID, "free_keyval sets MPI_KEYVAL_INVALID");
  MPI_Type_get_attr(t, kv_copy, &v, &flag);
  CHECK(flag && (intptr_t)v == 300, "a freed keyval still gets its attribute");
  deletes = 0;
  MPI_Type_delete_attr(t, kv_copy);
  CHECK(deletes == 1 && last_deleted == 300, "and deletes it");
  MPI_Type_free(&t);

  /* Keyvals of the other kind, and a failing delete callback. */
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int ckv;
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &ckv, NULL);
  CHECK(err_class(MPI_Type_set_attr(MPI_INT, ckv, NULL)) == MPI_ERR_KEYVAL,
        "a communicator keyval on a type");
  CHECK(err_class(MPI_Comm_set_attr(MPI_COMM_WORLD, dupkv, NULL)) == MPI_ERR_KEYVAL,
        "a datatype keyval on a communicator");
  CHECK(err_class(MPI_Type_free_keyval(&ckv)) == MPI_ERR_KEYVAL, "Type_free_keyval of a communicator keyval");
  MPI_Comm_free_keyval(&ckv);
  int badkv;
  MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, refuse_delete, &badkv, NULL);
  MPI_Type_contiguous(3, MPI_INT, &t);
  MPI_Type_set_attr(t, badkv, NULL);
  CHECK(err_class(MPI_Type_free(&t)) == MPI_ERR_OTHER && t != MPI_DATATYPE_NULL,
        "a delete callback's error fails MPI_Type_free, which leaves the type");
  refusing = 0; /* the type is still there, and frees once its callback agrees */
  CHECK(MPI_Type_free(&t) == MPI_SUCCESS && t == MPI_DATATYPE_NULL, "the type freed after all");
  MPI_Type_free_keyval(&badkv);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Type_free_keyval(&dupkv);
  MPI_Type_free_keyval(&nullkv);
}

static void f90_types(void) {
  struct {
    int kind, p, r, size, combiner;
  } cases[] = {
      {0, 0, 2, 1, MPI_COMBINER_F90_INTEGER},
      {0, 0, 5, 4, MPI_COMBINER_F90_INTEGER},
      {0, 0, 10, 8, MPI_COMBINER_F90_INTEGER},
      {1, 6, MPI_UNDEFINED, 4, MPI_COMBINER_F90_REAL},
      {1, 15, 300, 8, MPI_COMBINER_F90_REAL},
      {1, MPI_UNDEFINED, 400, 16, MPI_COMBINER_F90_REAL},
      {2, 15, MPI_UNDEFINED, 16, MPI_COMBINER_F90_COMPLEX},
      {2, 5, 30, 8, MPI_COMBINER_F90_COMPLEX},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    MPI_Datatype t, again;
    if (cases[k].kind == 0) {
      MPI_Type_create_f90_integer(cases[k].r, &t);
      MPI_Type_create_f90_integer(cases[k].r, &again);
    } else if (cases[k].kind == 1) {
      MPI_Type_create_f90_real(cases[k].p, cases[k].r, &t);
      MPI_Type_create_f90_real(cases[k].p, cases[k].r, &again);
    } else {
      MPI_Type_create_f90_complex(cases[k].p, cases[k].r, &t);
      MPI_Type_create_f90_complex(cases[k].p, cases[k].r, &again);
    }
    int size = -1, ni, na, nt, combiner, ints[2] = {-9, -9};
    MPI_Type_size(t, &size);
    MPI_Type_get_envelope(t, &ni, &na, &nt, &combiner);
    MPI_Type_get_contents(t, 2, 0, 0, ints, NULL, NULL);
    CHECK(size == cases[k].size, "f90 case %zu: size %d, expected %d", k, size, cases[k].size);
    CHECK(combiner == cases[k].combiner && na == 0 && nt == 0, "f90 case %zu: combiner %d", k, combiner);
    CHECK(cases[k].kind == 0 ? (ni == 1 && ints[0] == cases[k].r)
                             : (ni == 2 && ints[0] == cases[k].p && ints[1] == cases[k].r),
          "f90 case %zu: %d integers %d %d", k, ni, ints[0], ints[1]);
    CHECK(t == again, "f90 case %zu: the same type for the same arguments", k);
  }
  MPI_Datatype t;
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  CHECK(err_class(MPI_Type_create_f90_integer(100, &t)) == MPI_ERR_ARG, "no integer kind of 100 digits");
  CHECK(err_class(MPI_Type_create_f90_real(MPI_UNDEFINED, MPI_UNDEFINED, &t)) == MPI_ERR_ARG,
        "p and r undefined");
  MPI_Type_create_f90_real(15, MPI_UNDEFINED, &t);
  MPI_Datatype keep = t;
  CHECK(err_class(MPI_Type_free(&t)) == MPI_ERR_TYPE && t == keep, "an f90 type cannot be freed");
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
  /* It moves data like MPI_REAL8 does: a ring exchange of doubles. */
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double out[4] = {rank + 0.5, rank + 1.5, rank + 2.5, rank + 3.5}, in[4] = {0};
  MPI_Sendrecv(out, 4, t, (rank + 1) % size, 0, in, 4, t, (rank + size - 1) % size, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  const int left = (rank + size - 1) % size;
  CHECK(in[0] == left + 0.5 && in[3] == left + 3.5, "f90 real ring: %g %g", in[0], in[3]);
  double sum = 0, one = 1.0;
  MPI_Allreduce(&one, &sum, 1, t, MPI_SUM, MPI_COMM_WORLD);
  CHECK(sum == size, "MPI_SUM on an f90 real: %g", sum);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  attributes();
  f90_types();
  return finish("dt_attr");
}
