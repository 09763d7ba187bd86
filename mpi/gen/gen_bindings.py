#!/usr/bin/env python3
"""Generate mpi/bindings.cc: the link-time completeness of the MPI 5.0 ABI.

usage: gen_bindings.py GEN_DIR OUTPUT/bindings.cc IMPL.cc...

The mechanism
-------------
Every procedure of mpi-5.0-procedures.json (with its MPI_X_c variant where the list marks one; 664
functions) is exported twice from libmpi_abi.so: PMPI_X, a strong symbol holding the code, and MPI_X, a
*weak alias* of it (same address: no extra call, and a profiling tool can override MPI_X and call
PMPI_X). An alias must be declared in the translation unit that defines its target, so:

* An implementation file under mpi/ defines the procedure under its PMPI_ name, at the start of a line,
  with exactly the signature of mpi.h, and right after it writes PAMIR_ALIAS(X);

      #include "pamir_alias.h"            // generated next to mpi.h; includes <mpi.h>
      int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
        ...
      }
      PAMIR_ALIAS(Send);                  // MPI_Send: weak alias of PMPI_Send

  The definition may be preceded by qualifiers on the same line (`PAMIR_API int PMPI_Send(`,
  `extern "C" double PMPI_Wtime(`). mpi.h declares both names extern "C" with default visibility, so
  they are exported although the library is compiled with -fvisibility=hidden, and a definition whose
  signature differs from mpi.h does not compile (conflicting declaration of a C function).
  PAMIR_ALIAS takes the type from mpi.h (decltype), so it never has to be kept in step by hand.

* This script scans the implementation sources given on its command line for such definitions and
  fails, naming file and line, if: a PMPI_X is defined whose X is not a procedure of the list; a
  PMPI_X is defined twice; a definition has no PAMIR_ALIAS(X) in the same file; or a PAMIR_ALIAS(X)
  has no definition in that file.

* For every procedure that no implementation file defines, bindings.cc gets a PMPI_X definition that
  calls pamir_unsupported("MPI_X", comm) -- which raises MPI_ERR_UNSUPPORTED_OPERATION through the
  error handler of comm (the procedure's first communicator argument, else MPI_COMM_NULL), with a
  message naming the procedure -- and returns its result (a double, MPI_Aint or handle-returning
  procedure returns 0 or the null handle after the call), plus its PAMIR_ALIAS.

* bindings.cc also defines pamir::abi::unsupported_procedures[] (nullptr-terminated) and
  pamir::abi::unsupported_count, hidden, for pamir_info.

The exported set is then exactly MPI_* and PMPI_* through mpi/exports.map; test/abi checks it with nm.
"""

import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kinds  # noqa: E402

DEF_RE = re.compile(
    r'^[ \t]*(?:(?:extern[ \t]*"[^"\n]*"|[A-Za-z_]\w*)[ \t]+)*?(?:int|double|MPI_\w+)[ \t]*\**[ \t]*\n?[ \t]*\**PMPI_(\w+)[ \t]*\(',
    re.M)
ALIAS_RE = re.compile(r"^[ \t]*PAMIR_ALIAS[ \t]*\([ \t]*(\w+)[ \t]*\)", re.M)


