// MPI_Pack, MPI_Unpack and MPI_Pack_size, and their "external32" forms. The native packed form is the
// data's bytes in type-map order, exactly what travels in a message; external32 (MPI 5.0 section 13.5.2)
// is the same order with every basic element big-endian, long double as IEEE binary128, complex
// numbers as two reals, and each type at its size of the standard's table: on LP64 Linux all are at
// their native size but MPI_LONG and MPI_UNSIGNED_LONG, 4 bytes there and 8 here. So external32 is the
// native packed form converted element by element: in place when no element changes size, else from a
// native copy, narrowing the longs (a value that does not fit is an error, not a silent truncation).
#include <climits>
#include <cstring>
#include <vector>

#include "mpi/check.h"
#include "pamir_alias.h"

namespace pamir::mpi {

namespace {

void reverse(uint8_t *p, size_t n) {
  for (size_t i = 0, j = n - 1; i < j; ++i, --j) std::swap(p[i], p[j]);
}

// One basic element between native and external32, in place (16 bytes of long double either way).
void long_double_convert(uint8_t *p, bool to_external) {
  if (to_external) {
    long double v;
    std::memcpy(&v, p, sizeof v);
    const __float128 q = static_cast<__float128>(v);
    std::memcpy(p, &q, sizeof q);
    reverse(p, sizeof q);
  } else {
    reverse(p, sizeof(__float128));
    __float128 q;
    std::memcpy(&q, p, sizeof q);
    const long double v = static_cast<long double>(q);
    std::memset(p, 0, 16);
    std::memcpy(p, &v, sizeof v);
  }
}

// How a basic element of type `id` converts: `units` pieces of `unit` bytes each byte-reversed, or
// long doubles converted.
struct Conversion {
  unsigned units;
  unsigned unit;
  bool long_double;
};
Conversion conversion_of(uint32_t id, uint32_t bytes) {
  const Datatype *b = datatype_of(id);
  const coll::ElemType e = b ? b->elem : coll::ElemType::none;
  if (e == coll::ElemType::f80) return {1, bytes, true};
  if (e == coll::ElemType::cf80) return {2, bytes / 2, true};
  const MPI_Datatype h = reinterpret_cast<MPI_Datatype>(uintptr_t(id));
  if (e == coll::ElemType::cf32 || e == coll::ElemType::cf64 || h == MPI_COMPLEX4 || h == MPI_COMPLEX32)
    return {2, bytes / 2, false};
  return {1, bytes, false};
}

// external32's size of one basic element of type `id`, `bytes` natively.
uint32_t external_bytes(uint32_t id, uint32_t bytes) {
  const MPI_Datatype h = reinterpret_cast<MPI_Datatype>(uintptr_t(id));
  return h == MPI_LONG || h == MPI_UNSIGNED_LONG ? 4 : bytes;
}

// Bytes of `count` elements of t in external32.
uint64_t external_size(const Datatype *t, uint64_t count) {
  uint64_t one = 0;
  for (const dt::SigRun &run : t->layout.sig) one += run.count * external_bytes(run.id, run.bytes);
  return one * count;
}

bool same_size(const Datatype *t) {
  for (const dt::SigRun &run : t->layout.sig)
    if (external_bytes(run.id, run.bytes) != run.bytes) return false;
  return true;
}

// Converts `count` elements of t from `from` (native packed, or external32) to `to` (the other form),
// which may be the same memory when no element changes size. False when a long does not fit external32's
// 4 bytes (`bad` is then its value).
bool convert(const Datatype *t, uint64_t count, const uint8_t *from, uint8_t *to, bool to_external,
             int64_t &bad) {
  for (uint64_t k = 0; k < count; ++k)
    for (const dt::SigRun &run : t->layout.sig) {
      const Conversion cv = conversion_of(run.id, run.bytes);
      const uint32_t ext = external_bytes(run.id, run.bytes);
      if (ext != run.bytes) {
        const bool is_signed = reinterpret_cast<MPI_Datatype>(uintptr_t(run.id)) == MPI_LONG;
        for (uint64_t i = 0; i < run.count; ++i) {
          uint8_t be[4];
          if (to_external) {
            int64_t v;
            std::memcpy(&v, from, 8);
            if (is_signed ? (v < INT32_MIN || v > INT32_MAX) : uint64_t(v) > UINT32_MAX) {
              bad = v;
              return false;
            }
            const uint32_t w = uint32_t(v);
            for (int b = 0; b < 4; ++b) be[b] = uint8_t(w >> (24 - 8 * b));
            std::memcpy(to, be, 4);
            from += 8;
            to += 4;
          } else {
            std::memcpy(be, from, 4);
            const uint32_t w = uint32_t(be[0]) << 24 | uint32_t(be[1]) << 16 | uint32_t(be[2]) << 8 | be[3];
            const int64_t v = is_signed ? int64_t(int32_t(w)) : int64_t(w);
            std::memcpy(to, &v, 8);
            from += 4;
            to += 8;
          }
        }
        continue;
      }
      const uint64_t bytes = run.count * run.bytes;
      if (from != to) std::memmove(to, from, bytes);
      uint8_t *p = to;
      for (uint64_t i = 0; i < run.count; ++i)
        for (unsigned u = 0; u < cv.units; ++u, p += cv.unit) {
          if (cv.long_double)
            long_double_convert(p, to_external);
          else
            reverse(p, cv.unit);
        }
      from += bytes;
      to += bytes;
    }
  return true;
}

[[gnu::cold]] int does_not_fit(const char *fn_, int64_t v) {
  return raise(nullptr, fn_, MPI_ERR_ARG,
               "an MPI_LONG or MPI_UNSIGNED_LONG value (%lld) does not fit "
               "external32's 4 bytes",
               (long long)v);
}

bool is_external32(const char *datarep) {
  return datarep && std::strcmp(datarep, "external32") == 0;
}

// The native forms name a communicator (its error handler reports), the external ones a representation.
int representation(const char *fn_, const char *datarep, MPI_Comm comm, Comm *&c) {
  if (!datarep) {
    c = PAMIR_COMM(comm);
    return MPI_SUCCESS;
  }
  PAMIR_CHECK(nullptr, is_external32(datarep), MPI_ERR_UNSUPPORTED_DATAREP,
              "data representation \"%s\" is not \"external32\"", datarep);
  return MPI_SUCCESS;
}

// The checks MPI_Pack and MPI_Unpack (and their external32 forms) share: the representation, or the
// communicator; the type; the count; the position and size of the packed buffer; the user's buffer.
// On success `d` is the user's data and `packed` the place in the packed buffer (nothing when empty).
template <typename C>
int prologue(const char *fn_, const char *datarep, MPI_Comm comm, MPI_Datatype datatype, const void *user,
             C count, const void *packed_buf, C packed_size, C *position, bool packing, Datatype *&t, Data &d,
             uint8_t *&packed) {
  Comm *c = nullptr;
  if (int rc = representation(fn_, datarep, comm, c)) return rc;
  t = PAMIR_TYPE(c, datatype);
  const char *const which = packing ? "in" : "out";
  PAMIR_CHECK(c, count >= 0, MPI_ERR_COUNT, "negative %scount %lld", which, (long long)count);
  PAMIR_CHECK(c, position, MPI_ERR_ARG, "position is NULL");
  PAMIR_CHECK(c, *position >= 0 && packed_size >= 0, MPI_ERR_ARG, "negative position %lld or %s %lld",
              (long long)*position, packing ? "outsize" : "insize", (long long)packed_size);
  PAMIR_CHECK(c, buffer_ok(user, count, t), MPI_ERR_BUFFER, "%sbuf is NULL with %scount %lld", which, which,
              (long long)count);
  d = data_of(t, user, uint64_t(count));
  const uint64_t need = datarep ? external_size(t, uint64_t(count)) : d.bytes;
  PAMIR_CHECK(c, need <= uint64_t(packed_size) && uint64_t(*position) <= uint64_t(packed_size) - need,
              MPI_ERR_TRUNCATE, "%llu bytes do not fit at position %lld of a %lld-byte packed buffer",
              (unsigned long long)need, (long long)*position, (long long)packed_size);
  PAMIR_CHECK(c, packed_buf || need == 0, MPI_ERR_BUFFER, "%s is NULL", packing ? "outbuf" : "inbuf");
  packed = need ? static_cast<uint8_t *>(const_cast<void *>(packed_buf)) + *position : nullptr;
  return MPI_SUCCESS;
}

template <typename C>
int pack(const char *fn_, const char *datarep, const void *inbuf, C incount, MPI_Datatype datatype,
         void *outbuf, C outsize, C *position, MPI_Comm comm) {
  Datatype *t;
  Data d;
  uint8_t *out;
  if (int rc =
          prologue(fn_, datarep, comm, datatype, inbuf, incount, outbuf, outsize, position, true, t, d, out))
    return rc;
  if (!d.bytes) return MPI_SUCCESS;
  if (!datarep) {
    pack_data(d, out);
    *position += C(d.bytes);
    return MPI_SUCCESS;
  }
  int64_t bad = 0;
  bool ok;
  if (same_size(t)) {
    pack_data(d, out);
    ok = convert(t, uint64_t(incount), out, out, true, bad);
  } else {
    std::vector<uint8_t> native(d.bytes);
    pack_data(d, native.data());
    ok = convert(t, uint64_t(incount), native.data(), out, true, bad);
  }
  if (!ok) return does_not_fit(fn_, bad);
  *position += C(external_size(t, uint64_t(incount)));
  return MPI_SUCCESS;
}

template <typename C>
int unpack(const char *fn_, const char *datarep, const void *inbuf, C insize, C *position, void *outbuf,
           C outcount, MPI_Datatype datatype, MPI_Comm comm) {
  Datatype *t;
  Data d;
  uint8_t *in;
  if (int rc =
          prologue(fn_, datarep, comm, datatype, outbuf, outcount, inbuf, insize, position, false, t, d, in))
    return rc;
  if (!d.bytes) return MPI_SUCCESS;
  if (!datarep) {
    unpack_data(d, in);
    *position += C(d.bytes);
    return MPI_SUCCESS;
  }
  // The input is the caller's and stays as it is: convert into a native copy.
  std::vector<uint8_t> native(d.bytes);
  int64_t unused = 0;
  convert(t, uint64_t(outcount), in, native.data(), false, unused);
  unpack_data(d, native.data());
  *position += C(external_size(t, uint64_t(outcount)));
  return MPI_SUCCESS;
}

template <typename C>
int pack_size(const char *fn_, const char *datarep, C incount, MPI_Datatype datatype, MPI_Comm comm,
              C *size) {
  Comm *c = nullptr;
  if (int rc = representation(fn_, datarep, comm, c)) return rc;
  Datatype *t = PAMIR_TYPE(c, datatype);
  PAMIR_CHECK(c, incount >= 0, MPI_ERR_COUNT, "negative incount %lld", (long long)incount);
  PAMIR_CHECK(c, size, MPI_ERR_ARG, "size is NULL");
  // external32 changes the size of the longs only: per element, the external size of its signature.
  const uint64_t one = datarep ? external_size(t, 1) : uint64_t(t->size);
  const unsigned __int128 bytes = (unsigned __int128)one * uint64_t(incount);
  constexpr unsigned __int128 limit = std::is_same_v<C, int> ? INT_MAX : INT64_MAX;
  PAMIR_CHECK(c, bytes <= limit, MPI_ERR_COUNT, "%lld elements of %s do not fit in the size argument",
              (long long)incount, type_name(t));
  *size = C(bytes);
  return MPI_SUCCESS;
}

}  // namespace

}  // namespace pamir::mpi

