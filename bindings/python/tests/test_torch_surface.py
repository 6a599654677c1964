"""The Tensor and torch.* surface everyday torch code meets outside the operators: dtype shorthands,
type strings, new_* factories, .data, legacy constructors, __format__, finfo/iinfo, allclose,
equal and meshgrid. Each check runs the same code with m = ctorch and m = torch 1.13 and compares."""

import pytest

from conftest import DTYPE_NAMES, assert_same_error, compare, ct_dtype, dtype_name, th_dtype

ctorch = pytest.importorskip("ctorch")
torch = pytest.importorskip("torch")


def both(fn):
    """fn(m) for m = ctorch and torch: both raise (returns None) or both return."""
    got = assert_same_error(lambda: fn(ctorch), lambda: fn(torch))
    return None if not isinstance(got, tuple) else got


def _plain(v):
    """dtypes by name and sizes as tuples, so that the two modules' values compare."""
    if isinstance(v, (ctorch.dtype, torch.dtype)):
        return dtype_name(v)
    if isinstance(v, (ctorch.Size, torch.Size)):
        return tuple(v)
    if isinstance(v, (tuple, list)):
        return type(v)(_plain(e) for e in v)
    return v


def same(fn):
    """fn(m) returns a tensor, a tuple of them, or plain Python values: equal for both modules."""
    got = both(fn)
    if got is None:
        return
    c, t = got
    if isinstance(t, torch.Tensor) or (isinstance(t, tuple) and t and isinstance(t[0], torch.Tensor)):
        compare(c, t)
    else:
        assert _plain(c) == _plain(t), f"ctorch {c!r} vs torch {t!r}"


def sample(m, dtype="float32"):
    return m.tensor([[1.5, -2.0, 0.0], [3.0, 4.25, -7.5]]).to(getattr(m, dtype))


# ---- conversions and dtype facts

@pytest.mark.parametrize("method", ["bfloat16", "byte", "char", "short", "half", "float", "double", "int", "long",
                                    "bool"])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_dtype_shorthands(method, dtype):
    same(lambda m: getattr(sample(m, dtype), method)())


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_dtype_predicates(name):
    same(lambda m: (sample(m, name).is_floating_point(), sample(m, name).is_signed(), sample(m, name).is_complex()))


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_type_strings(name):
    same(lambda m: sample(m, name).type())
    same(lambda m: sample(m).type(getattr(m, name)))
    same(lambda m: sample(m).type(sample(m, name).type()))


def test_type_accepts_legacy_types_and_refuses_nonsense():
    same(lambda m: sample(m).type(m.LongTensor))
    same(lambda m: sample(m).type("torch.ByteTensor"))
    same(lambda m: sample(m).type("torch.NoSuchTensor"))
    assert sample(ctorch).type("ctorch.IntTensor").dtype is ctorch.int32


@pytest.mark.parametrize("other", ["int32", "float64", "bool"])
def test_type_as(other):
    same(lambda m: sample(m).type_as(sample(m, other)))
    x = sample(ctorch, other)
    assert x.type_as(x) is x  # nothing to change: self, as torch


def test_view_as_and_reshape_as():
    same(lambda m: sample(m).view_as(m.zeros(3, 2)))
    same(lambda m: sample(m).t().reshape_as(m.zeros(6)))
    same(lambda m: sample(m).t().view_as(m.zeros(6)))  # not viewable: both raise
    same(lambda m: sample(m).view_as(m.zeros(4)))


# ---- new_* factories

@pytest.mark.parametrize("dtype", ["float64", "int16", "bool"])
def test_new_factories_take_self_dtype_and_device(dtype):
    same(lambda m: sample(m, dtype).new_zeros(2, 3))
    same(lambda m: sample(m, dtype).new_ones((4,)))
    same(lambda m: sample(m, dtype).new_full((2, 2), 1))
    same(lambda m: sample(m, dtype).new_tensor([[1, 0], [0, 1]]))
    same(lambda m: sample(m, dtype).new_zeros(3, dtype=m.int8))
    same(lambda m: sample(m, dtype).new_empty(2, 0).shape)
    same(lambda m: sample(m, dtype).new_empty((2, 5), dtype=m.float16).dtype)


