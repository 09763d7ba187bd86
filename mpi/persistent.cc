// Persistent point-to-point requests (MPI 4.1 section 3.9): MPI_Send_init and its modes, MPI_Recv_init,
// MPI_Start and MPI_Startall. The handle the user keeps is a request of kind `persistent` holding the
// arguments. An inactive handle is complete with an empty status, so the Wait and Test families return
// at once for it (mpi/request.cc also skips inactive handles where MPI treats them like null ones) and
// leave the handle in place rather than freeing it.
//
// Record and replay (seed 004, pami/pattern.h): the first MPI_Start of a request, or the first
// MPI_Startall of a request array, describes its operations once as descriptors in a section of the
// FIFO; every later start re-arms the section's counters and injects the same descriptors. The
// operation a descriptor arms belongs to the request (`rec`), so a replay allocates nothing. A buffered
// send (its data is copied out at each start) and MPI_PROC_NULL take the ordinary path, each start
// beginning what MPI_Isend or MPI_Irecv would; so does a pattern that finds the FIFO full.
#include <algorithm>
#include <new>
#include <unordered_map>
#include <vector>

#include "mpi/check.h"
#include "mpi/pt2pt.h"
#include "mpi/request.h"
#include "mpi/status.h"
#include "pami/config.h"
#include "pami/context.h"
#include "pami/pattern.h"
#include "pami/stats.h"
#include "pamir_alias.h"

