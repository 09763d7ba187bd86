// Reduction operations: the predefined MPI_Op objects (MPI_SUM .. MPI_NO_OP), user operations
// (MPI_Op_create), and what a reduction applies to a datatype (make_reduction).
#pragma once

#include <mpi.h>

#include <deque>

#include "collectives/reduce_ops.h"
#include "mpi/object.h"

namespace pamir::mpi {

struct Comm;
struct Datatype;

// A user function bound to the datatype of a call: what coll::Reduction::arg points at. Kept in the Op
// (one per datatype it was used with), so a reduction carries no per-call allocation.
struct Op;
struct UserBinding {
  Op *op;
  const Datatype *type;
  MPI_Datatype handle;  // handed to the user function
};

struct Op : Object {
  static constexpr Kind kKind = Kind::op;
  coll::OpKind builtin = coll::OpKind::sum;
  bool is_builtin = false;
  MPI_User_function *fn = nullptr;
  MPI_User_function_c *fn_c = nullptr;  // MPI_Op_create_c
  bool commute = true;
  std::deque<UserBinding> bindings;  // stable addresses
};

// Registers the predefined operations in predefined_slot<Op>. Called by MPI_Init; idempotent.
void ops_init();

// The reduction of `op` on elements of `type`, ready for the collectives. A predefined op on a type MPI
// does not define it for (or MPI_REPLACE/MPI_NO_OP outside one-sided communication) raises MPI_ERR_OP
// on c naming both. Returns MPI_SUCCESS or the raised code.
int make_reduction(Comm *c, Op *op, Datatype *type, coll::Reduction &out, const char *fn);

// MPI_ERR_OP for a handle that is not a live operation (MPI_OP_NULL, freed, garbage).
[[gnu::cold]] int bad_op(Comm *c, const char *fn, MPI_Op h);

}  // namespace pamir::mpi
