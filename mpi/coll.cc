// The collectives of the intra-communicator chapter: MPI_Barrier, Bcast, Reduce, Allreduce, Gather,
// Scatter, Allgather, Alltoall, their large-count variants and their nonblocking forms. Each checks
// every argument that is significant on the calling rank (the standard makes recvbuf/recvcount/recvtype
// of MPI_Gather significant at the root only, and so on), stages non-contiguous buffers, and launches
// the algorithm that the selection of seed 002 picks (collectives/registry.h): run to its end for a
// blocking call, handed to the context's progress for a nonblocking one.
#include <cstdint>
#include <cstring>
#include <new>
#include <vector>

#include "collectives/registry.h"
#include "collectives/replay.h"
#include "collectives/schedule.h"
#include "mpi/check.h"
#include "mpi/coll_launch.h"
#include "mpi/info.h"
#include "mpi/op.h"
#include "mpi/request.h"
#include "pami/config.h"
#include "pami/request.h"
#include "pamir_alias.h"

namespace pamir::mpi {

namespace {

using coll::Collective;

// A failed collective: the PAMI error as an MPI class.
[[gnu::cold]] int coll_failed(Comm *c, const char *fn, int err) {
  switch (Err(err)) {
    case Err::truncate:
      return raise(c, fn, MPI_ERR_TRUNCATE,
                   "a message of the collective had an unexpected length: the ranks disagree on a count or "
                   "datatype");
    case Err::proc_failed:
      return raise(c, fn, MPI_ERR_PROC_ABORTED, "a process of the communicator is gone");
    case Err::device:
      return raise(c, fn, MPI_ERR_OTHER, "a device operation failed");
    case Err::rdma:
      return raise(c, fn, MPI_ERR_OTHER, "a rendezvous read of the collective's data failed");
    default:
      return raise(c, fn, MPI_ERR_INTERN, "internal error %d (no memory for a scratch buffer?)", err);
  }
}

// Whether two byte ranges overlap (empty ranges never do).
inline bool overlap(const void *a, uint64_t na, const void *b, uint64_t nb) {
  if (na == 0 || nb == 0) return false;
  const uintptr_t x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
  return x < y + nb && y < x + na;
}

// The checks of one (buffer, count, datatype) triple; `what` names it ("send", "receive").
#define PAMIR_CHECK_PART(c, buf, count, t, times, what)                                                \
  do {                                                                                                 \
    PAMIR_CHECK(c, (count) >= 0, MPI_ERR_COUNT, "negative %s count %lld", what, (long long)(count));   \
    PAMIR_CHECK(c, !too_big(count, t, times), MPI_ERR_COUNT, "%s count %lld of %s is too large", what, \
                (long long)(count), type_name(t));                                                     \
    PAMIR_CHECK(c, buffer_ok(buf, count), MPI_ERR_BUFFER, "%s buffer is NULL with count %lld", what,   \
                (long long)(count));                                                                   \
  } while (0)

// The algorithms move contiguous bytes. A buffer whose datatype is not contiguous is staged: packed into a
// contiguous buffer before the algorithm runs where it is an input, unpacked after where it is an
// output, so its gaps are never written.
class Stage {
 public:
  Stage() = default;
  // `blocks` runs of `count` elements of t from buf (block i starts at element i * count).
  void set(const void *buf, const Datatype *t, uint64_t count, uint64_t blocks) {
    d_ = data_of(t, buf, count * blocks);
    block_bytes_ = uint64_t(t->size) * count;
  }
  // False when the staging buffer cannot be allocated.
  bool ready() {
    if (d_.layout && tmp_.size() != d_.bytes) {
      try {
        tmp_.resize(d_.bytes);
      } catch (const std::bad_alloc &) {
        return false;
      }
    }
    return true;
  }
  void *ptr() { return d_.layout ? static_cast<void *>(tmp_.data()) : d_.base; }
  uint64_t block_bytes() const { return block_bytes_; }
  void in() {
    if (d_.layout) pack_data(d_, tmp_.data());
  }
  void out() {
    if (d_.layout) unpack_data(d_, tmp_.data());
  }

 private:
  Data d_{nullptr, 0, nullptr, 0};
  uint64_t block_bytes_ = 0;
  std::vector<char> tmp_;
};

#define PAMIR_STAGE(c, s)                                               \
  PAMIR_CHECK(c, (s).ready(), MPI_ERR_NO_MEM,                           \
              "cannot allocate the staging buffer of a non-contiguous " \
              "datatype")

// Reductions see `count` elements `extent` bytes apart and copy extent * count bytes: a non-contiguous
// type whose elements keep their data inside their own extent is reduced in a scratch copy of the
// receive buffer, and only its data is copied back, so the gaps are never written. Other layouts
// (data outside an element's extent) are refused.
class ReduceStage {
 public:
  ReduceStage() = default;
  void set(void *recvbuf, const Datatype *t, uint64_t count) {
    recvbuf_ = recvbuf;
    // A predefined pair's padding lies inside its element: reduced in place like any predefined type.
    d_ = needed(t, count) ? data_of(t, recvbuf, count) : Data{recvbuf, 0, nullptr, 0};
    span_ = uint64_t(t->extent) * count;
  }
  // Whether count elements of t have gaps that a scratch copy must keep (set() then makes one).
  static bool needed(const Datatype *t, uint64_t count) {
    return !t->predefined && data_of(t, nullptr, count).layout;
  }
  static bool supported(const Datatype *t) {
    return t->contiguous || (t->true_lb >= 0 && t->true_lb + t->true_extent <= t->extent);
  }
  bool ready() {
    if (!d_.layout) return true;
    try {
      tmp_.resize(span_);
    } catch (const std::bad_alloc &) {
      return false;
    }
    return true;
  }
  void *ptr() { return d_.layout ? static_cast<void *>(tmp_.data()) : recvbuf_; }
  void in() {
    if (d_.layout && span_) std::memcpy(tmp_.data(), recvbuf_, span_);
  }
  // Moves the data (not the gaps) from the scratch copy into the receive buffer.
  void out() {
    if (!d_.layout) return;
    dt::Cursor cur = dt::cursor(*d_.layout, d_.elems);
    int64_t off = 0;
    uint64_t len = 0;
    while (cur.next(UINT64_MAX, off, len))
      std::memcpy(static_cast<char *>(recvbuf_) + off, tmp_.data() + off, len);
  }

