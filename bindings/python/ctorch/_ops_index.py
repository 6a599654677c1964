"""The indexing family's functions whose Python signature differs from their operator's schema."""

from . import ops as _ops
from ._tensor import Tensor

__all__ = ["nonzero", "index_reduce"]


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


def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """Reduces source's slices along dim into input's slices at index ('prod', 'mean', 'amax' or
    'amin'), as torch.index_reduce: scatter_reduce with index spread over source's other dims."""
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise ValueError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    if index.dim() > 1:
        raise IndexError(f"index_reduce(): Index is supposed to be a vector, got {index.dim()}-D")
    d = dim % max(source.dim(), 1)
    shape = [1] * source.dim()
    if source.dim():
        shape[d] = index.numel()
    spread = index.reshape(shape).expand(source.shape) if source.dim() else index.reshape(())
    return _ops.call("scatter_reduce", input, dim, spread, source, reduce, include_self=include_self)


def _index_reduce_(self, dim, index, source, reduce, *, include_self=True):
    return self.copy_(index_reduce(self, dim, index, source, reduce, include_self=include_self))


Tensor.index_reduce = index_reduce
Tensor.index_reduce_ = _index_reduce_
