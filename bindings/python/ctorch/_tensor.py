"""Tensor: a Python object owning one reference to a ctorch tensor handle."""

import builtins
import math
import copy
import ctypes
import numbers
import sys
import threading
import weakref

from . import _C
from . import _dtype as _d
from . import _symbolic
from ._errors import DeviceError, DTypeError, Error, GraphBreakError, GuardError
from ._symbolic import SymInt

__all__ = ["Tensor", "Size", "device", "Node", "RemovableHandle"]

_new = object.__new__
_release = _C.ct_tensor_release
_op_call = _C.ct_py_op_call
# ctorch.export sets .export on its thread while it traces: item() of a traced tensor is then an
# unbacked SymInt, as in torch.export. Under ctorch.compile reading a traced tensor is a graph break.
_trace_mode = threading.local()


def _wrap(handle):
    t = _new(Tensor)
    t._h = handle
    return t


def _borrowed(handle):
    """A Tensor for a handle the library lends to a callback: it takes its own reference."""
    _C.ct_tensor_retain(handle)
    return _wrap(handle)


def _new_reference(t):
    """t's handle with one more reference, for the library to take over (a callback's result)."""
    _C.ct_tensor_retain(t._h)
    return t._h


def _is_traced(t):
    """Whether t is a tensor being traced (ctorch.compile, ctorch.export): reading its data fails."""
    try:
        _C.ct_tensor_data_ptr(t._h)
    except Error as e:
        return e.status == _C.CT_ERROR_GRAPH_BREAK
    return False


def _check_data_read(t):
    """Raises GraphBreakError when t is a tensor being traced (ctorch.compile, ctorch.export)."""
    try:
        _C.ct_tensor_data_ptr(t._h)
    except Error as e:
        if e.status == _C.CT_ERROR_GRAPH_BREAK:
            raise


