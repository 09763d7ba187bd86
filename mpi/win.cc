// Windows: creation (the four flavors), freeing, and what a window carries besides its memory: group,
// info, name and error handler (MPI 5.0 §12.2, §12.7). The attributes are attr.cc's; epochs and
// operations are win_sync.cc's and rma.cc's.
#include "mpi/win.h"

#include <cstring>

#include "collectives/coll.h"
#include "mpi/check.h"
#include "mpi/info.h"
#include "pami/context.h"
#include "pamir_alias.h"

namespace pamir::mpi {

Win *win_of(MPI_Win h) {
  const uintptr_t v = reinterpret_cast<uintptr_t>(h);
  if (v < kPredefinedLimit) return nullptr;  // MPI_WIN_NULL is the only predefined window handle
  return handle_live(v, uint32_t(Kind::win)) ? static_cast<Win *>(object_at(v)) : nullptr;
}

MPI_Win win_handle(Win *w) {
  return w ? handle_of<MPI_Win>(w) : MPI_WIN_NULL;
}

int bad_win(const char *fn, MPI_Win h) {
  if (h == MPI_WIN_NULL)
    return raise(static_cast<Win *>(nullptr), fn, MPI_ERR_WIN, "MPI_WIN_NULL is not a window");
  if (reinterpret_cast<uintptr_t>(h) >= kPredefinedLimit && is_freed<Win>(h))
    return raise(static_cast<Win *>(nullptr), fn, MPI_ERR_WIN, "the window was freed");
  return raise(static_cast<Win *>(nullptr), fn, MPI_ERR_WIN, "invalid window handle %p",
               static_cast<void *>(h));
}

namespace {

// The info keys of windows (MPI 5.0 §12.2.1) with their defaults: MPI_Win_get_info gives every one in
// effect.
struct WinKey {
  const char *key;
  const char *fallback;
};
constexpr WinKey kWinKeys[] = {
    {"no_locks", "false"},
    {"accumulate_ordering", "rar,raw,war,waw"},
    {"accumulate_ops", "same_op_no_op"},
    {"same_size", "false"},
    {"same_disp_unit", "false"},
    {"mpi_accumulate_granularity", "0"},
};

bool info_true(const std::string &v) {
  return v == "true" || v == "1" || v == "yes";
}

// Sets w's hints from the defaults and `info` (keys given replace their values); the user's other keys
// are kept as given.
void apply_hints(Win *w, const Info *info) {
  Info merged{};
  merged.items = w->hints;
  if (merged.items.empty())
    for (const WinKey &k : kWinKeys) merged.items.emplace_back(k.key, k.fallback);
  if (info)
    for (const auto &kv : info->items) merged.set(kv.first, kv.second);
  w->hints = std::move(merged.items);
  for (const auto &kv : w->hints) {
    if (kv.first == "no_locks") w->no_locks = info_true(kv.second);
    if (kv.first == "accumulate_ops") w->same_op = kv.second == "same_op";
  }
}

int make(const char *fn_, Comm *c, pamir::WinFlavor flavor, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
         void *base, void *baseptr, MPI_Win *win) {
  PAMIR_CHECK(c, win, MPI_ERR_ARG, "win is NULL");
  *win = MPI_WIN_NULL;
  PAMIR_CHECK(c, !c->remote, MPI_ERR_COMM, "windows are made over intra-communicators only");
  PAMIR_CHECK(c, size >= 0, MPI_ERR_SIZE, "negative window size %lld", static_cast<long long>(size));
  PAMIR_CHECK(c, flavor == pamir::WinFlavor::dynamic || (disp_unit > 0 && disp_unit <= INT32_MAX),
              MPI_ERR_DISP, "disp_unit %lld is not positive", static_cast<long long>(disp_unit));
  PAMIR_CHECK(c, flavor == pamir::WinFlavor::create || flavor == pamir::WinFlavor::dynamic || baseptr,
              MPI_ERR_ARG, "baseptr is NULL");
  PAMIR_CHECK(c, flavor != pamir::WinFlavor::create || buffer_ok(base, size), MPI_ERR_ARG,
              "base is NULL with a size of %lld bytes", static_cast<long long>(size));
  const Info *i = nullptr;
  if (info != MPI_INFO_NULL) {
    i = info_of(info);
    PAMIR_CHECK(c, i, MPI_ERR_INFO, "info is not a valid info object");
  }
  if (flavor == pamir::WinFlavor::shared) {
    const auto &local = context().boot().local_peers();
    for (int r = 0; r < c->size; ++r)
      PAMIR_CHECK(c, std::find(local.begin(), local.end(), c->local_task(r)) != local.end(),
                  MPI_ERR_RMA_SHARED,
                  "rank %d of the communicator is on another node: shared memory spans one node (split the "
                  "communicator with MPI_COMM_TYPE_SHARED)",
                  r);
  }
  Comm *dup = nullptr;
  if (int rc = comm_create_from(c, c->local, &dup, fn_)) return rc;
  const coll::Team team = dup->team();
  pamir::Window::Team steps{[team](const void *mine, void *all, size_t bytes) {
                              return coll::internal_allgather(team, mine, all, bytes);
                            },
                            [team]() { return coll::internal_barrier(team); }};
  std::string why;
  auto pw = pamir::Window::create(
      context(), dup->ctx, dup->local->tasks, uint32_t(dup->rank), flavor, uint64_t(size),
      uint32_t(flavor == pamir::WinFlavor::dynamic ? 1 : disp_unit), base, steps, why);
  if (!pw) {
    comm_release(dup);
    return raise(c, fn_, MPI_ERR_NO_MEM, "%s", why.c_str());
  }
  Win *w = pool<Win>().make();
  w->comm = dup;
  w->errhandler = errhandler_fatal();
  w->flavor = flavor == pamir::WinFlavor::create     ? MPI_WIN_FLAVOR_CREATE
              : flavor == pamir::WinFlavor::allocate ? MPI_WIN_FLAVOR_ALLOCATE
              : flavor == pamir::WinFlavor::shared   ? MPI_WIN_FLAVOR_SHARED
                                                     : MPI_WIN_FLAVOR_DYNAMIC;
  w->base = flavor == pamir::WinFlavor::dynamic ? nullptr : pw->base();
  w->size = flavor == pamir::WinFlavor::dynamic ? 0 : size;
  w->disp_unit = flavor == pamir::WinFlavor::dynamic ? 1 : int(disp_unit);
  w->w = std::move(pw);
  apply_hints(w, i);
  if (baseptr) *static_cast<void **>(baseptr) = w->base;
  *win = win_handle(w);
  return MPI_SUCCESS;
}

}  // namespace

}  // namespace pamir::mpi

