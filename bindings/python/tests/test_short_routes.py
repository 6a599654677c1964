"""Arguments that take a shorter route than the operator's general kernel give torch's values,
bits and gradients: pow by 2, 3, -2, 0.5, -0.5 or -1 as arithmetic, dropout with p = 0 as the input
itself."""

import numpy as np
import pytest

ctorch = pytest.importorskip("ctorch")
torch = pytest.importorskip("torch")


# exponent -> what torch computes instead of std::pow (numpy spelling, in the input's dtype)
ARITHMETIC = {
    2: lambda x: x * x,
    3: lambda x: x * x * x,
    -2: lambda x: 1 / (x * x),
    0.5: np.sqrt,
    -0.5: lambda x: 1 / np.sqrt(x),
    -1: lambda x: 1 / x,
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("exponent", list(ARITHMETIC))
def test_pow_by_a_number_is_torch_arithmetic_bitwise(dtype, exponent):
    a = (np.random.default_rng(0).standard_normal(257) * 10).astype(dtype)
    if exponent in (0.5, -0.5):
        a = np.abs(a)
    a[:3] = [0, 1, np.inf]
    with np.errstate(divide="ignore"):
        want = ARITHMETIC[exponent](a).astype(dtype)
    got = (ctorch.tensor(a) ** exponent).numpy()
    assert got.tobytes() == want.tobytes()
    if exponent in (2, 3, -1):  # exact in any libm: torch's own bits too
        assert got.tobytes() == (torch.tensor(a) ** exponent).numpy().tobytes()


@pytest.mark.parametrize("dtype", ["float16", "int64"])
def test_square_of_other_dtypes_matches_torch(dtype):
    a = (np.random.default_rng(0).standard_normal(257) * 10).astype(dtype)
    for exponent in (2, 2.0):
        c, t = ctorch.tensor(a) ** exponent, torch.tensor(a) ** exponent
        assert str(c.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
        assert c.numpy().tobytes() == t.numpy().tobytes()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("exponent", [2, 3, 0.5, -1])
def test_gradient_of_pow_by_a_number_matches_torch_bitwise(dtype, exponent):
    rng = np.random.default_rng(1)
    a, g = np.abs(rng.standard_normal(300)).astype(dtype) + 0.1, rng.standard_normal(300).astype(dtype)
    cx, tx = ctorch.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    ctorch.pow(cx, exponent).backward(ctorch.tensor(g))
    torch.pow(tx, exponent).backward(torch.tensor(g))
    assert cx.grad.numpy().tobytes() == tx.grad.numpy().tobytes()


def test_other_exponents_keep_pow():
    a = np.linspace(0.1, 3, 50).astype("float32")
    for e in (4, 1.5, -3, 2.5):
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
