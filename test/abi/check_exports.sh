#!/bin/sh
# Automake test: the exports of the built libmpi_abi.so against the MPI 5.0 procedure list.
# Run from the build directory (make check does); ABI_LIB overrides where the library is.
srcdir=${srcdir:-.}
lib=${ABI_LIB:-}
if [ -z "$lib" ]; then
  for f in .libs/libmpi_abi.so.1 .libs/libmpi_abi.so libmpi_abi.so.1; do
    if [ -f "$f" ]; then lib=$f; break; fi
  done
fi
if [ -z "$lib" ]; then
  echo "FAIL: libmpi_abi.so.1 not found in .libs/ (build the library first, or set ABI_LIB)"
  exit 1
fi
exec "${PYTHON3:-python3}" "$srcdir/test/abi/check_exports.py" "$srcdir/mpi/gen" "$lib"
