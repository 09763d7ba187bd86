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

Matcher::Queues &Matcher::queues(uint16_t ctx) {
  Queues *q = by_ctx_[ctx];
  if (__builtin_expect(!q, 0)) q = by_ctx_[ctx] = new Queues;
  return *q;
}

// Allocates once per source and context, at its first receive or message, never per message.
Matcher::Bin &Matcher::bin(Queues &q, int32_t src) {
  if (size_t(src) >= q.bins.size()) q.bins.resize(size_t(src) + 1, nullptr);
  Bin *&b = q.bins[size_t(src)];
  if (__builtin_expect(!b, 0)) b = new Bin;
  return *b;
}

Request *Matcher::first_posted(Queues &q, int32_t src, int32_t tag) {
  Request *r = nullptr;
  if (Bin *b = bin_if(q, src))
    r = b->posted.find([&](Request *p) { return p->tag == tag || p->tag == kAnyTag; });
  if (!q.posted_any.empty()) {
    Request *a = q.posted_any.find([&](Request *p) { return p->tag == tag || p->tag == kAnyTag; });
    if (a && (!r || a->match_seq < r->match_seq)) r = a;
  }
  return r;
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
  auto accepted = [&](Unexpected *m) { return m->tag == tag || tag == kAnyTag; };
  Unexpected *u = nullptr;
  Bin *from = nullptr;
  if (src != kAnySource) {
    from = bin_if(q, src);
    if (from) u = from->unexpected.find(accepted);
  } else {
    q.holding.for_each([&](Bin *b) {
      Unexpected *m = b->unexpected.find(accepted);
      if (m && (!u || m->seq < u->seq)) {
        u = m;
        from = b;
      }
    });
  }
  if (u && remove) {
    from->unexpected.remove(u);
    if (from->unexpected.empty()) q.holding.remove(from);
    --unexpected_;
  }
  return u;
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
