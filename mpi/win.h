// MPI windows: the handle's object and the epochs this process is in. The memory, paths, locks and
// counters are the PAMI layer's (pami/window.h); the binding checks arguments and epochs, and turns
// datatypes into pieces.
#pragma once

#include <mpi.h>

#include <cstdarg>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "mpi/attr.h"
#include "mpi/comm.h"
#include "mpi/errors.h"
#include "mpi/object.h"
#include "pami/window.h"

namespace pamir::mpi {

struct Win : Object {
  static constexpr Kind kKind = Kind::win;
  Comm *comm = nullptr;  // a duplicate of the creating communicator: the window's ranks and id
  std::unique_ptr<pamir::Window> w;
  Errhandler *errhandler = nullptr;
  std::map<int, Attr> attrs;
  std::string name;
  std::vector<std::pair<std::string, std::string>> hints;  // the info in effect (MPI_Win_get_info)
  int flavor = MPI_WIN_FLAVOR_CREATE;
  // The predefined attributes' values (MPI_Win_get_attr hands out pointers to them).
  void *base = nullptr;
  MPI_Aint size = 0;
  int disp_unit = 1;
  int model = MPI_WIN_UNIFIED;
  bool no_locks = false;
  bool same_op = false;  // accumulate_ops = same_op: only one operation (and MPI_NO_OP) is used
  MPI_Op first_op = MPI_OP_NULL;
  // Epochs of this process.
  bool fence = false;              // an epoch opened by MPI_Win_fence (not closed by MPI_MODE_NOSUCCEED)
  bool access = false;             // between MPI_Win_start and MPI_Win_complete
  std::vector<uint32_t> start_to;  // its targets
  bool exposure = false;           // between MPI_Win_post and MPI_Win_wait / a true MPI_Win_test
  uint64_t completes_expected = 0;
  bool lock_all = false;
  int locks = 0;  // targets locked by MPI_Win_lock
};

Win *win_of(MPI_Win h);
MPI_Win win_handle(Win *w);

// Errors on a window go to its error handler; without a valid window to MPI_COMM_SELF's.
[[gnu::cold]] [[gnu::format(printf, 4, 5)]] int raise(Win *w, const char *fn, int cls, const char *fmt, ...);
[[gnu::cold]] int raise_win_code(Win *w, int code);

int attrs_delete_all(Win *w, const char *fn);
void attrs_forget(Win *w);

}  // namespace pamir::mpi

// Evaluates to the Win*, or returns MPI_ERR_WIN (raised on MPI_COMM_SELF) from the enclosing function.
#define PAMIR_WIN(h)                                                    \
  ({                                                                    \
    ::pamir::mpi::Win *w_ = ::pamir::mpi::win_of(h);                    \
    if (__builtin_expect(!w_, 0)) return ::pamir::mpi::bad_win(fn_, h); \
    w_;                                                                 \
  })

namespace pamir::mpi {
[[gnu::cold]] int bad_win(const char *fn, MPI_Win h);
}
