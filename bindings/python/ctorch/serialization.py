"""ctorch.save and ctorch.load: PyTorch's checkpoint files (ctorch.h, "Checkpoints: PyTorch files";
docs/checkpoints.md).

    ctorch.save(model.state_dict(), "model.pt")        # torch.load("model.pt", weights_only=True) reads it
    state = ctorch.load("model.pt")                      # and files from torch.save load here

The C library reads and writes the files; this module turns Python objects into the JSON structure
it takes (and back). What loads is what torch.load(weights_only=True) loads: tensors, OrderedDicts,
dicts, lists, tuples, strings, numbers, bools and None. ctorch never runs a pickle's code, so
weights_only=False loads the same values (and refuses the same others, with ctorch.FormatError).
Loaded tensors are CPU tensors (map_location moves them), requiring grad as saved; tensors that
shared memory when saved share it when loaded."""

import collections
import json
import math
import os

from . import _C
from ._tensor import Tensor, _handle, _wrap

__all__ = ["save", "load"]


def _encode(obj, tensors, index, depth=0):
    if depth > 200:
        raise ValueError("ctorch.save: the object nests more than 200 deep")
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, int):
        return int(obj)
    if isinstance(obj, float):
        if math.isfinite(obj):
            return obj
        return {"float": "nan" if math.isnan(obj) else ("inf" if obj > 0 else "-inf")}
    if isinstance(obj, Tensor):
        i = index.get(id(obj))
        if i is None:
            i = index[id(obj)] = len(tensors)
            tensors.append(obj)
        return {"tensor": i}
    if isinstance(obj, dict):
        pairs = []
        for k, v in obj.items():
            if not isinstance(k, (str, int)) or isinstance(k, bool):
                raise TypeError(f"ctorch.save: a dict key must be a str or an int, got {type(k).__name__}")
            pairs.append([k, _encode(v, tensors, index, depth + 1)])
        return {"ordered_dict" if isinstance(obj, collections.OrderedDict) else "dict": pairs}
    if isinstance(obj, tuple):
        return {"tuple": [_encode(v, tensors, index, depth + 1) for v in obj]}
    if isinstance(obj, list):
        return [_encode(v, tensors, index, depth + 1) for v in obj]
    raise TypeError(f"ctorch.save: cannot save a {type(obj).__module__}.{type(obj).__qualname__}: ctorch saves "
                    "tensors, dicts, lists, tuples, strings, numbers, bools and None (what torch.load(weights_only=True) "
                    "reads). Save model.state_dict(), not the model")


def _decode(v, tensors):
    if isinstance(v, list):
        return [_decode(x, tensors) for x in v]
    if isinstance(v, dict):
        (tag, value), = v.items()
        if tag == "tensor":
            return tensors[value]
        if tag == "tuple":
            return tuple(_decode(x, tensors) for x in value)
        if tag == "dict":
            return {k: _decode(x, tensors) for k, x in value}
        if tag == "ordered_dict":
            return collections.OrderedDict((k, _decode(x, tensors)) for k, x in value)
        if tag == "float":
            return float(value)
        raise ValueError(f"ctorch.load: unknown tag {tag!r} in the library's structure")
    return v


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True):
    """Writes obj to f (a path or a binary file object) as torch.save does."""
    if pickle_module is not None:
        raise NotImplementedError("ctorch.save: pickle_module is not supported (ctorch writes the pickle itself)")
    if not _use_new_zipfile_serialization:
        raise NotImplementedError("ctorch.save: the legacy (pre-1.6) format is not written; torch.load reads the zip "
                                  "format ctorch writes")
    tensors, index = [], {}
    structure = json.dumps(_encode(obj, tensors, index), allow_nan=False)
    handles = [_handle(t) for t in tensors]
    if isinstance(f, (str, bytes, os.PathLike)):
        _C.ct_py_torch_save(os.fsdecode(f), structure, handles)
    else:
        f.write(_C.ct_py_torch_save(None, structure, handles))


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    """Reads a file torch.save (or ctorch.save) wrote, from a path or a binary file object."""
    if pickle_module is not None:
        raise NotImplementedError("ctorch.load: pickle_module is not supported (ctorch never runs a pickle's code)")
    if isinstance(f, (str, bytes, os.PathLike)):
        h = _C.ct_torch_load(os.fsdecode(f))
    else:
        h = _C.ct_py_torch_load_buffer(f.read())
    try:
        structure = _C.ct_torch_file_structure(h)
        tensors = [_wrap(_C.ct_torch_file_tensor(h, i)) for i in range(_C.ct_torch_file_num_tensors(h))]
    finally:
        _C.ct_torch_file_release(h)
    if map_location is not None:
        tensors = [_moved(t, map_location) for t in tensors]
    return _decode(json.loads(structure), tensors)


def _moved(t, map_location):
    if isinstance(map_location, dict):
        targets = set(map_location.values())
        if len(targets) != 1:
            raise NotImplementedError("ctorch.load: a map_location dict must map every location to one device")
        map_location = targets.pop()
    if callable(map_location) and not isinstance(map_location, str) and not hasattr(map_location, "type"):
        raise NotImplementedError("ctorch.load: a callable map_location is not supported; pass a device")
    return t.to(str(map_location))
