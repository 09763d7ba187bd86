// The library's life: MPI_Init, MPI_Finalize and the calls allowed around them.
#include <pthread.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "collectives/coll.h"
#include "collectives/reduce_ops.h"
#include "collectives/registry.h"
#include "mpi/check.h"
#include "mpi/op.h"
#include "mpi/request.h"
#include "pami/clock.h"
#include "pami/config.h"
#include "pami/context.h"
#include "pami/progress_thread.h"
#include "pamir_alias.h"

namespace pamir {
thread_local int lock_depth = 0;
}  // namespace pamir

namespace pamir::mpi {

namespace {

// How long MPI_Finalize waits for freed operations before it says what it waits for.
constexpr int kFinalizeWarnSeconds = 10;

[[noreturn]] void init_failed(const char *fn, const std::string &why) {
  std::fprintf(stderr, "Pamir: %s: MPI_ERR_OTHER: %s\n", fn, why.c_str());
  std::fflush(stderr);
  _exit(1);
}

int init(const char *fn, int required, int *provided) {
  State &s = state();
  if (s.finalized) init_failed(fn, "called after MPI_Finalize (MPI cannot be initialized again)");
  if (s.initialized) return raise(nullptr, fn, MPI_ERR_OTHER, "MPI is already initialized");
  if (!s.up) library_start(fn, required);  // else sessions started it: their thread level holds
  s.initialized = true;
  if (provided) *provided = s.thread_level;
  return MPI_SUCCESS;
}

}  // namespace

void library_start(const char *fn, int required) {
  State &s = state();
  if (s.stopped)
    init_failed(fn,
                "the library was started and stopped already (its last session was finalized); Pamir "
                "cannot start it again in this process");
  pamir::clock_start();
  std::string why;
  std::vector<std::string> warnings;
  if (!config::load(why, warnings)) init_failed(fn, why);
  if (!coll::registry_init(why)) init_failed(fn, why);
  if (!coll::reduce_init(why)) init_failed(fn, why);
  const int level = required < MPI_THREAD_SINGLE     ? MPI_THREAD_SINGLE
                    : required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE
                                                     : required;
  library_lock().enabled = level == MPI_THREAD_MULTIPLE;
  library_lock().multiple = level == MPI_THREAD_MULTIPLE;
  CallGuard guard;
  datatypes_init();
  ops_init();
  if (context().init(why) != 0) init_failed(fn, why);
  if (context().task() == 0)
    for (const std::string &w : warnings) std::fprintf(stderr, "Pamir: warning: %s\n", w.c_str());
  comms_init();
  pamir::clock_finish();
  s.thread_level = level;
  s.main_thread = pthread_self();
  s.up = true;
}

void library_stop() {
  pamir::Context &ctx = context();
  // Complete what is still pending: requests freed while active, buffered sends. A freed send that no
  // receive ever matches keeps this waiting (the program is erroneous, and a large send's data must stay
  // readable until it is matched); say so once instead of hanging in silence.
  const auto start = std::chrono::steady_clock::now();
  bool warned = false;
  ctx.wait_until([&] {
    if (detached_outstanding() == 0) return true;
    if (!warned && std::chrono::steady_clock::now() - start > std::chrono::seconds(kFinalizeWarnSeconds)) {
      warned = true;
      std::fprintf(stderr,
                   "Pamir: rank %u: MPI_Finalize has waited %d s for %zu operations freed with "
                   "MPI_Request_free while still active (a send that no receive has matched yet, or a "
                   "receive that no message has reached); it keeps waiting for them\n",
                   ctx.task(), kFinalizeWarnSeconds, detached_outstanding());
    }
    return false;
  });
  bsend_drain();
  // Nobody leaves while a peer may still read its memory or wait for its messages: a barrier of every
  // process of the job (the library's own, whether or not the program used MPI_COMM_WORLD).
  Comm *w = comm_world();
  pamir::coll::Team team{w->rank, w->size, w->coll_ctx(), w->local->tasks.data()};
  pamir::coll::internal_barrier(team);
  if (pamir::config::stats.flag) {
    ctx.collect_device_stats();
    pamir::print_stats(int(ctx.task()));
    pamir::coll::print_algorithm_stats(int(ctx.task()));
  }
  pamir::progress_thread::shutdown();
  comms_finalize();
  ctx.finalize();
  state().up = false;
  state().stopped = true;
}

}  // namespace pamir::mpi

