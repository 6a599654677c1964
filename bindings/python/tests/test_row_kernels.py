"""Kernels rewritten for speed keep torch's answers: max/min/argmax/argmin along contiguous rows
(Note [Argmax of rows]) name the first extremum and the first NaN, at odd row lengths, `where`'s
vectorized blend picks torch's bits with either side a tensor or a number, loops over bool masks
(read as bytes so they vectorize, nonzero's without a branch) give torch's values, avg_pool2d's
interior windows (summed a row at a time) give torch's bytes, and each gives the same bytes on one
thread and on two."""

import numpy as np
import pytest

ctorch = pytest.importorskip("ctorch")
torch = pytest.importorskip("torch")

# Row lengths around the 16-element groups of the search and the engine's 16384-element blocks.
LENGTHS = [1, 2, 15, 16, 17, 33, 1000, 16385]


def _rows(k, dtype, seed, kind):
    rng = np.random.default_rng(seed)
    m = 5
    if kind == "ties":  # few distinct values: every row has its extremum many times
        a = rng.integers(-2, 3, size=(m, k)).astype(dtype)
    else:
        a = rng.standard_normal((m, k)).astype(dtype) if dtype != np.int32 else rng.integers(-1000, 1000, size=(m, k)).astype(dtype)
    if kind == "nan" and np.issubdtype(dtype, np.floating):
        a[0, k // 2] = np.nan  # one NaN
        a[1, -1] = np.nan  # at the end
        a[2, :] = np.nan  # all NaN: index 0
        if k > 2:
            a[3, [1, k - 1]] = np.nan  # two: the first wins
    return a


def _both_threads(f):
    out, before = [], ctorch.get_num_threads()
    try:
        for n in (1, 2):
            ctorch.set_num_threads(n)
            out.append(f())
    finally:
        ctorch.set_num_threads(before)
    return out


@pytest.mark.parametrize("k", LENGTHS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
@pytest.mark.parametrize("kind", ["random", "ties", "nan"])
def test_max_min_along_rows_as_torch(k, dtype, kind):
    a = _rows(k, dtype, k, kind)
    c, t = ctorch.tensor(a), torch.tensor(a)
    for name in ("max", "min"):
        tv, ti = getattr(t, name)(-1)
        (cv1, ci1), (cv2, ci2) = _both_threads(lambda: getattr(c, name)(-1))
        np.testing.assert_array_equal(ci1.numpy(), ti.numpy())
        np.testing.assert_array_equal(cv1.numpy(), tv.numpy())
        assert ci1.numpy().tobytes() == ci2.numpy().tobytes() and cv1.numpy().tobytes() == cv2.numpy().tobytes()
    for name in ("argmax", "argmin"):
        ti = getattr(t, name)(-1)
        c1, c2 = _both_threads(lambda: getattr(c, name)(-1))
        np.testing.assert_array_equal(c1.numpy(), ti.numpy())
        assert c1.numpy().tobytes() == c2.numpy().tobytes()


@pytest.mark.parametrize("shape,dim", [((5, 1), -1), ((7, 33), -1), ((3, 16385), -1), ((33, 7), 0), ((4, 5, 6), (0, 2)),
                                       ((4, 5, 6), None), ((6, 0), -1)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_two_norm_as_torch(shape, dim, dtype):
    # The 2-norm's one-pass kernel: torch's value to rounding (checked in float64), the same bytes
    # on one and two threads, and inf/NaN carried through.
    a = np.random.default_rng(len(shape)).standard_normal(shape).astype(dtype)
    if a.size > 2:
        a.reshape(-1)[1] = np.nan
        a.reshape(-1)[-1] = np.inf
    c = ctorch.tensor(a)
    want = torch.tensor(a.astype(np.float64)).norm(dim=dim).numpy()
    r1, r2 = _both_threads(lambda: c.norm(dim=dim))
    assert r1.numpy().dtype == dtype and r1.numpy().tobytes() == r2.numpy().tobytes()
    np.testing.assert_allclose(r1.numpy(), want, rtol=1e-6 if dtype == np.float32 else 1e-12)
    r1k = ctorch.linalg.vector_norm(c, 2, dim=dim, keepdim=True)
    np.testing.assert_allclose(r1k.numpy(), torch.tensor(a.astype(np.float64)).norm(dim=dim, keepdim=True).numpy(),
                               rtol=1e-6 if dtype == np.float32 else 1e-12)


@pytest.mark.parametrize("shape", [(1,), (3, 1), (7, 33), (2, 4097), (5, 9000)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_scan_along_last_dim_as_torch(shape, dtype, name):
    # Scans along the last dim keep their running value in a register: torch's values (checked in
    # float64; float32 accumulates in double, so each output is rounded once), NaN carried on, and
    # the same bytes on one and two threads; lines crossing the 4096-element chunks included.
    rng = np.random.default_rng(shape[-1])
    if dtype == np.int32:
        a = rng.integers(-1, 2, size=shape).astype(dtype) if name == "cumprod" else rng.integers(-3, 4, size=shape).astype(dtype)
    else:
        a = (1 + 0.001 * rng.standard_normal(shape) if name == "cumprod" else rng.standard_normal(shape)).astype(dtype)
        if a.size > 3:
            a.reshape(-1)[2] = np.nan
    c = ctorch.tensor(a)
    r1, r2 = _both_threads(lambda: getattr(c, name)(-1))
    assert r1.numpy().tobytes() == r2.numpy().tobytes()
    want = getattr(torch.tensor(a.astype(np.float64) if dtype != np.int32 else a.astype(np.int64)), name)(-1).numpy()
    got = r1.numpy()
    if dtype == np.int32:
        np.testing.assert_array_equal(got, want)
    else:
        assert got.dtype == dtype
        np.testing.assert_allclose(got, want.astype(dtype), rtol=1e-6 if dtype == np.float32 else 1e-12, atol=1e-5 if dtype == np.float32 else 1e-12)


@pytest.mark.parametrize("shape", [(2, 3, 1, 1), (2, 5, 7, 9), (1, 2, 130, 131), (3, 16, 8, 8)])
@pytest.mark.parametrize("size", [1, (2, 1), (3, 1), (1, 2), (4, 3)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_adaptive_avg_pool2d_as_torch(shape, size, dtype):
    # Windows of whole rows are summed by the reduction engine: torch's means (checked in float64),
    # uneven windows, planes past the engine's 16384-element block, NaN, and the same bytes on one
    # and two threads.
    import ctorch.nn.functional as CF
    import torch.nn.functional as F

    a = np.random.default_rng(shape[-1]).standard_normal(shape).astype(dtype)
    a.reshape(-1)[0] = np.nan
    c = ctorch.tensor(a)
    r1, r2 = _both_threads(lambda: CF.adaptive_avg_pool2d(c, size))
    assert r1.numpy().tobytes() == r2.numpy().tobytes()
    want = F.adaptive_avg_pool2d(torch.tensor(a.astype(np.float64)), size).numpy()
    np.testing.assert_allclose(r1.numpy(), want, rtol=1e-5 if dtype == np.float32 else 1e-12,
                               atol=1e-6 if dtype == np.float32 else 1e-12)


@pytest.mark.parametrize("rows", [1, 3, 700])  # results of 64 KB and less are copied as bytes
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cat_is_torchs(rows, dim):
    # Inputs of the result's dtype and dense copy as bytes when the result is small; a strided or
    # other-dtype input, or a large result, takes copy_. A 1-D empty tensor is skipped, as in torch.
    rng = np.random.default_rng(rows)
    a = rng.standard_normal((rows, 5, 8)).astype(np.float32)
    b = rng.standard_normal((rows, 5, 8)).astype(np.float32)
    want = torch.cat([torch.tensor(a), torch.tensor(b), torch.empty(0)], dim).numpy()
    got = ctorch.cat([ctorch.tensor(a), ctorch.tensor(b), ctorch.empty(0)], dim).numpy()
    assert got.tobytes() == want.tobytes()
    wide = np.zeros((rows, 5, 16), np.float32)
    wide[..., ::2] = b
    strided = ctorch.tensor(wide)[..., ::2]  # b's values, every other element
    assert not strided.is_contiguous()
    mixed = ctorch.cat([ctorch.tensor(a).to(ctorch.float16), strided], dim)
    assert mixed.numpy().tobytes() == torch.cat([torch.tensor(a).half(), torch.tensor(b)], dim).numpy().tobytes()


@pytest.mark.parametrize("shape", [(2, 3, 7, 9), (1, 2, 32, 33), (2, 1, 4, 4), (1, 1, 2, 1)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_avg_pool2d_is_torchs(shape, dtype):
    # Windows wholly inside the input are summed across a row at a time, the edge ones one by one:
    # both add in torch's (ih, iw) order, so torch's bytes for every geometry (kernel, stride,
    # padding, ceil_mode, count_include_pad, divisor_override), -0.0 included, on one and two threads.
    import ctorch.nn.functional as CF
    import torch.nn.functional as F

    a = np.random.default_rng(shape[-1]).standard_normal(shape).astype(dtype)
    a.reshape(-1)[:3] = -0.0
    c, t = ctorch.tensor(a), torch.tensor(a)
    for k in (1, 2, 3, (3, 2)):
        for stride in (None, 1, 2, 3):
            for pad in (0, 1):
                if 2 * pad > (k if isinstance(k, int) else min(k)):
                    continue
                for ceil in (False, True):
                    for cip in (True, False):
                        for div in (None, 3):
                            try:
                                want = F.avg_pool2d(t, k, stride, pad, ceil, cip, div).numpy()
                            except RuntimeError:
                                with pytest.raises(ctorch.Error):
                                    CF.avg_pool2d(c, k, stride, pad, ceil, cip, div)
                                continue
                            r1, r2 = _both_threads(lambda: CF.avg_pool2d(c, k, stride, pad, ceil, cip, div).numpy())
                            assert r1.tobytes() == r2.tobytes() == want.tobytes(), (k, stride, pad, ceil, cip, div)


@pytest.mark.parametrize("shape,groups", [((2, 6, 5, 7), 3), ((16, 64, 4, 4), 8), ((1, 4, 130, 131), 2), ((3, 5, 1), 5)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_group_norm_as_torch(shape, groups, dtype):
    # group_norm's variance from the 2-norm of the deviations: torch's values (checked in float64),
    # with weight and bias, the same bytes on one and two threads, and torch's gradient.
    import ctorch.nn.functional as CF
    import torch.nn.functional as F

    rng = np.random.default_rng(shape[1])
    a = (3 + 2 * rng.standard_normal(shape)).astype(dtype)
    w = rng.standard_normal(shape[1]).astype(dtype)
    b = rng.standard_normal(shape[1]).astype(dtype)
    c = ctorch.tensor(a)
    r1, r2 = _both_threads(lambda: CF.group_norm(c, groups, ctorch.tensor(w), ctorch.tensor(b)))
    assert r1.numpy().tobytes() == r2.numpy().tobytes()
    t = torch.tensor(a.astype(np.float64), requires_grad=True)
    want = F.group_norm(t, groups, torch.tensor(w.astype(np.float64)), torch.tensor(b.astype(np.float64)))
    tol = 1e-4 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(r1.numpy(), want.detach().numpy(), rtol=tol, atol=tol)
    cg = ctorch.tensor(a, requires_grad=True)
    CF.group_norm(cg, groups, ctorch.tensor(w), ctorch.tensor(b)).pow(2).sum().backward()
    want.pow(2).sum().backward()
    np.testing.assert_allclose(cg.grad.numpy(), t.grad.numpy(), rtol=tol * 10, atol=tol * 10)


@pytest.mark.parametrize("n", [1, 15, 16, 17, 1000, 100003])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int64, np.int8])
@pytest.mark.parametrize("form", ["tensors", "number first", "number second"])
def test_where_blends_torch_bits(n, dtype, form):
    rng = np.random.default_rng(n)
    cond = rng.random(n) < 0.5
    x = (rng.standard_normal(n) * 100).astype(dtype)
    y = (rng.standard_normal(n) * 100).astype(dtype)
    if np.issubdtype(dtype, np.floating):
        x[: min(n, 4)] = np.array([np.nan, -0.0, np.inf, -np.inf])[: min(n, 4)].astype(dtype)
        y[-min(n, 2):] = np.array([-0.0, np.nan])[: min(n, 2)].astype(dtype)
    zero = np.array(-0.0 if np.issubdtype(dtype, np.floating) else 0, dtype=dtype)

    def run(lib, frm):
        c = frm(cond)
        a, b = frm(x), frm(y)
        if form == "number first":
            a = frm(zero)
        elif form == "number second":
            b = frm(zero)
        return lib.where(c, a, b)

    want = run(torch, lambda a: torch.from_numpy(np.array(a)))
    got = _both_threads(lambda: run(ctorch, lambda a: ctorch.from_numpy(np.array(a))).numpy())
    for g in got:
        assert g.dtype == want.numpy().dtype
        assert g.tobytes() == want.numpy().tobytes()


BOOL_OPS = {
    "masked_fill": lambda lib, x, m: x.masked_fill(m, -0.0),
    "logical_not": lambda lib, x, m: lib.logical_not(m),
    "invert": lambda lib, x, m: ~m,
    "to float32": lambda lib, x, m: m.to(lib.float32),
    "to int64": lambda lib, x, m: m.to(lib.int64),
    "to float16": lambda lib, x, m: m.to(lib.float16),
    "times a float": lambda lib, x, m: x * m,
    "sum": lambda lib, x, m: m.sum(),
    "sum(-1)": lambda lib, x, m: m.sum(-1),
    "any": lambda lib, x, m: m.any(),
    "all": lambda lib, x, m: m.all(),
    "nonzero": lambda lib, x, m: lib.nonzero(m),
    "nonzero of floats": lambda lib, x, m: lib.nonzero(x * m),
    "masked_select": lambda lib, x, m: x.masked_select(m),
    "x[m]": lambda lib, x, m: x[m],
}


@pytest.mark.parametrize("n", [1, 15, 64, 65, 1000, 100003])
@pytest.mark.parametrize("name", sorted(BOOL_OPS))
def test_loops_over_bool_masks_give_torch_values(n, name):
    rng = np.random.default_rng(n)
    x = rng.standard_normal((2, n)).astype(np.float32)
    m = rng.random((2, n)) < 0.5
    if name == "all":
        m[1] = True

    def run(lib):
        return BOOL_OPS[name](lib, lib.from_numpy(x.copy()), lib.from_numpy(m.copy()))

    want = run(torch).numpy()
    for got in _both_threads(lambda: run(ctorch).numpy()):
        assert got.dtype == want.dtype and got.shape == want.shape
        assert got.tobytes() == want.tobytes()
