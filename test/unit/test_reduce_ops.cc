// The predefined reduction operators: values for each class of types, MINLOC/MAXLOC ties, complex
// products, logical operations on integers other than 0 and 1, wrap-around, and the pairs MPI forbids.
#include <gtest/gtest.h>

#include <climits>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "collectives/reduce_ops.h"

using pamir::coll::builtin_reduction;
using pamir::coll::ElemType;
using pamir::coll::op_name;
using pamir::coll::OpKind;
using pamir::coll::reduce_fn;
using pamir::coll::ReduceFn;
using pamir::coll::Reduction;

namespace {

template <typename T, size_t N>
void run(OpKind op, ElemType type, const T (&in)[N], T (&inout)[N]) {
  ReduceFn fn = reduce_fn(op, type);
  ASSERT_NE(fn, nullptr) << op_name(op) << " on type " << int(type);
  fn(in, inout, N);
}

template <typename V, typename I>
struct Pair {
  V value;
  I index;
};

constexpr OpKind kAllOps[] = {OpKind::sum,    OpKind::min,    OpKind::max,     OpKind::prod, OpKind::band,
                              OpKind::bor,    OpKind::bxor,   OpKind::land,    OpKind::lor,  OpKind::lxor,
                              OpKind::minloc, OpKind::maxloc, OpKind::replace, OpKind::no_op};

}  // namespace

TEST(ReduceOps, IntegerArithmetic) {
  int32_t in[] = {1, -5, 7, INT32_MAX, 3};
  int32_t io[] = {2, 4, -9, 1, 3};
  run(OpKind::sum, ElemType::i32, in, io);
  EXPECT_EQ(io[0], 3);
  EXPECT_EQ(io[1], -1);
  EXPECT_EQ(io[2], -2);
  EXPECT_EQ(io[3], INT32_MIN);  // wraps, as on every rank alike
  int64_t a[] = {3, -4, 5}, b[] = {-7, -6, 1LL << 40};
  run(OpKind::prod, ElemType::i64, a, b);
  EXPECT_EQ(b[0], -21);
  EXPECT_EQ(b[1], 24);
  EXPECT_EQ(b[2], 5LL << 40);
  uint16_t c[] = {65535, 300}, d[] = {65535, 200};
  run(OpKind::prod, ElemType::u16, c, d);  // no signed-int promotion overflow
  EXPECT_EQ(d[0], uint16_t(65535u * 65535u));
  EXPECT_EQ(d[1], uint16_t(60000));
  uint8_t e[] = {200, 1}, f[] = {100, 2};
  run(OpKind::sum, ElemType::u8, e, f);
  EXPECT_EQ(f[0], 44);
  EXPECT_EQ(f[1], 3);
}

TEST(ReduceOps, MinMax) {
  int8_t a[] = {-3, 5, 0}, b[] = {2, -7, 0};
  run(OpKind::min, ElemType::i8, a, b);
  EXPECT_EQ(b[0], -3);
  EXPECT_EQ(b[1], -7);
  uint64_t c[] = {UINT64_MAX, 4}, d[] = {1, 9};
  run(OpKind::max, ElemType::u64, c, d);
  EXPECT_EQ(d[0], UINT64_MAX);
  EXPECT_EQ(d[1], 9u);
  double x[] = {-1.5, 2.5}, y[] = {-2.0, 2.0};
  run(OpKind::max, ElemType::f64, x, y);
  EXPECT_EQ(y[0], -1.5);
  EXPECT_EQ(y[1], 2.5);
  long double p[] = {1.0L / 3}, q[] = {0.25L};
  run(OpKind::min, ElemType::f80, p, q);
  EXPECT_EQ(q[0], 0.25L);
  run(OpKind::max, ElemType::f80, p, q);
  EXPECT_EQ(q[0], 1.0L / 3);
}

