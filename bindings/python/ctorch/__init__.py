"""ctorch: PyTorch's tensors and operators over the ctorch C library.

Code written for torch runs with `import ctorch as torch` for the subset ctorch has: the same
names, signatures, broadcasting, type promotion and printing. Errors are ctorch.Error subclasses
that are also the builtin exceptions torch raises (RuntimeError, TypeError, IndexError, ValueError).
"""

import builtins as _builtins
import json as _json
import os as _os
import numbers as _numbers

from . import _C
from . import autograd
from . import ops
from . import nn
from . import optim
from . import _ops_reduce
from ._ops_reduce import allclose, equal, norm, unique, unique_consecutive
from . import profiler
from . import cuda
from . import amp, backends, compiler, jit, onnx
from .amp import autocast


# torch's autocast state functions: the calling thread's switches (ctorch.amp).
def is_autocast_enabled(device_type="cuda"):
    return amp.is_enabled(device_type)


def set_autocast_enabled(*args):
    """set_autocast_enabled(enabled) for cuda, or (device_type, enabled) as torch 2.4 takes."""
    device_type, enabled = args if len(args) == 2 else ("cuda", args[0])
    amp.set_enabled(enabled, device_type)


def is_autocast_cpu_enabled():
    return amp.is_enabled("cpu")


def set_autocast_cpu_enabled(enabled):
    amp.set_enabled(enabled, "cpu")


def get_autocast_dtype(device_type):
    return amp.get_dtype(device_type)


def get_autocast_gpu_dtype():
    return amp.get_dtype("cuda")


def set_autocast_gpu_dtype(dtype):
    amp.set_dtype(dtype, "cuda")


def get_autocast_cpu_dtype():
    return amp.get_dtype("cpu")


def set_autocast_cpu_dtype(dtype):
    amp.set_dtype(dtype, "cpu")


is_autocast_cache_enabled = amp.is_cache_enabled
set_autocast_cache_enabled = amp.set_cache_enabled
clear_autocast_cache = amp.clear_cache
autocast_increment_nesting = amp.increment_nesting
autocast_decrement_nesting = amp.decrement_nesting
from . import fft, linalg, special
from . import _ops_pointwise  # noqa: F401  (Tensor's ~ & | ^ << >> % //)
from ._dtype import (bfloat16, bool, cdouble, cfloat, channels_last, channels_last_3d, complex64, complex128,
                     contiguous_format, double, dtype, finfo, float, float16, float32, float64, get_default_dtype, half,
                     iinfo, int, int8, int16, int32, int64, layout, long, memory_format, preserve_format,
                     set_default_dtype, short, strided, uint8)
from ._legacy import (BFloat16Tensor, BoolTensor, ByteTensor, CharTensor, DoubleTensor, FloatTensor, HalfTensor,
                      IntTensor, LongTensor, ShortTensor)
from ._errors import (BackendError, DeviceError, DTypeError, Error, FileError, FormatError, GraphBreakError, GuardError,
                      IndexError, InternalError, InvalidArgumentError, LinAlgError, OutOfMemoryError, RecompileLimitError,
                      ShapeError)
from ._logging import get_log_level, set_log_level
from ._tensor import Size, Tensor, _handle, _sizes as _size, _symbolic_factory, _wrap, device, full, where
from ._symbolic import (ShapeEnv, SymBool, SymFloat, SymInt, sym_float, sym_int, sym_ite, sym_max, sym_min, sym_not,
                        sym_sum)
from .autograd import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad,
                       set_grad_enabled)
from . import _dtype as _d
from ._ops_linalg_conv import cdist, einsum, tensordot
from ._ops_index import nonzero
from ._random import (Generator, bernoulli, binomial, default_generator, dropout, get_rng_state, initial_seed,
                      manual_seed, multinomial, poisson, rand, rand_like, randint, randint_like, randn, randn_like,
                      randperm, seed, set_rng_state)
from ._ops_shape import (atleast_1d, atleast_2d, atleast_3d, block_diag, broadcast_shapes, broadcast_tensors,
                         cartesian_prod, chunk, dsplit, hsplit, meshgrid, split, split_with_sizes, tensor_split,
                         unbind, vsplit)
