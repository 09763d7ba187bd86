/* MPI_THREAD_MULTIPLE: user callbacks run with the library lock released. In each round the main thread
 * is inside a user callback (attribute copy, attribute delete on MPI_Comm_free and on
 * MPI_Comm_delete_attr, error handler on a failing call and on MPI_Comm_call_errhandler) that waits
 * until a second thread of the same process has completed an MPI_Sendrecv; if the lock were held
 * around the callback, that MPI_Sendrecv could not start, and the wait ends with a failure after a bound
 * instead of hanging. The callbacks also call MPI themselves: on the communicator whose attributes are
 * being copied or deleted (which the library must look up again afterwards), and a collective with a
 * user reduction (which drops the lock once more, nested). Runs with 1 to 4 ranks. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

enum { ROUNDS = 5, WAIT_SECONDS = 15 };
static int rank, size;

/* --- the rendezvous between a callback (main thread) and the helper thread ----------------------- */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv;
static int entered; /* callbacks entered so far (round k entered: entered > k) */
static int done;    /* helper rounds completed */
static int broken;  /* a bounded wait ran out: later waits give up at once */
static int helper_bad_data;
static MPI_Comm side; /* the helper thread's communicator */

/* Waits on cv until *counter > k, at most WAIT_SECONDS; mu held. Returns whether it got there. */
static int wait_for(const int *counter, int k) {
  struct timespec deadline;
  clock_gettime(CLOCK_MONOTONIC, &deadline);
  deadline.tv_sec += WAIT_SECONDS;
  while (*counter <= k && !broken)
    if (pthread_cond_timedwait(&cv, &mu, &deadline) == ETIMEDOUT) broken = 1;
  return *counter > k;
}

/* Called inside a user callback on the main thread: round k's callback is running; returns once the
 * helper completed its MPI call of round k (1), or 0 when that did not happen within the bound. */
static int rendezvous(int k) {
  pthread_mutex_lock(&mu);
  entered = k + 1;
  pthread_cond_broadcast(&cv);
  int ok = wait_for(&done, k);
  pthread_mutex_unlock(&mu);
  return ok;
}

static void *helper(void *arg) {
  (void)arg;
  int peer = (rank + 1) % size, from = (rank + size - 1) % size;
  for (int k = 0; k < ROUNDS; ++k) {
    pthread_mutex_lock(&mu);
    int go = wait_for(&entered, k);
    pthread_mutex_unlock(&mu);
    if (!go) return NULL;
    /* The main thread is inside a callback now, and stays there until this call has completed. */
    int out = rank * 100 + k, in = -1;
    MPI_Sendrecv(&out, 1, MPI_INT, peer, k, &in, 1, MPI_INT, from, k, side, MPI_STATUS_IGNORE);
    pthread_mutex_lock(&mu);
    helper_bad_data += in != from * 100 + k;
    done = k + 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
  }
  return NULL;
}

/* --- attribute callbacks ----------------------------------------------------------------------------- */
static int rendezvous_ok[ROUNDS];
static int kv_copy, kv_dup, kv_reenter;
static MPI_Comm a; /* the communicator whose attributes are copied and deleted */
static int copy_calls, copy_saw_own_value;
static int dup_deletes;                        /* delete calls of kv_dup's value */
static int copy_deletes;                       /* delete calls of kv_copy's values */
static int deleted_31, deleted_33, deleted_34; /* delete calls of kv_reenter's values */
static int reenter_inner_rc = -1, reenter_inner_flag, reenter_inner_value;

/* kv_copy: round 0 runs inside it (MPI_Comm_dup of a). Meanwhile it deletes kv_dup's attribute of a
 * and sets kv_reenter's: the dup was started before, and must neither copy the deleted value nor use a
 * stale entry for it. */
static int copy_fn(MPI_Comm old, int keyval, void *extra, void *in, void *out, int *flag) {
  (void)extra;
  ++copy_calls;
  rendezvous_ok[0] = rendezvous(0);
  void *v = NULL;
  int f = 0;
  MPI_Comm_get_attr(old, keyval, &v, &f);
  copy_saw_own_value = f && v == in;
  MPI_Comm_delete_attr(old, kv_dup);
  MPI_Comm_set_attr(old, kv_reenter, (void *)(intptr_t)31);
  *(void **)out = (void *)((intptr_t)in + 1);
  *flag = 1;
  return MPI_SUCCESS;
}

/* kv_copy's delete: round 1 runs inside it, for the duplicate's value (MPI_Comm_free of the dup). */
static int copy_delete_fn(MPI_Comm comm, int keyval, void *value, void *extra) {
  (void)comm;
  (void)keyval;
  (void)extra;
  ++copy_deletes;
  if ((intptr_t)value == 11) rendezvous_ok[1] = rendezvous(1);
  return MPI_SUCCESS;
}

