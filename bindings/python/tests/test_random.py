"""Random numbers from Python, against torch 1.13 where the two can agree: names, signatures, result
sizes and dtypes, errors and the distributions' moments (the values themselves differ: ctorch draws
from a Philox stream, torch from Mersenne Twister). Reproducibility is ctorch's own promise: one
seed gives the same bits for every thread count, and a generator's state restores its stream.
"""

import math

import numpy as np
import pytest

ctorch = pytest.importorskip("ctorch")
torch = pytest.importorskip("torch")


def same_call(fn):
    """fn(m) for m = ctorch and torch: both raise, or both give the same sizes and dtype."""
    try:
        want = fn(torch)
    except (RuntimeError, TypeError, ValueError, IndexError):
        with pytest.raises((RuntimeError, TypeError, ValueError, IndexError)):
            fn(ctorch)
        return None
    got = fn(ctorch)
    assert tuple(got.shape) == tuple(want.shape)
    assert got.dtype.name == str(want.dtype).replace("torch.", "")
    return got


@pytest.mark.parametrize("call", [
    lambda m: m.rand(2, 3),
    lambda m: m.rand((4,), dtype=m.float64),
    lambda m: m.rand(2, dtype=m.float16),
    lambda m: m.rand(2, dtype=m.int32),
    lambda m: m.randn(3, 1, 2),
    lambda m: m.randn([], dtype=m.float64),
    lambda m: m.randn(2, dtype=m.bfloat16),
    lambda m: m.randint(10, (3, 2)),
    lambda m: m.randint(-5, 5, (7,)),
    lambda m: m.randint(3, 10, (2,), dtype=m.int16),
    lambda m: m.randint(0, 10, (2,), dtype=m.float32),
    lambda m: m.randint(5, 5, (2,)),
    lambda m: m.randint(0, 300, (2,), dtype=m.uint8),
    lambda m: m.randperm(10),
    lambda m: m.randperm(0),
    lambda m: m.randperm(5, dtype=m.float32),
    lambda m: m.randperm(-1),
    lambda m: m.rand_like(m.ones(2, 3, dtype=m.float64)),
    lambda m: m.randn_like(m.ones(4)),
    lambda m: m.randint_like(m.ones(3, dtype=m.int32), 4),
    lambda m: m.bernoulli(m.full((2, 2), 0.5)),
    lambda m: m.bernoulli(m.ones(3), 0.3),
    lambda m: m.bernoulli(m.tensor([1.5, 0.2])),
    lambda m: m.multinomial(m.tensor([0.2, 0.3, 0.5]), 2),
    lambda m: m.multinomial(m.tensor([[0.2, 0.3, 0.5], [1.0, 1.0, 0.0]]), 4, replacement=True),
    lambda m: m.multinomial(m.tensor([0.2, 0.3, 0.5]), 4),
    lambda m: m.multinomial(m.tensor([0.2, -0.3, 0.5]), 1),
    lambda m: m.multinomial(m.ones(2, 2, 2), 1),
    lambda m: m.poisson(m.full((2, 3), 4.0)),
    lambda m: m.poisson(m.full((2,), 4.0, dtype=m.float64)),
    lambda m: m.poisson(m.tensor([1.0, -2.0])),
    lambda m: m.poisson(m.ones(2, dtype=m.int64)),
    lambda m: m.binomial(m.full((2, 3), 10.0), m.full((2, 3), 0.5)),
    lambda m: m.binomial(m.full((2, 1), 10.0), m.full((3,), 0.5)),
    lambda m: m.binomial(m.full((2,), 10.0), m.full((2,), 0.5, dtype=m.float64)),
    lambda m: m.dropout(m.ones(3, 4), 0.5, True),
    lambda m: m.dropout(m.ones(3, 4), 1.5, True),
    lambda m: m.ones(3).uniform_(2, 5),
    lambda m: m.ones(3).uniform_(5, 2),
    lambda m: m.ones(3, dtype=m.float64).normal_(1, 2),
    lambda m: m.ones(3, dtype=m.int64).normal_(),
    lambda m: m.zeros(4, dtype=m.int32).bernoulli_(0.5),
    lambda m: m.zeros(4).bernoulli_(2.0),
    lambda m: m.randn(2, 3, dtype=m.complex64),
    lambda m: m.rand(4, dtype=m.complex128),
    lambda m: m.randn_like(m.ones(3, dtype=m.complex64)),
    lambda m: m.ones(3, dtype=m.complex64).normal_(2, 3),
    lambda m: m.ones(3, dtype=m.complex128).uniform_(-1, 1),
], ids=lambda c: "")
def test_same_sizes_dtypes_and_errors_as_torch(call):
    same_call(call)


