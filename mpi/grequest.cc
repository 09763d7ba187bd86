// Generalized requests (MPI 5.0 §13.2): a request whose operation the application runs itself and
// completes with MPI_Grequest_complete, maybe from another thread. Its callbacks (query, free, cancel)
// are the application's code, so they run with the library lock released. The completion paths of
// mpi/request.cc hand a generalized request here: the status comes from query_fn, then free_fn runs and
// the request goes. MPI_Request_free runs free_fn at once (as MPICH does); the object then stays until
// MPI_Grequest_complete, whose handle the application still holds. Errors are raised on MPI_COMM_SELF:
// the request has no communicator.
#include <new>

#include "mpi/check.h"
#include "mpi/request.h"
#include "mpi/status.h"
#include "pami/context.h"
#include "pamir_alias.h"

namespace pamir::mpi {

namespace {

struct Grequest {
  MPI_Grequest_query_function *query;
  MPI_Grequest_free_function *free_fn;
  MPI_Grequest_cancel_function *cancel;
  void *extra;
  bool freed = false;  // free_fn has run (MPI_Request_free before completion)
};

Grequest *g_of(pamir::Request *r) {
  return static_cast<Grequest *>(r->ext);
}

[[gnu::cold]] int callback_failed(const char *fn, const char *which, int rc, bool raise_it) {
  const int cls = error_class(rc) > 0 ? error_class(rc) : MPI_ERR_OTHER;
  return raise_it ? raise(nullptr, fn, cls, "the generalized request's %s callback returned %d", which, rc)
                  : cls;
}

void release(pamir::Request *r) {
  delete g_of(r);
  r->ext = nullptr;
  request_release(r);
}

}  // namespace

int grequest_status(pamir::Request *r, MPI_Status *status, const char *fn, bool raise_it) {
  Grequest *g = g_of(r);
  MPI_Status tmp;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &tmp : status;
  status_empty(st);
  int rc;
  {
    Unlocked unlocked;
    rc = g->query(g->extra, st);
  }
  return rc == MPI_SUCCESS ? MPI_SUCCESS : callback_failed(fn, "query", rc, raise_it);
}

int grequest_finish(pamir::Request *r, MPI_Status *status, const char *fn, bool raise_it) {
  int rc = grequest_status(r, status, fn, raise_it);
  Grequest *g = g_of(r);
  if (!g->freed) {
    int frc;
    {
      Unlocked unlocked;
      frc = g->free_fn(g->extra);
    }
    if (frc != MPI_SUCCESS && rc == MPI_SUCCESS) rc = callback_failed(fn, "free", frc, raise_it);
  }
  release(r);
  return rc;
}

int grequest_free(pamir::Request *r, const char *fn) {
  Grequest *g = g_of(r);
  int rc;
  {
    Unlocked unlocked;
    rc = g->free_fn(g->extra);
  }
  g->freed = true;
  if (r->complete)
    release(r);
  else
    r->user_freed = true;  // MPI_Grequest_complete releases it
  return rc == MPI_SUCCESS ? MPI_SUCCESS : callback_failed(fn, "free", rc, true);
}

int grequest_cancel(pamir::Request *r, const char *fn) {
  Grequest *g = g_of(r);
  const int complete = r->complete;
  int rc;
  {
    Unlocked unlocked;
    rc = g->cancel(g->extra, complete);
  }
  return rc == MPI_SUCCESS ? MPI_SUCCESS : callback_failed(fn, "cancel", rc, true);
}

}  // namespace pamir::mpi

using namespace pamir::mpi;

int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn, void *extra_state, MPI_Request *request) {
  PAMIR_ENTER("MPI_Grequest_start");
  PAMIR_CHECK(nullptr, request, MPI_ERR_ARG, "request is NULL");
  PAMIR_CHECK(nullptr, query_fn && free_fn && cancel_fn, MPI_ERR_ARG,
              "the query, free and cancel functions must all be given");
  auto *g = new (std::nothrow) Grequest{query_fn, free_fn, cancel_fn, extra_state};
  PAMIR_CHECK(nullptr, g, MPI_ERR_NO_MEM, "no memory for a generalized request");
  pamir::Request *r = pamir::request_alloc(pamir::ReqKind::generalized);
  r->ext = g;
  *request = reinterpret_cast<MPI_Request>(r);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Grequest_start);

int PMPI_Grequest_complete(MPI_Request request) {
  PAMIR_ENTER("MPI_Grequest_complete");
  pamir::Request *r = PAMIR_REQUEST(request);
  PAMIR_CHECK(nullptr, r->kind == pamir::ReqKind::generalized, MPI_ERR_REQUEST,
              "the request is not a generalized request");
  PAMIR_CHECK(nullptr, !r->complete, MPI_ERR_REQUEST, "the generalized request is complete already");
  if (r->user_freed) {  // MPI_Request_free came first and ran free_fn: nobody waits for it
    delete static_cast<Grequest *>(r->ext);
    r->ext = nullptr;
    pamir::request_release(r);
    return MPI_SUCCESS;
  }
  pamir::request_complete(r);
  pamir::context().wake_sleepers();  // a thread may sleep in MPI_Wait on it
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Grequest_complete);
