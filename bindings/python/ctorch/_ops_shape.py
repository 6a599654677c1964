"""Shape functions whose torch Python API differs from an operator schema.

split, split_with_sizes, chunk and unbind return as many tensors as the input splits into, which
registered operators cannot (they return a fixed number), so they are built here from narrow and
select views by ct_tensor_split, ct_tensor_split_with_sizes, ct_tensor_chunk and ct_tensor_unbind
(through _C.ct_py_split): every piece shares the input's storage and gradients flow through it.
repeat, tile and flip also take varargs as Tensor methods.
"""

import builtins
import numbers

from . import _C
from . import ops
from ._symbolic import SymInt
from ._tensor import Size, Tensor, _handle, _wrap

__all__ = ["split", "split_with_sizes", "chunk", "unbind", "atleast_1d", "atleast_2d", "atleast_3d"]


def _varargs(args):
    """f(2, 3) and f((2, 3)) alike; SymInts stay symbolic (the boxed call takes them)."""
    if len(args) == 1 and isinstance(args[0], (tuple, list, Size)):
        args = args[0]
    return [a if type(a) is SymInt else builtins.int(a) for a in args]


def _pieces(which, tensor, arg, dim):
    return tuple(_wrap(h) for h in _C.ct_py_split(which, _handle(tensor), arg, builtins.int(dim)))


def split_with_sizes(tensor, split_sizes, dim=0):
    """Pieces of the given sizes along dim (they must sum to its size), as views."""
    return _pieces(1, tensor, [builtins.int(s) for s in split_sizes], dim)


def split(tensor, split_size_or_sections, dim=0):
    """torch.split: pieces of split_size along dim (the last may be shorter), or of the sizes in a list."""
    if not isinstance(split_size_or_sections, numbers.Integral):
        return split_with_sizes(tensor, split_size_or_sections, dim)
    return _pieces(0, tensor, builtins.int(split_size_or_sections), dim)


def chunk(input, chunks, dim=0):
    """torch.chunk: at most `chunks` pieces of equal size along dim (the last may be shorter)."""
    return _pieces(2, input, builtins.int(chunks), dim)


def unbind(input, dim=0):
    """torch.unbind: the slices along dim, each without that dim, as views."""
    return _pieces(3, input, None, dim)


def _repeat(self, *sizes):
    return ops.call("repeat", self, _varargs(sizes))


def _tile(self, *dims):
    return ops.call("tile", self, _varargs(dims))


def _flip(self, *dims):
    return ops.call("flip", self, _varargs(dims))


def meshgrid(*tensors, indexing="ij"):
    """Grids from 1-D (or 0-dim) tensors, as torch.meshgrid: with indexing "ij" result i varies along
    dim i, with "xy" the first two inputs take dims 1 and 0. Each result is an expanded view of its
    input (no copy), so gradients flow back through it."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing not in ("ij", "xy"):
        raise ValueError(f"meshgrid: indexing must be 'ij' or 'xy', got {indexing!r}")
    if not tensors:
        raise ValueError("meshgrid: pass at least one tensor")
    for t in tensors:
        if t.dim() > 1:
            raise ValueError(f"meshgrid: expects 0-dim or 1-D tensors, got sizes {list(t.shape)}")
        if t.dtype is not tensors[0].dtype or t.device != tensors[0].device:
            raise ValueError(f"meshgrid: every tensor must have one dtype and device, got {tensors[0].dtype} on "
                             f"{tensors[0].device} and {t.dtype} on {t.device}")
    order = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) >= 2:
        order[0], order[1] = 1, 0  # input i lies along dim order[i]
    sizes = [0] * len(tensors)
    for i, t in enumerate(tensors):
        sizes[order[i]] = t.numel()
    grids = []
    for i, t in enumerate(tensors):
        shape = [1] * len(tensors)
        shape[order[i]] = -1
        grids.append(t.reshape(shape).expand(sizes))
    return tuple(grids)


def _atleast(name, tensors):
    """torch.atleast_Nd(t) is one tensor; (a, b) or atleast_Nd([a, b]) a tuple of them."""
    if len(tensors) == 1 and not isinstance(tensors[0], (list, tuple)):
        return ops.call(name, tensors[0])
    if len(tensors) == 1:
        tensors = tensors[0]
    return tuple(ops.call(name, t) for t in tensors)


def atleast_1d(*tensors):
    return _atleast("atleast_1d", tensors)


def atleast_2d(*tensors):
    return _atleast("atleast_2d", tensors)


def atleast_3d(*tensors):
    return _atleast("atleast_3d", tensors)


def _install():
    Tensor.split = split
    Tensor.split_with_sizes = split_with_sizes
    Tensor.chunk = chunk
    Tensor.unbind = unbind
    Tensor.repeat = _repeat
    Tensor.tile = _tile
    Tensor.flip = _flip
