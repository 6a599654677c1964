"""Indexing beyond the differential cases: gradients through x[i] reads and writes compared with
torch, embedding's padding row, and accumulation that gives the same bits for any thread count."""

import numpy as np
import pytest

from conftest import compare

ctorch = pytest.importorskip("ctorch")
torch = pytest.importorskip("torch")


def _pair(a, requires_grad=True):
    return (ctorch.tensor(a, requires_grad=requires_grad), torch.tensor(a, requires_grad=requires_grad))


READS = [
    lambda m, x: x[m.tensor([2, 0, 2])],
    lambda m, x: x[:, m.tensor([3, 3, 1])],
    lambda m, x: x[m.tensor([[1], [2]]), m.tensor([0, 3])],
    lambda m, x: x[x > 0],
    lambda m, x: x[m.tensor([True, False, True])],
    lambda m, x: x.masked_select(x < 0.5),
    lambda m, x: m.take(x, m.tensor([0, -1, 5, 5])),
    lambda m, x: x.gather(1, m.tensor([[0, 0], [3, 1], [2, 2]])),
    lambda m, x: x.index_select(0, m.tensor([1, 1])),
]


@pytest.mark.parametrize("i", range(len(READS)))
def test_gradient_of_a_read_matches_torch(i):
    a = np.random.default_rng(i).standard_normal((3, 4))
    (cx, tx), f = _pair(a), READS[i]
    cy, ty = f(ctorch, cx), f(torch, tx)
    compare(cy.detach(), ty.detach())
    w = np.random.default_rng(10 + i).standard_normal(tuple(ty.shape))
    (cy * ctorch.tensor(w)).sum().backward()
    (ty * torch.tensor(w)).sum().backward()
    compare(cx.grad, tx.grad)


WRITES = [
    lambda m, y, v: y.__setitem__(m.tensor([2, 0]), v[:2]),
    lambda m, y, v: y.__setitem__((slice(None), m.tensor([1, 3])), v[:3, :2]),
    lambda m, y, v: y.__setitem__(y.detach() > 0, v[0, 0]),
    lambda m, y, v: y.index_put_((m.tensor([1, 1, 2]),), v[:3], accumulate=True),
]


@pytest.mark.parametrize("i", range(len(WRITES)))
def test_gradient_of_a_write_matches_torch(i):
    a = np.random.default_rng(i).standard_normal((3, 4))
    b = np.random.default_rng(20 + i).standard_normal((3, 4))
    (cx, tx), (cv, tv) = _pair(a), _pair(b)
    cy, ty = cx * 1, tx * 1
    WRITES[i](ctorch, cy, cv)
    WRITES[i](torch, ty, tv)
    compare(cy.detach(), ty.detach())
    w = np.random.default_rng(30 + i).standard_normal((3, 4))
    (cy * ctorch.tensor(w)).sum().backward()
    (ty * torch.tensor(w)).sum().backward()
    compare(cx.grad, tx.grad)
    compare(cv.grad, tv.grad)


def test_embedding_padding_row_gets_no_gradient():
    a = np.random.default_rng(0).standard_normal((5, 3))
    (cw, tw) = _pair(a)
    for m, w in ((ctorch, cw), (torch, tw)):
        m.nn.functional.embedding(m.tensor([[1, 2], [2, 4]]), w, padding_idx=2).sum().backward()
    compare(cw.grad, tw.grad)
    assert not cw.grad[2].abs().sum().item()


def test_setitem_writes_through_a_view():
    x = ctorch.zeros(3, 4)
    x[1:, ctorch.tensor([0, 2])] = 5.0
    t = torch.zeros(3, 4)
    t[1:, torch.tensor([0, 2])] = 5.0
    compare(x, t)


def test_empty_list_index_selects_nothing_like_torch():
    # An empty list is an empty int64 index (tensor([]) alone would be float32, which indexing refuses).
    for m in (ctorch, torch):
        x = m.arange(6.0).reshape(2, 3)
        assert tuple(x[[]].shape) == (0, 3) and tuple(x[:, []].shape) == (2, 0)
        x[[]] = 1.0
        assert x.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]


def test_nonzero_as_tuple_indexes_like_the_mask():
    x = ctorch.tensor([[0.0, 1.0], [2.0, 0.0]])
    rows, cols = ctorch.nonzero(x, as_tuple=True)
    assert rows.tolist() == [0, 1] and cols.tolist() == [1, 0]
    assert x[rows, cols].tolist() == x[x != 0].tolist()


def test_out_of_range_index_names_operator_value_and_size():
    x = ctorch.zeros(3, 4)
    with pytest.raises(IndexError, match=r"index_add: index 7 is out of range for dim 0 of size 3"):
        x.index_add(0, ctorch.tensor([7]), ctorch.ones(1, 4))
    with pytest.raises(IndexError, match=r"index: index -9 is out of range for dim 1 of size 4"):
        x[:, ctorch.tensor([-9])]
    # nothing was half-written
    y = ctorch.zeros(3)
    with pytest.raises(IndexError):
        y.index_fill_(0, ctorch.tensor([0, 5]), 1.0)
    assert y.tolist() == [0.0, 0.0, 0.0]


