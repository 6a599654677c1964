"""ctorch.linalg: the torch.linalg functions ctorch computes, each a registered operator (norm,
vector_norm, matrix_norm, cross, matrix_power, matrix_exp) or a composite of them (vecdot,
multi_dot). The decompositions and
solvers (det, inv, solve, cholesky, qr, svd, eig...) need LAPACK and are not in ctorch yet: asking
for one raises AttributeError saying so, rather than answering wrongly."""

import builtins

from . import _C
from . import ops as _ops
from ._errors import InvalidArgumentError as _InvalidArgumentError, ShapeError as _ShapeError


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """torch.linalg.norm: a vector norm (ord a number, or the 2-norm of the flattened input), or a
    matrix norm over two dims ('fro', 'nuc' or a number)."""
    return _ops.call("linalg_norm", A, ord, dim, keepdim, dtype=dtype)  # a str ord picks .ord_str


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """torch.linalg.vector_norm: the ord-norm over dim (every element when None)."""
    if isinstance(dim, builtins.int):
        dim = [dim]
    return _ops.call("linalg_vector_norm", x, ord, dim, keepdim, dtype=dtype)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """torch.linalg.matrix_norm: the norm of the matrices over the two dims."""
    return norm(A, ord, list(dim), keepdim, dtype=dtype)


def cross(input, other, *, dim=-1):
    """torch.linalg.cross: the cross product of 3-vectors along dim, the other dims broadcast."""
    return _ops.call("linalg_cross", input, other, dim=dim)


def matrix_power(A, n):
    """torch.linalg.matrix_power: A^n for batches of square matrices (n >= 0; a negative n needs the
    inverse, which ctorch does not have yet)."""
    return _ops.call("linalg_matrix_power", A, n)


def matrix_exp(A):
    """torch.linalg.matrix_exp: the exponential of batches of square matrices (scaling and squaring)."""
    return _ops.call("linalg_matrix_exp", A)


def vecdot(x, y, *, dim=-1):
    """torch.linalg.vecdot: the dot products along dim, the other dims broadcast (real dtypes)."""
    return (x * y).sum(dim)


def multi_dot(tensors):
    """torch.linalg.multi_dot: the product of a chain of matrices (the first may be a vector, read as a
    row, and the last a column), multiplied left to right."""
    tensors = list(tensors)
    if len(tensors) < 2:
        raise _InvalidArgumentError(_C.CT_ERROR_INVALID_ARGUMENT,
                                    f"multi_dot: expected at least 2 tensors but got {len(tensors)}")
    first, last = tensors[0].dim() == 1, tensors[-1].dim() == 1
    if first:
        tensors[0] = tensors[0].unsqueeze(0)
    if last:
        tensors[-1] = tensors[-1].unsqueeze(1)
    for i, t in enumerate(tensors):
        if t.dim() != 2:
            raise _ShapeError(_C.CT_ERROR_SHAPE, f"multi_dot: tensor {i} must be 2-D (1-D at either end), got {t.dim()}-D")
    out = tensors[0]
    for t in tensors[1:]:
        out = out.mm(t)
    if first:
        out = out.squeeze(0)
    if last:
        out = out.squeeze(-1)
    return out


def __getattr__(name):
    if name.startswith("_"):
        raise AttributeError(name)
    raise AttributeError(f"ctorch.linalg.{name}: ctorch has no LAPACK-backed linear algebra yet (decompositions, "
                         "solvers, inverses and determinants); only norm, vector_norm, matrix_norm, cross, vecdot, "
                         "multi_dot, matrix_power and matrix_exp are available")


__all__ = ["norm", "vector_norm", "matrix_norm", "cross", "vecdot", "multi_dot", "matrix_power", "matrix_exp"]
