"""Differential cases of the LAPACK-backed linear algebra: factorizations, solvers, determinants,
inverses and what is built on them, against torch's values, gradients and refusals.

Inputs are made well conditioned inside each case (A + n I, A A^T + n I for the positive-definite
ones) so that float32 results agree with torch's within the float32 tolerance whichever LAPACK each
library calls. Eigenvectors and singular vectors are compared through quantities their signs do not
change (squares, products), since LAPACK may return either sign."""

from difftest import Case, In

FLOATS = ["float32", "float64"]
COMPLEX = ["complex64", "complex128"]


def well(a):
    """a plus n times the identity: diagonally dominant, far from singular."""
    return a + a.shape[-1] * 8 * a.new_ones(a.shape[-1]).diag_embed()


def spd(a):
    """A symmetric (Hermitian, for complex a) positive-definite matrix from a."""
    return a @ a.mH + a.shape[-1] * a.new_ones(a.shape[-1]).diag_embed()


def grads_of(op):
    """The value of op and the gradients of (y * y).sum() for every input (float64 inputs), |y|^2 for a
    complex y."""
    def fn(m, *ts):
        ts = [t.detach().requires_grad_() for t in ts]
        y = op(m, *ts)
        ys = y if isinstance(y, tuple) else (y,)
        sum(((v * v.conj()).real.sum() if v.is_complex() else (v * v).sum()
             for v in ys if v.dtype.is_floating_point or v.is_complex()), ys[0].real.sum() * 0).backward()
        return tuple([v.detach() for v in ys] + [t.grad for t in ts])
    return fn


def complex_cases(f, inputs, grad=True):
    """A function's cases on complex matrices (the LU family and eig): both complex dtypes, and the
    gradient in complex128. inputs maps a complex dtype to the function's In specs."""
    cs = [Case(dt, f, inputs(dt)) for dt in COMPLEX]
    if grad:
        cs.append(Case("grad_complex", grads_of(f), inputs("complex128")))
    return cs


def square_cases(f, *, grad=True, method=None, extra=()):
    """The cases every function of square matrices gets: dtypes, a batch, layouts, empty and 1x1
    matrices, and the refusals (not square, a vector, an integer dtype). The 16-bit floats are refused
    too, as torch's CPU refuses them; the harness would compare them with torch in float32."""
    cs = [Case(dt, f, [In((3, 3), dt)]) for dt in FLOATS] + [
        Case("batched", f, [In((2, 3, 4, 4), "float64")]),
        Case("T", f, [In((3, 3), "float64", layout="T")]),
        Case("step", f, [In((3, 3), "float64", layout="step")]),
        Case("1x1", f, [In((1, 1), "float64")]),
        Case("empty", f, [In((0, 0), "float64")]),
        Case("empty_batch", f, [In((0, 2, 2), "float64")]),
        Case("not_square", f, [In((2, 3))]),
        Case("vector", f, [In((3,))]),
        Case("int", f, [In((2, 2), "int64")]),
    ]
    if grad:
        cs.append(Case("grad", grads_of(f), [In((2, 3, 3), "float64")]))
    if method:
        cs.append(Case("method", method, [In((3, 3))]))
    return cs + list(extra)


# ---- LU and what it answers

def lu_factor_ex_cases():
    f = lambda m, a: m.linalg.lu_factor_ex(a)  # noqa: E731
    return square_cases(lambda m, a: m.linalg.lu_factor_ex(well(a)), grad=False) + [
        Case("wide", f, [In((2, 4), "float64")]),
        Case("tall", f, [In((2, 5, 3), "float64")]),
        Case("singular_info", f, [In((3, 3), "float64", kind=[1, 2, 3, 2, 4, 6, 0, 1, 1])]),
        Case("singular_check", lambda m, a: m.linalg.lu_factor_ex(a, check_errors=True),
             [In((2, 2), "float64", kind=[1, 2, 2, 4])]),
        Case("grad", grads_of(lambda m, a: m.linalg.lu_factor_ex(well(a))[0]), [In((2, 3, 3), "float64")]),
        Case("complex_wide", f, [In((2, 4), "complex128")]),
    ] + complex_cases(lambda m, a: m.linalg.lu_factor_ex(well(a))[0], lambda dt: [In((2, 3, 3), dt)])


def lu_factor_cases():
    f = lambda m, a: m.linalg.lu_factor(a)  # noqa: E731
    return square_cases(lambda m, a: m.linalg.lu_factor(well(a)), grad=False) + [
        Case("singular", f, [In((2, 2), "float64", kind=[1, 2, 2, 4])]),
        Case("batched_singular", f, [In((2, 2, 2), "float64", kind=[1, 0, 0, 1, 1, 2, 2, 4])]),
        Case("legacy_lu", lambda m, a: m.lu(well(a)), [In((3, 3), "float64")]),
        Case("legacy_lu_infos", lambda m, a: m.lu(a, get_infos=True), [In((2, 2), "float64", kind=[1, 2, 2, 4])]),
        Case("method_lu", lambda m, a: well(a).lu(), [In((3, 3), "float64")]),
    ]


def lu_unpack_cases():
    f = lambda m, a: m.lu_unpack(*m.linalg.lu_factor(well(a)))  # noqa: E731
    return [
        Case("square", f, [In((3, 3), "float64")]),
        Case("batched", f, [In((2, 4, 4))]),
        Case("wide", lambda m, a: m.lu_unpack(*m.linalg.lu_factor(a)), [In((2, 4), "float64")]),
        Case("tall", lambda m, a: m.lu_unpack(*m.linalg.lu_factor(a)), [In((4, 2), "float64")]),
        Case("no_data", lambda m, a: m.lu_unpack(*m.linalg.lu_factor(well(a)), unpack_data=False)[0],
             [In((3, 3), "float64")]),
        Case("no_pivots", lambda m, a: m.lu_unpack(*m.linalg.lu_factor(well(a)), unpack_pivots=False)[1:],
             [In((3, 3), "float64")]),
        Case("long_pivots", lambda m, a: m.lu_unpack(a, m.linalg.lu_factor(a)[1].long()), [In((2, 2), "float64")]),
        Case("pivots_of_another_batch", lambda m, a, b: m.lu_unpack(a, m.linalg.lu_factor(well(b))[1]),
             [In((2, 3, 3), "float64"), In((1, 3, 3), "float64")]),
        Case("complex", f, [In((2, 3, 3), "complex128")]),
    ]


def lu_cases():
    f = lambda m, a: m.linalg.lu(well(a))  # noqa: E731
    return square_cases(f, grad=False) + [
        Case("grad", grads_of(lambda m, a: m.linalg.lu(well(a))[1:]), [In((2, 3, 3), "float64")]),
        Case("wide", lambda m, a: m.linalg.lu(a), [In((2, 4), "float64")]),
        Case("no_pivot", lambda m, a: m.linalg.lu(a, pivot=False), [In((2, 2), "float64")]),
    ] + complex_cases(lambda m, a: m.linalg.lu(well(a))[1:], lambda dt: [In((2, 3, 3), dt)])


def lu_solve_cases():
    f = lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(well(a)), b)  # noqa: E731
    return [Case(dt, f, [In((3, 3), dt), In((3, 2), dt)]) for dt in FLOATS] + [
        Case("batched", f, [In((2, 4, 4), "float64"), In((2, 4, 3), "float64")]),
        Case("broadcast", f, [In((2, 3, 3), "float64"), In((3, 1), "float64")]),
        Case("adjoint", lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(well(a)), b, adjoint=True),
             [In((3, 3), "float64"), In((3, 2), "float64")]),
        Case("right", lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(well(a)), b, left=False),
             [In((3, 3), "float64"), In((2, 3), "float64")]),
        Case("right_adjoint", lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(well(a)), b, left=False,
                                                                adjoint=True),
             [In((3, 3), "float64"), In((2, 3), "float64")]),
        Case("grad", grads_of(f), [In((3, 3), "float64"), In((3, 2), "float64")]),
        Case("shape_mismatch", f, [In((3, 3), "float64"), In((4, 2), "float64")]),
        Case("dtype_mismatch", f, [In((3, 3), "float64"), In((3, 2), "float32")]),
        Case("vector_b", f, [In((3, 3), "float64"), In((3,), "float64")]),
        Case("grad_complex_right_adjoint", grads_of(lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(well(a)), b,
                                                                                    left=False, adjoint=True)),
             [In((3, 3), "complex128"), In((2, 3), "complex128")]),
        Case("complex_adjoint", lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(well(a)), b, adjoint=True),
             [In((3, 3), "complex128"), In((3, 2), "complex128")]),
    ] + complex_cases(f, lambda dt: [In((2, 3, 3), dt), In((3, 2), dt)])


