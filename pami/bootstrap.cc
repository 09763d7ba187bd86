#include "pami/bootstrap.h"

#include <pmix.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <unordered_map>

namespace pamir {

std::string shm_segment_path(const std::string &nspace, const std::string &hostname) {
  return "/dev/shm/pamir-" + std::to_string(getuid()) + "-" + nspace + "-" + hostname;
}

static pmix_proc_t *as_proc(void *p) {
  return static_cast<pmix_proc_t *>(p);
}

static bool get_u32(const pmix_proc_t *who, const char *key, uint32_t &out) {
  pmix_value_t *v = nullptr;
  if (PMIx_Get(who, key, nullptr, 0, &v) != PMIX_SUCCESS || !v) return false;
  bool ok = true;
  switch (v->type) {
    case PMIX_UINT32:
      out = v->data.uint32;
      break;
    case PMIX_UINT16:
      out = v->data.uint16;
      break;
    case PMIX_INT:
      out = uint32_t(v->data.integer);
      break;
    case PMIX_UINT64:
      out = uint32_t(v->data.uint64);
      break;
    default:
      ok = false;
  }
  PMIX_VALUE_RELEASE(v);
  return ok;
}

namespace {

// Launchers that start several processes but serve no PMIx. Started by one of them, this process
// finds no PMIx server and would become a singleton: the job would be N unrelated 1-process jobs,
// each computing the whole problem alone (and writing the same files). Bootstrap::init stops instead,
// naming the launcher it saw. Rows are tried in order, the innermost launcher first: MPICH's hydra
// and Open MPI's orted, started on other nodes by srun, leave Slurm's step variables in their ranks'
// environment, and it is their own variables that tell what started the rank.
struct ForeignLauncher {
  const char *marks[4];  // this launcher started the process if any of these is set
  const char *size[2];   // how many processes it started: the first of these that is set
  const char *rank;      // which of them this one is
  const char *also[2];   // quoted in the message too, when set
  const char *what;      // "started by <what> (<variables>[: <guess>]), so ...: <advice>"
  const char *guess;
  const char *advice;
};

constexpr ForeignLauncher kForeignLaunchers[] = {
    {.marks = {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"},
     .size = {"OMPI_COMM_WORLD_SIZE"},
     .rank = "OMPI_COMM_WORLD_RANK",
     .also = {},
     .what = "Open MPI's mpirun without a PMIx server",
     .guess = nullptr,
     .advice = "use Pamir's mpirun, or the mpirun of Open MPI 4 or later, which serves PMIx"},
    // hydra_pmi_proxy gives each rank HYDI_CONTROL_FD; `srun --mpi=pmi2` sets PMI_* but not that.
    {.marks = {"HYDI_CONTROL_FD"},
     .size = {"PMI_SIZE"},
     .rank = "PMI_RANK",
     .also = {"PMI_FD", "PMI_PORT"},
     .what = "a launcher that speaks PMI-1/PMI-2, not PMIx",
     .guess = "MPICH's mpiexec/hydra",
     .advice = "use Pamir's mpirun or a PMIx launcher"},
    // SLURM_STEP_ID tells a task of srun from a batch script, which has SLURM_PROCID=0 and the job's
    // SLURM_NTASKS but is one process: a program started there directly is a true singleton.
    {.marks = {"SLURM_STEP_ID"},
     .size = {"SLURM_STEP_NUM_TASKS", "SLURM_NTASKS"},
     .rank = "SLURM_PROCID",
     .also = {"SLURM_STEP_ID", "SLURM_MPI_TYPE"},
     .what = "Slurm's srun without PMIx",
     .guess = nullptr,
     .advice = "run with `srun --mpi=pmix`, or with Pamir's mpirun"},
    // Simple PMI (PMI_FD or PMI_PORT), as MPICH's hydra, Intel MPI's mpiexec, MVAPICH's mpirun_rsh
    // and Flux speak it.
    {.marks = {"PMI_FD", "PMI_PORT", "PMI_RANK", "PMI_SIZE"},
     .size = {"PMI_SIZE"},
     .rank = "PMI_RANK",
     .also = {"PMI_FD", "PMI_PORT"},
     .what = "a launcher that speaks PMI-1/PMI-2, not PMIx",
     .guess = "MPICH's mpiexec/hydra?",
     .advice = "use Pamir's mpirun or a PMIx launcher"},
};

// The value of a variable that holds a count or an index, or -1 when it is unset or not a number.
long env_number(const char *name) {
  const char *s = name ? std::getenv(name) : nullptr;
  if (!s || *s < '0' || *s > '9') return -1;
  char *end;
  errno = 0;
  unsigned long v = std::strtoul(s, &end, 10);
  if (*end || errno || v > 0x7fffffffUL) return -1;
  return long(v);
}

// With no PMIx server: empty when this process may run as a singleton, else why it must not.
// A launcher that started one process (`srun -n 1`, `mpiexec -n 1`) started a job of one rank, which
// is what a singleton is: nothing is missing, so it runs, and serial steps of job scripts started that
// way keep working as they do with other MPIs. A rank above 0 proves several processes even when the
// size is unknown.
std::string foreign_launcher() {
  for (const ForeignLauncher &l : kForeignLaunchers) {
    if (std::none_of(std::begin(l.marks), std::end(l.marks),
                     [](const char *m) { return m && std::getenv(m); }))
      continue;
    const char *size_var = nullptr;
    for (const char *v : l.size)
      if (v && std::getenv(v)) {
        size_var = v;
        break;
      }
    const long size = env_number(size_var), rank = env_number(l.rank);
    if (size <= 1 && rank <= 0) return {};
    std::string seen;
    for (const char *var : {size_var, l.rank, l.also[0], l.also[1]}) {
      const char *value = var ? std::getenv(var) : nullptr;
      if (!value || seen.find(std::string(var) + "=") != std::string::npos) continue;
      seen += (seen.empty() ? "" : ", ") + std::string(var) + "=" + value;
    }
    if (l.guess) seen += std::string(": ") + l.guess;
    const std::string count = size > 1 ? "its " + std::to_string(size) + " processes" : "its processes";
    return std::string("started by ") + l.what + " (" + seen + "), so each of " + count +
           " would run alone as a separate 1-process MPI job: " + l.advice;
  }
  return {};
}

}  // namespace

// No PMIx server: a singleton of size 1, unless another launcher started several processes.
static int no_server(std::string &nspace, std::string &why) {
  why = foreign_launcher();
  if (!why.empty()) return 1;
  nspace = "singleton." + std::to_string(getpid());
  return 0;
}

int Bootstrap::init(std::string &why) {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  hostname_ = host;
  // Started by hand: no PMIx server to look for, so do not pay PMIx_Init's failed connect.
  if (!std::getenv("PMIX_NAMESPACE") && !std::getenv("PMIX_SERVER_URI41") &&
      !std::getenv("PMIX_SERVER_URI4") && !std::getenv("PMIX_SERVER_URI3") &&
      !std::getenv("PMIX_SERVER_URI2"))
    return no_server(nspace_, why);
  auto *me = new pmix_proc_t;
  PMIX_PROC_CONSTRUCT(me);
  proc_ = me;
  pmix_status_t rc = PMIx_Init(me, nullptr, 0);
  if (rc == PMIX_ERR_UNREACH) {
    // Stale PMIX_* variables without a server: as with none (never call PMIx_Finalize, which
    // crashes in this state).
    return no_server(nspace_, why);
  }
  if (rc != PMIX_SUCCESS) {
    why = std::string("PMIx_Init failed: ") + PMIx_Error_string(rc);
    return 1;
  }
  connected_ = true;
  singleton_ = false;
  nspace_ = me->nspace;
  rank_ = me->rank;
  pmix_proc_t job;
  PMIX_LOAD_PROCID(&job, me->nspace, PMIX_RANK_WILDCARD);
  if (!get_u32(&job, PMIX_JOB_SIZE, size_)) {
    why = "PMIx did not give the job size";
    return 1;
  }
  if (!get_u32(&job, PMIX_UNIV_SIZE, universe_size_)) universe_size_ = size_;
  // The application is a process's own datum (MPMD: `mpirun -n 2 ./a : -n 1 ./b`, or srun's
  // --multi-prog); a launcher of one application may give it for the whole job only.
  if (!get_u32(me, PMIX_APPNUM, appnum_) && !get_u32(&job, PMIX_APPNUM, appnum_)) appnum_ = 0;
  local_peers_.clear();
  pmix_value_t *v = nullptr;
  if (PMIx_Get(&job, PMIX_LOCAL_PEERS, nullptr, 0, &v) == PMIX_SUCCESS && v && v->type == PMIX_STRING) {
    const char *s = v->data.string;
    while (*s) {
      char *end;
      unsigned long r = std::strtoul(s, &end, 10);
      if (end == s) break;
      local_peers_.push_back(uint32_t(r));
      s = *end == ',' ? end + 1 : end;
    }
  }
  if (v) PMIX_VALUE_RELEASE(v);
  if (local_peers_.empty()) local_peers_.push_back(rank_);
  std::sort(local_peers_.begin(), local_peers_.end());
  local_rank_ = 0;
  while (local_rank_ < local_peers_.size() && local_peers_[local_rank_] != rank_) ++local_rank_;
  if (local_rank_ == local_peers_.size()) {
    why = "PMIx's list of local peers does not include this rank";
    return 1;
  }
  return 0;
}

const std::vector<uint32_t> &Bootstrap::nodes() {
  if (nodes_read_) return nodes_;
  nodes_read_ = true;
  if (!connected_) {
    nodes_.assign(size_, 0);
    return nodes_;
  }
  // Optional: a key the launcher did not give is "not found" at once, not waited for.
  pmix_info_t optional;
  PMIX_INFO_CONSTRUCT(&optional);
  bool yes = true;
  PMIX_INFO_LOAD(&optional, PMIX_OPTIONAL, &yes, PMIX_BOOL);
  // One key for every rank: Slurm 22.05 gives PMIX_HOSTNAME for every rank but PMIX_NODEID only for
  // the ranks of one's own node, so the node id is the fallback, for all ranks or none.
  std::vector<std::string> keys(size_);  // a node's name per rank
  bool complete = false;
  for (const char *key : {PMIX_HOSTNAME, PMIX_NODEID}) {
    complete = true;
    for (uint32_t r = 0; r < size_ && complete; ++r) {
      pmix_proc_t who;
      PMIX_LOAD_PROCID(&who, as_proc(proc_)->nspace, r);
      pmix_value_t *v = nullptr;
      complete = PMIx_Get(&who, key, &optional, 1, &v) == PMIX_SUCCESS && v;
      if (complete && v->type == PMIX_STRING)
        keys[r] = v->data.string;
      else if (complete && v->type == PMIX_UINT32)
        keys[r] = std::to_string(v->data.uint32);
      else
        complete = false;
      if (v) PMIX_VALUE_RELEASE(v);
    }
    if (complete) break;
  }
  PMIX_INFO_DESTRUCT(&optional);
  if (!complete) return nodes_;
  // Numbered in the order ranks first name them: the same on every rank.
  std::unordered_map<std::string, uint32_t> seen;
  nodes_.resize(size_);
  for (uint32_t r = 0; r < size_; ++r) nodes_[r] = seen.emplace(keys[r], uint32_t(seen.size())).first->second;
  return nodes_;
}

void Bootstrap::finalize() {
  if (connected_) PMIx_Finalize(nullptr, 0);
  connected_ = false;
}

int Bootstrap::put(const char *key, const void *data, size_t len) {
  if (!connected_) return 0;
  pmix_value_t v;
  PMIX_VALUE_CONSTRUCT(&v);
  v.type = PMIX_BYTE_OBJECT;
  v.data.bo.bytes = static_cast<char *>(const_cast<void *>(data));
  v.data.bo.size = len;
  pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &v);
  if (rc != PMIX_SUCCESS) return 1;
  return PMIx_Commit() == PMIX_SUCCESS ? 0 : 1;
}

int Bootstrap::fence(bool collect_data) {
  if (!connected_) return 0;
  pmix_info_t info;
  PMIX_INFO_CONSTRUCT(&info);
  bool flag = collect_data;
  PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &flag, PMIX_BOOL);
  pmix_proc_t job;
  PMIX_LOAD_PROCID(&job, as_proc(proc_)->nspace, PMIX_RANK_WILDCARD);
  pmix_status_t rc = PMIx_Fence(&job, 1, &info, 1);
  PMIX_INFO_DESTRUCT(&info);
  return rc == PMIX_SUCCESS ? 0 : 1;
}

int Bootstrap::get(uint32_t rank, const char *key, std::vector<uint8_t> &out) {
  if (!connected_) return 1;
  pmix_proc_t who;
  PMIX_LOAD_PROCID(&who, as_proc(proc_)->nspace, rank);
  pmix_value_t *v = nullptr;
  if (PMIx_Get(&who, key, nullptr, 0, &v) != PMIX_SUCCESS || !v) return 1;
  int rc = 1;
  if (v->type == PMIX_BYTE_OBJECT) {
    out.assign(v->data.bo.bytes, v->data.bo.bytes + v->data.bo.size);
    rc = 0;
  }
  PMIX_VALUE_RELEASE(v);
  return rc;
}

void Bootstrap::abort(int code, const char *msg) {
  std::fflush(stdout);
  if (connected_) {
    // The launcher ends the whole job; PMIx_Abort returns once it has been told.
    PMIx_Abort(code, msg, nullptr, 0);
  }
  std::fflush(stderr);
  _exit(code);
}

}  // namespace pamir
