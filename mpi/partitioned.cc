// Partitioned communication (MPI 5.0 §4.2): MPI_Psend_init, MPI_Precv_init, MPI_Pready(_range, _list)
// and MPI_Parrived, with their _c forms.
//
// The messages travel on the communicator's collective context under tags of their own range
// ([2^24, 2^25), which no collective uses), so they never meet a point-to-point receive nor a
// collective's. The two sides are matched at init, in the order of the init calls as the standard
// asks: MPI_Psend_init sends a hello (the sender's partition count and byte total) and posts the
// receive of its answer; MPI_Precv_init posts the receive of a hello and takes a channel, a 10-bit id
// unique among the communicator's partitioned receives on this process. The first start of the
// receive answers the hello with the channel (or with a refusal when the byte totals differ, which
// fails both sides with MPI_ERR_TRUNCATE); the first start of the send waits for that answer.
//
// From then on every start moves the sender's partitions as messages of their own, tagged with the
// channel and their index, so each leaves as soon as it is ready (MPI_Pready) and nothing waits for the
// others: the receiver posts all of its receives at the start, each straight into its place in the
// buffer, and MPI_Parrived looks at the receives that cover a partition. Beyond 4096 partitions, a
// message carries that many consecutive partitions and leaves when all are ready. A non-contiguous
// send moves its partitions with their layout (seed 003); a non-contiguous receive goes through a
// staging buffer, unpacked partition by partition as they arrive.
//
// The messages are a pattern like the other persistent requests' (seed 004): the first start after the
// match records them as one section of the descriptor FIFO, one descriptor and one counter per message,
// and every later start replays it. The receiver's start rewinds the section and injects it whole; the
// sender's re-arms its counters and injects each descriptor alone, in MPI_Pready, so that the messages
// leave in the order the application makes partitions ready. MPI_Parrived reads the counters of the
// messages that cover a partition. A section that finds no room in the FIFO takes the ordinary path.
#include <algorithm>
#include <bitset>
#include <new>
#include <unordered_map>
#include <vector>

#include "collectives/schedule.h"
#include "mpi/check.h"
#include "mpi/info.h"
#include "mpi/request.h"
#include "pami/context.h"
#include "pami/pattern.h"
#include "pami/request.h"
#include "pami/stats.h"
#include "pamir_alias.h"

namespace pamir::mpi {

namespace {

constexpr int32_t kPartTag = 1 << 24;
constexpr int32_t kHelloBit = 1 << 23;
constexpr int32_t kAnswerBit = 1 << 22;
constexpr unsigned kChunkBits = 12;
constexpr unsigned kChannels = 1u << 10;
constexpr uint64_t kMaxChunks = uint64_t(1) << kChunkBits;
constexpr uint32_t kRefused = UINT32_MAX;  // the answer of a receive whose byte total differs

// Hellos and answers carry the user's tag (cut to 22 bits): two partitioned operations between the same
// pair whose tags differ only above that bit are matched in init order among themselves.
int32_t hello_tag(int tag) {
  return kPartTag | kHelloBit | (tag & (kAnswerBit - 1));
}
int32_t answer_tag(int tag) {
  return kPartTag | kAnswerBit | (tag & (kAnswerBit - 1));
}
int32_t data_tag(uint32_t channel, uint64_t chunk) {
  return kPartTag | int32_t(channel << kChunkBits) | int32_t(chunk);
}

struct Hello {
  uint64_t partitions;
  uint64_t bytes;
};
struct Answer {
  uint32_t channel;
  uint32_t pad;
};

// The channels each communicator's partitioned receives hold on this process.
std::unordered_map<const Comm *, std::bitset<kChannels>> &channels() {
  static auto *m = new std::unordered_map<const Comm *, std::bitset<kChannels>>;
  return *m;
}

struct Partitioned;

// One start: waits for the matching (first start only), then for every message of the round.
struct Round final : coll::NbSchedule {
  Round(const coll::Team &t, Partitioned *p, pamir::Request *h) : NbSchedule(t, 0), p(p), h(h) {}
  void done(int result) override;
  Partitioned *p;
  pamir::Request *h;
};

struct Partitioned final : PersistentOp {
  Partitioned() : PersistentOp(true) {}
  ~Partitioned() override;
  int start(const char *fn_, pamir::Request *h) override;

