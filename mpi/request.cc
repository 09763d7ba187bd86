// Completion: the Wait and Test families, cancel, free and statuses.
#include "mpi/request.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <map>

#include "mpi/check.h"
#include "mpi/status.h"
#include "pami/context.h"
#include "pamir_alias.h"

namespace pamir::mpi {

namespace {
size_t detached = 0;

void release_detached(pamir::Request *r) {
  --detached;
  request_free(r);
}
}  // namespace

void request_free(pamir::Request *r) {
  if (r->mpi_type) [[unlikely]] {
    datatype_release(static_cast<Datatype *>(r->mpi_type));
    r->mpi_type = nullptr;
  }
  request_release(r);
}

MPI_Message message_make(Comm *c, pamir::Unexpected *u) {
  Message *m = pool<Message>().make();
  m->u = u;
  m->comm = c;
  return handle_of<MPI_Message>(m);
}

void message_release(Message *m) {
  pool<Message>().destroy(m);
}

namespace {
// A nonblocking collective's failure: its messages are the algorithm's, so the text speaks of the
// collective rather than of one message.
[[gnu::cold]] int collective_error(pamir::Request *r, const char *fn, bool raise_it) {
  Comm *c = raise_it ? static_cast<Comm *>(r->mpi_comm) : nullptr;
  int cls = MPI_ERR_INTERN;
  const char *why = "internal error (no memory for a scratch buffer?)";
  switch (r->status.error) {
    case Err::truncate:
      cls = MPI_ERR_TRUNCATE;
      why = "a message of the collective had an unexpected length: the ranks disagree on a count or datatype";
      break;
    case Err::proc_failed:
      cls = MPI_ERR_PROC_ABORTED;
      why = "a process of the communicator is gone";
      break;
    case Err::device:
    case Err::rdma:
      cls = MPI_ERR_OTHER;
      why = "a device operation of the collective failed";
      break;
    default:
      break;
  }
  return raise_it ? raise(c, fn, cls, "%s", why) : cls;
}
}  // namespace

int request_error(pamir::Request *r, const char *fn, bool raise_it) {
  const pamir::Status &s = r->status;
  if (__builtin_expect(s.error == Err::ok, 1)) return MPI_SUCCESS;
  Comm *c = static_cast<Comm *>(r->mpi_comm);
  if (!raise_it) c = nullptr;
  if (r->kind == ReqKind::schedule || (r->kind == ReqKind::persistent && persistent_op(r)->collective))
    return collective_error(r, fn, raise_it);
  switch (s.error) {
    case Err::truncate:
      return raise_it
                 ? raise(
                       c, fn, MPI_ERR_TRUNCATE,
                       "message from rank %d with tag %d has %llu bytes, the receive buffer holds %llu bytes",
                       s.source, s.tag, (unsigned long long)s.sent_bytes, (unsigned long long)r->bytes)
                 : MPI_ERR_TRUNCATE;
    case Err::proc_failed:
      return raise_it ? raise(c, fn, MPI_ERR_PROC_ABORTED, "the peer process is gone") : MPI_ERR_PROC_ABORTED;
    case Err::device:
      return raise_it ? raise(c, fn, MPI_ERR_OTHER, "a device operation failed") : MPI_ERR_OTHER;
    case Err::signature:
      return raise_it ? raise(c, fn, MPI_ERR_TYPE,
                              "the message from rank %d with tag %d has a type signature that the receive's "
                              "datatype does not start with (PAMIR_CHECK_SIGNATURE)",
                              s.source, s.tag)
                      : MPI_ERR_TYPE;
    case Err::rdma:
      return raise_it ? raise(c, fn, MPI_ERR_OTHER, "the rendezvous read of the message's data failed: %s",
                              std::strerror(s.sys_errno))
                      : MPI_ERR_OTHER;
    case Err::put:
      return raise_it ? raise(c, fn, MPI_ERR_OTHER,
                              "the direct put of the message's data into the receive's buffer failed: %s",
                              std::strerror(s.sys_errno))
                      : MPI_ERR_OTHER;
    default:
      return raise_it ? raise(c, fn, MPI_ERR_INTERN, "internal error %d", int(s.error)) : MPI_ERR_INTERN;
  }
}

namespace {
// request_status's body, in request_finish too: every completed request of a Wait passes here.
[[gnu::always_inline]] inline int status_of(pamir::Request *r, MPI_Status *status, const char *fn,
                                            bool raise_it) {
  status_from(status, r->status);
  vclock_observe(r->vt);  // the program has seen it complete (the torus's timing model)
  if (__builtin_expect(r->status.error == Err::ok, 1)) return MPI_SUCCESS;
  // The code's text keeps the numbers, whatever becomes of the request afterwards.
  int rc = request_error(r, fn, false);
  if (raise_it) rc = request_error(r, fn, true);
  return rc;
}
}  // namespace

int request_status(pamir::Request *r, MPI_Status *status, const char *fn, bool raise_it) {
  if (r->kind == ReqKind::generalized) [[unlikely]]
    return grequest_status(r, status, fn, raise_it);
  return status_of(r, status, fn, raise_it);
}

int request_finish(pamir::Request *r, MPI_Status *status, const char *fn, bool raise_it) {
  if (r->kind == ReqKind::generalized) [[unlikely]]
    return grequest_finish(r, status, fn, raise_it);
  const int rc = status_of(r, status, fn, raise_it);
  request_free(r);
  return rc;
}

void request_detach(pamir::Request *r) {
  ++detached;
  r->user_freed = true;
  r->on_complete = release_detached;
}

size_t detached_outstanding() {
  return detached;
}

}  // namespace pamir::mpi

