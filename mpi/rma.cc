// One-sided operations (MPI 5.0 §12.3): put, get, the accumulates, and their request-based forms. The
// binding checks arguments and the epoch, then hands the PAMI window pieces: one for contiguous data,
// else the common chunks of the two sides' layouts (three with a result buffer), found here and moved
// with no buffer in between (seed 003).
#include <sys/uio.h>

#include <algorithm>
#include <cstring>

#include "mpi/check.h"
#include "mpi/op.h"
#include "mpi/request.h"
#include "mpi/win.h"
#include "pami/context.h"
#include "pamir_alias.h"

namespace pamir::mpi {

namespace {

enum class Rma : uint8_t { put, get, acc, get_acc };

constexpr const char *kRmaVerb[] = {"put to", "get from", "accumulate into", "get_accumulate on"};

// Evaluates to the Datatype*, or returns MPI_ERR_TYPE raised on the window.
#define PAMIR_WIN_TYPE(w, h)                                                        \
  ({                                                                                \
    ::pamir::mpi::Datatype *t_ = ::pamir::mpi::lookup<::pamir::mpi::Datatype>(h);   \
    if (__builtin_expect(!t_ || !t_->committed, 0)) return bad_win_type(w, fn_, h); \
    t_;                                                                             \
  })

[[gnu::cold]] int bad_win_type(Win *w, const char *fn, MPI_Datatype h) {
  if (h == MPI_DATATYPE_NULL) return raise(w, fn, MPI_ERR_TYPE, "MPI_DATATYPE_NULL is not a datatype");
  const Datatype *t = lookup<Datatype>(h);
  if (t && !t->committed) return raise(w, fn, MPI_ERR_TYPE, "the datatype is not committed");
  return raise(w, fn, MPI_ERR_TYPE, "invalid datatype handle %p", static_cast<void *>(h));
}

// Whether this process may reach `target` now: an epoch of fence, of start, or of a lock.
inline bool in_epoch(const Win *w, const pamir::WinTarget &t) {
  return w->fence || w->lock_all || t.lock != pamir::LockType::none || t.access;
}

[[gnu::cold]] int outside_epoch(Win *w, const char *fn, int target, bool passive_only) {
  return raise(w, fn, MPI_ERR_RMA_SYNC,
               passive_only ? "rank %d of the window is not locked (MPI_Win_lock or MPI_Win_lock_all): "
                              "request-based operations belong to passive-target epochs"
                            : "no epoch reaches rank %d of the window (MPI_Win_fence, MPI_Win_start, "
                              "MPI_Win_lock or MPI_Win_lock_all first)",
               target);
}

// One side's data as a stream of contiguous pieces.
struct Stream {
  uintptr_t base;
  uint64_t left;    // dense: bytes not yet handed out
  dt::Cursor *cur;  // non-dense
  bool next(uint64_t max, uintptr_t &at, uint64_t &len) {
    if (!cur) {
      if (!left) return false;
      at = base;
      len = std::min(max, left);
      base += len;
      left -= len;
      return true;
    }
    int64_t off;
    if (!cur->next(max, off, len)) return false;
    at = base + uintptr_t(off);
    return true;
  }
};

struct Side {
  Data d;
  dt::Cursor cur;
  Stream s;
  Side(const Datatype *t, const void *buf, uint64_t count)
      : d(data_of(t, buf, count)),
        cur(d.layout ? dt::cursor(*d.layout, d.elems) : dt::Cursor(nullptr, 0, 0, 0)),
        s{uintptr_t(d.base), d.bytes, d.layout ? &cur : nullptr} {}
};

// The basic element of an accumulate's type: the predefined type itself, or the one basic type a derived
// type is made of; nullptr if there is none.
const Datatype *basic_of(const Datatype *t) {
  if (t->predefined || t->permanent) return t;
  const auto &sig = t->layout.sig;
  if (sig.empty()) return nullptr;
  for (const dt::SigRun &r : sig)
    if (r.id != sig[0].id) return nullptr;
  return datatype_of(sig[0].id);
}

struct Args {
  Rma kind;
  const void *origin;
  int64_t ocount;
  MPI_Datatype otype;
  void *result;
  int64_t rcount;
  MPI_Datatype rtype;
  int target;
  MPI_Aint disp;
  int64_t tcount;
  MPI_Datatype ttype;
  MPI_Op op;
  bool request_based = false;
};

// Moves the operation's data; 0 or -errno.
int move(pamir::Window &pw, uint32_t r, Rma kind, Side &o, Side *res, Side &t, const pamir::WinOp &op,
         uint64_t unit) {
  // Contiguous on every side: one piece.
  if (!o.d.layout && !t.d.layout && (!res || !res->d.layout)) {
    struct iovec l = {o.d.base, t.d.bytes}, rm = {t.d.base, t.d.bytes};
    switch (kind) {
      case Rma::put:
        return pw.put_pieces(r, &l, &rm, 1);
      case Rma::get:
        return pw.get_pieces(r, &l, &rm, 1);
      default: {
        struct iovec rs = {res ? res->d.base : nullptr, t.d.bytes};
        return pw.accumulate(r, op, o.d.base ? &l : nullptr, res ? &rs : nullptr, &rm, 1);
      }
    }
  }
  constexpr unsigned kBatch = 64;
  struct iovec lv[kBatch], rv[kBatch], sv[kBatch];
  unsigned n = 0;
  uintptr_t oa = 0, ta = 0, ra = 0;
  uint64_t ol = 0, tl = 0, rl = 0;
  auto flush = [&]() -> int {
    if (!n) return 0;
    const unsigned k = n;
    n = 0;
    switch (kind) {
      case Rma::put:
        return pw.put_pieces(r, lv, rv, k);
      case Rma::get:
        return pw.get_pieces(r, lv, rv, k);
      default:
        return pw.accumulate(r, op, o.d.base ? lv : nullptr, res ? sv : nullptr, rv, k);
    }
  };
  const bool origin_data = o.d.base || o.d.layout;
  for (;;) {
    if (!tl && !t.s.next(UINT64_MAX, ta, tl)) break;
    if (origin_data && !ol && !o.s.next(UINT64_MAX, oa, ol)) break;
    if (res && !rl && !res->s.next(UINT64_MAX, ra, rl)) break;
    uint64_t len = tl;
    if (origin_data) len = std::min(len, ol);
    if (res) len = std::min(len, rl);
    len -= len % unit;  // pieces of an accumulate hold whole elements (both sides are made of them)
    if (!len) return -EINVAL;
    lv[n] = {reinterpret_cast<void *>(oa), len};
    rv[n] = {reinterpret_cast<void *>(ta), len};
    sv[n] = {reinterpret_cast<void *>(ra), len};
    ++n;
    ta += len, tl -= len;
    if (origin_data) oa += len, ol -= len;
    if (res) ra += len, rl -= len;
    if (n == kBatch)
      if (int rc = flush()) return rc;
  }
  return flush();
}

int rma(const char *fn_, const Args &a, MPI_Win win, MPI_Request *request) {
  Win *w = PAMIR_WIN(win);
  if (a.request_based) {
    PAMIR_CHECK(w, request, MPI_ERR_ARG, "request is NULL");
    *request = MPI_REQUEST_NULL;
  }
  pamir::Window &pw = *w->w;
  const int size = int(pw.size());
  PAMIR_CHECK(w, a.target == MPI_PROC_NULL || (a.target >= 0 && a.target < size), MPI_ERR_RANK,
              "target rank %d is not in the window's group of %d", a.target, size);
  const bool accum = a.kind == Rma::acc || a.kind == Rma::get_acc;
  const bool has_origin = !(a.kind == Rma::get_acc && a.op == MPI_NO_OP);
  PAMIR_CHECK(w, a.tcount >= 0 && (!has_origin || a.ocount >= 0) && a.rcount >= 0, MPI_ERR_COUNT,
              "negative count");
  Datatype *tt = PAMIR_WIN_TYPE(w, a.ttype);
  Datatype *ot = has_origin ? PAMIR_WIN_TYPE(w, a.otype) : nullptr;
  Datatype *rt = a.kind == Rma::get_acc ? PAMIR_WIN_TYPE(w, a.rtype) : nullptr;
  pamir::WinOp op;
  if (accum) {
    Op *o = lookup<Op>(a.op);
    if (__builtin_expect(!o, 0)) return raise(w, fn_, MPI_ERR_OP, "invalid operation");
    PAMIR_CHECK(w, o->is_builtin, MPI_ERR_OP,
                "one-sided accumulates take predefined operations only, not a user-defined one");
    PAMIR_CHECK(w, a.kind == Rma::get_acc || o->builtin != coll::OpKind::no_op, MPI_ERR_OP,
                "MPI_NO_OP is for MPI_Get_accumulate and MPI_Fetch_and_op only");
    const Datatype *basic = basic_of(tt);
    PAMIR_CHECK(w, basic && (!ot || basic_of(ot) == basic) && (!rt || basic_of(rt) == basic), MPI_ERR_TYPE,
                "the datatypes of an accumulate must be made of one and the same predefined type");
    op.op = o->builtin;
    op.elem = basic->elem;
    op.elem_bytes = uint32_t(basic->size);
    if (op.op != coll::OpKind::replace && op.op != coll::OpKind::no_op)
      PAMIR_CHECK(w, coll::reduce_fn(op.op, op.elem), MPI_ERR_OP, "%s is not defined on %s",
                  coll::op_name(op.op), type_name(basic));
    if (w->same_op && op.op != coll::OpKind::no_op) {
      if (w->first_op == MPI_OP_NULL) w->first_op = a.op;
      PAMIR_CHECK(w, a.op == w->first_op, MPI_ERR_RMA_CONFLICT,
                  "the window's accumulate_ops is same_op, but this accumulate's operation differs from "
                  "an earlier one");
    }
  }
  if (a.target == MPI_PROC_NULL) {
    if (a.request_based) *request = reinterpret_cast<MPI_Request>(request_completed_send());
    return MPI_SUCCESS;
  }
  pamir::WinTarget &t = pw.target(uint32_t(a.target));
  if (__builtin_expect(!in_epoch(w, t), 0) ||
      (a.request_based && !w->lock_all && t.lock == pamir::LockType::none))
    return outside_epoch(w, fn_, a.target, a.request_based);
  PAMIR_CHECK(w, w->flavor == MPI_WIN_FLAVOR_DYNAMIC || a.disp >= 0, MPI_ERR_DISP,
              "negative target displacement %lld", static_cast<long long>(a.disp));
  const uint64_t tbytes = uint64_t(tt->size) * uint64_t(a.tcount);
  if (has_origin)
    PAMIR_CHECK(w, uint64_t(ot->size) * uint64_t(a.ocount) == tbytes, MPI_ERR_TYPE,
                "the origin's data (%llu bytes) and the target's (%llu bytes) differ",
                static_cast<unsigned long long>(uint64_t(ot->size) * uint64_t(a.ocount)),
                static_cast<unsigned long long>(tbytes));
  if (rt)
    PAMIR_CHECK(w, uint64_t(rt->size) * uint64_t(a.rcount) == tbytes, MPI_ERR_TYPE,
                "the result buffer's data (%llu bytes) and the target's (%llu bytes) differ",
                static_cast<unsigned long long>(uint64_t(rt->size) * uint64_t(a.rcount)),
                static_cast<unsigned long long>(tbytes));
  // The target's memory: checked against its window's size, unless it is dynamic (the target checks).
  const __int128 at = __int128(a.disp) * (w->flavor == MPI_WIN_FLAVOR_DYNAMIC ? 1 : t.disp_unit);
  if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC && a.tcount) {
    const __int128 lo = at + tt->true_lb;
    const __int128 hi = at + __int128(a.tcount - 1) * tt->extent + tt->true_lb + tt->true_extent;
    PAMIR_CHECK(w, lo >= 0 && hi <= __int128(t.size), MPI_ERR_RMA_RANGE,
                "the %s rank %d's window reaches bytes %lld to %lld, outside its %llu bytes",
                kRmaVerb[unsigned(a.kind)], a.target, static_cast<long long>(lo), static_cast<long long>(hi),
                static_cast<unsigned long long>(t.size));
  }
  if (tbytes) {
    const uint64_t taddr = uint64_t(__int128(t.base) + at);
    Side ts(tt, reinterpret_cast<void *>(uintptr_t(taddr)), uint64_t(a.tcount));
    Side os(has_origin ? ot : tt, has_origin ? a.origin : nullptr, has_origin ? uint64_t(a.ocount) : 0);
    if (!has_origin) os.d = Data{nullptr, 0, nullptr, 0};
    const int rc = [&] {
      if (!rt) return move(pw, uint32_t(a.target), a.kind, os, nullptr, ts, op, accum ? op.elem_bytes : 1);
      Side rs(rt, a.result, uint64_t(a.rcount));
      return move(pw, uint32_t(a.target), a.kind, os, &rs, ts, op, op.elem_bytes);
    }();
    if (rc)
      return raise(w, fn_, rc == -EFAULT ? MPI_ERR_RMA_RANGE : MPI_ERR_OTHER,
                   "the %s rank %d's memory failed: %s", kRmaVerb[unsigned(a.kind)], a.target,
                   std::strerror(-rc));
  }
  if (a.request_based) {
    // Complete at once: a direct path is done at return; a served one is waited for here (on path remote
    // an accumulate's), and so is an offer that answers with data (a get's, a get_accumulate's: its
    // answer is copied out when the offer is finished; an offered put or accumulate holds a copy of its
    // origin data already).
    const bool answers = a.kind == Rma::get || a.kind == Rma::get_acc;
    const bool served = t.path == pamir::WinPath::served ||
                        (t.path == pamir::WinPath::remote && (a.kind == Rma::acc || a.kind == Rma::get_acc));
    if (served || (answers && t.offered())) pw.flush(uint32_t(a.target));
    *request = reinterpret_cast<MPI_Request>(request_completed_send());
  }
  return MPI_SUCCESS;
}

int compare_and_swap(const char *fn_, const void *origin, const void *compare, void *result,
                     MPI_Datatype type, int target, MPI_Aint disp, MPI_Win win) {
  Win *w = PAMIR_WIN(win);
  pamir::Window &pw = *w->w;
  const int size = int(pw.size());
  PAMIR_CHECK(w, target == MPI_PROC_NULL || (target >= 0 && target < size), MPI_ERR_RANK,
              "target rank %d is not in the window's group of %d", target, size);
  Datatype *t = PAMIR_WIN_TYPE(w, type);
  // C and Fortran integers, logicals and MPI_BYTE (MPI 5.0 §12.3.5): one basic element of them.
  const coll::ElemType e = t->elem;
  const bool allowed = t->predefined && t->size <= 16 && e != coll::ElemType::none &&
                       (e <= coll::ElemType::u64 || e == coll::ElemType::c_bool ||
                        e == coll::ElemType::f_logical || e == coll::ElemType::byte);
  PAMIR_CHECK(w, allowed, MPI_ERR_TYPE,
              "MPI_Compare_and_swap takes one predefined integer, logical or byte element, not %s",
              type_name(t));
  PAMIR_CHECK(w, origin && compare && result, MPI_ERR_BUFFER,
              "origin_addr, compare_addr or result_addr is NULL");
  if (target == MPI_PROC_NULL) return MPI_SUCCESS;
  pamir::WinTarget &tg = pw.target(uint32_t(target));
  if (__builtin_expect(!in_epoch(w, tg), 0)) return outside_epoch(w, fn_, target, false);
  const __int128 at = __int128(disp) * (w->flavor == MPI_WIN_FLAVOR_DYNAMIC ? 1 : tg.disp_unit);
  if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
    PAMIR_CHECK(w, disp >= 0 && at + t->size <= __int128(tg.size), MPI_ERR_RMA_RANGE,
                "MPI_Compare_and_swap on rank %d's window at byte %lld is outside its %llu bytes", target,
                static_cast<long long>(at), static_cast<unsigned long long>(tg.size));
  const int rc = pw.compare_and_swap(uint32_t(target), origin, compare, result,
                                     uint64_t(__int128(tg.base) + at), uint32_t(t->size));
  if (rc)
    return raise(w, fn_, rc == -EFAULT ? MPI_ERR_RMA_RANGE : MPI_ERR_OTHER,
                 "the compare-and-swap on rank %d's memory failed: %s", target, std::strerror(-rc));
  return MPI_SUCCESS;
}

// The common case in a few dozen instructions: one predefined type and count on both sides, a target
// this process reaches directly, inside the window. Anything else (and every error) takes rma().
struct Fast {
  pamir::WinTarget *t;
  uint64_t addr;  // in the target's address space
  size_t bytes;
  const Datatype *type;
};
inline bool fast_args(Win *w, int target, MPI_Aint disp, int64_t count, MPI_Datatype type, int64_t tcount,
                      MPI_Datatype ttype, Fast &f) {
  const uintptr_t tv = reinterpret_cast<uintptr_t>(type);
  if (!w || type != ttype || count != tcount || count < 0 || tv >= kPredefinedLimit || disp < 0 ||
      uint32_t(target) >= w->w->size() || w->flavor == MPI_WIN_FLAVOR_DYNAMIC)
    return false;
  const Datatype *d = predefined_slot<Datatype>(tv);
  if (!d || !d->contiguous) return false;
  pamir::WinTarget &t = w->w->target(uint32_t(target));
  uint64_t off, bytes;
  if (t.path == pamir::WinPath::served || !in_epoch(w, t) ||
      __builtin_mul_overflow(uint64_t(disp), uint64_t(t.disp_unit), &off) ||
      __builtin_mul_overflow(uint64_t(d->size), uint64_t(count), &bytes) || off > t.size ||
      bytes > t.size - off)
    return false;
  f = {&t, t.base + off, bytes, d};
  return true;
}

// The predefined operation of an accumulate on the fast path, or false.
inline bool fast_op(Win *w, MPI_Op op, const Datatype *d, pamir::WinOp &out) {
  const uintptr_t v = reinterpret_cast<uintptr_t>(op);
  if (v >= kPredefinedLimit || w->same_op) return false;
  const Op *o = predefined_slot<Op>(v);
  if (!o || d->elem == coll::ElemType::none) return false;
  out = {o->builtin, d->elem, uint32_t(d->size)};
  return o->builtin == coll::OpKind::replace || o->builtin == coll::OpKind::no_op ||
         coll::reduce_fn(o->builtin, d->elem) != nullptr;
}

inline uint8_t *mapped_at(const Fast &f) {
  return f.t->mapped + (f.addr - f.t->base);
}

// A put (kPut) or a get on the fast path; false when the call is not one for it, and rma() then does it
// (and reports every error).
template <bool kPut>
inline bool fast_move(MPI_Win win, void *origin, int64_t count, MPI_Datatype type, int target, MPI_Aint disp,
                      int64_t tcount, MPI_Datatype ttype) {
  Win *w = win_of(win);
  Fast f;
  if (!fast_args(w, target, disp, count, type, tcount, ttype, f) || (!origin && f.bytes)) return false;
  if (f.t->path == pamir::WinPath::mapped) {
    if (kPut)
      w->w->copy_mapped(mapped_at(f), origin, f.bytes);
    else
      w->w->copy_mapped(origin, mapped_at(f), f.bytes);
    return true;
  }
  return !f.bytes || (kPut ? w->w->put(uint32_t(target), f.addr, origin, f.bytes)
                           : w->w->get(uint32_t(target), f.addr, origin, f.bytes)) == 0;
}

int compare_and_swap(const char *fn_, const void *origin, const void *compare, void *result,
                     MPI_Datatype type, int target, MPI_Aint disp, MPI_Win win);

}  // namespace

}  // namespace pamir::mpi