  Comm *c = nullptr;
  bool send = false;
  Datatype *type = nullptr;  // held while the request lives
  void *buf = nullptr;
  uint64_t partitions = 0, count = 0, part_bytes = 0;
  int peer = 0, tag = 0;
  Data whole{nullptr, 0, nullptr, 0};  // the whole buffer

  // Matching: the hello (sent, or received), the answer (received, or sent).
  Hello hello{};
  Answer answer{};
  pamir::Request *hello_req = nullptr;
  pamir::Request *answer_req = nullptr;
  bool matched = false;
  uint32_t channel = kRefused;

  // The messages: `nchunks` of the sender's partitions, `per_chunk` partitions each (the last fewer).
  uint64_t per_chunk = 1, nchunks = 0, sender_part_bytes = 0;
  std::vector<pamir::Request *> msgs;  // this round's, by chunk (null: not posted yet)
  // Sender: which partitions are ready and how many each chunk still waits for.
  std::vector<uint8_t> ready;
  std::vector<uint64_t> missing;
  uint64_t posted = 0;
  bool can_send = false;
  // The recorded pattern: its section, and the operations its descriptors arm (owned, kept across
  // starts); `replaying` when the current start runs on it.
  uint32_t section = PatternFifo::kNone;
  uint64_t generation = 0;
  uint64_t no_room = UINT64_MAX;
  std::vector<pamir::Request *> recorded;
  bool replaying = false;
  bool receiving = false;  // the receiver's messages of this start are posted
  // Receiver with a non-contiguous type: the staging buffer and which partitions are unpacked.
  std::vector<char> staging;
  std::vector<uint8_t> unpacked;

  alignas(coll::NbSchedule) unsigned char run[sizeof(Round)];