def _sizes(size):
    """Factory sizes given as f(2, 3) or f((2, 3)), as a tuple or the original arguments."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return tuple(size[0])
    return size


def _handle(x):
    if isinstance(x, Tensor):
        return x._h
    raise TypeError(f"expected a ctorch.Tensor, got {type(x).__name__}")


def _is_number(x):
    return isinstance(x, numbers.Number) and not isinstance(x, Tensor)


class Size(tuple):
    """A tensor's sizes: a tuple that prints like torch.Size. A tensor with symbolic sizes has SymInts
    where its sizes are symbolic."""

    def __repr__(self):
        return f"ctorch.Size({list(self)})"

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n


class device:
    """Where a tensor lives, like torch.device: "cpu", "meta", "cuda:0", or a plugin's device
    ("counting:1"): a type plus an optional index."""

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            type, index = type.type, type.index
        elif ":" in type:
            type, idx = type.split(":")
            index = builtins.int(idx)
        self.type, self.index = type, index

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self):
        return f"device(type='{self.type}'" + ("" if self.index is None else f", index={self.index}") + ")"

    def __eq__(self, other):
        return str(self) == str(device(other) if isinstance(other, str) else other)

    def __hash__(self):
        return hash(str(self))

    # `with ctorch.device("meta"):` makes factories without a device use this one, on this thread.
    def __enter__(self):
        _C.ct_device_push(str(self))
        return self

    def __exit__(self, *exc):
        _C.ct_device_pop()
        return False


def _device_of(kind, index):
    """The device a (ct_device_type, index) pair names; plugin types answer their registered name."""
    return device(_C.ct_device_type_name(kind), None if index < 0 else index)


def _binary(tensor_fn, scalar_fn):
    ft, fs = getattr(_C, tensor_fn), getattr(_C, scalar_fn) if scalar_fn else None

    def op(self, other):
        if type(other) is Tensor:
            return _wrap(ft(self._h, other._h))
        if isinstance(other, Tensor):
            return _wrap(ft(self._h, other._h))
        if isinstance(other, complex):  # a complex number takes part as a wrapped complex128 tensor
            return _wrap(ft(self._h, _C.ct_tensor_complex_scalar(other.real, other.imag)))
        if fs is not None and _is_number(other):
            return _wrap(fs(self._h, other))
        stand_in = _symbolic_operand(self, other)
        if stand_in is not None:
            return _wrap(ft(self._h, stand_in._h))
        return NotImplemented

    return op


def _symbolic_operand(self, other):
    """A symbolic number (SymInt, SymFloat, SymBool) beside a meta tensor, as a 0-dim meta tensor of
    its kind: meta tensors hold no values, so only the dtype matters (loss / x.size(0) in traced
    shape code). None for anything else; on a device with data a symbolic number has no value."""
    kinds = {_symbolic.SymInt: _d.int64, _symbolic.SymFloat: None, _symbolic.SymBool: _d.bool}
    if type(other) not in kinds or self.device.type != "meta":
        return None
    if _is_traced(self):
        # A traced function (ctorch.compile, ctorch.export) needs the value, x / x.shape[0]: a SymInt
        # becomes a 0-dim int64 tensor the graph computes (the sum of `other` ones, one element
        # expanded), so it stays symbolic; a SymFloat or SymBool is made concrete (a guard).
        if type(other) is _symbolic.SymInt:
            return full((1,), 1).expand(other).sum()
        return full((), builtins.float(other) if type(other) is _symbolic.SymFloat else builtins.bool(other))
    kind = kinds[type(other)] or _d.by_code[_C.ct_get_default_dtype()]
    return _wrap(_C.ct_tensor_empty([], kind.code, "meta"))


def _inplace(tensor_fn, scalar_fn):
    ft, fs = getattr(_C, tensor_fn), getattr(_C, scalar_fn)

    def op(self, other):
        if isinstance(other, Tensor):
            ft(self._h, other._h)
        elif isinstance(other, complex):
            ft(self._h, _C.ct_tensor_complex_scalar(other.real, other.imag))
        elif _is_number(other):
            fs(self._h, other)
        else:
            return NotImplemented
        return self

    return op


def _unary(fn):
    f = getattr(_C, fn)

    def op(self):
        return _wrap(f(self._h))

    op.__name__ = op.__qualname__ = fn.replace("ct_tensor_", "")  # "erfinv() takes 1 positional argument ..."
    return op


def _dims(dims):
    """Accepts f(2, 3) and f((2, 3)) alike, as torch does."""
    if len(dims) == 1 and isinstance(dims[0], (tuple, list, Size)):
        return tuple(dims[0])
    return dims


def _dim_list(dim):
    if type(dim) is builtins.int:  # the common case, before the slower checks
        return (dim,)
    if dim is None:
        return ()
    if isinstance(dim, numbers.Integral):
        return (builtins.int(dim),)
    return tuple(dim)


class Tensor:
    """A multi-dimensional array on a device, with PyTorch's semantics (see ctorch.h)."""

    __slots__ = ("_h", "__weakref__")

    def __new__(cls, *args, device=None):
        """The legacy constructor, as torch.Tensor(...): Tensor() is empty, Tensor(2, 3) uninitialized
        of those sizes, Tensor([1, 2]) a copy of the data in the default dtype (ctorch._legacy)."""
        from . import _legacy

        return _legacy._tensor_new(cls, *args, device=device)

    def __init__(self, *args, **kwargs):  # __new__ built it
        pass

    def __del__(self):
        h = getattr(self, "_h", None)
        if h is not None and _release is not None:
            _release(h)

    # ---- properties ----
    @property
    def shape(self):
        return Size(_C.ct_py_dims(self._h, 0))

    def size(self, dim=None):
        if dim is None:
            return Size(_C.ct_py_dims(self._h, 0))
        try:
            return _C.ct_tensor_size(self._h, dim)
        except GuardError:  # symbolic sizes (ct_tensor_is_symbolic): the plain accessor refuses them
            pass
        return _symbolic._sym_size(self._h, dim)

    def stride(self, dim=None):
        s = _C.ct_py_dims(self._h, 1)
        if dim is None:
            return s
        n = len(s)
        if not -n <= dim < builtins.max(n, 1):
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
        return s[dim]

    @property
    def dtype(self):
        return _d.by_code[_C.ct_tensor_dtype(self._h)]

    @property
    def device(self):
        return _device_of(*_C.ct_tensor_device(self._h))

    @property
    def ndim(self):
        return _C.ct_tensor_ndim(self._h)

    def dim(self):
        return _C.ct_tensor_ndim(self._h)

    def numel(self):
        try:
            return _C.ct_tensor_numel(self._h)
        except GuardError:  # symbolic sizes
            pass
        return _symbolic._sym_numel(self._h)

    def is_contiguous(self, memory_format=_d.contiguous_format):
        """Row-major (the default), or laid out as channels_last (4-D) or channels_last_3d (5-D)
        ask for: channels vary fastest, as torch checks it (dims of size 1 match any stride)."""
        if memory_format == _d.contiguous_format:
            return builtins.bool(_C.ct_tensor_is_contiguous(self._h))
        if memory_format not in (_d.channels_last, _d.channels_last_3d):
            raise RuntimeError(f"is_contiguous: memory_format {memory_format!r} is not a layout to check. Pass "
                               "ctorch.contiguous_format, ctorch.channels_last or ctorch.channels_last_3d")
        rank = 4 if memory_format == _d.channels_last else 5
        if self.dim() != rank:
            return False
        sizes, strides, expected = self.shape, self.stride(), 1
        for d in [1, *range(rank - 1, 1, -1), 0]:
            if sizes[d] != 1:
                if strides[d] != expected:
                    return False
                expected *= sizes[d]
        return True

    def pin_memory(self):
        """A copy in page-locked host memory, which CUDA copies without staging (needs CUDA)."""
        return _wrap(_C.ct_tensor_pin_memory(self._h))

    def is_pinned(self):
        return builtins.bool(_C.ct_tensor_is_pinned(self._h))

    def storage_offset(self):
        return _C.ct_tensor_storage_offset(self._h)

    def data_ptr(self):
        return _C.ct_tensor_data_ptr(self._h)

    def element_size(self):
        return self.dtype.itemsize

    @property
    def is_meta(self):
        return self.device.type == "meta"

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self.select(0, i) for i in range(self.shape[0]))

    # ---- values out ----
    def item(self):
        """The value of a one-element tensor. For a symbolic meta tensor (one computed from symbolic
        sizes), and for a traced integer tensor while ctorch.export traces, an unbacked SymInt u<k>:
        the value it will hold when the program runs. Under ctorch.compile it is a graph break."""
        if self.dtype.is_complex and self.device.type != "meta":
            return builtins.complex(*_C.ct_tensor_item_complex(self._h))
        try:
            return _C.ct_tensor_item(self._h)
        except Error as e:
            if self.device.type != "meta" or (e.status == _C.CT_ERROR_GRAPH_BREAK and
                                              not getattr(_trace_mode, "export", False)):
                raise
            no_value = e
        try:
            return _symbolic._sym_item(self._h)
        except (DeviceError, DTypeError):  # a meta tensor outside any ShapeEnv, or a float one
            raise no_value from None

    def __bool__(self):
        return builtins.bool(self.item())

    def __float__(self):
        return builtins.float(self.item())

    def __complex__(self):
        return builtins.complex(self.item())

    def __int__(self):
        return builtins.int(self.item())

    def __index__(self):
        if self.dtype.is_floating_point or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return builtins.int(self.item())

    def tolist(self):
        if self.ndim == 0:
            return self.item()
        src = self if self.device.type in ("cpu", "meta") else self.cpu()
        src = src.to(_d.float32) if src.dtype is _d.bfloat16 else src
        return src.numpy().tolist()

    def numpy(self):
        """A numpy array sharing this tensor's memory (cpu tensors; bfloat16 has no numpy dtype)."""
        import numpy as np

        if self.device.type != "cpu":
            if self.device.type == "meta":
                _check_data_read(self)  # a traced tensor: a graph break, as item() and printing
            raise TypeError(f"can't convert {self.device} tensor to numpy. Copy it to the cpu first.")
        typestr = _d.numpy_typestr.get(self.dtype)
        if typestr is None:
            raise TypeError(f"Got unsupported ScalarType {self.dtype.name}: numpy has no bfloat16. Use .to(float32).")
        item = self.dtype.itemsize
        read_only = builtins.bool(_C.ct_tensor_is_read_only(self._h))  # the array stays read-only too
        return np.asarray(_ArrayView(self, {
            "shape": tuple(self.shape), "typestr": typestr, "data": (self.data_ptr(), read_only),
            "strides": tuple(s * item for s in self.stride()), "version": 3}))

    def __array__(self, dtype=None):
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)

    # ---- DLPack: zero-copy exchange with numpy, torch and others ----
    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        if copy:
            return self.clone().__dlpack__(max_version=max_version)
        versioned = max_version is not None and tuple(max_version) >= (1, 0)
        return _C.ct_py_to_dlpack(self._h, 1 if versioned else 0)

    def __dlpack_device__(self):
        d = self.device
        if d.type == "cuda":
            return (2, d.index or 0)  # kDLCUDA
        if d.type != "cpu":
            raise BufferError(f"__dlpack_device__: ctorch exports cpu and cuda tensors, this one is on {d}")
        return (1, 0)  # kDLCPU, device 0

    def __repr__(self):
        try:
            return _C.ct_tensor_to_string(self._h)
        except GuardError:  # symbolic sizes: the meta tensor's summary, with them as expressions
            pass
        dtype = "" if self.dtype is _d.get_default_dtype() else f", dtype=ctorch.{self.dtype.name}"
        return f"tensor(..., device='{self.device}', size={tuple(self.shape)}{dtype})"

    __str__ = __repr__

    # ---- arithmetic ----
    __add__ = _binary("ct_tensor_add", "ct_tensor_add_scalar")
    __radd__ = __add__
    __sub__ = _binary("ct_tensor_sub", "ct_tensor_sub_scalar")
    __mul__ = _binary("ct_tensor_mul", "ct_tensor_mul_scalar")
    __rmul__ = __mul__
    __truediv__ = _binary("ct_tensor_div", "ct_tensor_div_scalar")
    __pow__ = _binary("ct_tensor_pow", "ct_tensor_pow_scalar")
    __matmul__ = _binary("ct_tensor_matmul", None)
    __eq__ = _binary("ct_tensor_eq", "ct_tensor_eq_scalar")
    __ne__ = _binary("ct_tensor_ne", "ct_tensor_ne_scalar")
    __lt__ = _binary("ct_tensor_lt", "ct_tensor_lt_scalar")
    __le__ = _binary("ct_tensor_le", "ct_tensor_le_scalar")
    __gt__ = _binary("ct_tensor_gt", "ct_tensor_gt_scalar")
    __ge__ = _binary("ct_tensor_ge", "ct_tensor_ge_scalar")
    __hash__ = object.__hash__
    __iadd__ = _inplace("ct_tensor_add_", "ct_tensor_add_scalar_")
    __isub__ = _inplace("ct_tensor_sub_", "ct_tensor_sub_scalar_")
    __imul__ = _inplace("ct_tensor_mul_", "ct_tensor_mul_scalar_")
    __itruediv__ = _inplace("ct_tensor_div_", "ct_tensor_div_scalar_")
    __neg__ = _unary("ct_tensor_neg")
    __abs__ = _unary("ct_tensor_abs")

    def __rsub__(self, other):
        if isinstance(other, complex):
            return _wrap(_C.ct_tensor_sub(_C.ct_tensor_complex_scalar(other.real, other.imag), self._h))
        if not _is_number(other):
            return NotImplemented
        return _call("rsub", self, other)

    def __rpow__(self, other):
        if not _is_number(other):
            return NotImplemented
        # A 0-dim tensor promotes like the number in these cases. A float64 exponent gets a float64
        # base: the gradient takes the base's log, which a float32 base would round.
        return full((), other, dtype=_d.float64 if self.dtype is _d.float64 else None, device=self.device) ** self

    def __rtruediv__(self, other):
        if isinstance(other, complex) or (_is_number(other) and self.dtype.is_complex):
            z = builtins.complex(other)
            return _wrap(_C.ct_tensor_div(_C.ct_tensor_complex_scalar(z.real, z.imag), self._h))
        if not _is_number(other):
            return NotImplemented
        return self.reciprocal() * other

    def add(self, other, alpha=1):
        if alpha == 1:
            return self + other
        return _call("add.Tensor" if isinstance(other, Tensor) else "add.Scalar", self, other, alpha=alpha)

    def sub(self, other, alpha=1):
        if alpha == 1:
            return self - other
        return _call("sub.Tensor" if isinstance(other, Tensor) else "sub.Scalar", self, other, alpha=alpha)

    def mul(self, other):
        return self * other

    def div(self, other):
        return self / other

    def pow(self, exponent):
        return self ** exponent

    def add_(self, other, alpha=1):
        if alpha == 1:
            return self.__iadd__(other)
        _call("add_.Tensor" if isinstance(other, Tensor) else "add_.Scalar", self, other, alpha=alpha)
        return self

    def sub_(self, other, alpha=1):
        if alpha == 1:
            return self.__isub__(other)
        _call("sub_.Tensor" if isinstance(other, Tensor) else "sub_.Scalar", self, other, alpha=alpha)
        return self

    def mul_(self, other):
        return self.__imul__(other)

    def div_(self, other):
        return self.__itruediv__(other)

    def maximum(self, other):
        return _wrap(_C.ct_tensor_maximum(self._h, _handle(other)))

    def minimum(self, other):
        return _wrap(_C.ct_tensor_minimum(self._h, _handle(other)))

    eq = __eq__
    ne = __ne__
    lt = __lt__
    le = __le__
    gt = __gt__
    ge = __ge__
    neg = __neg__
    abs = __abs__
    exp = _unary("ct_tensor_exp")
    log = _unary("ct_tensor_log")
    sqrt = _unary("ct_tensor_sqrt")
    rsqrt = _unary("ct_tensor_rsqrt")
    sin = _unary("ct_tensor_sin")
    cos = _unary("ct_tensor_cos")
    tanh = _unary("ct_tensor_tanh")
    sigmoid = _unary("ct_tensor_sigmoid")
    relu = _unary("ct_tensor_relu")
    # ctorch.h's typed unary math family: no registry lookup or boxing (x.erfinv() was a boxed call).
    exp2 = _unary("ct_tensor_exp2")
    expm1 = _unary("ct_tensor_expm1")
    log1p = _unary("ct_tensor_log1p")
    log2 = _unary("ct_tensor_log2")
    log10 = _unary("ct_tensor_log10")
    tan = _unary("ct_tensor_tan")
    asin = _unary("ct_tensor_asin")
    acos = _unary("ct_tensor_acos")
    atan = _unary("ct_tensor_atan")
    sinh = _unary("ct_tensor_sinh")
    cosh = _unary("ct_tensor_cosh")
    asinh = _unary("ct_tensor_asinh")
    acosh = _unary("ct_tensor_acosh")
    atanh = _unary("ct_tensor_atanh")
    erf = _unary("ct_tensor_erf")
    erfc = _unary("ct_tensor_erfc")
    erfinv = _unary("ct_tensor_erfinv")
    reciprocal = _unary("ct_tensor_reciprocal")

    def clamp(self, min=None, max=None):
        return _wrap(_C.ct_tensor_clamp(self._h, min, max))

    clip = clamp

    def clip_(self, min=None, max=None):
        return self.clamp_(min, max)

    def where(self, condition, other):
        return where(condition, self, other)

    # ---- conversion ----
    def to(self, *args, dtype=None, device=None, non_blocking=False, copy=False):
        """to(dtype), to(device), to(device, dtype), to(other) or keywords, as torch.Tensor.to.
        Returns self when nothing changes and copy is false. non_blocking is accepted; every
        move completes before it returns."""
        for a in args:
            if isinstance(a, Tensor):
                device, dtype = a.device, a.dtype
            elif isinstance(a, (str, globals()["device"])):  # the class, shadowed by the parameter here
                device = a
            else:
                dtype = a
        out = self
        if device is not None:
            target = globals()["device"](device)
            here = self.device
            if target.type != here.type or (target.index or 0) != (here.index or 0):
                out = _wrap(_C.ct_tensor_to_device(self._h, str(target)))
        if dtype is not None:
            out = out if dtype is out.dtype else _wrap(_C.ct_tensor_to(out._h, dtype.code))
        return out.clone() if copy and out is self else out

    def cpu(self):
        return self.to("cpu")

    def cuda(self, device=None):
        return self.to("cuda" if device is None else f"cuda:{device}" if isinstance(device, builtins.int) else device)

    @property
    def is_cuda(self):
        return self.device.type == "cuda"

    def float(self):
        return self.to(_d.float32)

    def double(self):
        return self.to(_d.float64)

    def half(self):
        return self.to(_d.float16)

    def int(self):
        return self.to(_d.int32)

    def long(self):
        return self.to(_d.int64)

    def bool(self):
        return self.to(_d.bool)

    def bfloat16(self):
        return self.to(_d.bfloat16)

    def cfloat(self):
        return self.to(_d.complex64)

    def cdouble(self):
        return self.to(_d.complex128)

    def byte(self):
        return self.to(_d.uint8)

    def char(self):
        return self.to(_d.int8)

    def short(self):
        return self.to(_d.int16)

    def type(self, dtype=None, non_blocking=False):
        """Without dtype, torch's type string ('torch.FloatTensor', 'torch.cuda.LongTensor');
        with one (a dtype, a legacy type such as ctorch.LongTensor, or its string), a copy of that
        dtype (self when it already has it), on the device the string names."""
        from . import _legacy

        if dtype is None:
            return _legacy.type_name(self.dtype, self.device)
        dtype, device_ = _legacy.parse_type(dtype)
        return self.to(dtype=dtype, device=device_)

    def type_as(self, other):
        """self in other's dtype and on its device (self when they already match)."""
        return self.to(dtype=other.dtype, device=other.device)

    def is_floating_point(self):
        return self.dtype.is_floating_point

    def is_signed(self):
        return self.dtype.is_signed

    def is_complex(self):
        return self.dtype.is_complex

    def is_conj(self):
        return False  # conj is eager: no tensor carries torch's lazy conjugate bit

    def is_neg(self):
        return False  # nor its lazy negation bit

    def resolve_neg(self):
        return self

    @property
    def real(self):
        """The real parts: a view for a complex tensor, the tensor itself for a real one."""
        return _call("real", self)

    @property
    def imag(self):
        """The imaginary parts of a complex tensor, a view (a real tensor raises, as in torch)."""
        return _call("imag", self)

    @property
    def is_cpu(self):
        return self.device.type == "cpu"

    @property
    def layout(self):
        from ._dtype import strided
        return strided  # every ctorch tensor is dense and strided

    def dense_dim(self):
        """The number of dense dims: all of them (ctorch has no sparse tensors)."""
        return self.dim()

    def is_distributed(self):
        return False

    def as_subclass(self, cls):
        """This tensor (the same storage and autograd history) as an instance of cls, a Tensor subclass."""
        if not (isinstance(cls, type) and issubclass(cls, Tensor)):
            raise TypeError(f"as_subclass: cls must be a subclass of ctorch.Tensor, got {cls!r}")
        t = _new(cls)
        _C.ct_tensor_retain(self._h)
        t._h = self._h
        return t

    @property
    def volatile(self):
        """Removed in torch 0.4 (use no_grad): always False, with torch's warning."""
        import warnings
        warnings.warn("volatile was removed (Variable.volatile is always False)", stacklevel=2)
        return False

    def reinforce(self, reward):
        """Removed (as in torch): raises, saying what to write instead."""
        raise RuntimeError("reinforce() was removed: sample the action from its probabilities (multinomial), and "
                           "backpropagate -log(probs[action]) * reward as the loss")

    def ndimension(self):
        return self.dim()

    def nelement(self):
        return self.numel()

    def is_same_size(self, other):
        return self.shape == other.shape

    def is_set_to(self, tensor):
        """Whether both view the same memory with the same sizes and strides."""
        return (self.data_ptr() == tensor.data_ptr() and self.shape == tensor.shape and
                self.stride() == tensor.stride() and self.dtype is tensor.dtype and self.device == tensor.device)

    def new(self, *args, **kwargs):
        """The legacy constructor in self's dtype and device: new(2, 3) uninitialized, new(data), new()."""
        if len(args) == 1 and not isinstance(args[0], (builtins.int, Size)) and not (
                isinstance(args[0], tuple) and all(isinstance(a, builtins.int) for a in args[0])):
            return self.new_tensor(args[0], **kwargs)
        return self.new_empty(*args, **kwargs) if args else self.new_empty(0, **kwargs)

    def sum_to_size(self, *size):
        """The sum over the dims that broadcasting size to self's shape expands, down to size."""
        if len(size) == 1 and isinstance(size[0], (tuple, list, Size)):
            size = tuple(size[0])
        lead = self.dim() - len(size)
        if lead < 0 or any(s != 1 and s != self.shape[lead + i] for i, s in enumerate(size)):
            from ._errors import ShapeError
            raise ShapeError(_C.CT_ERROR_SHAPE, f"size {list(size)} is not expandable to size {list(self.shape)}.")
        out = self.sum(list(builtins.range(lead))) if lead else self
        dims = [i for i, s in enumerate(size) if s == 1 and out.shape[i] != 1]
        return out.sum(dims, keepdim=True) if dims else out

    def narrow_copy(self, dim, start, length):
        return self.narrow(dim, start, length).clone()

    def unsafe_chunk(self, chunks, dim=0):
        return self.chunk(chunks, dim)

    def unsafe_split(self, split_size, dim=0):
        return self.split(split_size, dim)

    def unsafe_split_with_sizes(self, split_sizes, dim=0):
        return self.split_with_sizes(split_sizes, dim)

    def fill_diagonal_(self, fill_value, wrap=False):
        """Fills the main diagonal (all dims of one size, or a matrix; wrap=True restarts it below a
        tall matrix every cols + 1 rows, as torch does) in place."""
        from ._errors import ShapeError
        if self.dim() < 2 or (self.dim() > 2 and len(set(self.shape)) != 1):
            raise ShapeError(_C.CT_ERROR_SHAPE, "all dimensions of input must be of equal length" if self.dim() > 2
                             else "dimensions must larger than 1")
        from . import arange, zeros
        n = min(self.shape)
        if self.dim() == 2 and wrap and self.shape[0] > self.shape[1]:  # restarts every cols + 1 rows
            flat = arange(0, self.shape[0] * self.shape[1], self.shape[1] + 1)
        else:  # element i of the diagonal is i * (the sum of the contiguous strides) in the flat order
            step = builtins.sum(builtins.int(math.prod(self.shape[k + 1:])) for k in builtins.range(self.dim()))
            flat = arange(0, n) * step
        if flat.numel() == 0:
            return self
        mask = zeros(self.numel(), dtype=_d.bool).index_fill(0, flat, True).reshape(self.shape)
        return self.masked_fill_(mask, fill_value)

    def is_nonzero(self):
        """The truth of a one-element tensor (torch raises for none or several)."""
        n = self.numel()
        if n != 1:
            from ._errors import InvalidArgumentError
            raise InvalidArgumentError(_C.CT_ERROR_INVALID_ARGUMENT, "Boolean value of Tensor with "
                                       f"{'no values' if n == 0 else 'more than one value'} is ambiguous")
        return builtins.bool(self.item())

    def get_device(self):
        """The device index: -1 on the cpu (and meta), as torch answers."""
        index = self.device.index
        return -1 if self.device.type != "cuda" or index is None else index

    def positive(self):
        """self (torch.positive returns its input), refused for bool as torch refuses it."""
        if self.dtype.name == "bool":
            from ._errors import DTypeError
            raise DTypeError(_C.CT_ERROR_DTYPE, "The `+` operator, on a bool tensor is not supported.")
        return self

    def conj(self):
        """The complex conjugate: a new tensor for complex dtypes (eager, so is_conj() stays False);
        self for real ones, as torch returns."""
        return _call("conj", self)

    def adjoint(self):
        """The conjugate transpose of the last two dims: their transpose (a view) for real dtypes."""
        if self.dim() < 2:
            from ._errors import ShapeError
            raise ShapeError(_C.CT_ERROR_SHAPE, "tensor.adjoint() is only supported on matrices or batches of "
                             f"matrices. Got {self.dim()}-D tensor.")
        return self.transpose(-2, -1).conj()

    @property
    def mT(self):
        """The transpose of the last two dims (a view)."""
        if self.dim() < 2:
            from ._errors import ShapeError
            raise ShapeError(_C.CT_ERROR_SHAPE, f"tensor.mT is only supported on matrices or batches of matrices. "
                             f"Got {self.dim()}-D tensor.")
        return self.transpose(-2, -1)

    @property
    def mH(self):
        """The conjugate transpose of the last two dims: mT for real dtypes (a view)."""
        return self.mT.conj()

    @property
    def H(self):
        """The conjugate transpose of a matrix (a 0-dim tensor is its own)."""
        if self.dim() not in (0, 2):
            from ._errors import ShapeError
            raise ShapeError(_C.CT_ERROR_SHAPE, f"tensor.H is only supported on matrices (2-D tensors). Got "
                             f"{self.dim()}-D tensor.")
        return (self.t() if self.dim() == 2 else self).conj()

    # ---- new tensors with self's dtype and device (torch's new_* methods) ----
    def _new_like(self, dtype, device_):
        return (self.dtype if dtype is None else dtype), (self.device if device_ is None else device_)

    def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
        from . import empty

        dtype, device = self._new_like(dtype, device)
        return empty(*_dims(size), dtype=dtype, device=device, requires_grad=requires_grad)

    def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
        from . import zeros

        dtype, device = self._new_like(dtype, device)
        return zeros(*_dims(size), dtype=dtype, device=device, requires_grad=requires_grad)

    def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
        from . import ones

        dtype, device = self._new_like(dtype, device)
        return ones(*_dims(size), dtype=dtype, device=device, requires_grad=requires_grad)

    def new_full(self, size, fill_value, dtype=None, device=None, requires_grad=False):
        dtype, device = self._new_like(dtype, device)
        return full(size, fill_value, dtype=dtype, device=device, requires_grad=requires_grad)

    def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
        """A copy of data (a new leaf) in self's dtype and on its device unless given, as torch."""
        from . import tensor

        dtype, device = self._new_like(dtype, device)
        return tensor(data, dtype=dtype, requires_grad=requires_grad).to(device)

    def contiguous(self, memory_format=_d.contiguous_format):
        """self when already laid out as memory_format asks, else a copy laid out so."""
        if memory_format == _d.contiguous_format:
            return _wrap(_C.ct_tensor_contiguous(self._h))
        if memory_format == _d.preserve_format:
            raise RuntimeError("contiguous: preserve_format is not a layout to make. Pass ctorch.contiguous_format, "
                               "ctorch.channels_last or ctorch.channels_last_3d")
        return self if self.is_contiguous(memory_format=memory_format) else self.clone(memory_format=memory_format)

    def clone(self, *, memory_format=_d.preserve_format):
        """A copy that shares nothing with self. preserve_format (torch's default) keeps self's
        strides when they cover its elements once with no gaps (a permuted tensor's clone is then a
        plain copy of memory), else the copy is row-major (Note [Memory formats])."""
        # A row-major tensor keeps its layout through the typed, cheaper call; with a size-1 dim its
        # strides there may differ from row-major ones, which preserve_format keeps as they are.
        h = self._h
        if memory_format is _d.contiguous_format or (
                memory_format is _d.preserve_format and _C.ct_tensor_is_contiguous(h) and 1 not in _C.ct_py_dims(h, 0)):
            return _wrap(_C.ct_tensor_clone(h))
        return _call("clone", self, memory_format=builtins.int(memory_format))

    def copy_(self, src):
        _call("copy_", self, src)
        return self

    # ---- shapes and views ----
    # Sizes given as SymInts are refused by the typed C functions (TypeError): those calls go through
    # the boxed operator, which takes them as CT_VALUE_SYMINTS. Plain ints never pay for the check.
    def view(self, *shape):
        shape = _dims(shape)
        try:
            return _wrap(_C.ct_tensor_view(self._h, shape))
        except TypeError:
            if not _symbolic._has_symint(shape):
                raise
        return _call("view", self, list(shape))

    def reshape(self, *shape):
        shape = _dims(shape)
        try:
            return _wrap(_C.ct_tensor_reshape(self._h, shape))
        except TypeError:
            if not _symbolic._has_symint(shape):
                raise
        return _call("reshape", self, list(shape))

    def permute(self, *dims):
        return _wrap(_C.ct_tensor_permute(self._h, _dims(dims)))

    def transpose(self, dim0, dim1):
        return _wrap(_C.ct_tensor_transpose(self._h, dim0, dim1))

    def t(self):
        if self.ndim > 2:
            raise ValueError(f"t() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
        return self if self.ndim < 2 else self.transpose(0, 1)

    @property
    def T(self):
        return self.permute(*reversed(range(self.ndim)))

    def expand(self, *sizes):
        sizes = _dims(sizes)
        try:
            return _wrap(_C.ct_tensor_expand(self._h, sizes))
        except TypeError:
            if not _symbolic._has_symint(sizes):
                raise
        return _call("expand", self, list(sizes))

    def expand_as(self, other):
        return self.expand(other.shape)

    def view_as(self, other):
        return self.view(other.shape)

    def reshape_as(self, other):
        return self.reshape(other.shape)

    def squeeze(self, dim=None):
        if dim is None:
            return _wrap(_C.ct_tensor_squeeze(self._h))
        return _wrap(_C.ct_tensor_squeeze_dim(self._h, dim))

    def unsqueeze(self, dim):
        return _wrap(_C.ct_tensor_unsqueeze(self._h, dim))

    def narrow(self, dim, start, length):
        try:
            return _wrap(_C.ct_tensor_narrow(self._h, dim, start, length))
        except TypeError:
            if not _symbolic._has_symint((start, length)):
                raise
        return _call("narrow", self, dim, start, length)

    def select(self, dim, index):
        try:
            return _wrap(_C.ct_tensor_select(self._h, dim, index))
        except TypeError:
            if type(index) is not SymInt:
                raise
        return _call("select", self, dim, index)

    def flatten(self, start_dim=0, end_dim=-1):
        return _wrap(_C.ct_tensor_flatten(self._h, start_dim, end_dim))

    # ---- reductions ----
    def sum(self, dim=None, keepdim=False):
        return _wrap(_C.ct_tensor_sum(self._h, _dim_list(dim), builtins.int(keepdim)))

    def mean(self, dim=None, keepdim=False):
        return _wrap(_C.ct_tensor_mean(self._h, _dim_list(dim), builtins.int(keepdim)))

    def prod(self, dim=None, keepdim=False):
        return _wrap(_C.ct_tensor_prod(self._h, _dim_list(dim), builtins.int(keepdim)))

    def amax(self, dim=(), keepdim=False):
        return _wrap(_C.ct_tensor_amax(self._h, _dim_list(dim), builtins.int(keepdim)))

    def amin(self, dim=(), keepdim=False):
        return _wrap(_C.ct_tensor_amin(self._h, _dim_list(dim), builtins.int(keepdim)))

    def argmax(self, dim=None, keepdim=False):
        return _wrap(_C.ct_tensor_argmax(self._h, dim, builtins.int(keepdim)))

    def argmin(self, dim=None, keepdim=False):
        return _wrap(_C.ct_tensor_argmin(self._h, dim, builtins.int(keepdim)))

    # ---- matrix products ----
    def matmul(self, other):
        return _wrap(_C.ct_tensor_matmul(self._h, _handle(other)))

    def mm(self, other):
        return _wrap(_C.ct_tensor_mm(self._h, _handle(other)))

    def bmm(self, other):
        return _wrap(_C.ct_tensor_bmm(self._h, _handle(other)))

    def addmm(self, mat1, mat2, beta=1, alpha=1):
        return _wrap(_C.ct_tensor_addmm(self._h, _handle(mat1), _handle(mat2), beta, alpha))

    # ---- autograd ----
    @property
    def requires_grad(self):
        return builtins.bool(_C.ct_tensor_requires_grad(self._h))

    @requires_grad.setter
    def requires_grad(self, requires_grad):
        _C.ct_tensor_set_requires_grad(self._h, builtins.int(builtins.bool(requires_grad)))

    def requires_grad_(self, requires_grad=True):
        self.requires_grad = requires_grad
        return self

    @property
    def is_leaf(self):
        return builtins.bool(_C.ct_tensor_is_leaf(self._h))

    @property
    def grad(self):
        """The gradient backward accumulated here; None until then (non-leaves: see retain_grad)."""
        h = _C.ct_tensor_grad(self._h)
        return _wrap(h) if h else None

    @grad.setter
    def grad(self, grad):
        _C.ct_tensor_set_grad(self._h, None if grad is None else _handle(grad))

    @grad.deleter
    def grad(self):
        _C.ct_tensor_set_grad(self._h, None)

    @property
    def grad_fn(self):
        """The operation that made this tensor (a Node), or None for a leaf."""
        name = _C.ct_tensor_grad_fn_name(self._h)
        return None if name is None else Node(name)

    def retain_grad(self):
        _C.ct_tensor_retain_grad(self._h)

    @property
    def retains_grad(self):
        """Whether retain_grad() was called on this non-leaf tensor."""
        return builtins.bool(_C.ct_tensor_retains_grad(self._h))

    @property
    def output_nr(self):
        """Which result of the operator that made this tensor it is (0 for a leaf)."""
        return _C.ct_tensor_output_nr(self._h)

    def detach(self):
        return _wrap(_C.ct_tensor_detach(self._h))

    @property
    def data(self):
        """A tensor sharing this one's storage, outside autograd (requires_grad False), as torch's
        .data: changing it in place changes this tensor without a trace in the graph."""
        return self.detach()

    @data.setter
    def data(self, value):
        """Makes this tensor share value's storage, sizes and dtype, keeping its requires_grad, as
        torch's `p.data = t` (an object holding this tensor sees the new data). Its grad is kept when
        it still fits the new sizes and dtype, and dropped otherwise (torch keeps a misfit one)."""
        if not isinstance(value, Tensor):
            raise TypeError(f"data: expected a Tensor, got {type(value).__name__}")
        requires_grad, grad = self.requires_grad, self.grad
        old, self._h = self._h, _C.ct_tensor_detach(value._h)
        _release(old)
        if requires_grad:
            _C.ct_tensor_set_requires_grad(self._h, 1)
        if grad is not None and grad.shape == self.shape and grad.dtype is self.dtype:
            self.grad = grad

    def __format__(self, format_spec):
        """A 0-dim tensor formats as its number (f"{loss:.4f}"); any other only with an empty spec,
        as torch."""
        if self.dim() == 0 and not self.is_meta:
            return self.item().__format__(format_spec)
        return object.__format__(self, format_spec)

    def is_inference(self):
        return builtins.bool(_C.ct_tensor_is_inference(self._h))

    def backward(self, gradient=None, retain_graph=None, create_graph=False):
        from . import autograd  # imported here: autograd imports this module

        autograd.backward(self, gradient, retain_graph, create_graph)

    def register_hook(self, hook):
        """Runs hook(grad) each time a gradient for this tensor is computed; a Tensor it returns
        replaces the gradient. An exception it raises stops backward and comes out of it as is."""
        def call(handle):
            result = hook(_borrowed(handle))
            if result is None:
                return None
            if not isinstance(result, Tensor):
                raise TypeError(f"register_hook: the hook returned a value of type {type(result).__name__}. "
                                "Return a Tensor to replace the gradient, or None to keep it")
            return _new_reference(result)

        return RemovableHandle(self, _C.ct_py_register_hook(self._h, call))

    def register_post_accumulate_grad_hook(self, hook):
        """Runs hook(self) on this leaf after each backward has added its gradient into self.grad
        (torch 2.1's name); the hook reads or replaces self.grad and returns None. An exception it
        raises stops backward and comes out of it as is."""
        # Weak: the library keeps the callable as long as the leaf, and a strong reference to self
        # would make a cycle through C that Python's collector cannot see.
        ref = weakref.ref(self)

        def call(handle):
            t = ref()
            result = hook(t if t is not None else _borrowed(handle))
            if result is not None:
                raise RuntimeError("register_post_accumulate_grad_hook: the hook returned a value of type "
                                   f"{type(result).__name__}. Post accumulate grad hooks should return None; "
                                   "set the tensor's .grad instead")

        return RemovableHandle(self, _C.ct_py_register_post_accumulate_grad_hook(self._h, call))

    def __getattr__(self, name):
        """Every built-in operator that takes a tensor `self` first is a method too (x.erfinv(),
        x.topk(3)), through the boxed call; the hand-written methods above are the fast paths."""
        from . import ops  # imported here: ops imports this module

        if not name.startswith("_") and ops.is_method(name):
            # Resolved once and kept on the class (ops.method): later lookups never come here. An
            # in-place one returns self, as torch's do, not a second wrapper.
            m = ops.method(name)
            setattr(Tensor, name, m)
            return m.__get__(self)
        raise AttributeError(f"'Tensor' object has no attribute '{name}'")

    # ---- copy.copy, copy.deepcopy and pickle (see "Copies and pickles" below) ----
    def __copy__(self):
        """copy.copy: a new tensor object sharing this one's storage, as torch's: a leaf with the same
        requires_grad and no grad, owning its own handle (ct_tensor_detach)."""
        new = _new(type(self))
        new._h = _C.ct_tensor_detach(self._h)
        if _C.ct_tensor_requires_grad(self._h):
            _C.ct_tensor_set_requires_grad(new._h, 1)
        if hasattr(self, "__dict__"):  # a subclass's attributes
            new.__dict__.update(self.__dict__)
        return new

    def __deepcopy__(self, memo):
        """copy.deepcopy: a new leaf with its own storage (contiguous), the same dtype, device and
        requires_grad, and a deep copy of grad when there is one, as torch's. The memo maps each
        tensor object once, but views of one base become independent copies (torch would share one
        copied storage between them). Non-leaf tensors refuse, as torch's."""
        if not _C.ct_tensor_is_leaf(self._h):
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                               "protocol at the moment. Use t.detach().clone() to copy a tensor computed by an "
                               "operator")
        _refuse_traced(self, "copy.deepcopy")
        new = _new(type(self))
        detached = _C.ct_tensor_detach(self._h)
        try:
            new._h = _C.ct_tensor_clone(detached)  # of the detached tensor: a leaf whatever the grad mode
        finally:
            _release(detached)
        memo[id(self)] = new
        if _C.ct_tensor_requires_grad(self._h):
            _C.ct_tensor_set_requires_grad(new._h, 1)
        grad = self.grad
        if grad is not None:
            new.grad = copy.deepcopy(grad, memo)
        if hasattr(self, "__dict__"):
            new.__dict__.update(copy.deepcopy(self.__dict__, memo))
        return new

    def __reduce_ex__(self, protocol):
        """pickle: the values as bytes with dtype, sizes, device and requires_grad (not grad, as in
        torch); _rebuild_tensor makes a new tensor of this class from them, in any process."""
        _refuse_traced(self, "pickle")
        sizes = self.shape
        if _symbolic._has_symint(sizes):
            raise TypeError(f"cannot pickle a tensor with symbolic sizes {sizes}: SymInts belong to a ShapeEnv of "
                            "this process. Pickle a tensor with concrete sizes")
        dev = self.device
        data = None
        if dev.type != "meta":  # a meta tensor has sizes and a dtype only
            data = _tensor_bytes(self)
        state = getattr(self, "__dict__", None) or None  # a subclass's attributes
        return (_rebuild_tensor,
                (type(self), _PICKLE_VERSION, self.dtype, tuple(sizes), str(dev),
                 builtins.bool(_C.ct_tensor_requires_grad(self._h)), data, sys.byteorder), state)

    # ---- indexing: ints, slices, None and Ellipsis give views; tensors and lists index (a copy) ----
    # Basic indices (ints, slices, None, ...) and index tensors take _basic_index, in C (Note [Python
    # fast paths] in ctorch.i); it answers None for anything else, and _apply_basic applies it here.
    def __getitem__(self, index):
        t = _basic_index(self, index)
        if t is not None:
            return t
        t, tensors, dims = _apply_basic(self, index)
        if tensors:
            return _call("index", t, tensors, dims)
        return t if t is not self else _wrap(_C.ct_tensor_view(self._h, self.shape))

    def __setitem__(self, index, value):
        if _basic_setitem(self, index, value):  # basic indices, a number or a tensor: in C
            return
        t, tensors, dims = _apply_basic(self, index)
        if isinstance(value, complex):  # no complex number kind in C: a 0-dim complex tensor, for complex t only
            if not t.dtype.is_complex:
                raise RuntimeError(f"value cannot be converted to type {t.dtype} without overflow")
            value = _wrap(_C.ct_tensor_complex_scalar(value.real, value.imag)).to(t.dtype)
        elif not isinstance(value, Tensor):
            value = full((), value, dtype=t.dtype)
        elif value.dtype is not t.dtype:
            value = value.to(t.dtype)
        if tensors:
            _call("index_put_", t, tensors, value, False, dims)
        else:
            if t is self:
                t = _wrap(_C.ct_tensor_view(self._h, self.shape))
            t.copy_(value)


