"""The C fast paths of the Python package (Note [Python fast paths] in ctorch.i) keep torch's
semantics: basic indexing (ints, slices, None, Ellipsis) gives the same views, errors, gradients and
version counting as torch, and operators resolved once (x.erfinv(), ctorch.erfinv(x), keywords,
defaults) give what the general boxed call gives, with torch's exception classes."""

import numpy as np
import pytest

from conftest import compare

ctorch = pytest.importorskip("ctorch")
torch = pytest.importorskip("torch")

# Every basic form, with clamped slices at both ends, an empty one and several at once.
BASIC = [
    1, -1, 0, (1, 2), (-1, -2, -3), (1, 2, 3),
    slice(1, 3), slice(None, 2), slice(2, None), slice(None, None, 2), slice(1, None, 3), slice(-3, -1),
    slice(10, 20), slice(-100, 2), slice(2, 1), slice(0, 100, 4), slice(-100, 100),
    (slice(None), slice(1, 3)), (slice(None), slice(None), slice(None, None, 2)), (0, slice(1, 4, 2), -1),
    None, (None,), (None, Ellipsis, 0), (Ellipsis, 1), (1, Ellipsis), (Ellipsis, None), (None, None, 1, None),
    (slice(None), None, 1), Ellipsis, (Ellipsis,), slice(None), (), (Ellipsis, slice(None), 2),
    (1, None, slice(None, None, 2), Ellipsis, None),
]


def _pair(shape=(4, 5, 6), seed=0):
    a = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return ctorch.tensor(a), torch.tensor(a)


@pytest.mark.parametrize("index", BASIC, ids=repr)
def test_basic_index_is_torchs_view(index):
    cx, tx = _pair()
    cy, ty = cx[index], tx[index]
    compare(cy, ty)
    assert cy.stride() == ty.stride() and cy.storage_offset() == ty.storage_offset()
    assert cy is not cx and type(cy) is ctorch.Tensor
    if cy.numel():  # a view: a write through it is seen through the base
        cy.fill_(7.0)
        ty.fill_(7.0)
        compare(cx, tx)


@pytest.mark.parametrize("index", [(1, 2, 3), 0, None, Ellipsis, ()], ids=repr)
def test_basic_index_of_a_0_dim_and_1_dim_tensor(index):
    for shape in [(), (3,)]:
        cx, tx = _pair(shape)
        try:
            ty = tx[index]
        except IndexError:
            with pytest.raises(IndexError):
                cx[index]
            continue
        compare(cx[index], ty)


@pytest.mark.parametrize("index, error", [
    (slice(None, None, -1), ValueError), (slice(None, None, 0), ValueError), ((0, slice(3, 1, -2)), ValueError),
    (4, IndexError), (-5, IndexError), ((0, 5), IndexError), ((0, 0, 6), IndexError), ((0, 0, 0, 0), IndexError),
    ((None, 0, 0, 0, 0), IndexError), ((Ellipsis, 0, 0, 0, 0), IndexError),
], ids=repr)
def test_basic_index_errors_are_torchs(index, error):
    cx, tx = _pair()
    with pytest.raises(error):
        tx[index]
    with pytest.raises(error):
        cx[index]


def test_basic_index_error_messages():
    cx, _ = _pair()
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 3"):
        cx[0, 0, 0, 0]
    with pytest.raises(ValueError, match="step must be greater than zero"):
        cx[::-1]
    with pytest.raises(IndexError, match="index 9 is out of range for dim 0 of size 4"):
        cx[9]


TENSOR_INDICES = [
    lambda m: m.tensor([2, 0, 2]), lambda m: (slice(None), m.tensor([4, -1])), lambda m: (m.tensor([[1], [3]]), m.tensor([0, 2])),
    lambda m: (None, m.tensor([1, 1])), lambda m: (Ellipsis, m.tensor([5, 0])), lambda m: (m.tensor([3]), slice(1, 3)),
    lambda m: (1, m.tensor([0, 4]), slice(None, None, 2)), lambda m: m.tensor([True, False, True, True]),
    lambda m: (slice(None), m.tensor([True, False, True, False, True])),
    lambda m: m.tensor([[True] * 5, [False] * 5, [True, False] * 2 + [True], [False] * 5]),
    lambda m: (m.tensor([0, 1]), None, Ellipsis, m.tensor([2, 3])),
]