using namespace pamir::mpi;

int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win) {
  PAMIR_ENTER("MPI_Win_create");
  Comm *c = PAMIR_COMM(comm);
  return make(fn_, c, pamir::WinFlavor::create, size, disp_unit, info, base, nullptr, win);
}
PAMIR_ALIAS(Win_create);

int PMPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                      MPI_Win *win) {
  PAMIR_ENTER("MPI_Win_create_c");
  Comm *c = PAMIR_COMM(comm);
  return make(fn_, c, pamir::WinFlavor::create, size, disp_unit, info, base, nullptr, win);
}
PAMIR_ALIAS(Win_create_c);

int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                      MPI_Win *win) {
  PAMIR_ENTER("MPI_Win_allocate");
  Comm *c = PAMIR_COMM(comm);
  return make(fn_, c, pamir::WinFlavor::allocate, size, disp_unit, info, nullptr, baseptr, win);
}
PAMIR_ALIAS(Win_allocate);

int PMPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                        MPI_Win *win) {
  PAMIR_ENTER("MPI_Win_allocate_c");
  Comm *c = PAMIR_COMM(comm);
  return make(fn_, c, pamir::WinFlavor::allocate, size, disp_unit, info, nullptr, baseptr, win);
}
PAMIR_ALIAS(Win_allocate_c);

int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                             MPI_Win *win) {
  PAMIR_ENTER("MPI_Win_allocate_shared");
  Comm *c = PAMIR_COMM(comm);
  return make(fn_, c, pamir::WinFlavor::shared, size, disp_unit, info, nullptr, baseptr, win);
}
PAMIR_ALIAS(Win_allocate_shared);

int PMPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                               MPI_Win *win) {
  PAMIR_ENTER("MPI_Win_allocate_shared_c");
  Comm *c = PAMIR_COMM(comm);
  return make(fn_, c, pamir::WinFlavor::shared, size, disp_unit, info, nullptr, baseptr, win);
}
PAMIR_ALIAS(Win_allocate_shared_c);

int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win) {
  PAMIR_ENTER("MPI_Win_create_dynamic");
  Comm *c = PAMIR_COMM(comm);
  return make(fn_, c, pamir::WinFlavor::dynamic, 0, 1, info, nullptr, nullptr, win);
}
PAMIR_ALIAS(Win_create_dynamic);

