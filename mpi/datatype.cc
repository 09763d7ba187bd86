// Predefined datatypes and the datatype queries of this issue.
#include "mpi/datatype.h"

#include <complex.h>

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
  // Pairs only: bytes of the first member and the offset of the second (its size is size - first).
  // The padding may sit between the members (MPI_SHORT_INT: short at 0, int at 4), so the true
  // extent and the partial counts of MPI_Get_elements need the real layout, not the size.
  int64_t first = 0;
  int64_t second_at = 0;
};

#define SAME(h, T, e) {h, #h, sizeof(T), sizeof(T), e, 1}
#define PAIR(h, V, e) \
  {h, #h, sizeof(V) + sizeof(int), sizeof(PairOf<V>), e, 2, sizeof(V), offsetof(PairOf<V>, index)}

// Every predefined datatype of the ABI with its layout and what reductions see.
const Predef kPredefined[] = {
    SAME(MPI_AINT, MPI_Aint, ElemType::i64),
    SAME(MPI_COUNT, MPI_Count, ElemType::i64),
    SAME(MPI_OFFSET, MPI_Offset, ElemType::i64),
    {MPI_PACKED, "MPI_PACKED", 1, 1, ElemType::none, 1},
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
    {MPI_LOGICAL1, "MPI_LOGICAL1", 1, 1, ElemType::none, 1},
    {MPI_LOGICAL2, "MPI_LOGICAL2", 2, 2, ElemType::none, 1},
    {MPI_LOGICAL4, "MPI_LOGICAL4", 4, 4, ElemType::f_logical, 1},
    {MPI_LOGICAL8, "MPI_LOGICAL8", 8, 8, ElemType::none, 1},
    {MPI_LOGICAL16, "MPI_LOGICAL16", 16, 16, ElemType::none, 1},
    SAME(MPI_INTEGER1, int8_t, ElemType::i8),
    SAME(MPI_INTEGER2, int16_t, ElemType::i16),
    SAME(MPI_INTEGER4, int32_t, ElemType::i32),
    SAME(MPI_INTEGER8, int64_t, ElemType::i64),
    {MPI_INTEGER16, "MPI_INTEGER16", 16, 16, ElemType::none, 1},
    {MPI_REAL2, "MPI_REAL2", 2, 2, ElemType::none, 1},
    SAME(MPI_REAL4, float, ElemType::f32),
    SAME(MPI_REAL8, double, ElemType::f64),
    {MPI_REAL16, "MPI_REAL16", 16, 16, ElemType::none, 1},
    {MPI_COMPLEX4, "MPI_COMPLEX4", 4, 4, ElemType::none, 1},
    SAME(MPI_COMPLEX8, float _Complex, ElemType::cf32),
    SAME(MPI_COMPLEX16, double _Complex, ElemType::cf64),
    {MPI_COMPLEX32, "MPI_COMPLEX32", 32, 32, ElemType::none, 1},
    PAIR(MPI_FLOAT_INT, float, ElemType::float_int),
    PAIR(MPI_DOUBLE_INT, double, ElemType::double_int),
    PAIR(MPI_LONG_INT, long, ElemType::long_int),
    PAIR(MPI_2INT, int, ElemType::int2),
    PAIR(MPI_SHORT_INT, short, ElemType::short_int),
    {MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", sizeof(long double) + sizeof(int), sizeof(LongDoubleInt),
     ElemType::long_double_int, 2, sizeof(long double), offsetof(LongDoubleInt, index)},
    {MPI_2REAL, "MPI_2REAL", 2 * sizeof(float), 2 * sizeof(float), ElemType::real2, 2, sizeof(float),
     sizeof(float)},
    {MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", 2 * sizeof(double), 2 * sizeof(double),
     ElemType::double2, 2, sizeof(double), sizeof(double)},
    {MPI_2INTEGER, "MPI_2INTEGER", 2 * sizeof(int), 2 * sizeof(int), ElemType::integer2, 2, sizeof(int),
     sizeof(int)},
};
#undef SAME
#undef PAIR

constexpr size_t kNumPredefined = sizeof(kPredefined) / sizeof(kPredefined[0]);
Datatype predefined_objects[kNumPredefined];
int elements_per[kPredefinedLimit];

}  // namespace

void datatypes_init() {
  for (size_t i = 0; i < kNumPredefined; ++i) {
    const Predef &p = kPredefined[i];
    Datatype &t = predefined_objects[i];
    t.magic = uint32_t(Kind::datatype);
    t.predefined = true;
    t.size = p.size;
    t.extent = p.extent;
    t.lb = 0;
    t.true_lb = 0;
    // A pair's data ends where its second member ends: past `size` when the padding sits between the
    // members (MPI_SHORT_INT's true extent is 8, its size 6).
    t.true_extent = p.elements == 2 ? p.second_at + (p.size - p.first) : p.size;
    t.contiguous = p.size == p.extent;
    t.committed = true;
    t.elem = p.elem;
    t.predefined_name = p.name;
    const uintptr_t v = reinterpret_cast<uintptr_t>(p.handle);
    predefined_slot<Datatype>(v) = &t;
    elements_per[v] = p.elements;
  }
}

Datatype *datatype_of(uintptr_t value) { return value < kPredefinedLimit ? predefined_slot<Datatype>(value) : nullptr; }