  pamir::Request *make(bool is_send, void *at, uint64_t bytes, const dt::Layout *layout, uint64_t elems,
                       int32_t msg_tag) {
    pamir::Request *r = request_alloc(is_send ? ReqKind::send : ReqKind::recv);
    r->ctx = c->coll_ctx();
    r->source = is_send ? c->rank : peer;
    r->tag = msg_tag;
    r->peer_task = c->task_of(peer);
    r->buf = at;
    r->bytes = bytes;
    r->layout = layout;
    r->elems = elems;
    return r;
  }
  pamir::Request *post(bool is_send, void *at, uint64_t bytes, const dt::Layout *layout, uint64_t elems,
                       int32_t msg_tag) {
    pamir::Request *r = make(is_send, at, bytes, layout, elems, msg_tag);
    if (is_send) {
      context().start_send(r);
    } else {
      context().start_recv(r);
    }
    return r;
  }
  void chunks_of(uint64_t sender_partitions, uint64_t bytes) {
    per_chunk = (sender_partitions + kMaxChunks - 1) / kMaxChunks;
    if (!per_chunk) per_chunk = 1;
    nchunks = (sender_partitions + per_chunk - 1) / per_chunk;
    sender_part_bytes = sender_partitions ? bytes / sender_partitions : 0;
    msgs.assign(nchunks, nullptr);
  }
  uint64_t chunk_parts(uint64_t g) const {
    const uint64_t first = g * per_chunk;
    return std::min(per_chunk, hello.partitions - first);
  }
  // Message g: the sender's partitions g * per_chunk on, with their layout; the receiver's place for it.
  pamir::Request *make_message(uint64_t g) {
    if (send) {
      const uint64_t first = g * per_chunk, n = chunk_parts(g);
      const Data d =
          data_of(type, static_cast<char *>(buf) + int64_t(first * count) * type->extent, n * count);
      return make(true, d.base, d.bytes, d.layout, d.elems, data_tag(channel, g));
    }
    char *base = whole.layout ? staging.data() : static_cast<char *>(whole.base);
    return make(false, base + g * per_chunk * sender_part_bytes, chunk_parts(g) * sender_part_bytes, nullptr,
                0, data_tag(channel, g));
  }
  // Message g out: its descriptor injected, or (the ordinary path) made and started now.
  void post_send(uint64_t g) {
    ++posted;
    if (replaying) {
      PatternFifo &f = patterns();
      inject_one(context(), f.descriptors(section)[g], f.counter(f.first(section) + uint32_t(g)));
      return;
    }
    msgs[g] = make_message(g);
    context().start_send(msgs[g]);
  }
  void post_receives() {
    receiving = true;
    if (whole.layout) unpacked.assign(partitions, 0);
    if (replaying) {
      PatternFifo &f = patterns();
      f.rewind(section);
      inject(context(), f);
      return;
    }
    for (uint64_t g = 0; g < nchunks; ++g) {
      msgs[g] = make_message(g);
      context().start_recv(msgs[g]);
    }
  }
  // Whether this start runs on the recorded section: recorded now if it is not (the first start after
  // the match, or after the FIFO had no room), the ordinary path when there is none.
  bool use_section() {
    PatternFifo &f = patterns();
    if (nchunks == 0 || nchunks > UINT32_MAX) return false;
    if (!f.live(section, generation)) {
      if (f.releases() == no_room) return false;
      const uint32_t s = f.record(uintptr_t(this), uint32_t(nchunks), uint32_t(nchunks));
      if (s == PatternFifo::kNone) {
        no_room = f.releases();
        ++stats().pattern_fallbacks;
        return false;
      }
      if (recorded.empty())
        for (uint64_t g = 0; g < nchunks; ++g) recorded.push_back(make_message(g));
      Descriptor *d = f.descriptors(s);
      for (uint32_t g = 0; g < uint32_t(nchunks); ++g) {
        pamir::Request *r = recorded[g];
        d[g].req = r;
        d[g].counter = f.first(s) + g;
        d[g].addr = r->buf;
        d[g].length = r->bytes;
        d[g].task = r->peer_task;
        d[g].bits = match_bits(r->ctx, r->source, r->tag);
        if (send) {
          describe_send(d[g], context(), r->bytes, !r->layout);
          if (r->layout) d[g].flags |= kDescTyped;
        } else {
          d[g].intent = Intent::receive;
        }
        f.counters(s)[g].zero = pattern_zero_ignored;
        f.counters(s)[g].arg = nullptr;
      }
      f.seal(s);
      section = s;
      generation = f.generation(s);
    } else {
      ++stats().pattern_replays;
    }
    for (pamir::Request *r : recorded) r->status = pamir::Status{};
    if (send) f.rearm(section);
    return true;
  }
  // Whether message g of this start has completed.
  bool message_done(uint64_t g) const {
    if (replaying) {
      PatternFifo &f = patterns();
      return f.counter(f.first(section) + uint32_t(g)).value == 0;
    }
    return msgs[g] && msgs[g]->complete;
  }
  // Whether every message covering receiver partition q has arrived.
  bool arrived(uint64_t q) const {
    if (!part_bytes) return true;
    const uint64_t chunk_bytes = per_chunk * sender_part_bytes;
    if (!chunk_bytes) return true;
    const uint64_t lo = q * part_bytes / chunk_bytes, hi = ((q + 1) * part_bytes - 1) / chunk_bytes;
    for (uint64_t g = lo; g <= hi && g < nchunks; ++g)
      if (!message_done(g)) return false;
    return true;
  }
  void unpack(uint64_t q) {
    if (!whole.layout || unpacked[q]) return;
    const Data d = data_of(type, static_cast<char *>(buf) + int64_t(q * count) * type->extent, count);
    unpack_data(d, staging.data() + q * part_bytes);
    unpacked[q] = 1;
  }
  // The first start's matching, once the hello (receiver) or the answer (sender) is in.
  int match() {
    if (send) {
      const Err e = answer_req->status.error;
      request_release(answer_req);
      answer_req = nullptr;
      if (e != Err::ok) return int(e);
      if (answer.channel == kRefused) return int(Err::truncate);
      channel = answer.channel;
    } else {
      const Err e = hello_req->status.error;
      request_release(hello_req);
      hello_req = nullptr;
      if (e != Err::ok) return int(e);
      const bool fits = hello.bytes == partitions * part_bytes;
      answer.channel = fits ? channel : kRefused;
      answer_req = post(true, &answer, sizeof answer, nullptr, 0, answer_tag(tag));
      if (!fits) return int(Err::truncate);
      chunks_of(hello.partitions, hello.bytes);
      if (whole.layout) staging.resize(hello.bytes);
    }
    matched = true;
    return 0;
  }
  // The end of a round: the first error of its messages; every message released.
  int end_round() {
    int e = 0;
    if (replaying)
      for (const pamir::Request *r : recorded)
        if (!e && r->status.error != Err::ok) e = int(r->status.error);
    for (pamir::Request *&r : msgs) {
      if (!r) continue;
      if (!e && r->status.error != Err::ok) e = int(r->status.error);
      request_release(r);
      r = nullptr;
    }
    if (answer_req && answer_req->complete) {
      request_release(answer_req);
      answer_req = nullptr;
    }
    if (!e && !send)
      for (uint64_t q = 0; q < partitions; ++q) unpack(q);
    can_send = false;
    receiving = false;
    return e;
  }
};

bool matching_done(const void *arg) {
  const auto *p = static_cast<const Partitioned *>(arg);
  return (p->send ? p->answer_req : p->hello_req)->complete;
}

bool round_done(const void *arg) {
  const auto *p = static_cast<const Partitioned *>(arg);
  if (p->send && p->posted < p->nchunks) return false;
  for (uint64_t g = 0; g < p->nchunks; ++g)
    if (!p->message_done(g)) return false;
  return !p->answer_req || p->answer_req->complete;
}

coll::Task round(coll::Sched &s, Partitioned *p) {
  if (!p->matched) {
    co_await s.until(matching_done, p);
    if (int e = p->match()) co_return e;
  }
  p->replaying = p->use_section();
  if (p->send) {
    p->can_send = true;
    for (uint64_t g = 0; g < p->nchunks; ++g)
      if (!p->missing[g]) p->post_send(g);
  } else {
    p->post_receives();
  }
  co_await s.until(round_done, p);
  co_return p->end_round();
}

void Round::done(int result) {
  Partitioned *op = p;
  pamir::Request *handle = h;
  this->~Round();
  handle->status = pamir::Status{};
  handle->status.error = Err(result);
  if (!op->send) {
    handle->status.source = op->peer;
    handle->status.tag = op->tag;
    handle->status.bytes = result ? 0 : op->partitions * op->part_bytes;
  }
  request_complete(handle);
}

int Partitioned::start(const char *, pamir::Request *h) {
  if (send) {
    // The sender's chunks are its own partitioning, the same the receiver computes from the hello.
    if (!matched) chunks_of(partitions, partitions * part_bytes);
    ready.assign(partitions, 0);
    missing.assign(nchunks, 0);
    for (uint64_t g = 0; g < nchunks; ++g) missing[g] = chunk_parts(g);
    msgs.assign(nchunks, nullptr);
    posted = 0;
  }
  coll::Team t{c->rank, c->peer_size, c->coll_ctx(), c->peer_tasks};
  auto *r = new (run) Round(t, this, h);
  r->may_offload = false;
  h->active = true;
  h->complete = false;
  r->start(round(r->sched, this));
  return MPI_SUCCESS;
}

Partitioned::~Partitioned() {
  Context &ctx = context();
  // The section first: it names the operations released below.
  if (patterns().live(section, generation)) patterns().release(section, generation);
  for (pamir::Request *r : recorded) request_release(r);
  for (pamir::Request *r : {hello_req, answer_req}) {
    if (!r) continue;
    if (!r->complete && r->kind == ReqKind::recv) ctx.cancel_recv(r);
    // A send of a few bytes leaves eagerly: its completion is local and soon.
    if (!r->complete) ctx.wait_until([r] { return r->complete; });
    request_release(r);
  }
  if (!send && channel != kRefused) {
    auto &m = channels();
    auto it = m.find(c);
    if (it != m.end()) {
      it->second.reset(channel);
      if (it->second.none()) m.erase(it);
    }
  }
  datatype_release(type);
}

// Psend_init and Precv_init: the checks, the request, and the start of the matching.
int init(const char *fn_, bool send, const void *buf, int partitions, int64_t count, MPI_Datatype datatype,
         int peer, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  Comm *c = PAMIR_COMM(comm);
  PAMIR_CHECK(c, request, MPI_ERR_ARG, "request is NULL");
  PAMIR_CHECK(c, info == MPI_INFO_NULL || info_of(info), MPI_ERR_INFO, "info is not a valid info object");
  Datatype *t = PAMIR_TYPE(c, datatype);
  PAMIR_CHECK(c, partitions >= 0, MPI_ERR_ARG, "negative partition count %d", partitions);
  PAMIR_CHECK(c, count >= 0, MPI_ERR_COUNT, "negative count %lld", (long long)count);
  PAMIR_CHECK(c, peer != MPI_PROC_NULL, MPI_ERR_RANK, "partitioned communication with MPI_PROC_NULL");
  PAMIR_CHECK(c, peer >= 0 && peer < c->peer_size, MPI_ERR_RANK, "%s rank %d is outside the %s (size %d)",
              send ? "destination" : "source", peer, c->remote ? "remote group" : "communicator",
              c->peer_size);
  PAMIR_CHECK(c, tag >= 0 && tag <= kTagUb, MPI_ERR_TAG, "tag %d is outside [0, MPI_TAG_UB=%d]", tag, kTagUb);
  const uint64_t elems = uint64_t(partitions) * uint64_t(count);
  PAMIR_CHECK(c, count == 0 || uint64_t(partitions) <= uint64_t(INT64_MAX) / uint64_t(count), MPI_ERR_COUNT,
              "%d partitions of %lld elements are too many", partitions, (long long)count);
  PAMIR_CHECK(c, buffer_ok(buf, int64_t(elems), t), MPI_ERR_BUFFER, "buffer is NULL with %llu elements",
              (unsigned long long)elems);
  uint32_t channel = kRefused;
  if (!send) {
    std::bitset<kChannels> &used = channels()[c];
    for (uint32_t k = 0; k < kChannels; ++k)
      if (!used[k]) {
        channel = k;
        used.set(k);
        break;
      }
    PAMIR_CHECK(c, channel != kRefused, MPI_ERR_OTHER,
                "%u partitioned receives are alive on this communicator already (free some first)",
                kChannels);
  }
  auto *p = new (std::nothrow) Partitioned;
  PAMIR_CHECK(c, p, MPI_ERR_NO_MEM, "no memory for a partitioned request");
  p->c = c;
  p->send = send;
  p->type = t;
  if (!t->predefined) ++t->refs;
  p->buf = const_cast<void *>(buf);
  p->partitions = uint64_t(partitions);
  p->count = uint64_t(count);
  p->part_bytes = uint64_t(t->size) * uint64_t(count);
  p->peer = peer;
  p->tag = tag;
  p->channel = channel;
  p->whole = data_of(t, buf, elems);
  if (send) {
    p->hello = Hello{p->partitions, p->partitions * p->part_bytes};
    p->answer_req = p->post(false, &p->answer, sizeof p->answer, nullptr, 0, answer_tag(tag));
    p->hello_req = p->post(true, &p->hello, sizeof p->hello, nullptr, 0, hello_tag(tag));
  } else {
    p->hello_req = p->post(false, &p->hello, sizeof p->hello, nullptr, 0, hello_tag(tag));
  }
  *request = reinterpret_cast<MPI_Request>(persistent_handle(c, p));
  return MPI_SUCCESS;
}

// The partitioned request behind a handle, of the kind the call needs; raises otherwise.
[[gnu::cold]] int bad_partitioned(const char *fn_, Comm *c, bool send) {
  return raise(c, fn_, MPI_ERR_REQUEST, "the request is not a partitioned %s request (of MPI_%s_init)",
               send ? "send" : "receive", send ? "Psend" : "Precv");
}
Partitioned *partitioned_of(pamir::Request *h) {
  if (h->kind != ReqKind::persistent) return nullptr;
  return dynamic_cast<Partitioned *>(persistent_op(h));
}

#define PAMIR_PARTITIONED(h, want_send)                                             \
  ({                                                                                \
    pamir::Request *r_ = PAMIR_REQUEST(h);                                          \
    Comm *c_ = static_cast<Comm *>(r_->mpi_comm);                                   \
    Partitioned *p_ = partitioned_of(r_);                                           \
    if (!p_ || p_->send != (want_send)) return bad_partitioned(fn_, c_, want_send); \
    p_;                                                                             \
  })

// Marks partition q ready; its message leaves when its chunk is complete and the match is known.
int ready(const char *fn_, Partitioned *p, pamir::Request *h, int64_t q) {
  PAMIR_CHECK(p->c, h->active && !h->complete, MPI_ERR_REQUEST,
              "the partitioned send is not active (MPI_Start it first)");
  PAMIR_CHECK(p->c, q >= 0 && uint64_t(q) < p->partitions, MPI_ERR_ARG, "partition %lld is outside [0, %llu)",
              (long long)q, (unsigned long long)p->partitions);
  PAMIR_CHECK(p->c, !p->ready[uint64_t(q)], MPI_ERR_ARG, "partition %lld is ready already in this start",
              (long long)q);
  p->ready[uint64_t(q)] = 1;
  const uint64_t g = uint64_t(q) / p->per_chunk;
  if (--p->missing[g] == 0 && p->can_send) p->post_send(g);
  return MPI_SUCCESS;
}

}  // namespace

}  // namespace pamir::mpi

