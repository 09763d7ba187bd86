// Record and replay of communication patterns (seed 004): the descriptor FIFO.
//
// A pattern (a persistent request, the requests one MPI_Startall starts together, a phase of a
// persistent collective: collectives/replay.h) is recorded once as descriptors in a section of one FIFO:
// where each message goes, from which address, how long, by which protocol, with which match bits, and the
// counter its completion counts down. Starting the pattern again sets the FIFO's head and tail to the
// section's bounds and injects the descriptors between them: nothing is built, allocated, selected or
// computed anew. A recorded section is never patched; a changed pattern is recorded into a new section, and a
// pattern that finds no room takes the ordinary path.
//
// The layer above owns the operations (pamir::Request) the descriptors arm, and releases a section
// before it releases an operation the section names.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <vector>

#include "pami/context.h"
#include "pami/request.h"
#include "pami/select.h"

namespace pamir {

// What a descriptor does. Seed 004's third intent, the direct put, is a choice each start of a
// remote_get send makes (kDescDirect, pami/protocols/direct.cc): whether it may put, and where, is what
// the receiver's ready token for that start says, which a recorded descriptor cannot hold.
enum class Intent : uint8_t {
  eager_send,  // the data goes out in the device's packets: immediate or eager (copied by the target)
  remote_get,  // a request-to-send; the target reads the data (RDMA-read rendezvous, seed 001)
  receive,     // posts a receive into the matcher (the target side of either)
};

enum DescriptorFlags : uint8_t {
  kDescImmediate = 1,  // one packet from a contiguous buffer, no signature: sent without its request
  kDescTyped = 2,      // its operation has a layout (non-contiguous data, seed 003)
  kDescToken = 4,      // a receive that writes its source a ready token for a direct put when started
  kDescDirect = 8,     // a send that puts straight into the receive's buffer when its token is here
  kDescBox = 16,       // an immediate send that goes into the pair's mailbox when its token is here
  kDescBoxToken = 32,  // a receive that writes its source a mailbox token when started
  kDescFirst = 64,     // a receive that no earlier receive of its section accepts the messages of (seal)
  kDescExact = 128,    // a receive of one source and tag, with no layout and no checked signature
};

// One message of a pattern, in one cache line.
struct alignas(64) Descriptor {
  Intent intent = Intent::eager_send;
  uint8_t flags = 0;
  SendProtocol protocol = SendProtocol::eager;  // sends: chosen by size when recorded
  uint8_t landing = 0;                          // receives: the context's landing (landing.cc), or 0
  uint32_t task = 0;                            // destination (sends), source's task (receives)
  uint64_t bits = 0;                            // match bits (sends)
  const void *addr = nullptr;                   // source address (sends), receive buffer (receives)
  uint64_t length = 0;                          // bytes (sends), capacity (receives)
  uint32_t counter = 0;                         // the FIFO's counter this descriptor counts down
  uint32_t section = 0;
  Request *req = nullptr;  // the operation it arms, owned by the layer above
};
static_assert(sizeof(Descriptor) == 64, "a descriptor is one cache line");

// A send's protocol, chosen by size once at record from the table of d.task's device, its intent, and whether
// it may leave in one packet without its request (`plain`: contiguous, no signature, not synchronous).
inline void describe_send(Descriptor &d, const Context &ctx, uint64_t bytes, bool plain) {
  d.protocol = ctx.send_table(d.task).select(bytes);
  d.intent = d.protocol == SendProtocol::rdma ? Intent::remote_get : Intent::eager_send;
  if (d.protocol == SendProtocol::immediate && plain) {
    d.flags |= kDescImmediate;
    if (ctx.mailbox() && bytes <= box::kPayload) d.flags |= kDescBox;
  }
}

// A receive from one source and tag, with no layout and no checked signature (neither a direct put nor
// a mailbox carries them), offers its source a ready token: its buffer to a direct put at the
// rendezvous sizes, a mailbox below them.
inline void describe_token(Descriptor &d, const Context &ctx, uint64_t capacity) {
  if (ctx.send_table(d.task).select(capacity) == SendProtocol::rdma)
    d.flags |= kDescToken;
  else if (ctx.mailbox())
    d.flags |= kDescBoxToken;
}

// A counter of a section: armed at every start with the number of descriptors that name it, counted
// down as each completes; at zero it calls `zero` with the last operation that completed (nullptr when
// that was an immediate send, which has no request of its own). A counter that `rearms` (one descriptor's,
// that no waiter polls: its zero callback takes the completion) is armed again as it reaches zero, so a
// start of a section whose counters all rearm touches none of them, only the count of its counters
// still running (`running`, kept in its first counter's `pending`), which says when it has drained.
struct PatternCounter {
  uint32_t value = 0;
  uint32_t armed = 0;
  void (*zero)(void *arg, Request *last) = nullptr;
  void *arg = nullptr;
  uint32_t *running = nullptr;  // rearms: its section's first counter's `pending` (seal)
  bool rearms = false;          // set by the layer above before seal; kept where all of a section's
                                // counters have it, each for one descriptor
  uint32_t pending = 0;         // a section's first counter: its counters yet to reach zero in this start
  uint32_t at_rest() const { return rearms ? armed : 0; }  // its value while no start runs
};

class PatternFifo {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  // `capacity` descriptors (and as many counters), allocated at the first record; 0 records nothing.
  explicit PatternFifo(uint32_t capacity = 0) : capacity_(capacity) {}
  void set_capacity(uint32_t capacity);  // before the first record
  uint32_t capacity() const { return capacity_; }

