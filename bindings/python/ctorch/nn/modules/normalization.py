"""LayerNorm, GroupNorm, RMSNorm, LocalResponseNorm and CrossMapLRN2d (torch.nn's of those names)."""

from ...autograd import Function
from .. import functional as F
from ..parameter import Parameter
from .module import Module

__all__ = ["LayerNorm", "GroupNorm", "RMSNorm", "LocalResponseNorm", "CrossMapLRN2d"]


class LayerNorm(Module):
    """Normalizes over the trailing normalized_shape dims; weight ones and bias zeros of that shape."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        from ... import ones, zeros  # here: ctorch imports nn before its factories

        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape, self.eps, self.elementwise_affine = shape, eps, elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(ones(*shape, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(zeros(*shape, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class GroupNorm(Module):
    """Normalizes each of num_groups channel groups of [N, C, *]; per-channel weight ones, bias zeros."""

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None):
        super().__init__()
        from ... import ones, zeros

        if num_channels % num_groups != 0:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        if affine:
            self.weight = Parameter(ones(num_channels, device=device, dtype=dtype))
            self.bias = Parameter(zeros(num_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}"


class RMSNorm(Module):
    """x / sqrt(mean(x^2) + eps) over the trailing normalized_shape dims, times weight (ones); eps
    None means the dtype's machine epsilon, as torch."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        from ... import ones

        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape, self.eps, self.elementwise_affine = shape, eps, elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(ones(*shape, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)

    def forward(self, input):
        return F.rms_norm(input, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class LocalResponseNorm(Module):
    """Normalizes each channel by its neighbours' mean square (F.local_response_norm)."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


def _cross_map_scale(input, size, alpha, k):
    """k + alpha / size * s, s the sum of squares over torch's channel window for each channel:
    [c - p + 1, c + p - 1] (p = (size - 1) // 2 + 1, clipped to the input), where channel 0, once in
    the window, never leaves it (torch's recurrence subtracts the channel before the window from the
    second step on). Prefix sums over the channels."""
    from ... import arange, cat
    channels = input.shape[1]
    pre = (size - 1) // 2 + 1
    squares = input * input
    prefix = cat([squares.narrow(1, 0, 1) * 0, squares.cumsum(1)], 1)  # prefix[i]: channels [0, i)
    c = arange(channels, device=input.device)
    hi = (c + pre).clamp_max(channels)  # one past the window's last channel
    lo = (c - pre + 1).clamp_min(0).masked_fill(c <= pre, 0)
    window = prefix.index_select(1, hi) - prefix.index_select(1, lo)
    keeps_first = (c > pre).to(input.dtype).reshape(1, -1, 1, 1)
    return k + alpha / size * (window + keeps_first * squares.narrow(1, 0, 1))


class _CrossMapLRN2dFunction(Function):
    """torch's CrossMapLRN2d computes its gradient for the symmetric window (size channels around
    each, starting int(size - (size - 1) / 2) before it), not for the window its forward sums: this
    backward is that one, so gradients match torch's."""

    @staticmethod
    def forward(ctx, input, size, alpha, beta, k):
        scale = _cross_map_scale(input, size, alpha, k)
        output = input * scale ** -beta
        ctx.save_for_backward(input, output, scale)
        ctx.size, ctx.alpha, ctx.beta = size, alpha, beta
        return output

    @staticmethod
    def backward(ctx, grad_output):
        from ... import arange, cat
        input, output, scale = ctx.saved_tensors
        size, channels = ctx.size, input.shape[1]
        before = int(size - (size - 1) / 2)  # torch's inversePrePad, in its float arithmetic
        ratio = grad_output * output / scale
        prefix = cat([ratio.narrow(1, 0, 1) * 0, ratio.cumsum(1)], 1)
        c = arange(channels, device=input.device)
        lo = (c - before).clamp(0, channels)
        hi = (c - before + size).clamp(0, channels)
        window = prefix.index_select(1, hi) - prefix.index_select(1, lo)
        grad = scale ** -ctx.beta * grad_output - 2 * ctx.alpha * ctx.beta / size * input * window
        return grad, None, None, None, None


class CrossMapLRN2d(Module):
    """The legacy cross-channel LRN of [N, C, H, W] input: x / (k + alpha / size * s) ** beta over
    torch's channel windows (see _cross_map_scale), with torch's gradient."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        if input.dim() != 4:  # torch asserts
            raise AssertionError(f"CrossMapLRN2d: expected a 4-D input [N, C, H, W], got {input.dim()}-D")
        return _CrossMapLRN2dFunction.apply(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
