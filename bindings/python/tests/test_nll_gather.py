"""nll_loss and cross_entropy pick each target's value by a gather: values and gradients against
torch over shapes ([C], [N, C], [N, C, d1, d2]), weights, ignore_index (an ignored element adds an
exact 0 even where class 0 holds -inf), reductions and label smoothing."""

import numpy as np
import pytest

ctorch = pytest.importorskip("ctorch")
torch = pytest.importorskip("torch")

SHAPES = [((6, 5), (6,)), ((5,), ()), ((3, 4, 2, 3), (3, 2, 3))]


@pytest.mark.parametrize("fn,smoothing", [("nll_loss", 0.0), ("cross_entropy", 0.0), ("cross_entropy", 0.1)])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shapes", SHAPES)
def test_loss_and_gradient_match_torch(shapes, reduction, weighted, fn, smoothing):
    shape, tshape = shapes
    rng = np.random.default_rng(len(shape))
    classes = shape[0] if len(shape) == 1 else shape[1]
    x = rng.standard_normal(shape)
    t = rng.integers(0, classes, tshape)
    if len(tshape):
        t.flat[1] = -100
        if fn == "nll_loss":
            x[(1, 0) + (0,) * (len(shape) - 2)] = -np.inf  # class 0 of an ignored element (when [N, C])
    w = rng.random(classes)
    results = []
    for lib in (ctorch, torch):
        kw = {"reduction": reduction, "weight": lib.tensor(w) if weighted else None}
        if fn == "cross_entropy":
            kw["label_smoothing"] = smoothing
        xt = lib.tensor(x, requires_grad=True)
        loss = getattr(lib.nn.functional, fn)(xt, lib.tensor(t), **kw)
        loss.backward(lib.tensor(np.ones(tuple(loss.shape))))
        results.append((loss.detach().numpy(), xt.grad.numpy()))
    (cl, cg), (tl, tg) = results
    np.testing.assert_allclose(cl, tl, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(cg, tg, rtol=1e-12, atol=1e-12)


def test_nll_loss_refuses_targets_out_of_range():
    with pytest.raises(IndexError, match="out of bounds"):
        ctorch.nn.functional.nll_loss(ctorch.randn(2, 3), ctorch.tensor([0, 3]))


# The targets and indices are checked in one vectorized pass over 16 lanes, then a scalar tail:
# lengths around those boundaries, with the bad value in the vector body and in the tail.
@pytest.mark.parametrize("n", [1, 15, 16, 17, 100])
@pytest.mark.parametrize("ignore_index", [-100, 2, 0])
def test_nll_loss_checks_every_target_and_names_the_first_bad_one(n, ignore_index):
    rng = np.random.default_rng(n)
    x = rng.standard_normal((n, 5))
    t = rng.integers(0, 5, n)
    t[n // 2] = ignore_index if ignore_index >= 0 else 1
    got = ctorch.nn.functional.nll_loss(ctorch.tensor(x), ctorch.tensor(t), ignore_index=ignore_index)
    want = torch.nn.functional.nll_loss(torch.tensor(x), torch.tensor(t), ignore_index=ignore_index)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)
    for bad_at in sorted({0, n // 2, n - 1}):
        bad = t.copy()
        bad[bad_at] = 7
        bad[n - 1] = -1 if bad_at != n - 1 else 7
        with pytest.raises(IndexError, match="nll_loss: target 7 is out of bounds for 5 classes"):
            ctorch.nn.functional.nll_loss(ctorch.tensor(x), ctorch.tensor(bad), ignore_index=ignore_index)


@pytest.mark.parametrize("n", [1, 15, 16, 17, 100])
def test_gather_and_take_check_every_index_and_name_the_first_bad_one(n):
    x = ctorch.arange(float(4 * n)).reshape(4, n)
    idx = np.arange(n) % 4
    for bad_at in sorted({0, n // 2, n - 1}):
        bad = idx.copy()
        bad[bad_at] = 9
        if bad_at != n - 1:
            bad[n - 1] = -5
        with pytest.raises(IndexError, match="gather: index 9 is out of range for dim 0 of size 4"):
            x.gather(0, ctorch.tensor(bad).reshape(1, n))
    # take wraps negative indices: every value in [-size, size) is in range, the rest are not.
    flat = np.arange(4 * n) - 4 * n
    np.testing.assert_array_equal(x.take(ctorch.tensor(flat)).numpy(), np.arange(4 * n))
    with pytest.raises(IndexError, match=f"take: index {-4 * n - 1} is out of range"):
        x.take(ctorch.tensor(np.append(flat, -4 * n - 1)))
