"""Differential cases of the complex-number operators (view_as_real, view_as_complex, real, imag,
conj, conj_physical, resolve_conj, complex, polar, angle, sgn) and of the operators that take
complex tensors beside real ones (arithmetic, comparisons for equality, the pointwise math, sum,
mean, matmul), against torch's values, gradients and refusals. Complex inputs have parts that are
multiples of 1/8, exact in both libraries."""

import math

from difftest import Case, In

COMPLEX = ["complex64", "complex128"]


def complex_cases(f):
    """Cases for an operator of one complex tensor: both complex dtypes, layouts, empty and 0-dim
    inputs."""
    return [Case(dt, f, [In((3, 4), dt)]) for dt in COMPLEX] + [
        Case("T", f, [In((3, 4), "complex128", layout="T")]),
        Case("step", f, [In((3, 4), "complex64", layout="step")]),
        Case("empty", f, [In((0, 3), "complex64")]),
        Case("0dim", f, [In((), "complex128")]),
    ]


def with_grad(f):
    """f's value and the gradient of sum |f(z)|^2 with respect to z, in torch's convention for complex
    gradients (dL/dx + i dL/dy)."""
    def fn(m, a):
        z = a.detach().requires_grad_()
        y = f(m, z)
        (y * y.conj()).real.sum().backward()
        return y.detach(), z.grad
    return fn


def math_cases(name, torch_fn=None):
    """complex_cases of the function `name`, and its gradient in complex128. torch_fn, where torch 1.13
    has no complex kernel for it (torch 2.x has), computes the reference from others."""
    f = lambda m, a: getattr(m, name)(a)  # noqa: E731
    cs = [Case(c.id, c.fn, c.inputs, torch_fn=torch_fn) for c in complex_cases(f)]
    g = torch_fn and with_grad(torch_fn)
    return cs + [Case("grad", with_grad(f), [In((3, 4), "complex128")], torch_fn=g)]


def part_cases(f):
    """complex_cases, and real inputs, which the operator takes or refuses as torch does."""
    return complex_cases(f) + [
        Case("float32", f, [In((2, 3), "float32")]),
        Case("int64", f, [In((2, 3), "int64")]),
        Case("bool", f, [In((2, 3), "bool")]),
    ]


def binary_cases(f):
    """Cases for an operator of two tensors that takes complex ones: complex with complex, with a
    real tensor (promotion), broadcasting, layouts, empty and 0-dim operands."""
    return [
        Case("c64", f, [In((3, 4), "complex64"), In((3, 4), "complex64")]),
        Case("c128_f32", f, [In((3, 4), "complex128"), In((3, 4), "float32")]),
        Case("f64_c64", f, [In((2, 3), "float64"), In((2, 3), "complex64")]),
        Case("int_c64", f, [In((2, 3), "int64"), In((2, 3), "complex64")]),
        Case("broadcast", f, [In((2, 1, 3), "complex64"), In((4, 1), "complex128")]),
        Case("T", f, [In((3, 3), "complex128", layout="T"), In((3, 3), "complex128", layout="step")]),
        Case("empty", f, [In((0, 3), "complex64"), In((1, 3), "complex64")]),
        Case("0dim", f, [In((), "complex64"), In((2,), "float32")]),
    ]


def view_as_complex_cases():
    f = lambda m, a: m.view_as_complex(a)  # noqa: E731
    return [
        Case("float32", f, [In((3, 2), "float32")]),
        Case("float64", f, [In((2, 3, 2), "float64")]),
        Case("empty", f, [In((0, 2), "float32")]),
        Case("last_not_2", f, [In((3, 3), "float32")]),
        Case("last_strided", f, [In((2, 3), "float32", layout="T")]),
        Case("int", f, [In((3, 2), "int64")]),
        Case("0dim", f, [In((), "float32")]),
        Case("step", f, [In((2, 2), "float64", layout="step")]),
    ]


