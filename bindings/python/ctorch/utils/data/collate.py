"""Collation: how a DataLoader turns a list of samples into a batch (default_collate) or converts
one sample when batching is off (default_convert), with torch's rules: tensors stack along a new
first dim, numpy arrays and numbers become tensors (Python floats float64, ints int64, bools bool),
strings stay a list, and mappings, named tuples and sequences are collated field by field."""

import collections.abc
import numbers

from ... import from_numpy, stack, tensor
from ..._dtype import bool as _bool, float64, int64
from ..._tensor import Tensor


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(x, "_fields")


def _is_numpy(x):
    return type(x).__module__ == "numpy"


def default_convert(data):
    """numpy arrays (not of strings or objects) to tensors, through containers; the rest unchanged."""
    if isinstance(data, Tensor):
        return data
    if _is_numpy(data) and hasattr(data, "dtype"):
        if data.dtype.kind in "SUO":
            return data
        return from_numpy(data) if data.ndim else tensor(data.item())
    if isinstance(data, collections.abc.Mapping):
        converted = {k: default_convert(v) for k, v in data.items()}
        return converted if type(data) is dict else type(data)(converted)
    if _is_namedtuple(data):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return [default_convert(d) for d in data]
    return data


def default_collate(batch):
    """A batch from a list of samples, by the rules in the module comment."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(list(batch), 0)
    if _is_numpy(elem) and hasattr(elem, "dtype"):
        if elem.dtype.kind in "SUO":
            raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
                            f"found {elem.dtype}")
        if elem.ndim == 0:  # numpy scalars keep their dtype
            import numpy

            return from_numpy(numpy.stack(batch))
        return stack([from_numpy(b) for b in batch], 0)
    if isinstance(elem, bool):
        return tensor(list(batch), dtype=_bool)
    if isinstance(elem, numbers.Integral):
        return tensor(list(batch), dtype=int64)
    if isinstance(elem, numbers.Real):
        return tensor(list(batch), dtype=float64)
    if isinstance(elem, (str, bytes)):
        return list(batch)
    if isinstance(elem, collections.abc.Mapping):
        collated = {key: default_collate([d[key] for d in batch]) for key in elem}
        return collated if type(elem) is dict else type(elem)(collated)
    if _is_namedtuple(elem):
        return type(elem)(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        if any(len(b) != len(elem) for b in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = [default_collate(list(samples)) for samples in zip(*batch)]
        if isinstance(elem, tuple):
            return transposed
        try:
            return type(elem)(transposed)
        except TypeError:
            return transposed
    raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
                    f"found {type(elem)}")
