#!/usr/bin/python3
"""boundary_sweep.py - every CT_API function of include/ctorch.h against hostile arguments.

Reads the declarations (and the doc comment above each) from the header, then calls every function
through ctypes with
  (a) all pointer arguments NULL, and each pointer argument NULL alone (the others valid-ish),
  (b) each handle argument released (of its own kind) and a live handle of another kind,
  (c) size arrays with a negative size, sizes whose product overflows int64, and absurd counts,
  (d) NaN and infinity in float arguments that the header says must be finite.
A function returning ct_status must fail with a non-empty ct_last_error() that names it, leave its
out-parameters NULL and leak nothing (metrics tensors.live, storages.live and
memory.cpu.allocations_live unchanged); a NULL that the doc comment allows may succeed. Other functions must simply not crash. Each function runs in a forked child, so a crash or a
hang is that case's failure and the sweep goes on. Prints one line per failure, then exactly one line
"N passed, M failed"; exits non-zero on failures.

  boundary_sweep.py [--library build/src/libctorch.so] [--header include/ctorch.h] [-v] [names...]
"""
import argparse
import ctypes
import math
import os
import re
import signal
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CT_OK = 0
CT_FLOAT32 = 8
ABI_VERSION = 1
CASE_TIMEOUT_S = 20  # per child: a hang is reported as that function's failure

HANDLE_KINDS = [
    "ct_tensor", "ct_generator", "ct_symint", "ct_symfloat", "ct_symbool", "ct_shape_env",
    "ct_compile_options", "ct_compiled", "ct_dynamic_shapes", "ct_program", "ct_checkpoint",
    "ct_optimizer", "ct_lr_scheduler", "ct_autograd_ctx",
]
# Filled by the library for a callback only (ct_autograd_function_apply's forward): no released one.
NO_RELEASED = {"ct_autograd_ctx"}

# Documented exceptions the doc-comment reading below does not see. Each quotes the header.
NULL_ALLOWED = {
    # "Sets this thread's message to msg (copied; NULL means "") ..."
    ("ct_error_set", "msg"),
    # "dim NULL: over the flattened tensor" / "dim NULL: over every element"
    ("ct_tensor_argmax", "dim"), ("ct_tensor_argmin", "dim"), ("ct_tensor_all", "dim"), ("ct_tensor_any", "dim"),
    # "when indices is not NULL, their int64 positions"
    ("ct_tensor_max_pool2d", "indices"),
    # "ct_tensor_addmm (..., NULL beta or alpha means 1)"; baddbmm "beta or alpha NULL means 1"
    ("ct_tensor_addmm", "beta"), ("ct_tensor_addmm", "alpha"),
    ("ct_tensor_baddbmm", "beta"), ("ct_tensor_baddbmm", "alpha"),
    # "indices[k] ... or is NULL for a full slice" (an array whose entries may be NULL)
    # "lo or hi may be NULL (no bound), not both."
    ("ct_tensor_clamp", "lo"), ("ct_tensor_clamp", "hi"),
    # "nan, posinf, neginf point to the replacement values, or are NULL for PyTorch's defaults"
    ("ct_tensor_nan_to_num", "nan"), ("ct_tensor_nan_to_num", "posinf"), ("ct_tensor_nan_to_num", "neginf"),
    # "options NULL means the defaults" (conv2d)
    ("ct_tensor_conv2d", "options"),
    # "strides are in elements; NULL means contiguous."
    ("ct_tensor_from_blob", "strides"), ("ct_tensor_from_blob_v2", "strides"),
    # "ct_tensor_set_grad - replace t's gradient (NULL clears it, as zero_grad does)."
    ("ct_tensor_set_grad", "grad"),
    # "the mode it replaces goes to *previous (may be NULL)"
    ("ct_grad_mode_set", "previous"),
    # "... values may then be NULL" (a concrete number needs no binding)
    ("ct_symint_evaluate", "values"), ("ct_symfloat_evaluate", "values"), ("ct_symbool_evaluate", "values"),
    # ct_checkpoint_save: "metadata_json, when not NULL, is a JSON object"
    ("ct_checkpoint_save", "metadata_json"), ("ct_checkpoint_save_buffer", "metadata_json"),
    # "fan_in or fan_out by mode (...; NULL means "fan_in"), nonlinearity ... (NULL means "leaky_relu")"
    ("ct_init_kaiming_uniform_", "mode"), ("ct_init_kaiming_normal_", "mode"),
    ("ct_init_kaiming_uniform_", "nonlinearity"), ("ct_init_kaiming_normal_", "nonlinearity"),
    # "then bias, when not NULL, from U(...)"
    ("ct_init_linear_", "bias"),
    # "In factories NULL means this thread's default device" (the device types' block)
    ("ct_tensor_arange", "device"), ("ct_tensor_linspace", "device"), ("ct_tensor_eye", "device"),
}