def legacy_lu_solve_cases():
    f = lambda m, a, b: m.lu_solve(b, *m.linalg.lu_factor(well(a)))  # noqa: E731
    return [Case("f64", f, [In((3, 3), "float64"), In((3, 2), "float64")]),
            Case("float32", f, [In((3, 3), "float32"), In((3, 2), "float32")]),
            Case("grad", grads_of(f), [In((2, 3, 3), "float64"), In((2, 3, 1), "float64")]),
            Case("method", lambda m, a, b: b.lu_solve(*m.linalg.lu_factor(well(a))),
                 [In((3, 3), "float64"), In((3, 2), "float64")])]


def solve_cases(name):
    f = (lambda m, a, b: getattr(m.linalg, name)(well(a), b))  # noqa: E731
    first = (lambda r: r[0]) if name == "solve_ex" else (lambda r: r)  # noqa: E731
    return [Case(dt, f, [In((3, 3), dt), In((3, 2), dt)]) for dt in FLOATS] + [
        Case("vector", f, [In((3, 3), "float64"), In((3,), "float64")]),
        Case("batched_vector", f, [In((2, 3, 3), "float64"), In((2, 3), "float64")]),
        Case("broadcast", f, [In((2, 1, 3, 3), "float64"), In((4, 3, 2), "float64")]),
        Case("right", lambda m, a, b: getattr(m.linalg, name)(well(a), b, left=False),
             [In((3, 3), "float64"), In((2, 3), "float64")]),
        Case("T", f, [In((3, 3), "float64", layout="T"), In((3, 2), "float64", layout="T")]),
        Case("empty", f, [In((0, 0), "float64"), In((0, 2), "float64")]),
        Case("singular", lambda m, a, b: getattr(m.linalg, name)(a, b, **({"check_errors": True} if name == "solve_ex"
                                                                           else {})),
             [In((2, 2), "float64", kind=[1, 2, 2, 4]), In((2, 1), "float64")]),
        Case("singular_batched", lambda m, a, b: (lambda r: r.info if name == "solve_ex" else r)(
             getattr(m.linalg, name)(a, b)), [In((2, 2, 2), "float64", kind=[1, 0, 0, 1, 1, 2, 2, 4]),
                                              In((2, 2), "float64")]),
        Case("grad", grads_of(lambda m, a, b: first(getattr(m.linalg, name)(well(a), b))),
             [In((2, 3, 3), "float64"), In((3, 2), "float64")]),
        Case("grad_vector", grads_of(lambda m, a, b: first(getattr(m.linalg, name)(well(a), b))),
             [In((3, 3), "float64"), In((3,), "float64")]),
        Case("grad_right", grads_of(lambda m, a, b: first(getattr(m.linalg, name)(well(a), b, left=False))),
             [In((3, 3), "float64"), In((2, 3), "float64")]),
        Case("shape_mismatch", f, [In((3, 3), "float64"), In((4, 2), "float64")]),
        Case("dtype_mismatch", f, [In((3, 3), "float64"), In((3, 2), "float32")]),
        Case("not_square", f, [In((2, 3), "float64"), In((2, 2), "float64")]),
        Case("right_vector", lambda m, a, b: getattr(m.linalg, name)(well(a), b, left=False),
             [In((3, 3), "float64"), In((3,), "float64")]),
        Case("complex_right", grads_of(lambda m, a, b: first(getattr(m.linalg, name)(well(a), b, left=False))),
             [In((3, 3), "complex128"), In((2, 3), "complex128")]),
        Case("complex_vector", grads_of(lambda m, a, b: first(getattr(m.linalg, name)(well(a), b))),
             [In((2, 3, 3), "complex128"), In((3,), "complex128")]),
        Case("complex_with_real", f, [In((3, 3), "complex64"), In((3, 2), "float32")]),
    ] + complex_cases(lambda m, a, b: first(getattr(m.linalg, name)(well(a), b)),
                      lambda dt: [In((2, 3, 3), dt), In((3, 2), dt)])


def inv_cases(spelling):
    fns = {"linalg.inv": lambda m, a: m.linalg.inv(a), "inverse": lambda m, a: m.inverse(a),
           "linalg.inv_ex": lambda m, a: m.linalg.inv_ex(a)}
    g = fns[spelling]
    f = lambda m, a: g(m, well(a))  # noqa: E731
    # inv_ex's inverse of a singular matrix is whatever LAPACK left: compare its info only.
    h = (lambda m, a: m.linalg.inv_ex(a).info) if spelling == "linalg.inv_ex" else g  # noqa: E731
    method = (lambda m, a: well(a).inverse()) if spelling == "inverse" else None
    return square_cases(f, method=method) + [
        Case("singular", h, [In((2, 2), "float64", kind=[1, 2, 2, 4])]),
        Case("singular_batched", h, [In((2, 2, 2), "float64", kind=[1, 0, 0, 1, 1, 2, 2, 4])]),
        Case("singular_check", lambda m, a: m.linalg.inv_ex(a, check_errors=True),
             [In((2, 2), "float64", kind=[1, 2, 2, 4])]),
        Case("singular_complex", h, [In((2, 2), "complex128", kind=[1, 1j, 1j, -1])]),
    ] + complex_cases(f, lambda dt: [In((2, 3, 3), dt)])


def det_cases(spelling):
    g = {"linalg.det": lambda m, a: m.linalg.det(a), "det": lambda m, a: m.det(a)}[spelling]
    return square_cases(g, method=lambda m, a: a.det()) + [
        Case("singular", g, [In((3, 3), "float64", kind=[1, 2, 3, 2, 4, 6, 0, 1, 1])]),
        Case("grad_singular", grads_of(g), [In((3, 3), "float64", kind=[1, 2, 3, 2, 4, 6, 0, 1, 1])]),
        Case("grad_rank1", grads_of(g), [In((3, 3), "float64", kind=[1, 2, 3, 2, 4, 6, 3, 6, 9])]),
        Case("grad_mixed_batch", grads_of(g), [In((2, 2, 2), "float64", kind=[1, 2, 2, 4, 3, 1, 1, 2])]),
        Case("singular_complex", g, [In((2, 2), "complex128", kind=[1, 1j, 1j, -1])]),
        Case("grad_singular_complex", grads_of(g), [In((3, 3), "complex128",
                                                       kind=[1, 2j, 3, 2j, -4, 6j, 0, 1, 1 + 1j])]),
    ] + complex_cases(g, lambda dt: [In((2, 3, 3), dt)])


def slogdet_cases(spelling):
    g = {"linalg.slogdet": lambda m, a: m.linalg.slogdet(a), "slogdet": lambda m, a: m.slogdet(a),
         "logdet": lambda m, a: m.logdet(a)}[spelling]
    method = {"slogdet": lambda m, a: a.slogdet(), "logdet": lambda m, a: a.logdet()}.get(spelling)
    return square_cases(g, method=method) + [
        Case("singular", g, [In((3, 3), "float64", kind=[1, 2, 3, 2, 4, 6, 0, 1, 1])]),
        Case("negative", g, [In((2, 2), "float64", kind=[0, 1, 1, 0])]),
        Case("singular_complex", g, [In((2, 2), "complex128", kind=[1, 1j, 1j, -1])]),
    ] + complex_cases(g, lambda dt: [In((2, 3, 3), dt)])


