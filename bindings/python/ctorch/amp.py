"""ctorch.amp: torch.amp's autocast and GradScaler.

autocast(device_type, dtype) turns on the library's automatic mixed precision for that device type
on this thread (ct_autocast_set_enabled): matrix products, linear and convolutions compute in the
lower-precision dtype (bfloat16 on the cpu, float16 on cuda, unless dtype says otherwise), losses,
norms and the other precision-sensitive operators in float32, everything else in the dtypes it is
given, following PyTorch's lists; float64 is never cast. A cuda autocast with no CUDA device warns
and is disabled, as torch's is. The torch functions beside it (is_autocast_cpu_enabled,
set_autocast_cpu_dtype, ...) read and set the same per-thread state.

GradScaler is torch's loss scaling, computed here: scale() multiplies the loss, unscale_() divides
the gradients and notes any inf or NaN, step() skips the update when one was found, and update()
backs the scale off after such a step or grows it after growth_interval clean ones."""

import functools
import threading
import warnings

from . import _C
from . import _dtype as _d

__all__ = ["autocast", "GradScaler"]

_DEVICE_TYPES = {"cpu": 0, "cuda": 1}
_DTYPES = {_d.float16.code: _d.float16, _d.bfloat16.code: _d.bfloat16}


def _cuda_missing(device_type, what):
    from . import cuda

    if device_type == "cuda" and not cuda.is_available():
        warnings.warn(f"User provided device_type of 'cuda', but CUDA is not available. Disabling {what}")
        return True
    return False


def _type_code(device_type):
    if device_type not in _DEVICE_TYPES:
        raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
    return _DEVICE_TYPES[device_type]


def is_enabled(device_type="cuda"):
    """Whether autocast is on for device_type on this thread."""
    return bool(_C.ct_autocast_is_enabled(_type_code(device_type)))


def set_enabled(enabled, device_type="cuda"):
    _C.ct_autocast_set_enabled(_type_code(device_type), int(bool(enabled)))


def get_dtype(device_type="cuda"):
    """The dtype autocast computes the lower-precision operators in on device_type."""
    return _DTYPES[_C.ct_autocast_get_dtype(_type_code(device_type))]


def set_dtype(dtype, device_type="cuda"):
    _C.ct_autocast_set_dtype(_type_code(device_type), dtype.code)


class _ThreadState(threading.local):
    def __init__(self):
        self.nesting = 0
        self.cache_enabled = True


_local = _ThreadState()


def increment_nesting():
    _local.nesting += 1
    return _local.nesting


def decrement_nesting():
    _local.nesting -= 1
    return _local.nesting


def is_cache_enabled():
    """torch's cast-cache flag; ctorch keeps no cache of casts, so it changes no result."""
    return _local.cache_enabled


def set_cache_enabled(enabled):
    _local.cache_enabled = bool(enabled)


def clear_cache():
    """Nothing to clear: ctorch casts again on each call instead of caching."""


