"""Lazy modules: the input size read from the first call, parameters initialized as the eager
module's, the module turned into it; the same shapes, types and (seeded) values as torch's."""

import warnings

import numpy as np
import pytest

ctorch = pytest.importorskip("ctorch")
torch = pytest.importorskip("torch")

CASES = {
    "LazyLinear": (lambda m: m.nn.LazyLinear(3), (2, 5), ["in_features"]),
    "LazyLinear_no_bias": (lambda m: m.nn.LazyLinear(3, bias=False), (4, 2, 7), ["in_features"]),
    "LazyConv1d": (lambda m: m.nn.LazyConv1d(2, 3, bias=False), (4, 7), ["in_channels"]),
    "LazyConv2d": (lambda m: m.nn.LazyConv2d(4, 3, padding=1), (1, 2, 5, 5), ["in_channels"]),
    "LazyConvTranspose2d": (lambda m: m.nn.LazyConvTranspose2d(2, 2, stride=2), (1, 3, 4, 4), ["in_channels"]),
    "LazyBatchNorm1d": (lambda m: m.nn.LazyBatchNorm1d(), (4, 3), ["num_features"]),
    "LazyBatchNorm2d": (lambda m: m.nn.LazyBatchNorm2d(), (2, 3, 4, 4), ["num_features"]),
    "LazyBatchNorm3d_no_affine": (lambda m: m.nn.LazyBatchNorm3d(affine=False), (2, 3, 2, 2, 2), ["num_features"]),
    "LazyInstanceNorm1d": (lambda m: m.nn.LazyInstanceNorm1d(), (2, 3, 6), ["num_features"]),
    "LazyInstanceNorm2d_affine": (lambda m: m.nn.LazyInstanceNorm2d(affine=True), (2, 3, 4, 4), ["num_features"]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_first_call_materializes_as_torch_does(name):
    make, shape, sizes = CASES[name]
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    seen = []
    for m in (ctorch, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch warns that lazy modules are new
            module = make(m)
        assert module.has_uninitialized_params()
        y = module(m.tensor(x))
        seen.append((type(module).__name__, [getattr(module, s) for s in sizes], tuple(y.shape),
                     {k: tuple(v.shape) for k, v in module.state_dict().items()},
                     sorted(type(p).__name__ for p in module.parameters())))
    assert seen[0] == seen[1]


def test_seeded_lazy_linear_matches_the_eager_initialization():
    ctorch.manual_seed(3)
    lazy = ctorch.nn.LazyLinear(4)
    lazy(ctorch.ones(1, 6))
    ctorch.manual_seed(3)
    eager = ctorch.nn.Linear(6, 4)
    assert ctorch.equal(lazy.weight, eager.weight) and ctorch.equal(lazy.bias, eager.bias)


def test_optimizer_refuses_uninitialized_parameters_and_trains_after_a_dry_run():
    model = ctorch.nn.Sequential(ctorch.nn.LazyLinear(4), ctorch.nn.ReLU(), ctorch.nn.LazyLinear(1))
    with pytest.raises(ValueError, match="dry run"):
        ctorch.optim.SGD(model.parameters(), lr=0.1)
    x = ctorch.randn(8, 3)
    model(x)
    opt = ctorch.optim.SGD(model.parameters(), lr=0.1)
    before = model[0].weight.detach().clone()
    model(x).square().mean().backward()
    opt.step()
    assert not ctorch.equal(model[0].weight, before)


def test_a_dtype_change_before_the_first_call_keeps_the_module_lazy():
    module = ctorch.nn.LazyConv3d(2, 3).double()
    assert module.has_uninitialized_params()
    module(ctorch.zeros(1, 4, 3, 3, 3, dtype=ctorch.float64))
    assert type(module) is ctorch.nn.Conv3d
    assert module.weight.dtype == ctorch.float64 and module.weight.shape == (2, 4, 3, 3, 3)