def test_new_tensor_is_a_new_leaf():
    x = ctorch.ones(2, requires_grad=True)
    y = x.new_tensor(x * 2)
    assert not y.requires_grad and y.grad_fn is None
    assert x.new_ones(2, requires_grad=True).requires_grad


# ---- .data

def test_data_shares_storage_outside_autograd():
    x = ctorch.ones(3, requires_grad=True)
    d = x.data
    assert not d.requires_grad and d.data_ptr() == x.data_ptr()
    d.mul_(5)  # no version error later: the graph does not see it, as in torch
    assert x.tolist() == [5.0, 5.0, 5.0]


def test_assigning_data_keeps_the_parameter():
    p = ctorch.nn.Parameter(ctorch.ones(3))
    p.grad = ctorch.full((3,), 0.5)
    new = ctorch.arange(3.0)
    p.data = new
    assert isinstance(p, ctorch.nn.Parameter) and p.requires_grad and p.is_leaf
    assert p.tolist() == [0.0, 1.0, 2.0] and p.data_ptr() == new.data_ptr()
    (p * 2).sum().backward()
    assert p.grad.tolist() == [2.5, 2.5, 2.5]
    p.data = ctorch.zeros(2, 2)  # the old grad no longer fits: dropped
    assert p.shape == (2, 2) and p.grad is None and p.requires_grad


def test_assigning_data_refuses_a_non_tensor():
    with pytest.raises(TypeError):
        ctorch.ones(2).data = [1, 2]


# ---- printing

def test_format_of_a_0dim_tensor_is_its_number():
    same(lambda m: f"{m.tensor(3.14159):.3f}|{m.tensor(7):>4d}|{m.tensor(True)}|{m.tensor(2.5)}")
    same(lambda m: format(m.tensor([1.0, 2.0]), ""))
    with pytest.raises(TypeError):
        format(ctorch.tensor([1.0, 2.0]), ".2f")
    with pytest.raises(TypeError):
        format(torch.tensor([1.0, 2.0]), ".2f")


# ---- legacy constructors

@pytest.mark.parametrize("args", [(), (2, 3), ([1, 2, 3],), ([[1.5], [2.5]],), (0,)])
def test_tensor_constructor(args):
    same(lambda m: m.Tensor(*args).shape)
    same(lambda m: m.Tensor(*args).dtype)
    if args and isinstance(args[0], list):
        same(lambda m: m.Tensor(*args))


@pytest.mark.parametrize("legacy", ["FloatTensor", "DoubleTensor", "LongTensor", "IntTensor", "ShortTensor",
                                    "CharTensor", "ByteTensor", "BoolTensor", "HalfTensor", "BFloat16Tensor"])
def test_legacy_types(legacy):
    same(lambda m: getattr(m, legacy)([1, 0, 1]))
    same(lambda m: getattr(m, legacy)(2, 2).shape)
    same(lambda m: getattr(m, legacy)(m.Size([3])).dtype)
    same(lambda m: [isinstance(m.zeros(2, dtype=getattr(m, d)), getattr(m, legacy))
                    for d in ("float32", "int64", "bool", "uint8")])


def test_legacy_constructor_of_a_tensor_shares_it_and_refuses_another_dtype():
    x = ctorch.zeros(3)
    assert ctorch.Tensor(x).data_ptr() == x.data_ptr()
    same(lambda m: m.LongTensor(m.zeros(3)))  # both raise: no conversion


# ---- finfo / iinfo

@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_finfo_and_iinfo(name):
    ct, th = ct_dtype(name), th_dtype(name)
    if th.is_floating_point:
        c, t = ctorch.finfo(ct), torch.finfo(th)
        for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
            assert getattr(c, field) == getattr(t, field), field
        assert repr(c) == repr(t)
        with pytest.raises(TypeError):
            ctorch.iinfo(ct)
    else:
        same(lambda m: (lambda i: (i.bits, i.min, i.max, i.dtype, repr(i)))(m.iinfo(getattr(m, name))))
        with pytest.raises(TypeError):
            ctorch.finfo(ct)
    assert ctorch.finfo().eps == torch.finfo().eps


