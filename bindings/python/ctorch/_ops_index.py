"""The indexing family's functions whose Python signature differs from their operator's schema."""

from . import ops as _ops
from ._tensor import Tensor

__all__ = ["nonzero"]


def nonzero(input, *, as_tuple=False):
    """The indices of the nonzero elements: an (n, ndim) int64 tensor, or with as_tuple=True one
    1-D tensor per dim (what x[mask] indexes with), as torch.nonzero."""
    result = _ops.call("nonzero", input)
    if not as_tuple:
        return result
    if input.ndim == 0:  # torch treats a 0-dim input as 1-D here
        return (result.reshape(-1),)
    return tuple(result.select(1, d) for d in range(input.ndim))


Tensor.nonzero = nonzero
