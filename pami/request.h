// One pooled request object for every kind of operation. MPI_Request points at one; the MPI binding
// checks `magic` before it trusts a handle, and a released request has its magic cleared, so a freed
// handle is caught rather than used.
#pragma once

#include <cstddef>
#include <cstdint>

#include "pami/list.h"
#include "pami/vclock.h"

namespace pamir {

namespace dt {
struct Layout;
}

// Error codes of the PAMI layer; the MPI binding maps them to error classes.
enum class Err : int32_t {
  ok = 0,
  truncate,     // the message is longer than the receive buffer
  proc_failed,  // the peer is gone
  device,       // a device operation failed
  rdma,         // a rendezvous read failed (Status::sys_errno says why), reported on both sides
  intern,       // an invariant broke
  signature,    // PAMIR_CHECK_SIGNATURE: the message's type signature is not a prefix of the receive's
  put,          // a direct put could not write the receive's buffer (Status::sys_errno says why)
};

enum class ReqKind : uint8_t {
  send,         // point-to-point send
  recv,         // point-to-point receive
  persistent,   // MPI_Send_init/Recv_init family: `active` tells whether it has been started
  schedule,     // a nonblocking collective's schedule
  generalized,  // MPI_Grequest_start
  put,          // one-sided put (Context::start_put): completes when the data is in the target's memory
  get,          // one-sided get (Context::start_get): completes when the data is in `buf`
  get_reply,    // internal: a target's answer to a get by packets, released once sent
  pair,         // MPI_Isendrecv: completes when its send and its receive have (mpi/pt2pt.cc)
  am,           // internal: an active message queued behind a full device; `buf` holds its header
                // (`bytes` long) and then its payload (`offset` long), freed once it is sent
};

struct Status {
  int32_t source = 0;  // rank in the communicator
  int32_t tag = 0;
  Err error = Err::ok;
  bool cancelled = false;
  int32_t sys_errno = 0;    // Err::rdma, Err::put: the errno of the failed copy
  uint64_t bytes = 0;       // bytes delivered into the receive buffer
  uint64_t sent_bytes = 0;  // bytes the sender sent (more than `bytes` on truncation)
};

constexpr uint32_t kRequestMagic = 0x52455131;  // "REQ1"

struct Request : ListNode {
  uint32_t magic = 0;
  ReqKind kind = ReqKind::send;
  bool complete = false;
  bool user_freed = false;    // MPI_Request_free on an active request: release at completion
  bool sync = false;          // synchronous send: completes when the receiver matched it
  bool acked = false;         // synchronous send: the receiver's match ack has arrived
  bool posted = false;        // receive: sits in a posted queue
  bool started = false;       // send: the first packet (with the header) has gone out
  bool control = false;       // an internal packet (match ack) queued behind a full device
  bool shared = false;        // the one completed-send request (request_completed_send): never released
  bool active = false;        // persistent: started, and not yet completed by a Wait or Test
  bool promised = false;      // receive: a ready token names it (a cancel withdraws it first)
  bool keep_exposed = false;  // send of a recorded pattern: its memory stays registered between starts
  Status status;

  // Matching (receives) and addressing (sends).
  uint16_t ctx = 0;
  int32_t source = 0;  // receive: rank or any-source (-1); send: own rank in the communicator
  int32_t tag = 0;     // receive: tag or any-tag (-2)
  uint32_t peer_task = 0;
  uint64_t match_seq = 0;  // receive: its place in its context's post order (Matcher::post)

  // Buffer: contiguous bytes, or with `layout` set, `elems` elements of that layout from `buf` (seed 003;
  // `bytes` is then their data bytes, and the layout must outlive the operation).
  void *buf = nullptr;
  uint64_t bytes = 0;  // send: message length; receive: buffer capacity
  const dt::Layout *layout = nullptr;
  uint64_t elems = 0;
  // PAMIR_CHECK_SIGNATURE. Send: the hash of the message's type signature (0: not checked). Receive:
  // the layout whose signature the message must start (null: not checked), `sig_elems` elements of it.
  uint64_t sig = 0;
  const dt::Layout *sig_layout = nullptr;
  uint64_t sig_elems = 0;
  uint64_t offset = 0;       // send, put: bytes handed to the device so far; get: bytes arrived
  uint64_t remote_addr = 0;  // put, get: the target's memory; get_reply: the origin's cookie

  // Rendezvous (seed 001). Send: the acknowledgment slot and the state; receive being pulled: the
  // origin's slot and the bytes still to read (the target's counter).
  uint64_t ack_ref = 0;
  uint64_t rdv_counter = 0;
  uint64_t rdv_cookie = 0;  // send pushed after a resend request: the target's receive
  uint8_t rdv = 0;          // RdvState (pami/context.h)
  uint32_t held = 0;        // keep_exposed: the device's registration of the data (Device::expose_held)
  uint64_t ctrl[2] = {};    // control packet queued behind a full device: its header (dispatch in tag)

  // Owned by the MPI binding (communicator, datatype, persistent arguments, ...).
  void *mpi_comm = nullptr;
  void *mpi_type = nullptr;
  uint64_t mpi_count = 0;
  // Kind-specific: a persistent request's arguments, or the handle of a persistent start's operation.
  void *ext = nullptr;
  void (*on_complete)(Request *) = nullptr;  // called once when `complete` becomes true
  // The timing model's (pami/vclock.h): the stamp it was posted with, raised to what completed it.
  Vt vt;
};

// The request pool: a free list over slabs that are never returned, so reading a stale handle's magic
// is always safe.
Request *request_alloc(ReqKind kind);
void request_release(Request *r);
size_t requests_in_use();

// A send that completed inside its start call (the whole message went out in one packet) needs no
// request of its own: every such send hands out this one, complete, with an empty status, which
// request_release() leaves alone. MPICH's lightweight requests do the same.
Request *request_completed_send();

// A recorded operation's protocol state, cleared for a start that may match or go through a protocol.
inline void reset_protocol_state(Request *r) {
  r->acked = false;
  r->started = false;
  r->ack_ref = 0;
  r->rdv_counter = 0;
  r->rdv_cookie = 0;
  r->promised = false;
}

// `kLogged`: the caller has tested the timing model's log (vclock.h), for a path that raises twice.
template <bool kLogged>
inline void request_complete_as(Request *r) {
  vt_raise_as<kLogged>(r->vt, g_vclock.arrival);
  r->complete = true;
  if (r->on_complete) r->on_complete(r);
}
inline void request_complete(Request *r) {
  if (vt_logged()) [[unlikely]]
    request_complete_as<true>(r);
  else
    request_complete_as<false>(r);
}

}  // namespace pamir
