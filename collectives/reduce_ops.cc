// The predefined reduction operators (MPI 5.0 §6.9.2) on the element types MPI allows them on:
//
//   MIN, MAX          C integer, Fortran integer, floating point (float, double, long double)
//   SUM, PROD         those, and complex
//   LAND, LOR, LXOR   C integer, logical (C _Bool, Fortran LOGICAL)
//   BAND, BOR, BXOR   C integer, Fortran integer, byte
//   MINLOC, MAXLOC    the {value, index} pair types; on equal values the lower index wins
//   REPLACE, NO_OP    one-sided only: no function here
//
// Every function is an instance of one loop template (reduce_loops.h), collected at compile time into
// tables indexed [op][type]: reduce_fn() is one load from the installed table. That table is this
// file's (every type, for the build's target) overlaid at MPI_Init with the vectorised kernels of the
// widest instruction set the CPU runs (reduce_kernels.cc). Integer arithmetic wraps (it runs in the
// unsigned type), so overflow is defined and identical on every rank. Logical results are 0 or 1.
#include "collectives/reduce_ops.h"

#include <complex>
#include <cstring>

#include "collectives/reduce_loops.h"
#include "pami/config.h"

// Makefile.am builds the avx2 and avx512 kernels on x86-64 only (its X86_64 condition).
#if defined(__x86_64__)
#define PAMIR_REDUCE_X86_64 1
#else
#define PAMIR_REDUCE_X86_64 0
#endif