using namespace pamir::mpi;
using pamir::context;

// --- single completion ---------------------------------------------------------------------------

// Completes the request r of handle *h: its status and error. A persistent request stays the user's,
// inactive; any other is freed and *h becomes MPI_REQUEST_NULL.
int finish_handle(MPI_Request *h, pamir::Request *r, MPI_Status *status, const char *fn, bool raise_it) {
  if (r->kind == pamir::ReqKind::persistent) return persistent_finish(r, status, fn, raise_it);
  *h = MPI_REQUEST_NULL;
  return request_finish(r, status, fn, raise_it);
}

int PMPI_Wait(MPI_Request *request, MPI_Status *status) {
  PAMIR_ENTER("MPI_Wait");
  PAMIR_CHECK(nullptr, request, MPI_ERR_REQUEST, "request is NULL");
  if (*request == MPI_REQUEST_NULL) {
    status_empty(status);
    return MPI_SUCCESS;
  }
  pamir::Request *r = PAMIR_REQUEST(*request);
  context().wait_until([r] { return r->complete; });
  return finish_handle(request, r, status, fn_, true);
}
PAMIR_ALIAS(Wait);

int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status) {
  PAMIR_ENTER("MPI_Test");
  PAMIR_CHECK(nullptr, request && flag, MPI_ERR_ARG, "request or flag is NULL");
  if (*request == MPI_REQUEST_NULL) {
    *flag = 1;
    status_empty(status);
    return MPI_SUCCESS;
  }
  pamir::Request *r = PAMIR_REQUEST(*request);
  if (!r->complete) context().advance();
  *flag = r->complete;
  if (!r->complete) {
    context().poll_missed();
    return MPI_SUCCESS;
  }
  return finish_handle(request, r, status, fn_, true);
}
PAMIR_ALIAS(Test);

int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status) {
  PAMIR_ENTER("MPI_Request_get_status");
  PAMIR_CHECK(nullptr, flag, MPI_ERR_ARG, "flag is NULL");
  if (request == MPI_REQUEST_NULL) {
    *flag = 1;
    status_empty(status);
    return MPI_SUCCESS;
  }
  pamir::Request *r = PAMIR_REQUEST(request);
  if (!r->complete) context().advance();
  *flag = r->complete;
  if (!r->complete) context().poll_missed();
  if (request_inactive(r)) {
    status_empty(status);
    return MPI_SUCCESS;
  }
  if (r->complete) return request_status(r, status, fn_, true);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Request_get_status);

