// Counters, printed at MPI_Finalize under PAMIR_STATS=1, read by tests, and MPI_T performance variables
// (counters() is the registry behind both). They always count: a counter is one increment of a field
// of this process's Stats on a path that already does far more, so reading them costs nothing extra.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "pami/select.h"

namespace pamir {

// The paths a peer is reached by, for the per-device counts (Context::Peer::path).
enum class Path : uint8_t { self, shm, ofi, torus, count_ };
const char *path_name(Path p);

struct Stats {
  // Point-to-point sends by the device that carried them and their protocol (print_stats sums the
  // devices for the per-protocol totals).
  uint64_t sends_by_path[unsigned(Path::count_)][unsigned(SendProtocol::count_)] = {};
  uint64_t bytes_by_path[unsigned(Path::count_)][unsigned(SendProtocol::count_)] = {};
  uint64_t self_sends = 0;
  uint64_t unexpected = 0;   // messages that arrived before their receive
  uint64_t send_queued = 0;  // sends (and windows' served packets) that found the device full and waited
  uint64_t sleeps = 0;       // times a blocked call slept on its doorbell
  // The progress thread (pami/progress_thread.h): engagements, its passes of progress, and the engaged
  // operations it completed itself (the rest were completed by the application's calls).
  uint64_t async_engaged = 0;
  uint64_t async_passes = 0;
  uint64_t async_completed = 0;
  // The largest number of passes between fabric polls while shm was busy (Context::poll_ofi_timed):
  // above PAMIR_OFI_POLL_INTERVAL when polls cost more than their share of the time.
  uint64_t ofi_interval_max = 0;
  // Registrations of a read's destination where the provider asks for FI_MR_LOCAL: one per operation.
  uint64_t ofi_local_registrations = 0;
  uint64_t ofi_credits = 0;  // not a count: the credits this process gave each ofi peer (PAMIR_OFI_CREDITS)
  uint64_t rdv_reads = 0;    // rendezvous messages this rank read from their origin
  uint64_t rdv_resends = 0;  // rendezvous messages it could not read and had pushed instead
  // The acknowledgment counters of seed 001, summed so tests can check every arming and every zero.
  uint64_t rdv_origin_armed = 0;  // origin: bytes its counters were armed with before the request-to-send
  uint64_t rdv_origin_acked = 0;  // origin: counters seen at zero (sends completed by the target's ack)
  uint64_t rdv_target_armed = 0;  // target: bytes its counters were set to when a request-to-send matched
  uint64_t rdv_target_zero = 0;   // target: counters that reached zero (acknowledgments written)
  uint64_t rdv_shared = 0;        // target: messages it shared the copy of with their origin
  uint64_t rdv_helped_bytes = 0;  // origin: bytes it wrote into its targets' buffers in shared copies
  // Recorded sends whose data the device registered once and kept (ofi), and starts that reused it.
  uint64_t rdv_async_reads = 0;  // target: rendezvous reads the device did in the background
  uint64_t rdv_atomic_acks = 0;  // target: acknowledgments written by a remote atomic (PAMIR_OFI_ACK)
  uint64_t rdv_holds = 0;
  uint64_t rdv_held_reuses = 0;
  // Non-contiguous data (seed 003): rendezvous reads that moved common chunks straight between the two
  // layouts, the chunks, and packets packed straight from a layout or unpacked straight into one.
  uint64_t dt_chunk_reads = 0;
  uint64_t dt_chunks = 0;
  uint64_t dt_pushed =
      0;  // target: rendezvous between layouts of small pieces it had pushed through the rings
  uint64_t dt_packed_packets = 0;
  uint64_t dt_unpacked_packets = 0;
  // Record and replay (seed 004): sections recorded, descriptors built into them, starts that
  // replayed a section (the recording start included; a persistent collective counts each phase), starts
  // that found no room in the FIFO, and collective starts whose messages differed from the recording.
  uint64_t pattern_records = 0;
  uint64_t pattern_descriptors = 0;
  uint64_t pattern_replays = 0;
  uint64_t pattern_fallbacks = 0;
  uint64_t pattern_diverged = 0;
  // Starts whose sends a device replayed from its own FIFO (the torus), and descriptors this rank wrote
  // into the torus's injection FIFO (at MPI_Finalize): a replay writes none.
  uint64_t pattern_device_starts = 0;
  uint64_t torus_descriptors = 0;
  // Replayed receives completed from a landing, with no matching (the torus).
  uint64_t pattern_landed = 0;
  // The ready-token direct put: tokens this rank sent, puts it made and their bytes.
  uint64_t direct_tokens = 0;
  uint64_t direct_puts = 0;
  uint64_t direct_put_bytes = 0;
  // The mailboxes (small messages, pami/protocols/mailbox.cc): tokens this rank wrote, messages it sent
  // through one, messages it took from one.
  uint64_t box_tokens = 0;
  uint64_t box_sent = 0;
  uint64_t box_taken = 0;
  // One-sided windows' offers (pami/protocols/window_offer.cc): made by this rank as an origin, taken back
  // and done by it through the device, and taken by it as a target.
  uint64_t win_offers = 0;
  uint64_t win_offers_taken_back = 0;
  uint64_t win_offers_taken = 0;
  uint64_t win_offers_grown = 0;     // puts and gets that joined an offer not yet taken (Window::grow)
  uint64_t win_offers_streamed = 0;  // puts and gets whose data went through memory (stream_copy.h)
  // Operations this rank sent its targets to serve (kDispatchWin).
  uint64_t win_served = 0;
  uint64_t win_shared = 0;           // batches whose cross-memory calls the target shared (window_batch.cc)
  uint64_t win_device_rma = 0;       // puts and gets by a device's own RMA (window_remote.cc)
  uint64_t win_mapped_streamed = 0;  // mapped puts and gets copied with streaming stores (RunCopier)
  uint64_t puts_by_protocol[unsigned(PutProtocol::count_)] = {};
  uint64_t put_bytes_by_protocol[unsigned(PutProtocol::count_)] = {};
  uint64_t gets_by_protocol[unsigned(GetProtocol::count_)] = {};
  uint64_t get_bytes_by_protocol[unsigned(GetProtocol::count_)] = {};
};

inline Stats g_stats;
inline Stats &stats() {
  return g_stats;
}
// One line per counter, "name value", for PAMIR_STATS output.
void print_stats(int rank);

// The counters as one registry: PAMIR_STATS prints the scalar ones at MPI_Finalize, MPI_T reads every
// one as a performance variable (mpi/mpit.cc). `count` elements of uint64_t at `offset` in Stats; the
// arrays are indexed [path][protocol] (sends) or [protocol] (puts, gets).
enum class CounterKind { counter, highwatermark, size };
struct Counter {
  const char *name;
  const char *about;
  size_t offset;
  unsigned count;
  CounterKind kind;
  const char *category;  // the layer that counts it
};
const std::vector<Counter> &counters();
inline const uint64_t *counter_values(const Counter &c) {
  return reinterpret_cast<const uint64_t *>(reinterpret_cast<const char *>(&stats()) + c.offset);
}

}  // namespace pamir
