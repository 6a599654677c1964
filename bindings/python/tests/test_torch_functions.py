"""torch.* functions that ctorch's package composes in Python (numerical calculus, histogram, pdist,
index_reduce, the *_copy views, the native_* statistics, torch.* forms of nn.functional, data
constructors): values against torch's, and the errors torch raises."""

import numpy as np
import pytest

ctorch = pytest.importorskip("ctorch")
torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 5))
Y = RNG.standard_normal((3, 6, 5))
Z = RNG.standard_normal((4, 6, 3))
H = RNG.standard_normal(100)
W = RNG.random(100)
XS = np.sort(RNG.standard_normal(5))
COORDS = np.cumsum(RNG.random(6) + 0.1)
SOURCE = RNG.standard_normal((3, 4))


def t(m, a):
    return m.tensor(a)


CASES = {
    "trapezoid": lambda m: m.trapezoid(t(m, X)),
    "trapezoid_dx_dim": lambda m: m.trapezoid(t(m, X), dx=0.5, dim=0),
    "trapezoid_x": lambda m: m.trapezoid(t(m, X), t(m, XS)),
    "trapz": lambda m: m.trapz(t(m, X), dx=2.0),
    "cumulative_trapezoid": lambda m: m.cumulative_trapezoid(t(m, X)),
    "cumulative_trapezoid_x": lambda m: m.cumulative_trapezoid(t(m, X), t(m, XS)),
    "gradient": lambda m: m.gradient(t(m, Y)),
    "gradient_edge2_spacing": lambda m: m.gradient(t(m, Y), spacing=[2.0, 0.5], dim=[1, 2], edge_order=2),
    "gradient_coordinates": lambda m: m.gradient(t(m, Y), spacing=(t(m, COORDS),), dim=1),
    "gradient_coordinates_edge2": lambda m: m.gradient(t(m, Y), spacing=(t(m, COORDS),), dim=1, edge_order=2),
    "gradient_int": lambda m: m.gradient(m.tensor([1, 2, 4, 7])),
    "histogram": lambda m: m.histogram(t(m, H), bins=7),
    "histogram_range": lambda m: m.histogram(t(m, H), bins=5, range=(-1.0, 1.0)),
    "histogram_density": lambda m: m.histogram(t(m, H), bins=4, density=True),
    "histogram_weight": lambda m: m.histogram(t(m, H), bins=6, weight=t(m, W)),
    "histogram_edges": lambda m: m.histogram(t(m, H), t(m, np.array([-2.0, -0.5, 0.0, 3.0]))),
    "histogram_method": lambda m: t(m, H).histogram(3),
    "pdist": lambda m: m.pdist(t(m, X)),
    "pdist_p1": lambda m: m.pdist(t(m, X), 1),
    "index_reduce_amax": lambda m: t(m, X[:3]).index_reduce(1, m.tensor([0, 2, 2, 4]), t(m, SOURCE), "amax"),
    "index_reduce_mean_exclude": lambda m: m.index_reduce(t(m, X[:3]), 1, m.tensor([0, 2, 2, 4]), t(m, SOURCE), "mean",
                                                          include_self=False),
    "index_reduce_prod_inplace": lambda m: t(m, X[:3]).index_reduce_(1, m.tensor([1, 1, 0, 3]), t(m, SOURCE), "prod"),
    "permute_copy": lambda m: m.permute_copy(t(m, X), (1, 0)),
    "transpose_copy": lambda m: m.transpose_copy(t(m, Y), 0, 2),
    "diagonal_copy": lambda m: m.diagonal_copy(t(m, X), 1),
    "expand_copy": lambda m: m.expand_copy(t(m, X), (2, 4, 5)),
    "split_copy": lambda m: m.split_copy(t(m, X), 3),
    "slice_copy": lambda m: m.slice_copy(t(m, X), 1, 1, 4, 2),
    "unbind_copy": lambda m: m.unbind_copy(t(m, X), 1),
    "native_layer_norm": lambda m: m.native_layer_norm(t(m, Y), [5], None, None, 1e-5),
    "native_group_norm": lambda m: m.native_group_norm(t(m, Z), None, None, 4, 6, 3, 2, 1e-5),
    "native_batch_norm": lambda m: m.native_batch_norm(t(m, Z), None, None, m.zeros(6, dtype=m.float64),
                                                       m.ones(6, dtype=m.float64), True, 0.1, 1e-5),
    "native_batch_norm_eval": lambda m: m.native_batch_norm(t(m, Z), None, None, m.zeros(6, dtype=m.float64),
                                                            m.ones(6, dtype=m.float64), False, 0.1, 1e-5),
    "norm_except_dim": lambda m: m.norm_except_dim(t(m, Z), 2, 1),
    "fill": lambda m: m.fill(t(m, X), 2.5),
    "celu_": lambda m: m.celu_(t(m, X), 0.5),
    "threshold_": lambda m: m.threshold_(t(m, X), 0.1, -1.0),
    "rrelu_eval": lambda m: m.rrelu(t(m, X)),
    "alpha_dropout_eval": lambda m: m.alpha_dropout(t(m, X), 0.3, False),
    "feature_dropout_eval": lambda m: m.feature_dropout(t(m, X), 0.3, False),
    "channel_shuffle": lambda m: m.channel_shuffle(t(m, Z.reshape(4, 6, 3, 1)), 3),
    "frombuffer": lambda m: m.frombuffer(bytearray(np.arange(6, dtype=np.float32).tobytes()), dtype=m.float32,
                                         count=4, offset=4),
}

