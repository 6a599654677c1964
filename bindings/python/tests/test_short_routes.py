"""Arguments that take a shorter route than the operator's general kernel give torch's values,
bits and gradients: pow(x, 2) as x * x, dropout with p = 0 as the input itself."""

import numpy as np
import pytest

ctorch = pytest.importorskip("ctorch")
torch = pytest.importorskip("torch")


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64"])
@pytest.mark.parametrize("exponent", [2, 2.0])
def test_square_by_pow_matches_torch_bitwise(dtype, exponent):
    a = (np.random.default_rng(0).standard_normal(257) * 10).astype(dtype)
    c, t = ctorch.tensor(a) ** exponent, torch.tensor(a) ** exponent
    assert str(c.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    assert c.numpy().tobytes() == t.numpy().tobytes()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gradient_of_square_by_pow_matches_torch_bitwise(dtype):
    rng = np.random.default_rng(1)
    a, g = rng.standard_normal(300).astype(dtype), rng.standard_normal(300).astype(dtype)
    cx, tx = ctorch.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    ctorch.pow(cx, 2).backward(ctorch.tensor(g))
    torch.pow(tx, 2).backward(torch.tensor(g))
    assert cx.grad.numpy().tobytes() == tx.grad.numpy().tobytes()


def test_other_exponents_keep_pow():
    a = np.linspace(0.1, 3, 50).astype("float32")
    for e in (3, 0.5, -1, 2.5):
        np.testing.assert_allclose((ctorch.tensor(a) ** e).numpy(), (torch.tensor(a) ** e).numpy(), rtol=2e-7)


def test_dropout_with_p_zero_is_the_input_and_draws_nothing():
    x = ctorch.randn(4, 5, requires_grad=True)
    ctorch.manual_seed(3)
    y = ctorch.nn.functional.dropout(x, p=0.0, training=True)
    after = ctorch.rand(3)
    ctorch.manual_seed(3)
    assert ctorch.equal(after, ctorch.rand(3))  # no numbers were drawn
    assert ctorch.equal(y, x)
    y.sum().backward()
    assert ctorch.equal(x.grad, ctorch.ones(4, 5))
    # p > 0 still drops
    kept = ctorch.nn.functional.dropout(ctorch.ones(1000), p=0.5, training=True)
    assert 0 < int((kept == 0).sum()) < 1000
