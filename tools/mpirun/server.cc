#include "tools/mpirun/server.h"

#include <pmix.h>
#include <pmix_server.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>

namespace pamir::mpirun {
namespace {

// The module callbacks have no context argument: they find the queue, the namespace and the ranks'
// pids here. Set before PMIx_server_init / before any client exists; the pids are atomics because the
// loop's thread fills them in while libpmix's thread may read them.
EventQueue *g_queue = nullptr;
char g_nspace[PMIX_MAX_NSLEN + 1];
std::unique_ptr<std::atomic<pid_t>[]> g_pids;
uint32_t g_nranks = 0;
bool g_debug = false;

void debug(const char *what, const pmix_proc_t *proc, const char *extra = "") {
  if (g_debug) std::fprintf(stderr, "mpirun[debug]: %s rank %u%s\n", what, proc ? proc->rank : 0u, extra);
}

bool ours(const pmix_proc_t *proc) {
  return proc != nullptr && std::strncmp(proc->nspace, g_nspace, PMIX_MAX_NSLEN) == 0 &&
         proc->rank < g_nranks;
}

// True when the rank's process is exiting or gone: the kernel marks a task PF_EXITING before it
// closes the task's files, so a connection that drops because its process ends always sees this.
bool process_exiting(uint32_t rank) {
  pid_t pid = g_pids[rank].load();
  if (pid <= 0) return false;  // not even forked: it cannot have connected and gone
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  FILE *f = std::fopen(path, "re");
  if (f == nullptr) return true;  // already reaped
  char buf[1024];
  size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = '\0';
  const char *p = std::strrchr(buf, ')');  // the command name may contain anything
  if (p == nullptr) return false;
  char state = 0;
  unsigned long flags = 0;
  if (std::sscanf(p + 1, " %c %*d %*d %*d %*d %*d %lu", &state, &flags) != 2) return false;
  constexpr unsigned long kPfExiting = 0x4;
  return state == 'Z' || state == 'X' || (flags & kPfExiting) != 0;
}

void push(EventKind kind, const pmix_proc_t *proc, int status = 0, const char *msg = nullptr) {
  Event e;
  e.kind = kind;
  e.rank = proc->rank;
  e.status = status;
  if (msg != nullptr) e.message = msg;
  g_queue->push(std::move(e));
}

// Callbacks are completed right here, on libpmix's thread: some of libpmix's completion functions
// are not safe to call from another thread.
pmix_status_t on_connected(const pmix_proc_t *proc, void *, pmix_info_t[], size_t, pmix_op_cbfunc_t, void *) {
  if (!ours(proc)) return PMIX_ERR_NOT_FOUND;
  debug("connected", proc);
  push(EventKind::kConnected, proc);
  return PMIX_OPERATION_SUCCEEDED;
}

// libpmix calls this for PMIx_Finalize and also, when a client's connection drops without it, to
// say the client is gone. Only the first is a finalize; the second is answered "not handled", so
// libpmix releases its records itself (its completion function for that case must not be called
// from inside this callback).
pmix_status_t on_finalized(const pmix_proc_t *proc, void *, pmix_op_cbfunc_t cb, void *cbdata) {
  if (!ours(proc)) return PMIX_ERR_NOT_FOUND;
  if (process_exiting(proc->rank)) {
    debug("lost connection of", proc);
    return PMIX_ERR_NOT_SUPPORTED;
  }
  debug("finalized", proc);
  push(EventKind::kFinalized, proc);
  if (cb != nullptr) cb(PMIX_SUCCESS, cbdata);
  return PMIX_SUCCESS;
}

pmix_status_t on_abort(const pmix_proc_t *proc, void *, int status, const char msg[], pmix_proc_t[], size_t,
                       pmix_op_cbfunc_t cb, void *cbdata) {
  if (!ours(proc)) return PMIX_ERR_NOT_FOUND;
  debug("abort from", proc);
  push(EventKind::kAbort, proc, status, msg);   // copies msg: libpmix frees it when we return
  if (cb != nullptr) cb(PMIX_SUCCESS, cbdata);  // the client returns from PMIx_Abort
  return PMIX_SUCCESS;
}

void release_fence_data(void *data) {
  std::free(data);
}

// Every participant of a job on one node is local, so the data libpmix collected here is already
// everything: hand it straight back. (libpmix completes local fences itself; this is the fallback.)
pmix_status_t on_fence(const pmix_proc_t[], size_t, const pmix_info_t[], size_t, char *data, size_t ndata,
                       pmix_modex_cbfunc_t cb, void *cbdata) {
  if (g_debug) std::fprintf(stderr, "mpirun[debug]: fence with %zu bytes\n", ndata);
  if (cb == nullptr) return PMIX_SUCCESS;
  char *copy = nullptr;
  if (data != nullptr && ndata > 0) {
    copy = static_cast<char *>(std::malloc(ndata));
    if (copy == nullptr) return PMIX_ERR_NOMEM;
    std::memcpy(copy, data, ndata);
  }
  cb(PMIX_SUCCESS, copy, copy != nullptr ? ndata : 0, cbdata, release_fence_data, copy);
  return PMIX_SUCCESS;
}

void on_pmix_event(size_t, pmix_status_t, const pmix_proc_t *, pmix_info_t[], size_t, pmix_info_t[], size_t,
                   pmix_event_notification_cbfunc_fn_t cb, void *cbdata) {
  // Rank deaths are detected with waitpid, not through these notifications: acknowledge and go on.
  if (cb != nullptr) cb(PMIX_EVENT_ACTION_COMPLETE, nullptr, 0, nullptr, nullptr, cbdata);
}

pmix_server_module_t g_module = [] {
  pmix_server_module_t m;
  std::memset(&m, 0, sizeof m);
  m.client_connected2 = on_connected;
  m.client_finalized = on_finalized;
  m.abort = on_abort;
  m.fence_nb = on_fence;
  return m;
}();

// Waits for one libpmix operation that completes through a pmix_op_cbfunc_t.
class OpWait {
 public:
  static void callback(pmix_status_t status, void *cbdata) {
    auto *self = static_cast<OpWait *>(cbdata);
    std::lock_guard<std::mutex> lock(self->mutex_);
    self->status_ = status;
    self->done_ = true;
    self->cv_.notify_all();
  }
  // rc is what the starting call returned: anything but PMIX_SUCCESS means no callback will come.
  pmix_status_t wait(pmix_status_t rc) {
    if (rc == PMIX_OPERATION_SUCCEEDED) return PMIX_SUCCESS;
    if (rc != PMIX_SUCCESS) return rc;
    std::unique_lock<std::mutex> lock(mutex_);
    if (!cv_.wait_for(lock, std::chrono::seconds(10), [this] { return done_; })) return PMIX_ERR_TIMEOUT;
    return status_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  pmix_status_t status_ = PMIX_SUCCESS;
};

std::string pmix_error(const char *what, pmix_status_t rc) {
  return std::string(what) + " failed: " + PMIx_Error_string(rc);
}

std::string rank_list(uint32_t n) {
  std::string s;
  for (uint32_t r = 0; r < n; ++r) {
    if (r) s += ',';
    s += std::to_string(r);
  }
  return s;
}

// A pmix_info_t array that frees itself.
class InfoList {
 public:
  explicit InfoList(size_t capacity) : cap_(capacity) { PMIX_INFO_CREATE(info_, cap_); }
  ~InfoList() {
    if (info_ != nullptr) PMIX_INFO_FREE(info_, cap_);
  }
  InfoList(const InfoList &) = delete;
  InfoList &operator=(const InfoList &) = delete;
  void add(const char *key, const void *value, pmix_data_type_t type) {
    if (n_ < cap_) PMIx_Info_load(&info_[n_++], key, value, type);
  }
  pmix_info_t *get() { return info_; }
  size_t size() const { return n_; }
  // The next entry, for a caller that fills it in place.
  pmix_info_t *next_slot() { return n_ < cap_ ? &info_[n_++] : nullptr; }
  // Gives the array to a PMIX_DATA_ARRAY value (which then owns it).
  void move_into(pmix_info_t *slot, const char *key) {
    PMIX_LOAD_KEY(slot->key, key);
    slot->value.type = PMIX_DATA_ARRAY;
    slot->value.data.darray = static_cast<pmix_data_array_t *>(calloc(1, sizeof(pmix_data_array_t)));
    slot->value.data.darray->type = PMIX_INFO;
    slot->value.data.darray->size = n_;
    slot->value.data.darray->array = info_;
    info_ = nullptr;
  }

