#!/usr/bin/env python3
"""digits_same.py - run the digits example of every language this build has and compare their
lines byte for byte (examples/digits.md: with the same seed, the loss curves are bitwise identical
across languages).

    tests/digits_same.py --build-dir BUILD [--example digits] [--require c python] [--python PY]

Each example gets the data file's absolute path as its only argument and runs from the repository
root: C (BUILD/examples/<example>), Python (examples/python/<example>.py with PYTHONPATH=BUILD/
bindings/python), Rust (cargo run --example <example>, with the environment bindings/rust/
CMakeLists.txt uses), Julia (examples/julia/<example>.jl with CTORCH_LIBRARY and the build's
JULIA_DEPOT_PATH) and Java (java -cp ctorch.jar:ctorch-example-<Name>.jar <Name>). A language whose
example file, build output or toolchain is missing is skipped with the reason. The lines compared
are the "epoch ..." lines and the "held-out accuracy ..." line; they must be equal in every language
that ran. Exits 1 on a difference, a failed run or a --require'd language that did not run; 77
(CTest's skip code) when fewer than two languages ran and none was required.
"""

import argparse
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SKIP = 77


def java_name(example):
    return "".join(part.capitalize() for part in example.split("_"))  # digits_cnn -> DigitsCnn


def find_tool(name, *extra_dirs):
    found = shutil.which(name)
    if found:
        return found
    for d in extra_dirs:
        path = os.path.join(d, name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def commands(args, data):
    """(language, argv, extra environment) for each language, or (language, None, why skipped)."""
    build, ex = args.build_dir, args.example
    out = []

    binary = os.path.join(build, "examples", ex)
    out.append(("c", [binary, data], {}) if os.path.isfile(binary) else ("c", None, f"{binary} was not built"))

    script = os.path.join(ROOT, "examples", "python", ex + ".py")
    package = os.path.join(build, "bindings", "python")
    if not os.path.isfile(script):
        out.append(("python", None, f"no {os.path.relpath(script, ROOT)}"))
    elif not os.path.isdir(os.path.join(package, "ctorch")):
        out.append(("python", None, f"the Python package was not built ({package}/ctorch)"))
    else:
        out.append(("python", [args.python, script, data], {"PYTHONPATH": package}))

    source = os.path.join(ROOT, "examples", "rust", ex + ".rs")
    cargo = args.cargo or find_tool("cargo", os.path.join(os.environ.get("CARGO_HOME", ""), "bin"),
                                    os.path.expanduser("~/.cargo/bin"))
    if not os.path.isfile(source):
        out.append(("rust", None, f"no {os.path.relpath(source, ROOT)}"))
    elif not cargo:
        out.append(("rust", None, "no cargo"))
    elif not os.path.isfile(os.path.join(build, "bindings", "rust", "CTestTestfile.cmake")):
        out.append(("rust", None, "this build has no Rust crates (CTORCH_BUILD_RUST)"))
    else:
        env = {"CTORCH_DIR": os.path.join(build, "src"), "CARGO_TARGET_DIR": os.path.join(build, "bindings", "rust", "target"),
               "CARGO_NET_OFFLINE": "true", "RUSTFLAGS": "-D warnings",
               "LD_LIBRARY_PATH": os.path.join(build, "src")}
        out.append(("rust", [cargo, "run", "--quiet", "--manifest-path", os.path.join(ROOT, "bindings", "rust", "Cargo.toml"),
                             "--example", ex, "--", data], env))

    source = os.path.join(ROOT, "examples", "julia", ex + ".jl")
    julia = args.julia or find_tool("julia")
    if not os.path.isfile(source):
        out.append(("julia", None, f"no {os.path.relpath(source, ROOT)}"))
    elif not julia:
        out.append(("julia", None, "no julia"))
    elif not os.path.isfile(os.path.join(build, "bindings", "julia", "CTestTestfile.cmake")):
        out.append(("julia", None, "this build has no Julia package tests (CTORCH_BUILD_JULIA)"))
    else:
        env = {"CTORCH_LIBRARY": os.path.join(build, "src", "libctorch.so"),
               "JULIA_DEPOT_PATH": os.path.join(build, "bindings", "julia", "depot"), "JULIA_PKG_OFFLINE": "true"}
        out.append(("julia", [julia, "--startup-file=no", "--project=" + os.path.join(ROOT, "bindings", "julia", "CTorch"),
                              source, data], env))

    name = java_name(ex)
    source = os.path.join(ROOT, "examples", "java", name + ".java")
    java_dir = os.path.join(build, "bindings", "java")
    jars = [os.path.join(java_dir, "ctorch.jar"), os.path.join(java_dir, "examples", f"ctorch-example-{name}.jar")]
    java = args.java or find_tool("java", os.path.join(os.environ.get("JAVA_HOME", ""), "bin"))
    if not os.path.isfile(source):
        out.append(("java", None, f"no {os.path.relpath(source, ROOT)}"))
    elif not java:
        out.append(("java", None, "no java"))
    elif not all(os.path.isfile(j) for j in jars):
        out.append(("java", None, f"{' or '.join(j for j in jars if not os.path.isfile(j))} was not built"))
    else:
        out.append(("java", [java, "-cp", os.pathsep.join(jars), name, data], {}))
    return out


def compared_lines(stdout):
    return [line for line in stdout.splitlines() if line.startswith(("epoch ", "held-out accuracy "))]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build-dir", required=True)
    p.add_argument("--example", default="digits", help="digits (every language) or digits_cnn (C and Python)")
    p.add_argument("--require", nargs="*", default=[], help="languages that must run (c python rust julia java)")
    p.add_argument("--python", default=sys.executable, help="the interpreter the Python package was built for")
    p.add_argument("--cargo"), p.add_argument("--julia"), p.add_argument("--java")
    p.add_argument("--timeout", type=float, default=600, help="seconds per language")
    args = p.parse_args()
    args.build_dir = os.path.abspath(args.build_dir)
    data = os.path.join(ROOT, "examples", "data", "digits.safetensors")

    results, failed = {}, False
    for lang, argv, extra in commands(args, data):
        if argv is None:
            print(f"{lang:7s} skipped: {extra}")
            continue
        try:
            r = subprocess.run(argv, cwd=ROOT, env=dict(os.environ, **extra), capture_output=True, text=True,
                               timeout=args.timeout)
        except (OSError, subprocess.TimeoutExpired) as e:
            print(f"{lang:7s} FAILED to run: {e}")
            failed = True
            continue
        lines = compared_lines(r.stdout)
        epochs = [line for line in lines if line.startswith("epoch ")]
        if r.returncode != 0 or not epochs or len(lines) != len(epochs) + 1:
            print(f"{lang:7s} FAILED (exit {r.returncode}, {len(epochs)} epoch lines): {' '.join(argv)}\n"
                  f"{r.stdout[-2000:]}{r.stderr[-2000:]}")
            failed = True
            continue
        results[lang] = lines
        print(f"{lang:7s} ran: {len(epochs)} epochs, last: {epochs[-1]}; {lines[-1]}")

    for lang in args.require:
        if lang not in results:
            print(f"{lang} is required (--require) but did not run")
            failed = True
    if results:
        ref_lang, ref = next(iter(results.items()))
        for lang, lines in results.items():
            if lines == ref:
                continue
            failed = True
            for i, (a, b) in enumerate(zip(ref + [""] * len(lines), lines + [""] * len(ref))):
                if a != b:
                    print(f"{lang} differs from {ref_lang} at line {i + 1}:\n  {ref_lang:7s} {a}\n  {lang:7s} {b}")
                    break
    if failed:
        return 1
    if len(results) < 2:
        print(f"only {len(results)} language ran: nothing to compare")
        return SKIP
    print(f"the same {len(ref)} lines in {', '.join(results)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
