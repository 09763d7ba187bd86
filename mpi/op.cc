// Reduction operations: the predefined MPI_Op objects, MPI_Op_create/_c, MPI_Op_free,
// MPI_Op_commutative, MPI_Reduce_local/_c, and make_reduction, which the collectives use to turn
// (op, datatype) into a coll::Reduction.
#include "mpi/op.h"

#include <algorithm>
#include <climits>
#include <cstdint>

#include "mpi/check.h"
#include "pami/lock.h"
#include "pamir_alias.h"

namespace pamir::mpi {

namespace {

using coll::OpKind;

struct Predef {
  MPI_Op handle;
  OpKind kind;
  bool commute;
};

// MPI_REPLACE and MPI_NO_OP (one-sided only) do not commute: a REPLACE b is b's value, not a's.
const Predef kPredefined[] = {
    {MPI_SUM, OpKind::sum, true},          {MPI_MIN, OpKind::min, true},
    {MPI_MAX, OpKind::max, true},          {MPI_PROD, OpKind::prod, true},
    {MPI_BAND, OpKind::band, true},        {MPI_BOR, OpKind::bor, true},
    {MPI_BXOR, OpKind::bxor, true},        {MPI_LAND, OpKind::land, true},
    {MPI_LOR, OpKind::lor, true},          {MPI_LXOR, OpKind::lxor, true},
    {MPI_MINLOC, OpKind::minloc, true},    {MPI_MAXLOC, OpKind::maxloc, true},
    {MPI_REPLACE, OpKind::replace, false}, {MPI_NO_OP, OpKind::no_op, false},
};
constexpr size_t kNumPredefined = sizeof(kPredefined) / sizeof(kPredefined[0]);

// coll::Reduction::apply for a user function: inout[i] = in[i] op inout[i], in chunks of at most
// INT_MAX elements for an MPI_User_function. The library lock is dropped around the call: the function
// may call MPI.
void apply_user(const void *in, void *inout, size_t count, void *arg) {
  const UserBinding &b = *static_cast<const UserBinding *>(arg);
  MPI_Datatype handle = b.handle;
  Unlocked unlocked;
  if (b.op->fn_c) {
    MPI_Count len = MPI_Count(count);
    b.op->fn_c(const_cast<void *>(in), inout, &len, &handle);
    return;
  }
  const size_t extent = size_t(b.type->extent);
  auto *src = static_cast<unsigned char *>(const_cast<void *>(in));
  auto *dst = static_cast<unsigned char *>(inout);
  while (count > 0) {
    const size_t n = std::min<size_t>(count, INT_MAX);
    int len = int(n);
    b.op->fn(src, dst, &len, &handle);
    src += n * extent;
    dst += n * extent;
    count -= n;
  }
}

}  // namespace

void ops_init() {
  static Op *objects = nullptr;  // never destroyed: atexit handlers may still reduce
  if (objects) return;
  objects = new Op[kNumPredefined];
  for (size_t i = 0; i < kNumPredefined; ++i) {
    Op &o = objects[i];
    o.magic = uint32_t(Kind::op);
    o.predefined = true;
    o.is_builtin = true;
    o.builtin = kPredefined[i].kind;
    o.commute = kPredefined[i].commute;
    predefined_slot<Op>(reinterpret_cast<uintptr_t>(kPredefined[i].handle)) = &o;
  }
}

int bad_op(Comm *c, const char *fn, MPI_Op h) {
  if (h == MPI_OP_NULL) return raise(c, fn, MPI_ERR_OP, "MPI_OP_NULL is not an operation");
  if (is_freed<Op>(h)) return raise(c, fn, MPI_ERR_OP, "the operation was freed");
  return raise(c, fn, MPI_ERR_OP, "invalid operation handle %p", static_cast<void *>(h));
}

int make_reduction(Comm *c, Op *op, Datatype *type, coll::Reduction &out, const char *fn) {
  if (op->is_builtin) {
    if (__builtin_expect(op->builtin == OpKind::replace || op->builtin == OpKind::no_op, 0))
      return raise(c, fn, MPI_ERR_OP, "%s is defined for one-sided accumulate operations only",
                   coll::op_name(op->builtin));
    coll::ReduceFn f = coll::reduce_fn(op->builtin, type->elem);
    if (__builtin_expect(!f, 0))
      return raise(c, fn, MPI_ERR_OP, "%s is not defined on %s", coll::op_name(op->builtin), type_name(type));
    // A contiguous derived type of one basic type (elem_count of them) reduces as that many basic elements.
    out = coll::builtin_reduction(f, size_t(type->extent) / type->elem_count);
    return MPI_SUCCESS;
  }
  UserBinding *b = nullptr;
  for (UserBinding &x : op->bindings)
    if (x.type == type) b = &x;
  if (!b) b = &op->bindings.emplace_back(UserBinding{op, type, handle_of_type(type)});
  out = coll::Reduction{&apply_user, b, size_t(type->extent), op->commute};
  return MPI_SUCCESS;
}

}  // namespace pamir::mpi