int PMPI_Request_free(MPI_Request *request) {
  PAMIR_ENTER("MPI_Request_free");
  PAMIR_CHECK(nullptr, request, MPI_ERR_REQUEST, "request is NULL");
  PAMIR_CHECK(nullptr, *request != MPI_REQUEST_NULL, MPI_ERR_REQUEST, "MPI_REQUEST_NULL cannot be freed");
  pamir::Request *r = PAMIR_REQUEST(*request);
  *request = MPI_REQUEST_NULL;
  if (r->kind == pamir::ReqKind::generalized) return grequest_free(r, fn_);
  if (r->kind == pamir::ReqKind::persistent) {
    if (int rc = persistent_free(r, fn_)) {
      *request = reinterpret_cast<MPI_Request>(r);  // still the user's
      return rc;
    }
  } else if (r->complete) {
    request_free(r);
  } else {
    request_detach(r);
  }
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Request_free);

int PMPI_Cancel(MPI_Request *request) {
  PAMIR_ENTER("MPI_Cancel");
  PAMIR_CHECK(nullptr, request, MPI_ERR_REQUEST, "request is NULL");
  PAMIR_CHECK(nullptr, *request != MPI_REQUEST_NULL, MPI_ERR_REQUEST, "MPI_REQUEST_NULL cannot be cancelled");
  pamir::Request *r = PAMIR_REQUEST(*request);
  // Receives that have not matched are cancelled; a send that has started is not (MPI allows that),
  // and MPI_Test_cancelled then reports false.
  if (r->kind == pamir::ReqKind::generalized) return grequest_cancel(r, fn_);
  if (r->kind == pamir::ReqKind::recv && !r->complete) context().cancel_recv(r);
  if (r->kind == pamir::ReqKind::persistent) persistent_cancel(r);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Cancel);

int PMPI_Test_cancelled(const MPI_Status *status, int *flag) {
  PAMIR_ENTER("MPI_Test_cancelled");
  PAMIR_CHECK(nullptr, status && flag, MPI_ERR_ARG, "status or flag is NULL");
  *flag = status->MPI_internal[2] != 0;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Test_cancelled);

// --- multiple completion -------------------------------------------------------------------------

namespace {

// Finishes request i of a multiple-completion call: status (with MPI_ERROR set), release, error.
int finish_in_array(MPI_Request *reqs, int i, MPI_Status *statuses, const char *fn) {
  pamir::Request *r = request_of(reqs[i]);
  MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
  int rc = finish_handle(&reqs[i], r, st, fn, false);
  if (st != MPI_STATUS_IGNORE) st->MPI_ERROR = rc;
  return rc;
}

int check_array(const char *fn_, int count, MPI_Request *reqs) {
  PAMIR_CHECK(nullptr, count >= 0, MPI_ERR_COUNT, "negative count %d", count);
  PAMIR_CHECK(nullptr, reqs || count == 0, MPI_ERR_REQUEST, "array_of_requests is NULL");
  for (int i = 0; i < count; ++i)
    PAMIR_CHECK(nullptr, reqs[i] == MPI_REQUEST_NULL || request_of(reqs[i]), MPI_ERR_REQUEST,
                "array_of_requests[%d] is not a valid request (freed or never made)", i);
  return MPI_SUCCESS;
}

// The error of a multiple-completion call: MPI_ERR_IN_STATUS, raised on the communicator of the
// first failed request, with the reasons in the statuses.
int in_status_error(const char *fn, Comm *c, int failed, int first_code) {
  return raise(c, fn, MPI_ERR_IN_STATUS, "%d request(s) failed; the first: %s", failed,
               error_string(first_code).c_str());
}

}  // namespace

