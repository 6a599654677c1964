"""Lazy modules (torch.nn.LazyLinear, LazyConv1d/2d, LazyConvTranspose2d, LazyBatchNorm1d/2d/3d,
LazyInstanceNorm1d/2d/3d): their input size (in_features, in_channels, num_features) is read from
the first input. Until then their parameters are UninitializedParameters; the first call
materializes them in place (the same Python objects), initialized as the eager module's, and the
module becomes that module (LazyLinear a Linear). ctorch's optimizers hold the library tensors they
are given, so they refuse uninitialized parameters: run the model once before creating one (the
dry run torch's documentation asks for)."""

from ..parameter import UninitializedParameter
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .linear import Linear
from .module import Module

__all__ = ["LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d",
           "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d",
           "LazyBatchNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d"]


class _LazyModule(Module):
    """Holds the eager module's arguments but the input size; the first call builds the eager module
    with the size it reads, moves its parameters into this module's placeholders and its other
    state (buffers, sizes) into this module, and turns this module into it."""

    cls_to_become = None

    def __init__(self, params, args, kwargs, device=None, dtype=None):
        super().__init__()
        self._lazy = (args, kwargs, device, dtype)
        for name in params:
            setattr(self, name, UninitializedParameter(device=device, dtype=dtype))

    def has_uninitialized_params(self):
        return any(isinstance(p, UninitializedParameter) for p in self._parameters.values())

    def _input_size(self, input):
        raise NotImplementedError

    def initialize_parameters(self, input, *_):
        args, kwargs, device, dtype = self._lazy
        # .to() / .double() before the first call re-made the placeholders in their new dtype and device.
        held = next((p for p in self._parameters.values() if isinstance(p, UninitializedParameter)), None)
        if held is not None:
            device, dtype = held.device, held.dtype
        eager = self.cls_to_become(self._input_size(input), *args, device=device, dtype=dtype, **kwargs)
        placeholders = dict(self._parameters)
        # The eager module's sizes and buffers; this module keeps its own hooks, mode and submodules.
        state = {k: v for k, v in eager.__dict__.items() if k not in self.__dict__ or k == "_buffers"}
        for name, param in eager._parameters.items():
            holder = placeholders.get(name)
            if param is None or holder is None:
                self._parameters[name] = param
            else:
                holder._become(param)
                self._parameters[name] = holder
        self.__dict__.update(state)
        del self.__dict__["_lazy"]
        self.__class__ = self.cls_to_become

    def __call__(self, *args, **kwargs):
        if self.has_uninitialized_params():
            self.initialize_parameters(*args, **kwargs)
        return Module.__call__(self, *args, **kwargs)

    def extra_repr(self):
        return "(uninitialized)"


class LazyLinear(_LazyModule):
    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(["weight", "bias"] if bias else ["weight"], (out_features,), {"bias": bias}, device, dtype)
        if not bias:
            self.register_parameter("bias", None)

    def _input_size(self, input):
        return input.shape[-1]


class _LazyConv(_LazyModule):
    """The lazy convolutions: their eager module's arguments but in_channels."""

    _spatial = 2

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None, **more):
        super().__init__(["weight", "bias"] if bias else ["weight"], (out_channels, kernel_size),
                         dict(more, stride=stride, padding=padding, dilation=dilation, groups=groups, bias=bias,
                              padding_mode=padding_mode), device, dtype)
        if not bias:
            self.register_parameter("bias", None)

    def _input_size(self, input):  # the channel dim of a batched or an unbatched input
        return input.shape[0] if input.dim() == self._spatial + 1 else input.shape[1]


class LazyConv1d(_LazyConv):
    cls_to_become = Conv1d
    _spatial = 1


class LazyConv2d(_LazyConv):
    cls_to_become = Conv2d


class LazyConv3d(_LazyConv):
    cls_to_become = Conv3d
    _spatial = 3


class LazyConvTranspose2d(_LazyConv):
    cls_to_become = ConvTranspose2d

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                 dilation=1, padding_mode="zeros", device=None, dtype=None):
        super().__init__(out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode, device, dtype,
                         output_padding=output_padding)


class _LazyNorm(_LazyModule):
    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None):
        super().__init__(["weight", "bias"] if affine else [], (),
                         dict(eps=eps, momentum=momentum, affine=affine, track_running_stats=track_running_stats),
                         device, dtype)
        if not affine:  # no parameters to wait for: the size comes from the first input all the same
            self._lazy_pending = True

    def has_uninitialized_params(self):
        return super().has_uninitialized_params() or self.__dict__.get("_lazy_pending", False)

    def initialize_parameters(self, input, *rest):
        self.__dict__.pop("_lazy_pending", None)
        super().initialize_parameters(input, *rest)

    def _input_size(self, input):  # the channel dim; an unbatched instance-norm input has it first
        unbatched = self.cls_to_become.__name__.startswith("Instance") and input.dim() == min(self.cls_to_become._dims)
        return input.shape[0] if unbatched else input.shape[1]


class LazyBatchNorm1d(_LazyNorm):
    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyNorm):
    cls_to_become = BatchNorm2d


class LazyBatchNorm3d(_LazyNorm):
    cls_to_become = BatchNorm3d


# torch's lazy instance norms default to affine=True and track_running_stats=True, unlike the
# eager ones: kept, so that code written for torch builds the same modules.
class LazyInstanceNorm1d(_LazyNorm):
    cls_to_become = InstanceNorm1d


class LazyInstanceNorm2d(_LazyNorm):
    cls_to_become = InstanceNorm2d


class LazyInstanceNorm3d(_LazyNorm):
    cls_to_become = InstanceNorm3d


class LazyConvTranspose1d(LazyConvTranspose2d):
    cls_to_become = ConvTranspose1d
    _spatial = 1


class LazyConvTranspose3d(LazyConvTranspose2d):
    cls_to_become = ConvTranspose3d
    _spatial = 3