 private:
  void *recvbuf_ = nullptr;
  Data d_{nullptr, 0, nullptr, 0};
  uint64_t span_ = 0;
  std::vector<char> tmp_;
};

#define PAMIR_REDUCE_LAYOUT(c, t)                                                                         \
  PAMIR_CHECK(c, ReduceStage::supported(t), MPI_ERR_UNSUPPORTED_OPERATION,                                \
              "reductions on %s, whose data reaches outside its extent (true lb %lld, true extent %lld, " \
              "extent %lld), are not implemented",                                                        \
              type_name(t), (long long)(t)->true_lb, (long long)(t)->true_extent, (long long)(t)->extent)

// What a reduction's operation is applied to: a predefined operation sees the basic elements of a
// contiguous derived type, a user function the user's elements.
inline size_t elements(const Op *o, const Datatype *t, int64_t count) {
  return size_t(count) * (o->is_builtin ? t->elem_count : 1);
}

#define PAMIR_OP(c, h)                                                    \
  ({                                                                      \
    ::pamir::mpi::Op *o_ = ::pamir::mpi::lookup<::pamir::mpi::Op>(h);     \
    if (__builtin_expect(!o_, 0)) return ::pamir::mpi::bad_op(c, fn_, h); \
    o_;                                                                   \
  })

#define PAMIR_INTRA(c) \
  PAMIR_CHECK(c, !(c)->remote, MPI_ERR_COMM, "%s is defined on intra-communicators only", fn_)

// On an inter-communicator the root is MPI_ROOT (this process), MPI_PROC_NULL (another process of the
// root's group) or the root's rank in the other group.
inline bool root_ok(const Comm *c, int root) {
  if (c->remote) return root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < c->peer_size);
  return root >= 0 && root < c->size;
}
#define PAMIR_ROOT(c, root)                                                                     \
  PAMIR_CHECK(c, root_ok(c, root), MPI_ERR_ROOT, "root %d is outside the %s (size %d)%s", root, \
              (c)->remote ? "remote group" : "communicator", (c)->peer_size,                    \
              (c)->remote ? ", MPI_ROOT or MPI_PROC_NULL" : "")
// Whether this process is the root, whether it takes part at all (not MPI_PROC_NULL), and the root as
// the algorithm takes it (collectives/algorithms/algorithms.h).
inline bool is_root_of(const Comm *c, int root) {
  return c->remote ? root == MPI_ROOT : c->rank == root;
}
inline bool takes_part(const Comm *c, int root) {
  return !c->remote || root != MPI_PROC_NULL;
}
inline int algorithm_root(const Comm *c, int root) {
  if (!c->remote) return root;
  return root == MPI_ROOT ? coll::kRootHere : root == MPI_PROC_NULL ? coll::kRootIdle : root;
}
// MPI_IN_PLACE has no meaning on an inter-communicator (MPI 5.0 §6.2.3).
#define PAMIR_NOT_IN_PLACE_INTER(c, in_place)                 \
  PAMIR_CHECK(c, !(c)->remote || !(in_place), MPI_ERR_BUFFER, \
              "MPI_IN_PLACE is not allowed on an "            \
              "inter-communicator")

// The root's own part of a rooted gather/scatter (or any rank's of allgather/alltoall) must be as long
// as one rank's part on the other side.
#define PAMIR_SAME_BYTES(c, sbytes, rbytes)                                                   \
  PAMIR_CHECK(c, (sbytes) == (rbytes), MPI_ERR_TRUNCATE,                                      \
              "the send part (%llu bytes) and the receive part per rank (%llu bytes) differ", \
              (unsigned long long)(sbytes), (unsigned long long)(rbytes))

// Data bytes of `count` elements of t (what travels; the extent only places it).
inline uint64_t data_bytes(const Datatype *t, int64_t count) {
  return uint64_t(t->size) * uint64_t(count);
}

inline uint32_t aligned_bit(const void *a, const void *b) {
  return ((reinterpret_cast<uintptr_t>(a) | reinterpret_cast<uintptr_t>(b)) & 63) == 0 ? coll::kAligned : 0;
}

// The staging of one call: what the algorithm reads and writes, and what is unpacked at the end. A
// nonblocking call keeps it (and its datatypes) until it completes.
struct Call {
  Stage send, recv;
  ReduceStage red;
  std::vector<size_t> counts;                 // reduce_scatter: elements per rank
  std::vector<coll::Block> sblocks, rblocks;  // v-collectives: the parts
  std::vector<char> packed;                   // alltoallv/w in place: the receive buffer's parts, packed
  std::vector<int> in_peers, out_peers, recv_order;  // the neighbourhood collectives' neighbours
  // What begin() stages into the algorithm's buffers: done at every start of a persistent collective,
  // since the user may change the buffers' contents between starts.
  bool pack_send = false;
  bool pack_recv = false;
  bool copy_red = false;
  bool pack_parts = false;  // alltoallv/w in place: the receive buffer's parts into `packed`
  bool unpack_recv = false;
  bool unpack_red = false;
  void begin() {
    if (pack_send) send.in();
    if (pack_recv) recv.in();
    if (copy_red) red.in();
    if (pack_parts) {
      uint64_t off = 0;
      for (size_t i = 0; i < rblocks.size(); ++i) {
        const coll::Block &r = rblocks[i];
        pack_data(Data{r.base, r.bytes, r.layout, r.elems}, packed.data() + off);
        sblocks[i] = coll::Block{packed.data() + off, r.bytes, nullptr, 0};
        off += r.bytes;
      }
    }
  }
  void finish() {
    if (unpack_recv) recv.out();
    if (unpack_red) red.out();
  }
};

// How a collective binding was called: blocking (no request), nonblocking, or persistent (MPI_X_init:
// the algorithm is chosen and the staging set up once, and every MPI_Start runs it).
struct Req {
  MPI_Request *h;
  bool persistent = false;
  Req(MPI_Request *r) : h(r) {}  // NOLINT: a plain request pointer is the nonblocking (or blocking) form
  Req(MPI_Request *r, bool p) : h(r), persistent(p) {}
  explicit operator bool() const { return h != nullptr; }
};

// A nonblocking collective in flight: its staging, the datatypes it holds, and its MPI request.
struct NbCall final : coll::NbSchedule {
  NbCall(const coll::Team &t, int32_t tag, Call &&c) : NbSchedule(t, tag), call(std::move(c)) {}
  ~NbCall() override {
    for (Datatype *t : types) datatype_release(t);
  }
  // Keeps t alive until the call completes (MPI_Type_free may come first).
  void hold(Datatype *t) {
    if (!t || t->predefined) return;
    try {
      types.push_back(t);
    } catch (const std::bad_alloc &) {
      return;  // not held: the caller's free then waits for nothing it could break before completion
    }
    ++t->refs;
  }
  void done(int result) override {
    if (!result) call.finish();
    pamir::Request *r = req;
    r->status.error = Err(result);
    delete this;
    request_complete(r);
  }
  Call call;
  std::vector<Datatype *> types;
  pamir::Request *req = nullptr;
};

// A persistent collective (MPI_Bcast_init and its kin): the algorithm chosen at init, the staging, the
// datatypes and communicator it holds, and the recording of its messages (coll::Replay, seed 004).
// Every MPI_Start stages the inputs again and runs the algorithm as a nonblocking schedule, whose
// messages the first start records and later ones replay. The init takes the communicator's next
// sequence number (inits come in the same order on every rank) and every start uses its tag: the
// recorded match bits stay valid, and the starts of one request never overlap, while each pair of
// ranks sees its messages in order.
struct PersistentRun;
struct PersistentColl final : PersistentOp {
  PersistentColl(Comm *c, int id, const coll::Args &a, Call &&call)
      : PersistentOp(true),
        c(c),
        id(id),
        a(a),
        call(std::move(call)),
        seq(c->coll_seq++),
        replay(uintptr_t(this)) {}
  ~PersistentColl() override {
    for (Datatype *t : types) datatype_release(t);
  }
  int start(const char *fn_, pamir::Request *h) override;
  void hold(Datatype *t) {
    if (!t || t->predefined) return;
    types.push_back(t);
    ++t->refs;
  }
  Comm *c;
  int id;
  coll::Args a;  // points into `call`'s staging, which moved here with it
  Call call;
  std::vector<Datatype *> types;
  const uint64_t seq;
  bool offload = false;  // its starts may engage the progress thread (offloadable())
  coll::Replay replay;
  // The state of the running start, built in place: one start runs at a time, so no start allocates.
  alignas(coll::NbSchedule) unsigned char run[512];
};

// One start of a persistent collective, in its PersistentColl's `run`.
struct PersistentRun final : coll::NbSchedule {
  PersistentRun(const coll::Team &t, uint64_t seq, PersistentColl *p, pamir::Request *h)
      : NbSchedule(t, coll::seq_tag(seq), seq), p(p), h(h) {}
  void done(int result) override {
    p->replay.end(result == 0);
    if (!result) p->call.finish();
    pamir::Request *handle = h;
    this->~PersistentRun();
    handle->status = pamir::Status{};
    handle->status.error = Err(result);
    request_complete(handle);
  }
  PersistentColl *p;
  pamir::Request *h;
};
static_assert(sizeof(PersistentRun) <= sizeof PersistentColl::run &&
              alignof(PersistentRun) <= alignof(coll::NbSchedule));

int PersistentColl::start(const char *, pamir::Request *h) {
  auto *r = new (run) PersistentRun(c->team(), seq, this, h);
  r->may_offload = offload;
  ++coll::g_algorithm_runs[id];
  call.begin();
  replay.begin();
  r->sched.replay_with(&replay);
  h->active = true;
  h->complete = false;
  r->start(coll::algorithm(id).fn(r->sched, a));
  return MPI_SUCCESS;
}

// MPI_X_init, once the algorithm is chosen: the persistent request, inactive.
int persistent_make(Comm *c, const char *fn_, int id, const coll::Args &a, Call *call, MPI_Request *request,
                    bool offload, Datatype *t1, Datatype *t2, Datatype *const *more, int nmore) {
  PersistentColl *p = nullptr;
  try {
    p = new PersistentColl(c, id, a, call ? std::move(*call) : Call{});
    p->offload = offload;
    p->hold(t1);
    p->hold(t2);
    for (int i = 0; i < nmore; ++i) p->hold(more[i]);
  } catch (const std::bad_alloc &) {
    delete p;
    return raise(c, fn_, MPI_ERR_NO_MEM, "no memory for a persistent collective");
  }
  *request = reinterpret_cast<MPI_Request>(persistent_handle(c, p));
  return MPI_SUCCESS;
}

// Refuses a forced algorithm that cannot serve the call.
[[gnu::cold]] int unsupported(Comm *c, const char *fn_, Collective k, int id, uint32_t mask) {
  const coll::Algorithm &alg = coll::algorithm(id);
  if ((mask ^ alg.needs) & coll::kInter)
    return raise(
        c, fn_, MPI_ERR_UNSUPPORTED_OPERATION, "the %s algorithm %s (forced by the communicator's info) %s",
        coll::collective_name(k), alg.name,
        (mask & coll::kInter) ? "does not serve inter-communicators" : "serves inter-communicators only");
  return raise(c, fn_, MPI_ERR_UNSUPPORTED_OPERATION,
               "the %s algorithm %s (forced by %s) needs %s, which this call (%s, %d ranks) does not have",
               coll::collective_name(k), alg.name,
               c->coll_forced[size_t(k)] >= 0 ? "the communicator's info" : "PAMIR_COLL_*",
               coll::describe_mask(alg.needs & ~mask).c_str(), coll::describe_mask(mask).c_str(), c->size);
}

// Chooses the algorithm (seed 002) and runs it (request null) or starts it. `size` is the bytes that
// decide the size class; `call` what to finish after the algorithm (null: nothing, the buffers are
// the user's own); t1, t2 and `more` the datatypes a nonblocking call must keep alive.
int launch(Comm *c, const char *fn_, Collective k, uint32_t call_bits, uint64_t size, const coll::Args &a,
           Call *call, Req request, Datatype *t1 = nullptr, Datatype *t2 = nullptr,
           Datatype *const *more = nullptr, int nmore = 0) {
  const size_t ki = size_t(k);
  // Not `enabled`, which the progress thread switches on one rank and not another: every rank must
  // choose alike. The thread advances only nonblocking schedules, which never use the shared area.
  if (!request && !library_lock().multiple) call_bits |= coll::kExclusive;
  const uint32_t mask = coll::call_mask(k, c->coll_mask[ki], call_bits, size);
  Comm::CollChoice &choice = c->coll_choice[ki];
  int id = choice.algorithm;
  if (__builtin_expect(choice.mask != mask || choice.forced != c->coll_forced[ki], 0)) {
    const bool inter = mask & coll::kInter;
    id = c->coll_forced[ki] >= 0 ? c->coll_forced[ki] : coll::forced_for_job(k);
    // PAMIR_COLL_<NAME> chooses for the job's intra-communicators; an inter-communicator has its own.
    if (id >= 0 && inter && c->coll_forced[ki] < 0 && !coll::serves(coll::algorithm(id), mask)) id = -1;
    if (id >= 0) {
      if (!coll::serves(coll::algorithm(id), mask)) return unsupported(c, fn_, k, id, mask);
    } else {
      id = inter ? coll::inter_algorithm(k) : coll::selector().select(k, mask);
    }
    choice = Comm::CollChoice{mask, c->coll_forced[ki], int16_t(id)};
  }
  // The progress thread pays where a collective takes long enough to hide its wake-ups (the latency of
  // small ones doubles, docs/performance.md), and never runs the application's code.
  const bool offload = size >= config::async_progress_min.number && !coll::runs_user_code(a.op);
  if (request.persistent)
    return persistent_make(c, fn_, id, a, call, request.h, offload, t1, t2, more, nmore);
  ++coll::g_algorithm_runs[id];
  const coll::AlgorithmFn algorithm = coll::algorithm(id).fn;
  const uint64_t seq = c->coll_seq++;
  const int32_t tag = coll::seq_tag(seq);
  if (call) call->begin();
  if (!request) {
    coll::Sched s(c->team(), tag, seq);
    if (int e = coll::run(s, algorithm(s, a))) return coll_failed(c, fn_, e);
    if (call) call->finish();
    return MPI_SUCCESS;
  }
  auto *nb = new (std::nothrow) NbCall(c->team(), tag, call ? std::move(*call) : Call{});
  PAMIR_CHECK(c, nb, MPI_ERR_NO_MEM, "no memory for the state of a nonblocking collective");
  nb->hold(t1);
  nb->hold(t2);
  for (int i = 0; i < nmore; ++i) nb->hold(more[i]);
  pamir::Request *r = request_alloc(ReqKind::schedule);
  r->mpi_comm = c;
  nb->req = r;
  nb->may_offload = offload;
  *request.h = reinterpret_cast<MPI_Request>(r);
  nb->start(algorithm(nb->sched, a));
  return MPI_SUCCESS;
}

// The checks and staging every reduction shares: the operation on the type, the layout, and the
// receive buffer's scratch copy (of `stage_count` elements; what the operation sees is `count`).
#define PAMIR_REDUCTION(c, o, t, r)                          \
  coll::Reduction r;                                         \
  if (int rc_ = make_reduction(c, o, t, r, fn_)) return rc_; \
  PAMIR_REDUCE_LAYOUT(c, t)

inline uint32_t reduction_bits(const Datatype *t, const Op *o, const coll::Reduction &r, bool in_place,
                               const void *sendbuf, const void *recvbuf) {
  return (t->contiguous ? coll::kContiguous : 0) | (o->is_builtin ? coll::kBuiltinOp : 0) |
         (r.commutative ? coll::kCommutative : 0) | (in_place ? coll::kInPlace : 0) |
         aligned_bit(in_place ? nullptr : sendbuf, recvbuf);
}

// Reduce and allreduce, once the arguments are checked: into the receive buffer itself (a.recvbuf), or,
// where `writes` it and count elements of t have gaps, into a scratch copy whose data goes back at the end.
int launch_reduction(Comm *c, const char *fn_, Collective k, Datatype *t, const Op *o, int64_t count,
                     bool writes, coll::Args &a, Req request) {
  const uint64_t bytes = a.count * a.op.extent;
  if (!writes || !ReduceStage::needed(t, uint64_t(count)))
    return launch(c, fn_, k, reduction_bits(t, o, a.op, a.in_place, a.sendbuf, a.recvbuf), bytes, a, nullptr,
                  request, t);
  Call call;
  call.red.set(a.recvbuf, t, uint64_t(count));
  PAMIR_STAGE(c, call.red);
  call.copy_red = a.in_place;
  call.unpack_red = true;
  a.recvbuf = call.red.ptr();
  return launch(c, fn_, k, reduction_bits(t, o, a.op, a.in_place, a.sendbuf, a.recvbuf), bytes, a, &call,
                request, t);
}

// A process of a rooted collective's root group on an inter-communicator that is not the root
// (MPI_PROC_NULL): it takes the call's sequence number like every other, and moves nothing.
int launch_idle(Comm *c, const char *fn_, Collective k, Req request) {
  coll::Args a;
  a.root = coll::kRootIdle;
  return launch(c, fn_, k, 0, 0, a, nullptr, request);
}

int barrier(const char *fn_, MPI_Comm comm, Req request) {
  Comm *c = PAMIR_COMM(comm);
  return launch(c, fn_, Collective::barrier, 0, 0, coll::Args{}, nullptr, request);
}

int bcast(const char *fn_, void *buffer, int64_t count, MPI_Datatype datatype, int root, MPI_Comm comm,
          Req request) {
  Comm *c = PAMIR_COMM(comm);
  PAMIR_ROOT(c, root);
  if (!takes_part(c, root)) return launch_idle(c, fn_, Collective::bcast, request);
  Datatype *t = PAMIR_TYPE(c, datatype);
  PAMIR_CHECK_PART(c, buffer, count, t, 1, "broadcast");
  PAMIR_CHECK(c, buffer != MPI_IN_PLACE, MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed in a broadcast");
  coll::Args a;
  a.root = algorithm_root(c, root);
  a.bytes = data_bytes(t, count);
  const Data d = data_of(t, buffer, uint64_t(count));
  const uint32_t contiguous = t->contiguous ? coll::kContiguous : 0;
  if (!d.layout) {  // the user's bytes themselves: nothing to stage or finish
    a.recvbuf = d.base;
    return launch(c, fn_, Collective::bcast, contiguous | aligned_bit(a.recvbuf, nullptr), a.bytes, a,
                  nullptr, request, t);
  }
  Call call;
  call.recv.set(buffer, t, uint64_t(count), 1);
  PAMIR_STAGE(c, call.recv);
  call.pack_recv = is_root_of(c, root);
  call.unpack_recv = !call.pack_recv;
  a.recvbuf = call.recv.ptr();
  return launch(c, fn_, Collective::bcast, contiguous | aligned_bit(a.recvbuf, nullptr), a.bytes, a, &call,
                request, t);
}

int reduce(const char *fn_, const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype datatype,
           MPI_Op op, int root, MPI_Comm comm, Req request) {
  Comm *c = PAMIR_COMM(comm);
  PAMIR_ROOT(c, root);
  if (!takes_part(c, root)) return launch_idle(c, fn_, Collective::reduce, request);
  Datatype *t = PAMIR_TYPE(c, datatype);
  Op *o = PAMIR_OP(c, op);
  const bool is_root = is_root_of(c, root);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  PAMIR_NOT_IN_PLACE_INTER(c, in_place && !is_root);
  PAMIR_CHECK(c, !in_place || is_root, MPI_ERR_BUFFER, "MPI_IN_PLACE is allowed at the root (rank %d) only",
              root);
  const bool sends = !(c->remote && is_root);  // an inter-communicator's root only receives
  if (sends) PAMIR_CHECK_PART(c, sendbuf, count, t, 1, "send");
  if (is_root) {
    PAMIR_CHECK(c, recvbuf != MPI_IN_PLACE, MPI_ERR_BUFFER,
                "MPI_IN_PLACE is not a receive buffer (pass it as sendbuf)");
    PAMIR_CHECK(c, buffer_ok(recvbuf, count), MPI_ERR_BUFFER, "receive buffer is NULL with count %lld",
                (long long)count);
  }
  const uint64_t bytes = span_bytes(t, uint64_t(count));
  PAMIR_CHECK(c, !is_root || !sends || in_place || !overlap(sendbuf, bytes, recvbuf, bytes), MPI_ERR_BUFFER,
              "sendbuf and recvbuf overlap (use MPI_IN_PLACE)");
  PAMIR_REDUCTION(c, o, t, r);
  coll::Args a;
  a.sendbuf = sendbuf;
  a.recvbuf = recvbuf;
  a.count = elements(o, t, count);
  a.op = r;
  a.root = algorithm_root(c, root);
  a.in_place = in_place;
  // Only the root's receive buffer is written.
  return launch_reduction(c, fn_, Collective::reduce, t, o, count, is_root, a, request);
}

int allreduce(const char *fn_, const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype datatype,
              MPI_Op op, MPI_Comm comm, Req request) {
  Comm *c = PAMIR_COMM(comm);
  Datatype *t = PAMIR_TYPE(c, datatype);
  Op *o = PAMIR_OP(c, op);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  PAMIR_NOT_IN_PLACE_INTER(c, in_place);
  PAMIR_CHECK_PART(c, sendbuf, count, t, 1, "send");
  PAMIR_CHECK(c, recvbuf != MPI_IN_PLACE, MPI_ERR_BUFFER,
              "MPI_IN_PLACE is not a receive buffer (pass it as sendbuf)");
  PAMIR_CHECK(c, buffer_ok(recvbuf, count), MPI_ERR_BUFFER, "receive buffer is NULL with count %lld",
              (long long)count);
  const uint64_t bytes = span_bytes(t, uint64_t(count));
  PAMIR_CHECK(c, in_place || !overlap(sendbuf, bytes, recvbuf, bytes), MPI_ERR_BUFFER,
              "sendbuf and recvbuf overlap (use MPI_IN_PLACE)");
  PAMIR_REDUCTION(c, o, t, r);
  coll::Args a;
  a.sendbuf = sendbuf;
  a.recvbuf = recvbuf;
  a.count = elements(o, t, count);
  a.op = r;
  a.in_place = in_place;
  return launch_reduction(c, fn_, Collective::allreduce, t, o, count, true, a, request);
}

int gather(const char *fn_, const void *sendbuf, int64_t sendcount, MPI_Datatype sendtype, void *recvbuf,
           int64_t recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, Req request) {
  Comm *c = PAMIR_COMM(comm);
  PAMIR_ROOT(c, root);
  if (!takes_part(c, root)) return launch_idle(c, fn_, Collective::gather, request);
  const bool is_root = is_root_of(c, root);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  PAMIR_NOT_IN_PLACE_INTER(c, in_place && !is_root);
  PAMIR_CHECK(c, !in_place || is_root, MPI_ERR_BUFFER, "MPI_IN_PLACE is allowed at the root (rank %d) only",
              root);
  const bool sends = !in_place && !(c->remote && is_root);  // an inter-communicator's root only receives
  const uint64_t p = uint64_t(c->peer_size);
  Datatype *st = nullptr, *rt = nullptr;
  uint64_t sbytes = 0, rbytes = 0;
  if (sends) {
    st = PAMIR_TYPE(c, sendtype);
    PAMIR_CHECK_PART(c, sendbuf, sendcount, st, 1, "send");
    sbytes = data_bytes(st, sendcount);
  }
  if (is_root) {
    rt = PAMIR_TYPE(c, recvtype);
    PAMIR_CHECK_PART(c, recvbuf, recvcount, rt, p, "receive");
    PAMIR_CHECK(c, recvbuf != MPI_IN_PLACE, MPI_ERR_BUFFER,
                "MPI_IN_PLACE is not a receive buffer (pass it as sendbuf)");
    rbytes = data_bytes(rt, recvcount);
    if (sends) {
      PAMIR_SAME_BYTES(c, sbytes, rbytes);
      PAMIR_CHECK(c,
                  !overlap(sendbuf, span_bytes(st, uint64_t(sendcount)), recvbuf,
                           span_bytes(rt, uint64_t(recvcount)) * p),
                  MPI_ERR_BUFFER, "sendbuf and recvbuf overlap (use MPI_IN_PLACE)");
    }
  }
  Call call;
  if (sends) call.send.set(sendbuf, st, uint64_t(sendcount), 1);
  if (is_root) call.recv.set(recvbuf, rt, uint64_t(recvcount), p);
  PAMIR_STAGE(c, call.send);
  PAMIR_STAGE(c, call.recv);
  call.pack_send = true;
  call.pack_recv = in_place;
  call.unpack_recv = is_root;
  coll::Args a;
  a.sendbuf = in_place ? MPI_IN_PLACE : call.send.ptr();
  a.recvbuf = call.recv.ptr();
  a.bytes = is_root ? rbytes : sbytes;
  a.root = algorithm_root(c, root);
  a.in_place = in_place;
  const uint32_t bits = ((!st || st->contiguous) && (!rt || rt->contiguous) ? coll::kContiguous : 0) |
                        (in_place ? coll::kInPlace : 0) |
                        aligned_bit(in_place ? nullptr : sendbuf, a.recvbuf);
  return launch(c, fn_, Collective::gather, bits, a.bytes, a, &call, request, st, rt);
}

int scatter(const char *fn_, const void *sendbuf, int64_t sendcount, MPI_Datatype sendtype, void *recvbuf,
            int64_t recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, Req request) {
  Comm *c = PAMIR_COMM(comm);
  PAMIR_ROOT(c, root);
  if (!takes_part(c, root)) return launch_idle(c, fn_, Collective::scatter, request);
  const bool is_root = is_root_of(c, root);
  const bool in_place = recvbuf == MPI_IN_PLACE;
  PAMIR_NOT_IN_PLACE_INTER(c, in_place && !is_root);
  PAMIR_CHECK(c, !in_place || is_root, MPI_ERR_BUFFER, "MPI_IN_PLACE is allowed at the root (rank %d) only",
              root);
  const bool receives = !in_place && !(c->remote && is_root);  // an inter-communicator's root only sends
  const uint64_t p = uint64_t(c->peer_size);
  Datatype *st = nullptr, *rt = nullptr;
  uint64_t sbytes = 0, rbytes = 0;
  if (receives) {
    rt = PAMIR_TYPE(c, recvtype);
    PAMIR_CHECK_PART(c, recvbuf, recvcount, rt, 1, "receive");
    rbytes = data_bytes(rt, recvcount);
  }
  if (is_root) {
    st = PAMIR_TYPE(c, sendtype);
    PAMIR_CHECK_PART(c, sendbuf, sendcount, st, p, "send");
    PAMIR_CHECK(c, sendbuf != MPI_IN_PLACE, MPI_ERR_BUFFER,
                "MPI_IN_PLACE is not a send buffer (pass it as recvbuf)");
    sbytes = data_bytes(st, sendcount);
    if (receives) {
      PAMIR_SAME_BYTES(c, sbytes, rbytes);
      PAMIR_CHECK(c,
                  !overlap(sendbuf, span_bytes(st, uint64_t(sendcount)) * p, recvbuf,
                           span_bytes(rt, uint64_t(recvcount))),
                  MPI_ERR_BUFFER, "sendbuf and recvbuf overlap (use MPI_IN_PLACE)");
    }
  }
  Call call;
  if (is_root) call.send.set(sendbuf, st, uint64_t(sendcount), p);
  if (receives) call.recv.set(recvbuf, rt, uint64_t(recvcount), 1);
  PAMIR_STAGE(c, call.send);
  PAMIR_STAGE(c, call.recv);
  call.pack_send = is_root;
  call.unpack_recv = receives;
  coll::Args a;
  a.sendbuf = call.send.ptr();
  a.recvbuf = in_place ? MPI_IN_PLACE : call.recv.ptr();
  a.bytes = is_root ? sbytes : rbytes;
  a.root = algorithm_root(c, root);
  a.in_place = in_place;
  const uint32_t bits = ((!st || st->contiguous) && (!rt || rt->contiguous) ? coll::kContiguous : 0) |
                        (in_place ? coll::kInPlace : 0) |
                        aligned_bit(a.sendbuf, in_place ? nullptr : recvbuf);
  return launch(c, fn_, Collective::scatter, bits, a.bytes, a, &call, request, st, rt);
}

// Allgather and alltoall on an inter-communicator: the parts of each side as blocks, since the other
// group's parts need not be as long as this one's (its counts and types are its own).
int all_to_all_inter(Comm *c, const char *fn_, const void *sendbuf, int64_t sendcount, MPI_Datatype sendtype,
                     void *recvbuf, int64_t recvcount, MPI_Datatype recvtype, bool alltoall, Req request) {
  PAMIR_NOT_IN_PLACE_INTER(c, sendbuf == MPI_IN_PLACE);
  PAMIR_CHECK(c, recvbuf != MPI_IN_PLACE, MPI_ERR_BUFFER, "MPI_IN_PLACE is not a receive buffer");
  Datatype *st = PAMIR_TYPE(c, sendtype), *rt = PAMIR_TYPE(c, recvtype);
  const int m = c->peer_size, send_blocks = alltoall ? m : 1;
  PAMIR_CHECK_PART(c, recvbuf, recvcount, rt, uint64_t(m), "receive");
  PAMIR_CHECK_PART(c, sendbuf, sendcount, st, uint64_t(send_blocks), "send");
  std::vector<int64_t> rcounts(size_t(m), recvcount), scounts(size_t(send_blocks), sendcount);
  std::vector<int64_t> rdispls(size_t(m), 0), sdispls(size_t(send_blocks), 0);
  for (int i = 0; i < m; ++i) rdispls[size_t(i)] = int64_t(i) * recvcount;
  for (int i = 0; i < send_blocks; ++i) sdispls[size_t(i)] = int64_t(i) * sendcount;
  Call call;
  if (int rc = make_blocks(c, fn_, recvbuf, rcounts.data(), rdispls.data(), rt, nullptr, m, call.rblocks,
                           "receive"))
    return rc;
  if (int rc = make_blocks(c, fn_, sendbuf, scounts.data(), sdispls.data(), st, nullptr, send_blocks,
                           call.sblocks, "send"))
    return rc;
  coll::Args a;
  a.sblocks = call.sblocks.data();
  a.rblocks = call.rblocks.data();
  return launch(c, fn_, alltoall ? Collective::alltoall : Collective::allgather, 0, data_bytes(rt, recvcount),
                a, &call, request, st, rt);
}

// Allgather (send_blocks = 1) and alltoall (send_blocks = p): the same checks, and the same staging.
int all_to_all(const char *fn_, const void *sendbuf, int64_t sendcount, MPI_Datatype sendtype, void *recvbuf,
               int64_t recvcount, MPI_Datatype recvtype, MPI_Comm comm, bool alltoall, Req request) {
  Comm *c = PAMIR_COMM(comm);
  if (c->remote)
    return all_to_all_inter(c, fn_, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, alltoall,
                            request);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const uint64_t p = uint64_t(c->size), send_blocks = alltoall ? p : 1;
  Datatype *rt = PAMIR_TYPE(c, recvtype);
  PAMIR_CHECK_PART(c, recvbuf, recvcount, rt, p, "receive");
  PAMIR_CHECK(c, recvbuf != MPI_IN_PLACE, MPI_ERR_BUFFER,
              "MPI_IN_PLACE is not a receive buffer (pass it as sendbuf)");
  const uint64_t bytes = data_bytes(rt, recvcount);
  Datatype *st = rt;
  if (!in_place) {
    st = PAMIR_TYPE(c, sendtype);
    PAMIR_CHECK_PART(c, sendbuf, sendcount, st, send_blocks, "send");
    PAMIR_SAME_BYTES(c, data_bytes(st, sendcount), bytes);
    PAMIR_CHECK(c,
                !overlap(sendbuf, span_bytes(st, uint64_t(sendcount)) * send_blocks, recvbuf,
                         span_bytes(rt, uint64_t(recvcount)) * p),
                MPI_ERR_BUFFER, "sendbuf and recvbuf overlap (use MPI_IN_PLACE)");
  }
  Call call;
  if (!in_place) call.send.set(sendbuf, st, uint64_t(sendcount), send_blocks);
  call.recv.set(recvbuf, rt, uint64_t(recvcount), p);
  PAMIR_STAGE(c, call.send);
  PAMIR_STAGE(c, call.recv);
  call.pack_send = true;
  call.pack_recv = in_place;
  call.unpack_recv = true;
  coll::Args a;
  a.sendbuf = in_place ? MPI_IN_PLACE : call.send.ptr();
  a.recvbuf = call.recv.ptr();
  a.bytes = bytes;
  a.in_place = in_place;
  const uint32_t bits = (st->contiguous && rt->contiguous ? coll::kContiguous : 0) |
                        (in_place ? coll::kInPlace : 0) |
                        aligned_bit(in_place ? nullptr : sendbuf, a.recvbuf);
  return launch(c, fn_, alltoall ? Collective::alltoall : Collective::allgather, bits, bytes, a, &call,
                request, in_place ? nullptr : st, rt);
}

// MPI_Scan (exclusive false) and MPI_Exscan: allreduce's checks; in place everywhere or nowhere.
int scan(const char *fn_, const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype datatype, MPI_Op op,
         MPI_Comm comm, bool exclusive, Req request) {
  Comm *c = PAMIR_COMM(comm);
  PAMIR_INTRA(c);
  Datatype *t = PAMIR_TYPE(c, datatype);
  Op *o = PAMIR_OP(c, op);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  PAMIR_CHECK_PART(c, sendbuf, count, t, 1, "send");
  PAMIR_CHECK(c, recvbuf != MPI_IN_PLACE, MPI_ERR_BUFFER,
              "MPI_IN_PLACE is not a receive buffer (pass it as sendbuf)");
  PAMIR_CHECK(c, buffer_ok(recvbuf, count), MPI_ERR_BUFFER, "receive buffer is NULL with count %lld",
              (long long)count);
  const uint64_t bytes = span_bytes(t, uint64_t(count));
  PAMIR_CHECK(c, in_place || !overlap(sendbuf, bytes, recvbuf, bytes), MPI_ERR_BUFFER,
              "sendbuf and recvbuf overlap (use MPI_IN_PLACE)");
  PAMIR_REDUCTION(c, o, t, r);
  Call call;
  call.red.set(recvbuf, t, uint64_t(count));
  PAMIR_STAGE(c, call.red);
  call.copy_red = in_place;
  call.unpack_red = !(exclusive && c->rank == 0);  // MPI_Exscan leaves rank 0's recvbuf undefined: untouched
  coll::Args a;
  a.sendbuf = sendbuf;
  a.recvbuf = call.red.ptr();
  a.count = elements(o, t, count);
  a.op = r;
  a.in_place = in_place;
  return launch(c, fn_, exclusive ? Collective::exscan : Collective::scan,
                reduction_bits(t, o, r, in_place, sendbuf, a.recvbuf), a.count * r.extent, a, &call, request,
                t);
}

// MPI_Reduce_scatter (counts[i] elements for rank i; `each` is kNotBlock) and MPI_Reduce_scatter_block
// (`each` elements for every rank).
constexpr int64_t kNotBlock = INT64_MIN;
template <typename CountT>
int reduce_scatter(const char *fn_, const void *sendbuf, void *recvbuf, const CountT *counts, int64_t each,
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, Req request) {
  Comm *c = PAMIR_COMM(comm);
  Datatype *t = PAMIR_TYPE(c, datatype);
  Op *o = PAMIR_OP(c, op);
  const bool block = each != kNotBlock;
  PAMIR_CHECK(c, block || counts, MPI_ERR_ARG, "recvcounts is NULL");
  const bool in_place = sendbuf == MPI_IN_PLACE;
  // On an inter-communicator the counts are this group's, and the send buffers of both groups hold
  // their sum (the other group's result is scattered here).
  PAMIR_NOT_IN_PLACE_INTER(c, in_place);
  Call call;
  try {
    call.counts.resize(size_t(c->size));
  } catch (const std::bad_alloc &) {
    return raise(c, fn_, MPI_ERR_NO_MEM, "no memory for the counts of %d ranks", c->size);
  }
  int64_t total = 0;
  for (int i = 0; i < c->size; ++i) {
    const int64_t n = block ? each : int64_t(counts[i]);
    PAMIR_CHECK(c, n >= 0, MPI_ERR_COUNT, "negative count %lld for rank %d", (long long)n, i);
    PAMIR_CHECK(c, !too_big(n, t, 1) && total <= INT64_MAX - n, MPI_ERR_COUNT, "the counts are too large");
    call.counts[size_t(i)] = elements(o, t, n);
    total += n;
  }
  const int64_t mine = block ? each : int64_t(counts[c->rank]);
  PAMIR_CHECK_PART(c, sendbuf, total, t, 1, "send");
  PAMIR_CHECK(c, recvbuf != MPI_IN_PLACE, MPI_ERR_BUFFER,
              "MPI_IN_PLACE is not a receive buffer (pass it as sendbuf)");
  PAMIR_CHECK(c, buffer_ok(recvbuf, in_place ? total : mine), MPI_ERR_BUFFER,
              "receive buffer is NULL with count %lld", (long long)(in_place ? total : mine));
  PAMIR_CHECK(
      c,
      in_place || !overlap(sendbuf, span_bytes(t, uint64_t(total)), recvbuf, span_bytes(t, uint64_t(mine))),
      MPI_ERR_BUFFER, "sendbuf and recvbuf overlap (use MPI_IN_PLACE)");
  PAMIR_REDUCTION(c, o, t, r);
  // In place the whole input is in recvbuf: the scratch copy covers it, and what goes back beyond the
  // rank's block is its own input unchanged.
  call.red.set(recvbuf, t, uint64_t(in_place ? total : mine));
  PAMIR_STAGE(c, call.red);
  call.copy_red = in_place;
  call.unpack_red = true;
  coll::Args a;
  a.sendbuf = sendbuf;
  a.recvbuf = call.red.ptr();
  a.counts = call.counts.data();
  a.op = r;
  a.in_place = in_place;
  return launch(c, fn_, block ? Collective::reduce_scatter_block : Collective::reduce_scatter,
                reduction_bits(t, o, r, in_place, sendbuf, a.recvbuf),
                uint64_t(elements(o, t, total)) * r.extent, a, &call, request, t);
}

// The one part of a rank's own side (gatherv's send, scatterv's receive, allgatherv's send).
inline int one_block(Comm *c, const char *fn_, const void *buf, int64_t count, Datatype *t,
                     std::vector<coll::Block> &out, const char *what) {
  const int64_t zero = 0;
  return make_blocks(c, fn_, buf, &count, &zero, t, nullptr, 1, out, what);
}

template <typename CountT, typename DisplT>
int gatherv(const char *fn_, const void *sendbuf, int64_t sendcount, MPI_Datatype sendtype, void *recvbuf,
            const CountT *recvcounts, const DisplT *displs, MPI_Datatype recvtype, int root, MPI_Comm comm,
            Req request) {
  Comm *c = PAMIR_COMM(comm);
  PAMIR_ROOT(c, root);
  if (!takes_part(c, root)) return launch_idle(c, fn_, Collective::gatherv, request);
  const bool is_root = is_root_of(c, root);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  PAMIR_NOT_IN_PLACE_INTER(c, in_place && !is_root);
  PAMIR_CHECK(c, !in_place || is_root, MPI_ERR_BUFFER, "MPI_IN_PLACE is allowed at the root (rank %d) only",
              root);
  const bool sends = !in_place && !(c->remote && is_root);
  Call call;
  Datatype *st = nullptr, *rt = nullptr;
  if (sends) {
    st = PAMIR_TYPE(c, sendtype);
    if (int rc = one_block(c, fn_, sendbuf, sendcount, st, call.sblocks, "send")) return rc;
  }
  if (is_root) {
    rt = PAMIR_TYPE(c, recvtype);
    PAMIR_CHECK(c, recvbuf != MPI_IN_PLACE, MPI_ERR_BUFFER,
                "MPI_IN_PLACE is not a receive buffer (pass it as sendbuf)");
    if (int rc = make_blocks(c, fn_, recvbuf, recvcounts, displs, rt, nullptr, c->peer_size, call.rblocks,
                             "receive"))
      return rc;
    if (sends) PAMIR_SAME_BYTES(c, call.sblocks[0].bytes, call.rblocks[size_t(root)].bytes);
  }
  coll::Args a;
  a.sblocks = call.sblocks.data();
  a.rblocks = call.rblocks.data();
  a.root = algorithm_root(c, root);
  a.in_place = in_place;
  return launch(c, fn_, Collective::gatherv, in_place ? coll::kInPlace : 0, 0, a, &call, request, st, rt);
}

template <typename CountT, typename DisplT>
int scatterv(const char *fn_, const void *sendbuf, const CountT *sendcounts, const DisplT *displs,
             MPI_Datatype sendtype, void *recvbuf, int64_t recvcount, MPI_Datatype recvtype, int root,
             MPI_Comm comm, Req request) {
  Comm *c = PAMIR_COMM(comm);
  PAMIR_ROOT(c, root);
  if (!takes_part(c, root)) return launch_idle(c, fn_, Collective::scatterv, request);
  const bool is_root = is_root_of(c, root);
  const bool in_place = recvbuf == MPI_IN_PLACE;
  PAMIR_NOT_IN_PLACE_INTER(c, in_place && !is_root);
  PAMIR_CHECK(c, !in_place || is_root, MPI_ERR_BUFFER, "MPI_IN_PLACE is allowed at the root (rank %d) only",
              root);
  const bool receives = !in_place && !(c->remote && is_root);
  Call call;
  Datatype *st = nullptr, *rt = nullptr;
  if (receives) {
    rt = PAMIR_TYPE(c, recvtype);
    if (int rc = one_block(c, fn_, recvbuf, recvcount, rt, call.rblocks, "receive")) return rc;
  }
  if (is_root) {
    st = PAMIR_TYPE(c, sendtype);
    PAMIR_CHECK(c, sendbuf != MPI_IN_PLACE, MPI_ERR_BUFFER,
                "MPI_IN_PLACE is not a send buffer (pass it as recvbuf)");
    if (int rc =
            make_blocks(c, fn_, sendbuf, sendcounts, displs, st, nullptr, c->peer_size, call.sblocks, "send"))
      return rc;
    if (receives) PAMIR_SAME_BYTES(c, call.sblocks[size_t(root)].bytes, call.rblocks[0].bytes);
  }
  coll::Args a;
  a.sblocks = call.sblocks.data();
  a.rblocks = call.rblocks.data();
  a.root = algorithm_root(c, root);
  a.in_place = in_place;
  return launch(c, fn_, Collective::scatterv, in_place ? coll::kInPlace : 0, 0, a, &call, request, st, rt);
}

template <typename CountT, typename DisplT>
int allgatherv(const char *fn_, const void *sendbuf, int64_t sendcount, MPI_Datatype sendtype, void *recvbuf,
               const CountT *recvcounts, const DisplT *displs, MPI_Datatype recvtype, MPI_Comm comm,
               Req request) {
  Comm *c = PAMIR_COMM(comm);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  PAMIR_NOT_IN_PLACE_INTER(c, in_place);
  Call call;
  Datatype *st = nullptr, *rt = PAMIR_TYPE(c, recvtype);
  PAMIR_CHECK(c, recvbuf != MPI_IN_PLACE, MPI_ERR_BUFFER,
              "MPI_IN_PLACE is not a receive buffer (pass it as sendbuf)");
  if (int rc = make_blocks(c, fn_, recvbuf, recvcounts, displs, rt, nullptr, c->peer_size, call.rblocks,
                           "receive"))
    return rc;
  if (!in_place) {
    st = PAMIR_TYPE(c, sendtype);
    if (int rc = one_block(c, fn_, sendbuf, sendcount, st, call.sblocks, "send")) return rc;
    if (!c->remote) PAMIR_SAME_BYTES(c, call.sblocks[0].bytes, call.rblocks[size_t(c->rank)].bytes);
  }
  uint64_t total = 0;  // every rank knows every part's size: the size class is the same everywhere
  for (const coll::Block &b : call.rblocks) total += b.bytes;
  coll::Args a;
  a.sblocks = call.sblocks.data();
  a.rblocks = call.rblocks.data();
  a.in_place = in_place;
  return launch(c, fn_, Collective::allgatherv, in_place ? coll::kInPlace : 0, total, a, &call, request, st,
                rt);
}

// MPI_Alltoallv (types null: sendtype/recvtype for every part, displacements in extents) and
// MPI_Alltoallw (a type per part, displacements in bytes). In place, the receive buffer's parts are
// packed first and sent from the copy.
template <typename CountT, typename DisplT>
int alltoallv(const char *fn_, const void *sendbuf, const CountT *sendcounts, const DisplT *sdispls,
              MPI_Datatype sendtype, const MPI_Datatype *sendtypes, void *recvbuf, const CountT *recvcounts,
              const DisplT *rdispls, MPI_Datatype recvtype, const MPI_Datatype *recvtypes, MPI_Comm comm,
              bool w, Req request) {
  Comm *c = PAMIR_COMM(comm);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  PAMIR_NOT_IN_PLACE_INTER(c, in_place);
  const int p = c->peer_size;
  Call call;
  std::vector<Datatype *> stypes, rtypes;
  Datatype *st = nullptr, *rt = nullptr;
  PAMIR_CHECK(c, recvbuf != MPI_IN_PLACE, MPI_ERR_BUFFER,
              "MPI_IN_PLACE is not a receive buffer (pass it as sendbuf)");
  if (w) {
    if (int rc = check_types(c, fn_, recvtypes, p, rtypes, "receive")) return rc;
  } else {
    rt = PAMIR_TYPE(c, recvtype);
  }
  if (int rc = make_blocks(c, fn_, recvbuf, recvcounts, rdispls, rt, w ? rtypes.data() : nullptr, p,
                           call.rblocks, "receive"))
    return rc;
  if (in_place) {
    uint64_t total = 0;
    for (const coll::Block &b : call.rblocks) total += b.bytes;
    try {
      call.packed.resize(total);
      call.sblocks.resize(size_t(p));
    } catch (const std::bad_alloc &) {
      return raise(c, fn_, MPI_ERR_NO_MEM, "no memory for a copy of the %llu bytes sent in place",
                   (unsigned long long)total);
    }
    call.pack_parts = true;
  } else {
    if (w) {
      if (int rc = check_types(c, fn_, sendtypes, p, stypes, "send")) return rc;
    } else {
      st = PAMIR_TYPE(c, sendtype);
    }
    if (int rc = make_blocks(c, fn_, sendbuf, sendcounts, sdispls, st, w ? stypes.data() : nullptr, p,
                             call.sblocks, "send"))
      return rc;
    if (!c->remote)
      PAMIR_SAME_BYTES(c, call.sblocks[size_t(c->rank)].bytes, call.rblocks[size_t(c->rank)].bytes);
  }
  coll::Args a;
  a.sblocks = call.sblocks.data();
  a.rblocks = call.rblocks.data();
  a.in_place = false;  // the parts to send are in the packed copy
  rtypes.insert(rtypes.end(), stypes.begin(), stypes.end());
  return launch(c, fn_, w ? Collective::alltoallw : Collective::alltoallv, in_place ? coll::kInPlace : 0, 0,
                a, &call, request, st, rt, rtypes.data(), int(rtypes.size()));
}

// A persistent collective's info argument: MPI_INFO_NULL or a valid info (no key changes anything yet).
[[gnu::cold]] int bad_info(const char *fn, MPI_Comm comm, MPI_Info info) {
  return raise(lookup<Comm>(comm), fn, MPI_ERR_INFO, "invalid info handle %p", static_cast<void *>(info));
}
inline int check_info(const char *fn, MPI_Comm comm, MPI_Info info) {
  return info == MPI_INFO_NULL || info_of(info) ? MPI_SUCCESS : bad_info(fn, comm, info);
}

// A nonblocking call given no place for its request.
[[gnu::cold]] int null_request(const char *fn, MPI_Comm comm) {
  return raise(lookup<Comm>(comm), fn, MPI_ERR_ARG, "request is NULL");
}

}  // namespace

int launch_neighbor(Comm *c, const char *fn_, Collective k, NeighborCall &&n, uint64_t size,
                    MPI_Request *request, bool persistent, std::vector<Datatype *> &types) {
  Call call;
  call.sblocks = std::move(n.sblocks);
  call.rblocks = std::move(n.rblocks);
  call.in_peers = std::move(n.in_peers);
  call.out_peers = std::move(n.out_peers);
  call.recv_order = std::move(n.recv_order);
  // The vectors' buffers move with the Call into a nonblocking or persistent call's state.
  coll::Args a;
  a.sblocks = call.sblocks.data();
  a.rblocks = call.rblocks.data();
  a.in_peers = call.in_peers.data();
  a.out_peers = call.out_peers.data();
  a.recv_order = call.recv_order.empty() ? nullptr : call.recv_order.data();
  a.nin = int(call.in_peers.size());
  a.nout = int(call.out_peers.size());
  return launch(c, fn_, k, 0, size, a, &call, Req(request, persistent), nullptr, nullptr, types.data(),
                int(types.size()));
}

}  // namespace pamir::mpi