ERRORS = {
    "pdist_3d": lambda m: m.pdist(t(m, Y)),
    "gradient_edge_order": lambda m: m.gradient(t(m, X), edge_order=3),
    "gradient_too_short": lambda m: m.gradient(m.tensor([1.0]), edge_order=1),
    "histogram_bad_range": lambda m: m.histogram(t(m, H), bins=3, range=(1.0, -1.0)),
    "index_reduce_sum": lambda m: t(m, X[:3]).index_reduce(1, m.tensor([0, 2, 2, 4]), t(m, SOURCE), "sum"),
    "fill_tensor_value": lambda m: m.fill(t(m, X), t(m, X)),
}


def _flat(r):
    return list(r) if isinstance(r, (tuple, list)) else [r]


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    got, want = _flat(CASES[name](ctorch)), _flat(CASES[name](torch))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert tuple(g.shape) == tuple(w.shape), name
        assert str(g.dtype).split(".")[-1] == str(w.dtype).split(".")[-1], name
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-10, atol=1e-12)
        if name.endswith("_copy"):
            assert g.is_contiguous()


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_raises_where_torch_does(name):
    with pytest.raises(Exception):
        ERRORS[name](torch)
    with pytest.raises((ctorch.Error, RuntimeError, ValueError, IndexError, TypeError)):
        ERRORS[name](ctorch)


def test_from_file_reads_and_shared_maps(tmp_path):
    path = tmp_path / "values.bin"
    np.arange(10, dtype=np.float64).tofile(path)
    got = ctorch.from_file(str(path), False, 7, dtype=ctorch.float64)
    np.testing.assert_array_equal(got.numpy(), torch.from_file(str(path), False, 7, dtype=torch.float64).numpy())
    shared = ctorch.from_file(str(path), True, 10, dtype=ctorch.float64)
    shared.fill_(3.0)
    del shared
    assert np.fromfile(path, dtype=np.float64).tolist() == [3.0] * 10
    with pytest.raises(RuntimeError):
        ctorch.from_file(str(path), False, 11, dtype=ctorch.float64)


def test_asarray_shares_memory_unless_asked_to_copy():
    a = np.ones(3)
    shared, copied = ctorch.asarray(a), ctorch.asarray(a, copy=True)
    a[0] = 5
    assert float(shared[0]) == 5.0 and float(copied[0]) == 1.0
    assert ctorch.asarray([1, 2]).dtype == ctorch.int64
    with pytest.raises(ValueError):
        ctorch.asarray([1, 2], copy=False)


def test_set_default_tensor_type_sets_the_default_dtype():
    try:
        ctorch.set_default_tensor_type(ctorch.DoubleTensor)
        assert ctorch.get_default_dtype() == ctorch.float64
        ctorch.set_default_tensor_type("torch.FloatTensor")
        assert ctorch.get_default_dtype() == ctorch.float32
        with pytest.raises(TypeError):
            ctorch.set_default_tensor_type(ctorch.LongTensor)
    finally:
        ctorch.set_default_dtype(ctorch.float32)


def test_dropout_forms_in_training():
    x = ctorch.ones(200, 8, 3)
    y = ctorch.feature_dropout(x, 0.5, True)
    per_feature = y[:, :, 0]
    assert ((y == per_feature.unsqueeze(-1)).all())  # whole features kept or dropped
    assert set(np.unique(per_feature.numpy()).tolist()) <= {0.0, 2.0}
    out, mask = ctorch.native_dropout(x, 0.25, True)
    assert mask.dtype == ctorch.bool and np.allclose(out.numpy(), mask.numpy() / 0.75)
    assert ctorch.get_device(x) == -1 and ctorch.compiled_with_cxx11_abi() is True
