"""Differential cases of the reduce family: statistics (var, std, var_mean, std_mean, logsumexp,
norms, all, any, count_nonzero), scans (cumsum, cumprod, cummax, cummin), sorting and selection
(sort, argsort, topk, kthvalue, median, mode, unique), the two index operators their derivatives
use, quantiles, histograms (bincount, histc), covariance (cov, corrcoef) and sorted search
(searchsorted, bucketize).

Selection results name an index, and PyTorch's CPU kernels pick any of several equal elements
(quickselect, unstable partial sorts). ctorch always answers as the stable sort would (see
docs/operators/reduce.md), so cases that compare indices use distinct values (`_distinct`), or
compare the values only.
"""

import numpy as np
import torch

from conftest import DTYPE_NAMES, FLOAT_NAMES
from difftest import Case, In

NUMERIC = [d for d in DTYPE_NAMES if d != "bool"]


def _fn(name, *args, **kw):
    return lambda m, *ts: getattr(m, name)(*ts, *args, **kw)


def _method(name, *args, **kw):
    return lambda m, a: getattr(a, name)(*args, **kw)


def _distinct(shape, dtype="float32", seed=0):
    """Distinct values (a shuffled range), so every order and selection has one answer."""
    n = int(np.prod(shape)) if shape else 1
    vals = np.random.default_rng(seed).permutation(n) - n // 2
    if dtype == "uint8":
        vals = vals + n // 2
    if dtype in FLOAT_NAMES:
        vals = vals / 4.0
    return list(vals)


def _laid_out(shape, layout, dtype="float32"):
    """An In with distinct values, sized for the base tensor the layout is cut from."""
    base = {"T": shape, "step": shape[:-1] + (2 * shape[-1],), "expand": (1,) + shape[1:]}[layout]
    return In(shape, dtype, layout=layout, kind=_distinct(base, dtype))


def _half_ref(fn):
    """torch 1.13's CPU lacks float16/bfloat16 kernels for topk, kthvalue, cummax, median and unique
    (a gap of one backend, see test_vs_torch.py): the reference runs in float32 and rounds floating
    results back, for operators returning several tensors too."""
    def ref(m, *ts):
        halves = {t.dtype for t in ts if t.dtype in (torch.float16, torch.bfloat16)}
        if not halves:
            return fn(m, *ts)
        half = halves.pop()
        r = fn(m, *[t.float() if t.dtype == half else t for t in ts])
        back = lambda t: t.to(half) if t.dtype == torch.float32 else t  # noqa: E731
        return tuple(back(t) for t in r) if isinstance(r, tuple) else back(r)
    return ref


def _values_of(op):
    """torch's first result only (the values), for selections whose indices may name any tie."""
    return lambda m, *ts: op(m, *ts)[0]


def _common(f, shape=(3, 4)):
    """The layout, empty and 0-dim cases every reduction along a dim gets."""
    return [
        Case("transposed", f, [In(shape, layout="T")]),
        Case("stepped", f, [In(shape, layout="step")]),
        Case("expanded", f, [In(shape, layout="expand")]),
    ]


# ---- var / std / var_mean / std_mean

def moment_cases(op):
    f = _fn(op)
    cs = [Case(f"all_{dt}", f, [In((3, 4), dt)]) for dt in DTYPE_NAMES]  # integers and bool raise
    cs += [
        Case("dim1", _fn(op, 1), [In((3, 4))]),
        Case("dim_list", _fn(op, dim=(0, 2)), [In((2, 3, 4))]),
        Case("dim_neg_keepdim", _fn(op, dim=-1, keepdim=True), [In((2, 3, 4))]),
        Case("unbiased_false", _fn(op, dim=1, unbiased=False), [In((3, 4))]),
        Case("unbiased_positional", _fn(op, 0, False, True), [In((3, 4))]),
        Case("unbiased_only", _fn(op, False), [In((3, 4))]),
        Case("correction0", _fn(op, dim=1, correction=0), [In((3, 4))]),
        Case("correction2_keepdim", _fn(op, dim=[0], correction=2, keepdim=True), [In((5, 3), "float64")]),
        Case("correction_too_large", _fn(op, dim=1, correction=5), [In((3, 4))]),
        Case("one_element", _fn(op, dim=0), [In((1, 3))]),
        Case("method", _method(op, 1) if not op.endswith("_mean") else _fn(op, 1), [In((3, 4), "float64")]),
        Case("0dim", _fn(op, dim=0), [In(())]),
        Case("0dim_all", f, [In((), "float64")]),
        Case("empty_other_dim", _fn(op, dim=1), [In((0, 3))]),
        Case("empty_reduced_dim", _fn(op, dim=0), [In((0, 3))]),
        Case("empty_all", f, [In((0,))]),
        Case("large", _fn(op, dim=1), [In((3, 20000))]),
        Case("large_columns", _fn(op, dim=0), [In((3000, 5), "float64")]),
        Case("offset_values", _fn(op, dim=1), [In((4, 64), kind=list(1e4 + np.arange(256) / 16.0))]),
        Case("special_values", _fn(op, dim=1), [In((3, 4), kind="special")]),
        Case("dim_out_of_range", _fn(op, dim=2), [In((3, 4))]),
        Case("dim_repeated", _fn(op, dim=(1, 1)), [In((3, 4))]),
        Case("float16", _fn(op, dim=1), [In((3, 40), "float16")]),
        Case("bfloat16_keepdim", _fn(op, dim=0, keepdim=True), [In((30, 4), "bfloat16")]),
    ]
    cs += _common(_fn(op, dim=1))
    return cs


# ---- all / any / count_nonzero

def logical_cases(op):
    cs = [Case(f"all_{dt}", _fn(op), [In((3, 4), dt, kind="small" if dt != "bool" else "default")])
          for dt in DTYPE_NAMES]
    cs += [Case(f"dim_{dt}", _fn(op, 1), [In((3, 4), dt)]) for dt in DTYPE_NAMES]
    zeros_and_ones = [0, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1]
    cs += [
        Case("mixed_dim0", _fn(op, 0), [In((3, 4), "int32", kind=zeros_and_ones)]),
        Case("mixed_dim1_keepdim", _fn(op, dim=1, keepdim=True), [In((3, 4), "int32", kind=zeros_and_ones)]),
        Case("dim_neg", _fn(op, -1), [In((2, 3, 4), "bool")]),
        Case("method", _method(op), [In((3, 4), "bool")]),
        Case("method_dim", _method(op, 0), [In((3, 4), "uint8")]),
        Case("nan_is_true", _fn(op, 1), [In((3, 4), kind="special")]),
        Case("0dim", _fn(op), [In((), "bool")]),
        Case("0dim_dim", _fn(op, 0), [In((), "int32")]),
        Case("empty", _fn(op), [In((0, 3), "bool")]),
        Case("empty_reduced_dim", _fn(op, 0), [In((0, 3))]),
        Case("empty_other_dim", _fn(op, 1), [In((0, 3), "bool")]),
        Case("large", _fn(op, 1), [In((3, 40000), "bool")]),
        Case("dim_out_of_range", _fn(op, 2), [In((3, 4))]),
        Case("float16_dim", _fn(op, 0), [In((3, 4), "float16", kind="special")]),
    ]
    cs += _common(_fn(op, 1))
    return cs


