// Errors: every MPI function checks its arguments and reports through the error handler of the object
// it was called on. A returned code keeps the detailed reason: MPI_Error_string of it names the
// function and the numbers. Codes of predefined classes are the classes themselves (0..1018); a
// detailed code is 0x10000 * (slot + 1) + class, its text kept in a ring of recent messages.
#pragma once

#include <mpi.h>

#include <string>

#include "mpi/object.h"

namespace pamir::mpi {

struct Comm;

struct Errhandler : Object {
  static constexpr Kind kKind = Kind::errhandler;
  enum class Type { fatal, abort, ret, comm_fn, session_fn, win_fn } type = Type::fatal;
  MPI_Comm_errhandler_function *comm_fn = nullptr;
  MPI_Win_errhandler_function *win_fn = nullptr;
  MPI_Session_errhandler_function *session_fn = nullptr;
};

Errhandler *errhandler_fatal();
Errhandler *errhandler_return();
// The handle MPI_Comm_get_errhandler and its kin hand out for e: a predefined one's ABI value, or a new
// reference to a user handler (freed with MPI_Errhandler_free).
MPI_Errhandler errhandler_give(Errhandler *e);
// Puts e in `slot` (a communicator's or a session's handler), taking a reference to it and dropping the
// old one's.
inline void errhandler_replace(Errhandler *&slot, Errhandler *e) {
  if (!e->predefined) ++e->refs;
  Errhandler *old = slot;
  slot = e;
  release(old);
}

// Makes a detailed code of class `cls` with the text "<fn>: <reason>" and raises it on `comm`'s error
// handler (MPI_COMM_SELF's when comm is null, as the standard says for errors not tied to an object).
// Returns the code to hand back to the user (when the handler returns). A user handler runs with the
// library lock released, so what the caller read before raising may have changed when it returns.
[[gnu::cold]] [[gnu::format(printf, 4, 5)]] int raise(Comm *comm, const char *fn, int cls, const char *fmt,
                                                      ...);
// Raises an existing code (for example the class of a failed request) on comm's handler.
// Raised with no object: on MPI_COMM_SELF (the same as a null Comm*; Win* overloads it, mpi/win.h).
[[gnu::cold]] [[gnu::format(printf, 4, 5)]] int raise(std::nullptr_t, const char *fn, int cls,
                                                      const char *fmt, ...);
[[gnu::cold]] int raise_code(Comm *comm, int code);
// The same on a session's handler `eh` (mpi/session.cc): a detailed code of class `cls`, or an existing
// code.
[[gnu::cold]] [[gnu::format(printf, 5, 6)]] int raise_session(MPI_Session session, Errhandler *eh,
                                                              const char *fn, int cls, const char *fmt, ...);
[[gnu::cold]] int raise_session_code(MPI_Session session, Errhandler *eh, int code);

// The "called before MPI_Init / after MPI_Finalize" error: printed, then the process aborts, since no
// error handler exists yet (the standard's rule for these calls).
[[gnu::cold]] [[noreturn]] void not_initialized(const char *fn);

// Error class of a code; -1 when the code is not valid.
int error_class(int code);
// Text of a code ("MPI_ERR_TRUNCATE: message truncated" or the detailed reason).
std::string error_string(int code);
const char *class_name(int cls);
// For MPI_Add_error_class/code/string and MPI_Remove_error_*: a new class or code (-1 when every value
// below the detailed codes is in use), whether a value is a live user class or code, whether a user
// class still has codes, and removal (the value is handed out again later).
int add_error_class();
int add_error_code(int cls);
int add_error_string(int code, const char *text);
bool is_user_value(int code);
bool user_class_has_codes(int cls);
void remove_user_value(int code);
int last_used_code();

}  // namespace pamir::mpi

// Called by the generated binding of every procedure Pamir does not implement yet.
extern "C" int pamir_unsupported(const char *name, MPI_Comm comm);
