"""registry.py - what the bindings' operator generators share (bindings/rust/gen_ops.py,
bindings/java/gen_ops.py): reading the built-in operators from a built libctorch, and the command
line that regenerates a file or checks it for drift.

    <generator> [--library build/src/libctorch.so]    # regenerate (CTORCH_LIBRARY also names it)
    <generator> --check [--library ...]               # exit 1 when the checked-in file differs
"""

import ctypes
import json
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def builtin_operators(library):
    """The registry's built-in operator entries (ct_op_registry_json), in registration order."""
    lib = ctypes.CDLL(str(library))
    lib.ct_op_registry_json.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
    lib.ct_string_release.argtypes = [ctypes.c_void_p]
    out = ctypes.c_void_p()
    if lib.ct_op_registry_json(ctypes.byref(out)) != 0:
        raise SystemExit(f"{library}: ct_op_registry_json failed")
    text = ctypes.string_at(out.value).decode()
    lib.ct_string_release(out)
    return [op for op in json.loads(text)["operators"] if op["builtin"]]


def main(out_path, generate, script):
    """Writes generate(operators) to out_path, or with --check compares it; returns the exit status."""
    args = sys.argv[1:]
    library = os.environ.get("CTORCH_LIBRARY", str(ROOT / "build" / "src" / "libctorch.so"))
    if "--library" in args:
        library = args[args.index("--library") + 1]
    text = generate(builtin_operators(library))
    if "--check" in args:
        if not out_path.exists() or out_path.read_text() != text:
            print(f"{out_path} is out of date: run {script}", file=sys.stderr)
            return 1
        return 0
    out_path.write_text(text)
    return 0
