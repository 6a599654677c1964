"""c.py - codegen/gen_ops.py's C target: include/ctorch_ops.h and src/capi/op_functions.cpp, a typed C
function with its documentation block for every built-in operator overload that include/ctorch.h
does not declare by hand.

Which functions are generated: ctorch.h's operator functions are written by hand where a C caller
is better served by a shorter list than the schema's (ct_tensor_add has no alpha; ct_tensor_sum
takes its dims as one list); every other overload gets its function here, named by registry.py's
policy (ct_tensor_copysign_scalar_). So a new operator is callable from C with no edit, and a
hand-written function, when it is added, replaces the generated one of its name.

The mapping of schema types to C is the one ctorch.h follows (see HEADER_NOTE below).
"""

import pathlib
import re
import textwrap

import cpp
import registry

HEADER = "include/ctorch_ops.h"
SOURCE = "src/capi/op_functions.cpp"
CURATED = pathlib.Path(__file__).resolve().parent.parent / "include" / "ctorch.h"

C_KEYWORDS = set("""auto break case char const continue default do double else enum extern float for goto if
inline int long register restrict return short signed sizeof static struct switch typedef union unsigned void
volatile while _Bool _Complex _Imaginary bool""".split())
RESERVED = C_KEYWORDS | cpp.KEYWORDS | {"fn_", "op_", "outs_", "args_"}  # the body's own names

HEADER_NOTE = """\
/*
 * ctorch_ops.h - a typed C function for every operator overload that ctorch.h has no hand-written
 * function for, generated from the operator registry (codegen/c.py). Include ctorch.h; it
 * includes this header.
 *
 * Each function is named ct_tensor_<name>, after the overload as docs/extending.md's naming rule
 * gives it (copysign.Scalar -> ct_tensor_copysign_scalar; an in-place operator ends in "_"), and
 * takes the schema's arguments in order, its semantics being PyTorch's for that overload. The
 * operator name for ct_op_call is given with each. Arguments:
 *
 *   Tensor        const ct_tensor*, borrowed; the self of an in-place operator is ct_tensor*.
 *   Tensor?       const ct_tensor*; NULL is None.
 *   Tensor[]      const ct_tensor* const* name, size_t name_count; every one borrowed, none NULL.
 *   int, float    int64_t, double.      int?, float?   const int64_t*, const double*; NULL is None.
 *   bool          int (non-zero: true). bool?          const int*; NULL is None.
 *   int[]         const int64_t* name, size_t name_len (at most 64). int[]?: NULL is None.
 *   Scalar        const ct_scalar*. With a default, NULL is the default; Scalar?: NULL is None.
 *   ScalarType    ct_dtype.             ScalarType?    const ct_dtype*; NULL is None.
 *   Device        const char* ("cpu", "cuda:0"; NULL: the current device). Device?: NULL is None.
 *   str           const char*. With a default, NULL is the default.
 *   Generator?    ct_generator*; NULL is the device's default generator.
 *
 * An argument whose C type cannot be NULL has no default in C: pass the value (each block gives
 * PyTorch's default). One result is written to *out, several to the out pointers named after the
 * schema's results; each is a new reference on CT_OK and NULL otherwise. An in-place function
 * writes into self and returns no tensor.
 *
 * Returns CT_OK, or the failure's status with ct_last_error() naming the function, argument,
 * shapes and dtypes: CT_ERROR_INVALID_ARGUMENT (a NULL or released handle, a NULL out pointer or
 * required string, a value that is not a ct_dtype, an option the operator does not know),
 * CT_ERROR_SHAPE, CT_ERROR_DTYPE, CT_ERROR_DEVICE, CT_ERROR_INDEX, CT_ERROR_OUT_OF_MEMORY, as the
 * operator's checks find them; nothing is written on failure. Threads: any thread.
 */"""


def curated_names():
    """The ct_tensor_* functions include/ctorch.h declares by hand."""
    text = CURATED.read_text()
    return set(re.findall(r"^CT_API\b[^(]*?\b(ct_tensor_\w+)\(", text, re.M))


# Kinds passed by value (an optional one by pointer, NULL for None): the C type, and the argument
# the body passes for an expression of it.
BY_VALUE = {
    "int": ("int64_t", lambda x: x),
    "float": ("double", lambda x: x),
    "bool": ("int", lambda x: f"{x} != 0"),
    "dtype": ("ct_dtype", lambda x: f"capi::dtype_arg({x}, fn_)"),
}