def test_manual_seed_repeats_and_continues():
    ctorch.manual_seed(11)
    a, b = ctorch.randn(1000), ctorch.randn(1000)
    ctorch.manual_seed(11)
    assert ctorch.randn(1000).tolist() == a.tolist()
    assert a.tolist() != b.tolist()
    assert ctorch.initial_seed() == 11
    assert ctorch.manual_seed(3) is ctorch.default_generator


def test_same_numbers_for_every_thread_count():
    before = ctorch.get_num_threads()
    try:
        draws = []
        for n in (1, 2, 4):
            ctorch.set_num_threads(n)
            ctorch.manual_seed(5)
            draws.append((ctorch.randn(3, 50001).sum().item(), ctorch.randperm(70001)[:10].tolist()))
        assert draws[0] == draws[1] == draws[2]
    finally:
        ctorch.set_num_threads(before)


def test_generator_state_offset_and_independence():
    g = ctorch.Generator().manual_seed(42)
    assert g.initial_seed() == 42 and g.get_offset() == 0
    first = ctorch.rand(10, generator=g)
    assert g.get_offset() == 3
    state = g.get_state()
    assert state.dtype is ctorch.uint8 and tuple(state.shape) == (24,)
    second = ctorch.rand(10, generator=g)
    g.set_state(state)
    assert ctorch.rand(10, generator=g).tolist() == second.tolist()
    h = ctorch.Generator("cpu").manual_seed(42)
    assert ctorch.rand(10, generator=h).tolist() == first.tolist()
    g.set_offset(0)
    assert ctorch.rand(10, generator=g).tolist() == first.tolist()
    with pytest.raises(ctorch.Error, match="not a generator state"):
        g.set_state(ctorch.zeros(24, dtype=ctorch.uint8))
    with pytest.raises(TypeError):
        ctorch.rand(2, generator=5)
    with pytest.raises(ctorch.Error):
        ctorch.Generator("meta")


@pytest.mark.parametrize("draw,mean,sd", [
    (lambda: ctorch.rand(200000, dtype=ctorch.float64), 0.5, math.sqrt(1 / 12)),
    (lambda: ctorch.randn(200000), 0.0, 1.0),
    # complex: each part is normal with variance 1/2 (E|z|^2 = 1), or uniform on [0, 1), as torch's
    (lambda: ctorch.randn(200000, dtype=ctorch.complex64).real, 0.0, math.sqrt(0.5)),
    (lambda: ctorch.randn(200000, dtype=ctorch.complex128).imag, 0.0, math.sqrt(0.5)),
    (lambda: ctorch.rand(200000, dtype=ctorch.complex64).imag, 0.5, math.sqrt(1 / 12)),
    (lambda: ctorch.empty(200000, dtype=ctorch.complex64).normal_(2, 3).real, 2.0, 3 / math.sqrt(2)),
    (lambda: ctorch.empty(200000, dtype=ctorch.complex128).uniform_(-1, 3).imag, 1.0, 4 / math.sqrt(12)),
    (lambda: ctorch.empty(200000).normal_(3, 0.5), 3.0, 0.5),
    (lambda: ctorch.empty(200000, dtype=ctorch.float64).uniform_(-1, 3), 1.0, 4 / math.sqrt(12)),
    (lambda: ctorch.randint(0, 10, (200000,)).to(ctorch.float64), 4.5, math.sqrt(99 / 12)),
    (lambda: ctorch.bernoulli(ctorch.full((200000,), 0.3)), 0.3, math.sqrt(0.21)),
    (lambda: ctorch.poisson(ctorch.full((200000,), 3.5)), 3.5, math.sqrt(3.5)),  # multiplication method
    (lambda: ctorch.poisson(ctorch.full((200000,), 250.0)), 250.0, math.sqrt(250.0)),  # transformed rejection
    (lambda: ctorch.binomial(ctorch.full((200000,), 20.0), ctorch.full((200000,), 0.2)), 4.0, math.sqrt(3.2)),
    (lambda: ctorch.binomial(ctorch.full((200000,), 500.0), ctorch.full((200000,), 0.7)), 350.0, math.sqrt(105.0)),
])
def test_moments(draw, mean, sd):
    x = draw().to(ctorch.float64)
    n = x.numel()
    m = x.mean().item()
    s = math.sqrt(((x - m) * (x - m)).mean().item())
    assert abs(m - mean) < 5 * sd / math.sqrt(n)
    assert abs(s - sd) < 0.02 * sd


def test_normal_tails_match_torch():
    """The share of draws beyond 1, 2 and 3 standard deviations, ctorch against torch."""
    ctorch.manual_seed(1)
    torch.manual_seed(1)
    x, y = ctorch.randn(400000).abs(), torch.randn(400000).abs()
    for k in (1.0, 2.0, 3.0):
        a = (x > k).to(ctorch.float64).mean().item()
        b = (y > k).double().mean().item()
        assert abs(a - b) < 5 * math.sqrt(b * (1 - b) / 400000) * 1.5


