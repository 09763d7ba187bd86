// Reduction operators on element types. Knows nothing of MPI handles: the MPI binding maps
// MPI_Datatype to ElemType and MPI_Op to OpKind, and wraps user functions as a Reduction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace pamir::coll {

enum class ElemType : uint8_t {
  none,  // not reducible with a predefined operation (MPI_PACKED, derived types)
  i8,
  u8,
  i16,
  u16,
  i32,
  u32,
  i64,
  u64,
  f32,
  f64,
  f80,  // float, double, long double
  cf32,
  cf64,
  cf80,       // float/double/long double _Complex
  c_bool,     // C _Bool
  f_logical,  // Fortran LOGICAL (int, 0 false)
  byte,       // MPI_BYTE: bitwise operations only
  character,  // MPI_CHAR, MPI_WCHAR, MPI_CHARACTER: no arithmetic
  // Pairs for MINLOC/MAXLOC: {value, int index} with C struct layout.
  float_int,
  double_int,
  long_int,
  int2,
  short_int,
  long_double_int,
  real2,
  double2,
  integer2,  // Fortran MPI_2REAL, MPI_2DOUBLE_PRECISION, MPI_2INTEGER
  count_
};

enum class OpKind : uint8_t {
  sum,
  min,
  max,
  prod,
  band,
  bor,
  bxor,
  land,
  lor,
  lxor,
  minloc,
  maxloc,
  replace,
  no_op,
  count_
};

// inout[i] = in[i] (op) inout[i] for i < count elements; `in` and `inout` do not overlap. nullptr
// when MPI does not define the operation on the type (the caller reports MPI_ERR_OP).
using ReduceFn = void (*)(const void *in, void *inout, size_t count);
using ReduceTable = ReduceFn[size_t(OpKind::count_)][size_t(ElemType::count_)];

// The instruction sets the kernels of the integer, logical, byte, float and double types are built
// for (collectives/reduce_kernels.cc). `baseline` is the build's own target (SSE2 on x86-64); the
// others exist on x86-64 only. MPI_Init installs the widest the CPU runs, or PAMIR_REDUCE_ISA's.
enum class ReduceIsa : uint8_t { baseline, avx2, avx512, count_ };
const char *reduce_isa_name(ReduceIsa isa);
bool reduce_isa_supported(ReduceIsa isa);  // built, and this CPU runs it
ReduceIsa reduce_isa();                    // the set reduce_fn() hands out
// Installs PAMIR_REDUCE_ISA's set ("auto": the widest supported). False, with `why` naming the
// variable, when the CPU lacks it.
bool reduce_init(std::string &why);

// The function of the installed set: one load.
ReduceFn reduce_fn(OpKind op, ElemType type);
// The function of a given set (tests and benchmarks); the baseline's where the set is not supported.
ReduceFn reduce_fn(OpKind op, ElemType type, ReduceIsa isa);

// This file's loop compiled for the baseline, before any set's kernels replace it (tests: a set must).
ReduceFn reduce_fn_plain(OpKind op, ElemType type);

// Filled by reduce_kernels.cc, once per instruction set.
void fill_reduce_kernels_baseline(ReduceTable &t);
void fill_reduce_kernels_avx2(ReduceTable &t);
void fill_reduce_kernels_avx512(ReduceTable &t);

const char *op_name(OpKind op);

// What a collective applies: a predefined function, or a user function behind `apply`.
struct Reduction {
  void (*apply)(const void *in, void *inout, size_t count, void *arg);
  void *arg;
  size_t extent;  // bytes per element
  bool commutative;
};

// A Reduction for a predefined function.
Reduction builtin_reduction(ReduceFn fn, size_t extent);
// Whether applying r runs the application's code (a user-defined operation).
bool runs_user_code(const Reduction &r);

}  // namespace pamir::coll