using namespace pamir::mpi;

int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize, int *position,
              MPI_Comm comm) {
  PAMIR_ENTER("MPI_Pack");
  return pack(fn_, nullptr, inbuf, incount, datatype, outbuf, outsize, position, comm);
}
PAMIR_ALIAS(Pack);
int PMPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
                MPI_Count *position, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Pack_c");
  return pack(fn_, nullptr, inbuf, incount, datatype, outbuf, outsize, position, comm);
}
PAMIR_ALIAS(Pack_c);

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                MPI_Datatype datatype, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Unpack");
  return unpack(fn_, nullptr, inbuf, insize, position, outbuf, outcount, datatype, comm);
}
PAMIR_ALIAS(Unpack);
int PMPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf, MPI_Count outcount,
                  MPI_Datatype datatype, MPI_Comm comm) {
  PAMIR_ENTER("MPI_Unpack_c");
  return unpack(fn_, nullptr, inbuf, insize, position, outbuf, outcount, datatype, comm);
}
PAMIR_ALIAS(Unpack_c);

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size) {
  PAMIR_ENTER("MPI_Pack_size");
  return pack_size(fn_, nullptr, incount, datatype, comm, size);
}
PAMIR_ALIAS(Pack_size);
int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size) {
  PAMIR_ENTER("MPI_Pack_size_c");
  return pack_size(fn_, nullptr, incount, datatype, comm, size);
}
PAMIR_ALIAS(Pack_size_c);

