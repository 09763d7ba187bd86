// Datatypes: the predefined ones and the derived ones of the datatype chapter. Every type carries its
// flattened layout (datatype/, seed 003); the binding decides per call whether the data is one
// contiguous piece or travels through the layout.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "collectives/reduce_ops.h"
#include "datatype/layout.h"
#include "mpi/attr.h"
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
  bool dense = true;       // any number of elements is one piece of size * count bytes at buf + first
  int64_t first = 0;       // offset of the first data byte (dense types)
  bool committed = true;
  bool permanent = false;  // MPI_Type_create_f90_*'s: predefined in all but the handle, never freed
  coll::ElemType elem = coll::ElemType::none;  // what reductions see (none: not reducible)
  bool any_signature = false;  // only MPI_BYTE / MPI_PACKED: matches any signature (PAMIR_CHECK_SIGNATURE)
  uint64_t elem_count = 1;     // basic elements a predefined operation sees in one element (derived types)
  const char *predefined_name = nullptr;
  uintptr_t predefined_value = 0;  // the handle of a predefined type
  std::string name;                // MPI_Type_set_name
  std::map<int, Attr> attrs;       // keyval id -> value (MPI_Type_set_attr)
  dt::Layout layout;

  // How a derived type was made, for MPI_Type_get_envelope / MPI_Type_get_contents. The types it was
  // made from are held (refs) until it is destroyed.
  int combiner = MPI_COMBINER_NAMED;
  std::vector<int> ints;
  std::vector<MPI_Aint> aints;
  std::vector<MPI_Count> counts;
  std::vector<struct Datatype *> parts;
};

void datatypes_init();
Datatype *datatype_of(uintptr_t predefined_value);

// Sets the cached bounds and the contiguity flags from t->layout.
void datatype_derive_fields(Datatype *t);
// The handle of a datatype object: its address and generation, or for a predefined one its small integer.
inline MPI_Datatype handle_of_type(const Datatype *t) {
  if (t->predefined) return reinterpret_cast<MPI_Datatype>(t->predefined_value);
  return handle_of<MPI_Datatype>(const_cast<Datatype *>(t));
}
// Its name for messages: the user's, the predefined one, or "a derived datatype".
const char *type_name(const Datatype *t);
// Drops one reference; a derived type with none left is destroyed and drops its parts.
void datatype_release(Datatype *t);

// Bytes that `count` elements span in memory (contiguous types: collectives, reductions).
inline uint64_t span_bytes(const Datatype *t, uint64_t count) {
  return uint64_t(t->extent) * count;
}

// Where `count` elements of t at buf are, for a transfer: one contiguous piece (`layout` null) or
// `count` elements of the layout from buf. `bytes` is the data either way.
struct Data {
  void *base;
  uint64_t bytes;
  const dt::Layout *layout;
  uint64_t elems;
};
// Offsets are added as integers: with MPI_BOTTOM (a null pointer) they are absolute addresses.
inline Data data_of(const Datatype *t, const void *buf, uint64_t count) {
  const uint64_t bytes = uint64_t(t->size) * count;
  const uintptr_t b = reinterpret_cast<uintptr_t>(buf);
  if (__builtin_expect(t->dense, 1))
    return {reinterpret_cast<void *>(b + uintptr_t(t->first)), bytes, nullptr, 0};
  if (count <= 1 && t->layout.segs.size() <= 1 && t->layout.loops.empty()) {
    const int64_t first = t->layout.segs.empty() ? 0 : t->layout.segs[0].offset;
    return {reinterpret_cast<void *>(b + uintptr_t(first)), bytes, nullptr, 0};
  }
  return {const_cast<void *>(buf), bytes, &t->layout, count};
}

// Copies the data d describes into `out` (d.bytes bytes), or back out of it.
void pack_data(const Data &d, void *out);
void unpack_data(const Data &d, const void *in);

// Elements (basic elements when `basic`) in `bytes` of type t: MPI_UNDEFINED when not a whole number.
MPI_Count count_of(const Datatype *t, uint64_t bytes, bool basic);

}  // namespace pamir::mpi
