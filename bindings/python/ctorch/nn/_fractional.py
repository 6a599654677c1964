"""fractional_max_pool2d and fractional_max_pool3d (torch.nn.functional's): max pooling over
windows whose starts follow a pseudo-random sequence per (sample, channel), from one uniform
sample per spatial dim, as torch's generate_intervals computes them (in the input's dtype). The
samples come from ctorch's generator unless _random_samples gives them (torch's numbers then).
Composed of gather and max, so the gradient is autograd's."""

import math


def _intervals(sample, size, out, pool, dtype):
    """[N, C, out] window starts: int((i + u) * alpha) - int(u * alpha), the last at size - pool."""
    from .. import arange, cat, full, int64
    n, c = sample.shape[0], sample.shape[1]
    last = full((n, c, 1 if out > 0 else 0), size - pool, dtype=int64, device=sample.device)
    if out <= 1:
        return last
    alpha = (sample.new_full((1,), float(size - pool)) / float(out - 1)).to(dtype)  # in the input's dtype
    i = arange(out - 1, device=sample.device).to(dtype).reshape(1, 1, -1)
    u = sample.unsqueeze(-1).to(dtype)
    starts = ((i + u) * alpha).floor().long() - (u * alpha).floor().long()
    return cat([starts, last], -1)


def _pool(op, input, kernel_size, output_size, output_ratio, samples, dims):
    from .. import arange, rand
    if input.dim() not in (dims + 1, dims + 2):
        raise RuntimeError(f"{op}(): Expected {dims + 1}D or {dims + 2}D tensor, but got: {list(input.shape)}")
    unbatched = input.dim() == dims + 1
    x = input.unsqueeze(0) if unbatched else input
    n, c = x.shape[0], x.shape[1]
    spatial = list(x.shape[2:])
    kernel = [kernel_size] * dims if isinstance(kernel_size, int) else list(kernel_size)
    if output_size is None:
        if output_ratio is None:
            raise ValueError(f"{op} requires specifying either an output_size or an output_ratio")
        ratio = [output_ratio] * dims if isinstance(output_ratio, (int, float)) else list(output_ratio)
        output_size = [int(s * r) for s, r in zip(spatial, ratio)]
    out = [output_size] * dims if isinstance(output_size, int) else list(output_size)
    if len(kernel) != dims or len(out) != dims:
        raise RuntimeError(f"{op}(): kernel_size and output_size must have {dims} values each")
    for s, k, o in zip(spatial, kernel, out):
        if o + k - 1 > s:
            raise RuntimeError(f"{op}(): pool size {k} too large relative to input size {s} and output size {o}")
    if samples is None:
        samples = rand(n, c, dims, dtype=x.dtype, device=x.device)
    if tuple(samples.shape) != (n, c, dims):
        raise RuntimeError(f"{op}(): expected _random_samples of shape {[n, c, dims]}, got {list(samples.shape)}")
    # torch's sample order: width first in 2-D ([0] W, [1] H); depth, height, width in 3-D.
    order = [1, 0] if dims == 2 else [0, 1, 2]
    starts = [_intervals(samples.select(2, order[d]), spatial[d], out[d], kernel[d], x.dtype) for d in range(dims)]
    # The flat position of every window element: [N, C, *out, *kernel].
    linear = None
    for d in range(dims):
        pos = starts[d].reshape([n, c] + [out[d] if e == d else 1 for e in range(dims)] + [1] * dims)
        tap = arange(kernel[d], device=x.device).reshape([1, 1] + [1] * dims + [kernel[d] if e == d else 1
                                                                                 for e in range(dims)])
        index = pos + tap
        linear = index if linear is None else linear * spatial[d] + index
    window = math.prod(kernel)  # explicit sizes below: -1 cannot be inferred for an empty batch
    linear = linear.expand([n, c] + out + kernel).reshape(n, c, math.prod(out) * window)
    picked = x.reshape(n, c, math.prod(spatial)).gather(2, linear).reshape([n, c] + out + [window])
    values, at = picked.max(-1)
    indices = linear.reshape([n, c] + out + [window]).gather(-1, at.unsqueeze(-1)).squeeze(-1)
    if unbatched:
        values, indices = values.squeeze(0), indices.squeeze(0)
    return values, indices


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    r = _pool("fractional_max_pool2d", input, kernel_size, output_size, output_ratio, _random_samples, 2)
    return r if return_indices else r[0]


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    r = _pool("fractional_max_pool3d", input, kernel_size, output_size, output_ratio, _random_samples, 3)
    return r if return_indices else r[0]


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None, return_indices=True,
                                       _random_samples=None):
    return _pool("fractional_max_pool2d", input, kernel_size, output_size, output_ratio, _random_samples, 2)


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None, return_indices=True,
                                       _random_samples=None):
    return _pool("fractional_max_pool3d", input, kernel_size, output_size, output_ratio, _random_samples, 3)
