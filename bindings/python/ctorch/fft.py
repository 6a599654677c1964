"""ctorch.fft: torch.fft's discrete Fourier transforms with torch's names, arguments and results. fft,
ifft, rfft, irfft, hfft and ihfft, their 2-D (fft2, ...) and n-D (fftn, ...) forms, fftfreq, rfftfreq,
fftshift and ifftshift are the registered operators fft_fft, fft_fft2, fft_fftn, ...; they compose the
transforms _fft_c2c, _fft_r2c and _fft_c2r, which differentiate. Any length transforms (mixed radix,
Bluestein's algorithm for large prime factors), in float32/complex64 or float64/complex128; integers
are transformed as the default float dtype. norm is "backward" (the default), "forward" or "ortho".
CUDA tensors are refused: ctorch has no complex CUDA tensors yet."""

import builtins as _builtins

from . import ops as _ops

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "hfft2",
           "ihfft2", "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn", "fftfreq", "rfftfreq", "fftshift",
           "ifftshift"]


def _ints(v):
    """An int or a sequence of ints as a list (torch.fft takes either for s and dim); None stays."""
    if v is None:
        return None
    if isinstance(v, _builtins.int):
        return [v]
    return [_builtins.int(x) for x in v]


def _call(name, args, out):
    if out is None:
        return _ops.call(name, *args)
    return _ops.call(name, *args, out=out)


def _one_dim(kind, doc):
    def fn(input, n=None, dim=-1, norm=None, *, out=None):
        return _call("fft_" + kind, (input, n, dim, norm), out)

    fn.__name__ = fn.__qualname__ = kind
    fn.__doc__ = f"torch.fft.{kind}(input, n=None, dim=-1, norm=None): {doc}"
    return fn


def _two_dim(kind, doc):
    def fn(input, s=None, dim=(-2, -1), norm=None, *, out=None):
        return _call("fft_" + kind + "2", (input, _ints(s), _ints(dim), norm), out)

    fn.__name__ = fn.__qualname__ = kind + "2"
    fn.__doc__ = f"torch.fft.{kind}2(input, s=None, dim=(-2, -1), norm=None): {doc}, over two dims."
    return fn


def _n_dim(kind, doc):
    def fn(input, s=None, dim=None, norm=None, *, out=None):
        return _call("fft_" + kind + "n", (input, _ints(s), _ints(dim), norm), out)

    fn.__name__ = fn.__qualname__ = kind + "n"
    fn.__doc__ = (f"torch.fft.{kind}n(input, s=None, dim=None, norm=None): {doc}, over the dims given (the last "
                  "len(s) when only s is, every dim when neither is).")
    return fn


_KINDS = {
    "fft": "the discrete Fourier transform (complex; a real input is taken as complex)",
    "ifft": "the inverse discrete Fourier transform",
    "rfft": "the transform of a real input, the non-negative frequencies only (n // 2 + 1 of them)",
    "irfft": "the inverse of rfft: a real signal of n points (2 * (m - 1) by default) from a half spectrum",
    "hfft": "the transform of a Hermitian signal given by its first half: a real spectrum of n points",
    "ihfft": "the inverse of hfft: the first half (n // 2 + 1 points) of the Hermitian signal of a real input",
}

for _kind, _doc in _KINDS.items():
    globals()[_kind] = _one_dim(_kind, _doc)
    globals()[_kind + "2"] = _two_dim(_kind, _doc)
    globals()[_kind + "n"] = _n_dim(_kind, _doc)


def _frequencies(name, n, d, out, dtype, device, requires_grad):
    from . import _device_arg
    kwargs = {"dtype": dtype, "device": _device_arg(device)}
    if out is not None:
        kwargs["out"] = out
    t = _ops.call(name, n, d, **kwargs)
    if requires_grad:
        t.requires_grad_(True)
    return t


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """torch.fft.fftfreq: the sample frequencies of a transform of n points spaced d apart,
    [0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (d * n)."""
    return _frequencies("fft_fftfreq", n, d, out, dtype, device, requires_grad)


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """torch.fft.rfftfreq: the non-negative sample frequencies of rfft's n // 2 + 1 outputs."""
    return _frequencies("fft_rfftfreq", n, d, out, dtype, device, requires_grad)


def fftshift(input, dim=None):
    """torch.fft.fftshift: frequency 0 moved to the middle of each dim (every dim when None)."""
    return _ops.call("fft_fftshift", input, _ints(dim))


def ifftshift(input, dim=None):
    """torch.fft.ifftshift: the inverse of fftshift."""
    return _ops.call("fft_ifftshift", input, _ints(dim))