def count_nonzero_cases():
    f = _fn("count_nonzero")
    cs = [Case(f"all_{dt}", f, [In((3, 4), dt, kind="small" if dt != "bool" else "default")]) for dt in DTYPE_NAMES]
    cs += [
        Case("dim1", _fn("count_nonzero", 1), [In((3, 4), "int32", kind="small")]),
        Case("dims", _fn("count_nonzero", (0, 2)), [In((2, 3, 4), "bool")]),
        Case("dims_kw", _fn("count_nonzero", dim=[-1, 0]), [In((2, 3, 4), kind="special")]),
        Case("empty_list_is_all", _fn("count_nonzero", []), [In((2, 3), "int64", kind="small")]),
        Case("method", _method("count_nonzero", 1), [In((3, 4), "uint8")]),
        Case("0dim", f, [In((), "float64")]),
        Case("empty", _fn("count_nonzero", 0), [In((0, 3), "int32")]),
        Case("dim_repeated", _fn("count_nonzero", (1, 1)), [In((3, 4))]),
        Case("dim_out_of_range", _fn("count_nonzero", 3), [In((3, 4))]),
        Case("large", _fn("count_nonzero", 0), [In((5000, 3), "bool")]),
    ]
    cs += _common(_fn("count_nonzero", 1))
    return cs


# ---- logsumexp

def logsumexp_cases():
    cs = [Case(f"dim1_{dt}", _fn("logsumexp", 1), [In((3, 4), dt)]) for dt in DTYPE_NAMES]
    inf, nan = float("inf"), float("nan")
    cs += [
        Case("dims", _fn("logsumexp", (0, 2)), [In((2, 3, 4))]),
        Case("keepdim", _fn("logsumexp", dim=-1, keepdim=True), [In((2, 3, 4), "float64")]),
        Case("dim0_columns", _fn("logsumexp", 0), [In((50, 7))]),
        Case("large_values", _fn("logsumexp", 1), [In((2, 3), kind=[1000.0, 1000.0, -1000.0, 80.0, 90.0, 100.0])]),
        Case("infinities", _fn("logsumexp", 1),
             [In((4, 2), kind=[-inf, -inf, inf, inf, inf, 1.0, nan, 1.0])]),
        Case("method", _method("logsumexp", 1), [In((3, 4))]),
        Case("0dim", _fn("logsumexp", 0), [In(())]),
        Case("empty_reduced_dim", _fn("logsumexp", 1), [In((2, 0))]),
        Case("empty_other_dim", _fn("logsumexp", 1), [In((0, 3))]),
        Case("large", _fn("logsumexp", 1), [In((4, 5000))]),
        Case("dim_out_of_range", _fn("logsumexp", 2), [In((3, 4))]),
        Case("special_values", _fn("logsumexp", 0), [In((3, 4), kind="special")]),
    ]
    cs += _common(_fn("logsumexp", 1))
    return cs


# ---- norms

def norm_cases():
    cs = [Case(f"default_{dt}", _fn("norm"), [In((3, 4), dt)]) for dt in DTYPE_NAMES]  # integers raise
    inf = float("inf")
    for p in [1, 2, 3, 0.5, 0, inf, -inf, -1]:
        cs.append(Case(f"p{p}_dim1", _fn("norm", p, 1), [In((3, 4), kind="pos" if p in (0.5, -1) else "default")]))
    cs += [
        Case("p_only", _fn("norm", 3), [In((3, 4))]),
        Case("fro", _fn("norm", "fro"), [In((3, 4))]),
        Case("fro_dim_keepdim", _fn("norm", "fro", (0, 1), True), [In((2, 3, 4))]),
        Case("method_fro", _method("norm", p="fro", dim=1), [In((3, 4), "float64")]),
        Case("method_keepdim_all", _method("norm", 2, None, True), [In((3, 4))]),
        Case("dims_keepdim", _fn("norm", 2, (0, 2), True), [In((2, 3, 4))]),
        Case("dim_kw", _fn("norm", dim=1), [In((3, 4), "float64")]),
        Case("method", _method("norm", 1, 0), [In((3, 4))]),
        Case("0dim", _fn("norm", 2, 0), [In(())]),
        Case("empty", _fn("norm", 2, 1), [In((0, 3))]),
        Case("empty_reduced", _fn("norm", 1, 0), [In((0, 3))]),
        Case("half_dim", _fn("norm", 2, 1), [In((3, 50), "float16")]),
        Case("special_values", _fn("norm", 2, 1), [In((3, 4), kind="special")]),
        Case("dim_out_of_range", _fn("norm", 2, 3), [In((3, 4))]),
    ]
    cs += _common(_fn("norm", 2, 1))
    return cs


def vector_norm_cases():
    def f(*a, **k):
        return lambda m, x: (m.linalg_vector_norm if m is not torch else torch.linalg.vector_norm)(x, *a, **_dtype_arg(m, k))
    cs = [Case(f"default_{dt}", f(), [In((3, 4), dt)]) for dt in DTYPE_NAMES]
    inf = float("inf")
    for ord_ in [1, 2, 3, 0, inf, -inf]:
        cs.append(Case(f"ord{ord_}", f(ord_, dim=1), [In((3, 4))]))
    cs += [
        Case("dims_keepdim", f(2, (0, 2), True), [In((2, 3, 4))]),
        Case("dtype_float64", f(dtype=torch.float64), [In((3, 4))]),
        Case("0dim", f(), [In(())]),
        Case("empty", f(2, 1), [In((0, 3))]),
        Case("half", f(2, 0), [In((30, 3), "bfloat16")]),
        Case("dim_out_of_range", f(2, 3), [In((3, 4))]),
    ]
    cs += _common(f(2, 1))
    return cs


def _dtype_arg(m, kw):
    return {k: (getattr(m, str(v).split(".")[-1]) if k == "dtype" else v) for k, v in kw.items()}


def linalg_norm_cases():
    def f(*a, **k):
        return lambda m, x: (m.linalg_norm if m is not torch else torch.linalg.norm)(x, *a, **_dtype_arg(m, k))
    inf = float("inf")
    cs = [Case(f"default_{dt}", f(), [In((3, 4), dt)]) for dt in DTYPE_NAMES]
    cs += [
        Case("vector_1d", f(3), [In((5,))]),
        Case("vector_dim", f(1, 1), [In((3, 4))]),
        Case("vector_inf_dim", f(inf, -1), [In((2, 3, 4))]),
        Case("fro", f("fro"), [In((3, 4))]),
        Case("fro_dims", f("fro", (0, 2), True), [In((2, 3, 4))]),
        Case("matrix_1", f(1), [In((3, 4))]),
        Case("matrix_neg1", f(-1), [In((3, 4))]),
        Case("matrix_inf", f(inf), [In((3, 4))]),
        Case("matrix_neg_inf_dims", f(-inf, (2, 0)), [In((2, 3, 4))]),
        Case("matrix_1_keepdim", f(1, (1, 2), True), [In((2, 3, 4), "float64")]),
        Case("dtype", f(dtype=torch.float64), [In((3, 4))]),
        Case("ord_3d_no_dim", f(2), [In((2, 3, 4))]),
        Case("nuc", f("nuc"), [In((3, 4))]),
        Case("nuc_dims", f("nuc", (0, 2), True), [In((2, 3, 4), "float64")]),
        Case("matrix_2", f(2, (1, 2)), [In((2, 3, 4), "float64")]),
        Case("matrix_neg2", f(-2, (2, 1)), [In((2, 3, 4), "float64")]),
        Case("bad_ord", f("bad"), [In((3, 4))]),
        Case("0dim", f(), [In(())]),
        Case("empty", f(2, 1), [In((0, 3))]),
    ]
    cs += _common(f(1))
    return cs


