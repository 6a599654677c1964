"""Tensor methods that change sizes or autograd identity in place (t_, transpose_, swapaxes_,
squeeze_, unsqueeze_, resize_, resize_as_, detach_), the element-wise callbacks (apply_, map_,
map2_) and the layout and legacy attributes, against torch."""

import warnings

import numpy as np
import pytest

ctorch = pytest.importorskip("ctorch")
torch = pytest.importorskip("torch")

X = np.arange(6.0).reshape(2, 3)

STEPS = {
    "t_": lambda t: t.t_(),
    "transpose_": lambda t: t.unsqueeze(0).transpose_(0, 2),
    "swapaxes_": lambda t: t.swapaxes_(0, 1),
    "swapdims_": lambda t: t.swapdims_(1, 0),
    "squeeze_": lambda t: t.reshape(1, 2, 1, 3).squeeze_(),
    "squeeze_dim": lambda t: t.reshape(1, 2, 1, 3).squeeze_(2),
    "unsqueeze_": lambda t: t.unsqueeze_(1),
    "resize_smaller": lambda t: t.resize_(2, 2),
    "resize_larger_prefix": lambda t: t.resize_(8)[:6],
    "resize_as_": lambda t: t.resize_as_(torch.zeros(3, 2) if isinstance(t, torch.Tensor) else ctorch.zeros(3, 2)),
    "as_strided_": lambda t: t.as_strided_((2, 2), (1, 3), 1),
    "as_strided_copy": lambda t: (torch if isinstance(t, torch.Tensor) else ctorch).as_strided_copy(t, (2,), (4,), 1),
    "as_strided_scatter": lambda t: t.as_strided_scatter(t.new_ones(2), (2,), (3,), 1),
    "new_empty_strided": lambda t: t.new_empty_strided((2, 2), (1, 2)).fill_(1.0),
    "apply_": lambda t: t.apply_(lambda v: v * v - 1),
    "map_": lambda t: t.map_(t.new_tensor([1.0, 2.0, 3.0]), lambda a, b: a * b),
    "map2_": lambda t: t.map2_(t.new_tensor(2.0), t.new_tensor([[1.0], [0.0]]), lambda a, b, c: a * b + c),
}


@pytest.mark.parametrize("name", sorted(STEPS))
def test_matches_torch(name):
    got, want = STEPS[name](ctorch.tensor(X)), STEPS[name](torch.tensor(X))
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_the_tensor_itself_changes_and_shares_its_storage():
    x = ctorch.tensor(X)
    flat = x.view(-1)
    same = x.t_()
    assert same is x and x.shape == (3, 2) and not x.is_contiguous()
    x.mul_(2)  # through the transposed view: flat (the old view) sees it
    assert flat.tolist() == [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]


def test_autograd_rules():
    leaf = ctorch.ones(2, 2, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        leaf.t_()
    with pytest.raises(RuntimeError, match="resize"):
        leaf.resize_(4)
    y = leaf * ctorch.tensor([[1.0, 2.0], [3.0, 4.0]])
    y.t_()
    (y * ctorch.tensor([[1.0, 0.0], [0.0, 0.0]])).sum().backward()
    assert leaf.grad.tolist() == [[1.0, 0.0], [0.0, 0.0]]
    z = leaf * 3
    assert z.detach_() is z and not z.requires_grad and z.grad_fn is None
    with ctorch.no_grad():
        leaf.t_()  # allowed where nothing is recorded, as in torch


def test_attributes():
    x = ctorch.ones(2, 3, requires_grad=True)
    assert x.layout is ctorch.strided and repr(ctorch.strided) == "ctorch.strided"
    assert x.dense_dim() == 2 and x.is_distributed() is False

    class Marked(ctorch.Tensor):
        pass

    marked = x.as_subclass(Marked)
    assert type(marked) is Marked and marked.requires_grad and marked.shape == x.shape
    with pytest.raises(TypeError):
        x.as_subclass(int)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert x.volatile is False and caught
    with pytest.raises(RuntimeError, match="removed"):
        x.reinforce(1.0)
    with pytest.raises(RuntimeError):
        x.resize(5)
    assert ctorch.detach_(x * 1).requires_grad is False


def test_strided_factories_keep_their_strides():
    for m in (ctorch, torch):
        t = m.empty_strided((2, 3), (1, 2))
        assert tuple(t.stride()) == (1, 2) and tuple(t.shape) == (2, 3)
        assert tuple(m.tensor(X).new_empty_strided((3, 2), (1, 3)).stride()) == (1, 3)


def test_retains_grad_and_output_nr_match_torch():
    for m in (ctorch, torch):
        x = m.ones(3, requires_grad=True)
        y = x * 2
        assert not y.retains_grad and not x.retains_grad
        y.retain_grad()
        assert y.retains_grad and y.output_nr == 0 and x.output_nr == 0
        values, indices = (x * 1).reshape(3, 1).max(1)
        assert values.output_nr == 0 and indices.output_nr == 0  # an integer result is not recorded
