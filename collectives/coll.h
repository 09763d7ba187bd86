// Blocking collectives as schedules of PAMI point-to-point messages on a communicator's collective
// context. One always-correct algorithm each for now; selection by bit mask (seed 002) comes with the
// collectives issue. Knows nothing of MPI handles: a Team is what an algorithm sees of a communicator.
#pragma once

#include <cstddef>
#include <cstdint>

#include "collectives/reduce_ops.h"

namespace pamir::coll {

struct Team {
  int rank;
  int size;
  uint16_t ctx;           // the collective context id
  const uint32_t *tasks;  // team rank -> PAMI task
};

// Every function returns 0, or a nonzero pamir::Err value.
// Buffers are contiguous bytes; `bytes` is per rank where the MPI call has a per-rank count.
int barrier(const Team &t);
int bcast(const Team &t, void *buf, size_t bytes, int root);
// in_place: the MPI_IN_PLACE forms (at the root for reduce/gather/scatter, everywhere for allreduce,
// allgather, alltoall); sendbuf is then ignored.
int reduce(const Team &t, const void *sendbuf, void *recvbuf, size_t count, const Reduction &op, int root,
           bool in_place);
int allreduce(const Team &t, const void *sendbuf, void *recvbuf, size_t count, const Reduction &op,
              bool in_place);
int gather(const Team &t, const void *sendbuf, void *recvbuf, size_t bytes, int root, bool in_place);
int scatter(const Team &t, const void *sendbuf, void *recvbuf, size_t bytes, int root, bool in_place);
int allgather(const Team &t, const void *sendbuf, void *recvbuf, size_t bytes, bool in_place);
int alltoall(const Team &t, const void *sendbuf, void *recvbuf, size_t bytes, bool in_place);

// Point-to-point on the team's context, for the algorithms (blocking; tags are the algorithm's).
int send(const Team &t, int peer, int tag, const void *buf, size_t bytes);
int recv(const Team &t, int peer, int tag, void *buf, size_t bytes);
int sendrecv(const Team &t, int dest, int stag, const void *sbuf, size_t sbytes, int source, int rtag, void *rbuf,
             size_t rbytes);

}  // namespace pamir::coll