  // A new section of n descriptors and k <= n counters for pattern `id`, or kNone when the FIFO has no
  // room for it (the caller then takes the ordinary path). The caller fills the descriptors, names the
  // counters' callbacks, then calls seal().
  uint32_t record(uint64_t id, uint32_t n, uint32_t k);
  Descriptor *descriptors(uint32_t s) { return &fifo_[sections_[s].start]; }
  uint32_t first(uint32_t s) const { return sections_[s].start; }  // counter j of s is first(s) + j
  PatternCounter *counters(uint32_t s) { return &counters_[sections_[s].start]; }
  // Arms each counter with the number of descriptors naming it; the section can then be injected.
  void seal(uint32_t s);
  // Section s of that generation is never started again (anything else is ignored). Its descriptors
  // and counters are reused only once the operations it started have completed: until then their
  // completions still count down its counters.
  void release(uint32_t s, uint64_t generation);
  // Releases every section with a descriptor naming op (before the layer above releases op).
  void release_naming(const Request *op);
  // A running op will complete without its counter (its request was freed while active): the counter
  // it would count down is set at rest without calling back, so that its section can be reused.
  static void abandon(Request *op);
  // Grows at every release: a pattern that found no room tries again only once something was freed.
  uint64_t releases() const { return releases_; }

  // A section's identity: a released section's number is reused, its generation is not (a released
  // section's generation is 0, which no live one has).
  uint64_t generation(uint32_t s) const { return sections_[s].generation; }
  bool live(uint32_t s, uint64_t generation) const {
    return s < sections_.size() && sections_[s].generation == generation;
  }
  uint32_t size(uint32_t s) const { return sections_[s].end - sections_[s].start; }
  uint64_t id(uint32_t s) const { return sections_[s].id; }

