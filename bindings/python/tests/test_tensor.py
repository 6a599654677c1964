"""Unit tests of the ctorch Python binding: creation, dtypes, metadata, printing, conversions, numpy
sharing, indexing, errors, ctorch.ops, ownership and threads. PyTorch 1.13 is the reference where the
API mirrors it."""

import gc
import os
import threading

import numpy as np
import pytest

from conftest import DTYPE_NAMES, FLOAT_NAMES, assert_same_error, compare, ct_dtype, dtype_name, th_dtype

ctorch = pytest.importorskip("ctorch")
torch = pytest.importorskip("torch")


# ---------------------------------------------------------------------------------------------------
# dtypes

ITEMSIZES = {"bool": 1, "uint8": 1, "int8": 1, "int16": 2, "int32": 4, "int64": 8, "float16": 2,
             "bfloat16": 2, "float32": 4, "float64": 8}


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_dtype_objects(name):
    d = ct_dtype(name)
    assert d.itemsize == ITEMSIZES[name] == torch.empty(0, dtype=th_dtype(name)).element_size()
    assert d.is_floating_point == th_dtype(name).is_floating_point
    assert str(d) == f"ctorch.{name}"
    assert repr(d) == f"ctorch.{name}"
    assert d == ct_dtype(name)
    assert d != (ctorch.int64 if name != "int64" else ctorch.int32)


def test_default_dtype():
    assert ctorch.get_default_dtype() == ctorch.float32
    assert ctorch.tensor([1.5]).dtype == ctorch.float32
    assert ctorch.zeros(2).dtype == ctorch.float32


# ---------------------------------------------------------------------------------------------------
# creation


@pytest.mark.parametrize("data", [
    [1, 2, 3], [[1, 2], [3, 4]], [1.5, 2], [True, False], 3, 2.5, True, [], [[], []],
    [[1.0, -2.0, 3.25]], [0.1, 1e-8, 1e10], [[[1]], [[2]]], [1, True], [-9223372036854775808, 9223372036854775807],
], ids=repr)
def test_tensor_infers_like_torch(data):
    c, t = ctorch.tensor(data), torch.tensor(data)
    compare(c, t)
    assert c.tolist() == t.tolist()


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_tensor_with_dtype(name):
    data = [[0, 1, 2], [3, 4, 5]]
    compare(ctorch.tensor(data, dtype=ct_dtype(name)), torch.tensor(data, dtype=th_dtype(name)))


@pytest.mark.parametrize("data", [[[1, 2], [3]], [[1], 2], "abc", [None], [[1, 2], [[3, 4]]]], ids=repr)
def test_tensor_rejects_ragged_and_bad_data(data):
    with pytest.raises((TypeError, ValueError)):
        ctorch.tensor(data)
    with pytest.raises((TypeError, ValueError, RuntimeError)):
        torch.tensor(data)


def test_tensor_from_tensor_and_numpy_scalars():
    compare(ctorch.tensor(np.float64(2.5)), torch.tensor(np.float64(2.5)))
    compare(ctorch.tensor([np.int64(2), np.int64(3)]), torch.tensor([np.int64(2), np.int64(3)]))


def test_tensor_device():
    c = ctorch.tensor([1, 2])
    assert str(c.device) == "cpu"
    assert c.device == "cpu"
    m = ctorch.zeros(2, 3, device="meta")
    assert str(m.device) == "meta"
    assert m.shape == (2, 3)
    assert m.dtype == ctorch.float32


def test_meta_tensor_ops_give_shapes():
    a = ctorch.empty(2, 3, device="meta")
    b = ctorch.empty(3, device="meta", dtype=ctorch.float64)
    r = a + b
    assert str(r.device) == "meta"
    assert r.shape == (2, 3) and r.dtype == ctorch.float64
    assert (a @ ctorch.empty(3, 4, device="meta")).shape == (2, 4)
    with pytest.raises((ctorch.Error, TypeError)):
        a.item()
    with pytest.raises((ctorch.Error, TypeError)):
        a.tolist()


def test_meta_and_cpu_mixed_raise():
    with pytest.raises(ctorch.Error):
        ctorch.empty(2, device="meta") + ctorch.ones(2)


def test_unknown_device():
    with pytest.raises((ctorch.Error, ValueError)):
        ctorch.zeros(2, device="tpu")


@pytest.mark.parametrize("fn", ["zeros", "ones", "empty"])
def test_factories_size_forms(fn):
    for args in [(2, 3), ((2, 3),), ([2, 3],)]:
        c = getattr(ctorch, fn)(*args)
        assert c.shape == (2, 3)
        assert isinstance(c.shape, tuple)
        assert isinstance(c.shape, ctorch.Size)
        assert c.dtype == ctorch.float32
    assert getattr(ctorch, fn)(2, dtype=ctorch.int8).dtype == ctorch.int8
    assert getattr(ctorch, fn)(()).shape == ()


