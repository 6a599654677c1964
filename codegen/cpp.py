"""cpp.py - codegen/gen_ops.py's C++ target: src/ops/op_calls.h and op_calls.cpp, one typed function
of ct::ops per built-in operator overload (Note [Typed calls] in op_calls.h).

Names: an operator's overloads share its name, told apart by their types (ops::add(a, b),
ops::add(a, 2), ops::add_(a, b)); see function_names for the exceptions. Types:
Tensor and Tensor? are `const Tensor&` (an undefined Tensor is None), Tensor[] is
`ArrayRef<const TensorImpl*>`, int[] and SymInt[] are IntArrayRef (symbolic sizes go through
functions.h's *_symint calls) and int[]? OptionalIntArrayRef, another optional std::optional, Generator? a
runtime::Generator* (null: the default one). Trailing arguments with a default keep it.
"""

import registry

HEADER = "src/ops/op_calls.h"
SOURCE = "src/ops/op_calls.cpp"

KEYWORDS = set("""alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t
char32_t class compl concept const consteval constexpr constinit const_cast continue co_await co_return
co_yield decltype default delete do double dynamic_cast else enum explicit export extern false float for
friend goto if inline int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private
protected public register reinterpret_cast requires return short signed sizeof static static_assert
static_cast struct switch template this thread_local throw true try typedef typeid typename union unsigned
using virtual void volatile wchar_t while xor xor_eq""".split())


def function_names(ops):
    """(name, overload) -> C++ name. As libtorch's at:: functions, the overloads of an operator share
    its name and C++ picks by type (ops::mul(a, b), ops::mul(a, 2.0)); an overload that some call
    could not tell from one already named (the same parameter types, counting defaults) takes
    registry.py's policy name instead (ops::sum_dim_intlist), as does a name C++ reserves."""
    stems = registry.stems(ops)
    groups = {}
    for op in ops:
        groups.setdefault(op["name"], []).append(op)
    names = {}
    for name, overloads in groups.items():
        overloads = sorted(overloads, key=lambda op: not stems[(name, op["overload"])].primary)
        claimed = set()
        for op in overloads:
            stem = stems[(name, op["overload"])]
            calls = call_shapes(op)
            words = stem.words if (calls & claimed or name.rstrip("_") in KEYWORDS) else name.rstrip("_") if stem.inplace else name
            if words in KEYWORDS:
                words = f"{words}_{stem.overload.lower() or 'op'}"
            names[(name, op["overload"])] = words + ("_" if stem.inplace and not words.endswith("_") else "")
            if words.rstrip("_") == name.rstrip("_"):
                claimed |= calls
    return names


def call_shapes(op):
    """The parameter type lists a call of op can have: every prefix that leaves out only defaults."""
    params = [Param(a, registry.qualified(op)) for a in op["arguments"]]
    required = len(params)
    while required > 0 and params[required - 1].default is not None:
        required -= 1
    types = tuple(p.cpp for p in params)
    return {types[:k] for k in range(required, len(params) + 1)}


# kind -> the C++ parameter type (an optional one wraps it; see Param).
TYPES = {"tensor": "const Tensor&", "tensors": "ArrayRef<const TensorImpl*>", "int": "int64_t", "ints": "IntArrayRef",
         "float": "double", "bool": "bool", "scalar": "const Scalar&", "dtype": "DType", "device": "Device",
         "str": "const char*", "generator": "runtime::Generator*"}


def ident(name):
    return name + "_" if name in KEYWORDS else name


class Param:
    """One schema argument: its C++ parameter type, its default (or None) and its Value."""

    def __init__(self, arg, op_name):
        self.name = ident(arg["name"])
        kind, optional = registry.arg_kind(arg, op_name, "cpp")
        d = arg["default"]
        n = self.name
        self.cpp = TYPES[kind]
        self.value = f"opt({n})" if optional and kind != "generator" else n
        if kind == "str" and optional:  # nullptr for None
            self.value = f"{n} ? Value({n}) : Value()"
        if kind == "generator" or (kind == "str" and d == "None"):
            self.default = "nullptr"  # null: the default generator
        elif d is None:
            self.default = None
        elif d == "None":
            self.default = "Tensor()" if kind == "tensor" else "std::nullopt"
        elif kind == "ints":
            self.default = "IntArrayRef{" + d[1:-1] + "}"
        elif kind == "bool":
            self.default = {"True": "true", "False": "false"}[d]
        elif kind == "str":
            self.default = '"' + d.strip("'") + '"'
        else:
            self.default = d
        if optional and kind == "ints":
            self.cpp = "OptionalIntArrayRef"
        elif optional and kind not in ("tensor", "generator", "str"):
            self.cpp = f"std::optional<{self.cpp.replace('const ', '').rstrip('&')}>"
        elif d == "None" and kind not in ("tensor", "generator", "str"):
            raise SystemExit(f"codegen/cpp.py: a None default for the non-optional {arg['type']!r} in {op_name}")


