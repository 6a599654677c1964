"""affine_grid and grid_sample (torch.nn.functional's spatial transformer functions) in 2-D and 3-D,
composed of ctorch's operators (gather, floor, arithmetic), so both the input's and the grid's
gradients come from autograd.

grid_sample reads input [N, C, *spatial] at the normalized coordinates of grid [N, *out, dims]
((x, y) or (x, y, z), -1 and 1 the edges: corner centers with align_corners, outer edges
without), bilinear (trilinear in 3-D) or nearest, with padding_mode zeros, border or reflection, as
torch computes them; bicubic is 2-D only."""

import builtins
import itertools

_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
_PADDINGS = {"zeros": 0, "border": 1, "reflection": 2}


def _linspace_from_neg_one(theta, steps, align_corners):
    from .. import arange, zeros
    if steps <= 1:
        return zeros(1, dtype=theta.dtype, device=theta.device)
    r = arange(steps, dtype=theta.dtype, device=theta.device) * (2.0 / (steps - 1)) - 1.0
    return r if align_corners else r * ((steps - 1) / steps)


def affine_grid(theta, size, align_corners=None):
    """The sampling grid [N, H, W, 2] (or [N, D, H, W, 3]) that theta [N, 2, 3] ([N, 3, 4]) maps the
    output's normalized coordinates to, for grid_sample."""
    from .. import stack
    align_corners = bool(align_corners)
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = list(size)
    if len(size) == 4:
        if theta.dim() != 3 or tuple(theta.shape[-2:]) != (2, 3):
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got "
                             f"{tuple(theta.shape)}.")
        spatial = size[2:]
    elif len(size) == 5:
        if theta.dim() != 3 or tuple(theta.shape[-2:]) != (3, 4):
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. Got "
                             f"{tuple(theta.shape)}.")
        spatial = size[2:]
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    if builtins.min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    if theta.shape[0] != size[0]:
        raise ValueError(f"Expected theta's batch ({theta.shape[0]}) to match size's ({size[0]})")
    # Coordinates x (fastest, last spatial dim), y, (z), then 1, broadcast over the output.
    axes = [_linspace_from_neg_one(theta, n, align_corners) for n in reversed(spatial)]
    count = len(spatial)
    parts = []
    for i, axis in enumerate(axes):
        shape = [1] * count
        shape[count - 1 - i] = axis.numel()
        parts.append(axis.reshape(shape).expand(spatial))
    parts.append(parts[0] * 0 + 1)
    base = stack(parts, -1).reshape(1, -1, count + 1)  # [1, prod(spatial), count + 1]
    grid = base.expand(size[0], -1, -1).bmm(theta.transpose(1, 2))
    return grid.reshape([size[0]] + spatial + [count])


def _unnormalize(coord, size, align_corners):
    if align_corners:
        return (coord + 1) / 2 * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _reflect(coord, low, high):
    """coord reflected at low and high (given doubled, as torch's reflect_coordinates takes them)."""
    if low == high:
        return coord * 0
    lo, span = low / 2, (high - low) / 2
    x = (coord - lo).abs()
    flips = (x / span).floor()
    extra = x - flips * span
    even = (flips.remainder(2) == 0).to(coord.dtype)
    return even * (extra + lo) + (1 - even) * (span - extra + lo)


def _source(coord, size, padding, align_corners):
    """The unnormalized source coordinate along one dim, with the padding mode applied."""
    x = _unnormalize(coord, size, align_corners)
    if padding == 1:
        x = x.clamp(0, size - 1)
    elif padding == 2:
        x = _reflect(x, 0, 2 * (size - 1)) if align_corners else _reflect(x, -1, 2 * size - 1)
        x = x.clamp(0, size - 1)
    return x


def _gather(flat, sizes, index, valid, weight, channels):
    """Sum of weight * input at integer positions index (one tensor per dim, each [N, P]), zero where
    not valid: flat is input [N, C, prod(sizes)]."""
    n = flat.shape[0]
    linear = index[0] * 0
    for d, i in enumerate(index):  # row-major over the spatial dims (the grid's last coordinate first)
        linear = linear * sizes[d] + i.clamp(0, sizes[d] - 1)
    picked = flat.gather(2, linear.unsqueeze(1).expand(n, channels, linear.shape[1]))
    return picked * (weight * valid.to(weight.dtype)).unsqueeze(1)


