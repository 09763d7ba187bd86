// Attribute caching (MPI 4.1 §7.7): keyvals and the attributes cached on communicators and datatypes
// (mpi/attr.cc).
#pragma once

#include <mpi.h>

#include <cstdint>

#include "mpi/object.h"

namespace pamir::mpi {

struct Comm;
struct Datatype;

enum class KeyvalKind { comm, type, win };

struct Keyval : Object {
  static constexpr Kind kKind = Kind::keyval;
  KeyvalKind kind = KeyvalKind::comm;
  // Stored as the generic (comm) signatures; MPI_*_DUP_FN and MPI_*_NULL_*_FN sentinels included.
  MPI_Comm_copy_attr_function *copy = nullptr;
  MPI_Comm_delete_attr_function *del = nullptr;
  void *extra_state = nullptr;
  int id = 0;  // the keyval integer handed to the user
};

struct Attr {
  Keyval *keyval;
  void *value;
  // When the value was set (a counter over all attributes): the delete order, and how a deletion whose
  // callback ran unlocked tells afterwards whether the value it deleted was replaced meanwhile.
  uint64_t seq = 0;
  // The value's delete callback is running (unlocked): no other deletion runs it again.
  bool deleting = false;
};

// Attributes: copy on dup, delete on free (MPI_COMM_SELF's first at finalize). The user callbacks run
// with the library lock released.
int attrs_copy(Comm *from, Comm *to, const char *fn);
int attrs_copy(Datatype *from, Datatype *to, const char *fn);
int attrs_delete_all(Comm *c, const char *fn);
int attrs_delete_all(Datatype *t, const char *fn);
// Drops what an object still caches without callbacks (it is being destroyed), giving the keyvals back.
void attrs_forget(Comm *c);
void attrs_forget(Datatype *t);

}  // namespace pamir::mpi
