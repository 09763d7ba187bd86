// Attribute caching (MPI 4.1 §7.7) on communicators and datatypes: keyvals, set/get/delete, copy
// callbacks on MPI_Comm_dup and MPI_Type_dup, delete callbacks on MPI_Comm_free and MPI_Type_free, and
// the predefined attributes of communicators. One implementation serves both kinds of object
// (`Owner<T>`: the handle, the reference a running callback holds, where errors are raised); a keyval
// belongs to the kind it was created for, and using it on the other kind is MPI_ERR_KEYVAL.
//
// A keyval is reference counted: the user's integer is one reference, every attribute cached with it
// another, so a keyval freed while attributes still use it lives until the last of them is deleted
// (its delete callback still runs), and its integer still gets and deletes them, though it sets no new
// one. Keyval integers are never reused. The predefined copy and delete
// functions (MPI_COMM_DUP_FN = 1, MPI_COMM_NULL_COPY_FN = 0, MPI_COMM_NULL_DELETE_FN = 0, and the
// deprecated MPI_DUP_FN / MPI_NULL_COPY_FN / MPI_NULL_DELETE_FN) are sentinels interpreted here, never
// called. Delete callbacks run in the reverse order in which the attributes were set (what MPI requires
// for MPI_COMM_SELF at MPI_Finalize, and a sensible order everywhere else).
//
// Copy and delete callbacks run with the library lock released: they may call MPI, on the same
// communicator too, and may wait for another thread's MPI call. So the code around a callback copies
// what it uses first, holds references on the keyval and the communicator while unlocked, and looks the
// attribute up again afterwards. An attribute whose delete callback is running is marked (Attr::deleting):
// another deletion of it (the callback's own MPI_Comm_delete_attr, a set that replaces it, MPI_Comm_free,
// or another thread) leaves it to the running one, so no value is deleted twice; and the running one
// removes it only if it still holds the value deleted (Attr::seq), so a value set meanwhile stays.
//
// The predefined attributes (MPI_TAG_UB, MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL, MPI_UNIVERSE_SIZE,
// MPI_APPNUM, MPI_LASTUSEDCODE) belong to MPI_COMM_WORLD; they are answered on every communicator, as
// MPICH does, since libraries commonly ask their own duplicate for MPI_TAG_UB. Their value is a
// pointer to an int.
#include <climits>

#include "mpi/check.h"
#include "mpi/win.h"
#include "pami/context.h"
#include "pamir_alias.h"