def test_like_factories():
    a = ctorch.tensor([[1, 2, 3]], dtype=ctorch.int16).t()
    for name in ["zeros_like", "ones_like", "empty_like"]:
        r = getattr(ctorch, name)(a)
        assert r.shape == (3, 1) and r.dtype == ctorch.int16
    compare(ctorch.full_like(a, 5), torch.full_like(torch.tensor([[1, 2, 3]], dtype=torch.int16).t(), 5))
    assert ctorch.zeros_like(a, dtype=ctorch.float64).dtype == ctorch.float64


def test_eye_arange_linspace_basic():
    compare(ctorch.eye(3), torch.eye(3))
    compare(ctorch.eye(2, 3), torch.eye(2, 3))
    compare(ctorch.arange(5), torch.arange(5))
    compare(ctorch.arange(1, 2, 0.25), torch.arange(1, 2, 0.25))
    compare(ctorch.linspace(0, 1, 5), torch.linspace(0, 1, 5))


# ---------------------------------------------------------------------------------------------------
# metadata


def test_shape_stride_ndim_numel():
    c = ctorch.zeros(2, 3, 4)
    t = torch.zeros(2, 3, 4)
    assert c.shape == t.shape == (2, 3, 4)
    assert tuple(c.shape) == tuple(t.shape)
    assert c.size() == (2, 3, 4)
    assert c.size(1) == 3 and c.size(-1) == 4
    assert c.stride() == t.stride() == (12, 4, 1)
    assert c.stride(0) == 12 and c.stride(-1) == 1
    assert c.ndim == c.dim() == 3
    assert c.numel() == 24
    assert c.is_contiguous()
    ct = c.transpose(0, 2)
    assert ct.shape == (4, 3, 2)
    assert ct.stride() == t.transpose(0, 2).stride()
    assert not ct.is_contiguous()
    with pytest.raises(IndexError):
        c.size(3)
    with pytest.raises(IndexError):
        c.stride(-4)


def test_size_repr_and_numel():
    s = ctorch.zeros(2, 3).shape
    assert repr(s) == "ctorch.Size([2, 3])"
    assert s.numel() == 6
    assert s[0] == 2 and s[-1] == 3 and list(s) == [2, 3]
    assert len(s) == 2


def test_0dim_metadata():
    c = ctorch.tensor(3.5)
    assert c.shape == () and c.ndim == 0 and c.numel() == 1 and c.stride() == ()
    assert c.item() == 3.5


@pytest.mark.parametrize("make", [
    lambda m: m.arange(12).reshape(3, 4)[:, 1::2],
    lambda m: m.arange(24).reshape(2, 3, 4).permute(2, 0, 1),
    lambda m: m.arange(4).reshape(4, 1).expand(4, 3),
    lambda m: m.arange(12).reshape(3, 4)[1:, None, ..., 2],
    lambda m: m.arange(6).reshape(2, 3).unsqueeze(1).narrow(2, 1, 2),
], ids=["step", "permute", "expand", "index_mix", "narrow"])
def test_view_strides_match_torch(make):
    c, t = make(ctorch), make(torch)
    assert tuple(c.shape) == tuple(t.shape)
    assert tuple(c.stride()) == tuple(t.stride())
    assert c.is_contiguous() == t.is_contiguous()
    compare(c, t)


# ---------------------------------------------------------------------------------------------------
# printing


REPR_CASES = [
    lambda m: m.tensor([1, 2, 3]),
    lambda m: m.tensor([1.0, 2.5, -3.0]),
    lambda m: m.tensor([[1.0, 2.0], [3.0, 4.0]]),
    lambda m: m.tensor([True, False]),
    lambda m: m.tensor([1, 2], dtype=m.int32),
    lambda m: m.tensor([1, 2], dtype=m.uint8),
    lambda m: m.tensor([1.5, 2], dtype=m.float16),
    lambda m: m.tensor([1.5, 2], dtype=m.bfloat16),
    lambda m: m.tensor([1.5, 2], dtype=m.float64),
    lambda m: m.tensor(3.25),
    lambda m: m.tensor(7),
    lambda m: m.tensor([]),
    lambda m: m.zeros(0, 3),
    lambda m: m.tensor([1e-8, 1.0, 1e8]),
    lambda m: m.tensor([float("nan"), float("inf"), -float("inf"), 1.0]),
    lambda m: m.tensor([0.1, 0.25, 123.456]),
    lambda m: m.arange(2000),
    lambda m: m.arange(30.0).reshape(5, 6) / 7,
    lambda m: m.arange(1200.0).reshape(3, 20, 20),
    lambda m: m.tensor([[1, -2], [30, 4]], dtype=m.int8).t(),
    lambda m: m.tensor([123456789.0, 1.0]),
    lambda m: m.tensor([-0.0, 0.0]),
]


@pytest.mark.parametrize("make", REPR_CASES, ids=[str(i) for i in range(len(REPR_CASES))])
def test_repr_matches_torch(make):
    c, t = make(ctorch), make(torch)
    assert repr(c) == repr(t).replace("torch.", "")
    assert str(c) == str(t).replace("torch.", "")


def test_repr_meta():
    assert repr(ctorch.empty(2, 3, device="meta")) == "tensor(..., device='meta', size=(2, 3))"


