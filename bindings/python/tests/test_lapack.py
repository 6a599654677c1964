"""ctorch.linalg beyond the differential cases: results bitwise independent of the thread count,
LinAlgError as torch raises it, the named results, and what the namespace says it cannot do."""

import numpy as np
import pytest

import ctorch


@pytest.mark.parametrize("size", [8, 96], ids=["small_batched", "large"])
def test_results_do_not_depend_on_the_thread_count(size):
    """Small matrices run one per thread with single-threaded BLAS, large ones on BLAS's threads
    (which split a product's rows and columns, never a sum): the bits are the same either way."""
    rng = np.random.default_rng(0)
    a = ctorch.tensor(rng.standard_normal((16, size, size)))
    sym = a + a.mT
    fns = {
        "inv": lambda: ctorch.linalg.inv(a),
        "solve": lambda: ctorch.linalg.solve(a, a[..., :3]),
        "det": lambda: ctorch.linalg.det(a),
        "qr": lambda: ctorch.linalg.qr(a)[1],
        "eigh": lambda: ctorch.linalg.eigh(sym)[1],
        "svd": lambda: ctorch.linalg.svd(a)[0],
        "eig": lambda: ctorch.linalg.eig(a)[1],
        "complex_inv": lambda: ctorch.linalg.inv(ctorch.complex(a, sym)),
        "cholesky": lambda: ctorch.linalg.cholesky(a @ a.mT + size * ctorch.eye(size, dtype=ctorch.float64)),
    }
    before = ctorch.get_num_threads()
    try:
        ctorch.set_num_threads(1)
        one = {k: f().numpy().copy() for k, f in fns.items()}
        ctorch.set_num_threads(2)
        two = {k: f().numpy().copy() for k, f in fns.items()}
    finally:
        ctorch.set_num_threads(before)
    for k in fns:
        assert np.array_equal(one[k], two[k]), k


def test_linalg_error_names_the_batch_element_and_is_a_runtime_error():
    a = ctorch.tensor([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 2.0], [2.0, 4.0]]])
    with pytest.raises(ctorch.linalg.LinAlgError, match=r"linalg.inv: \(Batch element 1\)"):
        ctorch.linalg.inv(a)
    assert issubclass(ctorch.linalg.LinAlgError, RuntimeError)
    assert ctorch.linalg.LinAlgError is ctorch.LinAlgError
    inv, info = ctorch.linalg.inv_ex(a)
    assert info.tolist() == [0, 2]


@pytest.mark.parametrize("n", [2, 3, 8])
def test_svd_of_non_finite_input_answers_as_torch(n):
    """LAPACK's gesdd here hung on a 3x3 matrix with one inf and returned negative singular values
    for a NaN: a NaN is torch's error, an inf gives NaN singular values (and matrix_rank 0)."""
    x = ctorch.randn(2, n, n)
    x[1, 0, 0] = float("nan")
    with pytest.raises(ctorch.linalg.LinAlgError, match="input matrix contained non-finite values"):
        ctorch.linalg.svdvals(x)
    x[1, 0, 0] = float("inf")
    s = ctorch.linalg.svdvals(x)
    assert np.isnan(s[1].numpy()).all() and np.isfinite(s[0].numpy()).all()
    assert ctorch.linalg.matrix_rank(x[1]).item() == 0
    u, s, vh = ctorch.linalg.svd(x[1])
    assert np.isnan(u.numpy()).all() and np.isnan(vh.numpy()).all()


@pytest.mark.parametrize("where,upper,info", [((0, 0), False, 1), ((1, 1), False, 2), ((2, 0), False, 3),
                                               ((2, 0), True, 0), ((0, 2), True, 3), ((2, 2), False, 3)])
def test_cholesky_stops_at_a_nan_pivot_as_torch(where, upper, info):
    """OpenBLAS's potrf factored on through a NaN and reported success; torch 2.15 (whose LAPACK
    stops there, as reference LAPACK does) gives these infos, and cholesky raises. A NaN in the
    triangle not read (the lower one for upper=True) changes nothing."""
    a = np.array([[4.0, 1, 0.5], [1, 3, 0.25], [0.5, 0.25, 2]])
    b = a.copy()
    b[where] = np.nan
    x = ctorch.tensor(np.stack([a, b]))
    assert ctorch.linalg.cholesky_ex(x, upper=upper).info.tolist() == [0, info]
    if info:
        with pytest.raises(ctorch.linalg.LinAlgError, match=f"Batch element 1.*leading minor of order {info} "):
            ctorch.linalg.cholesky(x, upper=upper)


def test_matrix_exp_of_non_finite_matrices_is_nan_as_torch():
    """torch 2.15 gives NaN throughout a matrix holding NaN or inf, the others of the batch as
    alone, and exp of a 1 x 1 matrix's entry (inf for inf); ctorch raised for any of them."""
    a = ctorch.tensor([[[0.1, 0.2], [0.3, 0.4]], [[1.0, float("inf")], [0.0, 1.0]], [[float("nan"), 0.0], [0.0, 1.0]]],
                      dtype=ctorch.float64)
    e = ctorch.linalg.matrix_exp(a).numpy()
    assert np.isnan(e[1:]).all()
    assert e[0].tobytes() == ctorch.linalg.matrix_exp(a[0]).numpy().tobytes()
    one = ctorch.tensor([[[float("inf")]], [[-float("inf")]], [[0.5]]], dtype=ctorch.float64)
    assert ctorch.linalg.matrix_exp(one).flatten().tolist() == [float("inf"), 0.0, np.exp(0.5)]