def tensorinv_cases():
    f = lambda m, a: m.linalg.tensorinv(well(a.reshape(6, 6)).reshape(2, 3, 6), ind=2)  # noqa: E731
    return [
        Case("ind2", f, [In((6, 6), "float64")]),
        Case("float32", f, [In((6, 6), "float32")]),
        Case("ind1", lambda m, a: m.linalg.tensorinv(well(a).reshape(4, 2, 2), ind=1), [In((4, 4), "float64")]),
        Case("grad", grads_of(f), [In((6, 6), "float64")]),
        Case("bad_ind", lambda m, a: m.linalg.tensorinv(a, ind=0), [In((2, 2), "float64")]),
        Case("not_square", lambda m, a: m.linalg.tensorinv(a.reshape(2, 3, 2), ind=2), [In((3, 4), "float64")]),
    ]


def tensorsolve_cases():
    f = lambda m, a, b: m.linalg.tensorsolve(well(a).reshape(2, 3, 6), b)  # noqa: E731
    return [
        Case("f64", f, [In((6, 6), "float64"), In((2, 3), "float64")]),
        Case("float32", f, [In((6, 6), "float32"), In((2, 3), "float32")]),
        Case("dims", lambda m, a, b: m.linalg.tensorsolve(well(a).reshape(6, 2, 3), b, dims=(0,)),
             [In((6, 6), "float64"), In((2, 3), "float64")]),
        Case("grad", grads_of(f), [In((6, 6), "float64"), In((2, 3), "float64")]),
        Case("mismatch", lambda m, a, b: m.linalg.tensorsolve(a, b), [In((2, 3), "float64"), In((2,), "float64")]),
    ]


# ---- triangular solves and Cholesky

def solve_triangular_cases():
    f = lambda m, a, b: m.linalg.solve_triangular(well(a), b, upper=True)  # noqa: E731
    return [Case(dt, f, [In((3, 3), dt), In((3, 2), dt)]) for dt in FLOATS] + [
        Case("lower", lambda m, a, b: m.linalg.solve_triangular(well(a), b, upper=False),
             [In((3, 3), "float64"), In((3, 2), "float64")]),
        Case("right", lambda m, a, b: m.linalg.solve_triangular(well(a), b, upper=True, left=False),
             [In((3, 3), "float64"), In((2, 3), "float64")]),
        Case("unit", lambda m, a, b: m.linalg.solve_triangular(a, b, upper=False, unitriangular=True),
             [In((3, 3), "float64"), In((3, 2), "float64")]),
        Case("broadcast", f, [In((2, 1, 3, 3), "float64"), In((4, 3, 1), "float64")]),
        Case("T", f, [In((3, 3), "float64", layout="T"), In((3, 2), "float64", layout="T")]),
        Case("empty", f, [In((0, 0), "float64"), In((0, 2), "float64")]),
        Case("grad_upper", grads_of(f), [In((2, 3, 3), "float64"), In((3, 2), "float64")]),
        Case("grad_right_unit", grads_of(lambda m, a, b: m.linalg.solve_triangular(well(a), b, upper=False, left=False,
                                                                                 unitriangular=True)),
             [In((3, 3), "float64"), In((2, 3), "float64")]),
        Case("vector", f, [In((3, 3), "float64"), In((3,), "float64")]),
        Case("shape_mismatch", f, [In((3, 3), "float64"), In((2, 2), "float64")]),
        Case("dtype_mismatch", f, [In((3, 3), "float64"), In((3, 2), "float32")]),
        Case("complex_real_b", f, [In((3, 3), "complex64"), In((3, 2), "float32")]),
        Case("grad_complex_right", grads_of(lambda m, a, b: m.linalg.solve_triangular(well(a), b, upper=False,
                                                                                    left=False)),
             [In((3, 3), "complex128"), In((2, 3), "complex128")]),
    ] + complex_cases(f, lambda dt: [In((2, 3, 3), dt), In((3, 2), dt)])


def triangular_solve_cases():
    f = lambda m, b, a: m.triangular_solve(b, well(a))  # noqa: E731
    return [
        Case("upper", f, [In((3, 2), "float64"), In((3, 3), "float64")]),
        Case("lower_transpose_unit", lambda m, b, a: m.triangular_solve(b, a, upper=False, transpose=True,
                                                                        unitriangular=True),
             [In((2, 3, 2), "float64"), In((2, 3, 3), "float64")]),
        Case("grad", grads_of(lambda m, b, a: m.triangular_solve(b, well(a), transpose=True)),
             [In((3, 2), "float64"), In((3, 3), "float64")]),
        Case("method", lambda m, b, a: b.triangular_solve(well(a)), [In((3, 1)), In((3, 3))]),
    ]


def cholesky_cases(spelling):
    g = {"linalg.cholesky": lambda m, a: m.linalg.cholesky(a), "cholesky": lambda m, a: m.cholesky(a),
         "linalg.cholesky_ex": lambda m, a: m.linalg.cholesky_ex(a)}[spelling]
    f = lambda m, a: g(m, spd(a))  # noqa: E731
    upper = {"linalg.cholesky": lambda m, a: m.linalg.cholesky(spd(a), upper=True),
             "cholesky": lambda m, a: m.cholesky(spd(a), True),
             "linalg.cholesky_ex": lambda m, a: m.linalg.cholesky_ex(spd(a), upper=True)}[spelling]
    first = (lambda r: r[0]) if spelling == "linalg.cholesky_ex" else (lambda r: r)  # noqa: E731
    return square_cases(f, grad=False, method=lambda m, a: spd(a).cholesky()) + [
        Case("upper", upper, [In((2, 3, 3), "float64")]),
        Case("grad", grads_of(lambda m, a: first(f(m, a))), [In((2, 3, 3), "float64")]),
        Case("grad_upper", grads_of(lambda m, a: first(upper(m, a))), [In((3, 3), "float64")]),
        Case("not_pd", g, [In((2, 2), "float64", kind=[1, 2, 2, 1])]),
        Case("not_pd_batched", g, [In((2, 2, 2), "float64", kind=[2, 0, 0, 2, 1, 2, 2, 1])]),
        Case("not_pd_check", lambda m, a: m.linalg.cholesky_ex(a, check_errors=True),
             [In((2, 2), "float64", kind=[1, 2, 2, 1])]),
        Case("grad_upper_complex", grads_of(lambda m, a: first(upper(m, a))), [In((3, 3), "complex128")]),
        Case("not_pd_complex", g, [In((2, 2), "complex128", kind=[1, 2j, -2j, 1])]),
    ] + complex_cases(lambda m, a: first(f(m, a)), lambda dt: [In((2, 3, 3), dt)])


def ldl_factor_cases(name):
    g = (lambda m, a: m.linalg.ldl_factor_ex(a)) if name == "ex" else (lambda m, a: m.linalg.ldl_factor(a))
    f = lambda m, a: g(m, a + a.mT)  # noqa: E731  (symmetric, indefinite)
    return square_cases(f, grad=False) + [
        Case("hermitian", lambda m, a: m.linalg.ldl_factor(a + a.mT, hermitian=True), [In((3, 3), "float64")]),
        Case("singular", g, [In((2, 2), "float64", kind=[0, 0, 0, 0])]),
        Case("requires_grad", lambda m, a: g(m, (a + a.mT).requires_grad_())[0].sum().backward(),
             [In((2, 2), "float64")]),
        # Complex: symmetric (A = A^T, sytrf) and Hermitian (A = A^H, hetrf).
        Case("complex_symmetric", f, [In((2, 3, 3), "complex128")]),
        Case("complex64_hermitian", lambda m, a: m.linalg.ldl_factor(a + a.mH, hermitian=True),
             [In((3, 3), "complex64")]),
        Case("complex_hermitian_batched", lambda m, a: m.linalg.ldl_factor(a + a.mH, hermitian=True),
             [In((2, 4, 4), "complex128")]),
    ]