# ---------------------------------------------------------------------------------------------------
# item, tolist, numpy


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_item_and_tolist(name):
    data = [[1, 0, 3], [4, 5, 0]]
    c, t = ctorch.tensor(data, dtype=ct_dtype(name)), torch.tensor(data, dtype=th_dtype(name))
    assert c.tolist() == t.tolist()
    for x, y in zip(sum(c.tolist(), []), sum(t.tolist(), [])):
        assert type(x) is type(y)
    item_c, item_t = c[1, 2].item(), t[1, 2].item()
    assert item_c == item_t and type(item_c) is type(item_t)
    assert c[0].tolist() == t[0].tolist()


def test_item_errors():
    with pytest.raises(ctorch.ShapeError):
        ctorch.zeros(2).item()
    with pytest.raises(ctorch.Error):
        ctorch.zeros(0).item()
    assert ctorch.zeros(1, 1).item() == 0.0


def test_tolist_views_and_special():
    t = torch.tensor([[1.0, float("nan")], [float("inf"), -0.0]])
    c = ctorch.tensor([[1.0, float("nan")], [float("inf"), -0.0]])
    lc, lt = c.t().tolist(), t.t().tolist()
    assert str(lc) == str(lt)
    assert ctorch.tensor(2.5).tolist() == 2.5
    assert ctorch.zeros(2, 0).tolist() == [[], []]


@pytest.mark.parametrize("name", [n for n in DTYPE_NAMES if n != "bfloat16"])
def test_numpy_roundtrip(name):
    c = ctorch.tensor([[1, 0, 3], [4, 5, 0]], dtype=ct_dtype(name))
    a = c.numpy()
    assert isinstance(a, np.ndarray)
    assert a.dtype == torch.zeros(1, dtype=th_dtype(name)).numpy().dtype
    assert a.shape == (2, 3)
    assert a.tolist() == c.tolist()
    b = ctorch.from_numpy(a)
    assert b.dtype == c.dtype and b.tolist() == c.tolist()


def test_numpy_bfloat16_raises():
    with pytest.raises((TypeError, ctorch.Error)):
        ctorch.zeros(2, dtype=ctorch.bfloat16).numpy()


def test_numpy_shares_memory_both_ways():
    c = ctorch.zeros(2, 3)
    a = c.numpy()
    a[1, 2] = 7.0  # write through numpy, read through ctorch
    assert c[1, 2].item() == 7.0
    c[0, 0] = 5.0  # write through ctorch, read through numpy
    assert a[0, 0] == 5.0
    c += 1
    assert a[0, 0] == 6.0


def test_numpy_of_view_shares_memory_and_strides():
    c = ctorch.arange(12.0).reshape(3, 4)
    v = c.t()[1:, ::2]
    a = v.numpy()
    t = torch.arange(12.0).reshape(3, 4).t()[1:, ::2]
    np.testing.assert_array_equal(a, t.numpy())
    assert a.strides == t.numpy().strides
    a[0, 0] = -1.0
    assert c.tolist()[0][1] == -1.0


def test_numpy_outlives_tensor():
    a = ctorch.arange(1000.0).numpy()
    gc.collect()
    np.testing.assert_array_equal(a[:3], [0.0, 1.0, 2.0])
    assert a[-1] == 999.0


def test_from_numpy_shares_memory():
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    c = ctorch.from_numpy(a)
    assert c.dtype == ctorch.int32 and c.shape == (2, 3)
    a[0, 1] = 42
    assert c[0, 1].item() == 42
    c[1, 1] = -5
    assert a[1, 1] == -5
    del a
    gc.collect()
    assert c.tolist() == [[0, 42, 2], [3, -5, 5]]


def test_from_numpy_strided_and_unsupported():
    a = np.arange(20, dtype=np.float64).reshape(4, 5)[::2, 1::2]
    c, t = ctorch.from_numpy(a), torch.from_numpy(a)
    compare(c, t)
    assert c.stride() == t.stride()
    with pytest.raises(TypeError):
        ctorch.from_numpy(np.array(["a"]))
    with pytest.raises(TypeError):
        ctorch.from_numpy(np.zeros(2, dtype=np.uint16))  # torch 1.13 has no uint16


def test_array_protocol():
    c = ctorch.tensor([[1.5, 2.0]])
    np.testing.assert_array_equal(np.asarray(c), [[1.5, 2.0]])
    assert np.asarray(c).dtype == np.float32
    np.testing.assert_array_equal(np.array(ctorch.tensor([1, 2], dtype=ctorch.int16)), [1, 2])
    assert (np.add(c, 1) == np.array([[2.5, 3.0]])).all()


@pytest.mark.skipif(not hasattr(ctorch, "from_dlpack"), reason="ctorch.from_dlpack not there yet")
def test_dlpack_roundtrip_with_torch():
    c = ctorch.arange(6.0).reshape(2, 3)
    t = torch.from_dlpack(c)
    assert t.tolist() == c.tolist()
    t[0, 0] = 9.0
    assert c[0, 0].item() == 9.0  # shares memory
    assert c.__dlpack_device__()[0] == 1  # kDLCPU
    back = ctorch.from_dlpack(torch.arange(4, dtype=torch.int16).reshape(2, 2).t())
    compare(back, torch.arange(4, dtype=torch.int16).reshape(2, 2).t())