TEST(ReduceOps, Floating) {
  float a[] = {1.5f, -2.0f, 1e6f}, b[] = {2.25f, 8.0f, 3.0f};
  run(OpKind::sum, ElemType::f32, a, b);
  EXPECT_EQ(b[0], 3.75f);
  EXPECT_EQ(b[1], 6.0f);
  EXPECT_EQ(b[2], 1000003.0f);
  long double c[] = {3.0L}, d[] = {-0.5L};
  run(OpKind::prod, ElemType::f80, c, d);
  EXPECT_EQ(d[0], -1.5L);
}

TEST(ReduceOps, ComplexProductAndSum) {
  std::complex<double> a[] = {{1, 2}, {0, 1}}, b[] = {{3, -1}, {0, 1}};
  run(OpKind::prod, ElemType::cf64, a, b);
  EXPECT_EQ(b[0], std::complex<double>(5, 5));  // (1+2i)(3-i) = 3 - i + 6i + 2 = 5 + 5i
  EXPECT_EQ(b[1], std::complex<double>(-1, 0));
  std::complex<float> c[] = {{1, 1}}, d[] = {{2, -3}};
  run(OpKind::sum, ElemType::cf32, c, d);
  EXPECT_EQ(d[0], std::complex<float>(3, -2));
  std::complex<long double> e[] = {{2, 0}}, f[] = {{0, 3}};
  run(OpKind::prod, ElemType::cf80, e, f);
  EXPECT_EQ(f[0], std::complex<long double>(0, 6));
  // The layout is C's _Complex: real then imaginary.
  double raw_in[2] = {0, 1}, raw_io[2] = {0, 1};
  reduce_fn(OpKind::prod, ElemType::cf64)(raw_in, raw_io, 1);  // i * i = -1
  EXPECT_EQ(raw_io[0], -1.0);
  EXPECT_EQ(raw_io[1], 0.0);
}

TEST(ReduceOps, LogicalOnIntegersOtherThanZeroAndOne) {
  int32_t a[] = {5, 0, -3, 0}, b[] = {7, 9, 0, 0};
  int32_t land[4], lor[4], lxor[4];
  std::memcpy(land, b, sizeof b);
  std::memcpy(lor, b, sizeof b);
  std::memcpy(lxor, b, sizeof b);
  run(OpKind::land, ElemType::i32, a, land);
  run(OpKind::lor, ElemType::i32, a, lor);
  run(OpKind::lxor, ElemType::i32, a, lxor);
  const int32_t want_and[] = {1, 0, 0, 0}, want_or[] = {1, 1, 1, 0}, want_xor[] = {0, 1, 1, 0};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(land[i], want_and[i]) << i;
    EXPECT_EQ(lor[i], want_or[i]) << i;
    EXPECT_EQ(lxor[i], want_xor[i]) << i;
  }
  // C _Bool, read as a byte: a stray value still counts as true.
  uint8_t c[] = {1, 0, 2, 1}, d[] = {1, 1, 1, 0};
  run(OpKind::lxor, ElemType::c_bool, c, d);
  EXPECT_EQ(d[0], 0);
  EXPECT_EQ(d[1], 1);
  EXPECT_EQ(d[2], 0);
  EXPECT_EQ(d[3], 1);
  int32_t e[] = {-1, 0}, f[] = {2, 0};  // Fortran LOGICAL
  run(OpKind::land, ElemType::f_logical, e, f);
  EXPECT_EQ(f[0], 1);
  EXPECT_EQ(f[1], 0);
  uint64_t g[] = {0, 1ull << 63}, h[] = {0, 0};
  run(OpKind::lor, ElemType::u64, g, h);
  EXPECT_EQ(h[0], 0u);
  EXPECT_EQ(h[1], 1u);
}