using namespace pamir::mpi;
using pamir::context;

int PMPI_Init(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  return init("MPI_Init", MPI_THREAD_SINGLE, nullptr);
}
PAMIR_ALIAS(Init);

int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  (void)argc;
  (void)argv;
  static constexpr const char *fn_ = "MPI_Init_thread";
  if (required != MPI_THREAD_SINGLE && required != MPI_THREAD_FUNNELED && required != MPI_THREAD_SERIALIZED &&
      required != MPI_THREAD_MULTIPLE) {
    std::fprintf(stderr, "Pamir: %s: MPI_ERR_ARG: required thread level %d is not one of MPI_THREAD_*\n", fn_,
                 required);
    return MPI_ERR_ARG;
  }
  if (!provided) {
    std::fprintf(stderr, "Pamir: %s: MPI_ERR_ARG: provided is NULL\n", fn_);
    return MPI_ERR_ARG;
  }
  return init(fn_, required, provided);
}
PAMIR_ALIAS(Init_thread);

int PMPI_Finalize(void) {
  PAMIR_ENTER("MPI_Finalize");
  PAMIR_CHECK(nullptr, state().initialized, MPI_ERR_OTHER,
              "MPI_Init was not called (finalize the sessions with MPI_Session_finalize)");
  // MPI_COMM_SELF's attributes go first, while everything else still works (MPI 4.1 §11.2.3).
  if (int rc = attrs_delete_all(comm_self(), fn_)) return rc;
  state().finalized = true;
  // Open sessions keep the library running; the last of them stops it.
  if (state().sessions == 0) library_stop();
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Finalize);

int PMPI_Initialized(int *flag) {
  if (!flag) return MPI_ERR_ARG;
  *flag = state().initialized;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Initialized);

int PMPI_Finalized(int *flag) {
  if (!flag) return MPI_ERR_ARG;
  *flag = state().finalized;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Finalized);

int PMPI_Query_thread(int *provided) {
  PAMIR_ENTER("MPI_Query_thread");
  PAMIR_CHECK(nullptr, provided, MPI_ERR_ARG, "provided is NULL");
  *provided = state().thread_level;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Query_thread);

int PMPI_Is_thread_main(int *flag) {
  PAMIR_ENTER("MPI_Is_thread_main");
  PAMIR_CHECK(nullptr, flag, MPI_ERR_ARG, "flag is NULL");
  *flag = pthread_equal(pthread_self(), state().main_thread) != 0;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Is_thread_main);

int PMPI_Abort(MPI_Comm comm, int errorcode) {
  PAMIR_ENTER("MPI_Abort");
  (void)comm;  // Pamir ends the whole job, which MPI allows for any communicator.
  char msg[160];
  std::snprintf(msg, sizeof msg, "MPI_Abort called by rank %u with error code %d", context().task(),
                errorcode);
  if (context().boot().singleton()) std::fprintf(stderr, "Pamir: %s\n", msg);
  context().boot().abort(errorcode, msg);
}
PAMIR_ALIAS(Abort);

int PMPI_Get_processor_name(char *name, int *resultlen) {
  static constexpr const char *fn_ = "MPI_Get_processor_name";
  if (!name || !resultlen)
    return usable() ? raise(nullptr, fn_, MPI_ERR_ARG, "name or resultlen is NULL") : MPI_ERR_ARG;
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  gethostname(host, sizeof host - 1);
  size_t n = strnlen(host, MPI_MAX_PROCESSOR_NAME - 1);
  std::memcpy(name, host, n);
  name[n] = '\0';
  *resultlen = int(n);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Get_processor_name);

int PMPI_Get_version(int *version, int *subversion) {
  if (!version || !subversion) return MPI_ERR_ARG;
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Get_version);

int PMPI_Get_library_version(char *version, int *resultlen) {
  if (!version || !resultlen) return MPI_ERR_ARG;
  int n = std::snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
                        "Pamir %s (MPI %d.%d, standard ABI %d.%d; PAMI-style messaging over shared memory)",
                        PACKAGE_VERSION, MPI_VERSION, MPI_SUBVERSION, MPI_ABI_VERSION, MPI_ABI_SUBVERSION);
  *resultlen = n;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Get_library_version);