@pytest.mark.skipif(not hasattr(ctorch, "from_dlpack"), reason="ctorch.from_dlpack not there yet")
def test_dlpack_bool_and_bfloat16():
    # torch 1.13 exports bfloat16 but refuses bool ("Bool type is not supported by dlpack"), so bool
    # goes through ctorch's own capsules, both versioned and legacy.
    t = torch.tensor([1, 0, 1], dtype=torch.bfloat16)
    compare(ctorch.from_dlpack(t), t)
    b = ctorch.tensor([True, False, True])
    for capsule in (b.__dlpack__(), b.__dlpack__(max_version=(1, 0))):
        back = ctorch.from_dlpack(capsule)
        assert back.dtype is ctorch.bool and back.tolist() == [True, False, True]
        assert back.data_ptr() == b.data_ptr()


# ---------------------------------------------------------------------------------------------------
# operators and conversions


def test_python_operators_with_numbers():
    c, t = ctorch.tensor([1.0, 2.0, 4.0]), torch.tensor([1.0, 2.0, 4.0])
    for f in [lambda x: x + 1, lambda x: 1 + x, lambda x: 2 - x, lambda x: x - 2, lambda x: 3 * x,
              lambda x: x * 0.5, lambda x: x / 2, lambda x: 1 / x, lambda x: x ** 2, lambda x: 2 ** x,
              lambda x: -x, lambda x: abs(-x), lambda x: x == 2, lambda x: x != 2, lambda x: x < 2,
              lambda x: x <= 2, lambda x: 2 > x, lambda x: x >= 2, lambda x: x @ x, lambda x: x + x]:
        compare(f(c), f(t))


def test_inplace_operators_keep_identity():
    c = ctorch.ones(3)
    before = c
    c += 2
    c *= ctorch.tensor([1.0, 2.0, 3.0])
    c -= 1
    c /= 2
    assert c is before
    assert c.tolist() == [1.0, 2.5, 4.0]
    i = ctorch.tensor([1, 2])
    with pytest.raises(ctorch.DTypeError):
        i /= 2  # a float result cannot go into an int64 tensor
    assert i.tolist() == [1, 2]


def test_function_and_method_forms_agree():
    a, b = ctorch.tensor([[1.0, 2.0]]), ctorch.tensor([[3.0], [4.0]])
    assert ctorch.add(a, b, alpha=2).tolist() == a.add(b, alpha=2).tolist() == (a + 2 * b).tolist()
    assert ctorch.where(a > 1, a, b).tolist() == torch.where(torch.tensor([[1.0, 2.0]]) > 1,
                                                             torch.tensor([[1.0, 2.0]]),
                                                             torch.tensor([[3.0], [4.0]])).tolist()


def test_to_same_dtype_and_contiguous_return_self_values():
    a = ctorch.tensor([1.0, 2.0])
    b = a.to(ctorch.float32)
    b[0] = 9.0  # same storage, as torch's Tensor.to
    assert a[0].item() == 9.0
    c = a.contiguous()
    c[1] = 8.0
    assert a[1].item() == 8.0
    d = a.clone()
    d[1] = 0.0
    assert a[1].item() == 8.0


@pytest.mark.parametrize("value, dtype", [(-0.0, "float32"), (float("nan"), "float64"), (-(2**62) - 3, "int64"),
                                          (True, "bool"), (1.5, "float16")])
def test_copying_an_expanded_scalar_fills_its_bits(value, dtype):
    # One value broadcast to every element (as autograd hands a sum's gradient on) is filled, bits
    # and all, into a fresh layout, into a strided destination and across dtypes.
    src = ctorch.tensor(value, dtype=ct_dtype(dtype)).expand(3, 5, 7)
    want = np.full((3, 5, 7), np.array(value, dtype=dtype))
    assert src.contiguous().numpy().tobytes() == want.tobytes()
    dst = ctorch.zeros(7, 5, 3, dtype=ct_dtype(dtype)).permute(2, 1, 0)
    dst.copy_(src)
    assert dst.contiguous().numpy().tobytes() == want.tobytes()
    into_double = ctorch.zeros(3, 5, 7, dtype=ctorch.float64).copy_(src)
    np.testing.assert_array_equal(into_double.numpy(), want.astype("float64"))


def test_views_share_memory():
    a = ctorch.zeros(3, 4)
    a.view(12)[5] = 1.0
    a.t()[0, 2] = 2.0
    a.narrow(1, 3, 1).select(0, 2).add_(3.0)
    a.unsqueeze(0).expand(2, 3, 4)[1, 0, 0] = 4.0
    t = torch.zeros(3, 4)
    t.view(12)[5] = 1.0
    t.t()[0, 2] = 2.0
    t.narrow(1, 3, 1).select(0, 2).add_(3.0)
    t.unsqueeze(0).expand(2, 3, 4)[1, 0, 0] = 4.0
    compare(a, t)


def test_view_keeps_base_alive():
    v = ctorch.arange(10.0)[2:5]
    gc.collect()
    assert v.tolist() == [2.0, 3.0, 4.0]


