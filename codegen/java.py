#!/usr/bin/env python3
"""java.py - codegen/gen_ops.py's Java target: bindings/java/src/org/ctorch/TensorOps.java, a typed
method for every built-in operator overload, in the superclass that gives them to Tensor.

Naming (documented in docs/java.md): registry.py's policy in camelCase (add.Scalar -> addScalar,
scatter.reduce -> scatterReduceOverload), and:
  * In-place operators end in "InPlace" instead of "_" (add_.Tensor -> addInPlace); clone, which
    would override Object.clone, is deepClone; a name Java reserves gets "Op" appended.
  * An operator whose first argument is `self` is an instance method; any other is static
    (Tensor.zeros, Tensor.cat, Tensor.where).
  * The short form takes the arguments without defaults; when some have defaults, an overload of
    the same name takes them all. A trailing int[] is varargs (x.view(2, 3), x.permute(1, 0)).
    Generator arguments are left to the default generator (Generator has methods for explicit ones).
  * Java numbers: optional ints, floats and bools are boxed (Long, Double, Boolean: null is "none"),
    and a form with primitives is added beside (x.argmax(1, false), where an int cannot become a
    Long). The Scalar overload of an operator that also takes a Tensor there gets the operator's
    own name too (a.add(1), a.mul(0.5), a.sub(2L), beside addScalar...).
  * Every method calls its overload through ct_op_call_op, by a handle ct_op_find gives on the first
    call (one static Op per overload, OP_ADD_TENSOR); a short form whose schema has nothing else
    than self (and another tensor) plus keyword defaults calls the header's typed function instead
    (ct_tensor_add for a.add(b)), which skips boxing.
"""

import pathlib
import re

import registry

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = "bindings/java/src/org/ctorch/TensorOps.java"
HEADER = ROOT / "include" / "ctorch.h"

KEYWORDS = set("""abstract assert boolean break byte case catch char class const continue default do double else enum
extends final finally float for goto if implements import instanceof int interface long native new package private
protected public return short static strictfp super switch synchronized this throw throws transient try void volatile
while true false null var record yield""".split())
RENAMES = {"clone": "deepClone"}


def typed_functions():
    """Names X of the header's ct_tensor_X(a, out), ct_tensor_X(a, b, out) and ct_tensor_X_(self, b)."""
    text = " ".join(HEADER.read_text().split())
    unary = set(re.findall(r"ct_status ct_tensor_(\w+)\(const ct_tensor\* \w+, ct_tensor\*\* out\);", text))
    binary = set(re.findall(r"ct_status ct_tensor_(\w+)\(const ct_tensor\* \w+, const ct_tensor\* \w+, ct_tensor\*\* out\);", text))
    inplace = set(re.findall(r"ct_status ct_tensor_(\w+_)\(ct_tensor\* self, const ct_tensor\* \w+\);", text))
    return unary, binary, inplace


# kind -> (type, optional type, Args call, optional Args call), {n} the parameter, {s} its schema name.
TYPES = {
    "tensor": ("Tensor", "Tensor", 'tensor({n}, "{s}")', 'optTensor({n}, "{s}")'),
    "tensors": ("Tensor[]", None, 'tensors({n}, "{s}")', None),
    "int": ("long", "Long", "integer({n})", "optInteger({n})"),
    "ints": ("long[]", "long[]", 'ints({n}, "{s}")', 'optInts({n}, "{s}")'),
    "float": ("double", "Double", "real({n})", "optReal({n})"),
    "bool": ("boolean", "Boolean", "bool({n})", "optBool({n})"),
    "scalar": ("Number", "Number", 'scalar({n}, "{s}")', 'optScalar({n}, "{s}")'),
    "dtype": ("DType", "DType", 'dtype({n}, "{s}")', 'optDtype({n}, "{s}")'),
    "device": ("Device", "Device", 'device({n}, "{s}")', 'optDevice({n}, "{s}")'),
    "str": ("String", "String", 'string({n}, "{s}")', 'optString({n}, "{s}")'),
}


def camel(s):
    lead = "_" if s.startswith("_") else ""
    parts = [p for p in s.split("_") if p]
    return lead + parts[0] + "".join(p[:1].upper() + p[1:] for p in parts[1:])


def method_names(ops):
    """(name, overload) -> Java name."""
    names = {}
    for key, stem in registry.stems(ops).items():
        java = RENAMES.get(stem.words, camel(stem.words))
        if java in KEYWORDS:
            java += "Op"
        names[key] = java + ("InPlace" if stem.inplace else "")
    return names


