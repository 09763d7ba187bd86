// libFuzzer target for datatype/ (seed 003): the fuzzer's bytes describe a type tree (contiguous, hvector,
// hindexed, struct, resized over basic types of 1, 2, 4 and 8 bytes); the tree is built twice, by the
// library's constructors over flattened layouts and by a naive model that lists every basic element, and
// the two must agree on size, bounds and true bounds, on the bytes pack() produces through a cursor cut
// at fuzzer-chosen budgets, on seek(), and on unpack() writing exactly the type's bytes.
//
// Built with clang (-fsanitize=fuzzer,address,undefined) by test/fuzz/run.sh, which runs it briefly in
// the suite and longer on demand.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "datatype/layout.h"
#include "datatype/segments.h"

namespace {

using pamir::dt::Cursor;
using pamir::dt::Layout;

constexpr size_t kMaxElems = 20000;  // basic elements in one element of a type: beyond, the input is dropped

struct Naive {
  struct Elem {
    int64_t off;
    uint64_t len;
  };
  std::vector<Elem> e;
  int64_t lb = 0, ub = 0;
  uint32_t align = 1;
  bool sticky = false, any = false;
  int64_t extent() const { return ub - lb; }
  uint64_t size() const {
    uint64_t s = 0;
    for (const Elem &x : e) s += x.len;
    return s;
  }
};

struct Reader {
  const uint8_t *p;
  size_t n;
  uint8_t byte() {
    if (!n) return 0;
    --n;
    return *p++;
  }
  int64_t range(int64_t lo, int64_t hi) { return lo + int64_t(byte()) % (hi - lo + 1); }
};

struct Built {
  Layout fast;
  Naive slow;
};

bool block(Naive &t, const Naive &old, uint64_t blocklen, int64_t d) {
  t.align = std::max(t.align, old.align);
  t.sticky |= old.sticky;
  if (!blocklen) return true;
  if (t.e.size() + blocklen * old.e.size() > kMaxElems) return false;
  for (uint64_t j = 0; j < blocklen; ++j)
    for (const auto &x : old.e) t.e.push_back({d + int64_t(j) * old.extent() + x.off, x.len});
  const int64_t a = d, b = d + int64_t(blocklen - 1) * old.extent();
  const int64_t lo = std::min(a, b) + old.lb, hi = std::max(a, b) + old.ub;
  t.lb = t.any ? std::min(t.lb, lo) : lo;
  t.ub = t.any ? std::max(t.ub, hi) : hi;
  t.any = true;
  return true;
}

bool build(Reader &in, int depth, Built &out) {
  const uint8_t kind = depth == 0 ? 0 : in.byte() % 6;
  if (kind == 0) {
    static const uint32_t sizes[] = {1, 2, 4, 8};
    const uint32_t s = sizes[in.byte() % 4];
    out.fast = pamir::dt::basic(s, s, s);
    out.slow = Naive{};
    out.slow.e.push_back({0, s});
    out.slow.ub = s;
    out.slow.align = s;
    out.slow.any = true;
    return true;
  }
  Built old;
  if (!build(in, depth - 1, old)) return false;
  Naive t;
  switch (kind) {
    case 1: {
      const uint64_t n = uint64_t(in.range(0, 5));
      if (!block(t, old.slow, n, 0)) return false;
      out.fast = pamir::dt::contiguous(n, old.fast);
      break;
    }
    case 2: {
      const uint64_t n = uint64_t(in.range(0, 5)), bl = uint64_t(in.range(0, 3));
      const int64_t stride = in.range(-40, 80);
      for (uint64_t i = 0; i < n; ++i)
        if (!block(t, old.slow, bl, int64_t(i) * stride)) return false;
      out.fast = pamir::dt::hvector(n, bl, stride, old.fast);
      break;
    }
    case 3: {
      const size_t n = size_t(in.range(0, 5));
      std::vector<uint64_t> bl(n);
      std::vector<int64_t> d(n);
      for (size_t i = 0; i < n; ++i) {
        bl[i] = uint64_t(in.range(0, 3));
        d[i] = in.range(-64, 120);
        if (!block(t, old.slow, bl[i], d[i])) return false;
      }
      out.fast = pamir::dt::hindexed(n, bl.data(), d.data(), old.fast);
      break;
    }
    case 4: {
      Built other;
      if (!build(in, depth - 1, other)) return false;
      const uint64_t bl[2] = {uint64_t(in.range(0, 3)), uint64_t(in.range(0, 3))};
      const int64_t d[2] = {in.range(-32, 64), in.range(-32, 64)};
      if (!block(t, old.slow, bl[0], d[0]) || !block(t, other.slow, bl[1], d[1])) return false;
      if (!t.sticky && t.align > 1 && t.extent() % t.align) t.ub += t.align - t.extent() % t.align;
      const Layout *parts[2] = {&old.fast, &other.fast};
      out.fast = pamir::dt::structure(2, bl, d, parts);
      break;
    }
    default: {
      const int64_t lb = in.range(-16, 16), ext = in.range(0, 64);
      t = old.slow;
      t.lb = lb;
      t.ub = lb + ext;
      t.sticky = true;
      out.fast = pamir::dt::resized(old.fast, lb, ext);
      break;
    }
  }
  out.slow = std::move(t);
  return true;
}

[[noreturn]] void fail(const char *what) {
  std::fprintf(stderr, "dt_fuzz: mismatch: %s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Reader in{data, size};
  Built t;
  if (!build(in, 4, t)) return 0;
  const Naive &m = t.slow;
  const Layout &l = t.fast;
  if (l.size != m.size()) fail("size");
  if (l.lb != m.lb || l.ub != m.ub) fail("lb/ub");
  if (!m.e.empty()) {
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (const auto &x : m.e) {
      lo = std::min(lo, x.off);
      hi = std::max(hi, x.off + int64_t(x.len));
    }
    if (l.true_lb != lo || l.true_ub != hi) fail("true bounds");
  }
  // count elements of it in a buffer that holds every byte they touch, with a margin.
  const uint64_t count = 1 + in.byte() % 3;
  int64_t lo = 0, hi = 0;
  for (uint64_t k = 0; k < count; ++k)
    for (const auto &x : m.e) {
      lo = std::min(lo, int64_t(k) * m.extent() + x.off);
      hi = std::max(hi, int64_t(k) * m.extent() + x.off + int64_t(x.len));
    }
  const size_t span = size_t(hi - lo) + 16;
  std::vector<uint8_t> mem(span), back(span, 0xA5), expect(span, 0xA5);
  for (size_t i = 0; i < span; ++i) mem[i] = uint8_t(i * 131 + 7);
  const int64_t origin = 8 - lo;
  std::vector<uint8_t> want;
  for (uint64_t k = 0; k < count; ++k)
    for (const auto &x : m.e) {
      const int64_t at = origin + int64_t(k) * m.extent() + x.off;
      want.insert(want.end(), mem.begin() + at, mem.begin() + at + int64_t(x.len));
    }
  // pack through a cursor cut at fuzzer-chosen budgets
  Cursor c = pamir::dt::cursor(l, count);
  if (c.total() != want.size()) fail("cursor total");
  std::vector<uint8_t> got(want.size() + 1);
  uint64_t done = 0;
  while (done < want.size()) {
    const uint64_t budget = 1 + in.byte() % 64;
    const uint64_t n = pamir::dt::pack(mem.data() + origin, c, got.data() + done, budget);
    if (n == 0 || n > budget) fail("pack budget");
    done += n;
  }
  if (!want.empty() && std::memcmp(got.data(), want.data(), want.size()) != 0) fail("pack bytes");
  // seek to a byte and pack the rest
  if (!want.empty()) {
    const uint64_t pos = in.byte() % want.size();
    Cursor s = pamir::dt::cursor(l, count);
    s.seek(pos);
    const uint64_t n = pamir::dt::pack(mem.data() + origin, s, got.data(), want.size());
    if (n != want.size() - pos || std::memcmp(got.data(), want.data() + pos, n) != 0) fail("seek");
  }
  // unpack writes exactly the type's bytes (the model's bytes in a type with no overlaps)
  Cursor u = pamir::dt::cursor(l, count);
  if (pamir::dt::unpack(back.data() + origin, u, want.data(), want.size()) != want.size())
    fail("unpack length");
  // Overlapping elements (a type may legally touch a byte twice): the last write wins in both.
  for (uint64_t k = 0, at = 0; k < count; ++k)
    for (const auto &x : m.e) {
      std::memcpy(expect.data() + origin + int64_t(k) * m.extent() + x.off, want.data() + at, x.len);
      at += x.len;
    }
  if (std::memcmp(back.data(), expect.data(), span) != 0) fail("unpack bytes");
  return 0;
}
