"""Tensor methods that change a tensor's sizes or autograd identity in place, as torch's do: t_,
transpose_, swapaxes_/swapdims_, squeeze_, unsqueeze_, resize_, resize_as_, detach_ (and the
deprecated out-of-place resize/resize_as). The Python tensor takes a new library handle: a view of
its storage (writes through either are seen by both), or for a resize_ that grows it, new storage
holding the old elements first. What else held the old handle (another view, an optimizer) keeps
the old sizes: torch changes one TensorImpl that every holder shares, ctorch's handles are
immutable.

And the element-wise Python callbacks apply_, map_ and map2_ (CPU only, as in torch)."""

import warnings

from ._tensor import Tensor, _release


def _become(self, new):
    """self takes new's handle (new is a fresh tensor nobody else holds)."""
    old, self._h = self._h, new._h
    new._h = None
    _release(old)
    return self


def _refuse_leaf(self):
    from .autograd import is_grad_enabled
    if self.requires_grad and self.grad_fn is None and is_grad_enabled():
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")


def t_(self):
    _refuse_leaf(self)
    return _become(self, self.t())


def transpose_(self, dim0, dim1):
    _refuse_leaf(self)
    return _become(self, self.transpose(dim0, dim1))


def swapaxes_(self, axis0, axis1):
    _refuse_leaf(self)
    return _become(self, self.transpose(axis0, axis1))


swapdims_ = swapaxes_


def squeeze_(self, dim=None):
    _refuse_leaf(self)
    return _become(self, self.squeeze() if dim is None else self.squeeze(dim))


def unsqueeze_(self, dim):
    _refuse_leaf(self)
    return _become(self, self.unsqueeze(dim))


def as_strided_(self, size, stride, storage_offset=None):
    """self becomes the view as_strided gives (its storage with this geometry)."""
    _refuse_leaf(self)
    return _become(self, self.as_strided(size, stride, storage_offset))


def detach_(self):
    """Takes this tensor out of autograd: requires_grad False, no grad_fn (the storage is kept)."""
    return _become(self, self.detach())


def _sizes(args):
    from ._ops_shape import _varargs
    return [int(s) for s in _varargs(args)]


def resize_(self, *sizes, memory_format=None):
    """Gives self the sizes (contiguous): its first elements keep their values; a larger size gets
    new storage whose extra elements are uninitialized, as torch's."""
    from . import empty
    sizes = _sizes(sizes)
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"Trying to create tensor with negative dimension: {sizes}")
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    count = 1
    for s in sizes:
        count *= s
    flat = self.reshape(-1) if self.is_contiguous() else None
    if flat is not None and count <= self.numel():
        return _become(self, flat.narrow(0, 0, count).view(sizes))
    grown = empty(sizes, dtype=self.dtype, device=self.device)
    keep = min(count, self.numel())
    if keep:
        grown.reshape(-1).narrow(0, 0, keep).copy_(self.reshape(-1).narrow(0, 0, keep))
    return _become(self, grown)


def resize_as_(self, the_template, memory_format=None):
    return resize_(self, *the_template.shape)


def resize(self, *sizes):
    """Deprecated in torch: a reshaped copy of the same number of elements."""
    warnings.warn("non-inplace resize is deprecated")
    sizes = _sizes(sizes)
    count = 1
    for s in sizes:
        count *= s
    if count != self.numel():
        raise RuntimeError(f"requested resize to {'x'.join(map(str, sizes))} ({count} elements in total), but the "
                           f"given tensor has a size of {'x'.join(map(str, self.shape))} ({self.numel()} elements). "
                           "autograd's resize can only change the shape of a given tensor, while preserving the "
                           "number of elements. ")
    return self.contiguous().view(sizes)


def resize_as(self, tensor):
    warnings.warn("non-inplace resize_as is deprecated")
    return resize(self, *tensor.shape)


def _elementwise(self, name, others, fn):
    from . import broadcast_tensors, tensor
    if self.device.type != "cpu":
        raise TypeError(f"{name} is only implemented on CPU tensors")
    parts = [self] + [broadcast_tensors(o, self)[0] if o.shape != self.shape else o for o in others]
    columns = [p.reshape(-1).tolist() for p in parts]
    values = [fn(*row) for row in zip(*columns)]
    return self.copy_(tensor(values, dtype=self.dtype).reshape(self.shape))


def apply_(self, callable):
    """self[i] = callable(self[i]) for every element (Python numbers), in place; CPU only."""
    return _elementwise(self, "apply_", [], callable)


def map_(self, tensor, callable):
    """self[i] = callable(self[i], tensor[i]), tensor broadcast to self's shape; CPU only."""
    return _elementwise(self, "map_", [tensor], callable)


def map2_(self, x, y, callable):
    """self[i] = callable(self[i], x[i], y[i]), x and y broadcast to self's shape; CPU only."""
    return _elementwise(self, "map2_", [x, y], callable)


def _strided_buffer(size, stride, dtype, device):
    """A tensor of the given sizes and strides over fresh storage just large enough (offset 0)."""
    from . import empty
    size, stride = [int(s) for s in size], [int(s) for s in stride]
    span = 0 if any(s == 0 for s in size) else 1 + sum((n - 1) * st for n, st in zip(size, stride))
    return empty(span, dtype=dtype, device=device).as_strided(size, stride, 0)


def empty_strided(size, stride, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """An uninitialized tensor with the given sizes and strides, as torch.empty_strided."""
    from . import get_default_dtype
    t = _strided_buffer(size, stride, dtype or get_default_dtype(), device or "cpu")
    return t.requires_grad_() if requires_grad else t


def new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    t = _strided_buffer(size, stride, dtype or self.dtype, device or self.device)
    return t.requires_grad_() if requires_grad else t


def as_strided_copy(input, size, stride, storage_offset=None):
    return input.as_strided(size, stride, storage_offset).clone()


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """A copy of input (in fresh storage laid out as input's) with src written where
    input.as_strided(size, stride, storage_offset) would view it."""
    out = _strided_buffer(input.shape, input.stride(), input.dtype, input.device)
    out.copy_(input)
    offset = input.storage_offset() if storage_offset is None else storage_offset
    out.as_strided(size, stride, offset - input.storage_offset()).copy_(src)
    return out


def _install():
    for fn in (t_, transpose_, swapaxes_, squeeze_, unsqueeze_, as_strided_, detach_, resize_, resize_as_, resize,
               resize_as,
               apply_, map_, map2_):
        setattr(Tensor, fn.__name__, fn)
    Tensor.swapdims_ = swapdims_
    Tensor.new_empty_strided = new_empty_strided
    Tensor.as_strided_scatter = as_strided_scatter

