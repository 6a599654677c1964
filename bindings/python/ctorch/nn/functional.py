"""ctorch.nn.functional: PyTorch's functional neural-network API over ctorch's operators.

Every built-in operator is reachable here under its own name (F.gelu, F.conv2d, F.layer_norm),
through the boxed call; the functions below exist where torch.nn.functional's Python signature
differs from the operator's schema (keyword names, defaults, string options, composition).
"""

import math

from .. import _C
from .. import _random
from .. import ops as _ops
from .._tensor import Tensor, _handle, _wrap  # noqa: F401 (F.Tensor, as torch.nn.functional has it)


def __getattr__(name):
    if not name.startswith("_") and any(o["builtin"] for o in _ops.overloads(name)):
        return _ops.function(name)
    raise AttributeError(f"module 'ctorch.nn.functional' has no attribute '{name}'")


# ---- activations (pointwise family) ----
# torch.nn.functional's activations take `inplace` (and elu no scale arguments); the operators
# (gelu, softplus and the rest) are reached by name. inplace=True runs the in-place operator
# (elu_), or writes the result into input where there is none (selu).


def _activation(name, *args, inplace=False):
    if not inplace:
        return _ops.call(name, *args)
    if _ops.overloads(name + "_"):
        _ops.call(name + "_", *args)
    else:
        args[0].copy_(_ops.call(name, *args))
    return args[0]


def relu(input, inplace=False):
    return _activation("relu", input, inplace=inplace)


def elu(input, alpha=1.0, inplace=False):
    return _activation("elu", input, alpha, inplace=inplace)


def selu(input, inplace=False):
    return _activation("selu", input, inplace=inplace)


def silu(input, inplace=False):
    return _activation("silu", input, inplace=inplace)


def mish(input, inplace=False):
    return _activation("mish", input, inplace=inplace)


def hardswish(input, inplace=False):
    return _activation("hardswish", input, inplace=inplace)


def hardsigmoid(input, inplace=False):
    return _activation("hardsigmoid", input, inplace=inplace)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    return _activation("leaky_relu", input, negative_slope, inplace=inplace)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    return _activation("hardtanh", input, min_val, max_val, inplace=inplace)


# ---- linear, convolution and pooling ----

def relu6(input, inplace=False):
    return _activation("relu6", input, inplace=inplace)


def celu(input, alpha=1.0, inplace=False):
    return _activation("celu", input, alpha, inplace=inplace)


def threshold(input, threshold, value, inplace=False):
    return _activation("threshold", input, threshold, value, inplace=inplace)


def celu_(input, alpha=1.0):
    return celu(input, alpha, inplace=True)


def selu_(input):
    return selu(input, inplace=True)


def threshold_(input, threshold, value):
    return _activation("threshold", input, threshold, value, inplace=True)