TEST(ReduceOps, Bitwise) {
  uint8_t a[] = {0xF0, 0x0F}, b[] = {0x3C, 0x3C};
  uint8_t x[2], y[2], z[2];
  std::memcpy(x, b, 2);
  std::memcpy(y, b, 2);
  std::memcpy(z, b, 2);
  run(OpKind::band, ElemType::byte, a, x);
  run(OpKind::bor, ElemType::byte, a, y);
  run(OpKind::bxor, ElemType::byte, a, z);
  EXPECT_EQ(x[0], 0x30);
  EXPECT_EQ(x[1], 0x0C);
  EXPECT_EQ(y[0], 0xFC);
  EXPECT_EQ(y[1], 0x3F);
  EXPECT_EQ(z[0], 0xCC);
  EXPECT_EQ(z[1], 0x33);
  int16_t c[] = {-1}, d[] = {0x1234};
  run(OpKind::band, ElemType::i16, c, d);
  EXPECT_EQ(d[0], 0x1234);
}

TEST(ReduceOps, MinlocMaxlocWithTies) {
  Pair<double, int> a[] = {{1.0, 5}, {2.0, 3}, {2.0, 1}, {-4.0, 9}};
  Pair<double, int> b[] = {{2.0, 0}, {2.0, 7}, {2.0, 2}, {-3.0, 0}};
  Pair<double, int> mn[4], mx[4];
  std::memcpy(mn, b, sizeof b);
  std::memcpy(mx, b, sizeof b);
  reduce_fn(OpKind::minloc, ElemType::double_int)(a, mn, 4);
  reduce_fn(OpKind::maxloc, ElemType::double_int)(a, mx, 4);
  EXPECT_EQ(mn[0].value, 1.0);
  EXPECT_EQ(mn[0].index, 5);
  EXPECT_EQ(mn[1].index, 3);  // tie: the lower index, whichever side holds it
  EXPECT_EQ(mn[2].index, 1);
  EXPECT_EQ(mn[3].value, -4.0);
  EXPECT_EQ(mn[3].index, 9);
  EXPECT_EQ(mx[0].value, 2.0);
  EXPECT_EQ(mx[0].index, 0);
  EXPECT_EQ(mx[1].index, 3);
  EXPECT_EQ(mx[2].index, 1);
  EXPECT_EQ(mx[3].value, -3.0);
  EXPECT_EQ(mx[3].index, 0);

  Pair<int, int> c[] = {{7, 4}}, d[] = {{7, 2}};
  reduce_fn(OpKind::minloc, ElemType::int2)(c, d, 1);
  EXPECT_EQ(d[0].index, 2);
  Pair<short, int> e[] = {{-1, 8}}, f[] = {{3, 1}};
  reduce_fn(OpKind::maxloc, ElemType::short_int)(e, f, 1);
  EXPECT_EQ(f[0].value, 3);
  EXPECT_EQ(f[0].index, 1);
  Pair<long double, int> g[] = {{0.5L, 3}}, h[] = {{0.5L, 6}};
  reduce_fn(OpKind::maxloc, ElemType::long_double_int)(g, h, 1);
  EXPECT_EQ(h[0].index, 3);
  Pair<float, float> p[] = {{1.0f, 10.0f}}, q[] = {{1.0f, 4.0f}};  // MPI_2REAL: the index is a REAL
  reduce_fn(OpKind::minloc, ElemType::real2)(p, q, 1);
  EXPECT_EQ(q[0].index, 4.0f);
}

