// Predefined datatypes and the datatype queries of this issue.
#include "mpi/datatype.h"

#include <complex.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstring>
#include <type_traits>

#include "mpi/check.h"
#include "mpi/status.h"
#include "pamir_alias.h"

namespace pamir::mpi {

namespace {

using coll::ElemType;

template <typename V>
struct PairOf {
  V value;
  int index;
};
struct LongDoubleInt {
  long double value;
  int index;
};

struct Predef {
  MPI_Datatype handle;
  const char *name;
  int64_t size;
  int64_t extent;
  ElemType elem;
  int elements;  // basic elements per element (2 for the MINLOC/MAXLOC pairs)
  uint32_t align;
  // Pairs only: bytes of the first member and the offset of the second (its size is size - first).
  // The padding may sit between the members (MPI_SHORT_INT: short at 0, int at 4).
  int64_t first = 0;
  int64_t second_at = 0;
};

#define SAME(h, T, e) \
  { h, #h, sizeof(T), sizeof(T), e, 1, alignof(T) }
#define RAW(h, n, e) \
  { h, #h, n, n, e, 1, n < 16 ? n : 16 }
#define PAIR(h, V, e)                                                                       \
  {                                                                                         \
    h, #h, sizeof(V) + sizeof(int), sizeof(PairOf<V>), e, 2, alignof(PairOf<V>), sizeof(V), \
        offsetof(PairOf<V>, index)                                                          \
  }
#define TWIN(h, V, e) \
  { h, #h, 2 * sizeof(V), 2 * sizeof(V), e, 2, alignof(V), sizeof(V), sizeof(V) }

// Every predefined datatype of the ABI with its layout and what reductions see.
const Predef kPredefined[] = {
    SAME(MPI_AINT, MPI_Aint, ElemType::i64),
    SAME(MPI_COUNT, MPI_Count, ElemType::i64),
    SAME(MPI_OFFSET, MPI_Offset, ElemType::i64),
    RAW(MPI_PACKED, 1, ElemType::none),
    SAME(MPI_SHORT, short, ElemType::i16),
    SAME(MPI_INT, int, ElemType::i32),
    SAME(MPI_LONG, long, ElemType::i64),
    SAME(MPI_LONG_LONG, long long, ElemType::i64),
    SAME(MPI_UNSIGNED_SHORT, unsigned short, ElemType::u16),
    SAME(MPI_UNSIGNED, unsigned, ElemType::u32),
    SAME(MPI_UNSIGNED_LONG, unsigned long, ElemType::u64),
    SAME(MPI_UNSIGNED_LONG_LONG, unsigned long long, ElemType::u64),
    SAME(MPI_FLOAT, float, ElemType::f32),
    SAME(MPI_C_FLOAT_COMPLEX, float _Complex, ElemType::cf32),
    SAME(MPI_DOUBLE, double, ElemType::f64),
    SAME(MPI_C_DOUBLE_COMPLEX, double _Complex, ElemType::cf64),
    SAME(MPI_LONG_DOUBLE, long double, ElemType::f80),
    SAME(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex, ElemType::cf80),
    SAME(MPI_C_BOOL, bool, ElemType::c_bool),
    SAME(MPI_WCHAR, wchar_t, ElemType::character),
    SAME(MPI_INT8_T, int8_t, ElemType::i8),
    SAME(MPI_UINT8_T, uint8_t, ElemType::u8),
    // MPI defines no arithmetic on MPI_CHAR, but Open MPI and MPICH reduce it as the C char it is, and
    // programs count on that (the OSU 7 reduction benchmarks use it by default): so does Pamir.
    SAME(MPI_CHAR, char, std::is_signed_v<char> ? ElemType::i8 : ElemType::u8),
    SAME(MPI_SIGNED_CHAR, signed char, ElemType::i8),
    SAME(MPI_UNSIGNED_CHAR, unsigned char, ElemType::u8),
    SAME(MPI_BYTE, unsigned char, ElemType::byte),
    SAME(MPI_INT16_T, int16_t, ElemType::i16),
    SAME(MPI_UINT16_T, uint16_t, ElemType::u16),
    SAME(MPI_INT32_T, int32_t, ElemType::i32),
    SAME(MPI_UINT32_T, uint32_t, ElemType::u32),
    SAME(MPI_INT64_T, int64_t, ElemType::i64),
    SAME(MPI_UINT64_T, uint64_t, ElemType::u64),
    SAME(MPI_LOGICAL, int, ElemType::f_logical),
    SAME(MPI_INTEGER, int, ElemType::i32),
    SAME(MPI_REAL, float, ElemType::f32),
    SAME(MPI_COMPLEX, float _Complex, ElemType::cf32),
    SAME(MPI_DOUBLE_PRECISION, double, ElemType::f64),
    SAME(MPI_CHARACTER, char, ElemType::character),
    SAME(MPI_CXX_FLOAT_COMPLEX, float _Complex, ElemType::cf32),
    SAME(MPI_CXX_DOUBLE_COMPLEX, double _Complex, ElemType::cf64),
    SAME(MPI_CXX_LONG_DOUBLE_COMPLEX, long double _Complex, ElemType::cf80),
    SAME(MPI_CXX_BOOL, bool, ElemType::c_bool),
    SAME(MPI_DOUBLE_COMPLEX, double _Complex, ElemType::cf64),
    RAW(MPI_LOGICAL1, 1, ElemType::none),
    RAW(MPI_LOGICAL2, 2, ElemType::none),
    RAW(MPI_LOGICAL4, 4, ElemType::f_logical),
    RAW(MPI_LOGICAL8, 8, ElemType::none),
    RAW(MPI_LOGICAL16, 16, ElemType::none),
    SAME(MPI_INTEGER1, int8_t, ElemType::i8),
    SAME(MPI_INTEGER2, int16_t, ElemType::i16),
    SAME(MPI_INTEGER4, int32_t, ElemType::i32),
    SAME(MPI_INTEGER8, int64_t, ElemType::i64),
    RAW(MPI_INTEGER16, 16, ElemType::none),
    RAW(MPI_REAL2, 2, ElemType::none),
    SAME(MPI_REAL4, float, ElemType::f32),
    SAME(MPI_REAL8, double, ElemType::f64),
    RAW(MPI_REAL16, 16, ElemType::none),
    RAW(MPI_COMPLEX4, 4, ElemType::none),
    SAME(MPI_COMPLEX8, float _Complex, ElemType::cf32),
    SAME(MPI_COMPLEX16, double _Complex, ElemType::cf64),
    RAW(MPI_COMPLEX32, 32, ElemType::none),
    PAIR(MPI_FLOAT_INT, float, ElemType::float_int),
    PAIR(MPI_DOUBLE_INT, double, ElemType::double_int),
    PAIR(MPI_LONG_INT, long, ElemType::long_int),
    PAIR(MPI_2INT, int, ElemType::int2),
    PAIR(MPI_SHORT_INT, short, ElemType::short_int),
    {MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", sizeof(long double) + sizeof(int), sizeof(LongDoubleInt),
     ElemType::long_double_int, 2, alignof(LongDoubleInt), sizeof(long double),
     offsetof(LongDoubleInt, index)},
    TWIN(MPI_2REAL, float, ElemType::real2),
    TWIN(MPI_2DOUBLE_PRECISION, double, ElemType::double2),
    TWIN(MPI_2INTEGER, int, ElemType::integer2),
};
#undef SAME
#undef RAW
#undef PAIR
#undef TWIN

constexpr size_t kNumPredefined = sizeof(kPredefined) / sizeof(kPredefined[0]);
Datatype predefined_objects[kNumPredefined];

// The value type of a pair: the basic type its first member is (MPI_DOUBLE for MPI_DOUBLE_INT).
MPI_Datatype pair_value(MPI_Datatype pair) {
  static const MPI_Datatype map[][2] = {
      {MPI_FLOAT_INT, MPI_FLOAT},  {MPI_DOUBLE_INT, MPI_DOUBLE},
      {MPI_LONG_INT, MPI_LONG},    {MPI_2INT, MPI_INT},
      {MPI_SHORT_INT, MPI_SHORT},  {MPI_LONG_DOUBLE_INT, MPI_LONG_DOUBLE},
      {MPI_2REAL, MPI_REAL},       {MPI_2DOUBLE_PRECISION, MPI_DOUBLE_PRECISION},
      {MPI_2INTEGER, MPI_INTEGER},
  };
  for (const auto &m : map)
    if (m[0] == pair) return m[1];
  return MPI_DATATYPE_NULL;
}

// One element's layout: a basic type is one piece whose signature names itself; a pair is the struct
// of its two members (the second an MPI_INT unless both are the value type).
dt::Layout predefined_layout(const Predef &p) {
  const uint32_t id = uint32_t(reinterpret_cast<uintptr_t>(p.handle));
  if (p.elements == 1) return dt::basic(uint64_t(p.size), id, p.align);
  const uint32_t value_id = uint32_t(reinterpret_cast<uintptr_t>(pair_value(p.handle)));
  const uint64_t second = uint64_t(p.size - p.first);
  // The Fortran pairs are two of the value type; the C ones a value and an int.
  const bool twin = p.handle == MPI_2REAL || p.handle == MPI_2DOUBLE_PRECISION || p.handle == MPI_2INTEGER;
  const uint32_t second_id = twin ? value_id : uint32_t(uintptr_t(MPI_INT));
  const dt::Layout a = dt::basic(uint64_t(p.first), value_id, p.align);
  const dt::Layout b = dt::basic(second, second_id, second_id == value_id ? p.align : alignof(int));
  const dt::Layout *parts[] = {&a, &b};
  const uint64_t bl[] = {1, 1};
  const int64_t d[] = {0, p.second_at};
  dt::Layout l = dt::structure(2, bl, d, parts);
  l.ub = l.lb + p.extent;  // the C struct's own size
  return l;
}

}  // namespace

void datatype_derive_fields(Datatype *t) {
  const dt::Layout &l = t->layout;
  t->size = int64_t(l.size);
  t->lb = l.lb;
  t->extent = l.extent();
  t->true_lb = l.true_lb;
  t->true_extent = l.true_extent();
  t->dense = l.size == 0 || l.dense();
  t->first = l.segs.empty() ? 0 : l.segs[0].offset;
  t->contiguous = t->dense && t->first == 0;
  t->any_signature = !l.sig.empty();
  for (const dt::SigRun &r : l.sig)
    if (r.id != uint32_t(uintptr_t(MPI_BYTE)) && r.id != uint32_t(uintptr_t(MPI_PACKED)))
      t->any_signature = false;
}

void datatypes_init() {
  for (size_t i = 0; i < kNumPredefined; ++i) {
    const Predef &p = kPredefined[i];
    Datatype &t = predefined_objects[i];
    t.magic = uint32_t(Kind::datatype);
    t.predefined = true;
    t.layout = predefined_layout(p);
    datatype_derive_fields(&t);
    t.committed = true;
    t.elem = p.elem;
    t.predefined_name = p.name;
    t.predefined_value = reinterpret_cast<uintptr_t>(p.handle);
    predefined_slot<Datatype>(reinterpret_cast<uintptr_t>(p.handle)) = &t;
  }
}

Datatype *datatype_of(uintptr_t value) {
  return value < kPredefinedLimit ? predefined_slot<Datatype>(value) : nullptr;
}

const char *type_name(const Datatype *t) {
  if (!t->name.empty()) return t->name.c_str();
  if (t->predefined_name) return t->predefined_name;
  return "a derived datatype";
}

void datatype_release(Datatype *t) {
  if (!t || t->predefined || --t->refs > 0) return;
  for (Datatype *p : t->parts) datatype_release(p);
  t->parts.clear();
  attrs_forget(t);  // MPI_Type_free deleted them, callbacks and all; any set since go without
  pool<Datatype>().destroy(t);
}

void pack_data(const Data &d, void *out) {
  if (d.bytes == 0) return;
  if (!d.layout) {
    std::memcpy(out, d.base, d.bytes);
    return;
  }
  dt::Cursor c = dt::cursor(*d.layout, d.elems);
  dt::pack(d.base, c, out, d.bytes);
}

void unpack_data(const Data &d, const void *in) {
  if (d.bytes == 0) return;
  if (!d.layout) {
    std::memcpy(d.base, in, d.bytes);
    return;
  }
  dt::Cursor c = dt::cursor(*d.layout, d.elems);
  dt::unpack(d.base, c, in, d.bytes);
}

// A message may end inside an element: its whole basic elements still count (one MPI_SHORT received as
// MPI_SHORT_INT is one basic element); one that ends inside a basic element is MPI_UNDEFINED.
MPI_Count count_of(const Datatype *t, uint64_t bytes, bool basic) {
  if (t->size == 0) return bytes == 0 ? 0 : MPI_UNDEFINED;
  const uint64_t per = uint64_t(t->size);
  uint64_t rem = bytes % per;
  const MPI_Count n = MPI_Count(bytes / per);
  if (!basic) return rem ? MPI_Count(MPI_UNDEFINED) : n;
  MPI_Count total = n * MPI_Count(t->layout.basic_count());
  for (const dt::SigRun &run : t->layout.sig) {
    if (rem == 0) break;
    const uint64_t k = std::min<uint64_t>(rem / run.bytes, run.count);
    total += MPI_Count(k);
    rem -= k * run.bytes;
    if (k < run.count) break;
  }
  return rem ? MPI_Count(MPI_UNDEFINED) : total;
}

static uint64_t status_bytes(const MPI_Status *st) {
  return status_bytes_of(st);
}

// MPI_Type_size in each width: an int cannot hold more than INT_MAX (MPI_UNDEFINED then).
template <typename T>
int size_query(const char *fn_, MPI_Datatype datatype, T *size) {
  Datatype *t = PAMIR_ANY_TYPE(nullptr, datatype);
  PAMIR_CHECK(nullptr, size, MPI_ERR_ARG, "size is NULL");
  *size = std::is_same_v<T, int> && t->size > INT_MAX ? T(MPI_UNDEFINED) : T(t->size);
  return MPI_SUCCESS;
}

// MPI_Type_get_extent and MPI_Type_get_true_extent in each width.
template <typename T>
int bounds_query(const char *fn_, MPI_Datatype datatype, T *lb, T *extent, bool true_bounds) {
  Datatype *t = PAMIR_ANY_TYPE(nullptr, datatype);
  PAMIR_CHECK(nullptr, lb && extent, MPI_ERR_ARG,
              true_bounds ? "true_lb or true_extent is NULL" : "lb or extent is NULL");
  *lb = T(true_bounds ? t->true_lb : t->lb);
  *extent = T(true_bounds ? t->true_extent : t->extent);
  return MPI_SUCCESS;
}

}  // namespace pamir::mpi

using namespace pamir::mpi;

int PMPI_Type_size(MPI_Datatype datatype, int *size) {
  PAMIR_ENTER("MPI_Type_size");
  return size_query(fn_, datatype, size);
}
PAMIR_ALIAS(Type_size);
int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size) {
  PAMIR_ENTER("MPI_Type_size_c");
  return size_query(fn_, datatype, size);
}
PAMIR_ALIAS(Type_size_c);
int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size) {  // MPI 3's name of the _c form
  PAMIR_ENTER("MPI_Type_size_x");
  return size_query(fn_, datatype, size);
}
PAMIR_ALIAS(Type_size_x);

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent) {
  PAMIR_ENTER("MPI_Type_get_extent");
  return bounds_query(fn_, datatype, lb, extent, false);
}
PAMIR_ALIAS(Type_get_extent);
int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent) {
  PAMIR_ENTER("MPI_Type_get_extent_c");
  return bounds_query(fn_, datatype, lb, extent, false);
}
PAMIR_ALIAS(Type_get_extent_c);
int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent) {
  PAMIR_ENTER("MPI_Type_get_extent_x");
  return bounds_query(fn_, datatype, lb, extent, false);
}
PAMIR_ALIAS(Type_get_extent_x);

