"""Shape functions whose torch Python API differs from an operator schema.

split, split_with_sizes, chunk and unbind return as many tensors as the input splits into, which
registered operators cannot (they return a fixed number), so they are built here from narrow and
select views, as ctorch's C++ API and ct_tensor_split/... build them: every piece shares the input's
storage and gradients flow through it. repeat, tile and flip also take varargs as Tensor methods.
"""

import builtins
import numbers

from . import _C
from . import ops
from ._errors import IndexError as _IndexError, InvalidArgumentError, ShapeError
from ._tensor import Size, Tensor

__all__ = ["split", "split_with_sizes", "chunk", "unbind"]


def _varargs(args):
    """f(2, 3) and f((2, 3)) alike."""
    if len(args) == 1 and isinstance(args[0], (tuple, list, Size)):
        return [builtins.int(a) for a in args[0]]
    return [builtins.int(a) for a in args]


def _invalid(msg):
    return InvalidArgumentError(_C.CT_ERROR_INVALID_ARGUMENT, msg)


def _split_dim(op, t, dim):
    if t.dim() == 0:
        raise ShapeError(_C.CT_ERROR_SHAPE, f"{op}: cannot split a 0-dim tensor. Reshape it to 1-D first")
    n = t.dim()
    if not -n <= dim < n:
        raise _IndexError(_C.CT_ERROR_INDEX, f"{op}: dim {dim} is out of range for a tensor of {n} dims. "
                          f"Pass a dim in [{-n}, {n - 1}]")
    return dim % n


def split_with_sizes(tensor, split_sizes, dim=0):
    """Pieces of the given sizes along dim (they must sum to its size), as views."""
    d = _split_dim("split_with_sizes", tensor, dim)
    n = tensor.shape[d]
    sizes = [builtins.int(s) for s in split_sizes]
    if any(s < 0 for s in sizes) or builtins.sum(sizes) != n:
        raise _invalid(f"split_with_sizes: split_sizes {sizes} must be >= 0 and sum to {n}, the size of dim {d} "
                       f"of the input {list(tensor.shape)}")
    pieces, start = [], 0
    for s in sizes:
        pieces.append(tensor.narrow(d, start, s))
        start += s
    return tuple(pieces)


def split(tensor, split_size_or_sections, dim=0):
    """torch.split: pieces of split_size along dim (the last may be shorter), or of the sizes in a list."""
    if not isinstance(split_size_or_sections, numbers.Integral):
        return split_with_sizes(tensor, split_size_or_sections, dim)
    size = builtins.int(split_size_or_sections)
    d = _split_dim("split", tensor, dim)
    n = tensor.shape[d]
    if size < 0:
        raise _invalid(f"split: split_size is {size}. Pass a size >= 0")
    if size == 0 and n != 0:
        raise _invalid(f"split: split_size is 0 but dim {d} has size {n}. split_size may be 0 only for an empty dim")
    count = 1 if size == 0 else builtins.max((n + size - 1) // size, 1)
    return tuple(tensor.narrow(d, i * size, builtins.min(size, n - i * size)) for i in range(count))


def chunk(input, chunks, dim=0):
    """torch.chunk: at most `chunks` pieces of equal size along dim (the last may be shorter)."""
    d = _split_dim("chunk", input, dim)
    if chunks <= 0:
        raise _invalid(f"chunk: chunks is {chunks}. Pass a number > 0")
    n = input.shape[d]
    size = (n + chunks - 1) // chunks
    if size == 0:  # an empty dim gives `chunks` empty pieces, as in torch
        return split_with_sizes(input, [0] * chunks, d)
    return split(input, size, d)


def unbind(input, dim=0):
    """torch.unbind: the slices along dim, each without that dim, as views."""
    if input.dim() == 0:
        raise _IndexError(_C.CT_ERROR_INDEX, "unbind: cannot unbind a 0-dim tensor. Reshape it to 1-D first")
    d = _split_dim("unbind", input, dim)
    return tuple(input.select(d, i) for i in range(input.shape[d]))


def _repeat(self, *sizes):
    return ops.call("repeat", self, _varargs(sizes))


def _tile(self, *dims):
    return ops.call("tile", self, _varargs(dims))


def _flip(self, *dims):
    return ops.call("flip", self, _varargs(dims))


def _install():
    Tensor.split = split
    Tensor.split_with_sizes = split_with_sizes
    Tensor.chunk = chunk
    Tensor.unbind = unbind
    Tensor.repeat = _repeat
    Tensor.tile = _tile
    Tensor.flip = _flip
