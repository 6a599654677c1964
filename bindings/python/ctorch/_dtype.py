"""Element types: ctorch.float32 and friends, mirroring torch's dtype objects."""

from . import _C

__all__ = ["dtype", "bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
           "float64", "get_default_dtype", "set_default_dtype"]


class dtype:
    """An element type. Compare with `is` or `==`; `code` is the C ABI's ct_dtype value."""

    __slots__ = ("code", "name", "itemsize", "is_floating_point", "is_signed")

    def __init__(self, code, name, is_floating_point, is_signed):
        self.code = code
        self.name = name
        self.itemsize = _C.ct_dtype_itemsize(code)
        self.is_floating_point = is_floating_point
        self.is_signed = is_signed

    def __repr__(self):
        return "ctorch." + self.name

    def __reduce__(self):
        return self.name


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

# torch's aliases
half, float, double, short, int, long = float16, float32, float64, int16, int32, int64

by_code = (bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64)

# numpy type strings (bfloat16 has none: numpy cannot hold it, as in torch)
numpy_typestr = {bool: "|b1", uint8: "|u1", int8: "|i1", int16: "<i2", int32: "<i4", int64: "<i8",
                 float16: "<f2", float32: "<f4", float64: "<f8"}


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


def from_numpy_dtype(np_dtype):
    for d, s in numpy_typestr.items():
        if s[1:] == np_dtype.str[1:] and (np_dtype.str[0] in "<|="):
            return d
    raise TypeError(f"can't convert np.ndarray of type {np_dtype}. The only supported types are: "
                    "float64, float32, float16, int64, int32, int16, int8, uint8, and bool.")
