"""ctorch.nn.init: torch.nn.init's initializers over the C library's (ct_init_*).

Each fills the tensor in place with grad mode off and returns it; a meta tensor, which has no data,
is returned as it is (as torch does, so that a module can be built on the meta device). Numbers come from ctorch's Philox
generator (generator=None: the default one), so a seed reproduces them exactly on every machine and
thread count; they are not the numbers torch draws for that seed."""

import warnings as _warnings

from .. import _C
from .._tensor import _handle
from ..autograd import no_grad as _no_grad

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_", "eye_",
           "dirac_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "orthogonal_",
           "sparse_", "linear_"]


def _gen(generator):
    return None if generator is None else generator._h


def _on_meta(tensor):
    return tensor.device.type == "meta"


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity (torch.nn.init.calculate_gain)."""
    if nonlinearity == "leaky_relu":
        if param is None:
            param = 0.01
        elif isinstance(param, bool) or not isinstance(param, (int, float)):
            raise ValueError(f"negative_slope {param} not a valid number")
    return _C.ct_init_calculate_gain(nonlinearity, float(param or 0))


def _calculate_fan_in_and_fan_out(tensor):
    try:
        return _C.ct_init_calculate_fan_in_and_fan_out(_handle(tensor))
    except Exception as e:  # torch raises ValueError for fewer than 2 dims
        if tensor.dim() < 2:
            raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions") from e
        raise


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    if _on_meta(tensor):
        return tensor
    _C.ct_init_uniform_(_handle(tensor), float(a), float(b), _gen(generator))
    return tensor


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    if _on_meta(tensor):
        return tensor
    _C.ct_init_normal_(_handle(tensor), float(mean), float(std), _gen(generator))
    return tensor


def constant_(tensor, val):
    from .. import full

    if _on_meta(tensor):
        return tensor
    with _no_grad():
        tensor.copy_(full((), val, dtype=tensor.dtype))
    return tensor


def ones_(tensor):
    return constant_(tensor, 1.0)


def zeros_(tensor):
    return constant_(tensor, 0.0)


def xavier_uniform_(tensor, gain=1.0, generator=None):
    if _on_meta(tensor):
        return tensor
    _C.ct_init_xavier_uniform_(_handle(tensor), float(gain), _gen(generator))
    return tensor


def xavier_normal_(tensor, gain=1.0, generator=None):
    if _on_meta(tensor):
        return tensor
    _C.ct_init_xavier_normal_(_handle(tensor), float(gain), _gen(generator))
    return tensor


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    if _on_meta(tensor):
        return tensor
    _C.ct_init_kaiming_uniform_(_handle(tensor), float(a), mode, nonlinearity, _gen(generator))
    return tensor


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    if _on_meta(tensor):
        return tensor
    _C.ct_init_kaiming_normal_(_handle(tensor), float(a), mode, nonlinearity, _gen(generator))
    return tensor


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """N(mean, std^2) restricted to [a, b] (torch.nn.init.trunc_normal_)."""
    if mean < a - 2 * std or mean > b + 2 * std:
        _warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values may "
                       "be incorrect.", stacklevel=2)
    if _on_meta(tensor):
        return tensor
    _C.ct_init_trunc_normal_(_handle(tensor), float(mean), float(std), float(a), float(b), _gen(generator))
    return tensor


def orthogonal_(tensor, gain=1, generator=None):
    """A (semi-)orthogonal matrix over the first dim and the rest flattened, times gain
    (torch.nn.init.orthogonal_)."""
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if _on_meta(tensor):
        return tensor
    _C.ct_init_orthogonal_(_handle(tensor), float(gain), _gen(generator))
    return tensor


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """N(0, std^2) with ceil(sparsity * rows) zeros per column (torch.nn.init.sparse_)."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    if _on_meta(tensor):
        return tensor
    _C.ct_init_sparse_(_handle(tensor), float(sparsity), float(std), _gen(generator))
    return tensor


def eye_(tensor):
    """The identity matrix (torch.nn.init.eye_)."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    if _on_meta(tensor):
        return tensor
    _C.ct_init_eye_(_handle(tensor))
    return tensor


def dirac_(tensor, groups=1):
    """The Dirac delta of a convolution weight, per group (torch.nn.init.dirac_)."""
    if tensor.dim() not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    if tensor.size(0) % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    if _on_meta(tensor):
        return tensor
    _C.ct_init_dirac_(_handle(tensor), int(groups))
    return tensor


def linear_(weight, bias=None, generator=None):
    """What torch.nn.Linear and Conv1d/2d/3d do in reset_parameters: weight by kaiming_uniform_(a=sqrt(5)),
    bias from U(-1/sqrt(fan_in), 1/sqrt(fan_in)). Returns weight."""
    if _on_meta(weight):
        return weight
    _C.ct_init_linear_(_handle(weight), None if bias is None else _handle(bias), _gen(generator))
    return weight


# torch keeps these under their private names too; code that calls them keeps working.
_no_grad_uniform_ = uniform_
_no_grad_normal_ = normal_


def _deprecated(fn):
    old = fn.__name__[:-1]

    def alias(*args, **kwargs):
        _warnings.warn(f"nn.init.{old} is now deprecated in favor of nn.init.{fn.__name__}.", FutureWarning,
                       stacklevel=2)
        return fn(*args, **kwargs)
    alias.__name__ = alias.__qualname__ = old
    alias.__doc__ = f"Deprecated: {fn.__name__} (torch keeps the old name, warning)."
    return alias


# torch's names without the underscore: deprecated there, warning and doing the same.
uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
