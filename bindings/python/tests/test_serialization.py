"""ctorch.save / ctorch.load against torch.save / torch.load (PyTorch files): what torch writes loads
here with the same values, dtypes, views and containers; what ctorch writes loads in torch
(weights_only=True, where torch 1.13's weights-only reader knows every opcode: it has no floats);
and files that are damaged or would run code are refused without running anything."""

import collections
import io
import math
import os
import pickle
import zipfile

import numpy as np
import pytest

from conftest import compare

ctorch = pytest.importorskip("ctorch")
torch = pytest.importorskip("torch")

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


def _same(c, t):
    """ctorch value c equals torch value t, containers and all."""
    if isinstance(t, torch.Tensor):
        assert isinstance(c, ctorch.Tensor)
        compare(c, t)
        assert c.requires_grad == t.requires_grad
        return
    assert type(c) is type(t) or (isinstance(t, collections.OrderedDict) and isinstance(c, collections.OrderedDict))
    if isinstance(t, dict):
        assert list(c) == list(t)
        for k in t:
            _same(c[k], t[k])
    elif isinstance(t, (list, tuple)):
        assert len(c) == len(t)
        for a, b in zip(c, t):
            _same(a, b)
    elif isinstance(t, float) and math.isnan(t):
        assert math.isnan(c)
    else:
        assert c == t


def _torch_object():
    x = torch.arange(12.0).reshape(3, 4)
    model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.BatchNorm1d(2))
    return {
        "model": model.state_dict(),
        "step": 7, "big": -(2 ** 62), "lr": 0.25, "nan": float("nan"), "inf": -math.inf,
        "names": ["a", "é"], "flags": (True, None, False), 3: "int key", "empty": {}, "nothing": (),
        "base": x, "view": x[1:, ::2], "t": x.t(), "scalar": torch.tensor(5),
        "dtypes": [torch.ones(2, 3).to(getattr(torch, d)) for d in DTYPES],
        "param": torch.nn.Parameter(torch.ones(2)), "leaf": torch.zeros(2, requires_grad=True),
        "empty_tensor": torch.zeros(0, 5), "nested": [[{"deep": [torch.ones(1)]}]],
    }


def test_files_torch_writes_load_with_the_same_values(tmp_path):
    obj = _torch_object()
    path = tmp_path / "torch.pt"
    torch.save(obj, path)
    got = ctorch.load(path)
    _same(got, obj)
    # Views share one storage, as they did when saved.
    assert got["view"].stride() == obj["view"].stride() and got["t"].stride() == (1, 4)
    got["base"].zero_()
    assert got["view"].sum().item() == 0 and got["t"].sum().item() == 0


def test_files_ctorch_writes_load_in_torch_weights_only(tmp_path):
    x = ctorch.arange(12).reshape(3, 4)
    model = ctorch.nn.Linear(3, 2)
    obj = {"model": model.state_dict(), "epoch": 3, "view": x[:, 1], "base": x, "names": ["a", "b"],
           "flags": (True, None), 5: [ctorch.ones(2, dtype=ctorch.bfloat16)],
           "dtypes": [ctorch.ones(2, 2).to(getattr(ctorch, d)) for d in DTYPES]}
    path = tmp_path / "ctorch.pt"
    ctorch.save(obj, path)
    back = torch.load(path, weights_only=True)
    assert isinstance(back["model"], collections.OrderedDict) and list(back["model"]) == ["weight", "bias"]
    np.testing.assert_array_equal(back["model"]["weight"].numpy(), model.weight.detach().numpy())
    assert back["view"].tolist() == [1, 5, 9] and back["view"].stride() == (4,)
    back["base"][0, 1] = 100  # one storage in torch too
    assert back["view"][0].item() == 100
    assert [str(t.dtype).split(".")[1] for t in back["dtypes"]] == DTYPES
    assert back["epoch"] == 3 and back["names"] == ["a", "b"] and back["flags"] == (True, None)
    assert back[5][0].dtype == torch.bfloat16


def test_floats_and_grads_round_trip_through_torch(tmp_path):
    # torch 1.13's weights-only reader has no BINFLOAT opcode (torch 2 has): its full reader checks
    # these files are what Python's pickle makes of them.
    p = ctorch.nn.Parameter(ctorch.ones(2))
    obj = {"lr": 0.001, "betas": (0.9, 0.999), "nan": float("nan"), "p": p, "neg": -1e300}
    path = tmp_path / "floats.pt"
    ctorch.save(obj, path)
    back = torch.load(path, weights_only=False)
    assert back["lr"] == 0.001 and back["betas"] == (0.9, 0.999) and math.isnan(back["nan"]) and back["neg"] == -1e300
    assert back["p"].requires_grad
    _same(ctorch.load(path), back)


def test_round_trip_through_file_objects_and_the_same_tensor_twice():
    t = ctorch.arange(4.0)
    buf = io.BytesIO()
    ctorch.save([t, t, {"again": t}], buf)
    a, b, d = ctorch.load(io.BytesIO(buf.getvalue()))
    assert a is b is d["again"]  # one object, as torch's pickle memo makes it
    a2, b2, d2 = torch.load(io.BytesIO(buf.getvalue()), weights_only=True)
    assert a2 is b2 is d2["again"]