def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    """softmax((logits + g) / tau) with g = -log(E), E ~ Exp(1) (Gumbel noise from ctorch's
    generator); hard=True gives the one-hot of the argmax with the soft sample's gradient."""
    from .. import rand_like

    exponential = -rand_like(logits).log()  # E ~ Exp(1): -log(U), U ~ U(0, 1)
    gumbels = -exponential.log()
    y_soft = softmax((logits + gumbels) / tau, dim)
    if not hard:
        return y_soft
    index = y_soft.argmax(dim, keepdim=True)
    y_hard = (y_soft * 0).scatter(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


def hardshrink(input, lambd=0.5):
    return _ops.call("hardshrink", input, lambd)


def softshrink(input, lambd=0.5):
    return _ops.call("softshrink", input, lambd)


def logsigmoid(input):
    return _ops.call("log_sigmoid", input)


def glu(input, dim=-1):
    return _ops.call("glu", input, dim)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    return softmax(-input, dim, dtype=dtype)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """input / max(||input||_p, eps) along dim, as torch.nn.functional.normalize."""
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is None:
        return input / denom
    return out.copy_(input / denom)


def linear(input, weight, bias=None):
    """input @ weight^T + bias, by the C function (no boxed call: a layer's hot path)."""
    return _wrap(_C.ct_tensor_linear(_handle(input), _handle(weight), None if bias is None else _handle(bias)))


def _pair_or_empty(v):
    return [] if v is None else v


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """torch.nn.functional.max_pool2d; stride None means kernel_size; return_indices gives (values, indices)."""
    r = _ops.call("max_pool2d_with_indices", input, kernel_size, _pair_or_empty(stride), padding, dilation, ceil_mode)
    return r if return_indices else r[0]


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    return _ops.call("max_pool2d_with_indices", input, kernel_size, _pair_or_empty(stride), padding, dilation, ceil_mode)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return _ops.call("avg_pool2d", input, kernel_size, _pair_or_empty(stride), padding, ceil_mode, count_include_pad,
                     divisor_override)


def adaptive_avg_pool2d(input, output_size):
    """output_size is a number or a pair, where None keeps the input's size."""
    return _ops.call("adaptive_avg_pool2d", input, _adaptive_size(input, output_size, 2))


def _adaptive_size(input, output_size, n):
    """output_size as a list of n sizes: a number repeats, None keeps the input's size."""
    size = [output_size] * n if output_size is None or isinstance(output_size, int) else list(output_size)
    return [input.shape[-n + i] if s is None else s for i, s in enumerate(size)]


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """torch.nn.functional.max_pool1d over [C, L] or [N, C, L]; stride None means kernel_size."""
    r = _ops.call("max_pool1d_with_indices", input, kernel_size, _pair_or_empty(stride), padding, dilation, ceil_mode)
    return r if return_indices else r[0]


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    return _ops.call("max_pool1d_with_indices", input, kernel_size, _pair_or_empty(stride), padding, dilation, ceil_mode)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    return _ops.call("avg_pool1d", input, kernel_size, _pair_or_empty(stride), padding, ceil_mode, count_include_pad)


def adaptive_avg_pool1d(input, output_size):
    return _ops.call("adaptive_avg_pool1d", input, _adaptive_size(input, output_size, 1))


def adaptive_max_pool1d(input, output_size, return_indices=False):
    r = _ops.call("adaptive_max_pool1d", input, _adaptive_size(input, output_size, 1))
    return r if return_indices else r[0]


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """output_size is a number or a pair, where None keeps the input's size; return_indices gives
    (values, indices into each H x W plane)."""
    r = _ops.call("adaptive_max_pool2d", input, _adaptive_size(input, output_size, 2))
    return r if return_indices else r[0]


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=True):
    return _ops.call("adaptive_max_pool1d", input, _adaptive_size(input, output_size, 1))


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=True):
    return _ops.call("adaptive_max_pool2d", input, _adaptive_size(input, output_size, 2))


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """torch.nn.functional.max_pool3d over [C, D, H, W] or [N, C, D, H, W]; return_indices gives
    (values, indices into each D x H x W volume)."""
    r = _ops.call("max_pool3d_with_indices", input, kernel_size, _pair_or_empty(stride), padding, dilation, ceil_mode)
    return r if return_indices else r[0]


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    return _ops.call("max_pool3d_with_indices", input, kernel_size, _pair_or_empty(stride), padding, dilation, ceil_mode)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return _ops.call("avg_pool3d", input, kernel_size, _pair_or_empty(stride), padding, ceil_mode, count_include_pad,
                     divisor_override)


def adaptive_avg_pool3d(input, output_size):
    return _ops.call("adaptive_avg_pool3d", input, _adaptive_size(input, output_size, 3))


def adaptive_max_pool3d(input, output_size, return_indices=False):
    r = _ops.call("adaptive_max_pool3d", input, _adaptive_size(input, output_size, 3))
    return r if return_indices else r[0]


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=True):
    return _ops.call("adaptive_max_pool3d", input, _adaptive_size(input, output_size, 3))