PRIMITIVES = {"Long": ("long", "integer({n})"), "Double": ("double", "real({n})"), "Boolean": ("boolean", "bool({n})")}


class Param:
    """One schema argument: its Java type and the Args call that boxes it."""

    def __init__(self, arg, op_name, primitive=False):
        self.schema_name = arg["name"]
        self.name = camel(arg["name"]) + ("Arg" if camel(arg["name"]) in KEYWORDS else "")
        self.has_default = arg["default"] is not None
        self.default = arg["default"]
        kind, optional = registry.arg_kind(arg, op_name, "java")
        self.skip = kind == "generator"
        self.list = kind == "ints" and not optional
        if self.skip:
            self.java, self.box = None, "none()"
        else:
            plain, opt, box, opt_box = TYPES[kind]
            self.java = opt if optional else plain
            self.box = (opt_box if optional else box).format(n=self.name, s=arg["name"])
            if primitive and self.java in PRIMITIVES:
                self.java, prim_box = PRIMITIVES[self.java]
                self.box = prim_box.format(n=self.name)


qualified = registry.qualified


def op_field(op):
    """The static Op of an overload: add.Tensor -> OP_ADD_TENSOR."""
    return "OP_" + re.sub(r"\W", "_", qualified(op)).upper()


def fast_path(op, params, taken, is_method, typed):
    """The typed C function a short form may call, or None."""
    unary, binary, inplace = typed
    if not is_method or op["overload"] not in ("", "Tensor") or len(op["returns"]) != 1:
        return None
    rest = [p for p in params if p not in taken]
    if any(not (p.has_default and a["kwarg_only"]) for p, a in zip(params, op["arguments"]) if p in rest):
        return None
    kinds = [p.java for p in taken]
    name = op["name"]
    if kinds == ["Tensor"] and name in unary:
        return f"ct_tensor_{name}"
    if kinds == ["Tensor", "Tensor"] and name in binary:
        return f"ct_tensor_{name}"
    if kinds == ["Tensor", "Tensor"] and name in inplace:
        return f"ct_tensor_{name}"  # returns no handle: Native.inPlace gives back self
    return None


def boxed_numbers(op):
    """Whether an argument is an optional int, float or bool (a Long, Double or Boolean)."""
    return any(Param(a, qualified(op)).java in PRIMITIVES for a in op["arguments"])


def method(op, java_name, full, typed, primitive=False):
    params = [Param(a, qualified(op), primitive) for a in op["arguments"]]
    is_method = bool(params) and params[0].schema_name == "self" and params[0].java == "Tensor"
    taken = [p for p in params if not p.skip and (full or not p.has_default)]
    sig_params = [p for p in taken if not (is_method and p is params[0])]
    sig = [f"{p.java} {p.name}" for p in sig_params]
    if sig_params and sig_params[-1].list:
        sig[-1] = "long... " + sig_params[-1].name
    n = len(op["returns"])
    ret = "Tensor" if n == 1 else "Tensor[]"
    schema = op["schema"]
    doc = [f"/**", f" * {{@code {schema}}}."]
    defaults = [f"{{@code {p.schema_name}={p.default}}}" for p in params if p.has_default and not p.skip and p not in taken]
    if defaults:
        doc.append(f" * Takes the defaults {', '.join(defaults)}; an overload with every argument exists.")
    elif full:
        doc.append(" * Every argument of the schema.")
    for p in sig_params:
        doc.append(f" * @param {p.name} the schema's {{@code {p.schema_name}}}" + (" (null: none)" if p.java[0].isupper() and p.java not in ("String", "Tensor[]") else ""))
    doc.append(f" * @return {'the result' if n == 1 else 'the ' + str(n) + ' results, in schema order'}")
    doc.append(" * @throws CTorchException when the operator fails (the subclass names the kind)")
    doc.append(" */")
    static = "" if is_method else "static "
    lines = ["  " + d for d in doc]
    lines.append(f"  public {static}final {ret} {java_name}({', '.join(sig)}) {{" if is_method
                 else f"  public static {ret} {java_name}({', '.join(sig)}) {{")
    fn = None if full or primitive else fast_path(op, params, taken, is_method, typed)
    if fn and len(taken) == 1:
        lines.append(f"    return Native.unary(CTorchNative::{fn}, self());")
    elif fn and fn.endswith("_"):
        lines.append(f"    return Native.inPlace(CTorchNative::{fn}, self(), {taken[1].name}, \"{taken[1].schema_name}\");")
    elif fn:
        lines.append(f"    return Native.binary(CTorchNative::{fn}, self(), {taken[1].name}, \"{taken[1].schema_name}\");")
    else:
        boxes = []
        for p in params:
            if is_method and p is params[0]:
                boxes.append("tensor(self(), \"self\")")
            elif p in taken:
                boxes.append(p.box)
            else:
                boxes.append("none()")
        while boxes and boxes[-1] == "none()":
            boxes.pop()
        chain = "".join(f".{b}" for b in boxes)
        if n == 1 and is_method and op["returns"][0]["type"] == "Tensor(a!)":
            call = f"callInPlace({op_field(op)}, self())"  # the result is self
        elif n == 1:
            call = f"call1({op_field(op)})"
        else:
            call = f"call({op_field(op)}, {n})"
        lines.append(f"    return new Args({len(boxes)}){chain}.{call};")
    lines.append("  }")
    return "\n".join(lines), any(p.has_default and not p.skip for p in params), (java_name, tuple(p.java for p in sig_params), is_method)


