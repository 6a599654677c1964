"""The runtime switches, with torch's names: deterministic algorithms, the default device and the
float32 matmul precision (the default dtype lives in _dtype)."""

from . import _C
from ._tensor import _device_of, device

__all__ = ["use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
           "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode",
           "get_deterministic_debug_mode", "set_default_device", "get_default_device",
           "set_float32_matmul_precision", "get_float32_matmul_precision"]

_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def use_deterministic_algorithms(mode, *, warn_only=False):
    """With mode True, operators whose kernels may differ run to run raise (ctorch.Error, also a
    RuntimeError) or, with warn_only, warn once each; empty() fills new memory with NaN or the
    largest integer."""
    _C.ct_use_deterministic_algorithms(int(bool(mode)), int(bool(warn_only)))


def are_deterministic_algorithms_enabled():
    return bool(_C.ct_are_deterministic_algorithms_enabled())


def is_deterministic_algorithms_warn_only_enabled():
    return bool(_C.ct_is_deterministic_algorithms_warn_only_enabled())


def set_deterministic_debug_mode(debug_mode):
    """0 or "default" (off), 1 or "warn", 2 or "error"."""
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(f'invalid value of debug_mode, expected one of "default", "warn", "error", '
                               f'but got {debug_mode}')
        debug_mode = _DEBUG_MODES[debug_mode]
    _C.ct_set_deterministic_debug_mode(int(debug_mode))


def get_deterministic_debug_mode():
    return _C.ct_get_deterministic_debug_mode()


def set_default_device(dev):
    """The device factories use on this thread when given none (None: back to cpu). A
    `with ctorch.device(...)` block takes precedence while it is open."""
    _C.ct_set_default_device(None if dev is None else str(device(dev)))


def get_default_device():
    """The device a factory without one would use now on this thread."""
    kind, index = _C.ct_get_default_device()
    return _device_of(kind, index)


def set_float32_matmul_precision(precision):
    """"highest" (the default), "high" (TF32 allowed on CUDA) or "medium"."""
    _C.ct_set_float32_matmul_precision(precision)


def get_float32_matmul_precision():
    return _C.ct_get_float32_matmul_precision()
