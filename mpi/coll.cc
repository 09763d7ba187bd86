// The first blocking collectives: MPI_Barrier, Bcast, Reduce, Allreduce, Gather, Scatter, Allgather,
// Alltoall and their large-count variants. Each checks every argument that is significant on the
// calling rank (the standard makes recvbuf/recvcount/recvtype of MPI_Gather significant at the root
// only, and so on), then runs the algorithm of collectives/ on the communicator's collective context.
#include "collectives/coll.h"

#include <cstdint>

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
  PAMIR_RUN(c, coll::bcast(team_of(c), buffer, span_bytes(t, uint64_t(count)), root));
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
  PAMIR_RUN(c, coll::reduce(team_of(c), sendbuf, recvbuf, size_t(count), r, root, in_place));
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
  PAMIR_RUN(c, coll::allreduce(team_of(c), sendbuf, recvbuf, size_t(count), r, in_place));
}

// The root's own part of a rooted gather/scatter (or any rank's of allgather/alltoall) must be as long
// as one rank's part on the other side.
#define PAMIR_SAME_BYTES(c, sbytes, rbytes)                                                   \
  PAMIR_CHECK(c, (sbytes) == (rbytes), MPI_ERR_TRUNCATE,                                      \
              "the send part (%llu bytes) and the receive part per rank (%llu bytes) differ", \
              (unsigned long long)(sbytes), (unsigned long long)(rbytes))

int gather(const char *fn_, const void *sendbuf, int64_t sendcount, MPI_Datatype sendtype, void *recvbuf,
           int64_t recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  Comm *c = PAMIR_COMM(comm);
  PAMIR_INTRA(c);
  PAMIR_ROOT(c, root);
  const bool is_root = c->rank == root;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  PAMIR_CHECK(c, !in_place || is_root, MPI_ERR_BUFFER, "MPI_IN_PLACE is allowed at the root (rank %d) only",
              root);
  uint64_t sbytes = 0, rbytes = 0;
  if (!in_place) {
    Datatype *st = PAMIR_TYPE(c, sendtype);
    PAMIR_CHECK_PART(c, sendbuf, sendcount, st, 1, "send");
    sbytes = span_bytes(st, uint64_t(sendcount));
  }
  if (is_root) {
    Datatype *rt = PAMIR_TYPE(c, recvtype);
    PAMIR_CHECK_PART(c, recvbuf, recvcount, rt, uint64_t(c->size), "receive");
    PAMIR_CHECK(c, recvbuf != MPI_IN_PLACE, MPI_ERR_BUFFER,
                "MPI_IN_PLACE is not a receive buffer (pass it as sendbuf)");
    rbytes = span_bytes(rt, uint64_t(recvcount));
    if (!in_place) {
      PAMIR_SAME_BYTES(c, sbytes, rbytes);
      PAMIR_CHECK(c, !overlap(sendbuf, sbytes, recvbuf, rbytes * uint64_t(c->size)), MPI_ERR_BUFFER,
                  "sendbuf and recvbuf overlap (use MPI_IN_PLACE)");
    }
  }
  PAMIR_RUN(c, coll::gather(team_of(c), sendbuf, recvbuf, is_root ? rbytes : sbytes, root, in_place));
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
  uint64_t sbytes = 0, rbytes = 0;
  if (!in_place) {
    Datatype *rt = PAMIR_TYPE(c, recvtype);
    PAMIR_CHECK_PART(c, recvbuf, recvcount, rt, 1, "receive");
    rbytes = span_bytes(rt, uint64_t(recvcount));
  }
  if (is_root) {
    Datatype *st = PAMIR_TYPE(c, sendtype);
    PAMIR_CHECK_PART(c, sendbuf, sendcount, st, uint64_t(c->size), "send");
    PAMIR_CHECK(c, sendbuf != MPI_IN_PLACE, MPI_ERR_BUFFER,
                "MPI_IN_PLACE is not a send buffer (pass it as recvbuf)");
    sbytes = span_bytes(st, uint64_t(sendcount));
    if (!in_place) {
      PAMIR_SAME_BYTES(c, sbytes, rbytes);
      PAMIR_CHECK(c, !overlap(sendbuf, sbytes * uint64_t(c->size), recvbuf, rbytes), MPI_ERR_BUFFER,
                  "sendbuf and recvbuf overlap (use MPI_IN_PLACE)");
    }
  }
  PAMIR_RUN(c, coll::scatter(team_of(c), sendbuf, recvbuf, is_root ? sbytes : rbytes, root, in_place));
}

// Allgather (send_blocks = 1) and alltoall (send_blocks = p): the same checks.
int all_to_all_checks(Comm *c, const char *fn_, const void *sendbuf, int64_t sendcount, MPI_Datatype sendtype,
                      void *recvbuf, int64_t recvcount, MPI_Datatype recvtype, uint64_t send_blocks,
                      uint64_t &bytes) {
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const uint64_t p = uint64_t(c->size);
  Datatype *rt = PAMIR_TYPE(c, recvtype);
  PAMIR_CHECK_PART(c, recvbuf, recvcount, rt, p, "receive");
  PAMIR_CHECK(c, recvbuf != MPI_IN_PLACE, MPI_ERR_BUFFER,
              "MPI_IN_PLACE is not a receive buffer (pass it as sendbuf)");
  bytes = span_bytes(rt, uint64_t(recvcount));
  if (!in_place) {
    Datatype *st = PAMIR_TYPE(c, sendtype);
    PAMIR_CHECK_PART(c, sendbuf, sendcount, st, send_blocks, "send");
    const uint64_t sbytes = span_bytes(st, uint64_t(sendcount));
    PAMIR_SAME_BYTES(c, sbytes, bytes);
    PAMIR_CHECK(c, !overlap(sendbuf, sbytes * send_blocks, recvbuf, bytes * p), MPI_ERR_BUFFER,
                "sendbuf and recvbuf overlap (use MPI_IN_PLACE)");
  }
  return MPI_SUCCESS;
}

int allgather(const char *fn_, const void *sendbuf, int64_t sendcount, MPI_Datatype sendtype, void *recvbuf,
              int64_t recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  Comm *c = PAMIR_COMM(comm);
  PAMIR_INTRA(c);
  uint64_t bytes = 0;
  if (int rc =
          all_to_all_checks(c, fn_, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, 1, bytes))
    return rc;
  PAMIR_RUN(c, coll::allgather(team_of(c), sendbuf, recvbuf, bytes, sendbuf == MPI_IN_PLACE));
}

int alltoall(const char *fn_, const void *sendbuf, int64_t sendcount, MPI_Datatype sendtype, void *recvbuf,
             int64_t recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  Comm *c = PAMIR_COMM(comm);
  PAMIR_INTRA(c);
  uint64_t bytes = 0;
  if (int rc = all_to_all_checks(c, fn_, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                 uint64_t(c->size), bytes))
    return rc;
  PAMIR_RUN(c, coll::alltoall(team_of(c), sendbuf, recvbuf, bytes, sendbuf == MPI_IN_PLACE));
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