# ---- scans

def cum_cases(op):
    cs = [Case(f"{dt}", _fn(op, 1), [In((3, 4), dt, kind="small")]) for dt in DTYPE_NAMES]
    cs += [
        Case("dim0", _fn(op, 0), [In((3, 4), kind="small")]),
        Case("dim_neg", _fn(op, -1), [In((2, 3, 4), "float64", kind="small")]),
        Case("middle_dim", _fn(op, 1), [In((2, 3, 4), "int32", kind="small")]),
        Case("dtype_float64", lambda m, x: getattr(m, op)(x, 1, dtype=m.float64), [In((3, 4), "int32", kind="small")]),
        Case("dtype_int32", lambda m, x: getattr(m, op)(x, 0, dtype=m.int32), [In((3, 4), "int8", kind="small")]),
        Case("dtype_bool", lambda m, x: getattr(m, op)(x, 0, dtype=m.bool), [In((3, 4), "int8", kind="small")]),
        Case("method", _method(op, 1), [In((3, 4), kind="small")]),
        Case("0dim", _fn(op, 0), [In(())]),
        Case("empty", _fn(op, 0), [In((0, 3))]),
        Case("empty_other", _fn(op, 1), [In((0, 3))]),
        Case("long", _fn(op, 0), [In((3000,), kind="small" if op == "cumsum" else [1.001] * 3000)]),
        Case("special_values", _fn(op, 1), [In((3, 4), kind="special")]),
        Case("dim_out_of_range", _fn(op, 2), [In((3, 4))]),
    ]
    cs += _common(_fn(op, 1))
    return cs


def logcumsumexp_cases():
    f = _fn("logcumsumexp", 1)
    cs = [Case(dt, f, [In((3, 4), dt)]) for dt in ("float32", "float64", "bfloat16", "float16")]
    return cs + _common(f) + [
        Case("dim0", _fn("logcumsumexp", 0), [In((3, 4))]),
        Case("method", _method("logcumsumexp", -1), [In((2, 3, 4), "float64")]),
        Case("special_values", f, [In((3, 4), kind="special")]),
        Case("infinities", f, [In((2, 4), kind=[[float("-inf"), float("-inf"), 0.0, float("inf")],
                                               [float("inf"), float("inf"), float("-inf"), 1.0]])]),
        Case("far_apart", f, [In((1, 4), "float64", kind=[[-1000.0, 0.0, -2000.0, 1000.0]])]),
        Case("long", _fn("logcumsumexp", 0), [In((3000,))]),
        Case("0dim", _fn("logcumsumexp", 0), [In(())]),
        Case("empty", _fn("logcumsumexp", 0), [In((0, 3))]),
        Case("int_error", f, [In((3, 4), "int64")]),
        Case("dim_out_of_range", _fn("logcumsumexp", 2), [In((3, 4))]),
    ]


def cumext_cases(op):
    cs = [Case(f"{dt}", _fn(op, 1), [In((3, 4), dt)]) for dt in DTYPE_NAMES]
    nan = float("nan")
    cs += [
        Case("dim0", _fn(op, 0), [In((4, 3))]),
        Case("ties_take_latest", _fn(op, 0), [In((6,), "int32", kind=[1, 3, 3, 0, 3, 1])]),
        Case("nan_sticks", _fn(op, 0), [In((6,), kind=[1.0, 3.0, nan, 5.0, nan, -1.0])]),
        Case("middle_dim", _fn(op, 1), [In((2, 3, 4))]),
        Case("method", _method(op, -1), [In((3, 4))]),
        Case("0dim", _fn(op, 0), [In(())]),
        Case("empty", _fn(op, 1), [In((0, 3))]),
        Case("special_values", _fn(op, 1), [In((3, 4), kind="special")]),
        Case("dim_out_of_range", _fn(op, 2), [In((3, 4))]),
    ]
    cs += _common(_fn(op, 1))
    return cs


# ---- sort / argsort

def sort_cases(op):
    f = lambda *a, **k: (lambda m, x: getattr(m, op)(x, *a, **k))  # noqa: E731
    cs = [Case(f"{dt}", f(), [In((3, 4), dt, kind=_distinct((3, 4), dt) if dt != "bool" else "default")],
               torch_fn=(lambda m, x: getattr(m, op)(x, stable=True)) if dt == "bool" else None)
          for dt in DTYPE_NAMES]
    cs += [Case(f"descending_{dt}", f(descending=True), [In((3, 4), dt, kind=_distinct((3, 4), dt))])
           for dt in NUMERIC]
    nan, inf = float("nan"), float("inf")
    special = [nan, 1.0, -inf, 0.0, inf, -1.0, nan, 2.5, -0.0, 3.0]
    cs += [
        Case("dim0", f(0), [In((4, 3), kind=_distinct((4, 3)))]),
        Case("stable_ties", f(stable=True), [In((2, 6), "int32", kind=[1, 0, 1, 0, 2, 1, 3, 3, 3, 1, 1, 1])]),
        Case("stable_ties_descending", f(stable=True, descending=True, dim=-1),
             [In((2, 6), "int16", kind=[1, 0, 1, 0, 2, 1, 3, 3, 3, 1, 1, 1])]),
        Case("stable_ties_dim0", f(dim=0, stable=True), [In((6, 2), "int64", kind=[1, 0, 1, 0, 2, 1, 3, 3, 3, 1, 1, 1])]),
        Case("nan_largest", f(stable=True), [In((10,), kind=special)]),
        Case("nan_first_descending", f(stable=True, descending=True), [In((10,), "float64", kind=special)]),
        Case("middle_dim", f(1), [In((2, 3, 4), kind=_distinct((2, 3, 4)))]),
        Case("method", lambda m, x: getattr(x, op)(0, True), [In((4, 3), kind=_distinct((4, 3)))]),
        Case("0dim", f(), [In(())]),
        Case("empty", f(0), [In((0, 3))]),
        Case("empty_other", f(1), [In((0, 3))]),
        Case("long_radix", f(stable=True), [In((2, 3000), "float32")]),
        Case("long_radix_int16", f(stable=True, descending=True), [In((5000,), "int16")]),
        Case("long_radix_float16", f(stable=True), [In((3000,), "float16", kind="special")]),
        Case("long_float64", f(stable=True), [In((3000,), "float64", kind="special")]),
        Case("long_int64", f(stable=True, descending=True), [In((3000,), "int64")]),
        Case("dim_out_of_range", f(2), [In((3, 4))]),
    ]
    cs += [Case(c.id, f(1), [_laid_out((3, 4), c.inputs[0].layout)]) for c in _common(None)]
    return cs


# ---- topk / kthvalue / median / mode