from . import _ops_shape
from . import _symbolic
from ._compile import compile
from . import export
from . import safetensors
from . import distributed  # torch.distributed is there after `import torch` too
from .safetensors import load_file, save_file
from .serialization import load, save
from ._runtime import (are_deterministic_algorithms_enabled, get_default_device, get_deterministic_debug_mode,
                       get_float32_matmul_precision, is_anomaly_check_nan_enabled, is_anomaly_enabled,
                       is_deterministic_algorithms_warn_only_enabled, is_distributed, is_warn_always_enabled,
                       set_anomaly_enabled, set_default_device, set_deterministic_debug_mode,
                       set_float32_matmul_precision, set_flush_denormal, set_printoptions, set_warn_always, to_dlpack,
                       use_deterministic_algorithms)

__version__ = _C.ct_version()
# Library messages become warnings.warn / logging.getLogger("ctorch") records (ctorch._logging);
# installed before ct_init, so what plugin loading says reaches Python too.
from . import _logging
_logging._install()
_C.ct_init(_C.CT_ABI_VERSION)
_ops_shape._install()
from . import _inplace  # noqa: E402
_inplace._install()
from . import _inplace_views  # noqa: E402
_inplace_views._install()
# An allocation that fails runs gc.collect() and is retried: tensors kept only by reference cycles
# are freed first (ct_set_memory_pressure_handler).
_C.ct_py_install_gc_on_memory_pressure()

__all__ = ["Tensor", "Size", "device", "dtype", "Error", "tensor", "as_tensor", "from_numpy", "from_dlpack", "zeros", "ones",
           "empty", "full", "arange", "linspace", "eye", "zeros_like", "ones_like", "empty_like", "full_like",
           "cat", "stack", "where", "matmul", "mm", "bmm", "addmm", "is_tensor", "numel", "get_num_threads",
           "set_num_threads", "autograd", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
           "is_grad_enabled", "is_inference_mode_enabled", "get_default_dtype", "set_default_dtype",
           "Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state",
           "rand", "randn", "randint", "randperm", "rand_like", "randn_like", "randint_like", "bernoulli",
           "multinomial", "poisson", "binomial", "dropout", "use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
           "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode",
           "get_deterministic_debug_mode", "set_default_device", "get_default_device",
           "set_float32_matmul_precision", "get_float32_matmul_precision", "set_printoptions", "set_warn_always",
           "is_warn_always_enabled", "set_anomaly_enabled", "is_anomaly_enabled", "is_anomaly_check_nan_enabled",
           "set_flush_denormal", "to_dlpack", "is_distributed", "profiler", "metrics", "metric",
           "set_log_level", "get_log_level", "ShapeEnv", "SymInt", "SymFloat", "SymBool", "sym_max", "sym_min",
           "sym_sum", "sym_ite", "sym_not", "sym_int", "sym_float", "GuardError", "compile", "export",
           "GraphBreakError", "RecompileLimitError", "FileError", "FormatError"]


def _device_arg(device_):
    return None if device_ is None else str(device_)


# ---- creation ----

def _flatten(data, shape, flat, depth=0):
    if isinstance(data, (list, tuple)):
        if len(shape) <= depth:
            shape.append(len(data))
        elif shape[depth] != len(data):
            raise ValueError(f"expected sequence of length {shape[depth]} at dim {depth} (got {len(data)})")
        for x in data:
            _flatten(x, shape, flat, depth + 1)
    elif isinstance(data, Tensor):
        _flatten(data.tolist(), shape, flat, depth)
    else:
        if len(shape) != depth:
            raise ValueError("tensor: nested sequences must all have the same depth")
        flat.append(data)


def _requires_grad(t, requires_grad):
    return t.requires_grad_() if requires_grad else t


