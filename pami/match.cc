#include "pami/match.h"

#include <cstdlib>
#include <new>
#include <vector>

namespace pamir {

namespace {
// Recycled unexpected-message records, so a stream of small early arrivals allocates nothing.
std::vector<Unexpected *> &free_unexpected() {
  static auto *v = new std::vector<Unexpected *>;
  return *v;
}
constexpr size_t kKeepFree = 256;
}  // namespace

Unexpected *unexpected_alloc(uint64_t total) {
  auto &fl = free_unexpected();
  Unexpected *u;
  if (!fl.empty()) {
    u = fl.back();
    fl.pop_back();
  } else {
    u = static_cast<Unexpected *>(std::malloc(sizeof(Unexpected)));
    if (!u) throw std::bad_alloc();
  }
  new (u) Unexpected;
  u->total = total;
  u->received = 0;
  u->sync_cookie = 0;
  u->claimed = nullptr;
  u->probed_out = false;
  if (total <= Unexpected::kInline) {
    u->data = u->inline_data;
  } else {
    u->data = static_cast<uint8_t *>(std::malloc(total));
    if (!u->data) throw std::bad_alloc();
  }
  return u;
}

void unexpected_release(Unexpected *u) {
  if (u->data != u->inline_data) std::free(u->data);
  auto &fl = free_unexpected();
  if (fl.size() < kKeepFree) {
    fl.push_back(u);
  } else {
    std::free(u);
  }
}

Matcher::Matcher() : by_ctx_(new Queues *[kContextIds]()) {}

Matcher::~Matcher() {
  for (unsigned i = 0; i < kContextIds; ++i) delete by_ctx_[i];
}

Matcher::Queues::~Queues() {
  for (Bin *b : bins) delete b;
}

Matcher::Queues &Matcher::new_queues(uint16_t ctx) {
  return *(by_ctx_[ctx] = new Queues);
}

// Once per source and context, at its first receive or message, never per message.
Matcher::Bin &Matcher::new_bin(Queues &q, int32_t src) {
  if (size_t(src) >= q.bins.size()) q.bins.resize(size_t(src) + 1, nullptr);
  return *(q.bins[size_t(src)] = new Bin);
}

Request *Matcher::take_posted(uint16_t ctx, int32_t src, int32_t tag) {
  Request *r = first_posted(queues(ctx), src, tag);
  if (r) {
    List<Request>::unlink(r);
    r->posted = false;
    --posted_;
  }
  return r;
}

Unexpected *Matcher::find_unexpected(uint16_t ctx, int32_t src, int32_t tag, bool remove) {
  Queues &q = queues(ctx);
  if (__builtin_expect(src == kAnySource, 0)) return find_unexpected_any(q, tag, remove);
  Bin *b = bin_if(q, src);
  if (!b || b->unexpected.empty()) return nullptr;
  Unexpected *u = b->unexpected.find([tag](Unexpected *m) { return m->tag == tag || tag == kAnyTag; });
  if (u && remove) take_unexpected(q, *b, u);
  return u;
}

// Out of line, so the receive that names its source pays nothing for the wildcard's walk.
Unexpected *Matcher::find_unexpected_any(Queues &q, int32_t tag, bool remove) {
  Unexpected *u = nullptr;
  Bin *from = nullptr;
  q.holding.for_each([&](Bin *b) {
    Unexpected *m = b->unexpected.find([tag](Unexpected *x) { return x->tag == tag || tag == kAnyTag; });
    if (m && (!u || m->seq < u->seq)) {
      u = m;
      from = b;
    }
  });
  if (u && remove) take_unexpected(q, *from, u);
  return u;
}

void Matcher::take_unexpected(Queues &q, Bin &b, Unexpected *u) {
  b.unexpected.remove(u);
  if (b.unexpected.empty()) q.holding.remove(&b);
  --unexpected_;
}

void Matcher::post(Request *r) {
  Queues &q = queues(r->ctx);
  r->match_seq = q.posts++;
  if (r->source == kAnySource)
    q.posted_any.push_back(r);
  else
    bin(q, r->source).posted.push_back(r);
  r->posted = true;
  ++posted_;
}

void Matcher::add_unexpected(Unexpected *u) {
  Queues &q = queues(u->ctx);
  Bin &b = bin(q, u->src);
  u->seq = q.arrivals++;
  if (b.unexpected.empty()) q.holding.push_back(&b);
  b.unexpected.push_back(u);
  ++unexpected_;
}

bool Matcher::first_for(const Request *r, int32_t src, int32_t tag) {
  return first_posted(queues(r->ctx), src, tag) == r;
}

bool Matcher::unpost(Request *r) {
  if (!r->posted) return false;
  List<Request>::unlink(r);
  r->posted = false;
  --posted_;
  return true;
}

}  // namespace pamir