TEST(ReduceOps, ForbiddenPairsHaveNoFunction) {
  // Arithmetic on logicals, bytes and characters; order on complex; logic on floats; bit operations on
  // floats, logicals and complex; MINLOC on plain types; plain operations on pairs; nothing at all on
  // `none` and `character`.
  EXPECT_EQ(reduce_fn(OpKind::sum, ElemType::c_bool), nullptr);
  EXPECT_EQ(reduce_fn(OpKind::sum, ElemType::f_logical), nullptr);
  EXPECT_EQ(reduce_fn(OpKind::sum, ElemType::byte), nullptr);
  EXPECT_EQ(reduce_fn(OpKind::prod, ElemType::character), nullptr);
  EXPECT_EQ(reduce_fn(OpKind::max, ElemType::cf64), nullptr);
  EXPECT_EQ(reduce_fn(OpKind::min, ElemType::c_bool), nullptr);
  EXPECT_EQ(reduce_fn(OpKind::land, ElemType::f64), nullptr);
  EXPECT_EQ(reduce_fn(OpKind::lor, ElemType::byte), nullptr);
  EXPECT_EQ(reduce_fn(OpKind::band, ElemType::f32), nullptr);
  EXPECT_EQ(reduce_fn(OpKind::bxor, ElemType::c_bool), nullptr);
  EXPECT_EQ(reduce_fn(OpKind::bor, ElemType::cf32), nullptr);
  EXPECT_EQ(reduce_fn(OpKind::minloc, ElemType::i32), nullptr);
  EXPECT_EQ(reduce_fn(OpKind::maxloc, ElemType::f64), nullptr);
  EXPECT_EQ(reduce_fn(OpKind::sum, ElemType::double_int), nullptr);
  for (OpKind op : kAllOps) {
    EXPECT_EQ(reduce_fn(op, ElemType::none), nullptr) << op_name(op);
    EXPECT_EQ(reduce_fn(op, ElemType::character), nullptr) << op_name(op);
  }
  for (unsigned t = 0; t < unsigned(ElemType::count_); ++t) {
    EXPECT_EQ(reduce_fn(OpKind::replace, ElemType(t)), nullptr) << t;
    EXPECT_EQ(reduce_fn(OpKind::no_op, ElemType(t)), nullptr) << t;
  }
  EXPECT_EQ(reduce_fn(OpKind::count_, ElemType::i32), nullptr);
  EXPECT_EQ(reduce_fn(OpKind::sum, ElemType::count_), nullptr);
}

TEST(ReduceOps, AllowedPairsAreComplete) {
  // Every C integer type takes every arithmetic, logical and bitwise operation.
  const ElemType ints[] = {ElemType::i8,  ElemType::u8,  ElemType::i16, ElemType::u16,
                           ElemType::i32, ElemType::u32, ElemType::i64, ElemType::u64};
  const OpKind int_ops[] = {OpKind::sum, OpKind::prod, OpKind::min,  OpKind::max, OpKind::land,
                            OpKind::lor, OpKind::lxor, OpKind::band, OpKind::bor, OpKind::bxor};
  for (ElemType t : ints)
    for (OpKind op : int_ops) EXPECT_NE(reduce_fn(op, t), nullptr) << op_name(op) << " " << int(t);
  for (ElemType t : {ElemType::f32, ElemType::f64, ElemType::f80})
    for (OpKind op : {OpKind::sum, OpKind::prod, OpKind::min, OpKind::max})
      EXPECT_NE(reduce_fn(op, t), nullptr);
  for (ElemType t : {ElemType::cf32, ElemType::cf64, ElemType::cf80})
    for (OpKind op : {OpKind::sum, OpKind::prod}) EXPECT_NE(reduce_fn(op, t), nullptr);
  for (ElemType t : {ElemType::c_bool, ElemType::f_logical})
    for (OpKind op : {OpKind::land, OpKind::lor, OpKind::lxor}) EXPECT_NE(reduce_fn(op, t), nullptr);
  for (OpKind op : {OpKind::band, OpKind::bor, OpKind::bxor})
    EXPECT_NE(reduce_fn(op, ElemType::byte), nullptr);
  for (unsigned t = unsigned(ElemType::float_int); t <= unsigned(ElemType::integer2); ++t)
    for (OpKind op : {OpKind::minloc, OpKind::maxloc}) EXPECT_NE(reduce_fn(op, ElemType(t)), nullptr) << t;
}