using namespace pamir::mpi;

int PMPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) {
  PAMIR_ENTER("MPI_Put");
  if (__builtin_expect(fast_move<true>(win, const_cast<void *>(origin_addr), origin_count, origin_datatype,
                                       target_rank, target_disp, target_count, target_datatype),
                       1))
    return MPI_SUCCESS;
  return rma(fn_,
             {Rma::put, origin_addr, origin_count, origin_datatype, nullptr, 0, MPI_DATATYPE_NULL,
              target_rank, target_disp, target_count, target_datatype, MPI_OP_NULL},
             win, nullptr);
}
PAMIR_ALIAS(Put);

int PMPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) {
  PAMIR_ENTER("MPI_Get");
  if (__builtin_expect(fast_move<false>(win, origin_addr, origin_count, origin_datatype, target_rank,
                                        target_disp, target_count, target_datatype),
                       1))
    return MPI_SUCCESS;
  return rma(fn_,
             {Rma::get, origin_addr, origin_count, origin_datatype, nullptr, 0, MPI_DATATYPE_NULL,
              target_rank, target_disp, target_count, target_datatype, MPI_OP_NULL},
             win, nullptr);
}
PAMIR_ALIAS(Get);

int PMPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                    MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
                    MPI_Win win) {
  PAMIR_ENTER("MPI_Accumulate");
  Win *w = win_of(win);
  Fast f;
  pamir::WinOp o;
  if (__builtin_expect(fast_args(w, target_rank, target_disp, origin_count, origin_datatype, target_count,
                                 target_datatype, f) &&
                           origin_addr && f.t->path == pamir::WinPath::mapped && fast_op(w, op, f.type, o) &&
                           o.op != pamir::coll::OpKind::no_op,
                       1)) {
    w->w->acc_lock(f.t->ctl);
    pamir::Window::apply(o, origin_addr, mapped_at(f), f.bytes);
    pamir::Window::acc_unlock(f.t->ctl);
    return MPI_SUCCESS;
  }
  return rma(fn_,
             {Rma::acc, origin_addr, origin_count, origin_datatype, nullptr, 0, MPI_DATATYPE_NULL,
              target_rank, target_disp, target_count, target_datatype, op},
             win, nullptr);
}
PAMIR_ALIAS(Accumulate);

int PMPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank,
                        MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
                        MPI_Win win) {
  PAMIR_ENTER("MPI_Get_accumulate");
  return rma(fn_,
             {Rma::get_acc, origin_addr, origin_count, origin_datatype, result_addr, result_count,
              result_datatype, target_rank, target_disp, target_count, target_datatype, op},
             win, nullptr);
}
PAMIR_ALIAS(Get_accumulate);

int PMPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
              MPI_Request *request) {
  PAMIR_ENTER("MPI_Rput");
  return rma(fn_,
             {Rma::put, origin_addr, origin_count, origin_datatype, nullptr, 0, MPI_DATATYPE_NULL,
              target_rank, target_disp, target_count, target_datatype, MPI_OP_NULL, true},
             win, request);
}
PAMIR_ALIAS(Rput);

int PMPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
              MPI_Request *request) {
  PAMIR_ENTER("MPI_Rget");
  return rma(fn_,
             {Rma::get, origin_addr, origin_count, origin_datatype, nullptr, 0, MPI_DATATYPE_NULL,
              target_rank, target_disp, target_count, target_datatype, MPI_OP_NULL, true},
             win, request);
}
PAMIR_ALIAS(Rget);

int PMPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                     MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
                     MPI_Win win, MPI_Request *request) {
  PAMIR_ENTER("MPI_Raccumulate");
  return rma(fn_,
             {Rma::acc, origin_addr, origin_count, origin_datatype, nullptr, 0, MPI_DATATYPE_NULL,
              target_rank, target_disp, target_count, target_datatype, op, true},
             win, request);
}
PAMIR_ALIAS(Raccumulate);

