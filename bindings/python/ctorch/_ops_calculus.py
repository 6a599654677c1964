"""Numerical integration and differentiation over samples, as torch (and numpy) compute them:
trapezoid and cumulative_trapezoid (the trapezoidal rule with a spacing or sample points), and
gradient (central differences inside, one-sided ones of edge_order 1 or 2 at the ends).
Compositions of ctorch's operators, so they differentiate."""

import builtins
import numbers

from ._tensor import Tensor

__all__ = ["trapezoid", "trapz", "cumulative_trapezoid", "gradient"]


def _slice(t, dim, start, stop):
    return t.narrow(dim, start, builtins.max(stop - start, 0))


def _widths(y, x, dx, dim, name):
    """The sample spacings along dim: dx, or the differences of x (1-D, or y's shape)."""
    if x is None:
        return dx
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): x must be a Tensor, got {type(x).__name__}")
    if x.dim() == 1:
        if x.shape[0] != y.shape[dim]:
            raise RuntimeError(f"{name}(): There must be one `x` value for each sample point")
        shape = [1] * y.dim()
        shape[dim] = x.shape[0] - 1 if x.shape[0] else 0
        return (x[1:] - x[:-1]).reshape(shape) if x.shape[0] else x.reshape(shape)
    return _slice(x, dim, 1, x.shape[dim]) - _slice(x, dim, 0, x.shape[dim] - 1)


def _trapezoids(y, x, dx, dim, name):
    """The area of every trapezoid along dim (one fewer than y's samples there)."""
    if x is not None and dx is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments: pass x or dx, not both")
    n = y.shape[dim]
    sums = _slice(y, dim, 1, n) + _slice(y, dim, 0, n - 1)
    return sums * _widths(y, x, 1.0 if dx is None else dx, dim, name) / 2


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The trapezoidal rule along dim: sum of (y[i] + y[i + 1]) / 2 times each spacing."""
    dim = dim % builtins.max(y.dim(), 1)
    if y.shape[dim] == 0:
        return y.sum(dim) * 0
    return _trapezoids(y, x, dx, dim, "trapezoid").sum(dim)


def trapz(y, x=None, *, dx=None, dim=-1):
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoidal rule along dim (one fewer element than y there)."""
    dim = dim % builtins.max(y.dim(), 1)
    if y.shape[dim] == 0:
        return y
    return _trapezoids(y, x, dx, dim, "cumulative_trapezoid").cumsum(dim)


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """Estimates of input's derivative along each dim in dim (all by default): a tuple of tensors.
    spacing is one number, a number per dim, or a 1-D tensor of coordinates per dim."""
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    dims = list(builtins.range(input.dim())) if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    dims = [d % input.dim() for d in dims]
    if isinstance(spacing, (numbers.Number, Tensor)) and not (isinstance(spacing, Tensor) and spacing.dim() > 0):
        spacing = [spacing] * len(dims)
    spacing = list(spacing)
    if len(spacing) != len(dims):
        raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or a list of length "
                           f"{len(dims)}, but got a list of length {len(spacing)}")
    results = []
    for d, h in zip(dims, spacing):
        n = input.shape[d]
        if n < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
        results.append(_gradient_along(input, d, h, n, edge_order))
    return tuple(results)


def _gradient_along(f, d, h, n, edge_order):
    def at(i, j=None):
        return _slice(f, d, i, n if j is None else j)
    if isinstance(h, Tensor):  # coordinates: numpy's formulas for uneven spacing
        shape = [1] * f.dim()
        shape[d] = -1
        x = h.to(f.dtype if f.is_floating_point() else h.dtype)
        dx = (x[1:] - x[:-1])
        a, b = dx[:-1].reshape(shape), dx[1:].reshape(shape)
        inner = (a * a * at(2) - b * b * at(0, n - 2) + (b * b - a * a) * at(1, n - 1)) / (a * b * (a + b))
        h0, hn = dx[0], dx[-1]
        if edge_order == 1:
            first = (at(1, 2) - at(0, 1)) / h0
            last = (at(n - 1) - at(n - 2, n - 1)) / hn
        else:
            h1, hm = dx[1], dx[-2]
            first = (-(2 * h0 + h1) / (h0 * (h0 + h1)) * at(0, 1) + (h0 + h1) / (h0 * h1) * at(1, 2)
                     - h0 / (h1 * (h0 + h1)) * at(2, 3))
            last = (hn / (hm * (hm + hn)) * at(n - 3, n - 2) - (hm + hn) / (hm * hn) * at(n - 2, n - 1)
                    + (2 * hn + hm) / (hn * (hm + hn)) * at(n - 1))
    else:
        inner = (at(2) - at(0, n - 2)) / (2 * h)
        if edge_order == 1:
            first = (at(1, 2) - at(0, 1)) / h
            last = (at(n - 1) - at(n - 2, n - 1)) / h
        else:
            first = (-1.5 * at(0, 1) + 2 * at(1, 2) - 0.5 * at(2, 3)) / h
            last = (0.5 * at(n - 3, n - 2) - 2 * at(n - 2, n - 1) + 1.5 * at(n - 1)) / h
    from . import cat
    return cat([first, inner, last], d)
