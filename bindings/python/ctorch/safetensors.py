"""ctorch.safetensors: checkpoints in the safetensors format, with safetensors.torch's functions
(ctorch.h, "Checkpoints: safetensors files"; docs/checkpoints.md).

    ctorch.save_file({"weight": w, "bias": b}, "model.safetensors", metadata={"step": "100"})
    state = ctorch.load_file("model.safetensors")          # {"weight": Tensor, "bias": Tensor}
    with ctorch.safetensors.safe_open("model.safetensors", framework="pt") as f:
        print(f.keys(), f.metadata())
        w = f.get_tensor("weight")                           # reads only this tensor's pages

Files written here open with safetensors.torch.load_file, and theirs open here. Loading maps the file
and validates its whole header first: a malformed or hostile file raises ctorch.FormatError (a
ValueError) naming the field and byte offset. Loaded tensors are CPU tensors viewing the mapping
without a copy (pages are read when touched); they stay valid after the file is closed, and writing
into them in place never changes the file.
"""

import json
import os

from . import _C
from ._errors import DTypeError, FileError, FormatError, refuse_copies
from ._tensor import Tensor, _wrap

__all__ = ["save_file", "load_file", "save", "load", "safe_open", "FileError", "FormatError", "DTypeError"]

_FRAMEWORKS = ("pt", "torch", "ctorch")


def _flatten(tensors, metadata, what):
    if not isinstance(tensors, dict):
        raise TypeError(f"{what}: expected a dict of str -> Tensor, got {type(tensors).__name__}")
    names, handles = [], []
    for name, t in tensors.items():
        if not isinstance(name, str):
            raise TypeError(f"{what}: tensor names must be str, got {name!r}")
        if not isinstance(t, Tensor):
            raise TypeError(f"{what}: the value for {name!r} must be a ctorch.Tensor, got {type(t).__name__}")
        names.append(name)
        handles.append(t._h)
    if metadata is None:
        return names, handles, None
    if not isinstance(metadata, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
        raise TypeError(f"{what}: metadata must be a dict of str -> str, got {metadata!r}")
    return names, handles, json.dumps(metadata, ensure_ascii=False)


def save_file(tensors, filename, metadata=None):
    """Writes tensors (a dict of name -> Tensor) to filename as safetensors, replacing it atomically
    (a temporary file, synced, renamed). metadata: an optional dict of str -> str stored in the header.
    Tensors on other devices are copied to the host; views are written contiguous. Tensors that share
    memory are each written in full (safetensors.torch refuses them; ctorch has no aliasing to keep)."""
    names, handles, meta = _flatten(tensors, metadata, "save_file")
    _C.ct_py_checkpoint_save(os.fspath(filename), names, handles, meta)


def save(tensors, metadata=None):
    """The bytes save_file would write, as bytes."""
    names, handles, meta = _flatten(tensors, metadata, "save")
    return _C.ct_py_checkpoint_save(None, names, handles, meta)


class safe_open:
    """An opened checkpoint, as safetensors.safe_open: keys(), get_tensor(name), metadata(). Use it
    in a with block, or call close(); tensors it returned stay valid after closing."""

    __slots__ = ("_h", "_device", "__weakref__")

    def __init__(self, filename, framework="pt", device="cpu"):
        if framework not in _FRAMEWORKS:
            raise ValueError(f"safe_open: framework must be one of {_FRAMEWORKS} (ctorch tensors), got {framework!r}")
        self._h = None
        self._device = device
        self._h = _C.ct_checkpoint_open(os.fspath(filename))

    @classmethod
    def _from_bytes(cls, data, device="cpu"):
        f = object.__new__(cls)
        f._h = None
        f._device = device
        f._h = _C.ct_py_checkpoint_open_buffer(data)
        return f

    def _handle(self):
        if self._h is None:
            raise ValueError("safe_open: the checkpoint is closed")
        return self._h

    def keys(self):
        """The tensor names, in the order of their data in the file."""
        h = self._handle()
        return [_C.ct_checkpoint_name(h, i) for i in range(_C.ct_checkpoint_num_tensors(h))]

    def get_tensor(self, name):
        """The tensor called name (on the device given to safe_open). KeyError when there is none;
        ctorch.DTypeError for a dtype ctorch does not have (U16, U32, U64, C64, 8-bit floats...)."""
        if not isinstance(name, str):
            raise TypeError(f"get_tensor: the name must be str, got {type(name).__name__}")
        h = self._handle()
        if "\0" in name:
            raise KeyError(name)
        try:
            t = _wrap(_C.ct_checkpoint_get(h, name))
        except IndexError:
            raise KeyError(name) from None
        return t if self._device in (None, "cpu") else t.to(self._device)

    def metadata(self):
        """The header's "__metadata__" as a dict of str -> str, or None when it has none."""
        return json.loads(_C.ct_checkpoint_metadata_json(self._handle()))

    def close(self):
        h, self._h = getattr(self, "_h", None), None  # None when __init__ failed
        if h is not None and _C.ct_checkpoint_release is not None:
            _C.ct_checkpoint_release(h)

    __del__ = close

    __copy__, __deepcopy__, __reduce_ex__ = refuse_copies(
        "ctorch.safetensors.safe_open",
        "open the file again, or read its tensors with get_tensor() (tensors can be copied)")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def _load_all(f):
    with f:
        return {name: f.get_tensor(name) for name in f.keys()}


def load_file(filename, device="cpu"):
    """Every tensor of a safetensors file, as a dict of name -> Tensor in file order (on device)."""
    return _load_all(safe_open(filename, device=device))


def load(data):
    """Every tensor of safetensors bytes (bytes-like), as a dict of name -> Tensor. The bytes are copied."""
    return _load_all(safe_open._from_bytes(data))