int PMPI_Pack_external(const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype,
                       void *outbuf, MPI_Aint outsize, MPI_Aint *position) {
  PAMIR_ENTER("MPI_Pack_external");
  PAMIR_CHECK(nullptr, datarep, MPI_ERR_ARG, "datarep is NULL");
  return pack<MPI_Aint>(fn_, datarep, inbuf, incount, datatype, outbuf, outsize, position, MPI_COMM_NULL);
}
PAMIR_ALIAS(Pack_external);
int PMPI_Pack_external_c(const char datarep[], const void *inbuf, MPI_Count incount, MPI_Datatype datatype,
                         void *outbuf, MPI_Count outsize, MPI_Count *position) {
  PAMIR_ENTER("MPI_Pack_external_c");
  PAMIR_CHECK(nullptr, datarep, MPI_ERR_ARG, "datarep is NULL");
  return pack(fn_, datarep, inbuf, incount, datatype, outbuf, outsize, position, MPI_COMM_NULL);
}
PAMIR_ALIAS(Pack_external_c);

int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize, MPI_Aint *position,
                         void *outbuf, int outcount, MPI_Datatype datatype) {
  PAMIR_ENTER("MPI_Unpack_external");
  PAMIR_CHECK(nullptr, datarep, MPI_ERR_ARG, "datarep is NULL");
  return unpack<MPI_Aint>(fn_, datarep, inbuf, insize, position, outbuf, outcount, datatype, MPI_COMM_NULL);
}
PAMIR_ALIAS(Unpack_external);
int PMPI_Unpack_external_c(const char datarep[], const void *inbuf, MPI_Count insize, MPI_Count *position,
                           void *outbuf, MPI_Count outcount, MPI_Datatype datatype) {
  PAMIR_ENTER("MPI_Unpack_external_c");
  PAMIR_CHECK(nullptr, datarep, MPI_ERR_ARG, "datarep is NULL");
  return unpack(fn_, datarep, inbuf, insize, position, outbuf, outcount, datatype, MPI_COMM_NULL);
}
PAMIR_ALIAS(Unpack_external_c);

int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype, MPI_Aint *size) {
  PAMIR_ENTER("MPI_Pack_external_size");
  PAMIR_CHECK(nullptr, datarep, MPI_ERR_ARG, "datarep is NULL");
  return pack_size<MPI_Aint>(fn_, datarep, incount, datatype, MPI_COMM_NULL, size);
}
PAMIR_ALIAS(Pack_external_size);
int PMPI_Pack_external_size_c(const char datarep[], MPI_Count incount, MPI_Datatype datatype,
                              MPI_Count *size) {
  PAMIR_ENTER("MPI_Pack_external_size_c");
  PAMIR_CHECK(nullptr, datarep, MPI_ERR_ARG, "datarep is NULL");
  return pack_size(fn_, datarep, incount, datatype, MPI_COMM_NULL, size);
}
PAMIR_ALIAS(Pack_external_size_c);
