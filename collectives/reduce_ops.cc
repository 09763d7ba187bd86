// The predefined reduction operators (MPI 4.1 §6.9.2) on the element types MPI allows them on:
//
//   MIN, MAX          C integer, Fortran integer, floating point (float, double, long double)
//   SUM, PROD         those, and complex
//   LAND, LOR, LXOR   C integer, logical (C _Bool, Fortran LOGICAL)
//   BAND, BOR, BXOR   C integer, Fortran integer, byte
//   MINLOC, MAXLOC    the {value, index} pair types; on equal values the lower index wins
//   REPLACE, NO_OP    one-sided only: no function here
//
// Every function is an instance of one loop template over an element functor, collected at compile time
// into a table indexed [op][type]: reduce_fn() is one load. Integer arithmetic wraps (it runs in the
// unsigned type), so overflow is defined and identical on every rank. Logical results are 0 or 1.
#include "collectives/reduce_ops.h"

#include <complex>
#include <cstring>
#include <type_traits>

namespace pamir::coll {

namespace {

// --- element types -----------------------------------------------------------------------------

template <typename V, typename I>
struct Pair {
  V value;
  I index;
};

// What each ElemType is in memory. c_bool is read as a byte: a _Bool holding anything but 0 or 1 must
// still count as true without undefined behaviour.
template <ElemType E>
struct Storage {
  using type = void;
};
#define PAMIR_STORAGE(e, ...)   \
  template <>                   \
  struct Storage<ElemType::e> { \
    using type = __VA_ARGS__;   \
  }
PAMIR_STORAGE(i8, int8_t);
PAMIR_STORAGE(u8, uint8_t);
PAMIR_STORAGE(i16, int16_t);
PAMIR_STORAGE(u16, uint16_t);
PAMIR_STORAGE(i32, int32_t);
PAMIR_STORAGE(u32, uint32_t);
PAMIR_STORAGE(i64, int64_t);
PAMIR_STORAGE(u64, uint64_t);
PAMIR_STORAGE(f32, float);
PAMIR_STORAGE(f64, double);
PAMIR_STORAGE(f80, long double);
PAMIR_STORAGE(cf32, std::complex<float>);
PAMIR_STORAGE(cf64, std::complex<double>);
PAMIR_STORAGE(cf80, std::complex<long double>);
PAMIR_STORAGE(c_bool, uint8_t);
PAMIR_STORAGE(f_logical, int32_t);
PAMIR_STORAGE(byte, uint8_t);
PAMIR_STORAGE(float_int, Pair<float, int>);
PAMIR_STORAGE(double_int, Pair<double, int>);
PAMIR_STORAGE(long_int, Pair<long, int>);
PAMIR_STORAGE(int2, Pair<int, int>);
PAMIR_STORAGE(short_int, Pair<short, int>);
PAMIR_STORAGE(long_double_int, Pair<long double, int>);
PAMIR_STORAGE(real2, Pair<float, float>);
PAMIR_STORAGE(double2, Pair<double, double>);
PAMIR_STORAGE(integer2, Pair<int, int>);
#undef PAMIR_STORAGE

// The classes of §6.9.2.
enum class Class { none, integer, floating, complex, logical, byte, pair };

constexpr Class class_of(ElemType e) {
  switch (e) {
    case ElemType::i8:
    case ElemType::u8:
    case ElemType::i16:
    case ElemType::u16:
    case ElemType::i32:
    case ElemType::u32:
    case ElemType::i64:
    case ElemType::u64:
      return Class::integer;
    case ElemType::f32:
    case ElemType::f64:
    case ElemType::f80:
      return Class::floating;
    case ElemType::cf32:
    case ElemType::cf64:
    case ElemType::cf80:
      return Class::complex;
    case ElemType::c_bool:
    case ElemType::f_logical:
      return Class::logical;
    case ElemType::byte:
      return Class::byte;
    case ElemType::float_int:
    case ElemType::double_int:
    case ElemType::long_int:
    case ElemType::int2:
    case ElemType::short_int:
    case ElemType::long_double_int:
    case ElemType::real2:
    case ElemType::double2:
    case ElemType::integer2:
      return Class::pair;
    default:
      return Class::none;
  }
}

constexpr bool allowed(OpKind op, Class c) {
  switch (op) {
    case OpKind::min:
    case OpKind::max:
      return c == Class::integer || c == Class::floating;
    case OpKind::sum:
    case OpKind::prod:
      return c == Class::integer || c == Class::floating || c == Class::complex;
    case OpKind::land:
    case OpKind::lor:
    case OpKind::lxor:
      return c == Class::integer || c == Class::logical;
    case OpKind::band:
    case OpKind::bor:
    case OpKind::bxor:
      return c == Class::integer || c == Class::byte;
    case OpKind::minloc:
    case OpKind::maxloc:
      return c == Class::pair;
    default:
      return false;  // replace, no_op: one-sided only
  }
}

// --- element operations: a (in) op b (inout) -> b --------------------------------------------------

// Integer arithmetic in an unsigned type at least as wide as unsigned int: wraps instead of overflowing
// (and no promotion to signed int, where uint16_t * uint16_t could overflow).
template <typename T>
using Wide = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

template <OpKind Op, typename T>
inline T apply1(T a, T b) {
  if constexpr (Op == OpKind::sum) {
    if constexpr (std::is_integral_v<T>)
      return T(Wide<T>(a) + Wide<T>(b));
    else
      return a + b;
  } else if constexpr (Op == OpKind::prod) {
    if constexpr (std::is_integral_v<T>)
      return T(Wide<T>(a) * Wide<T>(b));
    else
      return a * b;
  } else if constexpr (Op == OpKind::min) {
    return a < b ? a : b;
  } else if constexpr (Op == OpKind::max) {
    return a > b ? a : b;
  } else if constexpr (Op == OpKind::land) {
    return T((a != 0) & (b != 0));
  } else if constexpr (Op == OpKind::lor) {
    return T((a != 0) | (b != 0));
  } else if constexpr (Op == OpKind::lxor) {
    return T((a != 0) ^ (b != 0));
  } else if constexpr (Op == OpKind::band) {
    return T(a & b);
  } else if constexpr (Op == OpKind::bor) {
    return T(a | b);
  } else {
    static_assert(Op == OpKind::bxor);
    return T(a ^ b);
  }
}

// MINLOC/MAXLOC: the better value wins; on a tie the lower index.
template <OpKind Op, typename V, typename I>
inline void apply_pair(const Pair<V, I> &a, Pair<V, I> &b) {
  const bool better = Op == OpKind::minloc ? a.value < b.value : a.value > b.value;
  if (better) {
    b = a;
  } else if (a.value == b.value && a.index < b.index) {
    b.index = a.index;
  }
}

template <typename T>
struct IsPair : std::false_type {};
template <typename V, typename I>
struct IsPair<Pair<V, I>> : std::true_type {};

template <OpKind Op, ElemType E>
void loop(const void *in, void *inout, size_t count) {
  using T = typename Storage<E>::type;
  const T *a = static_cast<const T *>(in);
  T *b = static_cast<T *>(inout);
  if constexpr (IsPair<T>::value) {
    for (size_t i = 0; i < count; ++i) apply_pair<Op>(a[i], b[i]);
  } else {
    for (size_t i = 0; i < count; ++i) b[i] = apply1<Op>(a[i], b[i]);
  }
}

// --- the table --------------------------------------------------------------------------------------

constexpr size_t kOps = size_t(OpKind::count_);
constexpr size_t kTypes = size_t(ElemType::count_);

template <size_t O, size_t E>
constexpr ReduceFn entry() {
  constexpr OpKind op = OpKind(O);
  constexpr ElemType type = ElemType(E);
  if constexpr (allowed(op, class_of(type))) {
    return &loop<op, type>;
  } else {
    return nullptr;
  }
}

template <size_t O, size_t... E>
constexpr void fill_row(ReduceFn (&row)[kTypes], std::index_sequence<E...>) {
  ((row[E] = entry<O, E>()), ...);
}

template <size_t... O>
constexpr void fill_all(ReduceFn (&t)[kOps][kTypes], std::index_sequence<O...>) {
  (fill_row<O>(t[O], std::make_index_sequence<kTypes>()), ...);
}

struct Table {
  ReduceFn fn[kOps][kTypes] = {};
  constexpr Table() { fill_all(fn, std::make_index_sequence<kOps>()); }
};

constexpr Table kTable;

void apply_builtin(const void *in, void *inout, size_t count, void *arg) {
  ReduceFn fn;
  std::memcpy(&fn, &arg, sizeof fn);
  fn(in, inout, count);
}

}  // namespace

ReduceFn reduce_fn(OpKind op, ElemType type) {
  if (size_t(op) >= kOps || size_t(type) >= kTypes) return nullptr;
  return kTable.fn[size_t(op)][size_t(type)];
}

const char *op_name(OpKind op) {
  static constexpr const char *kNames[kOps] = {
      "MPI_SUM",  "MPI_MIN", "MPI_MAX",  "MPI_PROD",   "MPI_BAND",   "MPI_BOR",     "MPI_BXOR",
      "MPI_LAND", "MPI_LOR", "MPI_LXOR", "MPI_MINLOC", "MPI_MAXLOC", "MPI_REPLACE", "MPI_NO_OP"};
  return size_t(op) < kOps ? kNames[size_t(op)] : "(invalid op)";
}

Reduction builtin_reduction(ReduceFn fn, size_t extent) {
  static_assert(sizeof(ReduceFn) == sizeof(void *));
  void *arg;
  std::memcpy(&arg, &fn, sizeof arg);
  return Reduction{&apply_builtin, arg, extent, true};
}

}  // namespace pamir::coll
