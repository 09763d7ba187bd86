// Sessions (MPI 5.0 §11.3). The first instance of the library (a session or MPI_Init) starts it and the
// last one stops it (mpi/init.cc), so a program may use sessions only, MPI_Init only, or both. Process
// sets: "mpi://WORLD" (every process of the job), "mpi://SELF", and "pamir://node" (this node's
// processes). MPI_Comm_create_from_group has no parent: its context-id agreement runs among the group's
// members on the pair no communicator takes (kParentlessCtx), keyed and tagged by a hash of the string
// tag, whose full 64 bits every member checks (docs/architecture.md, "Context-id agreement"). Errors of
// a session's calls go to its handler; before the library runs there is none, and the class is returned.
#include "mpi/session.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "mpi/check.h"
#include "mpi/context_id.h"
#include "mpi/info.h"
#include "pami/context.h"
#include "pamir_alias.h"

namespace pamir::mpi {

namespace {

constexpr const char *kPsets[] = {"mpi://WORLD", "mpi://SELF", "pamir://node"};
constexpr int kNumPsets = 3;

const char *const kLevelNames[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED",
                                   "MPI_THREAD_MULTIPLE"};

MPI_Session session_handle(Session *s) {
  return handle_of<MPI_Session>(s);
}

// An error of a call on session s (or with none yet usable).
[[gnu::cold]] [[gnu::format(printf, 4, 5)]] int fail(Session *s, const char *fn, int cls, const char *fmt,
                                                     ...) {
  char reason[400];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(reason, sizeof reason, fmt, ap);
  va_end(ap);
  if (!usable()) return cls;
  if (!s) return raise(nullptr, fn, cls, "%s", reason);
  return raise_session(session_handle(s), s->errhandler, fn, cls, "%s", reason);
}

#define SESSION_CHECK(s, cond, cls, ...)                                     \
  do {                                                                       \
    if (__builtin_expect(!(cond), 0)) return fail(s, fn_, cls, __VA_ARGS__); \
  } while (0)

#define PAMIR_SESSION(h)                                                                                     \
  ({                                                                                                         \
    Session *s_ = lookup<Session>(h);                                                                        \
    if (__builtin_expect(!s_, 0))                                                                            \
      return fail(nullptr, fn_, MPI_ERR_SESSION, "%s",                                                       \
                  (h) == MPI_SESSION_NULL ? "MPI_SESSION_NULL is not a session" : "invalid session handle"); \
    s_;                                                                                                      \
  })

// The members of a process set, or false when the name is none.
bool pset_members(const char *name, std::vector<uint32_t> &tasks) {
  const Context &ctx = context();
  tasks.clear();
  if (std::strcmp(name, kPsets[0]) == 0) {
    for (uint32_t t = 0; t < ctx.ntasks(); ++t) tasks.push_back(t);
  } else if (std::strcmp(name, kPsets[1]) == 0) {
    tasks.push_back(ctx.task());
  } else if (std::strcmp(name, kPsets[2]) == 0) {
    tasks = const_cast<Context &>(ctx).boot().local_peers();
  } else {
    return false;
  }
  return true;
}

Errhandler *errhandler_of(MPI_Errhandler h) {
  return lookup<Errhandler>(h);
}

}  // namespace

uint64_t string_tag_hash(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; ++s) h = (h ^ uint8_t(*s)) * 1099511628211ull;
  return h ? h : 1;
}

int parentless_args(const char *fn_, MPI_Info info, MPI_Errhandler errhandler, Errhandler **eh) {
  PAMIR_CHECK(nullptr, info == MPI_INFO_NULL || info_of(info), MPI_ERR_INFO,
              "info is not a valid info object");
  *eh = errhandler == MPI_ERRHANDLER_NULL ? errhandler_fatal() : errhandler_of(errhandler);
  PAMIR_CHECK(nullptr, *eh, MPI_ERR_ERRHANDLER, "errhandler is not a valid error handler");
  PAMIR_CHECK(nullptr, (*eh)->type != Errhandler::Type::session_fn, MPI_ERR_ERRHANDLER,
              "the error handler was made for sessions");
  return MPI_SUCCESS;
}

