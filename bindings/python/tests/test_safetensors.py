"""ctorch.safetensors: round trips, interop with the reference `safetensors` package and PyTorch in
both directions (same bytes for the same tensors), lazy loading, and hostile files.

The reference package comes from the venv CTest's fixture python_safetensors_venv makes
(CTORCH_SAFETENSORS_VENV), or from this interpreter; without it the interop tests skip, saying why.
"""

import glob
import json
import os
import pathlib
import struct
import sys

import pytest

from conftest import DTYPE_NAMES, ct_dtype, ctorch, th_dtype, torch


def _reference():
    venv = os.environ.get("CTORCH_SAFETENSORS_VENV")
    if venv:
        marker = os.path.join(venv, "UNAVAILABLE.txt")
        if os.path.exists(marker):
            return None, open(marker).read().strip()
        sys.path[:0] = [p for p in glob.glob(os.path.join(venv, "lib", "python3*", "site-packages")) if p not in sys.path]
    try:
        import safetensors.torch as st
        return st, None
    except ImportError as e:
        return None, f"the safetensors package is not installed ({e}); run through CTest or pip install safetensors"


st, st_missing = _reference()
needs_reference = pytest.mark.skipif(st is None, reason=str(st_missing))


def sample(name, shape=(2, 3)):
    """A ctorch tensor and the equal torch tensor of dtype name."""
    n = 1
    for s in shape:
        n *= s
    values = [bool(i % 2) for i in range(n)] if name == "bool" else [(i * 7 % 11) - (0 if name == "uint8" else 5) for i in range(n)]
    th = torch.tensor(values, dtype=th_dtype(name)).reshape(shape)
    return ctorch.tensor(values, dtype=ct_dtype(name)).reshape(shape), th


def same(ct_t, th_t):
    assert str(ct_t.dtype).split(".")[-1] == str(th_t.dtype).split(".")[-1]
    assert tuple(ct_t.shape) == tuple(th_t.shape)
    assert ct_t.tolist() == th_t.tolist()


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_round_trip_matches_torch(name, tmp_path):
    ct_t, th_t = sample(name)
    path = tmp_path / "t.safetensors"
    ctorch.save_file({"t": ct_t, "scalar": ct_t[1, 2], "empty": ct_t[:0]}, path)
    back = ctorch.load_file(path)
    assert set(back) == {"t", "scalar", "empty"}
    same(back["t"], th_t)
    same(back["scalar"], th_t[1, 2])
    same(back["empty"], th_t[:0])
    same(ctorch.safetensors.load(ctorch.safetensors.save({"t": ct_t}))["t"], th_t)


@needs_reference
@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_ctorch_files_open_in_the_reference_package(name, tmp_path):
    ct_t, th_t = sample(name, (3, 4))
    path = str(tmp_path / "c.safetensors")
    ctorch.save_file({"w": ct_t, "w_t": ct_t.t(), "s": ct_t[0, 0]}, path, metadata={"step": "7", "é": "ü\n"})
    got = st.load_file(path)
    assert torch.equal(got["w"], th_t) and torch.equal(got["w_t"], th_t.t()) and torch.equal(got["s"], th_t[0, 0])
    from safetensors import safe_open
    with safe_open(path, framework="pt") as f:
        assert f.metadata() == {"step": "7", "é": "ü\n"}


@needs_reference
@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_reference_files_open_in_ctorch(name, tmp_path):
    ct_t, th_t = sample(name, (4, 2))
    path = tmp_path / "r.safetensors"
    st.save_file({"a": th_t, "b": th_t[0, 0].clone(), "z": th_t[:0].clone(), "c": th_t.t().contiguous()}, str(path),
                 metadata={"format": "pt"})
    got = ctorch.load_file(path)
    same(got["a"], th_t)
    same(got["b"], th_t[0, 0])
    same(got["z"], th_t[:0])
    same(got["c"], th_t.t())
    with ctorch.safetensors.safe_open(path) as f:
        assert f.metadata() == {"format": "pt"}