def files(version, ops):
    names = method_names(ops)
    typed = typed_functions()
    out = ["// @generated by codegen/gen_ops.py from the operator registry: do not edit.",
           "// Regenerate with `codegen/gen_ops.py`; CTest's java.generated fails when they drift.",
           "package org.ctorch;",
           "",
           "import org.ctorch.jni.CTorchNative;",
           "",
           "/**",
           " * The operators of the registry as methods of {@link Tensor}: one per overload, named by the",
           " * rules of docs/java.md. Generated by codegen/gen_ops.py; every method calls its",
           " * overload through {@code ct_op_call_op} (or the header's typed function for the plain forms).",
           " */",
           "abstract class TensorOps extends NativeObject {",
           "  /** Every operator overload of the registry this class was generated from. */",
           "  static final String[] GENERATED_OVERLOADS = {"]
    for op in ops:
        out.append(f"    \"{qualified(op)}\",")
    out.append("  };")
    out.append("")
    out.append("  TensorOps(long handle) {")
    out.append("    super(handle, Kinds.TENSOR);")
    out.append("  }")
    out.append("")
    out.append("  private Tensor self() {")
    out.append("    return (Tensor) this;")
    out.append("  }")
    out.append("")
    seen = {}
    for op in ops:
        for full in (False, True):
            text, has_defaults, key = method(op, names[(op["name"], op["overload"])], full, typed)
            if full and not has_defaults:
                continue
            erased = (key[0], key[1])
            if erased in seen:
                raise SystemExit(f"codegen/java.py: {qualified(op)} and {seen[erased]} both make {key[0]}{key[1]}")
            seen[erased] = qualified(op)
            out.append(text)
            out.append("")
    # The forms for Java numbers come after every registry method, and only where no registry
    # method already has their signature (the registry's own names win).
    plain = {(op["name"], op["overload"]) for op in ops}
    for op in ops:
        name = names[(op["name"], op["overload"])]
        variants = []
        if boxed_numbers(op):
            variants += [(name, full, True) for full in (False, True)]
        tensor_form = (op["name"], "Tensor") in plain or (op["name"], "") in plain
        if op["overload"] == "Scalar" and tensor_form and re.search(r"Scalar(InPlace)?$", name):
            variants += [(re.sub(r"Scalar(InPlace)?$", r"\1", name), full, False) for full in (False, True)]
        for java_name, full, primitive in variants:
            text, has_defaults, key = method(op, java_name, full, typed, primitive)
            if full and not has_defaults:
                continue
            erased = (key[0], key[1])
            if erased in seen:
                continue
            seen[erased] = qualified(op)
            out.append(text)
            out.append("")
    out[-1] = "}"
    # The Op of every overload a method calls, declared after the list of overloads.
    fields = {}
    for op in ops:
        field = op_field(op)
        if field in fields:
            raise SystemExit(f"codegen/java.py: {qualified(op)} and {fields[field]} both make {field}")
        fields[field] = qualified(op)
    used = set(re.findall(r"\bOP_\w+", "\n".join(out)))
    at = out.index("  TensorOps(long handle) {")
    out[at:at] = [f"  private static final Op {f} = new Op(\"{fields[f]}\");" for f in fields if f in used] + [""]
    return {OUT: "\n".join(out) + "\n"}
