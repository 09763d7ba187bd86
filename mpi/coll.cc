// The first blocking collectives: MPI_Barrier, Bcast, Reduce, Allreduce, Gather, Scatter, Allgather,
// Alltoall and their large-count variants. Each checks every argument that is significant on the
// calling rank (the standard makes recvbuf/recvcount/recvtype of MPI_Gather significant at the root
// only, and so on), then runs the algorithm of collectives/ on the communicator's collective context.
#include "collectives/coll.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "mpi/check.h"
#include "mpi/op.h"
#include "pami/request.h"
#include "pamir_alias.h"

namespace pamir::mpi {

namespace {

inline coll::Team team_of(const Comm *c) {
  return coll::Team{c->rank, c->size, c->coll_ctx(), c->local->tasks.data()};
}

// A failed collective: the PAMI error as an MPI class.
[[gnu::cold]] int coll_failed(Comm *c, const char *fn, int err) {
  switch (Err(err)) {
    case Err::truncate:
      return raise(c, fn, MPI_ERR_TRUNCATE,
                   "a message of the collective had an unexpected length: the ranks disagree on a count or "
                   "datatype");
    case Err::proc_failed:
      return raise(c, fn, MPI_ERR_PROC_ABORTED, "a process of the communicator is gone");
    case Err::device:
      return raise(c, fn, MPI_ERR_OTHER, "a device operation failed");
    case Err::rdma:
      return raise(c, fn, MPI_ERR_OTHER, "a rendezvous read of the collective's data failed");
    default:
      return raise(c, fn, MPI_ERR_INTERN, "internal error %d (no memory for a scratch buffer?)", err);
  }
}

// Whether count elements of t, `times` over, exceed what a byte count holds.
inline bool too_big(int64_t count, const Datatype *t, uint64_t times) {
  const uint64_t extent = uint64_t(t->extent > 0 ? t->extent : 1);
  return uint64_t(count) > uint64_t(INT64_MAX) / extent / (times ? times : 1);
}

// Whether two byte ranges overlap (empty ranges never do).
inline bool overlap(const void *a, uint64_t na, const void *b, uint64_t nb) {
  if (na == 0 || nb == 0) return false;
  const uintptr_t x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
  return x < y + nb && y < x + na;
}

// The checks of one (buffer, count, datatype) triple; `what` names it ("send", "receive").
#define PAMIR_CHECK_PART(c, buf, count, t, times, what)                                                \
  do {                                                                                                 \
    PAMIR_CHECK(c, (count) >= 0, MPI_ERR_COUNT, "negative %s count %lld", what, (long long)(count));   \
    PAMIR_CHECK(c, !too_big(count, t, times), MPI_ERR_COUNT, "%s count %lld of %s is too large", what, \
                (long long)(count), type_name(t));                                                     \
    PAMIR_CHECK(c, buffer_ok(buf, count), MPI_ERR_BUFFER, "%s buffer is NULL with count %lld", what,   \
                (long long)(count));                                                                   \
  } while (0)

// The algorithms move contiguous bytes. A buffer whose datatype is not contiguous is staged: packed into a
// contiguous buffer before the algorithm runs where it is an input, unpacked after where it is an
// output, so its gaps are never written. (The collectives issue moves such data without the copy.)
class Stage {
 public:
  // `blocks` runs of `count` elements of t from buf (block i starts at element i * count).
  Stage(const void *buf, const Datatype *t, uint64_t count, uint64_t blocks)
      : d_(data_of(t, buf, count * blocks)), block_bytes_(uint64_t(t->size) * count) {}
  // False when the staging buffer cannot be allocated.
  bool ready() {
    if (d_.layout && tmp_.size() != d_.bytes) {
      try {
        tmp_.resize(d_.bytes);
      } catch (const std::bad_alloc &) {
        return false;
      }
    }
    return true;
  }
  void *ptr() { return d_.layout ? static_cast<void *>(tmp_.data()) : d_.base; }
  uint64_t block_bytes() const { return block_bytes_; }
  void in() {
    if (d_.layout) pack_data(d_, tmp_.data());
  }
  void out() {
    if (d_.layout) unpack_data(d_, tmp_.data());
  }

