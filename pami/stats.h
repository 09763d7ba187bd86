// Counters kept in one registry with the settings, printed at MPI_Finalize under PAMIR_STATS=1 and
// read by tests; later exposed as MPI_T performance variables.
#pragma once

#include <cstdint>

#include "pami/select.h"

namespace pamir {

struct Stats {
  uint64_t sends_by_protocol[unsigned(SendProtocol::count_)] = {};
  uint64_t bytes_by_protocol[unsigned(SendProtocol::count_)] = {};
  uint64_t self_sends = 0;
  uint64_t unexpected = 0;   // messages that arrived before their receive
  uint64_t send_queued = 0;  // sends that found the device full and waited
  uint64_t sleeps = 0;       // times a blocked call slept on its doorbell
  uint64_t rdv_reads = 0;    // rendezvous messages this rank read from their origin
  uint64_t rdv_resends = 0;  // rendezvous messages it could not read and had pushed instead
};

inline Stats g_stats;
inline Stats &stats() {
  return g_stats;
}
// One line per counter, "name value", for PAMIR_STATS output.
void print_stats(int rank);

}  // namespace pamir