 private:
  pmix_info_t *info_ = nullptr;
  size_t cap_;
  size_t n_ = 0;
};

}  // namespace

bool PmixServer::init(std::string *error) {
  g_queue = queue_;
  const char *dbg = std::getenv("PAMIR_MPIRUN_DEBUG");
  g_debug = dbg != nullptr && *dbg != '\0' && std::strcmp(dbg, "0") != 0;
  pmix_status_t rc = PMIx_server_init(&g_module, nullptr, 0);
  if (rc != PMIX_SUCCESS) {
    *error = pmix_error("PMIx_server_init", rc);
    g_queue = nullptr;
    return false;
  }
  initialized_ = true;
  // A default handler, so libpmix's own notices (a lost client connection ...) are consumed quietly.
  rc = PMIx_Register_event_handler(nullptr, 0, nullptr, 0, on_pmix_event, nullptr, nullptr);
  if (rc < 0) {
    *error = pmix_error("PMIx_Register_event_handler", rc);
    return false;
  }
  return true;
}

bool PmixServer::register_job(const JobLayout &layout, std::string *error) {
  nspace_ = layout.nspace;
  const uint32_t n = layout.nranks;
  g_pids = std::make_unique<std::atomic<pid_t>[]>(n);
  for (uint32_t r = 0; r < n; ++r) g_pids[r].store(0);
  pmix_strncpy(g_nspace, nspace_.c_str(), PMIX_MAX_NSLEN);
  g_nranks = n;

  char *node_map = nullptr;
  char *proc_map = nullptr;
  pmix_status_t rc = PMIx_generate_regex(layout.hostname.c_str(), &node_map);
  if (rc != PMIX_SUCCESS) {
    *error = pmix_error("PMIx_generate_regex", rc);
    return false;
  }
  // A comma list, never a range: libpmix 4.2.2 mis-expands "0-3" (see shared/notes).
  const std::string peers = rank_list(n);
  rc = PMIx_generate_ppn(peers.c_str(), &proc_map);
  if (rc != PMIX_SUCCESS) {
    free(node_map);
    *error = pmix_error("PMIx_generate_ppn", rc);
    return false;
  }

  const uint32_t zero = 0, one = 1;
  const pmix_rank_t leader = 0;
  InfoList info(16 + n);
  info.add(PMIX_NODE_MAP, node_map, PMIX_REGEX);
  info.add(PMIX_PROC_MAP, proc_map, PMIX_REGEX);
  free(node_map);
  free(proc_map);
  info.add(PMIX_JOBID, nspace_.c_str(), PMIX_STRING);
  info.add(PMIX_UNIV_SIZE, &n, PMIX_UINT32);
  info.add(PMIX_JOB_SIZE, &n, PMIX_UINT32);
  info.add(PMIX_MAX_PROCS, &n, PMIX_UINT32);
  info.add(PMIX_LOCAL_SIZE, &n, PMIX_UINT32);
  info.add(PMIX_NODE_SIZE, &n, PMIX_UINT32);
  info.add(PMIX_LOCAL_PEERS, peers.c_str(), PMIX_STRING);
  info.add(PMIX_LOCALLDR, &leader, PMIX_PROC_RANK);
  info.add(PMIX_NUM_NODES, &one, PMIX_UINT32);
  info.add(PMIX_NODE_LIST, layout.hostname.c_str(), PMIX_STRING);
  const uint32_t napps = static_cast<uint32_t>(layout.app_sizes.size());
  info.add(PMIX_JOB_NUM_APPS, &napps, PMIX_UINT32);
  if (napps == 1) info.add(PMIX_APPNUM, &zero, PMIX_UINT32);  // a job-level answer for a lone application
  for (uint32_t r = 0; r < n; ++r) {
    const pmix_rank_t rank = r;
    const uint16_t local = static_cast<uint16_t>(r);
    const size_t app = layout.app_of(r);
    const uint32_t appnum = static_cast<uint32_t>(app);
    const pmix_rank_t app_rank = r - layout.app_first(app);
    InfoList proc(12);
    proc.add(PMIX_RANK, &rank, PMIX_PROC_RANK);  // must come first
    proc.add(PMIX_LOCAL_RANK, &local, PMIX_UINT16);
    proc.add(PMIX_NODE_RANK, &local, PMIX_UINT16);
    proc.add(PMIX_GLOBAL_RANK, &rank, PMIX_PROC_RANK);
    proc.add(PMIX_APP_RANK, &app_rank, PMIX_PROC_RANK);
    proc.add(PMIX_APPNUM, &appnum, PMIX_UINT32);
    proc.add(PMIX_NODEID, &zero, PMIX_UINT32);
    proc.add(PMIX_HOSTNAME, layout.hostname.c_str(), PMIX_STRING);
    if (r < layout.cpusets.size() && !layout.cpusets[r].empty())
      proc.add(PMIX_CPUSET, layout.cpusets[r].c_str(), PMIX_STRING);
    if (pmix_info_t *slot = info.next_slot(); slot != nullptr) proc.move_into(slot, PMIX_PROC_DATA);
  }

  OpWait wait;
  rc = wait.wait(PMIx_server_register_nspace(nspace_.c_str(), static_cast<int>(n), info.get(), info.size(),
                                             OpWait::callback, &wait));
  if (rc != PMIX_SUCCESS) {
    *error = pmix_error("PMIx_server_register_nspace", rc);
    return false;
  }
  return true;
}

bool PmixServer::register_client(uint32_t rank, std::string *error) {
  pmix_proc_t proc;
  PMIX_PROC_LOAD(&proc, nspace_.c_str(), rank);
  OpWait wait;
  pmix_status_t rc =
      wait.wait(PMIx_server_register_client(&proc, geteuid(), getegid(), nullptr, OpWait::callback, &wait));
  if (rc != PMIX_SUCCESS) {
    *error = pmix_error("PMIx_server_register_client", rc);
    return false;
  }
  return true;
}

bool PmixServer::setup_fork(uint32_t rank, char ***env, std::string *error) {
  pmix_proc_t proc;
  PMIX_PROC_LOAD(&proc, nspace_.c_str(), rank);
  pmix_status_t rc = PMIx_server_setup_fork(&proc, env);
  if (rc != PMIX_SUCCESS) {
    *error = pmix_error("PMIx_server_setup_fork", rc);
    return false;
  }
  return true;
}

void PmixServer::set_pid(uint32_t rank, pid_t pid) {
  if (rank < g_nranks) g_pids[rank].store(pid);
}

// Why abandon() exists: when a client dies while its peers wait in a fence, libpmix 4.2.2's handling
// of the lost connections leaves its fence records damaged, and PMIx_server_finalize then crashes or
// hangs (seen in about 1 of 50 such jobs). A job that ended abnormally therefore skips the finalize;
// a clean job (every client finalized) finalizes normally.
void PmixServer::shutdown() {
  if (!initialized_) return;
  // No PMIx_server_deregister_nspace/_client here. libpmix 4.2.2 handles a client's dropped
  // connection on its own thread some time after the process is gone; deregistering the namespace
  // before that has happened frees the client records that this handler then uses (seen here: a
  // crash or a hang in about 1 of 50 jobs whose ranks were killed). PMIx_server_finalize stops that
  // thread first and then releases the namespace, its clients and every file the server made.
  PMIx_server_finalize();
  initialized_ = false;
  g_queue = nullptr;
  g_nranks = 0;
  g_pids.reset();
}

}  // namespace pamir::mpirun