def _cubic(t, a=-0.75):
    """The four cubic-convolution coefficients for fractional offset t (torch's A = -0.75)."""
    def near(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """torch.grid_sampler: grid_sample with aten's int modes."""
    dims = input.dim() - 2
    if dims not in (2, 3) or grid.dim() != input.dim():
        raise RuntimeError(f"grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, but "
                           f"got input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if grid.shape[-1] != dims:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {dims} in last dimension, but got grid with "
                           f"sizes {list(grid.shape)}")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input with sizes "
                           f"{list(input.shape)} and grid with sizes {list(grid.shape)}")
    if builtins.any(s == 0 for s in input.shape[2:]):
        raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes "
                           f"{list(input.shape)}")
    if interpolation_mode == 2 and dims != 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if input.dtype != grid.dtype:
        raise RuntimeError(f"grid_sampler(): expected input and grid to have the same dtype, but input has "
                           f"{input.dtype} and grid has {grid.dtype}")
    n, channels = input.shape[0], input.shape[1]
    sizes = list(input.shape[2:])  # (H, W) or (D, H, W)
    out = list(grid.shape[1:-1])
    flat = input.reshape(n, channels, -1)
    g = grid.reshape(n, -1, dims)
    # grid's coordinate k runs along spatial dim dims - 1 - k (x is the width).
    coords = [g.select(2, dims - 1 - d) for d in builtins.range(dims)]
    if interpolation_mode == 2:
        return _bicubic(flat, sizes, coords, padding_mode, align_corners, n, channels, out)
    src = [_source(c, s, padding_mode, align_corners) for c, s in zip(coords, sizes)]
    if interpolation_mode == 1:
        index = [x.round() for x in src]  # half to even, as torch's nearbyint
        valid = None
        for i, s in zip(index, sizes):
            inside = (i >= 0) & (i <= s - 1)
            valid = inside if valid is None else valid & inside
        result = _gather(flat, sizes, [i.long() for i in index], valid, index[0] * 0 + 1, channels)
        return result.reshape([n, channels] + out)
    low = [x.floor() for x in src]
    frac = [x - f for x, f in zip(src, low)]
    result = None
    for corner in itertools.product((0, 1), repeat=dims):
        index, weight, valid = [], None, None
        for d, bit in enumerate(corner):
            i = low[d] + bit
            w = frac[d] if bit else 1 - frac[d]
            inside = (i >= 0) & (i <= sizes[d] - 1)
            index.append(i.long())
            weight = w if weight is None else weight * w
            valid = inside if valid is None else valid & inside
        term = _gather(flat, sizes, index, valid, weight, channels)
        result = term if result is None else result + term
    return result.reshape([n, channels] + out)


def _bicubic(flat, sizes, coords, padding_mode, align_corners, n, channels, out):
    """Bicubic: 4 x 4 taps around each point, each tap's position padded on its own, as torch's."""
    x = _unnormalize(coords[1], sizes[1], align_corners)
    y = _unnormalize(coords[0], sizes[0], align_corners)
    x0, y0 = x.floor(), y.floor()
    wx, wy = _cubic(x - x0), _cubic(y - y0)
    result = None
    for j in builtins.range(4):
        for i in builtins.range(4):
            ty, tx = y0 - 1 + j, x0 - 1 + i
            if padding_mode != 0:
                ty = _source_padded(ty, sizes[0], padding_mode, align_corners)
                tx = _source_padded(tx, sizes[1], padding_mode, align_corners)
            valid = (ty >= 0) & (ty <= sizes[0] - 1) & (tx >= 0) & (tx <= sizes[1] - 1)
            term = _gather(flat, sizes, [ty.long(), tx.long()], valid, wy[j] * wx[i], channels)
            result = term if result is None else result + term
    return result.reshape([n, channels] + out)


def _source_padded(index, size, padding, align_corners):
    if padding == 1:
        return index.clamp(0, size - 1)
    reflected = _reflect(index, 0, 2 * (size - 1)) if align_corners else _reflect(index, -1, 2 * size - 1)
    return reflected.clamp(0, size - 1)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    if mode not in _MODES:
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but "
                         f"got: '{mode}'")
    if padding_mode not in _PADDINGS:
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    return grid_sampler(input, grid, _MODES[mode], _PADDINGS[padding_mode], bool(align_corners))