_C.ct_py_set_tensor_type(Tensor, _d.dtype)
_basic_index = _C.ct_py_index
_basic_setitem = _C.ct_py_setitem


# ---- Copies and pickles ----
# Every Tensor object owns exactly one reference to its handle (its __del__ releases it), so copying
# the object (copy, deepcopy and pickle's default for __slots__ classes) must never copy the handle:
# copy.copy takes a new handle sharing the storage (ct_tensor_detach), copy.deepcopy clones the
# values, and pickle writes the values as bytes, which _rebuild_tensor reads back in any process.

_PICKLE_VERSION = 1


def _refuse_traced(t, what):
    """A tensor being traced (ctorch.compile, ctorch.export) has no values to copy: a graph break, as
    reading its data is (ctorch.compile then runs the function eagerly; export fails)."""
    if _is_traced(t):
        raise GraphBreakError(_C.CT_ERROR_GRAPH_BREAK,
                              f"{what}: the tensor is being traced by ctorch.compile or ctorch.export and has no "
                              "values to copy. Use t.clone() inside a traced function")


def _tensor_bytes(t):
    """t's elements as bytes, row-major, native byte order (copied to the cpu first)."""
    src = _wrap(_C.ct_tensor_detach(t._h))
    if src.device.type != "cpu":
        src = src.to("cpu")
    src = src.contiguous()
    n = src.numel() * src.dtype.itemsize
    return ctypes.string_at(src.data_ptr(), n) if n else b""