@pytest.mark.parametrize("i", range(len(TENSOR_INDICES)))
def test_tensor_index_reads_as_torch(i):
    a = np.random.default_rng(i).standard_normal((4, 5, 6))
    cx, tx = ctorch.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    cy, ty = cx[TENSOR_INDICES[i](ctorch)], tx[TENSOR_INDICES[i](torch)]
    compare(cy.detach(), ty.detach())
    w = np.random.default_rng(40 + i).standard_normal(tuple(ty.shape))
    (cy * ctorch.tensor(w)).sum().backward()
    (ty * torch.tensor(w)).sum().backward()
    compare(cx.grad, tx.grad)


def test_tensor_index_errors_as_torch():
    for lib in (ctorch, torch):
        x = lib.zeros(4, 5)
        with pytest.raises(IndexError):
            x[lib.tensor([0, 4])]  # out of range
        with pytest.raises(IndexError):
            x[lib.zeros(4, 5, 2, dtype=lib.bool)]  # a mask of more dims than x
        with pytest.raises(IndexError):
            x[0, 0, lib.tensor([0])]  # too many indices
        with pytest.raises(IndexError):
            x[lib.ones(3, dtype=lib.bool)]  # a mask of the wrong size


def test_other_indices_still_take_the_general_path():
    cx, tx = _pair()
    for index in [np.int64(2), (np.int64(1), slice(None)), ctorch.tensor(2), [0, 2], (slice(1, 3), [1, 1]),
                  (Ellipsis, ctorch.tensor([0, 5]))]:
        tindex = tuple(torch.tensor(i.tolist()) if isinstance(i, ctorch.Tensor) else i for i in index) \
            if isinstance(index, tuple) else torch.tensor(index.tolist()) if isinstance(index, ctorch.Tensor) else index
        compare(cx[index], tx[tindex])
    with pytest.raises(TypeError):
        cx[True]
    with pytest.raises(TypeError):
        cx[1.5]
    with pytest.raises(TypeError):
        cx[slice(1.0, 2)]


def test_basic_index_of_a_subclass_gives_a_tensor():
    class Sub(ctorch.Tensor):
        pass

    cx, tx = _pair()
    s = cx.as_subclass(Sub)
    assert type(s[1]) is ctorch.Tensor
    compare(s[1, ::2], tx[1, ::2])


@pytest.mark.parametrize("index", [1, slice(1, 3), (slice(None), slice(None, None, 2)), (None, Ellipsis, 0),
                                   Ellipsis, (0, None, slice(1, 100))], ids=repr)
def test_gradient_through_a_basic_index(index):
    a = np.random.default_rng(1).standard_normal((4, 5, 6))
    cx, tx = ctorch.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    cy, ty = cx[index], tx[index]
    w = np.random.default_rng(2).standard_normal(tuple(ty.shape))
    (cy * ctorch.tensor(w)).sum().backward()
    (ty * torch.tensor(w)).sum().backward()
    compare(cx.grad, tx.grad)


def test_grad_fn_of_each_basic_form():
    x = ctorch.zeros(4, 5, requires_grad=True)
    assert x[1:3].grad_fn.name() == "SliceBackward"
    assert x[::2].grad_fn.name() == "SliceBackward"
    assert x[1].grad_fn.name() == "SelectBackward"
    assert x[None].grad_fn.name() == "UnsqueezeBackward"
    assert x[...].grad_fn.name() == "ViewBackward"


def test_inplace_write_through_a_basic_view_bumps_the_version():
    """A tensor saved for backward, then changed through a view: backward refuses, as torch's."""
    for lib in (ctorch, torch):
        x = lib.ones(4, 5, requires_grad=True)
        y = x * 1
        z = y * y  # saves y
        with lib.no_grad():
            y[1, 2:4].add_(1.0)
        with pytest.raises(RuntimeError):
            z.sum().backward()


def test_inplace_on_basic_views_of_a_leaf_without_grad_mode():
    """An optimizer's kind of update (views of a parameter changed under no_grad), then backward."""
    a = np.random.default_rng(3).standard_normal((4, 5))
    grads = []
    for lib in (ctorch, torch):
        x = lib.tensor(a, requires_grad=True)
        with lib.no_grad():
            x[1:3, ::2].mul_(3.0)
            x[0].zero_()
            x[None, ..., -1].fill_(2.0)
        assert x.is_leaf and x.requires_grad
        (x * x).sum().backward()
        grads.append(x.grad)
    compare(*grads)


@pytest.mark.parametrize("index", [0, (slice(1, 3), 2), (Ellipsis, slice(None, None, 2)), None, Ellipsis],
                         ids=repr)
def test_setitem_through_a_basic_index(index):
    cx, tx = _pair()
    cx[index] = 2.5
    tx[index] = 2.5
    compare(cx, tx)
    cv, tv = _pair(tuple(tx[index].shape), seed=4)
    cx[index] = cv
    tx[index] = tv
    compare(cx, tx)


