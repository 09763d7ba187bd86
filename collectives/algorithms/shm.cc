// The shared-memory algorithms (seed 002's stand-in for Blue Gene's collective network): barrier,
// bcast, reduce and allreduce through the node segment's collective areas, one per rank, with no
// point-to-point message at all. They need every rank on one node (kOneNode) and a blocking call in a
// process without MPI_THREAD_MULTIPLE (kExclusive): a rank's one area is then used by one collective at
// a time, so collectives on different communicators cannot wait on each other's areas.
//
// An area holds a tag, the number of readers, data and a done counter. The owner publishes by writing
// the readers and the data and then storing the tag (release), which names the communicator's
// collective context, the call's sequence number and the chunk. A reader waits for the tag (acquire),
// uses the data in place and adds one to the done counter; the reader that completes the count clears
// the tag, with a compare-and-swap that leaves a newer tag alone. So nobody waits for its readers at
// the end of a call: an owner waits only before it publishes again, until the previous readers are done
// (usually long since), and an area whose readers are done holds no tag a later call could mistake for
// its own. The tag shares its cache line with the first 48 bytes of data, so a reader that sees the tag
// of a small message has its data too. Every write another rank may wait on is followed by
// Context::coll_notify, which wakes it if it sleeps. Messages larger than an area go in chunks.
//
// allreduce: every rank publishes its chunk; each reduces all of them itself, from the highest rank
// down, so the operation sees them in rank order (non-commutative operations are fine). One round of
// cache-line transfers instead of log p message latencies; p * n * gamma per rank.
// reduce: the same with only the root reading. bcast: the root publishes, the others copy out.
// barrier: every rank publishes an empty chunk and waits for all the others'.
#include <atomic>
#include <cstring>

#include "collectives/algorithms/algorithms.h"
#include "pami/context.h"
#include "pami/request.h"