# ---------------------------------------------------------------------------------------------------
# indexing

INDEXES = [
    0, -1, 2, (1, 2), (-1, -4), slice(None), slice(1, None), slice(None, 2), slice(1, 3), slice(None, None, 2),
    slice(-2, None), slice(5, 10), slice(2, 1), (slice(None), 1), (1, slice(None, None, 3)), None, (None, 1),
    (Ellipsis, 1), (1, Ellipsis), (Ellipsis, None), (slice(None), None, slice(1, 3)), Ellipsis, (),
    (0, 0, 0), (slice(None, None, 2), slice(None, None, 3), 1), (None, Ellipsis, None), (-3,),
]


@pytest.mark.parametrize("idx", INDEXES + [(Ellipsis, Ellipsis)], ids=repr)  # torch 1.13 accepts two
def test_getitem_matches_torch(idx):
    data = np.arange(60).reshape(3, 4, 5)
    c, t = ctorch.tensor(data.tolist()), torch.tensor(data.tolist())
    rc, rt = c[idx], t[idx]
    compare(rc, rt)
    assert tuple(rc.stride()) == tuple(rt.stride()), "basic indexing gives a view with torch's strides"


@pytest.mark.parametrize("idx", [3, -4, (0, 0, 5), (0, 0, 0, 0)], ids=repr)
def test_getitem_errors_match_torch(idx):
    data = np.arange(60).reshape(3, 4, 5).tolist()
    c, t = ctorch.tensor(data), torch.tensor(data)
    # indexing mistakes are IndexError in both (ctorch.IndexError or the builtin, raised by the binding)
    with pytest.raises(IndexError):
        t[idx]
    with pytest.raises(IndexError):
        c[idx]


def test_getitem_negative_step_raises():
    c = ctorch.arange(5)
    with pytest.raises((ValueError, ctorch.Error)):
        c[::-1]
    with pytest.raises(ValueError):
        torch.arange(5)[::-1]


def test_getitem_0dim():
    c, t = ctorch.tensor(5), torch.tensor(5)
    compare(c[()], t[()])
    compare(c[None], t[None])
    compare(c[...], t[...])
    with pytest.raises(IndexError):
        t[0]
    with pytest.raises(IndexError):
        c[0]


def test_iteration_and_len():
    c = ctorch.arange(6).reshape(3, 2)
    assert len(c) == 3
    assert [r.tolist() for r in c] == [[0, 1], [2, 3], [4, 5]]
    with pytest.raises(TypeError):
        len(ctorch.tensor(1))


@pytest.mark.parametrize("idx,value", [
    (0, 1.5), ((1, 2), -2), (slice(None), 3), ((slice(None), 1), 7.0), (Ellipsis, 0),
    ((None, 2), 4), ((slice(1, None), slice(None, None, 2)), 9),
    (1, "tensor_row"), ((slice(None), 0), "tensor_col"), (Ellipsis, "tensor_bcast"), (0, "tensor_int"),
], ids=repr)
def test_setitem_matches_torch(idx, value):
    tensors = {"tensor_row": [10.0, 20.0, 30.0, 40.0], "tensor_col": [1.0, 2.0, 3.0],
               "tensor_bcast": [[5.0], [6.0], [7.0]], "tensor_int": [1, 2, 3, 4]}
    c, t = ctorch.zeros(3, 4), torch.zeros(3, 4)
    if isinstance(value, str):
        vc, vt = ctorch.tensor(tensors[value]), torch.tensor(tensors[value])
    else:
        vc = vt = value
    c[idx] = vc
    t[idx] = vt
    compare(c, t)


def test_setitem_errors():
    c, t = ctorch.zeros(3, 4), torch.zeros(3, 4)

    def setter(x, idx, v):
        def f():
            x[idx] = v
        return f

    assert_same_error(setter(c, 3, 1.0), setter(t, 3, 1.0))
    assert_same_error(setter(c, 0, ctorch.ones(5)), setter(t, 0, torch.ones(5)))
    assert_same_error(setter(c, 0, ctorch.ones(2, 4)), setter(t, 0, torch.ones(2, 4)))
    compare(c, t)


def test_setitem_int_tensor_float_value_truncates_like_torch():
    c, t = ctorch.zeros(3, dtype=ctorch.int32), torch.zeros(3, dtype=torch.int32)
    c[1] = 2.7
    t[1] = 2.7
    compare(c, t)


# ---------------------------------------------------------------------------------------------------
# errors


def test_error_classes():
    assert issubclass(ctorch.ShapeError, ctorch.Error) and issubclass(ctorch.ShapeError, RuntimeError)
    assert issubclass(ctorch.DTypeError, ctorch.Error) and issubclass(ctorch.DTypeError, TypeError)
    assert issubclass(ctorch.IndexError, ctorch.Error) and issubclass(ctorch.IndexError, IndexError)
    assert issubclass(ctorch.InvalidArgumentError, ctorch.Error)
    assert issubclass(ctorch.InvalidArgumentError, ValueError)