# ---- allclose, equal, meshgrid

@pytest.mark.parametrize("kw", [{}, {"rtol": 0.1}, {"atol": 1e-3}, {"equal_nan": True}])
def test_allclose(kw):
    nan = float("nan")
    same(lambda m: m.allclose(m.tensor([1.0, nan, 3.0]), m.tensor([1.0000001, nan, 3.001]), **kw))
    same(lambda m: m.tensor([1.0, 2.0]).allclose(m.tensor([1.0]), **kw))  # broadcasts
    same(lambda m: m.allclose(m.tensor([1.0, 2.0]), m.tensor([1.0, 2.0, 3.0])))  # both raise
    same(lambda m: m.allclose(m.tensor([1, 2]), m.tensor([1.0, 2.0])))  # dtypes differ: both raise


def test_equal():
    nan = float("nan")
    same(lambda m: m.equal(m.tensor([1, 2]), m.tensor([1, 2])))
    same(lambda m: m.equal(m.tensor([1, 2]), m.tensor([1.0, 2.0])))
    same(lambda m: m.equal(m.tensor([1, 2]), m.tensor([1])))
    same(lambda m: m.equal(m.tensor([nan]), m.tensor([nan])))
    same(lambda m: m.tensor([[1, 2]]).equal(m.tensor([[1, 3]])))


@pytest.mark.parametrize("indexing", ["ij", "xy"])
def test_meshgrid(indexing):
    same(lambda m: m.meshgrid(m.arange(3), m.tensor([5, 6]), indexing=indexing))
    same(lambda m: m.meshgrid([m.arange(2.0), m.arange(3.0), m.tensor(7.0)], indexing=indexing))
    same(lambda m: m.meshgrid(m.arange(4), indexing=indexing))
    same(lambda m: m.meshgrid(m.zeros(0), m.arange(2.0), indexing=indexing))
    same(lambda m: m.meshgrid(m.zeros(2, 2), m.arange(2.0), indexing=indexing))  # both raise
    same(lambda m: m.meshgrid(m.arange(2), m.arange(2.0), indexing=indexing))  # both raise


def test_meshgrid_gradient_sums_over_the_grid():
    x = ctorch.arange(3.0, requires_grad=True)
    y = ctorch.arange(2.0, requires_grad=True)
    gx, gy = ctorch.meshgrid(x, y, indexing="ij")
    (gx * 2 + gy).sum().backward()
    assert x.grad.tolist() == [4.0, 4.0, 4.0] and y.grad.tolist() == [3.0, 3.0]


def test_meshgrid_refuses_unknown_indexing():
    with pytest.raises(ValueError):
        ctorch.meshgrid(ctorch.arange(2), indexing="yx")


# ---- torch functions over Tensor methods, and compositions torch defines the same way

@pytest.mark.parametrize("fn", [
    lambda m: m.is_complex(sample(m)), lambda m: m.is_floating_point(sample(m, "int64")),
    lambda m: m.is_signed(sample(m, "uint8")), lambda m: m.is_nonzero(m.tensor([2.5])),
    lambda m: m.is_nonzero(m.tensor([0])), lambda m: m.is_nonzero(m.ones(2)), lambda m: m.is_nonzero(m.ones(0)),
    lambda m: m.is_same_size(sample(m), sample(m).T), lambda m: m.is_same_size(sample(m), sample(m) * 2),
    lambda m: m.is_inference(sample(m)), lambda m: m.is_storage(sample(m)), lambda m: sample(m).get_device(),
    lambda m: m.positive(sample(m)), lambda m: m.positive(sample(m, "bool")), lambda m: m.conj(sample(m)),
    lambda m: m.adjoint(sample(m)), lambda m: m.adjoint(m.ones(3)), lambda m: sample(m).mT,
    lambda m: sample(m).mH, lambda m: sample(m).H, lambda m: m.ones(()).H, lambda m: m.ones(3).mT,
    lambda m: m.ones(2, 2, 2).H, lambda m: m.detach(sample(m).requires_grad_()).requires_grad,
    lambda m: m.typename(sample(m)), lambda m: m.typename(sample(m, "int64")), lambda m: m.typename(3),
    lambda m: m.scalar_tensor(3), lambda m: m.scalar_tensor(2.5, dtype=m.float64),
    lambda m: m.frobenius_norm(sample(m)), lambda m: m.frobenius_norm(sample(m), (1,), True),
    lambda m: m.chain_matmul(sample(m), sample(m).T, sample(m)), lambda m: m.chain_matmul(sample(m)),
    lambda m: m.normal(m.zeros(2, 1), m.ones(3)).shape, lambda m: m.normal(0.0, 1.0, (2, 3)).shape,
    lambda m: m.normal(m.zeros(2), 0.0), lambda m: m.sgn(sample(m)),
])
def test_torch_functions_over_methods_and_compositions(fn):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # range and chain_matmul are deprecated in both
        same(fn)