// The table entry of a predefined type, nullptr for others.
static const Predef *predef_of(const Datatype *t) {
  for (size_t i = 0; i < kNumPredefined; ++i)
    if (&predefined_objects[i] == t) return &kPredefined[i];
  return nullptr;
}

// Basic elements in one element of a predefined type (MPI_Get_elements).
static int basic_elements(const Datatype *t) {
  const Predef *p = predef_of(t);
  return p ? p->elements : 1;
}

// Whole basic elements in the first `rem` bytes (0 < rem < extent) of one element: a message may
// legally be a prefix of a pair's type signature (one MPI_SHORT received as MPI_SHORT_INT). A part
// that ends inside a basic element is not a whole number of them: MPI_UNDEFINED.
static MPI_Count partial_elements(const Datatype *t, uint64_t rem) {
  const Predef *p = predef_of(t);
  if (!p || p->elements != 2) return MPI_UNDEFINED;
  const uint64_t first = uint64_t(p->first), second_at = uint64_t(p->second_at);
  const uint64_t second_end = second_at + uint64_t(p->size - p->first);
  if (rem < first) return MPI_UNDEFINED;
  if (rem <= second_at) return 1;  // the value, perhaps with some of the padding after it
  if (rem < second_end) return MPI_UNDEFINED;
  return 2;  // both members, some of the trailing padding
}

// Elements (or basic elements) in `bytes` of type t: MPI_UNDEFINED when not a whole number.
static MPI_Count count_of(const Datatype *t, uint64_t bytes, bool basic) {
  if (t->size == 0) return bytes == 0 ? 0 : MPI_UNDEFINED;
  // Predefined pair types travel with their padding: one element occupies `extent` bytes on the wire.
  const uint64_t per = uint64_t(t->extent);
  if (bytes % per != 0) {
    if (!basic) return MPI_UNDEFINED;
    // A partial pair still counts its whole basic elements.
    const MPI_Count part = partial_elements(t, bytes % per);
    if (part == MPI_UNDEFINED) return MPI_UNDEFINED;
    return MPI_Count(bytes / per) * basic_elements(t) + part;
  }
  MPI_Count n = MPI_Count(bytes / per);
  return basic ? n * basic_elements(t) : n;
}

static uint64_t status_bytes(const MPI_Status *st) { return status_bytes_of(st); }

}  // namespace pamir::mpi

using namespace pamir::mpi;

int PMPI_Type_size(MPI_Datatype datatype, int *size) {
  PAMIR_ENTER("MPI_Type_size");
  Datatype *t = PAMIR_TYPE(nullptr, datatype);
  PAMIR_CHECK(nullptr, size, MPI_ERR_ARG, "size is NULL");
  *size = t->size > INT_MAX ? MPI_UNDEFINED : int(t->size);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Type_size);

int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size) {
  PAMIR_ENTER("MPI_Type_size_c");
  Datatype *t = PAMIR_TYPE(nullptr, datatype);
  PAMIR_CHECK(nullptr, size, MPI_ERR_ARG, "size is NULL");
  *size = t->size;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Type_size_c);

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent) {
  PAMIR_ENTER("MPI_Type_get_extent");
  Datatype *t = PAMIR_TYPE(nullptr, datatype);
  PAMIR_CHECK(nullptr, lb && extent, MPI_ERR_ARG, "lb or extent is NULL");
  *lb = t->lb;
  *extent = t->extent;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Type_get_extent);

int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent) {
  PAMIR_ENTER("MPI_Type_get_extent_c");
  Datatype *t = PAMIR_TYPE(nullptr, datatype);
  PAMIR_CHECK(nullptr, lb && extent, MPI_ERR_ARG, "lb or extent is NULL");
  *lb = t->lb;
  *extent = t->extent;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Type_get_extent_c);

int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent) {
  PAMIR_ENTER("MPI_Type_get_true_extent");
  Datatype *t = PAMIR_TYPE(nullptr, datatype);
  PAMIR_CHECK(nullptr, true_lb && true_extent, MPI_ERR_ARG, "true_lb or true_extent is NULL");
  *true_lb = t->true_lb;
  *true_extent = t->true_extent;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Type_get_true_extent);

int PMPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent) {
  PAMIR_ENTER("MPI_Type_get_true_extent_c");
  Datatype *t = PAMIR_TYPE(nullptr, datatype);
  PAMIR_CHECK(nullptr, true_lb && true_extent, MPI_ERR_ARG, "true_lb or true_extent is NULL");
  *true_lb = t->true_lb;
  *true_extent = t->true_extent;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Type_get_true_extent_c);

int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen) {
  PAMIR_ENTER("MPI_Type_get_name");
  Datatype *t = PAMIR_TYPE(nullptr, datatype);
  PAMIR_CHECK(nullptr, type_name && resultlen, MPI_ERR_ARG, "type_name or resultlen is NULL");
  const char *name = !t->name.empty() ? t->name.c_str() : t->predefined_name ? t->predefined_name : "";
  size_t n = std::min<size_t>(std::strlen(name), MPI_MAX_OBJECT_NAME - 1);
  std::memcpy(type_name, name, n);
  type_name[n] = '\0';
  *resultlen = int(n);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Type_get_name);

int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name) {
  PAMIR_ENTER("MPI_Type_set_name");
  Datatype *t = PAMIR_TYPE(nullptr, datatype);
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
