"""ctorch.optim: torch.optim's SGD, Adam, AdamW and RMSprop over the C library's optimizers.

The update runs in the library (a fused loop per parameter, no autograd recording), computing
torch.optim's single-tensor formulas in the same order, so a run agrees with torch's to float
rounding and gives the same bits on every machine and thread count. One parameter group: a list of
tensors, or one dict {"params": [...], **options}. param_groups[0] reads and writes the library's
hyperparameters; state_dict() holds the library's state bytes (ct_optimizer_state_save)."""

import collections.abc as _abc
import copy as _copy

from .. import _C
from .._tensor import Tensor, _handle
from ..autograd import enable_grad as _enable_grad
from . import lr_scheduler  # noqa: F401

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "lr_scheduler"]

# Per kind: the param_group keys (torch's names) and the C fields behind them; "betas" is a pair.
_KEYS = {
    _C.CT_OPTIMIZER_SGD: ("lr", "momentum", "dampening", "weight_decay", "nesterov", "maximize"),
    _C.CT_OPTIMIZER_ADAM: ("lr", "betas", "eps", "weight_decay", "amsgrad", "maximize"),
    _C.CT_OPTIMIZER_ADAMW: ("lr", "betas", "eps", "weight_decay", "amsgrad", "maximize"),
    _C.CT_OPTIMIZER_RMSPROP: ("lr", "alpha", "eps", "weight_decay", "momentum", "centered", "maximize"),
}
_BOOLS = ("nesterov", "amsgrad", "centered", "maximize")


def _get(o, key):
    if key == "betas":
        return (o.beta1, o.beta2)
    v = getattr(o, key)
    return bool(v) if key in _BOOLS else v


def _set(o, key, value):
    if key == "betas":
        o.beta1, o.beta2 = (float(b) for b in value)
    elif key in _BOOLS:
        setattr(o, key, 1 if value else 0)
    else:
        setattr(o, key, float(value))


class _ParamGroup(_abc.MutableMapping):
    """param_groups[0]: a live view of the optimizer's hyperparameters (a scheduler's lr shows at once)."""

    def __init__(self, opt):
        self._opt = opt

    def _options(self):
        o = _C.ct_optimizer_options()
        o.struct_size = _OPTIONS_SIZE
        _C.ct_optimizer_get_options(self._opt._h, o)
        return o

    def __getitem__(self, key):
        if key == "params":
            return list(self._opt._params)
        if key not in _KEYS[self._opt._kind]:
            raise KeyError(key)
        return _get(self._options(), key)

    def __setitem__(self, key, value):
        if key == "lr":
            _C.ct_optimizer_set_lr(self._opt._h, float(value))
            return
        if key not in _KEYS[self._opt._kind]:
            raise KeyError(f"{key!r}: {type(self._opt).__name__} has no such option (it has "
                           f"{', '.join(_KEYS[self._opt._kind])})")
        o = self._options()
        _set(o, key, value)
        _C.ct_optimizer_set_options(self._opt._h, o)

    def __delitem__(self, key):
        raise TypeError("the options of a param group cannot be deleted")

    def __iter__(self):
        return iter(("params",) + _KEYS[self._opt._kind])

    def __len__(self):
        return 1 + len(_KEYS[self._opt._kind])

    def __repr__(self):
        return repr({k: (v if k != "params" else f"<{len(v)} tensors>") for k, v in self.items()})


def _options_size():
    o = _C.ct_optimizer_options()
    _C.ct_optimizer_options_default(_C.CT_OPTIMIZER_SGD, o)
    return o.struct_size


_OPTIONS_SIZE = _options_size()