def ident(name):
    return name + "_" if name in RESERVED else name


def scalar_literal(d):
    if d in ("True", "False"):
        return f"Scalar({d.lower()})"
    if re.fullmatch(r"-?\d+", d):
        return f"Scalar(int64_t{{{d}}})"
    return f"Scalar({float(d)!r})"


class CParam:
    """One schema argument in C: its parameters, the Value the body passes, and what the docs say."""

    def __init__(self, arg, op, fn):
        q = registry.qualified(op)
        kind, optional = registry.arg_kind(arg, q, "c")
        n = ident(arg["name"])
        d = arg["default"]
        self.name, self.note = n, None
        where = f'fn_, "{n}"'
        if kind == "tensor":
            mutable = "!" in arg["type"]
            self.params = [f"{'' if mutable else 'const '}ct_tensor* {n}"]
            read = f"&tensor_arg({n}, {where})"
            self.value = f"{n} ? Value({read}) : Value()" if optional else read
            self.note = "NULL for None" if optional else None
        elif kind == "tensors":
            self.params = [f"const ct_tensor* const* {n}", f"size_t {n}_count"]
            self.value = f"capi::tensor_list_arg({n}, {n}_count, {where})"
        elif kind in BY_VALUE:
            ctype, read = BY_VALUE[kind]
            if optional:
                self.params = [f"const {ctype}* {n}"]
                self.value = f"{n} ? Value({read('*' + n)}) : Value()"
                self.note = "NULL for None"
            else:
                self.params = [f"{ctype} {n}"]
                self.value = read(n)
                self.note = f"PyTorch's default: {d}" if d is not None else None
        elif kind == "ints":
            self.params = [f"const int64_t* {n}", f"size_t {n}_len"]
            read = f"Value(capi::int_list_arg({n}, {n}_len, {where}))"
            self.value = f"{n} ? {read} : Value()" if optional else read
            if optional:
                self.note = "NULL for None"
            elif d is not None:
                self.note = f"PyTorch's default: {d}"
        elif kind == "scalar":
            self.params = [f"const ct_scalar* {n}"]
            read = f"Value(capi::scalar_arg({n}, {where}))"
            if optional:
                self.value, self.note = f"{n} ? {read} : Value()", "NULL for None"
            elif d is not None:
                self.value, self.note = f"{n} ? {read} : Value({scalar_literal(d)})", f"NULL for {d}"
            else:
                self.value = read
        elif kind == "device":
            self.params = [f"const char* {n}"]
            if optional:
                self.value, self.note = f"{n} ? Value(parse_device({n})) : Value()", "NULL for None"
            else:
                self.value, self.note = f"Value(capi::device_arg({n}))", "NULL for the current device"
        elif kind == "str":
            self.params = [f"const char* {n}"]
            if optional:
                self.value, self.note = f"{n} ? Value({n}) : Value()", "NULL for None"
            elif d is not None:
                text = d.strip("'")
                self.value, self.note = f'{n} ? {n} : "{text}"', f'NULL for "{text}"'
            else:
                self.value = f"capi::string_arg({n}, {where})"
        elif kind == "generator":
            self.params = [f"ct_generator* {n}"]
            self.value = f"Value(capi::generator_arg({n}, fn_, true))"
            self.note = "NULL for the default generator"
        else:
            raise SystemExit(f"codegen/c.py: no C form for {arg['type']!r} in {q}")


def wrapped(head, parts, tail, indent, width=110):
    """head + parts joined by ", " + tail, its parts continued on lines indented to indent when long."""
    line = head + ", ".join(parts) + tail
    if len(line) <= width:
        return [line]
    lines, cur = [], head
    for i, part in enumerate(parts):
        piece = part + (", " if i + 1 < len(parts) else tail)
        if cur.strip() and len(cur) + len(piece.rstrip()) > width:
            lines.append(cur.rstrip())
            cur = " " * indent
        cur += piece
    return lines + [cur]


def result_names(op):
    if op["inplace"]:
        return []
    rets = op["returns"]
    if len(rets) == 1:
        return ["out"]
    names = [r["name"] for r in rets]
    return names if all(names) and len(set(names)) == len(names) else [f"out{i}" for i in range(len(rets))]


