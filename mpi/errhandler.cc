// Error handlers and error classes: the bindings over mpi/errors.{h,cc} (MPI 4.1 §9.3-9.5).
//
// An Errhandler is reference counted: the user's handle is one reference, every communicator using it
// another, and MPI_Comm_get_errhandler hands out a new one; MPI_Errhandler_free drops the user's, and
// the object goes back to the pool with the last. Predefined handlers are never freed (freeing the
// handle of one, as returned by MPI_Comm_get_errhandler, only sets it to MPI_ERRHANDLER_NULL).
//
// MPI_Error_class, MPI_Error_string, the MPI_Add/Remove_error_* calls and MPI_Errhandler_free work at
// any time (before MPI_Init too). User error classes and codes, and their removal, are errors.cc's.
#include <cstring>

#include "mpi/check.h"
#include "mpi/info.h"
#include "pamir_alias.h"

namespace pamir::mpi {

namespace {

bool is_user_class(int cls) {
  return is_user_value(cls) && error_class(cls) == cls;
}
bool is_user_code(int code) {
  return is_user_value(code) && error_class(code) != code;
}

// Evaluates to the Errhandler*, or returns MPI_ERR_ERRHANDLER (raised on `comm`).
#define PAMIR_ERRHANDLER(comm, h)                                                                      \
  ({                                                                                                   \
    Errhandler *e_ = lookup<Errhandler>(h);                                                            \
    if (__builtin_expect(!e_, 0)) {                                                                    \
      if ((h) == MPI_ERRHANDLER_NULL)                                                                  \
        return raise(comm, fn_, MPI_ERR_ERRHANDLER, "MPI_ERRHANDLER_NULL is not an error handler");    \
      if (is_freed<Errhandler>(h))                                                                     \
        return raise(comm, fn_, MPI_ERR_ERRHANDLER, "the error handler was freed");                    \
      return raise(comm, fn_, MPI_ERR_ERRHANDLER, "invalid error handler %p", static_cast<void *>(h)); \
    }                                                                                                  \
    e_;                                                                                                \
  })

}  // namespace

}  // namespace pamir::mpi

using namespace pamir::mpi;

namespace pamir::mpi {
MPI_Errhandler errhandler_give(Errhandler *e) {
  // The predefined handlers' handles are their ABI values.
  if (e->predefined)
    return e->type == Errhandler::Type::ret     ? MPI_ERRORS_RETURN
           : e->type == Errhandler::Type::abort ? MPI_ERRORS_ABORT
                                                : MPI_ERRORS_ARE_FATAL;
  ++e->refs;  // a new reference, which the caller frees with MPI_Errhandler_free
  return handle_of<MPI_Errhandler>(e);
}
}  // namespace pamir::mpi

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *comm_errhandler_fn,
                                MPI_Errhandler *errhandler) {
  PAMIR_ENTER("MPI_Comm_create_errhandler");
  PAMIR_CHECK(nullptr, comm_errhandler_fn, MPI_ERR_ARG, "the handler function is NULL");
  PAMIR_CHECK(nullptr, errhandler, MPI_ERR_ARG, "errhandler is NULL");
  Errhandler *e = pool<Errhandler>().make();
  e->type = Errhandler::Type::comm_fn;
  e->comm_fn = comm_errhandler_fn;
  *errhandler = handle_of<MPI_Errhandler>(e);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Comm_create_errhandler);

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  PAMIR_ENTER("MPI_Comm_set_errhandler");
  Comm *c = PAMIR_COMM(comm);
  Errhandler *e = PAMIR_ERRHANDLER(c, errhandler);
  PAMIR_CHECK(c, e->type != Errhandler::Type::session_fn, MPI_ERR_ARG,
              "the error handler was made for sessions (MPI_Session_create_errhandler)");
  PAMIR_CHECK(c, e->type != Errhandler::Type::win_fn, MPI_ERR_ARG,
              "the error handler was made for windows (MPI_Win_create_errhandler)");
  errhandler_replace(c->errhandler, e);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Comm_set_errhandler);

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler) {
  PAMIR_ENTER("MPI_Comm_get_errhandler");
  Comm *c = PAMIR_COMM(comm);
  PAMIR_CHECK(c, errhandler, MPI_ERR_ARG, "errhandler is NULL");
  *errhandler = errhandler_give(c->errhandler ? c->errhandler : errhandler_fatal());
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Comm_get_errhandler);

int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode) {
  PAMIR_ENTER("MPI_Comm_call_errhandler");
  Comm *c = PAMIR_COMM(comm);
  raise_code(c, errorcode);
  // MPI 4.1 §9.5: returns MPI_SUCCESS when the handler was called and returned.
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Comm_call_errhandler);