def from_parts_cases(name):
    f = (lambda m, a, b: m.complex(a, b)) if name == "complex" else (lambda m, a, b: m.polar(m.abs(a), b))
    return [
        Case("float32", f, [In((3, 4), "float32"), In((3, 4), "float32")]),
        Case("float64", f, [In((2, 3), "float64"), In((2, 3), "float64")]),
        Case("broadcast", f, [In((2, 1), "float64"), In((3,), "float64")]),
        Case("T", f, [In((3, 3), "float32", layout="T"), In((3, 3), "float32", layout="step")]),
        Case("empty", f, [In((0, 2), "float32"), In((0, 2), "float32")]),
        Case("0dim", f, [In((), "float64"), In((2,), "float64")]),
        Case("mixed", f, [In((2,), "float32"), In((2,), "float64")]),
        Case("int", f, [In((2,), "int64"), In((2,), "int64")]),
        Case("complex", f, [In((2,), "complex64"), In((2,), "complex64")]),
    ]


def reduce_cases(name):
    f = getattr
    cs = []
    for dims in (None, 0, (0, 1), -1):
        if dims is None:
            g = lambda m, a, name=name: getattr(m, name)(a)  # noqa: E731
        else:
            g = lambda m, a, name=name, dims=dims: getattr(m, name)(a, dims, keepdim=dims == 0)  # noqa: E731
        cs.append(Case(f"dims_{dims}", g, [In((3, 4, 2), "complex64")]))
    cs += [
        Case("c128_T", lambda m, a: f(m, name)(a, 1), [In((3, 3), "complex128", layout="T")]),
        Case("empty", lambda m, a: f(m, name)(a, 0), [In((0, 3), "complex64")]),
        Case("0dim", lambda m, a: f(m, name)(a), [In((), "complex128")]),
    ]
    return cs


def matmul_cases():
    f = lambda m, a, b: m.matmul(a, b)  # noqa: E731
    return [
        Case("c64", f, [In((3, 4), "complex64"), In((4, 2), "complex64")]),
        Case("c128_batched", f, [In((2, 3, 4), "complex128"), In((4, 5), "complex128")]),
        Case("T", f, [In((3, 3), "complex128", layout="T"), In((3, 2), "complex128")]),
        Case("vector", f, [In((4,), "complex64"), In((4, 3), "complex64")]),
        Case("empty", f, [In((0, 3), "complex64"), In((3, 2), "complex64")]),
        Case("inner", f, [In((2, 3), "complex64"), In((2, 3), "complex64")]),
    ]


