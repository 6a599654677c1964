"""torch's Python signatures for the linear-algebra operators whose schema differs: einsum takes its
operands as varargs (or one list), tensordot takes dims as a number or a pair of lists, cdist its
compute_mode as a string."""

from . import ops as _ops


def einsum(equation, *operands, path=None):
    """einsum("ij,jk->ik", a, b) or einsum("ij,jk->ik", [a, b]); with three or more operands the
    contraction order that needs the fewest multiply-adds is used."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    return _ops.call("einsum", equation, list(operands), path=path)


def tensordot(a, b, dims=2, out=None):
    """Contracts the last `dims` dims of a with the first of b, or the dims listed in dims=(da, db)."""
    if out is not None:
        raise TypeError("tensordot: out= is not supported")
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        da, db = list(range(a.dim() - dims, a.dim())), list(range(dims))
    else:
        da, db = dims
        da = [da] if isinstance(da, int) else list(da)
        db = [db] if isinstance(db, int) else list(db)
    return _ops.call("tensordot", a, b, da, db)


_CDIST_MODES = {"use_mm_for_euclid_dist_if_necessary": 0, "use_mm_for_euclid_dist": 1, "donot_use_mm_for_euclid_dist": 2}


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The p-norm distance between every row of x1 [..., P, M] and of x2 [..., R, M]. compute_mode
    says when the Euclidean distance (p = 2) is computed by a matrix product, as torch.cdist."""
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    return _ops.call("cdist", x1, x2, float(p), _CDIST_MODES[compute_mode])
