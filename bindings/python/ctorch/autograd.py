"""ctorch.autograd: reverse-mode differentiation as in torch.autograd.

    w = ctorch.ones(3, requires_grad=True)
    loss = (x * w).sum()
    loss.backward()                                  # w.grad == x
    (g,) = ctorch.autograd.grad((x * w).sum(), w)    # returned instead of accumulated

Grad modes (no_grad, enable_grad, inference_mode, set_grad_enabled) are per thread, as in torch; each
is a context manager and a decorator. Custom differentiable functions subclass Function.
"""

import functools

from . import _C
from ._errors import refuse_copies
from ._tensor import Node, RemovableHandle, Tensor, _borrowed, _handle, _new_reference, _wrap

__all__ = ["backward", "grad", "Function", "FunctionCtx", "Node", "RemovableHandle", "no_grad", "enable_grad",
           "set_grad_enabled", "inference_mode", "is_grad_enabled", "is_inference_mode_enabled", "detect_anomaly",
           "set_detect_anomaly"]

_NO_GRAD, _ENABLED, _INFERENCE = _C.CT_GRAD_MODE_NO_GRAD, _C.CT_GRAD_MODE_ENABLED, _C.CT_GRAD_MODE_INFERENCE
_get_mode = _C.ct_grad_mode_get
_set_mode = _C.ct_grad_mode_set  # returns the mode it replaces


# ---- gradients ----

def _tensor_tuple(x, fn, what):
    if isinstance(x, Tensor):
        return (x,)
    x = tuple(x)
    for t in x:
        if not isinstance(t, Tensor):
            raise TypeError(f"{fn}: {what} holds a {type(t).__name__}. Pass a Tensor or a sequence of Tensors")
    return x


def _grad_handles(grads):
    """None, or one handle (or None) per output; the C helper checks the count."""
    if grads is None:
        return None
    grads = (grads,) if isinstance(grads, Tensor) else tuple(grads)
    return [None if g is None else _handle(g) for g in grads]


def _flags(retain_graph, create_graph, allow_unused=False):
    if retain_graph is None:
        retain_graph = create_graph  # torch's default: a recorded backward needs the graph again
    return ((_C.CT_GRAD_RETAIN_GRAPH if retain_graph else 0) | (_C.CT_GRAD_CREATE_GRAPH if create_graph else 0)
            | (_C.CT_GRAD_ALLOW_UNUSED if allow_unused else 0))


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False):
    """Adds the gradients of tensors (summed, each weighted by its grad_tensors entry) into the grad
    of every leaf they depend on. A None gradient means 1 and needs a one-element tensor."""
    tensors = _tensor_tuple(tensors, "backward", "tensors")
    _C.ct_py_autograd_backward([t._h for t in tensors], _grad_handles(grad_tensors),
                               _flags(retain_graph, create_graph))


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, allow_unused=False):
    """The gradients of outputs with respect to inputs, as a tuple (leaves' grad is left alone).
    With create_graph=True they are differentiable again; with allow_unused=True an input the
    outputs do not depend on gets None instead of an error."""
    outputs = _tensor_tuple(outputs, "grad", "outputs")
    inputs = _tensor_tuple(inputs, "grad", "inputs")
    handles = _C.ct_py_autograd_grad([t._h for t in outputs], _grad_handles(grad_outputs),
                                     [t._h for t in inputs], _flags(retain_graph, create_graph, allow_unused))
    return tuple(None if h is None else _wrap(h) for h in handles)


# ---- grad modes ----

def is_grad_enabled():
    """Whether operators on this thread record gradients (False under no_grad and inference_mode)."""
    return _get_mode() == _ENABLED


def is_inference_mode_enabled():
    return _get_mode() == _INFERENCE


class _GradModeScope:
    """A grad mode for a with-block or a decorated function: sets it on entry, restores the mode it
    found on exit, also when an exception leaves the block. Subclasses give _target(current mode)."""

    def __init__(self):
        self._saved = []  # a stack: one object may be entered again while in use

    def __enter__(self):
        self._saved.append(_set_mode(self._target(_get_mode())))
        return None

    def __exit__(self, *exc):
        _set_mode(self._saved.pop())
        return False

    def __call__(self, fn):
        """As a decorator: fn runs in this mode, with the caller's mode restored afterwards."""
        @functools.wraps(fn)
        def run(*args, **kwargs):
            with self._copy():
                return fn(*args, **kwargs)

        return run

    def _copy(self):
        # Each call gets its own scope, so that calls on several threads never share a saved mode.
        return _Scope(self._target)


class _Scope(_GradModeScope):
    def __init__(self, target):
        super().__init__()
        self._target = target


