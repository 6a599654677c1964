"""conv2d's derivatives against torch, over the two routes of the input gradient (a stride-1
convolution with the flipped kernel, or conv_transpose2d for other strides), the weight gradient's
two routes (a channels-last image read in place where the kernel's width is not dilated, im2col
panels where it is) and its runs of samples, and the same bits for any thread count."""

import numpy as np
import pytest

ctorch = pytest.importorskip("ctorch")
torch = pytest.importorskip("torch")

# (batch, in channels, height, width, out channels, kernel (h, w), stride, padding, dilation, groups)
CASES = [
    (8, 16, 32, 32, 32, (3, 3), 1, 1, 1, 1),  # the benchmark's shape
    (3, 4, 9, 7, 6, (3, 3), 1, 2, 2, 2),  # dilated, grouped, padding equal to the kernel's reach
    (5, 6, 11, 10, 4, (5, 2), 1, 0, 1, 1),  # no padding, rectangular kernel
    (2, 4, 8, 8, 8, (3, 3), 2, 1, 1, 2),  # stride 2: the conv_transpose2d route
    (4, 8, 7, 7, 8, (3, 3), 1, 1, 1, 8),  # depthwise
    (2, 3, 6, 6, 5, (3, 3), 1, 3, 1, 1),  # padding wider than the kernel's reach: transpose route
    (17, 3, 5, 5, 4, (2, 2), 1, 1, 1, 1),  # more samples than the weight gradient's runs
    (2, 12, 7, 9, 6, (3, 3), (2, 1), 1, (2, 1), 1),  # 8 + 4 channels, rows strided and dilated
]


def _grads(case, dtype, threads):
    n, c, h, w, o, k, s, p, d, g = case
    rng = np.random.default_rng(sum(case[:5]))
    x = rng.standard_normal((n, c, h, w)).astype(dtype)
    wt = rng.standard_normal((o, c // g) + k).astype(dtype)
    old = ctorch.get_num_threads()
    ctorch.set_num_threads(threads)
    try:
        cx, cw = ctorch.tensor(x, requires_grad=True), ctorch.tensor(wt, requires_grad=True)
        cy = ctorch.nn.functional.conv2d(cx, cw, stride=s, padding=p, dilation=d, groups=g)
        gy = rng.standard_normal(tuple(cy.shape)).astype(dtype)
        cy.backward(ctorch.tensor(gy))
    finally:
        ctorch.set_num_threads(old)
    tx, tw = torch.tensor(x, requires_grad=True), torch.tensor(wt, requires_grad=True)
    torch.nn.functional.conv2d(tx, tw, stride=s, padding=p, dilation=d, groups=g).backward(torch.tensor(gy))
    return (cx.grad.numpy(), cw.grad.numpy()), (tx.grad.numpy(), tw.grad.numpy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", CASES)
def test_conv2d_gradients_match_torch(case, dtype):
    (gx, gw), (tx, tw) = _grads(case, dtype, 1)
    tol = 1e-4 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(gx, tx, rtol=tol, atol=tol * np.abs(tx).max())
    np.testing.assert_allclose(gw, tw, rtol=tol, atol=tol * np.abs(tw).max())


@pytest.mark.parametrize("case", CASES)
def test_conv2d_gradients_are_the_same_bits_on_any_thread_count(case):
    ref = _grads(case, np.float32, 1)[0]
    for threads in (2, 3):
        got = _grads(case, np.float32, threads)[0]
        assert got[0].tobytes() == ref[0].tobytes()
        assert got[1].tobytes() == ref[1].tobytes()