def ldl_solve_cases():
    f = lambda m, a, b: m.linalg.ldl_solve(*m.linalg.ldl_factor(a + a.mT), b)  # noqa: E731
    return [Case(dt, f, [In((3, 3), dt), In((3, 2), dt)]) for dt in FLOATS] + [
        Case("batched", f, [In((2, 4, 4), "float64"), In((2, 4, 3), "float64")]),
        Case("broadcast", f, [In((3, 3), "float64"), In((2, 3, 1), "float64")]),
        Case("T", f, [In((3, 3), "float64", layout="T"), In((3, 2), "float64", layout="T")]),
        Case("empty", f, [In((0, 0), "float64"), In((0, 2), "float64")]),
        Case("rows_mismatch", f, [In((3, 3), "float64"), In((4, 2), "float64")]),
        Case("dtype_mismatch", f, [In((3, 3), "float64"), In((3, 2), "float32")]),
        Case("vector_b", f, [In((3, 3), "float64"), In((3,), "float64")]),
        Case("complex_symmetric", f, [In((2, 3, 3), "complex128"), In((3, 2), "complex128")]),
        Case("complex_hermitian", lambda m, a, b: m.linalg.ldl_solve(*m.linalg.ldl_factor(a + a.mH, hermitian=True), b,
                                                                     hermitian=True),
             [In((3, 3), "complex64"), In((2, 3, 2), "complex64")]),
    ]


def cholesky_solve_cases():
    f = lambda m, b, a: m.cholesky_solve(b, m.linalg.cholesky(spd(a)))  # noqa: E731
    return [Case(dt, f, [In((3, 2), dt), In((3, 3), dt)]) for dt in FLOATS] + [
        Case("upper", lambda m, b, a: m.cholesky_solve(b, m.linalg.cholesky(spd(a), upper=True), True),
             [In((2, 3, 2), "float64"), In((2, 3, 3), "float64")]),
        Case("grad", grads_of(f), [In((3, 2), "float64"), In((3, 3), "float64")]),
        Case("method", lambda m, b, a: b.cholesky_solve(m.linalg.cholesky(spd(a))), [In((3, 1)), In((3, 3))]),
        Case("not_square", lambda m, b, a: m.cholesky_solve(b, a), [In((3, 2), "float64"), In((3, 2), "float64")]),
        Case("upper_complex", lambda m, b, a: m.cholesky_solve(b, m.linalg.cholesky(spd(a), upper=True), True),
             [In((3, 2), "complex128"), In((3, 3), "complex128")]),
    ] + complex_cases(f, lambda dt: [In((3, 2), dt), In((3, 3), dt)])


def cholesky_inverse_cases():
    f = lambda m, a: m.cholesky_inverse(m.linalg.cholesky(spd(a)))  # noqa: E731
    return [Case(dt, f, [In((3, 3), dt)]) for dt in FLOATS] + [
        Case("upper", lambda m, a: m.cholesky_inverse(m.linalg.cholesky(spd(a), upper=True), True),
             [In((3, 3), "float64")]),
        Case("grad", grads_of(f), [In((3, 3), "float64")]),
        Case("method", lambda m, a: m.linalg.cholesky(spd(a)).cholesky_inverse(), [In((3, 3))]),
    ] + complex_cases(f, lambda dt: [In((3, 3), dt)])


# ---- QR and reflectors

def qr_cases(spelling):
    if spelling == "qr":
        f = lambda m, a: m.qr(a)  # noqa: E731
        modes = [Case("complete", lambda m, a: m.qr(a, some=False), [In((4, 2), "float64")])]
    else:
        f = lambda m, a: m.linalg.qr(a)  # noqa: E731
        modes = [Case("complete", lambda m, a: m.linalg.qr(a, "complete"), [In((4, 2), "float64")]),
                 Case("complete_wide", lambda m, a: m.linalg.qr(a, "complete"), [In((2, 4), "float64")]),
                 Case("r", lambda m, a: m.linalg.qr(a, "r"), [In((4, 3), "float64")]),
                 Case("bad_mode", lambda m, a: m.linalg.qr(a, "full"), [In((4, 3), "float64")]),
                 Case("grad_r_mode", grads_of(lambda m, a: m.linalg.qr(a, "r")[1]), [In((3, 3), "float64")]),
                 Case("grad_complete_tall", grads_of(lambda m, a: m.linalg.qr(a, "complete")),
                      [In((4, 2), "float64")]),
                 Case("grad_complete_square", grads_of(lambda m, a: m.linalg.qr(a, "complete")),
                      [In((3, 3), "float64")])]
    return [Case(dt, f, [In((4, 3), dt)]) for dt in FLOATS] + modes + [
        Case("wide", f, [In((2, 4), "float64")]),
        Case("batched", f, [In((2, 5, 3), "float64")]),
        Case("T", f, [In((3, 4), "float64", layout="T")]),
        Case("empty", f, [In((0, 3), "float64")]),
        Case("grad_tall", grads_of(f), [In((2, 4, 3), "float64")]),
        Case("grad_wide", grads_of(f), [In((2, 4), "float64")]),
        Case("vector", f, [In((3,))]),
        Case("int", f, [In((2, 2), "int64")]),
        Case("method", lambda m, a: a.qr(), [In((3, 2))]),
        Case("complex_wide", f, [In((2, 4), "complex128")]),
        Case("grad_complex_wide", grads_of(f), [In((2, 4), "complex128")]),
    ] + complex_cases(f, lambda dt: [In((2, 4, 3), dt)])


def geqrf_cases():
    f = lambda m, a: m.geqrf(a)  # noqa: E731
    return [Case(dt, f, [In((4, 3), dt)]) for dt in FLOATS] + [
        Case("wide", f, [In((2, 4), "float64")]),
        Case("batched", f, [In((2, 3, 3), "float64")]),
        Case("method", lambda m, a: a.geqrf(), [In((3, 2))]),
        Case("requires_grad", lambda m, a: m.geqrf(a.requires_grad_())[0].sum().backward(), [In((2, 2), "float64")]),
    ] + complex_cases(f, lambda dt: [In((2, 4, 3), dt)], grad=False)


def householder_cases(spelling):
    g = {"linalg.householder_product": lambda m, a, t: m.linalg.householder_product(a, t),
         "orgqr": lambda m, a, t: m.orgqr(a, t)}[spelling]
    f = lambda m, a: g(m, *m.geqrf(a))  # noqa: E731
    return [Case(dt, f, [In((4, 3), dt)]) for dt in FLOATS] + [
        Case("batched", f, [In((2, 3, 3), "float64")]),
        Case("fewer_reflectors", lambda m, a, t: g(m, a, t), [In((4, 3), "float64"), In((2,), "float64")]),
        Case("grad", grads_of(lambda m, a, t: g(m, a, t * 0.25)), [In((4, 3), "float64"), In((2,), "float64")]),
        Case("wide", lambda m, a, t: g(m, a, t), [In((2, 3), "float64"), In((2,), "float64")]),
        Case("too_many_tau", lambda m, a, t: g(m, a, t), [In((3, 2), "float64"), In((3,), "float64")]),
        Case("method", lambda m, a: a.orgqr(m.geqrf(a)[1]), [In((3, 2))]),
        Case("grad_complex", grads_of(lambda m, a, t: g(m, a, t * 0.25)), [In((4, 3), "complex128"),
                                                                             In((2,), "complex128")]),
    ] + complex_cases(f, lambda dt: [In((2, 4, 3), dt)], grad=False)


def ormqr_cases():
    f = lambda m, a, c: m.ormqr(*m.geqrf(a), c)  # noqa: E731
    return [Case(dt, f, [In((4, 3), dt), In((4, 2), dt)]) for dt in FLOATS] + [
        Case("transpose", lambda m, a, c: m.ormqr(*m.geqrf(a), c, transpose=True),
             [In((4, 3), "float64"), In((4, 2), "float64")]),
        Case("right", lambda m, a, c: m.ormqr(*m.geqrf(a), c, left=False),
             [In((4, 3), "float64"), In((2, 4), "float64")]),
        Case("right_transpose", lambda m, a, c: m.ormqr(*m.geqrf(a), c, left=False, transpose=True),
             [In((4, 3), "float64"), In((2, 4), "float64")]),
        Case("batched", f, [In((2, 3, 3), "float64"), In((2, 3, 1), "float64")]),
        Case("mismatch", f, [In((4, 3), "float64"), In((3, 2), "float64")]),
        Case("method", lambda m, a, c: a.ormqr(m.geqrf(a)[1], c), [In((3, 2)), In((3, 3))]),
    ] + [Case(f"complex_{'left' if left else 'right'}{'_transpose' if tr else ''}",
              lambda m, a, c, left=left, tr=tr: m.ormqr(*m.geqrf(a), c, left=left, transpose=tr),
              [In((4, 3), "complex128"), In((4, 2) if left else (2, 4), "complex64" if tr else "complex128")])
         for left in (True, False) for tr in (True, False)]  # torch 1.13 does not differentiate complex ormqr


