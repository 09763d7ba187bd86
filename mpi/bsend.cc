// Buffered sends (MPI 5.0 §3.6): the buffer attached to the process (MPI_Buffer_attach) or to a
// communicator (MPI_Comm_attach_buffer, which a communicator's sends use first), first fit over a sorted
// list of used ranges, each message exactly its packed size plus MPI_BSEND_OVERHEAD; or, for
// MPI_BUFFER_AUTOMATIC, a heap copy per message that the library frees when the send completes. A flush
// (MPI_Buffer_flush, MPI_Comm_flush_buffer, and their nonblocking forms) waits until every message
// buffered so far in that buffer has left; a detach flushes first. Each buffered send points at its
// buffer (`ext`) so that its completion gives the range back.
#include <map>
#include <new>
#include <vector>

#include "mpi/check.h"
#include "mpi/request.h"
#include "mpi/session.h"
#include "pami/context.h"
#include "pamir_alias.h"

namespace pamir::mpi {

struct BsendBuffer {
  uint8_t *base = nullptr;
  uint64_t size = 0;
  bool automatic = false;
  bool orphan = false;                    // its communicator is gone: deleted when its last message has left
  std::map<uint64_t, uint64_t> used;      // offset -> length (message + MPI_BSEND_OVERHEAD)
  size_t active = 0;                      // buffered sends in flight
  std::vector<pamir::Request *> flushes;  // nonblocking flushes waiting for active == 0
  bool attached() const { return base || automatic; }
};

namespace {

BsendBuffer g_process;
size_t g_active_total = 0;  // over every buffer: what MPI_Finalize waits for

void flushes_done(BsendBuffer *b) {
  if (b->active) return;
  std::vector<pamir::Request *> done;
  done.swap(b->flushes);
  for (pamir::Request *r : done) request_complete(r);
}

void bsend_done(pamir::Request *r) {
  auto *b = static_cast<BsendBuffer *>(r->ext);
  auto *copy = static_cast<uint8_t *>(r->buf);
  if (b->automatic)
    delete[] copy;
  else
    b->used.erase(uint64_t(copy - b->base) - MPI_BSEND_OVERHEAD);
  --b->active;
  --g_active_total;
  r->ext = nullptr;
  request_release(r);
  flushes_done(b);
  if (b->orphan && b->active == 0) delete b;
}

// The buffer a send on c uses: c's own, else its session's, else the process's.
BsendBuffer *buffer_for(Comm *c) {
  if (c->bsend && c->bsend->attached()) return c->bsend;
  if (c->session && c->session->bsend && c->session->bsend->attached()) return c->session->bsend;
  return &g_process;
}

// A buffer whose owner goes: at once, or with the last of its messages still leaving.
void orphan(BsendBuffer *b) {
  if (!b) return;
  if (b->active)
    b->orphan = true;
  else
    delete b;
}

// Where `need` bytes fit in b, or false.
bool place(BsendBuffer *b, uint64_t need, uint64_t &at) {
  at = 0;
  for (auto [off, len] : b->used) {
    if (off - at >= need) return true;
    at = off + len;
  }
  return b->size - at >= need;
}

int attach(const char *fn_, Comm *c, BsendBuffer *b, void *buffer, int64_t size) {
  PAMIR_CHECK(c, size >= 0, MPI_ERR_ARG, "negative size %lld", (long long)size);
  PAMIR_CHECK(c, buffer || size == 0, MPI_ERR_BUFFER, "buffer is NULL");
  PAMIR_CHECK(c, !b->attached(), MPI_ERR_BUFFER, "a buffer is already attached");
  PAMIR_CHECK(c, !b->active, MPI_ERR_BUFFER, "the previous buffer's messages are still leaving");
  b->automatic = buffer == MPI_BUFFER_AUTOMATIC;
  b->base = b->automatic ? nullptr : static_cast<uint8_t *>(buffer);
  b->size = b->automatic ? 0 : uint64_t(size);
  b->used.clear();
  return MPI_SUCCESS;
}

void drain(BsendBuffer *b) {
  context().wait_until([b] { return b->active == 0; });
}

template <typename SizeT>
int detach(const char *fn_, Comm *c, BsendBuffer *b, void *buffer_addr, SizeT *size) {
  PAMIR_CHECK(c, buffer_addr && size, MPI_ERR_ARG, "buffer_addr or size is NULL");
  PAMIR_CHECK(c, b && b->attached(), MPI_ERR_BUFFER, "no buffer is attached");
  drain(b);
  *static_cast<void **>(buffer_addr) = b->automatic ? MPI_BUFFER_AUTOMATIC : b->base;
  *size = SizeT(b->size);
  b->base = nullptr;
  b->size = 0;
  b->automatic = false;
  b->used.clear();
  return MPI_SUCCESS;
}

int iflush(const char *fn_, Comm *c, BsendBuffer *b, MPI_Request *request) {
  PAMIR_CHECK(c, request, MPI_ERR_ARG, "request is NULL");
  pamir::Request *r = request_alloc(ReqKind::send);
  r->mpi_comm = c;
  r->status.source = MPI_ANY_SOURCE;
  r->status.tag = MPI_ANY_TAG;
  *request = reinterpret_cast<MPI_Request>(r);
  if (!b || b->active == 0) {
    r->complete = true;
    return MPI_SUCCESS;
  }
  b->flushes.push_back(r);
  return MPI_SUCCESS;
}

}  // namespace

int bsend_start(Comm *c, const char *fn, const void *buf, const Datatype *t, uint64_t count, int dest,
                int tag) {
  const Data d = data_of(t, buf, count);
  const uint64_t bytes = d.bytes;
  BsendBuffer *b = buffer_for(c);
  if (!b->attached())
    return raise(c, fn, MPI_ERR_BUFFER, "no buffer is attached (MPI_Buffer_attach, MPI_Comm_attach_buffer)");
  uint8_t *copy;
  if (b->automatic) {
    copy = new (std::nothrow) uint8_t[bytes ? bytes : 1];
    if (!copy)
      return raise(c, fn, MPI_ERR_NO_MEM, "no memory to buffer %llu bytes", (unsigned long long)bytes);
  } else {
    // Exactly what the standard counts per message (MPI_Pack_size + MPI_BSEND_OVERHEAD): rounding up would
    // refuse a buffer sized by that rule. The copy is bytes, so no alignment is needed.
    const uint64_t need = bytes + MPI_BSEND_OVERHEAD;
    context().advance();  // reclaim the ranges of sends that completed meanwhile
    uint64_t at = 0;
    if (!place(b, need, at))
      return raise(
          c, fn, MPI_ERR_BUFFER,
          "the attached buffer (%llu bytes) has no room for %llu bytes plus MPI_BSEND_OVERHEAD (%d); "
          "%zu buffered sends are in flight",
          (unsigned long long)b->size, (unsigned long long)bytes, MPI_BSEND_OVERHEAD, b->active);
    b->used[at] = need;
    copy = b->base + at + MPI_BSEND_OVERHEAD;
  }
  ++b->active;
  ++g_active_total;
  pack_data(d, copy);
  pamir::Request *r = request_alloc(ReqKind::send);
  r->ctx = c->ctx;
  r->source = c->rank;
  r->tag = tag;
  r->peer_task = c->task_of(dest);
  r->buf = copy;
  r->bytes = bytes;
  r->mpi_comm = c;
  r->ext = b;
  r->on_complete = bsend_done;
  context().start_send(r);
  return MPI_SUCCESS;
}

void bsend_drain() {
  context().wait_until([] { return g_active_total == 0; });
}

void bsend_comm_release(Comm *c) {
  BsendBuffer *b = c->bsend;
  c->bsend = nullptr;
  orphan(b);  // messages still leaving give their ranges back to it
}

BsendBuffer *session_buffer(Session *s) {
  if (!s->bsend) s->bsend = new BsendBuffer;
  return s->bsend;
}

void bsend_session_release(Session *s) {
  BsendBuffer *b = s->bsend;
  s->bsend = nullptr;
  orphan(b);
}

}  // namespace pamir::mpi