using namespace pamir::mpi;

int PMPI_Barrier(MPI_Comm comm) {
  PAMIR_ENTER("MPI_Barrier");
  return barrier(fn_, comm, nullptr);
}
PAMIR_ALIAS(Barrier);

int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Ibarrier");
  if (!request) return null_request(fn_, comm);
  return barrier(fn_, comm, request);
}
PAMIR_ALIAS(Ibarrier);

int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Bcast");
  return bcast(fn_, buffer, count, datatype, root, comm, nullptr);
}
PAMIR_ALIAS(Bcast);

int PMPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Bcast_c");
  return bcast(fn_, buffer, count, datatype, root, comm, nullptr);
}
PAMIR_ALIAS(Bcast_c);

int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                MPI_Request *request) {
  PAMIR_ENTER("MPI_Ibcast");
  if (!request) return null_request(fn_, comm);
  return bcast(fn_, buffer, count, datatype, root, comm, request);
}
PAMIR_ALIAS(Ibcast);

int PMPI_Ibcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                  MPI_Request *request) {
  PAMIR_ENTER("MPI_Ibcast_c");
  if (!request) return null_request(fn_, comm);
  return bcast(fn_, buffer, count, datatype, root, comm, request);
}
PAMIR_ALIAS(Ibcast_c);