# Counts the library cannot check: any number of pieces is valid for split_with_sizes ("sizes ...
# summing to the size"; empty pieces are allowed, as in torch), so n is the caller's promise.
NO_COUNT_CHECK = {("ct_tensor_split_with_sizes", "n")}

# Functions that report failures under the operator they run, as the header says they are.
OPERATOR_NAMES = {
    # "ct_tensor_broadcast_to ... (expand ...)": broadcast_to is expand with torch's name
    "ct_tensor_broadcast_to": "expand",
    # ct_autograd_backward is the "backward" of ct_tensor_backward for several outputs
    "ct_autograd_backward": "backward",
    # torch.nn.init.uniform_ / normal_ fill through the tensor's uniform_ / normal_
    "ct_init_uniform_": "uniform_", "ct_init_normal_": "normal_",
}

# Float parameters the header requires to be finite (a NaN or an infinity must be refused).
FINITE = {
    # "a non-finite bound"; a non-finite step cannot lead from start to end
    "ct_tensor_arange": ["start", "end", "step"],
    # "finite from <= to", "finite mean, std >= 0", "0 <= p <= 1"
    "ct_tensor_uniform_": ["from", "to"], "ct_tensor_normal_": ["mean", "std"], "ct_tensor_bernoulli_": ["p"],
    # "p outside [0, 1]"
    "ct_tensor_dropout": ["p"],
    # "lr ... is negative or not finite"
    "ct_optimizer_set_lr": ["lr"],
    # "a > b, std < 0, a non-finite ..."
    "ct_init_uniform_": ["a", "b"], "ct_init_normal_": ["mean", "std"],
}
# NaN only: infinity is a documented value ("p may be INFINITY", norm_type INFINITY is the max norm).
# "max_norm negative or NaN, norm_type NaN or negative"; "a negative or NaN clip_value" (torch clips
# with an infinite bound as a no-op).
NAN_ONLY = {"ct_clip_grad_norm": ["max_norm", "norm_type"], "ct_clip_grad_value": ["clip_value"]}

# Enum parameters: a C caller can pass any int, and a value outside the enum must be refused (or,
# for functions without a status, give their documented harmless answer).
ENUMS = {"ct_dtype", "ct_device_type", "ct_log_level", "ct_reduction", "ct_determinism", "ct_grad_mode",
         "ct_dynamic", "ct_optimizer_kind", "ct_lr_scheduler_kind"}

# Integer arguments with a documented range, and values outside it.
INT_RANGE = {
    "ct_set_num_threads": {"n": [0, -1, 1025]},  # "n < 1 or n > 1024"
    "ct_set_deterministic_debug_mode": {"mode": [3, -1]},  # "a mode outside 0..2"
    "ct_cuda_synchronize": {"device": [-1, 12345]},  # "CT_ERROR_DEVICE when device does not exist"
    "ct_status_name": {"status": [12345, -1]},  # 'Unknown values give "CT_ERROR_UNKNOWN"'
}

# What functions without a status return for an argument outside its range, as documented.
OUT_OF_RANGE_RESULT = {
    "ct_status_name": b"CT_ERROR_UNKNOWN",  # 'Unknown values give "CT_ERROR_UNKNOWN"'
    "ct_dtype_name": b"unknown",  # '"unknown" for a value outside ct_dtype'
    "ct_dtype_itemsize": 0,  # "0 for a value outside ct_dtype"
    "ct_device_type_name": None,  # "NULL for ... a value outside ct_device_type"
}