def _rebuild_tensor(cls, version, dtype, sizes, device_, requires_grad, data, byteorder):
    """A tensor from Tensor.__reduce_ex__'s fields: a new leaf of class cls with its own storage."""
    if version != _PICKLE_VERSION:
        raise ValueError(f"cannot unpickle a ctorch tensor of format version {version}: this ctorch reads "
                         f"version {_PICKLE_VERSION}. Load it with the ctorch that saved it")
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError(f"cannot unpickle a ctorch tensor as {cls!r}: not a ctorch.Tensor class")
    numel = 1
    for s in sizes:
        numel *= s
    if data is None or numel == 0:
        h = _C.ct_tensor_empty(sizes, dtype.code, device_ if data is None else "cpu")
    else:
        if byteorder != sys.byteorder and dtype.itemsize > 1:
            raise ValueError(f"cannot unpickle a ctorch tensor saved on a {byteorder}-endian machine on this "
                             f"{sys.byteorder}-endian one")
        if len(data) != numel * dtype.itemsize:
            raise ValueError(f"cannot unpickle a ctorch tensor: {len(data)} bytes of data for {numel} elements of "
                             f"{dtype.name}")
        # A view of the bytes (their item size is what the library checks), then a copy of its own.
        view = _wrap(_C.ct_py_from_buffer(memoryview(data).cast(_ITEM_FORMAT[dtype.itemsize]), dtype.code))
        view = view.reshape(sizes)  # kept in a name: a temporary's handle would be released before the call
        h = _C.ct_tensor_clone(view._h)
    t = _new(cls)
    t._h = h
    if data is not None and device_ != "cpu":
        moved = _C.ct_tensor_to_device(h, device_)
        t._h = moved
        _release(h)
    if requires_grad:
        _C.ct_tensor_set_requires_grad(t._h, 1)
    return t


