// The standard ABI's own procedures (MPI 5.0 chapter 21): MPI_Abi_get_version/get_info, the Fortran
// registration calls, and MPI_<Handle>_toint/_fromint for every handle kind.
//
// Integers of handles: a predefined handle's integer is its ABI value (below 1024: MPI_COMM_WORLD is
// 257), so toint and fromint of predefined handles are casts. A user object gets an integer from a
// per-kind table the first time it is asked for one, counting from 1024, cached in Object::int_handle;
// fromint checks that the object is still alive and still owns that integer (a freed object, or one
// reused from the pool's graveyard, does not), so a stale integer gives the null handle instead of a
// dead object. Requests (pamir::Request, no Object header) use a side map, checked by their magic.
//
// All of these may be called at any time (before MPI_Init and after MPI_Finalize).
#include <cstring>
#include <map>
#include <unordered_map>

#include "mpi/check.h"
#include "mpi/info.h"
#include "mpi/request.h"
#include "pamir_alias.h"

namespace pamir::mpi {

namespace {

struct IntTable {
  std::unordered_map<int, Object *> by_int;
  int next = int(kPredefinedLimit);
};

IntTable &int_table(Kind kind) {
  static auto *tables = new std::map<Kind, IntTable>;
  return (*tables)[kind];
}

// Requests: both directions, since pamir::Request has no int_handle field.
struct RequestInts {
  std::unordered_map<int, pamir::Request *> by_int;
  std::unordered_map<pamir::Request *, int> by_request;
  int next = int(kPredefinedLimit);
};
RequestInts &request_ints() {
  static auto *r = new RequestInts;
  return *r;
}

// The next unused integer of a table (ints are handed out in order; after 2^31 of them, the gaps).
template <typename Map>
int next_int(int &next, const Map &used) {
  while (next == INT32_MAX || used.count(next)) next = next == INT32_MAX ? int(kPredefinedLimit) : next + 1;
  return next++;
}

// Fortran registration (MPI 5.0 §21.4.1): the first MPI_Abi_set_fortran_info wins.
Info *g_fortran_info = nullptr;
struct Booleans {
  std::vector<unsigned char> t, f;
};
std::map<int, Booleans> &fortran_booleans() {
  static auto *m = new std::map<int, Booleans>;
  return *m;
}

// A guard that takes the library lock under MPI_THREAD_MULTIPLE.
#define ABI_ENTER(name)                    \
  static constexpr const char *fn_ = name; \
  ::pamir::CallGuard guard_

template <typename H>
inline uintptr_t value_of(H h) {
  return reinterpret_cast<uintptr_t>(h);
}

// toint of a handle of a kind with Object-derived objects.
template <typename H>
int to_int(H h, Kind kind, H null_handle) {
  ::pamir::CallGuard guard_;
  const uintptr_t v = value_of(h);
  if (v < kPredefinedLimit) return int(v);
  if (!handle_live(v, uint32_t(kind))) return int(value_of(null_handle));
  Object *o = object_at(v);
  return object_to_int(kind, o, &o->int_handle);
}

template <typename H>
H from_int(int v, Kind kind, H null_handle) {
  ::pamir::CallGuard guard_;
  if (v < 0) return null_handle;
  if (uintptr_t(v) < kPredefinedLimit) return reinterpret_cast<H>(uintptr_t(v));
  void *o = object_from_int(kind, v);
  return o ? reinterpret_cast<H>(handle_value(static_cast<Object *>(o))) : null_handle;
}

// Kinds with no user objects yet (files): only the predefined handles have
// integers.
template <typename H>
int predefined_to_int(H h, H null_handle) {
  const uintptr_t v = value_of(h);
  return v < kPredefinedLimit ? int(v) : int(value_of(null_handle));
}
template <typename H>
H predefined_from_int(int v, H null_handle) {
  return v >= 0 && uintptr_t(v) < kPredefinedLimit ? reinterpret_cast<H>(uintptr_t(v)) : null_handle;
}

bool power_of_two(int n) {
  return n > 0 && (n & (n - 1)) == 0;
}

}  // namespace

int object_to_int(Kind kind, void *object, int32_t *cache) {
  if (*cache) return *cache;
  IntTable &t = int_table(kind);
  int v = next_int(t.next, t.by_int);
  t.by_int[v] = static_cast<Object *>(object);
  *cache = v;
  return v;
}

void *object_from_int(Kind kind, int value) {
  IntTable &t = int_table(kind);
  auto it = t.by_int.find(value);
  if (it == t.by_int.end()) return nullptr;
  Object *o = it->second;
  if (o->magic != uint32_t(kind) || o->int_handle != value) {
    t.by_int.erase(it);  // freed, or reused for another object since
    return nullptr;
  }
  return o;
}

void object_forget_int(Kind kind, int value) {
  if (value) int_table(kind).by_int.erase(value);
}

}  // namespace pamir::mpi