TEST(ReduceOps, NamesAndBuiltinReduction) {
  EXPECT_STREQ(op_name(OpKind::sum), "MPI_SUM");
  EXPECT_STREQ(op_name(OpKind::lxor), "MPI_LXOR");
  EXPECT_STREQ(op_name(OpKind::maxloc), "MPI_MAXLOC");
  EXPECT_STREQ(op_name(OpKind::no_op), "MPI_NO_OP");
  Reduction r = builtin_reduction(reduce_fn(OpKind::sum, ElemType::i32), sizeof(int32_t));
  EXPECT_TRUE(r.commutative);
  EXPECT_EQ(r.extent, sizeof(int32_t));
  int32_t a[] = {1, 2, 3}, b[] = {10, 20, 30};
  r.apply(a, b, 3, r.arg);
  EXPECT_EQ(b[0], 11);
  EXPECT_EQ(b[1], 22);
  EXPECT_EQ(b[2], 33);
  r.apply(a, b, 0, r.arg);  // zero elements: nothing
  EXPECT_EQ(b[0], 11);
}

TEST(ReduceOps, LongVectors) {
  // Long enough for the vectorised body and its remainder.
  constexpr size_t n = 1003;
  static double a[n], b[n];
  static int64_t c[n], d[n];
  for (size_t i = 0; i < n; ++i) {
    a[i] = double(i);
    b[i] = 2.0 * double(i);
    c[i] = int64_t(i) * 3;
    d[i] = -int64_t(i);
  }
  reduce_fn(OpKind::sum, ElemType::f64)(a, b, n);
  reduce_fn(OpKind::max, ElemType::i64)(c, d, n);
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(b[i], 3.0 * double(i)) << i;
    ASSERT_EQ(d[i], int64_t(i) * 3) << i;
  }
}

// --- the vectorised kernels of every instruction set against a scalar reference --------------------

namespace {

using pamir::coll::reduce_isa_name;
using pamir::coll::reduce_isa_supported;
using pamir::coll::ReduceIsa;

// The reference: one element at a time, with arithmetic wrapping through uint64_t (C++20 defines the
// narrowing back), and MIN/MAX as Open MPI's and MPICH's loops compute inout = inout OP in ? inout : in.
template <typename T>
T reference(OpKind op, T in, T io) {
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case OpKind::sum:
        return T(uint64_t(in) + uint64_t(io));
      case OpKind::prod:
        return T(uint64_t(in) * uint64_t(io));
      case OpKind::band:
        return T(in & io);
      case OpKind::bor:
        return T(in | io);
      case OpKind::bxor:
        return T(in ^ io);
      case OpKind::land:
        return T(in != 0 && io != 0);
      case OpKind::lor:
        return T(in != 0 || io != 0);
      case OpKind::lxor:
        return T((in != 0) != (io != 0));
      default:
        break;
    }
  } else {
    if (op == OpKind::sum) return in + io;
    if (op == OpKind::prod) return in * io;
  }
  if (op == OpKind::min) return io < in ? io : in;
  return io > in ? io : in;  // max
}

template <typename T>
bool same(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (a != a && b != b) return true;          // both NaN
    return std::memcmp(&a, &b, sizeof a) == 0;  // tells -0 from +0
  } else {
    return a == b;
  }
}

// Values with every edge: zero, one, minus one, the extremes, and for floats NaN, infinities and -0;
// the rest pseudo-random.
template <typename T>
std::vector<T> values(size_t n, uint64_t seed) {
  std::vector<T> edges = {T(0),
                          T(1),
                          T(T(0) - T(1)),
                          std::numeric_limits<T>::min(),
                          std::numeric_limits<T>::max(),
                          std::numeric_limits<T>::lowest(),
                          T(2),
                          T(3)};
  if constexpr (std::is_floating_point_v<T>) {
    edges.push_back(std::numeric_limits<T>::quiet_NaN());
    edges.push_back(std::numeric_limits<T>::infinity());
    edges.push_back(-std::numeric_limits<T>::infinity());
    edges.push_back(T(-0.0));
    edges.push_back(T(0.5));
  }
  std::vector<T> v(n);
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (size_t i = 0; i < n; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    if (x % 4 == 0) {
      v[i] = edges[(x >> 8) % edges.size()];
    } else if constexpr (std::is_floating_point_v<T>) {
      v[i] = T(int64_t(x >> 20) % 2001 - 1000) / T(8);
    } else {
      T t;
      std::memcpy(&t, &x, sizeof t);
      v[i] = t;
    }
  }
  return v;
}