def topk_cases():
    f = lambda *a, **k: (lambda m, x: m.topk(x, *a, **k))  # noqa: E731
    cs = [Case(f"{dt}", f(2), [In((3, 4), dt, kind=_distinct((3, 4), dt))]) for dt in NUMERIC]
    cs += [Case(f"smallest_{dt}", f(3, largest=False), [In((3, 5), dt, kind=_distinct((3, 5), dt))]) for dt in NUMERIC]
    nan, inf = float("nan"), float("inf")
    cs += [
        Case("bool_raises", f(1), [In((3, 4), "bool")]),
        Case("dim0", f(2, 0), [In((4, 3), kind=_distinct((4, 3)))]),
        Case("k_all", f(4), [In((3, 4), kind=_distinct((3, 4)))]),
        Case("k0", f(0), [In((3, 4))]),
        Case("k_too_large", f(5), [In((3, 4))]),
        Case("k_negative", f(-1), [In((3, 4))]),
        Case("unsorted_values", lambda m, x: m.topk(x, 3, sorted=False)[0].sort()[0], [In((3, 8), kind=_distinct((3, 8)))]),
        Case("ties_values", _values_of(f(3)), [In((2, 6), "int32", kind=[1, 0, 1, 0, 2, 1, 3, 3, 3, 1, 1, 1])]),
        Case("nan_largest", f(3), [In((7,), kind=[1.0, nan, -inf, inf, 2.0, 0.5, -1.0])]),
        Case("nan_smallest", f(3, largest=False), [In((7,), "float64", kind=[1.0, nan, -inf, inf, 2.0, 0.5, -1.0])]),
        Case("middle_dim_kw", f(k=2, dim=1, largest=False), [In((2, 3, 4), kind=_distinct((2, 3, 4)))]),
        Case("method", lambda m, x: x.topk(2, 0), [In((4, 3), kind=_distinct((4, 3)))]),
        Case("0dim", f(1), [In(())]),
        Case("empty", f(2, 1), [In((0, 3))]),
        Case("long_select", f(20), [In((2, 20000), kind=_distinct((2, 20000), seed=3))]),
        Case("long_select_smallest", f(50, largest=False), [In((30000,), "float64", kind=_distinct((30000,), seed=4))]),
        Case("long_select_int16", f(7), [In((2, 9000), "int16", kind=_distinct((2, 9000), "int16", seed=5))]),
        Case("long_ties_values", _values_of(f(30)), [In((10000,), "int32", kind="small")]),
        Case("dim_out_of_range", f(1, 2), [In((3, 4))]),
    ]
    cs += [Case(c.id, f(2, 1), [_laid_out((3, 4), c.inputs[0].layout)]) for c in _common(None)]
    return cs


def kthvalue_cases():
    f = lambda *a, **k: (lambda m, x: m.kthvalue(x, *a, **k))  # noqa: E731
    cs = [Case(f"{dt}", f(2), [In((3, 4), dt, kind=_distinct((3, 4), dt))]) for dt in NUMERIC]
    cs += [
        Case("dim0_keepdim", f(3, 0, True), [In((4, 3), kind=_distinct((4, 3)))]),
        Case("k1", f(1), [In((3, 4), kind=_distinct((3, 4)))]),
        Case("k_last", f(4), [In((3, 4), kind=_distinct((3, 4)))]),
        Case("k0", f(0), [In((3, 4))]),
        Case("k_too_large", f(5), [In((3, 4))]),
        Case("nan_largest", f(5), [In((6,), kind=[1.0, float("nan"), -2.0, 3.0, 0.0, 2.0])]),
        Case("ties_values", _values_of(f(3)), [In((2, 6), "int32", kind=[1, 0, 1, 0, 2, 1, 3, 3, 3, 1, 1, 1])]),
        Case("method", lambda m, x: x.kthvalue(2, dim=-1, keepdim=True), [In((3, 4), kind=_distinct((3, 4)))]),
        Case("0dim", f(1), [In(())]),
        Case("empty_other", f(1, 1), [In((0, 3))]),
        Case("empty_reduced", f(1, 0), [In((0, 3))]),
        Case("long", f(777), [In((2, 10000), kind=_distinct((2, 10000), seed=6))]),
        Case("dim_out_of_range", f(1, 2), [In((3, 4))]),
    ]
    cs += [Case(c.id, f(2, 1), [_laid_out((3, 4), c.inputs[0].layout)]) for c in _common(None)]
    return cs


def median_cases():
    f = lambda *a, **k: (lambda m, x: m.median(x, *a, **k))  # noqa: E731
    cs = [Case(f"all_{dt}", f(), [In((3, 5), dt, kind=_distinct((3, 5), dt))]) for dt in NUMERIC]
    cs += [Case(f"dim_{dt}", f(1), [In((3, 4), dt, kind=_distinct((3, 4), dt))]) for dt in NUMERIC]
    nan = float("nan")
    cs += [
        Case("bool_raises", f(), [In((3, 4), "bool")]),
        Case("even_is_lower", f(0), [In((4, 3), kind=_distinct((4, 3)))]),
        Case("keepdim", f(-1, True), [In((2, 3, 5), kind=_distinct((2, 3, 5)))]),
        Case("nan_propagates", f(1), [In((2, 4), kind=[1.0, nan, 2.0, nan, 0.0, 3.0, -1.0, 2.0])]),
        Case("nan_propagates_all", f(), [In((5,), kind=[1.0, 3.0, nan, 2.0, 0.0])]),
        Case("ties_values", _values_of(f(1)), [In((2, 6), "int32", kind=[1, 0, 1, 0, 2, 1, 3, 3, 3, 1, 1, 1])]),
        Case("method", lambda m, x: x.median(0), [In((3, 4), kind=_distinct((3, 4)))]),
        Case("method_all", lambda m, x: x.median(), [In((3, 4), "float64")]),
        Case("0dim", f(), [In(())]),
        Case("0dim_dim", f(0), [In(())]),
        Case("empty_all", f(), [In((0,))]),
        Case("empty_other", f(1), [In((0, 3))]),
        Case("empty_reduced", f(0), [In((0, 3))]),
        Case("long", f(1), [In((2, 9999), kind=_distinct((2, 9999), seed=7))]),
        Case("dim_out_of_range", f(2), [In((3, 4))]),
    ]
    cs += [Case(c.id, f(1), [_laid_out((3, 4), c.inputs[0].layout)]) for c in _common(None)]
    return cs


def mode_cases():
    f = lambda *a, **k: (lambda m, x: m.mode(x, *a, **k))  # noqa: E731
    rows = [1, 3, 3, 1, 2, 5, 5, 2, 2, 7, 0, 4, 0, 4, 4]
    cs = [Case(f"{dt}", f(), [In((3, 5), dt, kind=rows)]) for dt in NUMERIC]
    cs += [
        Case("bool", f(), [In((3, 5), "bool", kind=[bool(v % 2) for v in rows])]),
        Case("dim0_keepdim", f(0, True), [In((5, 3), "int64", kind=rows)]),
        Case("distinct", f(1), [In((3, 4), kind=_distinct((3, 4)))]),
        Case("method", lambda m, x: x.mode(-1), [In((3, 5), kind=rows)]),
        Case("0dim", f(), [In(())]),
        Case("empty_other", f(1), [In((0, 3))]),
        Case("empty_reduced", f(0), [In((0, 3))]),
        Case("long_values", _values_of(f()), [In((2, 5000), "int32", kind="small")]),
        Case("dim_out_of_range", f(2), [In((3, 4))]),
        Case("transposed", f(0), [In((5, 3), "int32", layout="T", kind=rows)]),
        Case("stepped", f(1), [In((3, 5), "int32", layout="step", kind=rows + rows)]),
        Case("expanded", f(1), [In((3, 5), "int32", layout="expand", kind=rows[:5])]),
    ]
    return cs