def test_setitem_converts_values_as_torch():
    a = np.arange(24).reshape(4, 6)
    for dtype in ("int64", "float32", "uint8", "bool"):
        cx, tx = ctorch.tensor(a).to(getattr(ctorch, dtype)), torch.tensor(a).to(getattr(torch, dtype))
        for index, value in [(0, 3), (1, 2.75), ((2, slice(1, 4)), True), ((Ellipsis, 5), np.float64(1.5)),
                             (slice(None, None, 3), 0)]:
            cx[index] = value
            tx[index] = value
            compare(cx, tx)
        cv = ctorch.tensor([1.5, -2.0, 3.25, 0.0, 7.0, 1.0])  # float32 into any dtype, broadcast over rows
        cx[1:3] = cv
        tx[1:3] = torch.tensor(cv.tolist())
        compare(cx, tx)


def test_setitem_at_an_index_tensor_as_torch():
    a = np.arange(20).reshape(4, 5)
    for dtype in ("int64", "float32", "bool"):
        cx, tx = ctorch.tensor(a).to(getattr(ctorch, dtype)), torch.tensor(a).to(getattr(torch, dtype))
        for make, value in [(lambda m: m.tensor([2, 0]), 7), (lambda m: m.tensor([-1]), 2.5),
                            (lambda m: m.tensor([True, False, True, False]), 0),
                            (lambda m: m.tensor([[True, False] * 2 + [True]] * 4), 1.0),
                            (lambda m: m.tensor([1, 3]), "row")]:
            cv, tv = (value,) * 2
            if value == "row":  # a tensor of x's dtype (torch 1.13 refuses another for index_put_)
                cv, tv = ctorch.tensor([9, 8, 0, 6, 5]).to(cx.dtype), torch.tensor([9, 8, 0, 6, 5]).to(tx.dtype)
            cx[make(ctorch)] = cv
            tx[make(torch)] = tv
            compare(cx, tx)
    for lib in (ctorch, torch):
        x = lib.zeros(4, 5)
        with pytest.raises(IndexError):
            x[lib.tensor([4])] = 1.0
        with pytest.raises(IndexError):
            x[lib.zeros(4, 5, 1, dtype=lib.bool)] = 1.0
        with pytest.raises(RuntimeError):
            x[lib.tensor([0, 1])] = lib.ones(3)


def test_setitem_errors_as_torch():
    for lib in (ctorch, torch):
        x = lib.zeros(4, 6)
        with pytest.raises(RuntimeError):
            x[0] = lib.ones(5)  # does not broadcast
        with pytest.raises(IndexError):
            x[4] = 1.0
        with pytest.raises(ValueError):
            x[::-1] = 1.0
        leaf = lib.zeros(4, 6, requires_grad=True)
        with pytest.raises(RuntimeError):
            leaf[0] = 1.0  # in place on a leaf that requires grad
        compare(x, torch.zeros(4, 6)) if lib is ctorch else None


# ---- operators resolved once ----

def test_resolved_method_and_function_match_torch():
    cx, tx = _pair((3, 4))
    cx, tx = cx * 0.5, tx * 0.5
    compare(cx.erfinv(), tx.erfinv())
    compare(cx.erfinv(), tx.erfinv())  # the second call finds the method on the class
    assert "erfinv" in vars(ctorch.Tensor)
    compare(ctorch.erfinv(cx), torch.erfinv(tx))
    compare(ctorch.erfinv(cx), torch.erfinv(tx))
    assert ctorch.erfinv is ctorch.erfinv
    compare(ctorch.ops.erfinv(cx), torch.erfinv(tx))


def test_resolved_operator_keywords_and_defaults():
    cx, tx = _pair((3, 4))
    compare(cx.cumsum(dim=1), tx.cumsum(dim=1))
    compare(cx.cumsum(1, dtype=ctorch.float64), tx.cumsum(1, dtype=torch.float64))
    compare(cx.cumsum(dim=0, dtype=ctorch.float64), tx.cumsum(dim=0, dtype=torch.float64))
    for args, kwargs in [((2,), {}), ((2,), {"dim": 0}), ((2, 0), {"largest": False}), ((), {"k": 3}),
                         ((1,), {"sorted": True, "largest": False})]:
        cr, tr = cx.topk(*args, **kwargs), tx.topk(*args, **kwargs)
        compare(cr.values, tr.values)
        compare(cr.indices, tr.indices)
        values, indices = cr  # a named tuple, which unpacks
        compare(values, tr[0])
    compare(ctorch.index_add(cx, 0, ctorch.tensor([2, 0]), cx[:2], alpha=2),
            torch.index_add(tx, 0, torch.tensor([2, 0]), tx[:2], alpha=2))