def test_shape_error():
    with pytest.raises(ctorch.ShapeError) as e:
        ctorch.ones(2, 3) + ctorch.ones(4)
    assert "add" in str(e.value)
    assert e.value.status == 2  # CT_ERROR_SHAPE
    with pytest.raises(RuntimeError):
        ctorch.ones(2, 3).view(4)
    with pytest.raises(ctorch.ShapeError) as e:
        ctorch.mm(ctorch.ones(2, 3), ctorch.ones(2, 3))
    assert "mm" in str(e.value)


def test_dtype_error():
    with pytest.raises(ctorch.DTypeError) as e:
        ctorch.tensor([True]) - ctorch.tensor([False])
    assert "sub" in str(e.value)
    assert e.value.status == 3
    with pytest.raises(TypeError):
        ctorch.tensor([1, 2]).mean()
    with pytest.raises(ctorch.DTypeError):
        ctorch.where(ctorch.ones(2), ctorch.ones(2), ctorch.ones(2))


def test_index_error():
    with pytest.raises(ctorch.IndexError) as e:
        ctorch.ones(2, 3).transpose(0, 2)
    assert e.value.status == 7
    assert "transpose" in str(e.value)
    with pytest.raises(IndexError):
        ctorch.ones(2, 3).select(1, 3)
    with pytest.raises(IndexError):
        ctorch.ones(2, 3).sum(dim=5)


def test_invalid_argument_error():
    with pytest.raises(ctorch.InvalidArgumentError) as e:
        ctorch.arange(0, 10, 0)
    assert e.value.status == 1
    assert "arange" in str(e.value)
    with pytest.raises(ValueError):
        ctorch.zeros(-1)
    with pytest.raises((ctorch.InvalidArgumentError, AttributeError)):
        ctorch.ops.no_such_operator_xyz(ctorch.ones(1))


def test_error_messages_are_per_call():
    try:
        ctorch.ones(2) + ctorch.ones(3)
    except ctorch.Error as e:
        first = str(e)
    try:
        ctorch.ones(2).transpose(0, 5)
    except ctorch.Error as e:
        second = str(e)
    assert first != second
    assert "transpose" in second


def test_non_tensor_arguments_raise_type_error():
    with pytest.raises(TypeError):
        ctorch.add(ctorch.ones(2), "x")
    with pytest.raises(TypeError):
        ctorch.ones(2) + "x"
    with pytest.raises(TypeError):
        ctorch.mm(ctorch.ones(2, 2), [[1.0, 0.0], [0.0, 1.0]])


# ---------------------------------------------------------------------------------------------------
# ctorch.ops


def test_ops_by_name():
    a, b = ctorch.tensor([1.0, 2.0]), ctorch.tensor([10.0, 20.0])
    ta, tb = torch.tensor([1.0, 2.0]), torch.tensor([10.0, 20.0])
    compare(ctorch.ops.add(a, b, alpha=2), torch.add(ta, tb, alpha=2))
    compare(ctorch.ops.add(a, 3), torch.add(ta, 3))
    compare(ctorch.ops.mul(a, b), torch.mul(ta, tb))
    compare(ctorch.ops.sum(ctorch.ones(2, 3), [1]), torch.sum(torch.ones(2, 3), [1]))
    compare(ctorch.ops.sum(ctorch.ones(2, 3), dim=[0], keepdim=True), torch.ones(2, 3).sum(dim=[0], keepdim=True))
    compare(ctorch.ops.cat([a, b], 0), torch.cat([ta, tb], 0))
    compare(ctorch.ops.zeros([2, 2], dtype=ctorch.int32), torch.zeros(2, 2, dtype=torch.int32))
    compare(ctorch.ops.clamp(a, None, 1.5), torch.clamp(ta, None, 1.5))
    compare(ctorch.ops.transpose(ctorch.ones(2, 3), 0, 1), torch.ones(2, 3).transpose(0, 1))


def test_ops_errors():
    with pytest.raises(ctorch.ShapeError):
        ctorch.ops.add(ctorch.ones(2), ctorch.ones(3))
    with pytest.raises((ctorch.InvalidArgumentError, TypeError)):
        ctorch.ops.add(ctorch.ones(2))  # missing argument
    with pytest.raises((ctorch.InvalidArgumentError, AttributeError)):
        ctorch.ops.definitely_not_registered


def test_ops_registry():
    reg = ctorch.ops.registry()
    assert isinstance(reg, list) and reg
    by_name = {(e["name"], e["overload"]): e for e in reg}
    add = by_name[("add", "Tensor")]
    assert add["schema"].startswith("add.Tensor(")
    assert [a["name"] for a in add["arguments"]] == ["self", "other", "alpha"]
    assert add["returns"] == [{"type": "Tensor"}] or add["returns"][0]["type"] == "Tensor"
    names = {e["name"] for e in reg}
    assert {"add", "mm", "sum", "view", "cat", "zeros"} <= names


def test_ops_inplace_by_name():
    a = ctorch.ones(3)
    ctorch.ops.add_(a, ctorch.ones(3), alpha=4)
    assert a.tolist() == [5.0, 5.0, 5.0]


# ---------------------------------------------------------------------------------------------------
# ownership and threads