int PMPI_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                         void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank,
                         MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
                         MPI_Win win, MPI_Request *request) {
  PAMIR_ENTER("MPI_Rget_accumulate");
  return rma(fn_,
             {Rma::get_acc, origin_addr, origin_count, origin_datatype, result_addr, result_count,
              result_datatype, target_rank, target_disp, target_count, target_datatype, op, true},
             win, request);
}
PAMIR_ALIAS(Rget_accumulate);

int PMPI_Put_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
               MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win) {
  PAMIR_ENTER("MPI_Put_c");
  if (__builtin_expect(fast_move<true>(win, const_cast<void *>(origin_addr), origin_count, origin_datatype,
                                       target_rank, target_disp, target_count, target_datatype),
                       1))
    return MPI_SUCCESS;
  return rma(fn_,
             {Rma::put, origin_addr, origin_count, origin_datatype, nullptr, 0, MPI_DATATYPE_NULL,
              target_rank, target_disp, target_count, target_datatype, MPI_OP_NULL},
             win, nullptr);
}
PAMIR_ALIAS(Put_c);

int PMPI_Get_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
               MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win) {
  PAMIR_ENTER("MPI_Get_c");
  if (__builtin_expect(fast_move<false>(win, origin_addr, origin_count, origin_datatype, target_rank,
                                        target_disp, target_count, target_datatype),
                       1))
    return MPI_SUCCESS;
  return rma(fn_,
             {Rma::get, origin_addr, origin_count, origin_datatype, nullptr, 0, MPI_DATATYPE_NULL,
              target_rank, target_disp, target_count, target_datatype, MPI_OP_NULL},
             win, nullptr);
}
PAMIR_ALIAS(Get_c);

