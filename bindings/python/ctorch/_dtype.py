"""Element types: ctorch.float32 and friends, mirroring torch's dtype objects."""

from . import _C

__all__ = ["dtype", "memory_format", "contiguous_format", "preserve_format", "channels_last",
           "channels_last_3d", "bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
           "float64", "complex64", "complex128", "get_default_dtype", "set_default_dtype", "finfo", "iinfo"]


class dtype:
    """An element type. Compare with `is` or `==`; `code` is the C ABI's ct_dtype value."""

    __slots__ = ("code", "name", "itemsize", "is_floating_point", "is_signed", "is_complex")

    def __init__(self, code, name, is_floating_point, is_signed, is_complex=False):
        self.code = code
        self.name = name
        self.itemsize = _C.ct_dtype_itemsize(code)
        self.is_floating_point = is_floating_point
        self.is_signed = is_signed
        self.is_complex = is_complex

    def to_real(self):
        """The dtype of a complex dtype's parts (complex64 -> float32); any other dtype itself."""
        return {complex64: float32, complex128: float64}.get(self, self)

    def to_complex(self):
        """The complex dtype whose parts are this dtype (float64 -> complex128, float32 and the
        16-bit floats -> complex64); a complex dtype itself."""
        if self.is_complex:
            return self
        if not self.is_floating_point:
            raise RuntimeError(f"to_complex is only supported for floating point dtypes, got {self!r}")
        return complex128 if self is float64 else complex64

    def __repr__(self):
        return "ctorch." + self.name

    def __reduce__(self):
        return self.name


class layout:
    """A memory layout. ctorch's tensors are all strided (dense, with a stride per dim): torch's
    sparse and mkldnn layouts are left out."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "ctorch." + self.name

    def __reduce__(self):
        return self.name


strided = layout("strided")


class memory_format(int):
    """How clone, contiguous, is_contiguous and to lay out a tensor's elements, as torch's. Its int
    value is the number the clone operator's memory_format argument takes (Note [Memory formats]
    in src/ops/pointwise/copy.cpp)."""

    __slots__ = ()
    _names = ("contiguous_format", "preserve_format", "channels_last", "channels_last_3d")

    def __repr__(self):
        return "ctorch." + self._names[self]

    def __reduce__(self):
        return self._names[self]


contiguous_format = memory_format(0)
preserve_format = memory_format(1)
channels_last = memory_format(2)
channels_last_3d = memory_format(3)

_py_bool = bool
bool = dtype(_C.CT_BOOL, "bool", False, False)
uint8 = dtype(_C.CT_UINT8, "uint8", False, False)
int8 = dtype(_C.CT_INT8, "int8", False, True)
int16 = dtype(_C.CT_INT16, "int16", False, True)
int32 = dtype(_C.CT_INT32, "int32", False, True)
int64 = dtype(_C.CT_INT64, "int64", False, True)
float16 = dtype(_C.CT_FLOAT16, "float16", True, True)
bfloat16 = dtype(_C.CT_BFLOAT16, "bfloat16", True, True)
float32 = dtype(_C.CT_FLOAT32, "float32", True, True)
float64 = dtype(_C.CT_FLOAT64, "float64", True, True)
complex64 = dtype(_C.CT_COMPLEX64, "complex64", False, True, True)
complex128 = dtype(_C.CT_COMPLEX128, "complex128", False, True, True)

# torch's aliases
half, float, double, short, int, long = float16, float32, float64, int16, int32, int64
cfloat, cdouble = complex64, complex128

by_code = (bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64, complex64, complex128)

# numpy type strings (bfloat16 has none: numpy cannot hold it, as in torch)
numpy_typestr = {bool: "|b1", uint8: "|u1", int8: "|i1", int16: "<i2", int32: "<i4", int64: "<i8",
                 float16: "<f2", float32: "<f4", float64: "<f8", complex64: "<c8", complex128: "<c16"}


def get_default_dtype():
    """The dtype float data and factories default to (ctorch.float32 unless set_default_dtype)."""
    return by_code[_C.ct_get_default_dtype()]


def set_default_dtype(d):
    """Makes d (ctorch.float32 or ctorch.float64) the default floating dtype, process-wide: for
    factories, Python floats in tensor(), an integral tensor combined with a float, and floating
    operators on integral tensors, as torch.set_default_dtype."""
    if not isinstance(d, dtype):
        raise TypeError(f"set_default_dtype: expected a ctorch.dtype, got {type(d).__name__}")
    _C.ct_set_default_dtype(d.code)


def to_numpy_dtype(d):
    """The numpy dtype holding d's values (TypeError for bfloat16, which numpy has no type for)."""
    import numpy as np
    if d not in numpy_typestr:
        raise TypeError(f"{d} has no numpy dtype (numpy has no bfloat16); read the data as another dtype and convert")
    return np.dtype(numpy_typestr[d])


def from_numpy_dtype(np_dtype):
    for d, s in numpy_typestr.items():
        if s[1:] == np_dtype.str[1:] and (np_dtype.str[0] in "<|="):
            return d
    raise TypeError(f"can't convert np.ndarray of type {np_dtype}. The only supported types are: "
                    "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, and bool.")


# ---- finfo / iinfo: the limits of a dtype, as torch.finfo and torch.iinfo

# bits, eps, max, tiny (the smallest normal number), resolution (10 ** -decimal digits)
_FLOAT_LIMITS = {
    "float16": (16, 2.0 ** -10, 65504.0, 2.0 ** -14, 1e-3),
    "bfloat16": (16, 2.0 ** -7, 3.3895313892515355e+38, 2.0 ** -126, 1e-2),
    "float32": (32, 2.0 ** -23, 3.4028234663852886e+38, 2.0 ** -126, 1e-6),
    "float64": (64, 2.0 ** -52, 1.7976931348623157e+308, 2.0 ** -1022, 1e-15),
}


class finfo:
    """finfo(dtype=None): bits, eps, max, min, tiny (= smallest_normal) and resolution of a floating
    dtype (the default dtype when None)."""

    def __init__(self, type=None):
        type = get_default_dtype() if type is None else type
        if isinstance(type, dtype) and type.is_complex:
            type = type.to_real()  # a complex dtype's limits are its parts', as torch.finfo gives them
        if not isinstance(type, dtype) or not type.is_floating_point:
            raise TypeError(f"finfo: needs a floating dtype, got {type!r}. Use ctorch.iinfo for integer dtypes")
        self.bits, self.eps, self.max, self.tiny, self.resolution = _FLOAT_LIMITS[type.name]
        self.min = -self.max
        self.smallest_normal = self.tiny
        self.dtype = type.name

    def __eq__(self, other):
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __hash__(self):
        return hash(("finfo", self.dtype))

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """iinfo(dtype): bits, min and max of an integer dtype (bool has none, as in torch)."""

    def __init__(self, type):
        if not isinstance(type, dtype) or type.is_floating_point or type.is_complex or type is bool:
            raise TypeError(f"iinfo: needs an integer dtype other than bool, got {type!r}. "
                            "Use ctorch.finfo for floating dtypes")
        self.bits = 8 * type.itemsize
        self.min = -(1 << (self.bits - 1)) if type.is_signed else 0
        self.max = (1 << (self.bits - 1)) - 1 if type.is_signed else (1 << self.bits) - 1
        self.dtype = type.name

    def __eq__(self, other):
        return isinstance(other, iinfo) and other.dtype == self.dtype

    def __hash__(self):
        return hash(("iinfo", self.dtype))

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