# ---- unique

def unique_cases():
    def f(**k):
        def run(m, x):
            if m is torch:
                return torch._unique2(x, **k)
            return m.ops._unique2(x, **k)
        return run

    def g(**k):
        return lambda m, x: m.unique(x, **k)
    vals = [3, 1, 3, 2, 0, 1, 1, 2, 5, 3, 3, 0]
    cs = [Case(f"{dt}", f(return_inverse=True, return_counts=True), [In((3, 4), dt, kind=vals)]) for dt in NUMERIC]
    cs += [
        Case("bool", f(return_inverse=True, return_counts=True), [In((3, 4), "bool")]),
        Case("values_only", f(), [In((3, 4), "int32", kind=vals)]),
        Case("counts_only", f(return_counts=True), [In((12,), kind=vals)]),  # torch fills the inverse too
        Case("0dim", f(return_inverse=True, return_counts=True), [In(())]),
        Case("empty", f(return_inverse=True, return_counts=True), [In((0, 3))]),
        Case("transposed", f(return_inverse=True), [In((3, 4), "int32", layout="T", kind=vals)]),
        Case("stepped", f(return_inverse=True), [In((3, 4), "int32", layout="step", kind=vals + vals)]),
        Case("expanded", f(return_counts=True), [In((3, 4), "int64", layout="expand", kind=vals[:4])]),
        Case("long", f(return_inverse=True, return_counts=True), [In((5000,), "int16")]),
        Case("python_unique", g(), [In((3, 4), "int32", kind=vals)]),
        Case("python_unique_inverse", g(return_inverse=True), [In((3, 4), kind=vals)]),
        Case("python_unique_counts", g(return_counts=True, sorted=True), [In((3, 4), "uint8", kind=vals)]),
        Case("python_unique_both", g(return_inverse=True, return_counts=True), [In((3, 4), "float64", kind=vals)]),
        Case("python_unique_method", lambda m, x: x.unique(return_counts=True), [In((3, 4), "int8", kind=vals)]),
    ]
    return cs


# ---- max / min in their three forms, aminmax, nansum, nanmean

def extremum_cases(op):
    f = lambda *a, **k: (lambda m, x: getattr(m, op)(x, *a, **k))  # noqa: E731
    cs = [Case(f"all_{dt}", f(), [In((3, 4), dt)]) for dt in DTYPE_NAMES]
    cs += [Case(f"dim_{dt}", f(1), [In((3, 4), dt, kind=_distinct((3, 4), dt)) if dt != "bool" else In((3, 4), dt)])
           for dt in DTYPE_NAMES if dt != "bool"]
    cs += [
        Case("all_nan", f(), [In((3, 4), kind="special")]),
        Case("all_0dim", f(), [In((), "int32")]),
        Case("all_empty", f(), [In((0, 3))]),
        Case("all_method", lambda m, x: getattr(x, op)(), [In((2, 3, 4), "float64")]),
        Case("dim_keepdim", f(0, keepdim=True), [In((3, 4), kind=_distinct((3, 4)))]),
        Case("dim_kw", f(dim=-1), [In((2, 3, 4), "int64", kind=_distinct((2, 3, 4), "int64"))]),
        Case("dim_method", lambda m, x: getattr(x, op)(1), [In((3, 4), kind=_distinct((3, 4)))]),
        Case("dim_method_kw", lambda m, x: getattr(x, op)(dim=0, keepdim=True).values, [In((3, 4), "bfloat16")]),
        Case("dim_ties_first_index", f(1), [In((2, 4), "int32", kind=[1, 3, 3, 0, 2, 2, 2, 2])]),
        Case("dim_nan_first", f(1), [In((2, 4), kind=[1.0, float("nan"), 3.0, float("nan"), 2.0, 2.0, -1.0, 0.0])]),
        Case("dim_0dim", f(0), [In(())]),
        Case("dim_0dim_keepdim", f(-1, True), [In((), "int64")]),
        Case("dim_empty_reduced", f(0), [In((0, 3))]),
        Case("dim_empty_other", f(1), [In((0, 3))]),
        Case("dim_out_of_range", f(2), [In((3, 4))]),
        Case("dim_transposed", f(1), [_laid_out((3, 4), "T")]),
        Case("dim_stepped", f(0), [_laid_out((3, 4), "step")]),
        Case("dim_expanded", lambda m, x: getattr(m, op)(x, 0).values, [In((3, 4), layout="expand")]),
        Case("other", lambda m, a, b: getattr(m, op)(a, b), [In((3, 4)), In((3, 4), kind="special")]),
        Case("other_broadcast", lambda m, a, b: getattr(m, op)(a, b), [In((3, 1), "int32"), In((4,), "int32")]),
        Case("other_promotes", lambda m, a, b: getattr(m, op)(a, b), [In((3, 4), "int64"), In((3, 4), "float16")]),
        Case("other_method", lambda m, a, b: getattr(a, op)(b), [In((2, 3)), In((2, 3), layout="T")]),
        Case("other_bad_shape", lambda m, a, b: getattr(m, op)(a, b), [In((3, 4)), In((3,))]),
        Case("large", f(), [In((5000, 3), "int16")]),
    ]
    return cs


def aminmax_cases():
    f = lambda **k: (lambda m, x: m.aminmax(x, **k))  # noqa: E731
    cs = [Case(f"all_{dt}", f(), [In((3, 4), dt)]) for dt in DTYPE_NAMES]
    cs += [
        Case("dim", f(dim=1), [In((3, 4), "int32")]),
        Case("dim_keepdim", f(dim=0, keepdim=True), [In((3, 4), kind="special")]),
        Case("all_keepdim", f(keepdim=True), [In((2, 3, 4), "float64")]),
        Case("method", lambda m, x: x.aminmax(dim=-1), [In((2, 3), "int8")]),
        Case("0dim", f(), [In(())]),
        Case("0dim_dim", f(dim=0), [In((), "int64")]),
        Case("empty", f(), [In((0, 3))]),
        Case("empty_reduced_dim", f(dim=0), [In((0, 3))]),
        Case("empty_other_dim", f(dim=1), [In((0, 3))]),
        Case("dim_out_of_range", f(dim=-3), [In((3, 4))]),
    ]
    cs += _common(f(dim=1))
    return cs


def nan_reduction_cases(op):
    f = lambda *a, **k: (lambda m, x: getattr(m, op)(x, *a, **k))  # noqa: E731
    # nanmean refuses the non-floating dtypes, as torch does
    cs = [Case(f"all_{dt}", f(), [In((3, 4), dt, kind="special")]) for dt in DTYPE_NAMES]
    cs += [
        Case("dim", f(1), [In((3, 4), kind="special")]),
        Case("dims_keepdim", f((0, 2), keepdim=True), [In((2, 3, 4), "float64", kind="special")]),
        Case("dim_kw", f(dim=-1), [In((2, 5), "float16", kind="special")]),
        Case("dtype", lambda m, x: getattr(m, op)(x, 1, dtype=m.float64), [In((3, 4), kind="special")]),
        Case("int_dtype", lambda m, x: getattr(m, op)(x, 0, dtype=m.float32), [In((3, 4), "int32")]),
        Case("bool_dtype", lambda m, x: getattr(m, op)(x, dtype=m.bool), [In((3, 4))]),
        Case("method", lambda m, x: getattr(x, op)(0), [In((3, 4), "bfloat16", kind="special")]),
        Case("all_nan_row", f(1), [In((2, 2), kind=[float("nan")] * 2 + [1.0, 2.0])]),
        Case("0dim", f(), [In((), kind="special")]),
        Case("empty", f(), [In((0, 3))]),
        Case("empty_dim", f(0), [In((0, 3))]),
        Case("dim_out_of_range", f(2), [In((3, 4))]),
        Case("large", f(1), [In((3, 5000), kind="special")]),
    ]
    cs += _common(f(1))
    return cs