SIZE_NAMES = {"sizes", "normalized_shape", "repeats"}
DIM_ARRAY_NAMES = SIZE_NAMES | {"dims", "shifts", "source", "destination", "pad"}

INT_TYPES = {
    "int": ctypes.c_int, "int32_t": ctypes.c_int32, "int64_t": ctypes.c_int64, "size_t": ctypes.c_size_t,
    "uint64_t": ctypes.c_uint64, "uint32_t": ctypes.c_uint32, "double": ctypes.c_double,
}


class Param:
    def __init__(self, text, index):
        m = re.match(r"(.*?)(\w+)$", text.strip())
        self.type = " ".join(m.group(1).replace("*", " * ").split()).replace(" *", "*").replace("* ", "*")
        self.type = self.type.replace("*const", "* const").strip()
        self.name = m.group(2)
        self.index = index
        base = re.sub(r"\b(const|struct)\b", "", self.type).replace("*", "").strip()
        self.base = base
        self.stars = self.type.count("*")
        self.is_fn = base.endswith("_fn") and self.stars == 0
        self.is_ptr = self.stars > 0 or self.is_fn
        self.handle = base if base in HANDLE_KINDS else None

    def ctype(self):
        if self.is_ptr:
            return ctypes.c_void_p
        return INT_TYPES.get(self.base, ctypes.c_int)  # enums are int-sized


class Func:
    def __init__(self, ret, name, params, doc):
        self.ret = " ".join(ret.split())
        self.name = name
        self.params = params
        self.doc = doc
        self.returns_status = self.ret == "ct_status"


def parse_header(path):
    text = open(path).read()
    funcs = []
    for m in re.finditer(r"^CT_API\b([^;]*);", text, re.M | re.S):
        decl = " ".join(m.group(0).split())
        decl = re.sub(r"\bCT_(API|NODISCARD|EXPERIMENTAL)\b", "", decl)
        decl = re.sub(r"\bCT_DEPRECATED\([^)]*\)", "", decl)
        dm = re.match(r"\s*(.*?)\b(ct_\w+)\s*\((.*)\)\s*;", decl)
        ret, name, args = dm.group(1), dm.group(2), dm.group(3).strip()
        params = [] if args in ("void", "") else [Param(a, i) for i, a in enumerate(args.split(","))]
        start = text.rfind("*/", 0, m.start())
        doc = text[text.rfind("/*", 0, start):start] if start >= 0 else ""
        funcs.append(Func(ret, name, params, doc))
    return funcs


def doc_allows_null(func, p):
    """Whether the doc comment says p may be NULL (for a success, not a failure)."""
    if (func.name, p.name) in NULL_ALLOWED or p.handle == "ct_generator" and p.stars == 1:
        return True
    body = func.doc.split("Returns")[0]
    word = re.escape(p.name)
    pats = [
        rf"\b{word}\b[^.;:]*?\b(may|can) be NULL",
        rf"\b{word}\b\s+NULL\b(?! or released)(?! with)",
        rf"\b{word}\b[^.;]*?\bor NULL\b(?! on failure)",
        rf"\b{word}\b\s*\(?NULL\b",
        rf"\b{word}\b[^.]{{0,40}}\bNULL (means|for|is a no-op|removes|restores|resets|:)",
    ]
    return any(re.search(pat, body) for pat in pats)


def names_function(msg, func):
    """The message names the C function, or opens with the operator it runs."""
    if func.name in msg or func.name in OPERATOR_NAMES and msg.startswith(OPERATOR_NAMES[func.name] + ":"):
        return True
    head = msg.split(":")[0].split(" ")[0].split(".")[0]
    # ct_tensor_add's messages open with "add:", ct_dist_all_reduce's with torch.distributed's "all_reduce:".
    prefix = next(p for p in ("ct_tensor_", "ct_dist_", "ct_") if func.name.startswith(p))
    short = func.name[len(prefix):]
    return bool(head) and (short.startswith(head.rstrip("_")) or head.startswith(short.rstrip("_")))