# ---- symmetric eigendecomposition and SVD

def eigh_cases(spelling):
    g = {"linalg.eigh": lambda m, a: m.linalg.eigh(a), "linalg.eigvalsh": lambda m, a: m.linalg.eigvalsh(a),
         "symeig": lambda m, a: m.symeig(a, eigenvectors=True)}[spelling]
    # The eigenvectors up to sign: their squares.
    f = lambda m, a: (lambda r: (r[0], r[1] * r[1]) if isinstance(r, tuple) else r)(g(m, a + a.mT))  # noqa: E731
    cs = square_cases(f, grad=False) + [
        # Through the squares too: a loss that changes with a vector's sign has a gradient that
        # does as well, and LAPACK and cuSOLVER may pick other signs (test_cuda_vs_cpu.py).
        Case("grad", grads_of(f), [In((2, 3, 3), "float64")]),
        Case("nonsymmetric", f, [In((3, 3), "float64")]),
    ]
    if spelling == "symeig":
        cs += [Case("values_only", lambda m, a: m.symeig(a + a.mT), [In((3, 3), "float64")]),
               Case("lower", lambda m, a: m.symeig(a, eigenvectors=False, upper=False)[0], [In((3, 3), "float64")]),
               Case("method", lambda m, a: (a + a.mT).symeig()[0], [In((3, 3))])]
    else:
        uplo = (lambda m, a: m.linalg.eigvalsh(a, UPLO="U")) if spelling == "linalg.eigvalsh" else \
            (lambda m, a: m.linalg.eigh(a, UPLO="U")[0])
        cs += [Case("upper", uplo, [In((3, 3), "float64")]),
               Case("bad_uplo", (lambda m, a: m.linalg.eigvalsh(a, "X")) if spelling == "linalg.eigvalsh" else
                    (lambda m, a: m.linalg.eigh(a, "X")), [In((3, 3), "float64")])]
    if spelling == "linalg.eigh":
        cs.append(Case("grad_values_only", grads_of(lambda m, a: m.linalg.eigh(a + a.mT)[0]),
                       [In((3, 3), "float64")]))
    if spelling != "symeig":
        # Hermitian matrices (heevd): real eigenvalues; eigenvectors through their moduli and through
        # each column turned by the conjugate phase of its first entry, which the phase leaves alone.
        def phase_free(m, a):
            r = g(m, a + a.mH)
            if not isinstance(r, tuple):
                return r
            first = r[1][..., :1, :]
            return r[0], r[1].abs(), r[1] * first.conj() / first.abs()
        cs += [Case(f"hermitian_{dt}", phase_free, [In((2, 3, 3), dt)]) for dt in COMPLEX] + [
            Case("grad_hermitian", grads_of(phase_free), [In((3, 3), "complex128")])]
        if spelling == "linalg.eigh":
            cs.append(Case("grad_phase_dependent", grads_of(lambda m, a: m.linalg.eigh(a + a.mH)[1].real),
                           [In((3, 3), "complex128")]))
    return cs


def eig_cases(spelling):
    """linalg.eig and linalg.eigvals: the reference calls the same LAPACK routine (geev), so the
    eigenvalues come in the same order; eigenvectors are compared through their moduli, which the
    phase each one is defined up to leaves alone."""
    if spelling == "linalg.eig":
        def f(m, a):
            values, vectors = m.linalg.eig(a)
            return values, vectors.abs()
    elif spelling == "linalg.eigvals":
        f = lambda m, a: m.linalg.eigvals(a)  # noqa: E731
    else:  # the values-only kernel; torch 1.13 has no _linalg_eigvals, and its linalg.eigvals is the same
        f = lambda m, a: m.linalg.eigvals(a) if m.__name__ == "torch" else m.ops._linalg_eigvals(a)  # noqa: E731
    # Moduli of eigenvalues and of eigenvectors, whose gradients do not depend on the phases.
    g = grads_of(lambda m, a: (lambda r: (r[0].abs(), r[1].abs()) if isinstance(r, tuple) else r.abs())(
        m.linalg.eig(a) if spelling == "linalg.eig" else f(m, a)))
    cs = square_cases(f, grad=False) + [
        Case("complex64", f, [In((3, 3), "complex64")]),
        Case("complex128_batched", f, [In((2, 4, 4), "complex128")]),
        Case("real_eigenvalues", f, [In((3, 3), "float64", kind=[2, 1, 0, 0, 3, 1, 0, 0, 5])]),
        Case("rotation", f, [In((2, 2), "float64", kind=[0, -1, 1, 0])]),
    ]
    # A NaN or an infinity is refused, as torch's eig refuses it; torch's eigvals hands it to LAPACK,
    # whose answer is undefined there (torch 1.13 printed LAPACK's illegal-argument errors), so both
    # eigvals are checked against torch's eig.
    refused = (lambda m, a: m.linalg.eig(a)[0]) if spelling != "linalg.eig" else None  # noqa: E731
    cs += [Case("nan", f, [In((2, 2), "float64", kind=[1, float("nan"), 0, 1])], torch_fn=refused),
           Case("inf_batched", f, [In((2, 2, 2), "float32", kind=[1, 0, 0, 1, 1, float("inf"), 0, 1])],
                torch_fn=refused)]
    if spelling != "_linalg_eigvals":
        cs += [Case("grad", g, [In((2, 3, 3), "float64")]),
               Case("grad_complex", g, [In((3, 3), "complex128")])]
    if spelling == "linalg.eig":
        # A loss that depends on the phases of the eigenvectors has no gradient: torch and ctorch refuse it.
        cs += [Case("grad_values_only", grads_of(lambda m, a: m.linalg.eig(a)[0]), [In((3, 3), "float64")]),
               Case("grad_phase_dependent", grads_of(lambda m, a: m.linalg.eig(a)[1].real), [In((3, 3), "float64")]),
               Case("grad_phase_free", grads_of(lambda m, a: (lambda lv: lv[1] * lv[1][..., :1, :].conj() /
                                                              lv[1][..., :1, :].abs())(m.linalg.eig(a))),
                    [In((3, 3), "float64")])]
    return cs


def matrix_sqrth(m, a):
    """torch.linalg.matrix_sqrth where the module has it. torch 1.13 has not: its reference is the
    function's definition in torch 2.15 (checked there), V diag(sqrt(max(L, 0))) V^H from eigh."""
    if hasattr(m.linalg, "matrix_sqrth"):
        return m.linalg.matrix_sqrth(a)
    values, vectors = m.linalg.eigh(a)
    return (vectors * values.clamp_min(0).sqrt().unsqueeze(-2)) @ vectors.mH


def polar(m, a):
    """torch.linalg.polar where the module has it; for torch 1.13, torch 2.15's cpu definition: from
    the reduced SVD W S V^H, U = W V^H and H = V S V^H (the sign or phase of each singular pair
    cancels)."""
    if hasattr(m.linalg, "polar"):
        return tuple(m.linalg.polar(a))
    if a.shape[-2] < a.shape[-1]:
        raise RuntimeError("linalg.polar: input must have at least as many rows as columns")
    w, s, vh = m.linalg.svd(a, full_matrices=False)
    return w @ vh, (vh.mH * s.unsqueeze(-2)) @ vh