class _NoArgScope(_GradModeScope):
    # `@ctorch.no_grad` works without parentheses too, as in torch 2.
    def __new__(cls, fn=None):
        self = super().__new__(cls)
        if fn is None:
            return self
        self.__init__()
        return self(fn)

    def __init__(self, fn=None):
        super().__init__()


class no_grad(_NoArgScope):
    """Operators record nothing: for evaluation, and for updating parameters in place.

        with ctorch.no_grad():
            w -= lr * w.grad
    """

    def _target(self, current):
        return _INFERENCE if current == _INFERENCE else _NO_GRAD  # inference mode stays: it implies no_grad


class enable_grad(_NoArgScope):
    """Operators record again, inside no_grad (inference mode is left on: its tensors cannot record)."""

    def _target(self, current):
        return _INFERENCE if current == _INFERENCE else _ENABLED


class _AnomalyScope:
    """Sets anomaly detection (ct_set_anomaly_enabled) for a block or a decorated function and
    restores what it found; process-wide, as torch 1.13's."""

    def __init__(self, mode, check_nan):
        self._mode, self._check_nan = bool(mode), bool(check_nan)
        self._saved = []

    def __enter__(self):
        self._saved.append((_C.ct_is_anomaly_enabled(), _C.ct_is_anomaly_check_nan_enabled()))
        _C.ct_set_anomaly_enabled(int(self._mode), int(self._check_nan))
        return None

    def __exit__(self, *exc):
        enabled, check_nan = self._saved.pop()
        _C.ct_set_anomaly_enabled(enabled, check_nan if enabled else 1)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def run(*args, **kwargs):
            with _AnomalyScope(self._mode, self._check_nan):  # a scope per call: threads never share one
                return fn(*args, **kwargs)
        return run


class detect_anomaly(_AnomalyScope):
    """torch.autograd.detect_anomaly(check_nan=True): inside it, backward fails at the first node
    whose gradients hold NaN, naming it ("Function 'DivBackward0' returned nan values in its 0th
    output"). torch also prints each operator's forward traceback; ctorch names the node only."""

    def __init__(self, check_nan=True):
        super().__init__(True, check_nan)


class set_detect_anomaly(_AnomalyScope):
    """torch.autograd.set_detect_anomaly(mode, check_nan=True): on or off, as a call, a with-block or
    a decorator."""

    def __init__(self, mode, check_nan=True):
        super().__init__(mode, check_nan)
        self._saved.append((_C.ct_is_anomaly_enabled(), _C.ct_is_anomaly_check_nan_enabled()))
        _C.ct_set_anomaly_enabled(int(self._mode), int(self._check_nan))

    def __enter__(self):
        return None  # the constructor set it

    def __call__(self, fn):
        self.__exit__()  # decorating is not a call: undo the constructor's switch
        return super().__call__(fn)


class set_grad_enabled(_GradModeScope):
    """Turns recording on or off now, as a function call; as a context manager or decorator, the
    previous mode comes back at the end."""

    def __init__(self, mode):
        super().__init__()
        self.mode = bool(mode)
        self._saved.append(_set_mode(self._target(_get_mode())))

    def _target(self, current):
        if current == _INFERENCE:
            return _INFERENCE
        return _ENABLED if self.mode else _NO_GRAD

    def __enter__(self):
        return None  # the mode was set by the constructor

    def __call__(self, fn):
        _set_mode(self._saved.pop())  # decorating is not a call: undo the constructor's switch
        return super().__call__(fn)


class inference_mode(_GradModeScope):
    """No recording, and results are inference tensors (is_inference()), which autograd never
    accepts later. inference_mode(False) turns recording on again inside it."""

    def __new__(cls, mode=True):
        self = super().__new__(cls)
        if isinstance(mode, bool):
            return self
        self.__init__()
        return self(mode)  # @ctorch.inference_mode without parentheses: mode is the function

    def __init__(self, mode=True):
        super().__init__()
        self.mode = mode

    def _target(self, current):
        return _INFERENCE if self.mode else _ENABLED


# ---- custom functions ----

