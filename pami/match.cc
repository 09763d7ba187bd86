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

Matcher::Queues &Matcher::queues(uint16_t ctx) {
  Queues *q = by_ctx_[ctx];
  if (__builtin_expect(!q, 0)) q = by_ctx_[ctx] = new Queues;
  return *q;
}

Request *Matcher::take_posted(uint16_t ctx, int32_t src, int32_t tag) {
  Queues &q = queues(ctx);
  Request *r = q.posted.find([&](Request *p) { return accepts(p->source, p->tag, src, tag); });
  if (r) {
    q.posted.remove(r);
    r->posted = false;
    --posted_;
  }
  return r;
}

Unexpected *Matcher::find_unexpected(uint16_t ctx, int32_t src, int32_t tag, bool remove) {
  Queues &q = queues(ctx);
  Unexpected *u = q.unexpected.find([&](Unexpected *m) { return accepts(src, tag, m->src, m->tag); });
  if (u && remove) {
    q.unexpected.remove(u);
    --unexpected_;
  }
  return u;
}

void Matcher::post(Request *r) {
  queues(r->ctx).posted.push_back(r);
  r->posted = true;
  ++posted_;
}

void Matcher::add_unexpected(Unexpected *u) {
  queues(u->ctx).unexpected.push_back(u);
  ++unexpected_;
}

bool Matcher::first_for(const Request *r, int32_t src, int32_t tag) {
  const Request *first =
      queues(r->ctx).posted.find([&](Request *p) { return accepts(p->source, p->tag, src, tag); });
  return first == r;
}

bool Matcher::unpost(Request *r) {
  if (!r->posted) return false;
  queues(r->ctx).posted.remove(r);
  r->posted = false;
  --posted_;
  return true;
}

}  // namespace pamir
