// Synchronisation of windows (MPI 5.0 §12.5): fence, post/start/complete/wait/test, the passive-target
// locks, flushes and MPI_Win_sync. The binding keeps this process's epochs (to report MPI_ERR_RMA_SYNC);
// the PAMI window does the waiting and signalling.
#include <atomic>
#include <cstring>

#include "mpi/check.h"
#include "mpi/win.h"
#include "pami/context.h"
#include "pamir_alias.h"

namespace pamir::mpi {

namespace {

constexpr int kAsserts =
    MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED;

// The window ranks of a group's members; MPI_ERR_GROUP (returned in `rc`) for one outside the window.
std::vector<uint32_t> window_ranks(Win *w, const Group *g, const char *fn, int &rc) {
  std::vector<uint32_t> out;
  const std::vector<uint32_t> &tasks = w->comm->local->tasks;
  for (uint32_t task : g->tasks) {
    size_t r = 0;
    while (r < tasks.size() && tasks[r] != task) ++r;
    if (r == tasks.size()) {
      rc = raise(w, fn, MPI_ERR_GROUP, "the group has a process (job rank %u) outside the window's group",
                 task);
      return {};
    }
    out.push_back(uint32_t(r));
  }
  rc = MPI_SUCCESS;
  return out;
}

bool passive(const Win *w, const pamir::WinTarget &t) {
  return w->lock_all || t.lock != pamir::LockType::none;
}

// A failure a target reported for served operations, as the flush's error.
int served_error(Win *w, const char *fn) {
  const int64_t e = w->w->take_error();
  if (!e) return MPI_SUCCESS;
  return raise(w, fn, e == -EFAULT ? MPI_ERR_RMA_RANGE : MPI_ERR_OTHER,
               "a target could not apply an operation of this process: %s%s", std::strerror(int(-e)),
               e == -EFAULT ? " (outside the memory attached to its dynamic window)" : "");
}

}  // namespace

}  // namespace pamir::mpi

using namespace pamir::mpi;

int PMPI_Win_fence(int assert, MPI_Win win) {
  PAMIR_ENTER("MPI_Win_fence");
  Win *w = PAMIR_WIN(win);
  PAMIR_CHECK(w, (assert & ~kAsserts) == 0, MPI_ERR_ASSERT, "unknown assertion bits 0x%x",
              assert & ~kAsserts);
  PAMIR_CHECK(w, !w->access && !w->exposure && !w->lock_all && w->locks == 0, MPI_ERR_RMA_SYNC,
              "MPI_Win_fence inside a %s epoch", w->access || w->exposure ? "post/start" : "lock");
  if (!(assert &MPI_MODE_NOPRECEDE)) w->w->flush_all();
  if (int rc = w->w->barrier()) return raise(w, fn_, MPI_ERR_OTHER, "the fence's barrier failed (%d)", rc);
  pamir::full_fence();
  w->fence = !(assert &MPI_MODE_NOSUCCEED);
  return served_error(w, fn_);
}
PAMIR_ALIAS(Win_fence);

int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win) {
  PAMIR_ENTER("MPI_Win_post");
  Win *w = PAMIR_WIN(win);
  PAMIR_CHECK(w, (assert & ~kAsserts) == 0, MPI_ERR_ASSERT, "unknown assertion bits 0x%x",
              assert & ~kAsserts);
  Group *g = lookup<Group>(group);
  PAMIR_CHECK(w, g, MPI_ERR_GROUP, "invalid group");
  PAMIR_CHECK(w, !w->exposure, MPI_ERR_RMA_SYNC,
              "MPI_Win_post while an exposure epoch is open (MPI_Win_wait first)");
  int rc;
  std::vector<uint32_t> origins = window_ranks(w, g, fn_, rc);
  if (rc) return rc;
  w->completes_expected += origins.size();
  if (!(assert &MPI_MODE_NOCHECK)) w->w->post(origins);
  w->exposure = true;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Win_post);

int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win) {
  PAMIR_ENTER("MPI_Win_start");
  Win *w = PAMIR_WIN(win);
  PAMIR_CHECK(w, (assert & ~kAsserts) == 0, MPI_ERR_ASSERT, "unknown assertion bits 0x%x",
              assert & ~kAsserts);
  Group *g = lookup<Group>(group);
  PAMIR_CHECK(w, g, MPI_ERR_GROUP, "invalid group");
  PAMIR_CHECK(w, !w->access, MPI_ERR_RMA_SYNC,
              "MPI_Win_start while an access epoch is open (MPI_Win_complete first)");
  int rc;
  std::vector<uint32_t> targets = window_ranks(w, g, fn_, rc);
  if (rc) return rc;
  if (assert & MPI_MODE_NOCHECK) {
    for (uint32_t t : targets) w->w->target(t).access = true;
  } else {
    w->w->start(targets);
  }
  w->start_to = std::move(targets);
  w->access = true;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Win_start);

