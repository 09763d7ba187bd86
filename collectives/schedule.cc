#include "collectives/schedule.h"

#include <cstdlib>

#include "collectives/replay.h"
#include "pami/context.h"
#include "pami/match.h"
#include "pami/progress_thread.h"
#include "pami/request.h"
#include "pami/spin.h"

namespace pamir::coll {

// --- coroutine frames: a free list per 256-byte size class up to 64 KiB ---------------------------

namespace {

constexpr size_t kFrameQuantum = 256;
constexpr size_t kFrameClasses = 256;  // up to 64 KiB; larger frames come from malloc

struct FreeFrame {
  FreeFrame *next;
};
FreeFrame *free_frames[kFrameClasses];

inline size_t frame_class(size_t bytes) {
  return (bytes + kFrameQuantum - 1) / kFrameQuantum;
}

}  // namespace

// Frames are allocated and freed by one thread at a time (inside an MPI call, or by the progress
// thread, which runs only while every call takes the library lock), so the free lists need no lock.
void *frame_alloc(size_t bytes) noexcept {
  const size_t c = frame_class(bytes);
  if (c < kFrameClasses && free_frames[c]) {
    FreeFrame *f = free_frames[c];
    free_frames[c] = f->next;
    return f;
  }
  return std::malloc(c < kFrameClasses ? c * kFrameQuantum : bytes);
}

void frame_free(void *p, size_t bytes) noexcept {
  const size_t c = frame_class(bytes);
  if (c >= kFrameClasses) {
    std::free(p);
    return;
  }
  auto *f = static_cast<FreeFrame *>(p);
  f->next = free_frames[c];
  free_frames[c] = f;
}

// --- Sched ---------------------------------------------------------------------------------------

namespace {
constexpr int kMemorySpins = 256;  // about 10 us of pause instructions, then the context's own wait
// The longest sleep of a step that waits on memory: its writer's Context::coll_notify has no fence, so
// a wake-up can be missed (rarely); the sleep then ends here.
constexpr unsigned kMemorySleepUs = 200;
}  // namespace

Sched::~Sched() {
  // Messages a finished step left unreaped (an algorithm returning early on an error) go back to the
  // pool once the context is done with them.
  auto drop = [](Request *r) {
    if (r->complete)
      request_release(r);
    else
      r->on_complete = request_release;
  };
  for (int i = 0; i < npending_; ++i) drop(pending_[i]);
  for (Request *r : spill_) drop(r);
}

bool Sched::track(Request *r) {
  if (npending_ < kMaxPending) {
    pending_[npending_++] = r;
    return true;
  }
  if (!unbounded) {
    ++overflow_;
    return false;
  }
  spill_.push_back(r);
  return true;
}

// A request of this step, posted by the caller; nullptr (counted as an overflow) past kMaxPending.
Request *Sched::add(bool send, int peer, void *buf, uint64_t bytes) {
  if (full()) {
    ++overflow_;
    return nullptr;
  }
  Request *r = request_alloc(send ? ReqKind::send : ReqKind::recv);
  r->ctx = team.ctx;
  r->source = team.wire(send ? team.rank : peer);
  r->tag = tag;
  r->peer_task = team.tasks[peer];
  r->buf = buf;
  r->bytes = bytes;
  track(r);
  return r;
}

void Sched::isend(int peer, const void *buf, size_t bytes) {
  VtScope as_of(vt_, g_vclock.arrival);
  if (replay_ && replay_->message(*this, true, peer, const_cast<void *>(buf), bytes, nullptr, 0)) [[unlikely]]
    return;
  Context &ctx = context();
  if (ctx.try_send_immediate(team.tasks[peer], match_bits(team.ctx, team.wire(team.rank), tag), buf, bytes))
    return;
  if (Request *r = add(true, peer, const_cast<void *>(buf), bytes)) ctx.start_send(r);
}

void Sched::irecv(int peer, void *buf, size_t bytes) {
  VtScope as_of(vt_, g_vclock.arrival);
  if (replay_ && replay_->message(*this, false, peer, buf, bytes, nullptr, 0)) [[unlikely]]
    return;
  if (Request *r = add(false, peer, buf, bytes)) context().start_recv(r);
}

void Sched::isend(int peer, const Block &b) {
  VtScope as_of(vt_, g_vclock.arrival);
  if (!b.layout) return isend(peer, b.base, b.bytes);
  if (replay_ && replay_->message(*this, true, peer, b.base, b.bytes, b.layout, b.elems)) [[unlikely]]
    return;
  if (Request *r = add(true, peer, b.base, b.bytes)) {
    r->layout = b.layout;
    r->elems = b.elems;
    context().start_send(r);
  }
}

void Sched::irecv(int peer, const Block &b) {
  VtScope as_of(vt_, g_vclock.arrival);
  if (replay_ && replay_->message(*this, false, peer, b.base, b.bytes, b.layout, b.elems)) [[unlikely]]
    return;
  if (Request *r = add(false, peer, b.base, b.bytes)) {
    r->layout = b.layout;
    r->elems = b.elems;
    context().start_recv(r);
  }
}

bool Sched::ready() const {
  if (cond_ && !cond_(cond_arg_)) return false;
  if (replay_ && !replay_->ready()) return false;
  for (int i = 0; i < npending_; ++i)
    if (!pending_[i]->complete) return false;
  for (const Request *r : spill_)
    if (!r->complete) return false;
  return true;
}

bool Sched::spin_ready() const {
  if (!cond_ || npending_) return false;
  for (int i = 0; i < kMemorySpins; ++i) {
    if (cond_(cond_arg_)) return true;
    spin_pause(false);
  }
  return false;
}

int Sched::reap() {
  int err = overflow_ ? int(Err::intern) : 0;
  if (replay_)
    if (int e = replay_->end_phase(vt_); e && !err) err = e;
  auto reap_one = [this, &err](Request *r) {
    vt_raise(vt_, r->vt);
    Err e = r->status.error;
    // A collective's message sizes are fixed by the call: a different length means the ranks disagree
    // on a count or datatype.
    if (r->kind == ReqKind::recv && e == Err::ok && r->status.sent_bytes != r->bytes) e = Err::truncate;
    if (!err && e != Err::ok) err = int(e);
    request_release(r);
  };
  for (int i = 0; i < npending_; ++i) reap_one(pending_[i]);
  for (Request *r : spill_) reap_one(r);
  spill_.clear();
  npending_ = 0;
  overflow_ = 0;
  return err;
}

int run(Sched &s, Task t) {
  if (!t.valid()) return int(Err::intern);
  if (!s.start(t)) {
    Context &ctx = context();
    do
      if (!s.spin_ready()) ctx.wait_until([&s] { return s.ready(); }, s.on_memory() ? kMemorySleepUs : 0);
    while (!s.step(t));
  }
  vclock_observe(s.vt());  // the caller has the collective's result
  return t.result();
}

// --- nonblocking schedules -----------------------------------------------------------------------

namespace {

List<NbSchedule> &active() {
  static List<NbSchedule> l;
  return l;
}

}  // namespace

void NbSchedule::start(Task t) {
  task_ = std::move(t);
  if (!task_.valid()) {
    done(int(Err::intern));
    return;
  }
  if (sched.start(task_)) {
    VtScope finished(g_vclock.stamp, sched.vt());  // its request completes as of its last message
    done(task_.result());
    return;
  }
  active().push_back(this);
  Context::ProgressHook &hook = context().progress_hook();
  hook.fn = poll_schedules;
  ++hook.active;
  if (may_offload && progress_thread::wanted()) {
    engaged_ = true;
    progress_thread::engage();
  }
}

void poll_schedules() {
  // A schedule's done() may run the application's code (MPI_Comm_idup's attribute copy callbacks), which
  // may call MPI and wait on other schedules: it runs after the walk, with the walk's guard down, so the
  // nested wait advances them and nothing it does can disturb the walk.
  static bool polling = false;
  if (polling) return;
  polling = true;
  const bool thread = progress_thread::on_thread();
  List<NbSchedule> finished;
  active().for_each([thread, &finished](NbSchedule *n) {
    if (thread && !n->engaged_) return;  // it would run the application's code on this thread
    if (!n->sched.ready()) return;
    if (!n->sched.step(n->task_)) return;
    active().remove(n);
    --context().progress_hook().active;
    finished.push_back(n);
  });
  polling = false;
  while (NbSchedule *n = finished.pop_front()) {
    const bool engaged = n->engaged_;
    VtScope as_of(g_vclock.stamp, n->sched.vt());  // its request completes as of its last message
    n->done(n->task_.result());                    // may delete n
    if (engaged) progress_thread::release();
  }
}

}  // namespace pamir::coll
