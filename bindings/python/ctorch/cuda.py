"""ctorch.cuda: CUDA devices, as torch.cuda. The backend (libctorch_cuda.so) loads on first use;
without it, a driver or a GPU, is_available() is False and device_count() is 0."""

from . import _C

__all__ = ["is_available", "device_count", "synchronize", "empty_cache", "memory_allocated", "memory_reserved",
           "max_memory_allocated", "manual_seed", "manual_seed_all", "current_device", "amp"]


def is_available():
    return _C.ct_cuda_device_count() > 0


def device_count():
    return _C.ct_cuda_device_count()


def synchronize(device=None):
    """Waits for every kernel and copy queued on device (an int, "cuda:N" or ctorch.device; None: 0)."""
    _C.ct_cuda_synchronize(_index(device))


def empty_cache():
    """Gives the caching allocator's unused memory back to CUDA; live tensors keep theirs."""
    _C.ct_cuda_empty_cache()


# The memory figures are totals over every device (the memory.cuda.* metrics).
def memory_allocated():
    return _C.ct_metric_get("memory.cuda.bytes_allocated")


def memory_reserved():
    return _C.ct_metric_get("memory.cuda.bytes_reserved")


def max_memory_allocated():
    return _C.ct_metric_get("memory.cuda.peak_bytes_allocated")


def _index(device):
    if device is None:
        return 0
    if isinstance(device, int):
        return device
    index = getattr(device, "index", None) if not isinstance(device, str) else (
        int(device.split(":")[1]) if ":" in device else 0)
    return 0 if index is None else index


def manual_seed(seed):
    """Seeds the default generator of every CUDA device (as torch.cuda.manual_seed_all: ctorch keeps
    no current device to single out); without CUDA it does nothing, as torch's."""
    from ._random import Generator
    from ._tensor import device

    for i in range(device_count()):
        Generator._adopt(_C.ct_default_generator(f"cuda:{i}"), device(f"cuda:{i}")).manual_seed(seed)


manual_seed_all = manual_seed


def current_device():
    """0, the device a bare "cuda" names; raises when there is no CUDA device, as torch."""
    if not is_available():
        raise RuntimeError("ctorch.cuda.current_device: no CUDA device is available")
    return 0


class _Amp:
    """ctorch.cuda.amp: torch.cuda.amp's autocast and GradScaler, which are ctorch.amp's for "cuda"."""

    @staticmethod
    def autocast(enabled=True, dtype=None, cache_enabled=True):
        from . import amp as _amp, float16

        return _amp.autocast("cuda", dtype=dtype or float16, enabled=enabled, cache_enabled=cache_enabled)

    @staticmethod
    def GradScaler(init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000, enabled=True):
        from . import amp as _amp

        return _amp.GradScaler("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)


amp = _Amp()
