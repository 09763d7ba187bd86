// Type signatures compared across a message (seed 003, PAMIR_CHECK_SIGNATURE): the sequence of basic
// types of `count` elements of a layout, run-length coded with runs merged across element boundaries,
// folded into a 64-bit hash. A receive may hold more than the message, so the receiver hashes only the
// prefix of its own signature that the message's bytes cover, and the two hashes are equal exactly when
// the message's signature is that prefix (up to hash collisions).
#pragma once

#include <cstdint>

#include "datatype/layout.h"

namespace pamir::dt {

// The hash of the signature of the first `bytes` bytes of `count` elements of l. Returns false when
// those bytes end inside a basic element or go past the data (no prefix has that length).
bool signature_hash(const Layout &l, uint64_t count, uint64_t bytes, uint64_t &hash);

}  // namespace pamir::dt