using namespace pamir::mpi;

int PMPI_Psend_init(const void *buf, int partitions, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  PAMIR_ENTER("MPI_Psend_init");
  return init(fn_, true, buf, partitions, count, datatype, dest, tag, comm, info, request);
}
PAMIR_ALIAS(Psend_init);

int PMPI_Psend_init_c(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int dest,
                      int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  PAMIR_ENTER("MPI_Psend_init_c");
  return init(fn_, true, buf, partitions, count, datatype, dest, tag, comm, info, request);
}
PAMIR_ALIAS(Psend_init_c);

int PMPI_Precv_init(void *buf, int partitions, int count, MPI_Datatype datatype, int source, int tag,
                    MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  PAMIR_ENTER("MPI_Precv_init");
  return init(fn_, false, buf, partitions, count, datatype, source, tag, comm, info, request);
}
PAMIR_ALIAS(Precv_init);

int PMPI_Precv_init_c(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                      MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  PAMIR_ENTER("MPI_Precv_init_c");
  return init(fn_, false, buf, partitions, count, datatype, source, tag, comm, info, request);
}
PAMIR_ALIAS(Precv_init_c);

int PMPI_Pready(int partition, MPI_Request request) {
  PAMIR_ENTER("MPI_Pready");
  Partitioned *p = PAMIR_PARTITIONED(request, true);
  return ready(fn_, p, reinterpret_cast<pamir::Request *>(request), partition);
}
PAMIR_ALIAS(Pready);