_ITEM_FORMAT = {1: "B", 2: "H", 4: "I", 8: "Q"}


class Node:
    """A tensor's grad_fn: the recorded operation that made it, which backward runs in reverse."""

    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def name(self):
        """The node's name, as ctorch calls it: "MulBackward", "MyFunctionBackward"."""
        return self._name

    def __repr__(self):
        return f"<{self._name} object at {id(self):#x}>"


class RemovableHandle:
    """What register_hook returns: remove() takes the hook off again (idempotent, also with `with`)."""

    __slots__ = ("_tensor", "id")

    def __init__(self, tensor, hook_id):
        # A weak reference, as torch's handle: holding a hook's handle must not keep the tensor (and
        # through its grad_fn the whole graph) alive. The C ABI removes a hook through its tensor, so
        # remove() acts while this Tensor object lives; after that the hook goes with its graph.
        self._tensor = weakref.ref(tensor)
        self.id = hook_id

    def __copy__(self, memo=None):
        """A copy would be a second handle on one registration, and removing through both would ask
        the library to remove the hook twice: the copy is this handle."""
        return self

    __deepcopy__ = __copy__

    def __reduce_ex__(self, protocol):
        raise TypeError("cannot pickle a RemovableHandle (register_hook): it stands for a hook of this process; "
                        "register the hook again after loading")

    def remove(self):
        tensor = self._tensor() if self._tensor is not None else None
        self._tensor = None
        if tensor is not None:
            _C.ct_tensor_remove_hook(tensor._h, self.id)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class _ArrayView:
    """What numpy sees: the array interface, plus the tensor it keeps alive."""

    __slots__ = ("__array_interface__", "tensor")

    def __init__(self, tensor, interface):
        self.tensor = tensor
        self.__array_interface__ = interface


