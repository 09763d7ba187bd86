// The schedule engine: every collective algorithm is written once, as a C++20 coroutine over a Sched.
// Between its steps the algorithm posts point-to-point messages on the team's collective context and
// `co_await`s them; a blocking collective runs the coroutine to its end, advancing the context while a
// step waits (run()), and a nonblocking one (NbSchedule) is resumed by the context's progress whenever
// the application enters the library, which is the weak progress of the rest of Pamir. An algorithm
// may `co_await` another (Bcast's scatter + allgather): the inner one runs as a step of the outer.
//
// A step whose messages complete while they are posted (eager sends into the rings, receives of
// messages already there) does not suspend at all. Coroutine frames come from a free list per size
// (frame_alloc), so a collective allocates nothing once its frame size has been seen. Exceptions are
// not used: a frame that cannot be allocated makes the collective fail with Err::intern.
//
// Knows nothing of MPI handles: a Team is what an algorithm sees of a communicator.
#pragma once

#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "collectives/reduce_ops.h"
#include "pami/list.h"
#include "pami/vclock.h"

namespace pamir {
struct Request;
namespace dt {
struct Layout;
}
}  // namespace pamir

namespace pamir::coll {

struct ShmSlot;
struct Nodes;
struct Grid;
class Replay;

struct Team {
  int rank;
  int size;
  uint16_t ctx;                     // the collective context id
  const uint32_t *tasks;            // team rank -> PAMI task
  ShmSlot *const *slots = nullptr;  // team rank -> its slot in the node's collective areas, if any
  const Nodes *nodes = nullptr;     // where the ranks live (collectives/nodes.h), if known
  // A part of a communicator's team (Sched::SubTeam): team rank -> the communicator's rank, which the
  // messages' envelopes name, so that the messages of different phases between one pair match in the
  // order they were sent. Null for a whole team.
  const int *ranks = nullptr;
  int base = 0;  // without `ranks`: the wire rank of team rank 0 (one group of an inter-communicator)
  // An inter-communicator's team is both its groups, the lower one first (the group whose first process
  // has the lower job rank), so both groups number it alike: this process's group is the local_size
  // ranks from local_base, the other the rest from remote_base. local_size 0: an intra-communicator.
  int local_size = 0;
  int local_base = 0;
  int remote_base = 0;
  const Grid *grid = nullptr;  // where the ranks sit on the torus (collectives/grid.h), if they fill it
  int wire(int r) const { return ranks ? ranks[r] : base + r; }
  int remote_size() const { return size - local_size; }
  // This process's group alone, as a team whose messages keep their ranks in the whole.
  Team local() const {
    Team l{rank - local_base, local_size, ctx, tasks + local_base};
    l.base = local_base;
    return l;
  }
};

// One rank's part of a v-collective (MPI_Gatherv, MPI_Alltoallw, ...): `bytes` of data at `base`, laid
// out by `layout` (`elems` elements of it) or contiguous when layout is null. The messages carry the
// layouts (seed 003), so non-contiguous parts move without staging.
struct Block {
  void *base = nullptr;
  uint64_t bytes = 0;
  const dt::Layout *layout = nullptr;
  uint64_t elems = 0;
};

// The tags of collective messages. Every call on a communicator takes the next sequence number (the
// ranks call collectives in the same order, blocking and nonblocking alike), so the messages of two
// collectives in flight on one communicator never match each other's receives. Internal users (the
// context-id agreement of communicator creation, MPI_Finalize's barrier) use tags of their own range.
constexpr int32_t kSeqTagMask = (1 << 24) - 1;
constexpr int32_t kInternalTag = 1 << 26;
inline int32_t seq_tag(uint64_t seq) {
  return int32_t(seq & uint64_t(kSeqTagMask));
}

void *frame_alloc(size_t bytes) noexcept;
void frame_free(void *p, size_t bytes) noexcept;

// The coroutine type of an algorithm: co_return 0 or a pamir::Err value.
class [[nodiscard]] Task {
 public:
  struct promise_type {
    int result = 0;
    std::coroutine_handle<> continuation;  // the algorithm that awaits this one, if any

