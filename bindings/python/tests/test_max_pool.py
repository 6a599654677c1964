"""max_pool2d's values and indices against torch where the kernel has choices to make: ties (the
first maximum in row-major order wins), NaN (it wins and stays), -inf, padding, dilation, strides
and ceil_mode; and the same bits on any thread count."""

import numpy as np
import pytest

ctorch = pytest.importorskip("ctorch")
torch = pytest.importorskip("torch")

# (kernel, stride, padding, dilation, ceil_mode)
WINDOWS = [(3, 2, 0, 1, False), (3, 1, 1, 1, False), (2, 2, 0, 1, True), (3, 2, 1, 2, False),
           ((2, 3), (1, 2), (1, 1), 1, True), (5, 3, 2, 1, True), (1, 1, 0, 1, False)]


def _input(dtype):
    x = np.random.default_rng(0).integers(-3, 3, (2, 3, 11, 9)).astype(dtype)  # small integers: many ties
    x[0, 0, 2, 3] = x[0, 0, 2, 5] = x[0, 1, 4, 4] = np.nan
    x[1, 2, 0, :] = -np.inf
    return x


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("window", WINDOWS)
def test_max_pool2d_values_and_indices_match_torch(window, dtype):
    k, s, p, d, ceil = window
    x = _input(dtype)
    cv, ci = ctorch.nn.functional.max_pool2d(ctorch.tensor(x), k, s, p, d, ceil_mode=ceil, return_indices=True)
    tv, ti = torch.nn.functional.max_pool2d(torch.tensor(x), k, s, p, d, ceil_mode=ceil, return_indices=True)
    np.testing.assert_array_equal(cv.numpy(), tv.numpy())
    # torch keeps the last NaN of a window and ctorch the first: compare indices away from NaN
    finite = ~np.isnan(tv.numpy())
    np.testing.assert_array_equal(ci.numpy()[finite], ti.numpy()[finite])
    assert np.isnan(x.reshape(2, 3, -1)[np.indices(ci.shape)[0], np.indices(ci.shape)[1], ci.numpy()][~finite]).all()


def test_max_pool2d_gradient_routes_to_the_winner():
    x = _input(np.float64)
    x[np.isnan(x)] = 0
    cx, tx = ctorch.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ctorch.nn.functional.max_pool2d(cx, 3, 2, 1).sum().backward()
    torch.nn.functional.max_pool2d(tx, 3, 2, 1).sum().backward()
    np.testing.assert_array_equal(cx.grad.numpy(), tx.grad.numpy())


def test_max_pool2d_is_the_same_bits_on_any_thread_count():
    x = ctorch.tensor(np.random.default_rng(1).standard_normal((4, 64, 20, 20)).astype(np.float32))
    old = ctorch.get_num_threads()
    try:
        runs = []
        for threads in (1, 2, 3):
            ctorch.set_num_threads(threads)
            v, i = ctorch.nn.functional.max_pool2d(x, 3, 2, 1, return_indices=True)
            runs.append((v.numpy().tobytes(), i.numpy().tobytes()))
    finally:
        ctorch.set_num_threads(old)
    assert runs[0] == runs[1] == runs[2]
