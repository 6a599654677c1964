#!/usr/bin/env python3
"""gen_sys.py - writes ctorch-sys/src/bindings.rs, the raw Rust declarations of include/ctorch.h (with
the generated include/ctorch_ops.h it includes).

    bindings/rust/gen_sys.py           # regenerate
    bindings/rust/gen_sys.py --check   # exit 1 when the checked-in file differs

The header is run through the C preprocessor (comments and macros go, the attribute macros expand
to __attribute__ and are dropped here) and its declarations are translated one by one: enums to
integer type aliases with constants (a binding must accept values it does not know), structs to
#[repr(C)] structs, opaque handles to zero-sized #[repr(C)] types, callbacks to Option<extern fn>,
and every CT_API function to an extern "C" declaration. The header's integer #defines become
constants. The static inline helpers (ct_value_set_symint...) are written by hand in lib.rs.
"""

import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
HEADER = ROOT / "include" / "ctorch.h"
OUT = pathlib.Path(__file__).resolve().parent / "ctorch-sys" / "src" / "bindings.rs"

SCALARS = {
    "void": "c_void", "char": "c_char", "int": "c_int", "unsigned": "c_uint", "double": "f64",
    "float": "f32", "size_t": "usize", "int8_t": "i8", "int16_t": "i16", "int32_t": "i32",
    "int64_t": "i64", "uint8_t": "u8", "uint16_t": "u16", "uint32_t": "u32", "uint64_t": "u64",
}


def preprocess():
    text = subprocess.run([os.environ.get("CC", "cc"), "-E", "-P", "-x", "c", str(HEADER)], check=True, capture_output=True,
                          text=True).stdout
    text = re.sub(r"__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)", "", text)
    return text