int PMPI_Accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                      MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  PAMIR_ENTER("MPI_Accumulate_c");
  return rma(fn_,
             {Rma::acc, origin_addr, origin_count, origin_datatype, nullptr, 0, MPI_DATATYPE_NULL,
              target_rank, target_disp, target_count, target_datatype, op},
             win, nullptr);
}
PAMIR_ALIAS(Accumulate_c);

int PMPI_Get_accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                          void *result_addr, MPI_Count result_count, MPI_Datatype result_datatype,
                          int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                          MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  PAMIR_ENTER("MPI_Get_accumulate_c");
  return rma(fn_,
             {Rma::get_acc, origin_addr, origin_count, origin_datatype, result_addr, result_count,
              result_datatype, target_rank, target_disp, target_count, target_datatype, op},
             win, nullptr);
}
PAMIR_ALIAS(Get_accumulate_c);

int PMPI_Rput_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype,
                MPI_Win win, MPI_Request *request) {
  PAMIR_ENTER("MPI_Rput_c");
  return rma(fn_,
             {Rma::put, origin_addr, origin_count, origin_datatype, nullptr, 0, MPI_DATATYPE_NULL,
              target_rank, target_disp, target_count, target_datatype, MPI_OP_NULL, true},
             win, request);
}
PAMIR_ALIAS(Rput_c);

