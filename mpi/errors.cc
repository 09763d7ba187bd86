#include "mpi/errors.h"

#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "mpi/check.h"
#include "mpi/comm.h"
#include "mpi/win.h"
#include "pami/context.h"

namespace pamir::mpi {

namespace {

struct ClassText {
  int cls;
  const char *name;
  const char *text;
};

// Every predefined error class with its ABI value and what it means.
const ClassText kClasses[] = {
    {MPI_SUCCESS, "MPI_SUCCESS", "no error"},
    {MPI_ERR_BUFFER, "MPI_ERR_BUFFER", "invalid buffer pointer"},
    {MPI_ERR_COUNT, "MPI_ERR_COUNT", "invalid count argument"},
    {MPI_ERR_TYPE, "MPI_ERR_TYPE", "invalid datatype"},
    {MPI_ERR_TAG, "MPI_ERR_TAG", "invalid tag argument"},
    {MPI_ERR_COMM, "MPI_ERR_COMM", "invalid communicator"},
    {MPI_ERR_RANK, "MPI_ERR_RANK", "invalid rank"},
    {MPI_ERR_REQUEST, "MPI_ERR_REQUEST", "invalid request"},
    {MPI_ERR_ROOT, "MPI_ERR_ROOT", "invalid root"},
    {MPI_ERR_GROUP, "MPI_ERR_GROUP", "invalid group"},
    {MPI_ERR_OP, "MPI_ERR_OP", "invalid reduction operation"},
    {MPI_ERR_TOPOLOGY, "MPI_ERR_TOPOLOGY", "invalid topology"},
    {MPI_ERR_DIMS, "MPI_ERR_DIMS", "invalid dimension argument"},
    {MPI_ERR_ARG, "MPI_ERR_ARG", "invalid argument"},
    {MPI_ERR_UNKNOWN, "MPI_ERR_UNKNOWN", "unknown error"},
    {MPI_ERR_TRUNCATE, "MPI_ERR_TRUNCATE", "message truncated"},
    {MPI_ERR_OTHER, "MPI_ERR_OTHER", "other error"},
    {MPI_ERR_INTERN, "MPI_ERR_INTERN", "internal error"},
    {MPI_ERR_PENDING, "MPI_ERR_PENDING", "request pending"},
    {MPI_ERR_IN_STATUS, "MPI_ERR_IN_STATUS", "error code is in status"},
    {MPI_ERR_ACCESS, "MPI_ERR_ACCESS", "permission denied"},
    {MPI_ERR_AMODE, "MPI_ERR_AMODE", "invalid access mode"},
    {MPI_ERR_ASSERT, "MPI_ERR_ASSERT", "invalid assert argument"},
    {MPI_ERR_BAD_FILE, "MPI_ERR_BAD_FILE", "invalid file name"},
    {MPI_ERR_BASE, "MPI_ERR_BASE", "invalid base"},
    {MPI_ERR_CONVERSION, "MPI_ERR_CONVERSION", "data conversion error"},
    {MPI_ERR_DISP, "MPI_ERR_DISP", "invalid displacement"},
    {MPI_ERR_DUP_DATAREP, "MPI_ERR_DUP_DATAREP", "data representation already defined"},
    {MPI_ERR_FILE_EXISTS, "MPI_ERR_FILE_EXISTS", "file exists"},
    {MPI_ERR_FILE_IN_USE, "MPI_ERR_FILE_IN_USE", "file in use"},
    {MPI_ERR_FILE, "MPI_ERR_FILE", "invalid file"},
    {MPI_ERR_INFO_KEY, "MPI_ERR_INFO_KEY", "info key too long"},
    {MPI_ERR_INFO_NOKEY, "MPI_ERR_INFO_NOKEY", "no such info key"},
    {MPI_ERR_INFO_VALUE, "MPI_ERR_INFO_VALUE", "info value too long"},
    {MPI_ERR_INFO, "MPI_ERR_INFO", "invalid info object"},
    {MPI_ERR_IO, "MPI_ERR_IO", "I/O error"},
    {MPI_ERR_KEYVAL, "MPI_ERR_KEYVAL", "invalid keyval"},
    {MPI_ERR_LOCKTYPE, "MPI_ERR_LOCKTYPE", "invalid lock type"},
    {MPI_ERR_NAME, "MPI_ERR_NAME", "invalid service name"},
    {MPI_ERR_NO_MEM, "MPI_ERR_NO_MEM", "out of memory"},
    {MPI_ERR_NOT_SAME, "MPI_ERR_NOT_SAME", "arguments not identical across processes"},
    {MPI_ERR_NO_SPACE, "MPI_ERR_NO_SPACE", "no space left"},
    {MPI_ERR_NO_SUCH_FILE, "MPI_ERR_NO_SUCH_FILE", "no such file"},
    {MPI_ERR_PORT, "MPI_ERR_PORT", "invalid port"},
    {MPI_ERR_QUOTA, "MPI_ERR_QUOTA", "quota exceeded"},
    {MPI_ERR_READ_ONLY, "MPI_ERR_READ_ONLY", "read-only file or file system"},
    {MPI_ERR_RMA_ATTACH, "MPI_ERR_RMA_ATTACH", "memory cannot be attached"},
    {MPI_ERR_RMA_CONFLICT, "MPI_ERR_RMA_CONFLICT", "conflicting RMA accesses"},
    {MPI_ERR_RMA_RANGE, "MPI_ERR_RMA_RANGE", "RMA target out of range"},
    {MPI_ERR_RMA_SHARED, "MPI_ERR_RMA_SHARED", "memory cannot be shared"},
    {MPI_ERR_RMA_SYNC, "MPI_ERR_RMA_SYNC", "wrong RMA synchronization"},
    {MPI_ERR_SERVICE, "MPI_ERR_SERVICE", "invalid service"},
    {MPI_ERR_SIZE, "MPI_ERR_SIZE", "invalid size"},
    {MPI_ERR_SPAWN, "MPI_ERR_SPAWN", "spawn error"},
    {MPI_ERR_UNSUPPORTED_DATAREP, "MPI_ERR_UNSUPPORTED_DATAREP", "unsupported data representation"},
    {MPI_ERR_UNSUPPORTED_OPERATION, "MPI_ERR_UNSUPPORTED_OPERATION", "operation not supported"},
    {MPI_ERR_WIN, "MPI_ERR_WIN", "invalid window"},
    {MPI_ERR_RMA_FLAVOR, "MPI_ERR_RMA_FLAVOR", "wrong window flavor"},
    {MPI_ERR_PROC_ABORTED, "MPI_ERR_PROC_ABORTED", "peer process aborted"},
    {MPI_ERR_VALUE_TOO_LARGE, "MPI_ERR_VALUE_TOO_LARGE", "value too large for its output argument"},
    {MPI_ERR_SESSION, "MPI_ERR_SESSION", "invalid session"},
    {MPI_ERR_ERRHANDLER, "MPI_ERR_ERRHANDLER", "invalid error handler"},
    {MPI_ERR_ABI, "MPI_ERR_ABI", "ABI mismatch"},
    {MPI_T_ERR_CANNOT_INIT, "MPI_T_ERR_CANNOT_INIT", "tool interface cannot be initialized"},
    {MPI_T_ERR_NOT_ACCESSIBLE, "MPI_T_ERR_NOT_ACCESSIBLE", "tool interface not accessible"},
    {MPI_T_ERR_NOT_INITIALIZED, "MPI_T_ERR_NOT_INITIALIZED", "tool interface not initialized"},
    {MPI_T_ERR_NOT_SUPPORTED, "MPI_T_ERR_NOT_SUPPORTED", "tool interface operation not supported"},
    {MPI_T_ERR_MEMORY, "MPI_T_ERR_MEMORY", "tool interface out of memory"},
    {MPI_T_ERR_INVALID, "MPI_T_ERR_INVALID", "invalid tool interface use"},
    {MPI_T_ERR_INVALID_INDEX, "MPI_T_ERR_INVALID_INDEX", "invalid tool interface index"},
    {MPI_T_ERR_INVALID_ITEM, "MPI_T_ERR_INVALID_ITEM", "invalid tool interface item"},
    {MPI_T_ERR_INVALID_SESSION, "MPI_T_ERR_INVALID_SESSION", "invalid tool interface session"},
    {MPI_T_ERR_INVALID_HANDLE, "MPI_T_ERR_INVALID_HANDLE", "invalid tool interface handle"},
    {MPI_T_ERR_INVALID_NAME, "MPI_T_ERR_INVALID_NAME", "invalid tool interface name"},
    {MPI_T_ERR_OUT_OF_HANDLES, "MPI_T_ERR_OUT_OF_HANDLES", "out of tool interface handles"},
    {MPI_T_ERR_OUT_OF_SESSIONS, "MPI_T_ERR_OUT_OF_SESSIONS", "out of tool interface sessions"},
    {MPI_T_ERR_CVAR_SET_NOT_NOW, "MPI_T_ERR_CVAR_SET_NOT_NOW", "control variable cannot be set now"},
    {MPI_T_ERR_CVAR_SET_NEVER, "MPI_T_ERR_CVAR_SET_NEVER", "control variable can never be set"},
    {MPI_T_ERR_PVAR_NO_WRITE, "MPI_T_ERR_PVAR_NO_WRITE", "performance variable cannot be written"},
    {MPI_T_ERR_PVAR_NO_STARTSTOP, "MPI_T_ERR_PVAR_NO_STARTSTOP", "performance variable cannot be started"},
    {MPI_T_ERR_PVAR_NO_ATOMIC, "MPI_T_ERR_PVAR_NO_ATOMIC", "performance variable cannot be read atomically"},
};

const ClassText *find_class(int cls) {
  for (const ClassText &c : kClasses)
    if (c.cls == cls) return &c;
  return nullptr;
}

// Detailed codes: the text of the most recent ones, in a ring.
constexpr int kDetailBase = 0x10000;
constexpr int kSlots = 4096;
struct Detail {
  int code = 0;
  std::string text;
};
std::vector<Detail> &details() {
  static auto *d = new std::vector<Detail>(kSlots);
  return *d;
}
int next_slot = 0;

// User-added classes and codes (MPI_Add_error_class/code), above MPI_ERR_LASTCODE and below the detailed
// codes: the live ones by value, and the removed ones, which the next additions take again (lowest
// first) so that add-and-remove cycles never run out of values below kDetailBase. MPI_LASTUSEDCODE is
// the largest value ever handed out, so at least every value in use.
struct UserCode {
  int cls;
  std::string text;
};
std::map<int, UserCode> &user_codes() {
  static auto *m = new std::map<int, UserCode>;
  return *m;
}
std::set<int> &removed_user_values() {
  static auto *s = new std::set<int>;
  return *s;
}
int next_user = MPI_ERR_LASTCODE + 1;

// A value for a new class or code, or -1 when all below kDetailBase are in use.
int take_user_value() {
  std::set<int> &removed = removed_user_values();
  if (!removed.empty()) {
    const int v = *removed.begin();
    removed.erase(removed.begin());
    return v;
  }
  return next_user < kDetailBase ? next_user++ : -1;
}

Errhandler make_predefined(Errhandler::Type t) {
  Errhandler e;
  e.magic = uint32_t(Kind::errhandler);
  e.predefined = true;
  e.type = t;
  return e;
}
Errhandler eh_fatal = make_predefined(Errhandler::Type::fatal);
Errhandler eh_abort = make_predefined(Errhandler::Type::abort);
Errhandler eh_return = make_predefined(Errhandler::Type::ret);
[[maybe_unused]] const bool registered = [] {
  predefined_slot<Errhandler>(uintptr_t(MPI_ERRORS_ARE_FATAL)) = &eh_fatal;
  predefined_slot<Errhandler>(uintptr_t(MPI_ERRORS_ABORT)) = &eh_abort;
  predefined_slot<Errhandler>(uintptr_t(MPI_ERRORS_RETURN)) = &eh_return;
  return true;
}();

// The number of most recent details a new one is compared with: a failure repeated (the same call failing
// again, or a handler's nested call failing the way its caller did) gets the code it had.
constexpr int kSameDetailWindow = 16;

int make_code(int cls, std::string text) {
  auto &d = details();
  for (int back = 1; back <= kSameDetailWindow; ++back) {
    const Detail &prev = d[size_t((next_slot - back + kSlots) % kSlots)];
    if (prev.code && prev.code % kDetailBase == cls && prev.text == text) return prev.code;
  }
  int slot = next_slot;
  next_slot = (next_slot + 1) % kSlots;
  int code = kDetailBase * (slot + 1) + cls;
  d[size_t(slot)] = Detail{code, std::move(text)};
  return code;
}

const char *comm_label(const Comm *comm) {
  return comm == comm_world() ? "MPI_COMM_WORLD" : comm == comm_self() ? "MPI_COMM_SELF" : "the communicator";
}

[[noreturn]] void die(const char *label, int code, bool abort_job) {
  std::string text = error_string(code);
  int world_rank = int(context().task());
  std::fprintf(stderr, "Pamir: rank %d: %s\n", world_rank, text.c_str());
  std::fprintf(stderr, "Pamir: rank %d: the error handler of %s is %s: ending the job\n", world_rank, label,
               abort_job ? "MPI_ERRORS_ABORT" : "MPI_ERRORS_ARE_FATAL");
  int cls = error_class(code);
  context().boot().abort(cls > 0 && cls < 256 ? cls : 1, text.c_str());
}

}  // namespace

Errhandler *errhandler_fatal() {
  return &eh_fatal;
}
Errhandler *errhandler_return() {
  return &eh_return;
}

const char *class_name(int cls) {
  const ClassText *c = find_class(cls);
  return c ? c->name : "user-defined error class";
}

int error_class(int code) {
  if (code >= kDetailBase) return code % kDetailBase;
  if (find_class(code)) return code;
  const auto it = user_codes().find(code);
  return it != user_codes().end() ? it->second.cls : -1;
}

std::string error_string(int code) {
  if (code >= kDetailBase) {
    int slot = code / kDetailBase - 1;
    auto &d = details();
    if (slot < kSlots && d[size_t(slot)].code == code) return d[size_t(slot)].text;
    return error_string(code % kDetailBase);
  }
  if (const ClassText *c = find_class(code)) return std::string(c->name) + ": " + c->text;
  if (const auto it = user_codes().find(code); it != user_codes().end()) return it->second.text;
  return "unknown error code " + std::to_string(code);
}

// User error handlers running on this thread's stack, nested: each raised an error its handler answered
// by calling a procedure that failed again.
constexpr int kMaxHandlerDepth = 64;
static thread_local int handler_depth = 0;

int raise_code(Comm *comm, int code) {
  if (!comm) comm = comm_self();
  Errhandler *eh = comm ? comm->errhandler : &eh_fatal;
  if (!eh) eh = &eh_fatal;
  switch (eh->type) {
    case Errhandler::Type::ret:
      return code;
    case Errhandler::Type::fatal:
      die(comm_label(comm), code, false);
    case Errhandler::Type::abort:
      die(comm_label(comm), code, true);
    case Errhandler::Type::session_fn:  // not settable on a communicator
    case Errhandler::Type::win_fn:
      die(comm_label(comm), code, false);
    case Errhandler::Type::comm_fn: {
      // A handler may call a procedure that fails and calls it again (the standard allows it); one
      // whose nested call fails every time would recurse until the stack overflows, so past
      // kMaxHandlerDepth handlers on this thread's stack the job ends, naming the loop.
      if (handler_depth >= kMaxHandlerDepth) [[unlikely]] {
        const int world_rank = int(context().task());
        std::fprintf(stderr, "Pamir: rank %d: %s\n", world_rank, error_string(code).c_str());
        std::fprintf(stderr,
                     "Pamir: rank %d: the error handler of %s raised errors %d handlers deep (it calls a "
                     "procedure that fails again, which calls it again): ending the job\n",
                     world_rank, comm_label(comm), kMaxHandlerDepth);
        const int cls = error_class(code);
        context().boot().abort(cls > 0 && cls < 256 ? cls : 1, "an error handler recursed");
      }
      MPI_Comm h = comm_handle(comm);
      int c = code;
      // The handler runs unlocked (it may call MPI, or wait for another thread's MPI call), so nothing
      // of the library is read here after it: meanwhile another thread may replace comm's handler and
      // free eh, or the handler may free comm.
      MPI_Comm_errhandler_function *fn = eh->comm_fn;
      Unlocked unlocked;
      ++handler_depth;
      fn(&h, &c);
      --handler_depth;
      return code;
    }
  }
  return code;
}

namespace {
// The handler of an object that is not a communicator (a window's, a session's): `own` is the type of
// the user handlers it takes, which `call` invokes with the object's handle.
template <typename Call>
int call_handler(const char *label, Errhandler *eh, Errhandler::Type own, int code, Call &&call) {
  if (!eh) eh = &eh_fatal;
  if (eh->type == Errhandler::Type::ret) return code;
  if (eh->type == Errhandler::Type::abort) die(label, code, true);
  if (eh->type != own) die(label, code, false);
  if (handler_depth >= kMaxHandlerDepth) [[unlikely]]
    die((std::string(label) + " (it recursed 64 handlers deep)").c_str(), code, false);
  int c = code;
  Unlocked unlocked;
  ++handler_depth;
  call(&c);
  --handler_depth;
  return code;
}
}  // namespace

int raise_win_code(Win *w, int code) {
  if (!w) return raise_code(comm_self(), code);
  MPI_Win h = win_handle(w);
  MPI_Win_errhandler_function *fn = w->errhandler ? w->errhandler->win_fn : nullptr;
  return call_handler("the window", w->errhandler, Errhandler::Type::win_fn, code,
                      [&](int *c) { fn(&h, c); });
}

int raise_session_code(MPI_Session session, Errhandler *eh, int code) {
  MPI_Session h = session;
  MPI_Session_errhandler_function *fn = eh ? eh->session_fn : nullptr;
  return call_handler("the session", eh, Errhandler::Type::session_fn, code, [&](int *c) { fn(&h, c); });
}

namespace {
// A detailed code whose text is "<fn>: <class>: <reason>".
int detailed_code(const char *fn, int cls, const char *fmt, va_list ap) {
  char reason[400];
  std::vsnprintf(reason, sizeof reason, fmt, ap);
  return make_code(cls, std::string(fn) + ": " + class_name(cls) + ": " + reason);
}
}  // namespace

int raise_session(MPI_Session session, Errhandler *eh, const char *fn, int cls, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int code = detailed_code(fn, cls, fmt, ap);
  va_end(ap);
  return raise_session_code(session, eh, code);
}

int raise(Comm *comm, const char *fn, int cls, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int code = detailed_code(fn, cls, fmt, ap);
  va_end(ap);
  return raise_code(comm, code);
}

int raise(std::nullptr_t, const char *fn, int cls, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int code = detailed_code(fn, cls, fmt, ap);
  va_end(ap);
  return raise_code(static_cast<Comm *>(nullptr), code);
}

int raise(Win *w, const char *fn, int cls, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int code = detailed_code(fn, cls, fmt, ap);
  va_end(ap);
  return raise_win_code(w, code);
}

void not_initialized(const char *fn) {
  const State &s = state();
  std::fprintf(stderr, "Pamir: %s: MPI_ERR_OTHER: called %s\n", fn,
               s.finalized ? "after MPI_Finalize" : "before MPI_Init");
  std::fflush(stderr);
  _exit(1);
}

int bad_comm(const char *fn, MPI_Comm h) {
  if (h == MPI_COMM_NULL) return raise(nullptr, fn, MPI_ERR_COMM, "MPI_COMM_NULL is not a communicator");
  if (is_freed<Comm>(h)) return raise(nullptr, fn, MPI_ERR_COMM, "the communicator was freed");
  return raise(nullptr, fn, MPI_ERR_COMM, "invalid communicator handle %p", static_cast<void *>(h));
}

int bad_type(Comm *c, const char *fn, MPI_Datatype h) {
  if (h == MPI_DATATYPE_NULL) return raise(c, fn, MPI_ERR_TYPE, "MPI_DATATYPE_NULL is not a datatype");
  Datatype *t = lookup<Datatype>(h);
  if (t && !t->committed) return raise(c, fn, MPI_ERR_TYPE, "the datatype is not committed");
  if (is_freed<Datatype>(h)) return raise(c, fn, MPI_ERR_TYPE, "the datatype was freed");
  return raise(c, fn, MPI_ERR_TYPE, "invalid datatype handle %p", static_cast<void *>(h));
}

int add_error_class() {
  const int cls = take_user_value();
  if (cls >= 0) user_codes()[cls] = UserCode{cls, ""};
  return cls;
}

int add_error_code(int cls) {
  const int code = take_user_value();
  if (code >= 0) user_codes()[code] = UserCode{cls, ""};
  return code;
}

int add_error_string(int code, const char *text) {
  const auto it = user_codes().find(code);
  if (it == user_codes().end()) return MPI_ERR_ARG;
  it->second.text = text;
  return MPI_SUCCESS;
}

bool is_user_value(int code) {
  return user_codes().count(code) != 0;
}

bool user_class_has_codes(int cls) {
  for (const auto &[code, u] : user_codes())
    if (code != cls && u.cls == cls) return true;
  return false;
}

void remove_user_value(int code) {
  if (user_codes().erase(code)) removed_user_values().insert(code);
}

int last_used_code() {
  return next_user - 1;
}

}  // namespace pamir::mpi

using namespace pamir::mpi;

extern "C" int pamir_unsupported(const char *name, MPI_Comm comm) {
  // Before MPI_Init there is no error handler to call: return the class, as for MPI_T and sessions.
  if (!usable()) return MPI_ERR_UNSUPPORTED_OPERATION;
  pamir::CallGuard guard_;
  Comm *c = comm == MPI_COMM_NULL ? nullptr : lookup<Comm>(comm);
  return raise(c, name, MPI_ERR_UNSUPPORTED_OPERATION,
               "not implemented by Pamir yet (pamir_info lists them)");
}
