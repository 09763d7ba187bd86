// Record and replay of a persistent collective's messages (seed 004). The algorithm of a persistent
// collective (MPI_Allreduce_init and its kin) runs at every start, but its first start records the
// messages of each phase (those posted between two waits of its schedule) as one section of the
// descriptor FIFO, and every later start replays them: each isend/irecv of the algorithm takes the next
// descriptor of its phase and injects it, and the phase's wait is over when the phase's counter,
// armed with the number of its descriptors, reaches zero; only then does the algorithm post phase k+1.
// The operations the descriptors arm belong to the recording, so a replayed message builds, selects
// and allocates nothing.
//
// The algorithm is deterministic for a given call, but a message it posts must still equal the one
// recorded (a coroutine frame, which holds small scratch buffers, may come at another address): a
// message that differs takes the ordinary path for the rest of that start, and the next start records
// anew. A recorded section is never patched.
#pragma once

#include <cstdint>
#include <vector>

#include "collectives/schedule.h"
#include "pami/pattern.h"

namespace pamir::dt {
struct Layout;
}

namespace pamir::coll {

class Replay {
 public:
  explicit Replay(uint64_t id) : id_(id) {}
  ~Replay();
  Replay(const Replay &) = delete;
  Replay &operator=(const Replay &) = delete;

  // Before the algorithm runs: replay when every phase recorded is still in the FIFO, else record
  // anew (or go the ordinary way when the FIFO had no room and nothing was freed since).
  void begin();
  // After it has finished: a recording that ran to its end without error becomes replayable.
  void end(bool ok);

  // Sched's hooks. message(): one message of the current phase; true when it was handled here
  // (recorded and posted, or replayed), false when the schedule posts it the ordinary way.
  bool message(Sched &s, bool send, int peer, void *buf, uint64_t bytes, const dt::Layout *layout,
               uint64_t elems) {
    if (mode_ == Mode::ordinary) return false;
    if (mode_ == Mode::replay && next_ != end_) [[likely]] {
      // The next descriptor of the phase, if it is this message: injected as recorded.
      const Descriptor &d = *next_;
      if (d.addr == buf && d.length == bytes && d.task == task_of(s, peer) &&
          (d.intent == Intent::receive) != send && ((d.flags & kDescTyped) != 0) == (layout != nullptr) &&
          (!layout || (d.req->layout == layout && d.req->elems == elems))) {
        ++next_;
        inject_one(context(), d, *armed_);
        return true;
      }
    }
    return message_slow(s, send, peer, buf, bytes, layout, elems);
  }
  // Whether the replayed messages of the current phase have all completed. Called only while the
  // algorithm waits: a phase it left with fewer messages than were recorded diverges here, so that
  // its counter stops waiting for them.
  bool ready() {
    if (next_ != end_ && next_ != first_) [[unlikely]]
      diverge();
    return next_ == first_ || armed_->value == 0;
  }
  // The phase is over (its wait returned): the first error of its replayed messages (0: none); `vt`, the
  // schedule's clock, raised to theirs.
  int end_phase(Vt &vt);

  // For tests: phases recorded and whether the last start replayed.
  size_t phases() const { return phases_.size(); }
  bool replaying() const { return mode_ == Mode::replay; }

 private:
  enum class Mode : uint8_t { record, replay, ordinary };
  struct Phase {
    uint32_t section;
    uint64_t generation;
    const Descriptor *first;  // the section's descriptors and counter, fixed while it is live
    uint32_t size;
    PatternCounter *counter;
  };
  static uint32_t task_of(const Sched &s, int peer);
  bool message_slow(Sched &s, bool send, int peer, void *buf, uint64_t bytes, const dt::Layout *layout,
                    uint64_t elems);
  void reset();
  void arm();
  void diverge();

  const uint64_t id_;
  Mode mode_ = Mode::ordinary;
  bool recorded_ = false;  // phases_ describe a whole start
  bool invalid_ = false;   // a start diverged from the recording, or a phase found no room
  uint64_t no_room_ = UINT64_MAX;
  std::vector<Phase> phases_;
  std::vector<Request *> ops_;         // the operations the descriptors arm, owned here
  std::vector<Descriptor> staged_;     // the phase being recorded
  size_t phase_ = 0;                   // replay: the current phase
  const Descriptor *first_ = nullptr;  // replay: the current phase's descriptors, once injected
  const Descriptor *next_ = nullptr;
  const Descriptor *end_ = nullptr;
  PatternCounter *armed_ = nullptr;  // and its counter
};

inline uint32_t Replay::task_of(const Sched &s, int peer) {
  return s.team.tasks[peer];
}

}  // namespace pamir::coll