def _with_half_ref(cases):
    for c in cases:
        c.torch_fn = _half_ref(c.torch_fn or c.fn)
    return cases


# ---- quantile, nanquantile, bincount, histc, cov, corrcoef, searchsorted, bucketize

def quantile_cases(name):
    nan = float("nan")
    with_nan = [In((3, 4), kind=[1.0, nan, 3.0, -2.0, 0.5, 0.25, 7.0, 1.0, nan, nan, nan, nan])]

    def f(q, **kw):
        return lambda m, x, *qs: getattr(m, name)(x, qs[0] if qs else q, **kw)

    def inputs(x, q):  # a list q becomes a tensor input of x's dtype
        return [x] + ([In((len(q),), x.dtype, kind=q)] if isinstance(q, list) else [])

    qs = [0.0, 0.3, 0.5, 1.0]
    cs = [Case(f"{how}", f(qs, dim=1, interpolation=how), inputs(In((3, 7), "float64"), qs))
          for how in ("linear", "lower", "higher", "midpoint", "nearest")]
    return cs + [
        Case("all", f(0.25), [In((4, 5))]),
        Case("all_keepdim", f(None, keepdim=True), inputs(In((2, 3, 4)), [0.1, 0.9])),
        Case("dim0_keepdim", f(0.75, dim=0, keepdim=True), [In((5, 3), "float64")]),
        Case("negative_dim", f(None, dim=-1), inputs(In((2, 3, 4)), [0.5])),
        Case("method", lambda m, x: getattr(x, name)(0.4, dim=1), [In((3, 6))]),
        Case("nan_rows", f(None, dim=1), with_nan + [In((2,), kind=[0.2, 0.5])]),
        Case("nan_all", f(0.5), with_nan),
        Case("0dim", f(0.5), [In(())]),
        Case("transposed", f(0.6, dim=0), [In((4, 3), layout="T")]),
        Case("q_out_of_range", f(1.5), [In((3,))]),
        Case("q_tensor_out_of_range", f(None), inputs(In((3,)), [0.5, -0.1])),
        Case("bad_interpolation", f(0.5, interpolation="cubic"), [In((3,))]),
        Case("int_error", f(0.5), [In((3,), "int64")]),
        Case("empty", f(0.5, dim=1), [In((2, 0))]),
        Case("dim_out_of_range", f(0.5, dim=2), [In((2, 3))]),
    ]


def bincount_cases():
    return [
        Case("counts", lambda m, x: m.bincount(x), [In((20,), "int64", kind=list(np.arange(20) % 7 * 3 % 5))]),
        Case("minlength", lambda m, x: m.bincount(x, minlength=12), [In((6,), "int64", kind=[0, 3, 3, 1, 9, 0])]),
        Case("weights", lambda m, x, w: m.bincount(x, w), [In((6,), "int64", kind=[0, 3, 3, 1, 9, 0]), In((6,))]),
        Case("weights64", lambda m, x, w: m.bincount(x, weights=w), [In((4,), "int64", kind=[2, 2, 0, 1]),
                                                                  In((4,), "float64")]),
        Case("int32", lambda m, x: m.bincount(x), [In((4,), "int32", kind=[1, 1, 4, 0])]),
        Case("empty", lambda m, x: m.bincount(x), [In((0,), "int64")]),
        Case("empty_minlength", lambda m, x: m.bincount(x, minlength=3), [In((0,), "int64")]),
        Case("negative", lambda m, x: m.bincount(x), [In((3,), "int64", kind=[1, -1, 2])]),
        Case("two_dims", lambda m, x: m.bincount(x), [In((2, 2), "int64", kind=[[1, 1], [2, 2]])]),
        Case("stepped", lambda m, x: m.bincount(x), [In((5,), "int64", layout="step", kind="pos")]),
        Case("0dim", lambda m, x: m.bincount(x), [In((), "int64", kind=3)]),
        Case("float_error", lambda m, x: m.bincount(x), [In((3,))]),
        Case("weights_length", lambda m, x, w: m.bincount(x, w), [In((3,), "int64", kind=[0, 1, 2]), In((4,))]),
    ]


def histc_cases():
    inf = float("inf")  # (a NaN lands in a bin by chance in torch; ctorch counts it nowhere)
    return [
        Case("default", lambda m, x: m.histc(x), [In((200,))]),
        Case("range", lambda m, x: m.histc(x, bins=7, min=-3, max=5), [In((4, 50), "float64")]),
        Case("edges", lambda m, x: m.histc(x, bins=4, min=0, max=4), [In((7,), kind=[0.0, 1.0, 2.0, 3.0, 4.0, 4.5, -0.5])]),
        Case("constant", lambda m, x: m.histc(x, bins=3), [In((4,), kind=[2.0, 2.0, 2.0, 2.0])]),
        Case("outside", lambda m, x: m.histc(x, bins=3, min=0, max=3), [In((4,), kind=[-inf, 1.0, 2.5, inf])]),
        Case("method", lambda m, x: x.histc(5), [In((30,))]),
        Case("empty", lambda m, x: m.histc(x, bins=3), [In((0,))]),
        Case("transposed", lambda m, x: m.histc(x, bins=4), [In((3, 5), layout="T")]),
        Case("0dim", lambda m, x: m.histc(x, bins=4, min=-1, max=1), [In((), kind=0.5)]),
        Case("min_above_max", lambda m, x: m.histc(x, bins=3, min=2, max=1), [In((3,))]),
        Case("int_error", lambda m, x: m.histc(x), [In((3,), "int64")]),
    ]


def cov_cases():
    return [
        Case("plain", lambda m, x: m.cov(x), [In((3, 8), "float64")]),
        Case("float32", lambda m, x: m.cov(x), [In((4, 6))]),
        Case("one_variable", lambda m, x: m.cov(x), [In((9,), "float64")]),
        Case("correction0", lambda m, x: m.cov(x, correction=0), [In((2, 5), "float64")]),
        Case("fweights", lambda m, x, f: m.cov(x, fweights=f),
             [In((3, 5), "float64"), In((5,), "int64", kind=[1, 0, 2, 3, 1])]),
        Case("aweights", lambda m, x, a: m.cov(x, aweights=a), [In((3, 5), "float64"), In((5,), "float64", kind="pos")]),
        Case("both_weights", lambda m, x, f, a: m.cov(x, correction=2, fweights=f, aweights=a),
             [In((3, 5), "float64"), In((5,), "int64", kind=[1, 4, 2, 3, 1]), In((5,), "float64", kind="pos")]),
        Case("int_input", lambda m, x: m.cov(x), [In((2, 6), "int64")]),
        Case("too_few", lambda m, x: m.cov(x), [In((2, 1), "float64")]),
        Case("negative_weight", lambda m, x, f: m.cov(x, fweights=f), [In((2, 3)), In((3,), "int64", kind=[1, -1, 2])]),
        Case("float_fweights", lambda m, x, f: m.cov(x, fweights=f), [In((2, 3)), In((3,))]),
        Case("transposed", lambda m, x: m.cov(x), [In((3, 5), "float64", layout="T")]),
        Case("0dim", lambda m, x: m.cov(x), [In((), "float64")]),
        Case("empty", lambda m, x: m.cov(x), [In((0, 3), "float64")]),
        Case("three_dims", lambda m, x: m.cov(x), [In((2, 3, 4))]),
        Case("grad", lambda m, x: m.autograd.grad(m.cov(x).sum(), x.requires_grad_())[0], [In((3, 4), "float64")]),
    ]