def _unpool_size(input, kernel_size, stride, padding, output_size, n):
    """The output size max_unpool{n}d restores: as pooling shrank it, or output_size (whose last n
    numbers count) when it is within a stride of that, as torch.nn.functional computes it."""
    kernel = [kernel_size] * n if isinstance(kernel_size, int) else list(kernel_size)
    stride = kernel if stride is None else ([stride] * n if isinstance(stride, int) else list(stride))
    padding = [padding] * n if isinstance(padding, int) else list(padding)
    default = [(input.size(input.dim() - n + d) - 1) * stride[d] + kernel[d] - 2 * padding[d] for d in range(n)]
    if output_size is None:
        return default, stride, padding
    size = list(output_size)
    if len(size) == n + 2:
        size = size[2:]
    if len(size) != n:
        raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, but it has a length "
                         f"of '{len(size)}'")
    for d in range(n):
        low, high = default[d] - stride[d], default[d] + stride[d]
        if not low < size[d] < high:
            raise ValueError(f'invalid output_size "{size}" (dim {d} must be between {low} and {high})')
    return size, stride, padding


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Puts max_pool1d's values back at its indices, zeros elsewhere (max_unpool2d over a width of 1)."""
    size, _, _ = _unpool_size(input, kernel_size, stride, padding, output_size, 1)
    return _ops.call("max_unpool2d", input.unsqueeze(-1), indices.unsqueeze(-1), size + [1]).squeeze(-1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    size, _, _ = _unpool_size(input, kernel_size, stride, padding, output_size, 2)
    return _ops.call("max_unpool2d", input, indices, size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    size, stride, padding = _unpool_size(input, kernel_size, stride, padding, output_size, 3)
    return _ops.call("max_unpool3d", input, indices, size, stride, padding)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """The sliding blocks of [N, C, H, W] (or [C, H, W]) as columns [N, C * kh * kw, L] (im2col);
    Tensor.unfold is the one-dim view of the same name."""
    return _ops.call("im2col", input, kernel_size, dilation, padding, stride)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Sums columns [N, C * kh * kw, L] back into [N, C, H, W] images (col2im), unfold's adjoint."""
    return _ops.call("col2im", input, output_size, kernel_size, dilation, padding, stride)



# ---- interpolate (the upsample operators) ----

_INTERPOLATING = ("linear", "bilinear", "bicubic", "trilinear")


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None,
                antialias=False):
    """Resizes the spatial dims of [N, C, W] or [N, C, H, W] input to size, or by scale_factor, with
    mode 'nearest', 'nearest-exact', 'linear' (3-D input), 'bilinear' (4-D) or 'area' (means over
    windows), as torch.nn.functional.interpolate."""
    import math

    dims = input.dim() - 2
    if mode in ("nearest", "nearest-exact", "area") and align_corners is not None:
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    if align_corners is None:
        align_corners = False
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not supported by ctorch yet")
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is None and scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if dims not in (1, 2):
        if dims == 3:
            raise NotImplementedError(f"interpolate: 5-D input (3 spatial dims, mode {mode!r}) is not supported by "
                                      "ctorch yet")
        raise ValueError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for the "
                         f"modes: nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact "
                         f"(got {mode})")
    if size is not None:
        sizes = [size] * dims if isinstance(size, int) else list(size)
        if len(sizes) != dims:
            raise ValueError(f"Input and output must have the same number of spatial dimensions, but got input with "
                             f"spatial dimensions of {list(input.shape[2:])} and output size of {sizes}. Please "
                             "provide input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, "
                             "...,oK) format.")
        sizes = [int(v) for v in sizes]
        scales = [None] * dims
    else:
        factors = [scale_factor] * dims if isinstance(scale_factor, (int, float)) else list(scale_factor)
        if len(factors) != dims:
            raise ValueError(f"Input and scale_factor must have the same number of spatial dimensions, but got input "
                             f"with spatial dimensions of {list(input.shape[2:])} and scale_factor of shape "
                             f"{factors}.")
        sizes = [math.floor(float(input.shape[2 + i]) * float(factors[i])) for i in range(dims)]
        scales = [None] * dims if recompute_scale_factor else [float(v) for v in factors]
    if mode == "area":
        if dims == 1:
            return adaptive_avg_pool2d(input.unsqueeze(-2), (1, sizes[0])).squeeze(-2)
        return adaptive_avg_pool2d(input, sizes)
    if mode in ("nearest", "nearest-exact"):
        name = {"nearest": "upsample_nearest", "nearest-exact": "_upsample_nearest_exact"}[mode] + f"{dims}d"
        return _ops.call(name, input, sizes, *scales)
    if mode == "linear" and dims == 1:
        return _ops.call("upsample_linear1d", input, sizes, bool(align_corners), *scales)
    if mode == "bilinear" and dims == 2:
        return _ops.call("upsample_bilinear2d", input, sizes, bool(align_corners), *scales)
    if mode in ("bicubic", "trilinear"):
        raise NotImplementedError(f"interpolate: mode {mode!r} is not supported by ctorch yet")
    if mode in _INTERPOLATING:
        raise ValueError(f"Got {input.dim()}D input, but {mode} mode needs "
                         f"{ {'linear': 3, 'bilinear': 4}.get(mode, 5)}D input")
    raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for the "
                              f"modes: nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact "
                              f"(got {mode})")


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """The deprecated name of interpolate."""
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: interpolate(mode='nearest')."""
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: interpolate(mode='bilinear', align_corners=True)."""
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# ---- embedding (indexing family) ----