int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent) {
  PAMIR_ENTER("MPI_Type_get_true_extent");
  return bounds_query(fn_, datatype, true_lb, true_extent, true);
}
PAMIR_ALIAS(Type_get_true_extent);
int PMPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent) {
  PAMIR_ENTER("MPI_Type_get_true_extent_c");
  return bounds_query(fn_, datatype, true_lb, true_extent, true);
}
PAMIR_ALIAS(Type_get_true_extent_c);
int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent) {
  PAMIR_ENTER("MPI_Type_get_true_extent_x");
  return bounds_query(fn_, datatype, true_lb, true_extent, true);
}
PAMIR_ALIAS(Type_get_true_extent_x);

int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen) {
  PAMIR_ENTER("MPI_Type_get_name");
  PAMIR_CHECK(nullptr, type_name && resultlen, MPI_ERR_ARG, "type_name or resultlen is NULL");
  // MPI 4.1: the null handle's name.
  const Datatype *t = datatype == MPI_DATATYPE_NULL ? nullptr : PAMIR_ANY_TYPE(nullptr, datatype);
  const char *name = !t                   ? "MPI_DATATYPE_NULL"
                     : !t->name.empty()   ? t->name.c_str()
                     : t->predefined_name ? t->predefined_name
                                          : "";
  size_t n = std::min<size_t>(std::strlen(name), MPI_MAX_OBJECT_NAME - 1);
  std::memcpy(type_name, name, n);
  type_name[n] = '\0';
  *resultlen = int(n);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Type_get_name);

