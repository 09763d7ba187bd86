#!/usr/bin/env python3
"""Every prototype of independently written MPI headers, redeclared after Pamir's mpi.h.

usage: foreign_prototypes.py OUR_INCLUDE_DIR WORK_DIR HEADER...

For each foreign header (Open MPI's and MPICH's mpi.h as Debian installs them, written by other
people from the standard's text), the `int MPI_X(...)` and `int PMPI_X(...)` declarations are taken
as they are written there, minus the library's own attribute macros, and redeclared after ours in C
(-std=c11 -pedantic -Werror) and in C++ inside extern "C". A parameter of another type than ours
makes a conflicting redeclaration, which does not compile. The type names resolve to our typedefs
(the standard ABI's), so what is compared is each prototype's shape: which types, which pointers,
which const, arrays such as int ranges[][3].

Procedures the foreign header has and ours does not are listed and skipped when the standard no
longer has them (deleted in MPI 3.0) or leaves them out of the C ABI (the Fortran conversions
MPI_X_c2f/f2c); any other is a failure. Foreign prototypes whose text the standard changed since that
library's version (ERRATA), or where the library departs from the standard (FOREIGN_SLIPS), are
listed with the reason and skipped.
"""

import os
import re
import subprocess
import sys

# Deleted from the standard (MPI 3.0), so not in a 5.0 header.
DELETED = {"Address", "Errhandler_create", "Errhandler_get", "Errhandler_set", "Type_extent",
           "Type_hindexed", "Type_hvector", "Type_lb", "Type_struct", "Type_ub", "Attr_delete",
           "Attr_get", "Attr_put", "Keyval_create", "Keyval_free"}
# In the standard but not in its C ABI: the conversions to and from Fortran (MPI_X_c2f, MPI_X_f2c and
# the status ones), which the ABI replaces with MPI_X_toint/_fromint.
NOT_IN_ABI = re.compile(r"_(c2f|f2c|c2f08|f082c|f2f08|f082f)$")
# Prototypes the standard changed after the foreign library's version (both MPI_X and PMPI_X).
ERRATA = {
    "Psend_init": "MPI 4.1 made count int (MPI 4.0 had MPI_Count; the _c form has it)",
    "Precv_init": "MPI 4.1 made count int (MPI 4.0 had MPI_Count; the _c form has it)",
}
# Declarations where the foreign header departs from the standard itself (checked against the standard's
# text: each is an IN array the standard declares const int x[]).
FOREIGN_SLIPS = {
    "mpich": {
        "MPI_Pready_list": "MPICH 4.0.2 drops the const of array_of_partitions[]",
        "PMPI_Pready_list": "MPICH 4.0.2 drops the const of array_of_partitions[]",
        "MPI_Type_create_darray": "MPICH 4.0.2's mpio.h declares array_of_psizes as const int, not const int[]",
    },
}
# Types a foreign header names for its own convenience, and what they are in the standard.
FOREIGN_TYPES = "typedef MPI_Request MPIO_Request; /* MPICH's ROMIO: the request of a nonblocking I/O call */\n"

def preprocessed(header):
    """The header as a program including it sees it: conditionals resolved, the library's macros
    (export and deprecation attributes) expanded, then every __attribute__((...)) removed."""
    text = subprocess.run(["gcc", "-E", "-P", "-x", "c", "-I", os.path.dirname(header), header],
                          capture_output=True, text=True, check=True).stdout
    out, i = [], 0
    for m in re.finditer(r"__attribute__\s*\(", text):
        if m.start() < i:
            continue
        out.append(text[i:m.start()])
        depth, j = 0, m.end() - 1
        while j < len(text):
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            j += 1
            if depth == 0:
                break
        i = j
    out.append(text[i:])
    return "".join(out)


def prototypes(text):
    out = {}
    for m in re.finditer(r"\bint\s+(P?MPI_\w+)\s*\(([^;{]*?)\)\s*([^;{]*);", text, re.S):
        name, params = m.group(1), " ".join(m.group(2).split())
        out[name] = params
    return out


def main():
    inc, work, headers = sys.argv[1], sys.argv[2], sys.argv[3:]
    with open(os.path.join(inc, "mpi.h")) as f:
        text = f.read()
    ours = set(re.findall(r"\bint\s+(P?MPI_\w+)\s*\(", text))
    # The standard ABI's predefined callbacks (MPI_DUP_FN, ...) are constants, which MPICH declares as
    # functions: not prototypes to compare.
    constants = set(re.findall(r"^#define\s+(MPI_\w+)", text, re.M))
    failures = 0
    for header in headers:
        found = prototypes(preprocessed(header))
        slips = FOREIGN_SLIPS.get("mpich" if "mpich" in header else "openmpi", {})
        kept, skipped, missing = [], [], []
        for name, params in sorted(found.items()):
            short = name.split("_", 1)[1]
            if short in ERRATA:
                skipped.append(f"{name} ({ERRATA[short]})")
            elif name in slips:
                skipped.append(f"{name} ({slips[name]})")
            elif name in constants:
                skipped.append(f"{name} (a constant in the standard ABI, a function in {header})")
            elif name in ours:
                kept.append(f"int {name}({params});")
            elif short in DELETED or NOT_IN_ABI.search(name):
                skipped.append(f"{name} ({'deleted in MPI 3.0' if short in DELETED else 'not in the C ABI'})")
            else:
                missing.append(name)
        tag = re.sub(r"\W+", "_", header)
        for lang, ext, flags, pre, post in (
                ("C", "c", ["gcc", "-std=c11", "-pedantic"], "", ""),
                ("C++", "cc", ["g++", "-std=c++17", "-pedantic"], 'extern "C" {\n', "}\n")):
            src = os.path.join(work, f"redeclare{tag}.{ext}")
            with open(src, "w") as f:
                f.write(f"/* The prototypes of {header}, redeclared after Pamir's mpi.h. */\n#include <mpi.h>\n")
                f.write(FOREIGN_TYPES)
                f.write(pre + "\n".join(kept) + "\n" + post)
            rc = subprocess.run(flags + ["-Wall", "-Wextra", "-Werror", "-I", inc, "-c", src, "-o", os.devnull],
                                capture_output=True, text=True)
            if rc.returncode != 0:
                failures += 1
                errors = [l for l in rc.stderr.splitlines() if "error" in l][:20]
                print(f"FAIL {header} ({lang}): a redeclaration conflicts with mpi.h:\n  " + "\n  ".join(errors))
            else:
                print(f"PASS {header} ({lang}): {len(kept)} prototypes redeclared after mpi.h")
        for s in skipped:
            print(f"SKIP {s}")
        for name in missing:
            failures += 1
            print(f"FAIL {header}: declares {name}, which Pamir's mpi.h does not")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