static int dup_delete_fn(MPI_Comm comm, int keyval, void *value, void *extra) {
  (void)comm;
  (void)keyval;
  (void)value;
  (void)extra;
  ++dup_deletes;
  return MPI_SUCCESS;
}

/* kv_reenter: round 2 runs inside the deletion of value 33 (MPI_Comm_delete_attr), which meanwhile
 * deletes the same attribute again (a no-op: that deletion is running), reads it (still there), and
 * replaces it with 34 (which must survive the deletion of 33, and 33 be deleted only once). */
static int reenter_delete_fn(MPI_Comm comm, int keyval, void *value, void *extra) {
  (void)extra;
  switch ((int)(intptr_t)value) {
    case 31:
      ++deleted_31;
      break;
    case 33: {
      /* A library that runs this callback again from the inner delete must fail the check, not recurse. */
      static int ran;
      ++deleted_33;
      if (ran++) break;
      rendezvous_ok[2] = rendezvous(2);
      reenter_inner_rc = MPI_Comm_delete_attr(comm, keyval);
      void *v = NULL;
      MPI_Comm_get_attr(comm, keyval, &v, &reenter_inner_flag);
      reenter_inner_value = (int)(intptr_t)v;
      MPI_Comm_set_attr(comm, keyval, (void *)(intptr_t)34);
      break;
    }
    case 34:
      ++deleted_34;
      break;
  }
  return MPI_SUCCESS;
}

/* --- the error handler --------------------------------------------------------------------------------- */
static MPI_Comm cbcomm; /* for the collective inside the handler */
static int handler_calls, handler_last_code, handler_sum = -1;
static MPI_Comm handler_comm;

/* A user reduction: the library drops the lock around it too, nested inside the handler's release. */
static void sum_fn(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  for (int i = 0; i < *len; ++i) ((int *)inout)[i] += ((int *)in)[i];
}

