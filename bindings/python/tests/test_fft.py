"""torch.fft as a torch user meets it: gradients against torch's for every function, accuracy at
large sizes and prime lengths against a float64 reference, the same bits at any thread count, out=,
the frequency factories' options, and the refusals (the values of every case against torch are
test_vs_torch.py's, cases/fft.py)."""
import numpy as np
import pytest
import torch

import ctorch


def _pair(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if dtype in ("complex64", "complex128"):
        a = a + 1j * rng.standard_normal(shape)
    a = a.astype(dtype)
    return ctorch.tensor(a).requires_grad_(), torch.tensor(a).requires_grad_()


# (function, input dtype, call): each call's real loss, weighted so that every output point counts
# differently, has torch's gradient.
GRAD_CASES = [
    ("fft", "complex128", lambda m, x: m.fft.fft(x, 7, norm="ortho")),
    ("fft_real", "float64", lambda m, x: m.fft.fft(x, dim=0)),
    ("ifft", "complex128", lambda m, x: m.fft.ifft(x, 4)),
    ("rfft", "float64", lambda m, x: m.fft.rfft(x)),
    ("rfft_odd", "float64", lambda m, x: m.fft.rfft(x, 5, norm="forward")),
    ("irfft", "complex128", lambda m, x: m.fft.irfft(x)),
    ("irfft_odd", "complex128", lambda m, x: m.fft.irfft(x, 7, norm="ortho")),
    ("hfft", "complex128", lambda m, x: m.fft.hfft(x, 5)),
    ("ihfft", "float64", lambda m, x: m.fft.ihfft(x)),
    ("fft2", "complex128", lambda m, x: m.fft.fft2(x, (3, 5))),
    ("ifftn", "complex128", lambda m, x: m.fft.ifftn(x, dim=(0,))),
    ("rfft2", "float64", lambda m, x: m.fft.rfft2(x)),
    ("rfftn", "float64", lambda m, x: m.fft.rfftn(x, (4, 4), norm="ortho")),
    ("irfft2", "complex128", lambda m, x: m.fft.irfft2(x)),
    ("irfftn", "complex128", lambda m, x: m.fft.irfftn(x, (3, 7))),
    ("hfft2", "complex128", lambda m, x: m.fft.hfft2(x)),
    ("hfftn", "complex128", lambda m, x: m.fft.hfftn(x, norm="forward")),
    ("ihfft2", "float64", lambda m, x: m.fft.ihfft2(x)),
    ("ihfftn", "float64", lambda m, x: m.fft.ihfftn(x, (3, 5))),
    ("fftshift", "complex128", lambda m, x: m.fft.fftshift(x)),
    ("ifftshift", "float64", lambda m, x: m.fft.ifftshift(x, dim=1)),
]


@pytest.mark.parametrize("name,dtype,f", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradients_match_torch(name, dtype, f):
    cx, tx = _pair((3, 6), dtype, 1)
    cy, ty = f(ctorch, cx), f(torch, tx)
    w = np.random.default_rng(2).standard_normal(tuple(ty.shape))
    cw, tw = ctorch.tensor(w), torch.tensor(w)
    # Re(y * w) and Im(y * w) both count: the gradient of each part of the output.
    closs = (cy * cw).real.sum() + 0.5 * (cy * cw).imag.sum() if cy.is_complex() else (cy * cw).sum()
    tloss = (ty * tw).real.sum() + 0.5 * (ty * tw).imag.sum() if ty.is_complex() else (ty * tw).sum()
    closs.backward()
    tloss.backward()
    np.testing.assert_allclose(cx.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)


def _reference(x, inverse=False):
    """The transform in float64 (complex128), from numpy."""
    return np.fft.ifft(x) * len(x) if inverse else np.fft.fft(x)


@pytest.mark.parametrize("n", [2 ** 16, 3 * 5 * 7 * 11 * 13, 10007, 2 * 65537])
def test_accuracy_at_large_sizes_and_prime_lengths(n):
    """Relative L2 errors against numpy's float64 transform: float64 within a few ulps of the result's
    norm, complex64 within what float32 arithmetic allows (torch's and numpy's are of the same
    order: about 1e-7 here)."""
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    want = _reference(x)
    got = ctorch.fft.fft(ctorch.tensor(x)).numpy()
    assert np.linalg.norm(got - want) / np.linalg.norm(want) < 1e-15 * np.log2(n)
    single = ctorch.fft.fft(ctorch.tensor(x.astype(np.complex64))).numpy()
    assert np.linalg.norm(single - want) / np.linalg.norm(want) < 2e-7 * np.log2(n)
    real = rng.standard_normal(n)
    got_real = ctorch.fft.rfft(ctorch.tensor(real)).numpy()
    want_real = np.fft.rfft(real)
    assert np.linalg.norm(got_real - want_real) / np.linalg.norm(want_real) < 1e-15 * np.log2(n)
    back = ctorch.fft.irfft(ctorch.tensor(want_real), n).numpy()
    assert np.max(np.abs(back - real)) < 1e-13


def test_results_are_the_same_bits_at_any_thread_count():
    x = ctorch.randn(64, 3 * 5 * 7, dtype=ctorch.float64)
    z = ctorch.complex(ctorch.randn(8, 4099), ctorch.randn(8, 4099))  # a prime length: Bluestein's
    saved = ctorch.get_num_threads()
    try:
        results = []
        for threads in (1, 2, 3):
            ctorch.set_num_threads(threads)
            results.append([ctorch.fft.rfft2(x), ctorch.fft.fft(z), ctorch.fft.irfft(ctorch.fft.rfft(x, dim=0), dim=0)])
        for other in results[1:]:
            for a, b in zip(results[0], other):
                assert ctorch.equal(a, b)
    finally:
        ctorch.set_num_threads(saved)


def test_out_and_factory_options():
    x = ctorch.arange(8, dtype=ctorch.float32)
    out = ctorch.empty(5, dtype=ctorch.complex64)
    r = ctorch.fft.rfft(x, out=out)
    assert r is out
    np.testing.assert_allclose(out.numpy(), np.fft.rfft(np.arange(8.0)), rtol=1e-6, atol=1e-5)
    f = ctorch.fft.fftfreq(6, 0.1, dtype=ctorch.float64, requires_grad=True)
    assert f.dtype is ctorch.float64 and f.requires_grad
    np.testing.assert_allclose(f.detach().numpy(), np.fft.fftfreq(6, 0.1))
    assert ctorch.fft.rfftfreq(5).dtype is ctorch.float32
    buf = ctorch.empty(4)
    assert ctorch.fft.fftfreq(4, out=buf) is buf and buf.tolist() == [0.0, 0.25, -0.5, -0.25]
    # int and tuple spellings of s and dim
    y = ctorch.randn(4, 6)
    assert ctorch.equal(ctorch.fft.fftn(y, dim=1), ctorch.fft.fft(y, dim=1))
    assert ctorch.equal(ctorch.fft.rfftn(y, s=[6], dim=[-1]), ctorch.fft.rfft(y))


def test_refusals_match_torch():
    z = ctorch.ones(4, dtype=ctorch.complex64)
    with pytest.raises(Exception, match="expects a real input tensor"):
        ctorch.fft.rfft(z)
    with pytest.raises(Exception, match="Invalid number of data points"):
        ctorch.fft.fft(ctorch.ones(4), 0)
    with pytest.raises(Exception, match="Invalid normalization mode"):
        ctorch.fft.ifft(ctorch.ones(4), norm="backwards")
    with pytest.raises(Exception, match="must be unique"):
        ctorch.fft.fftn(ctorch.ones(2, 2), dim=(1, -1))
    with pytest.raises(Exception, match="Unsupported dtype"):
        ctorch.fft.fft(ctorch.ones(4, dtype=ctorch.float16))
    with pytest.raises(Exception, match="Invalid number of data points"):
        ctorch.fft.irfft(ctorch.ones(1, dtype=ctorch.complex64))  # 2 * (1 - 1) = 0 points
