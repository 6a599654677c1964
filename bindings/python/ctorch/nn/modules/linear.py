"""Linear, Bilinear, Identity, Flatten and Unflatten (torch.nn's)."""

from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Linear", "Bilinear", "Identity", "Flatten", "Unflatten"]


def _add_weight_and_bias(module, weight_sizes, bias, out_features, device, dtype):
    """module.weight, an uninitialized Parameter of weight_sizes, and module.bias, one of
    [out_features] or None: the parameters of Linear, Bilinear and the convolutions, registered in
    torch's order (reset_parameters fills them)."""
    from ... import empty  # here: ctorch imports nn before its factories

    module.weight = Parameter(empty(*weight_sizes, device=device, dtype=dtype))
    if bias:
        module.bias = Parameter(empty(out_features, device=device, dtype=dtype))
    else:
        module.register_parameter("bias", None)


class Identity(Module):
    """Returns its input; accepts and ignores any constructor arguments, as torch's does."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """y = x @ weight^T + bias. weight [out_features, in_features] and bias [out_features] start as
    torch's do: init.linear_ (kaiming_uniform_ with a=sqrt(5), bias from U(+-1/sqrt(in_features)))."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        _add_weight_and_bias(self, (out_features, in_features), bias, out_features, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        init.linear_(self.weight, self.bias)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Flatten(Module):
    """Flattens dims start_dim..end_dim (default: all but the batch dim) into one."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Splits dim into unflattened_size (one entry may be -1)."""

    def __init__(self, dim, unflattened_size):
        super().__init__()
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class Bilinear(Module):
    """y = x1^T A x2 + b: weight [out_features, in1_features, in2_features] and bias from
    U(-1/sqrt(in1_features), 1/sqrt(in1_features)), as torch's."""

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in1_features, self.in2_features, self.out_features = in1_features, in2_features, out_features
        _add_weight_and_bias(self, (out_features, in1_features, in2_features), bias, out_features, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1 / self.weight.size(1) ** 0.5
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")