def _index_tensor(i):
    """An index given as a list, tuple or numpy array becomes a tensor, as torch does (an empty list
    is an empty int64 index, not a float32 tensor)."""
    if isinstance(i, Tensor):
        return i
    from . import tensor  # imported here: the package imports this module

    t = tensor(i)
    if t.numel() == 0 and t.dtype.is_floating_point and isinstance(i, (list, tuple)):
        t = t.to(_d.int64)
    return t


def _is_advanced(i):
    return isinstance(i, (Tensor, list)) or type(i).__module__ == "numpy"


def _apply_basic(self, index):
    """Applies ints, slices, None and Ellipsis as views; returns (view, index tensors, the dims of the
    view they index). Integer indices select (as torch: they are not advanced indices)."""
    if not isinstance(index, tuple):
        index = (index,)
    index = tuple(_index_tensor(i) if _is_advanced(i) else i for i in index)
    consumed = 0
    for i in index:
        if i is None or i is Ellipsis:
            continue
        if isinstance(i, builtins.bool):
            raise TypeError("ctorch indexing does not support a Python bool index; use a bool tensor")
        consumed += i.ndim if isinstance(i, Tensor) and i.dtype in (_d.bool, _d.uint8) else 1
    if builtins.any(isinstance(i, Tensor) and i.ndim == 0 and i.dtype in (_d.bool, _d.uint8) for i in index):
        raise IndexError("ctorch indexing does not support a 0-dim bool index; unsqueeze the tensor instead")
    if consumed > self.ndim:
        raise IndexError(f"too many indices for tensor of dimension {self.ndim}")
    t, dim, expanded = self, 0, False
    tensors, dims = [], []
    for i in index:
        if i is None:
            t = t.unsqueeze(dim)
            dim += 1
        elif i is Ellipsis:  # as in torch, only the first ... stands for the remaining dims
            dim += 0 if expanded else self.ndim - consumed
            expanded = True
        elif isinstance(i, slice):
            if i.step is not None and i.step <= 0:
                raise ValueError("step must be greater than zero")
            if not (i.start is None and i.stop is None and i.step is None):
                t = _call("slice", t, dim, i.start, i.stop, 1 if i.step is None else i.step)
            dim += 1
        elif isinstance(i, Tensor) and i.ndim == 0 and i.dtype not in (_d.bool, _d.uint8) and not i.is_meta:
            t = t.select(dim, builtins.int(i))  # a 0-dim integer tensor acts as an int, as in torch
        elif isinstance(i, Tensor):
            tensors.append(i)
            dims.append(dim)
            dim += i.ndim if i.dtype in (_d.bool, _d.uint8) else 1
        elif isinstance(i, numbers.Integral):
            t = t.select(dim, builtins.int(i))
        elif type(i) is SymInt:
            t = t.select(dim, i)
        else:
            raise TypeError(f"ctorch indexing supports ints, SymInts, slices, None, ..., tensors and lists, "
                            f"got {type(i).__name__}")
    return t, tensors, dims