int comm_create_parentless(Group *g, const char *stringtag, Errhandler *eh, Comm **out, const char *fn_) {
  // Among the group's members only, on the pair no communicator takes; messages name the senders' job
  // ranks, so agreements of different groups never take each other's messages.
  std::vector<int> wire(g->tasks.begin(), g->tasks.end());
  pamir::coll::Team team{g->rank, g->size(), uint16_t(kParentlessCtx + 1), g->tasks.data()};
  team.ranks = wire.data();
  const uint64_t h = string_tag_hash(stringtag);
  BlockingAgreement a(team, int32_t(h & 0x7FFFFFF), agreement_key(kNoParent, AgreeKind::from_group, h), true,
                      h);
  const int rc = a.wait();
  if (rc == Agreement::kCheckFailed)
    return raise(nullptr, fn_, MPI_ERR_ARG,
                 "the members called with different string tags (this process: \"%s\")", stringtag);
  if (rc == Agreement::kNoFreeId)
    return raise(nullptr, fn_, MPI_ERR_OTHER, "no context id is free on all members of the group");
  if (rc) return raise(nullptr, fn_, MPI_ERR_OTHER, "the agreement on a context id failed (error %d)", rc);
  *out = comm_from_group(g, a.ctx, eh);
  (*out)->session = g->session;
  return MPI_SUCCESS;
}

}  // namespace pamir::mpi

using namespace pamir::mpi;
using pamir::context;

int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session) {
  static constexpr const char *fn_ = "MPI_Session_init";
  pamir::CallGuard guard_;
  SESSION_CHECK(nullptr, session, MPI_ERR_ARG, "session is NULL");
  const Info *i = info == MPI_INFO_NULL ? nullptr : info_of(info);
  SESSION_CHECK(nullptr, info == MPI_INFO_NULL || i, MPI_ERR_INFO, "info is not a valid info object");
  Errhandler *eh = errhandler_of(errhandler);
  SESSION_CHECK(nullptr, eh, MPI_ERR_ERRHANDLER, "errhandler is not a valid error handler");
  SESSION_CHECK(nullptr, eh->predefined || eh->type == Errhandler::Type::session_fn, MPI_ERR_ERRHANDLER,
                "the error handler was made for communicators (use MPI_Session_create_errhandler)");
  int level = MPI_THREAD_SINGLE;
  if (i)
    for (const auto &[k, v] : i->items)
      if (k == "thread_level") {
        int l = 0;
        while (l < 4 && v != kLevelNames[l]) ++l;
        SESSION_CHECK(nullptr, l < 4, MPI_ERR_INFO_VALUE,
                      "thread_level=%s is not one of MPI_THREAD_SINGLE, _FUNNELED, _SERIALIZED, _MULTIPLE",
                      v.c_str());
        level = l;
      }
  State &st = state();
  if (!st.up) library_start(fn_, level);
  Session *s = pool<Session>().make();
  s->errhandler = eh;
  if (!eh->predefined) ++eh->refs;
  s->thread_level = st.thread_level;
  ++st.sessions;
  *session = session_handle(s);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Session_init);

int PMPI_Session_finalize(MPI_Session *session) {
  PAMIR_ENTER("MPI_Session_finalize");
  SESSION_CHECK(nullptr, session, MPI_ERR_ARG, "session is NULL");
  Session *s = PAMIR_SESSION(*session);
  bsend_session_release(s);
  release(s->errhandler);
  if (s->int_handle) object_forget_int(Kind::session, s->int_handle);
  pool<Session>().destroy(s);
  *session = MPI_SESSION_NULL;
  State &st = state();
  // The last instance stops the library (MPI_Finalize stops it when no session is open).
  if (--st.sessions == 0 && (!st.initialized || st.finalized)) library_stop();
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Session_finalize);

int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int *npset_names) {
  PAMIR_ENTER("MPI_Session_get_num_psets");
  Session *s = PAMIR_SESSION(session);
  SESSION_CHECK(s, info == MPI_INFO_NULL || info_of(info), MPI_ERR_INFO, "info is not a valid info object");
  SESSION_CHECK(s, npset_names, MPI_ERR_ARG, "npset_names is NULL");
  *npset_names = kNumPsets;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Session_get_num_psets);

int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int *pset_len, char *pset_name) {
  PAMIR_ENTER("MPI_Session_get_nth_pset");
  Session *s = PAMIR_SESSION(session);
  SESSION_CHECK(s, info == MPI_INFO_NULL || info_of(info), MPI_ERR_INFO, "info is not a valid info object");
  SESSION_CHECK(s, n >= 0 && n < kNumPsets, MPI_ERR_ARG, "n %d is outside [0, %d)", n, kNumPsets);
  SESSION_CHECK(s, pset_len && *pset_len >= 0, MPI_ERR_ARG, "pset_len is NULL or negative");
  const char *name = kPsets[n];
  const int full = int(std::strlen(name)) + 1;
  // pset_len 0 asks for the length (with the terminating null); otherwise at most pset_len - 1 characters.
  if (*pset_len > 0) {
    SESSION_CHECK(s, pset_name, MPI_ERR_ARG, "pset_name is NULL");
    const int copy = std::min(*pset_len - 1, full - 1);
    std::memcpy(pset_name, name, size_t(copy));
    pset_name[copy] = '\0';
  }
  *pset_len = full;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Session_get_nth_pset);