  // Re-arms the section's counters and sets head and tail to its bounds (seed 004's replay).
  void rewind(uint32_t s) {
    const Section &sec = sections_[s];
    PatternCounter *k = &counters_[sec.start];
    if (sec.rearms)
      k->pending = sec.counters;
    else
      for (uint32_t i = 0; i < sec.counters; ++i) k[i].value = k[i].armed;
    head_ = sec.start;
    tail_ = sec.end;
    current_ = s;
  }
  // The section rewind() last set up, and what its sends are on a device that replays them itself
  // (Device::pattern_open; 0: none yet), or that it replays none of them.
  uint32_t current() const { return current_; }
  uint32_t device_pattern(uint32_t s) const { return sections_[s].device; }
  bool device_refused(uint32_t s) const { return sections_[s].device_refused; }
  void set_device_pattern(uint32_t s, uint32_t id) { sections_[s].device = id; }
  void refuse_device(uint32_t s) { sections_[s].device_refused = true; }
  // Whether its receives have been given their landings (at its first start on such a device).
  bool landings_made(uint32_t s) const { return sections_[s].landings_made; }
  void set_landings_made(uint32_t s) { sections_[s].landings_made = true; }
  // Its receive descriptors (FIFO indices), listed with its landings: a device's start walks only those.
  const std::vector<uint32_t> &receives(uint32_t s) const { return sections_[s].receives; }
  std::vector<uint32_t> &receives(uint32_t s) { return sections_[s].receives; }
  void skip_all() { head_ = tail_; }
  // Called with a section's device pattern when the section is reclaimed (the context closes it).
  void on_device_release(void (*fn)(uint32_t)) { device_release_ = fn; }
  // The receives' landings (Descriptor::landing) go with their section, through `fn`.
  void on_landing_release(void (*fn)(uint32_t)) { landing_release_ = fn; }
  // Re-arms the section's counters only: a pattern whose descriptors are injected one at a time, each
  // when the layer above says (a partitioned send's partitions, as MPI_Pready makes them ready).
  void rearm(uint32_t s) {
    const Section &sec = sections_[s];
    PatternCounter *k = &counters_[sec.start];
    for (uint32_t i = 0; i < sec.counters; ++i) k[i].value = k[i].armed;
  }
  // The descriptors between head and tail, taken one at a time by the context (Context::inject).
  bool empty() const { return head_ == tail_; }
  const Descriptor &pop() { return fifo_[head_++]; }
  const Descriptor &descriptor(uint32_t i) const { return fifo_[i]; }
  PatternCounter &counter(uint32_t i) { return counters_[i]; }
  uint32_t head() const { return head_; }
  uint32_t tail() const { return tail_; }

  uint32_t live_sections() const { return uint32_t(by_start_.size() - draining_.size()); }
  // The live section recorded for pattern `id` (tests, diagnostics), or kNone.
  uint32_t find(uint64_t id) const;
  uint32_t used() const { return used_; }

 private:
  struct Section {
    uint32_t start = 0, end = 0, counters = 0;
    uint64_t id = 0;
    uint64_t generation = 0;  // 0: released
    uint32_t device = 0;      // Device::pattern_open's id for its sends
    bool device_refused = false;
    bool landings_made = false;
    bool rearms = false;  // all its counters rearm (seal)
    std::vector<uint32_t> receives;
  };
  uint32_t capacity_;
  // Raw storage, allocated at the first record and constructed a section at a time: only the pages of
  // recorded sections are ever touched (a process with a few patterns does not pay 6 MiB).
  struct FreeStorage {
    void operator()(void *p) const { std::free(p); }
  };
  std::unique_ptr<Descriptor[], FreeStorage> fifo_;
  std::unique_ptr<PatternCounter[], FreeStorage> counters_;
  std::vector<Section> sections_;
  std::vector<uint32_t> free_sections_;
  std::map<uint32_t, uint32_t> by_start_;  // live sections by first descriptor: first-fit placement
  uint32_t head_ = 0, tail_ = 0, current_ = 0;
  void (*device_release_)(uint32_t) = nullptr;
  void (*landing_release_)(uint32_t) = nullptr;
  uint32_t used_ = 0;
  uint64_t generations_ = 0;
  uint64_t releases_ = 0;
  std::vector<uint32_t> draining_;  // released sections whose counters have not all reached zero