def tensor(data, dtype=None, device=None, requires_grad=False):
    """A new tensor holding a copy of data (nested lists, numbers, numpy arrays or tensors); a new
    leaf, so it never shares a tensor argument's history."""
    if isinstance(data, Tensor):
        t = data.detach().clone()
        return _requires_grad(t if dtype is None else t.to(dtype), requires_grad)
    if type(data).__module__ == "numpy":
        t = from_numpy(data).clone()
        return _requires_grad(t if dtype is None else t.to(dtype), requires_grad)
    import array

    shape, flat = [], []
    _flatten(data, shape, flat)
    has_complex = _builtins.any(isinstance(x, _builtins.complex) for x in flat)
    if dtype is None:
        if all(isinstance(x, _builtins.bool) for x in flat) and flat:
            dtype = bool
        elif all(isinstance(x, _numbers.Integral) for x in flat) and flat:
            dtype = int64
        elif has_complex:
            dtype = get_default_dtype().to_complex()  # complex64 unless the default dtype is float64
        else:
            dtype = get_default_dtype()
    if has_complex or dtype.is_complex:
        # Staged as (real, imaginary) float64 pairs, read as complex128 (view_as_complex), converted.
        pairs = []
        for x in flat:
            z = _builtins.complex(x)
            pairs += (z.real, z.imag)
        staged = _wrap(_C.ct_py_from_buffer(array.array("d", pairs), float64.code)).reshape([len(flat), 2])
        t = staged.view_as_complex().reshape(shape)
        t = t.clone() if dtype is complex128 else t.to(dtype)
        if device is not None and str(device) != "cpu":
            raise NotImplementedError(f"tensor: creating tensors on {device} from data needs a backend for it")
        return _requires_grad(t, requires_grad)
    # Stage as bool, int64 or float64 (what Python numbers hold exactly), then convert.
    code, staged = {bool: ("B", bool), int64: ("q", int64)}.get(dtype, ("d", float64))
    try:
        buf = array.array(code, [(1 if x else 0) if code == "B" else x for x in flat])  # bool bytes are 0 or 1
    except TypeError as e:
        raise TypeError(f"tensor: could not convert the data to {dtype}: {e}") from None
    t = _wrap(_C.ct_py_from_buffer(buf, staged.code)).reshape(shape)  # a view of buf
    t = t.clone() if staged is dtype else t.to(dtype)
    if device is not None and str(device) != "cpu":
        raise NotImplementedError(f"tensor: creating tensors on {device} from data needs a backend for it")
    return _requires_grad(t, requires_grad)


def as_tensor(data, dtype=None):
    return data if isinstance(data, Tensor) and (dtype is None or data.dtype is dtype) else tensor(data, dtype)


def from_numpy(array):
    """A tensor sharing the numpy array's memory (writes through either are seen by both).

    A read-only array (``a.flags.writeable`` False: np.frombuffer over bytes, a read-only memmap)
    gives a read-only tensor: it reads like any other, and every write to it or a view of it
    (in-place operators, copy_, optimizer steps) raises ctorch.InvalidArgumentError; clone it to
    get a writable copy. (torch warns and then writes into the read-only memory.) A bool array
    must hold bytes 0 and 1 only; an unaligned array is refused (copy it first)."""
    return _wrap(_C.ct_py_from_buffer(array, _d.from_numpy_dtype(array.dtype).code))


def _dlpack_capsule(ext, **kw):
    try:
        return ext.__dlpack__(max_version=(1, 0), **kw)
    except TypeError:  # producers from before DLPack 1.0 take no max_version
        return ext.__dlpack__(**kw)


def from_dlpack(ext):
    """A tensor sharing the memory of an object with __dlpack__ (numpy, torch ...) or of a capsule."""
    if not hasattr(ext, "__dlpack__"):
        return _wrap(_C.ct_py_from_dlpack(ext))
    if not (hasattr(ext, "__dlpack_device__") and ext.__dlpack_device__()[0] == 2):  # not kDLCUDA
        return _wrap(_C.ct_py_from_dlpack(_dlpack_capsule(ext)))
    # CUDA memory: the producer orders its writes before the per-thread default stream (DLPack's
    # stream 2), the one ctorch's work runs on. A producer that cannot (torch raises BufferError)
    # orders them before the legacy default stream (1), which a per-thread default stream waits for.
    try:
        capsule = _dlpack_capsule(ext, stream=2)
    except BufferError:
        capsule = _dlpack_capsule(ext, stream=1)
    return _wrap(_C.ct_py_from_dlpack(capsule))