int PMPI_Pready_range(int partition_low, int partition_high, MPI_Request request) {
  PAMIR_ENTER("MPI_Pready_range");
  Partitioned *p = PAMIR_PARTITIONED(request, true);
  PAMIR_CHECK(p->c, partition_low <= partition_high, MPI_ERR_ARG,
              "partition_low %d is above partition_high %d", partition_low, partition_high);
  for (int64_t q = partition_low; q <= partition_high; ++q)
    if (int rc = ready(fn_, p, reinterpret_cast<pamir::Request *>(request), q)) return rc;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Pready_range);

int PMPI_Pready_list(int length, const int array_of_partitions[], MPI_Request request) {
  PAMIR_ENTER("MPI_Pready_list");
  Partitioned *p = PAMIR_PARTITIONED(request, true);
  PAMIR_CHECK(p->c, length >= 0, MPI_ERR_ARG, "negative length %d", length);
  PAMIR_CHECK(p->c, length == 0 || array_of_partitions, MPI_ERR_ARG, "array_of_partitions is NULL");
  for (int i = 0; i < length; ++i)
    if (int rc = ready(fn_, p, reinterpret_cast<pamir::Request *>(request), array_of_partitions[i]))
      return rc;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Pready_list);

int PMPI_Parrived(MPI_Request request, int partition, int *flag) {
  PAMIR_ENTER("MPI_Parrived");
  Partitioned *p = PAMIR_PARTITIONED(request, false);
  PAMIR_CHECK(p->c, flag, MPI_ERR_ARG, "flag is NULL");
  PAMIR_CHECK(p->c, partition >= 0 && uint64_t(partition) < p->partitions, MPI_ERR_ARG,
              "partition %d is outside [0, %llu)", partition, (unsigned long long)p->partitions);
  pamir::Request *h = reinterpret_cast<pamir::Request *>(request);
  // An inactive request has nothing in flight: everything of its last start is there (as MPICH answers).
  if (!h->active || h->complete) {
    *flag = 1;
    return MPI_SUCCESS;
  }
  pamir::context().advance();
  if (h->complete) {
    *flag = 1;
    return MPI_SUCCESS;
  }
  *flag = p->receiving && p->arrived(uint64_t(partition));
  if (*flag)
    p->unpack(uint64_t(partition));
  else
    pamir::context().poll_missed();
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Parrived);