def test_data_dependent_operators_refuse_the_meta_device():
    m = ctorch.ones(2, 3, device="meta") > 0
    with pytest.raises(ctorch.Error, match="nonzero: the output size depends on the data"):
        ctorch.nonzero(m)


@pytest.mark.parametrize("op", ["index_add", "scatter_add", "index_put", "embedding_backward"])
def test_accumulation_is_bitwise_the_same_for_any_thread_count(op):
    rng = np.random.default_rng(1)
    rows, n, d = 50, 20000, 16
    idx = ctorch.tensor(rng.integers(0, rows, n))
    src = ctorch.tensor(rng.standard_normal((n, d)).astype(np.float32))
    base = ctorch.zeros(rows, d)

    def run():
        if op == "index_add":
            return base.index_add(0, idx, src)
        if op == "scatter_add":
            return base.scatter_add(0, idx.unsqueeze(1).expand(n, d).contiguous(), src)
        if op == "index_put":
            return base.index_put((idx,), src, accumulate=True)
        w = ctorch.zeros(rows, d, requires_grad=True)
        (ctorch.nn.functional.embedding(idx, w) * src).sum().backward()
        return w.grad

    old = ctorch.get_num_threads()
    try:
        results = []
        for threads in (1, 2, 3, 8):
            ctorch.set_num_threads(threads)
            results.append(run().numpy().tobytes())
    finally:
        ctorch.set_num_threads(old)
    assert all(r == results[0] for r in results)


BIG = [  # large enough to run on several threads, along each dim; I(n, high, shape) makes an index
    lambda m, x, I: x.index_select(0, I(3000, 400)),
    lambda m, x, I: x.index_select(1, I(500, 300)),
    lambda m, x, I: x.index_add(0, I(400, 400), x * 2),
    lambda m, x, I: x.index_add(1, I(300, 300), x * 2),
    lambda m, x, I: x.gather(1, I(120000, 300, (400, 300))),
    lambda m, x, I: x.gather(0, I(120000, 400, (400, 300))),
    lambda m, x, I: x.scatter_add(0, I(120000, 400, (400, 300)), x),
    lambda m, x, I: x.scatter_add(1, I(120000, 300, (400, 300)), x),
    lambda m, x, I: x[I(2000, 400), :][:, I(100, 300)],
    lambda m, x, I: x.index_put((I(400, 400),), x, accumulate=True),
]


@pytest.mark.parametrize("i", range(len(BIG)))
def test_large_inputs_match_torch(i):
    a = np.random.default_rng(i).integers(-8, 8, (400, 300)).astype(np.float64)  # exact sums in any order

    def indices(m):
        rng = np.random.default_rng(100 + i)
        return lambda n, high, shape=None: m.tensor(rng.integers(0, high, n).reshape(shape or (n,)))

    got = BIG[i](ctorch, ctorch.tensor(a), indices(ctorch))
    want = BIG[i](torch, torch.tensor(a), indices(torch))
    compare(got, want)


INPLACE = [
    lambda m, x, I: x.index_add_(0, I([2, 0, 2]), m.ones(3, 4) * 2, alpha=3),
    lambda m, x, I: x.index_copy_(1, I([3, 0]), m.zeros(3, 2)),
    lambda m, x, I: x.index_fill_(1, I([-1]), 5.0),
    lambda m, x, I: x.scatter_(0, I([[2, 1, 0, 1]]), m.zeros(1, 4)),
    lambda m, x, I: x.scatter_(1, I([[3], [0], [1]]), -4.0),
    lambda m, x, I: x.scatter_add_(0, I([[2, 2, 0, 1]]), m.ones(1, 4)),
    lambda m, x, I: x.scatter_(0, I([[2, 2, 0, 1]]), m.ones(1, 4) * 2, reduce="multiply"),
    lambda m, x, I: x.scatter_(1, I([[0], [0], [3]]), 1.5, reduce="add"),
    lambda m, x, I: x.scatter_reduce_(0, I([[2, 2, 0, 1]]), m.ones(1, 4) * 3, "amax", include_self=False),
    lambda m, x, I: x.masked_fill_(x > 0, -1.0),
    lambda m, x, I: x.masked_scatter_(x > 0, m.zeros(12)),
    lambda m, x, I: x.put_(I([0, 11, 0]), m.ones(3), accumulate=True),
    lambda m, x, I: x.index_put_((I([1, 2]), I([3, 3])), m.ones(2), accumulate=True),
]


@pytest.mark.parametrize("i", range(len(INPLACE)))
def test_inplace_variants_write_self_like_torch(i):
    a = np.random.default_rng(i).integers(-5, 5, (3, 4)).astype(np.float32)
    results = []
    for m in (ctorch, torch):
        x = m.tensor(a)
        view = x[1]
        r = INPLACE[i](m, x, lambda v: m.tensor(v))
        assert r is x or r.data_ptr() == x.data_ptr()
        results.append((x, view))
    compare(results[0][0], results[1][0])
    compare(results[0][1], results[1][1])  # a view of self sees the write