// Every count from 0 to 70 (each remainder of every vector width), a few long ones, and starts that are
// not vector-aligned, for one (op, type) of one instruction set.
template <typename T>
void check_kernel(ReduceIsa isa, OpKind op, ElemType type) {
  ReduceFn fn = reduce_fn(op, type, isa);
  ASSERT_NE(fn, nullptr) << reduce_isa_name(isa) << " " << op_name(op) << " " << int(type);
  std::vector<size_t> counts;
  for (size_t n = 0; n <= 70; ++n) counts.push_back(n);
  for (size_t n : {127, 129, 255, 1000, 4099}) counts.push_back(n);
  uint64_t seed = 1;
  for (size_t n : counts)
    for (size_t skew : {0, 1, 3}) {
      const std::vector<T> in = values<T>(n + skew, seed++), io0 = values<T>(n + skew, seed++);
      std::vector<T> io = io0;
      fn(in.data() + skew, io.data() + skew, n);
      for (size_t i = 0; i < skew; ++i) ASSERT_TRUE(same(io[i], io0[i])) << "wrote before the vector";
      for (size_t i = skew; i < n + skew; ++i)
        ASSERT_TRUE(same(io[i], reference(op, in[i], io0[i])))
            << reduce_isa_name(isa) << " " << op_name(op) << " type " << int(type) << " count " << n
            << " skew " << skew << " element " << i - skew << ": in " << +in[i] << " inout " << +io0[i]
            << " gave " << +io[i] << ", want " << +reference(op, in[i], io0[i]);
    }
}

template <typename T>
void check_type(ReduceIsa isa, ElemType type, std::initializer_list<OpKind> ops) {
  for (OpKind op : ops) check_kernel<T>(isa, op, type);
}

constexpr std::initializer_list<OpKind> kIntegerOps = {OpKind::sum,  OpKind::prod, OpKind::min,  OpKind::max,
                                                       OpKind::band, OpKind::bor,  OpKind::bxor, OpKind::land,
                                                       OpKind::lor,  OpKind::lxor};

}  // namespace

TEST(ReduceKernels, EveryInstructionSetMatchesTheReference) {
  int tested = 0;
  for (unsigned i = 0; i < unsigned(ReduceIsa::count_); ++i) {
    const ReduceIsa isa = ReduceIsa(i);
    if (!reduce_isa_supported(isa)) {
      std::printf("[   NOTE   ] this CPU does not run the %s kernels: not tested here\n",
                  reduce_isa_name(isa));
      continue;
    }
    ++tested;
    check_type<int8_t>(isa, ElemType::i8, kIntegerOps);
    check_type<uint8_t>(isa, ElemType::u8, kIntegerOps);
    check_type<int16_t>(isa, ElemType::i16, kIntegerOps);
    check_type<uint16_t>(isa, ElemType::u16, kIntegerOps);
    check_type<int32_t>(isa, ElemType::i32, kIntegerOps);
    check_type<uint32_t>(isa, ElemType::u32, kIntegerOps);
    check_type<int64_t>(isa, ElemType::i64, kIntegerOps);
    check_type<uint64_t>(isa, ElemType::u64, kIntegerOps);
    check_type<float>(isa, ElemType::f32, {OpKind::sum, OpKind::prod, OpKind::min, OpKind::max});
    check_type<double>(isa, ElemType::f64, {OpKind::sum, OpKind::prod, OpKind::min, OpKind::max});
    check_type<uint8_t>(isa, ElemType::byte, {OpKind::band, OpKind::bor, OpKind::bxor});
    check_type<int32_t>(isa, ElemType::f_logical, {OpKind::land, OpKind::lor, OpKind::lxor});
  }
  EXPECT_GE(tested, 1);  // the baseline always runs
}