def test_keywords_placed_in_c_as_the_schema_says():
    cx, tx = _pair((3, 4))
    compare(cx.cumsum(0, dtype=None), tx.cumsum(0, dtype=None))  # None where the type is optional
    for kwargs in [{"k": 2}, {"k": 1, "dim": 0}, {"dim": 0, "k": 2, "largest": False}, {"sorted": True, "k": 4}]:
        cr, tr = ctorch.ops.call("topk", cx, **kwargs), tx.topk(**kwargs)
        compare(cr.values, tr.values)
        compare(ctorch.topk(cx, **kwargs).indices, torch.topk(tx, **kwargs).indices)
    compare(ctorch.nn.functional.softmax(cx, dim=0, dtype=ctorch.float64),
            torch.nn.functional.softmax(tx, dim=0, dtype=torch.float64))
    compare(ctorch.index_add(cx, 0, ctorch.tensor([1]), cx[:1], alpha=0.5),
            torch.index_add(tx, 0, torch.tensor([1]), tx[:1], alpha=0.5))
    for other in (cx * 2, 3, 2.5):  # add.Tensor and add.Scalar by their full names
        tother = tx * 2 if isinstance(other, ctorch.Tensor) else other
        compare(cx.add(other, alpha=2), tx.add(tother, alpha=2))
        compare(cx.sub(other, alpha=0.5), tx.sub(tother, alpha=0.5))
        cy, ty = cx.clone(), tx.clone()
        assert cy.add_(other, alpha=3) is cy
        ty.add_(tother, alpha=3)
        cy.sub_(other, alpha=2)
        ty.sub_(tother, alpha=2)
        compare(cy, ty)
    compare(ctorch.ops.call("add.Tensor", cx, cx, alpha=3), tx.add(tx, alpha=3))


def test_resolved_operator_with_several_overloads():
    cx, tx = _pair((3, 4))
    compare(cx.median(), tx.median())
    for kwargs in [{}, {"keepdim": True}]:
        cr, tr = cx.median(1, **kwargs), tx.median(1, **kwargs)
        compare(cr.values, tr.values)
        compare(cr.indices, tr.indices)
    cr, tr = cx.median(dim=0), tx.median(dim=0)
    compare(cr.values, tr.values)
    compare(cx.std(0), tx.std(0))
    compare(cx.std(dim=1, unbiased=False), tx.std(dim=1, unbiased=False))
    compare(ctorch.max(cx, ctorch.zeros(3, 4)), torch.max(tx, torch.zeros(3, 4)))


def test_resolved_operator_lists_and_inplace():
    cx, tx = _pair((3, 4))
    compare(cx.flip([0, 1]), tx.flip([0, 1]))
    compare(cx.flip((1,)), tx.flip((1,)))
    compare(ctorch.ops.cat([cx, cx], 1), torch.cat([tx, tx], 1))
    cy, ty = cx * 0.5, tx * 0.5
    assert cy.erfinv_() is cy
    ty.erfinv_()
    compare(cy, ty)
    assert cx.clamp_min_(0.0) is cx
    tx.clamp_min_(0.0)
    compare(cx, tx)


def test_resolved_operator_general_values_fall_back():
    """numpy numbers and SymInt-free values of other kinds take ops.call and give the same result."""
    cx, tx = _pair((3, 4))
    compare(cx.topk(np.int64(2)).values, tx.topk(2).values)
    compare(cx.cumsum(np.int32(1)), tx.cumsum(1))
    compare(cx.clamp_min(np.float32(0.25)), tx.clamp_min(0.25))


def test_resolved_operator_argument_errors_are_type_errors():
    cx, tx = _pair((3, 4))
    for fn in [lambda m, x: x.topk("a"), lambda m, x: x.erfinv(1), lambda m, x: x.topk(2, foo=1),
               lambda m, x: x.topk(2, k=3), lambda m, x: x.topk(2, dim=None), lambda m, x: x.cumsum(dim=0.5),
               lambda m, x: m.erfinv(x, 1), lambda m, x: m.erfinv(x, bad=1)]:
        with pytest.raises(TypeError):
            fn(torch, tx)
        with pytest.raises(TypeError):
            fn(ctorch, cx)
    with pytest.raises(TypeError, match="argument 'k' expects int, got str"):
        cx.topk("a")
    with pytest.raises(ValueError):  # still the InvalidArgumentError it was
        cx.topk("a")
    with pytest.raises(AttributeError, match="'Tensor' object has no attribute 'no_such_op'"):
        cx.no_such_op()


