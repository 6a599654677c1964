"""ctorch.ops: every registered operator by name, custom ones included, through the boxed call.

    ctorch.ops.add(a, b, alpha=2)      # add.Tensor
    ctorch.ops.myext.scale(x)          # an operator defined from C with ct_library_define
"""

import builtins
import collections
import itertools
import json
import numbers
import sys

from . import _C
from . import _dtype as _d
from . import _symbolic
from ._symbolic import SymBool, SymFloat, SymInt
from ._tensor import Tensor, _wrap, device

_NONE, _TENSOR, _INT, _FLOAT, _BOOL, _INTS, _TENSORS, _DTYPE, _DEVICE, _STRING, _SYMINT, _SYMINTS = range(12)

_registry = None


def registry():
    """The operator registry as parsed JSON (ct_op_registry_json): a list of operator entries."""
    global _registry
    if _registry is None:
        _registry = json.loads(_C.ct_op_registry_json())["operators"]
    return _registry


_by_name = {}  # operator name -> its overloads' registry entries


def overloads(name):
    """The registry entries of every overload of `name` ("add" -> add.Tensor, add.Scalar), or []."""
    if not _by_name:
        for op in registry():
            _by_name.setdefault(op["name"], []).append(op)
    return _by_name.get(name, [])


def _refresh():
    global _registry
    _registry = None
    _returns.clear()
    _by_name.clear()
    _functions.clear()
    _callers.clear()


def _box(x):
    if x is None:
        return (_NONE, 0)
    if isinstance(x, Tensor):
        return (_TENSOR, x._h)
    if isinstance(x, builtins.bool):
        return (_BOOL, int(x))
    if isinstance(x, numbers.Integral):
        return (_INT, int(x))
    if isinstance(x, numbers.Real):
        return (_FLOAT, float(x))
    if isinstance(x, complex):  # a wrapped complex128 number (C's values have no complex kind), kept alive
        t = _wrap(_C.ct_tensor_complex_scalar(x.real, x.imag))  # by the third item through the call
        return (_TENSOR, t._h, t)
    if isinstance(x, _d.dtype):
        return (_DTYPE, x.code)
    if isinstance(x, device):
        return (_DEVICE, str(x))
    if isinstance(x, str):
        return (_STRING, x)
    if isinstance(x, (list, tuple)):
        if all(isinstance(e, Tensor) for e in x) and x:
            return (_TENSORS, [e._h for e in x])
        if SymInt in map(type, x):
            # The third item keeps the plain ints' temporary handles alive through the call.
            return (_SYMINTS,) + tuple(_symbolic._symint_handles(x))
        return (_INTS, [int(e) for e in x])
    if type(x) is SymInt:
        return (_SYMINT, x._h)
    if type(x) is SymBool:  # no boxed kind for these: a concrete value, as torch specializes (a guard)
        return (_BOOL, int(builtins.bool(x)))
    if type(x) is SymFloat:
        return (_FLOAT, float(x))
    raise TypeError(f"ctorch.ops: cannot pass a {type(x).__name__} to an operator")


def _fits(value, type_text):
    """Whether a Python value can be passed as an argument of this schema type."""
    optional = type_text.endswith("?")
    base = type_text.rstrip("?").split("(")[0]
    if value is None:
        return optional
    if base == "Tensor":
        return isinstance(value, (Tensor, complex))  # a complex number goes as a 0-dim tensor (_box)
    if base.startswith("Tensor["):
        return isinstance(value, (list, tuple)) and all(isinstance(v, Tensor) for v in value)
    if base.startswith("int["):
        return isinstance(value, (list, tuple, numbers.Integral, SymInt)) and not isinstance(value, Tensor)
    if base in ("int", "bool"):
        return isinstance(value, (numbers.Integral, SymInt, SymBool))
    if base in ("float", "Scalar"):
        return isinstance(value, numbers.Real) and not isinstance(value, Tensor)
    if base == "ScalarType":
        return isinstance(value, _d.dtype)
    if base in ("Device", "str"):
        return isinstance(value, (str, device))
    return True


def _positional(name, args, kwargs):
    """Places keyword arguments by the schema of the first overload whose parameters take them all
    and whose types fit the values given."""
    if not kwargs:
        return list(args), name
    for op in overloads(name):
        params = op["arguments"]
        names = [a["name"] for a in params]
        positional = sum(1 for a in params if not a["kwarg_only"])
        # A keyword naming an argument given by position (x.topk(2, k=3)) fits no overload, as in torch.
        if len(args) > positional or not all(k in names and names.index(k) >= len(args) for k in kwargs):
            continue
        values = list(args) + [None] * (len(params) - len(args))
        for k, v in kwargs.items():
            values[names.index(k)] = v
        given = set(range(len(args))) | {names.index(k) for k in kwargs}
        if all(_fits(values[i], params[i]["type"]) for i in given):
            return values, name + ("." + op["overload"] if op["overload"] else "")
    raise TypeError(f"ctorch.ops.{name}: no overload takes these arguments and keywords {sorted(kwargs)}")


