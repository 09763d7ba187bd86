// Context ids. The match bits carry a 16-bit context id (pami/match.h). Ids come in pairs: the even id
// 2p is a communicator's point-to-point context, 2p+1 its collective context. Each process keeps a
// bitmap of the 32768 pairs (bit set = free here); pairs 0 and 1 belong to MPI_COMM_WORLD and
// MPI_COMM_SELF. An id need only be unique among the processes that exchange messages on it, since a
// message is matched by (context, source, tag) at one receiver: disjoint communicators made by one
// MPI_Comm_split share an id.
//
// The agreement (MPICH's mask-based allocation, made nonblocking). Creations may be pending together on
// one process in any order the standard allows: nonblocking ones on different parents started in
// different orders on different ranks, a blocking one beside a pending nonblocking one, one per thread.
// So one process's bitmap goes to one round at a time, and a round whose members could not all offer
// it fails on every member and is retried; what must be argued is that some creation always gets
// through.
//   - A first round offers only the eager part of the bitmap (the lowest 64 pairs). It may wait without
//     end (a member has not called the creation yet, and may first wait in another one), so it holds
//     only that part, and a creation whose first round finds the part taken offers zeros and goes on
//     to the ordered rounds.
//   - Once its first round is over (every member has started it, so its later rounds complete whenever
//     its members progress), a creation joins the process's queue, ordered by a key every member
//     computes alike (agreement_key). Only the head of the queue offers the rest of the bitmap, and
//     the eager part too when it is free. The creation of lowest key in the queues holds the head of
//     every member's queue once all have seen its first round end; the rounds holding the bitmap
//     there end, so its next round gets every member's bitmap, and it succeeds or finds no free pair.
// An empty result means "exhausted" only when every member offered the whole bitmap (two flag words
// of the reduction say so); otherwise it means "retry".
//
// A freed communicator gives its pair back when its last reference goes. The pairs of the node's
// shared collective areas (collectives/shm_slot.h) come back only once every reader of this process's
// cells has read: until then they wait in `unread`.
#include "mpi/context_id.h"

#include <algorithm>
#include <initializer_list>
#include <utility>

#include "collectives/algorithms/algorithms.h"
#include "collectives/coll.h"
#include "collectives/shm_slot.h"
#include "pami/context.h"
#include "pami/match.h"

namespace pamir::mpi {

namespace {

constexpr unsigned kPairs = kContextIds / 2;
constexpr unsigned kWords = kPairs / 32;
constexpr unsigned kEagerWords = 2;  // pairs 0-63: what a first round offers
constexpr size_t kMaskFlag = kWords, kEagerFlag = kWords + 1;
constexpr size_t kReduceWords =
    kWords + 2;  // the bitmap, "every member offered the rest", "... the eager part"

struct ContextIds {
  uint32_t mask[kWords];
  bool eager_in_use = false;
  bool mask_in_use = false;
  std::vector<Agreement *> queue;  // creations past their first round, by key
  std::vector<uint64_t> keys;      // their keys, in the same order
  uint32_t unread = 0;
  static_assert(coll::kShmSlots <= 32);