# ---- The child: valid-ish arguments, the hostile variants, and one call per case ----

class Env:
    """Live and released handles of every kind, buffers and strings, made lazily in the child."""

    def __init__(self, lib):
        self.lib = lib
        self.keep = []
        self.live = {}
        self.dead = {}
        self.sentinel = ctypes.create_string_buffer(64)

    def buf(self, n, fill=None):
        b = (ctypes.c_int64 * n)(*([fill] * n if fill is not None else []))
        self.keep.append(b)
        return ctypes.addressof(b)

    def cstr(self, s):
        b = ctypes.create_string_buffer(s.encode())
        self.keep.append(b)
        return ctypes.addressof(b)

    def call(self, name, *args):
        st = getattr(self.lib, name)(*args)
        if st != CT_OK:
            raise RuntimeError("%s gave %d: %s" % (name, st, self.lib.ct_last_error().decode()))

    def out(self):
        p = ctypes.c_void_p()
        self.keep.append(p)
        return p

    def make(self, kind):
        L, c = self.lib, ctypes
        o = self.out()
        if kind == "ct_tensor":
            data = (c.c_float * 4)(1, 2, 3, 4)
            self.call("ct_tensor_from_data", data, (c.c_int64 * 2)(2, 2), c.c_size_t(2), c.c_int(CT_FLOAT32), c.byref(o))
        elif kind == "ct_generator":
            self.call("ct_generator_create", c.c_char_p(b"cpu"), c.byref(o))
        elif kind == "ct_symint":
            self.call("ct_symint_from_int", c.c_int64(3), c.byref(o))
        elif kind == "ct_symfloat":
            self.call("ct_symfloat_from_double", c.c_double(1.5), c.byref(o))
        elif kind == "ct_symbool":
            self.call("ct_symbool_from_bool", c.c_int(1), c.byref(o))
        elif kind == "ct_shape_env":
            self.call("ct_shape_env_create", c.byref(o))
        elif kind == "ct_compile_options":
            self.call("ct_compile_options_create", c.byref(o))
        elif kind == "ct_dynamic_shapes":
            self.call("ct_dynamic_shapes_create", c.byref(o))
        elif kind == "ct_compiled":
            self.call("ct_compile", self.traced(), None, None, None, c.byref(o))
        elif kind == "ct_program":
            ins = (c.c_void_p * 1)(self.get("ct_tensor"))
            self.keep.append(ins)
            self.call("ct_export", self.traced(), None, ins, c.c_size_t(1), c.c_size_t(1), None, c.byref(o))
        elif kind == "ct_checkpoint":
            names = (c.c_char_p * 1)(b"w")
            ts = (c.c_void_p * 1)(self.get("ct_tensor"))
            data, size = c.c_void_p(), c.c_size_t()
            self.call("ct_checkpoint_save_buffer", names, ts, c.c_size_t(1), None, c.byref(data), c.byref(size))
            self.call("ct_checkpoint_open_buffer", data, size, c.byref(o))
            L.ct_string_release(data)
        elif kind == "ct_optimizer":
            self.call("ct_optimizer_create", self.params_array(), c.c_size_t(1), self.struct("ct_optimizer_options"),
                      c.byref(o))
        elif kind == "ct_lr_scheduler":
            self.call("ct_lr_scheduler_create", c.c_void_p(self.get("ct_optimizer")),
                      self.struct("ct_lr_scheduler_options"), c.byref(o))
        else:
            return None
        return o.value

    def params_array(self):
        p = self.out()
        data = (ctypes.c_float * 2)(1, 2)
        self.call("ct_tensor_from_data", data, (ctypes.c_int64 * 1)(2), ctypes.c_size_t(1), ctypes.c_int(CT_FLOAT32),
                  ctypes.byref(p))
        self.call("ct_tensor_set_requires_grad", p, ctypes.c_int(1))
        arr = (ctypes.c_void_p * 1)(p.value)
        self.keep.append(arr)
        return arr

    def traced(self):
        fn_type = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t,
                                   ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t)
        lib = self.lib

        def body(_ud, inputs, n_in, outputs, n_out):
            return lib.ct_tensor_neg(ctypes.c_void_p(inputs[0]), ctypes.byref(ctypes.c_void_p.from_address(
                ctypes.addressof(outputs.contents))))

        f = fn_type(body)
        self.keep.append(f)
        return ctypes.cast(f, ctypes.c_void_p)

    def struct(self, kind):
        b = ctypes.create_string_buffer(512)
        self.keep.append(b)
        if kind == "ct_optimizer_options":
            self.call("ct_optimizer_options_default", ctypes.c_int(0), b)
        elif kind == "ct_lr_scheduler_options":
            self.call("ct_lr_scheduler_options_default", ctypes.c_int(0), b)
        return ctypes.addressof(b)

    def get(self, kind):
        if kind not in self.live:
            self.live[kind] = self.make(kind)
        return self.live[kind]

    def released(self, kind):
        if kind not in self.dead:
            h = self.make(kind)
            release = "ct_tensor_release" if kind == "ct_tensor" else kind + "_release"
            getattr(self.lib, release)(ctypes.c_void_p(h))
            self.dead[kind] = h
        return self.dead[kind]

    def other_kind(self, kind):
        return self.get("ct_shape_env" if kind == "ct_tensor" else "ct_tensor")


