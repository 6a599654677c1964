"""ctorch.compile: torch.compile over ct_compile (ctorch.h, "Compilation: ct_compile").

    @ctorch.compile
    def gelu_ish(x, y):
        return x * ctorch.sigmoid(1.702 * x) + y

    gelu_ish(a, b)            # the first call traces, fuses and runs; later calls reuse the graph
    gelu_ish.graphs()         # the printed graph of every cache entry
    gelu_ish.metrics()        # {"calls": ..., "compiles": ..., "recompiles": ..., ...}

The library traces the function on proxy tensors (meta tensors with the inputs' dtypes and sizes)
and keeps one graph per input signature behind guards. The binding adds what the C function cannot
see: the Python arguments. Tensors (also inside lists, tuples and dicts) are the compiled function's
inputs; every other argument is a constant of the trace, so each distinct combination of them
(compared by type and value, as torch's guards do) has its own C compiled function, up to
recompile_limit of them. Outputs are a Tensor or lists, tuples and dicts of them; their structure
is learned once per combination, by tracing the function once (see _Signature).

Reading a traced tensor's data (item(), tolist(), numpy(), printing it) is a graph break: under
fullgraph=True the call raises GraphBreakError, otherwise that signature runs the function eagerly
and a warning says why. Exceptions the function raises otherwise leave the call as themselves.
"""

import builtins
import functools
import json
import threading
import warnings
import weakref

from . import _C
from ._errors import GraphBreakError, RecompileLimitError, refuse_copies
from ._symbolic import SymBool, SymFloat, SymInt
from ._tensor import Tensor, _borrowed, _new_reference, _trace_mode, _wrap

__all__ = ["compile", "CompiledFunction"]


# ---- argument and output structures ----
#
# A structure ("spec") is hashable: _SLOT where a tensor goes, (_CONST, type, value) for any other
# value, (container type, items) for lists, tuples, named tuples and dicts. Two calls share a
# compiled function when their specs are equal: same tensor positions, same constants.

_SLOT = object()
_CONST = object()
_SYMBOLIC = (SymInt, SymFloat, SymBool)


def _flatten(x, leaves):
    """x's spec; appends its tensors to leaves in order."""
    t = type(x)
    if t is Tensor or isinstance(x, Tensor):
        leaves.append(x)
        return _SLOT
    if t is tuple or t is list or (isinstance(x, tuple) and hasattr(t, "_fields")):
        return (t, tuple([_flatten(v, leaves) for v in x]))
    if t is dict:
        return (dict, tuple([(k, _flatten(v, leaves)) for k, v in x.items()]))
    if t in _SYMBOLIC:
        raise TypeError(f"ctorch.compile: a {t.__name__} ({x}) cannot be passed to or returned from a traced "
                        "function. Pass a tensor, or int() it first")
    try:
        hash(x)
    except TypeError:
        raise TypeError(f"ctorch.compile: an argument of type {t.__name__} is neither a Tensor nor a hashable "
                        "constant; the compiled function keys its graphs on the other arguments' values") from None
    return (_CONST, t, x)


def _flatten_call(args, kwargs, leaves):
    """The spec of a call's arguments; keyword arguments in name order."""
    return (_flatten(args, leaves), _flatten(dict(sorted(kwargs.items())), leaves) if kwargs else None)


def _unflatten(spec, it):
    if spec is _SLOT:
        return next(it)
    if spec[0] is _CONST:
        return spec[2]
    t, items = spec
    if t is dict:
        return {k: _unflatten(v, it) for k, v in items}
    values = [_unflatten(v, it) for v in items]
    if t is list:
        return values
    if t is tuple:
        return tuple(values)
    return t(*values)  # a named tuple


def _unflatten_call(spec, tensors):
    it = iter(tensors)
    args = _unflatten(spec[0], it)
    return args, ({} if spec[1] is None else _unflatten(spec[1], it))