def _factory(name):
    fn = getattr(_C, "ct_tensor_" + name)

    def make(*size, dtype=None, device=None, requires_grad=False):
        size = _size(size)
        try:
            t = _wrap(fn(size, (dtype or get_default_dtype()).code, _device_arg(device)))
        except TypeError:
            if not _symbolic._has_symint(size):
                raise
        else:
            return _requires_grad(t, requires_grad)
        # SymInt sizes: a symbolic meta tensor (see _symbolic_factory)
        return _requires_grad(_symbolic_factory(name, size, dtype or get_default_dtype(), device), requires_grad)

    make.__name__ = name
    return make


zeros = _factory("zeros")
ones = _factory("ones")
empty = _factory("empty")


def zeros_like(t, dtype=None, device=None, requires_grad=False):
    return zeros(t.shape, dtype=dtype or t.dtype, device=device or t.device, requires_grad=requires_grad)


def ones_like(t, dtype=None, device=None, requires_grad=False):
    return ones(t.shape, dtype=dtype or t.dtype, device=device or t.device, requires_grad=requires_grad)


def empty_like(t, dtype=None, device=None, requires_grad=False):
    return empty(t.shape, dtype=dtype or t.dtype, device=device or t.device, requires_grad=requires_grad)


def full_like(t, fill_value, dtype=None, device=None, requires_grad=False):
    return full(t.shape, fill_value, dtype=dtype or t.dtype, device=device or t.device, requires_grad=requires_grad)


def arange(start, end=None, step=1, dtype=None, device=None, requires_grad=False):
    if end is None:
        start, end = 0, start
    ints = all(isinstance(x, _numbers.Integral) for x in (start, end, step))
    if dtype is None:
        dtype = int64 if ints else get_default_dtype()
    if ints:  # the operator counts integer ranges exactly; ct_tensor_arange takes doubles (exact to 2^53)
        i = _builtins.int
        t = ops.arange(i(start), i(end), i(step), dtype=dtype, device=_device_arg(device))
    else:
        t = _wrap(_C.ct_tensor_arange(start, end, step, dtype.code, _device_arg(device)))
    return _requires_grad(t, requires_grad)


def linspace(start, end, steps, dtype=None, device=None, requires_grad=False):
    t = _wrap(_C.ct_tensor_linspace(start, end, steps, (dtype or get_default_dtype()).code, _device_arg(device)))
    return _requires_grad(t, requires_grad)


def eye(n, m=None, dtype=None, device=None, requires_grad=False):
    t = _wrap(_C.ct_tensor_eye(n, -1 if m is None else m, (dtype or get_default_dtype()).code, _device_arg(device)))
    return _requires_grad(t, requires_grad)


# ---- functions mirroring the methods ----

def _method(name):
    def fn(input, *args, **kwargs):
        return getattr(input, name)(*args, **kwargs)

    fn.__name__ = name
    return fn


for _name in ("add", "sub", "mul", "div", "pow", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge", "neg",
              "abs", "exp", "log", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid", "relu", "reciprocal", "clamp",
              "clip", "reshape", "permute", "transpose", "t", "squeeze", "unsqueeze", "narrow", "select", "flatten",
              "sum", "mean", "prod", "amax", "amin", "argmax", "argmin", "matmul", "mm", "bmm", "clone"):
    globals()[_name] = _method(_name)
del _name

subtract, multiply, divide, true_divide = sub, mul, div, div  # noqa: F821 (defined just above)


def _typed_unary(name):
    """torch.erfinv(input, *, out=None) over ctorch.h's typed function (no registry lookup or boxing)."""
    f = getattr(_C, "ct_tensor_" + name)

    def fn(input, *, out=None):
        if out is not None:
            return ops._into_out(name, (input,), {"out": out})
        return _wrap(f(input._h if type(input) is Tensor else _handle(input)))

    fn.__name__ = fn.__qualname__ = name
    return fn


for _name in ("exp2", "expm1", "log1p", "log2", "log10", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh",
              "acosh", "atanh", "erf", "erfc", "erfinv"):
    globals()[_name] = _typed_unary(_name)
del _name


def cat(tensors, dim=0):
    return _C.ct_py_cat(tensors, dim, 0)  # the Tensor objects in, a Tensor out


concat = concatenate = cat


