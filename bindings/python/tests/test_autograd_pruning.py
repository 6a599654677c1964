"""autograd.grad computes only what leads to the inputs asked for, as torch does: a derivative's
terms for the other inputs are skipped (seen in the profiler's operator list), and the results
are the same as from a full backward."""

import pytest

ctorch = pytest.importorskip("ctorch")
from ctorch.profiler import profile  # noqa: E402


def _ops_run(fn):
    with profile() as p:
        result = fn()
    return {e["name"] for e in p.events()}, result


def test_grad_of_the_weight_alone_skips_the_input_gradient():
    x = ctorch.randn(2, 3, 8, 8, requires_grad=True)
    w = ctorch.randn(4, 3, 3, 3, requires_grad=True)
    y = ctorch.nn.functional.conv2d(x, w, padding=1).sum()
    names, (gw,) = _ops_run(lambda: ctorch.autograd.grad(y, [w], retain_graph=True))
    assert "conv2d" not in names and "conv_transpose2d" not in names
    names, (gx,) = _ops_run(lambda: ctorch.autograd.grad(y, [x], retain_graph=True))
    assert "conv2d" in names  # the input gradient of a stride-1 convolution
    y.backward()
    assert ctorch.equal(gw, w.grad) and ctorch.equal(gx, x.grad)


def test_grad_through_a_chain_prunes_each_node():
    a = ctorch.randn(5, requires_grad=True)
    b = ctorch.randn(5, requires_grad=True)
    c = ctorch.randn(5, requires_grad=True)
    y = ((a * b) * c).sum()
    (ga,) = ctorch.autograd.grad(y, [a], retain_graph=True)
    assert ctorch.allclose(ga, b * c)
    # backward of mul for `a` alone: one product per mul node (grad * other), none for b or c
    with profile() as p:
        ctorch.autograd.grad(y, [a], retain_graph=True)
    assert sum(e["name"] == "mul.Tensor" for e in p.events()) == 2
    with profile() as p:
        ctorch.autograd.grad(y, [a, b, c])
    assert sum(e["name"] == "mul.Tensor" for e in p.events()) == 4