def split_declarations(text):
    """Top-level declarations, ending at ';' outside braces; static inline bodies are skipped."""
    decls, depth, start, i = [], 0, 0, 0
    while i < len(text):
        c = text[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0 and text[start:i].lstrip().startswith("static inline"):
                start = i + 1
        elif c == ";" and depth == 0:
            decls.append(" ".join(text[start:i].split()))
            start = i + 1
        i += 1
    return [d for d in decls if re.search(r"\b(ct|CT|DL)\w*", d)]


def rust_type(c, opaque, fnptrs):
    """A C type (as written in a parameter or field) in Rust."""
    c = c.replace("struct ", "").strip()
    stars = c.count("*")
    parts = re.findall(r"const\s*\*|\*|const|\w+", c)
    words = [p for p in parts if p not in ("const",) and "*" not in p]
    base = " ".join(words)
    name = SCALARS.get(base, base)
    if stars == 0:
        return name
    # Each '*' makes a pointer to what came before it; a const before the '*' makes that pointee
    # const: "const ct_tensor* const*" -> *const *const ct_tensor.
    levels, pointee_const = [], False
    for p in parts:
        if p.startswith("const"):
            pointee_const = True
        if "*" in p:
            levels.append("*const " if pointee_const else "*mut ")
            pointee_const = False
    return "".join(reversed(levels)) + name


def split_params(params):
    out, depth, cur = [], 0, ""
    for ch in params:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return [] if out == ["void"] else out


def struct_fields(body):
    """The fields of a struct body, one declarator each: "double beta1, beta2" gives two."""
    fields = []
    for f in (f.strip() for f in body.split(";")):
        if not f:
            continue
        if "(" in f or "," not in f:
            fields.append(f)
            continue
        first, *others = (p.strip() for p in f.split(","))
        base = re.match(r"(.*?)\w+$", first).group(1)
        fields += [first] + [base + o for o in others]
    return fields


def param(p, opaque, fnptrs):
    """'const int64_t* sizes' -> ('sizes', '*const i64'); a function pointer field too."""
    m = re.match(r"(.*)\(\s*\*\s*(\w+)\s*\)\s*\((.*)\)$", p)
    if m:
        return m.group(2), fn_type(m.group(1), m.group(3), opaque, fnptrs)
    m = re.match(r"(.*?)(\w+)\s*(\[\s*(\w+)\s*\])?$", p)
    ctype, name, arr = m.group(1), m.group(2), m.group(4)
    t = rust_type(ctype, opaque, fnptrs)
    if arr:
        t = f"[{t}; {arr}]"
    if name == "self":
        name = "self_"
    elif name in ("type", "fn", "ref", "in", "mod", "match", "move", "loop", "impl", "use"):
        name = "r#" + name
    return name, t


def fn_type(ret, params, opaque, fnptrs):
    args = ", ".join(f"{n}: {t}" for n, t in (param(p, opaque, fnptrs) for p in split_params(params)))
    r = rust_type(ret, opaque, fnptrs)
    return f"Option<unsafe extern \"C\" fn({args}){'' if r == 'c_void' else ' -> ' + r}>"


def generate():
    text = preprocess()
    out = ["// @generated by bindings/rust/gen_sys.py from include/ctorch.h: do not edit.",
           "// Regenerate with `bindings/rust/gen_sys.py`; the crate's header test fails when they drift.",
           "",
           "IMPORTS",
           ""]
    for name, value in re.findall(r"^#define (CT_\w+) \(?(-?\d+)\)?\s*(?:/\*.*)?$", HEADER.read_text(), re.M):
        ty = "i32" if name.startswith(("CT_VERSION", "CT_ABI")) else "c_int"
        if name == "CT_GENERATOR_STATE_SIZE":
            ty = "usize"
        out.append(f"pub const {name}: {ty} = {value};")
    ver = re.search(r'#define CT_VERSION_STRING "([^"]+)"', HEADER.read_text()).group(1)
    out.append(f'pub const CT_VERSION_STRING: &str = "{ver}";')
    out.append("")
    opaque, fnptrs, functions = set(), set(), []
    for d in split_declarations(text):
        m = re.match(r"typedef enum (\w+) \{(.*)\} (\w+)$", d)
        if m:
            name = m.group(3)
            out.append(f"pub type {name} = c_int;")
            for item in m.group(2).split(","):
                if item.strip():
                    k, v = (s.strip() for s in item.split("="))
                    out.append(f"pub const {k}: {name} = {v};")
            out.append("")
            continue
        m = re.match(r"typedef struct (\w+) \{(.*)\} (\w+)$", d) or re.match(r"typedef struct (\w+) \{(.*)\} (\w+)", d)
        if m:
            fields = [param(f, opaque, fnptrs) for f in struct_fields(m.group(2))]
            out.append("#[repr(C)]\n#[derive(Copy, Clone)]")
            out.append(f"pub struct {m.group(3)} {{")
            out += [f"    pub {n}: {t}," for n, t in fields]
            out.append("}\n")
            continue
        m = re.match(r"(?:typedef )?struct (\w+)(?: (\w+))?$", d)
        if m:
            name = m.group(2) or m.group(1)
            if name not in opaque:
                opaque.add(name)
                out.append("#[repr(C)]")
                out.append(f"pub struct {name} {{\n    _private: [u8; 0],\n}}\n")
            continue
        m = re.match(r"typedef (.*)\(\s*\*\s*(\w+)\s*\)\s*\((.*)\)$", d)
        if m:
            fnptrs.add(m.group(2))
            out.append(f"pub type {m.group(2)} = {fn_type(m.group(1), m.group(3), opaque, fnptrs)};\n")
            continue
        m = re.match(r"(.*?\W)(ct_\w+)\s*\((.*)\)$", d)
        if m:
            functions.append(m)
            continue
        raise SystemExit(f"gen_sys.py: cannot translate: {d}")
    out.append('extern "C" {')
    for m in functions:
        args = ", ".join(f"{n}: {t}" for n, t in (param(p, opaque, fnptrs) for p in split_params(m.group(3))))
        r = rust_type(m.group(1), opaque, fnptrs)
        out.append(f"    pub fn {m.group(2)}({args}){'' if r == 'c_void' else ' -> ' + r};")
    out.append("}")
    text = "\n".join(out) + "\n"
    used = [t for t in ("c_char", "c_int", "c_uint", "c_void") if re.search(rf"\b{t}\b", text.replace("IMPORTS", ""))]
    return text.replace("IMPORTS", f"use core::ffi::{{{', '.join(used)}}};")


def main():
    text = generate()
    if "--check" in sys.argv:
        if OUT.read_text() != text:
            print(f"{OUT} is out of date: run bindings/rust/gen_sys.py", file=sys.stderr)
            return 1
        return 0
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