def _padding_index(padding_idx, rows):
    """padding_idx as a row of a table of rows (a negative one counts from the end), or None."""
    if padding_idx is None:
        return None
    if not -rows <= padding_idx < rows:
        raise AssertionError("Padding_idx must be within num_embeddings")
    return padding_idx + rows if padding_idx < 0 else padding_idx


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    """Rows of weight picked by the integer tensor input (torch.nn.functional.embedding: input comes
    first here, the operator takes weight first). padding_idx's row gets no gradient; a negative
    padding_idx counts from the end."""
    padding_idx = _padding_index(padding_idx, weight.shape[0])
    padding_idx = -1 if padding_idx is None else padding_idx
    if max_norm is not None:  # the rows looked up are renormalized in place first, as torch does
        from .. import embedding_renorm_
        embedding_renorm_(weight, input.contiguous(), max_norm, norm_type)
    return _ops.call("embedding", weight, input, padding_idx, scale_grad_by_freq, sparse)


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """The sum, mean or max of each bag of embeddings: bags are the rows of a 2-D input, or the runs
    of a 1-D input starting at offsets (include_last_offset: offsets also holds the end). padding_idx
    entries count for nothing (nor in a mean's size); an empty bag gives zeros; per_sample_weights
    scale the embeddings (mode 'sum' only). offsets starts at 0; with include_last_offset its last
    element is the input's size (torch's CSR form). Composed of embedding and index_add /
    scatter_reduce."""
    from .. import arange, bucketize, float32, zeros
    if mode not in ("sum", "mean", "max"):
        raise ValueError(f"mode has to be one of sum, mean or max, got {mode!r}")
    if weight.dim() != 2:
        raise ValueError(f"embedding_bag: weight has to be a 2-D tensor, but got {weight.dim()}-D")
    if per_sample_weights is not None:
        if mode != "sum":
            raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                      f"supported for mode='sum' (got mode='{mode}'). Please open a feature request "
                                      "on GitHub.")
        if per_sample_weights.shape != input.shape:
            raise ValueError(f"embedding_bag: If per_sample_weights ({tuple(per_sample_weights.shape)}) is not None, "
                             f"then it must have the same shape as the input ({tuple(input.shape)})")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             "fixed length sequences.")
        bags, length = input.shape
        offsets = arange(0, bags * length, length if length else 1, device=input.device)[:bags]
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
        include_last_offset = False
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        if offsets.numel() and int(offsets[0]) != 0:
            raise ValueError(f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                             f"position 0. However, got {int(offsets[0])}")
        if include_last_offset and (offsets.numel() == 0 or int(offsets[-1]) != input.numel()):
            raise ValueError("embedding_bag: with include_last_offset=True the last offset is the end of the last bag "
                             f"and must equal the input's size ({input.numel()})")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    padding_idx = _padding_index(padding_idx, weight.shape[0])
    starts = offsets[:-1] if include_last_offset else offsets
    bags = starts.numel()
    n = input.numel()
    position = arange(n, device=input.device)
    bag = bucketize(position, starts, right=True) - 1  # the bag each position belongs to (-1: before the first)
    valid = bag >= 0
    if padding_idx is not None:
        valid = valid & (input != padding_idx)
    rows = embedding(input, weight, None, max_norm, norm_type, scale_grad_by_freq, sparse)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.unsqueeze(1)
    bag, rows = bag[valid], rows[valid]
    dim = weight.shape[1]
    counts = zeros(bags, dtype=float32, device=input.device).index_add(0, bag, bag.new_ones(bag.shape).float())
    if mode == "max":
        empty_bags = (counts == 0).unsqueeze(1)
        lowest = zeros(bags, dim, dtype=weight.dtype, device=weight.device).fill_(float("-inf"))
        out = lowest.scatter_reduce(0, bag.unsqueeze(1).expand(-1, dim), rows, "amax")
        return out.masked_fill(empty_bags, 0.0)
    out = zeros(bags, dim, dtype=rows.dtype, device=weight.device).index_add(0, bag, rows)
    if mode == "mean":
        out = out / counts.clamp_min(1.0).to(out.dtype).unsqueeze(1)
    return out