class autocast:
    """autocast(device_type, dtype=None, enabled=True, cache_enabled=None): a context manager and
    decorator; the region's state is restored on exit, nested regions included."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        _type_code(device_type)
        self.device = device_type
        self.fast_dtype = dtype if dtype is not None else get_dtype(device_type)
        self._cache_enabled = cache_enabled
        self._enabled = bool(enabled) and not _cuda_missing(device_type, "autocast")
        if self._enabled and self.fast_dtype not in (_d.float16, _d.bfloat16):
            warnings.warn(f"In {device_type} autocast, but the target dtype is not supported. Disabling autocast.\n"
                          f"{device_type} Autocast only supports dtypes of torch.bfloat16 and torch.float16 currently.")
            self._enabled = False

    def __enter__(self):
        self._saved = (is_enabled(self.device), get_dtype(self.device), _local.cache_enabled)
        if self._cache_enabled is not None:
            _local.cache_enabled = bool(self._cache_enabled)
        set_dtype(self.fast_dtype if self._enabled else self._saved[1], self.device)
        set_enabled(self._enabled, self.device)
        increment_nesting()
        return self

    def __exit__(self, *exc):
        decrement_nesting()
        enabled, dtype, cache = self._saved
        set_enabled(enabled, self.device)
        set_dtype(dtype, self.device)
        _local.cache_enabled = cache
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def run(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)

        return run


class GradScaler:
    """GradScaler(device="cuda", init_scale=2**16, growth_factor=2.0, backoff_factor=0.5,
    growth_interval=2000, enabled=True), as torch.amp.GradScaler. A "cuda" scaler with no CUDA
    device warns and is disabled, as torch's is; a "cpu" one scales."""

    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        if growth_factor <= 1.0:
            raise ValueError("The growth factor must be > 1.0.")
        if backoff_factor >= 1.0:
            raise ValueError("The backoff factor must be < 1.0.")
        self._device = device
        self._enabled = bool(enabled) and not _cuda_missing(device, "GradScaler")
        self._scale = float(init_scale)
        self._growth_factor = float(growth_factor)
        self._backoff_factor = float(backoff_factor)
        self._growth_interval = int(growth_interval)
        self._growth_tracker = 0
        self._per_optimizer = {}  # id(optimizer) -> {"unscaled": bool, "found_inf": bool, "stepped": bool}

    def is_enabled(self):
        return self._enabled

    def get_scale(self):
        return self._scale if self._enabled else 1.0

    def get_growth_factor(self):
        return self._growth_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def get_growth_interval(self):
        return self._growth_interval

    def scale(self, outputs):
        """outputs (a tensor, or nested lists and tuples of them) times the scale."""
        if not self._enabled:
            return outputs
        from ._tensor import Tensor

        def go(o):
            if isinstance(o, Tensor):
                return o * self._scale
            if isinstance(o, (list, tuple)):
                return type(o)(go(e) for e in o)
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return go(outputs)

    def _state(self, optimizer):
        return self._per_optimizer.setdefault(id(optimizer), {"unscaled": False, "found_inf": False, "stepped": False})

    def unscale_(self, optimizer):
        """Divides the gradients of optimizer's parameters by the scale, in place, and notes whether
        any is inf or NaN. Once per optimizer between updates."""
        if not self._enabled:
            return
        from . import autograd, isfinite

        state = self._state(optimizer)
        if state["unscaled"]:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stepped"]:
            raise RuntimeError("unscale_() is being called after step().")
        inverse = 1.0 / self._scale
        found = False
        with autograd.no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    g = p.grad
                    g.mul_(inverse)
                    found = found or not bool(isfinite(g).all())
        state["unscaled"], state["found_inf"] = True, found

    def step(self, optimizer, *args, **kwargs):
        """optimizer.step(*args) unless an inf or NaN was in the unscaled gradients (then nothing);
        unscales first when unscale_ was not called."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        state = self._state(optimizer)
        if state["stepped"]:
            raise RuntimeError("step() has already been called since the last update().")
        if not state["unscaled"]:
            self.unscale_(optimizer)
        state["stepped"] = True
        return None if state["found_inf"] else optimizer.step(*args, **kwargs)

    def update(self, new_scale=None):
        """Backs the scale off when a step found an inf or NaN, grows it after growth_interval steps
        without; new_scale sets it instead."""
        if not self._enabled:
            return
        if new_scale is not None:
            self._scale = float(new_scale.item() if hasattr(new_scale, "item") else new_scale)
        elif self._per_optimizer:
            if any(s["found_inf"] for s in self._per_optimizer.values()):
                self._scale *= self._backoff_factor
                self._growth_tracker = 0
            else:
                self._growth_tracker += 1
                if self._growth_tracker == self._growth_interval:
                    self._scale *= self._growth_factor
                    self._growth_tracker = 0
        self._per_optimizer = {}

    def state_dict(self):
        if not self._enabled:
            return {}
        return {"scale": self._scale, "growth_factor": self._growth_factor, "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval, "_growth_tracker": self._growth_tracker}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if not state_dict:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._scale = float(state_dict["scale"])
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._growth_tracker = int(state_dict["_growth_tracker"])
