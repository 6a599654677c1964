"""Shared helpers for the ctorch Python tests.

`compare(ct_result, torch_result)` checks shape, dtype (by name) and values; `assert_same_error(fn_ct,
fn_torch)` checks that ctorch fails exactly when PyTorch does. Values are read back through
`Tensor.tolist()` (the one path that works for every dtype, bfloat16 included, which numpy cannot
hold); test_tensor.py checks `.numpy()` separately.
"""

import numpy as np
import pytest

ctorch = pytest.importorskip("ctorch")
torch = pytest.importorskip("torch")

DTYPE_NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
FLOAT_NAMES = ["float16", "bfloat16", "float32", "float64"]
INT_NAMES = ["uint8", "int8", "int16", "int32", "int64"]
COMPLEX_NAMES = ["complex64", "complex128"]

# (rtol, atol) per result dtype
TOLERANCES = {
    "float16": (1e-3, 1e-3),
    "bfloat16": (1e-2, 1e-2),
    "float32": (1e-5, 1e-6),
    "float64": (1e-12, 1e-12),
    "complex64": (1e-5, 1e-6),
    "complex128": (1e-12, 1e-12),
}

# torch's CPU errors for the same mistake come in these classes
TORCH_ERRORS = (RuntimeError, TypeError, IndexError, ValueError)


def dtype_name(dt):
    """'float32' for ctorch.float32 and torch.float32 alike."""
    return str(dt).split(".")[-1]


def ct_dtype(name):
    return getattr(ctorch, name)


def th_dtype(name):
    return getattr(torch, name)


def to_torch(ct):
    """A ctorch tensor's values as a torch tensor of the same shape, read through tolist().

    Floating results come back as float64 (every float16/bfloat16/float32 value is exact in it),
    integers as int64, bools as bool."""
    name = dtype_name(ct.dtype)
    shape = tuple(ct.shape)
    if name == "bool":
        wide = torch.bool
    elif name in FLOAT_NAMES:
        wide = torch.float64
    elif name in COMPLEX_NAMES:
        wide = torch.complex128
    else:
        wide = torch.int64
    values = ct.tolist()
    return torch.tensor(values, dtype=wide).reshape(shape)


def compare(ct_result, torch_result, rtol=None, atol=None):
    """Assert that a ctorch result matches a torch result: shape, dtype name and values.

    Integers and bools must match exactly; floats within the per-dtype tolerance (NaN equals NaN,
    infinities must match in sign)."""
    if isinstance(torch_result, (tuple, list)):
        assert isinstance(ct_result, (tuple, list)), f"expected a sequence, got {type(ct_result)}"
        assert len(ct_result) == len(torch_result)
        for c, t in zip(ct_result, torch_result):
            compare(c, t, rtol, atol)
        return
    assert isinstance(ct_result, ctorch.Tensor), f"expected a ctorch.Tensor, got {type(ct_result)!r}"
    assert tuple(ct_result.shape) == tuple(torch_result.shape), \
        f"shape: ctorch {tuple(ct_result.shape)} vs torch {tuple(torch_result.shape)}"
    ct_name, th_name = dtype_name(ct_result.dtype), dtype_name(torch_result.dtype)
    assert ct_name == th_name, f"dtype: ctorch {ct_name} vs torch {th_name}"
    actual = to_torch(ct_result)
    if th_name in FLOAT_NAMES or th_name in COMPLEX_NAMES:
        r, a = TOLERANCES[th_name]
        r = r if rtol is None else rtol
        a = a if atol is None else atol
        wide = torch.complex128 if th_name in COMPLEX_NAMES else torch.float64
        torch.testing.assert_close(actual, torch_result.resolve_conj().to(wide), rtol=r, atol=a, equal_nan=True)
    elif th_name == "bool":
        assert torch.equal(actual, torch_result), f"values differ:\nctorch {actual}\ntorch  {torch_result}"
    else:
        expected = torch_result.to(torch.int64)
        assert torch.equal(actual, expected), f"values differ:\nctorch {actual}\ntorch  {expected}"


class BothRaised:
    """Returned by assert_same_error when both libraries raised."""

    def __init__(self, ct_error, torch_error):
        self.ct_error = ct_error
        self.torch_error = torch_error


def assert_same_error(fn_ct, fn_torch):
    """Run both; both must raise or both must succeed.

    Returns (ct_result, torch_result) when both succeed, else a BothRaised. A ctorch failure must be
    a ctorch.Error; anything else (a SWIG TypeError, an AttributeError) propagates and fails the test.
    """
    torch_error = None
    try:
        torch_result = fn_torch()
    except TORCH_ERRORS as e:
        torch_error = e
    ct_error = None
    try:
        ct_result = fn_ct()
    except ctorch.Error as e:
        ct_error = e
    except (TypeError, ValueError, IndexError) as e:
        # argument checks of the Python layer (a number where only a tensor is accepted) raise the
        # builtin classes, as torch's argument parser does
        ct_error = e
    if torch_error is not None and ct_error is None:
        pytest.fail(f"torch raised {type(torch_error).__name__}: {torch_error}\n"
                    f"but ctorch returned {ct_result!r}")
    if ct_error is not None and torch_error is None:
        pytest.fail(f"ctorch raised {type(ct_error).__name__}: {ct_error}\nbut torch returned {torch_result!r}")
    if ct_error is not None:
        assert str(ct_error), "ctorch error without a message"
        return BothRaised(ct_error, torch_error)
    return ct_result, torch_result


def check_same(fn_ct, fn_torch, rtol=None, atol=None):
    """assert_same_error, then compare when both succeeded. Returns the pair or BothRaised."""
    got = assert_same_error(fn_ct, fn_torch)
    if not isinstance(got, BothRaised):
        compare(got[0], got[1], rtol, atol)
    return got


def make_values(rng, shape, name):
    """Random values for a dtype as a numpy float64/int64/bool array, chosen to be exactly
    representable in every dtype of the same kind (floats are multiples of 1/8 below 8 in magnitude:
    exact in bfloat16 and float16), so that both libraries start from identical inputs."""
    if name == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if name == "uint8":
        return rng.integers(0, 16, size=shape).astype(np.int64)
    if name in INT_NAMES:
        return rng.integers(-10, 11, size=shape).astype(np.int64)
    return rng.integers(-64, 65, size=shape).astype(np.float64) / 8.0


def pair_from_numpy(values, name):
    """(ctorch tensor, torch tensor) of dtype name holding values (any shape, 0-dim and empty too)."""
    values = np.asarray(values)
    shape = values.shape
    flat = values.ravel().tolist()
    if len(shape) == 0:
        c = ctorch.tensor(flat[0], dtype=ct_dtype(name))
        t = torch.tensor(flat[0], dtype=th_dtype(name))
    else:
        c = ctorch.tensor(flat, dtype=ct_dtype(name)).reshape(*shape)
        t = torch.tensor(flat, dtype=th_dtype(name)).reshape(*shape)
    return c, t


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