# ---- normalization, losses and attention ----
# torch's Python API takes reduction as a string; aten's schemas (and ctorch's) take an int.
_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _reduction(reduction, size_average=None, reduce=None):
    if size_average is not None or reduce is not None:  # torch's deprecated arguments
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = "none" if not reduce else "mean" if size_average else "sum"
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _REDUCTIONS[reduction]


def _reduction_name(size_average, reduce):
    """torch's deprecated size_average/reduce pair as a reduction name (for the loss modules)."""
    return {v: k for k, v in _REDUCTIONS.items()}[_reduction("mean", size_average, reduce)]


def _shape(s):
    return [int(s)] if isinstance(s, int) else [int(v) for v in s]


def _implicit_dim(ndim):  # torch's legacy choice when softmax gets no dim
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    return _ops.call("softmax", input, _implicit_dim(input.dim()) if dim is None else dim, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    return _ops.call("log_softmax", input, _implicit_dim(input.dim()) if dim is None else dim, dtype)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    return _ops.call("layer_norm", input, _shape(normalized_shape), weight, bias, eps)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    return _ops.call("rms_norm", input, _shape(normalized_shape), weight, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    return _ops.call("group_norm", input, num_groups, weight, bias, eps)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    return _ops.call("batch_norm", input, weight, bias, running_mean, running_var, training, momentum, eps, False)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    """Normalizes each sample's channel [N, C, ...] by its own statistics; the running ones (per
    channel) are updated in place when given and use_input_stats."""
    return _ops.call("instance_norm", input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps,
                     False)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    return _ops.call("cross_entropy_loss", input, target, weight, _reduction(reduction, size_average, reduce),
                     ignore_index, label_smoothing)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    return _ops.call("nll_loss", input, target, weight, _reduction(reduction, size_average, reduce), ignore_index)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    return _ops.call("mse_loss", input, target, _reduction(reduction, size_average, reduce))


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    return _ops.call("l1_loss", input, target, _reduction(reduction, size_average, reduce))


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    return _ops.call("smooth_l1_loss", input, target, _reduction(reduction, size_average, reduce), beta)


def huber_loss(input, target, reduction="mean", delta=1.0):
    return _ops.call("huber_loss", input, target, _reduction(reduction), delta)


def _same_size(fn, input, target):
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"{fn}: using a target size ({tuple(target.shape)}) that is different to the input size "
                         f"({tuple(input.shape)}) is deprecated. Please ensure they have the same size.")


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    _same_size("binary_cross_entropy", input, target)
    return _ops.call("binary_cross_entropy", input, target, weight, _reduction(reduction, size_average, reduce))


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    _same_size("binary_cross_entropy_with_logits", input, target)
    return _ops.call("binary_cross_entropy_with_logits", input, target, weight, pos_weight,
                     _reduction(reduction, size_average, reduce))


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """reduction='batchmean' divides the sum by the batch size (input.size(0)), the KL divergence's
    mathematical definition; 'mean' averages over every element, as torch does."""
    if reduction == "batchmean" and size_average is None and reduce is None:
        loss = _ops.call("kl_div", input, target, 2, log_target=log_target)
        return loss / input.size(0) if input.dim() != 0 else loss
    return _ops.call("kl_div", input, target, _reduction(reduction, size_average, reduce), log_target=log_target)


def _channel_dropout(name, input, p, training, inplace, batched_dims):
    """Zeroes whole channels with probability p and scales the rest by 1 / (1 - p): one draw per
    (sample, channel), broadcast over the channel's elements, as torch's feature dropout."""
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.dim() not in (batched_dims - 1, batched_dims):
        raise RuntimeError(f"{name}: Expected {batched_dims - 1}D or {batched_dims}D input, but received input "
                           f"with {input.dim()} dims {list(input.shape)}")
    if not training or p == 0:
        return input
    channel_dims = 2 if input.dim() == batched_dims else 1
    mask_shape = list(input.shape[:channel_dims]) + [1] * (input.dim() - channel_dims)
    if p == 1:
        out = input * 0
    else:
        keep = _random.bernoulli(input.new_full(mask_shape, 1 - p))
        out = input * keep / (1 - p)
    return input.copy_(out) if inplace else out


def dropout1d(input, p=0.5, training=True, inplace=False):
    return _channel_dropout("dropout1d", input, p, training, inplace, 3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    return _channel_dropout("dropout2d", input, p, training, inplace, 4)


def dropout3d(input, p=0.5, training=True, inplace=False):
    return _channel_dropout("dropout3d", input, p, training, inplace, 5)


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    return _ops.call("margin_ranking_loss", input1, input2, target, float(margin),
                     _reduction(reduction, size_average, reduce))


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    return _ops.call("hinge_embedding_loss", input, target, float(margin), _reduction(reduction, size_average, reduce))


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    return _ops.call("soft_margin_loss", input, target, _reduction(reduction, size_average, reduce))


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    return _ops.call("cosine_embedding_loss", input1, input2, target, float(margin),
                     _reduction(reduction, size_average, reduce))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    return _ops.call("triplet_margin_loss", anchor, positive, negative, float(margin), float(p), float(eps), swap,
                     _reduction(reduction, size_average, reduce))


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False,
                                      reduction="mean"):
    """max(0, margin + d(anchor, positive) - d(anchor, negative)) with any distance function
    (pairwise_distance by default); swap uses min(d(a, n), d(p, n)), as torch's Python does."""
    if margin <= 0:
        raise ValueError(f"triplet_margin_with_distance_loss: expected margin to be greater than 0, got {margin} "
                         "instead")
    if not (anchor.dim() == positive.dim() == negative.dim()):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {anchor.dim()}D, positive {positive.dim()}D, and negative "
                           f"{negative.dim()}D inputs")
    distance = distance_function if distance_function is not None else _ops.function("pairwise_distance")
    dist_pos = distance(anchor, positive)
    dist_neg = distance(anchor, negative)
    if swap:
        dist_neg = _ops.call("minimum", dist_neg, distance(positive, negative))
    loss = (margin + dist_pos - dist_neg).clamp_min(0)
    r = _reduction(reduction)
    return loss if r == 0 else loss.mean() if r == 1 else loss.sum()


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    return _ops.call("poisson_nll_loss", input, target, log_input, full, float(eps),
                     _reduction(reduction, size_average, reduce))


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """0.5 (log(max(var, eps)) + (input - target)^2 / max(var, eps)), plus 0.5 log(2 pi) with full;
    var may have one dim fewer than input, or a last dim of 1 (one variance for all), as torch."""
    import math

    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = var.unsqueeze(-1)
        elif input.size()[:-1] != var.size()[:-1] or var.size(-1) != 1:
            raise ValueError("var is of incorrect size")
    if reduction not in _REDUCTIONS:
        raise ValueError(reduction + " is not valid")
    if bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    from .. import autograd

    var = var.clone()
    with autograd.no_grad():  # as torch: the clamp is not differentiated through
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return loss.mean() if reduction == "mean" else loss.sum() if reduction == "sum" else loss


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """The mean over classes of binary cross-entropy with logits, per sample, then reduced."""
    if size_average is not None or reduce is not None:
        reduction = _reduction_name(size_average, reduce)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    return _reduced(loss.sum(dim=input.dim() - 1) / input.size(-1), reduction)