@needs_reference
def test_same_bytes_as_the_reference_writer():
    pairs = {n: sample(n, (2, 3)) for n in DTYPE_NAMES}
    ct_d = {f"x.{n}": c for n, (c, _) in pairs.items()}
    th_d = {f"x.{n}": t for n, (_, t) in pairs.items()}
    assert ctorch.safetensors.save(ct_d) == st.save(th_d)
    # One metadata key: the reference's map order cannot differ.
    assert ctorch.safetensors.save(ct_d, {"format": "pt"}) == st.save(th_d, {"format": "pt"})
    assert ctorch.safetensors.save({}) == st.save({})


@needs_reference
def test_reference_loads_bytes_from_ctorch():
    ct_t, th_t = sample("float32", (5,))
    assert torch.equal(st.load(ctorch.safetensors.save({"v": ct_t}))["v"], th_t)
    same(ctorch.safetensors.load(st.save({"v": th_t}))["v"], th_t)


# Headers the reference package opens that the format's writer never makes: whitespace before the
# '{', and fields of a tensor entry the format does not define (ignored, whatever JSON they hold).
_LENIENT_HEADERS = [
    b' \n {"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}',
    b'{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"extra":1}}',
    b'{"a":{"note":{"x":[1,-2.5e3,true,null,"s"]},"dtype":"F32","shape":[2],"data_offsets":[0,8],"z":[]}}',
]


@pytest.mark.parametrize("header", _LENIENT_HEADERS)
def test_headers_the_reference_accepts_open_alike(header):
    data = _raw(header, struct.pack("<2f", 1.5, -2.0))
    assert ctorch.safetensors.load(data)["a"].tolist() == [1.5, -2.0]
    if st is not None:
        assert st.load(data)["a"].tolist() == [1.5, -2.0]


def test_safe_open_reads_lazily_and_tensors_outlive_it(tmp_path):
    path = tmp_path / "lazy.safetensors"
    w = ctorch.arange(4, dtype=ctorch.float32)
    ctorch.save_file({"w": w, "b": ctorch.ones(2)}, path)
    with ctorch.safetensors.safe_open(path, framework="pt") as f:
        assert f.keys() == ["b", "w"]  # one dtype: by name
        t = f.get_tensor("w")
        assert f.metadata() is None
        with pytest.raises(KeyError):
            f.get_tensor("missing")
    with pytest.raises(ValueError, match="closed"):
        f.get_tensor("w")
    t.add_(10)  # the private mapping: this process's copy changes, the file does not
    assert t.tolist() == [10.0, 11.0, 12.0, 13.0]
    assert ctorch.load_file(path)["w"].tolist() == [0.0, 1.0, 2.0, 3.0]


def test_keys_follow_the_data_order(tmp_path):
    path = tmp_path / "order.safetensors"
    ctorch.save_file({"z": ctorch.zeros(1, dtype=ctorch.int8), "a": ctorch.zeros(1, dtype=ctorch.float64),
                      "m": ctorch.zeros(1, dtype=ctorch.float64)}, path)
    with ctorch.safetensors.safe_open(path) as f:
        assert f.keys() == ["a", "m", "z"]  # 8-byte dtypes first, then by name


def _raw(header, data=b""):
    return struct.pack("<Q", len(header)) + header + data


@pytest.mark.parametrize("data, says", [
    (_raw(b'{"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},"b":{"dtype":"U8","shape":[2],"data_offsets":[1,3]}}',
          b"\0" * 3), "overlapping"),
    (_raw(b'{"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}}', b"\0"), "truncated"),
    (struct.pack("<Q", 2 ** 62) + b"{}", "limit"),
    (_raw(b'{"a":{"dtype":"F33","shape":[1],"data_offsets":[0,4]}}', b"\0" * 4), "unknown dtype"),
    (_raw(b'{"a":{"dtype":"U8","shape":[-1],"data_offsets":[0,0]}}'), "sign"),
    (_raw(b'{"a":{"dtype":"U8","shape":[NaN],"data_offsets":[0,0]}}'), "non-negative integers"),
    (_raw(b'{"a":' + b"[" * 1000 + b"]" * 1000 + b"}"), "expected '{'"),
    (_raw(b'["not", "an", "object"]'), "must be a JSON object"),
    (_raw(b'{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}',
          b"\0\0"), "twice"),
    (b"\x01\x02", "8-byte header length"),
])
def test_hostile_bytes_are_format_errors(data, says, tmp_path):
    with pytest.raises(ctorch.FormatError, match=says) as e:
        ctorch.safetensors.load(data)
    assert isinstance(e.value, ValueError)
    path = tmp_path / "bad.safetensors"
    path.write_bytes(data)
    with pytest.raises(ctorch.FormatError, match="at byte|header length"):
        ctorch.load_file(path)


