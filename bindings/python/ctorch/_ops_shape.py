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
from . import _dtype
from . import ops
from ._errors import IndexError as _IndexError, InvalidArgumentError, ShapeError
from ._symbolic import SymInt
from ._tensor import Size, Tensor, _handle, _wrap

__all__ = ["split", "split_with_sizes", "chunk", "unbind", "tensor_split", "hsplit", "vsplit", "dsplit", "atleast_1d",
           "atleast_2d", "atleast_3d", "broadcast_shapes", "broadcast_tensors", "block_diag", "cartesian_prod"]


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


def tensor_split(input, indices_or_sections, dim=0):
    """torch.tensor_split: n nearly equal pieces along dim (the first size % n one longer), or the
    pieces between the given indices (clamped to the dim, so a decreasing pair gives an empty piece);
    every piece is a narrow view. A 0-dim or 1-D tensor of indices or sections is read as a list."""
    if input.dim() == 0:
        raise ShapeError(_C.CT_ERROR_SHAPE, "tensor_split: the input is 0-dim and has no dim to split. Reshape it to "
                         "1-D first")
    d = dim + input.dim() if dim < 0 else dim
    if not 0 <= d < input.dim():
        raise _IndexError(_C.CT_ERROR_INDEX, f"tensor_split: dim {dim} is out of range for a tensor of {input.dim()} "
                          "dims")
    if isinstance(indices_or_sections, Tensor):
        if indices_or_sections.dtype.is_floating_point or indices_or_sections.dim() > 1:
            raise InvalidArgumentError(_C.CT_ERROR_INVALID_ARGUMENT, "tensor_split: a tensor of indices_or_sections "
                                       "must be a 0-dim or 1-D integer tensor")
        indices_or_sections = (indices_or_sections.item() if indices_or_sections.dim() == 0
                               else indices_or_sections.tolist())
    n = input.shape[d]
    if isinstance(indices_or_sections, numbers.Integral):
        sections = builtins.int(indices_or_sections)
        if sections <= 0:
            raise InvalidArgumentError(_C.CT_ERROR_INVALID_ARGUMENT,
                                       f"tensor_split: number of sections must be larger than 0, got {sections}")
        base, extra = n // sections, n % sections  # SymInts have // and %, not divmod
        bounds, start = [], 0
        for i in range(sections):
            start += base + (1 if i < extra else 0)
            bounds.append(start)
        bounds = bounds[:-1]
    else:
        bounds = [builtins.int(i) for i in indices_or_sections]
    pieces, begin = [], 0
    for end in bounds + [n]:
        end = min(max(end + n if end < 0 else end, 0), n)  # as a slice's bound: wrapped, then clamped
        pieces.append(input.narrow(d, begin, max(end - begin, 0)))
        begin = end
    return tuple(pieces)


def _directional_split(name, input, indices_or_sections, dim, min_dims):
    if input.dim() < min_dims:
        raise ShapeError(_C.CT_ERROR_SHAPE, f"{name}: the input has {input.dim()} dims; it takes at least {min_dims}")
    if isinstance(indices_or_sections, numbers.Integral) and input.shape[dim] % indices_or_sections != 0:
        raise InvalidArgumentError(_C.CT_ERROR_INVALID_ARGUMENT, f"{name}: dim {dim} has size {input.shape[dim]}, which "
                                   f"{indices_or_sections} sections do not divide. Pass a divisor, or indices")
    return tensor_split(input, indices_or_sections, dim)


def hsplit(input, indices_or_sections):
    """torch.hsplit: tensor_split along dim 1 (dim 0 of a 1-D tensor); sections must divide it."""
    return _directional_split("hsplit", input, indices_or_sections, 1 if input.dim() > 1 else 0, 1)


def vsplit(input, indices_or_sections):
    """torch.vsplit: tensor_split along dim 0 of a tensor of at least 2 dims."""
    return _directional_split("vsplit", input, indices_or_sections, 0, 2)


def dsplit(input, indices_or_sections):
    """torch.dsplit: tensor_split along dim 2 of a tensor of at least 3 dims."""
    return _directional_split("dsplit", input, indices_or_sections, 2, 3)


def broadcast_shapes(*shapes):
    """torch.broadcast_shapes: the shape that tensors of these shapes broadcast to (ints count as 1-D)."""
    result = []
    for shape in shapes:
        shape = [builtins.int(shape)] if isinstance(shape, numbers.Integral) else [builtins.int(s) for s in shape]
        if builtins.any(s < 0 for s in shape):
            raise InvalidArgumentError(_C.CT_ERROR_INVALID_ARGUMENT, f"broadcast_shapes: shape {shape} has a negative size")
        if len(shape) > len(result):
            result = [1] * (len(shape) - len(result)) + result
        for i in range(1, len(shape) + 1):
            a, b = result[-i], shape[-i]
            if a != b and a != 1 and b != 1:
                raise ShapeError(_C.CT_ERROR_SHAPE, "broadcast_shapes: the shapes do not broadcast to one: dim "
                                 f"{len(result) - i} is {a} in one and {b} in another")
            result[-i] = b if a == 1 else a
    return Size(result)


def broadcast_tensors(*tensors):
    """torch.broadcast_tensors(*tensors): every tensor expanded (a view, no copy) to their common shape."""
    shape = broadcast_shapes(*(t.shape for t in tensors))
    return tuple(t.expand(shape) for t in tensors)


def _tensor_list(tensors):
    return list(tensors[0]) if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) else list(tensors)


def block_diag(*tensors):
    """torch.block_diag(*tensors): the operator block_diag(Tensor[] tensors)."""
    return ops.call("block_diag", _tensor_list(tensors))


def cartesian_prod(*tensors):
    """torch.cartesian_prod(*tensors): the operator cartesian_prod(Tensor[] tensors)."""
    return ops.call("cartesian_prod", _tensor_list(tensors))


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


# torch's *_copy functions: the view's values in a tensor of their own (what a functionalized graph
# computes where the view was), contiguous. Lists of views give lists of copies.
_VIEW_COPIES = ("alias", "detach", "diagonal", "expand", "permute", "select", "slice", "split", "split_with_sizes",
                "squeeze", "t", "transpose", "unbind", "unfold", "unsqueeze", "view")


def _view_copy(view):
    def fn(input, *args, **kwargs):
        if view == "alias":
            return input.clone(memory_format=_dtype.contiguous_format)
        if view == "slice":
            result = ops.call("slice", input, *args, **kwargs)
        else:
            result = getattr(input, view)(*args, **kwargs)
        if isinstance(result, (tuple, list)):
            return [t.clone(memory_format=_dtype.contiguous_format) for t in result]
        return result.clone(memory_format=_dtype.contiguous_format)

    fn.__name__ = fn.__qualname__ = view + "_copy"
    fn.__doc__ = f"torch.{view}_copy: {view}'s result as a new contiguous tensor (not a view)."
    return fn


for _view in _VIEW_COPIES:
    globals()[_view + "_copy"] = _view_copy(_view)
    __all__.append(_view + "_copy")
del _view


def _install():
    Tensor.split = split
    Tensor.split_with_sizes = split_with_sizes
    Tensor.chunk = chunk
    Tensor.unbind = unbind
    Tensor.tensor_split = tensor_split
    Tensor.hsplit = hsplit
    Tensor.vsplit = vsplit
    Tensor.dsplit = dsplit
    Tensor.repeat = _repeat
    Tensor.tile = _tile
    Tensor.flip = _flip