def dropout(input, p=0.5, training=True, inplace=False, *, generator=None):
    """torch.nn.functional.dropout: the operator's `train` is `training` here, True by default."""
    out = _random.dropout(input, p, training, generator=generator)
    return input.copy_(out) if inplace and out is not input else out


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, *,
                                 generator=None):
    """softmax(query @ key^T * scale + mask) @ value, scale defaulting to 1 / sqrt(E), with dropout on
    the weights; generator (a ctorch.Generator) draws the dropout mask."""
    if generator is None or dropout_p == 0:
        return _ops.call("scaled_dot_product_attention", query, key, value, attn_mask, dropout_p, is_causal,
                         scale=scale)
    # The boxed call carries no generator, so the same steps run here with one.
    from .. import dropout
    attn = scaled_dot_product_attention(query, key, _eye_like(key), attn_mask, 0.0, is_causal, scale)
    return dropout(attn, dropout_p, True, generator=generator) @ value


def _eye_like(key):  # value = identity: the attention weights themselves
    from .. import eye
    n = key.size(-2)
    return eye(n, dtype=key.dtype).expand(*key.shape[:-2], n, n)


# ---- padding (shape family) ----


def pad(input, pad, mode="constant", value=None):
    """torch.nn.functional.pad: pad (before, after) pairs from the last dim backwards; mode 'constant'
    (value, default 0; negative pads crop), 'reflect', 'replicate' or 'circular' (the last 1, 2 or
    3 dims of a 2-5 dim input). Accepts pad as any sequence of ints, as torch does."""
    return _ops.call("pad", input, [int(p) for p in pad], mode, value)


