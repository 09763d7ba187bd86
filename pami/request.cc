#include "pami/request.h"

#include <cstdlib>
#include <new>
#include <vector>

#include "pami/context.h"

namespace pamir {

namespace {
struct Pool {
  std::vector<Request *> free;
  size_t in_use = 0;
  static constexpr size_t kSlab = 256;
  void grow() {
    // Slabs are deliberately never freed: a stale MPI_Request still points at readable memory.
    auto *slab = static_cast<Request *>(std::calloc(kSlab, sizeof(Request)));
    if (!slab) throw std::bad_alloc();
    free.reserve(free.size() + kSlab);
    for (size_t i = kSlab; i-- > 0;) free.push_back(&slab[i]);
  }
};
Pool &pool() {
  static Pool *p = new Pool;  // outlives every static destructor that might release a request
  return *p;
}
}  // namespace

Request *request_alloc(ReqKind kind) {
  Pool &p = pool();
  if (p.free.empty()) p.grow();
  Request *r = p.free.back();
  p.free.pop_back();
  new (r) Request();
  r->vt = g_vclock.stamp;
  r->magic = kRequestMagic;
  r->kind = kind;
  ++p.in_use;
  return r;
}

void request_release(Request *r) {
  if (r->shared) [[unlikely]]
    return;
  if (r->held) [[unlikely]]
    context().release_held(r);
  r->magic = 0;
  Pool &p = pool();
  --p.in_use;
  p.free.push_back(r);
}

size_t requests_in_use() {
  return pool().in_use;
}

Request *request_completed_send() {
  static Request done = [] {
    Request r;
    r.magic = kRequestMagic;
    r.kind = ReqKind::send;
    r.complete = true;
    r.shared = true;
    return r;
  }();
  return &done;
}

}  // namespace pamir
