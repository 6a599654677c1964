"""Symbolic shapes: ShapeEnv, SymInt, SymFloat, SymBool and the sym_* builders (ctorch.h, "Symbolic
shapes").

A ShapeEnv owns size symbols (`env.create_symbol(hint=8, min=2, max=64)` is s0) and records guards:
the facts a program relied on when it asked a symbolic value for a concrete answer (`if s0 > 1:`,
`int(s0)`, `max(s0, 1)`). Arithmetic on symbolic numbers builds simplified expressions and records
nothing; so do sym_max, sym_min, sym_sum, sym_ite and sym_not, which is why shape code uses them
instead of Python's max/if.

A SymInt, SymFloat or SymBool owns one handle and releases it once. Whatever an operation gives is
checked: a concrete result (s0 - s0, s0 >= 0 for a size) comes back as a plain int, float or bool,
so a Sym* object is always symbolic.

    env = ctorch.ShapeEnv()
    s0 = env.create_symbol(8, min=2, max=64)
    x = ctorch.empty(s0, 100, device="meta")
    y = ctorch.nn.functional.linear(x, ctorch.empty(50, 100, device="meta"))
    y.shape                      # ctorch.Size([s0, 50])
    y.numel().evaluate([16])     # 800
"""

import builtins
import functools
import json
import numbers

from . import _C
from ._errors import InvalidArgumentError

__all__ = ["ShapeEnv", "SymInt", "SymFloat", "SymBool", "sym_max", "sym_min", "sym_sum", "sym_ite", "sym_not",
           "sym_int", "sym_float"]

_new = object.__new__
_INT64_MAX = (1 << 63) - 1


def _release_fn(name):
    fn = getattr(_C, name)

    def release(self):
        h = getattr(self, "_h", None)
        if h and fn is not None:
            self._h = None
            fn(h)

    return release


# ---- handles -> Python values (a concrete result is a plain number, never a wrapper) ----

def _wrap_int(h):
    """A new ct_symint reference as an int (concrete) or a SymInt that owns it."""
    s = _new(SymInt)
    s._h = h
    value, concrete = _C.ct_symint_maybe_int(h)
    return value if concrete else s  # a dropped s releases the handle


def _wrap_float(h):
    s = _new(SymFloat)
    s._h = h
    value, concrete = _C.ct_symfloat_maybe_double(h)
    return value if concrete else s


def _wrap_bool(h):
    s = _new(SymBool)
    s._h = h
    value, concrete = _C.ct_symbool_maybe_bool(h)
    return builtins.bool(value) if concrete else s


# ---- Python values -> objects owning a handle (operands) ----

class _Const:
    """A handle for a plain number, released with the object."""

    __slots__ = ("_h", "_release")

    def __copy__(self, memo=None):  # a value: the copy is the object itself (one owner of the handle)
        return self

    __deepcopy__ = __copy__

    def __reduce__(self):
        raise TypeError("cannot pickle a ctorch._symbolic._Const: it is an operand handle of this process")

    def __del__(self):
        h = getattr(self, "_h", None)  # unset when creating the handle failed
        if h and self._release is not None:
            self._release(h)


@functools.lru_cache(maxsize=1024)
def _const_int(value):
    c = _new(_Const)
    c._h, c._release = _C.ct_symint_from_int(value), _C.ct_symint_release
    return c


def _const_float(value):
    c = _new(_Const)
    c._h, c._release = _C.ct_symfloat_from_double(value), _C.ct_symfloat_release
    return c


def _const_bool(value):
    c = _new(_Const)
    c._h, c._release = _C.ct_symbool_from_bool(1 if value else 0), _C.ct_symbool_release
    return c


def _int_operand(x):
    """x as an int operand (a SymInt, or a plain int's handle), or None for other types."""
    t = type(x)
    if t is SymInt:
        return x
    if t is builtins.int or t is builtins.bool:
        return _const_int(x)
    if t is not SymFloat and t is not SymBool and isinstance(x, numbers.Integral):  # numpy integers
        return _const_int(builtins.int(x))
    return None