namespace pamir::mpi {

namespace {

// A persistent send or receive: what it starts, every time.
struct Persistent final : PersistentOp {
  Persistent(Datatype *type, void *buf, int64_t count, int peer, int tag, bool recv, Mode mode)
      : PersistentOp(false),
        type(type),
        buf(buf),
        count(count),
        peer(peer),
        tag(tag),
        recv(recv),
        mode(mode) {
    if (!type->predefined) ++type->refs;  // the user may free it meanwhile
  }
  ~Persistent() override {
    if (rec) {
      patterns().release_naming(rec);
      request_free(rec);
    }
    datatype_release(type);
  }
  int start(const char *fn_, pamir::Request *h) override;
  int start_ordinary(const char *fn_, pamir::Request *h);
  // Both are called only while a start runs: its operation is op, or rec when the start was replayed.
  void cancel() override {
    if (recv) context().cancel_recv(op ? op : rec);
  }
  void free_active() override {
    if (!op) op = rec;
    if (op == rec) {
      // The recorded operation finishes alone; no section may arm it again.
      patterns().release_naming(rec);
      pamir::PatternFifo::abandon(rec);
      rec = nullptr;
    }
    request_detach(op);
  }
  bool recordable() const { return mode != Mode::buffered && peer != MPI_PROC_NULL; }
  // Fills d with this request's one message (recordable() only), counted down on counter `counter`.
  void describe(pamir::Descriptor &d, uint32_t counter, pamir::Request *h);
  Datatype *type;
  void *buf;
  int64_t count;
  int peer;  // destination, or source
  int tag;
  bool recv;
  Mode mode;
  pamir::Request *op = nullptr;   // the operation of an ordinary start, until it completes
  pamir::Request *rec = nullptr;  // the recorded operation, built at the first record; a replay runs it
  uint32_t section = pamir::PatternFifo::kNone;  // the section MPI_Start replays
  uint64_t generation = 0;
  uint64_t no_room = UINT64_MAX;  // the FIFO's releases() when it last had no room for this request
};

inline Persistent *persistent_of(pamir::Request *h) {
  return static_cast<Persistent *>(persistent_op(h));
}

// The started operation is over: its status and capacity go to the handle (what Wait reports and
// request_error words), and the operation back to the pool.
void finished(pamir::Request *h, pamir::Request *op) {
  h->status = op->status;
  vt_raise(h->vt, op->vt);
  h->bytes = op->bytes;
  persistent_of(h)->op = nullptr;
  request_free(op);
  request_complete(h);
}

void op_done(pamir::Request *op) {
  finished(static_cast<pamir::Request *>(op->ext), op);
}

// A recorded request's counter reached zero: `last` is its operation, or nullptr for a send that left
// in one packet without it.
template <bool kLogged>
inline void recorded_finish(pamir::Request *h, pamir::Request *last) {
  if (last) {
    h->status = last->status;
    pamir::vt_raise_as<kLogged>(h->vt, last->vt);
    h->bytes = last->bytes;
  } else {
    h->status = pamir::Status{};
  }
  pamir::request_complete_as<kLogged>(h);
}
// Every replayed message passes here: the timing model's log (on for a whole torus run with a report,
// from before the first recording) chooses the callback when a pattern is recorded, not per message.
void recorded_done(void *arg, pamir::Request *last) {
  recorded_finish<false>(static_cast<pamir::Request *>(arg), last);
}
void recorded_done_logged(void *arg, pamir::Request *last) {
  recorded_finish<true>(static_cast<pamir::Request *>(arg), last);
}
inline auto recorded_callback() -> void (*)(void *, pamir::Request *) {
  return pamir::vt_logged() ? recorded_done_logged : recorded_done;
}

void Persistent::describe(pamir::Descriptor &d, uint32_t counter, pamir::Request *h) {
  Comm *c = static_cast<Comm *>(h->mpi_comm);
  if (!rec) {
    rec = recv ? recv_request(c, buf, count, type, peer, tag)
               : send_request(c, buf, count, type, peer, tag, mode == Mode::sync);
    rec->ext = nullptr;
  }
  d.req = rec;
  d.counter = counter;
  d.addr = rec->buf;
  d.length = rec->bytes;
  if (recv) {
    d.intent = pamir::Intent::receive;
    d.task = peer == MPI_ANY_SOURCE ? UINT32_MAX : c->task_of(peer);
    d.bits = match_bits(rec->ctx, rec->source, rec->tag);
    if (peer != MPI_ANY_SOURCE && tag != MPI_ANY_TAG && !rec->layout && !rec->sig_layout) {
      d.flags |= pamir::kDescExact;
      pamir::describe_token(d, context(), rec->bytes);
      rec->peer_task = d.task;  // where its tokens go (a match sets it again, to the same task)
    }
    return;
  }
  d.task = rec->peer_task;
  d.bits = match_bits(rec->ctx, rec->source, rec->tag);
  const bool plain = !rec->layout && !rec->sig && !rec->sync;
  pamir::describe_send(d, context(), rec->bytes, plain);
  if (d.protocol == pamir::SendProtocol::rdma && plain) d.flags |= pamir::kDescDirect;
}

// Makes h active on its recorded operation, before its section is injected (which may complete it).
inline void begin_recorded(pamir::Request *h) {
  h->active = true;
  h->complete = false;
  h->vt = g_vclock.stamp;
}

inline void replay(pamir::PatternFifo &f, uint32_t s) {
  f.rewind(s);
  ++stats().pattern_replays;
  pamir::inject(context(), f);
}

int Persistent::start_ordinary(const char *fn_, pamir::Request *h) {
  Comm *c = static_cast<Comm *>(h->mpi_comm);
  pamir::Request *started = nullptr;
  if (recv) {
    started = recv_start(c, buf, count, type, peer, tag);
  } else if (int rc = send_start(c, fn_, buf, count, type, peer, tag, mode, &started)) {
    return rc;
  }
  h->active = true;
  h->complete = false;
  h->vt = g_vclock.stamp;
  op = started;
  if (started->complete) {
    finished(h, started);
    return MPI_SUCCESS;
  }
  started->ext = h;
  started->on_complete = op_done;
  return MPI_SUCCESS;
}

// MPI_Start: the request's own section, recorded at its first start.
int Persistent::start(const char *fn_, pamir::Request *h) {
  if (!recordable()) return start_ordinary(fn_, h);
  pamir::PatternFifo &f = patterns();
  if (!f.live(section, generation)) [[unlikely]] {
    uint32_t s = pamir::PatternFifo::kNone;
    if (f.releases() != no_room) s = f.record(uintptr_t(h), 1, 1);
    if (s == pamir::PatternFifo::kNone) {
      no_room = f.releases();
      ++stats().pattern_fallbacks;
      return start_ordinary(fn_, h);
    }
    describe(f.descriptors(s)[0], f.first(s), h);
    f.counters(s)[0].zero = recorded_callback();
    f.counters(s)[0].arg = h;
    f.counters(s)[0].rearms = true;
    f.seal(s);
    section = s;
    generation = f.generation(s);
  }
  begin_recorded(h);
  replay(f, section);
  return MPI_SUCCESS;
}

int make(const char *fn_, const void *buf, int64_t count, MPI_Datatype datatype, int peer, int tag,
         MPI_Comm comm, MPI_Request *request, bool recv, Mode mode) {
  Comm *c = PAMIR_COMM(comm);
  Datatype *t = PAMIR_TYPE(c, datatype);
  PAMIR_CHECK(c, request, MPI_ERR_REQUEST, "request is NULL");
  if (int rc =
          recv ? check_recv(c, fn_, buf, count, t, peer, tag) : check_send(c, fn_, buf, count, t, peer, tag))
    return rc;
  auto *p = new (std::nothrow) Persistent(t, const_cast<void *>(buf), count, peer, tag, recv, mode);
  PAMIR_CHECK(c, p, MPI_ERR_NO_MEM, "no memory for a persistent request");
  *request = reinterpret_cast<MPI_Request>(persistent_handle(c, p));
  return MPI_SUCCESS;
}

// The inactive persistent request of handle h (MPI_Start's argument), or MPI_ERR_REQUEST.
#define PAMIR_PERSISTENT(h)                                                                     \
  ({                                                                                            \
    pamir::Request *p_ = PAMIR_REQUEST(h);                                                      \
    Comm *c_ = static_cast<Comm *>(p_->mpi_comm);                                               \
    PAMIR_CHECK(c_, p_->kind == pamir::ReqKind::persistent, MPI_ERR_REQUEST,                    \
                "the request is not a persistent one (MPI_Start takes those of MPI_Send_init, " \
                "MPI_Bcast_init and their kin)");                                               \
    PAMIR_CHECK(c_, !p_->active, MPI_ERR_REQUEST,                                               \
                "the persistent request is active already (wait for it first)");                \
    p_;                                                                                         \
  })

// Starts h: a point-to-point one directly (Persistent is final), a collective one through its op.
inline int start(const char *fn_, pamir::Request *h) {
  PersistentOp *op = persistent_op(h);
  return op->collective ? op->start(fn_, h) : static_cast<Persistent *>(op)->start(fn_, h);
}

inline bool recorded_in_startall(pamir::Request *h) {
  PersistentOp *op = persistent_op(h);
  return !op->collective && static_cast<Persistent *>(op)->recordable();
}

// The section an MPI_Startall recorded for a request array: the same array with the same requests
// replays it; anything else records anew (a section is never patched).
struct StartallPattern {
  uint32_t section = pamir::PatternFifo::kNone;
  uint64_t generation = 0;
  uint64_t no_room = UINT64_MAX;  // the FIFO's releases() when it had no room for this array
  bool recordable = false;        // it holds requests a section can describe
  bool all_recorded = false;      // every request of the array is in the section
  // The requests it was recorded with, by serial: a request freed and another made at the same
  // address (the pool reuses them) is another request.
  std::vector<uint64_t> serials;
  // Its handles, when all_recorded: then the same handles are the same requests while the section is
  // live, since freeing a recorded request releases every section that names it.
  std::vector<MPI_Request> handles;
};
std::unordered_map<const MPI_Request *, StartallPattern> startall_patterns;
// The entry of the last array started: a program starts the same one or two arrays over and over.
const MPI_Request *last_array = nullptr;
StartallPattern *last_pattern = nullptr;

// Starts what the section does not hold (collectives, buffered sends, MPI_PROC_NULL), then the section.
// The requests were checked (PMPI_Startall).
int startall_replay(const char *fn_, int count, MPI_Request array[], const StartallPattern &sp) {
  if (sp.all_recorded) [[likely]] {
    for (int i = 0; i < count; ++i) begin_recorded(reinterpret_cast<pamir::Request *>(array[i]));
  } else {
    for (int i = 0; i < count; ++i) {
      pamir::Request *h = reinterpret_cast<pamir::Request *>(array[i]);
      if (recorded_in_startall(h))
        begin_recorded(h);
      else if (int rc = start(fn_, h))
        return rc;
    }
  }
  replay(patterns(), sp.section);
  return MPI_SUCCESS;
}

int startall_ordinary(const char *fn_, int count, MPI_Request array[]) {
  for (int i = 0; i < count; ++i) {
    pamir::Request *h = request_of(array[i]);
    int rc = recorded_in_startall(h) ? persistent_of(h)->start_ordinary(fn_, h) : start(fn_, h);
    if (rc) return rc;
  }
  return MPI_SUCCESS;
}

// The first MPI_Startall of this array (or of these requests in it): records its section, or starts
// every request on the ordinary path when the FIFO has no room.
int startall_record(const char *fn_, int count, MPI_Request array[]) {
  static uint64_t marks = 0;
  const uint64_t mark = ++marks;
  uint32_t n = 0;
  for (int i = 0; i < count; ++i) {
    pamir::Request *h = request_of(array[i]);
    PersistentOp *op = persistent_op(h);
    PAMIR_CHECK(static_cast<Comm *>(h->mpi_comm), op->mark != mark, MPI_ERR_REQUEST,
                "array_of_requests[%d] is a request that comes earlier in the array too", i);
    op->mark = mark;
    n += recorded_in_startall(h);
  }
  pamir::PatternFifo &f = patterns();
  StartallPattern &sp = startall_patterns[array];
  last_array = array;
  last_pattern = &sp;
  f.release(sp.section, sp.generation);  // no longer this array's pattern (if not released already)
  sp.section = pamir::PatternFifo::kNone;
  sp.serials.clear();
  sp.handles.clear();
  for (int i = 0; i < count; ++i) sp.serials.push_back(persistent_op(request_of(array[i]))->serial);
  const uint32_t s = n ? f.record(uintptr_t(array), n, n) : pamir::PatternFifo::kNone;
  sp.recordable = n != 0;
  sp.all_recorded = n == uint32_t(count);
  if (sp.all_recorded) sp.handles.assign(array, array + count);
  if (s == pamir::PatternFifo::kNone) {
    stats().pattern_fallbacks += sp.recordable;
    sp.no_room = f.releases();
    return startall_ordinary(fn_, count, array);
  }
  pamir::Descriptor *d = f.descriptors(s);
  pamir::PatternCounter *k = f.counters(s);
  uint32_t j = 0;
  for (int i = 0; i < count; ++i) {
    pamir::Request *h = request_of(array[i]);
    if (!recorded_in_startall(h)) continue;
    persistent_of(h)->describe(d[j], f.first(s) + j, h);
    k[j].zero = recorded_callback();
    k[j].arg = h;
    k[j].rearms = true;
    ++j;
  }
  f.seal(s);
  sp.section = s;
  sp.generation = f.generation(s);
  // Arrays that are gone leave entries whose sections were released with their requests.
  if (startall_patterns.size() > 2 * size_t(f.live_sections()) + 64)
    std::erase_if(startall_patterns, [&f, array](const auto &e) {
      return e.first != array && !f.live(e.second.section, e.second.generation);
    });
  return startall_replay(fn_, count, array, sp);
}

}  // namespace

pamir::Request *persistent_handle(Comm *c, PersistentOp *op) {
  ++c->refs;  // the user may free the communicator meanwhile
  pamir::Request *h = request_alloc(pamir::ReqKind::persistent);
  h->mpi_comm = c;
  h->ext = op;
  set_inactive(h);
  return h;
}

int persistent_free(pamir::Request *h, const char *fn_) {
  PersistentOp *op = persistent_op(h);
  Comm *c = static_cast<Comm *>(h->mpi_comm);
  const bool running = h->active && !h->complete;
  PAMIR_CHECK(c, !running || !op->collective, MPI_ERR_REQUEST,
              "a persistent collective request cannot be freed while a start of it runs (wait for it first)");
  if (running) op->free_active();
  delete op;
  comm_release(c);
  request_release(h);
  return MPI_SUCCESS;
}

void persistent_cancel(pamir::Request *h) {
  if (h->active && !h->complete) persistent_op(h)->cancel();
}

int persistent_finish(pamir::Request *h, MPI_Status *status, const char *fn, bool raise_it) {
  if (!h->active) {
    status_empty(status);
    return MPI_SUCCESS;
  }
  const int rc = request_status(h, status, fn, raise_it);
  set_inactive(h);
  return rc;
}

}  // namespace pamir::mpi

