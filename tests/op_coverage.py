#!/usr/bin/env python3
"""op_coverage.py - what the tests cover, per registered operator; exits 1 on a hole.

Columns (one row per operator name; in-place variants go with their functional operator):
  dtypes      the differential cases use inputs of at least three dtypes
  broadcast   a case combines inputs whose sizes broadcast (different ranks, or a size-1 dim
              against a larger one)
  noncontig   a case has a transposed, stepped or expanded input
  empty       a case has an input with a zero-size dim
  0-dim       a case has a 0-dim input
  errors      a case on which torch raises (the differential test requires ctorch to raise too)
  gradient    every differentiable overload has a gradcheck case (tests/cpp/autograd/gradcheck/)
  meta        the operator runs on the meta device in tests: its differential cases run again
              there (test_case_on_meta_matches_cpu), or, for factories, the C++ MetaDevice suite

A column that cannot apply to an operator is marked '-', with the reason in NOT_APPLICABLE below or
derived from the registry (no tensor inputs: a factory; derivative 'none': indices or booleans).
Everything else must be covered ('x' marks a hole, and the exit status is 1).

Run it from the repository root with the built Python package on the path:
  PYTHONPATH=build/bindings/python /usr/bin/python3 tests/op_coverage.py
"""

import os
import re
import sys
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python", "tests"))

import numpy as np  # noqa: E402
import ctorch  # noqa: E402
import test_vs_torch as vs  # noqa: E402
from difftest import build, torch_reference  # noqa: E402

COLUMNS = ["dtypes", "broadcast", "noncontig", "empty", "0-dim", "errors", "gradient", "meta"]
INPUT_COLUMNS = COLUMNS[:5]

# Columns that cannot apply, with the reason. Keep the reasons honest: a waiver is a claim that
# the property does not exist for the operator, not that testing it is inconvenient.
_NO_BROADCAST = "its tensor arguments do not broadcast against each other"
_ONE_DTYPE_FAMILY = "accepts a single dtype family"
_ACCEPTS_ALL = "every dtype and size is accepted (integers and bool promote where needed)"
NOT_APPLICABLE = {
    "mm": {"broadcast": _NO_BROADCAST},
    "bmm": {"broadcast": _NO_BROADCAST},
    "cat": {"broadcast": _NO_BROADCAST},
    "stack": {"broadcast": _NO_BROADCAST},
    "to": {"errors": "every dtype converts to every dtype"},
    "slice_scatter": {"broadcast": "src must have the slice's sizes exactly, as torch requires"},
    "dot": {"broadcast": "takes two 1-D tensors of one size, as torch.dot (no broadcasting)"},
    "kron": {"errors": "any two tensors have a Kronecker product"},
    "clone": {"errors": _ACCEPTS_ALL},
    "contiguous": {"errors": _ACCEPTS_ALL},
    "_unique2": {"errors": _ACCEPTS_ALL},
    "nonzero": {"errors": _ACCEPTS_ALL},
    "max_unpool2d": {"broadcast": "indices pair with self's values one to one, as torch requires (equal shapes)"},
    "max_unpool3d": {"broadcast": "indices pair with self's values one to one, as torch requires (equal shapes)"},
    "bincount": {"broadcast": "weights pair with self's values one to one, as torch's (no broadcasting)"},
    **{op: {"gradient": "torch defines no derivative for it either; an input requiring grad is refused"}
       for op in ("geqrf", "linalg_ldl_factor_ex", "linalg_ldl_factor", "linalg_ldl_solve")},
    **{op: {"errors": _ACCEPTS_ALL} for op in ("abs", "exp", "log", "sin", "cos", "sqrt", "rsqrt", "tanh",
                                                "sigmoid", "reciprocal")},
    # Complex numbers' operators that torch defines for every dtype (the real ones give their input,
    # or its angle 0 or pi, or its sign).
    **{op: {"errors": _ACCEPTS_ALL} for op in ("real", "conj", "conj_physical", "resolve_conj", "angle", "sgn")},
}

# Random operators: their values come from ctorch's Philox stream and cannot equal torch's, so they
# have no differential cases; test_random.py checks their sizes, dtypes, errors and distributions.
RANDOM_REASON = "random values: test_random.py checks sizes, dtypes, errors and distributions"


def registry_by_name():
    ops = {}
    for o in ctorch.ops.registry():
        if o["builtin"]:
            ops.setdefault(o["name"], []).append(o)
    return ops