  void reset() {
    std::fill(std::begin(mask), std::end(mask), ~0u);
    mask[0] &= ~3u;  // pairs 0 (MPI_COMM_WORLD) and 1 (MPI_COMM_SELF)
    mask[kWords - 1] &= ~(1u << ((kParentlessCtx / 2) % 32));
    eager_in_use = mask_in_use = false;
    queue.clear();
    keys.clear();
    unread = 0;
  }
  // Before the eager part is offered: the slot pairs whose readers have read.
  void reclaim() {
    for (uint32_t u = unread; u;) {
      const unsigned pair = unsigned(__builtin_ctz(u));
      u &= u - 1;
      if (!coll::shm_slot_reclaim(pair)) continue;
      unread &= ~(1u << pair);
      mask[0] |= 1u << pair;
    }
  }
};

ContextIds &ids() {
  static auto *s = [] {
    auto *p = new ContextIds;
    p->reset();
    return p;
  }();
  return *s;
}

}  // namespace

uint64_t agreement_key(uint16_t parent_ctx, AgreeKind kind, uint64_t value) {
  return (uint64_t(parent_ctx) << 48) | (uint64_t(kind) << 46) | (value & ((uint64_t(1) << 46) - 1));
}

uint64_t inter_key(uint16_t ctx_a, uint64_t seq_a, uint16_t ctx_b, uint64_t seq_b) {
  if (std::make_pair(ctx_b, seq_b) < std::make_pair(ctx_a, seq_a)) {
    std::swap(ctx_a, ctx_b);
    std::swap(seq_a, seq_b);
  }
  constexpr uint64_t kSeq = (1u << 15) - 1;
  return agreement_key(ctx_a, AgreeKind::inter,
                       (uint64_t(ctx_b) << 30) | ((seq_a & kSeq) << 15) | (seq_b & kSeq));
}

Agreement::Agreement(const coll::Team &team, int32_t tag, uint64_t key, bool member, uint64_t check)
    : NbSchedule(team, tag),
      key_(key),
      member_(member),
      check_(check),
      words_(kReduceWords + (check ? 4 : 0)) {
  may_offload = false;  // its end may run the application's code (attribute copies), and ids() is unlocked
}

Agreement::~Agreement() {
  leave_queue();
}

void Agreement::run() {
  start(rounds(sched, this));
}

coll::Task Agreement::rounds(coll::Sched &s, Agreement *self) {
  for (;;) {
    self->begin_round();
    const int e = co_await self->reduce(s, self->words_.data(), self->words_.size());
    switch (self->end_round(e != 0)) {
      case Round::agreed:
        co_return 0;
      case Round::failed:
        co_return e;
      case Round::none:
        self->none_ = true;
        co_return 0;
      case Round::mismatch:
        self->mismatch_ = true;
        co_return 0;
      case Round::again:
        break;
    }
  }
}

coll::Task Agreement::reduce(coll::Sched &s, uint32_t *words, size_t n) {
  coll::Args a;
  a.recvbuf = words;
  a.count = n;
  a.op = coll::builtin_reduction(coll::reduce_fn(coll::OpKind::band, coll::ElemType::u32), 4);
  a.in_place = true;
  return coll::allreduce_recursive_doubling(s, a);
}

void Agreement::begin_round() {
  ContextIds &s = ids();
  std::fill(words_.begin(), words_.end(), member_ ? 0u : ~0u);
  if (check_) {
    const uint32_t lo = uint32_t(check_), hi = uint32_t(check_ >> 32);
    std::copy_n(std::begin({lo, hi, ~lo, ~hi}), 4, words_.begin() + kReduceWords);
  }
  if (!member_) return;
  const bool head = !first_ && !s.mask_in_use && !s.queue.empty() && s.queue.front() == this;
  if (head) {
    s.mask_in_use = own_mask_ = true;
    std::copy(std::begin(s.mask) + kEagerWords, std::end(s.mask), words_.begin() + kEagerWords);
    words_[kMaskFlag] = ~0u;
  }
  if ((first_ || head) && !s.eager_in_use) {
    s.eager_in_use = own_eager_ = true;
    s.reclaim();
    std::copy(std::begin(s.mask), std::begin(s.mask) + kEagerWords, words_.begin());
    words_[kEagerFlag] = ~0u;
  }
}

Agreement::Round Agreement::end_round(bool failed) {
  ContextIds &s = ids();
  if (own_eager_) s.eager_in_use = false;
  if (own_mask_) s.mask_in_use = false;
  own_eager_ = own_mask_ = false;
  if (failed) return Round::failed;
  if (check_) {
    const uint32_t lo = uint32_t(check_), hi = uint32_t(check_ >> 32);
    if (words_[kReduceWords] != lo || words_[kReduceWords + 1] != hi || words_[kReduceWords + 2] != ~lo ||
        words_[kReduceWords + 3] != ~hi)
      return Round::mismatch;
  }
  for (unsigned w = 0; w < kWords; ++w) {
    if (!words_[w]) continue;
    // Only a round every member offered that word to can see it nonzero.
    const unsigned pair = w * 32 + unsigned(__builtin_ctz(words_[w]));
    if (member_) s.mask[w] &= ~(1u << (pair % 32));
    ctx = uint16_t(2 * pair);
    return Round::agreed;
  }
  if (!first_ && words_[kMaskFlag] == ~0u && words_[kEagerFlag] == ~0u) return Round::none;
  if (first_ && member_) {
    const auto at = std::upper_bound(s.keys.begin(), s.keys.end(), key_);
    s.queue.insert(s.queue.begin() + (at - s.keys.begin()), this);
    s.keys.insert(at, key_);
  }
  first_ = false;
  return Round::again;
}

void Agreement::leave_queue() {
  ContextIds &s = ids();
  const auto at = std::find(s.queue.begin(), s.queue.end(), this);
  if (at == s.queue.end()) return;
  s.keys.erase(s.keys.begin() + (at - s.queue.begin()));
  s.queue.erase(at);
}

void Agreement::done(int result) {
  leave_queue();
  finished(result ? result : mismatch_ ? kCheckFailed : none_ ? kNoFreeId : 0);  // may delete this
}

int BlockingAgreement::wait() {
  run();
  context().wait_until([this] { return over_; });
  return rc_;
}

void context_id_free(uint16_t ctx) {
  const unsigned pair = ctx / 2;
  if (pair < 2) return;  // MPI_COMM_WORLD's and MPI_COMM_SELF's are never given back
  if (!coll::shm_slot_reclaim(pair)) {
    ids().unread |= 1u << pair;
    return;
  }
  ids().mask[pair / 32] |= 1u << (pair % 32);
}

void context_ids_reset() {
  ids().reset();
}

}  // namespace pamir::mpi
