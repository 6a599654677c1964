#!/usr/bin/env python3
"""rust.py - codegen/gen_ops.py's Rust target: bindings/rust/ctorch/src/generated.rs, a typed method of
Tensor for every built-in operator overload, each calling it through ct_op_call.

Naming (documented in docs/rust.md): registry.py's policy in snake case, in-place ones ending in "_"
(add_.Scalar -> add_scalar_), and:
  * A name Rust reserves gets its overload appended (where.self -> where_self); clone, which would
    hide Clone::clone (a new reference), is deep_clone.
  * An operator whose first argument is `self` is a method; any other is an associated function
    (Tensor::zeros, Tensor::cat, Tensor::conv2d).
  * The method takes the arguments without defaults; when some have defaults, `<name>_with` takes
    them all. Generator arguments are left to the default generator (crate::Generator has methods
    for explicit ones).
"""

import registry

OUT = "bindings/rust/ctorch/src/generated.rs"

KEYWORDS = set("""as async await break const continue crate dyn else enum extern false fn for gen if impl in let loop
match mod move mut pub ref return self static struct super trait true type unsafe use where while abstract become
box do final macro override priv try typeof unsized virtual yield""".split())
RENAMES = {"clone": "deep_clone"}


def method_names(ops):
    """(name, overload) -> Rust name."""
    names = {}
    for key, stem in registry.stems(ops).items():
        rust = RENAMES.get(stem.words, stem.words)
        if rust in KEYWORDS:
            rust = f"{rust}_{stem.overload.lower() or 'op'}"
        names[key] = rust + ("_" if stem.inplace else "")
    return names


# kind -> (type, optional type, boxed value, optional boxed value), {n} the parameter.
SIMPLE = {
    "tensor": ("&Tensor", "Option<&Tensor>", "arg::tensor({n})", "arg::opt_tensor({n})"),
    "int": ("i64", "Option<i64>", "arg::int({n})", "arg::opt_int({n})"),
    "ints": ("&[i64]", "Option<&[i64]>", "arg::ints({n})", "arg::opt_ints({n})"),
    "float": ("f64", "Option<f64>", "arg::float({n})", "arg::opt_float({n})"),
    "bool": ("bool", "Option<bool>", "arg::bool({n})", "arg::opt_bool({n})"),
    "scalar": ("impl Into<Scalar>", "Option<Scalar>", "arg::scalar({n}.into())", "arg::opt_scalar({n})"),
    "dtype": ("DType", "Option<DType>", "arg::dtype({n})", "arg::opt_dtype({n})"),
}


def ident(name):
    name = name.lower()  # Rust's snake case: torch's vander names its count N
    return name + "_" if name in KEYWORDS else name


class Param:
    """One schema argument: its Rust type, the statements preparing it, and its boxed value."""

    def __init__(self, arg, op_name):
        self.name = ident(arg["name"])
        self.schema_name = arg["name"]
        self.has_default = arg["default"] is not None
        self.default = arg["default"]
        kind, optional = registry.arg_kind(arg, op_name, "rust")
        n = self.name
        self.prep = []
        self.skip = kind == "generator"
        if self.skip:
            self.rust, self.value = None, "arg::none()"
        elif kind in SIMPLE:
            plain, opt, value, opt_value = SIMPLE[kind]
            self.rust = opt if optional else plain
            self.value = (opt_value if optional else value).format(n=n)
        elif kind == "tensors":
            self.rust = "&[impl AsRef<Tensor>]"
            self.prep = [f"let {n}_h = arg::handles({n});"]
            self.value = f"arg::tensor_list(&{n}_h)"
        elif kind == "device":
            self.rust = "Option<Device>" if optional else "Device"
            if optional:
                self.prep = [f"let {n}_c = {n}.map(Device::to_cstring);"]
                self.value = f"arg::opt_device({n}_c.as_deref())"
            else:
                self.prep = [f"let {n}_c = {n}.to_cstring();"]
                self.value = f"arg::device(&{n}_c)"
        elif optional:  # str?
            self.rust = "Option<&str>"
            self.prep = [f"let {n}_c = {n}.map(|s| c_string(\"{op_name}\", s)).transpose()?;"]
            self.value = f"arg::opt_string({n}_c.as_deref())"
        else:  # str
            self.rust = "&str"
            self.prep = [f"let {n}_c = c_string(\"{op_name}\", {n})?;"]
            self.value = f"arg::string(&{n}_c)"


def returns_type(op):
    n = len(op["returns"])
    return "Tensor" if n == 1 else "(" + ", ".join(["Tensor"] * n) + ")"