int PMPI_Session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info) {
  PAMIR_ENTER("MPI_Session_get_pset_info");
  Session *s = PAMIR_SESSION(session);
  SESSION_CHECK(s, pset_name && info, MPI_ERR_ARG, "pset_name or info is NULL");
  std::vector<uint32_t> tasks;
  SESSION_CHECK(s, pset_members(pset_name, tasks), MPI_ERR_ARG,
                "\"%s\" is not a process set (mpi://WORLD, mpi://SELF, pamir://node)", pset_name);
  *info = info_handle(info_make({{"mpi_size", std::to_string(tasks.size())}}));
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Session_get_pset_info);

int PMPI_Session_get_info(MPI_Session session, MPI_Info *info_used) {
  PAMIR_ENTER("MPI_Session_get_info");
  Session *s = PAMIR_SESSION(session);
  SESSION_CHECK(s, info_used, MPI_ERR_ARG, "info_used is NULL");
  *info_used = info_handle(info_make({{"thread_level", kLevelNames[s->thread_level]}}));
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Session_get_info);

int PMPI_Group_from_session_pset(MPI_Session session, const char *pset_name, MPI_Group *newgroup) {
  PAMIR_ENTER("MPI_Group_from_session_pset");
  Session *s = PAMIR_SESSION(session);
  SESSION_CHECK(s, pset_name && newgroup, MPI_ERR_ARG, "pset_name or newgroup is NULL");
  std::vector<uint32_t> tasks;
  SESSION_CHECK(s, pset_members(pset_name, tasks), MPI_ERR_ARG,
                "\"%s\" is not a process set (mpi://WORLD, mpi://SELF, pamir://node)", pset_name);
  Group *g = group_make(std::move(tasks));
  g->session = s;
  *newgroup = handle_of<MPI_Group>(g);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Group_from_session_pset);

int PMPI_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info,
                                MPI_Errhandler errhandler, MPI_Comm *newcomm) {
  PAMIR_ENTER("MPI_Comm_create_from_group");
  Group *g = lookup<Group>(group);
  PAMIR_CHECK(nullptr, g, MPI_ERR_GROUP, "invalid group handle");
  PAMIR_CHECK(nullptr, stringtag && newcomm, MPI_ERR_ARG, "stringtag or newcomm is NULL");
  Errhandler *eh = nullptr;
  if (int rc = parentless_args(fn_, info, errhandler, &eh)) return rc;
  PAMIR_CHECK(nullptr, g->rank != MPI_UNDEFINED, MPI_ERR_GROUP, "the calling process is not in the group");
  *newcomm = MPI_COMM_NULL;
  Comm *c = nullptr;
  if (int rc = comm_create_parentless(g, stringtag, eh, &c, fn_)) return rc;
  *newcomm = comm_handle(c);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Comm_create_from_group);

int PMPI_Session_create_errhandler(MPI_Session_errhandler_function *session_errhandler_fn,
                                   MPI_Errhandler *errhandler) {
  // At any time: the handler a program gives MPI_Session_init is made before anything is initialized.
  PAMIR_ENTER_ANYTIME("MPI_Session_create_errhandler");
  if (!session_errhandler_fn || !errhandler)
    return raise_anytime(fn_, MPI_ERR_ARG, "the function or errhandler is NULL");
  Errhandler *e = pool<Errhandler>().make();
  e->type = Errhandler::Type::session_fn;
  e->session_fn = session_errhandler_fn;
  *errhandler = handle_of<MPI_Errhandler>(e);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Session_create_errhandler);

int PMPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler) {
  PAMIR_ENTER("MPI_Session_set_errhandler");
  Session *s = PAMIR_SESSION(session);
  Errhandler *e = errhandler_of(errhandler);
  SESSION_CHECK(s, e, MPI_ERR_ERRHANDLER, "errhandler is not a valid error handler");
  SESSION_CHECK(s, e->predefined || e->type == Errhandler::Type::session_fn, MPI_ERR_ERRHANDLER,
                "the error handler was made for communicators");
  errhandler_replace(s->errhandler, e);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Session_set_errhandler);

int PMPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler *errhandler) {
  PAMIR_ENTER("MPI_Session_get_errhandler");
  Session *s = PAMIR_SESSION(session);
  SESSION_CHECK(s, errhandler, MPI_ERR_ARG, "errhandler is NULL");
  *errhandler = errhandler_give(s->errhandler);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Session_get_errhandler);

int PMPI_Session_call_errhandler(MPI_Session session, int errorcode) {
  PAMIR_ENTER("MPI_Session_call_errhandler");
  Session *s = PAMIR_SESSION(session);
  raise_session_code(session, s->errhandler, errorcode);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Session_call_errhandler);
