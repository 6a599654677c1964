"""ctorch.export: torch.export over ct_export (ctorch.h, "Export: programs").

    batch = Dim("batch", min=1, max=1024)
    ep = ctorch.export.export(fn, (x, y), dynamic_shapes=({0: batch}, {0: batch}))
    print(ep.graph)                      # the traced graph, one node per line
    ep(x9, y9)                           # runs for any batch in [1, 1024], without fn
    ctorch.export.save(ep, "fn.ctprog")  # a versioned file (docs/program-format.md)
    ep2 = ctorch.export.load("fn.ctprog")

export traces fn once on proxies of the example arguments: declared dims are symbols with ranges,
every other size is static. The program keeps the graph, the tensors fn captured (as constants),
each input's dtype, device and sizes, and the guards the trace relied on, checked on every call.
item() of a traced integer tensor is an unbacked SymInt (topk with k from a tensor), checked when
the program runs. Non-tensor arguments are constants of the trace.

A program returns a Tensor when it has one output and a tuple otherwise, whatever container fn
returned its tensors in; so does a loaded one (the file holds no Python structures).
"""

import builtins
import inspect
import json
import os

from . import _C
from ._compile import _Rediscovered, _Signature, _flatten_call, _trampoline
from ._errors import FileError, FormatError, GraphBreakError
from ._tensor import Tensor, _wrap

__all__ = ["Dim", "dims", "export", "ExportedProgram", "Graph", "save", "load", "GraphBreakError", "FileError",
           "FormatError"]

_INT64_MAX = (1 << 63) - 1


class Dim:
    """A dynamic dimension, as torch.export.Dim: a name and a range of sizes [min, max]. The default
    range is [1, 2**63 - 1]: ctorch's programs take size 1 too (torch specializes 0 and 1). Size 0
    is allowed with min=0. Dims with the same name are one symbol: their sizes must be equal."""

    __slots__ = ("__name__", "min", "max")

    def __init__(self, name, *, min=None, max=None):
        if not isinstance(name, str) or not name:
            raise TypeError(f"Dim: the name must be a non-empty str, got {name!r}")
        self.__name__ = name
        self.min = 1 if min is None else builtins.int(min)
        self.max = _INT64_MAX if max is None else builtins.int(max)

    def __repr__(self):
        upper = "" if self.max == _INT64_MAX else f", max={self.max}"
        return f"Dim({self.__name__!r}, min={self.min}{upper})"


def dims(*names, min=None, max=None):
    """Several Dims with one range, as torch.export.dims: batch, seq = dims("batch", "seq", max=512)."""
    return tuple(Dim(n, min=min, max=max) for n in names)


class Graph:
    """A program's graph. str() gives it as text, one node per line (FX style):
    "%add : f32[batch, 8] = add.Tensor(%x0, %x1, alpha=1)"."""

    __slots__ = ("_text",)

    def __init__(self, text):
        self._text = text

    def __str__(self):
        return self._text

    __repr__ = __str__