def function(op, fn):
    params = [CParam(a, op, fn) for a in op["arguments"]]
    outs = [ident(o) for o in result_names(op)]
    taken = {p.name for p in params}
    if taken & set(outs):  # symeig(bool eigenvectors) -> (eigenvalues, eigenvectors): number the results
        outs = [f"out{i}" for i in range(len(outs))]
    c_params = [x for p in params for x in p.params] + [f"ct_tensor** {o}" for o in outs]
    return params, outs, c_params


def doc_block(op, fn, params, outs):
    q = registry.qualified(op)
    lines = ["/*", f" * {fn} - {op['schema']}", " *"]
    notes = [(p.name, p.note) for p in params if p.note]
    width = max([len(n) for n, _ in notes] + [len(", ".join(outs))], default=0)
    for n, note in notes:
        lines.append(f" *   {n.ljust(width)}  {note}.")
    if outs:
        lines.append(f" *   {', '.join(outs).ljust(width)}  {'a new reference' if len(outs) == 1 else 'new references'}"
                     " on CT_OK, else NULL.")
    if notes or outs:
        lines.append(" *")
    grad = {"defined": "Differentiable.", "implicit": "Differentiable through the operators it calls.",
            "none": "Not differentiable.",
            "missing": "No derivative: an input that requires grad is CT_ERROR_NOT_IMPLEMENTED."}[op["derivative"]]
    backends = ", ".join(f"{b} {v['determinism']}" for b, v in op["backends"].items() if not b.startswith("privateuse"))
    facts = f"{grad} Determinism: {backends}. ct_op_call name: \"{q}\"."
    lines += [f" * {line}" for line in textwrap.wrap(facts, 97)]
    lines.append(" */")
    return lines


def files(version, ops):
    curated = curated_names()
    stems = registry.stems(ops)
    h = ["/* @generated by codegen/gen_ops.py from the operator registry: do not edit. */",
         "/* Regenerate with `codegen/gen_ops.py`; CTest's codegen.current fails when it drifts. */",
         HEADER_NOTE,
         "#ifndef CTORCH_OPS_H",
         "#define CTORCH_OPS_H",
         "",
         "#include \"ctorch.h\"",
         "",
         "#ifdef __cplusplus",
         "extern \"C\" {",
         "#endif",
         ""]
    c = ["// @generated by codegen/gen_ops.py from the operator registry: do not edit.",
         "// The typed C functions of include/ctorch_ops.h: each checks its handles and arguments, then",
         "// dispatches its operator (looked up once) with the schema's arguments in order.",
         "#include <cstdint>",
         "",
         "#include \"capi/handle.h\"",
         "#include \"dispatch/dispatcher.h\"",
         "",
         "using namespace ct;",
         "using capi::tensor_arg;",
         "",
         "extern \"C\" {",
         ""]
    for op in ops:
        stem = stems[(op["name"], op["overload"])]
        fn = "ct_tensor_" + stem.words + ("_" if stem.inplace else "")
        if fn in curated:
            continue
        params, outs, c_params = function(op, fn)
        h += doc_block(op, fn, params, outs)
        head = f"CT_API CT_NODISCARD ct_status {fn}("
        h += wrapped(head, c_params, ");", len(head))
        h.append("")
        values = [p.value for p in params]
        lookup = f'    CT_OPERATOR(op_, "{registry.qualified(op)}");'
        head = f"ct_status {fn}("
        c += wrapped(head, c_params, ") {", len(head))
        c.append(f'  const char* const fn_ = "{fn}";')
        if not outs:
            c.append("  return capi::guard([&] {")
            c.append(lookup)
            c += wrapped("    call(op_, {", values, "});", 15)
        elif len(outs) == 1:
            c.append("  return capi::tensor_result(out, fn_, [&] {")
            c.append(lookup)
            c += wrapped("    return call(op_, {", values, "});", 22)
        else:
            names = ", ".join(f'"{o}"' for o in outs)
            c.append(f'  return capi::tensors_result({{{", ".join(outs)}}}, fn_, {{{names}}}, [&](Tensor* outs_) {{')
            c.append(lookup)
            c += wrapped("    const Value args_[] = {", values, "};", 27)
            c.append(f"    dispatch(op_, args_, {len(params)}, outs_, {len(outs)});")
        c.append("  });")
        c.append("}")
        c.append("")
    h += ["#ifdef __cplusplus", "}", "#endif", "", "#endif /* CTORCH_OPS_H */", ""]
    c += ["}  // extern \"C\"", ""]
    return {HEADER: "\n".join(h), SOURCE: "\n".join(c)}