int PMPI_Win_free(MPI_Win *win) {
  PAMIR_ENTER("MPI_Win_free");
  PAMIR_CHECK(static_cast<Win *>(nullptr), win, MPI_ERR_ARG, "win is NULL");
  Win *w = PAMIR_WIN(*win);
  PAMIR_CHECK(w, !w->access && !w->exposure && !w->lock_all && w->locks == 0, MPI_ERR_RMA_SYNC,
              "the window is in an epoch (%s): end it before freeing the window",
              w->access     ? "MPI_Win_start without MPI_Win_complete"
              : w->exposure ? "MPI_Win_post without MPI_Win_wait"
              : w->lock_all ? "MPI_Win_lock_all without MPI_Win_unlock_all"
                            : "MPI_Win_lock without MPI_Win_unlock");
  // Everything this process started is done, and nobody still reaches into the memory, before it goes.
  w->w->flush_all();
  if (int rc = w->w->barrier())
    return raise(w, fn_, MPI_ERR_OTHER, "the window's closing barrier failed (%d)", rc);
  if (int rc = attrs_delete_all(w, fn_)) return rc;
  w->w.reset();
  comm_release(w->comm);
  w->comm = nullptr;
  release(w->errhandler);
  w->errhandler = nullptr;
  attrs_forget(w);
  if (w->int_handle) object_forget_int(Kind::win, w->int_handle);
  pool<Win>().destroy(w);
  *win = MPI_WIN_NULL;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Win_free);

int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size) {
  PAMIR_ENTER("MPI_Win_attach");
  Win *w = PAMIR_WIN(win);
  PAMIR_CHECK(w, w->flavor == MPI_WIN_FLAVOR_DYNAMIC, MPI_ERR_RMA_FLAVOR,
              "memory is attached to windows of MPI_Win_create_dynamic only");
  PAMIR_CHECK(w, size >= 0, MPI_ERR_SIZE, "negative size %lld", static_cast<long long>(size));
  PAMIR_CHECK(w, base || size == 0, MPI_ERR_ARG, "base is NULL");
  const uint64_t at = uint64_t(uintptr_t(base));
  PAMIR_CHECK(w, !w->w->in_regions(at, 1) || size == 0, MPI_ERR_RMA_ATTACH,
              "the memory at %p overlaps memory already attached", base);
  w->w->attach(at, uint64_t(size));
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Win_attach);

int PMPI_Win_detach(MPI_Win win, const void *base) {
  PAMIR_ENTER("MPI_Win_detach");
  Win *w = PAMIR_WIN(win);
  PAMIR_CHECK(w, w->flavor == MPI_WIN_FLAVOR_DYNAMIC, MPI_ERR_RMA_FLAVOR,
              "memory is detached from windows of MPI_Win_create_dynamic only");
  PAMIR_CHECK(w, w->w->detach(uint64_t(uintptr_t(base))), MPI_ERR_RMA_ATTACH, "no memory was attached at %p",
              base);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Win_detach);

namespace {
template <typename Unit>
int shared_query(const char *fn_, MPI_Win win, int rank, MPI_Aint *size, Unit *disp_unit, void *baseptr) {
  Win *w = PAMIR_WIN(win);
  PAMIR_CHECK(w, size && disp_unit && baseptr, MPI_ERR_ARG, "size, disp_unit or baseptr is NULL");
  PAMIR_CHECK(w, w->flavor == MPI_WIN_FLAVOR_SHARED || w->flavor == MPI_WIN_FLAVOR_ALLOCATE,
              MPI_ERR_RMA_FLAVOR, "windows of MPI_Win_allocate_shared or MPI_Win_allocate only");
  PAMIR_CHECK(w, rank == MPI_PROC_NULL || (rank >= 0 && rank < w->comm->size), MPI_ERR_RANK,
              "rank %d is not in the window's group of %d", rank, w->comm->size);
  pamir::Window &pw = *w->w;
  if (rank == MPI_PROC_NULL) {  // the lowest rank with memory
    rank = 0;
    for (int r = 0; r < w->comm->size; ++r)
      if (pw.target(uint32_t(r)).size) {
        rank = r;
        break;
      }
  }
  const pamir::WinTarget &t = pw.target(uint32_t(rank));
  if (!pw.shared_base(uint32_t(rank))) {  // not in this process's memory (another node)
    *size = 0;
    *disp_unit = 0;
    *static_cast<void **>(baseptr) = nullptr;
    return MPI_SUCCESS;
  }
  *size = MPI_Aint(t.size);
  *disp_unit = Unit(t.disp_unit);
  *static_cast<void **>(baseptr) = pw.shared_base(uint32_t(rank));
  return MPI_SUCCESS;
}
}  // namespace

