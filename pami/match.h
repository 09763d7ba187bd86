// The one matcher every device uses. Per context id, each source has a bin: its posted receives and its
// unexpected messages, each in order; receives for MPI_ANY_SOURCE wait in a queue of their own. Every
// receive is numbered as it is posted and every message as it arrives, so an arriving message takes
// the earlier of the first receive of its source's bin and the first wildcard receive that accept it,
// and a wildcard receive takes the earliest accepting message among the bins that hold any: MPI's
// non-overtaking rule, with wildcards. A receive naming its source looks only at that source's
// messages, so a flood of unexpected messages from one peer costs nothing to the receives from
// another (one queue per context made every such receive walk the flood). In-order traffic matches
// at the head of its bin: O(1).
//
// Match bits on the wire (64 bits, so the ofi device can carry them as tagged-message tags):
//   bits 63..48  context id (16)   even: point-to-point context, odd: the collective context
//   bits 47..28  source rank in the communicator (20)
//   bits 27..0   tag (28)          so MPI_TAG_UB is 2^28 - 1
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "pami/dispatch.h"
#include "pami/list.h"
#include "pami/request.h"

namespace pamir {

constexpr int32_t kAnySource = -1;
constexpr int32_t kAnyTag = -2;
constexpr int32_t kTagUb = (1 << 28) - 1;
constexpr uint32_t kMaxRanks = 1u << 20;
constexpr unsigned kContextIds = 1u << 16;

inline uint64_t match_bits(uint16_t ctx, int32_t src, int32_t tag) {
  return (uint64_t(ctx) << 48) | (uint64_t(uint32_t(src) & 0xFFFFF) << 28) |
         uint64_t(uint32_t(tag) & 0xFFFFFFF);
}
inline uint16_t bits_ctx(uint64_t b) {
  return uint16_t(b >> 48);
}
inline int32_t bits_src(uint64_t b) {
  return int32_t((b >> 28) & 0xFFFFF);
}
inline int32_t bits_tag(uint64_t b) {
  return int32_t(b & 0xFFFFFFF);
}

// A message that arrived before its receive. Small payloads live inline; the object is recycled.
struct Unexpected : ListNode {
  static constexpr size_t kInline = 1024;
  uint16_t ctx;
  int32_t src;
  int32_t tag;
  uint32_t src_task;
  uint64_t total;        // message length
  uint64_t received;     // bytes arrived so far
  uint64_t sync_cookie;  // nonzero: the sender waits for a match ack
  uint8_t *data;
  Request *claimed;  // a receive that matched it before all of it arrived
  bool probed_out;   // taken by MPI_Mprobe: no longer in the queue
  bool rts = false;  // a rendezvous request-to-send: no data here, it is pulled once matched
  uint64_t seq = 0;  // its place in its context's arrival order (Matcher::add_unexpected)
  RdvSource rdv{};
  uint64_t sig = 0;  // hash of the message's type signature (0: not checked)
  Vt vt;             // the timing model's arrival of its latest packet (pami/vclock.h)
  alignas(16) uint8_t inline_data[kInline];
};

Unexpected *unexpected_alloc(uint64_t total);
void unexpected_release(Unexpected *u);

class Matcher {
 public:
  Matcher();
  ~Matcher();

  // An arrived message: the first posted receive that accepts it, removed from its queue, or nullptr.
  Request *take_posted(uint16_t ctx, int32_t src, int32_t tag);
  // A new receive: the first unexpected message it accepts; removed when `remove`.
  Unexpected *find_unexpected(uint16_t ctx, int32_t src, int32_t tag, bool remove);

  void post(Request *r);
  void add_unexpected(Unexpected *u);
  // Removes a posted receive (cancel); false if it was already matched.
  bool unpost(Request *r);
  // Whether posted receive r is the first in its queue that a message from src with tag would match.
  bool first_for(const Request *r, int32_t src, int32_t tag);

  // Whether some posted receive would take a message of this envelope.
  bool would_take(uint16_t ctx, int32_t src, int32_t tag) const {
    Queues *q = by_ctx_[ctx];
    return q && first_posted(*q, src, tag) != nullptr;
  }
  size_t posted_count() const { return posted_; }
  size_t unexpected_count() const { return unexpected_; }

 private:
  // One source's receives and messages within a context. On the context's list of bins with
  // messages while it has any, so a wildcard receive visits only those.
  struct Bin : ListNode {
    List<Request> posted;
    List<Unexpected> unexpected;
  };
  struct Queues {
    List<Request> posted_any;          // MPI_ANY_SOURCE receives
    std::vector<Bin *> bins;           // by source rank, grown to the largest seen
    List<Bin> holding;                 // bins whose unexpected list is not empty
    uint64_t posts = 0, arrivals = 0;  // the numbers of match_seq and Unexpected::seq
    ~Queues();
  };
  // The hot paths below stay inline; allocating a context's queues or a source's bin is out of line.
  Queues &queues(uint16_t ctx) {
    Queues *q = by_ctx_[ctx];
    return __builtin_expect(q != nullptr, 1) ? *q : new_queues(ctx);
  }
  Queues &new_queues(uint16_t ctx);
  static Bin *bin_if(Queues &q, int32_t src) {
    return size_t(src) < q.bins.size() ? q.bins[size_t(src)] : nullptr;
  }
  static Bin &bin(Queues &q, int32_t src) {
    Bin *b = bin_if(q, src);
    return __builtin_expect(b != nullptr, 1) ? *b : new_bin(q, src);
  }
  static Bin &new_bin(Queues &q, int32_t src);
  Unexpected *find_unexpected_any(Queues &q, int32_t tag, bool remove);
  void take_unexpected(Queues &q, Bin &b, Unexpected *u);
  // The receive an arriving message from src with tag would take, left in its queue.
  static Request *first_posted(Queues &q, int32_t src, int32_t tag) {
    auto accepted = [tag](Request *p) { return p->tag == tag || p->tag == kAnyTag; };
    Request *r = nullptr;
    if (Bin *b = bin_if(q, src)) r = b->posted.find(accepted);
    if (__builtin_expect(!q.posted_any.empty(), 0)) {
      Request *a = q.posted_any.find(accepted);
      if (a && (!r || a->match_seq < r->match_seq)) r = a;
    }
    return r;
  }
  std::unique_ptr<Queues *[]> by_ctx_;
  size_t posted_ = 0, unexpected_ = 0;
};

inline bool accepts(int32_t want_src, int32_t want_tag, int32_t src, int32_t tag) {
  return (want_src == src || want_src == kAnySource) && (want_tag == tag || want_tag == kAnyTag);
}

}  // namespace pamir
