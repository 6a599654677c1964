"""torch's legacy tensor types: ctorch.Tensor(...) and ctorch.FloatTensor(...) as constructors,
isinstance(x, ctorch.LongTensor), and the type strings of Tensor.type() ('torch.FloatTensor').

The strings say "torch." as torch's do, so code comparing x.type() with a literal keeps working;
Tensor.type accepts "ctorch." too."""

import numbers

from . import _dtype as _d
from ._tensor import Size, Tensor

_NAMES = {_d.float32: "FloatTensor", _d.float64: "DoubleTensor", _d.float16: "HalfTensor",
          _d.bfloat16: "BFloat16Tensor", _d.int64: "LongTensor", _d.int32: "IntTensor", _d.int16: "ShortTensor",
          _d.int8: "CharTensor", _d.uint8: "ByteTensor", _d.bool: "BoolTensor"}
_BY_NAME = {name: dtype for dtype, name in _NAMES.items()}


def type_name(dtype, device):
    """'torch.FloatTensor', 'torch.cuda.LongTensor' ...: Tensor.type()'s answer."""
    where = "" if device.type == "cpu" else device.type + "."
    return f"torch.{where}{_NAMES[dtype]}"


def parse_type(t):
    """(dtype, device or None) for what Tensor.type accepts: a dtype, a legacy type, or its name."""
    if isinstance(t, _d.dtype):
        return t, None
    if isinstance(t, _LegacyType):
        return t.dtype, None
    if isinstance(t, str):
        parts = t.split(".")
        if len(parts) in (2, 3) and parts[0] in ("torch", "ctorch") and parts[-1] in _BY_NAME:
            return _BY_NAME[parts[-1]], (parts[1] if len(parts) == 3 else "cpu")
    raise ValueError(f"type: invalid type {t!r}; pass a dtype, a type such as ctorch.LongTensor, or its name "
                     "('torch.LongTensor')")


def construct(dtype, args, device=None):
    """What Tensor(...) and the legacy types build: no argument, an empty tensor; sizes (ints or a
    Size), an uninitialized tensor of them; data (a sequence or an array), a copy in dtype; a
    tensor of that dtype, a tensor sharing its storage."""
    from . import empty, tensor

    if not args:
        return empty(0, dtype=dtype, device=device)
    if len(args) == 1 and isinstance(args[0], Tensor):
        t = args[0]
        if t.dtype is not dtype:
            raise TypeError(f"expected {dtype} (got {t.dtype}): a legacy constructor does not convert; "
                            "use .to(dtype)")
        return t.detach()
    if all(isinstance(a, numbers.Integral) and not isinstance(a, bool) for a in args) or \
            (len(args) == 1 and isinstance(args[0], Size)):
        sizes = tuple(args[0]) if isinstance(args[0], Size) else tuple(int(a) for a in args)
        return empty(*sizes, dtype=dtype, device=device)
    if len(args) == 1:
        t = tensor(args[0], dtype=dtype)
        return t if device is None else t.to(device)
    raise TypeError(f"new(): pass sizes (ints), one sequence of data or one tensor, got {args!r}")


class _LegacyType(type):
    """The metaclass of FloatTensor and the others: calling one constructs, isinstance checks the
    dtype of a cpu tensor, as torch's legacy types do."""

    def __call__(cls, *args, device=None):
        return construct(cls.dtype, args, device)

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype and obj.device.type == "cpu"

    def __repr__(cls):
        return f"<class 'ctorch.{cls.__name__}'>"


def _legacy_type(dtype):
    return _LegacyType(_NAMES[dtype], (), {"dtype": dtype, "__module__": "ctorch",
                                           "__doc__": f"The legacy type of {dtype} cpu tensors."})


FloatTensor = _legacy_type(_d.float32)
DoubleTensor = _legacy_type(_d.float64)
HalfTensor = _legacy_type(_d.float16)
BFloat16Tensor = _legacy_type(_d.bfloat16)
LongTensor = _legacy_type(_d.int64)
IntTensor = _legacy_type(_d.int32)
ShortTensor = _legacy_type(_d.int16)
CharTensor = _legacy_type(_d.int8)
ByteTensor = _legacy_type(_d.uint8)
BoolTensor = _legacy_type(_d.bool)


def _tensor_new(cls, *args, device=None):
    """Tensor(...): the legacy constructor in the default dtype; a subclass gets the same tensor
    as an instance of itself."""
    t = construct(_d.get_default_dtype(), args, device)
    if cls is Tensor:
        return t
    from ._tensor import _new
    from . import _C

    obj = _new(cls)
    obj._h = _C.ct_tensor_detach(t._h)
    return obj