 private:
  Data d_;
  uint64_t block_bytes_;
  std::vector<char> tmp_;
};

#define PAMIR_STAGE(c, s)                                               \
  PAMIR_CHECK(c, (s).ready(), MPI_ERR_NO_MEM,                           \
              "cannot allocate the staging buffer of a non-contiguous " \
              "datatype")

// Reductions see `count` elements `extent` bytes apart and copy extent * count bytes: a non-contiguous
// type whose elements keep their data inside their own extent is reduced in a scratch copy of the
// receive buffer, and only its data is copied back, so the gaps are never written. Other layouts
// (data outside an element's extent) are refused.
class ReduceStage {
 public:
  ReduceStage(void *recvbuf, const Datatype *t, uint64_t count)
      : recvbuf_(recvbuf),
        // A predefined pair's padding lies inside its element: reduced in place like any predefined type.
        d_(t->predefined ? Data{recvbuf, 0, nullptr, 0} : data_of(t, recvbuf, count)),
        span_(uint64_t(t->extent) * count) {}
  static bool supported(const Datatype *t) {
    return t->contiguous || (t->true_lb >= 0 && t->true_lb + t->true_extent <= t->extent);
  }
  bool ready() {
    if (!d_.layout) return true;
    try {
      tmp_.resize(span_);
    } catch (const std::bad_alloc &) {
      return false;
    }
    return true;
  }
  bool staged() const { return d_.layout != nullptr; }
  void *ptr() { return d_.layout ? static_cast<void *>(tmp_.data()) : recvbuf_; }
  void in() {
    if (d_.layout && span_) std::memcpy(tmp_.data(), recvbuf_, span_);
  }
  // Moves the data (not the gaps) from the scratch copy into the receive buffer.
  void out() {
    if (!d_.layout) return;
    dt::Cursor cur = dt::cursor(*d_.layout, d_.elems);
    int64_t off = 0;
    uint64_t len = 0;
    while (cur.next(UINT64_MAX, off, len))
      std::memcpy(static_cast<char *>(recvbuf_) + off, tmp_.data() + off, len);
  }