def test_resolved_operator_gradients():
    a = np.random.default_rng(5).uniform(-0.5, 0.5, (3, 4))
    cx, tx = ctorch.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    cx.erfinv().cumsum(dim=1).sum().backward()
    tx.erfinv().cumsum(dim=1).sum().backward()
    compare(cx.grad, tx.grad)


def test_cat_and_stack_take_tensor_objects():
    class Sub(ctorch.Tensor):
        pass

    cx, tx = _pair((2, 3))
    compare(ctorch.cat([cx, cx.as_subclass(Sub)], 1), torch.cat([tx, tx], 1))
    compare(ctorch.cat(t for t in (cx, cx)), torch.cat([tx, tx]))
    compare(ctorch.stack((cx, cx), -1), torch.stack((tx, tx), -1))
    for bad in ([cx, 5], [cx, tx], [cx, None]):
        with pytest.raises(TypeError, match="expected a ctorch.Tensor"):
            ctorch.cat(bad)
        with pytest.raises(TypeError, match="expected a ctorch.Tensor"):
            ctorch.stack(bad)


@pytest.mark.parametrize("name", ["exp2", "expm1", "log1p", "log2", "log10", "tan", "asin", "acos", "atan", "sinh",
                                  "cosh", "asinh", "acosh", "atanh", "erf", "erfc", "erfinv", "reciprocal"])
def test_typed_unary_methods_match_torch(name):
    a = np.random.default_rng(6).uniform(0.1, 0.9, (3, 4))
    if name == "acosh":
        a = a + 1
    cx, tx = ctorch.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    compare(getattr(cx, name)(), getattr(tx, name)())
    getattr(cx, name)().sum().backward()
    getattr(tx, name)().sum().backward()
    compare(cx.grad, tx.grad)
    compare(getattr(ctorch.tensor([1, 2]), name)(), getattr(torch.tensor([1, 2]), name)())  # ints give float
    if name != "reciprocal":  # the module function too, with out=
        compare(getattr(ctorch, name)(cx.detach()), getattr(torch, name)(tx.detach()))
        cy, ty = ctorch.empty(0), torch.empty(0)
        getattr(ctorch, name)(cx.detach(), out=cy)
        getattr(torch, name)(tx.detach(), out=ty)
        compare(cy, ty)
        with pytest.raises(TypeError, match="expected a ctorch.Tensor, got list"):
            getattr(ctorch, name)([0.5])


def test_out_keyword_of_a_function_as_torch():
    cx, tx = _pair((3, 4))
    cx, tx = cx * 0.3, tx * 0.3
    for make in (lambda m: m.empty(3, 4), lambda m: m.empty(0), lambda m: m.empty(3, 4, dtype=m.float64)):
        cy, ty = make(ctorch), make(torch)
        assert ctorch.erfinv(cx, out=cy) is cy
        torch.erfinv(tx, out=ty)
        compare(cy, ty)
    cy, ty = ctorch.empty(2), torch.empty(2)
    with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
        ctorch.erfinv(cx, out=cy)
    with pytest.warns(UserWarning):
        torch.erfinv(tx, out=ty)
    compare(cy, ty)
    cv, ci = ctorch.empty(0), ctorch.empty(0, dtype=ctorch.int64)
    tv, ti = torch.empty(0), torch.empty(0, dtype=torch.int64)
    r = ctorch.topk(cx, 2, dim=0, out=(cv, ci))
    torch.topk(tx, 2, dim=0, out=(tv, ti))
    assert r[0] is cv and r[1] is ci
    compare(cv, tv)
    compare(ci, ti)
    compare(ctorch.cumsum(cx, 1, out=None), torch.cumsum(tx, 1, out=None))


def test_out_keyword_errors_as_torch():
    for lib in (ctorch, torch):
        x = lib.ones(3, 4) * 0.5
        with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long"):
            lib.erfinv(x, out=lib.empty(3, 4, dtype=lib.int64))
        with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
            lib.erfinv(x.clone().requires_grad_(), out=lib.empty(3, 4))
        with pytest.raises(TypeError):
            x.erfinv(out=lib.empty(3, 4))  # methods take no out=
        with pytest.raises(TypeError):
            x.lgamma(out=lib.empty(3, 4))
    with ctorch.no_grad():  # without grad mode an input that requires grad is fine
        y = ctorch.empty(3, 4)
        ctorch.erfinv(ctorch.full((3, 4), 0.5, requires_grad=True), out=y)
    compare(y, torch.erfinv(torch.ones(3, 4) * 0.5))