// An array of persistent requests, statuses ignored (a replayed pattern's Waitall): a started one that
// succeeded is finished as persistent_finish would, without its calls. The handles were checked.
[[gnu::noinline]] static int finish_persistent_array(const char *fn_, int count, MPI_Request *reqs) {
  int failed = 0, first = MPI_SUCCESS;
  Comm *fc = nullptr;
  // The program sees them all complete: with no scope open and the log off, the clock takes the
  // latest once, after the loop; otherwise each, before it.
  const bool plain = pamir::g_vclock.flags == 0;
  if (!plain) [[unlikely]]
    for (int i = 0; i < count; ++i)
      if (auto *r = reinterpret_cast<pamir::Request *>(reqs[i]); reqs[i] != MPI_REQUEST_NULL &&
                                                                 r->kind == pamir::ReqKind::persistent &&
                                                                 r->status.error == pamir::Err::ok)
        pamir::vclock_observe(r->vt);
  uint64_t latest = 0;
  for (int i = 0; i < count; ++i) {
    auto *r = reinterpret_cast<pamir::Request *>(reqs[i]);
    if (reqs[i] == MPI_REQUEST_NULL) continue;
    if (r->kind == pamir::ReqKind::persistent && r->status.error == pamir::Err::ok) [[likely]] {
      latest = std::max(latest, r->vt.ns);
      set_inactive(r);
      continue;
    }
    Comm *c = static_cast<Comm *>(r->mpi_comm);
    int rc = finish_in_array(reqs, i, MPI_STATUSES_IGNORE, fn_);
    if (rc != MPI_SUCCESS && failed++ == 0) {
      first = rc;
      fc = c;
    }
  }
  if (plain) pamir::vclock_observe(pamir::Vt{latest});
  return failed ? in_status_error(fn_, fc, failed, first) : MPI_SUCCESS;
}

static int finish_all(const char *fn_, int count, MPI_Request *array_of_requests,
                      MPI_Status *array_of_statuses) {
  int failed = 0, first = MPI_SUCCESS;
  Comm *fc = nullptr;
  for (int i = 0; i < count; ++i) {
    if (array_of_requests[i] == MPI_REQUEST_NULL) {
      if (array_of_statuses != MPI_STATUSES_IGNORE) {
        status_empty(&array_of_statuses[i]);
        array_of_statuses[i].MPI_ERROR = MPI_SUCCESS;
      }
      continue;
    }
    Comm *c = static_cast<Comm *>(request_of(array_of_requests[i])->mpi_comm);
    int rc = finish_in_array(array_of_requests, i, array_of_statuses, fn_);
    if (rc != MPI_SUCCESS && failed++ == 0) {
      first = rc;
      fc = c;
    }
  }
  return failed ? in_status_error(fn_, fc, failed, first) : MPI_SUCCESS;
}

// MPI_Waitall's and MPI_Testall's completion: an array that begins with a persistent request, statuses
// ignored, takes finish_persistent_array; any other, finish_all (whose loop stays as tight as it was).
static inline int finish_array(const char *fn_, int count, MPI_Request *reqs, MPI_Status *statuses) {
  if (statuses == MPI_STATUSES_IGNORE && count > 0 && reqs[0] != MPI_REQUEST_NULL &&
      reinterpret_cast<pamir::Request *>(reqs[0])->kind == pamir::ReqKind::persistent)
    return finish_persistent_array(fn_, count, reqs);
  return finish_all(fn_, count, reqs, statuses);
}

int PMPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]) {
  PAMIR_ENTER("MPI_Waitall");
  if (int rc = check_array(fn_, count, array_of_requests)) return rc;
  context().wait_until([&] {
    for (int i = 0; i < count; ++i) {
      pamir::Request *r = request_of(array_of_requests[i]);
      if (r && !r->complete) return false;
    }
    return true;
  });
  return finish_array(fn_, count, array_of_requests, array_of_statuses);
}
PAMIR_ALIAS(Waitall);

int PMPI_Testall(int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[]) {
  PAMIR_ENTER("MPI_Testall");
  PAMIR_CHECK(nullptr, flag, MPI_ERR_ARG, "flag is NULL");
  if (int rc = check_array(fn_, count, array_of_requests)) return rc;
  context().advance();
  for (int i = 0; i < count; ++i) {
    pamir::Request *r = request_of(array_of_requests[i]);
    if (r && !r->complete) {
      *flag = 0;
      context().poll_missed();
      return MPI_SUCCESS;
    }
  }
  *flag = 1;
  return finish_array(fn_, count, array_of_requests, array_of_statuses);
}
PAMIR_ALIAS(Testall);