int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr) {
  PAMIR_ENTER("MPI_Win_shared_query");
  return shared_query(fn_, win, rank, size, disp_unit, baseptr);
}
PAMIR_ALIAS(Win_shared_query);

int PMPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit, void *baseptr) {
  PAMIR_ENTER("MPI_Win_shared_query_c");
  return shared_query(fn_, win, rank, size, disp_unit, baseptr);
}
PAMIR_ALIAS(Win_shared_query_c);

int PMPI_Win_get_group(MPI_Win win, MPI_Group *group) {
  PAMIR_ENTER("MPI_Win_get_group");
  Win *w = PAMIR_WIN(win);
  PAMIR_CHECK(w, group, MPI_ERR_ARG, "group is NULL");
  ++w->comm->local->refs;
  *group = group_handle(w->comm->local);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Win_get_group);

int PMPI_Win_set_info(MPI_Win win, MPI_Info info) {
  PAMIR_ENTER("MPI_Win_set_info");
  Win *w = PAMIR_WIN(win);
  const Info *i = info_of(info);
  PAMIR_CHECK(w, i, MPI_ERR_INFO, "info is not a valid info object");
  apply_hints(w, i);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Win_set_info);

int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used) {
  PAMIR_ENTER("MPI_Win_get_info");
  Win *w = PAMIR_WIN(win);
  PAMIR_CHECK(w, info_used, MPI_ERR_ARG, "info_used is NULL");
  *info_used = info_handle(info_make(w->hints));
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Win_get_info);

int PMPI_Win_set_name(MPI_Win win, const char *win_name) {
  PAMIR_ENTER("MPI_Win_set_name");
  Win *w = PAMIR_WIN(win);
  PAMIR_CHECK(w, win_name, MPI_ERR_ARG, "win_name is NULL");
  w->name.assign(win_name, strnlen(win_name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Win_set_name);

int PMPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen) {
  PAMIR_ENTER("MPI_Win_get_name");
  Win *w = PAMIR_WIN(win);
  PAMIR_CHECK(w, win_name && resultlen, MPI_ERR_ARG, "win_name or resultlen is NULL");
  std::memcpy(win_name, w->name.c_str(), w->name.size() + 1);
  *resultlen = int(w->name.size());
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Win_get_name);

int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn, MPI_Errhandler *errhandler) {
  PAMIR_ENTER("MPI_Win_create_errhandler");
  PAMIR_CHECK(nullptr, win_errhandler_fn, MPI_ERR_ARG, "the handler function is NULL");
  PAMIR_CHECK(nullptr, errhandler, MPI_ERR_ARG, "errhandler is NULL");
  Errhandler *e = pool<Errhandler>().make();
  e->type = Errhandler::Type::win_fn;
  e->win_fn = win_errhandler_fn;
  *errhandler = handle_of<MPI_Errhandler>(e);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Win_create_errhandler);

int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler) {
  PAMIR_ENTER("MPI_Win_set_errhandler");
  Win *w = PAMIR_WIN(win);
  Errhandler *e = lookup<Errhandler>(errhandler);
  PAMIR_CHECK(w, e, MPI_ERR_ERRHANDLER, "%s",
              errhandler == MPI_ERRHANDLER_NULL  ? "MPI_ERRHANDLER_NULL is not an error handler"
              : is_freed<Errhandler>(errhandler) ? "the error handler was freed"
                                                 : "invalid error handler");
  PAMIR_CHECK(w, e->type != Errhandler::Type::comm_fn && e->type != Errhandler::Type::session_fn, MPI_ERR_ARG,
              "the error handler was made for %s, not windows (MPI_Win_create_errhandler)",
              e->type == Errhandler::Type::comm_fn ? "communicators" : "sessions");
  errhandler_replace(w->errhandler, e);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Win_set_errhandler);

int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler) {
  PAMIR_ENTER("MPI_Win_get_errhandler");
  Win *w = PAMIR_WIN(win);
  PAMIR_CHECK(w, errhandler, MPI_ERR_ARG, "errhandler is NULL");
  *errhandler = errhandler_give(w->errhandler ? w->errhandler : errhandler_fatal());
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Win_get_errhandler);

int PMPI_Win_call_errhandler(MPI_Win win, int errorcode) {
  PAMIR_ENTER("MPI_Win_call_errhandler");
  Win *w = PAMIR_WIN(win);
  raise_win_code(w, errorcode);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Win_call_errhandler);
