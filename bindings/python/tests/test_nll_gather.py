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