static void handler(MPI_Comm *comm, int *code, ...) {
  int k = handler_calls++ == 0 ? 3 : 4;
  handler_comm = *comm;
  handler_last_code = *code;
  rendezvous_ok[k] = rendezvous(k);
  if (k == 3) {
    /* A blocking collective with a user op from inside the handler: every rank is in its handler now. */
    MPI_Op op;
    MPI_Op_create(sum_fn, 1, &op);
    int mine = rank;
    MPI_Allreduce(&mine, &handler_sum, 1, MPI_INT, op, cbcomm);
    MPI_Op_free(&op);
  }
}

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&cv, &ca);
  pthread_condattr_destroy(&ca);

  MPI_Comm_dup(MPI_COMM_WORLD, &side);
  MPI_Comm_dup(MPI_COMM_WORLD, &cbcomm);
  MPI_Comm_dup(MPI_COMM_WORLD, &a);
  /* Created in this order, so a's attributes are visited kv_copy, kv_dup, kv_reenter. */
  MPI_Comm_create_keyval(copy_fn, copy_delete_fn, &kv_copy, NULL);
  MPI_Comm_create_keyval(MPI_COMM_DUP_FN, dup_delete_fn, &kv_dup, NULL);
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, reenter_delete_fn, &kv_reenter, NULL);
  MPI_Comm_set_attr(a, kv_copy, (void *)(intptr_t)10);
  MPI_Comm_set_attr(a, kv_dup, (void *)(intptr_t)20);

  pthread_t th;
  pthread_create(&th, NULL, helper, NULL);

  /* Round 0: the copy callback. */
  MPI_Comm d = MPI_COMM_NULL;
  int rc = MPI_Comm_dup(a, &d);
  CHECK(rc == MPI_SUCCESS && d != MPI_COMM_NULL, "dup with a waiting copy callback: rc %d", rc);
  CHECK(rendezvous_ok[0], "round 0: another thread's MPI call did not complete inside the copy callback");
  CHECK(copy_calls == 1 && copy_saw_own_value, "copy callback: %d calls, saw its value %d", copy_calls,
        copy_saw_own_value);
  void *v = NULL;
  int flag = 0;
  MPI_Comm_get_attr(d, kv_copy, &v, &flag);
  CHECK(flag && (intptr_t)v == 11, "the copy's value: flag %d value %ld", flag, (long)(intptr_t)v);
  MPI_Comm_get_attr(d, kv_dup, &v, &flag);
  CHECK(!flag, "an attribute deleted by an earlier copy callback of the same dup was copied");
  MPI_Comm_get_attr(d, kv_reenter, &v, &flag);
  CHECK(!flag, "an attribute set by the copy callback during the dup was copied");
  MPI_Comm_get_attr(a, kv_dup, &v, &flag);
  CHECK(!flag && dup_deletes == 1, "kv_dup on the original: flag %d, deleted %d times", flag, dup_deletes);
  MPI_Comm_get_attr(a, kv_reenter, &v, &flag);
  CHECK(flag && (intptr_t)v == 31, "set from the copy callback: flag %d value %ld", flag, (long)(intptr_t)v);

  /* Round 1: the delete callback of MPI_Comm_free. */
  rc = MPI_Comm_free(&d);
  CHECK(rc == MPI_SUCCESS && d == MPI_COMM_NULL, "free with a waiting delete callback: rc %d", rc);
  CHECK(rendezvous_ok[1], "round 1: another thread's MPI call did not complete inside the delete callback");
  CHECK(copy_deletes == 1, "the duplicate's kv_copy value deleted %d times", copy_deletes);

  /* Round 2: a delete callback that deletes, reads and replaces its own attribute. */
  MPI_Comm_set_attr(a, kv_reenter, (void *)(intptr_t)33); /* deletes 31 first */
  CHECK(deleted_31 == 1, "31 deleted %d times on replacement", deleted_31);
  rc = MPI_Comm_delete_attr(a, kv_reenter);
  CHECK(rc == MPI_SUCCESS, "delete_attr with a re-entering callback: rc %d", rc);
  CHECK(rendezvous_ok[2], "round 2: another thread's MPI call did not complete inside the delete callback");
  CHECK(deleted_33 == 1 && deleted_34 == 0, "33 deleted %d times, 34 %d times", deleted_33, deleted_34);
  CHECK(reenter_inner_rc == MPI_SUCCESS && reenter_inner_flag && reenter_inner_value == 33,
        "inside its delete callback: delete rc %d, get flag %d value %d", reenter_inner_rc,
        reenter_inner_flag, reenter_inner_value);
  MPI_Comm_get_attr(a, kv_reenter, &v, &flag);
  CHECK(flag && (intptr_t)v == 34, "the value set inside the delete callback stays: flag %d value %ld", flag,
        (long)(intptr_t)v);

  /* Rounds 3 and 4: a user error handler, on a failing call and on MPI_Comm_call_errhandler. */
  MPI_Comm e;
  MPI_Comm_dup(MPI_COMM_WORLD, &e);
  MPI_Errhandler eh;
  MPI_Comm_create_errhandler(handler, &eh);
  MPI_Comm_set_errhandler(e, eh);
  MPI_Errhandler_free(&eh);
  int x = 0;
  rc = MPI_Send(&x, 1, MPI_INT, size + 5, 0, e);
  CHECK(err_class(rc) == MPI_ERR_RANK && handler_calls == 1 && handler_comm == e &&
            err_class(handler_last_code) == MPI_ERR_RANK,
        "send to a bad rank: class %d, handler calls %d", err_class(rc), handler_calls);
  CHECK(rendezvous_ok[3], "round 3: another thread's MPI call did not complete inside the error handler");
  CHECK(handler_sum == size * (size - 1) / 2, "allreduce with a user op in the handler: %d", handler_sum);
  rc = MPI_Comm_call_errhandler(e, MPI_ERR_OTHER);
  CHECK(rc == MPI_SUCCESS && handler_calls == 2 && handler_last_code == MPI_ERR_OTHER,
        "call_errhandler: rc %d, handler calls %d", rc, handler_calls);
  CHECK(rendezvous_ok[4], "round 4: another thread's MPI call did not complete inside the error handler");

  pthread_mutex_lock(&mu);
  int gave_up = broken;
  pthread_mutex_unlock(&mu);
  /* A helper stuck in MPI (a lock left held) would hang the join: report instead. */
  if (gave_up)
    pthread_detach(th);
  else
    pthread_join(th, NULL);
  CHECK(!gave_up && done == ROUNDS, "the helper completed %d of %d rounds", done, ROUNDS);
  CHECK(helper_bad_data == 0, "%d helper rounds received wrong data", helper_bad_data);
  if (gave_up) {
    /* The helper may be stuck in MPI, and the other ranks too: no collective, end with a failure. */
    fprintf(stderr, "threads_callbacks: rank %d: %d checks failed\n", rank, checks_failed);
    fflush(stderr);
    _exit(1);
  }

  MPI_Comm_free(&e);
  MPI_Comm_free(&a); /* deletes 34 and a's kv_copy value 10 */
  CHECK(deleted_34 == 1 && copy_deletes == 2, "at free: 34 deleted %d times, kv_copy values %d", deleted_34,
        copy_deletes);
  MPI_Comm_free_keyval(&kv_copy);
  MPI_Comm_free_keyval(&kv_dup);
  MPI_Comm_free_keyval(&kv_reenter);
  MPI_Comm_free(&cbcomm);
  MPI_Comm_free(&side);
  return finish("threads_callbacks");
}