int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                MPI_Comm comm) {
  PAMIR_ENTER("MPI_Reduce");
  return reduce(fn_, sendbuf, recvbuf, count, datatype, op, root, comm, nullptr);
}
PAMIR_ALIAS(Reduce);

int PMPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                  int root, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Reduce_c");
  return reduce(fn_, sendbuf, recvbuf, count, datatype, op, root, comm, nullptr);
}
PAMIR_ALIAS(Reduce_c);

int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                 MPI_Comm comm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Ireduce");
  if (!request) return null_request(fn_, comm);
  return reduce(fn_, sendbuf, recvbuf, count, datatype, op, root, comm, request);
}
PAMIR_ALIAS(Ireduce);

int PMPI_Ireduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                   int root, MPI_Comm comm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Ireduce_c");
  if (!request) return null_request(fn_, comm);
  return reduce(fn_, sendbuf, recvbuf, count, datatype, op, root, comm, request);
}
PAMIR_ALIAS(Ireduce_c);

int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm) {
  PAMIR_ENTER("MPI_Allreduce");
  return allreduce(fn_, sendbuf, recvbuf, count, datatype, op, comm, nullptr);
}
PAMIR_ALIAS(Allreduce);

int PMPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                     MPI_Comm comm) {
  PAMIR_ENTER("MPI_Allreduce_c");
  return allreduce(fn_, sendbuf, recvbuf, count, datatype, op, comm, nullptr);
}
PAMIR_ALIAS(Allreduce_c);