using namespace pamir::mpi;

int PMPI_Abi_get_version(int *abi_major, int *abi_minor) {
  ABI_ENTER("MPI_Abi_get_version");
  if (!abi_major || !abi_minor) return raise_anytime(fn_, MPI_ERR_ARG, "abi_major or abi_minor is NULL");
  *abi_major = MPI_ABI_VERSION;
  *abi_minor = MPI_ABI_SUBVERSION;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Abi_get_version);

int PMPI_Abi_get_info(MPI_Info *info) {
  ABI_ENTER("MPI_Abi_get_info");
  if (!info) return raise_anytime(fn_, MPI_ERR_ARG, "info is NULL");
  *info = info_handle(info_make({{"mpi_aint_size", std::to_string(sizeof(MPI_Aint))},
                                 {"mpi_count_size", std::to_string(sizeof(MPI_Count))},
                                 {"mpi_offset_size", std::to_string(sizeof(MPI_Offset))}}));
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Abi_get_info);

int PMPI_Abi_get_fortran_info(MPI_Info *info) {
  ABI_ENTER("MPI_Abi_get_fortran_info");
  if (!info) return raise_anytime(fn_, MPI_ERR_ARG, "info is NULL");
  // Pamir has no Fortran bindings of its own: it knows what the application registered, or nothing.
  *info = g_fortran_info ? info_handle(info_make(g_fortran_info->items)) : MPI_INFO_NULL;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Abi_get_fortran_info);

int PMPI_Abi_set_fortran_info(MPI_Info info) {
  ABI_ENTER("MPI_Abi_set_fortran_info");
  Info *i = info_of(info);
  if (!i) return raise_anytime(fn_, MPI_ERR_INFO, "info is not a valid info object");
  if (g_fortran_info)
    return raise_anytime(fn_, MPI_ERR_ABI,
                         "the Fortran ABI information was set already (only the first call counts)");
  g_fortran_info = info_make(i->items);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Abi_set_fortran_info);

int PMPI_Abi_set_fortran_booleans(int logical_size, void *logical_true, void *logical_false) {
  ABI_ENTER("MPI_Abi_set_fortran_booleans");
  if (!power_of_two(logical_size))
    return raise_anytime(fn_, MPI_ERR_ARG, "logical_size %d is not a power of two", logical_size);
  if (!logical_true || !logical_false)
    return raise_anytime(fn_, MPI_ERR_ARG, "logical_true or logical_false is NULL");
  Booleans b;
  b.t.assign(static_cast<unsigned char *>(logical_true),
             static_cast<unsigned char *>(logical_true) + logical_size);
  b.f.assign(static_cast<unsigned char *>(logical_false),
             static_cast<unsigned char *>(logical_false) + logical_size);
  auto &m = fortran_booleans();
  auto it = m.find(logical_size);
  if (it != m.end()) {
    if (it->second.t == b.t && it->second.f == b.f) return MPI_SUCCESS;
    return raise_anytime(fn_, MPI_ERR_ABI, "the booleans of LOGICAL size %d were set already to other values",
                         logical_size);
  }
  m.emplace(logical_size, std::move(b));
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Abi_set_fortran_booleans);

int PMPI_Abi_get_fortran_booleans(int logical_size, void *logical_true, void *logical_false, int *is_set) {
  ABI_ENTER("MPI_Abi_get_fortran_booleans");
  if (!power_of_two(logical_size))
    return raise_anytime(fn_, MPI_ERR_ARG, "logical_size %d is not a power of two", logical_size);
  if (!logical_true || !logical_false || !is_set)
    return raise_anytime(fn_, MPI_ERR_ARG, "logical_true, logical_false or is_set is NULL");
  auto &m = fortran_booleans();
  auto it = m.find(logical_size);
  *is_set = it != m.end();
  if (it != m.end()) {
    std::memcpy(logical_true, it->second.t.data(), size_t(logical_size));
    std::memcpy(logical_false, it->second.f.data(), size_t(logical_size));
  }
  return MPI_SUCCESS;
}
PAMIR_ALIAS(Abi_get_fortran_booleans);

// --- MPI_<Handle>_toint / _fromint ----------------------------------------------------------------

int PMPI_Comm_toint(MPI_Comm comm) {
  return to_int(comm, Kind::comm, MPI_COMM_NULL);
}
PAMIR_ALIAS(Comm_toint);
MPI_Comm PMPI_Comm_fromint(int comm) {
  return from_int(comm, Kind::comm, MPI_COMM_NULL);
}
PAMIR_ALIAS(Comm_fromint);