def declaration(op, name, with_defaults):
    params = [Param(a, registry.qualified(op)) for a in op["arguments"]]
    # Only a trailing run of defaulted arguments can keep its defaults in C++.
    defaulted = len(params)
    while defaulted > 0 and params[defaulted - 1].default is not None:
        defaulted -= 1
    parts = []
    for i, p in enumerate(params):
        text = f"{p.cpp} {p.name}"
        if with_defaults and i >= defaulted:
            text += f" = {p.default}"
        parts.append(text)
    n = len(op["returns"])
    ret = "Tensor" if n == 1 else f"std::array<Tensor, {n}>"
    return f"{ret} {name}({', '.join(parts)})", params, n


def files(version, ops):
    names = function_names(ops)
    h = ["// @generated by codegen/gen_ops.py from the operator registry: do not edit.",
         "// Regenerate with `codegen/gen_ops.py`; CTest's codegen.current fails when they drift.",
         "//",
         "// op_calls.h - the typed C++ call of every built-in operator overload.",
         "//",
         "// Note [Typed calls]",
         "// Kernels, derivatives and the C ABI call an operator as ops::<name>(...), never by a name string:",
         "// a misspelt operator, a missing argument or a wrong type is a compile error, and each call site",
         "// looks its operator up once. Each function fills the schema's arguments in order and dispatches",
         "// (dispatcher.h), so autograd, tracing and every backend see the call. The names and types follow",
         "// codegen/cpp.py; functions.h keeps the calls that are not one overload (symbolic sizes, lists).",
         "#pragma once",
         "",
         "#include <array>",
         "#include <optional>",
         "",
         "#include \"core/array_ref.h\"",
         "#include \"core/scalar.h\"",
         "#include \"core/tensor.h\"",
         "",
         "namespace ct::runtime {",
         "class Generator;",
         "}",
         "",
         "namespace ct::ops {",
         ""]
    c = ["// @generated by codegen/gen_ops.py from the operator registry: do not edit.",
         "// The definitions of op_calls.h's typed calls (see Note [Typed calls] there).",
         "#include \"ops/op_calls.h\"",
         "",
         "#include \"dispatch/dispatcher.h\"",
         "",
         "namespace ct::ops {",
         "namespace {",
         "",
         "Value opt(const Tensor& t) { return t.defined() ? Value(t) : Value(); }",
         "Value opt(OptionalIntArrayRef v) { return v ? Value(*v) : Value(); }",
         "template <class T>",
         "Value opt(const std::optional<T>& v) {",
         "  return v ? Value(*v) : Value();",
         "}",
         "",
         "template <size_t N>",
         "std::array<Tensor, N> call_n(const OperatorDef& op, std::initializer_list<Value> args) {",
         "  std::array<Tensor, N> outs;",
         "  dispatch(op, args.begin(), args.size(), outs.data(), N);",
         "  return outs;",
         "}",
         "",
         "}  // namespace",
         ""]
    for op in ops:
        full = registry.qualified(op)
        name = names[(op["name"], op["overload"])]
        decl, params, n = declaration(op, name, True)
        h.append(f"/// {op['schema']}")
        h.append(decl + ";")
        body, _, _ = declaration(op, name, False)
        values = ", ".join(p.value for p in params)
        c.append(body + " {")
        c.append(f"  static const OperatorDef& op_ = builtin_op(\"{full}\");")
        c.append(f"  return call(op_, {{{values}}});" if n == 1 else f"  return call_n<{n}>(op_, {{{values}}});")
        c.append("}")
    h += ["", "}  // namespace ct::ops", ""]
    c += ["", "}  // namespace ct::ops", ""]
    return {HEADER: "\n".join(h), SOURCE: "\n".join(c)}