// At any time, as MPI_Session_create_errhandler is: a handler made for MPI_Session_init may be freed
// after MPI_Session_finalize.
int PMPI_Errhandler_free(MPI_Errhandler *errhandler) {
  PAMIR_ENTER_ANYTIME("MPI_Errhandler_free");
  if (!errhandler) return raise_anytime(fn_, MPI_ERR_ARG, "errhandler is NULL");
  Errhandler *e = lookup<Errhandler>(*errhandler);
  if (!e)
    return raise_anytime(fn_, MPI_ERR_ERRHANDLER, "%s",
                         *errhandler == MPI_ERRHANDLER_NULL  ? "MPI_ERRHANDLER_NULL is not an error handler"
                         : is_freed<Errhandler>(*errhandler) ? "the error handler was freed"
                                                             : "not a valid error handler");
  if (!e->predefined) {
    if (e->int_handle && e->refs == 1) object_forget_int(Kind::errhandler, e->int_handle);
    release(e);
  }
  *errhandler = MPI_ERRHANDLER_NULL;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Errhandler_free);

int PMPI_Error_class(int errorcode, int *errorclass) {
  PAMIR_ENTER_ANYTIME("MPI_Error_class");
  if (!errorclass) return raise_anytime(fn_, MPI_ERR_ARG, "errorclass is NULL");
  int cls = error_class(errorcode);
  if (cls < 0) return raise_anytime(fn_, MPI_ERR_ARG, "%d is not a valid error code", errorcode);
  *errorclass = cls;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Error_class);

int PMPI_Error_string(int errorcode, char *string, int *resultlen) {
  PAMIR_ENTER_ANYTIME("MPI_Error_string");
  if (!string || !resultlen) return raise_anytime(fn_, MPI_ERR_ARG, "string or resultlen is NULL");
  if (error_class(errorcode) < 0)
    return raise_anytime(fn_, MPI_ERR_ARG, "%d is not a valid error code", errorcode);
  std::string text = error_string(errorcode);
  size_t n = std::min(text.size(), size_t(MPI_MAX_ERROR_STRING - 1));
  std::memcpy(string, text.data(), n);
  string[n] = '\0';
  *resultlen = int(n);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Error_string);

int PMPI_Add_error_class(int *errorclass) {
  PAMIR_ENTER_ANYTIME("MPI_Add_error_class");
  if (!errorclass) return raise_anytime(fn_, MPI_ERR_ARG, "errorclass is NULL");
  const int cls = add_error_class();
  if (cls < 0)
    return raise_anytime(fn_, MPI_ERR_OTHER, "every error class and code value up to %d is in use",
                         last_used_code());
  *errorclass = cls;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Add_error_class);

int PMPI_Add_error_code(int errorclass, int *errorcode) {
  PAMIR_ENTER_ANYTIME("MPI_Add_error_code");
  if (!errorcode) return raise_anytime(fn_, MPI_ERR_ARG, "errorcode is NULL");
  // A predefined class or a live user class (not a code, not a detailed code).
  bool predefined_class =
      errorclass >= 0 && errorclass <= MPI_ERR_LASTCODE && error_class(errorclass) == errorclass;
  if (!predefined_class && !is_user_class(errorclass))
    return raise_anytime(fn_, MPI_ERR_ARG, "%d is not an error class", errorclass);
  const int code = add_error_code(errorclass);
  if (code < 0)
    return raise_anytime(fn_, MPI_ERR_OTHER, "every error class and code value up to %d is in use",
                         last_used_code());
  *errorcode = code;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Add_error_code);

int PMPI_Add_error_string(int errorcode, const char *string) {
  PAMIR_ENTER_ANYTIME("MPI_Add_error_string");
  if (!string) return raise_anytime(fn_, MPI_ERR_ARG, "string is NULL");
  if (strnlen(string, MPI_MAX_ERROR_STRING) >= MPI_MAX_ERROR_STRING)
    return raise_anytime(fn_, MPI_ERR_ARG, "the string is longer than MPI_MAX_ERROR_STRING-1 = %d",
                         MPI_MAX_ERROR_STRING - 1);
  if (!is_user_value(errorcode))
    return raise_anytime(fn_, MPI_ERR_ARG,
                         "%d is not an error class or code added with MPI_Add_error_class/code", errorcode);
  add_error_string(errorcode, string);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Add_error_string);

int PMPI_Remove_error_class(int errorclass) {
  PAMIR_ENTER_ANYTIME("MPI_Remove_error_class");
  if (!is_user_class(errorclass))
    return raise_anytime(fn_, MPI_ERR_ARG, "%d is not an error class added with MPI_Add_error_class",
                         errorclass);
  if (user_class_has_codes(errorclass))
    return raise_anytime(fn_, MPI_ERR_ARG, "error class %d still has error codes (remove the codes first)",
                         errorclass);
  remove_user_value(errorclass);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Remove_error_class);

int PMPI_Remove_error_code(int errorcode) {
  PAMIR_ENTER_ANYTIME("MPI_Remove_error_code");
  if (!is_user_code(errorcode))
    return raise_anytime(fn_, MPI_ERR_ARG, "%d is not an error code added with MPI_Add_error_code",
                         errorcode);
  remove_user_value(errorcode);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Remove_error_code);

int PMPI_Remove_error_string(int errorcode) {
  PAMIR_ENTER_ANYTIME("MPI_Remove_error_string");
  if (!is_user_value(errorcode))
    return raise_anytime(fn_, MPI_ERR_ARG,
                         "%d is not an error class or code added with MPI_Add_error_class/code", errorcode);
  add_error_string(errorcode, "");
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Remove_error_string);
