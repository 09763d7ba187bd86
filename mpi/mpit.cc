// The tools information interface, MPI_T (MPI 5.0 chapter 15), over the registries the library already
// has, so that it, the environment and pamir_info can never disagree:
//   - control variables: every PAMIR_* setting (pami/config.h, PAMIR_COLL_* included), by name. Those
//     every rank must set alike (protocol tables, collective choices) are MPI_T_SCOPE_ALL_EQ, the others
//     MPI_T_SCOPE_LOCAL. A write before the library starts sets the environment variable the library
//     reads when it starts; once it runs, every write is MPI_T_ERR_CVAR_SET_NOT_NOW, since a write on one
//     rank of an ALL_EQ table would leave the ranks choosing differently, and the rest were read at start.
//     A write before MPI_Init on some ranks only is caught at MPI_Init (Context::check_settings_agree).
//   - performance variables: every PAMIR_STATS counter (pami/stats.h counters()), always counting,
//     read-only (no reset: other sessions and PAMIR_STATS read the same counter), continuous.
//   - categories following the layers: "pami", "devices", "collectives".
//   - events: none yet (MPI_T_event_get_num is 0; the event calls find no index).
// MPI_T works before MPI_Init, between, and after MPI_Finalize; MPI_T_init_thread and MPI_T_finalize
// nest. Errors are returned, never raised on a handler, as the chapter says.
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "mpi/check.h"
#include "pami/config.h"
#include "pami/stats.h"
#include "pamir_alias.h"

namespace pamir::mpi {

namespace {

int g_mpit_refs = 0;
constexpr uint32_t kCvarMagic = 0x43564152, kSessionMagic = 0x50534553, kPvarMagic = 0x50564152;
constexpr int kTextCount = 1024;  // chars of a text control variable's buffer

const char *const kCategories[] = {"pami", "devices", "collectives"};
const char *const kCategoryAbout[] = {
    "the messaging layer: protocols, progress, matching, rendezvous, record and replay",
    "the shared-memory and libfabric devices", "the collectives' algorithm selection and their counters"};
constexpr int kNumCategories = 3;

int category_of_setting(const config::Setting *s) {
  const std::string n = s->name;
  if (n.rfind("PAMIR_COLL_", 0) == 0) return 2;
  if (n.rfind("PAMIR_SHM_", 0) == 0 || n.rfind("PAMIR_OFI_", 0) == 0 || n == "PAMIR_DEVICE") return 1;
  return 0;
}
int category_of_counter(const Counter &c) {
  for (int k = 0; k < kNumCategories; ++k)
    if (std::strcmp(c.category, kCategories[k]) == 0) return k;
  return 0;
}

bool all_eq(const config::Setting *s) {
  return config::must_agree(*s);
}

// An enumeration: the choices of a Choice setting.
struct Enum {
  std::string name;
  std::vector<std::string> items;
};
std::vector<Enum *> &enums() {
  static auto *e = new std::vector<Enum *>;
  return *e;
}
Enum *enum_of(const config::Setting *s) {
  for (Enum *e : enums())
    if (e->name == s->name) return e;
  auto *e = new Enum{s->name, {}};
  std::string all = s->choices ? s->choices : "";
  for (size_t at = 0; at <= all.size();) {
    size_t comma = all.find(',', at);
    if (comma == std::string::npos) comma = all.size();
    if (comma > at) e->items.push_back(all.substr(at, comma - at));
    at = comma + 1;
  }
  enums().push_back(e);
  return e;
}
bool enum_live(MPI_T_enum h) {
  for (Enum *e : enums())
    if (reinterpret_cast<MPI_T_enum>(e) == h) return true;
  return false;
}

MPI_Datatype type_of(const config::Setting *s) {
  switch (s->type) {
    case config::Type::Bool:
    case config::Type::Choice:
      return MPI_INT;
    case config::Type::Size:
    case config::Type::Count:
      return MPI_UNSIGNED_LONG_LONG;
    default:
      return MPI_CHAR;
  }
}

// name into buf of *len (the chapter's convention): at most *len - 1 characters and a null when buf is
// given and *len > 0; *len becomes the full length with the null.
void give_string(const char *text, char *buf, int *len) {
  if (!len) return;
  const int full = int(std::strlen(text)) + 1;
  if (buf && *len > 0) {
    const int n = std::min(*len - 1, full - 1);
    std::memcpy(buf, text, size_t(n));
    buf[n] = '\0';
  }
  *len = full;
}

struct CvarHandle {
  uint32_t magic = kCvarMagic;
  int index;
};
struct PvarHandle;
struct PvarSession {
  uint32_t magic = kSessionMagic;
  std::vector<PvarHandle *> handles;
};
struct PvarHandle {
  uint32_t magic = kPvarMagic;
  PvarSession *session;
  int index;
};

#define MPIT_ENTER()         \
  ::pamir::CallGuard guard_; \
  if (g_mpit_refs == 0) return MPI_T_ERR_NOT_INITIALIZED

const config::Setting *cvar(int i) {
  const auto &all = config::all();
  return i >= 0 && size_t(i) < all.size() ? all[size_t(i)] : nullptr;
}
const Counter *pvar(int i) {
  const auto &all = counters();
  return i >= 0 && size_t(i) < all.size() ? &all[size_t(i)] : nullptr;
}
int pvar_class(const Counter &c) {
  switch (c.kind) {
    case CounterKind::highwatermark:
      return MPI_T_PVAR_CLASS_HIGHWATERMARK;
    case CounterKind::size:
      return MPI_T_PVAR_CLASS_SIZE;
    default:
      return MPI_T_PVAR_CLASS_COUNTER;
  }
}

PvarSession *session_of(MPI_T_pvar_session h) {
  auto *s = reinterpret_cast<PvarSession *>(h);
  return s && s->magic == kSessionMagic ? s : nullptr;
}
PvarHandle *pvar_handle_of(PvarSession *s, MPI_T_pvar_handle h) {
  auto *p = reinterpret_cast<PvarHandle *>(h);
  if (!p || h == MPI_T_PVAR_ALL_HANDLES || p->magic != kPvarMagic || p->session != s) return nullptr;
  return p;
}

}  // namespace

}  // namespace pamir::mpi

