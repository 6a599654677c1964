"""torch.nn's 3-D convolutions and pools, the transposed convolutions in 1-D and 3-D, max unpooling
and Fold/Unfold as ctorch's modules: torch's weights loaded into ctorch's module, then outputs and
gradients (of input and parameters) against torch's."""

import numpy as np
import pytest

ctorch = pytest.importorskip("ctorch")
torch = pytest.importorskip("torch")

RNG = np.random.default_rng(5)
V = RNG.standard_normal((2, 4, 6, 5, 6))  # [N, C, D, H, W]
S = RNG.standard_normal((2, 4, 9))
IMAGE = RNG.standard_normal((2, 3, 6, 5))

MODULES = {
    "Conv3d": (lambda m: m.nn.Conv3d(4, 6, (3, 2, 3), stride=(2, 1, 1), padding=(1, 0, 1), groups=2), V),
    "Conv3d_same_reflect": (lambda m: m.nn.Conv3d(4, 3, 3, padding="same", padding_mode="reflect"), V),
    "Conv1d_same": (lambda m: m.nn.Conv1d(4, 3, 4, padding="same", dilation=2), S),
    "ConvTranspose1d": (lambda m: m.nn.ConvTranspose1d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2), S),
    "ConvTranspose3d": (lambda m: m.nn.ConvTranspose3d(4, 2, (2, 3, 2), stride=(2, 1, 2), padding=(0, 1, 1),
                                                       dilation=(1, 2, 1)), V),
    "MaxPool3d": (lambda m: m.nn.MaxPool3d(3, 2, 1, ceil_mode=True), V),
    "AvgPool3d": (lambda m: m.nn.AvgPool3d((2, 3, 2), 2, 1, count_include_pad=False), V),
    "AdaptiveAvgPool3d": (lambda m: m.nn.AdaptiveAvgPool3d((4, None, 3)), V),
    "AdaptiveMaxPool3d": (lambda m: m.nn.AdaptiveMaxPool3d(2), V),
    "Unfold": (lambda m: m.nn.Unfold((2, 3), dilation=(2, 1), padding=1, stride=(1, 2)), IMAGE),
}


def _pair(arrays_module, arrays):
    x_t = torch.tensor(arrays, requires_grad=True)
    x_c = ctorch.tensor(arrays, requires_grad=True)
    return x_t, x_c


def _same(c, t, tol=1e-10):
    np.testing.assert_allclose(c.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_matches_torch(name):
    make, array = MODULES[name]
    torch.manual_seed(0)
    mt = make(torch).double()
    mc = make(ctorch).double()
    mc.load_state_dict({k: ctorch.tensor(v.detach().numpy()) for k, v in mt.state_dict().items()})
    x_t, x_c = _pair(None, array)
    y_t, y_c = mt(x_t), mc(x_c)
    _same(y_c, y_t)
    (y_t * y_t).sum().backward()
    (y_c * y_c).sum().backward()
    _same(x_c.grad, x_t.grad)
    grads_t = {k: p.grad for k, p in mt.named_parameters()}
    for k, p in mc.named_parameters():
        _same(p.grad, grads_t[k])


def test_transposed_output_size_picks_the_output_padding():
    torch.manual_seed(0)
    mt = torch.nn.ConvTranspose3d(4, 2, 3, stride=2).double()
    mc = ctorch.nn.ConvTranspose3d(4, 2, 3, stride=2).double()
    mc.load_state_dict({k: ctorch.tensor(v.detach().numpy()) for k, v in mt.state_dict().items()})
    want = [14, 12, 14]
    y_t = mt(torch.tensor(V), output_size=want)
    y_c = mc(ctorch.tensor(V), output_size=want)
    assert list(y_c.shape) == list(y_t.shape) == [2, 2] + want
    _same(y_c, y_t)
    with pytest.raises(ValueError):
        mc(ctorch.tensor(V), output_size=[20, 12, 14])


@pytest.mark.parametrize("dims", [1, 2, 3])
def test_max_unpool_restores_the_maxima(dims):
    shape = {1: (2, 3, 8), 2: (2, 3, 6, 4), 3: (2, 3, 4, 6, 4)}[dims]
    array = RNG.standard_normal(shape)
    results = []
    for m in (torch, ctorch):
        pool = getattr(m.nn, f"MaxPool{dims}d")(2, return_indices=True)
        unpool = getattr(m.nn, f"MaxUnpool{dims}d")(2)
        x = m.tensor(array, requires_grad=True)
        values, indices = pool(x)
        y = unpool(values, indices, output_size=x.shape)
        y.sum().backward()
        results.append((y, x.grad, indices))
    (y_t, g_t, i_t), (y_c, g_c, i_c) = results
    _same(y_c, y_t)
    _same(g_c, g_t)
    assert np.array_equal(i_c.numpy(), i_t.numpy())


def test_fold_sums_unfold_back():
    for m in (torch, ctorch):
        x = m.tensor(IMAGE)
        fold = m.nn.Fold((6, 5), 3, padding=1)
        unfold = m.nn.Unfold(3, padding=1)
        counts = fold(unfold(m.ones_like(x)))
        if m is torch:
            want = fold(unfold(x)).numpy()
            want_counts = counts.numpy()
    np.testing.assert_allclose(fold(unfold(x)).numpy(), want, rtol=1e-12)
    np.testing.assert_array_equal(counts.numpy(), want_counts)
    assert repr(fold) == repr(torch.nn.Fold((6, 5), 3, padding=1))


@pytest.mark.parametrize("lazy,eager,array", [("LazyConv3d", "Conv3d", V), ("LazyConvTranspose1d", "ConvTranspose1d", S),
                                              ("LazyConvTranspose3d", "ConvTranspose3d", V)])
def test_lazy_volumetric_modules_become_their_eager_module(lazy, eager, array):
    module = getattr(ctorch.nn, lazy)(2, 3).double()
    y = module(ctorch.tensor(array))
    assert type(module) is getattr(ctorch.nn, eager)
    assert module.weight.shape[:2] in ((2, 4), (4, 2))
    assert y.shape[1] == 2


def test_errors_name_the_operator():
    with pytest.raises(ctorch.ShapeError, match="conv3d"):
        ctorch.nn.functional.conv3d(ctorch.zeros(1, 2, 4, 4), ctorch.zeros(3, 2, 2, 2))
    with pytest.raises(ctorch.InvalidArgumentError, match="max_pool3d.*padding"):
        ctorch.nn.functional.max_pool3d(ctorch.zeros(1, 1, 4, 4, 4), 2, padding=2)
    with pytest.raises(ctorch.IndexError, match="max_unpool2d"):
        ctorch.nn.functional.max_unpool2d(ctorch.ones(1, 1, 2, 2), ctorch.full((1, 1, 2, 2), 99), 2)
    with pytest.raises(ctorch.ShapeError, match="col2im"):
        ctorch.nn.functional.fold(ctorch.zeros(1, 9, 5), (4, 4), 3)
