#!/usr/bin/env python3
"""Diff the dynamic symbols of libmpi_abi.so against the MPI 5.0 procedure list.

usage: check_exports.py GEN_DIR LIBRARY

Reads mpi-5.0-procedures.json directly: every entry that is not a callback and has no 'abi' note is an
exported function, and so is its MPI_X_c variant where 'large_count' is true. `nm -D --defined-only`
of the library must list exactly those as MPI_X (weak, W) and PMPI_X (strong, T), each MPI_X at the
address of its PMPI_X (an alias, not a wrapper), and nothing else: no C++ symbol (_Z...), no internal
helper. The soname must be libmpi_abi.so.1. One PASS/FAIL line per check; exit 1 on any failure.
"""

import json
import os
import re
import subprocess
import sys

# Symbols a linker may define in any shared object.
LINKER_SYMBOLS = {"_init", "_fini", "_edata", "_end", "__bss_start"}


def expected(gen_dir):
    with open(os.path.join(gen_dir, "mpi-5.0-procedures.json")) as f:
        table = json.load(f)
    names = []
    for p in table["procedures"]:
        if p.get("callback") or "abi" in p:
            continue
        names.append(p["name"])
        if p.get("large_count"):
            names.append(p["name"] + "_c")
    m = re.search(r"\((\d+) functions in all\)", table.get("source", ""))
    return names, int(m.group(1)) if m else None


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    gen_dir, lib = argv[1], argv[2]
    failures = 0

    def report(ok, what, detail=()):
        nonlocal failures
        print(f"{'PASS' if ok else 'FAIL'}: {what}")
        if not ok:
            failures += 1
            for d in list(detail)[:50]:
                print(f"    {d}")
            if len(detail) > 50:
                print(f"    ... and {len(detail) - 50} more")

    names, announced = expected(gen_dir)
    report(announced is None or announced == len(names),
           f"the procedure list gives {len(names)} functions (its source note says {announced})")
    report(len(set(names)) == len(names), "the procedure list has no duplicate")

    out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True)
    if out.returncode != 0:
        report(False, f"nm -D --defined-only {lib}", [out.stderr.strip()])
        return 1
    syms = {}
    for line in out.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3:
            addr, kind, name = parts
            syms[name.split("@")[0]] = (kind, addr)

    want_mpi = set(names)
    want_pmpi = {"P" + n for n in names}
    missing = sorted((want_mpi | want_pmpi) - set(syms))
    report(not missing, f"all {len(want_mpi)} MPI_X and {len(want_pmpi)} PMPI_X are exported", missing)

    bad_mpi = sorted(f"{n}: {syms[n][0]}" for n in want_mpi if n in syms and syms[n][0] != "W")
    report(not bad_mpi, "every MPI_X is a weak symbol (W)", bad_mpi)
    bad_pmpi = sorted(f"{n}: {syms[n][0]}" for n in want_pmpi if n in syms and syms[n][0] != "T")
    report(not bad_pmpi, "every PMPI_X is a strong text symbol (T)", bad_pmpi)
    not_alias = sorted(n for n in want_mpi if n in syms and "P" + n in syms and syms[n][1] != syms["P" + n][1])
    report(not not_alias, "every MPI_X has the address of its PMPI_X (an alias)", not_alias)

    extra_mpi = sorted(n for n in syms if re.match(r"P?MPI_", n) and n not in want_mpi | want_pmpi)
    report(not extra_mpi, "no MPI_/PMPI_ symbol outside the standard's list", extra_mpi)
    cxx = sorted(n for n in syms if n.startswith("_Z"))
    report(not cxx, "no C++ symbol is exported", cxx)
    other = sorted(n for n in syms if not re.match(r"P?MPI_", n) and not n.startswith("_Z") and n not in LINKER_SYMBOLS)
    report(not other, "nothing else is exported", other)

    dyn = subprocess.run(["readelf", "-d", lib], capture_output=True, text=True)
    m = re.search(r"\(SONAME\)\s+Library soname: \[([^\]]+)\]", dyn.stdout)
    report(m is not None and m.group(1) == "libmpi_abi.so.1", f"soname is libmpi_abi.so.1 ({m.group(1) if m else 'none'})")

    print(f"{'FAIL' if failures else 'PASS'}: exports of {os.path.basename(lib)}: {failures} check(s) failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