using namespace pamir::mpi;
namespace config = pamir::config;
using pamir::Counter;
using pamir::counter_values;
using pamir::counters;

int PMPI_T_init_thread(int required, int *provided) {
  ::pamir::CallGuard guard_;
  if (!provided) return MPI_ERR_ARG;
  if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE) return MPI_ERR_ARG;
  // The settings' values come from the environment; before the library starts, read them for the reads.
  if (g_mpit_refs++ == 0 && !state().up) {
    std::string why;
    std::vector<std::string> warnings;
    (void)config::load(why, warnings);  // a bad value is MPI_Init's error to report, naming it
  }
  *provided = required;  // MPI_T's state is under the library lock where threads are in use
  return MPI_SUCCESS;
}
PAMIR_ALIAS(T_init_thread);

int PMPI_T_finalize(void) {
  MPIT_ENTER();
  --g_mpit_refs;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(T_finalize);

// --- control variables ---------------------------------------------------------------------------

int PMPI_T_cvar_get_num(int *num_cvar) {
  MPIT_ENTER();
  if (!num_cvar) return MPI_ERR_ARG;
  *num_cvar = int(config::all().size());
  return MPI_SUCCESS;
}
PAMIR_ALIAS(T_cvar_get_num);

int PMPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity, MPI_Datatype *datatype,
                         MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind, int *scope) {
  MPIT_ENTER();
  const config::Setting *s = cvar(cvar_index);
  if (!s) return MPI_T_ERR_INVALID_INDEX;
  give_string(s->name, name, name_len);
  give_string(s->help, desc, desc_len);
  if (verbosity) *verbosity = MPI_T_VERBOSITY_USER_BASIC;
  if (datatype) *datatype = type_of(s);
  if (enumtype)
    *enumtype = s->type == config::Type::Choice ? reinterpret_cast<MPI_T_enum>(enum_of(s)) : MPI_T_ENUM_NULL;
  if (bind) *bind = MPI_T_BIND_NO_OBJECT;
  if (scope) *scope = all_eq(s) ? MPI_T_SCOPE_ALL_EQ : MPI_T_SCOPE_LOCAL;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(T_cvar_get_info);

int PMPI_T_cvar_get_index(const char *name, int *cvar_index) {
  MPIT_ENTER();
  if (!name || !cvar_index) return MPI_ERR_ARG;
  const auto &all = config::all();
  for (size_t i = 0; i < all.size(); ++i)
    if (std::strcmp(all[i]->name, name) == 0) {
      *cvar_index = int(i);
      return MPI_SUCCESS;
    }
  return MPI_T_ERR_INVALID_NAME;
}
PAMIR_ALIAS(T_cvar_get_index);

int PMPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle, int *count) {
  MPIT_ENTER();
  (void)obj_handle;  // no variable is bound to an object
  const config::Setting *s = cvar(cvar_index);
  if (!s) return MPI_T_ERR_INVALID_INDEX;
  if (!handle || !count) return MPI_ERR_ARG;
  auto *h = new (std::nothrow) CvarHandle{kCvarMagic, cvar_index};
  if (!h) return MPI_T_ERR_MEMORY;
  *handle = reinterpret_cast<MPI_T_cvar_handle>(h);
  *count = type_of(s) == MPI_CHAR ? kTextCount : 1;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(T_cvar_handle_alloc);

int PMPI_T_cvar_handle_free(MPI_T_cvar_handle *handle) {
  MPIT_ENTER();
  if (!handle) return MPI_ERR_ARG;
  auto *h = reinterpret_cast<CvarHandle *>(*handle);
  if (!h || h->magic != kCvarMagic) return MPI_T_ERR_INVALID_HANDLE;
  h->magic = 0;
  delete h;
  *handle = MPI_T_CVAR_HANDLE_NULL;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(T_cvar_handle_free);

int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf) {
  MPIT_ENTER();
  auto *h = reinterpret_cast<CvarHandle *>(handle);
  if (!h || h->magic != kCvarMagic) return MPI_T_ERR_INVALID_HANDLE;
  if (!buf) return MPI_ERR_ARG;
  const config::Setting *s = cvar(h->index);
  switch (s->type) {
    case config::Type::Bool:
      *static_cast<int *>(buf) = s->flag;
      break;
    case config::Type::Choice:
      *static_cast<int *>(buf) = int(s->number);
      break;
    case config::Type::Size:
    case config::Type::Count:
      *static_cast<unsigned long long *>(buf) = s->number;
      break;
    default: {
      const std::string &v = s->value.empty() && !state().up ? std::string(s->default_value) : s->value;
      const size_t n = std::min(v.size(), size_t(kTextCount - 1));
      std::memcpy(buf, v.data(), n);
      static_cast<char *>(buf)[n] = '\0';
    }
  }
  return MPI_SUCCESS;
}
PAMIR_ALIAS(T_cvar_read);

int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf) {
  MPIT_ENTER();
  auto *h = reinterpret_cast<CvarHandle *>(handle);
  if (!h || h->magic != kCvarMagic) return MPI_T_ERR_INVALID_HANDLE;
  if (!buf) return MPI_ERR_ARG;
  // Once the library runs, every setting has been read; changing one on one rank (a protocol table, a
  // collective's algorithm) would leave the ranks choosing differently.
  if (state().up) return MPI_T_ERR_CVAR_SET_NOT_NOW;
  const config::Setting *s = cvar(h->index);
  std::string text;
  switch (s->type) {
    case config::Type::Bool:
      text = *static_cast<const int *>(buf) ? "1" : "0";
      break;
    case config::Type::Choice: {
      const int i = *static_cast<const int *>(buf);
      const Enum *e = enum_of(s);
      if (i < 0 || size_t(i) >= e->items.size()) return MPI_T_ERR_INVALID;
      text = e->items[size_t(i)];
      break;
    }
    case config::Type::Size:
    case config::Type::Count:
      text = std::to_string(*static_cast<const unsigned long long *>(buf));
      break;
    default:
      text.assign(static_cast<const char *>(buf), strnlen(static_cast<const char *>(buf), kTextCount));
  }
  // The library reads its settings from the environment when it starts: the write goes there, and is
  // checked now as MPI_Init would check it.
  const char *old = std::getenv(s->name);
  const std::string saved = old ? old : "";
  ::setenv(s->name, text.c_str(), 1);
  std::string why;
  std::vector<std::string> warnings;
  if (!config::load(why, warnings)) {
    if (old)
      ::setenv(s->name, saved.c_str(), 1);
    else
      ::unsetenv(s->name);
    (void)config::load(why, warnings);
    return MPI_T_ERR_INVALID;
  }
  return MPI_SUCCESS;
}
PAMIR_ALIAS(T_cvar_write);

