"""ctorch.utils.data against torch.utils.data: the same datasets, samplers, collation and loaders
give the same batches (orders that are random are checked as permutations, and as reproducible
from a seed), in the main process and in worker processes."""

import collections
import os

import numpy as np
import pytest

from conftest import assert_same_error, compare

ctorch = pytest.importorskip("ctorch")
torch = pytest.importorskip("torch")


def _plain(batch):
    """A batch as nested Python values (tensors as (dtype name, list)), to compare across modules."""
    if isinstance(batch, (ctorch.Tensor, torch.Tensor)):
        return (str(batch.dtype).split(".")[-1], batch.tolist())
    if isinstance(batch, dict):
        return {k: _plain(v) for k, v in batch.items()}
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        return (type(batch).__name__,) + tuple(_plain(v) for v in batch)
    if isinstance(batch, (list, tuple)):
        return [_plain(v) for v in batch]
    return batch


def both(make, **loader):
    """Every batch of DataLoader(make(m), **loader) for m = ctorch and torch, as plain values."""
    out = []
    for m in (ctorch, torch):
        out.append([_plain(b) for b in m.utils.data.DataLoader(make(m), **loader)])
    return out


def tensors(m):
    return m.utils.data.TensorDataset(m.arange(20.0).reshape(10, 2), m.arange(10))


Point = collections.namedtuple("Point", "x y")


class Samples:
    """A map-style dataset of mixed samples: numbers, numpy values, strings, dicts, named tuples."""

    def __init__(self, m, n=7):
        self.m, self.n = m, n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {"int": i, "float": i / 4, "bool": i % 2 == 0, "np": np.float32(i) * 2, "arr": np.arange(3) + i,
                "str": f"s{i}", "pair": (i, [i, -i]), "point": Point(i, self.m.tensor([i, i]))}


def stream(m, n=10):
    class Stream(m.utils.data.IterableDataset):
        def __iter__(self):
            info = m.utils.data.get_worker_info()
            first, step = (0, 1) if info is None else (info.id, info.num_workers)
            return iter(range(first, n, step))

    return Stream()


@pytest.mark.parametrize("loader", [dict(), dict(batch_size=4), dict(batch_size=4, drop_last=True),
                                    dict(batch_size=None), dict(batch_size=3, num_workers=2),
                                    dict(batch_size=None, num_workers=2)])
def test_tensor_dataset_batches_as_torch(loader):
    got, want = both(tensors, **loader)
    assert got == want


@pytest.mark.parametrize("workers", [0, 2])
def test_default_collate_of_mixed_samples_as_torch(workers):
    got, want = both(lambda m: Samples(m), batch_size=3, num_workers=workers)
    assert got == want


@pytest.mark.parametrize("loader", [dict(batch_size=3), dict(batch_size=3, drop_last=True), dict(batch_size=None),
                                    dict(batch_size=3, num_workers=2), dict(batch_size=4, num_workers=3),
                                    dict(batch_size=3, num_workers=2, drop_last=True)])
def test_iterable_dataset_as_torch(loader):
    got, want = both(stream, **loader)
    assert got == want


def test_len_as_torch():
    for loader in (dict(batch_size=3), dict(batch_size=3, drop_last=True), dict(batch_size=None)):
        assert len(ctorch.utils.data.DataLoader(tensors(ctorch), **loader)) == \
            len(torch.utils.data.DataLoader(tensors(torch), **loader))
    with pytest.raises(TypeError):
        len(ctorch.utils.data.DataLoader(stream(ctorch), batch_size=2))


def test_shuffle_is_a_permutation_reproducible_from_the_seed():
    def epoch():
        return [i for b in ctorch.utils.data.DataLoader(tensors(ctorch), batch_size=3, shuffle=True) for i in
                b[1].tolist()]

    ctorch.manual_seed(7)
    first, second = epoch(), epoch()
    assert sorted(first) == list(range(10)) and first != second  # a new order each epoch
    ctorch.manual_seed(7)
    assert epoch() == first
    g = ctorch.Generator().manual_seed(3)
    with_g = [b[1].tolist() for b in ctorch.utils.data.DataLoader(tensors(ctorch), batch_size=5, shuffle=True,
                                                                   generator=g)]
    g.manual_seed(3)
    assert with_g == [b[1].tolist() for b in ctorch.utils.data.DataLoader(tensors(ctorch), batch_size=5, shuffle=True,
                                                                           generator=g)]


def test_samplers():
    data = list(range(8))
    sd = ctorch.utils.data
    assert list(sd.SequentialSampler(data)) == data
    assert sorted(sd.RandomSampler(data)) == data
    drawn = list(sd.RandomSampler(data, replacement=True, num_samples=20))
    assert len(drawn) == 20 and set(drawn) <= set(data)
    longer = list(sd.RandomSampler(data, num_samples=11))  # one whole permutation, then 3 of another
    assert sorted(longer[:8]) == data and len(set(longer[8:])) == 3
    assert sorted(sd.SubsetRandomSampler([5, 1, 3])) == [1, 3, 5]
    weighted = list(sd.WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], 50))
    assert set(weighted) <= {1, 3} and len(weighted) == 50
    assert list(sd.BatchSampler(sd.SequentialSampler(data), 3, False)) == \
        list(torch.utils.data.BatchSampler(torch.utils.data.SequentialSampler(data), 3, False))
    assert len(sd.BatchSampler(data, 3, True)) == 2
    for bad in (lambda: sd.BatchSampler(data, 0, False), lambda: sd.RandomSampler(data, num_samples=0),
                lambda: sd.WeightedRandomSampler([1.0], -1)):
        with pytest.raises(ValueError):
            bad()


