"""ctorch.cuda: CUDA devices, as torch.cuda. The backend (libctorch_cuda.so) loads on first use;
without it, a driver or a GPU, is_available() is False and device_count() is 0."""

from . import _C

__all__ = ["is_available", "device_count", "synchronize", "empty_cache", "memory_allocated", "memory_reserved",
           "max_memory_allocated"]


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
