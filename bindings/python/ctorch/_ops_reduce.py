"""Python forms of the reduce family where torch's Python API differs from the registered schema:
torch.unique (a Python function over the _unique2 operator), torch.norm's string orders, and
allclose and equal, which answer a Python bool (a registered operator returns tensors)."""

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


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """torch.norm: 'fro' (and p=None) is the 2-norm over dim (all dims when None), a number is the
    vector p-norm, 'nuc' is not supported (it needs singular values)."""
    if p == "nuc":
        return ops.call("linalg_norm.ord_str", input, "nuc", dim, keepdim, dtype=dtype)
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
