"""registry.py - what every target of codegen/gen_ops.py shares: the built-in operators read from a
built libctorch (ct_op_registry_json), and the one overload-naming policy the typed faces follow.

Naming (each language then applies its own case and reserved words; docs/extending.md):
  * An operator with one overload keeps its name (softmax.int -> softmax). Of several, the one with
    no overload name, else "Tensor", else the first registered, keeps it; the others get the overload
    in snake case appended (add.Scalar -> add_scalar).
  * An overload name that would take another operator's name gets "_overload" after it
    (scatter.reduce -> scatter_reduce_overload, since scatter_reduce is an operator).
  * An in-place operator (add_) is named after its functional base and marked in place; each
    language spells that mark (add_scalar_ in C++ and Rust, addScalarInPlace in Java).
"""

import ctypes
import json
import re


def builtin_operators(library):
    """The registry's built-in operator entries (ct_op_registry_json), in registration order."""
    try:
        lib = ctypes.CDLL(str(library))
    except OSError as e:
        raise SystemExit(f"codegen: cannot load {library} ({e}); build it first (cmake --build build) "
                         "or name one with --library")
    lib.ct_op_registry_json.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
    lib.ct_string_release.argtypes = [ctypes.c_void_p]
    out = ctypes.c_void_p()
    if lib.ct_op_registry_json(ctypes.byref(out)) != 0:
        raise SystemExit(f"{library}: ct_op_registry_json failed")
    text = ctypes.string_at(out.value).decode()
    lib.ct_string_release(out)
    reg = json.loads(text)
    return reg["version"], [op for op in reg["operators"] if op["builtin"]]


def qualified(op):
    """"add.Tensor", or "neg" for an unnamed overload: the name ct_op_call and builtin_op take."""
    return op["name"] + ("." + op["overload"] if op["overload"] else "")


class Stem:
    """An overload's language-neutral name: `words` in snake case without the in-place mark."""

    def __init__(self, words, inplace, overload, primary):
        self.words = words
        self.inplace = inplace
        self.overload = overload    # the schema's overload name ("" when unnamed)
        self.primary = primary      # whether it keeps the operator's own name


def stems(ops):
    """(name, overload) -> Stem, by the rules in the module comment."""
    groups = {}
    for op in ops:
        groups.setdefault(op["name"], []).append(op["overload"])
    out = {}
    for name, overloads in groups.items():
        inplace = name.endswith("_") and not name.startswith("_")
        base = name[:-1] if inplace else name
        primary = "" if "" in overloads else "Tensor" if "Tensor" in overloads else overloads[0]
        for ov in overloads:
            words = base if ov == primary else f"{base}_{ov.lower()}"
            if ov != primary and words in groups and words != base:
                words += "_overload"  # scatter.reduce vs the operator scatter_reduce
            out[(name, ov)] = Stem(words, inplace, ov, ov == primary)
    return out


def arg_kind(arg, op_name, target):
    """(kind, optional) of a schema argument, kind one of: tensor, tensors, int, ints, float, bool,
    scalar, dtype, device, str, generator. SymInt counts as int; aliasing marks ("Tensor(a!)") go."""
    t = arg["type"]
    optional = t.endswith("?")
    base = re.sub(r"\(.*\)", "", t.rstrip("?"))
    kind = {"Tensor": "tensor", "Tensor[]": "tensors", "int": "int", "SymInt": "int", "float": "float", "bool": "bool",
            "Scalar": "scalar", "ScalarType": "dtype", "Device": "device", "str": "str", "Generator": "generator"}.get(base)
    if kind is None and re.fullmatch(r"(int|SymInt)\[\d*\]", base):
        kind = "ints"
    if kind is None or (kind == "tensors" and optional):
        raise SystemExit(f"codegen/{target}.py: no type for {t!r} in {op_name}")
    return kind, optional
