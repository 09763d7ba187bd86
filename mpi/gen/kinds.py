"""Shared model of the MPI 5.0 standard ABI for Pamir's generators.

Reads the two machine-readable tables of the standard (copied from shared/abi/):

  mpi-5.0-procedures.json     every procedure and callback with its parameters' semantic kinds
  mpi-5.0-abi-constants.json  every constant with its ABI value

and turns them into C: the kind -> C-type table below maps each parameter kind, together with the
parameter's flags (dir, pointer, array, const, large_only), to the C declaration the standard's
C binding uses. "POLY" kinds are the ones whose C type differs between MPI_X (int or MPI_Aint) and
its large-count variant MPI_X_c (MPI_Count or MPI_Aint).

Used by gen_header.py (mpi.h), gen_bindings.py (bindings.cc) and test/abi/*.py.
"""

import json
import os
import re
import shutil
import subprocess

# --------------------------------------------------------------------------------------------------
# Handles: kind -> C type. Each is a pointer to an incomplete struct in the standard ABI.
HANDLE_KINDS = {
    "COMMUNICATOR": "MPI_Comm",
    "DATATYPE": "MPI_Datatype",
    "ERRHANDLER": "MPI_Errhandler",
    "FILE": "MPI_File",
    "GROUP": "MPI_Group",
    "INFO": "MPI_Info",
    "MESSAGE": "MPI_Message",
    "OPERATION": "MPI_Op",
    "REQUEST": "MPI_Request",
    "SESSION": "MPI_Session",
    "WINDOW": "MPI_Win",
    # MPI_T (tools information interface)
    "CVAR": "MPI_T_cvar_handle",
    "PVAR": "MPI_T_pvar_handle",
    "PVAR_SESSION": "MPI_T_pvar_session",
    "TOOLS_ENUM": "MPI_T_enum",
    "EVENT_REGISTRATION": "MPI_T_event_registration",
    "EVENT_INSTANCE": "MPI_T_event_instance",
}

# The MPI handle types of the standard ABI, in the order mpi.h declares them: (C type, struct tag).
HANDLE_TYPES = [
    ("MPI_Comm", "MPI_ABI_Comm"),
    ("MPI_Datatype", "MPI_ABI_Datatype"),
    ("MPI_Errhandler", "MPI_ABI_Errhandler"),
    ("MPI_File", "MPI_ABI_File"),
    ("MPI_Group", "MPI_ABI_Group"),
    ("MPI_Info", "MPI_ABI_Info"),
    ("MPI_Message", "MPI_ABI_Message"),
    ("MPI_Op", "MPI_ABI_Op"),
    ("MPI_Request", "MPI_ABI_Request"),
    ("MPI_Session", "MPI_ABI_Session"),
    ("MPI_Win", "MPI_ABI_Win"),
]
TOOL_HANDLE_TYPES = [
    ("MPI_T_enum", "MPI_T_enum_t"),
    ("MPI_T_cvar_handle", "MPI_T_cvar_handle_t"),
    ("MPI_T_pvar_handle", "MPI_T_pvar_handle_t"),
    ("MPI_T_pvar_session", "MPI_T_pvar_session_t"),
    ("MPI_T_event_registration", "MPI_T_event_registration_t"),
    ("MPI_T_event_instance", "MPI_T_event_instance_t"),
]

# MPI_<Name>_toint / _fromint: <Name> -> handle type.
TOINT_HANDLES = {
    "Comm": "MPI_Comm",
    "Errhandler": "MPI_Errhandler",
    "File": "MPI_File",
    "Group": "MPI_Group",
    "Info": "MPI_Info",
    "Message": "MPI_Message",
    "Op": "MPI_Op",
    "Request": "MPI_Request",
    "Session": "MPI_Session",
    "Type": "MPI_Datatype",
    "Win": "MPI_Win",
}

# The null handle of each type (what an unsupported MPI_X_fromint returns).
NULL_HANDLE = {
    "MPI_Comm": "MPI_COMM_NULL",
    "MPI_Datatype": "MPI_DATATYPE_NULL",
    "MPI_Errhandler": "MPI_ERRHANDLER_NULL",
    "MPI_File": "MPI_FILE_NULL",
    "MPI_Group": "MPI_GROUP_NULL",
    "MPI_Info": "MPI_INFO_NULL",
    "MPI_Message": "MPI_MESSAGE_NULL",
    "MPI_Op": "MPI_OP_NULL",
    "MPI_Request": "MPI_REQUEST_NULL",
    "MPI_Session": "MPI_SESSION_NULL",
    "MPI_Win": "MPI_WIN_NULL",
}