def test_cholesky_inverse_of_a_singular_factor_raises_as_torch():
    """A zero on the factor's diagonal gave infinities; torch 2.15 raises, naming the element and the
    batch element (the messages here are its own)."""
    singular = ctorch.tensor([[1.0, 0.0], [1.0, 0.0]])
    with pytest.raises(ctorch.linalg.LinAlgError, match=r"^cholesky_inverse: The diagonal element 2 is zero, the "
                       r"inversion could not be completed because the input matrix is singular\.$"):
        ctorch.cholesky_inverse(singular)
    with pytest.raises(ctorch.linalg.LinAlgError, match=r"^cholesky_inverse: \(Batch element 1\): The diagonal element 2 "):
        ctorch.cholesky_inverse(ctorch.stack([ctorch.eye(2), singular]))
    factor = ctorch.tensor([[2.0, 0.0], [1.0, 3.0]])
    np.testing.assert_allclose(ctorch.cholesky_inverse(factor).numpy(),
                               np.linalg.inv((factor @ factor.mT).numpy()), rtol=1e-6)


def test_singular_matrices_answer_as_torch_in_cond_and_lu_factor():
    """cond by a norm other than 2 is inf for a singular matrix (it raised, from inv), and
    lu_factor names U's zero pivot 1-based, as torch 2.15's message does (it said U[1,1] for U[2,2])."""
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    a = ctorch.tensor(np.stack([singular, [[2.0, 1.0], [1.0, 3.0]]]))
    for p in ("fro", "nuc", 1, -1, float("inf"), -float("inf")):
        c = ctorch.linalg.cond(a, p).tolist()
        assert c[0] == float("inf") and np.isfinite(c[1]), p
    assert ctorch.linalg.cond(a, "fro").tolist()[1] == pytest.approx(3.0)
    with pytest.raises(ctorch.linalg.LinAlgError, match=r"\(Batch element 0\): U\[2,2\] is zero and using it on lu_solve"):
        ctorch.linalg.lu_factor(a)


def test_matrix_sqrth_and_polar_are_torchs():
    """torch 2.x's linalg.matrix_sqrth (torch's own example, and an indefinite input's negative
    eigenvalue taken as 0) and linalg.polar (A = U H, U's columns orthonormal, H symmetric
    positive-semidefinite; a wide matrix refused as torch refuses it)."""
    np.testing.assert_allclose(ctorch.linalg.matrix_sqrth(ctorch.tensor([[2.0, 0.0], [0.0, 9.0]])).numpy(),
                               [[np.sqrt(2.0), 0.0], [0.0, 3.0]], rtol=1e-6)
    np.testing.assert_allclose(ctorch.linalg.matrix_sqrth(ctorch.tensor([[2.0, 0.0], [0.0, -9.0]])).numpy(),
                               [[np.sqrt(2.0), 0.0], [0.0, 0.0]], rtol=1e-6, atol=1e-7)
    a = ctorch.randn(2, 5, 3, dtype=ctorch.float64)
    u, h = ctorch.linalg.polar(a)
    np.testing.assert_allclose((u @ h).numpy(), a.numpy(), atol=1e-12)
    np.testing.assert_allclose((u.mT @ u).numpy(), np.broadcast_to(np.eye(3), (2, 3, 3)), atol=1e-12)
    np.testing.assert_allclose(h.numpy(), h.mT.numpy(), atol=1e-12)
    assert (ctorch.linalg.eigvalsh(h).numpy() > -1e-12).all()
    assert ctorch.linalg.polar(a).H is not None
    with pytest.raises(ctorch.ShapeError, match="at least as many rows as columns, but got 2 by 3"):
        ctorch.linalg.polar(ctorch.ones(2, 3))


def test_results_are_named_as_torch_names_them():
    a = ctorch.tensor([[2.0, 1.0], [1.0, 2.0]])
    assert ctorch.linalg.eigh(a).eigenvalues.tolist() == pytest.approx([1.0, 3.0])
    assert ctorch.linalg.svd(a).S.tolist() == pytest.approx([3.0, 1.0])
    assert ctorch.linalg.slogdet(a).logabsdet.item() == pytest.approx(np.log(3.0))
    fit = ctorch.linalg.lstsq(ctorch.tensor([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]]), ctorch.tensor([[1.0], [3.0], [5.0]]))
    assert fit.solution.flatten().tolist() == pytest.approx([1.0, 2.0])
    assert ctorch.linalg.lu_factor(a).pivots.dtype == ctorch.int32


def test_eig_answers_complex_named_results_and_refuses_a_phase_dependent_loss():
    a = ctorch.tensor([[2.0, 1.0], [0.0, 3.0]])
    r = ctorch.linalg.eig(a)
    assert r.eigenvalues.dtype == ctorch.complex64 and r.eigenvectors.dtype == ctorch.complex64
    assert r.eigenvalues.tolist() == [2 + 0j, 3 + 0j]
    x = ctorch.tensor([[0.0, -1.0], [1.0, 0.5]], requires_grad=True)  # complex eigenvectors
    with pytest.raises(RuntimeError, match="e\\^\\{i phi\\}"):
        ctorch.linalg.eig(x)[1].real.sum().backward()
    with pytest.raises(AttributeError, match="no attribute"):
        ctorch.linalg.no_such_function  # noqa: B018


def test_matrix_power_of_the_most_negative_exponent():
    # -(-2^63) is no int64: the kernel once negated it and recursed until the stack ran out (fuzzer).
    eye = ctorch.eye(2, dtype=ctorch.float64)
    assert ctorch.linalg.matrix_power(eye, -2 ** 63).tolist() == eye.tolist()
    assert ctorch.linalg.matrix_power(-eye, -2 ** 63).tolist() == eye.tolist()