def test_a_training_checkpoint_resumes(tmp_path):
    ctorch.manual_seed(0)
    model = ctorch.nn.Linear(4, 1)
    opt = ctorch.optim.AdamW([{"params": [model.weight], "weight_decay": 0.1}, {"params": [model.bias]}], lr=0.01)
    x, y = ctorch.randn(8, 4), ctorch.randn(8, 1)

    def step(m, o):
        o.zero_grad()
        loss = ((m(x) - y) ** 2).mean()
        loss.backward()
        o.step()
        return loss.item()

    for _ in range(3):
        step(model, opt)
    path = tmp_path / "ckpt.pt"
    ctorch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "step": 3}, path)
    want = [step(model, opt) for _ in range(3)]
    ck = ctorch.load(path)
    model2 = ctorch.nn.Linear(4, 1)
    model2.load_state_dict(ck["model"])
    opt2 = ctorch.optim.AdamW([{"params": [model2.weight], "weight_decay": 0.1}, {"params": [model2.bias]}], lr=0.01)
    opt2.load_state_dict(ck["optimizer"])
    assert [step(model2, opt2) for _ in range(3)] == want and ck["step"] == 3


def test_map_location_moves_tensors(tmp_path):
    path = tmp_path / "m.pt"
    ctorch.save({"w": ctorch.ones(2)}, path)
    assert ctorch.load(path, map_location="cpu")["w"].device.type == "cpu"
    assert ctorch.load(path, map_location=ctorch.device("meta"))["w"].device.type == "meta"
    assert ctorch.load(path, map_location={"cuda:0": "cpu"})["w"].device.type == "cpu"
    with pytest.raises(NotImplementedError):
        ctorch.load(path, map_location=lambda storage, loc: storage)


def test_unsavable_objects_raise_type_error(tmp_path):
    for obj in (ctorch.nn.Linear(2, 2), {1.5: 1}, object(), {"f": len}, b"bytes"):
        with pytest.raises(TypeError, match="ctorch.save"):
            ctorch.save(obj, tmp_path / "x.pt")
    assert not os.path.exists(tmp_path / "x.pt")


class Evil:
    def __reduce__(self):
        return (os.system, ("echo pwned > /dev/null",))


def _zip_with_pickle(payload, name="archive"):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        z.writestr(f"{name}/data.pkl", payload)
        z.writestr(f"{name}/version", "3\n")
    return buf.getvalue()


def test_code_in_a_file_is_refused_not_run(tmp_path):
    for payload in (pickle.dumps(Evil(), protocol=2), pickle.dumps({"x": Evil()}, protocol=4),
                    pickle.dumps(collections.Counter("ab"), protocol=2)):
        with pytest.raises(ctorch.FormatError, match="not allowed"):
            ctorch.load(io.BytesIO(_zip_with_pickle(payload)))
    # torch.save of a whole module pickles its class: refused, naming it.
    path = tmp_path / "module.pt"
    torch.save(torch.nn.Linear(2, 2), path)
    with pytest.raises(ctorch.FormatError, match="torch.nn.modules.linear"):
        ctorch.load(path)


def test_damaged_and_foreign_files_are_format_errors(tmp_path):
    buf = io.BytesIO()
    torch.save({"w": torch.ones(3)}, buf)
    good = buf.getvalue()
    for bad in (good[:len(good) // 2], b"", b"not a zip", good[:-10]):
        with pytest.raises(ctorch.FormatError):
            ctorch.load(io.BytesIO(bad))
    deflated = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(good)) as src, zipfile.ZipFile(deflated, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            dst.writestr(info.filename, src.read(info))
    with pytest.raises(ctorch.FormatError, match="compressed"):
        ctorch.load(io.BytesIO(deflated.getvalue()))
    legacy = io.BytesIO()
    torch.save({"w": torch.ones(1)}, legacy, _use_new_zipfile_serialization=False)
    with pytest.raises(ctorch.FormatError):
        ctorch.load(io.BytesIO(legacy.getvalue()))
    with pytest.raises(ctorch.FormatError, match="data.pkl"):
        ctorch.load(io.BytesIO(_zip_with_pickle(b"", name="x").replace(b"x/data.pkl", b"x/other.pk")))


def test_shared_or_cyclic_containers_are_refused():
    cyclic = []
    cyclic.append(cyclic)
    shared = [1]
    for obj in (cyclic, [shared, shared]):
        with pytest.raises(ctorch.FormatError, match="appears twice"):
            ctorch.load(io.BytesIO(_zip_with_pickle(pickle.dumps(obj, protocol=2))))
    with pytest.raises(ctorch.FormatError, match="holds bytes"):
        ctorch.load(io.BytesIO(_zip_with_pickle(pickle.dumps({"b": b"raw"}, protocol=3))))