def matrix_sqrth_cases():
    # In float32 two eigendecompositions give roots further apart than the harness allows: there the
    # case checks that the root squares to A within float32's rounding.
    def f(m, a):
        x = matrix_sqrth(m, spd(a))
        return (x @ x - spd(a)).abs().amax() < 1e-4 * spd(a).abs().amax() if a.dtype == m.float32 else x
    return square_cases(f, grad=False) + [
        Case("grad", grads_of(f), [In((2, 3, 3), "float64")]),
        Case("indefinite", lambda m, a: matrix_sqrth(m, a + a.mT), [In((4, 4), "float64")]),
        Case("lower_triangle_read", lambda m, a: matrix_sqrth(m, spd(a).tril()), [In((3, 3), "float64")]),
        Case("complex", lambda m, a: matrix_sqrth(m, spd(a)), [In((2, 3, 3), "complex128")]),
        Case("grad_complex", grads_of(lambda m, a: matrix_sqrth(m, spd(a))), [In((3, 3), "complex128")]),
    ]


def polar_cases():
    f = lambda m, a: polar(m, a)  # noqa: E731
    # In float32 the factors of two SVDs differ by more than the harness allows; their product and
    # U's orthonormality do not.
    product = lambda m, a: (lambda u, h: (u @ h, u.mT @ u))(*polar(m, a))  # noqa: E731
    return [Case(dt, f if dt == "float64" else product, [In((4, 3), dt)]) for dt in FLOATS] + [
        Case("batched", f, [In((2, 5, 3), "float64")]),
        Case("square", f, [In((3, 3), "float64")]),
        Case("T", f, [In((3, 4), "float64", layout="T")]),
        Case("empty", f, [In((0, 0), "float64")]),
        Case("wide", f, [In((2, 3), "float64")]),
        Case("vector", f, [In((3,))]),
        Case("int", f, [In((3, 2), "int64")]),
        Case("grad", grads_of(f), [In((2, 4, 3), "float64")]),
        Case("complex", f, [In((2, 4, 3), "complex128")]),
        Case("grad_complex", grads_of(f), [In((4, 3), "complex128")]),
    ]


def svd_cases(spelling):
    def vectors_up_to_sign(r, vh=True):  # and so their gradients (see eigh_cases)
        """The first k singular vectors through their squares; the vectors past them span the
        complement in a basis each library picks (LAPACK's gesdd, cuSOLVER's gesvd), compared
        through its projector. vh: the third result is Vh (rows), else the legacy V (columns)."""
        u, s, v = r
        k = s.shape[-1]
        uk, uc = u[..., :k], u[..., k:]
        vk, vc = (v[..., :k, :], v[..., k:, :].mT) if vh else (v[..., :k], v[..., k:])
        return uk * uk, s, vk * vk, uc @ uc.mT, vc @ vc.mT

    if spelling == "linalg.svd":
        f = lambda m, a: vectors_up_to_sign(m.linalg.svd(a))  # noqa: E731
        extra = [Case("reduced", lambda m, a: vectors_up_to_sign(m.linalg.svd(a, full_matrices=False)),
                      [In((2, 5, 3), "float64")]),
                 Case("reduced_wide", lambda m, a: vectors_up_to_sign(m.linalg.svd(a, False)), [In((2, 4), "float64")]),
                 Case("driver", lambda m, a: m.linalg.svd(a, driver="gesvd"), [In((3, 3), "float64")]),
                 Case("grad_reduced", grads_of(lambda m, a: vectors_up_to_sign(m.linalg.svd(a, full_matrices=False))),
                      [In((2, 4, 3), "float64")]),
                 Case("grad_full_wide", grads_of(lambda m, a: vectors_up_to_sign(m.linalg.svd(a))),
                      [In((2, 4), "float64")]),
                 Case("grad_values", grads_of(lambda m, a: m.linalg.svd(a)[1]), [In((3, 3), "float64")]),
                 Case("grad_repeated_values", grads_of(lambda m, a: m.linalg.svd(a)[1]),
                      [In((3, 3), "float64", kind=[1, 0, 0, 0, 1, 0, 0, 0, 2])])]
    elif spelling == "linalg.svdvals":
        f = lambda m, a: m.linalg.svdvals(a)  # noqa: E731
        extra = [Case("grad", grads_of(f), [In((2, 4, 3), "float64")])]
    else:
        f = lambda m, a: vectors_up_to_sign(m.svd(a), vh=False)  # noqa: E731
        extra = [Case("full", lambda m, a: vectors_up_to_sign(m.svd(a, some=False), vh=False), [In((4, 2), "float64")]),
                 Case("no_uv", lambda m, a: m.svd(a, compute_uv=False), [In((4, 3), "float64")]),
                 Case("grad", grads_of(lambda m, a: vectors_up_to_sign(m.svd(a), vh=False)), [In((4, 3), "float64")]),
                 Case("method", lambda m, a: a.svd()[1], [In((3, 2))])]
    if spelling == "linalg.svd":
        # Complex singular vectors are defined up to a phase u_i and v_i share: compared through the
        # products u_i v_i^H, which it leaves alone.
        def phase_free(m, a, full=False):
            u, s_, vh = m.linalg.svd(a, full_matrices=full)
            k = s_.shape[-1]
            p = u[..., :k].unsqueeze(-1) * vh[..., :k, :].unsqueeze(-3)
            return s_, p.real
        extra += [Case(f"complex_{dt}", phase_free, [In((2, 4, 3), dt)]) for dt in COMPLEX] + [
            Case("complex_full_wide", lambda m, a: phase_free(m, a, True), [In((2, 4), "complex128")]),
            Case("grad_complex_tall", grads_of(phase_free), [In((4, 3), "complex128")]),
            Case("grad_complex_wide", grads_of(phase_free), [In((2, 4), "complex128")]),
            Case("grad_complex_values", grads_of(lambda m, a: m.linalg.svd(a)[1]), [In((3, 3), "complex128")]),
            Case("grad_phase_dependent", grads_of(lambda m, a: m.linalg.svd(a, full_matrices=False)[0].real),
                 [In((3, 3), "complex128")])]
    elif spelling == "linalg.svdvals":
        extra += [Case(dt, f, [In((4, 3), dt)]) for dt in COMPLEX] + [
            Case("grad_complex", grads_of(f), [In((3, 4), "complex128")])]
    return [Case(dt, f, [In((4, 3), dt)]) for dt in FLOATS] + extra + [
        Case("wide", f, [In((3, 5), "float64")]),
        Case("batched", f, [In((2, 3, 3), "float64")]),
        Case("T", f, [In((3, 4), "float64", layout="T")]),
        Case("empty", f, [In((0, 3), "float64")]),
        Case("vector", f, [In((3,))]),
        Case("int", f, [In((2, 2), "int64")]),
    ]


