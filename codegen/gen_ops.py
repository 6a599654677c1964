#!/usr/bin/env python3
"""gen_ops.py - the one generator of ctorch's typed operator faces. It reads the operator registry of
a built libctorch (ct_op_registry_json) and writes, for every built-in overload:

  cpp    src/ops/op_calls.h, .cpp                  ct::ops::<name>(...): the typed C++ calls that
                                                   kernels, derivatives and the C ABI use
  c      include/ctorch_ops.h, src/capi/op_functions.cpp   ct_tensor_<name>(...): a typed C function
                                                   for each overload ctorch.h has none for by hand
  rust   bindings/rust/ctorch/src/generated.rs     a method of Tensor
  java   bindings/java/src/org/ctorch/TensorOps.java   a method of Tensor
  julia  bindings/julia/CTorch/src/generated/ops.jl    a function of CTorch.ops

    codegen/gen_ops.py [--library build/src/libctorch.so] [--targets cpp,rust,...]   # regenerate
    codegen/gen_ops.py --check [--library ...] [--targets ...]                     # exit 1 on drift

Every generated file is committed (the library itself compiles op_calls.cpp, so it must exist before
the first build; the bindings build without Python) and says so in its first line. Names follow the
one policy of registry.py; overloads are resolved by the C library (ct_op_call), never again here.
"""

import os
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import c  # noqa: E402
import cpp  # noqa: E402
import java  # noqa: E402
import julia  # noqa: E402
import registry  # noqa: E402
import rust  # noqa: E402

TARGETS = {"cpp": cpp, "c": c, "rust": rust, "java": java, "julia": julia}


def main(argv):
    library = os.environ.get("CTORCH_LIBRARY", str(ROOT / "build" / "src" / "libctorch.so"))
    if "--library" in argv:
        library = argv[argv.index("--library") + 1]
    chosen = list(TARGETS)
    if "--targets" in argv:
        chosen = argv[argv.index("--targets") + 1].split(",")
        unknown = [t for t in chosen if t not in TARGETS]
        if unknown:
            print(f"gen_ops.py: unknown targets {unknown}; known: {', '.join(TARGETS)}", file=sys.stderr)
            return 2
    version, ops = registry.builtin_operators(library)
    stale = []
    for target in chosen:
        for rel, text in TARGETS[target].files(version, ops).items():
            path = ROOT / rel
            if path.exists() and path.read_text() == text:
                continue
            if "--check" in argv:
                stale.append(rel)
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
                print(f"wrote {rel}")
    if stale:
        print(f"out of date: {', '.join(stale)}; run codegen/gen_ops.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