def test_unsupported_dtype_is_a_dtype_error():
    data = _raw(b'{"u":{"dtype":"U32","shape":[1],"data_offsets":[0,4]},"i":{"dtype":"I32","shape":[1],'
                b'"data_offsets":[4,8]}}', b"\1\0\0\0\2\0\0\0")
    f = ctorch.safetensors.safe_open._from_bytes(data)
    assert f.get_tensor("i").tolist() == [2]
    with pytest.raises(ctorch.DTypeError, match="U32"):
        f.get_tensor("u")
    f.close()


def test_bad_arguments(tmp_path):
    t = ctorch.ones(2)
    with pytest.raises(TypeError):
        ctorch.save_file([t], tmp_path / "x")
    with pytest.raises(TypeError):
        ctorch.save_file({1: t}, tmp_path / "x")
    with pytest.raises(TypeError):
        ctorch.save_file({"t": torch.ones(2)}, tmp_path / "x")
    with pytest.raises(TypeError):
        ctorch.save_file({"t": t}, tmp_path / "x", metadata={"k": 1})
    with pytest.raises(ValueError, match="NUL"):
        ctorch.save_file({"a\0b": t}, tmp_path / "x")
    with pytest.raises(ctorch.InvalidArgumentError, match="empty"):
        ctorch.save_file({"": t}, tmp_path / "x")
    with pytest.raises(ctorch.InvalidArgumentError, match="__metadata__"):
        ctorch.save_file({"__metadata__": t}, tmp_path / "x")
    with pytest.raises(ctorch.DeviceError):
        ctorch.save_file({"m": ctorch.empty(2, device="meta")}, tmp_path / "x")
    with pytest.raises(ctorch.FileError) as e:
        ctorch.load_file(tmp_path / "missing.safetensors")
    assert isinstance(e.value, OSError)
    with pytest.raises(ctorch.FileError):
        ctorch.save_file({"t": t}, tmp_path / "no" / "dir.safetensors")
    with pytest.raises(ValueError, match="framework"):
        ctorch.safetensors.safe_open(tmp_path / "x", framework="tf")
    assert not list(tmp_path.glob("*.tmp.*"))


def test_views_and_autograd_state_save_as_plain_data(tmp_path):
    base = ctorch.arange(12, dtype=ctorch.float32).reshape(3, 4)
    leaf = ctorch.ones(3, requires_grad=True)
    path = tmp_path / "v.safetensors"
    ctorch.save_file({"col": base[:, 1], "row": base[1], "leaf": leaf}, pathlib.Path(path))
    got = ctorch.load_file(str(path))
    assert got["col"].tolist() == [1.0, 5.0, 9.0]
    assert got["row"].tolist() == [4.0, 5.0, 6.0, 7.0]
    assert got["leaf"].requires_grad is False and got["leaf"].tolist() == [1.0, 1.0, 1.0]
    header = json.loads(path.read_bytes()[8:8 + struct.unpack("<Q", path.read_bytes()[:8])[0]])
    assert header["col"]["shape"] == [3]


DOCS = os.path.join(os.path.dirname(__file__), "..", "..", "..", "docs", "checkpoints.md")


@pytest.mark.skipif(not os.path.exists(DOCS), reason="needs the source tree's docs/checkpoints.md")
def test_docs_examples_run():
    text = open(DOCS).read()
    blocks = [b.split("```")[0] for b in text.split("```python\n")[1:]]
    assert blocks
    for block in blocks:
        exec(compile(block, "docs/checkpoints.md", "exec"), {})