int PMPI_Win_complete(MPI_Win win) {
  PAMIR_ENTER("MPI_Win_complete");
  Win *w = PAMIR_WIN(win);
  PAMIR_CHECK(w, w->access, MPI_ERR_RMA_SYNC, "MPI_Win_complete without MPI_Win_start");
  w->w->complete(w->start_to);
  w->start_to.clear();
  w->access = false;
  return served_error(w, fn_);
}
PAMIR_ALIAS(Win_complete);

int PMPI_Win_wait(MPI_Win win) {
  PAMIR_ENTER("MPI_Win_wait");
  Win *w = PAMIR_WIN(win);
  PAMIR_CHECK(w, w->exposure, MPI_ERR_RMA_SYNC, "MPI_Win_wait without MPI_Win_post");
  w->w->wait_completes(w->completes_expected);
  w->exposure = false;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Win_wait);

int PMPI_Win_test(MPI_Win win, int *flag) {
  PAMIR_ENTER("MPI_Win_test");
  Win *w = PAMIR_WIN(win);
  PAMIR_CHECK(w, flag, MPI_ERR_ARG, "flag is NULL");
  PAMIR_CHECK(w, w->exposure, MPI_ERR_RMA_SYNC, "MPI_Win_test without MPI_Win_post");
  pamir::context().advance();
  *flag = w->w->test_completes(w->completes_expected);
  if (*flag)
    w->exposure = false;
  else
    pamir::context().poll_missed();
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Win_test);

int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win) {
  PAMIR_ENTER("MPI_Win_lock");
  Win *w = PAMIR_WIN(win);
  PAMIR_CHECK(w, lock_type == MPI_LOCK_SHARED || lock_type == MPI_LOCK_EXCLUSIVE, MPI_ERR_LOCKTYPE,
              "lock_type %d is neither MPI_LOCK_SHARED nor MPI_LOCK_EXCLUSIVE", lock_type);
  PAMIR_CHECK(w, (assert & ~MPI_MODE_NOCHECK) == 0, MPI_ERR_ASSERT,
              "MPI_Win_lock takes MPI_MODE_NOCHECK only, not 0x%x", assert);
  const int size = int(w->w->size());
  PAMIR_CHECK(w, rank == MPI_PROC_NULL || (rank >= 0 && rank < size), MPI_ERR_RANK,
              "rank %d is not in the window's group of %d", rank, size);
  PAMIR_CHECK(w, !w->no_locks, MPI_ERR_RMA_SYNC, "the window was made with the info no_locks=true");
  if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
  pamir::WinTarget &t = w->w->target(uint32_t(rank));
  PAMIR_CHECK(w, !w->lock_all, MPI_ERR_RMA_SYNC, "MPI_Win_lock inside MPI_Win_lock_all's epoch");
  PAMIR_CHECK(w, t.lock == pamir::LockType::none, MPI_ERR_RMA_SYNC, "rank %d is locked already", rank);
  const auto type = lock_type == MPI_LOCK_SHARED ? pamir::LockType::shared : pamir::LockType::exclusive;
  if (assert & MPI_MODE_NOCHECK) {
    t.lock = type;
    t.lock_nocheck = true;
  } else {
    w->w->lock(uint32_t(rank), type);
  }
  ++w->locks;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Win_lock);

int PMPI_Win_unlock(int rank, MPI_Win win) {
  PAMIR_ENTER("MPI_Win_unlock");
  Win *w = PAMIR_WIN(win);
  const int size = int(w->w->size());
  PAMIR_CHECK(w, rank == MPI_PROC_NULL || (rank >= 0 && rank < size), MPI_ERR_RANK,
              "rank %d is not in the window's group of %d", rank, size);
  if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
  pamir::WinTarget &t = w->w->target(uint32_t(rank));
  PAMIR_CHECK(w, t.lock != pamir::LockType::none && !t.locked_by_all, MPI_ERR_RMA_SYNC,
              "rank %d is not locked by MPI_Win_lock", rank);
  if (t.lock_nocheck) {
    w->w->flush(uint32_t(rank));
    t.lock = pamir::LockType::none;
    t.lock_nocheck = false;
  } else {
    w->w->unlock(uint32_t(rank));
  }
  --w->locks;
  return served_error(w, fn_);
}
PAMIR_ALIAS(Win_unlock);