int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name) {
  PAMIR_ENTER("MPI_Type_set_name");
  Datatype *t = PAMIR_ANY_TYPE(nullptr, datatype);
  PAMIR_CHECK(nullptr, type_name, MPI_ERR_ARG, "type_name is NULL");
  t->name.assign(type_name, strnlen(type_name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Type_set_name);

int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count) {
  PAMIR_ENTER("MPI_Get_count");
  Datatype *t = PAMIR_TYPE(nullptr, datatype);
  PAMIR_CHECK(nullptr, status && count, MPI_ERR_ARG, "status or count is NULL");
  MPI_Count n = count_of(t, status_bytes(status), false);
  *count = n > INT_MAX ? MPI_UNDEFINED : int(n);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Get_count);

int PMPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count) {
  PAMIR_ENTER("MPI_Get_count_c");
  Datatype *t = PAMIR_TYPE(nullptr, datatype);
  PAMIR_CHECK(nullptr, status && count, MPI_ERR_ARG, "status or count is NULL");
  *count = count_of(t, status_bytes(status), false);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Get_count_c);

int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count) {
  PAMIR_ENTER("MPI_Get_elements");
  Datatype *t = PAMIR_TYPE(nullptr, datatype);
  PAMIR_CHECK(nullptr, status && count, MPI_ERR_ARG, "status or count is NULL");
  MPI_Count n = count_of(t, status_bytes(status), true);
  *count = n > INT_MAX ? MPI_UNDEFINED : int(n);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Get_elements);

int PMPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count) {
  PAMIR_ENTER("MPI_Get_elements_c");
  Datatype *t = PAMIR_TYPE(nullptr, datatype);
  PAMIR_CHECK(nullptr, status && count, MPI_ERR_ARG, "status or count is NULL");
  *count = count_of(t, status_bytes(status), true);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Get_elements_c);

int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count) {
  PAMIR_ENTER("MPI_Get_elements_x");
  Datatype *t = PAMIR_TYPE(nullptr, datatype);
  PAMIR_CHECK(nullptr, status && count, MPI_ERR_ARG, "status or count is NULL");
  *count = count_of(t, status_bytes(status), true);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Get_elements_x);

// MPI 4.1: the predefined pair of a value type and an index type for MINLOC/MAXLOC, MPI_DATATYPE_NULL
// where MPI defines none.
int PMPI_Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type, MPI_Datatype *pair_type) {
  PAMIR_ENTER("MPI_Type_get_value_index");
  PAMIR_ANY_TYPE(nullptr, value_type);
  PAMIR_ANY_TYPE(nullptr, index_type);
  PAMIR_CHECK(nullptr, pair_type, MPI_ERR_ARG, "pair_type is NULL");
  static const MPI_Datatype pairs[][3] = {
      {MPI_FLOAT, MPI_INT, MPI_FLOAT_INT},
      {MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT},
      {MPI_LONG, MPI_INT, MPI_LONG_INT},
      {MPI_INT, MPI_INT, MPI_2INT},
      {MPI_SHORT, MPI_INT, MPI_SHORT_INT},
      {MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT},
      {MPI_REAL, MPI_REAL, MPI_2REAL},
      {MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION},
      {MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER},
  };
  *pair_type = MPI_DATATYPE_NULL;
  for (const auto &p : pairs)
    if (p[0] == value_type && p[1] == index_type) *pair_type = p[2];
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Type_get_value_index);