class ExportedProgram:
    """A traced program (ct_program): call it like the function; it runs without the function, from
    any thread. Save it with save(); load() gives it back."""

    __slots__ = ("_h", "_in_spec", "_n_in", "_n_out")

    def __init__(self, *args, **kwargs):
        raise TypeError("ExportedPrograms come from ctorch.export.export() and ctorch.export.load()")

    @classmethod
    def _own(cls, handle, in_spec=None):
        ep = object.__new__(cls)
        ep._h = handle
        ep._in_spec = in_spec
        ep._n_in = _C.ct_program_num_inputs(handle)
        ep._n_out = _C.ct_program_num_outputs(handle)
        return ep

    def __del__(self):
        h = getattr(self, "_h", None)
        if h is not None and _C.ct_program_release is not None:
            self._h = None
            _C.ct_program_release(h)

    def __call__(self, *args, **kwargs):
        """Runs the program. Pass the arguments as to the exported function (non-tensor ones as
        exported), or its tensor inputs alone, in order. A Tensor for one output, else a tuple."""
        leaves = []
        spec = _flatten_call(args, kwargs, leaves)
        if spec != self._in_spec and not (not kwargs and builtins.all(isinstance(a, Tensor) for a in args)):
            if self._in_spec is None:
                raise TypeError(f"ExportedProgram: a loaded program takes its {self._n_in} tensor input(s) as "
                                "positional arguments, and nothing else")
            raise ValueError("ExportedProgram: the arguments differ from the exported ones in their non-tensor values "
                             "or structure; those are constants of the program. Export again for other values, or "
                             "pass the tensor inputs alone")
        outs = _C.ct_py_program_call(self._h, [t._h for t in leaves])
        return _wrap(outs[0]) if len(outs) == 1 else tuple(_wrap(h) for h in outs)

    def module(self):
        """A callable running the program (this program), as torch's ExportedProgram.module()."""
        return self

    @property
    def graph(self):
        """The graph (print it, or str() it)."""
        return Graph(_C.ct_program_graph(self._h))

    def json(self):
        """The signature as a dict (ct_program_json): {"inputs": [{"dtype", "device", "sizes"}],
        "outputs": [the same per output], "env": {"symbols", "guards", "runtime_asserts"}}."""
        return json.loads(_C.ct_program_json(self._h))

    @property
    def signature(self):
        """The signature as a dict (see json())."""
        return self.json()

    @property
    def range_constraints(self):
        """{symbol name: (min, max)} of the program's symbols (max None: no upper bound)."""
        out = {}
        for s in self.json()["env"]["symbols"]:
            hi = s.get("max")
            out[s["name"]] = (s.get("min"), None if hi is None or hi == _INT64_MAX else hi)
        return out

    @property
    def num_inputs(self):
        return self._n_in

    @property
    def num_outputs(self):
        return self._n_out

    def save(self, f):
        """Writes the program file to f, a path or a binary file object (ct_program_save)."""
        save(self, f)

    # A program never changes once made: copy.copy shares it (a new reference), copy.deepcopy and
    # pickle go through its bytes (a loaded program takes its tensor inputs positionally).
    def __copy__(self):
        _C.ct_program_retain(self._h)
        return ExportedProgram._own(self._h, self._in_spec)

    def __deepcopy__(self, memo):
        return ExportedProgram._own(_C.ct_py_program_load_buffer(_C.ct_py_program_save_buffer(self._h)),
                                    self._in_spec)  # shared: its markers are compared by identity

    def __reduce__(self):
        return (_loads, (_C.ct_py_program_save_buffer(self._h),))

    def __repr__(self):
        return f"ExportedProgram({self._n_in} inputs, {self._n_out} outputs):\n{self.graph}"


def _loads(data):
    return ExportedProgram._own(_C.ct_py_program_load_buffer(data))


def save(ep, f):
    """Writes ep to f, a path (written to a temporary name and renamed, so a failure leaves no
    half-written file) or a binary file object, as torch.export.save."""
    if not isinstance(ep, ExportedProgram):
        raise TypeError(f"save: expected an ExportedProgram, got {type(ep).__name__}")
    if hasattr(f, "write"):
        f.write(_C.ct_py_program_save_buffer(ep._h))
    else:
        _C.ct_program_save(ep._h, os.fspath(f))


def load(f):
    """The program in f, a path or a binary file object, as torch.export.load. No kernel runs: the
    file is validated field by field (FormatError names the field; FileError when it cannot be read).
    Custom operators the program calls must be registered first."""
    if hasattr(f, "read"):
        return _loads(f.read())
    return ExportedProgram._own(_C.ct_program_load(os.fspath(f)))


# ---- dynamic_shapes ----

def _dims_of(spec, where):
    """[(dim, Dim)] from one tensor's spec: None, {dim: Dim or None} or [Dim or None per dim]."""
    if spec is None:
        return []
    if isinstance(spec, dict):
        items = spec.items()
    elif isinstance(spec, (list, tuple)):
        items = enumerate(spec)
    else:
        raise TypeError(f"export: dynamic_shapes for {where} must be None, a dict {{dim: Dim}} or a list with a Dim "
                        f"or None per dim, got {type(spec).__name__}")
    out = []
    for d, dim in items:
        if dim is None:
            continue
        if not isinstance(dim, Dim):
            raise TypeError(f"export: dynamic_shapes for {where} dim {d} must be a Dim or None, got {dim!r}")
        out.append((builtins.int(d), dim))
    return out


def _walk(value, spec, where, out):
    """Appends to out, per tensor of value (in _flatten's order), its [(dim, Dim)]."""
    if isinstance(value, Tensor):
        out.append(_dims_of(spec, where))
    elif isinstance(value, (list, tuple)):
        if spec is not None and (not isinstance(spec, (list, tuple)) or len(spec) != len(value)):
            raise ValueError(f"export: dynamic_shapes for {where} must be None or a sequence of {len(value)} "
                             f"entries like the argument, got {spec!r}")
        for i, v in enumerate(value):
            _walk(v, None if spec is None else spec[i], f"{where}[{i}]", out)
    elif isinstance(value, dict):
        if spec is not None and not isinstance(spec, dict):
            raise ValueError(f"export: dynamic_shapes for {where} must be None or a dict like the argument")
        for k, v in value.items():
            _walk(v, None if spec is None else spec.get(k), f"{where}[{k!r}]", out)
    elif spec is not None:
        raise ValueError(f"export: dynamic_shapes for {where} must be None: the argument is not a tensor")