def function(op, rust_name, full):
    """One method: `full` takes every argument, otherwise only those without defaults."""
    qualified = registry.qualified(op)
    params = [Param(a, qualified) for a in op["arguments"]]
    is_method = bool(params) and params[0].schema_name == "self" and params[0].rust == "&Tensor"
    taken = [p for p in params if not p.skip and (full or not p.has_default)]
    sig = ["&self"] if is_method else []
    sig += [f"{p.name}: {p.rust}" for p in taken if not (is_method and p is params[0])]
    values, prep = [], []
    for p in params:
        if p in taken or (is_method and p is params[0]):
            prep += p.prep
            values.append("arg::tensor(self)" if is_method and p is params[0] else p.value)
        else:
            values.append("arg::none()")
    while values and values[-1] == "arg::none()":
        values.pop()  # trailing defaults may be left out
    n = len(op["returns"])
    ret = returns_type(op)
    defaults = [f"`{p.schema_name}={p.default}`" for p in params if p.has_default and not p.skip and p not in taken]
    name = rust_name
    if full:
        name = rust_name[:-1] + "_with_" if rust_name.endswith("_") else rust_name + "_with"
        doc = [f"/// `{op['schema']}`: every argument (see [`Tensor::{rust_name}`])."]
    else:
        doc = [f"/// `{op['schema']}`"]
        if defaults:
            with_name = rust_name[:-1] + "_with_" if rust_name.endswith("_") else rust_name + "_with"
            doc += ["///", f"/// Takes the defaults {', '.join(defaults)}; [`Tensor::{with_name}`] takes every argument."]
    # Each method finds its overload once (ct_op_find) and calls the handle from then on.
    body = [f"static OP: Op = Op::new(c\"{qualified}\");"] + prep + [f"let args = [{', '.join(values)}];"]
    call = f"call_n::<{n}>(&OP, &args)"
    if n == 1:
        body.append(f"let [r] = {call}?;")
        body.append("Ok(r)")
    else:
        names = ", ".join(f"r{i}" for i in range(n))
        body.append(f"let [{names}] = {call}?;")
        body.append(f"Ok(({names}))")
    lines = ["    " + d for d in doc]
    lines.append(f"    pub fn {name}({', '.join(sig)}) -> Result<{ret}> {{")
    lines += ["        " + b for b in body]
    lines.append("    }")
    # The same method on a pending Result<Tensor> (TensorResult), so a chain checks once.
    forward = None
    if is_method:
        rest = [f"{p.name}: {p.rust}" for p in taken if p is not params[0]]
        names_passed = ", ".join(p.name for p in taken if p is not params[0])
        forward = "\n".join([
            f"        /// [`Tensor::{name}`] of the tensor, or the chain's first error.",
            f"        fn {name}({', '.join(['self'] + rest)}) -> Result<{ret}> {{",
            f"            self.tensor()?.{name}({names_passed})",
            "        }"])
    return "\n".join(lines), any(p.has_default and not p.skip for p in params), forward


def files(version, ops):
    names = method_names(ops)
    out = ["// @generated by codegen/gen_ops.py from the operator registry: do not edit.",
           "// Regenerate with `codegen/gen_ops.py`; tests/registry.rs and CTest fail when they drift.",
           "",
           "use crate::device::Device;",
           "use crate::dtype::DType;",
           "use crate::error::{c_string, Result};",
           "use crate::ops::{arg, call_n, Op};",
           "use crate::scalar::Scalar;",
           "use crate::tensor::Tensor;",
           "",
           "/// Every operator overload of the registry this crate was generated from, as",
           "/// \"name.overload\" (\"name\" for an unnamed overload), each with a typed method on [`Tensor`].",
           "pub const GENERATED_OVERLOADS: &[&str] = &["]
    for op in ops:
        out.append(f"    \"{op['name']}{'.' + op['overload'] if op['overload'] else ''}\",")
    out.append("];")
    out.append("")
    out.append("/// Operators of the registry, generated by codegen/gen_ops.py.")
    out.append("// Schemas fix the argument lists; some have more arguments than clippy likes.")
    out.append("#[allow(clippy::too_many_arguments)]")
    out.append("impl Tensor {")
    forwards = []
    for op in ops:
        text, has_defaults, forward = function(op, names[(op["name"], op["overload"])], False)
        out.append(text)
        out.append("")
        forwards += [forward] if forward else []
        if has_defaults:
            text, _, forward = function(op, names[(op["name"], op["overload"])], True)
            out.append(text)
            out.append("")
            forwards += [forward] if forward else []
    out[-1] = "}"
    out.append("")
    out.append("/// The methods above that take `self`, as default methods of [`crate::TensorResult`]: each")
    out.append("/// forwards to the tensor of a `Result<Tensor>`, or passes its error on.")
    out.append("macro_rules! tensor_result_methods {")
    out.append("    () => {")
    out.append("\n\n".join(forwards))
    out.append("    };")
    out.append("}")
    out.append("pub(crate) use tensor_result_methods;")
    return {OUT: "\n".join(out) + "\n"}