# ---- Functions torch.nn.functional defines in Python over other operators, defined the same way
# here: the Lp pools, local response norm, channel shuffle, the alpha dropouts, rrelu and the
# multi-class margin losses.

from ._ctc import ctc_loss  # noqa: E402,F401
from ._grid import affine_grid, grid_sample  # noqa: E402,F401
from ._attention import multi_head_attention_forward  # noqa: E402,F401
from ._fractional import (fractional_max_pool2d, fractional_max_pool2d_with_indices,  # noqa: E402,F401
                          fractional_max_pool3d, fractional_max_pool3d_with_indices)


def pdist(input, p=2):
    from .. import pdist as _pdist
    return _pdist(input, p)


# ---- torch.nn.functional's helpers for __torch_function__ overrides and argument checks. ctorch's
# Tensor defines no __torch_function__, so only objects of classes that do (a user's tensor-like
# wrapper) count as overrides.

def _overloaded(args):
    types = []
    for a in args:
        t = type(a)
        if hasattr(t, "__torch_function__") and t not in types:
            # a subclass is asked before its base, as torch orders them
            at = next((i for i, u in enumerate(types) if issubclass(t, u)), len(types))
            types.insert(at, t)
    return types


def has_torch_function(relevant_args):
    return bool(_overloaded(relevant_args))


def has_torch_function_unary(arg):
    return has_torch_function((arg,))


def has_torch_function_variadic(*args):
    return has_torch_function(args)


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Calls __torch_function__ of the overriding classes among relevant_args (subclasses first)
    until one does not return NotImplemented, as torch.overrides.handle_torch_function."""
    types = _overloaded(relevant_args)
    for t in types:
        result = t.__torch_function__(public_api, tuple(types), args, kwargs)
        if result is not NotImplemented:
            return result
    name = getattr(public_api, "__name__", str(public_api))
    raise TypeError(f"no implementation found for '{name}' on types that implement __torch_function__: "
                    f"{[t for t in types]}")


def assert_int_or_pair(arg, arg_name, message):
    assert isinstance(arg, int) or len(arg) == 2, message.format(arg_name)


def boolean_dispatch(arg_name, arg_index, default, if_true, if_false, module_name=None, func_name=None):
    """A function calling if_true or if_false by the boolean argument arg_name (keyword, or positional
    at arg_index; default when absent), as torch's _jit_internal.boolean_dispatch."""
    def fn(*args, **kwargs):
        flag = kwargs[arg_name] if arg_name in kwargs else (args[arg_index] if arg_index < len(args) else default)
        return if_true(*args, **kwargs) if flag else if_false(*args, **kwargs)
    if module_name is not None:
        fn.__module__ = module_name
    if func_name is not None:
        fn.__name__ = func_name
    fn.__doc__ = if_true.__doc__ or if_false.__doc__
    return fn


def _reduced(loss, reduction):
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(reduction + " is not valid")


