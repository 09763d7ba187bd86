#include "pami/bootstrap.h"

#include <pmix.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

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

int Bootstrap::init(std::string &why) {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  hostname_ = host;
  // Started by hand: no PMIx server to look for, so do not pay PMIx_Init's failed connect.
  if (!std::getenv("PMIX_NAMESPACE") && !std::getenv("PMIX_SERVER_URI41") &&
      !std::getenv("PMIX_SERVER_URI4") && !std::getenv("PMIX_SERVER_URI3") &&
      !std::getenv("PMIX_SERVER_URI2")) {
    nspace_ = "singleton." + std::to_string(getpid());
    return 0;
  }
  auto *me = new pmix_proc_t;
  PMIX_PROC_CONSTRUCT(me);
  proc_ = me;
  pmix_status_t rc = PMIx_Init(me, nullptr, 0);
  if (rc == PMIX_ERR_UNREACH) {
    // Stale PMIX_* variables without a server: run as a singleton, and never call PMIx_Finalize,
    // which crashes in this state.
    nspace_ = "singleton." + std::to_string(getpid());
    return 0;
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
  if (!get_u32(&job, PMIX_APPNUM, appnum_)) appnum_ = 0;
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