// --- enumerations ----------------------------------------------------------------------------------

int PMPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len) {
  MPIT_ENTER();
  if (!enum_live(enumtype)) return MPI_T_ERR_INVALID_HANDLE;
  const Enum *e = reinterpret_cast<Enum *>(enumtype);
  if (num) *num = int(e->items.size());
  give_string(e->name.c_str(), name, name_len);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(T_enum_get_info);

int PMPI_T_enum_get_item(MPI_T_enum enumtype, int index, int *value, char *name, int *name_len) {
  MPIT_ENTER();
  if (!enum_live(enumtype)) return MPI_T_ERR_INVALID_HANDLE;
  const Enum *e = reinterpret_cast<Enum *>(enumtype);
  if (index < 0 || size_t(index) >= e->items.size()) return MPI_T_ERR_INVALID_ITEM;
  if (value) *value = index;
  give_string(e->items[size_t(index)].c_str(), name, name_len);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(T_enum_get_item);

// --- performance variables -------------------------------------------------------------------------

int PMPI_T_pvar_get_num(int *num_pvar) {
  MPIT_ENTER();
  if (!num_pvar) return MPI_ERR_ARG;
  *num_pvar = int(counters().size());
  return MPI_SUCCESS;
}
PAMIR_ALIAS(T_pvar_get_num);

int PMPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity, int *var_class,
                         MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind,
                         int *readonly, int *continuous, int *atomic) {
  MPIT_ENTER();
  const Counter *c = pvar(pvar_index);
  if (!c) return MPI_T_ERR_INVALID_INDEX;
  give_string(c->name, name, name_len);
  give_string(c->about, desc, desc_len);
  if (verbosity) *verbosity = MPI_T_VERBOSITY_USER_BASIC;
  if (var_class) *var_class = pvar_class(*c);
  if (datatype) *datatype = MPI_UNSIGNED_LONG_LONG;
  if (enumtype) *enumtype = MPI_T_ENUM_NULL;
  if (bind) *bind = MPI_T_BIND_NO_OBJECT;
  if (readonly) *readonly = 1;
  if (continuous) *continuous = 1;
  if (atomic) *atomic = 0;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(T_pvar_get_info);

int PMPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index) {
  MPIT_ENTER();
  if (!name || !pvar_index) return MPI_ERR_ARG;
  const auto &all = counters();
  for (size_t i = 0; i < all.size(); ++i)
    if (std::strcmp(all[i].name, name) == 0 && pvar_class(all[i]) == var_class) {
      *pvar_index = int(i);
      return MPI_SUCCESS;
    }
  return MPI_T_ERR_INVALID_NAME;
}
PAMIR_ALIAS(T_pvar_get_index);

int PMPI_T_pvar_session_create(MPI_T_pvar_session *pe_session) {
  MPIT_ENTER();
  if (!pe_session) return MPI_ERR_ARG;
  auto *s = new (std::nothrow) PvarSession;
  if (!s) return MPI_T_ERR_MEMORY;
  *pe_session = reinterpret_cast<MPI_T_pvar_session>(s);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(T_pvar_session_create);

int PMPI_T_pvar_session_free(MPI_T_pvar_session *pe_session) {
  MPIT_ENTER();
  if (!pe_session) return MPI_ERR_ARG;
  PvarSession *s = session_of(*pe_session);
  if (!s) return MPI_T_ERR_INVALID_SESSION;
  for (PvarHandle *h : s->handles) {
    h->magic = 0;
    delete h;
  }
  s->magic = 0;
  delete s;
  *pe_session = MPI_T_PVAR_SESSION_NULL;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(T_pvar_session_free);

int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session pe_session, int pvar_index, void *obj_handle,
                             MPI_T_pvar_handle *handle, int *count) {
  MPIT_ENTER();
  (void)obj_handle;
  PvarSession *s = session_of(pe_session);
  if (!s) return MPI_T_ERR_INVALID_SESSION;
  const Counter *c = pvar(pvar_index);
  if (!c) return MPI_T_ERR_INVALID_INDEX;
  if (!handle || !count) return MPI_ERR_ARG;
  auto *h = new (std::nothrow) PvarHandle{kPvarMagic, s, pvar_index};
  if (!h) return MPI_T_ERR_MEMORY;
  s->handles.push_back(h);
  *handle = reinterpret_cast<MPI_T_pvar_handle>(h);
  *count = int(c->count);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(T_pvar_handle_alloc);

int PMPI_T_pvar_handle_free(MPI_T_pvar_session pe_session, MPI_T_pvar_handle *handle) {
  MPIT_ENTER();
  PvarSession *s = session_of(pe_session);
  if (!s) return MPI_T_ERR_INVALID_SESSION;
  if (!handle) return MPI_ERR_ARG;
  PvarHandle *h = pvar_handle_of(s, *handle);
  if (!h) return MPI_T_ERR_INVALID_HANDLE;
  std::erase(s->handles, h);
  h->magic = 0;
  delete h;
  *handle = MPI_T_PVAR_HANDLE_NULL;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(T_pvar_handle_free);

// The counters always count (continuous): there is nothing to start or stop.
int PMPI_T_pvar_start(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle) {
  MPIT_ENTER();
  PvarSession *s = session_of(pe_session);
  if (!s) return MPI_T_ERR_INVALID_SESSION;
  if (handle != MPI_T_PVAR_ALL_HANDLES && !pvar_handle_of(s, handle)) return MPI_T_ERR_INVALID_HANDLE;
  return handle == MPI_T_PVAR_ALL_HANDLES ? MPI_SUCCESS : MPI_T_ERR_PVAR_NO_STARTSTOP;
}
PAMIR_ALIAS(T_pvar_start);

int PMPI_T_pvar_stop(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle) {
  MPIT_ENTER();
  PvarSession *s = session_of(pe_session);
  if (!s) return MPI_T_ERR_INVALID_SESSION;
  if (handle != MPI_T_PVAR_ALL_HANDLES && !pvar_handle_of(s, handle)) return MPI_T_ERR_INVALID_HANDLE;
  return handle == MPI_T_PVAR_ALL_HANDLES ? MPI_SUCCESS : MPI_T_ERR_PVAR_NO_STARTSTOP;
}
PAMIR_ALIAS(T_pvar_stop);

int PMPI_T_pvar_read(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle, void *buf) {
  MPIT_ENTER();
  PvarSession *s = session_of(pe_session);
  if (!s) return MPI_T_ERR_INVALID_SESSION;
  PvarHandle *h = pvar_handle_of(s, handle);
  if (!h) return MPI_T_ERR_INVALID_HANDLE;
  if (!buf) return MPI_ERR_ARG;
  const Counter &c = *pvar(h->index);
  std::memcpy(buf, counter_values(c), sizeof(uint64_t) * c.count);
  return MPI_SUCCESS;
}
PAMIR_ALIAS(T_pvar_read);

int PMPI_T_pvar_write(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle, const void *buf) {
  MPIT_ENTER();
  PvarSession *s = session_of(pe_session);
  if (!s) return MPI_T_ERR_INVALID_SESSION;
  if (!pvar_handle_of(s, handle)) return MPI_T_ERR_INVALID_HANDLE;
  (void)buf;
  return MPI_T_ERR_PVAR_NO_WRITE;
}
PAMIR_ALIAS(T_pvar_write);

int PMPI_T_pvar_reset(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle) {
  MPIT_ENTER();
  PvarSession *s = session_of(pe_session);
  if (!s) return MPI_T_ERR_INVALID_SESSION;
  if (handle != MPI_T_PVAR_ALL_HANDLES && !pvar_handle_of(s, handle)) return MPI_T_ERR_INVALID_HANDLE;
  // ALL_HANDLES resets the variables that can be: none of these.
  return handle == MPI_T_PVAR_ALL_HANDLES ? MPI_SUCCESS : MPI_T_ERR_PVAR_NO_WRITE;
}
PAMIR_ALIAS(T_pvar_reset);

int PMPI_T_pvar_readreset(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle, void *buf) {
  MPIT_ENTER();
  PvarSession *s = session_of(pe_session);
  if (!s) return MPI_T_ERR_INVALID_SESSION;
  if (!pvar_handle_of(s, handle)) return MPI_T_ERR_INVALID_HANDLE;
  (void)buf;
  return MPI_T_ERR_PVAR_NO_WRITE;
}
PAMIR_ALIAS(T_pvar_readreset);

// --- categories ----------------------------------------------------------------------------------

int PMPI_T_category_get_num(int *num_cat) {
  MPIT_ENTER();
  if (!num_cat) return MPI_ERR_ARG;
  *num_cat = kNumCategories;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(T_category_get_num);

namespace {
std::vector<int> cvars_in(int cat) {
  std::vector<int> out;
  const auto &all = config::all();
  for (size_t i = 0; i < all.size(); ++i)
    if (category_of_setting(all[i]) == cat) out.push_back(int(i));
  return out;
}
std::vector<int> pvars_in(int cat) {
  std::vector<int> out;
  const auto &all = counters();
  for (size_t i = 0; i < all.size(); ++i)
    if (category_of_counter(all[i]) == cat) out.push_back(int(i));
  return out;
}
int give_indices(const std::vector<int> &v, int len, int *indices) {
  if (len < 0 || (len > 0 && !indices)) return MPI_ERR_ARG;
  for (int i = 0; i < len && size_t(i) < v.size(); ++i) indices[i] = v[size_t(i)];
  return MPI_SUCCESS;
}
}  // namespace

int PMPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc, int *desc_len,
                             int *num_cvars, int *num_pvars, int *num_categories) {
  MPIT_ENTER();
  if (cat_index < 0 || cat_index >= kNumCategories) return MPI_T_ERR_INVALID_INDEX;
  give_string(kCategories[cat_index], name, name_len);
  give_string(kCategoryAbout[cat_index], desc, desc_len);
  if (num_cvars) *num_cvars = int(cvars_in(cat_index).size());
  if (num_pvars) *num_pvars = int(pvars_in(cat_index).size());
  if (num_categories) *num_categories = 0;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(T_category_get_info);

int PMPI_T_category_get_index(const char *name, int *cat_index) {
  MPIT_ENTER();
  if (!name || !cat_index) return MPI_ERR_ARG;
  for (int k = 0; k < kNumCategories; ++k)
    if (std::strcmp(kCategories[k], name) == 0) {
      *cat_index = k;
      return MPI_SUCCESS;
    }
  return MPI_T_ERR_INVALID_NAME;
}
PAMIR_ALIAS(T_category_get_index);

int PMPI_T_category_get_cvars(int cat_index, int len, int indices[]) {
  MPIT_ENTER();
  if (cat_index < 0 || cat_index >= kNumCategories) return MPI_T_ERR_INVALID_INDEX;
  return give_indices(cvars_in(cat_index), len, indices);
}
PAMIR_ALIAS(T_category_get_cvars);

int PMPI_T_category_get_pvars(int cat_index, int len, int indices[]) {
  MPIT_ENTER();
  if (cat_index < 0 || cat_index >= kNumCategories) return MPI_T_ERR_INVALID_INDEX;
  return give_indices(pvars_in(cat_index), len, indices);
}
PAMIR_ALIAS(T_category_get_pvars);

int PMPI_T_category_get_categories(int cat_index, int len, int indices[]) {
  MPIT_ENTER();
  if (cat_index < 0 || cat_index >= kNumCategories) return MPI_T_ERR_INVALID_INDEX;
  return give_indices({}, len, indices);
}
PAMIR_ALIAS(T_category_get_categories);

int PMPI_T_category_get_num_events(int cat_index, int *num_events) {
  MPIT_ENTER();
  if (cat_index < 0 || cat_index >= kNumCategories) return MPI_T_ERR_INVALID_INDEX;
  if (!num_events) return MPI_ERR_ARG;
  *num_events = 0;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(T_category_get_num_events);

int PMPI_T_category_get_events(int cat_index, int len, int indices[]) {
  MPIT_ENTER();
  if (cat_index < 0 || cat_index >= kNumCategories) return MPI_T_ERR_INVALID_INDEX;
  return give_indices({}, len, indices);
}
PAMIR_ALIAS(T_category_get_events);

// The variables and categories are fixed for the process's life.
int PMPI_T_category_changed(int *update_number) {
  MPIT_ENTER();
  if (!update_number) return MPI_ERR_ARG;
  *update_number = 0;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(T_category_changed);

// --- events and sources: none registered ---------------------------------------------------------

int PMPI_T_event_get_num(int *num_events) {
  MPIT_ENTER();
  if (!num_events) return MPI_ERR_ARG;
  *num_events = 0;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(T_event_get_num);

int PMPI_T_event_get_index(const char *name, int *event_index) {
  MPIT_ENTER();
  if (!name || !event_index) return MPI_ERR_ARG;
  return MPI_T_ERR_INVALID_NAME;
}
PAMIR_ALIAS(T_event_get_index);

int PMPI_T_source_get_num(int *num_sources) {
  MPIT_ENTER();
  if (!num_sources) return MPI_ERR_ARG;
  *num_sources = 0;
  return MPI_SUCCESS;
}
PAMIR_ALIAS(T_source_get_num);

int PMPI_T_source_get_info(int source_index, char *name, int *name_len, char *desc, int *desc_len,
                           MPI_T_source_order *ordering, MPI_Count *ticks_per_second, MPI_Count *max_ticks,
                           MPI_Info *info) {
  MPIT_ENTER();
  (void)source_index, (void)name, (void)name_len, (void)desc, (void)desc_len, (void)ordering;
  (void)ticks_per_second, (void)max_ticks, (void)info;
  return MPI_T_ERR_INVALID_INDEX;
}
PAMIR_ALIAS(T_source_get_info);

int PMPI_T_source_get_timestamp(int source_index, MPI_Count *timestamp) {
  MPIT_ENTER();
  (void)source_index, (void)timestamp;
  return MPI_T_ERR_INVALID_INDEX;
}
PAMIR_ALIAS(T_source_get_timestamp);

int PMPI_T_event_get_info(int event_index, char *name, int *name_len, int *verbosity,
                          MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[],
                          int *num_elements, MPI_T_enum *enumtype, MPI_Info *info, char *desc, int *desc_len,
                          int *bind) {
  MPIT_ENTER();
  (void)event_index, (void)name, (void)name_len, (void)verbosity, (void)array_of_datatypes;
  (void)array_of_displacements, (void)num_elements, (void)enumtype, (void)info, (void)desc, (void)desc_len;
  (void)bind;
  return MPI_T_ERR_INVALID_INDEX;
}
PAMIR_ALIAS(T_event_get_info);

int PMPI_T_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,
                              MPI_T_event_registration *event_registration) {
  MPIT_ENTER();
  (void)event_index, (void)obj_handle, (void)info, (void)event_registration;
  return MPI_T_ERR_INVALID_INDEX;
}
PAMIR_ALIAS(T_event_handle_alloc);

// No event exists, so no registration or instance handle can be valid.
int PMPI_T_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info info) {
  MPIT_ENTER();
  (void)event_registration, (void)info;
  return MPI_T_ERR_INVALID_HANDLE;
}
PAMIR_ALIAS(T_event_handle_set_info);

int PMPI_T_event_handle_get_info(MPI_T_event_registration event_registration, MPI_Info *info_used) {
  MPIT_ENTER();
  (void)event_registration, (void)info_used;
  return MPI_T_ERR_INVALID_HANDLE;
}
PAMIR_ALIAS(T_event_handle_get_info);

int PMPI_T_event_register_callback(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                   MPI_Info info, void *user_data,
                                   MPI_T_event_cb_function *event_cb_function) {
  MPIT_ENTER();
  (void)event_registration, (void)cb_safety, (void)info, (void)user_data, (void)event_cb_function;
  return MPI_T_ERR_INVALID_HANDLE;
}
PAMIR_ALIAS(T_event_register_callback);

int PMPI_T_event_callback_set_info(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                   MPI_Info info) {
  MPIT_ENTER();
  (void)event_registration, (void)cb_safety, (void)info;
  return MPI_T_ERR_INVALID_HANDLE;
}
PAMIR_ALIAS(T_event_callback_set_info);

int PMPI_T_event_callback_get_info(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                   MPI_Info *info_used) {
  MPIT_ENTER();
  (void)event_registration, (void)cb_safety, (void)info_used;
  return MPI_T_ERR_INVALID_HANDLE;
}
PAMIR_ALIAS(T_event_callback_get_info);

int PMPI_T_event_handle_free(MPI_T_event_registration event_registration, void *user_data,
                             MPI_T_event_free_cb_function *free_cb_function) {
  MPIT_ENTER();
  (void)event_registration, (void)user_data, (void)free_cb_function;
  return MPI_T_ERR_INVALID_HANDLE;
}
PAMIR_ALIAS(T_event_handle_free);

int PMPI_T_event_set_dropped_handler(MPI_T_event_registration event_registration,
                                     MPI_T_event_dropped_cb_function *dropped_cb_function) {
  MPIT_ENTER();
  (void)event_registration, (void)dropped_cb_function;
  return MPI_T_ERR_INVALID_HANDLE;
}
PAMIR_ALIAS(T_event_set_dropped_handler);

int PMPI_T_event_read(MPI_T_event_instance event_instance, int element_index, void *buffer) {
  MPIT_ENTER();
  (void)event_instance, (void)element_index, (void)buffer;
  return MPI_T_ERR_INVALID_HANDLE;
}
PAMIR_ALIAS(T_event_read);

int PMPI_T_event_copy(MPI_T_event_instance event_instance, void *buffer) {
  MPIT_ENTER();
  (void)event_instance, (void)buffer;
  return MPI_T_ERR_INVALID_HANDLE;
}
PAMIR_ALIAS(T_event_copy);

int PMPI_T_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count *event_timestamp) {
  MPIT_ENTER();
  (void)event_instance, (void)event_timestamp;
  return MPI_T_ERR_INVALID_HANDLE;
}
PAMIR_ALIAS(T_event_get_timestamp);

int PMPI_T_event_get_source(MPI_T_event_instance event_instance, int *source_index) {
  MPIT_ENTER();
  (void)event_instance, (void)source_index;
  return MPI_T_ERR_INVALID_HANDLE;
}
PAMIR_ALIAS(T_event_get_source);
