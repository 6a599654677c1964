"""Conv1d, Conv2d, Conv3d and ConvTranspose1d/2d/3d (torch.nn's) over the operators of those names."""

from .. import functional as F
from .. import init
from .linear import _add_weight_and_bias
from .module import Module

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def _tuple(v, n):
    return (v,) * n if isinstance(v, int) else tuple(v)


def _pair(v):
    return _tuple(v, 2)


class _ConvNd(Module):
    """N-d convolution over [N, C, *spatial] (or [C, *spatial]) input. weight [out_channels,
    in_channels / groups, *kernel] and bias [out_channels] start as torch's do (init.linear_).
    padding is a number, a tuple, 'valid' or 'same'; padding_mode other than 'zeros' (and 'same'
    padding an operator does not take) pads the input with F.pad first."""

    _dims = 2
    _transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None, output_padding=0):
        super().__init__()
        n = self._dims
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {list(_PADDING_MODES)}, but got padding_mode='{padding_mode}'")
        if isinstance(padding, str):
            if padding not in ("valid", "same"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of ['valid', 'same']")
            if padding == "same" and any(s != 1 for s in _tuple(stride, n)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size, self.stride, self.dilation = _tuple(kernel_size, n), _tuple(stride, n), _tuple(dilation, n)
        self.padding = padding if isinstance(padding, str) else _tuple(padding, n)
        self.output_padding = _tuple(output_padding, n)
        self.padding_mode = padding_mode
        self.transposed = self._transposed
        shape = (in_channels, out_channels // groups) if self._transposed else (out_channels, in_channels // groups)
        _add_weight_and_bias(self, shape + self.kernel_size, bias, out_channels, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        init.linear_(self.weight, self.bias)

    def _reversed_padding(self):
        """F.pad's (left, right, top, bottom) for the padding_mode path; 'same' splits as torch does."""
        if self.padding == "valid":
            return (0, 0) * self._dims
        if self.padding == "same":
            out = []
            for d, k in zip(reversed(self.dilation), reversed(self.kernel_size)):
                total = d * (k - 1)
                out += [total // 2, total - total // 2]
            return tuple(out)
        return tuple(p for p in reversed(self.padding) for _ in range(2))

    def _conv(self, input, padding):
        fn = (F.conv1d, F.conv2d, F.conv3d)[self._dims - 1]
        return fn(input, self.weight, self.bias, list(self.stride), padding, list(self.dilation), self.groups)

    def forward(self, input):
        if self.padding_mode != "zeros":
            mode = "constant" if self.padding_mode == "zeros" else self.padding_mode
            padded = F.pad(input, self._reversed_padding(), mode=mode)
            return self._conv(padded, [0] * self._dims)
        return self._conv(input, self.padding if isinstance(self.padding, str) else list(self.padding))

    def extra_repr(self):
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}")
        if self.padding != (0,) * self._dims:
            s += f", padding={self.padding!r}" if isinstance(self.padding, str) else f", padding={self.padding}"
        if self.dilation != (1,) * self._dims:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * self._dims:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class Conv1d(_ConvNd):
    """1-D convolution over [N, C, L] (or [C, L]) input."""

    _dims = 1

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode,
                         device, dtype)


class Conv2d(_ConvNd):
    """2-D convolution over [N, C, H, W] (or [C, H, W]) input."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode,
                         device, dtype)


class Conv3d(_ConvNd):
    """3-D convolution over [N, C, D, H, W] (or [C, D, H, W]) input."""

    _dims = 3

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode,
                         device, dtype)


class ConvTranspose2d(_ConvNd):
    """The transpose (gradient) of a 2-D convolution: weight [in_channels, out_channels / groups, kh,
    kw]; output_padding adds to one side of the output; forward(input, output_size) picks it from
    the size wanted, as torch's."""

    _transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        if isinstance(padding, str):
            raise ValueError(f"{type(self).__name__} does not take padding={padding!r}; pass numbers")
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode,
                         device, dtype, output_padding)

    def _output_padding(self, input, output_size):
        if output_size is None:
            return list(self.output_padding)
        n = self._dims
        size = list(output_size)[-n:]
        out = []
        for d in range(n):
            dim = input.dim() - n + d
            smallest = ((input.size(dim) - 1) * self.stride[d] - 2 * self.padding[d] +
                        self.dilation[d] * (self.kernel_size[d] - 1) + 1)
            if not smallest <= size[d] < smallest + self.stride[d]:
                raise ValueError(f"requested an output size of {size}, but valid sizes range from {smallest} to "
                                 f"{smallest + self.stride[d] - 1} (for an input of {list(input.shape)[-n:]})")
            out.append(size[d] - smallest)
        return out

    def forward(self, input, output_size=None):
        fn = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[self._dims - 1]
        return fn(input, self.weight, self.bias, list(self.stride), list(self.padding),
                  self._output_padding(input, output_size), self.groups, list(self.dilation))


class ConvTranspose1d(ConvTranspose2d):
    """The transpose of a 1-D convolution over [N, C, L] (or [C, L]) input."""

    _dims = 1


class ConvTranspose3d(ConvTranspose2d):
    """The transpose of a 3-D convolution over [N, C, D, H, W] (or [C, D, H, W]) input."""

    _dims = 3