def _flatten_output(out, leaves):
    spec = _flatten(out, leaves)
    if _has_constant(spec):
        raise TypeError("ctorch.compile: the traced function returned a value that is not a Tensor (or None) where "
                        f"tensors go; return tensors, or tuples, lists and dicts of them (got {type(out).__name__})")
    return spec


def _has_constant(spec):
    if spec is _SLOT:
        return False
    if spec[0] is _CONST:
        return spec[2] is not None
    if spec[0] is dict:
        return builtins.any(_has_constant(v) for _, v in spec[1])
    return builtins.any(_has_constant(v) for v in spec[1])


class _Rediscovered(Exception):
    """Raised inside a traced function run with a guessed number of outputs: the structure is now
    known, so the caller runs it again with the right number. Never leaves the package."""


class _Signature:
    """One combination of non-tensor arguments: its input spec, its output spec (None until the
    function has run once) and its C compiled function (None for export)."""

    __slots__ = ("in_spec", "out_spec", "n_out", "handle")

    def __init__(self, in_spec):
        self.in_spec, self.out_spec, self.n_out, self.handle = in_spec, None, 0, None

    __copy__, __deepcopy__, __reduce_ex__ = refuse_copies(
        "a ctorch.compile signature", "it owns a compiled function of its CompiledFunction")


def _trampoline(fn, sig, exporting):
    """The callable ct_py_traced calls: rebuilds the arguments around the tensors it is given, runs
    fn, and hands back its output tensors. fn is reached through a weak reference when it is one (a
    compiled function's, so that the library's reference to this callable makes no cycle through
    the compiled function that owns it)."""
    get = fn if isinstance(fn, weakref.ref) else (lambda: fn)

    def run(handles, n_outputs):
        args, kwargs = _unflatten_call(sig.in_spec, [_borrowed(h) for h in handles])
        f = get()
        if exporting:
            previous = getattr(_trace_mode, "export", False)
            _trace_mode.export = True
            try:
                out = f(*args, **kwargs)
            finally:
                _trace_mode.export = previous
        else:
            out = f(*args, **kwargs)
        leaves = []
        spec = _flatten_output(out, leaves)
        if sig.out_spec is None:
            sig.out_spec, sig.n_out = spec, len(leaves)
        elif spec != sig.out_spec:
            raise TypeError(f"ctorch.compile: the function returned {len(leaves)} tensor(s), or a different "
                            f"structure, where an earlier call returned {sig.n_out}; with the same non-tensor "
                            "arguments it must return the same structure")
        if len(leaves) != n_outputs:
            raise _Rediscovered()
        return [_new_reference(t) for t in leaves]

    return run


# ---- ctorch.compile ----

_DYNAMIC = {None: _C.CT_DYNAMIC_AUTOMATIC, True: _C.CT_DYNAMIC_ON, False: _C.CT_DYNAMIC_OFF}
_COUNTERS = ("calls", "compiles", "graph_breaks", "eager_calls", "guard_misses")


def _option_value(value):
    if isinstance(value, builtins.bool):
        return "true" if value else "false"
    return str(value)