def _float_operand(x):
    """x as a float operand: a SymFloat, a SymInt (as sym_float), a plain int or float; or None."""
    t = type(x)
    if t is SymFloat:
        return x
    if t is SymInt:
        return _as_symfloat(x)
    if t is builtins.float or t is builtins.int or t is builtins.bool:
        return _const_float(builtins.float(x))
    if t is not SymBool and isinstance(x, numbers.Real):
        return _const_float(builtins.float(x))
    return None


def _bool_operand(x):
    if type(x) is SymBool:
        return x
    if isinstance(x, builtins.bool):
        return _const_bool(x)
    return None


def _as_symfloat(s):
    """A SymInt as a SymFloat (float(s) without a guard)."""
    f = _new(SymFloat)
    f._h = _C.ct_sym_float(s._h)
    return f


# ---- operator factories ----

def _int_op(int_fn, float_fn, wrap_int, wrap_float, reflected=False):
    """A SymInt operator: with an int operand through int_fn, with a float one through float_fn."""
    fi = getattr(_C, int_fn)
    ff = getattr(_C, float_fn) if float_fn else None

    def op(self, other):
        o = _int_operand(other)
        if o is not None:
            return wrap_int(fi(o._h, self._h) if reflected else fi(self._h, o._h))
        if ff is not None:
            o = _float_operand(other)
            if o is not None:
                f = _as_symfloat(self)
                return wrap_float(ff(o._h, f._h) if reflected else ff(f._h, o._h))
        return NotImplemented

    return op


def _float_op(fn, wrap, reflected=False):
    f = getattr(_C, fn)

    def op(self, other):
        o = _float_operand(other)
        if o is None:
            return NotImplemented
        return wrap(f(o._h, self._h) if reflected else f(self._h, o._h))

    return op


def _bool_op(fn, reflected=False):
    f = getattr(_C, fn)

    def op(self, other):
        o = _bool_operand(other)
        if o is None:
            return NotImplemented
        return _wrap_bool(f(o._h, self._h) if reflected else f(self._h, o._h))

    return op


def _pow(reflected):
    """SymInt ** int; a negative plain exponent gives a float, as in Python."""
    as_int = _int_op("ct_symint_pow", "ct_symfloat_pow", _wrap_int, _wrap_float, reflected)

    def op(self, other, modulo=None):
        if modulo is not None:
            return NotImplemented
        if not reflected and type(other) is not SymInt and isinstance(other, numbers.Integral) and other < 0:
            return _as_symfloat(self) ** builtins.float(other)
        return as_int(self, other)

    return op


def _immutable_copy(self, memo=None):
    """Symbolic numbers are values: a copy is the same object (a second owner of one handle would
    release it twice)."""
    return self


def _no_pickle(self):
    raise TypeError(f"cannot pickle a {type(self).__name__}: it belongs to a ShapeEnv of this process")


def _values(values):
    return None if values is None else [builtins.int(v) for v in values]