int PMPI_Rget_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
                MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win,
                MPI_Request *request) {
  PAMIR_ENTER("MPI_Rget_c");
  return rma(fn_,
             {Rma::get, origin_addr, origin_count, origin_datatype, nullptr, 0, MPI_DATATYPE_NULL,
              target_rank, target_disp, target_count, target_datatype, MPI_OP_NULL, true},
             win, request);
}
PAMIR_ALIAS(Rget_c);

int PMPI_Raccumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                       int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                       MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request) {
  PAMIR_ENTER("MPI_Raccumulate_c");
  return rma(fn_,
             {Rma::acc, origin_addr, origin_count, origin_datatype, nullptr, 0, MPI_DATATYPE_NULL,
              target_rank, target_disp, target_count, target_datatype, op, true},
             win, request);
}
PAMIR_ALIAS(Raccumulate_c);

int PMPI_Rget_accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                           void *result_addr, MPI_Count result_count, MPI_Datatype result_datatype,
                           int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                           MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request) {
  PAMIR_ENTER("MPI_Rget_accumulate_c");
  return rma(fn_,
             {Rma::get_acc, origin_addr, origin_count, origin_datatype, result_addr, result_count,
              result_datatype, target_rank, target_disp, target_count, target_datatype, op, true},
             win, request);
}
PAMIR_ALIAS(Rget_accumulate_c);