class CompiledFunction:
    """What ctorch.compile returns: calls fn through compiled graphs. Use it as fn; graphs() and
    metrics() tell what was compiled. The original function is __wrapped__."""

    def __init__(self, fn, *, fullgraph=False, dynamic=None, backend="fused", mode=None, options=None, disable=False,
                 name=None, recompile_limit=8):
        if not callable(fn):
            raise TypeError(f"ctorch.compile: expected a callable, got {type(fn).__name__}")
        if dynamic not in _DYNAMIC:
            raise TypeError(f"ctorch.compile: dynamic must be None, True or False, got {dynamic!r}")
        if not isinstance(backend, str):
            raise TypeError(f"ctorch.compile: backend must be a name (\"fused\" or \"eager\"), got "
                            f"{type(backend).__name__}")
        functools.update_wrapper(self, fn)
        self._fn = fn
        self._fullgraph = builtins.bool(fullgraph)
        self._disable = builtins.bool(disable)
        self._name = name if name is not None else getattr(fn, "__qualname__", None) or type(fn).__name__
        self._limit = recompile_limit
        self._signatures = {}
        self._order = []  # signatures in creation order, for graphs()
        self._lock = threading.RLock()
        self._python_calls = 0  # calls that ran fn directly: over the signature limit, or to learn outputs
        self._limit_warned = False
        self._options = options_handle = _C.ct_compile_options_create()
        _C.ct_compile_options_set_backend(options_handle, backend)
        if mode is not None:
            _C.ct_compile_options_set_mode(options_handle, mode)
        for key, value in (options or {}).items():
            _C.ct_compile_options_set_option(options_handle, key, _option_value(value))
        _C.ct_compile_options_set_dynamic(options_handle, _DYNAMIC[dynamic])
        _C.ct_compile_options_set_fullgraph(options_handle, 1 if self._fullgraph else 0)
        _C.ct_compile_options_set_recompile_limit(options_handle, recompile_limit)
        _C.ct_compile_options_set_name(options_handle, self._name)
        _C.ct_compile_options_set_disable(options_handle, 1 if self._disable else 0)
        # ct_compile checks the options as a whole (mode together with options): now, not at the first call.
        _C.ct_compiled_release(_C.ct_py_compile(lambda handles, n: (), options_handle))

    def __del__(self):
        for sig in getattr(self, "_order", ()):
            if sig.handle is not None and _C.ct_compiled_release is not None:
                _C.ct_compiled_release(sig.handle)
                sig.handle = None
        if getattr(self, "_options", None) is not None and _C.ct_compile_options_release is not None:
            _C.ct_compile_options_release(self._options)
            self._options = None

    __copy__, __deepcopy__, __reduce_ex__ = refuse_copies(
        "a ctorch.compile CompiledFunction", "call ctorch.compile on the function again (the copy compiles anew)")

    def __get__(self, obj, objtype=None):
        """As a method: the instance is the first argument (a constant of the trace)."""
        return self if obj is None else functools.partial(self, obj)

    def __repr__(self):
        return f"<ctorch.compile of {self._fn!r}>"

    def __call__(self, *args, **kwargs):
        if self._disable:
            return self._fn(*args, **kwargs)
        leaves = []
        key = _flatten_call(args, kwargs, leaves)
        sig = self._signatures.get(key)
        if sig is None:
            sig, result = self._new_signature(key, args, kwargs, leaves)
            if sig is None:
                return result
        handles = [t._h for t in leaves]
        if sig.out_spec is None:  # fullgraph: the first trace learns the outputs
            try:
                outs = _C.ct_py_compiled_call(sig.handle, handles, 1)
            except _Rediscovered:
                outs = _C.ct_py_compiled_call(sig.handle, handles, sig.n_out)
        else:
            outs = _C.ct_py_compiled_call(sig.handle, handles, sig.n_out)
        return _unflatten(sig.out_spec, builtins.map(_wrap, outs))

    def _new_signature(self, key, args, kwargs, leaves):
        """(signature, None) for the compiled call, or (None, result) when this call ran fn itself."""
        with self._lock:
            sig = self._signatures.get(key)
            if sig is not None:
                return sig, None
            if len(self._signatures) >= self._limit:
                return None, self._over_limit(args, kwargs)
            sig = _Signature(key)
            ran, result = False, None
            if not self._fullgraph:
                # Learn the output structure by tracing once (ct_export, which keeps nothing). When the
                # function cannot be traced the compiled call could not trace it either: it runs
                # eagerly now, and its result gives the structure.
                try:
                    self._probe(sig, leaves)
                except Exception:
                    pass
                if sig.out_spec is None:
                    self._python_calls += 1
                    ran, result = True, self._fn(*args, **kwargs)
                    out_leaves = []
                    sig.out_spec = _flatten_output(result, out_leaves)
                    sig.n_out = len(out_leaves)
            fn = weakref.ref(self._fn) if _weakrefable(self._fn) else self._fn
            sig.handle = _C.ct_py_compile(_trampoline(fn, sig, False), self._options)
            self._signatures[key] = sig
            self._order.append(sig)
            return (None, result) if ran else (sig, None)

    def _probe(self, sig, leaves):
        run = _trampoline(self._fn, sig, False)
        handles = [t._h for t in leaves]
        try:
            program = _C.ct_py_export(run, handles, 1, None)
        except _Rediscovered:
            return
        _C.ct_program_release(program)

    def _over_limit(self, args, kwargs):
        what = (f"ctorch.compile ({self._name}): hit the recompile limit ({self._limit} signatures of non-tensor "
                "arguments)")
        if self._fullgraph:
            raise RecompileLimitError(_C.CT_ERROR_RECOMPILE_LIMIT, what + " under fullgraph. Pass the changing values "
                                      "as tensors, or raise recompile_limit")
        if not self._limit_warned:
            self._limit_warned = True
            warnings.warn(what + "; calls with new values run eagerly from now on", UserWarning, stacklevel=4)
        self._python_calls += 1
        return self._fn(*args, **kwargs)

    # ---- what was compiled ----
    def graphs(self):
        """The printed graph of every cache entry, in the order they were compiled (a line saying
        why for an entry that runs eagerly)."""
        out = []
        for sig in list(self._order):
            for i in range(_C.ct_compiled_num_entries(sig.handle)):
                out.append(_C.ct_compiled_graph(sig.handle, i))
        return out

    def metrics(self):
        """This function's counters (ct_compiled_metrics_json) summed over its signatures: calls,
        compiles, recompiles (compiles after the first), graph_breaks, eager_calls, guard_misses,
        guards (of the latest graph), compile_latency_p50_us and _p95_us (the largest of the
        signatures'). Calls the binding ran itself (see ctorch.compile) count as calls and eager_calls."""
        per = [json.loads(_C.ct_compiled_metrics_json(sig.handle)) for sig in list(self._order)]
        total = {k: builtins.sum(m[k] for m in per) for k in _COUNTERS}
        total["calls"] += self._python_calls
        total["eager_calls"] += self._python_calls
        total["recompiles"] = builtins.max(total["compiles"] - 1, 0)
        total["guards"] = per[-1]["guards"] if per else 0
        for k in ("compile_latency_p50_us", "compile_latency_p95_us"):
            total[k] = builtins.max((m[k] for m in per), default=0)
        return total