class SymInt:
    """A symbolic int: an expression over a ShapeEnv's symbols ("2*s0 + 1"), like torch.SymInt.

    Arithmetic (+ - * // % ** and / to a SymFloat, with Python's rules for // and % of negatives) and
    comparisons (to a SymBool) record no guard. int(x), operator.index(x), bool(x) and float(x) need
    a concrete value: they answer from the symbols' hints and record a guard (GuardError for a value
    that depends on an unbacked symbol)."""

    __slots__ = ("_h",)

    def __init__(self, *args, **kwargs):
        raise TypeError("SymInts come from ShapeEnv.create_symbol, sizes of symbolic tensors and arithmetic")

    __del__ = _release_fn("ct_symint_release")
    __copy__ = __deepcopy__ = _immutable_copy
    __reduce__ = _no_pickle

    def __repr__(self):
        return _C.ct_symint_to_string(self._h)

    __str__ = __repr__

    def node_str(self):
        """The expression as text, e.g. "2*s0 + 1"."""
        return _C.ct_symint_to_string(self._h)

    def __hash__(self):
        return hash(_C.ct_symint_to_string(self._h))

    def evaluate(self, values):
        """The value under a binding: one int per symbol of the env, in creation order. No guard."""
        return _C.ct_symint_evaluate(self._h, _values(values))

    # ---- concrete values: each records a guard ----
    def __int__(self):
        return _C.ct_symint_guard_int(self._h)

    __index__ = __int__

    def __float__(self):
        return builtins.float(_C.ct_symint_guard_int(self._h))

    def __bool__(self):
        return builtins.bool(self != 0)

    # ---- arithmetic: no guard ----
    __add__ = _int_op("ct_symint_add", "ct_symfloat_add", _wrap_int, _wrap_float)
    __radd__ = _int_op("ct_symint_add", "ct_symfloat_add", _wrap_int, _wrap_float, True)
    __sub__ = _int_op("ct_symint_sub", "ct_symfloat_sub", _wrap_int, _wrap_float)
    __rsub__ = _int_op("ct_symint_sub", "ct_symfloat_sub", _wrap_int, _wrap_float, True)
    __mul__ = _int_op("ct_symint_mul", "ct_symfloat_mul", _wrap_int, _wrap_float)
    __rmul__ = _int_op("ct_symint_mul", "ct_symfloat_mul", _wrap_int, _wrap_float, True)
    __floordiv__ = _int_op("ct_symint_floordiv", "ct_symfloat_floordiv", _wrap_int, _wrap_float)
    __rfloordiv__ = _int_op("ct_symint_floordiv", "ct_symfloat_floordiv", _wrap_int, _wrap_float, True)
    __mod__ = _int_op("ct_symint_mod", "ct_symfloat_mod", _wrap_int, _wrap_float)
    __rmod__ = _int_op("ct_symint_mod", "ct_symfloat_mod", _wrap_int, _wrap_float, True)
    __truediv__ = _int_op("ct_symint_truediv", "ct_symfloat_truediv", _wrap_float, _wrap_float)
    __rtruediv__ = _int_op("ct_symint_truediv", "ct_symfloat_truediv", _wrap_float, _wrap_float, True)
    __pow__ = _pow(False)
    __rpow__ = _pow(True)

    def __neg__(self):
        return _wrap_int(_C.ct_symint_neg(self._h))

    def __pos__(self):
        return self

    def __abs__(self):
        """max(x, -x), built without a guard."""
        n = _wrap_int(_C.ct_symint_neg(self._h))
        return sym_max(self, n)

    def __trunc__(self):
        return self

    __floor__ = __ceil__ = __trunc__

    def __round__(self, ndigits=None):
        return self

    # ---- comparisons: a SymBool, no guard until it is asked for its value ----
    __eq__ = _int_op("ct_symint_eq", "ct_symfloat_eq", _wrap_bool, _wrap_bool)
    __ne__ = _int_op("ct_symint_ne", "ct_symfloat_ne", _wrap_bool, _wrap_bool)
    __lt__ = _int_op("ct_symint_lt", "ct_symfloat_lt", _wrap_bool, _wrap_bool)
    __le__ = _int_op("ct_symint_le", "ct_symfloat_le", _wrap_bool, _wrap_bool)
    __gt__ = _int_op("ct_symint_gt", "ct_symfloat_gt", _wrap_bool, _wrap_bool)
    __ge__ = _int_op("ct_symint_ge", "ct_symfloat_ge", _wrap_bool, _wrap_bool)


