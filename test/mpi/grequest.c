/* Generalized requests: MPI_Grequest_start and _complete, with the query, free and cancel callbacks
 * counted and checked (the status query_fn fills is the one MPI_Wait returns; free_fn runs once, at
 * completion or at MPI_Request_free; callbacks may call MPI, so they run unlocked), completion from
 * another thread while the main thread waits, mixed with point-to-point requests in MPI_Waitall,
 * MPI_Test and MPI_Request_get_status before and after completion, and a query that fails. */
#include <pthread.h>
#include <unistd.h>

#include "check.h"

struct state {
  int queries, frees, cancels, last_cancel_complete;
  int query_error; /* what query_fn returns */
  int tag;         /* what it puts in the status */
};

static int query(void *extra, MPI_Status *status) {
  struct state *s = extra;
  ++s->queries;
  int rank; /* a callback may call MPI: it runs with the library unlocked */
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  status->MPI_SOURCE = rank;
  status->MPI_TAG = s->tag;
  MPI_Status_set_elements(status, MPI_INT, 3);
  MPI_Status_set_cancelled(status, 0);
  return s->query_error;
}

static int free_fn(void *extra) {
  ++((struct state *)extra)->frees;
  return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete) {
  struct state *s = extra;
  ++s->cancels;
  s->last_cancel_complete = complete;
  return MPI_SUCCESS;
}

struct completer {
  MPI_Request r;
  int delay_us;
};

static void *complete_later(void *p) {
  struct completer *c = p;
  usleep((useconds_t)c->delay_us);
  MPI_Grequest_complete(c->r);
  return NULL;
}

int main(int argc, char **argv) {
  int provided = 0, rank;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);

  /* Complete at once, then wait: query once, free once, the query's status. */
  struct state s = {0, 0, 0, -1, MPI_SUCCESS, 42};
  MPI_Request r;
  MPI_Grequest_start(query, free_fn, cancel_fn, &s, &r);
  int flag = -1;
  MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
  CHECK(flag == 0 && s.queries == 0 && r != MPI_REQUEST_NULL, "incomplete: flag %d, %d queries", flag,
        s.queries);
  MPI_Grequest_complete(r);
  MPI_Status st;
  MPI_Request_get_status(r, &flag, &st);
  CHECK(flag == 1 && s.queries == 1 && st.MPI_TAG == 42 && r != MPI_REQUEST_NULL && s.frees == 0,
        "get_status: flag %d queries %d tag %d frees %d", flag, s.queries, st.MPI_TAG, s.frees);
  MPI_Wait(&r, &st);
  int count = -1;
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(r == MPI_REQUEST_NULL && s.queries == 2 && s.frees == 1 && st.MPI_SOURCE == rank &&
            st.MPI_TAG == 42 && count == 3,
        "wait: queries %d frees %d source %d tag %d count %d", s.queries, s.frees, st.MPI_SOURCE, st.MPI_TAG,
        count);

  /* Completed by another thread while this one waits in MPI_Wait. */
  if (provided == MPI_THREAD_MULTIPLE) {
    for (int round = 0; round < 20; ++round) {
      struct state t = {0, 0, 0, -1, MPI_SUCCESS, round};
      struct completer c;
      MPI_Grequest_start(query, free_fn, cancel_fn, &t, &c.r);
      c.delay_us = round % 2 ? 20000 : 0;
      MPI_Request mine = c.r;
      pthread_t th;
      pthread_create(&th, NULL, complete_later, &c);
      MPI_Wait(&mine, &st);
      pthread_join(th, NULL);
      CHECK(t.queries == 1 && t.frees == 1 && st.MPI_TAG == round,
            "thread round %d: queries %d frees %d tag %d", round, t.queries, t.frees, st.MPI_TAG);
    }
  }

  /* In MPI_Waitall beside point-to-point requests. */
  struct state w = {0, 0, 0, -1, MPI_SUCCESS, 7};
  MPI_Request reqs[3];
  int out = rank, in = -1;
  MPI_Irecv(&in, 1, MPI_INT, 0, 5, MPI_COMM_SELF, &reqs[0]);
  MPI_Grequest_start(query, free_fn, cancel_fn, &w, &reqs[1]);
  MPI_Isend(&out, 1, MPI_INT, 0, 5, MPI_COMM_SELF, &reqs[2]);
  MPI_Grequest_complete(reqs[1]);
  MPI_Status sts[3];
  MPI_Waitall(3, reqs, sts);
  CHECK(in == rank && w.queries == 1 && w.frees == 1 && sts[1].MPI_TAG == 7 && sts[0].MPI_TAG == 5,
        "waitall: in %d queries %d frees %d tags %d %d", in, w.queries, w.frees, sts[1].MPI_TAG,
        sts[0].MPI_TAG);

  /* MPI_Cancel calls cancel_fn with whether the request is complete. */
  struct state k = {0, 0, 0, -1, MPI_SUCCESS, 1};
  MPI_Grequest_start(query, free_fn, cancel_fn, &k, &r);
  MPI_Cancel(&r);
  CHECK(k.cancels == 1 && k.last_cancel_complete == 0, "cancel before completion: %d calls, complete %d",
        k.cancels, k.last_cancel_complete);
  MPI_Grequest_complete(r);
  MPI_Cancel(&r);
  CHECK(k.cancels == 2 && k.last_cancel_complete == 1, "cancel after completion: complete %d",
        k.last_cancel_complete);
  MPI_Wait(&r, MPI_STATUS_IGNORE);

  /* MPI_Request_free before completion: free_fn at once, no query ever; the completion is still legal. */
  struct state f = {0, 0, 0, -1, MPI_SUCCESS, 1};
  MPI_Grequest_start(query, free_fn, cancel_fn, &f, &r);
  MPI_Request keep = r;
  MPI_Request_free(&r);
  CHECK(r == MPI_REQUEST_NULL && f.frees == 1, "Request_free ran free_fn: %d", f.frees);
  MPI_Grequest_complete(keep);
  CHECK(f.frees == 1 && f.queries == 0, "nothing more after the completion: frees %d queries %d", f.frees,
        f.queries);

  /* A query that fails: its error is the request's. */
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  struct state e = {0, 0, 0, -1, MPI_ERR_OTHER, 1};
  MPI_Grequest_start(query, free_fn, cancel_fn, &e, &r);
  MPI_Grequest_complete(r);
  CHECK(err_class(MPI_Wait(&r, MPI_STATUS_IGNORE)) == MPI_ERR_OTHER && e.frees == 1, "a failing query");
  CHECK(err_class(MPI_Grequest_start(NULL, free_fn, cancel_fn, &e, &r)) == MPI_ERR_ARG, "a missing callback");
  MPI_Request plain;
  MPI_Irecv(&in, 1, MPI_INT, 0, 6, MPI_COMM_SELF, &plain);
  CHECK(err_class(MPI_Grequest_complete(plain)) == MPI_ERR_REQUEST, "Grequest_complete of a receive");
  MPI_Send(&out, 1, MPI_INT, 0, 6, MPI_COMM_SELF);
  MPI_Wait(&plain, MPI_STATUS_IGNORE);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
  return finish("grequest");
}
