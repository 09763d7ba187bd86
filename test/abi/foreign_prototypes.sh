#!/bin/sh
# Automake test: the prototypes of Open MPI's and MPICH's mpi.h (Debian's packages, independently
# written from the standard) redeclared after ours (test/abi/foreign_prototypes.py). scripts/test
# installs libopenmpi-dev, so CI always has at least that one; a build with neither skips (77).
srcdir=${srcdir:-.}
headers=""
for h in /usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h /usr/include/x86_64-linux-gnu/mpich/mpi.h \
  "$(pkg-config --variable=includedir ompi-c 2>/dev/null)/mpi.h" "$(pkg-config --variable=includedir mpich 2>/dev/null)/mpi.h"; do
  [ -f "$h" ] || continue
  case " $headers " in *" $(readlink -f "$h") "*) continue ;; esac
  headers="$headers $(readlink -f "$h")"
done
if [ -z "$headers" ]; then
  echo "SKIP: no foreign mpi.h (install libopenmpi-dev or libmpich-dev)"
  exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/pamir-foreign.XXXXXX")
trap 'rm -rf "$work"' EXIT
# shellcheck disable=SC2086
"${PYTHON3:-python3}" "$srcdir/test/abi/foreign_prototypes.py" mpi/include "$work" $headers