// Each set the CPU runs hands out its own kernels for the vectorisable types (integers, logicals,
// bytes, float, double) and the baseline loops for the rest (complex, long double, the pairs), and
// allows exactly the pairs the baseline allows.
TEST(ReduceKernels, EverySetOverlaysItsOwnKernels) {
  const ElemType own[] = {ElemType::i8,  ElemType::u64,  ElemType::f32,
                          ElemType::f64, ElemType::byte, ElemType::f_logical};
  const ElemType borrowed[] = {ElemType::f80, ElemType::cf64, ElemType::double_int};
  for (unsigned i = 0; i < unsigned(ReduceIsa::count_); ++i) {
    const ReduceIsa isa = ReduceIsa(i);
    if (!reduce_isa_supported(isa)) continue;
    for (unsigned o = 0; o < unsigned(OpKind::count_); ++o)
      for (unsigned t = 0; t < unsigned(ElemType::count_); ++t)
        EXPECT_EQ(reduce_fn(OpKind(o), ElemType(t), isa) == nullptr,
                  reduce_fn(OpKind(o), ElemType(t), ReduceIsa::baseline) == nullptr)
            << reduce_isa_name(isa) << " " << op_name(OpKind(o)) << " " << t;
    for (ElemType t : own) {
      const OpKind op = t == ElemType::byte        ? OpKind::bxor
                        : t == ElemType::f_logical ? OpKind::lor
                                                   : OpKind::sum;
      EXPECT_NE(reduce_fn(op, t, isa), pamir::coll::reduce_fn_plain(op, t))
          << reduce_isa_name(isa) << " " << int(t);
      for (unsigned j = 0; j < i; ++j) {
        if (!reduce_isa_supported(ReduceIsa(j))) continue;
        EXPECT_NE(reduce_fn(op, t, isa), reduce_fn(op, t, ReduceIsa(j)))
            << reduce_isa_name(isa) << " " << int(t);
      }
    }
    for (ElemType t : borrowed) {
      const OpKind op = t == ElemType::double_int ? OpKind::maxloc : OpKind::sum;
      EXPECT_EQ(reduce_fn(op, t, isa), pamir::coll::reduce_fn_plain(op, t))
          << reduce_isa_name(isa) << " " << int(t);
    }
  }
}

TEST(ReduceKernels, NanInMaxAndMinAsThePeers) {
  // Open MPI's and MPICH's loops (MPI_Reduce_local, measured): a NaN arriving in `in` wins, a NaN
  // already in `inout` gives way. Each set, on a vector long enough for its widest body.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (unsigned i = 0; i < unsigned(ReduceIsa::count_); ++i) {
    const ReduceIsa isa = ReduceIsa(i);
    for (OpKind op : {OpKind::max, OpKind::min}) {
      float in[64], io[64];
      for (int k = 0; k < 64; ++k) in[k] = nan, io[k] = 1.0f;
      reduce_fn(op, ElemType::f32, isa)(in, io, 64);
      for (int k = 0; k < 64; ++k)
        ASSERT_NE(io[k], io[k]) << reduce_isa_name(isa) << " " << op_name(op) << " " << k;
      for (int k = 0; k < 64; ++k) in[k] = 1.0f, io[k] = nan;
      reduce_fn(op, ElemType::f32, isa)(in, io, 64);
      for (int k = 0; k < 64; ++k)
        ASSERT_EQ(io[k], 1.0f) << reduce_isa_name(isa) << " " << op_name(op) << " " << k;
    }
  }
}
