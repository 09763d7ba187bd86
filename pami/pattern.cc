#include "pami/pattern.h"

#include <new>

#include "pami/dispatch.h"
#include "pami/stats.h"

namespace pamir {

void PatternFifo::set_capacity(uint32_t capacity) {
  if (!fifo_) capacity_ = capacity;
}

uint32_t PatternFifo::record(uint64_t id, uint32_t n, uint32_t k) {
  if (n == 0 || k > n || n > capacity_) return kNone;
  if (!fifo_) {
    fifo_.reset(
        static_cast<Descriptor *>(std::aligned_alloc(alignof(Descriptor), sizeof(Descriptor) * capacity_)));
    counters_.reset(static_cast<PatternCounter *>(std::malloc(sizeof(PatternCounter) * capacity_)));
    if (!fifo_ || !counters_) {
      fifo_.reset();
      counters_.reset();
      return kNone;  // no memory: every pattern takes the ordinary path
    }
  }
  std::erase_if(draining_, [this](uint32_t d) {
    if (!drained(sections_[d])) return false;
    reclaim(d);
    return true;
  });
  // First fit between the live sections: records are rare (a pattern's first start), replays are not.
  uint32_t at = 0;
  bool found = false;
  for (const auto &[start, s] : by_start_) {
    if (start - at >= n) {
      found = true;
      break;
    }
    at = sections_[s].end;
  }
  if (!found && capacity_ - at < n) return kNone;
  uint32_t s;
  if (!free_sections_.empty()) {
    s = free_sections_.back();
    free_sections_.pop_back();
  } else {
    s = uint32_t(sections_.size());
    sections_.emplace_back();
  }
  sections_[s] = Section{at, at + n, k, id, ++generations_, 0, false, false, false, {}};
  by_start_.emplace(at, s);
  used_ += n;
  for (uint32_t i = at; i < at + n; ++i) new (&fifo_[i]) Descriptor{};
  for (uint32_t i = at; i < at + k; ++i) new (&counters_[i]) PatternCounter{};
  ++stats().pattern_records;
  return s;
}

void PatternFifo::seal(uint32_t s) {
  Section &sec = sections_[s];
  for (uint32_t i = sec.start; i < sec.start + sec.counters; ++i) counters_[i].armed = 0;
  for (uint32_t i = sec.start; i < sec.end; ++i) {
    fifo_[i].section = s;
    ++counters_[fifo_[i].counter].armed;
  }
  // A section's counters rearm all together or not at all.
  sec.rearms = true;
  for (uint32_t i = sec.start; i < sec.start + sec.counters; ++i)
    sec.rearms = sec.rearms && counters_[i].rearms && counters_[i].armed == 1;
  for (uint32_t i = sec.start; i < sec.start + sec.counters; ++i) {
    PatternCounter &k = counters_[i];
    k.rearms = sec.rearms;
    k.running = &counters_[sec.start].pending;
    k.value = k.at_rest();
  }
  counters_[sec.start].pending = 0;
  // A receive that no earlier receive of the section would take a message from: kDescFirst. O(n^2)
  // once, so that no start has to look through the posted queue for it.
  for (uint32_t j = sec.start; j < sec.end; ++j) {
    Descriptor &d = fifo_[j];
    if (!(d.flags & (kDescBoxToken | kDescToken))) continue;
    const Request *r = d.req;
    bool first = true;
    for (uint32_t i = sec.start; i < j && first; ++i) {
      const Request *e = fifo_[i].req;
      first = fifo_[i].intent != Intent::receive || e->ctx != r->ctx ||
              !accepts(e->source, e->tag, r->source, r->tag);
    }
    if (first) d.flags |= kDescFirst;
  }
  stats().pattern_descriptors += sec.end - sec.start;
}

bool PatternFifo::drained(const Section &sec) const {
  if (sec.rearms) return counters_[sec.start].pending == 0;
  for (uint32_t i = sec.start; i < sec.start + sec.counters; ++i)
    if (counters_[i].value) return false;
  return true;
}

void PatternFifo::reclaim(uint32_t s) {
  Section &sec = sections_[s];
  if (sec.device && device_release_) device_release_(sec.device);
  sec.device = 0;
  for (uint32_t i = sec.start; i < sec.end; ++i)
    if (fifo_[i].landing) {
      if (landing_release_) landing_release_(fifo_[i].landing);
      fifo_[i].landing = 0;
    }
  by_start_.erase(sec.start);
  used_ -= sec.end - sec.start;
  free_sections_.push_back(s);
}

void PatternFifo::release(uint32_t s, uint64_t generation) {
  if (!live(s, generation) || generation == 0) return;
  sections_[s].generation = 0;
  ++releases_;
  if (drained(sections_[s]))
    reclaim(s);
  else
    draining_.push_back(s);
}

void PatternFifo::abandon(Request *op) {
  if (op->on_complete == pattern_op_done) {
    auto *k = static_cast<PatternCounter *>(op->ext);
    if (k->rearms) {
      k->value = k->armed;
      --*k->running;
    } else {
      k->value = 0;
    }
  }
}

void PatternFifo::release_naming(const Request *op) {
  for (auto it = by_start_.begin(); it != by_start_.end();) {
    const uint32_t s = it->second;
    const Section &sec = sections_[s];
    ++it;  // release() may erase s's entry
    if (!sec.generation) continue;
    for (uint32_t i = sec.start; i < sec.end; ++i)
      if (fifo_[i].req == op) {
        release(s, sec.generation);
        break;
      }
  }
}

uint32_t PatternFifo::find(uint64_t id) const {
  for (const auto &e : by_start_)
    if (sections_[e.second].generation && sections_[e.second].id == id) return e.second;
  return kNone;
}

void pattern_op_done(Request *op) {
  pattern_count_down(*static_cast<PatternCounter *>(op->ext), op);
}

void pattern_zero_ignored(void *, Request *) {}

bool inject_on_device(Context &ctx, PatternFifo &f) {
  const uint32_t s = f.current();
  // Its receives of one source and tag get landings, which their starts arm, whichever way its sends go.
  if (!f.landings_made(s)) [[unlikely]] {
    f.set_landings_made(s);
    Descriptor *d = f.descriptors(s);
    for (uint32_t i = 0; i < f.size(s); ++i) {
      if (d[i].intent != Intent::receive) continue;
      f.receives(s).push_back(f.first(s) + i);
      if (ctx.lands_receives() && (d[i].flags & kDescExact))
        d[i].landing = uint8_t(ctx.landing_add(d[i].task, d[i].bits));
    }
  }
  if (f.device_refused(s)) return false;
  const uint32_t first = f.head(), end = f.tail();
  dev::Device *dev = ctx.replay_device();
  uint32_t id = f.device_pattern(s);
  if (id == 0) {
    // Immediate sends alone: one packet each from a contiguous buffer, complete once it has left.
    uint32_t sends = 0;
    for (uint32_t i = first; i < end; ++i) {
      const Descriptor &d = f.descriptor(i);
      if (d.intent == Intent::receive) continue;
      if (!(d.flags & kDescImmediate) || !ctx.replays_to(d.task)) {
        f.refuse_device(s);
        return false;
      }
      ++sends;
    }
    if (sends == 0 || (id = dev->pattern_open(sends)) == 0) {
      f.refuse_device(s);  // a full pool: the ordinary path, as with a full descriptor FIFO
      return false;
    }
    for (uint32_t i = first; i < end; ++i) {
      const Descriptor &d = f.descriptor(i);
      if (d.intent != Intent::receive &&
          !dev->pattern_add(id, d.task, kDispatchShort, &d.bits, sizeof d.bits, d.addr, d.length)) {
        dev->pattern_close(id);
        f.refuse_device(s);
        return false;
      }
    }
    f.set_device_pattern(s, id);
  }
  // The last start's sends are done before a program may start again; a device still carrying them
  // (which MPI forbids) would see the same descriptors twice, so such a start goes the ordinary way.
  if (!dev->pattern_done(id)) return false;
  const bool clear = ctx.matcher().posted_count() == 0;
  // Nothing posted or unexpected, so nothing could take a landing's envelope first, until a receive
  // goes the ordinary way.
  bool quiet = ctx.nothing_to_match();
  for (uint32_t i : f.receives(s)) {
    const Descriptor &d = f.descriptor(i);
    if (d.landing && quiet) [[likely]] {
      rearm_landed(d.req, f.counter(d.counter));
      if (ctx.landing_arm_if_ready(d.landing, d.req)) [[likely]]
        continue;
    }
    inject_one(ctx, d, f.counter(d.counter), clear);
    quiet = ctx.nothing_to_match();
  }
  f.skip_all();
  dev->pattern_start(id);
  ctx.watch_device_pattern(id, s);
  ++stats().pattern_device_starts;
  return true;
}

// The sends of a device pattern's start have all left: each counts its counter down.
void device_pattern_done(PatternFifo &f, uint32_t s) {
  const uint32_t first = f.first(s), end = first + f.size(s);
  for (uint32_t i = first; i < end; ++i) {
    const Descriptor &d = f.descriptor(i);
    if (d.intent != Intent::receive) pattern_count_down(f.counter(d.counter), nullptr);
  }
}

PatternFifo *const g_patterns = new PatternFifo;

}  // namespace pamir