def _rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_no_leak_creating_many_tensors():
    def churn(n):
        a = ctorch.ones(16)
        for i in range(n):
            t = ctorch.tensor([1.0, 2.0, 3.0])
            u = t + a[:3]
            del t, u
    churn(20_000)  # warm up the allocator cache and Python's free lists
    gc.collect()
    before = _rss_bytes()
    churn(200_000)
    gc.collect()
    grown = _rss_bytes() - before
    assert grown < 6 * 1024 * 1024, f"RSS grew by {grown / 1e6:.1f} MB over 200k iterations"


def test_no_leak_on_errors():
    a, b = ctorch.ones(2), ctorch.ones(3)
    for _ in range(5_000):
        try:
            a + b
        except ctorch.Error:
            pass
    gc.collect()
    before = _rss_bytes()
    for _ in range(100_000):
        try:
            a + b
        except ctorch.Error:
            pass
    gc.collect()
    assert _rss_bytes() - before < 6 * 1024 * 1024


def test_no_leak_numpy_sharing():
    for _ in range(2_000):
        ctorch.ones(256).numpy()
    gc.collect()
    before = _rss_bytes()
    for _ in range(50_000):
        a = ctorch.ones(256).numpy()
        ctorch.from_numpy(a).numpy()
    gc.collect()
    assert _rss_bytes() - before < 6 * 1024 * 1024


def test_threads_matmul_on_shared_tensors():
    rng = np.random.default_rng(5)
    an = rng.standard_normal((64, 96)).astype(np.float32)
    bn = rng.standard_normal((96, 48)).astype(np.float32)
    a, b = ctorch.tensor(an.tolist()), ctorch.tensor(bn.tolist())
    expected = (a @ b).tolist()
    errors = []
    results = []

    def worker(k):
        try:
            for i in range(30):
                r = ctorch.matmul(a, b) if i % 2 else a.t().t() @ b
                s = (r + a.sum()).sum(dim=1)
                results.append(r.tolist() == expected)
                del s
                try:  # each thread sees its own errors
                    ctorch.ones(k + 2) + ctorch.ones(k + 3)
                except ctorch.ShapeError as e:
                    if f"[{k + 2}]" not in str(e) and str(k + 2) not in str(e):
                        errors.append(f"thread {k} got another thread's message: {e}")
        except Exception as e:  # noqa: BLE001
            errors.append(repr(e))

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors
    assert len(results) == 180 and all(results), "matmul results differ between threads"


def test_threads_create_and_release():
    errors = []

    def worker():
        try:
            shared = ctorch.arange(100.0)
            for _ in range(2_000):
                v = shared[10:20]
                w = v * 2
                assert w.shape == (10,)
        except Exception as e:  # noqa: BLE001
            errors.append(repr(e))

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors


# ---------------------------------------------------------------------------------------------------
# DLPack both ways: memory is shared, verified by writing through one side and reading the other


def test_torch_reads_and_writes_a_ctorch_tensor_through_dlpack():
    a = ctorch.arange(6.0).reshape(2, 3)
    t = torch.from_dlpack(a)
    t[0, 0] = 42.0
    assert a.tolist()[0][0] == 42.0
    a[1, 2] = -1.0
    assert t[1, 2].item() == -1.0


def test_ctorch_reads_and_writes_torch_and_numpy_memory_through_dlpack():
    t = torch.arange(4, dtype=torch.int32)
    c = ctorch.from_dlpack(t)
    c += 10
    assert t.tolist() == [10, 11, 12, 13]
    n = np.arange(6.0).reshape(2, 3)[:, ::2]  # a strided view
    c = ctorch.from_dlpack(n)
    assert c.shape == (2, 2) and c.tolist() == n.tolist()
    c[0, 1] = 99.0
    assert n[0, 1] == 99.0


def test_numpy_reads_a_transposed_ctorch_view_through_dlpack():
    a = ctorch.arange(6.0).reshape(2, 3)
    n = np.from_dlpack(a.t())
    assert n.tolist() == a.t().tolist() and n.strides == (4, 12)


def test_dlpack_device_and_single_use_capsules():
    a = ctorch.ones(2)
    assert a.__dlpack_device__() == (1, 0)
    capsule = a.__dlpack__(max_version=(1, 0))
    ctorch.from_dlpack(capsule)
    with pytest.raises(TypeError):
        ctorch.from_dlpack(capsule)  # consumed: renamed "used_dltensor_versioned"
    del capsule
    a.__dlpack__()  # an unconsumed capsule is deleted with its Python object (ASan would see a leak)


def test_a_million_creations_leave_no_tensor_alive():
    # Counted by the library itself (ct_metric_get), not by RSS: every handle the binding created
    # was released exactly once.
    metric = ctorch._C.ct_metric_get
    x = ctorch.ones(3)
    gc.collect()
    tensors, storages = metric("tensors.live"), metric("storages.live")
    for _ in range(1_000_000):
        y = x + 1.0
        del y
    gc.collect()
    assert metric("tensors.live") == tensors
    assert metric("storages.live") == storages