 private:
  void *recvbuf_;
  Data d_;
  uint64_t span_;
  std::vector<char> tmp_;
};

#define PAMIR_REDUCE_LAYOUT(c, t)                                                                         \
  PAMIR_CHECK(c, ReduceStage::supported(t), MPI_ERR_UNSUPPORTED_OPERATION,                                \
              "reductions on %s, whose data reaches outside its extent (true lb %lld, true extent %lld, " \
              "extent %lld), are not implemented",                                                        \
              type_name(t), (long long)(t)->true_lb, (long long)(t)->true_extent, (long long)(t)->extent)

// What a reduction's operation is applied to: a predefined operation sees the basic elements of a
// contiguous derived type, a user function the user's elements.
inline size_t elements(const Op *o, const Datatype *t, int64_t count) {
  return size_t(count) * (o->is_builtin ? t->elem_count : 1);
}

#define PAMIR_OP(c, h)                                                    \
  ({                                                                      \
    ::pamir::mpi::Op *o_ = ::pamir::mpi::lookup<::pamir::mpi::Op>(h);     \
    if (__builtin_expect(!o_, 0)) return ::pamir::mpi::bad_op(c, fn_, h); \
    o_;                                                                   \
  })

#define PAMIR_INTRA(c) \
  PAMIR_CHECK(c, !(c)->remote, MPI_ERR_COMM, "collectives on inter-communicators are not implemented yet")

#define PAMIR_ROOT(c, root)                                       \
  PAMIR_CHECK(c, (root) >= 0 && (root) < (c)->size, MPI_ERR_ROOT, \
              "root %d is outside the communicator (size %d)", root, (c)->size)

#define PAMIR_RUN(c, call)                                                             \
  do {                                                                                 \
    if (int e_ = (call); __builtin_expect(e_ != 0, 0)) return coll_failed(c, fn_, e_); \
    return MPI_SUCCESS;                                                                \
  } while (0)

int barrier(const char *fn_, MPI_Comm comm) {
  Comm *c = PAMIR_COMM(comm);
  PAMIR_INTRA(c);
  PAMIR_RUN(c, coll::barrier(team_of(c)));
}

int bcast(const char *fn_, void *buffer, int64_t count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  Comm *c = PAMIR_COMM(comm);
  PAMIR_INTRA(c);
  Datatype *t = PAMIR_TYPE(c, datatype);
  PAMIR_ROOT(c, root);
  PAMIR_CHECK_PART(c, buffer, count, t, 1, "broadcast");
  PAMIR_CHECK(c, buffer != MPI_IN_PLACE, MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed in a broadcast");
  Stage s(buffer, t, uint64_t(count), 1);
  PAMIR_STAGE(c, s);
  if (c->rank == root) s.in();
  const int e = coll::bcast(team_of(c), s.ptr(), s.block_bytes(), root);
  if (e) return coll_failed(c, fn_, e);
  if (c->rank != root) s.out();
  return MPI_SUCCESS;
}

int reduce(const char *fn_, const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype datatype,
           MPI_Op op, int root, MPI_Comm comm) {
  Comm *c = PAMIR_COMM(comm);
  PAMIR_INTRA(c);
  Datatype *t = PAMIR_TYPE(c, datatype);
  Op *o = PAMIR_OP(c, op);
  PAMIR_ROOT(c, root);
  const bool is_root = c->rank == root;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  PAMIR_CHECK(c, !in_place || is_root, MPI_ERR_BUFFER, "MPI_IN_PLACE is allowed at the root (rank %d) only",
              root);
  PAMIR_CHECK_PART(c, sendbuf, count, t, 1, "send");
  if (is_root) {
    PAMIR_CHECK(c, recvbuf != MPI_IN_PLACE, MPI_ERR_BUFFER,
                "MPI_IN_PLACE is not a receive buffer (pass it as sendbuf)");
    PAMIR_CHECK(c, buffer_ok(recvbuf, count), MPI_ERR_BUFFER, "receive buffer is NULL with count %lld",
                (long long)count);
  }
  const uint64_t bytes = span_bytes(t, uint64_t(count));
  PAMIR_CHECK(c, !is_root || in_place || !overlap(sendbuf, bytes, recvbuf, bytes), MPI_ERR_BUFFER,
              "sendbuf and recvbuf overlap (use MPI_IN_PLACE)");
  coll::Reduction r;
  if (int rc = make_reduction(c, o, t, r, fn_)) return rc;
  PAMIR_REDUCE_LAYOUT(c, t);
  ReduceStage s(is_root ? recvbuf : nullptr, t, uint64_t(count));
  if (is_root) {
    PAMIR_STAGE(c, s);
    if (in_place) s.in();
  }
  const int e = coll::reduce(team_of(c), sendbuf, is_root ? s.ptr() : recvbuf, elements(o, t, count), r, root,
                             in_place);
  if (e) return coll_failed(c, fn_, e);
  if (is_root) s.out();
  return MPI_SUCCESS;
}

int allreduce(const char *fn_, const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype datatype,
              MPI_Op op, MPI_Comm comm) {
  Comm *c = PAMIR_COMM(comm);
  PAMIR_INTRA(c);
  Datatype *t = PAMIR_TYPE(c, datatype);
  Op *o = PAMIR_OP(c, op);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  PAMIR_CHECK_PART(c, sendbuf, count, t, 1, "send");
  PAMIR_CHECK(c, recvbuf != MPI_IN_PLACE, MPI_ERR_BUFFER,
              "MPI_IN_PLACE is not a receive buffer (pass it as sendbuf)");
  PAMIR_CHECK(c, buffer_ok(recvbuf, count), MPI_ERR_BUFFER, "receive buffer is NULL with count %lld",
              (long long)count);
  const uint64_t bytes = span_bytes(t, uint64_t(count));
  PAMIR_CHECK(c, in_place || !overlap(sendbuf, bytes, recvbuf, bytes), MPI_ERR_BUFFER,
              "sendbuf and recvbuf overlap (use MPI_IN_PLACE)");
  coll::Reduction r;
  if (int rc = make_reduction(c, o, t, r, fn_)) return rc;
  PAMIR_REDUCE_LAYOUT(c, t);
  ReduceStage s(recvbuf, t, uint64_t(count));
  PAMIR_STAGE(c, s);
  if (in_place) s.in();
  const int e = coll::allreduce(team_of(c), sendbuf, s.ptr(), elements(o, t, count), r, in_place);
  if (e) return coll_failed(c, fn_, e);
  s.out();
  return MPI_SUCCESS;
}

// The root's own part of a rooted gather/scatter (or any rank's of allgather/alltoall) must be as long
// as one rank's part on the other side.
#define PAMIR_SAME_BYTES(c, sbytes, rbytes)                                                   \
  PAMIR_CHECK(c, (sbytes) == (rbytes), MPI_ERR_TRUNCATE,                                      \
              "the send part (%llu bytes) and the receive part per rank (%llu bytes) differ", \
              (unsigned long long)(sbytes), (unsigned long long)(rbytes))

// Data bytes of `count` elements of t (what travels; the extent only places it).
inline uint64_t data_bytes(const Datatype *t, int64_t count) {
  return uint64_t(t->size) * uint64_t(count);
}

int gather(const char *fn_, const void *sendbuf, int64_t sendcount, MPI_Datatype sendtype, void *recvbuf,
           int64_t recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  Comm *c = PAMIR_COMM(comm);
  PAMIR_INTRA(c);
  PAMIR_ROOT(c, root);
  const bool is_root = c->rank == root;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  PAMIR_CHECK(c, !in_place || is_root, MPI_ERR_BUFFER, "MPI_IN_PLACE is allowed at the root (rank %d) only",
              root);
  Datatype *st = nullptr, *rt = nullptr;
  uint64_t sbytes = 0, rbytes = 0;
  if (!in_place) {
    st = PAMIR_TYPE(c, sendtype);
    PAMIR_CHECK_PART(c, sendbuf, sendcount, st, 1, "send");
    sbytes = data_bytes(st, sendcount);
  }
  if (is_root) {
    rt = PAMIR_TYPE(c, recvtype);
    PAMIR_CHECK_PART(c, recvbuf, recvcount, rt, uint64_t(c->size), "receive");
    PAMIR_CHECK(c, recvbuf != MPI_IN_PLACE, MPI_ERR_BUFFER,
                "MPI_IN_PLACE is not a receive buffer (pass it as sendbuf)");
    rbytes = data_bytes(rt, recvcount);
    if (!in_place) {
      PAMIR_SAME_BYTES(c, sbytes, rbytes);
      PAMIR_CHECK(c,
                  !overlap(sendbuf, span_bytes(st, uint64_t(sendcount)), recvbuf,
                           span_bytes(rt, uint64_t(recvcount)) * uint64_t(c->size)),
                  MPI_ERR_BUFFER, "sendbuf and recvbuf overlap (use MPI_IN_PLACE)");
    }
  }
  Stage send(in_place ? nullptr : sendbuf, in_place ? rt : st, in_place ? 0 : uint64_t(sendcount), 1);
  Stage recv(recvbuf, is_root ? rt : st, is_root ? uint64_t(recvcount) : 0, uint64_t(c->size));
  PAMIR_STAGE(c, send);
  PAMIR_STAGE(c, recv);
  send.in();
  if (in_place) recv.in();
  const int e = coll::gather(team_of(c), in_place ? MPI_IN_PLACE : send.ptr(), recv.ptr(),
                             is_root ? rbytes : sbytes, root, in_place);
  if (e) return coll_failed(c, fn_, e);
  if (is_root) recv.out();
  return MPI_SUCCESS;
}

int scatter(const char *fn_, const void *sendbuf, int64_t sendcount, MPI_Datatype sendtype, void *recvbuf,
            int64_t recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  Comm *c = PAMIR_COMM(comm);
  PAMIR_INTRA(c);
  PAMIR_ROOT(c, root);
  const bool is_root = c->rank == root;
  const bool in_place = recvbuf == MPI_IN_PLACE;
  PAMIR_CHECK(c, !in_place || is_root, MPI_ERR_BUFFER, "MPI_IN_PLACE is allowed at the root (rank %d) only",
              root);
  Datatype *st = nullptr, *rt = nullptr;
  uint64_t sbytes = 0, rbytes = 0;
  if (!in_place) {
    rt = PAMIR_TYPE(c, recvtype);
    PAMIR_CHECK_PART(c, recvbuf, recvcount, rt, 1, "receive");
    rbytes = data_bytes(rt, recvcount);
  }
  if (is_root) {
    st = PAMIR_TYPE(c, sendtype);
    PAMIR_CHECK_PART(c, sendbuf, sendcount, st, uint64_t(c->size), "send");
    PAMIR_CHECK(c, sendbuf != MPI_IN_PLACE, MPI_ERR_BUFFER,
                "MPI_IN_PLACE is not a send buffer (pass it as recvbuf)");
    sbytes = data_bytes(st, sendcount);
    if (!in_place) {
      PAMIR_SAME_BYTES(c, sbytes, rbytes);
      PAMIR_CHECK(c,
                  !overlap(sendbuf, span_bytes(st, uint64_t(sendcount)) * uint64_t(c->size), recvbuf,
                           span_bytes(rt, uint64_t(recvcount))),
                  MPI_ERR_BUFFER, "sendbuf and recvbuf overlap (use MPI_IN_PLACE)");
    }
  }
  Stage send(sendbuf, is_root ? st : rt, is_root ? uint64_t(sendcount) : 0, uint64_t(c->size));
  Stage recv(in_place ? nullptr : recvbuf, in_place ? st : rt, in_place ? 0 : uint64_t(recvcount), 1);
  PAMIR_STAGE(c, send);
  PAMIR_STAGE(c, recv);
  if (is_root) send.in();
  const int e = coll::scatter(team_of(c), send.ptr(), in_place ? MPI_IN_PLACE : recv.ptr(),
                              is_root ? sbytes : rbytes, root, in_place);
  if (e) return coll_failed(c, fn_, e);
  if (!in_place) recv.out();
  return MPI_SUCCESS;
}

// Allgather (send_blocks = 1) and alltoall (send_blocks = p): the same checks, and the same staging.
int all_to_all(const char *fn_, const void *sendbuf, int64_t sendcount, MPI_Datatype sendtype, void *recvbuf,
               int64_t recvcount, MPI_Datatype recvtype, MPI_Comm comm, bool alltoall) {
  Comm *c = PAMIR_COMM(comm);
  PAMIR_INTRA(c);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const uint64_t p = uint64_t(c->size), send_blocks = alltoall ? p : 1;
  Datatype *rt = PAMIR_TYPE(c, recvtype);
  PAMIR_CHECK_PART(c, recvbuf, recvcount, rt, p, "receive");
  PAMIR_CHECK(c, recvbuf != MPI_IN_PLACE, MPI_ERR_BUFFER,
              "MPI_IN_PLACE is not a receive buffer (pass it as sendbuf)");
  const uint64_t bytes = data_bytes(rt, recvcount);
  Datatype *st = rt;
  if (!in_place) {
    st = PAMIR_TYPE(c, sendtype);
    PAMIR_CHECK_PART(c, sendbuf, sendcount, st, send_blocks, "send");
    PAMIR_SAME_BYTES(c, data_bytes(st, sendcount), bytes);
    PAMIR_CHECK(c,
                !overlap(sendbuf, span_bytes(st, uint64_t(sendcount)) * send_blocks, recvbuf,
                         span_bytes(rt, uint64_t(recvcount)) * p),
                MPI_ERR_BUFFER, "sendbuf and recvbuf overlap (use MPI_IN_PLACE)");
  }
  Stage send(in_place ? nullptr : sendbuf, st, in_place ? 0 : uint64_t(sendcount), send_blocks);
  Stage recv(recvbuf, rt, uint64_t(recvcount), p);
  PAMIR_STAGE(c, send);
  PAMIR_STAGE(c, recv);
  send.in();
  if (in_place) recv.in();
  const void *sptr = in_place ? MPI_IN_PLACE : send.ptr();
  const int e = alltoall ? coll::alltoall(team_of(c), sptr, recv.ptr(), bytes, in_place)
                         : coll::allgather(team_of(c), sptr, recv.ptr(), bytes, in_place);
  if (e) return coll_failed(c, fn_, e);
  recv.out();
  return MPI_SUCCESS;
}

int allgather(const char *fn_, const void *sendbuf, int64_t sendcount, MPI_Datatype sendtype, void *recvbuf,
              int64_t recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return all_to_all(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, false);
}

int alltoall(const char *fn_, const void *sendbuf, int64_t sendcount, MPI_Datatype sendtype, void *recvbuf,
             int64_t recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return all_to_all(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, true);
}

}  // namespace

}  // namespace pamir::mpi

using namespace pamir::mpi;

int PMPI_Barrier(MPI_Comm comm) {
  PAMIR_ENTER("MPI_Barrier");
  return barrier(fn_, comm);
}
PAMIR_ALIAS(Barrier);

int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Bcast");
  return bcast(fn_, buffer, count, datatype, root, comm);
}
PAMIR_ALIAS(Bcast);

int PMPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Bcast_c");
  return bcast(fn_, buffer, count, datatype, root, comm);
}
PAMIR_ALIAS(Bcast_c);

int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                MPI_Comm comm) {
  PAMIR_ENTER("MPI_Reduce");
  return reduce(fn_, sendbuf, recvbuf, count, datatype, op, root, comm);
}
PAMIR_ALIAS(Reduce);

int PMPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                  int root, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Reduce_c");
  return reduce(fn_, sendbuf, recvbuf, count, datatype, op, root, comm);
}
PAMIR_ALIAS(Reduce_c);

int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm) {
  PAMIR_ENTER("MPI_Allreduce");
  return allreduce(fn_, sendbuf, recvbuf, count, datatype, op, comm);
}
PAMIR_ALIAS(Allreduce);

int PMPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                     MPI_Comm comm) {
  PAMIR_ENTER("MPI_Allreduce_c");
  return allreduce(fn_, sendbuf, recvbuf, count, datatype, op, comm);
}
PAMIR_ALIAS(Allreduce_c);

int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Gather");
  return gather(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}
PAMIR_ALIAS(Gather);

int PMPI_Gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Gather_c");
  return gather(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}
PAMIR_ALIAS(Gather_c);

int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Scatter");
  return scatter(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}
PAMIR_ALIAS(Scatter);

int PMPI_Scatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Scatter_c");
  return scatter(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}
PAMIR_ALIAS(Scatter_c);

int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Allgather");
  return allgather(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}
PAMIR_ALIAS(Allgather);

int PMPI_Allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Allgather_c");
  return allgather(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}
PAMIR_ALIAS(Allgather_c);

int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Alltoall");
  return alltoall(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}
PAMIR_ALIAS(Alltoall);

int PMPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Alltoall_c");
  return alltoall(fn_, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}
PAMIR_ALIAS(Alltoall_c);