int PMPI_Type_toint(MPI_Datatype datatype) {
  return to_int(datatype, Kind::datatype, MPI_DATATYPE_NULL);
}
PAMIR_ALIAS(Type_toint);
MPI_Datatype PMPI_Type_fromint(int datatype) {
  return from_int(datatype, Kind::datatype, MPI_DATATYPE_NULL);
}
PAMIR_ALIAS(Type_fromint);

int PMPI_Errhandler_toint(MPI_Errhandler errhandler) {
  return to_int(errhandler, Kind::errhandler, MPI_ERRHANDLER_NULL);
}
PAMIR_ALIAS(Errhandler_toint);
MPI_Errhandler PMPI_Errhandler_fromint(int errhandler) {
  return from_int(errhandler, Kind::errhandler, MPI_ERRHANDLER_NULL);
}
PAMIR_ALIAS(Errhandler_fromint);

int PMPI_Group_toint(MPI_Group group) {
  return to_int(group, Kind::group, MPI_GROUP_NULL);
}
PAMIR_ALIAS(Group_toint);
MPI_Group PMPI_Group_fromint(int group) {
  return from_int(group, Kind::group, MPI_GROUP_NULL);
}
PAMIR_ALIAS(Group_fromint);

int PMPI_Info_toint(MPI_Info info) {
  return to_int(info, Kind::info, MPI_INFO_NULL);
}
PAMIR_ALIAS(Info_toint);
MPI_Info PMPI_Info_fromint(int info) {
  return from_int(info, Kind::info, MPI_INFO_NULL);
}
PAMIR_ALIAS(Info_fromint);

int PMPI_Message_toint(MPI_Message message) {
  return to_int(message, Kind::message, MPI_MESSAGE_NULL);
}
PAMIR_ALIAS(Message_toint);
MPI_Message PMPI_Message_fromint(int message) {
  return from_int(message, Kind::message, MPI_MESSAGE_NULL);
}
PAMIR_ALIAS(Message_fromint);

int PMPI_Op_toint(MPI_Op op) {
  return to_int(op, Kind::op, MPI_OP_NULL);
}
PAMIR_ALIAS(Op_toint);
MPI_Op PMPI_Op_fromint(int op) {
  return from_int(op, Kind::op, MPI_OP_NULL);
}
PAMIR_ALIAS(Op_fromint);

int PMPI_Request_toint(MPI_Request request) {
  ::pamir::CallGuard guard_;
  const uintptr_t v = value_of(request);
  if (v < kPredefinedLimit) return int(v);
  pamir::Request *r = request_of(request);
  if (!r) return int(value_of(MPI_REQUEST_NULL));
  RequestInts &t = request_ints();
  auto it = t.by_request.find(r);
  if (it != t.by_request.end()) return it->second;
  int i = next_int(t.next, t.by_int);
  t.by_int[i] = r;
  t.by_request[r] = i;
  return i;
}
PAMIR_ALIAS(Request_toint);

MPI_Request PMPI_Request_fromint(int request) {
  ::pamir::CallGuard guard_;
  if (request < 0) return MPI_REQUEST_NULL;
  if (uintptr_t(request) < kPredefinedLimit) return reinterpret_cast<MPI_Request>(uintptr_t(request));
  RequestInts &t = request_ints();
  auto it = t.by_int.find(request);
  // Request slots are never returned to the system, so reading the magic of a stale one is safe.
  if (it == t.by_int.end() || it->second->magic != pamir::kRequestMagic) return MPI_REQUEST_NULL;
  return reinterpret_cast<MPI_Request>(it->second);
}
PAMIR_ALIAS(Request_fromint);

int PMPI_File_toint(MPI_File file) {
  return predefined_to_int(file, MPI_FILE_NULL);
}
PAMIR_ALIAS(File_toint);
MPI_File PMPI_File_fromint(int file) {
  return predefined_from_int(file, MPI_FILE_NULL);
}
PAMIR_ALIAS(File_fromint);

int PMPI_Session_toint(MPI_Session session) {
  return to_int(session, Kind::session, MPI_SESSION_NULL);
}
PAMIR_ALIAS(Session_toint);
MPI_Session PMPI_Session_fromint(int session) {
  return from_int(session, Kind::session, MPI_SESSION_NULL);
}
PAMIR_ALIAS(Session_fromint);

int PMPI_Win_toint(MPI_Win win) {
  return to_int(win, Kind::win, MPI_WIN_NULL);
}
PAMIR_ALIAS(Win_toint);
MPI_Win PMPI_Win_fromint(int win) {
  return from_int(win, Kind::win, MPI_WIN_NULL);
}
PAMIR_ALIAS(Win_fromint);