def strip_comments(text):
    """Blank out comments and string literals, keeping offsets (and so line numbers) intact."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            for k in range(i + 1, j - 1):
                if out[k] != "\n":
                    out[k] = " "
            i = j
            continue
        else:
            i += 1
            continue
        for k in range(i, j):
            if out[k] != "\n":
                out[k] = " "
        i = j
    return "".join(out)


def is_definition(text, open_paren):
    depth, i, n = 0, open_paren, len(text)
    while i < n:
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                break
        i += 1
    j = i + 1
    while j < n and text[j].isspace():
        j += 1
    return j < n and text[j] == "{"


def scan(sources, known):
    """{X: (file, line)} for every PMPI_X defined; errors as a list of messages."""
    defined, errors = {}, []
    for path in sources:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = strip_comments(f.read())

        def line_of(pos):
            return text.count("\n", 0, pos) + 1

        here = {}
        for m in DEF_RE.finditer(text):
            x = m.group(1)
            if not is_definition(text, m.end() - 1):
                continue
            where = f"{path}:{line_of(m.start(1))}"
            if x not in known:
                errors.append(f"{where}: PMPI_{x} is not a procedure of the MPI 5.0 standard ABI "
                              f"(mpi-5.0-procedures.json)")
                continue
            if x in defined:
                errors.append(f"{where}: PMPI_{x} is defined twice (first at {defined[x][0]}:{defined[x][1]})")
                continue
            defined[x] = (path, line_of(m.start(1)))
            here[x] = where
        aliases = {}
        for m in ALIAS_RE.finditer(text):
            aliases[m.group(1)] = f"{path}:{line_of(m.start(1))}"
        for x, where in here.items():
            if x not in aliases:
                errors.append(f"{where}: PMPI_{x} is defined but this file has no PAMIR_ALIAS({x}) "
                              f"after it, so MPI_{x} would not be exported")
        for x, where in aliases.items():
            if x not in here:
                errors.append(f"{where}: PAMIR_ALIAS({x}) but PMPI_{x} is not defined in this file "
                              f"(an alias must sit in the translation unit of its target)")
    return defined, errors


def stub(p):
    comm = p.comm_param()
    params = []
    for q in p.params:
        params.append(q.decl if q.name == comm else q.unnamed)
    plist = ", ".join(params) if params else "void"
    call = f'pamir_unsupported("{p.name}", {comm or "MPI_COMM_NULL"})'
    if p.ret == "int":
        body = f"return {call};"
    elif p.ret == "double":
        body = f"(void){call};\n  return 0.0;"
    elif p.ret == "MPI_Aint":
        body = f"(void){call};\n  return 0;"
    else:
        body = f"(void){call};\n  return {kinds.NULL_HANDLE[p.ret]};"
    return f'extern "C" {p.ret} {p.pname}({plist}) {{\n  {body}\n}}\nPAMIR_ALIAS({p.short});\n'


def generate(gen_dir, sources):
    procs = kinds.procedures(gen_dir)
    known = {p.short for p in procs}
    defined, errors = scan(sources, known)
    if errors:
        sys.stderr.write("gen_bindings.py: cannot generate bindings.cc:\n")
        for e in errors:
            sys.stderr.write(f"  {e}\n")
        sys.exit(1)
    missing = [p for p in procs if p.short not in defined]
    o = []
    w = o.append
    w("// bindings.cc: generated by mpi/gen/gen_bindings.py: do not edit.")
    w("// PMPI_X + weak MPI_X for every procedure of the MPI 5.0 standard ABI that no file under mpi/")
    w("// defines yet: each raises MPI_ERR_UNSUPPORTED_OPERATION naming itself. The mechanism is")
    w("// described at the top of gen_bindings.py.")
    w(f"// {len(procs)} procedures: {len(procs) - len(missing)} implemented, {len(missing)} unsupported.")
    w("#include <cstddef>")
    w("")
    w('#include "pamir_alias.h"')
    w("")
    w('extern "C" int pamir_unsupported(const char *name, MPI_Comm comm);')
    w("")
    w("// Implemented in mpi/*.cc:")
    for p in procs:
        if p.short in defined:
            path, line = defined[p.short]
            w(f"//   {p.pname}  {os.path.basename(path)}:{line}")
    w("")
    w("// Not implemented yet:")
    for p in missing:
        w(stub(p))
    w("namespace pamir::abi {")
    w('__attribute__((visibility("hidden"))) extern const char *const unsupported_procedures[];')
    w('__attribute__((visibility("hidden"))) extern const std::size_t unsupported_count;')
    w("// Every procedure of the standard that returns MPI_ERR_UNSUPPORTED_OPERATION; nullptr-terminated.")
    w("const char *const unsupported_procedures[] = {")
    for p in missing:
        w(f'    "{p.name}",')
    w("    nullptr};")
    w(f"const std::size_t unsupported_count = {len(missing)};")
    w("}  // namespace pamir::abi")
    return "\n".join(o) + "\n"


def main(argv):
    if len(argv) < 3:
        sys.exit("usage: gen_bindings.py GEN_DIR OUTPUT/bindings.cc IMPL.cc...")
    gen_dir, out, sources = argv[1], argv[2], argv[3:]
    text = kinds.clang_format(generate(gen_dir, sources), ".cc")
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    kinds.write(out, text)


if __name__ == "__main__":
    main(sys.argv)