def _dynamic_dims(fn, args, kwargs, dynamic_shapes):
    """Per tensor input (in order), its [(dim, Dim)], from dynamic_shapes as torch.export takes it: a
    sequence with an entry per positional argument (then per keyword argument, in name order), or a
    dict keyed by the function's parameter names."""
    names = sorted(kwargs)
    if dynamic_shapes is None:
        per_arg, per_kw = [None] * len(args), {k: None for k in names}
    elif isinstance(dynamic_shapes, dict):
        try:
            params = inspect.signature(fn).parameters
        except (TypeError, ValueError):
            raise TypeError("export: dynamic_shapes is a dict, but fn's parameter names are unknown. Pass a "
                            "sequence with an entry per argument") from None
        unknown = sorted(set(dynamic_shapes) - set(params))
        if unknown:
            raise ValueError(f"export: dynamic_shapes names {unknown}, which are not parameters of fn "
                             f"({list(params)})")
        positional = [p for p in params.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        var = next((p.name for p in params.values() if p.kind == p.VAR_POSITIONAL), None)
        varkw = next((p.name for p in params.values() if p.kind == p.VAR_KEYWORD), None)
        per_arg = []
        for i in range(len(args)):
            if i < len(positional):
                per_arg.append(dynamic_shapes.get(positional[i].name))
            else:
                rest = dynamic_shapes.get(var) if var else None
                per_arg.append(None if rest is None else rest[i - len(positional)])
        per_kw = {}
        for k in names:
            if k in params:
                per_kw[k] = dynamic_shapes.get(k)
            else:
                rest = dynamic_shapes.get(varkw) if varkw else None
                per_kw[k] = None if rest is None else rest.get(k)
    elif isinstance(dynamic_shapes, (list, tuple)):
        if len(dynamic_shapes) not in (len(args), len(args) + len(names)):
            raise ValueError(f"export: dynamic_shapes has {len(dynamic_shapes)} entries for {len(args)} positional "
                             f"and {len(names)} keyword arguments. Give one entry (None for static) per argument")
        per_arg = list(dynamic_shapes[:len(args)])
        rest = list(dynamic_shapes[len(args):]) or [None] * len(names)
        per_kw = dict(zip(names, rest))
    else:
        raise TypeError(f"export: dynamic_shapes must be None, a tuple/list or a dict, got "
                        f"{type(dynamic_shapes).__name__}")
    out = []
    for i, (a, spec) in enumerate(zip(args, per_arg)):
        _walk(a, spec, f"argument {i}", out)
    for k in names:
        _walk(kwargs[k], per_kw[k], f"argument {k!r}", out)
    return out


def export(fn, args, kwargs=None, *, dynamic_shapes=None, strict=None):
    """torch.export.export for ctorch: traces fn(*args, **kwargs) once and returns the program.

    args, kwargs    example arguments: tensors (real or meta; a meta one is a shape-only input, for
                    a size such as topk's k) and constants of the trace
    dynamic_shapes  per argument None (static) or {dim: Dim}, as a tuple/list in argument order or a
                    dict by parameter name; every undeclared size is static
    strict          accepted for torch's signature; ctorch always traces the same way

    Raises GraphBreakError when fn reads a traced tensor's data (other than item() of an integer
    one), GuardError when it specializes a declared dim (x.reshape(8, 3) for a dynamic dim 0), and
    InvalidArgumentError when an example size lies outside its declared range."""
    if not isinstance(args, tuple):
        args = tuple(args) if isinstance(args, list) else (args,)
    kwargs = dict(kwargs or {})
    leaves = []
    in_spec = _flatten_call(args, kwargs, leaves)
    declared = _dynamic_dims(fn, args, kwargs, dynamic_shapes)
    shapes = _C.ct_dynamic_shapes_create()
    try:
        for i, decls in enumerate(declared):
            for d, dim in decls:
                _C.ct_dynamic_shapes_set_dim(shapes, i, d, dim.__name__, dim.min, dim.max)
        sig = _Signature(in_spec)
        run = _trampoline(fn, sig, True)
        handles = [t._h for t in leaves]
        try:
            program = _C.ct_py_export(run, handles, 1, shapes)
        except _Rediscovered:  # fn returns other than one tensor: trace again with its count
            program = _C.ct_py_export(run, handles, sig.n_out, shapes)
    finally:
        _C.ct_dynamic_shapes_release(shapes)
    return ExportedProgram._own(program, in_spec)