# --------------------------------------------------------------------------------------------------
# Value kinds: kind -> (C type in MPI_X, C type in MPI_X_c). Non-POLY kinds have the same type in
# both. A parameter with dir out/inout (unless "pointer": false) or "pointer": true is passed by
# pointer; one with an "array" entry is declared as `T name[]`; "const" prefixes const.
VALUE_KINDS = {}


def _same(ctype, *kinds):
    for k in kinds:
        VALUE_KINDS[k] = (ctype, ctype)


_same(
    "int",
    # ranks, tags, sizes, lengths, indices, flags, codes, enumerations held in int
    "RANK", "RANK_NNI", "TAG", "COLOR", "KEY", "KEYVAL", "KEY_INDEX", "ERROR_CODE", "ERROR_CLASS",
    "LOGICAL", "LOGICAL_OPTIONAL", "COMM_SIZE", "COMM_SIZE_PI", "ARRAY_LENGTH", "ARRAY_LENGTH_NNI",
    "ARRAY_LENGTH_PI", "INDEX", "DEGREE", "DIMENSION", "NUM_DIMS", "COORDINATE", "WEIGHT",
    "THREAD_LEVEL", "VERSION", "STRING_LENGTH", "ACCESS_MODE", "ASSERT", "LOCK_TYPE", "ORDER",
    "TYPECLASS", "TYPECLASS_SIZE", "TOPOLOGY_TYPE", "COMBINER", "COMM_COMPARISON",
    "GROUP_COMPARISON", "SPLIT_TYPE", "UPDATE_MODE", "ARGUMENT_COUNT", "DISTRIB_ENUM",
    "DTYPE_DISTRIBUTION", "PROCESS_GRID_SIZE", "PROFILE_LEVEL", "PARTITION", "BIND_TYPE",
    "VARIABLE_SCOPE", "TOOL_VAR_VERBOSITY", "PVAR_CLASS", "CVAR_INDEX", "CVAR_INDEX_SPECIAL",
    "PVAR_INDEX", "CAT_INDEX", "EVENT_INDEX", "SOURCE_INDEX", "TOOLENUM_INDEX", "TOOLENUM_SIZE",
    "TOOLS_NUM_ELEM_SMALL", "TOOL_VAR_VALUE", "INFO_VALUE_LENGTH", "FILE_DESCRIPTOR",
    "GENERIC_DTYPE_INT", "UPDATE_NUMBER", "MATH",
)
_same(
    "MPI_Aint",
    "DISPLACEMENT", "DISPLACEMENT_NNI", "DISPOFFSET_SMALL", "ALLOC_MEM_NUM_BYTES", "WINDOW_SIZE",
    "WIN_ATTACH_SIZE", "LOCATION_SMALL", "RMA_DISPLACEMENT_NNI",
)
_same("MPI_Offset", "OFFSET")
_same(
    "MPI_Count",
    "XFER_NUM_ELEM", "XFER_NUM_ELEM_NNI", "NUM_BYTES", "TOOLS_TICK_COUNT", "DROPPED_COUNT",
    "GENERIC_DTYPE_COUNT",
)
_same("MPI_T_cb_safety", "CALLBACK_SAFETY")
_same("MPI_T_source_order", "SOURCE_ORDERING")
_same("MPI_Status", "STATUS")
_same("MPI_Fint", "F90_STATUS", "F90_COMM", "F90_DATATYPE", "F90_ERRHANDLER", "F90_FILE",
      "F90_GROUP", "F90_INFO", "F90_MESSAGE", "F90_OP", "F90_REQUEST", "F90_SESSION", "F90_WIN")
_same("MPI_F08_status", "F08_STATUS")
for _k, _t in HANDLE_KINDS.items():
    VALUE_KINDS[_k] = (_t, _t)