int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank,
                      MPI_Aint target_disp, MPI_Op op, MPI_Win win) {
  PAMIR_ENTER("MPI_Fetch_and_op");
  Win *w = win_of(win);
  Fast f;
  pamir::WinOp o;
  if (__builtin_expect(fast_args(w, target_rank, target_disp, 1, datatype, 1, datatype, f) && result_addr &&
                           f.t->path == pamir::WinPath::mapped && fast_op(w, op, f.type, o) &&
                           (origin_addr || o.op == pamir::coll::OpKind::no_op),
                       1)) {
    uint8_t *at = mapped_at(f);
    w->w->acc_lock(f.t->ctl);
    std::memcpy(result_addr, at, f.bytes);
    pamir::Window::apply(o, origin_addr, at, f.bytes);
    pamir::Window::acc_unlock(f.t->ctl);
    return MPI_SUCCESS;
  }
  if (const Datatype *t = lookup<Datatype>(datatype); w && t && !t->predefined && !t->permanent)
    return raise(w, fn_, MPI_ERR_TYPE, "MPI_Fetch_and_op takes one predefined datatype, not %s",
                 type_name(t));
  return rma(fn_,
             {Rma::get_acc, origin_addr, 1, datatype, result_addr, 1, datatype, target_rank, target_disp, 1,
              datatype, op},
             win, nullptr);
}
PAMIR_ALIAS(Fetch_and_op);

int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                          MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win) {
  PAMIR_ENTER("MPI_Compare_and_swap");
  return compare_and_swap(fn_, origin_addr, compare_addr, result_addr, datatype, target_rank, target_disp,
                          win);
}
PAMIR_ALIAS(Compare_and_swap);
