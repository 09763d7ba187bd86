#include "pami/pattern.h"

#include "pami/context.h"
#include "pami/stats.h"

namespace pamir {

void PatternFifo::set_capacity(uint32_t capacity) {
  if (!fifo_) capacity_ = capacity;
}

uint32_t PatternFifo::record(uint64_t id, uint32_t n, uint32_t k) {
  if (n == 0 || k > n || n > capacity_) return kNone;
  if (!fifo_) {
    fifo_.reset(new Descriptor[capacity_]);
    counters_.reset(new PatternCounter[capacity_]);
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
  sections_[s] = Section{at, at + n, k, id, ++generations_, true};
  by_start_.emplace(at, s);
  used_ += n;
  for (uint32_t i = at; i < at + n; ++i) fifo_[i] = Descriptor{};
  for (uint32_t i = at; i < at + k; ++i) counters_[i] = PatternCounter{};
  ++stats().pattern_records;
  return s;
}

void PatternFifo::seal(uint32_t s) {
  const Section &sec = sections_[s];
  for (uint32_t i = sec.start; i < sec.start + sec.counters; ++i) counters_[i].armed = 0;
  for (uint32_t i = sec.start; i < sec.end; ++i) {
    fifo_[i].section = s;
    ++counters_[fifo_[i].counter].armed;
  }
  stats().pattern_descriptors += sec.end - sec.start;
}

bool PatternFifo::drained(const Section &sec) const {
  for (uint32_t i = sec.start; i < sec.start + sec.counters; ++i)
    if (counters_[i].value) return false;
  return true;
}

void PatternFifo::reclaim(uint32_t s) {
  Section &sec = sections_[s];
  by_start_.erase(sec.start);
  used_ -= sec.end - sec.start;
  free_sections_.push_back(s);
}

void PatternFifo::release(uint32_t s, uint64_t generation) {
  if (!live(s, generation)) return;
  sections_[s].live = false;
  ++releases_;
  if (drained(sections_[s]))
    reclaim(s);
  else
    draining_.push_back(s);
}

void PatternFifo::abandon(Request *op) {
  if (op->on_complete == pattern_op_done) static_cast<PatternCounter *>(op->ext)->value = 0;
}

void PatternFifo::release_naming(const Request *op) {
  for (auto it = by_start_.begin(); it != by_start_.end();) {
    const uint32_t s = it->second;
    const Section &sec = sections_[s];
    ++it;  // release() may erase s's entry
    if (!sec.live) continue;
    for (uint32_t i = sec.start; i < sec.end; ++i)
      if (fifo_[i].req == op) {
        release(s, sec.generation);
        break;
      }
  }
}

uint32_t PatternFifo::find(uint64_t id) const {
  for (const auto &e : by_start_)
    if (sections_[e.second].live && sections_[e.second].id == id) return e.second;
  return kNone;
}

namespace {
inline void count_down(PatternCounter &k, Request *last) {
  if (--k.value == 0) k.zero(k.arg, last);
}
// A recorded operation starts again: its description stays, its protocol state is reset.
inline void rearm(Request *r, PatternCounter &k) {
  r->complete = false;
  r->acked = false;
  r->started = false;
  r->status = Status{};
  r->ack_ref = 0;
  r->rdv_counter = 0;
  r->rdv_cookie = 0;
  r->ext = &k;
  r->on_complete = pattern_op_done;
}
}  // namespace

void pattern_op_done(Request *op) {
  count_down(*static_cast<PatternCounter *>(op->ext), op);
}

void inject(Context &ctx, PatternFifo &fifo) {
  while (!fifo.empty()) {
    const Descriptor &d = fifo.pop();
    PatternCounter &k = fifo.counter(d.counter);
    switch (d.intent) {
      case Intent::eager_send:
        if ((d.flags & kDescImmediate) && ctx.try_send_immediate(d.task, d.bits, d.addr, d.length)) {
          count_down(k, nullptr);
          break;
        }
        [[fallthrough]];
      case Intent::remote_get:
        rearm(d.req, k);
        ctx.start_send(d.req, d.protocol);
        break;
      case Intent::receive:
        rearm(d.req, k);
        ctx.start_recv(d.req);
        break;
    }
  }
}

PatternFifo g_patterns;

}  // namespace pamir