// The Fortran sized type of a class and size (MPI_REAL8 for MPI_TYPECLASS_REAL, 8; MPI_LOGICAL4 for
// MPIX_TYPECLASS_LOGICAL, 4, as MPICH does).
int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype) {
  PAMIR_ENTER("MPI_Type_match_size");
  PAMIR_CHECK(nullptr, datatype, MPI_ERR_ARG, "datatype is NULL");
  static const struct {
    int typeclass, size;
    MPI_Datatype type;
  } sized[] = {
      {MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1},   {MPI_TYPECLASS_INTEGER, 2, MPI_INTEGER2},
      {MPI_TYPECLASS_INTEGER, 4, MPI_INTEGER4},   {MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8},
      {MPI_TYPECLASS_INTEGER, 16, MPI_INTEGER16}, {MPI_TYPECLASS_REAL, 2, MPI_REAL2},
      {MPI_TYPECLASS_REAL, 4, MPI_REAL4},         {MPI_TYPECLASS_REAL, 8, MPI_REAL8},
      {MPI_TYPECLASS_REAL, 16, MPI_REAL16},       {MPI_TYPECLASS_COMPLEX, 4, MPI_COMPLEX4},
      {MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX8},   {MPI_TYPECLASS_COMPLEX, 16, MPI_COMPLEX16},
      {MPI_TYPECLASS_COMPLEX, 32, MPI_COMPLEX32}, {MPIX_TYPECLASS_LOGICAL, 1, MPI_LOGICAL1},
      {MPIX_TYPECLASS_LOGICAL, 2, MPI_LOGICAL2},  {MPIX_TYPECLASS_LOGICAL, 4, MPI_LOGICAL4},
      {MPIX_TYPECLASS_LOGICAL, 8, MPI_LOGICAL8},  {MPIX_TYPECLASS_LOGICAL, 16, MPI_LOGICAL16},
  };
  for (const auto &s : sized)
    if (s.typeclass == typeclass && s.size == size) {
      *datatype = s.type;
      return MPI_SUCCESS;
    }
  return raise(nullptr, fn_, MPI_ERR_ARG, "no predefined type of class %d has %d bytes", typeclass, size);
}
PAMIR_ALIAS(Type_match_size);