namespace pamir::mpi {

namespace {

constexpr int kFirstKeyval = 1024;  // above every predefined attribute keyval

struct Keyvals {
  std::map<int, Keyval *> live;  // user keyvals not yet freed, by integer
  int next = kFirstKeyval;
  uint64_t seq = 0;  // order in which attributes were set
};
Keyvals &keyvals() {
  static auto *k = new Keyvals;
  return *k;
}

template <typename T>
struct Owner;
template <>
struct Owner<Comm> {
  using Handle = MPI_Comm;
  using CopyFn = MPI_Comm_copy_attr_function;
  using DeleteFn = MPI_Comm_delete_attr_function;
  static constexpr KeyvalKind kKind = KeyvalKind::comm;
  static constexpr const char *kWhat = "communicators";
  static Handle handle(Comm *c) { return comm_handle(c); }
  // A reference while a callback runs unlocked: the callback or another thread may free the object
  // meanwhile, and the code after the callback still reads its attributes.
  static void hold(Comm *c) {
    if (!c->predefined) ++c->refs;
  }
  static void release(Comm *c) { comm_release(c); }
  static Comm *raise_on(Comm *c) { return c; }
};
template <>
struct Owner<Datatype> {
  using Handle = MPI_Datatype;
  using CopyFn = MPI_Type_copy_attr_function;
  using DeleteFn = MPI_Type_delete_attr_function;
  static constexpr KeyvalKind kKind = KeyvalKind::type;
  static constexpr const char *kWhat = "datatypes";
  static Handle handle(Datatype *t) { return handle_of_type(t); }
  static void hold(Datatype *t) {
    if (!t->predefined) ++t->refs;
  }
  static void release(Datatype *t) { datatype_release(t); }
  static Comm *raise_on(Datatype *) { return nullptr; }  // no error handler: MPI_COMM_SELF's
};
template <>
struct Owner<Win> {
  using Handle = MPI_Win;
  using CopyFn = MPI_Win_copy_attr_function;
  using DeleteFn = MPI_Win_delete_attr_function;
  static constexpr KeyvalKind kKind = KeyvalKind::win;
  static constexpr const char *kWhat = "windows";
  static Handle handle(Win *w) { return win_handle(w); }
  static void hold(Win *w) { ++w->refs; }
  static void release(Win *w) {
    if (--w->refs == 0) pool<Win>().destroy(w);
  }
  static Win *raise_on(Win *w) { return w; }
};

bool predefined_keyval(int k) {
  switch (k) {
    case MPI_TAG_UB:
    case MPI_HOST:
    case MPI_IO:
    case MPI_WTIME_IS_GLOBAL:
    case MPI_UNIVERSE_SIZE:
    case MPI_APPNUM:
    case MPI_LASTUSEDCODE:
      return true;
    default:
      return false;
  }
}

// The value of a predefined attribute: a pointer to an int that stays valid.
void *predefined_value(int k) {
  static int tag_ub, host, io, wtime_is_global, universe_size, appnum, lastusedcode;
  switch (k) {
    case MPI_TAG_UB:
      tag_ub = pamir::kTagUb;
      return &tag_ub;
    case MPI_HOST:
      host = MPI_PROC_NULL;
      return &host;
    case MPI_IO:
      io = MPI_ANY_SOURCE;  // every process can do I/O
      return &io;
    case MPI_WTIME_IS_GLOBAL:
      wtime_is_global = 0;
      return &wtime_is_global;
    case MPI_UNIVERSE_SIZE:
      universe_size = int(std::max(context().boot().universe_size(), context().ntasks()));
      return &universe_size;
    case MPI_APPNUM:
      appnum = int(context().boot().appnum());
      return &appnum;
    case MPI_LASTUSEDCODE:
      lastusedcode = last_used_code();
      return &lastusedcode;
    default:
      return nullptr;
  }
}

// A window's predefined attribute (MPI 5.0 §12.2.6): MPI_WIN_BASE is the base itself (MPI_BOTTOM for a
// dynamic window), the others point to their values.
void *win_predefined_value(Win *w, int k) {
  switch (k) {
    case MPI_WIN_BASE:
      return w->base;
    case MPI_WIN_SIZE:
      return &w->size;
    case MPI_WIN_DISP_UNIT:
      return &w->disp_unit;
    case MPI_WIN_CREATE_FLAVOR:
      return &w->flavor;
    case MPI_WIN_MODEL:
      return &w->model;
    default:
      return nullptr;
  }
}
bool win_predefined_keyval(int k) {
  return k >= MPI_WIN_BASE && k <= MPI_WIN_MODEL;
}

void keyval_release(Keyval *k) {
  if (--k->refs == 0) pool<Keyval>().destroy(k);
}

// A callback's error as the error of the MPI call: its class when it is a valid code.
template <typename On>
int callback_failed(On *c, const char *fn, const char *which, int keyval, int rc) {
  int cls = error_class(rc);
  return raise(c, fn, cls > 0 ? cls : MPI_ERR_OTHER, "the %s callback of keyval %d returned %d", which,
               keyval, rc);
}

// Removes attribute `id` from c (its delete callback done or not wanted).
template <typename T>
void drop(T *c, int id) {
  auto it = c->attrs.find(id);
  if (it == c->attrs.end()) return;
  Keyval *k = it->second.keyval;
  c->attrs.erase(it);
  keyval_release(k);
}

// Runs the delete callback of c's attribute `id`, unlocked, unless the attribute is absent or its
// deletion is already running; then, when the callback succeeded, `remove` is set and the attribute
// still holds the value deleted, removes it. Returns MPI_SUCCESS or the callback's error, raised as an
// error of `fn` unless fn is null.
template <typename T>
int delete_value(T *c, int id, bool remove, const char *fn) {
  using O = Owner<T>;
  auto it = c->attrs.find(id);
  if (it == c->attrs.end() || it->second.deleting) return MPI_SUCCESS;
  const Attr a = it->second;
  auto *del = reinterpret_cast<typename O::DeleteFn *>(a.keyval->del);
  if (!del) {  // MPI_COMM_NULL_DELETE_FN, MPI_TYPE_NULL_DELETE_FN
    if (remove) drop(c, id);
    return MPI_SUCCESS;
  }
  it->second.deleting = true;
  ++a.keyval->refs;  // the callback may free the keyval, and the attribute may go meanwhile
  O::hold(c);
  const typename O::Handle h = O::handle(c);
  void *extra = a.keyval->extra_state;
  int rc;
  {
    Unlocked unlocked;
    rc = del(h, id, a.value, extra);
  }
  it = c->attrs.find(id);
  if (it != c->attrs.end() && it->second.seq == a.seq) {
    it->second.deleting = false;
    if (rc == MPI_SUCCESS && remove) drop(c, id);
  }
  if (rc != MPI_SUCCESS && fn) rc = callback_failed(O::raise_on(c), fn, "delete", id, rc);
  keyval_release(a.keyval);
  O::release(c);
  return rc;
}

template <typename T>
void store(T *c, int id, Keyval *k, void *value) {
  auto it = c->attrs.find(id);
  if (it == c->attrs.end()) {
    ++k->refs;
    it = c->attrs.emplace(id, Attr{k, value}).first;
  }
  // A new value: a deletion of the old one still running leaves it alone.
  it->second.value = value;
  it->second.seq = ++keyvals().seq;
  it->second.deleting = false;
}

// Live user keyval with integer k, or nullptr.
Keyval *keyval_of(int k) {
  auto &live = keyvals().live;
  auto it = live.find(k);
  return it == live.end() ? nullptr : it->second;
}

// Why keyval `id` cannot serve objects of kind `kind` (nullptr: it can): unknown, or another kind's.
const char *bad_keyval(int id, KeyvalKind kind) {
  const Keyval *k = keyval_of(id);
  if (!k) return "is not a valid keyval";
  if (k->kind != kind)
    return k->kind == KeyvalKind::comm   ? "was created for communicators"
           : k->kind == KeyvalKind::type ? "was created for datatypes"
                                         : "was created for windows";
  return nullptr;
}

int create_keyval(const char *fn_, KeyvalKind kind, MPI_Comm_copy_attr_function *copy,
                  MPI_Comm_delete_attr_function *del, int *keyval, void *extra_state) {
  PAMIR_CHECK(nullptr, keyval, MPI_ERR_ARG, "keyval is NULL");
  Keyvals &ks = keyvals();
  PAMIR_CHECK(nullptr, ks.next < INT_MAX, MPI_ERR_OTHER, "out of keyval integers");
  Keyval *k = pool<Keyval>().make();
  k->kind = kind;
  k->copy = copy;
  k->del = del;
  k->extra_state = extra_state;
  k->id = ks.next++;
  ks.live[k->id] = k;
  *keyval = k->id;
  return MPI_SUCCESS;
}

int free_keyval(const char *fn_, KeyvalKind kind, int *keyval) {
  PAMIR_CHECK(nullptr, keyval, MPI_ERR_ARG, "keyval is NULL");
  PAMIR_CHECK(nullptr, !predefined_keyval(*keyval), MPI_ERR_KEYVAL, "predefined keyval %d cannot be freed",
              *keyval);
  const char *why = bad_keyval(*keyval, kind);
  PAMIR_CHECK(nullptr, !why, MPI_ERR_KEYVAL, "keyval %d %s", *keyval, why);
  Keyval *k = keyval_of(*keyval);
  keyvals().live.erase(*keyval);
  keyval_release(k);  // attributes still cached with it keep it alive
  *keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

template <typename T>
int set_attr(const char *fn_, T *c, int keyval, void *value) {
  using O = Owner<T>;
  auto *e = O::raise_on(c);
  PAMIR_CHECK(e, O::kKind != KeyvalKind::comm || !predefined_keyval(keyval), MPI_ERR_KEYVAL,
              "predefined attribute %d cannot be set", keyval);
  PAMIR_CHECK(e, O::kKind != KeyvalKind::win || !win_predefined_keyval(keyval), MPI_ERR_KEYVAL,
              "predefined window attribute %d cannot be set", keyval);
  const char *why = bad_keyval(keyval, O::kKind);
  PAMIR_CHECK(e, !why, MPI_ERR_KEYVAL, "keyval %d %s", keyval, why);
  Keyval *k = keyval_of(keyval);
  // Replacing a value deletes the old one first (MPI 4.1 §7.7.2). That callback runs unlocked, so a value
  // set meanwhile (by the callback or another thread) is an old value too, deleted in turn; one whose
  // deletion runs elsewhere is that deletion's. k and c are held for the store after the callbacks.
  ++k->refs;
  O::hold(c);
  int rc = MPI_SUCCESS;
  for (;;) {
    auto it = c->attrs.find(keyval);
    if (it == c->attrs.end() || it->second.deleting) break;
    const uint64_t seq = it->second.seq;
    if ((rc = delete_value(c, keyval, false, fn_)) != MPI_SUCCESS) break;
    it = c->attrs.find(keyval);
    if (it == c->attrs.end() || it->second.seq == seq) break;
  }
  if (rc == MPI_SUCCESS) store(c, keyval, k, value);
  keyval_release(k);
  O::release(c);
  return rc;
}

template <typename T>
int get_attr(const char *fn_, T *c, int keyval, void *attribute_val, int *flag) {
  using O = Owner<T>;
  auto *e = O::raise_on(c);
  PAMIR_CHECK(e, attribute_val && flag, MPI_ERR_ARG, "attribute_val or flag is NULL");
  if (O::kKind == KeyvalKind::comm && predefined_keyval(keyval)) {
    *static_cast<void **>(attribute_val) = predefined_value(keyval);
    *flag = 1;
    return MPI_SUCCESS;
  }
  if constexpr (O::kKind == KeyvalKind::win) {
    if (win_predefined_keyval(keyval)) {
      *static_cast<void **>(attribute_val) = win_predefined_value(c, keyval);
      *flag = 1;
      return MPI_SUCCESS;
    }
  }
  // A freed keyval stays valid for the attributes still cached with it (MPI 4.1 §7.7.2).
  auto it = c->attrs.find(keyval);
  const char *why = it != c->attrs.end() ? nullptr : bad_keyval(keyval, O::kKind);
  PAMIR_CHECK(e, !why, MPI_ERR_KEYVAL, "keyval %d %s", keyval, why);
  *flag = it != c->attrs.end();
  if (*flag) *static_cast<void **>(attribute_val) = it->second.value;
  return MPI_SUCCESS;
}

template <typename T>
int delete_attr(const char *fn_, T *c, int keyval) {
  using O = Owner<T>;
  auto *e = O::raise_on(c);
  PAMIR_CHECK(e, O::kKind != KeyvalKind::comm || !predefined_keyval(keyval), MPI_ERR_KEYVAL,
              "predefined attribute %d cannot be deleted", keyval);
  PAMIR_CHECK(e, O::kKind != KeyvalKind::win || !win_predefined_keyval(keyval), MPI_ERR_KEYVAL,
              "predefined window attribute %d cannot be deleted", keyval);
  // A freed keyval stays valid for deleting the attributes still cached with it (MPI 4.1 §7.7.2).
  const char *why = c->attrs.count(keyval) ? nullptr : bad_keyval(keyval, O::kKind);
  PAMIR_CHECK(e, !why, MPI_ERR_KEYVAL, "keyval %d %s", keyval, why);
  return delete_value(c, keyval, true, fn_);
}

template <typename T>
int copy_all(T *from, T *to, const char *fn) {
  using O = Owner<T>;
  // Copy callbacks run unlocked and may change from's attributes, as may another thread: work from a
  // snapshot of the keys and look each up again. `to` is not visible to the user yet.
  std::vector<int> ids;
  for (const auto &kv : from->attrs) ids.push_back(kv.first);
  O::hold(from);
  int rc = MPI_SUCCESS, failed_id = 0;
  for (int id : ids) {
    auto it = from->attrs.find(id);
    // A value being deleted is not copied: that deletion comes first.
    if (it == from->attrs.end() || it->second.deleting) continue;
    const Attr a = it->second;
    auto *copy = reinterpret_cast<typename O::CopyFn *>(a.keyval->copy);
    if (!copy) continue;  // MPI_COMM_NULL_COPY_FN, MPI_TYPE_NULL_COPY_FN
    void *out = a.value;
    int flag = 1;
    Keyval *k = a.keyval;
    ++k->refs;                                     // the callback may free the keyval; the copy still uses it
    if (reinterpret_cast<uintptr_t>(copy) != 1) {  // not MPI_COMM_DUP_FN, MPI_TYPE_DUP_FN
      out = nullptr;
      flag = 0;
      const typename O::Handle h = O::handle(from);
      void *extra = k->extra_state;
      Unlocked unlocked;
      rc = copy(h, id, extra, a.value, &out, &flag);
    }
    if (rc == MPI_SUCCESS && flag) store(to, id, k, out);
    keyval_release(k);
    if (rc != MPI_SUCCESS) {
      failed_id = id;
      break;
    }
  }
  if (rc != MPI_SUCCESS) {
    // The duplicate fails: what was copied so far is deleted again (errors of that ignored).
    while (!to->attrs.empty()) {
      const int id = to->attrs.begin()->first;
      (void)delete_value(to, id, true, nullptr);
      drop(to, id);
    }
    rc = callback_failed(O::raise_on(from), fn, "copy", failed_id, rc);
  }
  O::release(from);
  return rc;
}

template <typename T>
int delete_all(T *c, const char *fn) {
  for (;;) {
    // The most recently set first; one whose deletion runs elsewhere is left to it.
    const Attr *last = nullptr;
    int id = 0;
    for (const auto &kv : c->attrs)
      if (!kv.second.deleting && (!last || kv.second.seq > last->seq)) {
        last = &kv.second;
        id = kv.first;
      }
    if (!last) return MPI_SUCCESS;
    if (int rc = delete_value(c, id, true, fn)) return rc;
  }
}

template <typename T>
void forget_all(T *c) {
  for (auto &kv : c->attrs) keyval_release(kv.second.keyval);
  c->attrs.clear();
}

}  // namespace

int attrs_copy(Comm *from, Comm *to, const char *fn) {
  return copy_all(from, to, fn);
}
int attrs_copy(Datatype *from, Datatype *to, const char *fn) {
  return copy_all(from, to, fn);
}
int attrs_delete_all(Comm *c, const char *fn) {
  return delete_all(c, fn);
}
int attrs_delete_all(Datatype *t, const char *fn) {
  return delete_all(t, fn);
}
void attrs_forget(Comm *c) {
  forget_all(c);
}
void attrs_forget(Datatype *t) {
  forget_all(t);
}
int attrs_delete_all(Win *w, const char *fn) {
  return delete_all(w, fn);
}
void attrs_forget(Win *w) {
  forget_all(w);
}

}  // namespace pamir::mpi

using namespace pamir::mpi;

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                            MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
                            void *extra_state) {
  PAMIR_ENTER("MPI_Comm_create_keyval");
  return create_keyval(fn_, KeyvalKind::comm, comm_copy_attr_fn, comm_delete_attr_fn, comm_keyval,
                       extra_state);
}
PAMIR_ALIAS(Comm_create_keyval);

