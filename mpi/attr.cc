// Attribute caching on communicators (MPI 4.1 §7.7): keyvals, set/get/delete, copy callbacks on
// MPI_Comm_dup, delete callbacks on MPI_Comm_free, and the predefined attributes.
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

void keyval_release(Keyval *k) {
  if (--k->refs == 0) pool<Keyval>().destroy(k);
}

// A callback's error as the error of the MPI call: its class when it is a valid code.
int callback_failed(Comm *c, const char *fn, const char *which, int keyval, int rc) {
  int cls = error_class(rc);
  return raise(c, fn, cls > 0 ? cls : MPI_ERR_OTHER, "the %s callback of keyval %d returned %d", which,
               keyval, rc);
}

// A reference on c while a callback runs unlocked: the callback or another thread may free c meanwhile,
// and the code after the callback still reads c's attributes.
void comm_hold(Comm *c) {
  if (!c->predefined) ++c->refs;
}

// Removes attribute `id` from c (its delete callback done or not wanted).
void drop(Comm *c, int id) {
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
int delete_value(Comm *c, int id, bool remove, const char *fn) {
  auto it = c->attrs.find(id);
  if (it == c->attrs.end() || it->second.deleting) return MPI_SUCCESS;
  const Attr a = it->second;
  MPI_Comm_delete_attr_function *del = a.keyval->del;
  if (del == MPI_COMM_NULL_DELETE_FN) {
    if (remove) drop(c, id);
    return MPI_SUCCESS;
  }
  it->second.deleting = true;
  ++a.keyval->refs;  // the callback may free the keyval, and the attribute may go meanwhile
  comm_hold(c);
  const MPI_Comm h = comm_handle(c);
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
  if (rc != MPI_SUCCESS && fn) rc = callback_failed(c, fn, "delete", id, rc);
  keyval_release(a.keyval);
  comm_release(c);
  return rc;
}

// Deletes one attribute, callback first. Returns MPI_SUCCESS or the raised error.
int delete_one(Comm *c, int id, const char *fn) {
  return delete_value(c, id, true, fn);
}

void store(Comm *c, int id, Keyval *k, void *value) {
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

int create_keyval(const char *fn_, MPI_Comm_copy_attr_function *copy, MPI_Comm_delete_attr_function *del,
                  int *keyval, void *extra_state) {
  PAMIR_CHECK(nullptr, keyval, MPI_ERR_ARG, "keyval is NULL");
  Keyvals &ks = keyvals();
  PAMIR_CHECK(nullptr, ks.next < INT_MAX, MPI_ERR_OTHER, "out of keyval integers");
  Keyval *k = pool<Keyval>().make();
  k->kind = KeyvalKind::comm;
  k->copy = copy;
  k->del = del;
  k->extra_state = extra_state;
  k->id = ks.next++;
  ks.live[k->id] = k;
  *keyval = k->id;
  return MPI_SUCCESS;
}

int free_keyval(const char *fn_, int *keyval) {
  PAMIR_CHECK(nullptr, keyval, MPI_ERR_ARG, "keyval is NULL");
  PAMIR_CHECK(nullptr, !predefined_keyval(*keyval), MPI_ERR_KEYVAL, "predefined keyval %d cannot be freed",
              *keyval);
  Keyval *k = keyval_of(*keyval);
  PAMIR_CHECK(nullptr, k, MPI_ERR_KEYVAL, "%d is not a valid keyval", *keyval);
  keyvals().live.erase(*keyval);
  keyval_release(k);  // attributes still cached with it keep it alive
  *keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

int set_attr(const char *fn_, MPI_Comm comm, int keyval, void *value) {
  Comm *c = PAMIR_COMM(comm);
  PAMIR_CHECK(c, !predefined_keyval(keyval), MPI_ERR_KEYVAL, "predefined attribute %d cannot be set", keyval);
  Keyval *k = keyval_of(keyval);
  PAMIR_CHECK(c, k, MPI_ERR_KEYVAL, "%d is not a valid keyval", keyval);
  // Replacing a value deletes the old one first (MPI 4.1 §7.7.2). That callback runs unlocked, so a value
  // set meanwhile (by the callback or another thread) is an old value too, deleted in turn; one whose
  // deletion runs elsewhere is that deletion's. k and c are held for the store after the callbacks.
  ++k->refs;
  comm_hold(c);
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
  comm_release(c);
  return rc;
}

int get_attr(const char *fn_, MPI_Comm comm, int keyval, void *attribute_val, int *flag) {
  Comm *c = PAMIR_COMM(comm);
  PAMIR_CHECK(c, attribute_val && flag, MPI_ERR_ARG, "attribute_val or flag is NULL");
  if (predefined_keyval(keyval)) {
    *static_cast<void **>(attribute_val) = predefined_value(keyval);
    *flag = 1;
    return MPI_SUCCESS;
  }
  // A freed keyval stays valid for the attributes still cached with it (MPI 4.1 §7.7.2).
  auto it = c->attrs.find(keyval);
  PAMIR_CHECK(c, it != c->attrs.end() || keyval_of(keyval), MPI_ERR_KEYVAL, "%d is not a valid keyval",
              keyval);
  *flag = it != c->attrs.end();
  if (*flag) *static_cast<void **>(attribute_val) = it->second.value;
  return MPI_SUCCESS;
}

int delete_attr(const char *fn_, MPI_Comm comm, int keyval) {
  Comm *c = PAMIR_COMM(comm);
  PAMIR_CHECK(c, !predefined_keyval(keyval), MPI_ERR_KEYVAL, "predefined attribute %d cannot be deleted",
              keyval);
  // A freed keyval stays valid for deleting the attributes still cached with it (MPI 4.1 §7.7.2).
  PAMIR_CHECK(c, c->attrs.count(keyval) || keyval_of(keyval), MPI_ERR_KEYVAL, "%d is not a valid keyval",
              keyval);
  return delete_one(c, keyval, fn_);
}

}  // namespace

int attrs_copy(Comm *from, Comm *to, const char *fn) {
  // Copy callbacks run unlocked and may change from's attributes, as may another thread: work from a
  // snapshot of the keys and look each up again. `to` is not visible to the user yet.
  std::vector<int> ids;
  for (const auto &kv : from->attrs) ids.push_back(kv.first);
  comm_hold(from);
  int rc = MPI_SUCCESS, failed_id = 0;
  for (int id : ids) {
    auto it = from->attrs.find(id);
    // A value being deleted is not copied: that deletion comes first.
    if (it == from->attrs.end() || it->second.deleting) continue;
    const Attr a = it->second;
    MPI_Comm_copy_attr_function *copy = a.keyval->copy;
    if (copy == MPI_COMM_NULL_COPY_FN) continue;
    void *out = a.value;
    int flag = 1;
    Keyval *k = a.keyval;
    ++k->refs;  // the callback may free the keyval; the copy still uses it
    if (copy != MPI_COMM_DUP_FN) {
      out = nullptr;
      flag = 0;
      const MPI_Comm h = comm_handle(from);
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
    rc = callback_failed(from, fn, "copy", failed_id, rc);
  }
  comm_release(from);
  return rc;
}

int attrs_delete_all(Comm *c, const char *fn) {
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

void attrs_forget(Comm *c) {
  for (auto &kv : c->attrs) keyval_release(kv.second.keyval);
  c->attrs.clear();
}

}  // namespace pamir::mpi

using namespace pamir::mpi;

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                            MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
                            void *extra_state) {
  PAMIR_ENTER("MPI_Comm_create_keyval");
  return create_keyval(fn_, comm_copy_attr_fn, comm_delete_attr_fn, comm_keyval, extra_state);
}
PAMIR_ALIAS(Comm_create_keyval);

int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                       void *extra_state) {
  PAMIR_ENTER("MPI_Keyval_create");
  // The deprecated callback types have the same signatures as the MPI_Comm_* ones.
  return create_keyval(fn_, reinterpret_cast<MPI_Comm_copy_attr_function *>(copy_fn),
                       reinterpret_cast<MPI_Comm_delete_attr_function *>(delete_fn), keyval, extra_state);
}
PAMIR_ALIAS(Keyval_create);

int PMPI_Comm_free_keyval(int *comm_keyval) {
  PAMIR_ENTER("MPI_Comm_free_keyval");
  return free_keyval(fn_, comm_keyval);
}
PAMIR_ALIAS(Comm_free_keyval);

int PMPI_Keyval_free(int *keyval) {
  PAMIR_ENTER("MPI_Keyval_free");
  return free_keyval(fn_, keyval);
}
PAMIR_ALIAS(Keyval_free);

int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val) {
  PAMIR_ENTER("MPI_Comm_set_attr");
  return set_attr(fn_, comm, comm_keyval, attribute_val);
}
PAMIR_ALIAS(Comm_set_attr);

int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val) {
  PAMIR_ENTER("MPI_Attr_put");
  return set_attr(fn_, comm, keyval, attribute_val);
}
PAMIR_ALIAS(Attr_put);

int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag) {
  PAMIR_ENTER("MPI_Comm_get_attr");
  return get_attr(fn_, comm, comm_keyval, attribute_val, flag);
}
PAMIR_ALIAS(Comm_get_attr);

int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag) {
  PAMIR_ENTER("MPI_Attr_get");
  return get_attr(fn_, comm, keyval, attribute_val, flag);
}
PAMIR_ALIAS(Attr_get);

int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval) {
  PAMIR_ENTER("MPI_Comm_delete_attr");
  return delete_attr(fn_, comm, comm_keyval);
}
PAMIR_ALIAS(Comm_delete_attr);

int PMPI_Attr_delete(MPI_Comm comm, int keyval) {
  PAMIR_ENTER("MPI_Attr_delete");
  return delete_attr(fn_, comm, keyval);
}
PAMIR_ALIAS(Attr_delete);