    Task get_return_object() noexcept {
      return Task{std::coroutine_handle<promise_type>::from_promise(*this)};
    }
    static Task get_return_object_on_allocation_failure() noexcept { return Task{}; }
    std::suspend_always initial_suspend() noexcept { return {}; }
    struct Final {
      bool await_ready() noexcept { return false; }
      std::coroutine_handle<> await_suspend(std::coroutine_handle<promise_type> h) noexcept {
        std::coroutine_handle<> c = h.promise().continuation;
        return c ? c : std::noop_coroutine();
      }
      void await_resume() noexcept {}
    };
    Final final_suspend() noexcept { return {}; }
    void return_value(int e) noexcept { result = e; }
    void unhandled_exception() noexcept { __builtin_trap(); }  // algorithms throw nothing
    static void *operator new(size_t n) noexcept { return frame_alloc(n); }
    static void operator delete(void *p, size_t n) noexcept { frame_free(p, n); }
  };
  using Handle = std::coroutine_handle<promise_type>;

  Task() = default;
  explicit Task(Handle h) : h_(h) {}
  Task(Task &&o) noexcept : h_(o.h_) { o.h_ = {}; }
  Task &operator=(Task &&o) noexcept {
    if (this != &o) {
      destroy();
      h_ = o.h_;
      o.h_ = {};
    }
    return *this;
  }
  Task(const Task &) = delete;
  Task &operator=(const Task &) = delete;
  ~Task() { destroy(); }

  bool valid() const { return bool(h_); }
  bool done() const { return !h_ || h_.done(); }
  int result() const { return h_ ? h_.promise().result : 6 /* Err::intern: no frame */; }
  Handle handle() const { return h_; }

  // `co_await inner(...)` inside an algorithm: runs inner as a step, evaluates to its result.
  bool await_ready() const noexcept { return !h_; }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<> outer) noexcept {
    h_.promise().continuation = outer;
    return h_;
  }
  int await_resume() const noexcept { return result(); }

 private:
  void destroy() {
    if (h_) h_.destroy();
    h_ = {};
  }
  Handle h_;
};

// One collective in progress: its team and tag, the requests its current step waits on, and where to
// resume it when they have completed.
class Sched {
 public:
  static constexpr int kMaxPending = 32;  // messages one step may have in flight

  Sched(const Team &t, int32_t tag, uint64_t seq = 0) : team(t), tag(tag), seq(seq) {}
  Sched(const Sched &) = delete;
  Sched &operator=(const Sched &) = delete;
  ~Sched();

  Team team;           // what the algorithm's peers are numbered in; a SubTeam changes it for a while
  int32_t tag;         // a SubTeam onto another context (an inter-communicator's bridge) changes it too
  const uint64_t seq;  // the call's sequence number on its communicator (the shared-memory publications)

  // Posts a message of this step (to/from team ranks). A send that fits one packet goes out at once and
  // leaves nothing to wait for.
  void isend(int peer, const void *buf, size_t bytes);
  void irecv(int peer, void *buf, size_t bytes);
  void isend(int peer, const Block &b);
  void irecv(int peer, const Block &b);

  // `co_await s.wait()`: until every message posted since the last wait has completed; evaluates to 0
  // or the first error (a receive whose message is not exactly the expected length is Err::truncate).
  struct Wait {
    Sched &s;
    bool await_ready() const noexcept { return s.ready(); }
    void await_suspend(std::coroutine_handle<> h) noexcept { s.resume_ = h; }
    int await_resume() noexcept { return s.reap(); }
  };
  Wait wait() { return Wait{*this}; }
  Wait send(int peer, const void *buf, size_t bytes) {
    isend(peer, buf, bytes);
    return wait();
  }
  Wait recv(int peer, void *buf, size_t bytes) {
    irecv(peer, buf, bytes);
    return wait();
  }
  Wait send(int peer, const Block &b) {
    isend(peer, b);
    return wait();
  }
  Wait recv(int peer, const Block &b) {
    irecv(peer, b);
    return wait();
  }
  // The receive is posted first, so the peer's message need not wait in the unexpected queue.
  Wait sendrecv(int dest, const void *sbuf, size_t sbytes, int source, void *rbuf, size_t rbytes) {
    irecv(source, rbuf, rbytes);
    isend(dest, sbuf, sbytes);
    return wait();
  }

  // `co_await s.until(cond, arg)`: until cond(arg) holds, a condition on memory other processes write
  // (the shared-memory algorithms). The context re-checks it whenever it advances, and once more when
  // it is about to sleep, so a peer's write followed by Context::coll_notify is never missed.
  using Cond = bool (*)(const void *);
  struct Until {
    Sched &s;
    bool await_ready() const noexcept { return s.cond_(s.cond_arg_); }
    void await_suspend(std::coroutine_handle<> h) noexcept { s.resume_ = h; }
    void await_resume() noexcept { s.cond_ = nullptr; }
  };
  Until until(Cond cond, const void *arg) {
    cond_ = cond;
    cond_arg_ = arg;
    return Until{*this};
  }