int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                       void *extra_state) {
  PAMIR_ENTER("MPI_Keyval_create");
  // The deprecated callback types have the same signatures as the MPI_Comm_* ones.
  return create_keyval(fn_, KeyvalKind::comm, reinterpret_cast<MPI_Comm_copy_attr_function *>(copy_fn),
                       reinterpret_cast<MPI_Comm_delete_attr_function *>(delete_fn), keyval, extra_state);
}
PAMIR_ALIAS(Keyval_create);

int PMPI_Comm_free_keyval(int *comm_keyval) {
  PAMIR_ENTER("MPI_Comm_free_keyval");
  return free_keyval(fn_, KeyvalKind::comm, comm_keyval);
}
PAMIR_ALIAS(Comm_free_keyval);

int PMPI_Keyval_free(int *keyval) {
  PAMIR_ENTER("MPI_Keyval_free");
  return free_keyval(fn_, KeyvalKind::comm, keyval);
}
PAMIR_ALIAS(Keyval_free);

int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val) {
  PAMIR_ENTER("MPI_Comm_set_attr");
  return set_attr(fn_, PAMIR_COMM(comm), comm_keyval, attribute_val);
}
PAMIR_ALIAS(Comm_set_attr);

int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val) {
  PAMIR_ENTER("MPI_Attr_put");
  return set_attr(fn_, PAMIR_COMM(comm), keyval, attribute_val);
}
PAMIR_ALIAS(Attr_put);

