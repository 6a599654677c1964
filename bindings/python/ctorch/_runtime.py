"""The runtime switches, with torch's names: deterministic algorithms, the default device, the
float32 matmul precision, print options, warnings given always, anomaly detection and flushing
denormals (the default dtype lives in _dtype)."""

from . import _C
from ._tensor import _device_of, device

__all__ = ["use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
           "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode",
           "get_deterministic_debug_mode", "set_default_device", "get_default_device",
           "set_float32_matmul_precision", "get_float32_matmul_precision", "set_printoptions", "get_printoptions",
           "set_warn_always", "is_warn_always_enabled", "set_anomaly_enabled", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled", "set_flush_denormal", "to_dlpack", "is_distributed"]

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


# torch's profiles (torch._tensor_str.set_printoptions).
_PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80), "full": (4, float("inf"), 3, 80)}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None):
    """How tensors print, process-wide (ct_set_print_options). A profile ("default", "short",
    "full") sets the four numbers first; sci_mode None chooses from the values, True/False force it."""
    o = _C.ct_print_options()
    _C.ct_print_options_default(o)  # sets struct_size
    _C.ct_get_print_options(o)
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(f"profile must be 'default', 'short' or 'full', got {profile!r}")
        precision_, threshold_, edgeitems_, linewidth_ = _PROFILES[profile]
        o.precision, o.threshold = precision_, _count(threshold_)
        o.edgeitems, o.linewidth = edgeitems_, linewidth_
    if precision is not None:
        o.precision = int(precision)
    if threshold is not None:
        o.threshold = _count(threshold)
    if edgeitems is not None:
        o.edgeitems = int(edgeitems)
    if linewidth is not None:
        o.linewidth = int(linewidth)
    o.sci_mode = -1 if sci_mode is None else int(bool(sci_mode))  # torch sets it on every call
    _C.ct_set_print_options(o)


def _count(threshold):
    return 2 ** 63 - 1 if threshold == float("inf") else int(threshold)


def get_printoptions():
    """The current print options as torch 2's get_printoptions gives them."""
    o = _C.ct_print_options()
    _C.ct_print_options_default(o)  # sets struct_size
    _C.ct_get_print_options(o)
    return {"precision": o.precision, "threshold": float("inf") if o.threshold == 2 ** 63 - 1 else o.threshold,
            "edgeitems": o.edgeitems, "linewidth": o.linewidth,
            "sci_mode": None if o.sci_mode < 0 else bool(o.sci_mode)}


def set_warn_always(b):
    """Warnings the library gives once per process are given every time while b is true."""
    _C.ct_set_warn_always(1 if b else 0)


def is_warn_always_enabled():
    return bool(_C.ct_is_warn_always_enabled())


def set_anomaly_enabled(enabled, check_nan=True):
    """Anomaly detection: while on, backward fails at the first node returning NaN gradients."""
    _C.ct_set_anomaly_enabled(1 if enabled else 0, 1 if check_nan else 0)


def is_anomaly_enabled():
    return bool(_C.ct_is_anomaly_enabled())


def is_anomaly_check_nan_enabled():
    return bool(_C.ct_is_anomaly_check_nan_enabled())


def set_flush_denormal(mode):
    """Denormal floats read and written as zero on this thread (and its parallel work); False where
    the CPU has no such mode."""
    return bool(_C.ct_set_flush_denormal(1 if mode else 0))


def to_dlpack(tensor):
    """The tensor as a DLPack capsule (torch.to_dlpack, torch.utils.dlpack.to_dlpack)."""
    return tensor.__dlpack__()


def is_distributed(tensor):
    """torch.is_distributed: a tensor is never distributed (torch answers False for every tensor)."""
    return tensor.is_distributed()