STRINGS = {
    "device": "cpu", "path": "/nonexistent-ctorch-sweep/x", "equation": "ij->ji", "approximate": "none",
    "mode": "fan_in", "nonlinearity": "relu", "precision": "high", "backend": "eager", "metadata_json": "{}",
    "schema": "sweep::f(Tensor x) -> Tensor", "key": "k", "value": "v",
}
NAME_STRINGS = {
    "ct_metric_get": "tensors.live", "ct_has_feature": "cuda", "ct_op_schema": "add", "ct_op_call": "neg",
    "ct_checkpoint_get": "w", "ct_shape_env_create_symbol": "s0",
}


def valid_arg(env, func, p):
    """A plausible value for p, or None for NULL."""
    if p.is_fn or (p.base == "void" and p.name == "user_data"):
        return None
    if p.handle and p.stars == 1:
        return env.get(p.handle)
    if p.handle and "const*" in p.type.replace(" ", "") and p.stars == 2:  # array of handles
        arr = (ctypes.c_void_p * 2)(env.get(p.handle), env.get(p.handle))
        env.keep.append(arr)
        return ctypes.addressof(arr)
    if p.base == "char" and p.stars == 1 and "const" in p.type:
        if p.name == "name":
            return env.cstr(NAME_STRINGS.get(func.name, "sweep"))
        return env.cstr(STRINGS.get(p.name, "x"))
    if p.base == "char" and p.stars == 2 and p.type.startswith("const char* const"):
        arr = (ctypes.c_char_p * 2)(b"a", b"b")
        env.keep.append(arr)
        return ctypes.addressof(arr)
    if p.base == "ct_scalar":
        b = ctypes.create_string_buffer(24)
        ctypes.c_int.from_buffer(b, 0).value = 2  # CT_SCALAR_FLOAT, value 1.0
        ctypes.c_double.from_buffer(b, 16).value = 1.0
        env.keep.append(b)
        return ctypes.addressof(b)
    if p.base in ("ct_optimizer_options", "ct_lr_scheduler_options") and "const" in p.type:
        return env.struct(p.base)
    if p.base == "ct_dtype" and "const" in p.type:
        return env.buf(1, CT_FLOAT32)
    if p.base == "double" and "const" in p.type:
        b = (ctypes.c_double * 1)(1e-5)
        env.keep.append(b)
        return ctypes.addressof(b)
    if p.base == "int64_t" and "const" in p.type:  # an array of sizes or dims
        vals = [2, 2] if p.name in SIZE_NAMES else [1, 1] if p.name == "repeats" else [0, 1]
        return _int64s(env, vals)
    if p.base.startswith("ct_") and p.stars == 2 or p.base == "DLManagedTensor" and p.stars == 2 or \
            p.base == "DLManagedTensorVersioned" and p.stars == 2 or p.base in ("char", "void") and p.stars == 2:
        return env.buf(8, ctypes.addressof(env.sentinel))  # out slots, preset to a non-NULL sentinel
    return env.buf(512, 0)  # an out value or a caller's buffer


