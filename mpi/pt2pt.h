// What point-to-point shares with the persistent requests (mpi/persistent.cc): the argument checks of a
// send and a receive, and starting one whose arguments are checked.
#pragma once

#include <mpi.h>

#include <cstdint>

#include "mpi/comm.h"
#include "mpi/datatype.h"
#include "pami/request.h"

namespace pamir::mpi {

enum class Mode { standard, sync, ready, buffered };

// Every argument check of a send or a receive but the communicator and datatype handles. Returns
// MPI_SUCCESS or the code raised on c.
int check_send(Comm *c, const char *fn_, const void *buf, int64_t count, Datatype *t, int dest, int tag);
int check_recv(Comm *c, const char *fn_, const void *buf, int64_t count, Datatype *t, int source, int tag);

// Starts a checked send as MPI_I<mode>send does. *out is its request: a complete one for MPI_PROC_NULL
// and for a buffered send (copied out already), the shared completed send when the message left at
// once (request_completed_send), or one the context completes. Returns MPI_SUCCESS or the raised code
// (a buffered send that does not fit the attached buffer).
int send_start(Comm *c, const char *fn_, const void *buf, int64_t count, Datatype *t, int dest, int tag,
               Mode mode, pamir::Request **out);
// Starts a checked receive as MPI_Irecv does (a complete request for MPI_PROC_NULL).
pamir::Request *recv_start(Comm *c, void *buf, int64_t count, Datatype *t, int source, int tag);

// The operation a checked send (not buffered, dest not MPI_PROC_NULL) or receive (source not
// MPI_PROC_NULL) would start, described but not started: what a persistent request records once and
// its replays arm again (mpi/persistent.cc).
pamir::Request *send_request(Comm *c, const void *buf, int64_t count, Datatype *t, int dest, int tag,
                             bool sync);
pamir::Request *recv_request(Comm *c, void *buf, int64_t count, Datatype *t, int source, int tag);

}  // namespace pamir::mpi