using namespace pamir::mpi;

namespace {

int op_create(const char *fn_, MPI_User_function *fn, MPI_User_function_c *fn_c, int commute, MPI_Op *op) {
  PAMIR_CHECK(nullptr, fn || fn_c, MPI_ERR_ARG, "user_fn is NULL");
  PAMIR_CHECK(nullptr, op, MPI_ERR_ARG, "op is NULL");
  Op *o = pool<Op>().make();
  o->is_builtin = false;
  o->fn = fn;
  o->fn_c = fn_c;
  o->commute = commute != 0;
  *op = handle_of<MPI_Op>(o);
  return MPI_SUCCESS;
}

int reduce_local(const char *fn_, const void *inbuf, void *inoutbuf, int64_t count, MPI_Datatype datatype,
                 MPI_Op op) {
  PAMIR_CHECK(nullptr, count >= 0, MPI_ERR_COUNT, "negative count %lld", (long long)count);
  Datatype *t = PAMIR_TYPE(nullptr, datatype);
  Op *o = lookup<Op>(op);
  if (__builtin_expect(!o, 0)) return bad_op(nullptr, fn_, op);
  PAMIR_CHECK(nullptr, inbuf != MPI_IN_PLACE && inoutbuf != MPI_IN_PLACE, MPI_ERR_BUFFER,
              "MPI_IN_PLACE is not allowed here");
  PAMIR_CHECK(nullptr, buffer_ok(inbuf, count) && buffer_ok(inoutbuf, count), MPI_ERR_BUFFER,
              "inbuf or inoutbuf is NULL with count %lld", (long long)count);
  pamir::coll::Reduction r;
  if (int rc = make_reduction(nullptr, o, t, r, fn_)) return rc;
  if (count == 0) return MPI_SUCCESS;
  const uint64_t bytes = span_bytes(t, uint64_t(count));
  const auto in = reinterpret_cast<uintptr_t>(inbuf), io = reinterpret_cast<uintptr_t>(inoutbuf);
  PAMIR_CHECK(nullptr, in + bytes <= io || io + bytes <= in, MPI_ERR_BUFFER,
              "inbuf and inoutbuf overlap (%llu bytes each)", (unsigned long long)bytes);
  r.apply(inbuf, inoutbuf, size_t(count) * (o->is_builtin ? t->elem_count : 1), r.arg);
  return MPI_SUCCESS;
}

}  // namespace

int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op) {
  PAMIR_ENTER("MPI_Op_create");
  return op_create(fn_, user_fn, nullptr, commute, op);
}
PAMIR_ALIAS(Op_create);

int PMPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op) {
  PAMIR_ENTER("MPI_Op_create_c");
  return op_create(fn_, nullptr, user_fn, commute, op);
}
PAMIR_ALIAS(Op_create_c);

int PMPI_Op_free(MPI_Op *op) {
  PAMIR_ENTER("MPI_Op_free");
  PAMIR_CHECK(nullptr, op, MPI_ERR_ARG, "op is NULL");
  Op *o = lookup<Op>(*op);
  if (__builtin_expect(!o, 0)) return bad_op(nullptr, fn_, *op);
  PAMIR_CHECK(nullptr, !o->predefined, MPI_ERR_OP, "%s is predefined and cannot be freed",
              pamir::coll::op_name(o->builtin));
  if (o->int_handle && o->refs == 1) object_forget_int(Kind::op, o->int_handle);
  release(o);
  *op = MPI_OP_NULL;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Op_free);

int PMPI_Op_commutative(MPI_Op op, int *commute) {
  PAMIR_ENTER("MPI_Op_commutative");
  Op *o = lookup<Op>(op);
  if (__builtin_expect(!o, 0)) return bad_op(nullptr, fn_, op);
  PAMIR_CHECK(nullptr, commute, MPI_ERR_ARG, "commute is NULL");
  *commute = o->commute ? 1 : 0;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Op_commutative);

int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op) {
  PAMIR_ENTER("MPI_Reduce_local");
  return reduce_local(fn_, inbuf, inoutbuf, count, datatype, op);
}
PAMIR_ALIAS(Reduce_local);

int PMPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype datatype,
                        MPI_Op op) {
  PAMIR_ENTER("MPI_Reduce_local_c");
  return reduce_local(fn_, inbuf, inoutbuf, count, datatype, op);
}
PAMIR_ALIAS(Reduce_local_c);