_returns = {}  # operator name -> (number of returns, named tuple type or None)


def _result_type(target):
    """(room for the most returns any matching overload has, {number of returns: named tuple type or
    None}). An unqualified name may resolve to overloads with different numbers of returns
    (median -> 1, median.dim -> 2): the call leaves room for the most and keeps what came back."""
    r = _returns.get(target)
    if r is None:
        qualified, _, rest = target.rpartition("::")
        base_name, _, overload = rest.partition(".")
        base = (qualified + "::" if qualified else "") + base_name
        ops_ = [op for op in overloads(base) if not overload or op["overload"] == overload] or \
            [{"returns": [{"name": None}]}]
        types = {}
        for op in ops_:
            names = [ret.get("name") for ret in op["returns"]]
            # Named returns come back as a named tuple (t.sort().values), as torch.return_types do.
            named = collections.namedtuple(base.replace("::", "_"), names) if len(names) > 1 and all(names) else None
            if len(names) not in types or (types[len(names)] is None and named is not None):
                types[len(names)] = named
        r = _returns[target] = (max(types), types)
    return r


def call(name, *args, **kwargs):
    """Calls the operator `name` ("add" or "add.Tensor"); returns a Tensor, or a tuple for several
    (a named tuple when the schema names its returns)."""
    key, direct, types = _callers.get(name) or _caller(name)
    r = _C.ct_py_op_call_fast(key, args, kwargs)
    if r is NotImplemented:
        return _call_general(name, args, kwargs)
    return r if direct else _results(r, types)


def _call_general(name, args, kwargs):
    """A function's call off the resolved path: out= as torch's functions take it, else _call_boxed."""
    if "out" in kwargs and not builtins.any(a["name"] == "out" for o in overloads(name) for a in o["arguments"]):
        return _into_out(name, args, kwargs)
    return _call_boxed(name, args, kwargs)


# torch's names for dtypes in its messages (c10::ScalarType)
_SCALAR_TYPE = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int64": "Long",
                "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


def _into_out(name, args, kwargs):
    """torch.erfinv(x, out=y), torch.topk(x, 2, out=(values, indices)): the result written into the
    given tensors, resized (with torch's warning when they held elements) where their sizes differ,
    and returned. As in torch, a result whose dtype cannot be cast to out's is refused, and so are
    inputs that require grad while grad mode is on."""
    kwargs = dict(kwargs)
    out = kwargs.pop("out")
    if out is None:
        return call(name, *args, **kwargs)
    from . import autograd, can_cast
    outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    if not builtins.all(isinstance(o, Tensor) for o in outs):
        raise TypeError(f"{name}(): argument 'out' must be a Tensor or a tuple of Tensors, not {type(out).__name__}")
    if autograd.is_grad_enabled() and builtins.any(
            isinstance(v, Tensor) and v.requires_grad for v in itertools.chain(args, kwargs.values(), outs)):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic differentiation, "
                           "but one of the arguments requires grad.")
    result = call(name, *args, **kwargs)
    results = tuple(result) if isinstance(result, tuple) else (result,)
    if len(results) != len(outs):
        raise TypeError(f"{name}(): argument 'out' must be a tuple of {len(results)} Tensors, got {len(outs)}")
    for o, r in zip(outs, results):
        if not can_cast(r.dtype, o.dtype):
            raise RuntimeError(f"result type {_SCALAR_TYPE[r.dtype.name]} can't be cast to the desired output type "
                               f"{_SCALAR_TYPE[o.dtype.name]}")
    for o, r in zip(outs, results):
        if o.shape != r.shape:
            if o.numel():
                import warnings
                warnings.warn(f"An output with one or more elements was resized since it had shape {list(o.shape)}, "
                              f"which does not match the required output shape {list(r.shape)}. This behavior is "
                              "deprecated, and in a future PyTorch release outputs will not be resized unless they "
                              "have zero elements. You can explicitly reuse an out tensor t by resizing it, inplace, "
                              "to zero elements with t.resize_(0).", UserWarning, stacklevel=4)
            o.resize_(r.shape)
        o.copy_(r)
    return out


def _call_boxed(name, args, kwargs):
    """call() in Python: the schema read for keywords, every value boxed by _box (SymInts, devices,
    numpy numbers included)."""
    values, target = _positional(name, args, kwargs)
    nouts, types = _result_type(target)
    handles = _C.ct_py_op_call(target, [_box(v) for v in values], nouts)
    if len(types) > 1:
        handles = handles[:len(handles) - sum(1 for _ in itertools.takewhile(lambda h: h is None, reversed(handles)))]
    outs = tuple(_wrap(h) for h in handles)
    if len(outs) == 1:
        return outs[0]
    named = types.get(len(outs))
    return named(*outs) if named else outs


