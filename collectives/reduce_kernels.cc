// The vectorised kernels of the predefined reductions, for one instruction set: this file is compiled
// once per set (Makefile.am: -DPAMIR_REDUCE_ISA=baseline with the build's own target, SSE2 on x86-64, =avx2
// with -mavx2, =avx512 with -mavx512f -mavx512bw -mavx512dq -mavx512vl), each time with the vectoriser's
// dynamic cost model, and MPI_Init installs the widest set the CPU runs (reduce_ops.cc). Only the
// plain loops of reduce_loops.h are here: every integer, float and double, logical and byte type.
#include "collectives/reduce_loops.h"

#ifndef PAMIR_REDUCE_ISA
#error "compile with -DPAMIR_REDUCE_ISA=<instruction set>"
#endif
#define PAMIR_CAT2(a, b) a##b
#define PAMIR_CAT(a, b) PAMIR_CAT2(a, b)

namespace pamir::coll {

void PAMIR_CAT(fill_reduce_kernels_, PAMIR_REDUCE_ISA)(ReduceTable &t) {
  fill_table<PlainLoop, vectorisable>(t, std::make_index_sequence<kOps * kTypes>());
}

}  // namespace pamir::coll