int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag) {
  PAMIR_ENTER("MPI_Comm_get_attr");
  return get_attr(fn_, PAMIR_COMM(comm), comm_keyval, attribute_val, flag);
}
PAMIR_ALIAS(Comm_get_attr);

int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag) {
  PAMIR_ENTER("MPI_Attr_get");
  return get_attr(fn_, PAMIR_COMM(comm), keyval, attribute_val, flag);
}
PAMIR_ALIAS(Attr_get);

int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval) {
  PAMIR_ENTER("MPI_Comm_delete_attr");
  return delete_attr(fn_, PAMIR_COMM(comm), comm_keyval);
}
PAMIR_ALIAS(Comm_delete_attr);

int PMPI_Attr_delete(MPI_Comm comm, int keyval) {
  PAMIR_ENTER("MPI_Attr_delete");
  return delete_attr(fn_, PAMIR_COMM(comm), keyval);
}
PAMIR_ALIAS(Attr_delete);

// --- datatypes -------------------------------------------------------------------------------------

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                            MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
                            void *extra_state) {
  PAMIR_ENTER("MPI_Type_create_keyval");
  // Kept under the communicator signatures; the calls cast them back (Owner<Datatype>).
  return create_keyval(
      fn_, KeyvalKind::type, reinterpret_cast<MPI_Comm_copy_attr_function *>(type_copy_attr_fn),
      reinterpret_cast<MPI_Comm_delete_attr_function *>(type_delete_attr_fn), type_keyval, extra_state);
}
PAMIR_ALIAS(Type_create_keyval);