static int any(const char *fn_, int count, MPI_Request *reqs, int *index, int *flag, MPI_Status *status,
               bool blocking) {
  PAMIR_CHECK(nullptr, index, MPI_ERR_ARG, "index is NULL");
  if (int rc = check_array(fn_, count, reqs)) return rc;
  int found = MPI_UNDEFINED;
  bool all_null = true;
  auto scan = [&] {
    all_null = true;
    for (int i = 0; i < count; ++i) {
      pamir::Request *r = request_of(reqs[i]);
      if (!r || request_inactive(r)) continue;
      all_null = false;
      if (r->complete) {
        found = i;
        return true;
      }
    }
    return all_null;
  };
  if (blocking) {
    context().wait_until(scan);
  } else {
    context().advance();
    scan();
  }
  if (found == MPI_UNDEFINED) {
    if (!blocking && !all_null) context().poll_missed();
    *index = MPI_UNDEFINED;
    if (flag) *flag = all_null;
    if (all_null) status_empty(status);
    return MPI_SUCCESS;
  }
  if (flag) *flag = 1;
  *index = found;
  return finish_handle(&reqs[found], request_of(reqs[found]), status, fn_, true);
}

int PMPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status) {
  PAMIR_ENTER("MPI_Waitany");
  return any(fn_, count, array_of_requests, index, nullptr, status, true);
}
PAMIR_ALIAS(Waitany);

int PMPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status) {
  PAMIR_ENTER("MPI_Testany");
  PAMIR_CHECK(nullptr, flag, MPI_ERR_ARG, "flag is NULL");
  return any(fn_, count, array_of_requests, index, flag, status, false);
}
PAMIR_ALIAS(Testany);

static int some(const char *fn_, int incount, MPI_Request *reqs, int *outcount, int *indices,
                MPI_Status *statuses, bool blocking) {
  PAMIR_CHECK(nullptr, outcount, MPI_ERR_ARG, "outcount is NULL");
  if (int rc = check_array(fn_, incount, reqs)) return rc;
  PAMIR_CHECK(nullptr, indices || incount == 0, MPI_ERR_ARG, "array_of_indices is NULL");
  bool all_null = true;
  auto ready = [&] {
    all_null = true;
    bool any_done = false;
    for (int i = 0; i < incount; ++i) {
      pamir::Request *r = request_of(reqs[i]);
      if (!r || request_inactive(r)) continue;
      all_null = false;
      any_done |= r->complete;
    }
    return any_done || all_null;
  };
  if (blocking) {
    context().wait_until(ready);
  } else {
    context().advance();
    if (!ready()) context().poll_missed();
  }
  if (all_null) {
    *outcount = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  int n = 0, failed = 0, first = MPI_SUCCESS;
  Comm *fc = nullptr;
  for (int i = 0; i < incount; ++i) {
    pamir::Request *r = request_of(reqs[i]);
    if (!r || request_inactive(r) || !r->complete) continue;
    Comm *c = static_cast<Comm *>(r->mpi_comm);
    indices[n] = i;
    MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[n];
    int rc = finish_handle(&reqs[i], r, st, fn_, false);
    if (st != MPI_STATUS_IGNORE) st->MPI_ERROR = rc;
    if (rc != MPI_SUCCESS && failed++ == 0) {
      first = rc;
      fc = c;
    }
    ++n;
  }
  *outcount = n;
  return failed ? in_status_error(fn_, fc, failed, first) : MPI_SUCCESS;
}

int PMPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                  MPI_Status array_of_statuses[]) {
  PAMIR_ENTER("MPI_Waitsome");
  return some(fn_, incount, array_of_requests, outcount, array_of_indices, array_of_statuses, true);
}
PAMIR_ALIAS(Waitsome);

int PMPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                  MPI_Status array_of_statuses[]) {
  PAMIR_ENTER("MPI_Testsome");
  return some(fn_, incount, array_of_requests, outcount, array_of_indices, array_of_statuses, false);
}
PAMIR_ALIAS(Testsome);