  bool drained(const Section &sec) const;
  void reclaim(uint32_t s);
};

// A recorded operation's completion: counts its counter down (Request::ext holds the counter while
// the pattern runs).
void pattern_op_done(Request *op);

inline void pattern_count_down(PatternCounter &k, Request *last) {
  if (--k.value == 0) {
    if (k.rearms) {
      k.value = k.armed;
      --*k.running;
    }
    k.zero(k.arg, last);
  }
}

// A recorded operation made ready for a start: its description stays, its protocol state is reset, and
// its completion counts k down.
// A receive armed in a landing needs no protocol state and no cleared status unless it is posted after
// all, and the context clears them then (Context::landing_shut); a landed packet writes the whole status.
[[gnu::always_inline]] inline void rearm_landed(Request *r, PatternCounter &k) {
  r->complete = false;
  r->vt = g_vclock.stamp;
  r->ext = &k;
  r->on_complete = pattern_op_done;
}
[[gnu::always_inline]] inline void rearm_op(Request *r, PatternCounter &k) {
  rearm_landed(r, k);
  r->status = Status{};
  reset_protocol_state(r);
}

// Carries out one descriptor through the context, counted down on k: an immediate send straight to the
// device, without its request; the others re-arm their operation (its description stays, its protocol
// state is reset) and start it with the protocol recorded.
// `clear`: nothing else was posted when the section began, so a receive marked kDescFirst is the one its
// source's next message would match as soon as it is posted.
[[gnu::always_inline]] inline void inject_one(Context &ctx, const Descriptor &d, PatternCounter &k,
                                              bool clear = false) {
  if ((d.flags & kDescBox) && ctx.box_send(d.task, d.bits, d.addr, d.length)) {
    pattern_count_down(k, nullptr);
    return;
  }
  if ((d.flags & kDescImmediate) && ctx.try_send_immediate(d.task, d.bits, d.addr, d.length)) {
    pattern_count_down(k, nullptr);
    return;
  }
  if ((d.flags & kDescDirect) && ctx.direct_put(d.task, d.bits, d.addr, d.length)) {
    pattern_count_down(k, nullptr);
    return;
  }
  Request *r = d.req;
  rearm_op(r, k);
  if (d.intent == Intent::receive) {
    if (d.landing && ctx.landing_start(d.landing, r)) return;
    ctx.start_recv(r);
    if (d.flags & kDescBoxToken)
      ctx.box_token(r, clear && (d.flags & kDescFirst));
    else if (d.flags & kDescToken)
      ctx.ready_token(r, clear && (d.flags & kDescFirst));
  } else {
    r->keep_exposed = true;  // registered once (Device::expose_held), kept until r is released
    ctx.start_send(r, d.protocol);
  }
}

// Where the device replays patterns itself (the torus): the section's receives are posted and its sends
// handed to the device's own FIFO, written at the first start and only started after (no descriptor
// written again); false, having done nothing, when the section's sends are not all immediate sends to
// such a device's peers, or it has no FIFO free (the ordinary path then injects them).
bool inject_on_device(Context &ctx, PatternFifo &fifo);

// Injects the descriptors between the FIFO's head and tail (after rewind()).
[[gnu::always_inline]] inline void inject(Context &ctx, PatternFifo &fifo) {
  if (ctx.replays_on_device()) [[unlikely]]
    if (inject_on_device(ctx, fifo)) return;
  const bool clear = ctx.matcher().posted_count() == 0;
  while (!fifo.empty()) {
    const Descriptor &d = fifo.pop();
    inject_one(ctx, d, fifo.counter(d.counter), clear);
  }
}

// The sends of section s, which a device replayed itself, have all left: their counters count down.
void device_pattern_done(PatternFifo &f, uint32_t s);

// A counter whose zero needs no action (the waiter polls its value).
void pattern_zero_ignored(void *arg, Request *last);

// The process's FIFO, sized by PAMIR_PATTERN_FIFO at Context::init. Created when the library is loaded
// and never destroyed, like the context: a request freed by an atexit handler may still reach it.
extern PatternFifo *const g_patterns;
inline PatternFifo &patterns() {
  return *g_patterns;
}

}  // namespace pamir