namespace pamir::coll {

namespace {

struct Area {
  uint64_t tag;          // what the data is (0: idle)
  uint64_t readers;      // how many ranks read this publication
  unsigned char data[];  // up to the done line
};
constexpr size_t kHead = 2 * sizeof(uint64_t);
constexpr size_t kDoneLine = 64;  // the area's last line: the done counter, which readers write

inline Area *area_of(const Sched &s, int r) {
  return static_cast<Area *>(context().coll_area(s.team.tasks[r]));
}
inline size_t data_bytes() {
  return context().coll_area_bytes() - kHead - kDoneLine;
}
inline uint64_t *done_of(Area *a) {
  return reinterpret_cast<uint64_t *>(reinterpret_cast<char *>(a) + context().coll_area_bytes() - kDoneLine);
}
inline uint64_t make_tag(const Sched &s, uint64_t chunk) {
  return uint64_t(s.team.ctx) << 40 | uint64_t(uint32_t(s.tag) & 0xFFFFFFu) << 16 | (chunk & 0xFFFF);
}

struct WordIs {
  const uint64_t *word;
  uint64_t value;
};
bool word_is(const void *arg) {
  const auto *w = static_cast<const WordIs *>(arg);
  return std::atomic_ref<const uint64_t>(*w->word).load(std::memory_order_acquire) == w->value;
}

// Readers of this process's area's last publication; the owner's own memory (one area per process).
uint64_t g_last_readers = 0;

// `co_await` it before writing into `mine`: until the previous publication's readers are done.
inline WordIs previous_readers_done(Area *mine) {
  return WordIs{done_of(mine), g_last_readers};
}

// The data of `mine` is written (after previous_readers_done): publishes it under `tag` to `readers`
// ranks, those in [first, last] but this one.
void publish(Sched &s, Area *mine, uint64_t tag, uint64_t readers, int first, int last) {
  std::atomic_ref<uint64_t>(*done_of(mine)).store(0, std::memory_order_relaxed);
  mine->readers = readers;
  g_last_readers = readers;
  std::atomic_ref<uint64_t>(mine->tag).store(tag, std::memory_order_release);
  for (int r = first; r <= last; ++r)
    if (r != s.team.rank) context().coll_notify(s.team.tasks[r]);
}

// Done with rank r's publication `tag`; the last reader clears the tag unless a newer one is there.
void release(Sched &s, Area *theirs, int r, uint64_t tag) {
  const uint64_t readers = theirs->readers;  // read before the count lets the owner publish again
  if (std::atomic_ref<uint64_t>(*done_of(theirs)).fetch_add(1, std::memory_order_acq_rel) + 1 == readers) {
    uint64_t expected = tag;
    std::atomic_ref<uint64_t>(theirs->tag).compare_exchange_strong(expected, 0, std::memory_order_relaxed);
  }
  context().coll_notify(s.team.tasks[r]);
}

}  // namespace

Task barrier_shm(Sched &s, Args) {
  const int p = s.team.size, me = s.team.rank;
  if (p == 1) co_return 0;
  const uint64_t tag = make_tag(s, 0);
  Area *mine = area_of(s, me);
  WordIs w = previous_readers_done(mine);  // what a step waits for (lives in the frame)
  co_await s.until(word_is, &w);
  publish(s, mine, tag, uint64_t(p - 1), 0, p - 1);
  for (int r = 0; r < p; ++r)
    if (r != me) {
      w = WordIs{&area_of(s, r)->tag, tag};
      co_await s.until(word_is, &w);
    }
  for (int r = 0; r < p; ++r)
    if (r != me) release(s, area_of(s, r), r, tag);
  co_return 0;
}

Task bcast_shm(Sched &s, Args a) {
  const int p = s.team.size, me = s.team.rank, root = a.root;
  if (p == 1 || a.bytes == 0) co_return 0;
  const size_t cap = data_bytes();
  auto *buf = static_cast<unsigned char *>(a.recvbuf);
  Area *top = area_of(s, root);
  WordIs w{};
  for (size_t off = 0, chunk = 0; off < a.bytes; off += cap, ++chunk) {
    const size_t n = a.bytes - off < cap ? a.bytes - off : cap;
    const uint64_t tag = make_tag(s, chunk);
    if (me == root) {
      w = previous_readers_done(top);
      co_await s.until(word_is, &w);
      std::memcpy(top->data, buf + off, n);
      publish(s, top, tag, uint64_t(p - 1), 0, p - 1);
    } else {
      w = WordIs{&top->tag, tag};
      co_await s.until(word_is, &w);
      std::memcpy(buf + off, top->data, n);
      release(s, top, root, tag);
    }
  }
  co_return 0;
}

// Reduce (all false: to the root) and allreduce (all true).
Task reduce_shm_impl(Sched &s, Args a, bool all) {
  const int p = s.team.size, me = s.team.rank, root = all ? me : a.root;
  const Reduction &op = a.op;
  const size_t ext = op.extent, bytes = a.count * ext;
  const bool gets_result = all || me == root;
  const auto *in = static_cast<const unsigned char *>(a.in_place ? a.recvbuf : a.sendbuf);
  auto *out = static_cast<unsigned char *>(a.recvbuf);
  if (p == 1 || a.count == 0) {
    if (gets_result && !a.in_place && bytes) std::memcpy(out, in, bytes);
    co_return 0;
  }
  const size_t cap = data_bytes() / ext * ext;
  Area *mine = area_of(s, me);
  WordIs w{};
  for (size_t off = 0, chunk = 0; off < bytes; off += cap, ++chunk) {
    const size_t n = bytes - off < cap ? bytes - off : cap;
    const uint64_t tag = make_tag(s, chunk);
    w = previous_readers_done(mine);
    co_await s.until(word_is, &w);
    std::memcpy(mine->data, in + off, n);
    if (all)
      publish(s, mine, tag, uint64_t(p - 1), 0, p - 1);
    else if (me != root)
      publish(s, mine, tag, 1, root, root);
    if (!gets_result) continue;
    for (int r = 0; r < p; ++r)
      if (r != me) {
        w = WordIs{&area_of(s, r)->tag, tag};
        co_await s.until(word_is, &w);
      }
    // out = x0 op (x1 op (... op x(p-1))): from the highest rank down, lower ranks on the left.
    std::memcpy(out + off, area_of(s, p - 1)->data, n);
    for (int r = p - 2; r >= 0; --r) op.apply(area_of(s, r)->data, out + off, n / ext, op.arg);
    for (int r = 0; r < p; ++r)
      if (r != me) release(s, area_of(s, r), r, tag);
  }
  co_return 0;
}

// Plain functions handing out the one coroutine: no second frame on the latency-critical path.
Task reduce_shm(Sched &s, Args a) {
  return reduce_shm_impl(s, a, false);
}
Task allreduce_shm(Sched &s, Args a) {
  return reduce_shm_impl(s, a, true);
}

}  // namespace pamir::coll