# ---- Resolved callers: the per-call cost of ctorch.erfinv(x), x.erfinv(), x.topk(2, dim=0) ----
# _call_boxed() reads the schema on every call: where keywords go, how many results, how to box each
# value. _caller() does that once per operator name: the overload is found once (ct_op_find, when
# the name has a single one), and values of plain kinds (tensors, numbers, strings, dtypes, lists of
# ints or tensors) are boxed in C (ct_py_op_call_fast, Note [Python fast paths] in ctorch.i), with
# keywords of a single overload placed there by its argument names. Anything else (SymInts, devices,
# numpy numbers, keywords of several overloads) falls back to _call_boxed(), which gives the same
# results and errors.

_callers = {}  # operator name -> (C key, whether C's result is the one to return, {number of results: named tuple})


def _caller(name):
    c = _callers.get(name)
    if c is None:
        _, dot, overload = name.rpartition("::")[2].partition(".")
        if dot:  # a full name, "add.Tensor": that overload alone
            ops_ = [o for o in overloads(name[:-len(overload) - 1]) if o["overload"] == overload]
        else:
            ops_ = overloads(name)
        nouts, types = _result_type(name)
        # One built-in overload: found once, keywords placed in C by its argument names. Custom
        # operators may gain overloads later (ct_library_define): called by name, keywords by
        # _call_boxed().
        single = len(ops_) == 1 and ops_[0]["builtin"]
        params, optional, npos = None, 0, 0
        if single:
            args = ops_[0]["arguments"]
            params = tuple(sys.intern(a["name"]) for a in args)
            # A keyword may be None only where the schema's type is optional (_call_boxed()'s _fits).
            optional = builtins.sum(1 << i for i, a in enumerate(args) if a["type"].endswith("?"))
            npos = builtins.sum(1 for a in args if not a["kwarg_only"])
        # One number of results: C gives them as they are returned (a tensor, a tuple, the named tuple).
        direct = len(types) == 1
        named = types[nouts] if direct and nouts > 1 else None
        key = _C.ct_py_op_key(name, builtins.int(single), nouts, params, optional, npos, named)
        c = _callers[name] = (key, direct, types)
    return c


def _results(r, types):
    """ct_py_op_call_fast's tuple as _call_boxed() returns it: trailing empty slots dropped when the
    overloads return different numbers of results, one result alone, named returns as a named tuple."""
    if len(types) > 1:
        while r and r[-1] is None:
            r = r[:-1]
    if len(r) == 1:
        return r[0]
    named = types.get(len(r))
    return _tuple_new(named, r) if named else r


_tuple_new = tuple.__new__  # a named tuple of r without its Python __new__ (the same object)


def _make_function(name):
    key, direct, types = _caller(name)
    fast = _C.ct_py_op_call_fast

    def fn(*args, **kwargs):
        r = fast(key, args, kwargs)
        if r is NotImplemented:
            return _call_general(name, args, kwargs)
        return r if direct else _results(r, types)

    return fn


def method(name):
    """Tensor method `name` (self first) for an operator without a hand-written one: resolved once
    (_caller above); an in-place one (a name ending in _) returns self, as torch's do."""
    key, direct, types = _caller(name)
    fast = _C.ct_py_op_method_fast

    if name.endswith("_"):
        def m(self, *args, **kwargs):
            if fast(key, self, args, kwargs) is NotImplemented:
                _call_boxed(name, (self,) + args, kwargs)
            return self
    else:
        def m(self, *args, **kwargs):
            r = fast(key, self, args, kwargs)
            if r is NotImplemented:
                return _call_boxed(name, (self,) + args, kwargs)
            return r if direct else _results(r, types)

    m.__name__ = m.__qualname__ = name
    m.__doc__ = "\n".join(o["schema"] for o in overloads(name))
    m._ctorch_operator = name  # made from the registry (the stubs' Tensor.__getattr__ describes it)
    return m


_functions = {}


def function(name):
    """A Python function calling the operator `name` with positional and keyword arguments."""
    fn = _functions.get(name)
    if fn is None:
        fn = _make_function(name)
        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = "\n".join(o["schema"] for o in overloads(name))
        fn._ctorch_operator = name  # made from the registry (the stubs' module __getattr__ describes it)
        _functions[name] = fn
    return fn


def is_method(name):
    """Whether the built-in operator `name` takes a tensor `self` first, so it is also a Tensor method."""
    return any(o["builtin"] and o["arguments"] and o["arguments"][0]["name"] == "self" and
               o["arguments"][0]["type"].startswith("Tensor") for o in overloads(name))


class _Namespace:
    def __init__(self, prefix):
        self._prefix = prefix

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        full = self._prefix + name
        if overloads(full):
            return function(full)
        if not self._prefix and any(op["name"].startswith(name + "::") for op in registry()):
            return _Namespace(name + "::")
        _refresh()  # operators may have been defined since the registry was read
        if any(op["name"] == full or op["name"].startswith(full + "::") for op in registry()):
            return getattr(self, name)
        raise AttributeError(f"ctorch.ops has no operator '{full}'. See ctorch.ops.registry()")


_root = _Namespace("")


def __getattr__(name):
    if name.startswith("__"):  # Python's own probes (__path__, __wrapped__ ...) are not operators
        raise AttributeError(name)
    return getattr(_root, name)