class SymFloat:
    """A symbolic float (s0 / 2, sym_float(s0)), like torch.SymFloat. float(x) and bool(x) guard."""

    __slots__ = ("_h",)

    def __init__(self, *args, **kwargs):
        raise TypeError("SymFloats come from arithmetic on symbolic numbers (s0 / 2, sym_float(s0))")

    __del__ = _release_fn("ct_symfloat_release")
    __copy__ = __deepcopy__ = _immutable_copy
    __reduce__ = _no_pickle

    def __repr__(self):
        return _C.ct_symfloat_to_string(self._h)

    __str__ = __repr__

    def node_str(self):
        return _C.ct_symfloat_to_string(self._h)

    def __hash__(self):
        return hash(_C.ct_symfloat_to_string(self._h))

    def evaluate(self, values):
        """The value under a binding (one int per symbol of the env, in creation order). No guard."""
        return _C.ct_symfloat_evaluate(self._h, _values(values))

    def __float__(self):
        return _C.ct_symfloat_guard_float(self._h)

    def __int__(self):
        """int(x) truncates toward zero, as for a float; the guard is on the truncated value."""
        return builtins.int(sym_int(self))

    def __bool__(self):
        return builtins.bool(self != 0.0)

    def __trunc__(self):
        return sym_int(self)

    __add__ = _float_op("ct_symfloat_add", _wrap_float)
    __radd__ = _float_op("ct_symfloat_add", _wrap_float, True)
    __sub__ = _float_op("ct_symfloat_sub", _wrap_float)
    __rsub__ = _float_op("ct_symfloat_sub", _wrap_float, True)
    __mul__ = _float_op("ct_symfloat_mul", _wrap_float)
    __rmul__ = _float_op("ct_symfloat_mul", _wrap_float, True)
    __truediv__ = _float_op("ct_symfloat_truediv", _wrap_float)
    __rtruediv__ = _float_op("ct_symfloat_truediv", _wrap_float, True)
    __floordiv__ = _float_op("ct_symfloat_floordiv", _wrap_float)
    __rfloordiv__ = _float_op("ct_symfloat_floordiv", _wrap_float, True)
    __mod__ = _float_op("ct_symfloat_mod", _wrap_float)
    __rmod__ = _float_op("ct_symfloat_mod", _wrap_float, True)
    __pow__ = _float_op("ct_symfloat_pow", _wrap_float)
    __rpow__ = _float_op("ct_symfloat_pow", _wrap_float, True)

    def __neg__(self):
        minus_one = _const_float(-1.0)  # held while its handle is in use
        return _wrap_float(_C.ct_symfloat_mul(self._h, minus_one._h))

    def __pos__(self):
        return self

    def __abs__(self):
        return sym_max(self, -self)

    __eq__ = _float_op("ct_symfloat_eq", _wrap_bool)
    __ne__ = _float_op("ct_symfloat_ne", _wrap_bool)
    __lt__ = _float_op("ct_symfloat_lt", _wrap_bool)
    __le__ = _float_op("ct_symfloat_le", _wrap_bool)
    __gt__ = _float_op("ct_symfloat_gt", _wrap_bool)
    __ge__ = _float_op("ct_symfloat_ge", _wrap_bool)


class SymBool:
    """A symbolic bool (s0 > 1), like torch.SymBool. bool(x) - what `if x:` asks - answers from the
    hints and records a guard; & | ~ and sym_not build expressions without one."""

    __slots__ = ("_h",)

    def __init__(self, *args, **kwargs):
        raise TypeError("SymBools come from comparisons of symbolic numbers (s0 > 1)")

    __del__ = _release_fn("ct_symbool_release")
    __copy__ = __deepcopy__ = _immutable_copy
    __reduce__ = _no_pickle

    def __repr__(self):
        return _C.ct_symbool_to_string(self._h)

    __str__ = __repr__

    def node_str(self):
        return _C.ct_symbool_to_string(self._h)

    def __hash__(self):
        return hash(_C.ct_symbool_to_string(self._h))

    def evaluate(self, values):
        """The value under a binding (one int per symbol of the env, in creation order). No guard."""
        return builtins.bool(_C.ct_symbool_evaluate(self._h, _values(values)))

    def __bool__(self):
        return builtins.bool(_C.ct_symbool_guard_bool(self._h))

    def __int__(self):
        return builtins.int(builtins.bool(self))

    __and__ = _bool_op("ct_symbool_and")
    __rand__ = _bool_op("ct_symbool_and", True)
    __or__ = _bool_op("ct_symbool_or")
    __ror__ = _bool_op("ct_symbool_or", True)

    def __invert__(self):
        """Logical not, as torch.SymBool (not Python's ~ on a bool)."""
        return sym_not(self)