# The POLY kinds (MPI 4.0 large counts): (MPI_X, MPI_X_c).
VALUE_KINDS.update({
    "POLYXFER_NUM_ELEM": ("int", "MPI_Count"),
    "POLYXFER_NUM_ELEM_NNI": ("int", "MPI_Count"),
    "POLYDTYPE_NUM_ELEM": ("int", "MPI_Count"),
    "POLYDTYPE_NUM_ELEM_NNI": ("int", "MPI_Count"),
    "POLYDTYPE_NUM_ELEM_PI": ("int", "MPI_Count"),
    "POLYDISPLACEMENT": ("int", "MPI_Aint"),
    "POLYDISPLACEMENT_COUNT": ("int", "MPI_Count"),
    "POLYDISPLACEMENT_AINT_COUNT": ("MPI_Aint", "MPI_Count"),
    "POLYDISPOFFSET": ("MPI_Aint", "MPI_Count"),
    "POLYDTYPE_PACK_SIZE": ("MPI_Aint", "MPI_Count"),
    "POLYDTYPE_STRIDE_BYTES": ("MPI_Aint", "MPI_Count"),
    "POLYLOCATION": ("MPI_Aint", "MPI_Count"),
    "POLYNUM_BYTES": ("int", "MPI_Count"),
    "POLYNUM_BYTES_NNI": ("int", "MPI_Count"),
    "POLYNUM_PARAM_VALUES": ("int", "MPI_Count"),
    "POLYRMA_DISPLACEMENT": ("int", "MPI_Aint"),
})

# Kinds that are already a `void *` in C whatever their direction (buffers, attribute values,
# extra state, addresses handed out by the library): never an extra level of pointer.
VOID_POINTER_KINDS = {
    "BUFFER", "C_BUFFER", "C_BUFFER2", "C_BUFFER3", "C_BUFFER4", "ATTRIBUTE_VAL",
    "ATTRIBUTE_VAL_10", "EXTRA_STATE", "EXTRA_STATE2", "LOGICAL_VOID", "TOOL_MPI_OBJ",
}

# Function-pointer parameters. FUNCTION: by parameter name; POLYFUNCTION: by name, (MPI_X, MPI_X_c).
FUNCTION_PARAMS = {
    "comm_errhandler_fn": "MPI_Comm_errhandler_function",
    "file_errhandler_fn": "MPI_File_errhandler_function",
    "win_errhandler_fn": "MPI_Win_errhandler_function",
    "session_errhandler_fn": "MPI_Session_errhandler_function",
    "comm_copy_attr_fn": "MPI_Comm_copy_attr_function",
    "comm_delete_attr_fn": "MPI_Comm_delete_attr_function",
    "type_copy_attr_fn": "MPI_Type_copy_attr_function",
    "type_delete_attr_fn": "MPI_Type_delete_attr_function",
    "win_copy_attr_fn": "MPI_Win_copy_attr_function",
    "win_delete_attr_fn": "MPI_Win_delete_attr_function",
    "copy_fn": "MPI_Copy_function",
    "delete_fn": "MPI_Delete_function",
    "query_fn": "MPI_Grequest_query_function",
    "free_fn": "MPI_Grequest_free_function",
    "cancel_fn": "MPI_Grequest_cancel_function",
    "dtype_file_extent_fn": "MPI_Datarep_extent_function",
}
POLYFUNCTION_PARAMS = {
    "user_fn": ("MPI_User_function", "MPI_User_function_c"),
    "read_conversion_fn": ("MPI_Datarep_conversion_function", "MPI_Datarep_conversion_function_c"),
    "write_conversion_fn": ("MPI_Datarep_conversion_function", "MPI_Datarep_conversion_function_c"),
}
CALLBACK_KINDS = {
    "EVENT_CB_FUNCTION": "MPI_T_event_cb_function",
    "EVENT_DROP_CB_FUNCTION": "MPI_T_event_dropped_cb_function",
    "EVENT_FREE_CB_FUNCTION": "MPI_T_event_free_cb_function",
}

# Callbacks whose C type returns void (all others return int).
VOID_CALLBACKS = {
    "MPI_User_function", "MPI_Comm_errhandler_function", "MPI_File_errhandler_function",
    "MPI_Win_errhandler_function", "MPI_Session_errhandler_function", "MPI_T_event_cb_function",
    "MPI_T_event_dropped_cb_function", "MPI_T_event_free_cb_function",
}