using namespace pamir::mpi;

int PMPI_Buffer_attach(void *buffer, int size) {
  PAMIR_ENTER("MPI_Buffer_attach");
  return attach(fn_, nullptr, &g_process, buffer, size);
}
PAMIR_ALIAS(Buffer_attach);
int PMPI_Buffer_attach_c(void *buffer, MPI_Count size) {
  PAMIR_ENTER("MPI_Buffer_attach_c");
  return attach(fn_, nullptr, &g_process, buffer, size);
}
PAMIR_ALIAS(Buffer_attach_c);
int PMPI_Buffer_detach(void *buffer_addr, int *size) {
  PAMIR_ENTER("MPI_Buffer_detach");
  return detach(fn_, nullptr, &g_process, buffer_addr, size);
}
PAMIR_ALIAS(Buffer_detach);
int PMPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size) {
  PAMIR_ENTER("MPI_Buffer_detach_c");
  return detach(fn_, nullptr, &g_process, buffer_addr, size);
}
PAMIR_ALIAS(Buffer_detach_c);
int PMPI_Buffer_flush(void) {
  PAMIR_ENTER("MPI_Buffer_flush");
  drain(&g_process);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Buffer_flush);
int PMPI_Buffer_iflush(MPI_Request *request) {
  PAMIR_ENTER("MPI_Buffer_iflush");
  return iflush(fn_, nullptr, &g_process, request);
}
PAMIR_ALIAS(Buffer_iflush);