  // For the hierarchical algorithms: while it lives, the schedule's peers are those of `sub` (a node's
  // ranks, the nodes' leaders), so an algorithm written for a whole team runs as a step on a part of
  // it, with the same tag and the same pending messages. Waits on no message of the outer team.
  class SubTeam {
   public:
    SubTeam(Sched &s, const Team &sub) : s_(s), saved_(s.team), saved_tag_(s.tag) { s.team = sub; }
    // On another context altogether, under a tag of its own (the leaders' bridge of
    // MPI_Intercomm_create, over the peer communicator).
    SubTeam(Sched &s, const Team &sub, int32_t tag) : SubTeam(s, sub) { s.tag = tag; }
    ~SubTeam() {
      s_.team = saved_;
      s_.tag = saved_tag_;
    }
    SubTeam(const SubTeam &) = delete;
    SubTeam &operator=(const SubTeam &) = delete;

   private:
    Sched &s_;
    Team saved_;
    int32_t saved_tag_;
  };

  // A step may post more than kMaxPending messages only when this is set; the rest spill to the heap.
  // The neighbourhood collectives set it: their peers' lists do not pair up, so windows of messages
  // could wait on each other across ranks, and every message of the call is posted at once.
  bool unbounded = false;

  // Whether every posted message has completed (and the condition of until() holds).
  bool ready() const;
  // A step that waits on memory alone: whether its condition comes true within a short spin on it
  // alone, which sees a peer's write sooner than a spin that advances the whole context each time.
  bool spin_ready() const;
  // Whether the step waits on a condition on memory (until()).
  bool on_memory() const { return cond_ != nullptr; }
  // The timing model's clock of this collective (pami/vclock.h): the caller's stamp at its start,
  // raised to each message a finished step took. Its messages are posted with it.
  Vt vt() const { return vt_; }
  // A persistent collective's start: its messages are recorded or replayed (collectives/replay.h).
  void replay_with(Replay *r) { replay_ = r; }

  // Starts a task on this schedule, or resumes it where it waits; true once it has finished.
  bool start(Task &t) {
    vt_ = g_vclock.stamp;
    resume_ = t.handle();
    return step(t);
  }
  bool step(Task &t) {
    if (!t.valid()) return true;
    std::coroutine_handle<> h = resume_;
    resume_ = {};
    h.resume();
    return t.done();
  }

 private:
  int reap();
  pamir::Request *add(bool send, int peer, void *buf, uint64_t bytes);

  friend class Replay;
  Replay *replay_ = nullptr;
  // Tracks r as one of the step's messages; false (an overflow, counted) past kMaxPending when not
  // unbounded.
  bool track(pamir::Request *r);
  bool full() const { return npending_ == kMaxPending && !unbounded; }

  pamir::Request *pending_[kMaxPending];
  int npending_ = 0;
  std::vector<pamir::Request *> spill_;  // past kMaxPending, when unbounded
  int overflow_ = 0;  // messages an algorithm posted beyond kMaxPending (a bug: fails the step)
  Cond cond_ = nullptr;
  const void *cond_arg_ = nullptr;
  std::coroutine_handle<> resume_;
  Vt vt_;
};

// Runs a task to its end on the calling thread (a blocking collective); 0 or a pamir::Err value.
int run(Sched &s, Task t);

// A nonblocking collective: the context's progress resumes its task whenever its step's messages have
// completed; `done` is called once, with the result, when the task has finished (possibly inside
// start()). One that has to wait, if it may_offload, engages the progress thread
// (pami/progress_thread.h), which advances the context while the application computes.
class NbSchedule : public ListNode {
 public:
  NbSchedule(const Team &t, int32_t tag, uint64_t seq = 0) : sched(t, tag, seq) {}
  virtual ~NbSchedule() = default;
  // Takes the task and runs its first step; registers with the context when it has to wait.
  void start(Task t);
  Sched sched;
  // Whether the progress thread may advance it: not when a step calls the application's code (a
  // user-defined reduction), which would then run beside the application's own thread.
  bool may_offload = true;

 protected:
  virtual void done(int result) = 0;

 private:
  friend void poll_schedules();
  Task task_;
  bool engaged_ = false;  // the progress thread advances it (pami/progress_thread.h)
};

// Resumes every nonblocking schedule whose step is ready (called by the context's progress).
void poll_schedules();

}  // namespace pamir::coll