# Names that are keywords in C or C++ and so cannot be parameter names.
_RESERVED = {"new", "delete", "class", "template", "this", "operator", "restrict", "register",
             "default", "typename", "private", "public", "protected", "friend", "virtual"}


# Where the procedures table disagrees with the MPI 5.0 standard's C bindings (and with the MPI Forum's
# reference standard-ABI header): corrections applied to a parameter's entry before it is rendered.
#   MPI_Group_range_incl/_excl: `int ranges[][3]`, triplets, where the table says an array of ranks.
#   MPI_Psend_init/MPI_Precv_init: `int count`; MPI 4.1 gave them _c forms with MPI_Count, and the table
#   still has the MPI 4.0 kind.
PARAM_ERRATA = {
    ("MPI_Group_range_incl", "ranges"): {"array_shape": "[][3]"},
    ("MPI_Group_range_excl", "ranges"): {"array_shape": "[][3]"},
    ("MPI_Psend_init", "count"): {"kind": "POLYXFER_NUM_ELEM_NNI"},
    ("MPI_Precv_init", "count"): {"kind": "POLYXFER_NUM_ELEM_NNI"},
}


# Arrays that may be given as MPI_UNWEIGHTED or MPI_WEIGHTS_EMPTY, the standard ABI's small integer
# pointers: declared `const int *` rather than `const int []` (the same type to C and C++), because GCC
# reads the array form as a promise to read the argument and warns (-Wstringop-overread, an error under
# -Werror) on every call that passes one of the sentinels.
SENTINEL_ARRAYS = {"weights", "sourceweights", "destweights"}


def corrected(proc_name, raw):
    fix = PARAM_ERRATA.get((proc_name, raw["name"]))
    return {**raw, **fix} if fix else raw


class Param:
    def __init__(self, raw, large):
        self.raw = raw
        self.name = raw["name"] if raw["name"] not in _RESERVED else raw["name"] + "_"
        self.kind = raw["kind"]
        self.dir = raw.get("dir", "in")
        self.large = large
        self.ctype, self.decl = _render(raw, large, self.name)
        self.unnamed = _render(raw, large, "")[1].replace(" []", "[]").rstrip()

    def is_comm_in(self):
        """A communicator passed by value (what an unsupported stub hands to the error handler)."""
        return self.kind == "COMMUNICATOR" and self.decl == "MPI_Comm " + self.name


def _render(p, large, name):
    """(base C type, full C declaration of the parameter)."""
    kind = p["kind"]
    d = p.get("dir", "in")
    const = "const " if p.get("const") else ""
    array = "array" in p
    ptr_flag = p.get("pointer")
    by_pointer = (d in ("out", "inout") and ptr_flag is not False) or ptr_flag is True

    if kind == "VARARGS":
        return "...", "..."
    if kind in VOID_POINTER_KINDS:
        return "void *", f"{const}void *{name}"
    if kind == "STRING":
        if array and p["array"] == "*":  # e.g. `const char datarep[]`
            return "char", f"{const}char {name}[]"
        return "char *", f"{const}char *{name}"
    if kind == "STRING_ARRAY":
        return "char *", f"char *{name}[]"
    if kind == "STRING_2DARRAY":
        return "char **", f"char **{name}[]"
    if kind == "ARGUMENT_LIST":
        if ptr_flag is False:  # MPI_Info_create_env(int argc, char *argv[], ...)
            return "char *", f"char *{name}[]"
        return "char ***", f"char ***{name}"
    if kind == "FUNCTION":
        if p["name"] not in FUNCTION_PARAMS:
            raise KeyError(f"kinds.py: no callback type for FUNCTION parameter {p['name']!r}")
        t = FUNCTION_PARAMS[p["name"]]
        return t + " *", f"{t} *{name}"
    if kind == "POLYFUNCTION":
        t = POLYFUNCTION_PARAMS[p["name"]][1 if large else 0]
        return t + " *", f"{t} *{name}"
    if kind in CALLBACK_KINDS:
        t = CALLBACK_KINDS[kind]
        return t + " *", f"{t} *{name}"
    if kind not in VALUE_KINDS:
        raise KeyError(f"kinds.py: parameter kind {kind!r} (parameter {p['name']!r}) has no C type")
    t = VALUE_KINDS[kind][1 if large else 0]
    if kind in ("STATUS", "F08_STATUS") and not array:
        by_pointer = True  # a status is always passed by address
    if array and p["name"] in SENTINEL_ARRAYS:
        return t, f"{const}{t} *{name}"
    if array:
        return t, f"{const}{t} {name}{p.get('array_shape', '[]')}"
    if by_pointer:
        return t, f"{const}{t} *{name}"
    return t, f"{const}{t} {name}"