def stack(tensors, dim=0):
    return _C.ct_py_cat(tensors, dim, 1)


def addmm(input, mat1, mat2, beta=1, alpha=1):
    return input.addmm(mat1, mat2, beta=beta, alpha=alpha)


Tensor.unique = _ops_reduce.unique
Tensor.unique_consecutive = _ops_reduce.unique_consecutive
Tensor.norm = _ops_reduce.norm


def rsub(input, other, alpha=1):
    """other - alpha * input, as torch.rsub."""
    if isinstance(other, Tensor):
        return other.sub(input, alpha=alpha)
    return ops.call("rsub", input, other, alpha)


def __getattr__(name):
    """Every built-in operator without a wrapper above is a function of the package under its
    PyTorch name (ctorch.erfinv(x), ctorch.index_add(x, 0, index, source)), through the boxed call.
    ctorch.utils is imported on first use (multiprocessing, which the DataLoader needs, is slow to
    import)."""
    if name == "utils":
        import importlib

        return importlib.import_module(".utils", __name__)
    if not name.startswith("_") and _builtins.any(o["builtin"] for o in ops.overloads(name)):
        fn = ops.function(name)
        # Resolved once: later lookups never come here. Not where it would hide a Python builtin
        # (all, any, round) from this module's own code, which calls them by their bare names.
        if not hasattr(_builtins, name):
            globals()[name] = fn
        return fn
    raise AttributeError(f"module 'ctorch' has no attribute '{name}'")


def is_tensor(x):
    return isinstance(x, Tensor)


# ---- torch functions that are Tensor methods, or compositions of operators, as torch defines them

def is_storage(obj):
    return False  # ctorch exposes memory through numpy and DLPack, never as storage objects


def is_complex(input):
    return input.is_complex()


def is_conj(input):
    return input.is_conj()


def is_neg(input):
    return input.is_neg()


def resolve_neg(input):
    return input.resolve_neg()


def view_as_real_copy(input):
    """view_as_real's values in a tensor of their own."""
    return view_as_real(input).clone()


def view_as_complex_copy(input):
    """view_as_complex's values in a tensor of their own."""
    return view_as_complex(input).clone()


def is_floating_point(input):
    return input.is_floating_point()


def is_signed(input):
    return input.is_signed()


def is_nonzero(input):
    return input.is_nonzero()


def is_inference(input):
    return input.is_inference()


def is_same_size(input, other):
    return input.shape == other.shape


def positive(input):
    return input.positive()


def conj(input):
    return input.conj()


def adjoint(input):
    return input.adjoint()


def detach(input):
    return input.detach()


def promote_types(type1, type2):
    """The dtype tensors of these dtypes combine to."""
    from ._dtype import by_code
    return by_code[_C.ct_promote_types(type1.code, type2.code)]


def can_cast(from_, to):
    """Whether an operator may write a result of dtype from_ into a tensor of dtype to."""
    return _builtins.bool(_C.ct_can_cast(from_.code, to.code))


def result_type(tensor1, tensor2):
    """The dtype an operator combining these tensors or numbers computes in."""
    from ._dtype import by_code
    return by_code[_C.ct_py_result_type([ops._box(tensor1), ops._box(tensor2)])]


def renorm(input, p, dim, maxnorm):
    return input.renorm(p, dim, maxnorm)


def mvlgamma(input, p):
    return input.mvlgamma(p)


def narrow_copy(input, dim, start, length):
    return input.narrow_copy(dim, start, length)


def unsafe_chunk(input, chunks, dim=0):
    return input.chunk(chunks, dim)


def unsafe_split(tensor, split_size_or_sections, dim=0):
    return split(tensor, split_size_or_sections, dim)


def unsafe_split_with_sizes(input, split_sizes, dim=0):
    return input.split_with_sizes(split_sizes, dim)


