"""Writing in place through a view while recording (out[:, :k] = y, h[t + 1] = f(h[t]), b[1:3].mul_(w)):
the base takes the write into its history, as torch's CopySlices does, against torch's gradients."""

import numpy as np
import pytest

ctorch = pytest.importorskip("ctorch")
torch = pytest.importorskip("torch")


def _slice_into_zeros(lib, T):
    y = T(3, 2)
    out = lib.zeros(3, 4, dtype=lib.float64)
    out[:, 1:3] = y * 2
    (out ** 2 * lib.arange(12.0).reshape(3, 4).double()).sum().backward()
    return y.grad, out.detach()


def _select_of_a_computed_base(lib, T):
    x, y = T(4, 3), T(3)
    b = x * 3
    b[1] = y.exp()
    b.sin().sum().backward()
    return x.grad, y.grad


def _mul_through_a_slice(lib, T):  # the derivative reads the view's old value and the other factor
    x, w = T(4, 3), T(2, 3)
    b = x.clone()
    b[1:3].mul_(w)
    (b ** 3).sum().backward()
    return x.grad, w.grad


def _view_made_before_the_write(lib, T):  # torch regenerates its grad_fn from the base
    x, y = T(4, 3), T(3)
    b = x + 0
    v = b[1]
    b[1] = y * 5
    (v * lib.arange(3.0).double()).sum().backward()
    return y.grad, x.grad


def _recurrence(lib, T):
    x, h0 = T(5, 2), T(2)
    h = lib.zeros(6, 2, dtype=lib.float64)
    h[0] = h0
    for t in range(5):
        h[t + 1] = lib.tanh(h[t] * 0.9 + x[t])
    h[1:].sum().backward()
    return x.grad, h0.grad


def _transposed_view(lib, T):
    x, y = T(2, 3), T(3, 2)
    b = x * 1
    b.t().add_(y)
    (b * b).sum().backward()
    return x.grad, y.grad


def _fill_without_a_source_gradient(lib, T):
    x = T(3, 3)
    b = x * 2
    b[:, 0] = 0
    b.sum().backward()
    return (x.grad,)


def _index_put_on_a_view(lib, T):
    x = T(4)
    b = x * 1
    b[1:][lib.tensor([0, 2])] = 7.0
    (b * b).sum().backward()
    return (x.grad,)


def _complex_modes(lib, T):  # a Fourier layer's out_ft[:, :modes] = ...
    rng = np.random.default_rng(3)
    w = lib.tensor(rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3))).requires_grad_()
    out = lib.zeros(2, 5, dtype=lib.complex128)
    out[:, :3] = w * (1 + 2j)
    lib.fft.irfft(out, n=8).pow(2).sum().backward()
    return (w.grad,)


CASES = {f.__name__[1:]: f for f in [_slice_into_zeros, _select_of_a_computed_base, _mul_through_a_slice,
                                      _view_made_before_the_write, _recurrence, _transposed_view,
                                      _fill_without_a_source_gradient, _index_put_on_a_view, _complex_modes]}


def _run(lib, case):
    rng = np.random.default_rng(0)
    return CASES[case](lib, lambda *s: lib.tensor(rng.standard_normal(s)).requires_grad_())


@pytest.mark.parametrize("case", sorted(CASES))
def test_gradients_match_torch(case):
    for got, want in zip(_run(ctorch, case), _run(torch, case)):
        assert (got is None) == (want is None)
        if want is not None:
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)


def test_second_derivative_through_a_write():
    def run(lib):
        x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
        b = lib.zeros(2, 3, dtype=lib.float64)
        b[0] = x ** 3
        (g,) = lib.autograd.grad(b.sum(), x, create_graph=True)
        g.sum().backward()
        return g.detach().numpy(), x.grad.numpy()

    for got, want in zip(run(ctorch), run(torch)):
        np.testing.assert_allclose(got, want)


def test_a_write_and_its_out_of_place_form_train_alike():
    # A Fourier layer writes its low modes into zeros; cat builds the same spectrum out of place.
    rng = np.random.default_rng(1)
    x = ctorch.tensor(rng.standard_normal((4, 3, 16)).astype(np.float32))
    target = ctorch.tensor(rng.standard_normal((4, 3, 16)).astype(np.float32))
    start = (rng.standard_normal((3, 3, 4)) + 1j * rng.standard_normal((3, 3, 4))).astype(np.complex64) / 9

    def train(write):
        w = ctorch.tensor(start).requires_grad_()
        opt = ctorch.optim.Adam([w], lr=0.05)
        for _ in range(5):
            opt.zero_grad()
            low = ctorch.einsum("bix,iox->box", ctorch.fft.rfft(x)[:, :, :4], w)
            if write:
                spectrum = ctorch.zeros(4, 3, 9, dtype=ctorch.complex64)
                spectrum[:, :, :4] = low
            else:
                spectrum = ctorch.cat([low, ctorch.zeros(4, 3, 5, dtype=ctorch.complex64)], dim=-1)
            loss = ((ctorch.fft.irfft(spectrum, n=16) - target) ** 2).mean()
            loss.backward()
            opt.step()
        return loss.item(), w.detach().numpy()

    (loss_a, w_a), (loss_b, w_b) = train(True), train(False)
    assert loss_a == pytest.approx(loss_b, rel=1e-6)
    np.testing.assert_allclose(w_a, w_b, rtol=1e-5, atol=1e-6)


def test_a_view_of_a_leaf_that_requires_grad_is_refused():
    w = ctorch.zeros(3, requires_grad=True)
    with pytest.raises(ValueError, match="a view .* of a leaf tensor that requires grad"):
        w[0] = 1.0
    with pytest.raises(RuntimeError):
        torch.zeros(3, requires_grad=True)[0] = 1.0


def test_writes_through_views_leave_no_tensor_alive():
    import gc

    metric = ctorch._C.ct_metric_get
    y = ctorch.ones(3, requires_grad=True)
    gc.collect()
    tensors, storages = metric("tensors.live"), metric("storages.live")
    for _ in range(200):
        out = ctorch.zeros(2, 3)
        early = out[1]
        out[1] = y * 2
        out[0, :2].mul_(y[1:] * 3)
        (out.sum() + early.sum()).backward()
    del out, early
    y.grad = None
    gc.collect()
    assert metric("tensors.live") == tensors
    assert metric("storages.live") == storages