def _int64s(env, vals):
    b = (ctypes.c_int64 * len(vals))(*vals)
    env.keep.append(b)
    return ctypes.addressof(b)


def valid_scalar(func, p, prev):
    """A plausible number for p (prev: the parameter before it, whose array a count measures)."""
    if p.base == "size_t":
        if p.name == "capacity":
            return 8
        if p.name in ("nbytes",):
            return 16
        if p.name == "n" and "generator" in func.name:
            return 24
        if p.name in ("index", "entry", "i", "input"):
            return 0
        return 2 if prev is not None and prev.is_ptr else 1
    if p.base == "double":
        return 1.0
    if p.base in ("ct_dtype",):
        return CT_FLOAT32
    if p.name in ("dim", "dim0", "start_dim", "decimals", "flags", "offset", "low", "start", "seed", "device"):
        return 0
    if p.base == "int64_t" or p.base == "int32_t":
        return 1 if p.name not in ("ignore_index",) else -100
    return 0


class Case:
    def __init__(self, label, func, overrides, nullable=False):
        self.label = label
        self.func = func
        self.overrides = overrides  # {param index: ("null"|"dead"|"other"|"value"|..., data)}
        self.nullable = nullable  # the doc comment allows this NULL: success is fine too


def make_cases(func):
    cases = []
    ptrs = [p for p in func.params if p.is_ptr and not p.is_fn and not (p.base == "void" and p.name == "user_data")]
    if ptrs:
        all_nullable = all(doc_allows_null(func, p) for p in ptrs)
        cases.append(Case("all pointers NULL", func, {p.index: ("null",) for p in ptrs}, nullable=all_nullable))
        if len(ptrs) > 1:
            for p in ptrs:
                cases.append(Case("%s NULL" % p.name, func, {p.index: ("null",)}, nullable=doc_allows_null(func, p)))
    for p in func.params:
        if p.handle and p.stars == 1:
            if p.handle not in NO_RELEASED:
                cases.append(Case("%s released" % p.name, func, {p.index: ("dead",)}))
            cases.append(Case("%s of another kind" % p.name, func, {p.index: ("other",)}))
        elif p.handle and p.stars == 2 and "const*" in p.type.replace(" ", ""):
            cases.append(Case("%s[1] released" % p.name, func, {p.index: ("dead_elem",)}))
            cases.append(Case("%s[1] of another kind" % p.name, func, {p.index: ("other_elem",)}))
    for i, p in enumerate(func.params):
        nxt = func.params[i + 1] if i + 1 < len(func.params) else None
        arrayish = p.base in ("int64_t",) and "const" in p.type or p.handle == "ct_symint" and p.stars == 2
        if not arrayish or nxt is None or nxt.base != "size_t":
            continue
        if p.name in SIZE_NAMES and p.base == "int64_t":
            cases.append(Case("%s negative" % p.name, func, {p.index: ("ints", [2, -3])}))
            cases.append(Case("%s product overflows int64" % p.name, func, {p.index: ("ints", [1 << 40, 1 << 40])}))
        if p.name in DIM_ARRAY_NAMES:
            cases.append(Case("%s = 1<<20" % nxt.name, func, {p.index: ("many",), nxt.index: ("value", 1 << 20)}))
        if (p.name in DIM_ARRAY_NAMES or p.handle) and (func.name, nxt.name) not in NO_COUNT_CHECK:
            cases.append(Case("%s = SIZE_MAX" % nxt.name, func, {nxt.index: ("value", (1 << 64) - 1)}))
    for p in func.params:
        if p.base in ENUMS and not p.stars:
            for v in (12345, -1):
                cases.append(Case("%s = %d" % (p.name, v), func, {p.index: ("value", v)}))
        for v in INT_RANGE.get(func.name, {}).get(p.name, []):
            cases.append(Case("%s = %d" % (p.name, v), func, {p.index: ("value", v)}))
    for p in func.params:
        if p.base != "double" or p.stars:
            continue
        bad = []
        if p.name in FINITE.get(func.name, []):
            bad = [math.nan, math.inf, -math.inf]
        elif p.name in NAN_ONLY.get(func.name, []):
            bad = [math.nan]
        for v in bad:
            cases.append(Case("%s = %r" % (p.name, v), func, {p.index: ("value", v)}))
    return cases


