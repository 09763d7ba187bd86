// The loops of the predefined reductions, one template over an element operation, and the rules of
// which (operation, type) pairs MPI allows (MPI 5.0 §6.9.2). Included by reduce_ops.cc (every type,
// compiled for the build's baseline) and by reduce_kernels.cc (the vectorisable types, compiled once
// per instruction set). Everything here has internal linkage on purpose: a translation unit built with
// -mavx512f must keep its own copies, or the linker could merge one into code that runs on a CPU
// without those instructions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "collectives/reduce_ops.h"

namespace pamir::coll {
namespace {  // NOLINT(google-build-namespaces): see the comment at the top

// --- the classes of §6.9.2 ---------------------------------------------------------------------

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

// The types SIMD registers hold: every integer, float and double, the logicals and bytes. Complex,
// long double and the MINLOC/MAXLOC pairs stay in the baseline table.
constexpr bool vectorisable(ElemType e) {
  const Class c = class_of(e);
  return c == Class::integer || c == Class::logical || c == Class::byte || e == ElemType::f32 ||
         e == ElemType::f64;
}

// --- what each ElemType is in memory -----------------------------------------------------------

// c_bool is read as a byte: a _Bool holding anything but 0 or 1 must still count as true without
// undefined behaviour. Complex, long double and the pairs are added by reduce_ops.cc.
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
PAMIR_STORAGE(c_bool, uint8_t);
PAMIR_STORAGE(f_logical, int32_t);
PAMIR_STORAGE(byte, uint8_t);

// --- element operations: a (in) op b (inout) -> b ----------------------------------------------

// Integer arithmetic in an unsigned type at least as wide as unsigned int: wraps instead of
// overflowing (and no promotion to signed int, where uint16_t * uint16_t could overflow).
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
    // inout < in ? inout : in, as Open MPI's and MPICH's loops: a NaN in `in` wins, one in `inout`
    // loses (x86's minps/maxps with inout first behave exactly so).
    return b < a ? b : a;
  } else if constexpr (Op == OpKind::max) {
    return b > a ? b : a;
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

// The buffers of one call never overlap (MPI's invec and inoutvec are distinct, and so are every
// algorithm's), so the loop may say so and the compiler needs no overlap check before vectorising.
template <OpKind Op, ElemType E>
void loop(const void *in, void *inout, size_t count) {
  using T = typename Storage<E>::type;
  const T *__restrict a = static_cast<const T *>(in);
  T *__restrict b = static_cast<T *>(inout);
#pragma GCC unroll 4
  for (size_t i = 0; i < count; ++i) b[i] = apply1<Op>(a[i], b[i]);
}

// --- tables -------------------------------------------------------------------------------------

constexpr size_t kOps = size_t(OpKind::count_);
constexpr size_t kTypes = size_t(ElemType::count_);

// Fills t[op][type] with Loop<op, type> wherever MPI allows the pair and Keep(type) holds.
template <template <OpKind, ElemType> class Loop, bool (*Keep)(ElemType), size_t... I>
void fill_table(ReduceFn (&t)[kOps][kTypes], std::index_sequence<I...>) {
  auto one = [&]<size_t K>(std::integral_constant<size_t, K>) {
    constexpr OpKind op = OpKind(K / kTypes);
    constexpr ElemType type = ElemType(K % kTypes);
    if constexpr (allowed(op, class_of(type)) && Keep(type)) t[K / kTypes][K % kTypes] = &Loop<op, type>::run;
  };
  (one(std::integral_constant<size_t, I>()), ...);
}

template <OpKind Op, ElemType E>
struct PlainLoop {
  static void run(const void *in, void *inout, size_t count) { loop<Op, E>(in, inout, count); }
};

}  // namespace
}  // namespace pamir::coll