def corrcoef_cases():
    return [
        Case("plain", lambda m, x: m.corrcoef(x), [In((3, 8), "float64")]),
        Case("float32", lambda m, x: m.corrcoef(x), [In((4, 6))]),
        Case("one_variable", lambda m, x: m.corrcoef(x), [In((5,), "float64")]),
        Case("constant_row", lambda m, x: m.corrcoef(x), [In((2, 3), kind=[[1.0, 1.0, 1.0], [1.0, 2.0, 4.0]])]),
        Case("int", lambda m, x: m.corrcoef(x), [In((2, 5), "int64")]),
        Case("transposed", lambda m, x: m.corrcoef(x), [In((3, 4), "float64", layout="T")]),
        Case("0dim", lambda m, x: m.corrcoef(x), [In((), "float64")]),
        Case("empty", lambda m, x: m.corrcoef(x), [In((0, 3), "float64")]),
        Case("three_dims", lambda m, x: m.corrcoef(x), [In((2, 3, 4))]),
        Case("bool", lambda m, x: m.corrcoef(x), [In((2, 3), "bool")]),
    ]


def searchsorted_cases():
    seq = In((3, 6), kind=[[-2.0, -1.0, 0.0, 0.0, 1.5, 4.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0],
                           [-5.0, -5.0, -5.0, 1.0, 1.0, 2.0]])
    row = In((6,), "int64", kind=[-3, 0, 0, 2, 5, 9])
    return [
        Case("rows_left", lambda m, s, v: m.searchsorted(s, v), [seq, In((3, 4))]),
        Case("rows_right", lambda m, s, v: m.searchsorted(s, v, right=True), [seq, In((3, 4), kind="small")]),
        Case("side_right", lambda m, s, v: m.searchsorted(s, v, side="right"), [row, In((2, 5), "int64")]),
        Case("ties", lambda m, s, v: m.searchsorted(s, v), [seq, In((3, 2), kind=[[0.0, 4.0], [5.0, 0.0], [-5.0, 1.0]])]),
        Case("one_sequence", lambda m, s, v: m.searchsorted(s, v), [row, In((2, 3, 4), "int64")]),
        Case("out_int32", lambda m, s, v: m.searchsorted(s, v, out_int32=True), [row, In((5,), "int64")]),
        Case("scalar", lambda m, s: m.searchsorted(s, 2), [row]),
        Case("float_scalar", lambda m, s: m.searchsorted(s, 0.5), [row]),
        Case("mixed_dtypes", lambda m, s, v: m.searchsorted(s, v), [row, In((4,), "float64", kind=[-3.5, 0.0, 2.5, 99.0])]),
        Case("sorter", lambda m, s, v: m.searchsorted(s, v, sorter=m.argsort(s, stable=True)),
             [In((5,), kind=[3.0, -1.0, 2.0, 0.5, 9.0]), In((4,), kind=[0.0, 2.0, 10.0, -4.0])]),
        Case("nan", lambda m, s, v: m.searchsorted(s, v), [In((3,), kind=[0.0, 1.0, float("nan")]),
                                                        In((3,), kind=[float("nan"), 0.5, float("inf")])]),
        Case("transposed", lambda m, s, v: m.searchsorted(s, v), [seq, In((3, 4), layout="T")]),
        Case("stepped_sequence", lambda m, s, v: m.searchsorted(s, v), [In((6,), "int64", layout="step", kind=list(range(12))),
                                                                      In((4,), "int64")]),
        Case("0dim_values", lambda m, s, v: m.searchsorted(s, v), [row, In((), "int64")]),
        Case("empty_values", lambda m, s, v: m.searchsorted(s, v), [row, In((0,), "int64")]),
        Case("empty_sequence", lambda m, s, v: m.searchsorted(s, v), [In((0,)), In((3,))]),
        Case("side_conflict", lambda m, s, v: m.searchsorted(s, v, right=True, side="left"), [row, In((2,), "int64")]),
        Case("bad_side", lambda m, s, v: m.searchsorted(s, v, side="middle"), [row, In((2,), "int64")]),
        Case("leading_dims", lambda m, s, v: m.searchsorted(s, v), [seq, In((2, 4))]),
    ]


def bucketize_cases():
    bounds = In((5,), kind=[-1.0, 0.0, 0.5, 2.0, 4.0])
    return [
        Case("left", lambda m, x, b: m.bucketize(x, b), [In((3, 4)), bounds]),
        Case("right", lambda m, x, b: m.bucketize(x, b, right=True), [In((3, 4), kind="small"), bounds]),
        Case("int32", lambda m, x, b: m.bucketize(x, b, out_int32=True), [In((6,), "int64"), bounds]),
        Case("scalar", lambda m, b: m.bucketize(0.5, b), [bounds]),
        Case("two_dim_boundaries", lambda m, x, b: m.bucketize(x, b), [In((3,)), In((2, 2))]),
        Case("float64", lambda m, x, b: m.bucketize(x, b), [In((4,), "float64"), In((3,), "float64", kind=[-1.0, 0.0, 3.0])]),
        Case("int", lambda m, x, b: m.bucketize(x, b), [In((4,), "int64"), In((3,), "int64", kind=[-1, 0, 3])]),
        Case("transposed", lambda m, x, b: m.bucketize(x, b), [In((3, 4), layout="T"), bounds]),
        Case("0dim", lambda m, x, b: m.bucketize(x, b), [In(()), bounds]),
        Case("empty", lambda m, x, b: m.bucketize(x, b), [In((0, 2)), bounds]),
    ]


