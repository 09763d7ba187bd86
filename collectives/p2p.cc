// Blocking point-to-point and the internal collectives, for code outside the MPI binding's collectives
// (communicator creation, MPI_Finalize): each a schedule run to its end.
#include "collectives/algorithms/algorithms.h"
#include "collectives/coll.h"

namespace pamir::coll {

namespace {
constexpr int32_t kBarrierTag = kInternalTag + 1, kAllreduceTag = kInternalTag + 2,
                  kAllgatherTag = kInternalTag + 3;

Task one_send(Sched &s, int peer, const void *buf, size_t bytes) {
  co_return co_await s.send(peer, buf, bytes);
}
Task one_recv(Sched &s, int peer, void *buf, size_t bytes) {
  co_return co_await s.recv(peer, buf, bytes);
}
}  // namespace

int send(const Team &t, int peer, int tag, const void *buf, size_t bytes) {
  Sched s(t, tag);
  return run(s, one_send(s, peer, buf, bytes));
}

int recv(const Team &t, int peer, int tag, void *buf, size_t bytes) {
  Sched s(t, tag);
  return run(s, one_recv(s, peer, buf, bytes));
}

int internal_barrier(const Team &t) {
  Sched s(t, kBarrierTag);
  return run(s, barrier_dissemination(s, Args{}));
}

int internal_allreduce(const Team &t, void *buf, size_t count, const Reduction &op) {
  Sched s(t, kAllreduceTag);
  Args a;
  a.recvbuf = buf;
  a.count = count;
  a.op = op;
  a.in_place = true;
  return run(s, allreduce_recursive_doubling(s, a));
}

int internal_allgather(const Team &t, const void *sendbuf, void *recvbuf, size_t bytes) {
  Sched s(t, kAllgatherTag);
  Args a;
  a.sendbuf = sendbuf;
  a.recvbuf = recvbuf;
  a.bytes = bytes;
  return run(s, allgather_ring(s, a));
}

}  // namespace pamir::coll
