// What the rest of Pamir calls in the collectives without going through the MPI binding's selection:
// the communicator-creation protocol and MPI_Finalize run a fixed, always-correct algorithm on a team,
// under tags of their own (kInternalTag), so they never match a user collective's messages. Blocking.
#pragma once

#include <cstddef>
#include <cstdint>

#include "collectives/reduce_ops.h"
#include "collectives/schedule.h"

namespace pamir::coll {

// Every function returns 0, or a nonzero pamir::Err value. Buffers are contiguous bytes.
int internal_barrier(const Team &t);
int internal_allreduce(const Team &t, void *buf, size_t count, const Reduction &op);  // in place
int internal_allgather(const Team &t, const void *sendbuf, void *recvbuf, size_t bytes);

// Blocking point-to-point on the team's context (communicator creation over a group's members).
int send(const Team &t, int peer, int tag, const void *buf, size_t bytes);
int recv(const Team &t, int peer, int tag, void *buf, size_t bytes);

}  // namespace pamir::coll