_SYMBOLIC = (SymInt, SymFloat, SymBool)


def _is_float_like(x):
    return type(x) is SymFloat or (isinstance(x, numbers.Real) and not isinstance(x, numbers.Integral)
                                   and type(x) not in _SYMBOLIC)


# ---- builders that never guard ----

def _extremum(name, float_name, plain):
    def fn(a, b):
        if type(a) not in _SYMBOLIC and type(b) not in _SYMBOLIC:
            return plain(a, b)
        if _is_float_like(a) or _is_float_like(b):
            fa, fb = _float_operand(a), _float_operand(b)
            if fa is None or fb is None:
                raise TypeError(f"{name}: expected numbers, got {type(a).__name__} and {type(b).__name__}")
            return _wrap_float(getattr(_C, float_name)(fa._h, fb._h))
        ia, ib = _int_operand(a), _int_operand(b)
        if ia is None or ib is None:
            raise TypeError(f"{name}: expected ints or SymInts, got {type(a).__name__} and {type(b).__name__}")
        return _wrap_int(getattr(_C, "ct_" + name)([ia._h, ib._h]))

    fn.__name__ = name
    fn.__doc__ = (f"{plain.__name__}(a, b) as an expression: no guard is recorded (Python's "
                  f"{plain.__name__}() on symbols compares them, which guards). Plain numbers give "
                  f"{plain.__name__}(a, b).")
    return fn


sym_max = _extremum("sym_max", "ct_symfloat_max", builtins.max)
sym_min = _extremum("sym_min", "ct_symfloat_min", builtins.min)


def sym_sum(args):
    """sum(args) as one n-ary expression, without a guard; plain numbers give sum(args)."""
    args = list(args)
    if not builtins.any(type(a) in _SYMBOLIC for a in args):
        return builtins.sum(args)
    operands = [_int_operand(a) for a in args]
    if builtins.all(o is not None for o in operands):
        return _wrap_int(_C.ct_sym_sum([o._h for o in operands]))
    total = 0
    for a in args:  # floats: + builds the expression, still without a guard
        total = total + a
    return total


def sym_ite(c, a, b):
    """a if c else b, as an expression when c is a SymBool (no guard); plain c picks directly."""
    if type(c) is not SymBool:
        return a if c else b
    if not (_is_float_like(a) or _is_float_like(b)):
        ia, ib = _int_operand(a), _int_operand(b)
        if ia is not None and ib is not None:
            return _wrap_int(_C.ct_sym_ite(c._h, ia._h, ib._h))
    fa, fb = _float_operand(a), _float_operand(b)
    if fa is None or fb is None:
        raise TypeError(f"sym_ite: expected numbers, got {type(a).__name__} and {type(b).__name__}")
    return _wrap_float(_C.ct_sym_ite_float(c._h, fa._h, fb._h))


def sym_not(b):
    """not b, as an expression for a SymBool (no guard); plain b gives `not b`."""
    if type(b) is SymBool:
        return _wrap_bool(_C.ct_sym_not(b._h))
    return not b


def sym_int(x):
    """int(x) (truncating toward zero) without a guard for a SymFloat; plain x gives int(x)."""
    t = type(x)
    if t is SymFloat:
        return _wrap_int(_C.ct_sym_int(x._h))
    if t is SymInt:
        return x
    return builtins.int(x)


def sym_float(x):
    """float(x) without a guard for a SymInt; plain x gives float(x)."""
    t = type(x)
    if t is SymInt:
        return _wrap_float(_C.ct_sym_float(x._h))
    if t is SymFloat:
        return x
    return builtins.float(x)


# ---- the env ----