@pytest.mark.parametrize("args", [(1, 4, 0.5), (0, -2, -0.5), (0.5, 2.0, 0.3), (2, 1, 1)])
def test_deprecated_range_includes_its_end(args):
    with pytest.warns(UserWarning, match="range is deprecated"):
        got = ctorch.range(*args)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ref = torch.range(*args)
        except RuntimeError:
            ref = None
    if ref is None or ref.numel() == 0:
        assert got.numel() == 0 or ref is None
    else:
        compare(got, ref)


@pytest.mark.parametrize("a", DTYPE_NAMES)
@pytest.mark.parametrize("b", DTYPE_NAMES)
def test_promote_types_and_can_cast(a, b):
    same(lambda m: (m.promote_types(getattr(m, a), getattr(m, b)), m.can_cast(getattr(m, a), getattr(m, b))))


@pytest.mark.parametrize("args", [
    lambda m: (m.ones(2, dtype=m.int32), 2.5), lambda m: (m.ones(2, dtype=m.int32), m.tensor(2.5, dtype=m.float64)),
    lambda m: (m.ones(2, dtype=m.float16), m.ones((), dtype=m.float64)), lambda m: (m.ones(2, dtype=m.uint8), -3),
    lambda m: (m.ones(2, dtype=m.bool), True), lambda m: (m.ones((), dtype=m.int8), m.ones(2, dtype=m.uint8)),
    lambda m: (3, m.ones(2, dtype=m.bfloat16)), lambda m: (m.ones(2, dtype=m.int64), m.ones(3, dtype=m.float16)),
])
def test_result_type(args):
    same(lambda m: m.result_type(*args(m)))


# ---- in-place forms written with copy_, Tensor queries, and the random fills

A = [[1.5, -2.0, 0.0], [3.0, 4.25, -7.5]]