def build_args(env, func, case):
    args = []
    prev = None
    for p in func.params:
        ov = case.overrides.get(p.index)
        if ov is None:
            v = valid_arg(env, func, p) if p.is_ptr else valid_scalar(func, p, prev)
        elif ov[0] == "null":
            v = None
        elif ov[0] == "dead":
            v = env.released(p.handle)
        elif ov[0] == "other":
            v = env.other_kind(p.handle)
        elif ov[0] in ("dead_elem", "other_elem"):
            bad = env.released(p.handle) if ov[0] == "dead_elem" else env.other_kind(p.handle)
            arr = (ctypes.c_void_p * 2)(env.get(p.handle), bad)
            env.keep.append(arr)
            v = ctypes.addressof(arr)
        elif ov[0] == "ints":
            v = _int64s(env, ov[1])
        elif ov[0] == "many":
            v = env.buf(1 << 20, 1)
        else:
            v = ov[1]
        args.append(p.ctype()(v) if not p.is_ptr else ctypes.c_void_p(v))
        prev = p
    return args


LIVE_METRICS = (b"tensors.live", b"storages.live", b"memory.cpu.allocations_live")


def live_objects(lib):
    counts = []
    for name in LIVE_METRICS:
        v = ctypes.c_int64(-1)
        lib.ct_metric_get(name, ctypes.byref(v))
        counts.append(v.value)
    return tuple(counts)


def run_case(lib, env, case):
    """None when the case holds, else why not."""
    func = case.func
    try:
        for p in func.params:
            if p.handle:
                env.get(p.handle)
                env.other_kind(p.handle)
        args = build_args(env, func, case)
    except RuntimeError as e:
        return "setup failed: %s" % e
    before = live_objects(lib)
    lib.ct_error_set(0, None)
    ret = getattr(lib, func.name)(*args)
    if func.name in OUT_OF_RANGE_RESULT:
        want = OUT_OF_RANGE_RESULT[func.name]
        got = ctypes.string_at(ret) if ret and "char*" in func.ret else ret
        return None if got == want else "returned %r, the header says %r" % (got, want)
    if not func.returns_status:
        if func.name.endswith("_release") and any(ov[0] == "other" for ov in case.overrides.values()):
            return other_handle_intact(lib, env, func)
        return None  # not crashing is the promise (release of NULL is a no-op, names give a string)
    msg = lib.ct_last_error().decode(errors="replace")
    shown = msg if len(msg) < 200 else msg[:200] + "..."
    if ret == CT_OK:
        if not case.nullable:
            return "returned CT_OK"
        return None
    if not msg:
        return "status %d with an empty ct_last_error()" % ret
    if not names_function(msg, func):
        return "message does not name the function: %r" % shown
    after = live_objects(lib)
    if after != before:
        return "failed but (%s) went from %s to %s" % (", ".join(n.decode() for n in LIVE_METRICS), before, after)
    # Out slots start as a sentinel: after a failure each is NULL or, where the header promises
    # nothing, untouched; never a half-made result.
    for p, a in zip(func.params, args):
        if p.stars != 2 or p.type.startswith("const " + p.base + "* const") or not a.value or p.handle and "const" in p.type:
            continue
        slots = 8 if p.name in ("outs", "outputs", "grads") else 1
        for k in range(slots):
            got = ctypes.c_void_p.from_address(a.value + k * ctypes.sizeof(ctypes.c_void_p)).value
            if got is not None and got != ctypes.addressof(env.sentinel):
                return "failed but %s[%d] holds a result" % (p.name, k)
            if got is not None and p.name == "out":
                return "failed but left out-parameter out untouched (the header says it is set to NULL)"
    return None