class ShapeEnv:
    """Symbols with ranges and hints, and the guards recorded on them (ct_shape_env). Symbolic numbers
    keep their env alive: close() (or the end of a `with` block) only ends this object's reference."""

    __slots__ = ("_h", "__weakref__")

    def __init__(self):
        self._h = _C.ct_shape_env_create()

    __del__ = _release_fn("ct_shape_env_release")

    def __copy__(self, memo=None):
        raise TypeError("cannot copy a ShapeEnv: create a new one, or share this one")

    __deepcopy__ = __copy__
    __reduce__ = _no_pickle

    def close(self):
        """Releases this object's reference now (idempotent); the env's symbols stay usable."""
        self.__del__()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def _env(self, what):
        if not self._h:
            raise InvalidArgumentError(_C.CT_ERROR_INVALID_ARGUMENT,
                                       f"ShapeEnv.{what}: the env was closed. Keep it open while you use it")
        return self._h

    def create_symbol(self, hint, min=0, max=None, name=None):
        """A new size symbol (s<k>, or name) known to lie in [min, max] (max None: no upper end),
        traced at hint."""
        return _wrap_int(_C.ct_shape_env_create_symbol(
            self._env("create_symbol"), name, builtins.int(hint), builtins.int(min),
            _INT64_MAX if max is None else builtins.int(max)))

    def create_unbacked(self):
        """A new unbacked symbol (u<k>): known only at run time, so branching on it is a GuardError."""
        return _wrap_int(_C.ct_shape_env_create_unbacked(self._env("create_unbacked")))

    @property
    def num_symbols(self):
        """How many symbols (backed and unbacked): the length of a binding."""
        return _C.ct_shape_env_num_symbols(self._env("num_symbols"))

    @property
    def num_guards(self):
        """How many distinct guards were recorded."""
        return _C.ct_shape_env_num_guards(self._env("num_guards"))

    @property
    def guard_requests(self):
        """How many times a concrete answer was asked of a symbolic value (before deduplication)."""
        return _C.ct_shape_env_guard_requests(self._env("guard_requests"))

    def guards_json(self):
        """{"symbols": [...], "guards": [...], "runtime_asserts": [...]} (ct_shape_env_guards_json)."""
        return json.loads(_C.ct_shape_env_guards_json(self._env("guards_json")))

    @property
    def guards(self):
        """The guards as Python-style text, in the order they were recorded (["s0 >= 2", ...])."""
        return list(self.guards_json()["guards"])

    @property
    def runtime_asserts(self):
        """The runtime assertions on unbacked symbols, as expression texts."""
        return [a["expr"] for a in self.guards_json()["runtime_asserts"]]

    @property
    def symbols(self):
        """The symbols as dicts: name, type, backed, hint, min, max."""
        return list(self.guards_json()["symbols"])

    def check_guards(self, values):
        """-1 when every guard and runtime assertion holds under the binding (one int per symbol, in
        creation order), else the index of the first that fails."""
        return _C.ct_shape_env_check_guards(self._env("check_guards"), _values(values))

    def __repr__(self):
        if not self._h:
            return "<ShapeEnv (closed)>"
        return f"<ShapeEnv: {self.num_symbols} symbols, {self.num_guards} guards>"


# ---- tensors ----

def _has_symint(values):
    return SymInt in builtins.map(type, values)


def _symint_handles(values):
    """(handles, owners) for a list of ints and SymInts, as CT_VALUE_SYMINTS takes it: owners keeps
    the plain ints' handles alive while the handles are used."""
    owners = [_int_operand(v) for v in values]
    for v, o in zip(values, owners):
        if o is None:
            raise TypeError(f"expected ints or SymInts, got {type(v).__name__}")
    return [o._h for o in owners], owners


def _sym_size(handle, dim):
    return _wrap_int(_C.ct_tensor_sym_size(handle, dim))


def _sym_numel(handle):
    return _wrap_int(_C.ct_tensor_sym_numel(handle))


def _sym_item(handle):
    return _wrap_int(_C.ct_tensor_sym_item(handle))


_C.ct_py_set_symbolic(SymInt, _wrap_int)