@pytest.mark.parametrize("fn", [
    lambda m: m.tensor(A).eq_(m.tensor([1.5, 4.25, 0.0])), lambda m: m.tensor(A).gt_(0),
    lambda m: m.tensor(A).int().ge_(1), lambda m: m.tensor(A).less_equal_(0), lambda m: m.tensor(A).not_equal_(0),
    lambda m: m.tensor(A).logical_not_(), lambda m: m.tensor(A).pow_(2), lambda m: m.tensor(A).tril_(),
    lambda m: m.tensor(A).triu_(1), lambda m: m.tensor(A).cumsum_(1), lambda m: m.tensor(A).cumprod_(0),
    lambda m: m.tensor(A).true_divide_(2), lambda m: m.tensor(A).addmm_(m.ones(2, 4), m.ones(4, 3), beta=0.5),
    lambda m: m.tensor(A).addr_(m.ones(2), m.ones(3)), lambda m: m.tensor(A).addbmm_(m.ones(2, 2, 4), m.ones(2, 4, 3)),
    lambda m: m.ones(2, 2, 3).baddbmm_(m.ones(2, 2, 4), m.ones(2, 4, 3)),
    lambda m: m.tensor(A)[0].addmv_(m.ones(3, 2), m.ones(2)),
    lambda m: m.tensor(A).renorm(2, 0, 3.0), lambda m: m.renorm(m.tensor(A), 1, 1, 2.0),
    lambda m: m.tensor(A).renorm_(2, -1, 1.0), lambda m: m.tensor([2.5, 3.0]).mvlgamma(2),
    lambda m: m.mvlgamma(m.tensor([2.5, 3.0], dtype=m.float64), 3), lambda m: m.tensor([2.5]).mvlgamma_(1),
    lambda m: m.tensor([0.5, 3.0]).polygamma(1), lambda m: m.tensor([0.5, 3.0]).polygamma_(2),
    lambda m: m.zeros(7, 3).fill_diagonal_(1, wrap=True), lambda m: m.zeros(7, 3).fill_diagonal_(1),
    lambda m: m.zeros(3, 5).fill_diagonal_(2), lambda m: m.zeros(3, 3, 3).fill_diagonal_(5),
    lambda m: m.zeros(3, 2, 3).fill_diagonal_(5), lambda m: m.ones(2, 3, 4).sum_to_size(3, 1),
    lambda m: m.ones(2, 3, 4).sum_to_size((1, 3, 4)), lambda m: m.ones(2, 3, 4).sum_to_size(5, 1),
    lambda m: m.ones(2, 3).new(2, 2).shape, lambda m: m.ones(2, 3, dtype=m.int32).new([1, 2]),
    lambda m: (m.ones(2).is_cpu, m.ones(2, 3).ndimension(), m.ones(2, 3).nelement()),
    lambda m: m.ones(2).is_same_size(m.zeros(2)), lambda m: m.ones(4, 3).narrow_copy(0, 1, 2),
    lambda m: m.narrow_copy(m.ones(4, 3), 1, 0, 2), lambda m: len(m.ones(5).unsafe_chunk(2)),
    lambda m: m.unsafe_split(m.arange(5), 2), lambda m: m.unsafe_split_with_sizes(m.arange(5), [2, 3]),
    lambda m: (lambda x: (x.is_set_to(x), x.is_set_to(x.clone())))(m.ones(3)),
    lambda m: m.ones(2, requires_grad=True).gt_(0),
])
def test_inplace_forms_and_queries(fn):
    same(fn)


def test_random_fills_draw_from_their_distributions():
    ctorch.manual_seed(0)
    n = 200_000
    assert abs(ctorch.zeros(n).exponential_(2.0).mean().item() - 0.5) < 0.01
    assert abs(ctorch.zeros(n).geometric_(0.25).mean().item() - 4.0) < 0.05
    assert ctorch.zeros(n, dtype=ctorch.int64).random_(3, 7).unique().tolist() == [3, 4, 5, 6]
    assert ctorch.zeros(n).random_(5).max().item() == 4.0
    assert abs(ctorch.zeros(n + 1).cauchy_(1.0, 2.0).median().item() - 1.0) < 0.05
    assert abs(ctorch.zeros(n).log_normal_(0.0, 0.5).log().std().item() - 0.5) < 0.01
    assert ctorch.zeros(n, dtype=ctorch.uint8).random_().max().item() == 255


@pytest.mark.parametrize("fn", [
    lambda m: m.unique_consecutive(m.tensor([1, 1, 2, 2, 3, 1, 1, 2])),
    lambda m: m.unique_consecutive(m.tensor([1, 1, 2, 2, 3, 1, 1, 2]), return_inverse=True, return_counts=True),
    lambda m: m.tensor([[1, 1], [2, 3]]).unique_consecutive(return_counts=True),
    lambda m: m.unique_consecutive(m.tensor([[1, 2], [1, 2], [3, 4], [1, 2]]), return_inverse=True, return_counts=True,
                                   dim=0),
    lambda m: m.unique_consecutive(m.tensor([[1, 1, 2], [3, 3, 4]]), return_counts=True, dim=1),
    lambda m: m.unique_consecutive(m.tensor([[1, 1, 2], [3, 3, 4]]), dim=-1),
    lambda m: m.unique_consecutive(m.tensor([float("nan"), float("nan"), 1.0, 1.0]), return_counts=True),
    lambda m: m.unique_consecutive(m.tensor([], dtype=m.int64), return_inverse=True, return_counts=True),
    lambda m: m.unique_consecutive(m.tensor(5), return_inverse=True, return_counts=True),
    lambda m: m.unique_consecutive(m.ones(2, 3), dim=2),
])
def test_unique_consecutive(fn):
    same(fn)
