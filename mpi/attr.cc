// Attribute caching on communicators (MPI 4.1 §7.7): keyvals, set/get/delete, copy callbacks on
// MPI_Comm_dup, delete callbacks on MPI_Comm_free, and the predefined attributes.
//
// A keyval is reference counted: the user's integer is one reference, every attribute cached with it
// another, so a keyval freed while attributes still use it lives until the last of them is deleted
// (its delete callback still runs). Keyval integers are never reused. The predefined copy and delete
// functions (MPI_COMM_DUP_FN = 1, MPI_COMM_NULL_COPY_FN = 0, MPI_COMM_NULL_DELETE_FN = 0, and the
// deprecated MPI_DUP_FN / MPI_NULL_COPY_FN / MPI_NULL_DELETE_FN) are sentinels interpreted here, never
// called. Delete callbacks run in the reverse order in which the attributes were set (what MPI requires
// for MPI_COMM_SELF at MPI_Finalize, and a sensible order everywhere else).
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

// Each attribute's set order, kept beside the value: attrs maps keyval -> Attr; the order lives in a
// parallel map so that Attr stays {keyval, value}.
std::map<std::pair<const Comm *, int>, uint64_t> &set_order() {
  static auto *m = new std::map<std::pair<const Comm *, int>, uint64_t>;
  return *m;
}

MPI_Comm comm_handle(Comm *c) {
  if (c == comm_world()) return MPI_COMM_WORLD;
  if (c == comm_self()) return MPI_COMM_SELF;
  return handle_of<MPI_Comm>(c);
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

// Runs the delete callback of attribute `id` of c; MPI_SUCCESS or the callback's error (not raised).
int run_delete(Comm *c, int id, const Attr &a) {
  MPI_Comm_delete_attr_function *del = a.keyval->del;
  if (del == MPI_COMM_NULL_DELETE_FN) return MPI_SUCCESS;
  return del(comm_handle(c), id, a.value, a.keyval->extra_state);
}

// Removes attribute `id` from c after its delete callback succeeded.
void drop(Comm *c, int id) {
  auto it = c->attrs.find(id);
  if (it == c->attrs.end()) return;
  Keyval *k = it->second.keyval;
  c->attrs.erase(it);
  set_order().erase({c, id});
  keyval_release(k);
}

// Deletes one attribute, callback first. Returns MPI_SUCCESS or the raised error.
int delete_one(Comm *c, int id, const char *fn) {
  auto it = c->attrs.find(id);
  if (it == c->attrs.end()) return MPI_SUCCESS;
  Attr a = it->second;
  if (int rc = run_delete(c, id, a)) return callback_failed(c, fn, "delete", id, rc);
  drop(c, id);
  return MPI_SUCCESS;
}

void store(Comm *c, int id, Keyval *k, void *value) {
  auto it = c->attrs.find(id);
  if (it == c->attrs.end()) {
    ++k->refs;
    c->attrs.emplace(id, Attr{k, value});
  } else {
    it->second.value = value;
  }
  set_order()[{c, id}] = ++keyvals().seq;
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
  auto it = c->attrs.find(keyval);
  if (it != c->attrs.end()) {
    // Replacing a value deletes the old one first (MPI 4.1 §7.7.2).
    Attr old = it->second;
    if (int rc = run_delete(c, keyval, old)) return callback_failed(c, fn_, "delete", keyval, rc);
  }
  store(c, keyval, k, value);
  return MPI_SUCCESS;
}

int get_attr(const char *fn_, MPI_Comm comm, int keyval, void *attribute_val, int *flag) {
  Comm *c = PAMIR_COMM(comm);
  PAMIR_CHECK(c, attribute_val && flag, MPI_ERR_ARG, "attribute_val or flag is NULL");
  if (predefined_keyval(keyval)) {
    *static_cast<void **>(attribute_val) = predefined_value(keyval);
    *flag = 1;
    return MPI_SUCCESS;
  }
  PAMIR_CHECK(c, keyval_of(keyval), MPI_ERR_KEYVAL, "%d is not a valid keyval", keyval);
  auto it = c->attrs.find(keyval);
  *flag = it != c->attrs.end();
  if (*flag) *static_cast<void **>(attribute_val) = it->second.value;
  return MPI_SUCCESS;
}

int delete_attr(const char *fn_, MPI_Comm comm, int keyval) {
  Comm *c = PAMIR_COMM(comm);
  PAMIR_CHECK(c, !predefined_keyval(keyval), MPI_ERR_KEYVAL, "predefined attribute %d cannot be deleted",
              keyval);
  PAMIR_CHECK(c, keyval_of(keyval), MPI_ERR_KEYVAL, "%d is not a valid keyval", keyval);
  return delete_one(c, keyval, fn_);
}

}  // namespace

int attrs_copy(Comm *from, Comm *to, const char *fn) {
  // Callbacks may call MPI (even change from's attributes): work from a snapshot of the keys.
  std::vector<int> ids;
  for (const auto &kv : from->attrs) ids.push_back(kv.first);
  for (int id : ids) {
    auto it = from->attrs.find(id);
    if (it == from->attrs.end()) continue;
    Attr a = it->second;
    MPI_Comm_copy_attr_function *copy = a.keyval->copy;
    if (copy == MPI_COMM_NULL_COPY_FN) continue;
    void *out = a.value;
    int flag = 1;
    if (copy != MPI_COMM_DUP_FN) {
      out = nullptr;
      flag = 0;
      if (int rc = copy(comm_handle(from), id, a.keyval->extra_state, a.value, &out, &flag)) {
        // The duplicate fails: what was copied so far is deleted again (errors of that ignored).
        while (!to->attrs.empty()) {
          int k = to->attrs.begin()->first;
          (void)run_delete(to, k, to->attrs.begin()->second);
          drop(to, k);
        }
        return callback_failed(from, fn, "copy", id, rc);
      }
    }
    if (flag) store(to, id, a.keyval, out);
  }
  return MPI_SUCCESS;
}

int attrs_delete_all(Comm *c, const char *fn) {
  auto &order = set_order();
  while (!c->attrs.empty()) {
    // The most recently set first.
    int last = c->attrs.begin()->first;
    uint64_t best = 0;
    for (const auto &kv : c->attrs) {
      auto o = order.find({c, kv.first});
      uint64_t s = o == order.end() ? 0 : o->second;
      if (s >= best) {
        best = s;
        last = kv.first;
      }
    }
    if (int rc = delete_one(c, last, fn)) return rc;
  }
  return MPI_SUCCESS;
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