def other_handle_intact(lib, env, func):
    """A release given another kind's live handle must leave that handle alone (a no-op)."""
    kind = func.params[0].handle
    other = ctypes.c_void_p(env.other_kind(kind))
    probe = ctypes.c_size_t()
    if kind == "ct_tensor":
        st = lib.ct_shape_env_num_symbols(other, ctypes.byref(probe))
    else:
        st = lib.ct_tensor_ndim(other, ctypes.byref(probe))
    if st != CT_OK:
        return "released a handle of another kind: it no longer works (%s)" % lib.ct_last_error().decode()
    return None


def setup_lib(path):
    lib = ctypes.CDLL(path)
    lib.ct_last_error.restype = ctypes.c_char_p
    lib.ct_error_set.argtypes = [ctypes.c_int, ctypes.c_char_p]
    lib.ct_error_set.restype = None
    return lib


def bind(lib, func):
    f = getattr(lib, func.name)
    f.argtypes = [p.ctype() for p in func.params]
    f.restype = None if func.ret == "void" else ctypes.c_void_p if "*" in func.ret else \
        INT_TYPES.get(func.ret.replace("const", "").strip(), ctypes.c_int)


def child(lib, funcs_cases, start, w):
    signal.alarm(CASE_TIMEOUT_S)
    if lib.ct_init(ABI_VERSION) != CT_OK:
        os.write(w, b"E -1 ct_init failed\n")
        os._exit(1)
    env = Env(lib)
    for i in range(start, len(funcs_cases)):
        os.write(w, ("S %d\n" % i).encode())
        try:
            why = run_case(lib, env, funcs_cases[i])
        except Exception as e:  # a ctypes error is the sweep's own bug: report it, do not hide it
            why = "sweep error: %r" % e
        os.write(w, ("E %d %s\n" % (i, (why or "").replace("\n", " "))).encode())
    os._exit(0)


def run_function(lib, cases):
    """[(case, failure or None)] for one function's cases, each crash restarting after the crasher."""
    results = {}
    start = 0
    while start < len(cases):
        r, w = os.pipe()
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            try:
                child(lib, cases, start, w)
            finally:
                os._exit(2)
        os.close(w)
        data = b""
        while True:
            chunk = os.read(r, 65536)
            if not chunk:
                break
            data += chunk
        os.close(r)
        _, wst = os.waitpid(pid, 0)
        started = None
        for line in data.decode(errors="replace").splitlines():
            kind, _, rest = line.partition(" ")
            idx, _, why = rest.partition(" ")
            if kind == "S":
                started = int(idx)
            elif kind == "E" and int(idx) >= 0:
                results[int(idx)] = why or None
                started = None
        if started is None:
            if len(results) < len(cases) - start and not os.WIFEXITED(wst):
                started = start + len(results)
            else:
                break
        sig = os.WTERMSIG(wst) if os.WIFSIGNALED(wst) else None
        results[started] = "timed out" if sig == signal.SIGALRM else "crashed (signal %s)" % sig if sig else \
            "child exited (status %d)" % os.WEXITSTATUS(wst)
        start = started + 1
    return [(c, results.get(i, "no result")) for i, c in enumerate(cases)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--library", default=os.path.join(ROOT, "build", "src", "libctorch.so"))
    ap.add_argument("--header", default=os.path.join(ROOT, "include", "ctorch.h"))
    ap.add_argument("-v", "--verbose", action="store_true", help="print every case")
    ap.add_argument("names", nargs="*", help="only functions whose name contains one of these")
    a = ap.parse_args()
    lib = setup_lib(a.library)
    funcs = parse_header(a.header)
    for f in funcs:
        bind(lib, f)
    lib.ct_last_error.restype = ctypes.c_char_p
    passed = failed = covered = 0
    for f in funcs:
        if a.names and not any(n in f.name for n in a.names):
            continue
        cases = make_cases(f)
        if not cases:
            continue
        covered += 1
        for case, why in run_function(lib, cases):
            if why:
                failed += 1
                print("%s: %s: %s" % (f.name, case.label, why))
            else:
                passed += 1
                if a.verbose:
                    print("%s: %s: ok" % (f.name, case.label))
    if a.verbose:
        print("%d of %d functions have cases" % (covered, len(funcs)))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