class Procedure:
    """One C function of the ABI (MPI_X or its large-count variant MPI_X_c)."""

    def __init__(self, raw, large):
        self.raw = raw
        self.base = raw["name"]
        self.large = large
        self.name = self.base + ("_c" if large else "")
        self.short = self.name[len("MPI_"):]  # "Send_c"
        self.pname = "P" + self.name
        self.deprecated = raw.get("deprecated", False)
        self.params = [Param(corrected(self.base, p), large) for p in raw["params"]
                       if large or not p.get("large_only")]
        self.ret = return_type(self.name)

    def param_list(self, names=True):
        if not self.params:
            return "void"
        return ", ".join(p.decl if names else p.unnamed for p in self.params)

    def prototype(self, name=None, names=True):
        return f"{self.ret} {name or self.name}({self.param_list(names)})"

    def comm_param(self):
        for p in self.params:
            if p.is_comm_in():
                return p.name
        return None


def return_type(name):
    if re.fullmatch(r"MPI_(Wtime|Wtick)", name):
        return "double"
    if name in ("MPI_Aint_add", "MPI_Aint_diff"):
        return "MPI_Aint"
    m = re.fullmatch(r"MPI_(\w+)_fromint", name)
    if m and m.group(1) in TOINT_HANDLES:
        return TOINT_HANDLES[m.group(1)]
    return "int"


class Callback:
    """A callback typedef of the standard (its _c variant where large)."""

    def __init__(self, raw, large):
        self.base = raw["name"]
        self.name = self.base + ("_c" if large else "")
        self.ret = "void" if self.base in VOID_CALLBACKS else "int"
        self.params = []
        for p in raw["params"]:
            self.params.append(Param(p, large))

    def typedef(self):
        return f"typedef {self.ret} ({self.name})({', '.join(p.decl for p in self.params)});"


def load(gen_dir):
    with open(os.path.join(gen_dir, "mpi-5.0-procedures.json")) as f:
        procs = json.load(f)
    with open(os.path.join(gen_dir, "mpi-5.0-abi-constants.json")) as f:
        consts = json.load(f)
    return procs, consts


def procedures(gen_dir):
    """Every exported function of the standard ABI, in list order, each followed by its _c variant."""
    procs, _ = load(gen_dir)
    out = []
    for raw in procs["procedures"]:
        if raw.get("callback") or "abi" in raw:
            continue
        out.append(Procedure(raw, False))
        if raw.get("large_count"):
            out.append(Procedure(raw, True))
    m = re.search(r"\((\d+) functions in all\)", procs.get("source", ""))
    if m and int(m.group(1)) != len(out):
        raise SystemExit(f"kinds.py: the list announces {m.group(1)} functions, found {len(out)}")
    return out


def callbacks(gen_dir):
    procs, _ = load(gen_dir)
    out = []
    for raw in procs["procedures"]:
        if not raw.get("callback"):
            continue
        out.append(Callback(raw, False))
        if raw.get("large_count"):
            out.append(Callback(raw, True))
    return out


def constants(gen_dir):
    _, consts = load(gen_dir)
    return consts


def clang_format(text, suffix):
    """Apply the repository's .clang-format when clang-format is installed (cosmetic only)."""
    exe = shutil.which("clang-format")
    style = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".clang-format")
    if not exe or not os.path.exists(style):
        return text
    try:
        r = subprocess.run([exe, f"--style=file:{os.path.abspath(style)}", f"--assume-filename=x{suffix}"],
                           input=text, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return text
    return r.stdout if r.returncode == 0 and r.stdout else text


def write(path, text, only_if_changed=False):
    """Atomically; always (so make sees a fresh target) unless only_if_changed."""
    if only_if_changed:
        try:
            with open(path) as f:
                if f.read() == text:
                    return
        except FileNotFoundError:
            pass
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)