class FunctionCtx:
    """The ctx a custom Function's forward and backward share. forward keeps tensors for backward
    with save_for_backward (they are checked for in-place changes) and anything else as attributes.

    Keep outputs with save_for_backward only: an output stored as an attribute would keep its own
    graph alive forever (a reference cycle through the library that Python's gc cannot see)."""

    def __init__(self):
        self._to_save = ()
        self._c = None  # the library's ctx, while backward runs
        self.needs_input_grad = ()

    __copy__, __deepcopy__, __reduce_ex__ = refuse_copies(
        "ctorch.autograd.FunctionCtx", "it belongs to one call of a Function; keep tensors with save_for_backward")

    def save_for_backward(self, *tensors):
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(f"save_for_backward: can only save Tensors (or None), got {type(t).__name__}")
        self._to_save = tensors

    @property
    def saved_tensors(self):
        if self._c is None:
            raise RuntimeError("saved_tensors: saved tensors are readable in backward only. "
                               "Read ctx.saved_tensors inside backward")
        kept = iter(_wrap(_C.ct_autograd_ctx_saved(self._c, i)) for i in range(_C.ct_autograd_ctx_saved_count(self._c)))
        return tuple(None if slot is None else next(kept) for slot in self._to_save)


class Function:
    """A differentiable function given by its forward and backward, as torch.autograd.Function.

        class Exp(ctorch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x.exp()
                ctx.save_for_backward(y)
                return y

            @staticmethod
            def backward(ctx, grad):
                (y,) = ctx.saved_tensors
                return grad * y

        y = Exp.apply(x)

    forward runs under no_grad and may take non-tensor arguments; it returns a Tensor or a tuple.
    backward gets one gradient per output (zeros where none arrived, None for a non-tensor output)
    and returns one per forward argument (None for non-tensors and for inputs needing none).
    When backward is recorded (create_graph=True), the operators it calls are recorded too, so a
    backward written with differentiable operators gives second derivatives.
    """

    @staticmethod
    def forward(ctx, *args):
        raise NotImplementedError("Function.forward: define forward(ctx, *args) as a staticmethod")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("Function.backward: define backward(ctx, *grad_outputs) as a staticmethod")

    @classmethod
    def apply(cls, *args):
        ctx = FunctionCtx()
        mode = _get_mode()
        tensor_args = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and mode == _ENABLED and a.requires_grad for a in args)
        # forward runs here, before the library is asked to record it: the library needs the number
        # of outputs up front. The mode is the one the library gives a forward.
        _set_mode(_INFERENCE if mode == _INFERENCE else _NO_GRAD)
        try:
            result = cls.forward(ctx, *args)
        finally:
            _set_mode(mode)
        outputs = result if isinstance(result, tuple) else (result,)
        tensor_outputs = [k for k, o in enumerate(outputs) if isinstance(o, Tensor)]
        to_save = ctx._to_save  # alive until the library has taken its references
        # Only the positions of saved tensors stay in ctx: the tensors themselves now belong to the
        # library, which keeps an output without a reference cycle.
        ctx._to_save = tuple(None if t is None else True for t in to_save)
        run_backward = functools.partial(_run_backward, cls, ctx, len(args), tensor_args, len(outputs), tensor_outputs)
        handles = _C.ct_py_function_apply(cls.__name__, [args[i]._h for i in tensor_args],
                                          [outputs[k]._h for k in tensor_outputs],
                                          [t._h for t in to_save if t is not None], run_backward)
        results = list(outputs)
        for k, h in zip(tensor_outputs, handles):
            results[k] = _wrap(h)
        return tuple(results) if isinstance(result, tuple) else results[0]


def _run_backward(cls, ctx, n_args, tensor_args, n_outputs, tensor_outputs, c_ctx, grad_handles):
    """Called by the library during backward: maps its gradients (one per tensor output) to the
    user's backward and the result back (one new reference or None per tensor input). It holds no
    tensor of the graph itself, so the graph's node keeps nothing alive but ctx."""
    grad_outputs = [None] * n_outputs
    for k, h in zip(tensor_outputs, grad_handles):
        grad_outputs[k] = _borrowed(h)
    ctx._c = c_ctx
    try:
        grads = cls.backward(ctx, *grad_outputs)
    finally:
        ctx._c = None
    grads = grads if isinstance(grads, tuple) else (grads,)
    name = cls.__name__ + "Backward"
    if len(grads) < n_args or any(g is not None for g in grads[n_args:]):
        raise RuntimeError(f"{name}: backward returned {len(grads)} gradients, but forward took {n_args} arguments. "
                           "Return one per forward argument (None where there is none)")
    for i, g in enumerate(grads[:n_args]):
        if g is not None and i not in tensor_args:
            raise RuntimeError(f"{name}: backward returned a gradient for argument {i}, which is not a Tensor. "
                               "Return None for it")
        if g is not None and not isinstance(g, Tensor):
            raise TypeError(f"{name}: backward returned a {type(g).__name__} for argument {i}. Return a Tensor or None")
    return [None if grads[i] is None else _new_reference(grads[i]) for i in tensor_args]
