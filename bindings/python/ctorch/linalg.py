"""ctorch.linalg: torch.linalg on LAPACK (OpenBLAS's). The factorizations (lu_factor, cholesky,
ldl_factor, qr, eigh, svd), solvers (solve, solve_triangular, lu_solve, ldl_solve), determinants and
pinv are registered operators with their derivatives (ldl's have none, as in torch); inv, lstsq,
matrix_rank, cond, tensorinv, tensorsolve and the rest compose them. A matrix LAPACK cannot handle
(singular, not positive-definite, no convergence) raises LinAlgError naming the batch element. eig
and eigvals (complex results of general matrices) are not implemented yet."""

import builtins

from . import _C
from . import ops as _ops
from ._errors import InvalidArgumentError as _InvalidArgumentError, LinAlgError, ShapeError as _ShapeError


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


def det(A):
    """torch.linalg.det: the determinants of batches of square matrices."""
    return _ops.call("linalg_det", A)


def slogdet(A):
    """torch.linalg.slogdet: (sign, logabsdet) of the determinants."""
    return _ops.call("linalg_slogdet", A)


def inv(A):
    """torch.linalg.inv: the inverses; LinAlgError for a singular matrix."""
    return _ops.call("linalg_inv", A)


def inv_ex(A, *, check_errors=False):
    """torch.linalg.inv_ex: (inverse, info), info > 0 where a matrix is singular."""
    return _ops.call("linalg_inv_ex", A, check_errors=check_errors)


def solve(A, B, *, left=True):
    """torch.linalg.solve: X with A X = B (X A = B when left=False); B a vector or matrices, batches broadcast."""
    return _ops.call("linalg_solve", A, B, left=left)


def solve_ex(A, B, *, left=True, check_errors=False):
    """torch.linalg.solve_ex: (result, info)."""
    return _ops.call("linalg_solve_ex", A, B, left=left, check_errors=check_errors)


def solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    """torch.linalg.solve_triangular: X with A X = B (or X A = B) reading only A's upper or lower triangle."""
    return _ops.call("linalg_solve_triangular", A, B, upper=upper, left=left, unitriangular=unitriangular)


def cholesky(A, *, upper=False):
    """torch.linalg.cholesky: L with A = L L^T (U with A = U^T U when upper); LinAlgError when A is not
    positive-definite."""
    return _ops.call("linalg_cholesky", A, upper=upper)


def cholesky_ex(A, *, upper=False, check_errors=False):
    """torch.linalg.cholesky_ex: (L, info), info > 0 the order of the leading minor that is not positive-definite."""
    return _ops.call("linalg_cholesky_ex", A, upper=upper, check_errors=check_errors)


def ldl_factor(A, *, hermitian=False):
    """torch.linalg.ldl_factor: (LD, pivots), the Bunch-Kaufman LDL^T of symmetric matrices (LAPACK's sytrf),
    which need not be positive-definite."""
    return _ops.call("linalg_ldl_factor", A, hermitian=hermitian)


def ldl_factor_ex(A, *, hermitian=False, check_errors=False):
    """torch.linalg.ldl_factor_ex: (LD, pivots, info)."""
    return _ops.call("linalg_ldl_factor_ex", A, hermitian=hermitian, check_errors=check_errors)


def ldl_solve(LD, pivots, B, *, hermitian=False):
    """torch.linalg.ldl_solve: X with A X = B from ldl_factor's LD and pivots."""
    return _ops.call("linalg_ldl_solve", LD, pivots, B, hermitian=hermitian)


def lu_factor(A, *, pivot=True):
    """torch.linalg.lu_factor: (LU, pivots), LAPACK's packed LU with partial pivoting."""
    return _ops.call("linalg_lu_factor", A, pivot=pivot)


def lu_factor_ex(A, *, pivot=True, check_errors=False):
    """torch.linalg.lu_factor_ex: (LU, pivots, info)."""
    return _ops.call("linalg_lu_factor_ex", A, pivot=pivot, check_errors=check_errors)


def lu(A, *, pivot=True):
    """torch.linalg.lu: (P, L, U) with A = P L U."""
    return _ops.call("linalg_lu", A, pivot=pivot)


def lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    """torch.linalg.lu_solve: X with A X = B (A^T X = B when adjoint; X A = B when left=False) from lu_factor's A."""
    return _ops.call("linalg_lu_solve", LU, pivots, B, left=left, adjoint=adjoint)


def qr(A, mode="reduced"):
    """torch.linalg.qr: (Q, R); mode 'reduced', 'complete' or 'r' (Q empty)."""
    return _ops.call("linalg_qr", A, mode)


def householder_product(A, tau):
    """torch.linalg.householder_product: the first n columns of the product of the Householder reflectors
    packed in A's columns (as geqrf returns them) with scales tau."""
    return _ops.call("linalg_householder_product", A, tau)


def eig(A):
    """torch.linalg.eig: (eigenvalues, eigenvectors as columns) of general square matrices, complex whatever A's
    dtype; each eigenvector has norm 1 and its largest component real (LAPACK's geev)."""
    return _ops.call("linalg_eig", A)