def test_multinomial_without_replacement_is_distinct_and_weighted():
    w = ctorch.tensor([[1.0, 2.0, 3.0, 4.0, 0.0]] * 2000)
    s = ctorch.multinomial(w, 4)
    rows = s.tolist()
    assert all(sorted(r) == [0, 1, 2, 3] for r in rows)
    first = [r[0] for r in rows]
    share = first.count(3) / len(first)  # the heaviest category comes first 4 / 10 of the time
    assert abs(share - 0.4) < 0.05


def test_dropout_gradient_uses_the_mask_and_eval_returns_input():
    x = ctorch.ones(1000, requires_grad=True)
    y = ctorch.dropout(x, 0.2, True)
    y.sum().backward()
    kept = [v != 0 for v in y.tolist()]
    assert all(g == (1.25 if k else 0.0) for g, k in zip(x.grad.tolist(), kept))
    assert 100 < kept.count(False) < 300
    assert ctorch.dropout(x, 0.2, False) is x


def test_inplace_draws_refuse_leaves_that_require_grad():
    w = ctorch.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        w.normal_()
    with ctorch.no_grad():
        w.normal_()  # how parameters are initialized
    assert w.requires_grad


def test_meta_device_draws_nothing():
    before = ctorch.default_generator.get_offset()
    t = ctorch.randn(1000, 1000, device="meta")
    assert t.device == ctorch.device("meta") and tuple(t.shape) == (1000, 1000)
    assert ctorch.default_generator.get_offset() == before


def test_functional_dropout_takes_torch_defaults():
    """torch.nn.functional.dropout(input, p=0.5, training=True, inplace=False)."""
    F = ctorch.nn.functional
    x = ctorch.ones(1000)
    y = F.dropout(x)
    kept = y.numpy()
    assert set(kept.tolist()) <= {0.0, 2.0} and 300 < (kept == 0).sum() < 700
    assert F.dropout(x, 0.5, training=False) is x
    z = ctorch.ones(8)
    assert F.dropout(z, 0.25, inplace=True) is z and set(z.numpy().tolist()) <= {0.0, float(np.float32(4.0 / 3.0))}


@pytest.mark.parametrize("draw,numpy_draw", [
    (lambda n: ctorch.poisson(ctorch.full((n,), 12.0, dtype=ctorch.float64)),
     lambda rng, n: rng.poisson(12.0, n)),
    (lambda n: ctorch.binomial(ctorch.full((n,), 30.0, dtype=ctorch.float64), ctorch.full((n,), 0.45, dtype=ctorch.float64)),
     lambda rng, n: rng.binomial(30, 0.45, n)),
    (lambda n: ctorch.binomial(ctorch.full((n,), 9.0), ctorch.full((n,), 0.8)), lambda rng, n: rng.binomial(9, 0.8, n)),
], ids=["poisson", "binomial-btrs", "binomial-inversion"])
def test_poisson_and_binomial_follow_their_distributions(draw, numpy_draw):
    """Each count's frequency, ctorch against numpy's sampler, within 5 standard errors."""
    n = 400000
    ctorch.manual_seed(11)
    got = np.bincount(draw(n).numpy().astype(np.int64), minlength=60)[:60] / n
    want = np.bincount(numpy_draw(np.random.default_rng(11), n), minlength=60)[:60] / n
    se = np.sqrt(np.maximum(want, 1 / n) / n)
    assert np.all(np.abs(got - want) <= 5 * np.sqrt(2) * se)


def test_poisson_and_binomial_edges_generators_and_thread_counts():
    assert ctorch.poisson(ctorch.zeros(3)).tolist() == [0.0, 0.0, 0.0]
    b = ctorch.binomial(ctorch.tensor([0.0, 7.0, 7.0]), ctorch.tensor([0.5, 0.0, 1.0]))
    assert b.tolist() == [0.0, 0.0, 7.0]
    with pytest.raises(ValueError, match="whole number"):
        ctorch.binomial(ctorch.tensor([2.5]), ctorch.tensor([0.5]))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        ctorch.binomial(ctorch.tensor([2.0]), ctorch.tensor([1.5]))
    g1, g2 = ctorch.Generator().manual_seed(5), ctorch.Generator().manual_seed(5)
    assert ctorch.poisson(ctorch.full((50,), 30.0), g1).tolist() == ctorch.poisson(ctorch.full((50,), 30.0), g2).tolist()
    before = ctorch.get_num_threads()
    draws = []
    for threads in (1, 2):
        ctorch.set_num_threads(threads)
        ctorch.manual_seed(2)
        draws.append(ctorch.binomial(ctorch.full((100000,), 40.0), ctorch.full((100000,), 0.3)).numpy())
    ctorch.set_num_threads(before)
    assert np.array_equal(*draws)
    r = ctorch.ones(3, requires_grad=True)
    assert not ctorch.poisson(r).requires_grad