def typename(obj):
    """'torch.FloatTensor' for a tensor (torch's legacy name), else the object's module and class."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(type(obj), "__module__", "") or ""
    name = type(obj).__qualname__
    return name if module in ("", "builtins") else f"{module}.{name}"


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False):
    """A 0-dim tensor of s, in the default dtype unless dtype says otherwise (an int too, as torch)."""
    from ._dtype import get_default_dtype
    return tensor(s, dtype=dtype or get_default_dtype(), device=device, requires_grad=requires_grad)


def range(start, end, step=1, *, dtype=None, device=None, requires_grad=False):
    """torch's deprecated range: like arange but end included, in the default floating dtype."""
    import math as _math
    import warnings as _warnings
    _warnings.warn("torch.range is deprecated and will be removed in a future release because its behavior is "
                   "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                   "[start, end).", UserWarning, stacklevel=2)
    if step == 0:
        raise InvalidArgumentError(_C.CT_ERROR_INVALID_ARGUMENT, "range: step must be nonzero")
    count = _math.floor((end - start) / step) + 1
    if count < 0:
        raise InvalidArgumentError(_C.CT_ERROR_INVALID_ARGUMENT, "upper bound and larger bound inconsistent with "
                                   "step sign")
    from ._dtype import float64, get_default_dtype
    out = (arange(count, dtype=float64, device=device) * step + start).to(dtype or get_default_dtype())
    return out.requires_grad_() if requires_grad else out


def lu(A, pivot=True, get_infos=False):
    """torch.lu, the older spelling of linalg.lu_factor: (LU, pivots), and the infos with get_infos (which then
    reports a singular matrix instead of raising)."""
    LU, pivots, infos = linalg.lu_factor_ex(A, pivot=pivot, check_errors=not get_infos)
    return (LU, pivots, infos) if get_infos else (LU, pivots)


Tensor.lu = lu


def chain_matmul(*matrices):
    """torch's deprecated chain_matmul: linalg.multi_dot of the matrices (one is returned as a copy)."""
    import warnings as _warnings
    _warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
                   "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than multiple "
                   "parameters.", UserWarning, stacklevel=2)
    if len(matrices) == 1 and isinstance(matrices[0], (list, tuple)):
        matrices = tuple(matrices[0])
    if len(matrices) == 1:
        return matrices[0].clone()
    return linalg.multi_dot(matrices)


def frobenius_norm(input, dim=(-2, -1), keepdim=False):
    """The 2-norm over dim (all of them when None or empty), as torch's deprecated frobenius_norm."""
    dims = None if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0) else dim
    return linalg.vector_norm(input, 2, dims, keepdim)


def normal(mean, std=1.0, size=None, *, generator=None, dtype=None, device=None, requires_grad=False):
    """torch.normal: samples of N(mean, std) with mean and std tensors (broadcast) or numbers (then
    size gives the shape), from ctorch's generator."""
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        like = mean if isinstance(mean, Tensor) else std
        shape = broadcast_shapes(getattr(mean, "shape", ()), getattr(std, "shape", ()))
        noise = empty(shape, dtype=like.dtype, device=like.device).normal_(0.0, 1.0, generator=generator)
        return noise * std + mean
    if size is None:
        raise TypeError("normal() missing required argument 'size' when mean and std are numbers")
    out = empty(size, dtype=dtype, device=device).normal_(mean, std, generator=generator)
    return out.requires_grad_() if requires_grad else out


def numel(t):
    return t.numel()


def get_num_threads():
    return _C.ct_get_num_threads()


def set_num_threads(n):
    _C.ct_set_num_threads(n)


# ---- torch.* forms of nn.functional, native_* functions, view copies, numerical calculus

from . import _functional_forms, _ops_calculus  # noqa: E402
from ._functional_forms import *  # noqa: E402,F401,F403
from ._ops_calculus import cumulative_trapezoid, gradient, trapezoid, trapz  # noqa: E402,F401
from ._ops_reduce import histogram  # noqa: E402,F401
from ._ops_index import index_reduce  # noqa: E402,F401

for _name in _ops_shape.__all__:
    if _name.endswith("_copy"):
        globals()[_name] = getattr(_ops_shape, _name)
del _name