def _weakrefable(fn):
    try:
        weakref.ref(fn)
    except TypeError:
        return False
    return True


def compile(fn=None, *, fullgraph=False, dynamic=None, backend="fused", mode=None, options=None, disable=False,
            name=None, recompile_limit=8):
    """torch.compile for ctorch: a decorator, with or without arguments, or a function.

    fullgraph   a graph break raises GraphBreakError instead of running that signature eagerly
    dynamic     None: sizes that change between calls become symbolic (the default); True: every
                size >= 2 is symbolic from the first trace; False: every size is static
    backend     "fused" (pointwise chains and their reductions become one kernel) or "eager"
    mode        "default", "reduce-overhead" or "max-autotune" (cpu kernels built as C++ by the
                system compiler while compiling: "cpp_kernels" True)
    options     {"fusion": bool, "cse": bool, "dce": bool, "constant_folding": bool,
                "cpp_kernels": bool or "auto", "cpp_kernels_hot_ms": float}; not with mode.
                "cpp_kernels" "auto" (the default) builds a cpu kernel as C++ in the background
                once it has run its loops for "cpp_kernels_hot_ms" (20) (ctorch.compiler.wait_kernels)
    disable     calls run fn as is
    name        for messages and metrics (default: fn's qualified name)
    recompile_limit  compiled entries per signature, and signatures of non-tensor arguments, after
                which calls that miss run eagerly (a warning once; under fullgraph an error)
    """
    def decorate(f):
        return CompiledFunction(f, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode, options=options,
                                disable=disable, name=name, recompile_limit=recompile_limit)

    return decorate if fn is None else decorate(fn)
