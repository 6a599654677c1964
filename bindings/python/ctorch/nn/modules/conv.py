"""Conv2d (torch.nn.Conv2d) over the conv2d operator."""

from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Conv2d"]

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


class Conv2d(Module):
    """2-D convolution over [N, C, H, W] (or [C, H, W]) input. weight [out_channels, in_channels /
    groups, kh, kw] and bias [out_channels] start as torch's do (init.linear_). padding is a number,
    a pair, 'valid' or 'same'; padding_mode other than 'zeros' pads the input with F.pad first."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        super().__init__()
        from ... import empty  # here: ctorch imports nn before its factories

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
            if padding == "same" and any(s != 1 for s in _pair(stride)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size, self.stride, self.dilation = _pair(kernel_size), _pair(stride), _pair(dilation)
        self.padding = padding if isinstance(padding, str) else _pair(padding)
        self.padding_mode = padding_mode
        self.weight = Parameter(empty(out_channels, in_channels // groups, *self.kernel_size, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.linear_(self.weight, self.bias)

    def _reversed_padding(self):
        """F.pad's (left, right, top, bottom) for the padding_mode path; 'same' splits as torch does."""
        if self.padding == "valid":
            return (0, 0, 0, 0)
        if self.padding == "same":
            out = []
            for d, k in zip(reversed(self.dilation), reversed(self.kernel_size)):
                total = d * (k - 1)
                out += [total // 2, total - total // 2]
            return tuple(out)
        ph, pw = self.padding
        return (pw, pw, ph, ph)

    def forward(self, input):
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding(), mode=self.padding_mode)
            return F.conv2d(padded, self.weight, self.bias, list(self.stride), [0, 0], list(self.dilation), self.groups)
        padding = self.padding if isinstance(self.padding, str) else list(self.padding)
        return F.conv2d(input, self.weight, self.bias, list(self.stride), padding, list(self.dilation), self.groups)

    def extra_repr(self):
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}")
        if self.padding != (0, 0):
            s += f", padding={self.padding!r}" if isinstance(self.padding, str) else f", padding={self.padding}"
        if self.dilation != (1, 1):
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