def nanmedian_cases():
    f = lambda *a, **k: (lambda m, x: m.nanmedian(x, *a, **k))  # noqa: E731
    nan = float("nan")
    cs = [Case(f"all_{dt}", f(), [In((3, 5), dt, kind=_distinct((3, 5), dt))]) for dt in NUMERIC]
    cs += [Case(f"dim_{dt}", f(1), [In((3, 4), dt, kind=_distinct((3, 4), dt))]) for dt in NUMERIC]
    cs += [
        Case("nan_skipped", f(1), [In((3, 4), kind=[1.0, nan, 2.0, nan, nan, 5.0, nan, 4.0, 0.0, 3.0, -1.0, 2.5])]),
        # which NaN of an all-NaN row torch's index names depends on its selection algorithm: values only
        Case("all_nan_row", _values_of(f(1)), [In((2, 4), kind=[nan, nan, nan, nan, 1.0, nan, 2.0, 0.0])]),
        Case("nan_skipped_all", f(), [In((6,), kind=[1.0, 3.0, nan, 2.0, 0.0, nan])]),
        Case("all_nan", f(), [In((3,), kind=[nan, nan, nan])]),
        Case("nan_float64", f(0), [In((4, 2), "float64", kind=[nan, 1.0, 2.0, nan, 3.0, nan, nan, nan])]),
        Case("keepdim", f(-1, True), [In((2, 3, 5), kind=_distinct((2, 3, 5)))]),
        Case("method", lambda m, x: x.nanmedian(0), [In((3, 4), kind=_distinct((3, 4)))]),
        Case("method_all", lambda m, x: x.nanmedian(), [In((3, 4), "float64")]),
        Case("0dim", f(), [In(())]),
        Case("0dim_dim", f(0), [In(())]),
        Case("empty_all", f(), [In((0,))]),
        Case("empty_other", f(1), [In((0, 3))]),
        Case("empty_reduced", f(0), [In((0, 3))]),
        Case("grad", lambda m, x: m.autograd.grad(m.nanmedian(x.requires_grad_(), 1)[0].sum() + m.nanmedian(x) * 2, x)[0],
             [In((3, 4), "float64", kind=[1.0, nan, 2.0, 5.0, nan, 7.0, nan, nan, 0.0, 3.0, -1.0, 4.0])]),
        Case("bool_raises", f(), [In((3, 4), "bool")]),
        Case("dim_out_of_range", f(2), [In((3, 4))]),
    ]
    cs += [Case(c.id, f(1), [_laid_out((3, 4), c.inputs[0].layout)]) for c in _common(None)]
    return cs


def msort_cases():
    f = lambda m, x: m.msort(x)  # noqa: E731
    cs = [Case(dt, f, [In((4, 3), dt, kind=_distinct((4, 3), dt))]) for dt in NUMERIC]
    return cs + [
        Case("nan", f, [In((3, 2), kind=[1.0, float("nan"), float("nan"), 0.0, -1.0, 2.0])]),
        Case("method", lambda m, x: x.msort(), [In((5,), kind=_distinct((5,)))]),
        Case("extra_argument", lambda m, x: m.msort(x, 0), [In((5,), kind=_distinct((5,)))]),
        Case("0dim", f, [In(())]),
        Case("empty", f, [In((0, 3))]),
        Case("grad", lambda m, x: m.autograd.grad((m.msort(x.requires_grad_()).cumsum(0) ** 2).sum(), x)[0],
             [In((4, 3), "float64", kind=_distinct((4, 3), "float64"))]),
    ] + [Case(c.id, f, [_laid_out((4, 3), c.inputs[0].layout)]) for c in _common(None)]


def isin_cases():
    f = lambda m, e, t: m.isin(e, t)  # noqa: E731
    # torch 1.13 has no bfloat16 isin: its reference compares in float32, where bfloat16 values are exact
    cs = [Case(dt, f, [In((3, 4), dt, kind="small"), In((5,), dt, kind="small")],
               torch_fn=(lambda m, e, t: m.isin(e.float(), t.float())) if dt == "bfloat16" else None) for dt in NUMERIC]
    nan = float("nan")
    return cs + [
        Case("invert", lambda m, e, t: m.isin(e, t, invert=True), [In((6,), "int64", kind=[1, 2, 3, 4, 5, 6]),
                                                                    In((3,), "int64", kind=[2, 9, 5])]),
        Case("nan_and_signed_zero", f, [In((4,), kind=[nan, -0.0, 1.0, 2.0]), In((2,), kind=[nan, 0.0])]),
        Case("nan_inverted", lambda m, e, t: m.isin(e, t, invert=True), [In((3,), kind=[nan, -0.0, 1.0]),
                                                                          In((2,), kind=[nan, 0.0])]),
        Case("promoted", f, [In((4,), "int8", kind=[1, 2, 3, 44]), In((2,), "int64", kind=[300, 44])]),
        Case("float_test", f, [In((3,), "int64", kind=[1, 2, 3]), In((2,), kind=[2.0, 5.5])]),
        Case("tensor_scalar", lambda m, e: m.isin(e, 2), [In((4,), "int64", kind=[1, 2, 3, 2])]),
        Case("scalar_tensor", lambda m, t: m.isin(2.5, t), [In((3,), kind=[1.0, 2.5, 3.0])]),
        Case("assume_unique", lambda m, e, t: m.isin(e, t, assume_unique=True), [In((5,), "int64", kind=[1, 2, 3, 4, 5]),
                                                                                  In((2,), "int64", kind=[4, 1])]),
        Case("test_2d", f, [In((3,), "int32", kind=[1, 2, 3]), In((2, 2), "int32", kind=[[3, 4], [5, 6]])]),
        Case("T", f, [In((4, 3), "int64", layout="T", kind="small"), In((3,), "int64", layout="step", kind="small")]),
        Case("expand", f, [In((3, 4), "int64", layout="expand", kind="small"), In((3,), "int64", kind="small")]),
        Case("empty_elements", f, [In((0, 3)), In((2,))]),
        Case("empty_test", f, [In((2, 3)), In((0,))]),
        Case("0dim", f, [In(()), In(())]),
        Case("bool", f, [In((3,), "bool"), In((2,), "bool")]),
    ]


# unique's result size depends on the values: it must refuse the meta device.
DATA_DEPENDENT = {"_unique2", "bincount"}

CASES = {
    "var": moment_cases("var"),
    "std": moment_cases("std"),
    "var_mean": moment_cases("var_mean"),
    "std_mean": moment_cases("std_mean"),
    "all": logical_cases("all"),
    "any": logical_cases("any"),
    "count_nonzero": count_nonzero_cases(),
    "logsumexp": logsumexp_cases(),
    "norm": norm_cases(),
    "linalg_vector_norm": vector_norm_cases(),
    "linalg_norm": linalg_norm_cases(),
    "cumsum": cum_cases("cumsum"),
    "cumprod": cum_cases("cumprod"),
    "cummax": _with_half_ref(cumext_cases("cummax")),
    "logcumsumexp": _with_half_ref(logcumsumexp_cases()),
    "cummin": _with_half_ref(cumext_cases("cummin")),
    "sort": _with_half_ref(sort_cases("sort")),
    "argsort": _with_half_ref(sort_cases("argsort")),
    "topk": _with_half_ref(topk_cases()),
    "kthvalue": _with_half_ref(kthvalue_cases()),
    "median": _with_half_ref(median_cases()),
    "nanmedian": _with_half_ref(nanmedian_cases()),
    "msort": _with_half_ref(msort_cases()),
    "isin": isin_cases(),
    "mode": _with_half_ref(mode_cases()),
    "_unique2": _with_half_ref(unique_cases()),
    "max": _with_half_ref(extremum_cases("max")),
    "min": _with_half_ref(extremum_cases("min")),
    "aminmax": _with_half_ref(aminmax_cases()),
    "nansum": nan_reduction_cases("nansum"),
    "nanmean": nan_reduction_cases("nanmean"),
    "quantile": quantile_cases("quantile"),
    "nanquantile": quantile_cases("nanquantile"),
    "bincount": bincount_cases(),
    "histc": histc_cases(),
    "cov": cov_cases(),
    "corrcoef": corrcoef_cases(),
    "searchsorted": searchsorted_cases(),
    "bucketize": bucketize_cases(),
}
