// The packets of an eager message (or of a rendezvous message pushed after a resend request): the first
// carries the header, the rest are fragments, each as large as the device takes. `send(dispatch, hdr,
// hdr_len, n)` hands the next n payload bytes (from r->offset) to the device, from a contiguous buffer
// (eager.cc) or packed from a layout (typed.cc); the packet choice is here once for both.
#pragma once

#include <algorithm>

#include "pami/context.h"

namespace pamir {

template <typename Send>
bool Context::push_packets(dev::Device *d, Request *r, Send &&send) {
  if (!r->started) {
    bool sent;
    size_t n;
    if (r->rdv == kRdvResend) {
      RdvDataHeader h{r->rdv_cookie, r->bytes};
      n = std::min<uint64_t>(r->bytes, d->max_payload(sizeof h));
      sent = send(kDispatchRdvData, &h, uint32_t(sizeof h), n);
    } else if (r->sig) [[unlikely]] {
      MsgSigHeader h{{match_bits(r->ctx, r->source, r->tag), r->bytes, r->sync ? uint64_t(uintptr_t(r)) : 0},
                     r->sig};
      n = std::min<uint64_t>(r->bytes, d->max_payload(sizeof h));
      sent = send(kDispatchMsgSig, &h, uint32_t(sizeof h), n);
    } else {
      MsgHeader h{match_bits(r->ctx, r->source, r->tag), r->bytes, r->sync ? uint64_t(uintptr_t(r)) : 0};
      n = std::min<uint64_t>(r->bytes, d->max_payload(sizeof h));
      sent = send(kDispatchMsg, &h, uint32_t(sizeof h), n);
    }
    if (!sent) return false;
    r->started = true;
    r->offset = n;
  }
  const size_t chunk = d->max_payload(0);
  while (r->offset < r->bytes) {
    const size_t n = std::min<uint64_t>(r->bytes - r->offset, chunk);
    if (!send(kDispatchFrag, nullptr, 0, n)) return false;
    r->offset += n;
  }
  return true;
}

}  // namespace pamir