_op_functions = {}  # operator name -> ops.function(name), for _call


def _call(name, *args, **kwargs):
    fn = _op_functions.get(name)
    if fn is None:
        from . import ops  # imported here: ops imports this module

        fn = _op_functions[name] = ops.function(name)
    return fn(*args, **kwargs)


def full(size, fill_value, dtype=None, device=None, requires_grad=False):
    if isinstance(size, numbers.Integral):
        size = (size,)
    if dtype is None:
        dtype = (_d.bool if isinstance(fill_value, builtins.bool)
                 else _d.int64 if isinstance(fill_value, numbers.Integral) else _d.get_default_dtype())
    size = tuple(size)
    try:
        t = _wrap(_C.ct_tensor_full(size, fill_value, dtype.code, None if device is None else str(device)))
    except TypeError:
        if not _symbolic._has_symint(size):
            raise
        t = _symbolic_factory("full", size, dtype, device, fill_value)
    return t.requires_grad_() if requires_grad else t


def _symbolic_factory(name, size, dtype, device_, fill_value=None):
    """A factory called with SymInt sizes, through the boxed operator (CT_VALUE_SYMINTS): a symbolic
    meta tensor on meta; other devices refuse symbolic sizes (DeviceError)."""
    args = (list(size),) if fill_value is None else (list(size), fill_value)
    return _call(name, *args, dtype=dtype, device=None if device_ is None else str(device_))


def where(condition, input, other):
    # The Tensors stay referenced here until the call returns: a number's 0-dim tensor has no other owner.
    # A number goes on the device of the tensors beside it (where(c, x, 0.0) on the meta device). Traced
    # tensors are meta stand-ins for another device: there the number stays a constant of the trace.
    device = next((t.device for t in (input, other, condition) if isinstance(t, Tensor) and not _is_traced(t)),
                  None)
    input, other = _as_tensor(input, device), _as_tensor(other, device)
    return _wrap(_C.ct_tensor_where(_handle(condition), input._h, other._h))


def _as_tensor(x, device=None):
    if isinstance(x, Tensor):
        return x
    if _is_number(x):  # a 0-dim int64/float32/bool tensor: promotes like the number in nearly all cases
        return full((), x, device=device)
    raise TypeError(f"expected a Tensor or a number, got {type(x).__name__}")