int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Iallreduce");
  if (!request) return null_request(fn_, comm);
  return allreduce(fn_, sendbuf, recvbuf, count, datatype, op, comm, request);
}
PAMIR_ALIAS(Iallreduce);

int PMPI_Iallreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                      MPI_Comm comm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Iallreduce_c");
  if (!request) return null_request(fn_, comm);
  return allreduce(fn_, sendbuf, recvbuf, count, datatype, op, comm, request);
}
PAMIR_ALIAS(Iallreduce_c);

int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Gather");
  return gather(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, nullptr);
}
PAMIR_ALIAS(Gather);

int PMPI_Gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Gather_c");
  return gather(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, nullptr);
}
PAMIR_ALIAS(Gather_c);

int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Igather");
  if (!request) return null_request(fn_, comm);
  return gather(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
}
PAMIR_ALIAS(Igather);

int PMPI_Igather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                   MPI_Request *request) {
  PAMIR_ENTER("MPI_Igather_c");
  if (!request) return null_request(fn_, comm);
  return gather(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
}
PAMIR_ALIAS(Igather_c);

int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Scatter");
  return scatter(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, nullptr);
}
PAMIR_ALIAS(Scatter);

int PMPI_Scatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Scatter_c");
  return scatter(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, nullptr);
}
PAMIR_ALIAS(Scatter_c);