def lowrank_cases(name):
    """svd_lowrank and pca_lowrank draw a random test matrix, and ctorch's normal stream is not
    torch's, so the cases compare what does not depend on the draw: for A = x @ y of rank 2 (less
    than q), the product U diag(S) V^H (A itself, or A less M, or A centered), the two nonzero
    singular values and the projector onto their left vectors, and the gradients of those. The
    reference is those of A's exact SVD (torch.linalg.svd): torch 1.13's own svd_lowrank takes no
    complex A, no M of another shape than A's, and no q above n, which torch 2.x fixed."""
    def parts(r):
        u, s, v = r
        uk = u[..., :2]
        return (u * s.unsqueeze(-2)) @ v.mH, s[..., :2], uk @ uk.mH

    def exact(m, a):
        u, s, vh = m.linalg.svd(a, full_matrices=False)
        return parts((u, s, vh.mH))

    def centered(a):
        return a - a.mean(-2, keepdim=True)

    def case(id, fn, ref, inputs, tol=(None, None)):
        return Case(id, fn, inputs, torch_fn=ref, tol=tol)

    def pair(dt="float64", m=6, k=5, layout="contig"):
        return [In((m, 2), dt, layout=layout), In((2, k), dt)]

    if name == "svd_lowrank":
        def run(m, a, **kw):
            return parts(m.svd_lowrank(a, **kw))

        def ref(m, a, **kw):
            return exact(m, a)
        extra = [
            case("M", lambda m, x, y, mu: run(m, x @ y + mu, q=3, M=mu), lambda m, x, y, mu: exact(m, x @ y),
                 pair() + [In((1, 5), "float64")]),
            case("M_wide", lambda m, x, y, mu: run(m, x @ y + mu, q=3, M=mu), lambda m, x, y, mu: exact(m, x @ y),
                 pair(m=3, k=6) + [In((1, 6), "float64")]),
            Case("negative_q", lambda m, x: m.svd_lowrank(x, q=-1), [In((4, 3), "float64")]),
            Case("M_not_broadcast", lambda m, x, mu: m.svd_lowrank(x, q=2, M=mu),
                 [In((4, 3), "float64"), In((2, 3), "float64")]),
        ]
    else:
        def run(m, a, **kw):
            return parts(m.pca_lowrank(a, **kw))

        def ref(m, a, center=True, **kw):
            return exact(m, centered(a) if center else a)
        extra = [
            case("uncentered", lambda m, x, y: run(m, x @ y, q=3, center=False),
                 lambda m, x, y: ref(m, x @ y, center=False), pair()),
            Case("q_too_big", lambda m, x: m.pca_lowrank(x, q=4), [In((5, 3), "float64")]),
            Case("negative_niter", lambda m, x: m.pca_lowrank(x, niter=-1), [In((5, 3), "float64")]),
        ]
    f, g = (lambda m, x, y: run(m, x @ y, q=4)), (lambda m, x, y: ref(m, x @ y))
    return [case(dt, f, g, pair(dt)) for dt in FLOATS + COMPLEX] + extra + [
        case("default_q", lambda m, x, y: run(m, x @ y), g, pair(m=7, k=6)),
        case("niter0", lambda m, x, y: run(m, x @ y, q=3, niter=0), g, pair()),
        case("wide", f, g, pair(m=4, k=7)),
        case("batched", f, g, [In((2, 6, 2), "float64"), In((2, 2, 5), "float64")]),
        case("T", f, g, pair(layout="T")),
        # The gradients go through the QRs of the random basis, whose terms cancel only to rounding.
        case("grad", grads_of(lambda m, x, y: run(m, x @ y, q=3)[1:]), grads_of(lambda m, x, y: ref(m, x @ y)[1:]),
             pair(), tol=(1e-8, 1e-8)),
        case("grad_complex", grads_of(lambda m, x, y: run(m, x @ y, q=3)[1]),
             grads_of(lambda m, x, y: ref(m, x @ y)[1]), pair("complex128", 5, 4), tol=(1e-8, 1e-8)),
        Case("vector", lambda m, x: getattr(m, name)(x), [In((3,), "float64")]),
        Case("int", lambda m, x: getattr(m, name)(x), [In((4, 3), "int64")]),
    ]


def pinv_cases(spelling):
    g = {"linalg.pinv": lambda m, a: m.linalg.pinv(a), "pinverse": lambda m, a: m.pinverse(a)}[spelling]
    cs = [Case(dt, g, [In((4, 3), dt)]) for dt in FLOATS] + [
        Case("wide", g, [In((2, 4), "float64")]),
        Case("batched", g, [In((2, 3, 3), "float64")]),
        Case("rank_deficient", g, [In((3, 3), "float64", kind=[1, 2, 3, 2, 4, 6, 0, 1, 1])]),
        Case("T", g, [In((3, 4), "float64", layout="T")]),
        Case("grad_tall", grads_of(g), [In((4, 3), "float64")]),
        Case("grad_wide", grads_of(g), [In((2, 3, 5), "float64", layout="T")]),
        Case("int", g, [In((2, 2), "int64")]),
        Case("complex_wide", g, [In((2, 4), "complex128")]),
    ] + complex_cases(g, lambda dt: [In((2, 4, 3), dt)])
    if spelling == "linalg.pinv":
        cs += [Case("hermitian", lambda m, a: m.linalg.pinv(a + a.mT, hermitian=True), [In((3, 3), "float64")]),
               Case("grad_hermitian", grads_of(lambda m, a: m.linalg.pinv(a + a.mT, hermitian=True)),
                    [In((3, 3), "float64")]),
               Case("atol", lambda m, a: m.linalg.pinv(a, atol=5.0), [In((3, 3), "float64")]),
               Case("rtol", lambda m, a: m.linalg.pinv(a, rtol=0.5), [In((3, 3), "float64")]),
               Case("rcond", lambda m, a: m.linalg.pinv(a, 0.5), [In((3, 3), "float64")]),
               Case("grad_hermitian_complex", grads_of(lambda m, a: m.linalg.pinv(a + a.mH, hermitian=True)),
                    [In((3, 3), "complex128")])]
    else:
        cs += [Case("rcond", lambda m, a: m.pinverse(a, 0.5), [In((3, 3), "float64")]),
               Case("method", lambda m, a: a.pinverse(), [In((3, 2))])]
    return cs


def matrix_rank_cases():
    f = lambda m, a: m.linalg.matrix_rank(a)  # noqa: E731
    return [Case(dt, f, [In((4, 3), dt)]) for dt in FLOATS] + [
        Case("deficient", f, [In((3, 3), "float64", kind=[1, 2, 3, 2, 4, 6, 0, 1, 1])]),
        Case("batched", f, [In((2, 3, 4), "float64")]),
        Case("hermitian", lambda m, a: m.linalg.matrix_rank(a + a.mT, hermitian=True), [In((3, 3), "float64")]),
        Case("atol", lambda m, a: m.linalg.matrix_rank(a, atol=3.0), [In((3, 3), "float64")]),
        Case("rtol", lambda m, a: m.linalg.matrix_rank(a, rtol=0.3), [In((3, 3), "float64")]),
        Case("tol", lambda m, a: m.linalg.matrix_rank(a, 3.0), [In((3, 3), "float64")]),
        Case("empty", f, [In((0, 3), "float64")]),
        Case("complex", f, [In((2, 3, 4), "complex64")]),
        Case("complex_deficient", f, [In((3, 3), "complex128", kind=[1, 2j, 3, 2j, -4, 6j, 0, 1, 1 + 1j])]),
        Case("complex_hermitian", lambda m, a: m.linalg.matrix_rank(a + a.mH, hermitian=True),
             [In((3, 3), "complex128")]),
    ]


def cond_cases():
    f = lambda m, a: m.linalg.cond(a)  # noqa: E731
    return [Case(dt, f, [In((3, 3), dt)]) for dt in FLOATS] + [
        Case("rect", f, [In((4, 2), "float64")]),
        Case("minus2", lambda m, a: m.linalg.cond(a, -2), [In((2, 3, 3), "float64")]),
        Case("fro", lambda m, a: m.linalg.cond(well(a), "fro"), [In((3, 3), "float64")]),
        Case("nuc", lambda m, a: m.linalg.cond(well(a), "nuc"), [In((3, 3), "float64")]),
        Case("inf", lambda m, a: m.linalg.cond(well(a), float("inf")), [In((3, 3), "float64")]),
        Case("one", lambda m, a: m.linalg.cond(well(a), 1), [In((3, 3), "float64")]),
        Case("grad", grads_of(f), [In((3, 3), "float64")]),
        Case("fro_rect", lambda m, a: m.linalg.cond(a, "fro"), [In((4, 2), "float64")]),
        Case("complex_fro", lambda m, a: m.linalg.cond(well(a), "fro"), [In((3, 3), "complex128")]),
    ] + complex_cases(f, lambda dt: [In((2, 3, 3), dt)])