class Optimizer:
    """The common part of SGD, Adam, AdamW and RMSprop (torch.optim.Optimizer, one param group)."""

    _kind = None

    def __init__(self, params, **options):
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            "but got a Tensor")
        params = list(params)
        if params and isinstance(params[0], dict):
            if len(params) != 1:
                raise NotImplementedError("ctorch.optim supports one parameter group; pass one dict or a list of tensors")
            group = dict(params[0])
            params = list(group.pop("params"))
            options.update(group)
        o = _C.ct_optimizer_options()
        _C.ct_optimizer_options_default(self._kind, o)
        for key, value in options.items():
            if value is None:
                continue
            if key not in _KEYS[self._kind]:
                raise TypeError(f"{type(self).__name__}() got an unexpected keyword argument {key!r}")
            _set(o, key, value)
        self._params = params
        self._h = None
        self._h = _C.ct_optimizer_create([_handle(p) for p in params], o)
        self.param_groups = [_ParamGroup(self)]
        self.defaults = {k: _get(o, k) for k in _KEYS[self._kind]}

    def __del__(self):
        h = getattr(self, "_h", None)
        if h:
            _C.ct_optimizer_release(h)
            self._h = None

    # ---- copies ----
    # copy.copy gives a second object over the same library optimizer (a new reference: torch's
    # shallow copy shares its state too); copy.deepcopy and pickle give a new library optimizer over
    # copies of the parameters, loaded with this one's state bytes (options, steps, buffers).
    def __copy__(self):
        _C.ct_optimizer_retain(self._h)
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)  # _h included: the reference just taken
        new.param_groups = [_ParamGroup(new)]
        return new

    def __deepcopy__(self, memo):
        params = _copy.deepcopy(self._params, memo)
        new = _rebuild(type(self), params, _C.ct_optimizer_state_save(self._h),
                       _copy.deepcopy(self._attributes(), memo))
        memo[id(self)] = new
        return new

    def __reduce_ex__(self, protocol):
        return (_rebuild, (type(self), list(self._params), _C.ct_optimizer_state_save(self._h), self._attributes()))

    def _attributes(self):
        """The attributes a copy takes as they are (defaults, a subclass's own); not the handle, the
        parameters or param_groups, which _rebuild makes anew."""
        return {k: v for k, v in self.__dict__.items() if k not in ("_h", "_params", "param_groups")}

    def step(self, closure=None):
        """One update of every parameter with a grad; calls closure (with grad enabled) first when given
        and returns its loss."""
        loss = None
        if closure is not None:
            with _enable_grad():
                loss = closure()
        _C.ct_optimizer_step(self._h)
        return loss

    def zero_grad(self, set_to_none=True):
        _C.ct_optimizer_zero_grad(self._h, 1 if set_to_none else 0)

    def state_dict(self):
        """{"state": the library's state bytes, "param_groups": [the options, "params": indices]}.
        The bytes hold the options too; load_state_dict applies the dict's param_groups after them."""
        group = {k: v for k, v in self.param_groups[0].items() if k != "params"}
        group["params"] = list(range(len(self._params)))
        return {"state": _C.ct_optimizer_state_save(self._h), "param_groups": [group]}

    def load_state_dict(self, state_dict):
        _C.ct_optimizer_state_load(self._h, state_dict["state"])
        groups = state_dict.get("param_groups") or []
        if len(groups) > 1:
            raise ValueError("loaded state dict has a different number of parameter groups")
        for key, value in (groups[0].items() if groups else ()):
            if key != "params":
                self.param_groups[0][key] = value

    def __repr__(self):
        lines = [f"{type(self).__name__} (", "Parameter Group 0"]
        lines += [f"    {k}: {v}" for k, v in self.param_groups[0].items() if k != "params"]
        return "\n".join(lines) + "\n)"


def _rebuild(cls, params, state, attributes):
    """An optimizer of class cls over params with state (ct_optimizer_state_save's bytes): what
    copy.deepcopy and pickle give. cls's own __init__ is not called (the state holds the options)."""
    opt = cls.__new__(cls)
    Optimizer.__init__(opt, params)
    _C.ct_optimizer_state_load(opt._h, state)
    opt.__dict__.update(attributes)
    return opt


class SGD(Optimizer):
    """torch.optim.SGD(params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *, maximize=False)."""

    _kind = _C.CT_OPTIMIZER_SGD

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *, maximize=False,
                 foreach=None, differentiable=False):
        _unsupported(differentiable=differentiable)
        super().__init__(params, lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                         nesterov=nesterov, maximize=maximize)


class Adam(Optimizer):
    """torch.optim.Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *, maximize=False)."""

    _kind = _C.CT_OPTIMIZER_ADAM

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None):
        _unsupported(capturable=capturable, differentiable=differentiable)
        super().__init__(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                         maximize=maximize)


class AdamW(Optimizer):
    """torch.optim.AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *, maximize=False)."""

    _kind = _C.CT_OPTIMIZER_ADAMW

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        _unsupported(capturable=capturable, differentiable=differentiable)
        super().__init__(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                         maximize=maximize)


class RMSprop(Optimizer):
    """torch.optim.RMSprop(params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False, *, maximize=False)."""

    _kind = _C.CT_OPTIMIZER_RMSPROP

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False, *,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        _unsupported(capturable=capturable, differentiable=differentiable)
        super().__init__(params, lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay, momentum=momentum,
                         centered=centered, maximize=maximize)


def _unsupported(**flags):
    # foreach and fused only choose how torch runs the same formula: ctorch always fuses.
    for name, value in flags.items():
        if value:
            raise NotImplementedError(f"{name}=True is not supported by ctorch.optim (the update never records "
                                      f"autograd and runs on the parameters' own device)")