// --- MPI_Request_get_status_all, _any, _some (MPI 4.1): Testall, Testany and Testsome that leave the
// requests as they are (nothing freed, persistent requests still active) -----------------------------

namespace {

// A request that counts: neither MPI_REQUEST_NULL nor an inactive persistent request.
pamir::Request *counted(MPI_Request h) {
  pamir::Request *r = request_of(h);
  return r && !request_inactive(r) ? r : nullptr;
}

// The status of a complete request into *st (when wanted, with MPI_ERROR); its error code.
int peek(pamir::Request *r, MPI_Status *st, const char *fn) {
  const int rc = request_status(r, st, fn, false);
  if (st != MPI_STATUS_IGNORE) st->MPI_ERROR = rc;
  return rc;
}

}  // namespace

int PMPI_Request_get_status_all(int count, const MPI_Request array_of_requests[], int *flag,
                                MPI_Status array_of_statuses[]) {
  PAMIR_ENTER("MPI_Request_get_status_all");
  MPI_Request *reqs = const_cast<MPI_Request *>(array_of_requests);
  PAMIR_CHECK(nullptr, flag, MPI_ERR_ARG, "flag is NULL");
  if (int rc = check_array(fn_, count, reqs)) return rc;
  context().advance();
  for (int i = 0; i < count; ++i)
    if (pamir::Request *r = counted(reqs[i]); r && !r->complete) {
      *flag = 0;
      context().poll_missed();
      return MPI_SUCCESS;
    }
  *flag = 1;
  int failed = 0, first = MPI_SUCCESS;
  Comm *fc = nullptr;
  for (int i = 0; i < count; ++i) {
    MPI_Status *st = array_of_statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &array_of_statuses[i];
    pamir::Request *r = counted(reqs[i]);
    if (!r) {
      status_empty(st);
      if (st != MPI_STATUS_IGNORE) st->MPI_ERROR = MPI_SUCCESS;
      continue;
    }
    const int rc = peek(r, st, fn_);
    if (rc != MPI_SUCCESS && failed++ == 0) {
      first = rc;
      fc = static_cast<Comm *>(r->mpi_comm);
    }
  }
  return failed ? in_status_error(fn_, fc, failed, first) : MPI_SUCCESS;
}
PAMIR_ALIAS(Request_get_status_all);

int PMPI_Request_get_status_any(int count, const MPI_Request array_of_requests[], int *index, int *flag,
                                MPI_Status *status) {
  PAMIR_ENTER("MPI_Request_get_status_any");
  MPI_Request *reqs = const_cast<MPI_Request *>(array_of_requests);
  PAMIR_CHECK(nullptr, index && flag, MPI_ERR_ARG, "index or flag is NULL");
  if (int rc = check_array(fn_, count, reqs)) return rc;
  context().advance();
  bool none = true;
  for (int i = 0; i < count; ++i) {
    pamir::Request *r = counted(reqs[i]);
    if (!r) continue;
    none = false;
    if (!r->complete) continue;
    *index = i;
    *flag = 1;
    return request_status(r, status, fn_, true);
  }
  *index = MPI_UNDEFINED;
  *flag = none;
  if (none)
    status_empty(status);
  else
    context().poll_missed();
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Request_get_status_any);

int PMPI_Request_get_status_some(int incount, const MPI_Request array_of_requests[], int *outcount,
                                 int array_of_indices[], MPI_Status array_of_statuses[]) {
  PAMIR_ENTER("MPI_Request_get_status_some");
  MPI_Request *reqs = const_cast<MPI_Request *>(array_of_requests);
  PAMIR_CHECK(nullptr, outcount, MPI_ERR_ARG, "outcount is NULL");
  if (int rc = check_array(fn_, incount, reqs)) return rc;
  PAMIR_CHECK(nullptr, array_of_indices || incount == 0, MPI_ERR_ARG, "array_of_indices is NULL");
  context().advance();
  bool none = true;
  int n = 0, failed = 0, first = MPI_SUCCESS;
  Comm *fc = nullptr;
  for (int i = 0; i < incount; ++i) {
    pamir::Request *r = counted(reqs[i]);
    if (!r) continue;
    none = false;
    if (!r->complete) continue;
    array_of_indices[n] = i;
    const int rc =
        peek(r, array_of_statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &array_of_statuses[n], fn_);
    if (rc != MPI_SUCCESS && failed++ == 0) {
      first = rc;
      fc = static_cast<Comm *>(r->mpi_comm);
    }
    ++n;
  }
  *outcount = none ? MPI_UNDEFINED : n;
  if (!none && n == 0) context().poll_missed();
  return failed ? in_status_error(fn_, fc, failed, first) : MPI_SUCCESS;
}
PAMIR_ALIAS(Request_get_status_some);