namespace pamir::coll {

namespace {

// --- the types only this file reduces -----------------------------------------------------------

template <typename V, typename I>
struct Pair {
  V value;
  I index;
};

template <>
struct Storage<ElemType::f80> {
  using type = long double;
};
template <>
struct Storage<ElemType::cf32> {
  using type = std::complex<float>;
};
template <>
struct Storage<ElemType::cf64> {
  using type = std::complex<double>;
};
template <>
struct Storage<ElemType::cf80> {
  using type = std::complex<long double>;
};
template <ElemType E, typename V, typename I>
struct PairStorage {
  using type = Pair<V, I>;
};
template <>
struct Storage<ElemType::float_int> : PairStorage<ElemType::float_int, float, int> {};
template <>
struct Storage<ElemType::double_int> : PairStorage<ElemType::double_int, double, int> {};
template <>
struct Storage<ElemType::long_int> : PairStorage<ElemType::long_int, long, int> {};
template <>
struct Storage<ElemType::int2> : PairStorage<ElemType::int2, int, int> {};
template <>
struct Storage<ElemType::short_int> : PairStorage<ElemType::short_int, short, int> {};
template <>
struct Storage<ElemType::long_double_int> : PairStorage<ElemType::long_double_int, long double, int> {};
template <>
struct Storage<ElemType::real2> : PairStorage<ElemType::real2, float, float> {};
template <>
struct Storage<ElemType::double2> : PairStorage<ElemType::double2, double, double> {};
template <>
struct Storage<ElemType::integer2> : PairStorage<ElemType::integer2, int, int> {};

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

template <OpKind Op, ElemType E>
struct AnyLoop {
  static void run(const void *in, void *inout, size_t count) {
    if constexpr (class_of(E) == Class::pair) {
      using T = typename Storage<E>::type;
      const T *a = static_cast<const T *>(in);
      T *b = static_cast<T *>(inout);
      for (size_t i = 0; i < count; ++i) apply_pair<Op>(a[i], b[i]);
    } else {
      loop<Op, E>(in, inout, count);
    }
  }
};

constexpr bool every_type(ElemType) {
  return true;
}

// --- the instruction sets ------------------------------------------------------------------------

struct IsaTables {
  ReduceTable table[size_t(ReduceIsa::count_)] = {};
  ReduceTable plain = {};  // this file's loops alone, before any set's kernels
  IsaTables() {
    fill_table<AnyLoop, every_type>(plain, std::make_index_sequence<kOps * kTypes>());
    for (ReduceTable &t : table) std::memcpy(&t, &plain, sizeof plain);
    fill_reduce_kernels_baseline(table[size_t(ReduceIsa::baseline)]);
#if PAMIR_REDUCE_X86_64
    // Even filling a table compiled for a set may use its instructions: only where the CPU runs them.
    if (reduce_isa_supported(ReduceIsa::avx2)) fill_reduce_kernels_avx2(table[size_t(ReduceIsa::avx2)]);
    if (reduce_isa_supported(ReduceIsa::avx512)) fill_reduce_kernels_avx512(table[size_t(ReduceIsa::avx512)]);
#endif
  }
};
const IsaTables &isa_tables() {
  static const IsaTables t;
  return t;
}

// Built before main (the first reduce_fn() may come before MPI_Init: MPI_Reduce_local is allowed
// then) with the baseline set, which every CPU of the build's target runs.
ReduceIsa g_isa = ReduceIsa::baseline;
const ReduceTable *g_table = &isa_tables().table[size_t(ReduceIsa::baseline)];

config::Setting isa_setting{
    "PAMIR_REDUCE_ISA", "auto", config::Type::Choice,
    "instruction set of the predefined reductions' kernels (auto: the widest this CPU "
    "runs)",
    "auto,sse2,avx2,avx512"};
const bool registered = config::add(&isa_setting);

void apply_builtin(const void *in, void *inout, size_t count, void *arg) {
  ReduceFn fn;
  std::memcpy(&fn, &arg, sizeof fn);
  fn(in, inout, count);
}

}  // namespace

const char *reduce_isa_name(ReduceIsa isa) {
  switch (isa) {
    case ReduceIsa::baseline:
      return PAMIR_REDUCE_X86_64 ? "sse2" : "baseline";
    case ReduceIsa::avx2:
      return "avx2";
    case ReduceIsa::avx512:
      return "avx512";
    default:
      return "(invalid)";
  }
}

bool reduce_isa_supported(ReduceIsa isa) {
#if PAMIR_REDUCE_X86_64
  __builtin_cpu_init();
  switch (isa) {
    case ReduceIsa::baseline:
      return true;
    case ReduceIsa::avx2:
      return __builtin_cpu_supports("avx2");
    case ReduceIsa::avx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
    default:
      return false;
  }
#else
  return isa == ReduceIsa::baseline;
#endif
}

ReduceIsa reduce_isa() {
  return g_isa;
}

bool reduce_init(std::string &why) {
  (void)registered;
  // Choices: 0 auto, then the sets in enum order.
  ReduceIsa want = ReduceIsa::baseline;
  if (isa_setting.number == 0) {
    for (size_t i = size_t(ReduceIsa::count_); i-- > 0;)
      if (reduce_isa_supported(ReduceIsa(i))) {
        want = ReduceIsa(i);
        break;
      }
  } else {
    want = ReduceIsa(isa_setting.number - 1);
    if (!reduce_isa_supported(want)) {
      why = "PAMIR_REDUCE_ISA=" + isa_setting.value + " is not valid: this " +
            (PAMIR_REDUCE_X86_64 ? "CPU does not run it" : "build has only the baseline kernels");
      return false;
    }
  }
  g_isa = want;
  g_table = &isa_tables().table[size_t(want)];
  return true;
}

ReduceFn reduce_fn(OpKind op, ElemType type) {
  if (size_t(op) >= kOps || size_t(type) >= kTypes) return nullptr;
  return (*g_table)[size_t(op)][size_t(type)];
}

ReduceFn reduce_fn(OpKind op, ElemType type, ReduceIsa isa) {
  if (size_t(op) >= kOps || size_t(type) >= kTypes || size_t(isa) >= size_t(ReduceIsa::count_))
    return nullptr;
  if (!reduce_isa_supported(isa)) isa = ReduceIsa::baseline;
  return isa_tables().table[size_t(isa)][size_t(op)][size_t(type)];
}

ReduceFn reduce_fn_plain(OpKind op, ElemType type) {
  if (size_t(op) >= kOps || size_t(type) >= kTypes) return nullptr;
  return isa_tables().plain[size_t(op)][size_t(type)];
}

const char *op_name(OpKind op) {
  static constexpr const char *kNames[kOps] = {
      "MPI_SUM",  "MPI_MIN", "MPI_MAX",  "MPI_PROD",   "MPI_BAND",   "MPI_BOR",     "MPI_BXOR",
      "MPI_LAND", "MPI_LOR", "MPI_LXOR", "MPI_MINLOC", "MPI_MAXLOC", "MPI_REPLACE", "MPI_NO_OP"};
  return size_t(op) < kOps ? kNames[size_t(op)] : "(invalid op)";
}

bool runs_user_code(const Reduction &r) {
  return r.apply && r.apply != &apply_builtin;
}

Reduction builtin_reduction(ReduceFn fn, size_t extent) {
  static_assert(sizeof(ReduceFn) == sizeof(void *));
  void *arg;
  std::memcpy(&arg, &fn, sizeof arg);
  return Reduction{&apply_builtin, arg, extent, true};
}

}  // namespace pamir::coll