def test_failed_allocation_collects_tensors_held_by_reference_cycles():
    metric = ctorch._C.ct_metric_get

    class Node:
        pass

    gc.collect()
    gc.disable()  # only the memory pressure handler may collect now
    try:
        before = metric("tensors.live")
        a, b = Node(), Node()
        a.other, b.other = b, a  # a cycle that holds a tensor
        a.payload = ctorch.zeros(1024)
        del a, b
        assert metric("tensors.live") == before + 1  # unreachable, but not yet collected
        with pytest.raises(ctorch.OutOfMemoryError):
            ctorch.empty(1 << 40)  # no machine has 4 TiB: the handler runs gc.collect first
        assert metric("tensors.live") == before
    finally:
        gc.enable()


def test_rsub_and_addmm_method_match_torch():
    c, t = ctorch.tensor([1.0, 2.0, 4.0]), torch.tensor([1.0, 2.0, 4.0])
    compare(ctorch.rsub(c, 5, alpha=2), torch.rsub(t, 5, alpha=2))
    compare(ctorch.rsub(c, c * 3), torch.rsub(t, t * 3))
    ci, ti = ctorch.tensor([2, 3]), torch.tensor([2, 3])
    compare(ctorch.rsub(ci, 10), torch.rsub(ti, 10))  # stays int64: the number promotes weakly
    m, tm = ctorch.ones(2, 3), torch.ones(2, 3)
    n, tn = ctorch.ones(3, 2), torch.ones(3, 2)
    compare(ctorch.zeros(2, 2).addmm(m, n, beta=0.5, alpha=2), torch.zeros(2, 2).addmm(tm, tn, beta=0.5, alpha=2))


# ---------------------------------------------------------------------------------------------------
# memory formats (Note [Memory formats]): clone, contiguous and is_contiguous as torch lays them out

LAYOUTS = {
    "row-major": lambda lib: lib.arange(120.0).reshape(2, 3, 4, 5),
    "permuted": lambda lib: lib.arange(120.0).reshape(2, 3, 4, 5).permute(3, 1, 0, 2),
    "transposed 2-D": lambda lib: lib.arange(12.0).reshape(3, 4).t(),
    "sliced": lambda lib: lib.arange(120.0).reshape(2, 3, 4, 5)[:, :, ::2],
    "channels_last": lambda lib: lib.arange(120.0).reshape(2, 3, 4, 5).contiguous(memory_format=lib.channels_last),
    "unit dims": lambda lib: lib.arange(6.0).reshape(1, 6, 1, 1).permute(0, 2, 3, 1),
}
FORMATS = ["contiguous_format", "preserve_format", "channels_last"]


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("fmt", FORMATS)
def test_clone_lays_out_as_torch(layout, fmt):
    want, got = LAYOUTS[layout](torch), LAYOUTS[layout](ctorch)
    if fmt == "channels_last" and want.dim() != 4:
        with pytest.raises(Exception):
            want.clone(memory_format=torch.channels_last)
        with pytest.raises(ctorch.ShapeError, match="channels_last needs a 4-D tensor"):
            got.clone(memory_format=ctorch.channels_last)
        return
    w, g = want.clone(memory_format=getattr(torch, fmt)), got.clone(memory_format=getattr(ctorch, fmt))
    assert g.stride() == w.stride() and g.shape == w.shape
    np.testing.assert_array_equal(g.numpy(), w.numpy())
    g.add_(1)  # shares nothing
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_contiguous_and_is_contiguous_by_memory_format_as_torch(layout):
    want, got = LAYOUTS[layout](torch), LAYOUTS[layout](ctorch)
    for fmt in ("contiguous_format", "channels_last", "channels_last_3d"):
        assert got.is_contiguous(memory_format=getattr(ctorch, fmt)) == want.is_contiguous(memory_format=getattr(torch, fmt))
    if want.dim() == 4:
        w, g = want.contiguous(memory_format=torch.channels_last), got.contiguous(memory_format=ctorch.channels_last)
        assert g.stride() == w.stride()
        assert (g is got) == want.is_contiguous(memory_format=torch.channels_last)
    with pytest.raises(RuntimeError, match="preserve_format"):
        got.contiguous(memory_format=ctorch.preserve_format)


def test_memory_formats_are_torch_names_and_pickle():
    import pickle

    assert repr(ctorch.channels_last) == "ctorch.channels_last"
    assert isinstance(ctorch.preserve_format, ctorch.memory_format)
    for fmt in (ctorch.contiguous_format, ctorch.preserve_format, ctorch.channels_last, ctorch.channels_last_3d):
        assert pickle.loads(pickle.dumps(fmt)) is fmt
    x = ctorch.randn(3, 4).t()
    assert ctorch.clone(x).stride() == x.stride()  # torch.clone's default is preserve_format too


def test_a_preserved_clone_carries_gradients():
    x = ctorch.randn(4, 5, requires_grad=True)
    y = x.t().clone()
    assert y.stride() == (1, 5) and y.grad_fn.name() == "CloneBackward"
    (y * ctorch.arange(20.0).view(5, 4)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.arange(20.0, dtype=np.float32).reshape(5, 4).T)