int PMPI_Win_lock_all(int assert, MPI_Win win) {
  PAMIR_ENTER("MPI_Win_lock_all");
  Win *w = PAMIR_WIN(win);
  PAMIR_CHECK(w, (assert & ~MPI_MODE_NOCHECK) == 0, MPI_ERR_ASSERT,
              "MPI_Win_lock_all takes MPI_MODE_NOCHECK only, not 0x%x", assert);
  PAMIR_CHECK(w, !w->no_locks, MPI_ERR_RMA_SYNC, "the window was made with the info no_locks=true");
  PAMIR_CHECK(w, !w->lock_all && w->locks == 0, MPI_ERR_RMA_SYNC, "MPI_Win_lock_all while %s",
              w->lock_all ? "MPI_Win_lock_all's epoch is open" : "ranks are locked");
  for (uint32_t r = 0; r < w->w->size(); ++r) {
    pamir::WinTarget &t = w->w->target(r);
    if (assert & MPI_MODE_NOCHECK) {
      t.lock = pamir::LockType::shared;
      t.lock_nocheck = true;
    } else {
      w->w->lock(r, pamir::LockType::shared);
    }
    t.locked_by_all = true;
  }
  w->lock_all = true;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Win_lock_all);

int PMPI_Win_unlock_all(MPI_Win win) {
  PAMIR_ENTER("MPI_Win_unlock_all");
  Win *w = PAMIR_WIN(win);
  PAMIR_CHECK(w, w->lock_all, MPI_ERR_RMA_SYNC, "MPI_Win_unlock_all without MPI_Win_lock_all");
  w->w->flush_all();
  for (uint32_t r = 0; r < w->w->size(); ++r) {
    pamir::WinTarget &t = w->w->target(r);
    if (t.lock_nocheck) {
      t.lock = pamir::LockType::none;
      t.lock_nocheck = false;
    } else {
      w->w->unlock(r);
    }
    t.locked_by_all = false;
  }
  w->lock_all = false;
  return served_error(w, fn_);
}
PAMIR_ALIAS(Win_unlock_all);

namespace {
int flush_one(const char *fn_, MPI_Win win, int rank) {
  Win *w = PAMIR_WIN(win);
  const int size = int(w->w->size());
  PAMIR_CHECK(w, rank == MPI_PROC_NULL || (rank >= 0 && rank < size), MPI_ERR_RANK,
              "rank %d is not in the window's group of %d", rank, size);
  if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
  PAMIR_CHECK(w, passive(w, w->w->target(uint32_t(rank))), MPI_ERR_RMA_SYNC,
              "rank %d is not locked: flushes belong to passive-target epochs", rank);
  w->w->flush(uint32_t(rank));
  return served_error(w, fn_);
}
int flush_every(const char *fn_, MPI_Win win) {
  Win *w = PAMIR_WIN(win);
  PAMIR_CHECK(w, w->lock_all || w->locks > 0, MPI_ERR_RMA_SYNC,
              "no rank is locked: flushes belong to passive-target epochs");
  w->w->flush_all();
  return served_error(w, fn_);
}
}  // namespace

int PMPI_Win_flush(int rank, MPI_Win win) {
  PAMIR_ENTER("MPI_Win_flush");
  // A target reached directly has nothing in flight: the fence is the whole flush.
  if (Win *w = win_of(win); __builtin_expect(w && uint32_t(rank) < w->w->size(), 1)) {
    const pamir::WinTarget &t = w->w->target(uint32_t(rank));
    if (__builtin_expect(passive(w, t) && w->w->flush_is_fence(t), 1)) {
      pamir::full_fence();
      return MPI_SUCCESS;
    }
  }
  return flush_one(fn_, win, rank);
}
PAMIR_ALIAS(Win_flush);

// Local completion is remote completion here: direct paths finish at return, served ones when acknowledged.
int PMPI_Win_flush_local(int rank, MPI_Win win) {
  PAMIR_ENTER("MPI_Win_flush_local");
  return flush_one(fn_, win, rank);
}
PAMIR_ALIAS(Win_flush_local);

int PMPI_Win_flush_all(MPI_Win win) {
  PAMIR_ENTER("MPI_Win_flush_all");
  return flush_every(fn_, win);
}
PAMIR_ALIAS(Win_flush_all);

int PMPI_Win_flush_local_all(MPI_Win win) {
  PAMIR_ENTER("MPI_Win_flush_local_all");
  return flush_every(fn_, win);
}
PAMIR_ALIAS(Win_flush_local_all);

int PMPI_Win_sync(MPI_Win win) {
  PAMIR_ENTER("MPI_Win_sync");
  Win *w = PAMIR_WIN(win);
  (void)w;
  // The unified model: one copy of the memory; the fence orders this process's loads and stores.
  pamir::full_fence();
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Win_sync);
