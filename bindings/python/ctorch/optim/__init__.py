"""ctorch.optim: torch.optim's SGD, Adam, AdamW, RMSprop, Adagrad, Adamax, NAdam, RAdam, Adadelta,
ASGD, Rprop and LBFGS over the C library's optimizers.

The update runs in the library (a fused loop per parameter, no autograd recording), computing
torch.optim's single-tensor formulas in the same order, so a run agrees with torch's to float
rounding and gives the same bits on every machine and thread count. Parameter groups are torch's
(a list of tensors, or of dicts {"params": [...], **options}, and add_param_group): each group is
one library optimizer, and param_groups[i] reads and writes its hyperparameters; state_dict()
holds each group's state bytes (ct_optimizer_state_save), and optimizer.state[p] shows a parameter's
state tensors (ct_optimizer_state_get)."""

import collections as _collections
import collections.abc as _abc
import copy as _copy

from .. import _C
from .._tensor import Tensor, _handle, _wrap
from ..autograd import enable_grad as _enable_grad
from . import lr_scheduler  # noqa: F401
from .optimizer import Optimizer, required  # noqa: F401

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adamax", "NAdam", "RAdam", "Adadelta",
           "ASGD", "Rprop", "LBFGS", "lr_scheduler"]

# Per kind: the param_group keys (torch's names) and the C fields behind them; "betas" is a pair.
_KEYS = {
    _C.CT_OPTIMIZER_SGD: ("lr", "momentum", "dampening", "weight_decay", "nesterov", "maximize"),
    _C.CT_OPTIMIZER_ADAM: ("lr", "betas", "eps", "weight_decay", "amsgrad", "maximize"),
    _C.CT_OPTIMIZER_ADAMW: ("lr", "betas", "eps", "weight_decay", "amsgrad", "maximize"),
    _C.CT_OPTIMIZER_RMSPROP: ("lr", "alpha", "eps", "weight_decay", "momentum", "centered", "maximize"),
    _C.CT_OPTIMIZER_ADAGRAD: ("lr", "lr_decay", "weight_decay", "initial_accumulator_value", "eps", "maximize"),
    _C.CT_OPTIMIZER_ADAMAX: ("lr", "betas", "eps", "weight_decay", "maximize"),
    _C.CT_OPTIMIZER_NADAM: ("lr", "betas", "eps", "weight_decay", "momentum_decay", "decoupled_weight_decay",
                            "maximize"),
    _C.CT_OPTIMIZER_RADAM: ("lr", "betas", "eps", "weight_decay", "decoupled_weight_decay", "maximize"),
    _C.CT_OPTIMIZER_ADADELTA: ("lr", "rho", "eps", "weight_decay", "maximize"),
    _C.CT_OPTIMIZER_ASGD: ("lr", "lambd", "alpha", "t0", "weight_decay", "maximize"),
    _C.CT_OPTIMIZER_RPROP: ("lr", "etas", "step_sizes", "maximize"),
    _C.CT_OPTIMIZER_LBFGS: ("lr", "max_iter", "max_eval", "tolerance_grad", "tolerance_change", "history_size",
                            "line_search_fn"),
}
_BOOLS = ("nesterov", "amsgrad", "centered", "maximize", "decoupled_weight_decay")
_INTS = ("max_iter", "max_eval", "history_size")
# torch's pairs and the two C fields of each.
_PAIRS = {"betas": ("beta1", "beta2"), "etas": ("etaminus", "etaplus"), "step_sizes": ("step_size_min", "step_size_max")}


def _get(o, key):
    if key in _PAIRS:
        return tuple(getattr(o, f) for f in _PAIRS[key])
    if key == "line_search_fn":
        return "strong_wolfe" if o.strong_wolfe else None
    v = getattr(o, key)
    return bool(v) if key in _BOOLS else v


