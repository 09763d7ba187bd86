#include "collectives/replay.h"

#include "pami/context.h"
#include "pami/match.h"
#include "pami/stats.h"

namespace pamir::coll {

Replay::~Replay() {
  reset();
}

// Drops the recording. Its operations are idle between starts; one an aborted start left running is
// released when it completes.
void Replay::reset() {
  PatternFifo &f = patterns();
  for (const Phase &p : phases_) f.release(p.section, p.generation);
  phases_.clear();
  for (Request *r : ops_) {
    r->shared = false;
    if (r->complete)
      request_release(r);
    else
      r->on_complete = request_release;
  }
  ops_.clear();
  staged_.clear();
  recorded_ = false;
  invalid_ = false;
}

void Replay::begin() {
  phase_ = 0;
  first_ = next_ = end_ = nullptr;
  armed_ = nullptr;
  // Only this recording releases its sections (its operations are its own, and no other pattern names
  // them), so a recording that ran to its end is still whole.
  if (recorded_ && !invalid_) {
    mode_ = Mode::replay;
    arm();
    return;
  }
  if (!phases_.empty() || !ops_.empty()) reset();
  invalid_ = false;
  PatternFifo &f = patterns();
  mode_ = f.capacity() && f.releases() != no_room_ ? Mode::record : Mode::ordinary;
  if (mode_ == Mode::ordinary) ++stats().pattern_fallbacks;
}

// The current phase's counter is armed and head and tail set to its section, before the algorithm
// posts its messages: each then only takes the next descriptor.
void Replay::arm() {
  if (phase_ >= phases_.size()) return;
  const Phase &ph = phases_[phase_];
  patterns().rewind(ph.section);
  armed_ = ph.counter;
  first_ = next_ = ph.first;
  end_ = ph.first + ph.size;
  ++stats().pattern_replays;
}

void Replay::end(bool ok) {
  if (mode_ == Mode::record && ok && !invalid_) recorded_ = true;
  if (!ok) invalid_ = true;
}

// The rest of this start goes the ordinary way: the current phase's counter no longer waits for the
// descriptors that will not be injected, and the next start records anew.
void Replay::diverge() {
  ++stats().pattern_diverged;
  if (armed_) armed_->value -= uint32_t(end_ - next_);
  end_ = next_;
  mode_ = Mode::ordinary;
  invalid_ = true;
}

bool Replay::message_slow(Sched &s, bool send, int peer, void *buf, uint64_t bytes, const dt::Layout *layout,
                          uint64_t elems) {
  Context &ctx = context();
  const uint32_t task = s.team.tasks[peer];
  if (mode_ == Mode::replay) {
    diverge();  // not the next recorded message, or one more than were recorded
    return false;
  }
  if (mode_ != Mode::record) return false;
  if (s.full()) {
    ++s.overflow_;
    return true;
  }
  Request *r = request_alloc(send ? ReqKind::send : ReqKind::recv);
  r->shared = true;  // the recording's: the schedule's reap leaves it alone
  r->ctx = s.team.ctx;
  r->source = s.team.wire(send ? s.team.rank : peer);
  r->tag = s.tag;
  r->peer_task = task;
  r->buf = buf;
  r->bytes = bytes;
  r->layout = layout;
  r->elems = elems;
  ops_.push_back(r);
  Descriptor d;
  d.task = task;
  d.bits = match_bits(r->ctx, r->source, r->tag);
  d.addr = buf;
  d.length = bytes;
  d.req = r;
  if (layout) d.flags = kDescTyped;
  // No mailboxes: a phase posts its receives just before its sends, as the peers do, so a token would
  // seldom be there before the message, and looking for it costs the sender a cache miss (a replayed
  // 8 B allreduce of 2 ranks took 0.57 us with tokens, 0.52 without). So no receive writes one, and no
  // send looks.
  if (send) {
    describe_send(d, ctx, bytes, !layout);
    d.flags &= uint8_t(~kDescBox);
  } else {
    d.intent = Intent::receive;
  }
  staged_.push_back(d);
  if (d.flags & kDescImmediate && ctx.try_send_immediate(task, d.bits, buf, bytes)) {
    r->complete = true;  // never started: idle, as a finished operation is
    return true;
  }
  s.track(r);
  if (send)
    ctx.start_send(r, d.protocol);
  else
    ctx.start_recv(r);
  return true;
}

int Replay::end_phase(Vt &vt) {
  PatternFifo &f = patterns();
  if (mode_ == Mode::record) {
    if (staged_.empty()) return 0;
    const uint32_t sec = f.record(id_, uint32_t(staged_.size()), 1);
    if (sec == PatternFifo::kNone) {
      // No room: this start is posted already; later ones go the ordinary way until a section is freed.
      no_room_ = f.releases();
      invalid_ = true;
      staged_.clear();
      return 0;
    }
    Descriptor *d = f.descriptors(sec);
    for (size_t i = 0; i < staged_.size(); ++i) {
      d[i] = staged_[i];
      d[i].counter = f.first(sec);
    }
    f.counters(sec)[0].zero = pattern_zero_ignored;
    f.seal(sec);
    phases_.push_back(Phase{sec, f.generation(sec), d, f.size(sec), &f.counters(sec)[0]});
    staged_.clear();
    return 0;
  }
  if (next_ == first_) return 0;  // nothing replayed in this phase (a wait without messages)
  int err = 0;
  for (const Descriptor *d = first_; d != next_; ++d) {
    const Request *r = d->req;
    vt_raise(vt, r->vt);  // the schedule's clock, as the ordinary path's reap raises it
    Err e = r->status.error;
    if (d->intent == Intent::receive && e == Err::ok && r->status.sent_bytes != r->bytes) e = Err::truncate;
    if (!err && e != Err::ok) err = int(e);
  }
  if (mode_ == Mode::replay && next_ != end_) diverge();  // fewer messages than recorded
  first_ = next_ = end_ = nullptr;
  armed_ = nullptr;
  if (mode_ == Mode::replay) {
    ++phase_;
    arm();
  }
  return err;
}

}  // namespace pamir::coll
