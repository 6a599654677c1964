"""affine_grid and grid_sample (2-D and 3-D; bilinear, nearest and bicubic; zeros, border and
reflection padding; align_corners) against torch: values and the gradients of input and grid; and
nn.functional's __torch_function__ helpers."""

import itertools

import numpy as np
import pytest

ctorch = pytest.importorskip("ctorch")
torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)
THETA = RNG.standard_normal((2, 2, 3)) * 0.5
THETA3 = RNG.standard_normal((2, 3, 4)) * 0.5
IMAGE = RNG.standard_normal((2, 3, 5, 6))
GRID = RNG.uniform(-1.3, 1.3, (2, 4, 7, 2))  # some points outside [-1, 1]: the padding modes matter
VOLUME = RNG.standard_normal((2, 2, 4, 5, 6))
GRID3 = RNG.uniform(-1.3, 1.3, (2, 3, 4, 2, 3))


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("theta,size", [(THETA, [2, 3, 4, 5]), (THETA3, [2, 3, 2, 4, 5]), (THETA, [2, 3, 4, 1])])
def test_affine_grid_matches_torch(theta, size, align_corners):
    got = ctorch.nn.functional.affine_grid(ctorch.tensor(theta), size, align_corners)
    want = torch.nn.functional.affine_grid(torch.tensor(theta), size, align_corners)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)


CASES = [(m, p, a, d) for m, p, a, d in itertools.product(["bilinear", "nearest", "bicubic"],
                                                          ["zeros", "border", "reflection"], [False, True], [2, 3])
         if not (m == "bicubic" and d == 3)]


@pytest.mark.parametrize("mode,padding,align_corners,dims", CASES)
def test_grid_sample_values_and_gradients_match_torch(mode, padding, align_corners, dims):
    x, grid = (IMAGE, GRID) if dims == 2 else (VOLUME, GRID3)
    results = []
    for m in (ctorch, torch):
        xt, gt = m.tensor(x, requires_grad=True), m.tensor(grid, requires_grad=True)
        y = m.nn.functional.grid_sample(xt, gt, mode, padding, align_corners)
        (y * y).sum().backward()
        results.append([y.detach().numpy(), xt.grad.numpy(), gt.grad.numpy()])
    for got, want in zip(*results):
        np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-9)


def test_grid_sampler_forms_and_errors():
    x, g = ctorch.tensor(IMAGE), ctorch.tensor(GRID)
    np.testing.assert_allclose(ctorch.grid_sampler_2d(x, g, 1, 2, True).numpy(),
                               torch.grid_sampler_2d(torch.tensor(IMAGE), torch.tensor(GRID), 1, 2, True).numpy())
    with pytest.raises(RuntimeError, match="bicubic"):
        ctorch.nn.functional.grid_sample(ctorch.tensor(VOLUME), ctorch.tensor(GRID3), "bicubic")
    with pytest.raises(ValueError):
        ctorch.nn.functional.grid_sample(x, g, "linear")
    with pytest.raises(RuntimeError, match="batch"):
        ctorch.nn.functional.grid_sample(x, g[:1])
    with pytest.raises(ValueError):
        ctorch.nn.functional.affine_grid(ctorch.tensor(THETA), [2, 3, 4, 5, 6])


def test_torch_function_helpers_dispatch_to_overriding_classes():
    F = ctorch.nn.functional

    class Wrapper:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return ("handled", func.__name__)

    assert not F.has_torch_function((ctorch.ones(1), 2))
    assert F.has_torch_function_unary(Wrapper()) and F.has_torch_function_variadic(1, Wrapper())
    assert F.handle_torch_function(F.relu, (Wrapper(),), Wrapper()) == ("handled", "relu")
    pick = F.boolean_dispatch("flag", 1, False, lambda x, flag=False: "true", lambda x, flag=False: "false",
                              func_name="pick")
    assert (pick(0), pick(0, True), pick(0, flag=True), pick.__name__) == ("false", "true", "true", "pick")
    with pytest.raises(AssertionError):
        F.assert_int_or_pair((1, 2, 3), "kernel_size", "{} must be an int or a pair")