namespace {
BsendBuffer *own_buffer(Comm *c) {
  if (!c->bsend) c->bsend = new BsendBuffer;
  return c->bsend;
}
}  // namespace

int PMPI_Comm_attach_buffer(MPI_Comm comm, void *buffer, int size) {
  PAMIR_ENTER("MPI_Comm_attach_buffer");
  Comm *c = PAMIR_COMM(comm);
  return attach(fn_, c, own_buffer(c), buffer, size);
}
PAMIR_ALIAS(Comm_attach_buffer);
int PMPI_Comm_attach_buffer_c(MPI_Comm comm, void *buffer, MPI_Count size) {
  PAMIR_ENTER("MPI_Comm_attach_buffer_c");
  Comm *c = PAMIR_COMM(comm);
  return attach(fn_, c, own_buffer(c), buffer, size);
}
PAMIR_ALIAS(Comm_attach_buffer_c);
int PMPI_Comm_detach_buffer(MPI_Comm comm, void *buffer_addr, int *size) {
  PAMIR_ENTER("MPI_Comm_detach_buffer");
  Comm *c = PAMIR_COMM(comm);
  return detach(fn_, c, c->bsend, buffer_addr, size);
}
PAMIR_ALIAS(Comm_detach_buffer);
int PMPI_Comm_detach_buffer_c(MPI_Comm comm, void *buffer_addr, MPI_Count *size) {
  PAMIR_ENTER("MPI_Comm_detach_buffer_c");
  Comm *c = PAMIR_COMM(comm);
  return detach(fn_, c, c->bsend, buffer_addr, size);
}
PAMIR_ALIAS(Comm_detach_buffer_c);
int PMPI_Comm_flush_buffer(MPI_Comm comm) {
  PAMIR_ENTER("MPI_Comm_flush_buffer");
  Comm *c = PAMIR_COMM(comm);
  if (c->bsend) drain(c->bsend);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Comm_flush_buffer);
int PMPI_Comm_iflush_buffer(MPI_Comm comm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Comm_iflush_buffer");
  Comm *c = PAMIR_COMM(comm);
  return iflush(fn_, c, c->bsend, request);
}
PAMIR_ALIAS(Comm_iflush_buffer);

namespace {
#define SESSION_OF(h)                                                                                    \
  ({                                                                                                     \
    Session *s_ = lookup<Session>(h);                                                                    \
    if (__builtin_expect(!s_, 0)) return raise(nullptr, fn_, MPI_ERR_SESSION, "invalid session handle"); \
    s_;                                                                                                  \
  })
}  // namespace

int PMPI_Session_attach_buffer(MPI_Session session, void *buffer, int size) {
  PAMIR_ENTER("MPI_Session_attach_buffer");
  Session *s = SESSION_OF(session);
  return attach(fn_, nullptr, session_buffer(s), buffer, size);
}
PAMIR_ALIAS(Session_attach_buffer);
int PMPI_Session_attach_buffer_c(MPI_Session session, void *buffer, MPI_Count size) {
  PAMIR_ENTER("MPI_Session_attach_buffer_c");
  Session *s = SESSION_OF(session);
  return attach(fn_, nullptr, session_buffer(s), buffer, size);
}
PAMIR_ALIAS(Session_attach_buffer_c);
int PMPI_Session_detach_buffer(MPI_Session session, void *buffer_addr, int *size) {
  PAMIR_ENTER("MPI_Session_detach_buffer");
  Session *s = SESSION_OF(session);
  return detach(fn_, nullptr, s->bsend, buffer_addr, size);
}
PAMIR_ALIAS(Session_detach_buffer);
int PMPI_Session_detach_buffer_c(MPI_Session session, void *buffer_addr, MPI_Count *size) {
  PAMIR_ENTER("MPI_Session_detach_buffer_c");
  Session *s = SESSION_OF(session);
  return detach(fn_, nullptr, s->bsend, buffer_addr, size);
}
PAMIR_ALIAS(Session_detach_buffer_c);
int PMPI_Session_flush_buffer(MPI_Session session) {
  PAMIR_ENTER("MPI_Session_flush_buffer");
  Session *s = SESSION_OF(session);
  if (s->bsend) drain(s->bsend);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Session_flush_buffer);
int PMPI_Session_iflush_buffer(MPI_Session session, MPI_Request *request) {
  PAMIR_ENTER("MPI_Session_iflush_buffer");
  Session *s = SESSION_OF(session);
  return iflush(fn_, nullptr, s->bsend, request);
}
PAMIR_ALIAS(Session_iflush_buffer);