def _set(o, key, value):
    if key in _PAIRS:
        a, b = (float(v) for v in value)
        setattr(o, _PAIRS[key][0], a)
        setattr(o, _PAIRS[key][1], b)
    elif key == "line_search_fn":
        if value not in (None, "strong_wolfe"):
            raise RuntimeError("only 'strong_wolfe' is supported")
        o.strong_wolfe = 1 if value else 0
    elif key in _INTS:
        setattr(o, key, int(value))
    elif key in _BOOLS:
        setattr(o, key, 1 if value else 0)
    else:
        setattr(o, key, float(value))


class _ParamGroup(_abc.MutableMapping):
    """param_groups[i]: a live view of group i's library optimizer (a scheduler's lr shows at once),
    plus the keys of the group's dict that are not options (a name, say), kept as torch keeps them."""

    def __init__(self, opt, handle, params, extra):
        self._opt = opt
        self._h = handle
        self._params = params
        self._extra = extra

    @property
    def _keys(self):
        return _KEYS[self._opt._kind]

    def _options(self):
        o = _C.ct_optimizer_options()
        o.struct_size = _OPTIONS_SIZE
        _C.ct_optimizer_get_options(self._h, o)
        return o

    def __getitem__(self, key):
        if key == "params":
            return list(self._params)
        if key in self._keys:
            return _get(self._options(), key)
        return self._extra[key]

    def __setitem__(self, key, value):
        if key == "params":
            raise TypeError("param_groups[i]['params'] cannot be replaced; create the optimizer over the new "
                            "parameters, or add_param_group")
        if key == "lr":
            _C.ct_optimizer_set_lr(self._h, float(value))
        elif key in self._keys:
            o = self._options()
            _set(o, key, value)
            _C.ct_optimizer_set_options(self._h, o)
        elif key in _ALL_KEYS:
            raise KeyError(f"{key!r}: {type(self._opt).__name__} has no such option (it has {', '.join(self._keys)})")
        else:
            self._extra[key] = value

    def __delitem__(self, key):
        if key not in self._extra:
            raise TypeError(f"{key!r}: the options of a param group cannot be deleted")
        del self._extra[key]

    def __iter__(self):
        return iter(("params",) + self._keys + tuple(self._extra))

    def __len__(self):
        return 1 + len(self._keys) + len(self._extra)

    def __repr__(self):
        return repr({k: (v if k != "params" else f"<{len(v)} tensors>") for k, v in self.items()})


_ALL_KEYS = {k for keys in _KEYS.values() for k in keys}


def _options_size():
    o = _C.ct_optimizer_options()
    _C.ct_optimizer_options_default(_C.CT_OPTIMIZER_SGD, o)
    return o.struct_size


_OPTIONS_SIZE = _options_size()


_LBFGS_NUMBERS = {"func_evals": int, "n_iter": int, "t": float, "prev_loss": float}


def _state_names(kind):
    """The kind's optimizer.state[p] keys in torch's order (ct_optimizer_state_name)."""
    names, j = [], 0
    while True:
        try:
            names.append(_C.ct_optimizer_state_name(kind, j))
        except IndexError:
            return tuple(names)
        j += 1