int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Iscatter");
  if (!request) return null_request(fn_, comm);
  return scatter(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
}
PAMIR_ALIAS(Iscatter);

int PMPI_Iscatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                    MPI_Request *request) {
  PAMIR_ENTER("MPI_Iscatter_c");
  if (!request) return null_request(fn_, comm);
  return scatter(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
}
PAMIR_ALIAS(Iscatter_c);

int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Allgather");
  return all_to_all(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, false, nullptr);
}
PAMIR_ALIAS(Allgather);

int PMPI_Allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Allgather_c");
  return all_to_all(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, false, nullptr);
}
PAMIR_ALIAS(Allgather_c);

int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Iallgather");
  if (!request) return null_request(fn_, comm);
  return all_to_all(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, false, request);
}
PAMIR_ALIAS(Iallgather);

int PMPI_Iallgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                      MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Iallgather_c");
  if (!request) return null_request(fn_, comm);
  return all_to_all(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, false, request);
}
PAMIR_ALIAS(Iallgather_c);

int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Alltoall");
  return all_to_all(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, true, nullptr);
}
PAMIR_ALIAS(Alltoall);

int PMPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Alltoall_c");
  return all_to_all(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, true, nullptr);
}
PAMIR_ALIAS(Alltoall_c);

int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Ialltoall");
  if (!request) return null_request(fn_, comm);
  return all_to_all(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, true, request);
}
PAMIR_ALIAS(Ialltoall);

int PMPI_Ialltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Ialltoall_c");
  if (!request) return null_request(fn_, comm);
  return all_to_all(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, true, request);
}
PAMIR_ALIAS(Ialltoall_c);

int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm) {
  PAMIR_ENTER("MPI_Scan");
  return scan(fn_, sendbuf, recvbuf, count, datatype, op, comm, false, nullptr);
}
PAMIR_ALIAS(Scan);

int PMPI_Scan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm) {
  PAMIR_ENTER("MPI_Scan_c");
  return scan(fn_, sendbuf, recvbuf, count, datatype, op, comm, false, nullptr);
}
PAMIR_ALIAS(Scan_c);

int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
               MPI_Request *request) {
  PAMIR_ENTER("MPI_Iscan");
  if (!request) return null_request(fn_, comm);
  return scan(fn_, sendbuf, recvbuf, count, datatype, op, comm, false, request);
}
PAMIR_ALIAS(Iscan);

int PMPI_Iscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm comm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Iscan_c");
  if (!request) return null_request(fn_, comm);
  return scan(fn_, sendbuf, recvbuf, count, datatype, op, comm, false, request);
}
PAMIR_ALIAS(Iscan_c);

int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm) {
  PAMIR_ENTER("MPI_Exscan");
  return scan(fn_, sendbuf, recvbuf, count, datatype, op, comm, true, nullptr);
}
PAMIR_ALIAS(Exscan);