def _lp_finish(out, norm_type, window):
    from .. import abs as _abs, sign
    return (sign(out) * relu(_abs(out))).mul(window).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """The power-average pool: (sum over each window of x^p)^(1/p), by avg_pool1d of x^p."""
    out = avg_pool1d(input.pow(norm_type), kernel_size, stride if stride is not None else None, 0, ceil_mode)
    return _lp_finish(out, norm_type, kernel_size)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """lp_pool1d over two dims, by avg_pool2d of x^p."""
    kh, kw = (kernel_size, kernel_size) if isinstance(kernel_size, int) else kernel_size
    out = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return _lp_finish(out, norm_type, kh * kw)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """x / (k + alpha * mean of x^2 over `size` neighbouring channels)^beta, the channels padded with
    size // 2 zeros before and (size - 1) // 2 after, as torch pads them."""
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    sizes = input.shape
    div = input.mul(input).reshape(sizes[0], 1, sizes[1], -1)  # the spatial dims as one
    div = pad(div, (0, 0, size // 2, (size - 1) // 2))
    div = avg_pool2d(div, (size, 1), stride=1).reshape(sizes)
    return input / div.mul(alpha).add(k).pow(beta)


def channel_shuffle(input, groups):
    """The channels (dim 1) regrouped: viewed as [groups, C / groups], transposed, flattened back."""
    if input.dim() < 3:
        raise RuntimeError(f"channel_shuffle expects input to have at least 3 dimensions, but got input with sizes "
                           f"{list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    n, c = input.shape[0], input.shape[1]
    if c % groups != 0:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    rest = list(input.shape[2:])
    return input.reshape(n, groups, c // groups, *rest).transpose(1, 2).reshape(input.shape)


native_channel_shuffle = channel_shuffle

_SELU_NEGATIVE_SATURATION = 1.7580993408473766  # scale * alpha of selu


def _alpha_dropout(name, input, p, training, inplace, feature):
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    if p == 1:
        out = input * 0
    else:
        if feature and input.dim() < 2:
            raise RuntimeError(f"{name}: Feature dropout requires at least 2 dimensions in the input")
        shape = list(input.shape[:2]) + [1] * (input.dim() - 2) if feature else list(input.shape)
        keep = _random.bernoulli(input.new_full(shape, 1 - p))
        # torch's affine correction: the dropped value is selu's saturation, mean and variance kept.
        a = 1.0 / math.sqrt((_SELU_NEGATIVE_SATURATION ** 2 * p + 1) * (1 - p))
        b = (keep - 1) * (_SELU_NEGATIVE_SATURATION * a) + _SELU_NEGATIVE_SATURATION * a * p
        out = input * (keep * a) + b
    return input.copy_(out) if inplace else out


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout for selu networks: dropped elements take selu's negative saturation and an affine
    correction keeps the mean and variance."""
    return _alpha_dropout("alpha_dropout", input, p, training, inplace, False)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """alpha_dropout of whole channels (one draw per [N, C] entry)."""
    return _alpha_dropout("feature_alpha_dropout", input, p, training, inplace, True)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Randomized leaky relu: in training each non-positive element is scaled by a slope drawn
    uniformly from [lower, upper]; in eval by their mean."""
    if not training:
        return leaky_relu(input, (lower + upper) / 2, inplace)
    from .. import empty_like, where
    slope = empty_like(input).uniform_(lower, upper)
    out = where(input <= 0, input * slope, input)
    return input.copy_(out) if inplace else out


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return rrelu(input, lower, upper, training, True)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    """Per sample: the mean over classes j != y of max(0, margin - x[y] + x[j])^p (times weight[y])."""
    if size_average is not None or reduce is not None:
        reduction = _reduction_name(size_average, reduce)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if input.dim() not in (1, 2) or input.numel() == 0 and input.dim() != 2:
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    x = input if input.dim() == 2 else input.unsqueeze(0)
    y = target.reshape(-1)
    if y.numel() != x.shape[0]:
        raise RuntimeError(f"inconsistent target size, expected {x.shape[0]} but got {list(target.shape)}")
    classes = x.shape[1]
    chosen = x.gather(1, y.unsqueeze(1))
    z = (margin - chosen + x).clamp_min(0)
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight.gather(0, y).unsqueeze(1)
    z = z.masked_fill(_ops.call("one_hot", y, classes).bool(), 0)
    loss = z.sum(1) / classes
    return _reduced(loss if input.dim() == 2 else loss.reshape(()), reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Per sample: sum over its target classes j (the entries of target before the first -1) and the
    other classes k of max(0, 1 - (x[j] - x[k])), over the number of classes."""
    if size_average is not None or reduce is not None:
        reduction = _reduction_name(size_average, reduce)
    if input.dim() not in (1, 2) or target.shape != input.shape:
        raise RuntimeError(f"multilabel_margin_loss: input {list(input.shape)} and target {list(target.shape)} "
                           "must be one vector or matrix of the same sizes")
    x = input if input.dim() == 2 else input.unsqueeze(0)
    t = target if target.dim() == 2 else target.unsqueeze(0)
    classes = x.shape[1]
    valid = (t != -1).long().cumprod(1).bool()                  # the entries before the first -1
    index = t.clamp_min(0)
    from .. import int64, zeros
    is_target = zeros(x.shape, dtype=int64).scatter_add(1, index, valid.long()) > 0  # named before the first -1
    x_target = x.gather(1, index)                               # [N, entries]
    hinge = (1 - (x_target.unsqueeze(2) - x.unsqueeze(1))).clamp_min(0)  # [N, entries, classes]
    hinge = hinge * (valid.unsqueeze(2) & ~is_target.unsqueeze(1))
    loss = hinge.sum((1, 2)) / classes
    return _reduced(loss if input.dim() == 2 else loss.reshape(()), reduction)