def indexing_cases():
    """The indexing operators on complex tensors: they move (or add) whole elements, so the values are
    exact; the gradients of the selecting ones go back through their adding forms. Indices are inputs,
    so that the cases run again on the meta device."""
    i = In((3,), "int64", kind=[2, 0, 2])  # a repeated index: index_add adds both
    g = In((2, 4), "int64", kind=[0, 2, 1, 0, 2, 1, 0, 1])
    mask = lambda a: a.real > 0  # noqa: E731
    c64, c128 = In((3, 4), "complex64"), In((3, 4), "complex128")
    return {
        "index_select": [Case("c64", lambda m, a, i: m.index_select(a, 0, i), [c64, i]),
                         Case("grad", with_grad(lambda m, a: m.index_select(a, 0, a.real.new_zeros(2).long())), [c128])],
        "index_add": [Case("c128", lambda m, a, i, b: a.index_add(0, i, b, alpha=2), [c128, i, c128])],
        "index_copy": [Case("c64", lambda m, a, i, b: a.index_copy(0, i, b),
                            [c64, In((2,), "int64", kind=[1, 0]), In((2, 4), "complex64")])],
        "index_fill": [Case("c64", lambda m, a, i: a.index_fill(1, i, -2.5), [c64, In((2,), "int64", kind=[0, 3])]),
                       Case("complex_value", lambda m, a, i, v: a.index_fill(1, i, v),
                            [c128, In((1,), "int64", kind=[1]), In((), "complex128")])],
        "gather": [Case("c64", lambda m, a, g: m.gather(a, 1, g), [c64, g]),
                   Case("grad", with_grad(lambda m, a: m.gather(a, 1, a.real.new_zeros(2, 4).long())), [c128])],
        "scatter": [Case("c128", lambda m, a, g, b: a.scatter(1, g, b), [c128, g, In((2, 4), "complex128")]),
                    Case("value", lambda m, a, g: a.scatter(1, g, 1.5), [c64, g])],
        "scatter_add": [Case("c64", lambda m, a, g, b: a.scatter_add(1, g, b), [c64, g, In((2, 4), "complex64")])],
        # sum, prod and mean take complex tensors; amax and amin refuse them (no order), as torch's do.
        # torch refuses the gradient of a complex scatter_reduce; ctorch's is checked by gradcheck
        # (tests/cpp/autograd/gradcheck/complex.cpp), and here its sum against scatter_add's.
        "scatter_reduce": [Case(f"{red}_{inc}_{dt}", lambda m, a, g, b, red=red, inc=inc:
                                a.scatter_reduce(1, g, b, red, include_self=inc), [In((3, 4), dt), g, In((2, 4), dt)])
                           for red in ["sum", "prod", "mean"] for inc in (True, False) for dt in COMPLEX] + [
            Case(red, lambda m, a, g, b, red=red: a.scatter_reduce(1, g, b, red), [c64, g, In((2, 4), "complex64")])
            for red in ["amax", "amin"]] + [
            Case("grad_sum", with_grad(lambda m, a: a.scatter_reduce(1, a.real.new_zeros(2, 4).long(), a[:2], "sum")),
                 [c128], torch_fn=with_grad(lambda m, a: a.scatter_add(1, a.real.new_zeros(2, 4).long(), a[:2])))],
        "masked_fill": [Case("c64", lambda m, a: a.masked_fill(mask(a), 0.5), [c64]),
                        Case("complex_value", lambda m, a: a.masked_fill(mask(a), 1 - 2j), [c128]),
                        Case("grad", with_grad(lambda m, a: a.masked_fill(mask(a), 0.0)), [c128]),
                        Case("complex_into_real", lambda m, a, v: a.masked_fill(a > 0, v),
                             [In((3, 4), "float32"), In((), "complex64")])],
        "masked_scatter": [Case("c128", lambda m, a, b: a.masked_scatter(mask(a), b), [c128, In((12,), "complex128")])],
        "masked_select": [Case("c64", lambda m, a: a[mask(a)], [c64])],
        "take": [Case("c128", lambda m, a, i: m.take(a, i), [c128, In((2, 2), "int64", kind=[11, 0, 5, 5])])],
        "put": [Case("c64", lambda m, a, i, b: a.put(i, b, accumulate=True),
                     [c64, In((3,), "int64", kind=[1, 7, 1]), In((3,), "complex64")])],
        "nonzero": [Case("c64", lambda m, a: m.nonzero(a * (a.real > 0)), [c64])],
        "index_put": [Case("c128", lambda m, a, i, b: a.index_put((i,), b),
                           [c128, In((2,), "int64", kind=[0, 2]), In((2, 4), "complex128")])],
    }


CASES = {
    "view_as_real": part_cases(lambda m, a: m.view_as_real(a)),
    "view_as_complex": view_as_complex_cases(),
    "real": part_cases(lambda m, a: m.real(a)),
    "imag": part_cases(lambda m, a: m.imag(a)),
    "conj": part_cases(lambda m, a: m.conj(a).resolve_conj()),
    "conj_physical": part_cases(lambda m, a: m.conj_physical(a)),
    "resolve_conj": part_cases(lambda m, a: m.resolve_conj(m.conj(a))),
    "angle": part_cases(lambda m, a: m.angle(a)),
    "sgn": part_cases(lambda m, a: m.sgn(a)),
    "complex": from_parts_cases("complex"),
    "polar": from_parts_cases("polar"),
}

# The complex forms of operators whose other cases live in pointwise.py and reduce.py: they are run
# under their own names here, as additional cases.
def nan_to_num_cases():
    """torch 2.x replaces NaN and the infinities in each part on its own; torch 1.13 has no complex
    nan_to_num, so the reference does it to the parts."""
    def by_parts(*args):
        return lambda m, a: m.complex(m.nan_to_num(a.real, *args), m.nan_to_num(a.imag, *args))
    return [Case(dt, lambda m, a: m.nan_to_num(a), [In((4, 6), dt, kind="special")], torch_fn=by_parts())
            for dt in COMPLEX] + [
        Case("values", lambda m, a: m.nan_to_num(a, 1.0, 2.0, -3.0), [In((4, 6), "complex128", kind="special")],
             torch_fn=by_parts(1.0, 2.0, -3.0)),
        Case("grad", with_grad(lambda m, a: m.nan_to_num(a)), [In((3, 4), "complex128")],
             torch_fn=with_grad(by_parts())),
    ]


