"""BatchNorm1d/2d and InstanceNorm1d/2d/3d (torch.nn's): running statistics are buffers."""

from ...autograd import Function, no_grad
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
           "SyncBatchNorm"]


class _BatchNorm(Module):
    _dims = ()

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None,
                 dtype=None):
        super().__init__()
        from ... import int64, ones, tensor, zeros  # here: ctorch imports nn before its factories

        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = Parameter(ones(num_features, device=device, dtype=dtype))
            self.bias = Parameter(zeros(num_features, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, device=device, dtype=dtype))
            self.register_buffer("running_var", ones(num_features, device=device, dtype=dtype))
            self.register_buffer("num_batches_tracked", tensor(0, dtype=int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def reset_running_stats(self):
        if self.track_running_stats:
            init.zeros_(self.running_mean)
            init.ones_(self.running_var)
            init.zeros_(self.num_batches_tracked)

    def reset_parameters(self):
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            init.zeros_(self.bias)

    def _check_input_dim(self, input):
        if input.dim() not in self._dims:
            raise ValueError(f"expected {' or '.join(f'{d}D' for d in self._dims)} input (got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        momentum = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:  # a cumulative moving average
                momentum = 1.0 / float(self.num_batches_tracked.item())
        # Batch statistics in training mode, and whenever there are no running ones to use.
        use_batch_stats = self.training or self.running_mean is None
        track = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if track else None, self.running_var if track else None,
                            self.weight, self.bias, use_batch_stats, momentum, self.eps)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Normalizes [N, C] or [N, C, L] input per channel C."""

    _dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Normalizes [N, C, H, W] input per channel C: batch statistics in training (and the running
    mean and unbiased variance updated with momentum), the running ones in eval mode."""

    _dims = (4,)


class BatchNorm3d(_BatchNorm):
    """Normalizes [N, C, D, H, W] input per channel C."""

    _dims = (5,)


class _InstanceNorm(_BatchNorm):
    """Per-sample, per-channel statistics (F.instance_norm). Unlike BatchNorm, affine and
    track_running_stats default to False; with running statistics, eval mode uses them."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False, device=None,
                 dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)

    def forward(self, input):
        if input.dim() not in self._dims:
            raise ValueError(f"expected {' or '.join(f'{d}D' for d in self._dims)} input (got {input.dim()}D input)")
        unbatched = input.dim() == self._dims[0]
        if unbatched:
            input = input.unsqueeze(0)
        out = F.instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                              self.training or not self.track_running_stats,
                              0.1 if self.momentum is None else self.momentum, self.eps)
        return out.squeeze(0) if unbatched else out


class InstanceNorm1d(_InstanceNorm):
    """Normalizes [N, C, L] (or [C, L]) per sample and channel."""

    _dims = (2, 3)


class InstanceNorm2d(_InstanceNorm):
    """Normalizes [N, C, H, W] (or [C, H, W]) per sample and channel."""

    _dims = (3, 4)


class InstanceNorm3d(_InstanceNorm):
    """Normalizes [N, C, D, H, W] (or [C, D, H, W]) per sample and channel."""

    _dims = (4, 5)


def _channel_layout(input):
    """The dimensions batch statistics reduce over ([N, C, *]: all but 1) and the shape that
    broadcasts a per-channel vector against input."""
    return [0] + list(range(2, input.dim())), [1, input.shape[1]] + [1] * (input.dim() - 2)


def _stats_dtype(dtype):
    """Statistics are accumulated in float64 for float64 input, in float32 otherwise (as torch's
    kernels accumulate half and bfloat16 in float)."""
    from ... import float64, float32
    return float64 if dtype == float64 else float32


class _SyncBatchNormFunction(Function):
    """Batch normalization over the union of every rank's batch (torch's sync_batch_norm).

    forward: each rank's per-channel sum and element count are all_reduced into the global mean;
    then the per-channel sum of squared deviations from that mean is all_reduced into the global
    (biased) variance. Two passes, as a single process computes them, so ranks' uneven or empty
    batches give the numbers of one process holding the whole batch. The running statistics take
    the global mean and the unbiased global variance.

    backward: sum_dy and sum_dy_xmu per channel are all_reduced (when the input needs a gradient,
    as torch's) and the input gradient is the full batch's; the weight and bias gradients stay this
    rank's own (DistributedDataParallel averages them across ranks afterwards, as in torch)."""

    @staticmethod
    def forward(ctx, input, weight, bias, running_mean, running_var, eps, momentum, process_group):
        from ... import cat, full
        from ... import distributed as dist
        dims, shape = _channel_layout(input)
        channels = input.shape[1]
        acc = _stats_dtype(input.dtype)
        x = input.to(acc)
        local_count = input.numel() // channels
        totals = cat([x.sum(dims), full((1,), float(local_count), dtype=acc, device=input.device)])
        dist.all_reduce(totals, group=process_group)
        count = totals[channels].item()
        if count <= 1:  # the same on every rank: count is global
            raise ValueError(f"Expected more than 1 value per channel when training, got {int(count)} over the "
                             "process group's ranks")
        mean = totals[:channels] / count
        xmu = x - mean.reshape(shape)
        sq = (xmu * xmu).sum(dims)
        dist.all_reduce(sq, group=process_group)
        var = sq / count
        invstd = (var + eps).rsqrt()
        if running_mean is not None:
            running_mean.mul_(1 - momentum).add_((mean * momentum).to(running_mean.dtype))
        if running_var is not None:
            running_var.mul_(1 - momentum).add_((var * (count / (count - 1)) * momentum).to(running_var.dtype))
        scale = invstd if weight is None else invstd * weight.to(acc)
        out = xmu * scale.reshape(shape)
        if bias is not None:
            out = out + bias.to(acc).reshape(shape)
        ctx.save_for_backward(input, weight, mean, invstd)
        ctx.count, ctx.process_group = count, process_group
        ctx.bias_dtype = None if bias is None else bias.dtype
        return out.to(input.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        from ... import cat
        from ... import distributed as dist
        input, weight, mean, invstd = ctx.saved_tensors
        dims, shape = _channel_layout(input)
        channels = input.shape[1]
        acc = mean.dtype
        dy = grad_output.to(acc)
        xmu = input.to(acc) - mean.reshape(shape)
        sum_dy = dy.sum(dims)
        sum_dy_xmu = (dy * xmu).sum(dims)
        grad_input = grad_weight = grad_bias = None
        if weight is not None and ctx.needs_input_grad[1]:
            grad_weight = (sum_dy_xmu * invstd).to(weight.dtype)
        if ctx.needs_input_grad[2]:
            grad_bias = sum_dy.to(ctx.bias_dtype)
        if ctx.needs_input_grad[0]:
            sums = cat([sum_dy, sum_dy_xmu])
            dist.all_reduce(sums, group=ctx.process_group)
            mean_dy = sums[:channels] / ctx.count
            mean_dy_xmu = sums[channels:] / ctx.count
            scale = invstd if weight is None else invstd * weight.to(acc)
            grad_input = ((dy - mean_dy.reshape(shape) - xmu * (invstd * invstd * mean_dy_xmu).reshape(shape))
                          * scale.reshape(shape)).to(input.dtype)
        return grad_input, grad_weight, grad_bias, None, None, None, None, None


class SyncBatchNorm(_BatchNorm):
    """Batch normalization of [N, C, *] input whose training statistics are those of every rank's
    batch together, as torch's SyncBatchNorm.

    In training mode, with ctorch.distributed initialized and process_group (the default group
    for None) of more than one rank, the per-channel mean and variance are all_reduced over the
    group's ranks (their batch sizes may differ, and a rank's may be empty), the input gradient
    all_reduces its per-channel terms in backward, and the running statistics take the global
    mean and unbiased variance. Every rank of the group must run forward (and backward) together.
    Otherwise (eval mode, no process group initialized, a group of one rank, or a rank outside
    process_group) it is BatchNorm on this process's batch. Unlike torch 1.13, CPU tensors are
    synchronized too (over gloo)."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 process_group=None, device=None, dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)
        self.process_group = process_group

    def forward(self, input):
        from ... import distributed as dist
        self._check_input_dim(input)
        # torch's condition: training with batch statistics, and a group of more than one rank.
        need_sync = self.training and dist.is_initialized()
        if need_sync:
            group = self.process_group if self.process_group is not None else dist.group.WORLD
            need_sync = dist.get_world_size(group) > 1
        if not need_sync:
            return super().forward(input)
        if input.shape[1] != self.num_features:  # before a collective of the wrong size could go out
            raise ValueError(f"SyncBatchNorm: expected {self.num_features} channels, got input of shape "
                             f"{tuple(input.shape)}")
        momentum = 0.0 if self.momentum is None else self.momentum
        if self.track_running_stats:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:  # a cumulative moving average
                momentum = 1.0 / float(self.num_batches_tracked.item())
        track = self.track_running_stats
        return _SyncBatchNormFunction.apply(input, self.weight, self.bias, self.running_mean if track else None,
                                            self.running_var if track else None, self.eps, momentum,
                                            self.process_group)

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")
        if input.shape[1] == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """module with every BatchNorm*d (itself or inside) replaced by a SyncBatchNorm holding the
        same parameters, running statistics and mode."""
        converted = module
        if isinstance(module, _BatchNorm) and not isinstance(module, SyncBatchNorm):
            converted = cls(module.num_features, module.eps, module.momentum, module.affine,
                            module.track_running_stats, process_group)
            if module.affine:
                converted.weight, converted.bias = module.weight, module.bias
            converted.running_mean, converted.running_var = module.running_mean, module.running_var
            converted.num_batches_tracked = module.num_batches_tracked
            converted.training = module.training
        for name, child in module.named_children():
            converted.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return converted
