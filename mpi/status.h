// MPI_Status as the ABI lays it out: MPI_SOURCE, MPI_TAG, MPI_ERROR and five internal ints. Pamir
// keeps the byte count (64 bits) in MPI_internal[0..1] and the cancelled flag in MPI_internal[2].
#pragma once

#include <mpi.h>

#include <cstdint>
#include <cstring>

#include "pami/request.h"

namespace pamir::mpi {

inline uint64_t status_bytes_of(const MPI_Status *st) {
  uint64_t b;
  std::memcpy(&b, &st->MPI_internal[0], sizeof b);
  return b;
}

inline void status_set_bytes(MPI_Status *st, uint64_t bytes) {
  std::memcpy(&st->MPI_internal[0], &bytes, sizeof bytes);
}

// The status of an operation that did nothing (MPI_PROC_NULL, a null request).
inline void status_empty(MPI_Status *st) {
  if (st == MPI_STATUS_IGNORE) return;
  st->MPI_SOURCE = MPI_ANY_SOURCE;
  st->MPI_TAG = MPI_ANY_TAG;
  status_set_bytes(st, 0);
  st->MPI_internal[2] = 0;
}

inline void status_proc_null(MPI_Status *st) {
  if (st == MPI_STATUS_IGNORE) return;
  st->MPI_SOURCE = MPI_PROC_NULL;
  st->MPI_TAG = MPI_ANY_TAG;
  status_set_bytes(st, 0);
  st->MPI_internal[2] = 0;
}

inline void status_from(MPI_Status *st, const pamir::Status &s) {
  if (st == MPI_STATUS_IGNORE) return;
  st->MPI_SOURCE = s.source;
  st->MPI_TAG = s.tag;
  status_set_bytes(st, s.bytes);
  st->MPI_internal[2] = s.cancelled;
}

}  // namespace pamir::mpi