def lstsq_cases():
    f = lambda m, a, b: m.linalg.lstsq(a, b)  # noqa: E731
    d = lambda drv: (lambda m, a, b: m.linalg.lstsq(a, b, driver=drv))  # noqa: E731
    return [Case(dt, f, [In((5, 3), dt), In((5, 2), dt)]) for dt in FLOATS] + [
        Case("gels", d("gels"), [In((5, 3), "float64"), In((5, 2), "float64")]),
        Case("gelsd", d("gelsd"), [In((2, 5, 3), "float64"), In((2, 5, 2), "float64")]),
        Case("gelss", d("gelss"), [In((5, 3), "float64"), In((5, 2), "float64")]),
        Case("wide", f, [In((2, 4), "float64"), In((2, 1), "float64")]),
        Case("vector", lambda m, a, b: m.linalg.lstsq(a, b).solution, [In((5, 3), "float64"), In((5,), "float64")]),
        Case("deficient", d("gelsd"), [In((3, 3), "float64", kind=[1, 2, 3, 2, 4, 6, 0, 1, 1]), In((3, 1), "float64")]),
        Case("rcond", lambda m, a, b: m.linalg.lstsq(a, b, 0.5, driver="gelsd"),
             [In((3, 3), "float64"), In((3, 1), "float64")]),
        Case("grad", grads_of(lambda m, a, b: m.linalg.lstsq(a, b).solution),
             [In((5, 3), "float64"), In((5, 2), "float64")]),
        Case("grad_wide", grads_of(lambda m, a, b: m.linalg.lstsq(a, b).solution),
             [In((3, 5), "float64", layout="T"), In((3, 2), "float64")]),
        Case("bad_driver", d("gelsx"), [In((3, 3), "float64"), In((3, 1), "float64")]),
        Case("mismatch", f, [In((3, 3), "float64"), In((4, 1), "float64")]),
        Case("dtype_mismatch", f, [In((3, 3), "float64"), In((3, 1), "float32")]),
        Case("complex_gelsd", d("gelsd"), [In((5, 3), "complex128"), In((5, 2), "complex128")]),
    ] + complex_cases(lambda m, a, b: m.linalg.lstsq(a, b).solution, lambda dt: [In((5, 3), dt), In((5, 2), dt)])


def nuclear_norm_cases():
    return [
        Case("f32", lambda m, a: m.nuclear_norm(a), [In((4, 3))]),
        Case("keepdim", lambda m, a: m.nuclear_norm(a, keepdim=True), [In((3, 3), "float64")]),
        Case("dim", lambda m, a: m.nuclear_norm(a, dim=(0, 2)), [In((3, 2, 4), "float64")]),
        Case("dim_keepdim", lambda m, a: m.nuclear_norm(a, (2, 1), True), [In((2, 3, 4), "float64")]),
        Case("grad", grads_of(lambda m, a: m.nuclear_norm(a)), [In((4, 3), "float64")]),
        Case("3d_no_dim", lambda m, a: m.nuclear_norm(a), [In((2, 2, 2))]),
        Case("same_dims", lambda m, a: m.nuclear_norm(a, dim=(1, 1)), [In((2, 2, 2))]),
        Case("method_norm", lambda m, a: a.norm(p="nuc"), [In((3, 3), "float64")]),
        Case("matrix_norm_2", lambda m, a: m.linalg.matrix_norm(a, 2), [In((2, 3, 4), "float64")]),
        Case("matrix_norm_-2", lambda m, a: m.linalg.matrix_norm(a, -2, keepdim=True), [In((2, 3, 4), "float64")]),
        Case("norm_nuc_dims", lambda m, a: m.linalg.norm(a, "nuc", dim=(0, 2)), [In((3, 2, 4), "float64")]),
    ]


def vander_cases():
    f = lambda m, x: m.linalg.vander(x)  # noqa: E731
    return [Case(dt, f, [In((4,), dt)]) for dt in ["float32", "float64", "int64", "complex64"]] + [
        Case("batched", f, [In((2, 3), "float64")]),
        Case("grad_complex", grads_of(lambda m, x: m.linalg.vander(x, N=3)), [In((3,), "complex128")]),
        Case("step", f, [In((2, 3), "float64", layout="step")]),
        Case("N", lambda m, x: m.linalg.vander(x, N=5), [In((3,), "float64")]),
        Case("grad", grads_of(lambda m, x: m.linalg.vander(x, N=3)), [In((3,), "float64")]),
        Case("N1", lambda m, x: m.linalg.vander(x, N=1), [In((3,), "float64")]),
        Case("0dim", f, [In(())]),
    ]


CASES = {
    "linalg_lu_factor_ex": lu_factor_ex_cases(),
    "linalg_lu_factor": lu_factor_cases(),
    "lu_unpack": lu_unpack_cases(),
    "linalg_lu": lu_cases(),
    "linalg_lu_solve": lu_solve_cases(),
    "lu_solve": legacy_lu_solve_cases(),
    "linalg_solve": solve_cases("solve"),
    "linalg_solve_ex": solve_cases("solve_ex"),
    "linalg_inv": inv_cases("linalg.inv"),
    "linalg_inv_ex": inv_cases("linalg.inv_ex"),
    "inverse": inv_cases("inverse"),
    "linalg_det": det_cases("linalg.det"),
    "det": det_cases("det"),
    "linalg_slogdet": slogdet_cases("linalg.slogdet"),
    "slogdet": slogdet_cases("slogdet"),
    "logdet": slogdet_cases("logdet"),
    "linalg_tensorinv": tensorinv_cases(),
    "linalg_tensorsolve": tensorsolve_cases(),
    "linalg_solve_triangular": solve_triangular_cases(),
    "triangular_solve": triangular_solve_cases(),
    "linalg_cholesky": cholesky_cases("linalg.cholesky"),
    "linalg_cholesky_ex": cholesky_cases("linalg.cholesky_ex"),
    "cholesky": cholesky_cases("cholesky"),
    "cholesky_solve": cholesky_solve_cases(),
    "linalg_ldl_factor_ex": ldl_factor_cases("ex"),
    "linalg_ldl_factor": ldl_factor_cases("plain"),
    "linalg_ldl_solve": ldl_solve_cases(),
    "cholesky_inverse": cholesky_inverse_cases(),
    "linalg_qr": qr_cases("linalg.qr"),
    "qr": qr_cases("qr"),
    "geqrf": geqrf_cases(),
    "linalg_householder_product": householder_cases("linalg.householder_product"),
    "orgqr": householder_cases("orgqr"),
    "ormqr": ormqr_cases(),
    "linalg_eig": eig_cases("linalg.eig"),
    "linalg_eigvals": eig_cases("linalg.eigvals"),
    "_linalg_eigvals": eig_cases("_linalg_eigvals"),
    "linalg_eigh": eigh_cases("linalg.eigh"),
    "linalg_eigvalsh": eigh_cases("linalg.eigvalsh"),
    "symeig": eigh_cases("symeig"),
    "linalg_svd": svd_cases("linalg.svd"),
    "linalg_svdvals": svd_cases("linalg.svdvals"),
    "linalg_matrix_sqrth": matrix_sqrth_cases(),
    "linalg_polar": polar_cases(),
    "svd": svd_cases("svd"),
    "svd_lowrank": lowrank_cases("svd_lowrank"),
    "pca_lowrank": lowrank_cases("pca_lowrank"),
    "linalg_pinv": pinv_cases("linalg.pinv"),
    "pinverse": pinv_cases("pinverse"),
    "linalg_matrix_rank": matrix_rank_cases(),
    "linalg_cond": cond_cases(),
    "linalg_lstsq": lstsq_cases(),
    "nuclear_norm": nuclear_norm_cases(),
    "linalg_vander": vander_cases(),
}


def with_shared_refusals(cases):
    """The cases every operator here also gets from its first case's inputs: a 0-dim first input, an
    integer dtype, a transposed layout and an empty batch, each against torch (value or refusal)."""
    base = cases[0].inputs
    def swap_first(spec):
        return [spec] + [In(s.shape, s.dtype) for s in base[1:]]
    return cases + [
        Case("shared_0dim", cases[0].fn, swap_first(In((), base[0].dtype))),
        Case("shared_int64", cases[0].fn, [In(s.shape, "int64") for s in base]),
        Case("shared_T", cases[0].fn, [In(s.shape, "float64", layout="T" if len(s.shape) >= 2 else "contig")
                                       for s in base]),
        Case("shared_empty_batch", cases[0].fn, [In((0,) + s.shape, "float64") for s in base]),
    ]


CASES = {name: with_shared_refusals(cs) for name, cs in CASES.items()}