def eigvals(A):
    """torch.linalg.eigvals: the eigenvalues of general square matrices, complex, in linalg.eig's order."""
    return _ops.call("linalg_eigvals", A)


def eigh(A, UPLO="L"):
    """torch.linalg.eigh: (eigenvalues ascending, eigenvectors as columns) of symmetric matrices, read from the
    UPLO triangle."""
    return _ops.call("linalg_eigh", A, UPLO)


def eigvalsh(A, UPLO="L"):
    """torch.linalg.eigvalsh: the eigenvalues of symmetric matrices, ascending."""
    return _ops.call("linalg_eigvalsh", A, UPLO)


def matrix_sqrth(A):
    """torch.linalg.matrix_sqrth: the symmetric positive-(semi)definite square root of symmetric matrices
    (read from the lower triangle), from eigh; eigenvalues below 0 are taken as 0."""
    return _ops.call("linalg_matrix_sqrth", A)


def polar(A):
    """torch.linalg.polar: (U, H) with A = U H, U's columns orthonormal and H symmetric positive-
    semidefinite, for m x n matrices with m >= n, from the reduced SVD."""
    return _ops.call("linalg_polar", A)


def svd(A, full_matrices=True, *, driver=None):
    """torch.linalg.svd: (U, S, Vh), S descending."""
    return _ops.call("linalg_svd", A, full_matrices, driver=driver)


def svdvals(A, *, driver=None):
    """torch.linalg.svdvals: the singular values, descending."""
    return _ops.call("linalg_svdvals", A, driver=driver)


def pinv(A, rcond=None, hermitian=False, *, atol=None, rtol=None):
    """torch.linalg.pinv: the pseudo-inverse from the SVD (eigh when hermitian), singular values below
    max(atol, rtol * largest) taken as zero (rcond is rtol's older name)."""
    if rcond is not None:
        if rtol is not None:
            raise _InvalidArgumentError(_C.CT_ERROR_INVALID_ARGUMENT, "linalg.pinv: pass rcond or rtol, not both")
        rtol = rcond
    return _ops.call("linalg_pinv", A, atol=atol, rtol=rtol, hermitian=hermitian)


def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None):
    """torch.linalg.matrix_rank: the number of singular values above max(atol, rtol * largest) (tol is atol's
    older name)."""
    if tol is not None:
        atol, rtol = tol, 0.0
    return _ops.call("linalg_matrix_rank", A, atol=atol, rtol=rtol, hermitian=hermitian)


def cond(A, p=None):
    """torch.linalg.cond: the condition number in the p-norm (None or 2: the ratio of the extreme singular
    values; -2 its inverse; the other matrix norms norm(A, p) * norm(inv(A), p))."""
    if isinstance(p, str):
        return _ops.call("linalg_cond.p_str", A, p)
    return _ops.call("linalg_cond", A, p)


def lstsq(A, B, rcond=None, *, driver=None):
    """torch.linalg.lstsq: (solution, residuals, rank, singular_values), the least-squares solution of minimal
    norm; the other results filled as torch fills them for the driver (default 'gelsy')."""
    return _ops.call("linalg_lstsq", A, B, rcond, driver=driver)


def tensorinv(A, ind=2):
    """torch.linalg.tensorinv: the inverse of A read as a matrix of its first ind dims by the rest."""
    return _ops.call("linalg_tensorinv", A, ind)


def tensorsolve(A, B, dims=None):
    """torch.linalg.tensorsolve: X with tensordot(A, X, X.ndim) = B (dims of A moved to its end first)."""
    return _ops.call("linalg_tensorsolve", A, B, None if dims is None else list(dims))


def vander(x, N=None):
    """torch.linalg.vander: the powers x^0 ... x^(N-1) of each element along a new last dim (N = x.size(-1))."""
    return _ops.call("linalg_vander", x, N=N)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """torch.linalg.diagonal: torch.diagonal with the matrix dims last by default."""
    return A.diagonal(offset, dim1, dim2)


def matmul(input, other):
    """torch.linalg.matmul: torch.matmul."""
    return input.matmul(other)


def __getattr__(name):
    if name.startswith("_"):
        raise AttributeError(name)
    raise AttributeError(f"module 'ctorch.linalg' has no attribute '{name}'")


__all__ = ["norm", "vector_norm", "matrix_norm", "cross", "vecdot", "multi_dot", "matrix_power", "matrix_exp", "det",
           "slogdet", "inv", "inv_ex", "solve", "solve_ex", "solve_triangular", "cholesky", "cholesky_ex", "ldl_factor", "ldl_factor_ex", "ldl_solve", "lu_factor",
           "lu_factor_ex", "lu", "lu_solve", "qr", "householder_product", "eig", "eigvals", "eigh", "eigvalsh", "matrix_sqrth", "svd", "svdvals", "polar", "pinv", "matrix_rank", "cond", "lstsq",
           "tensorinv", "tensorsolve", "vander", "diagonal", "matmul", "LinAlgError"]