using namespace pamir::mpi;
using pamir::patterns;
using pamir::stats;

int PMPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                   MPI_Request *request) {
  PAMIR_ENTER("MPI_Send_init");
  return make(fn_, buf, count, datatype, dest, tag, comm, request, false, Mode::standard);
}
PAMIR_ALIAS(Send_init);
int PMPI_Send_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Send_init_c");
  return make(fn_, buf, count, datatype, dest, tag, comm, request, false, Mode::standard);
}
PAMIR_ALIAS(Send_init_c);
int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                    MPI_Request *request) {
  PAMIR_ENTER("MPI_Ssend_init");
  return make(fn_, buf, count, datatype, dest, tag, comm, request, false, Mode::sync);
}
PAMIR_ALIAS(Ssend_init);
int PMPI_Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Ssend_init_c");
  return make(fn_, buf, count, datatype, dest, tag, comm, request, false, Mode::sync);
}
PAMIR_ALIAS(Ssend_init_c);
int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                    MPI_Request *request) {
  PAMIR_ENTER("MPI_Rsend_init");
  return make(fn_, buf, count, datatype, dest, tag, comm, request, false, Mode::ready);
}
PAMIR_ALIAS(Rsend_init);
int PMPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Rsend_init_c");
  return make(fn_, buf, count, datatype, dest, tag, comm, request, false, Mode::ready);
}
PAMIR_ALIAS(Rsend_init_c);
int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                    MPI_Request *request) {
  PAMIR_ENTER("MPI_Bsend_init");
  return make(fn_, buf, count, datatype, dest, tag, comm, request, false, Mode::buffered);
}
PAMIR_ALIAS(Bsend_init);
int PMPI_Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Bsend_init_c");
  return make(fn_, buf, count, datatype, dest, tag, comm, request, false, Mode::buffered);
}
PAMIR_ALIAS(Bsend_init_c);
int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                   MPI_Request *request) {
  PAMIR_ENTER("MPI_Recv_init");
  return make(fn_, buf, count, datatype, source, tag, comm, request, true, Mode::standard);
}
PAMIR_ALIAS(Recv_init);
int PMPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                     MPI_Request *request) {
  PAMIR_ENTER("MPI_Recv_init_c");
  return make(fn_, buf, count, datatype, source, tag, comm, request, true, Mode::standard);
}
PAMIR_ALIAS(Recv_init_c);