// --- statuses ------------------------------------------------------------------------------------

int PMPI_Status_set_cancelled(MPI_Status *status, int flag) {
  PAMIR_ENTER("MPI_Status_set_cancelled");
  PAMIR_CHECK(nullptr, status, MPI_ERR_ARG, "status is NULL");
  status->MPI_internal[2] = flag != 0;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Status_set_cancelled);

int PMPI_Status_get_source(const MPI_Status *status, int *source) {
  PAMIR_ENTER("MPI_Status_get_source");
  PAMIR_CHECK(nullptr, status && source, MPI_ERR_ARG, "status or source is NULL");
  *source = status->MPI_SOURCE;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Status_get_source);
int PMPI_Status_get_tag(const MPI_Status *status, int *tag) {
  PAMIR_ENTER("MPI_Status_get_tag");
  PAMIR_CHECK(nullptr, status && tag, MPI_ERR_ARG, "status or tag is NULL");
  *tag = status->MPI_TAG;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Status_get_tag);
int PMPI_Status_get_error(const MPI_Status *status, int *err) {
  PAMIR_ENTER("MPI_Status_get_error");
  PAMIR_CHECK(nullptr, status && err, MPI_ERR_ARG, "status or err is NULL");
  *err = status->MPI_ERROR;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Status_get_error);
int PMPI_Status_set_source(MPI_Status *status, int source) {
  PAMIR_ENTER("MPI_Status_set_source");
  PAMIR_CHECK(nullptr, status, MPI_ERR_ARG, "status is NULL");
  status->MPI_SOURCE = source;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Status_set_source);
int PMPI_Status_set_tag(MPI_Status *status, int tag) {
  PAMIR_ENTER("MPI_Status_set_tag");
  PAMIR_CHECK(nullptr, status, MPI_ERR_ARG, "status is NULL");
  status->MPI_TAG = tag;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Status_set_tag);
int PMPI_Status_set_error(MPI_Status *status, int err) {
  PAMIR_ENTER("MPI_Status_set_error");
  PAMIR_CHECK(nullptr, status, MPI_ERR_ARG, "status is NULL");
  status->MPI_ERROR = err;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Status_set_error);

static int set_elements(const char *fn_, MPI_Status *status, MPI_Datatype datatype, MPI_Count count) {
  Datatype *t = PAMIR_TYPE(nullptr, datatype);
  PAMIR_CHECK(nullptr, status, MPI_ERR_ARG, "status is NULL");
  PAMIR_CHECK(nullptr, count >= 0, MPI_ERR_COUNT, "negative count %lld", (long long)count);
  status_set_bytes(status, uint64_t(count) * uint64_t(t->extent));
  return MPI_SUCCESS;
}
int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count) {
  PAMIR_ENTER("MPI_Status_set_elements");
  return set_elements(fn_, status, datatype, count);
}
PAMIR_ALIAS(Status_set_elements);
int PMPI_Status_set_elements_c(MPI_Status *status, MPI_Datatype datatype, MPI_Count count) {
  PAMIR_ENTER("MPI_Status_set_elements_c");
  return set_elements(fn_, status, datatype, count);
}
PAMIR_ALIAS(Status_set_elements_c);
int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count) {
  PAMIR_ENTER("MPI_Status_set_elements_x");
  return set_elements(fn_, status, datatype, count);
}
PAMIR_ALIAS(Status_set_elements_x);