def test_subset_concat_and_random_split():
    sd = ctorch.utils.data
    ds = tensors(ctorch)
    sub = sd.Subset(ds, [4, 0, 9])
    assert [int(sub[i][1]) for i in range(3)] == [4, 0, 9] and len(sub) == 3
    both_ = ds + sub
    assert len(both_) == 13 and int(both_[11][1]) == 0 and int(both_[-1][1]) == 9
    parts = sd.random_split(ds, [6, 4], generator=ctorch.Generator().manual_seed(1))
    seen = sorted(int(p[i][1]) for p in parts for i in range(len(p)))
    assert [len(p) for p in parts] == [6, 4] and seen == list(range(10))
    assert [len(p) for p in sd.random_split(range(10), [0.5, 0.3, 0.2])] == \
        [len(p) for p in torch.utils.data.random_split(range(10), [0.5, 0.3, 0.2])]
    with pytest.raises(ValueError):
        sd.random_split(ds, [3, 3])
    with pytest.raises(ValueError):
        sd.TensorDataset(ctorch.zeros(3), ctorch.zeros(4))


def test_argument_checks_as_torch():
    cases = [dict(batch_size=2, shuffle=True, sampler=[0, 1]), dict(batch_sampler=[[0]], batch_size=2),
             dict(batch_size=None, drop_last=True), dict(num_workers=-1), dict(timeout=-1),
             dict(persistent_workers=True)]
    for kw in cases:
        assert_same_error(lambda: ctorch.utils.data.DataLoader(tensors(ctorch), **kw),
                          lambda: torch.utils.data.DataLoader(tensors(torch), **kw))
        with pytest.raises(ValueError):
            ctorch.utils.data.DataLoader(tensors(ctorch), **kw)
    with pytest.raises(ValueError):  # torch 2's check (torch 1.13 did not make it)
        ctorch.utils.data.DataLoader(tensors(ctorch), prefetch_factor=2)
    with pytest.raises(ValueError):
        ctorch.utils.data.DataLoader(stream(ctorch), shuffle=True)


class Failing(ctorch.utils.data.Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        if i == 4:
            raise KeyError(f"no sample {i}")
        return ctorch.tensor(i)


@pytest.mark.parametrize("workers", [0, 2])
def test_a_failing_sample_raises_its_exception(workers):
    with pytest.raises(KeyError, match="no sample 4"):
        list(ctorch.utils.data.DataLoader(Failing(), batch_size=2, num_workers=workers))


def test_workers_are_seeded_numbered_and_initialized():
    class Draws(ctorch.utils.data.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            info = ctorch.utils.data.get_worker_info()
            return ctorch.tensor([info.id, info.num_workers, os.getpid(), info.seed, ctorch.rand(()).item() * 1e6])

    def init(worker_id):
        assert ctorch.utils.data.get_worker_info().id == worker_id

    ctorch.manual_seed(5)
    loader = ctorch.utils.data.DataLoader(Draws(), batch_size=1, num_workers=2, worker_init_fn=init)
    rows = ctorch.cat(list(loader)).to(ctorch.float64).tolist()
    assert [r[0] for r in rows] == [0, 1, 0, 1] and all(r[1] == 2 for r in rows)
    assert rows[0][2] != rows[1][2] != os.getpid()  # two processes, not this one
    assert rows[1][3] == rows[0][3] + 1  # base seed + worker id
    assert ctorch.utils.data.get_worker_info() is None


def test_persistent_workers_serve_every_epoch():
    loader = ctorch.utils.data.DataLoader(tensors(ctorch), batch_size=4, num_workers=2, persistent_workers=True)
    epochs = [[b[1].tolist() for b in loader] for _ in range(3)]
    assert epochs[0] == epochs[1] == epochs[2] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    pids = {p.pid for p in loader._workers.procs}
    list(loader)
    assert {p.pid for p in loader._workers.procs} == pids
    # An epoch left early leaves answers in flight; the next epoch (another order) must not see them.
    shuffled = ctorch.utils.data.DataLoader(tensors(ctorch), batch_size=2, shuffle=True, num_workers=2,
                                            persistent_workers=True)
    for _ in range(5):
        for batch in shuffled:
            break
        assert sorted(i for b in shuffled for i in b[1].tolist()) == list(range(10))


def test_a_training_loop_over_a_loader_matches_torch():
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((32, 3)).astype("float32"), rng.standard_normal((32, 1)).astype("float32")
    losses = {}
    for m in (ctorch, torch):
        w = m.zeros(3, 1, requires_grad=True)
        opt = m.optim.SGD([w], lr=0.1)
        out = []
        for xb, yb in m.utils.data.DataLoader(m.utils.data.TensorDataset(m.tensor(x), m.tensor(y)), batch_size=8):
            opt.zero_grad()
            loss = ((xb @ w - yb) ** 2).mean()
            loss.backward()
            opt.step()
            out.append(loss.item())
        losses[m.__name__] = out
    np.testing.assert_allclose(losses["ctorch"], losses["torch"], rtol=1e-6)


def test_default_collate_and_convert_directly():
    sd = ctorch.utils.data
    compare(sd.default_collate([ctorch.ones(2), ctorch.zeros(2)]),
            torch.utils.data.default_collate([torch.ones(2), torch.zeros(2)]))
    assert _plain(sd.default_convert({"a": np.arange(2), "b": "x"})) == \
        _plain(torch.utils.data.default_convert({"a": np.arange(2), "b": "x"}))
    with pytest.raises(RuntimeError, match="equal size"):
        sd.default_collate([[1, 2], [3]])