int PMPI_Start(MPI_Request *request) {
  PAMIR_ENTER("MPI_Start");
  PAMIR_CHECK(nullptr, request, MPI_ERR_REQUEST, "request is NULL");
  return start(fn_, PAMIR_PERSISTENT(*request));
}
PAMIR_ALIAS(Start);

int PMPI_Startall(int count, MPI_Request array_of_requests[]) {
  PAMIR_ENTER("MPI_Startall");
  PAMIR_CHECK(nullptr, count >= 0, MPI_ERR_COUNT, "negative count %d", count);
  PAMIR_CHECK(nullptr, array_of_requests || count == 0, MPI_ERR_REQUEST, "array_of_requests is NULL");
  // Every request is checked before any starts, so an error leaves them all inactive; the same loop
  // tells whether the array holds the requests its section was recorded with.
  const StartallPattern *sp = last_pattern;
  if (array_of_requests != last_array) {
    auto it = startall_patterns.find(array_of_requests);
    sp = it != startall_patterns.end() ? &it->second : nullptr;
  }
  // A replay: the handles it was recorded with, all inactive, each made active as it is checked; at the
  // first that is not, those before it are made inactive again and the loop below says what is wrong.
  if (sp && sp->all_recorded && sp->handles.size() == size_t(count) &&
      pamir::patterns().live(sp->section, sp->generation)) [[likely]] {
    const MPI_Request *recorded = sp->handles.data();
    int i = 0;
    for (; i < count; ++i) {
      auto *h = reinterpret_cast<pamir::Request *>(recorded[i]);
      if (array_of_requests[i] != recorded[i] || h->active) [[unlikely]]
        break;
      begin_recorded(h);
    }
    if (i == count) [[likely]] {
      replay(pamir::patterns(), sp->section);
      return MPI_SUCCESS;
    }
    while (i-- > 0) set_inactive(reinterpret_cast<pamir::Request *>(recorded[i]));
  }
  bool same = sp && sp->serials.size() == size_t(count);
  const uint64_t *serials = same ? sp->serials.data() : nullptr;
  for (int i = 0; i < count; ++i) {
    pamir::Request *h = PAMIR_PERSISTENT(array_of_requests[i]);
    same = same && serials[i] == persistent_op(h)->serial;
  }
  if (same) {
    pamir::PatternFifo &f = pamir::patterns();
    if (f.live(sp->section, sp->generation)) return startall_replay(fn_, count, array_of_requests, *sp);
    if (sp->section == pamir::PatternFifo::kNone && sp->no_room == f.releases()) {
      stats().pattern_fallbacks += sp->recordable;
      return startall_ordinary(fn_, count, array_of_requests);
    }
  }
  return startall_record(fn_, count, array_of_requests);
}
PAMIR_ALIAS(Startall);
