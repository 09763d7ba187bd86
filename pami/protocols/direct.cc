// The ready-token direct put of seed 004, for replayed persistent requests (pami/pattern.h) of the
// rendezvous sizes. MPI lets any start of a persistent send match any receive, ordinary ones included,
// and ordinary sends may come in between; a direct put must not break that. The token is the mailbox's
// (pami/protocols/mailbox.cc), in the pair's shared memory: a replayed receive of a specific source and
// tag that is the receive the source's next messages would reach promises itself to that message
// number, and offers its buffer (box::kPut) instead of room in the cell. The replayed send that is that
// very message (its number, its match bits, no message through the rings since the token's base)
// claims the token, writes the data straight into the buffer and then the message word into the cell;
// the receiver takes the receive out of the posted queue and completes it without matching. Anything
// else (an ordinary send in between, a wildcard receive, which never offers a token) takes the
// ordinary path, where the receive, still posted, is matched as usual.
//
// The token lives where the receiver can withdraw it with one swap, so a cancel is decided locally: it
// wins if the sender has not claimed the token, and a claimed token's message is written in the same
// call that claimed it.
#include <sys/uio.h>

#include <cerrno>
#include <cstring>

#include "pami/context.h"
#include "pami/lock.h"

namespace pamir {

void Context::ready_token(Request *r, bool first) {
  // Threaded runs write no tokens: a sleeper looks at the cells without the library lock (mailbox()).
  if (!direct_put_pays(r->bytes) || library_lock().enabled) return;
  if (r->peer_task == self_ || peers_[r->peer_task].rdv_refused) return;  // the peer cannot reach us
  uint64_t n;
  box::Cell *c = box_cell(r, first, n);
  if (!c) return;
  c->kind = box::kPut;
  c->capacity = 0;  // no room in the cell itself
  const box::PutTarget t{uint64_t(uintptr_t(r->buf)), r->bytes};
  std::memcpy(c->data, &t, sizeof t);
  box_promise(r, *c, n);
  ++stats().direct_tokens;
}

bool Context::direct_put(uint32_t task, uint64_t bits, const void *buf, uint64_t bytes) {
  Peer &p = peers_[task];
  box::Cell *c = box_claimable(p, task, bits, box::kPut);
  if (!c || !direct_put_pays(bytes) || bytes > UINT32_MAX) return false;
  box::PutTarget t;
  std::memcpy(&t, c->data, sizeof t);
  // Whether this process may write the peer's memory is known before the claim: once claimed, the
  // message must come through the cell.
  if (bytes > t.capacity || p.cma_refused || p.dev->remote_access(task) != 0 || !box_claim(p, *c))
    return false;
  struct iovec local {
    const_cast<void *>(buf), bytes
  }, remote{reinterpret_cast<void *>(uintptr_t(t.addr)), bytes};
  const ssize_t got = bytes ? p.dev->write_remote(task, &local, 1, &remote, 1, 0) : 0;
  if (got == ssize_t(bytes)) {
    c->len = uint32_t(bytes);
    ++stats().direct_puts;
    stats().direct_put_bytes += bytes;
  } else {
    // The message is claimed, so it ends here: the receive completes in error (an unmapped buffer,
    // say). A refusal the probe did not foresee also stops later puts to this peer.
    c->kind = box::kPutFailed;
    c->len = uint32_t(got < 0 ? -got : EIO);
    if (got == -EPERM || got == -ESRCH) p.cma_refused = true;
  }
  box_sent(p, task, *c);
  return true;
}

}  // namespace pamir
