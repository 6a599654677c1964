"""The torch.* names of functions that live in torch.nn.functional (torch exposes both; the
top-level forms take torch's positional `train` flags instead of keyword `training`/`inplace`),
and torch's native_* functions, which return the statistics the functional forms keep to
themselves. Each is a composition of ctorch's operators."""

from ._tensor import Tensor

__all__ = ["celu_", "selu_", "threshold_", "rrelu", "rrelu_", "alpha_dropout", "alpha_dropout_",
           "feature_alpha_dropout", "feature_alpha_dropout_", "feature_dropout", "feature_dropout_", "dropout_",
           "channel_shuffle", "native_channel_shuffle", "embedding_renorm_", "native_dropout", "native_layer_norm",
           "native_batch_norm", "native_group_norm", "norm_except_dim", "fill", "ctc_loss", "affine_grid_generator", "grid_sampler",
           "grid_sampler_2d", "grid_sampler_3d", "detach_", "resize_as_", "addmv_",
           "as_strided_", "as_strided_copy", "as_strided_scatter", "empty_strided"]


def _F():
    from .nn import functional
    return functional


def celu_(input, alpha=1.0):
    return _F().celu(input, alpha, inplace=True)


def selu_(input):
    return _F().selu(input, inplace=True)


def threshold_(input, threshold, value):
    return _F().threshold(input, threshold, value, inplace=True)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return _F().rrelu(input, lower, upper, training)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return _F().rrelu(input, lower, upper, training, inplace=True)


def alpha_dropout(input, p, train):
    return _F().alpha_dropout(input, p, train)


def alpha_dropout_(input, p, train):
    return _F().alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout(input, p, train):
    return _F().feature_alpha_dropout(input, p, train)


def feature_alpha_dropout_(input, p, train):
    return _F().feature_alpha_dropout(input, p, train, inplace=True)


def _feature_mask(input, p):
    """Whole features (every dim after the first two) kept with probability 1 - p, scaled by 1 / (1 - p)."""
    from . import empty
    if input.dim() < 2:
        raise RuntimeError(f"Feature dropout requires at least 2 dimensions in the input, got {input.dim()}")
    shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2)
    keep = empty(shape, dtype=input.dtype, device=input.device).bernoulli_(1 - p)
    return keep / (1 - p) if p < 1 else keep


def feature_dropout(input, p, train):
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not train or p == 0:
        return input
    return input * _feature_mask(input, p)


def feature_dropout_(input, p, train):
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not train or p == 0:
        return input
    return input.mul_(_feature_mask(input, p))


def dropout_(input, p, train):
    return _F().dropout(input, p, train, inplace=True)


def channel_shuffle(input, groups):
    return _F().channel_shuffle(input, groups)


def native_channel_shuffle(input, groups):
    return _F().native_channel_shuffle(input, groups)


def embedding_renorm_(weight, indices, max_norm, norm_type):
    """Scales the rows of weight that indices name, in place, so that their norm_type-norm is at most
    max_norm (each row once however often it is named), as torch.embedding_renorm_."""
    from . import no_grad, unique
    with no_grad():
        rows = unique(indices.reshape(-1))
        norms = weight.index_select(0, rows).norm(norm_type, 1, keepdim=True)
        scale = (max_norm / (norms + 1e-7)).clamp_max(1.0)
        weight.index_copy_(0, rows, weight.index_select(0, rows) * scale)
    return weight


def native_dropout(input, p, train):
    """(output, mask): dropout and the bool mask of the kept elements (all True when not training)."""
    from . import ones_like
    if train is None or train:
        if p == 1:
            return input * 0, ones_like(input, dtype=_bool()).logical_not()
        keep = ones_like(input).bernoulli_(1 - p).to(_bool())
        return input * keep / (1 - p), keep
    return input.clone(), ones_like(input, dtype=_bool())


def _bool():
    from . import bool as bool_
    return bool_


def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """(output, mean, rstd): layer_norm and the per-row mean and 1 / sqrt(var + eps), shaped as
    input with the normalized dims kept as 1."""
    dims = tuple(range(input.dim() - len(normalized_shape), input.dim()))
    mean = input.mean(dims, keepdim=True)
    rstd = (input.var(dims, unbiased=False, keepdim=True) + eps).rsqrt()
    out = _F().layer_norm(input, list(normalized_shape), weight, bias, eps)
    return out, mean.detach(), rstd.detach()


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """(output, save_mean, save_invstd): batch_norm and, in training, the batch's per-channel mean
    and 1 / sqrt(var + eps) (empty tensors otherwise, as torch's CPU kernel gives)."""
    out = _F().batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)
    if not training:
        empty = input.new_empty((0,))
        return out, empty, empty.clone()
    dims = [0] + list(range(2, input.dim()))
    mean = input.mean(dims)
    invstd = (input.var(dims, unbiased=False) + eps).rsqrt()
    return out, mean.detach(), invstd.detach()


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """(output, mean, rstd): group_norm and the per-sample, per-group statistics ([N, group])."""
    out = _F().group_norm(input, group, weight, bias, eps)
    grouped = input.reshape(N, group, -1)
    mean = grouped.mean(-1)
    rstd = (grouped.var(-1, unbiased=False) + eps).rsqrt()
    return out, mean.detach(), rstd.detach()


def norm_except_dim(v, pow=2, dim=0):
    """The pow-norm over every dim but dim, shaped to broadcast against v (weight_norm's g)."""
    if dim == -1:
        return v.norm(pow)
    dims = [d for d in range(v.dim()) if d != dim]
    return v.norm(pow, dims, keepdim=True) if dims else v.abs()


def fill(input, value):
    """A new tensor of input's shape and dtype filled with value (a number or a 0-dim tensor)."""
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError(f"fill only supports 0-dimension value tensor but got tensor with {value.dim()} "
                               "dimensions.")
    return input.clone().fill_(value)



def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=1, zero_infinity=False):
    """torch.ctc_loss: F.ctc_loss with reduction as aten's int (0 none, 1 mean, 2 sum) or a name."""
    name = {0: "none", 1: "mean", 2: "sum"}.get(reduction, reduction)
    return _F().ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, name, zero_infinity)


def affine_grid_generator(theta, size, align_corners):
    return _F().affine_grid(theta, size, align_corners)


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """grid_sample with aten's int modes (interpolation 0 bilinear, 1 nearest, 2 bicubic; padding 0
    zeros, 1 border, 2 reflection)."""
    from .nn import _grid
    return _grid.grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    if input.dim() != 4:
        raise RuntimeError(f"grid_sampler_2d(): expected 4D input, got {input.dim()}D")
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners):
    if input.dim() != 5:
        raise RuntimeError(f"grid_sampler_3d(): expected 5D input, got {input.dim()}D")
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


def detach_(input):
    return input.detach_()


def resize_as_(input, the_template, memory_format=None):
    return input.resize_as_(the_template)


def addmv_(input, mat, vec, *, beta=1, alpha=1):
    return input.addmv_(mat, vec, beta=beta, alpha=alpha)


def as_strided_(input, size, stride, storage_offset=None):
    return input.as_strided_(size, stride, storage_offset)


def _views():
    from . import _inplace_views
    return _inplace_views


def as_strided_copy(input, size, stride, storage_offset=None):
    return _views().as_strided_copy(input, size, stride, storage_offset)


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    return _views().as_strided_scatter(input, src, size, stride, storage_offset)


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    return _views().empty_strided(size, stride, dtype=dtype, device=device, requires_grad=requires_grad)