def pdist(input, p=2):
    """The p-norm distances between every pair of rows of a 2-D input, i < j, in row-major order of
    the pairs (the upper triangle of cdist without its diagonal), as torch.pdist."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    if not input.is_floating_point():
        raise RuntimeError(f"pdist only supports floating-point dtypes, got: {input.dtype}")
    n = input.shape[0]
    pairs = ops.call("triu_indices", n, n, 1, device=input.device)
    return (input.index_select(0, pairs[0]) - input.index_select(0, pairs[1])).norm(p, 1)


def get_device(input):
    """The CUDA ordinal of input's device, or -1 on the CPU."""
    return input.get_device()


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """obj as a tensor, sharing its memory where it can (a tensor, a numpy array, an object with
    __dlpack__ or the buffer protocol) unless copy=True, as torch.asarray; copy=False raises where a
    copy is needed."""
    import numpy as np
    if isinstance(obj, Tensor):
        t = obj
    elif hasattr(obj, "__dlpack__") and not isinstance(obj, np.ndarray):
        t = from_dlpack(obj)
    elif isinstance(obj, np.ndarray) or (hasattr(obj, "__array_interface__")):
        t = from_numpy(np.asarray(obj))
    elif isinstance(obj, (bytes, bytearray, memoryview)):
        t = frombuffer(obj, dtype=dtype or get_default_dtype())
    else:
        if copy is False:
            raise ValueError("asarray: copy=False, but a Python sequence or number has no memory to share")
        return tensor(obj, dtype=dtype, device=device, requires_grad=requires_grad)
    converted = t.to(dtype=dtype or t.dtype, device=device or t.device)
    if copy is False and converted is not t:
        raise ValueError("asarray: copy=False, but the dtype or device asked for needs a copy")
    if copy and converted is t:
        converted = t.clone()
    return converted.requires_grad_() if requires_grad else converted


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor over an object with the buffer protocol (its memory, not a copy), count elements
    of dtype from byte offset on (-1: to the end), as torch.frombuffer."""
    import numpy as np
    array = np.frombuffer(buffer, dtype=_d.to_numpy_dtype(dtype), count=count, offset=offset)
    t = from_numpy(array)
    return t.requires_grad_() if requires_grad else t


def from_file(filename, shared=None, size=0, *, dtype=None, device=None, requires_grad=False):
    """size elements of dtype read from a file's bytes, as torch.from_file; shared=True maps the
    file, so that writes to the tensor reach the file (and the file must hold size elements)."""
    import numpy as np
    dt = _d.to_numpy_dtype(dtype or get_default_dtype())
    if shared:
        array = np.memmap(filename, dtype=dt, mode="r+", shape=(size,))
    else:
        array = np.fromfile(filename, dtype=dt, count=size)
        if array.size < size:
            raise RuntimeError(f"from_file: the file {filename!r} holds {array.size} elements of {dt}, fewer than "
                               f"size={size}")
    t = from_numpy(array)
    if device is not None:
        t = t.to(device)
    return t.requires_grad_() if requires_grad else t


def set_default_tensor_type(t):
    """The legacy form of set_default_dtype: FloatTensor or DoubleTensor (the class or its name)
    makes float32 or float64 the default floating dtype."""
    name = t if isinstance(t, str) else getattr(t, "__name__", str(t))
    name = name.rsplit(".", 1)[-1]
    dtypes = {"FloatTensor": float32, "DoubleTensor": float64, "HalfTensor": float16,  # noqa: F821
              "BFloat16Tensor": bfloat16}  # noqa: F821
    if name not in dtypes:
        raise TypeError(f"invalid type: '{t}'; only floating-point types are supported as the default type")
    set_default_dtype(dtypes[name])


def compiled_with_cxx11_abi():
    """Whether the library was built with the C++11 ABI of libstdc++ (the platform compiler's
    default, which ctorch's build keeps)."""
    return True


def get_file_path(*path_components):
    """A path inside the installed ctorch package."""
    return _os.path.join(_os.path.dirname(__file__), *path_components)


# ---- observability ----

def metrics():
    """Every library counter as a dict, e.g. {"tensors.live": 3, "init.time_us": 812, ...}
    (ct_metrics_json; the names are documented in docs/observability.md)."""
    return _json.loads(_C.ct_metrics_json())


def metric(name):
    """One library counter by name (ct_metric_get), e.g. metric("memory.cpu.bytes_allocated")."""
    return _C.ct_metric_get(name)


__all__ += ["save_file", "load_file"]  # checkpoints (ctorch.safetensors)