class _LibraryOptimizer(Optimizer):
    """The common part of the library's optimizers (SGD, Adam, ...). params is an iterable of
    tensors, or of dicts {"params": ..., option: value, ...}, one per parameter group: each group
    gets its own library optimizer with the constructor's options overridden by the group's, so its
    parameters update exactly as torch updates that group."""

    _kind = None

    def __init__(self, params, **options):
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            "but got a Tensor")
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        o = _C.ct_optimizer_options()
        _C.ct_optimizer_options_default(self._kind, o)
        for key, value in options.items():
            if value is None:
                continue
            if key not in _KEYS[self._kind]:
                raise TypeError(f"{type(self).__name__}() got an unexpected keyword argument {key!r}")
            _set(o, key, value)
        self.defaults = {k: _get(o, k) for k in _KEYS[self._kind]}
        self.param_groups = []
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group):
        """Adds a group (a dict with "params" and any options; the rest from the constructor's), as
        torch.optim.Optimizer.add_param_group."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, got {type(param_group).__name__}")
        group = dict(param_group)
        if "params" not in group:
            raise ValueError("param_group must have a 'params' key")
        params = group.pop("params")
        params = [params] if isinstance(params, Tensor) else list(params)
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {type(p).__name__}")
            if type(p).__name__ == "UninitializedParameter":
                # The library optimizer holds the tensors it is given; a lazy module's placeholder gets
                # new memory on the module's first call, which the optimizer would never see.
                raise ValueError("optimizer got an uninitialized parameter of a lazy module. Run the model once on "
                                 "an input (a dry run) before creating the optimizer")
        seen = {id(p) for g in self.param_groups for p in g._params}
        if any(id(p) in seen for p in params) or len({id(p) for p in params}) != len(params):
            raise ValueError("some parameters appear in more than one parameter group")
        o = _C.ct_optimizer_options()
        _C.ct_optimizer_options_default(self._kind, o)
        extra = {}
        for key, value in {**self.defaults, **group}.items():
            if key in _KEYS[self._kind]:
                _set(o, key, value)
            elif key in _ALL_KEYS:
                raise TypeError(f"{type(self).__name__}: a param group has {key!r}, an option {type(self).__name__} "
                                f"does not have (it has {', '.join(_KEYS[self._kind])})")
            else:
                extra[key] = value
        handle = _C.ct_optimizer_create([_handle(p) for p in params], o)
        self.param_groups.append(_ParamGroup(self, handle, params, extra))

    def __del__(self):
        for g in getattr(self, "param_groups", ()):
            if g._h:
                _C.ct_optimizer_release(g._h)
                g._h = None

    @property
    def _params(self):
        return [p for g in self.param_groups for p in g._params]

    # ---- copies ----
    # copy.copy gives a second object over the same library optimizers (new references: torch's
    # shallow copy shares its state too); copy.deepcopy and pickle give new library optimizers over
    # copies of the parameters, loaded with this one's state bytes (options, steps, buffers).
    def __copy__(self):
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.param_groups = []
        for g in self.param_groups:
            _C.ct_optimizer_retain(g._h)
            new.param_groups.append(_ParamGroup(new, g._h, g._params, g._extra))
        return new

    def __deepcopy__(self, memo):
        groups = [_copy.deepcopy(g._params, memo) for g in self.param_groups]
        new = _rebuild(type(self), groups, self._states(), _copy.deepcopy([g._extra for g in self.param_groups], memo),
                       _copy.deepcopy(self._attributes(), memo))
        memo[id(self)] = new
        return new

    def __reduce_ex__(self, protocol):
        return (_rebuild, (type(self), [list(g._params) for g in self.param_groups], self._states(),
                           [g._extra for g in self.param_groups], self._attributes()))

    def _states(self):
        return [_C.ct_optimizer_state_save(g._h) for g in self.param_groups]

    def _attributes(self):
        """The attributes a copy takes as they are (defaults, a subclass's own); not param_groups,
        which _rebuild makes anew."""
        return {k: v for k, v in self.__dict__.items() if k != "param_groups"}

    def step(self, closure=None):
        """One update of every parameter with a grad; calls closure (with grad enabled) first when given
        and returns its loss."""
        loss = None
        if closure is not None:
            with _enable_grad():
                loss = closure()
        for g in self.param_groups:
            _C.ct_optimizer_step(g._h)
        return loss

    @property
    def state(self):
        """optimizer.state: {parameter: {name: tensor}} for each parameter that took a step, keys and
        order as torch's. Built on each read; a buffer is the optimizer's own tensor (writing into it
        changes the next step, as in torch), a scalar ("step", ...) a 0-dim float32 copy."""
        names = _state_names(self._kind)
        state = _collections.defaultdict(dict)
        for g in self.param_groups:
            for i, p in enumerate(g._params):
                entry = {}
                for name in names:
                    h = _C.ct_optimizer_state_get(g._h, i, name)
                    if h:
                        value = _wrap(h)
                        # torch keeps LBFGS's counters as ints and t and prev_loss as floats.
                        entry[name] = _LBFGS_NUMBERS[name](value.item()) if name in _LBFGS_NUMBERS else value
                if entry:
                    state[p] = entry
        return state

    def zero_grad(self, set_to_none=True):
        for g in self.param_groups:
            _C.ct_optimizer_zero_grad(g._h, 1 if set_to_none else 0)

    def state_dict(self):
        """{"state": the library's state bytes, one uint8 tensor per group (so that ctorch.save
        writes it as torch.save writes tensors), "param_groups": [each group's options and keys,
        "params": the indices of its parameters, counted across groups as torch counts]}. The bytes
        hold the options too; load_state_dict applies the dict's param_groups after them."""
        import numpy

        from .. import from_numpy

        groups, first = [], 0
        for g in self.param_groups:
            group = {k: v for k, v in g.items() if k != "params"}
            group["params"] = list(range(first, first + len(g._params)))
            first += len(g._params)
            groups.append(group)
        states = [from_numpy(numpy.frombuffer(b, dtype=numpy.uint8).copy()) for b in self._states()]
        return {"state": states, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Loads what state_dict() gave (its state as uint8 tensors, or bytes)."""
        states = [bytes(s.numpy().tobytes()) if isinstance(s, Tensor) else s for s in state_dict["state"]]
        groups = state_dict.get("param_groups") or [{}] * len(states)
        if not isinstance(states, list) or len(states) != len(self.param_groups) or len(groups) != len(states):
            raise ValueError(f"loaded state dict has a different number of parameter groups (this optimizer has "
                             f"{len(self.param_groups)})")
        for g, state in zip(self.param_groups, states):
            _C.ct_optimizer_state_load(g._h, state)
        for g, saved in zip(self.param_groups, groups):
            for key, value in saved.items():
                if key != "params":
                    g[key] = value

    def __repr__(self):
        lines = [f"{type(self).__name__} ("]
        for i, g in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            lines += [f"    {k}: {v}" for k, v in g.items() if k != "params"]
        return "\n".join(lines) + "\n)"


def _rebuild(cls, groups, states, extras, attributes):
    """An optimizer of class cls over the groups' params with their states (ct_optimizer_state_save's
    bytes) and extra keys: what copy.deepcopy and pickle give. cls's own __init__ is not called (the
    states hold the options)."""
    opt = cls.__new__(cls)
    opt.defaults = attributes.get("defaults", {})
    opt.param_groups = []
    for params, extra in zip(groups, extras):
        _LibraryOptimizer.add_param_group(opt, {"params": params, **extra})
    for g, state in zip(opt.param_groups, states):
        _C.ct_optimizer_state_load(g._h, state)
    opt.__dict__.update(attributes)
    return opt


class SGD(_LibraryOptimizer):
    """torch.optim.SGD(params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *, maximize=False)."""

    _kind = _C.CT_OPTIMIZER_SGD

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *, maximize=False,
                 foreach=None, differentiable=False):
        _unsupported(differentiable=differentiable)
        super().__init__(params, lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                         nesterov=nesterov, maximize=maximize)


class Adam(_LibraryOptimizer):
    """torch.optim.Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *, maximize=False)."""

    _kind = _C.CT_OPTIMIZER_ADAM

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None):
        _unsupported(capturable=capturable, differentiable=differentiable)
        super().__init__(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                         maximize=maximize)


class AdamW(_LibraryOptimizer):
    """torch.optim.AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *, maximize=False)."""

    _kind = _C.CT_OPTIMIZER_ADAMW

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        _unsupported(capturable=capturable, differentiable=differentiable)
        super().__init__(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                         maximize=maximize)


class RMSprop(_LibraryOptimizer):
    """torch.optim.RMSprop(params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False, *, maximize=False)."""

    _kind = _C.CT_OPTIMIZER_RMSPROP

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False, *,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        _unsupported(capturable=capturable, differentiable=differentiable)
        super().__init__(params, lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay, momentum=momentum,
                         centered=centered, maximize=maximize)


class Adagrad(_LibraryOptimizer):
    """torch.optim.Adagrad(params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10, *, maximize=False)."""

    _kind = _C.CT_OPTIMIZER_ADAGRAD

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        _unsupported(differentiable=differentiable)
        super().__init__(params, lr=lr, lr_decay=lr_decay, weight_decay=weight_decay,
                         initial_accumulator_value=initial_accumulator_value, eps=eps, maximize=maximize)


class Adamax(_LibraryOptimizer):
    """torch.optim.Adamax(params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, *, maximize=False)."""

    _kind = _C.CT_OPTIMIZER_ADAMAX

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        _unsupported(capturable=capturable, differentiable=differentiable)
        super().__init__(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize)


class NAdam(_LibraryOptimizer):
    """torch.optim.NAdam(params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3, *, decoupled_weight_decay=False, maximize=False)."""

    _kind = _C.CT_OPTIMIZER_NADAM

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        _unsupported(capturable=capturable, differentiable=differentiable)
        super().__init__(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                         momentum_decay=momentum_decay, decoupled_weight_decay=decoupled_weight_decay,
                         maximize=maximize)


class RAdam(_LibraryOptimizer):
    """torch.optim.RAdam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False, *, maximize=False)."""

    _kind = _C.CT_OPTIMIZER_RADAM

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
                 *, foreach=None, maximize=False, capturable=False, differentiable=False):
        _unsupported(capturable=capturable, differentiable=differentiable)
        super().__init__(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                         decoupled_weight_decay=decoupled_weight_decay, maximize=maximize)


class Adadelta(_LibraryOptimizer):
    """torch.optim.Adadelta(params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, *, maximize=False)."""

    _kind = _C.CT_OPTIMIZER_ADADELTA

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        _unsupported(capturable=capturable, differentiable=differentiable)
        super().__init__(params, lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize)


class LBFGS(_LibraryOptimizer):
    """torch.optim.LBFGS(params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
    history_size=100, line_search_fn=None): step(closure) runs the library's iterations, calling
    closure (with grad enabled) to re-evaluate the model. One parameter group, as torch's."""

    _kind = _C.CT_OPTIMIZER_LBFGS

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
                 history_size=100, line_search_fn=None):
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        super().__init__(params, lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
                         tolerance_change=tolerance_change, history_size=history_size, line_search_fn=line_search_fn)

    def add_param_group(self, param_group):
        if self.param_groups:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        super().add_param_group(param_group)

    def step(self, closure):
        """Up to max_iter iterations; returns the first evaluation's loss (a float)."""
        def evaluate():
            with _enable_grad():
                return float(closure())
        return _C.ct_py_optimizer_step_closure(self.param_groups[0]._h, evaluate)


class ASGD(_LibraryOptimizer):
    """torch.optim.ASGD(params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, *, maximize=False).
    The averaged parameters are optimizer.state[p]["ax"]."""

    _kind = _C.CT_OPTIMIZER_ASGD

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None, maximize=False,
                 differentiable=False, capturable=False):
        _unsupported(capturable=capturable, differentiable=differentiable)
        super().__init__(params, lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay, maximize=maximize)


class Rprop(_LibraryOptimizer):
    """torch.optim.Rprop(params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, maximize=False)."""

    _kind = _C.CT_OPTIMIZER_RPROP

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
                 maximize=False, differentiable=False):
        _unsupported(capturable=capturable, differentiable=differentiable)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(params, lr=lr, etas=etas, step_sizes=step_sizes, maximize=maximize)


def _unsupported(**flags):
    # foreach and fused only choose how torch runs the same formula: ctorch always fuses.
    for name, value in flags.items():
        if value:
            raise NotImplementedError(f"{name}=True is not supported by ctorch.optim (the update never records "
                                      f"autograd and runs on the parameters' own device)")
