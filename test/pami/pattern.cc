// Record and replay (seed 004) between two real processes: persistent requests started through the
// MPI binding, checked against what the descriptor FIFO (pami/pattern.h) and the counters hold.
//
//   pattern          the default FIFO: every pattern is recorded
//   pattern          (also with PAMIR_MAILBOX=0: every message through the rings)
//   pattern full     a FIFO of PAMIR_PATTERN_FIFO descriptors that cannot hold them all: the patterns
//                    that find no room take the ordinary path, with the same results
// Prints "ok: ..." and exits 0, or names each failure and exits 1.
#include "pami/pattern.h"

#include <mpi.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "pami/config.h"
#include "pami/context.h"
#include "pami/match.h"
#include "pami/stats.h"
#include "test/pami/expect.h"

using namespace pamir;
using pamir::test::checks;
using pamir::test::failures;
using pamir::test::me;

namespace {

int peer = 1;

uint8_t byte_of(int iter, int msg, size_t i) {
  return uint8_t(iter * 31 + msg * 7 + i * 13 + (i >> 8));
}

// A halo-like pattern: to the peer, a message of each size class (immediate, eager, rendezvous by the
// default table), each with its own tag; from the peer, the same.
const size_t kSizes[] = {8, 1000, 300000};
constexpr int kMsgs = 3;

struct Halo {
  std::vector<uint8_t> out[kMsgs], in[kMsgs];
  MPI_Request req[2 * kMsgs];  // receives first, then sends
  explicit Halo(int tag0) {
    for (int m = 0; m < kMsgs; ++m) {
      out[m].resize(kSizes[m]);
      in[m].resize(kSizes[m]);
      MPI_Recv_init(in[m].data(), int(kSizes[m]), MPI_BYTE, peer, tag0 + m, MPI_COMM_WORLD, &req[m]);
      MPI_Send_init(out[m].data(), int(kSizes[m]), MPI_BYTE, peer, tag0 + m, MPI_COMM_WORLD, &req[kMsgs + m]);
    }
  }
  void fill(int iter) {
    for (int m = 0; m < kMsgs; ++m)
      for (size_t i = 0; i < kSizes[m]; ++i) out[m][i] = byte_of(iter + me, m, i);
  }
  int check(int iter) {
    int bad = 0;
    for (int m = 0; m < kMsgs; ++m)
      for (size_t i = 0; i < kSizes[m]; ++i) bad += in[m][i] != byte_of(iter + peer, m, i);
    return bad;
  }
  void free() {
    for (MPI_Request &r : req) MPI_Request_free(&r);
  }
};

// Section 3: N messages give exactly N descriptors whose fields are the requests'; the first start
// delivers; later starts build nothing and allocate no request; changed contents go out on replay.
void descriptors_match_requests() {
  Halo h(100);
  PatternFifo &f = patterns();
  const Stats before = stats();
  const size_t requests = requests_in_use();
  h.fill(0);
  MPI_Startall(2 * kMsgs, h.req);
  MPI_Waitall(2 * kMsgs, h.req, MPI_STATUSES_IGNORE);
  EXPECT(h.check(0) == 0, "first start: %d bytes wrong", h.check(0));
  EXPECT(stats().pattern_records == before.pattern_records + 1, "records %llu -> %llu",
         (unsigned long long)before.pattern_records, (unsigned long long)stats().pattern_records);
  EXPECT(stats().pattern_descriptors == before.pattern_descriptors + 2 * kMsgs, "descriptors +%llu",
         (unsigned long long)(stats().pattern_descriptors - before.pattern_descriptors));
  const uint32_t s = f.find(uintptr_t(h.req));
  EXPECT(s != PatternFifo::kNone, "no section for the request array");
  if (s == PatternFifo::kNone) return;
  EXPECT(f.size(s) == 2 * kMsgs, "section of %u descriptors", f.size(s));
  const Descriptor *d = f.descriptors(s);
  const uint32_t peer_task = uint32_t(peer);  // one job, world ranks are tasks
  for (int m = 0; m < kMsgs; ++m) {
    const Descriptor &r = d[m], &x = d[kMsgs + m];
    EXPECT(r.intent == Intent::receive && r.task == peer_task && r.addr == h.in[m].data() &&
               r.length == kSizes[m] && bits_tag(r.bits) == 100 + m && bits_src(r.bits) == peer,
           "receive %d: intent %d task %u length %llu tag %d", m, int(r.intent), r.task,
           (unsigned long long)r.length, bits_tag(r.bits));
    const SendProtocol want = context().send_table(peer_task).select(kSizes[m]);
    const Intent intent = want == SendProtocol::rdma ? Intent::remote_get : Intent::eager_send;
    EXPECT(x.intent == intent && x.protocol == want && x.task == peer_task && x.addr == h.out[m].data() &&
               x.length == kSizes[m] && bits_tag(x.bits) == 100 + m && bits_src(x.bits) == me,
           "send %d: intent %d protocol %d task %u length %llu tag %d src %d", m, int(x.intent),
           int(x.protocol), x.task, (unsigned long long)x.length, bits_tag(x.bits), bits_src(x.bits));
    EXPECT(((x.flags & kDescImmediate) != 0) == (want == SendProtocol::immediate), "send %d flags %u", m,
           x.flags);
  }
  for (int j = 0; j < 2 * kMsgs; ++j) {
    EXPECT(d[j].counter == f.first(s) + uint32_t(j) && d[j].section == s && d[j].req, "descriptor %d", j);
    // MPI_Startall's counters rearm: at rest after completion, armed for the next start.
    const PatternCounter &k = f.counter(d[j].counter);
    EXPECT(k.armed == 1 && k.rearms && k.value == 1 && k.running == &f.counter(f.first(s)).pending,
           "counter %d armed %u value %u rearms %d after completion", j, k.armed, k.value, int(k.rearms));
  }
  EXPECT(f.counter(f.first(s)).pending == 0, "%u counters still running after MPI_Waitall",
         f.counter(f.first(s)).pending);
  std::vector<Descriptor> recorded(d, d + 2 * kMsgs);
  const size_t requests_recorded = requests_in_use();
  const Stats mid = stats();
  for (int iter = 1; iter <= 50; ++iter) {
    h.fill(iter);
    MPI_Startall(2 * kMsgs, h.req);
    MPI_Waitall(2 * kMsgs, h.req, MPI_STATUSES_IGNORE);
    const int bad = h.check(iter);
    EXPECT(bad == 0, "replay %d: %d bytes wrong", iter, bad);
  }
  EXPECT(stats().pattern_records == mid.pattern_records &&
             stats().pattern_descriptors == mid.pattern_descriptors,
         "replays recorded %llu sections, built %llu descriptors",
         (unsigned long long)(stats().pattern_records - mid.pattern_records),
         (unsigned long long)(stats().pattern_descriptors - mid.pattern_descriptors));
  EXPECT(stats().pattern_replays == mid.pattern_replays + 50, "replays %llu",
         (unsigned long long)(stats().pattern_replays - mid.pattern_replays));
  // The recorded operations belong to the requests: a replay takes none from the pool.
  EXPECT(requests_in_use() == requests_recorded, "requests in use %zu, %zu after recording",
         requests_in_use(), requests_recorded);
  EXPECT(requests_recorded == requests + 2 * kMsgs, "recording took %zu requests",
         requests_recorded - requests);
  EXPECT(
      f.find(uintptr_t(h.req)) == s && std::memcmp(recorded.data(), d, sizeof(Descriptor) * 2 * kMsgs) == 0,
      "the section changed during replays");
  h.free();
  EXPECT(f.find(uintptr_t(h.req)) == PatternFifo::kNone, "a freed request's section is still live");
  EXPECT(requests_in_use() == requests - 2 * kMsgs, "freeing left %zu requests (%zu before)",
         requests_in_use(), requests);
}

// Ordinary sends with the same envelope between replays: each receive gets the message MPI's order
// says it gets, and the section stays as recorded.
void ordinary_between_replays() {
  int value = 0, got[3] = {};
  MPI_Request send, recv;
  MPI_Send_init(&value, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &send);
  MPI_Recv_init(&got[0], 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &recv);
  uint32_t s = PatternFifo::kNone;
  std::vector<Descriptor> recorded;
  for (int iter = 0; iter < 20; ++iter) {
    if (me == 0) {
      // persistent, ordinary, persistent: the receiver must see them in this order.
      int a = 3 * iter, b = 3 * iter + 1;
      value = a;
      MPI_Start(&send);
      MPI_Wait(&send, MPI_STATUS_IGNORE);
      MPI_Request r;
      MPI_Isend(&b, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &r);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
      value = 3 * iter + 2;
      MPI_Start(&send);
      MPI_Wait(&send, MPI_STATUS_IGNORE);
    } else {
      // Ordinary, persistent, ordinary receives of the same envelope.
      MPI_Request r[2];
      MPI_Irecv(&got[1], 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &r[0]);
      MPI_Start(&recv);
      MPI_Irecv(&got[2], 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &r[1]);
      MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
      MPI_Wait(&recv, MPI_STATUS_IGNORE);
      EXPECT(got[1] == 3 * iter && got[0] == 3 * iter + 1 && got[2] == 3 * iter + 2,
             "iteration %d: got %d %d %d, want %d %d %d", iter, got[1], got[0], got[2], 3 * iter,
             3 * iter + 1, 3 * iter + 2);
    }
    MPI_Request mine = me == 0 ? send : recv;
    if (iter == 0) {
      s = patterns().find(uintptr_t(mine));
      EXPECT(s != PatternFifo::kNone, "no section for MPI_Start's request");
      if (s == PatternFifo::kNone) break;
      recorded.assign(patterns().descriptors(s), patterns().descriptors(s) + patterns().size(s));
    } else {
      EXPECT(patterns().find(uintptr_t(mine)) == s && patterns().size(s) == recorded.size() &&
                 std::memcmp(recorded.data(), patterns().descriptors(s),
                             sizeof(Descriptor) * recorded.size()) == 0,
             "iteration %d: the section changed", iter);
    }
  }
  MPI_Request_free(&send);
  MPI_Request_free(&recv);
}

// A thousand patterns in one FIFO, each started in turn, each delivering only its own messages.
void thousand_patterns(bool full) {
  constexpr int kPatterns = 1000;
  std::vector<int> out(kPatterns), in(kPatterns, -1);
  std::vector<MPI_Request> req(2 * kPatterns);  // pattern i: req[2i] its receive, req[2i+1] its send
  for (int i = 0; i < kPatterns; ++i) {
    MPI_Recv_init(&in[i], 1, MPI_INT, peer, 1000 + i, MPI_COMM_WORLD, &req[2 * i]);
    MPI_Send_init(&out[i], 1, MPI_INT, peer, 1000 + i, MPI_COMM_WORLD, &req[2 * i + 1]);
  }
  const Stats before = stats();
  for (int round = 0; round < 3; ++round) {
    // Patterns in a different order every round, so each section replays among foreign ones.
    for (int k = 0; k < kPatterns; ++k) {
      const int i = round == 1 ? kPatterns - 1 - k : k;
      out[i] = me * 1000000 + round * 10000 + i;
      MPI_Startall(2, &req[2 * i]);
      MPI_Waitall(2, &req[2 * i], MPI_STATUSES_IGNORE);
      if (in[i] != peer * 1000000 + round * 10000 + i) {
        EXPECT(false, "round %d pattern %d got %d", round, i, in[i]);
        break;
      }
    }
  }
  const uint64_t recorded = stats().pattern_records - before.pattern_records;
  const uint64_t fallbacks = stats().pattern_fallbacks - before.pattern_fallbacks;
  if (!full) {
    EXPECT(recorded == kPatterns && fallbacks == 0, "%llu sections recorded, %llu fallbacks",
           (unsigned long long)recorded, (unsigned long long)fallbacks);
    EXPECT(patterns().live_sections() >= kPatterns, "%u live sections", patterns().live_sections());
    int own = 0;
    for (int i = 0; i < kPatterns; ++i) {
      const uint32_t s = patterns().find(uintptr_t(&req[2 * i]));
      own += s != PatternFifo::kNone && patterns().size(s) == 2 &&
             patterns().descriptors(s)[0].addr == &in[i] && patterns().descriptors(s)[1].addr == &out[i];
    }
    EXPECT(own == kPatterns, "%d of %d sections hold their own pattern's messages", own, kPatterns);
  } else {
    // The FIFO holds capacity / 2 patterns; the others start on the ordinary path, every time, and the
    // results above are the same.
    const uint64_t fit = patterns().capacity() / 2;
    EXPECT(recorded == fit && fallbacks == 3 * (kPatterns - fit),
           "%llu recorded, %llu fallbacks (capacity %u)", (unsigned long long)recorded,
           (unsigned long long)fallbacks, patterns().capacity());
  }
  for (MPI_Request &r : req) MPI_Request_free(&r);
  EXPECT(patterns().live_sections() == 0, "%u sections live after every request was freed",
         patterns().live_sections());
}

// A pattern that changes records anew: the same array with one request replaced, the same requests in
// another array; a section is never patched and a freed request's section never replays.
void changed_patterns() {
  int a = 0, b = 0, c = 0, ra = 0, rb = 0;
  MPI_Request arr[2], other[2];
  MPI_Recv_init(&ra, 1, MPI_INT, peer, 50, MPI_COMM_WORLD, &arr[0]);
  MPI_Send_init(&a, 1, MPI_INT, peer, 50, MPI_COMM_WORLD, &arr[1]);
  a = 1;
  MPI_Startall(2, arr);
  MPI_Waitall(2, arr, MPI_STATUSES_IGNORE);
  EXPECT(ra == 1, "first pattern got %d", ra);
  const uint32_t s1 = patterns().find(uintptr_t(arr));
  const uint64_t g1 = s1 == PatternFifo::kNone ? 0 : patterns().generation(s1);
  // The same requests in another array: a second section; the first stays.
  other[0] = arr[0];
  other[1] = arr[1];
  a = 2;
  const uint64_t records = stats().pattern_records;
  MPI_Startall(2, other);
  MPI_Waitall(2, other, MPI_STATUSES_IGNORE);
  EXPECT(ra == 2 && stats().pattern_records == records + 1 && patterns().live(s1, g1),
         "another array: got %d, %llu new sections", ra,
         (unsigned long long)(stats().pattern_records - records));
  // Freeing the send releases both sections that name it. The first array then holds the old receive
  // (tag 50) and a new send (tag 51): it must record anew, not replay the old section.
  MPI_Request_free(&arr[1]);
  EXPECT(!patterns().live(s1, g1), "the section of a freed request is still live");
  EXPECT(patterns().find(uintptr_t(other)) == PatternFifo::kNone,
         "the other array's section outlived its request");
  MPI_Send_init(&b, 1, MPI_INT, peer, 51, MPI_COMM_WORLD, &arr[1]);
  MPI_Recv_init(&rb, 1, MPI_INT, peer, 51, MPI_COMM_WORLD, &other[0]);
  MPI_Send_init(&c, 1, MPI_INT, peer, 50, MPI_COMM_WORLD, &other[1]);
  b = 5;
  c = 4;
  const uint64_t records2 = stats().pattern_records;
  MPI_Startall(2, arr);    // receive tag 50, send tag 51
  MPI_Startall(2, other);  // receive tag 51, send tag 50
  MPI_Waitall(2, arr, MPI_STATUSES_IGNORE);
  MPI_Waitall(2, other, MPI_STATUSES_IGNORE);
  EXPECT(ra == 4 && rb == 5, "changed arrays: got %d %d, want 4 5", ra, rb);
  EXPECT(stats().pattern_records == records2 + 2, "%llu sections recorded for two changed arrays",
         (unsigned long long)(stats().pattern_records - records2));
  const uint32_t s2 = patterns().find(uintptr_t(arr));
  EXPECT(s2 != PatternFifo::kNone && patterns().descriptors(s2)[1].addr == &b &&
             bits_tag(patterns().descriptors(s2)[1].bits) == 51,
         "the first array's new section");
  MPI_Request_free(&arr[0]);
  MPI_Request_free(&arr[1]);
  MPI_Request_free(&other[0]);
  MPI_Request_free(&other[1]);
}

// A persistent allreduce: its first start records one section per phase, later starts replay them with
// the inputs of the moment. Every third start runs while a nonblocking allreduce holds the coroutine
// frame the recording used: the messages then differ from the recording (the algorithm's scratch is in
// its frame), and that start must go the ordinary way and still be right.
void persistent_allreduce() {
  constexpr int kCount = 8;
  double in[kCount] = {}, out[kCount] = {}, other_in = 1, other_out = 0;
  MPI_Request req;
  MPI_Allreduce_init(in, out, kCount, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
  for (int i = 0; i < kCount; ++i) in[i] = me + i;
  MPI_Start(&req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  const Stats first = stats();
  EXPECT(first.pattern_records >= 1, "the first start recorded no section");
  int bad = 0;
  for (int iter = 1; iter <= 100; ++iter) {
    for (int i = 0; i < kCount; ++i) in[i] = iter * 100 + me * 10 + i;
    MPI_Start(&req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int i = 0; i < kCount; ++i) bad += out[i] != 2.0 * (iter * 100 + i) + 10;  // ranks 0 and 1
  }
  EXPECT(bad == 0, "%d wrong results over 100 replays", bad);
  EXPECT(stats().pattern_records == first.pattern_records &&
             stats().pattern_descriptors == first.pattern_descriptors,
         "replays recorded %llu sections",
         (unsigned long long)(stats().pattern_records - first.pattern_records));
  EXPECT(stats().pattern_replays >= first.pattern_replays + 100, "%llu phase replays in 100 starts",
         (unsigned long long)(stats().pattern_replays - first.pattern_replays));
  bad = 0;
  for (int iter = 1; iter <= 60; ++iter) {
    for (int i = 0; i < kCount; ++i) in[i] = iter * 7 + me * 3 + i;
    MPI_Request other = MPI_REQUEST_NULL;
    if (iter % 3 == 0) MPI_Iallreduce(&other_in, &other_out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &other);
    MPI_Start(&req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Wait(&other, MPI_STATUS_IGNORE);
    for (int i = 0; i < kCount; ++i) bad += out[i] != 2.0 * (iter * 7 + i) + 3;
    if (iter % 3 == 0) bad += other_out != 2;
  }
  EXPECT(bad == 0, "%d wrong results with nonblocking allreduces in between", bad);
  MPI_Request_free(&req);
}

// The ready-token direct put (seed 004) at a rendezvous size below the shared copy: the receiver starts
// first, so its token is at the sender when the sender starts, and the data goes straight into the
// receive's buffer; an ordinary MPI_Isend with the same envelope between two starts takes the token's
// message number, so the next start must not put (it would overwrite the receive the Isend matched);
// a wildcard receive issues no token; a cancel withdraws a token, unless the put claimed it first.
// A request the section does not hold (a send to MPI_PROC_NULL) freed, and a recordable one made in
// its place, most likely at the same address (the pool reuses it): the array must record anew, or
// the new send would never start.
void replaced_unrecorded_request() {
  int v = 0, r = -1, x = -1;
  MPI_Request arr[2];
  MPI_Send_init(&v, 1, MPI_INT, MPI_PROC_NULL, 70, MPI_COMM_WORLD, &arr[0]);
  MPI_Recv_init(&r, 1, MPI_INT, peer, 70, MPI_COMM_WORLD, &arr[1]);
  const int mine = 10 + me;
  MPI_Startall(2, arr);
  MPI_Send(&mine, 1, MPI_INT, peer, 70, MPI_COMM_WORLD);
  MPI_Waitall(2, arr, MPI_STATUSES_IGNORE);
  EXPECT(r == 10 + peer, "first start got %d", r);
  const MPI_Request old = arr[0];
  MPI_Request_free(&arr[0]);
  MPI_Send_init(&v, 1, MPI_INT, peer, 71, MPI_COMM_WORLD, &arr[0]);
  const bool reused = arr[0] == old;
  v = 20 + me;
  r = -1;
  const uint64_t records = stats().pattern_records;
  MPI_Startall(2, arr);
  MPI_Send(&mine, 1, MPI_INT, peer, 70, MPI_COMM_WORLD);
  MPI_Recv(&x, 1, MPI_INT, peer, 71, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Waitall(2, arr, MPI_STATUSES_IGNORE);
  EXPECT(r == 10 + peer && x == 20 + peer, "after the replacement (handle %s): got %d and %d",
         reused ? "reused" : "new", r, x);
  EXPECT(stats().pattern_records == records + 1, "%llu sections recorded for the changed array",
         (unsigned long long)(stats().pattern_records - records));
  MPI_Request_free(&arr[0]);
  MPI_Request_free(&arr[1]);
}

// Rank 1 tells rank 0 it has started its receive, by a message in the same ring as (and after) the
// token that start sent: rank 0 has the token once it has this message.
void receiver_ready() {
  if (me == 1)
    MPI_Send(nullptr, 0, MPI_BYTE, 0, 99, MPI_COMM_WORLD);
  else
    MPI_Recv(nullptr, 0, MPI_BYTE, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

// One start of a persistent pair with the receive first: rank 1 starts it (its token goes out), rank 0
// fills its buffer and starts the send once the token is there, and rank 1 checks what arrived.
template <typename Fill, typename Check>
void receive_first(MPI_Request &send, MPI_Request &recv, Fill &&fill, Check &&check) {
  if (me == 1) MPI_Start(&recv);
  receiver_ready();
  if (me == 0) {
    fill();
    MPI_Start(&send);
    MPI_Wait(&send, MPI_STATUS_IGNORE);
  } else {
    MPI_Status st;
    MPI_Wait(&recv, &st);
    check(st);
  }
}

// One start of a persistent pair whose receive is cancelled before the send starts: its token is
// withdrawn, so the cancel succeeds, the sender's count `through_token` (messages that took a token)
// does not move, and the message goes through the rings to the ordinary receive `take` posts.
template <typename Fill, typename Take>
void cancel_first(MPI_Request &send, MPI_Request &recv, const uint64_t &through_token, Fill &&fill,
                  Take &&take) {
  if (me == 1) {
    MPI_Start(&recv);
    MPI_Cancel(&recv);
  }
  receiver_ready();
  if (me == 0) {
    const uint64_t before = through_token;
    fill();
    MPI_Start(&send);
    MPI_Wait(&send, MPI_STATUS_IGNORE);
    EXPECT(through_token == before, "a send took the token of a cancelled receive");
  } else {
    MPI_Status st;
    MPI_Wait(&recv, &st);
    int cancelled = 0;
    MPI_Test_cancelled(&st, &cancelled);
    EXPECT(cancelled, "a receive whose message was not sent yet was not cancelled");
    take();
  }
}

void direct_put() {
  constexpr size_t kBytes = 128 << 10;
  if (context().send_table(uint32_t(peer)).select(kBytes) != SendProtocol::rdma)
    return;  // an eager-only table
  std::vector<uint8_t> out(kBytes), in(kBytes), extra(kBytes), got(kBytes);
  MPI_Request send, recv;
  MPI_Send_init(out.data(), int(kBytes), MPI_BYTE, peer, 60, MPI_COMM_WORLD, &send);
  MPI_Recv_init(in.data(), int(kBytes), MPI_BYTE, peer, 60, MPI_COMM_WORLD, &recv);
  auto fill = [](std::vector<uint8_t> &v, int seed) {
    for (size_t i = 0; i < v.size(); ++i) v[i] = byte_of(seed, 5, i);
  };
  auto bad = [](const std::vector<uint8_t> &v, int seed) {
    size_t n = 0;
    for (size_t i = 0; i < v.size(); ++i) n += v[i] != byte_of(seed, 5, i);
    return n;
  };
  const Stats before = stats();
  // Rank 1 receives, rank 0 sends: 20 starts with the receive started first.
  for (int iter = 0; iter < 20; ++iter)
    receive_first(
        send, recv, [&] { fill(out, iter); },
        [&](const MPI_Status &st) {
          int count = 0;
          MPI_Get_count(&st, MPI_BYTE, &count);
          EXPECT(bad(in, iter) == 0 && count == int(kBytes) && st.MPI_SOURCE == 0 && st.MPI_TAG == 60,
                 "start %d: %zu bytes wrong, count %d, source %d, tag %d", iter, bad(in, iter), count,
                 st.MPI_SOURCE, st.MPI_TAG);
        });
  // PAMIR_DIRECT_PUT=1 puts every time; off (the default), nothing is put and no token is sent.
  const uint64_t want = config::direct_put.flag ? 20 : 0;
  if (me == 0)
    EXPECT(stats().direct_puts - before.direct_puts == want, "%llu direct puts in 20 starts, want %llu",
           (unsigned long long)(stats().direct_puts - before.direct_puts), (unsigned long long)want);
  else
    EXPECT(stats().direct_tokens - before.direct_tokens == want, "%llu tokens in 20 starts, want %llu",
           (unsigned long long)(stats().direct_tokens - before.direct_tokens), (unsigned long long)want);
  // An ordinary send of the same envelope between two starts: the receive whose token is out takes it,
  // and the persistent send after it goes the ordinary way to the next receive.
  for (int iter = 0; iter < 5; ++iter) {
    const uint64_t puts = stats().direct_puts;
    if (me == 1) MPI_Start(&recv);
    receiver_ready();
    if (me == 0) {
      fill(extra, 100 + iter);
      MPI_Send(extra.data(), int(kBytes), MPI_BYTE, 1, 60, MPI_COMM_WORLD);
      fill(out, 200 + iter);
      MPI_Start(&send);
      MPI_Wait(&send, MPI_STATUS_IGNORE);
      EXPECT(stats().direct_puts == puts, "a persistent send after an ordinary one put directly");
    } else {
      MPI_Wait(&recv, MPI_STATUS_IGNORE);
      MPI_Recv(got.data(), int(kBytes), MPI_BYTE, 0, 60, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      EXPECT(bad(in, 100 + iter) == 0, "round %d: the receive holds %zu bytes not from the ordinary send",
             iter, bad(in, 100 + iter));
      EXPECT(bad(got, 200 + iter) == 0,
             "round %d: the next receive holds %zu bytes not from the persistent send", iter,
             bad(got, 200 + iter));
    }
  }
  // A receive whose token is out is cancelled before its message comes: the persistent send takes the
  // rings and an ordinary receive gets it.
  {
    const uint64_t tokens = stats().direct_tokens;
    cancel_first(
        send, recv, stats().direct_puts, [&] { fill(out, 300); },
        [&] {
          MPI_Recv(got.data(), int(kBytes), MPI_BYTE, 0, 60, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          EXPECT(bad(got, 300) == 0, "after the cancel: %zu bytes wrong", bad(got, 300));
        });
    if (me == 1)
      EXPECT(stats().direct_tokens - tokens == want / 20, "%llu tokens for the cancelled receive",
             (unsigned long long)(stats().direct_tokens - tokens));
  }
  // A cancel after the send claimed the token fails, and the receive completes with the message. Rank 1
  // sees the claim by the data arriving in its buffer without a call into the library (any progress
  // would take the message first), then cancels.
  if (config::direct_put.flag) {
    if (me == 1) {
      fill(in, 0);
      MPI_Start(&recv);
    }
    receiver_ready();
    if (me == 0) {
      fill(out, 310);
      MPI_Start(&send);
      MPI_Wait(&send, MPI_STATUS_IGNORE);
    } else {
      // Bounded: without a put the message waits in the ring, and the Wait below takes it.
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
      bool filled = false;
      while (!(filled = bad(in, 310) == 0) && std::chrono::steady_clock::now() < give_up) {
        asm volatile("" ::: "memory");  // another process writes the buffer
        sched_yield();
      }
      EXPECT(filled, "no put came into the receive's buffer in 30 s");
      if (filled) MPI_Cancel(&recv);
      MPI_Status st;
      MPI_Wait(&recv, &st);
      int cancelled = 1, count = 0;
      MPI_Test_cancelled(&st, &cancelled);
      MPI_Get_count(&st, MPI_BYTE, &count);
      EXPECT(!cancelled && count == int(kBytes) && st.MPI_TAG == 60,
             "a cancel after the claim: cancelled %d, count %d, tag %d", cancelled, count, st.MPI_TAG);
    }
  }
  // A put into a buffer the receiver made read-only while its receive was pending (which MPI forbids):
  // the receive completes with MPI_ERR_OTHER, nothing crashes, and the pair goes on.
  if (config::direct_put.flag) {
    void *gone = nullptr;
    MPI_Request lost = MPI_REQUEST_NULL;
    if (me == 1) {
      gone = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      MPI_Recv_init(gone, int(kBytes), MPI_BYTE, 0, 62, MPI_COMM_WORLD, &lost);
      MPI_Start(&lost);
      mprotect(gone, kBytes, PROT_READ);
    }
    receiver_ready();
    if (me == 0) {
      MPI_Request s62;
      MPI_Send_init(out.data(), int(kBytes), MPI_BYTE, 1, 62, MPI_COMM_WORLD, &s62);
      MPI_Start(&s62);
      MPI_Wait(&s62, MPI_STATUS_IGNORE);
      MPI_Request_free(&s62);
    } else {
      MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
      const int rc = MPI_Wait(&lost, MPI_STATUS_IGNORE);
      MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
      int cls = MPI_SUCCESS, len = 0;
      char text[MPI_MAX_ERROR_STRING] = "";
      MPI_Error_class(rc, &cls);
      MPI_Error_string(rc, text, &len);
      EXPECT(cls == MPI_ERR_OTHER && std::strstr(text, "direct put"), "a put into a read-only buffer: %d, %s",
             cls, text);
      MPI_Request_free(&lost);
      munmap(gone, kBytes);
    }
  }
  // A wildcard receive issues no token.
  MPI_Request any;
  MPI_Recv_init(in.data(), int(kBytes), MPI_BYTE, MPI_ANY_SOURCE, 61, MPI_COMM_WORLD, &any);
  const uint64_t tokens = stats().direct_tokens;
  for (int iter = 0; iter < 3; ++iter) {
    if (me == 1) MPI_Start(&any);
    receiver_ready();
    if (me == 0) {
      fill(out, 400 + iter);
      MPI_Send(out.data(), int(kBytes), MPI_BYTE, 1, 61, MPI_COMM_WORLD);
    } else {
      MPI_Wait(&any, MPI_STATUS_IGNORE);
      EXPECT(bad(in, 400 + iter) == 0, "wildcard round %d", iter);
    }
  }
  EXPECT(stats().direct_tokens == tokens, "a wildcard receive sent %llu tokens",
         (unsigned long long)(stats().direct_tokens - tokens));
  MPI_Request_free(&any);
  MPI_Request_free(&send);
  MPI_Request_free(&recv);
}

// Put tokens with two promises out, and tokens of each kind met by a send of the other size: a token
// holds only for the message it names, with its match bits and its kind.
void direct_put_envelopes() {
  constexpr size_t kBig = 128 << 10, kSmall = 16;
  if (context().send_table(uint32_t(peer)).select(kBig) != SendProtocol::rdma) return;  // an eager-only table
  std::vector<uint8_t> out0(kBig), out1(kBig), in0(kBig), in1(kBig);
  auto fill = [](std::vector<uint8_t> &v, int seed) {
    for (size_t i = 0; i < v.size(); ++i) v[i] = byte_of(seed, 6, i);
  };
  auto bad = [](const std::vector<uint8_t> &v, int seed, size_t n) {
    size_t k = 0;
    for (size_t i = 0; i < n; ++i) k += v[i] != byte_of(seed, 6, i);
    return k;
  };
  // Receives of tags 80 and 81 started together: tokens for the next two messages, the second with a
  // base one behind. Sends in that order put both; in the other order neither message is the one its
  // token names, and both take the rings to the receive MPI matches.
  MPI_Request recvs[2], sends[2], swapped[2];
  MPI_Recv_init(in0.data(), int(kBig), MPI_BYTE, peer, 80, MPI_COMM_WORLD, &recvs[0]);
  MPI_Recv_init(in1.data(), int(kBig), MPI_BYTE, peer, 81, MPI_COMM_WORLD, &recvs[1]);
  MPI_Send_init(out0.data(), int(kBig), MPI_BYTE, peer, 80, MPI_COMM_WORLD, &sends[0]);
  MPI_Send_init(out1.data(), int(kBig), MPI_BYTE, peer, 81, MPI_COMM_WORLD, &sends[1]);
  MPI_Send_init(out1.data(), int(kBig), MPI_BYTE, peer, 81, MPI_COMM_WORLD, &swapped[0]);
  MPI_Send_init(out0.data(), int(kBig), MPI_BYTE, peer, 80, MPI_COMM_WORLD, &swapped[1]);
  for (int iter = 0; iter < 6; ++iter) {
    const bool in_order = iter % 2 == 0;
    const uint64_t puts = stats().direct_puts;
    if (me == 1) MPI_Startall(2, recvs);
    receiver_ready();
    if (me == 0) {
      fill(out0, 500 + iter);
      fill(out1, 600 + iter);
      MPI_Startall(2, in_order ? sends : swapped);
      MPI_Waitall(2, in_order ? sends : swapped, MPI_STATUSES_IGNORE);
      const uint64_t want = in_order && config::direct_put.flag ? 2 : 0;
      EXPECT(stats().direct_puts - puts == want, "round %d (%s): %llu puts, want %llu", iter,
             in_order ? "in order" : "swapped", (unsigned long long)(stats().direct_puts - puts),
             (unsigned long long)want);
    } else {
      MPI_Waitall(2, recvs, MPI_STATUSES_IGNORE);
      EXPECT(bad(in0, 500 + iter, kBig) == 0 && bad(in1, 600 + iter, kBig) == 0,
             "round %d: tag 80 %zu, tag 81 %zu bytes wrong", iter, bad(in0, 500 + iter, kBig),
             bad(in1, 600 + iter, kBig));
    }
  }
  for (MPI_Request *r : {&recvs[0], &recvs[1], &sends[0], &sends[1], &swapped[0], &swapped[1]})
    MPI_Request_free(r);

  // A small send meets a put token: it takes neither the put nor the cell, and the large receive gets
  // its 16 bytes through the rings.
  MPI_Request big_recv, small_send;
  MPI_Recv_init(in0.data(), int(kBig), MPI_BYTE, peer, 82, MPI_COMM_WORLD, &big_recv);
  MPI_Send_init(out0.data(), int(kSmall), MPI_BYTE, peer, 82, MPI_COMM_WORLD, &small_send);
  for (int iter = 0; iter < 3; ++iter) {
    const uint64_t boxed = stats().box_sent, puts = stats().direct_puts;
    receive_first(
        small_send, big_recv, [&] { fill(out0, 700 + iter); },
        [&](const MPI_Status &st) {
          int count = 0;
          MPI_Get_count(&st, MPI_BYTE, &count);
          EXPECT(count == int(kSmall) && bad(in0, 700 + iter, kSmall) == 0,
                 "round %d: count %d, %zu bytes wrong", iter, count, bad(in0, 700 + iter, kSmall));
        });
    if (me == 0)
      EXPECT(stats().box_sent == boxed && stats().direct_puts == puts,
             "a 16-byte send went into a put token's cell or buffer");
  }
  MPI_Request_free(&big_recv);
  MPI_Request_free(&small_send);

  // A large send meets a mailbox token of a 16-byte receive: it takes the rings, and the receive is
  // truncated as MPI says (its first 16 bytes delivered).
  MPI_Request small_recv, big_send;
  MPI_Recv_init(in0.data(), int(kSmall), MPI_BYTE, peer, 83, MPI_COMM_WORLD, &small_recv);
  MPI_Send_init(out0.data(), int(kBig), MPI_BYTE, peer, 83, MPI_COMM_WORLD, &big_send);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const uint64_t puts = stats().direct_puts;
  if (me == 1) MPI_Start(&small_recv);
  receiver_ready();
  if (me == 0) {
    fill(out0, 800);
    MPI_Start(&big_send);
    MPI_Wait(&big_send, MPI_STATUS_IGNORE);
    EXPECT(stats().direct_puts == puts, "a large send put through a mailbox token");
  } else {
    std::fill(in0.begin(), in0.end(), 0);
    const int rc = MPI_Wait(&small_recv, MPI_STATUS_IGNORE);
    int cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    EXPECT(cls == MPI_ERR_TRUNCATE && bad(in0, 800, kSmall) == 0 && in0[kSmall] == 0,
           "a large send into a small receive: class %d, %zu of its bytes wrong, byte 16 is %d", cls,
           bad(in0, 800, kSmall), in0[kSmall]);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Request_free(&small_recv);
  MPI_Request_free(&big_send);
}

// The mailboxes of small messages (pami/protocols/mailbox.cc). With the receive started first, every
// replayed send goes into the pair's mailbox and its receive completes unmatched. An ordinary send
// between a token and its message ends the run of messages the token was based on, so a later send the
// token names (number and match bits) must take the ring: through the mailbox it would overwrite the
// receive the ordinary send matched. A cancel withdraws a token before its message claims it; a
// wildcard receive writes none; one receive start promises at most box::kSlots messages ahead.
void mailboxes() {
  const bool on = context().mailbox();  // PAMIR_MAILBOX, and a table with immediate sizes
  constexpr int kCount = 4;
  int out[kCount] = {}, in[kCount] = {}, got[kCount] = {}, extra[kCount] = {}, a[kCount] = {}, b[kCount] = {};
  auto fill = [](int *v, int seed) {
    for (int i = 0; i < kCount; ++i) v[i] = seed * 100 + i;
  };
  auto wrong = [](const int *v, int seed) {
    int n = 0;
    for (int i = 0; i < kCount; ++i) n += v[i] != seed * 100 + i;
    return n;
  };
  auto taken = [] { return me == 0 ? stats().box_sent : stats().box_taken; };
  MPI_Request send, recv;
  MPI_Send_init(out, kCount, MPI_INT, peer, 70, MPI_COMM_WORLD, &send);
  MPI_Recv_init(in, kCount, MPI_INT, peer, 70, MPI_COMM_WORLD, &recv);
  uint64_t before = taken();
  for (int iter = 0; iter < 20; ++iter)
    receive_first(
        send, recv, [&] { fill(out, iter); },
        [&](const MPI_Status &st) {
          int count = 0;
          MPI_Get_count(&st, MPI_INT, &count);
          EXPECT(wrong(in, iter) == 0 && count == kCount && st.MPI_SOURCE == 0 && st.MPI_TAG == 70,
                 "mailbox start %d: %d ints wrong, count %d, source %d, tag %d", iter, wrong(in, iter), count,
                 st.MPI_SOURCE, st.MPI_TAG);
        });
  EXPECT(taken() - before == (on ? 20u : 0u), "%llu of 20 starts through the mailbox, want %d",
         (unsigned long long)(taken() - before), on ? 20 : 0);

  // Receives of tags 71 and 72 started together: tokens for rank 0's next two messages. An ordinary
  // send of tag 72 takes the first number through the ring and matches the tag-72 receive; the
  // persistent send of tag 72 after it is the second token's message and bits, and must not use it.
  MPI_Request both[2], send72;
  MPI_Recv_init(a, kCount, MPI_INT, peer, 71, MPI_COMM_WORLD, &both[0]);
  MPI_Recv_init(b, kCount, MPI_INT, peer, 72, MPI_COMM_WORLD, &both[1]);
  MPI_Send_init(out, kCount, MPI_INT, peer, 72, MPI_COMM_WORLD, &send72);
  for (int iter = 0; iter < 5; ++iter) {
    if (me == 1) MPI_Startall(2, both);
    receiver_ready();
    if (me == 0) {
      const uint64_t sent = stats().box_sent;
      fill(extra, 500 + iter);
      MPI_Send(extra, kCount, MPI_INT, 1, 72, MPI_COMM_WORLD);
      fill(out, 600 + iter);
      MPI_Start(&send72);
      MPI_Wait(&send72, MPI_STATUS_IGNORE);
      EXPECT(stats().box_sent == sent, "round %d: a persistent send after an ordinary one took the mailbox",
             iter);
      fill(extra, 700 + iter);
      MPI_Send(extra, kCount, MPI_INT, 1, 71, MPI_COMM_WORLD);
    } else {
      MPI_Waitall(2, both, MPI_STATUSES_IGNORE);
      MPI_Recv(got, kCount, MPI_INT, 0, 72, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      EXPECT(wrong(b, 500 + iter) == 0 && wrong(got, 600 + iter) == 0 && wrong(a, 700 + iter) == 0,
             "round %d: tag 72 first %d, tag 72 second %d, tag 71 %d ints wrong", iter, wrong(b, 500 + iter),
             wrong(got, 600 + iter), wrong(a, 700 + iter));
    }
  }

  // A receive whose message comes late sleeps with its token out; the message in the mailbox wakes it
  // (the sleeper's last check looks at the mailboxes, and the sender rings its doorbell).
  {
    const uint64_t sleeps = stats().sleeps, got_before = taken();
    receive_first(
        send, recv,
        [&] {
          usleep(100 * 1000);
          fill(out, 1000);
        },
        [&](const MPI_Status &) {
          EXPECT(wrong(in, 1000) == 0 && stats().sleeps > sleeps, "late message: %d ints wrong, %llu sleeps",
                 wrong(in, 1000), (unsigned long long)(stats().sleeps - sleeps));
        });
    EXPECT(taken() - got_before == (on ? 1u : 0u), "the late message did not come through the mailbox");
  }

  // An ordinary receive of the same envelope posted before the start is MPI's match for the next
  // message: the persistent receive is not, and must write no token (a start with receives already
  // posted looks through the queue).
  for (int iter = 0; iter < 5; ++iter) {
    MPI_Request early = MPI_REQUEST_NULL;
    if (me == 1) {
      MPI_Irecv(got, kCount, MPI_INT, 0, 70, MPI_COMM_WORLD, &early);
      MPI_Start(&recv);
    }
    receiver_ready();
    if (me == 0) {
      for (int m = 0; m < 2; ++m) {
        fill(out, 1100 + 10 * iter + m);
        MPI_Start(&send);
        MPI_Wait(&send, MPI_STATUS_IGNORE);
      }
    } else {
      MPI_Wait(&early, MPI_STATUS_IGNORE);
      MPI_Wait(&recv, MPI_STATUS_IGNORE);
      EXPECT(wrong(got, 1100 + 10 * iter) == 0 && wrong(in, 1101 + 10 * iter) == 0,
             "round %d: the earlier ordinary receive %d, the persistent one %d ints wrong", iter,
             wrong(got, 1100 + 10 * iter), wrong(in, 1101 + 10 * iter));
    }
  }

  // A receive cancelled before its message was sent: the message goes through the ring to the receive
  // posted after.
  cancel_first(
      send, recv, stats().box_sent, [&] { fill(out, 800); },
      [&] {
        MPI_Recv(in, kCount, MPI_INT, 0, 70, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        EXPECT(wrong(in, 800) == 0, "after the cancel: %d ints wrong", wrong(in, 800));
      });

  // A receive whose promised message number went by through the ring (an ordinary message of another
  // tag took it) is cancelled all the same: its token can no longer be claimed.
  if (me == 1) MPI_Start(&recv);
  receiver_ready();
  if (me == 0) {
    fill(out, 850);
    MPI_Send(out, kCount, MPI_INT, 1, 74, MPI_COMM_WORLD);
  } else {
    MPI_Recv(got, kCount, MPI_INT, 0, 74, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Cancel(&recv);
    MPI_Status st;
    MPI_Wait(&recv, &st);
    int cancelled = 0;
    MPI_Test_cancelled(&st, &cancelled);
    EXPECT(cancelled && wrong(got, 850) == 0, "a receive whose number went by: cancelled %d, %d ints wrong",
           cancelled, wrong(got, 850));
  }

  // A wildcard receive writes no token.
  MPI_Request any;
  MPI_Recv_init(in, kCount, MPI_INT, MPI_ANY_SOURCE, 73, MPI_COMM_WORLD, &any);
  const uint64_t tokens = stats().box_tokens;
  for (int iter = 0; iter < 3; ++iter) {
    if (me == 1) MPI_Start(&any);
    receiver_ready();
    if (me == 0) {
      fill(out, 900 + iter);
      MPI_Send(out, kCount, MPI_INT, 1, 73, MPI_COMM_WORLD);
    } else {
      MPI_Wait(&any, MPI_STATUS_IGNORE);
      EXPECT(wrong(in, 900 + iter) == 0, "wildcard round %d", iter);
    }
  }
  EXPECT(stats().box_tokens == tokens, "a wildcard receive wrote %llu tokens",
         (unsigned long long)(stats().box_tokens - tokens));

  // kSlots + 4 receives of distinct tags from one source started together: the first box::kSlots are
  // promised, the rest come through the ring; every message reaches its own receive.
  constexpr int kMany = int(box::kSlots) + 4;
  std::vector<MPI_Request> many(kMany);
  std::vector<int> vals(kMany * kCount);
  for (int j = 0; j < kMany; ++j) {
    if (me == 1)
      MPI_Recv_init(&vals[j * kCount], kCount, MPI_INT, 0, 100 + j, MPI_COMM_WORLD, &many[j]);
    else
      MPI_Send_init(&vals[j * kCount], kCount, MPI_INT, 1, 100 + j, MPI_COMM_WORLD, &many[j]);
  }
  for (int iter = 0; iter < 3; ++iter) {
    before = taken();
    if (me == 1) MPI_Startall(kMany, many.data());
    receiver_ready();
    if (me == 0) {
      for (int j = 0; j < kMany; ++j) fill(&vals[j * kCount], 1000 + 50 * iter + j);
      MPI_Startall(kMany, many.data());
    }
    MPI_Waitall(kMany, many.data(), MPI_STATUSES_IGNORE);
    if (me == 1)
      for (int j = 0; j < kMany; ++j)
        EXPECT(wrong(&vals[j * kCount], 1000 + 50 * iter + j) == 0, "round %d, receive %d: %d ints wrong",
               iter, j, wrong(&vals[j * kCount], 1000 + 50 * iter + j));
    EXPECT(taken() - before == (on ? box::kSlots : 0u),
           "round %d: %llu of %d messages through the mailbox, want %u", iter,
           (unsigned long long)(taken() - before), kMany, on ? box::kSlots : 0u);
  }
  for (MPI_Request *r : {&send, &recv, &both[0], &both[1], &send72, &any}) MPI_Request_free(r);
  for (MPI_Request &r : many) MPI_Request_free(&r);
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (me == 0) std::fprintf(stderr, "pattern: needs 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  peer = 1 - me;
  const bool full = argc > 1 && std::strcmp(argv[1], "full") == 0;
  if (!full) {
    descriptors_match_requests();
    ordinary_between_replays();
    changed_patterns();
    replaced_unrecorded_request();
    persistent_allreduce();
    direct_put();
    direct_put_envelopes();
    mailboxes();
  }
  thousand_patterns(full);
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0 && all == 0) std::printf("ok: pattern: %d checks on rank 0\n", checks);
  MPI_Finalize();
  return all ? 1 : 0;
}