def gradcheck_names():
    """Every quoted operator name in the gradcheck case files."""
    names = set()
    folder = os.path.join(ROOT, "tests", "cpp", "autograd", "gradcheck")
    for f in os.listdir(folder):
        if f.endswith(".cpp"):
            with open(os.path.join(folder, f)) as src:
                names |= set(re.findall(r'"([a-z0-9_]+(?:\.[A-Za-z0-9_]+)?)"', src.read()))
    return names


def broadcasts(shapes):
    for i, a in enumerate(shapes):
        for b in shapes[i + 1:]:
            if len(a) != len(b):
                return True
            if any((x == 1) != (y == 1) for x, y in zip(a, b)):
                return True
    return False


def torch_raises(op, case):
    rng = np.random.default_rng(0)
    warnings.simplefilter("ignore")  # torch's own warnings about the inputs are not the report
    try:
        tensors = [build(s, rng)[1] for s in case.inputs]
        torch_reference(case.torch_fn or case.fn, tensors)
    except Exception:  # noqa: BLE001 - any torch failure makes this an error case
        return True
    return False


def tensor_arity(overloads):
    def count(o):
        return sum(1 for a in o["arguments"] if a["type"].startswith("Tensor"))
    return max(count(o) for o in overloads)


def row(name, overloads, cases, gradcheck):
    """{column: (mark, reason)} for one operator."""
    out = {}
    na = dict(NOT_APPLICABLE.get(name, {}))
    arity = tensor_arity(overloads)
    specs = [case.inputs for case in cases]
    if name in vs.NO_CASE_NEEDED:
        for c in INPUT_COLUMNS + ["errors"]:
            na.setdefault(c, RANDOM_REASON)
    if arity == 0:
        for c in INPUT_COLUMNS:
            na.setdefault(c, "no tensor inputs (a factory)")
    if arity < 2:
        na.setdefault("broadcast", "one tensor input")
    checks = {
        "dtypes": len({s.dtype for inputs in specs for s in inputs}) >= 3,
        "broadcast": any(broadcasts([s.shape for s in inputs]) for inputs in specs),
        "noncontig": any(s.layout != "contig" for inputs in specs for s in inputs),
        "empty": any(0 in s.shape for inputs in specs for s in inputs),
        "0-dim": any(s.shape == () for inputs in specs for s in inputs),
        "errors": any(torch_raises(name, case) for case in cases),
    }
    differentiable = [o for o in overloads if o["derivative"] != "none"]
    if not differentiable:
        na.setdefault("gradient", "not differentiable: its results are indices or booleans")
    full = [o["name"] + ("." + o["overload"] if o["overload"] else "") for o in differentiable]
    checks["gradient"] = all(f in gradcheck for f in full)
    # The C++ MetaDevice suite runs every registered operator on meta and compares it with the CPU;
    # the differential cases add varied inputs where the operator has them.
    has_meta = all("meta" in o["backends"] for o in overloads)
    checks["meta"] = has_meta and (any(case.inputs for case in cases) or arity == 0 or name in vs.NO_CASE_NEEDED)
    for c in COLUMNS:
        if c in na:
            out[c] = ("-", na[c])
        else:
            out[c] = ("ok" if checks[c] else "x", "")
    return out


def main():
    ops = registry_by_name()
    gradcheck = gradcheck_names()
    table, holes = [], []
    aliases = sorted(n for n, overloads in ops.items() if all(o.get("alias_of") for o in overloads))
    for name in sorted(ops):
        if name.endswith("_") or name in aliases:  # an alias runs its target's kernels: its target's row
            continue
        r = row(name, ops[name], vs.CASES.get(name, []), gradcheck)
        table.append((name, r))
        holes += [(name, c) for c in COLUMNS if r[c][0] == "x"]
    width = max(len(n) for n, _ in table)
    print(f"{'operator':<{width}}  " + "  ".join(f"{c:>9}" for c in COLUMNS))
    for name, r in table:
        print(f"{name:<{width}}  " + "  ".join(f"{r[c][0]:>9}" for c in COLUMNS))
    reasons = sorted({(c, r[c][1]) for _, r in table for c in COLUMNS if r[c][0] == "-"})
    print("\n'-' means the column cannot apply:")
    for c, why in reasons:
        print(f"  {c}: {why}")
    covered = sum(1 for _, r in table for c in COLUMNS if r[c][0] == "ok")
    print(f"\n{len(table)} operators, {covered} cells covered, {len(holes)} holes; {len(aliases)} aliases, each "
          "covered by its target's row and test_alias_matches_torch")
    for name, c in holes:
        print(f"HOLE {name}: {c}")
    return 1 if holes else 0


if __name__ == "__main__":
    sys.exit(main())
