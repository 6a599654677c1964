"""Python forms of the reduce family where torch's Python API differs from the registered schema:
torch.unique (a Python function over the _unique2 operator), unique_consecutive (comparisons of
neighbours, cumsum and index_select), torch.norm's string orders, and allclose and equal, which
answer a Python bool (a registered operator returns tensors)."""

import builtins

from . import ops
from ._tensor import Tensor


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct elements of input, ascending (as torch.unique); with return_inverse, each
    element's position among them (input's shape); with return_counts, how often each occurs.
    Returns a tensor, or a tuple when either flag is set. dim is not supported."""
    if dim is not None:
        raise NotImplementedError("ctorch.unique: dim is not supported; unique over all elements (dim=None)")
    values, inverse, counts = ops.call("_unique2", input, sorted, return_inverse, return_counts)
    if return_inverse and return_counts:
        return values, inverse, counts
    if return_inverse:
        return values, inverse
    if return_counts:
        return values, counts
    return values


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """input with each run of equal neighbours (elements, or slices along dim) kept once, as
    torch.unique_consecutive; with return_inverse, each element's (slice's) run; with
    return_counts, each run's length. NaNs never equal their neighbours, as in torch."""
    from . import arange, cat, int64, ones
    from ._errors import IndexError as _IndexError
    from . import _C
    if dim is None:
        flat = input.reshape(-1)
        rows, shape_of_inverse = flat, input.shape
    else:
        if input.dim() == 0:
            raise _IndexError(_C.CT_ERROR_INDEX, f"unique_consecutive: dim {dim} given for a 0-dim input")
        d = dim + input.dim() if dim < 0 else dim
        if not 0 <= d < input.dim():
            raise _IndexError(_C.CT_ERROR_INDEX, f"unique_consecutive: dim {dim} is out of range for a tensor of "
                              f"{input.dim()} dims")
        rows = input.movedim(d, 0)
        rows = rows.reshape(rows.shape[0], -1)
        shape_of_inverse = (input.shape[d],)
    n = rows.shape[0]
    if n == 0:
        values = input.reshape(-1)[:0] if dim is None else input
        starts = arange(0, dtype=int64)
    else:
        differs = rows[1:] != rows[:-1]
        if dim is not None:
            differs = differs.any(1) if rows.shape[1] else differs.reshape(n - 1, -1).any(1)
        new_run = cat([ones(1, dtype=differs.dtype), differs])
        starts = new_run.nonzero().reshape(-1)
        values = flat[starts] if dim is None else input.index_select(d, starts)
    result = [values]
    if return_inverse:
        result.append((new_run.long().cumsum(0) - 1 if n else arange(0, dtype=int64)).reshape(shape_of_inverse))
    if return_counts:
        result.append(cat([starts[1:], starts.new_full((1,), n)]) - starts if n else arange(0, dtype=int64))
    return result[0] if len(result) == 1 else tuple(result)


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """torch.norm: 'fro' (and p=None) is the 2-norm over dim (all dims when None), a number is the
    vector p-norm, 'nuc' the nuclear norm of a matrix (the sum of its singular values)."""
    if p == "nuc":
        return ops.call("linalg_norm", input, "nuc", dim, keepdim, dtype=dtype)
    if p == "fro" or p is None:
        p = 2
    if dtype is not None:
        input = input.to(dtype)
    if dim is None:
        return ops.call("linalg_vector_norm", input, p, None, keepdim) if keepdim else ops.call("norm.Scalar", input, p)
    return ops.call("norm.ScalarOpt_dim", input, p, [dim] if isinstance(dim, int) else list(dim), keepdim)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element of input is close to other's (isclose), as a Python bool."""
    return bool(ops.call("isclose", input, other, rtol, atol, equal_nan).all())


def equal(input, other):
    """Whether input and other have the same sizes and equal elements (NaN is never equal), as a
    Python bool; elements of different dtypes compare after promotion, as torch.equal."""
    return tuple(input.shape) == tuple(other.shape) and bool(ops.call("eq", input, other).all())


Tensor.allclose = allclose
Tensor.equal = equal


def histogram(input, bins=100, *, range=None, weight=None, density=False):
    """(hist, bin_edges) of input's values, as torch.histogram: bins equal-width bins over range
    (the values' min and max by default), or the edges of a 1-D tensor; every bin but the last is
    half-open, the last includes its right edge; weight adds each value's weight instead of 1;
    density divides by the total times the bin width."""
    from . import bucketize, float32, linspace, zeros
    if not input.is_floating_point():
        raise RuntimeError(f"torch.histogram: input tensor and bins tensors should have the same dtype, but got "
                           f"input {input.dtype} and bins {float32}")
    flat = input.reshape(-1)
    if isinstance(bins, Tensor):
        edges = bins.to(input.dtype)
        if edges.dim() != 1 or edges.numel() < 1:
            raise RuntimeError("torch.histogram(): bins tensor should have one dimension and at least 1 element")
    else:
        if bins <= 0:
            raise RuntimeError("torch.histogram(): bins must be > 0")
        if range is not None:
            lo, hi = float(range[0]), float(range[1])
        elif flat.numel():
            lo, hi = float(flat.min()), float(flat.max())
        else:
            lo, hi = 0.0, 0.0
        if lo > hi:
            raise RuntimeError(f"torch.histogram(): max must be larger than min, got min {lo} and max {hi}")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5  # as torch widens an empty range
        edges = linspace(lo, hi, bins + 1, dtype=input.dtype)
    count = edges.numel() - 1
    if weight is not None and weight.shape != input.shape:
        raise RuntimeError("torch.histogram(): if weight tensor is provided it should have the same shape as the input")
    w = (weight.reshape(-1).to(input.dtype) if weight is not None else None)
    inside = (flat >= edges[0]) & (flat <= edges[-1])
    # Bin i holds [edges[i], edges[i + 1]); the right edge falls in the last bin.
    index = (bucketize(flat, edges, right=True) - 1).clamp(0, builtins.max(count - 1, 0))
    values = (w if w is not None else flat.new_ones(flat.shape)) * inside.to(input.dtype)
    hist = zeros(builtins.max(count, 0), dtype=input.dtype).index_add(0, index, values) if count > 0 else \
        zeros(0, dtype=input.dtype)
    if density and count > 0:
        widths = edges[1:] - edges[:-1]
        hist = hist / (hist.sum() * widths)
    return hist, edges


Tensor.histogram = histogram
