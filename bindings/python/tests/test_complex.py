"""Complex tensors as a torch user meets them: creation from Python and numpy, printing, item and
tolist, promotion with Python numbers, gradients against torch's, DLPack and the file formats, and
the refusals (the operators' values are test_vs_torch.py's, cases/complex.py)."""
import numpy as np
import pytest
import torch

import ctorch


def test_dtypes_and_their_attributes():
    assert ctorch.cfloat is ctorch.complex64 and ctorch.cdouble is ctorch.complex128
    assert ctorch.complex64.is_complex and not ctorch.complex64.is_floating_point
    assert ctorch.complex64.itemsize == 8 and ctorch.complex128.itemsize == 16
    assert ctorch.complex64.to_real() is ctorch.float32
    assert ctorch.float64.to_complex() is ctorch.complex128
    assert ctorch.finfo(ctorch.complex128).eps == torch.finfo(torch.complex128).eps
    assert ctorch.promote_types(ctorch.complex64, ctorch.float64) is ctorch.complex128


def test_creation_printing_and_values_match_torch():
    data = [[1.5 - 2j, 3 + 0.25j], [0j, -1 + 1j]]
    z, t = ctorch.tensor(data), torch.tensor(data)
    assert z.dtype is ctorch.complex64 and z.is_complex() and ctorch.is_complex(z)
    assert repr(z) == repr(t)
    assert repr(z.to(ctorch.complex128)) == repr(t.to(torch.complex128)).replace("torch.", "")
    assert z.tolist() == t.tolist()
    assert z[0, 0].item() == 1.5 - 2j and complex(z[1, 1]) == -1 + 1j
    assert repr(ctorch.tensor(1 + 2j)) == repr(torch.tensor(1 + 2j))
    big = [[1.25 + 0.5j, -3 - 1j], [0.001 + 1000j, 2j]]
    assert repr(ctorch.tensor(big)) == repr(torch.tensor(big))


def test_python_complex_numbers_promote_as_torch():
    for dt in ("int64", "float32", "float64", "complex64"):
        a = ctorch.arange(3).to(getattr(ctorch, dt))
        b = torch.arange(3).to(getattr(torch, dt))
        for f in (lambda x: x * 1j, lambda x: 2j * x, lambda x: x + (1 - 1j), lambda x: (1 + 1j) - x,
                  lambda x: (2 + 0j) / (x + 1), lambda x: x / 1j):
            got, want = f(a), f(b)
            assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1], dt
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    z = ctorch.ones(2, dtype=ctorch.complex64)
    z *= 1j
    assert z.tolist() == [1j, 1j]


def test_numpy_and_dlpack_both_ways():
    a = np.array([1 + 2j, -3.5j], dtype=np.complex128)
    z = ctorch.from_numpy(a)
    assert z.dtype is ctorch.complex128
    a[0] = 5  # shared memory
    assert z[0].item() == 5
    assert np.array_equal(z.numpy(), a)
    t = torch.from_dlpack(ctorch.tensor([1 + 1j, 2 - 2j]))
    assert t.dtype == torch.complex64 and t.tolist() == [1 + 1j, 2 - 2j]
    back = ctorch.from_dlpack(torch.tensor([3j], dtype=torch.complex128))
    assert back.dtype is ctorch.complex128 and back.item() == 3j


def test_views_share_memory_with_the_complex_tensor():
    z = ctorch.tensor([1 + 2j, 3 - 4j], dtype=ctorch.complex128)
    z.real.mul_(10)
    z.imag[1] = 0.5
    assert z.tolist() == [10 + 2j, 30 + 0.5j]
    r = ctorch.view_as_real(z)
    assert r.shape == (2, 2) and r.stride() == (2, 1)
    assert ctorch.view_as_complex(r).tolist() == z.tolist()
    assert z.conj().tolist() == [10 - 2j, 30 - 0.5j] and not z.conj().is_conj()
    m = ctorch.tensor([[1 + 1j, 2], [3j, 4]])
    assert m.mH.tolist() == torch.tensor([[1 + 1j, 2], [3j, 4]]).mH.tolist()


def test_gradients_match_torch():
    def f(m, x, y):
        z = m.complex(x, y)
        w = (z * z.conj() + m.exp(z) / (z + 2)).sum() + (z.reshape(1, 4) @ z.reshape(4, 1)).sum()
        return (w.abs() + m.angle(z).sum() + m.view_as_real(m.sgn(z)).sum())

    xs = [torch.randn(4, dtype=torch.float64) for _ in range(2)]
    tx = [x.clone().requires_grad_() for x in xs]
    cx = [ctorch.tensor(x.tolist(), dtype=ctorch.float64).requires_grad_() for x in xs]
    f(torch, *tx).backward()
    f(ctorch, *cx).backward()
    for c, t in zip(cx, tx):
        np.testing.assert_allclose(c.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)
    # A complex leaf gets a complex gradient, torch's convention (dL/dx + i dL/dy).
    zc = ctorch.tensor([1 + 2j, -0.5j], dtype=ctorch.complex128, requires_grad=True)
    zt = torch.tensor([1 + 2j, -0.5j], dtype=torch.complex128, requires_grad=True)
    (zc * zc).abs().sum().backward()
    (zt * zt).abs().sum().backward()
    np.testing.assert_allclose(zc.grad.numpy(), zt.grad.numpy(), rtol=1e-12)
    # At 0, where z / |z| divides 0 by 0, sgn's and abs's gradients are 0, as torch's (not NaN).
    w = [0j, 1 + 1j, -2j]
    zc = ctorch.tensor(w, dtype=ctorch.complex128, requires_grad=True)
    zt = torch.tensor(w, dtype=torch.complex128, requires_grad=True)
    (ctorch.view_as_real(ctorch.sgn(zc)).sum() + zc.abs().sum()).backward()
    (torch.view_as_real(torch.sgn(zt)).sum() + zt.abs().sum()).backward()
    np.testing.assert_allclose(zc.grad.numpy(), zt.grad.numpy(), rtol=1e-12, atol=1e-15)


def test_files_hold_complex_tensors(tmp_path):
    z = ctorch.tensor([1 + 2j, 3 - 4j])
    ctorch.save({"z": z}, tmp_path / "z.pt")
    assert torch.load(tmp_path / "z.pt")["z"].tolist() == z.tolist()
    torch.save({"w": torch.tensor([5j], dtype=torch.complex128)}, tmp_path / "w.pt")
    w = ctorch.load(tmp_path / "w.pt")["w"]
    assert w.dtype is ctorch.complex128 and w.tolist() == [5j]
    ctorch.safetensors.save_file({"z": z}, str(tmp_path / "z.safetensors"))
    assert ctorch.safetensors.load_file(str(tmp_path / "z.safetensors"))["z"].tolist() == z.tolist()
    with pytest.raises(ctorch.DTypeError, match="complex128"):
        ctorch.safetensors.save_file({"w": w}, str(tmp_path / "w.safetensors"))


def test_refusals_name_the_operator_and_the_dtype():
    z = ctorch.tensor([1 + 2j, 3j])
    with pytest.raises(ctorch.DTypeError, match="lt: not supported for complex64"):
        z < z
    with pytest.raises(ctorch.DTypeError, match="floor: not supported for complex64"):
        z.floor()
    with pytest.raises(ctorch.DTypeError, match="imag"):
        ctorch.ones(2).imag
    with pytest.raises(ctorch.ShapeError, match="last dimension of size 2"):
        ctorch.view_as_complex(ctorch.ones(3))
    with pytest.raises(ctorch.DTypeError):
        ctorch.full((2,), 1.0).to(ctorch.complex64).softmax(0)