int PMPI_Type_free_keyval(int *type_keyval) {
  PAMIR_ENTER("MPI_Type_free_keyval");
  return free_keyval(fn_, KeyvalKind::type, type_keyval);
}
PAMIR_ALIAS(Type_free_keyval);

int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val) {
  PAMIR_ENTER("MPI_Type_set_attr");
  return set_attr(fn_, PAMIR_ANY_TYPE(nullptr, datatype), type_keyval, attribute_val);
}
PAMIR_ALIAS(Type_set_attr);

int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag) {
  PAMIR_ENTER("MPI_Type_get_attr");
  return get_attr(fn_, PAMIR_ANY_TYPE(nullptr, datatype), type_keyval, attribute_val, flag);
}
PAMIR_ALIAS(Type_get_attr);

int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval) {
  PAMIR_ENTER("MPI_Type_delete_attr");
  return delete_attr(fn_, PAMIR_ANY_TYPE(nullptr, datatype), type_keyval);
}
PAMIR_ALIAS(Type_delete_attr);

// --- windows ---------------------------------------------------------------------------------------

int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                           MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                           void *extra_state) {
  PAMIR_ENTER("MPI_Win_create_keyval");
  return create_keyval(
      fn_, KeyvalKind::win, reinterpret_cast<MPI_Comm_copy_attr_function *>(win_copy_attr_fn),
      reinterpret_cast<MPI_Comm_delete_attr_function *>(win_delete_attr_fn), win_keyval, extra_state);
}
PAMIR_ALIAS(Win_create_keyval);

int PMPI_Win_free_keyval(int *win_keyval) {
  PAMIR_ENTER("MPI_Win_free_keyval");
  return free_keyval(fn_, KeyvalKind::win, win_keyval);
}
PAMIR_ALIAS(Win_free_keyval);

int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val) {
  PAMIR_ENTER("MPI_Win_set_attr");
  return set_attr(fn_, PAMIR_WIN(win), win_keyval, attribute_val);
}
PAMIR_ALIAS(Win_set_attr);

int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag) {
  PAMIR_ENTER("MPI_Win_get_attr");
  return get_attr(fn_, PAMIR_WIN(win), win_keyval, attribute_val, flag);
}
PAMIR_ALIAS(Win_get_attr);

int PMPI_Win_delete_attr(MPI_Win win, int win_keyval) {
  PAMIR_ENTER("MPI_Win_delete_attr");
  return delete_attr(fn_, PAMIR_WIN(win), win_keyval);
}
PAMIR_ALIAS(Win_delete_attr);