EXTRA = {
    "nan_to_num": nan_to_num_cases(),
    "add": binary_cases(lambda m, a, b: m.add(a, b, alpha=2)),
    "sub": binary_cases(lambda m, a, b: a - b),
    "mul": binary_cases(lambda m, a, b: a * b),
    "div": binary_cases(lambda m, a, b: a / b),
    "eq": binary_cases(lambda m, a, b: m.eq(a, b)),
    "ne": binary_cases(lambda m, a, b: m.ne(a, a)),
    "abs": complex_cases(lambda m, a: m.abs(a)),
    "neg": complex_cases(lambda m, a: m.neg(a)),
    "exp": complex_cases(lambda m, a: m.exp(a)),
    "log": complex_cases(lambda m, a: m.log(a)),
    "sqrt": complex_cases(lambda m, a: m.sqrt(a)),
    "tanh": complex_cases(lambda m, a: m.tanh(a)),
    **{name: math_cases(name) for name in ["sin", "cos", "tan", "sinh", "cosh", "asin", "acos", "atan", "asinh",
                                           "acosh", "atanh", "sigmoid", "reciprocal", "rsqrt", "log2", "log10",
                                           "square"]},
    "expm1": math_cases("expm1", torch_fn=lambda m, a: m.exp(a) - 1),
    "exp2": math_cases("exp2", torch_fn=lambda m, a: m.exp(a * math.log(2))),
    "log1p": math_cases("log1p", torch_fn=lambda m, a: m.log(1 + a)),
    **{name: complex_cases(lambda m, a, name=name: getattr(m, name)(a)) +
       [Case("special", lambda m, a, name=name: getattr(m, name)(a), [In((4, 6), "complex128", kind="special")])]
       for name in ["isnan", "isinf", "isfinite"]},
    "sum": reduce_cases("sum"),
    "mean": reduce_cases("mean"),
    # var and std of a complex tensor are real: var(real) + var(imag); the mean of var_mean is complex.
    "var": reduce_cases("var") + [Case("grad", with_grad(lambda m, a: a.var(0)), [In((3, 4), "complex128")]),
                                  Case("correction", lambda m, a: m.var(a, 1, correction=0), [In((3, 4), "complex64")])],
    "std": reduce_cases("std") + [Case("grad", with_grad(lambda m, a: a.std(1)), [In((3, 4), "complex128")])],
    "var_mean": [Case("c64", lambda m, a: m.var_mean(a, 1), [In((3, 4), "complex64")]),
                 Case("grad", with_grad(lambda m, a: m.var_mean(a, 0)[1]), [In((3, 4), "complex128")])],
    "std_mean": [Case("c128", lambda m, a: m.std_mean(a, 0, keepdim=True), [In((3, 4), "complex128")])],
    "prod": [Case("all", lambda m, a: m.prod(a), [In((3, 4), "complex64")]),
             Case("dim", lambda m, a: m.prod(a, 1), [In((3, 4, 2), "complex128")]),
             Case("keepdim_T", lambda m, a: m.prod(a, 0, keepdim=True), [In((3, 4), "complex128", layout="T")]),
             Case("empty", lambda m, a: m.prod(a, 0), [In((0, 3), "complex64")]),
             Case("0dim", lambda m, a: m.prod(a), [In((), "complex128")]),
             Case("grad", with_grad(lambda m, a: m.prod(a, 1)), [In((3, 4), "complex128")]),
             Case("grad_zero", with_grad(lambda m, a: m.prod(a, 0)),
                  [In((3, 2), "complex128", kind=[1 + 1j, 2, 0, 1j, 3 - 1j, 0])])],
    "cumprod": [Case("c64", lambda m, a: m.cumprod(a, 1), [In((3, 4), "complex64")]),
                Case("c128_T", lambda m, a: m.cumprod(a, 0), [In((3, 4), "complex128", layout="T")]),
                Case("grad", with_grad(lambda m, a: m.cumprod(a, 1)), [In((3, 4), "complex128")]),
                Case("grad_zeros", with_grad(lambda m, a: m.cumprod(a, 0)),
                     [In((3, 2), "complex128", kind=[1 + 1j, 2, 0, 1j, 3 - 1j, 0])])],
    "cumsum": [Case("c64", lambda m, a: m.cumsum(a, 0), [In((3, 4), "complex64")]),
               Case("c128_T", lambda m, a: m.cumsum(a, -1), [In((3, 4), "complex128", layout="T")]),
               Case("empty", lambda m, a: m.cumsum(a, 0), [In((0, 3), "complex64")]),
               Case("grad", with_grad(lambda m, a: m.cumsum(a, 1)), [In((3, 4), "complex128")])],
    # The norms of a complex tensor are the norms of its elements' moduli, real.
    "linalg_vector_norm": [Case(f"ord_{p}", lambda m, a, p=p: m.linalg.vector_norm(a, p), [In((3, 4), "complex64")])
                           for p in [2, 1, 3, float("inf"), 0]] + [
        Case("dim", lambda m, a: m.linalg.vector_norm(a, 2, dim=1, keepdim=True), [In((3, 4), "complex128")]),
        Case("grad", with_grad(lambda m, a: m.linalg.vector_norm(a, 2, dim=0)), [In((3, 4), "complex128")]),
        Case("grad_ord1", with_grad(lambda m, a: m.linalg.vector_norm(a, 1)), [In((3, 4), "complex128")]),
        Case("grad_ord3", with_grad(lambda m, a: m.linalg.vector_norm(a, 3)), [In((3, 4), "complex128")]),
        Case("real_dtype", lambda m, a: m.linalg.vector_norm(a, dtype=m.float64), [In((3, 4), "complex64")])],
    "linalg_norm": [Case(f"matrix_{o}", lambda m, a, o=o: m.linalg.norm(a, o), [In((2, 3, 4), "complex128")])
                    for o in ["fro", "nuc", 1, -1, float("inf"), 2, -2]] + [
        Case("grad_fro", with_grad(lambda m, a: m.linalg.norm(a, "fro")), [In((3, 4), "complex128")]),
        Case("grad_nuc", with_grad(lambda m, a: m.linalg.norm(a, "nuc")), [In((3, 4), "complex128")])],
    "nuclear_norm": [Case("c64", lambda m, a: m.nuclear_norm(a), [In((3, 4), "complex64")])],
    "norm": [Case("c64", lambda m, a: a.norm(), [In((3, 4), "complex64")]),
             Case("p1_dim", lambda m, a: m.norm(a, 1, dim=0), [In((3, 4), "complex128")])],
    "matmul": matmul_cases(),
    **indexing_cases(),
    "pow": binary_cases(lambda m, a, b: m.pow(a, b)) + [
        Case(f"number_{e}", lambda m, a, e=e: a ** e, [In((3, 4), "complex128")]) for e in [2, 3, -2, 0.5, -0.5, -1, 2.5, 1j]
    ] + [Case("rpow", lambda m, a: 2 ** a, [In((3, 4), "complex64")]),
         Case("grad", with_grad(lambda m, a: a ** 3), [In((3, 4), "complex128")]),
         Case("grad_tensor", lambda m, a, b: (lambda x, y: (lambda r: ((r * r.conj()).real.sum().backward(), x.grad,
                                                                         y.grad)[1:])(m.pow(x, y)))(
             a.detach().requires_grad_(), b.detach().requires_grad_()),
             [In((3, 4), "complex128"), In((3, 4), "complex128")])],
    "flip": [
        Case("c64", lambda m, a: m.flip(a, [0, 1]), [In((3, 4), "complex64")]),
        Case("c128_T", lambda m, a: m.flip(a, [1]), [In((3, 3), "complex128", layout="T")]),
        Case("empty", lambda m, a: m.flip(a, [0]), [In((0, 3), "complex64")]),
    ],
    "isclose": [
        Case("c64", lambda m, a, b: m.isclose(a, a + b * 1e-7, rtol=1e-6),
             [In((3, 4), "complex64"), In((3, 4), "complex64")]),
        Case("c128", lambda m, a, b: m.isclose(a, b, rtol=0.5, atol=0.5),
             [In((3, 4), "complex128"), In((3, 4), "complex128")]),
        Case("equal_nan", lambda m, a, b: m.isclose(a * float("nan"), b * float("nan"), equal_nan=True),
             [In((2, 3), "complex64"), In((2, 3), "complex64")]),
    ],
}
