"""The type stubs describe the package as it is: every public name and Tensor method is in them."""

import ast
import inspect
import os
import types

import pytest

ctorch = pytest.importorskip("ctorch")

STUB = os.path.join(os.path.dirname(ctorch.__file__), "__init__.pyi")
AUTOGRAD_STUB = os.path.join(os.path.dirname(ctorch.__file__), "autograd.pyi")


def stub_names(path=STUB):
    tree = ast.parse(open(path).read())
    top, tensor = set(), set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            top.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            top.add(node.target.id)
        elif isinstance(node, ast.ImportFrom) and node.module != "typing":
            top.update(a.asname or a.name for a in node.names)
        if isinstance(node, ast.ClassDef) and node.name == "Tensor":
            tensor = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
    return top, tensor


def test_every_public_name_has_a_stub():
    top, _ = stub_names()
    # Operators resolved from the registry on first use (ctorch.erfinv) are the stub's __getattr__.
    public = {n for n in dir(ctorch) if not n.startswith("_") and not isinstance(getattr(ctorch, n), types.ModuleType)
              and not hasattr(getattr(ctorch, n), "_ctorch_operator")}
    public |= {"ops"}
    missing = sorted(public - top)
    assert not missing, f"add these to ctorch/__init__.pyi: {missing}"


def test_every_tensor_method_has_a_stub():
    _, tensor = stub_names()
    methods = {n for n, v in vars(ctorch.Tensor).items()
               if (not n.startswith("_") or n in ("__getitem__", "__setitem__", "__dlpack__"))
               and (callable(v) or isinstance(v, property)) and not hasattr(v, "_ctorch_operator")}
    missing = sorted(methods - tensor)
    assert not missing, f"add these to Tensor in ctorch/__init__.pyi: {missing}"


def test_stubbed_functions_exist():
    top, tensor = stub_names()
    absent = sorted(n for n in top if not hasattr(ctorch, n) and n not in ("Number",))
    absent = [n for n in absent if not n.startswith("_")]
    assert not absent, f"stubbed but missing at run time: {absent}"
    assert not sorted(m for m in tensor if not hasattr(ctorch.Tensor, m))


def test_autograd_stub_matches_the_module():
    top, _ = stub_names(AUTOGRAD_STUB)
    missing = sorted(set(ctorch.autograd.__all__) - top)
    assert not missing, f"add these to ctorch/autograd.pyi: {missing}"
    absent = sorted(n for n in top if not n.startswith("_") and not hasattr(ctorch.autograd, n))
    assert not absent, f"stubbed but missing at run time: {absent}"
