// Datatypes. This issue covers the predefined ones; derived types (seed 003) come with the datatype
// issue and extend this struct, not replace it.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>

#include "collectives/reduce_ops.h"
#include "mpi/object.h"

namespace pamir::mpi {

struct Datatype : Object {
  static constexpr Kind kKind = Kind::datatype;
  int64_t size = 0;    // bytes of data in one element
  int64_t extent = 0;  // stride between consecutive elements
  int64_t lb = 0;
  int64_t true_lb = 0;
  int64_t true_extent = 0;
  bool contiguous = true;  // one element is `size` bytes at offset 0 and size == extent
  bool committed = true;
  coll::ElemType elem = coll::ElemType::none;  // what reductions see (none: not reducible)
  const char *predefined_name = nullptr;
  std::string name;  // MPI_Type_set_name
};

void datatypes_init();
Datatype *datatype_of(uintptr_t predefined_value);

// Bytes that `count` elements span in memory for a send or receive (contiguous types).
inline uint64_t span_bytes(const Datatype *t, uint64_t count) { return uint64_t(t->extent) * count; }

}  // namespace pamir::mpi