int PMPI_Exscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm) {
  PAMIR_ENTER("MPI_Exscan_c");
  return scan(fn_, sendbuf, recvbuf, count, datatype, op, comm, true, nullptr);
}
PAMIR_ALIAS(Exscan_c);

int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm comm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Iexscan");
  if (!request) return null_request(fn_, comm);
  return scan(fn_, sendbuf, recvbuf, count, datatype, op, comm, true, request);
}
PAMIR_ALIAS(Iexscan);

int PMPI_Iexscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Iexscan_c");
  if (!request) return null_request(fn_, comm);
  return scan(fn_, sendbuf, recvbuf, count, datatype, op, comm, true, request);
}
PAMIR_ALIAS(Iexscan_c);

int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                              MPI_Op op, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Reduce_scatter_block");
  return reduce_scatter<int>(fn_, sendbuf, recvbuf, nullptr, recvcount, datatype, op, comm, nullptr);
}
PAMIR_ALIAS(Reduce_scatter_block);

int PMPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Reduce_scatter_block_c");
  return reduce_scatter<MPI_Count>(fn_, sendbuf, recvbuf, nullptr, recvcount, datatype, op, comm, nullptr);
}
PAMIR_ALIAS(Reduce_scatter_block_c);

int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                               MPI_Op op, MPI_Comm comm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Ireduce_scatter_block");
  if (!request) return null_request(fn_, comm);
  return reduce_scatter<int>(fn_, sendbuf, recvbuf, nullptr, recvcount, datatype, op, comm, request);
}
PAMIR_ALIAS(Ireduce_scatter_block);

int PMPI_Ireduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Ireduce_scatter_block_c");
  if (!request) return null_request(fn_, comm);
  return reduce_scatter<MPI_Count>(fn_, sendbuf, recvbuf, nullptr, recvcount, datatype, op, comm, request);
}
PAMIR_ALIAS(Ireduce_scatter_block_c);

int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Reduce_scatter");
  return reduce_scatter(fn_, sendbuf, recvbuf, recvcounts, kNotBlock, datatype, op, comm, nullptr);
}
PAMIR_ALIAS(Reduce_scatter);

int PMPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Reduce_scatter_c");
  return reduce_scatter(fn_, sendbuf, recvbuf, recvcounts, kNotBlock, datatype, op, comm, nullptr);
}
PAMIR_ALIAS(Reduce_scatter_c);

int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Ireduce_scatter");
  if (!request) return null_request(fn_, comm);
  return reduce_scatter(fn_, sendbuf, recvbuf, recvcounts, kNotBlock, datatype, op, comm, request);
}
PAMIR_ALIAS(Ireduce_scatter);

int PMPI_Ireduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Ireduce_scatter_c");
  if (!request) return null_request(fn_, comm);
  return reduce_scatter(fn_, sendbuf, recvbuf, recvcounts, kNotBlock, datatype, op, comm, request);
}
PAMIR_ALIAS(Ireduce_scatter_c);

int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Gatherv");
  return gatherv(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm,
                 nullptr);
}
PAMIR_ALIAS(Gatherv);

int PMPI_Gatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                   MPI_Comm comm) {
  PAMIR_ENTER("MPI_Gatherv_c");
  return gatherv(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm,
                 nullptr);
}
PAMIR_ALIAS(Gatherv_c);

int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request) {
  PAMIR_ENTER("MPI_Igatherv");
  if (!request) return null_request(fn_, comm);
  return gatherv(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm,
                 request);
}
PAMIR_ALIAS(Igatherv);

int PMPI_Igatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                    MPI_Comm comm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Igatherv_c");
  if (!request) return null_request(fn_, comm);
  return gatherv(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm,
                 request);
}
PAMIR_ALIAS(Igatherv_c);

int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Scatterv");
  return scatterv(fn_, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm,
                  nullptr);
}
PAMIR_ALIAS(Scatterv);

int PMPI_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                    int root, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Scatterv_c");
  return scatterv(fn_, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm,
                  nullptr);
}
PAMIR_ALIAS(Scatterv_c);

int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                   MPI_Request *request) {
  PAMIR_ENTER("MPI_Iscatterv");
  if (!request) return null_request(fn_, comm);
  return scatterv(fn_, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm,
                  request);
}
PAMIR_ALIAS(Iscatterv);

int PMPI_Iscatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                     MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                     int root, MPI_Comm comm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Iscatterv_c");
  if (!request) return null_request(fn_, comm);
  return scatterv(fn_, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm,
                  request);
}
PAMIR_ALIAS(Iscatterv_c);

int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Allgatherv");
  return allgatherv(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, nullptr);
}
PAMIR_ALIAS(Allgatherv);

int PMPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                      MPI_Comm comm) {
  PAMIR_ENTER("MPI_Allgatherv_c");
  return allgatherv(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, nullptr);
}
PAMIR_ALIAS(Allgatherv_c);

int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request *request) {
  PAMIR_ENTER("MPI_Iallgatherv");
  if (!request) return null_request(fn_, comm);
  return allgatherv(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request);
}
PAMIR_ALIAS(Iallgatherv);

int PMPI_Iallgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                       const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                       MPI_Comm comm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Iallgatherv_c");
  if (!request) return null_request(fn_, comm);
  return allgatherv(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request);
}
PAMIR_ALIAS(Iallgatherv_c);

int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                   void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                   MPI_Comm comm) {
  PAMIR_ENTER("MPI_Alltoallv");
  return alltoallv(fn_, sendbuf, sendcounts, sdispls, sendtype, nullptr, recvbuf, recvcounts, rdispls,
                   recvtype, nullptr, comm, false, nullptr);
}
PAMIR_ALIAS(Alltoallv);

int PMPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Alltoallv_c");
  return alltoallv(fn_, sendbuf, sendcounts, sdispls, sendtype, nullptr, recvbuf, recvcounts, rdispls,
                   recvtype, nullptr, comm, false, nullptr);
}
PAMIR_ALIAS(Alltoallv_c);

int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                    void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                    MPI_Comm comm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Ialltoallv");
  if (!request) return null_request(fn_, comm);
  return alltoallv(fn_, sendbuf, sendcounts, sdispls, sendtype, nullptr, recvbuf, recvcounts, rdispls,
                   recvtype, nullptr, comm, false, request);
}
PAMIR_ALIAS(Ialltoallv);

int PMPI_Ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  PAMIR_ENTER("MPI_Ialltoallv_c");
  if (!request) return null_request(fn_, comm);
  return alltoallv(fn_, sendbuf, sendcounts, sdispls, sendtype, nullptr, recvbuf, recvcounts, rdispls,
                   recvtype, nullptr, comm, false, request);
}
PAMIR_ALIAS(Ialltoallv_c);

int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
                   const MPI_Datatype recvtypes[], MPI_Comm comm) {
  PAMIR_ENTER("MPI_Alltoallw");
  return alltoallv(fn_, sendbuf, sendcounts, sdispls, MPI_DATATYPE_NULL, sendtypes, recvbuf, recvcounts,
                   rdispls, MPI_DATATYPE_NULL, recvtypes, comm, true, nullptr);
}
PAMIR_ALIAS(Alltoallw);

int PMPI_Alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  PAMIR_ENTER("MPI_Alltoallw_c");
  return alltoallv(fn_, sendbuf, sendcounts, sdispls, MPI_DATATYPE_NULL, sendtypes, recvbuf, recvcounts,
                   rdispls, MPI_DATATYPE_NULL, recvtypes, comm, true, nullptr);
}
PAMIR_ALIAS(Alltoallw_c);

int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                    const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                    MPI_Request *request) {
  PAMIR_ENTER("MPI_Ialltoallw");
  if (!request) return null_request(fn_, comm);
  return alltoallv(fn_, sendbuf, sendcounts, sdispls, MPI_DATATYPE_NULL, sendtypes, recvbuf, recvcounts,
                   rdispls, MPI_DATATYPE_NULL, recvtypes, comm, true, request);
}
PAMIR_ALIAS(Ialltoallw);

int PMPI_Ialltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                      MPI_Request *request) {
  PAMIR_ENTER("MPI_Ialltoallw_c");
  if (!request) return null_request(fn_, comm);
  return alltoallv(fn_, sendbuf, sendcounts, sdispls, MPI_DATATYPE_NULL, sendtypes, recvbuf, recvcounts,
                   rdispls, MPI_DATATYPE_NULL, recvtypes, comm, true, request);
}
PAMIR_ALIAS(Ialltoallw_c);

// --- persistent collectives (MPI_X_init): MPI_Start runs them ---------------------------------------

int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  PAMIR_ENTER("MPI_Barrier_init");
  if (!request) return null_request(fn_, comm);
  if (int rc = check_info(fn_, comm, info)) return rc;
  return barrier(fn_, comm, Req{request, true});
}
PAMIR_ALIAS(Barrier_init);

int PMPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info,
                    MPI_Request *request) {
  PAMIR_ENTER("MPI_Bcast_init");
  if (!request) return null_request(fn_, comm);
  if (int rc = check_info(fn_, comm, info)) return rc;
  return bcast(fn_, buffer, count, datatype, root, comm, Req{request, true});
}
PAMIR_ALIAS(Bcast_init);

int PMPI_Bcast_init_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                      MPI_Info info, MPI_Request *request) {
  PAMIR_ENTER("MPI_Bcast_init_c");
  if (!request) return null_request(fn_, comm);
  if (int rc = check_info(fn_, comm, info)) return rc;
  return bcast(fn_, buffer, count, datatype, root, comm, Req{request, true});
}
PAMIR_ALIAS(Bcast_init_c);

int PMPI_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                     int root, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  PAMIR_ENTER("MPI_Reduce_init");
  if (!request) return null_request(fn_, comm);
  if (int rc = check_info(fn_, comm, info)) return rc;
  return reduce(fn_, sendbuf, recvbuf, count, datatype, op, root, comm, Req{request, true});
}
PAMIR_ALIAS(Reduce_init);

int PMPI_Reduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                       int root, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  PAMIR_ENTER("MPI_Reduce_init_c");
  if (!request) return null_request(fn_, comm);
  if (int rc = check_info(fn_, comm, info)) return rc;
  return reduce(fn_, sendbuf, recvbuf, count, datatype, op, root, comm, Req{request, true});
}
PAMIR_ALIAS(Reduce_init_c);

int PMPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                        MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  PAMIR_ENTER("MPI_Allreduce_init");
  if (!request) return null_request(fn_, comm);
  if (int rc = check_info(fn_, comm, info)) return rc;
  return allreduce(fn_, sendbuf, recvbuf, count, datatype, op, comm, Req{request, true});
}
PAMIR_ALIAS(Allreduce_init);

int PMPI_Allreduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                          MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  PAMIR_ENTER("MPI_Allreduce_init_c");
  if (!request) return null_request(fn_, comm);
  if (int rc = check_info(fn_, comm, info)) return rc;
  return allreduce(fn_, sendbuf, recvbuf, count, datatype, op, comm, Req{request, true});
}
PAMIR_ALIAS(Allreduce_init_c);

int PMPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  PAMIR_ENTER("MPI_Gather_init");
  if (!request) return null_request(fn_, comm);
  if (int rc = check_info(fn_, comm, info)) return rc;
  return gather(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                Req{request, true});
}
PAMIR_ALIAS(Gather_init);

int PMPI_Gather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                       MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request) {
  PAMIR_ENTER("MPI_Gather_init_c");
  if (!request) return null_request(fn_, comm);
  if (int rc = check_info(fn_, comm, info)) return rc;
  return gather(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                Req{request, true});
}
PAMIR_ALIAS(Gather_init_c);

int PMPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                      MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  PAMIR_ENTER("MPI_Scatter_init");
  if (!request) return null_request(fn_, comm);
  if (int rc = check_info(fn_, comm, info)) return rc;
  return scatter(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                 Req{request, true});
}
PAMIR_ALIAS(Scatter_init);

int PMPI_Scatter_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                        MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request) {
  PAMIR_ENTER("MPI_Scatter_init_c");
  if (!request) return null_request(fn_, comm);
  if (int rc = check_info(fn_, comm, info)) return rc;
  return scatter(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                 Req{request, true});
}
PAMIR_ALIAS(Scatter_init_c);

int PMPI_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request) {
  PAMIR_ENTER("MPI_Allgather_init");
  if (!request) return null_request(fn_, comm);
  if (int rc = check_info(fn_, comm, info)) return rc;
  return all_to_all(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, false,
                    Req{request, true});
}
PAMIR_ALIAS(Allgather_init);

int PMPI_Allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                          MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                          MPI_Request *request) {
  PAMIR_ENTER("MPI_Allgather_init_c");
  if (!request) return null_request(fn_, comm);
  if (int rc = check_info(fn_, comm, info)) return rc;
  return all_to_all(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, false,
                    Req{request, true});
}
PAMIR_ALIAS(Allgather_init_c);

int PMPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request) {
  PAMIR_ENTER("MPI_Alltoall_init");
  if (!request) return null_request(fn_, comm);
  if (int rc = check_info(fn_, comm, info)) return rc;
  return all_to_all(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, true,
                    Req{request, true});
}
PAMIR_ALIAS(Alltoall_init);

int PMPI_Alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                         MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                         MPI_Request *request) {
  PAMIR_ENTER("MPI_Alltoall_init_c");
  if (!request) return null_request(fn_, comm);
  if (int rc = check_info(fn_, comm, info)) return rc;
  return all_to_all(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, true,
                    Req{request, true});
}
PAMIR_ALIAS(Alltoall_init_c);

int PMPI_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  PAMIR_ENTER("MPI_Scan_init");
  if (!request) return null_request(fn_, comm);
  if (int rc = check_info(fn_, comm, info)) return rc;
  return scan(fn_, sendbuf, recvbuf, count, datatype, op, comm, false, Req{request, true});
}
PAMIR_ALIAS(Scan_init);

int PMPI_Scan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                     MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  PAMIR_ENTER("MPI_Scan_init_c");
  if (!request) return null_request(fn_, comm);
  if (int rc = check_info(fn_, comm, info)) return rc;
  return scan(fn_, sendbuf, recvbuf, count, datatype, op, comm, false, Req{request, true});
}
PAMIR_ALIAS(Scan_init_c);

int PMPI_Exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                     MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  PAMIR_ENTER("MPI_Exscan_init");
  if (!request) return null_request(fn_, comm);
  if (int rc = check_info(fn_, comm, info)) return rc;
  return scan(fn_, sendbuf, recvbuf, count, datatype, op, comm, true, Req{request, true});
}
PAMIR_ALIAS(Exscan_init);

int PMPI_Exscan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  PAMIR_ENTER("MPI_Exscan_init_c");
  if (!request) return null_request(fn_, comm);
  if (int rc = check_info(fn_, comm, info)) return rc;
  return scan(fn_, sendbuf, recvbuf, count, datatype, op, comm, true, Req{request, true});
}
PAMIR_ALIAS(Exscan_init_c);

int PMPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                                   MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  PAMIR_ENTER("MPI_Reduce_scatter_block_init");
  if (!request) return null_request(fn_, comm);
  if (int rc = check_info(fn_, comm, info)) return rc;
  return reduce_scatter<int>(fn_, sendbuf, recvbuf, nullptr, recvcount, datatype, op, comm,
                             Req{request, true});
}
PAMIR_ALIAS(Reduce_scatter_block_init);

int PMPI_Reduce_scatter_block_init_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                     MPI_Request *request) {
  PAMIR_ENTER("MPI_Reduce_scatter_block_init_c");
  if (!request) return null_request(fn_, comm);
  if (int rc = check_info(fn_, comm, info)) return rc;
  return reduce_scatter<MPI_Count>(fn_, sendbuf, recvbuf, nullptr, recvcount, datatype, op, comm,
                                   Req{request, true});
}
PAMIR_ALIAS(Reduce_scatter_block_init_c);

int PMPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                             MPI_Request *request) {
  PAMIR_ENTER("MPI_Reduce_scatter_init");
  if (!request) return null_request(fn_, comm);
  if (int rc = check_info(fn_, comm, info)) return rc;
  return reduce_scatter(fn_, sendbuf, recvbuf, recvcounts, kNotBlock, datatype, op, comm, Req{request, true});
}
PAMIR_ALIAS(Reduce_scatter_init);

int PMPI_Reduce_scatter_init_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                               MPI_Request *request) {
  PAMIR_ENTER("MPI_Reduce_scatter_init_c");
  if (!request) return null_request(fn_, comm);
  if (int rc = check_info(fn_, comm, info)) return rc;
  return reduce_scatter(fn_, sendbuf, recvbuf, recvcounts, kNotBlock, datatype, op, comm, Req{request, true});
}
PAMIR_ALIAS(Reduce_scatter_init_c);

int PMPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  PAMIR_ENTER("MPI_Gatherv_init");
  if (!request) return null_request(fn_, comm);
  if (int rc = check_info(fn_, comm, info)) return rc;
  return gatherv(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm,
                 Req{request, true});
}
PAMIR_ALIAS(Gatherv_init);

int PMPI_Gatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                        const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                        int root, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  PAMIR_ENTER("MPI_Gatherv_init_c");
  if (!request) return null_request(fn_, comm);
  if (int rc = check_info(fn_, comm, info)) return rc;
  return gatherv(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm,
                 Req{request, true});
}
PAMIR_ALIAS(Gatherv_init_c);

int PMPI_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                       void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                       MPI_Info info, MPI_Request *request) {
  PAMIR_ENTER("MPI_Scatterv_init");
  if (!request) return null_request(fn_, comm);
  if (int rc = check_info(fn_, comm, info)) return rc;
  return scatterv(fn_, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm,
                  Req{request, true});
}
PAMIR_ALIAS(Scatterv_init);

int PMPI_Scatterv_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                         MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                         int root, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  PAMIR_ENTER("MPI_Scatterv_init_c");
  if (!request) return null_request(fn_, comm);
  if (int rc = check_info(fn_, comm, info)) return rc;
  return scatterv(fn_, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm,
                  Req{request, true});
}
PAMIR_ALIAS(Scatterv_init_c);

int PMPI_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                         MPI_Info info, MPI_Request *request) {
  PAMIR_ENTER("MPI_Allgatherv_init");
  if (!request) return null_request(fn_, comm);
  if (int rc = check_info(fn_, comm, info)) return rc;
  return allgatherv(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                    Req{request, true});
}
PAMIR_ALIAS(Allgatherv_init);

int PMPI_Allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                           const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                           MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  PAMIR_ENTER("MPI_Allgatherv_init_c");
  if (!request) return null_request(fn_, comm);
  if (int rc = check_info(fn_, comm, info)) return rc;
  return allgatherv(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                    Req{request, true});
}
PAMIR_ALIAS(Allgatherv_init_c);

int PMPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                        MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  PAMIR_ENTER("MPI_Alltoallv_init");
  if (!request) return null_request(fn_, comm);
  if (int rc = check_info(fn_, comm, info)) return rc;
  return alltoallv(fn_, sendbuf, sendcounts, sdispls, sendtype, nullptr, recvbuf, recvcounts, rdispls,
                   recvtype, nullptr, comm, false, Req{request, true});
}
PAMIR_ALIAS(Alltoallv_init);

int PMPI_Alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                          MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                          const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                          MPI_Request *request) {
  PAMIR_ENTER("MPI_Alltoallv_init_c");
  if (!request) return null_request(fn_, comm);
  if (int rc = check_info(fn_, comm, info)) return rc;
  return alltoallv(fn_, sendbuf, sendcounts, sdispls, sendtype, nullptr, recvbuf, recvcounts, rdispls,
                   recvtype, nullptr, comm, false, Req{request, true});
}
PAMIR_ALIAS(Alltoallv_init_c);

int PMPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                        const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                        MPI_Request *request) {
  PAMIR_ENTER("MPI_Alltoallw_init");
  if (!request) return null_request(fn_, comm);
  if (int rc = check_info(fn_, comm, info)) return rc;
  return alltoallv(fn_, sendbuf, sendcounts, sdispls, MPI_DATATYPE_NULL, sendtypes, recvbuf, recvcounts,
                   rdispls, MPI_DATATYPE_NULL, recvtypes, comm, true, Req{request, true});
}
PAMIR_ALIAS(Alltoallw_init);

int PMPI_Alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                          const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                          const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                          MPI_Info info, MPI_Request *request) {
  PAMIR_ENTER("MPI_Alltoallw_init_c");
  if (!request) return null_request(fn_, comm);
  if (int rc = check_info(fn_, comm, info)) return rc;
  return alltoallv(fn_, sendbuf, sendcounts, sdispls, MPI_DATATYPE_NULL, sendtypes, recvbuf, recvcounts,
                   rdispls, MPI_DATATYPE_NULL, recvtypes, comm, true, Req{request, true});
}
PAMIR_ALIAS(Alltoallw_init_c);
