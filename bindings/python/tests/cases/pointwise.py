"""Differential cases of the pointwise family: unary math, rounding, predicates, activations,
binary and ternary arithmetic, bitwise and logical operators."""

import operator

import torch

from conftest import DTYPE_NAMES
from difftest import Case, In

UNIT = [-0.875, -0.5, -0.25, 0.0, 0.125, 0.5, 0.75, 0.9375, -1.0, 1.0, 0.375, -0.625]  # asin, atanh, erfinv
ABOVE_ONE = [1.0, 1.5, 2.0, 3.25, 7.0, 1.125, 4.0, 10.0, 2.5, 1.25, 5.0, 6.0]  # acosh
HALVES = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.25, -0.75, 3.5, -3.5, 1.0, -0.0]  # round half to even


def _fn(name, *args, **kw):
    return lambda m, *ts: getattr(m, name)(*ts, *args, **kw)


def _method(name, *args, **kw):
    return lambda m, a, *ts: getattr(a, name)(*ts, *args, **kw)


def _inplace_method(name, *args, **kw):
    """x.name_(...) on a clone of the first input; returns the clone (the method returns self)."""
    def f(m, a, *ts):
        c = a.clone()
        r = getattr(c, name)(*ts, *args, **kw)
        assert r is c or (r.data_ptr() == c.data_ptr() and tuple(r.shape) == tuple(c.shape))
        return c
    return f


def _layouts(f, shape=(3, 4), dtype="float32", kind="default"):
    """The shape properties every operator gets: 0-dim, empty, non-contiguous, large."""
    return [
        Case("0dim", f, [In((), dtype, kind=kind)]),
        Case("empty", f, [In((0, 3), dtype, kind=kind)]),
        Case("transposed", f, [In(shape, dtype, layout="T", kind=kind)]),
        Case("stepped", f, [In(shape, dtype, layout="step", kind=kind)]),
        Case("expanded", f, [In(shape, dtype, layout="expand", kind=kind)]),
        Case("large_transposed", f, [In((67, 129), dtype, layout="T", kind=kind)]),
    ]


# ---------------------------------------------------------------------------------------------------
# Unary


FLOAT_UNARY = ["exp2", "expm1", "log1p", "log2", "log10", "tan", "asin", "acos", "atan", "sinh", "cosh",
               "asinh", "acosh", "atanh", "erf", "erfc", "erfinv", "sinc", "deg2rad", "rad2deg", "lgamma",
               "digamma", "i0"]
DOMAIN = {"asin": UNIT, "acos": UNIT, "atanh": UNIT, "erfinv": UNIT, "acosh": ABOVE_ONE}
ROUNDING = ["floor", "ceil", "round", "trunc", "frac", "sign", "fix"]
PREDICATES = ["isnan", "isinf", "isfinite", "isposinf", "isneginf", "isreal", "logical_not", "signbit"]


def unary_cases(op):
    f = _fn(op)
    cs = [Case(dt, f, [In((3, 4), dt)]) for dt in DTYPE_NAMES]
    cs += _layouts(f)
    cs += [
        Case("special_values", f, [In((3, 4), kind="special")]),
        Case("special_values_float64", f, [In((3, 4), "float64", kind="special")]),
        Case("special_values_float16", f, [In((3, 4), "float16", kind="special")]),
        Case("special_values_bfloat16", f, [In((3, 4), "bfloat16", kind="special")]),
        Case("positive", f, [In((3, 4), kind="pos")]),
        Case("method", lambda m, a: getattr(a, op)(), [In((2, 5))]),
        Case("extra_tensor_argument", lambda m, a, b: getattr(m, op)(a, b), [In((3, 4)), In((3, 4))]),
    ]
    if op not in PREDICATES:  # x.floor_(): written into x, dtype kept (an int tensor refuses exp_)
        for dt in ("float32", "float16", "int32", "bool"):
            cs.append(Case(f"inplace_{dt}", _inplace_method(op + "_"), [In((3, 4), dt, layout="T")]))
    if op in DOMAIN:
        for dt in ("float32", "float64", "bfloat16", "float16"):
            cs.append(Case(f"domain_{dt}", f, [In((3, 4), dt, kind=DOMAIN[op])]))
    if op in ("round", "floor", "ceil", "trunc", "frac"):
        cs.append(Case("halves", f, [In((3, 4), kind=HALVES)]))
        cs.append(Case("halves_float64", f, [In((3, 4), "float64", kind=HALVES)]))
        cs.append(Case("int64_large", f, [In((2,), "int64", kind=[2 ** 62 + 1, -(2 ** 61) - 3])]))
    if op == "bitwise_not":
        cs.append(Case("int8_extremes", f, [In((2,), "int8", kind=[-128, 127])]))
        cs.append(Case("operator", lambda m, a: ~a, [In((3, 4), "int32")]))
        cs.append(Case("operator_bool", lambda m, a: ~a, [In((3, 4), "bool")]))
    if op == "square":
        cs.append(Case("int16_wide", f, [In((3, 4), "int16", kind="pos")]))
    return cs


def round_decimals_cases():
    cs = [Case(f"{d}_{dt}", _fn("round", decimals=d), [In((3, 4), dt, kind=HALVES)])
          for d in (1, 2, -1, 0) for dt in ("float32", "float64", "bfloat16", "float16")]
    cs += [Case(f"ints_{dt}", _fn("round", decimals=1), [In((3, 4), dt)]) for dt in ("int32", "bool", "uint8")]
    cs += _layouts(_fn("round", decimals=1))
    cs += [
        Case("special_values", _fn("round", decimals=2), [In((3, 4), kind="special")]),
        Case("values", _fn("round", decimals=3), [In((4,), "float64", kind=[1.23456, -0.0005, 2.0005, 1e300])]),
        Case("method", _method("round", decimals=-1), [In((3, 4), kind="pos")]),
    ]
    return cs


def nan_to_num_cases():
    f = _fn("nan_to_num")
    cs = [Case(dt, f, [In((3, 4), dt, kind="special")]) for dt in DTYPE_NAMES]
    cs += _layouts(f, kind="special")
    cs += [
        Case("nan_value", _fn("nan_to_num", nan=1.5), [In((3, 4), kind="special")]),
        Case("all_values", _fn("nan_to_num", nan=-1.0, posinf=100.0, neginf=-200.0), [In((3, 4), kind="special")]),
        Case("posinf_only_float64", _fn("nan_to_num", posinf=7.0), [In((3, 4), "float64", kind="special")]),
        Case("positional", _fn("nan_to_num", 2.0, 3.0, -3.0), [In((3, 4), "float16", kind="special")]),
        Case("bfloat16_defaults", f, [In((3, 4), "bfloat16", kind="special")]),
        Case("method", _method("nan_to_num", nan=0.5), [In((3, 4), kind="special")]),
        Case("tensor_as_nan", lambda m, a, b: m.nan_to_num(a, nan=b), [In((3, 4)), In((3, 4))]),
    ]
    return cs


# Negative non-integers, poles, zeros of both signs and large values: the gamma family's hard cases.
GAMMA_POINTS = [-2.5, -1.0, -0.0, 0.0, 0.5, 1.0, 2.0, -3.75, 9.5, 10.0, 35.5, 1e-3]


def special_cases():
    """torch.special names (special.i1 is the operator special_i1), logit's eps, polygamma's n
    and frexp's two results."""
    cs = {}
    i1 = lambda m, a: m.special.i1(a)  # noqa: E731
    cs["special_i1"] = [Case(dt, i1, [In((3, 4), dt)]) for dt in DTYPE_NAMES] + _layouts(i1) + [
        Case("special_values", i1, [In((3, 4), kind="special")]),
        Case("large_float64", i1, [In((12,), "float64", kind=[-700.0, -30.0, -20.5, -0.0, 19.5, 20.5, 25.0, 100.0,
                                                                  500.0, 709.0, 1e-8, 3.0])]),
        Case("extra_tensor_argument", lambda m, a, b: m.special.i1(a, b), [In((3, 4)), In((3, 4))]),
    ]
    cs["i0"] = [Case("large_float64", _fn("i0"), [In((12,), "float64", kind=[-700.0, -30.0, -20.5, -0.0, 19.5, 20.5,
                                                                            25.0, 100.0, 500.0, 709.0, 1e-8, 3.0])])]
    for op in ("lgamma", "digamma"):
        cs[op] = [Case("poles_and_negatives", _fn(op), [In((12,), dt, kind=GAMMA_POINTS)]) for dt in ("float32", "float64")]
    logit = _fn("logit")
    unit_or_default = lambda dt: UNIT if dt.startswith(("float", "bfloat")) else "default"  # noqa: E731
    cs["logit"] = [Case(dt, logit, [In((3, 4), dt, kind=unit_or_default(dt))]) for dt in DTYPE_NAMES] + _layouts(logit) + [
        Case("eps", _fn("logit", eps=0.1), [In((3, 4), kind=UNIT)]),
        Case("eps_float64", _fn("logit", 0.25), [In((3, 4), "float64", kind=UNIT)]),
        Case("special_values", logit, [In((3, 4), kind="special")]),
        Case("method", _method("logit", eps=0.05), [In((3, 4), kind=UNIT)]),
        Case("special_namespace", lambda m, a: m.special.logit(a), [In((3, 4), kind=UNIT)]),
        Case("inplace", _inplace_method("logit_"), [In((3, 4), kind=UNIT)]),
        Case("extra_tensor_argument", lambda m, a, b: m.logit(a, b), [In((3, 4)), In((3, 4))]),
    ]
    cs["polygamma"] = [Case(f"n{n}_{dt}", lambda m, a, n=n: m.polygamma(n, a), [In((12,), dt, kind=GAMMA_POINTS)])
                       for n in (0, 1, 2, 3, 5) for dt in ("float32", "float64")]
    cs["polygamma"] += _layouts(lambda m, a: m.polygamma(1, a)) + [
        Case(dt, lambda m, a: m.polygamma(2, a), [In((3, 4), dt)]) for dt in DTYPE_NAMES] + [
        Case("negative_n", lambda m, a: m.polygamma(-1, a), [In((3, 4))]),
        Case("special_namespace", lambda m, a: m.special.polygamma(1, a), [In((3, 4), kind="pos")]),
    ]
    frexp = _fn("frexp")
    cs["frexp"] = [Case(dt, frexp, [In((3, 4), dt, kind="special")]) for dt in DTYPE_NAMES] + _layouts(frexp) + [
        Case("method", _method("frexp"), [In((3, 4))]),
    ]
    for name, special in (("igamma", "gammainc"), ("igammac", "gammaincc")):
        cs[name] = [
            Case("special_namespace", lambda m, a, b, s=special: getattr(m.special, s)(a, b),
                 [In((3, 4), kind="pos"), In((3, 4), kind="pos")]),
            Case("inplace", lambda m, a, b, n=name: getattr(a, n + "_")(b), [In((3, 4), kind="pos"), In((3, 4))]),
            Case("grad_other", lambda m, a, b, n=name: m.autograd.grad(getattr(m, n)(a, b.requires_grad_()).sum(), b)[0],
                 [In((3, 4), "float64", kind="pos"), In((3, 4), "float64", kind="pos")]),
            Case("grad_self_refused", lambda m, a, b, n=name: m.autograd.grad(getattr(m, n)(a.requires_grad_(), b).sum(),
                                                                              a)[0],
                 [In((3, 4), "float64", kind="pos"), In((3, 4), "float64", kind="pos")]),
        ]
    cs["xlogy"] = [
        Case("scalar_self", lambda m, b: m.xlogy(2.0, b), [In((3, 4), kind="pos")]),
        Case("special_scalar_self", lambda m, b: m.special.xlogy(3, b), [In((3, 4), "float64", kind="pos")]),
        Case("zeros_and_nans", _fn("xlogy"), [In((3, 4), kind="special"), In((3, 4), kind="special")]),
    ]
    return cs


# ---------------------------------------------------------------------------------------------------
# Activations

ACTIVATIONS = {
    "gelu": [{}, {"approximate": "tanh"}, {"approximate": "none"}],
    "silu": [{}],
    "mish": [{}],
    "softplus": [{}, {"beta": 2}, {"beta": 0.5, "threshold": 1}, {"beta": 3, "threshold": 2.5}],
    "elu": [{}, {"alpha": 0.5}, {"alpha": 1.5, "scale": 2.0, "input_scale": 0.5}],
    "selu": [{}],
    "leaky_relu": [{}, {"negative_slope": 0.2}, {"negative_slope": -1.5}],
    "hardtanh": [{}, {"min_val": -2.0, "max_val": 0.5}, {"min_val": 0, "max_val": 6}],
    "hardsigmoid": [{}],
    "hardswish": [{}],
    "relu6": [{}],
    "celu": [{}, {"alpha": 0.5}, {"alpha": 2.0}],
    "hardshrink": [{}, {"lambd": 1.0}, {"lambd": 0.0}],
    "softshrink": [{}, {"lambd": 1.0}, {"lambd": 0.0}],
    "softsign": [{}],
    "tanhshrink": [{}],
}
# Activations of torch.nn.functional without an inplace= argument.
NO_INPLACE = {"gelu", "softplus", "hardshrink", "softshrink", "softsign", "tanhshrink"}


def _functional(name, *args, **kw):
    return lambda m, *ts: getattr(m.nn.functional, name)(*ts, *args, **kw)


def activation_cases(op):
    """torch has most activations only in torch.nn.functional; ctorch has them there and as
    ctorch.<name> (every operator is)."""
    cs = []
    for i, kw in enumerate(ACTIVATIONS[op]):
        f = _functional(op, **kw)
        for dt in ("float32", "float64", "float16", "bfloat16"):
            cs.append(Case(f"kw{i}_{dt}", f, [In((3, 4), dt)]))
        cs.append(Case(f"kw{i}_special", f, [In((3, 4), kind="special")]))
    f = _functional(op)
    cs += _layouts(f)
    # integer and bool inputs: torch refuses them (hardtanh takes signed integers)
    cs += [Case(f"{dt}", f, [In((3, 4), dt)]) for dt in ("bool", "uint8", "int32", "int64")]
    cs.append(Case("large", f, [In((7, 1000), "float64")]))
    cs.append(Case("extra_tensor_argument", lambda m, a, b: getattr(m.nn.functional, op)(a, b, b),
                   [In((3, 4)), In((3, 4))]))
    cs.append(Case("inplace_false", _functional(op, inplace=False) if op not in NO_INPLACE else f, [In((3, 4))]))
    if op not in NO_INPLACE:
        def inplace_true(m, a):
            c = a.clone()
            r = getattr(m.nn.functional, op)(c, inplace=True)
            assert r is c or r.data_ptr() == c.data_ptr()
            return c
        cs.append(Case("inplace_true", inplace_true, [In((3, 4), layout="step")]))
    if op == "gelu":
        cs.append(Case("bad_approximate", _functional("gelu", approximate="fast"), [In((3, 4))]))
    if op == "hardtanh":
        cs.append(Case("int16", _functional("hardtanh", min_val=-2, max_val=3), [In((3, 4), "int16")]))
        cs.append(Case("positional", _functional("hardtanh", -0.5, 2.0), [In((3, 4))]))
    if op in ("elu", "leaky_relu"):
        cs.append(Case("positional", _functional(op, 0.3), [In((3, 4))]))
    if op in ("hardsigmoid", "hardswish", "hardtanh", "relu6", "hardshrink", "softshrink"):
        cs.append(Case("around_bounds", f, [In((3, 4), "float64", kind=[-3.5, -3, -2.5, -1, -0.5, 0, 0.5, 1, 2.5, 3, 3.5, 9])]))
    if op in ("hardshrink", "softshrink", "celu"):
        cs.append(Case("positional", _functional(op, 0.25), [In((3, 4))]))
        # torch.celu, torch._C._nn.softshrink and Tensor.hardshrink; ctorch.<op> for each
        def outside_functional(m, a):
            if op == "hardshrink":
                return a.hardshrink(0.25)
            if m is torch and op == "softshrink":
                return torch._C._nn.softshrink(a, 0.25)
            return getattr(m, op)(a, 0.25)
        cs.append(Case("torch_namespace", outside_functional, [In((3, 4))]))
    if op == "softshrink":
        cs.append(Case("negative_lambd", _functional(op, -0.5), [In((3, 4))]))
        # torch 1.13's vectorized kernel gives 0 for NaN in 8-lane blocks, its scalar tail NaN;
        # ctorch keeps NaN everywhere, the formula's result, which the reference computes.
        for i, kw in enumerate(ACTIVATIONS[op]):
            cs = [c for c in cs if c.id != f"kw{i}_special"]
            lambd = kw.get("lambd", 0.5)
            cs.append(Case(f"kw{i}_special", _functional(op, **kw), [In((3, 4), kind="special")],
                           torch_fn=lambda m, a, lambd=lambd: m.where(a > lambd, a - lambd,
                                                                        m.where(a < -lambd, a + lambd, a * 0))))
    if op == "celu":
        cs.append(Case("zero_alpha", _functional(op, 0.0), [In((3, 4))]))
    if op == "softplus":
        cs.append(Case("large_values", f, [In((4,), "float32", kind=[30.0, 19.5, 20.5, -40.0])]))
    return cs


def log_sigmoid_cases():
    f = _functional("logsigmoid")
    cs = [Case(dt, f, [In((3, 4), dt)]) for dt in ("float32", "float64", "float16", "bfloat16")]
    return cs + _layouts(f) + [
        Case("special", f, [In((3, 4), kind="special")]),
        Case("large_magnitudes", f, [In((6,), "float32", kind=[-200.0, -30.0, -1e-3, 0.0, 30.0, 200.0])]),
        Case("aten_name", lambda m, a: m._C._nn.log_sigmoid(a) if m.__name__ == "torch" else m.log_sigmoid(a),
             [In((3, 4))]),
        Case("int64", f, [In((3, 4), "int64")]),
        Case("bool", f, [In((3, 4), "bool")]),
    ]


def threshold_cases():
    f = _functional("threshold", 0.1, 20.0)
    cs = [Case(dt, f, [In((3, 4), dt)]) for dt in ("float32", "float64", "float16", "bfloat16", "int32", "int64", "uint8")]

    def inplace_true(m, a):
        c = a.clone()
        m.nn.functional.threshold(c, 0.0, -1.0, inplace=True)
        return c
    return cs + _layouts(f) + [
        Case("special", f, [In((3, 4), kind="special")]),
        Case("torch_namespace", lambda m, a: m.threshold(a, -0.5, 0.0), [In((3, 4), "float64")]),
        Case("inplace_true", inplace_true, [In((3, 4), layout="step")]),
        Case("int_threshold", _functional("threshold", 2, 100), [In((3, 4), "int64", kind="small")]),
        Case("bool", f, [In((3, 4), "bool")]),
        Case("missing_value", lambda m, a: m.nn.functional.threshold(a, 0.5), [In((3, 4))]),
    ]


def glu_cases():
    f = _functional("glu")
    cs = [Case(dt, f, [In((3, 4), dt)]) for dt in ("float32", "float64", "float16", "bfloat16")]
    return cs + [
        Case("dim0", _functional("glu", 0), [In((4, 3))]),
        Case("dim1_3d", _functional("glu", dim=1), [In((2, 6, 3), "float64")]),
        Case("transposed", f, [In((3, 4), layout="T")]),
        Case("stepped", f, [In((3, 4), layout="step")]),
        Case("expanded", f, [In((3, 4), "float64", layout="expand")]),
        Case("empty_batch", f, [In((0, 4))]),
        Case("empty_halved", f, [In((3, 0))]),
        Case("ctorch_namespace", lambda m, a: m.glu(a, -1) if m is not torch else m.nn.functional.glu(a, -1),
             [In((2, 4))]),
        Case("odd", f, [In((3, 5))]),
        Case("0dim", f, [In(())]),
        Case("bad_dim", _functional("glu", 2), [In((3, 4))]),
        Case("int64", f, [In((3, 4), "int64")]),
    ]


def prelu_cases():
    f = lambda m, x, w: m.nn.functional.prelu(x, w)  # noqa: E731
    cs = [Case(dt, f, [In((2, 3, 4), dt), In((3,), dt)]) for dt in ("float32", "float64", "bfloat16")]
    return cs + [
        Case("one_weight", f, [In((2, 3, 4)), In((1,))]),
        Case("2d", f, [In((5, 3)), In((3,))]),
        Case("1d", f, [In((5,)), In((1,))]),
        Case("4d", f, [In((2, 3, 2, 2), "float64"), In((3,), "float64")]),
        Case("transposed", f, [In((3, 4), layout="T"), In((4,))]),
        Case("stepped", f, [In((2, 3, 4), layout="step"), In((3,))]),
        Case("expanded", f, [In((2, 3, 4), layout="expand"), In((1,))]),
        Case("empty_batch", f, [In((0, 3, 4)), In((3,))]),
        Case("special", f, [In((3, 4), kind="special"), In((4,))]),
        Case("weight_mismatch", f, [In((2, 3, 4)), In((2,))]),
        Case("0dim", f, [In(()), In((1,))]),
        Case("int64", f, [In((2, 3), "int64"), In((3,), "int64")]),
    ]


CASES = {}
for _op in FLOAT_UNARY + ROUNDING + PREDICATES + ["square", "bitwise_not"]:
    CASES[_op] = unary_cases(_op)
CASES["round"] += round_decimals_cases()
CASES["nan_to_num"] = nan_to_num_cases()
for _op in ACTIVATIONS:
    CASES[_op] = activation_cases(_op)
CASES["log_sigmoid"] = log_sigmoid_cases()
CASES["threshold"] = threshold_cases()
CASES["glu"] = glu_cases()
CASES["prelu"] = prelu_cases()


# ---------------------------------------------------------------------------------------------------
# Binary

BINARY = {  # operator: (dtypes, value kind of the divisor / second operand, tensor-scalar overload)
    "atan2": (DTYPE_NAMES, "default", False),
    "hypot": (DTYPE_NAMES, "default", False),
    "fmod": (DTYPE_NAMES, "pos", True),
    "remainder": (DTYPE_NAMES, "pos", True),
    "floor_divide": (DTYPE_NAMES, "pos", True),
    "true_divide": (DTYPE_NAMES, "pos", True),
    "bitwise_and": (DTYPE_NAMES, "default", True),
    "bitwise_or": (DTYPE_NAMES, "default", True),
    "bitwise_xor": (DTYPE_NAMES, "default", True),
    "bitwise_left_shift": (DTYPE_NAMES, "exp", True),
    "bitwise_right_shift": (DTYPE_NAMES, "exp", True),
    "logical_and": (DTYPE_NAMES, "default", False),
    "logical_or": (DTYPE_NAMES, "default", False),
    "logical_xor": (DTYPE_NAMES, "default", False),
    "copysign": (DTYPE_NAMES, "default", True),
    "logaddexp": (DTYPE_NAMES, "default", False),
    "logaddexp2": (DTYPE_NAMES, "default", False),
    "xlogy": (DTYPE_NAMES, "pos", True),
    "igamma": (DTYPE_NAMES, "pos", False),
    "igammac": (DTYPE_NAMES, "pos", False),
    "nextafter": (DTYPE_NAMES, "default", False),
    "heaviside": (DTYPE_NAMES, "default", False),
    "fmax": (DTYPE_NAMES, "default", False),
    "fmin": (DTYPE_NAMES, "default", False),
    "gcd": (DTYPE_NAMES, "default", False),
    "lcm": (DTYPE_NAMES, "default", False),
    "float_power": (DTYPE_NAMES, "default", True),
    "ldexp": (DTYPE_NAMES, "exp", False),
}
PY_OPERATORS = {"bitwise_and": operator.and_, "bitwise_or": operator.or_, "bitwise_xor": operator.xor,
                "bitwise_left_shift": operator.lshift, "bitwise_right_shift": operator.rshift,
                "remainder": operator.mod, "floor_divide": operator.floordiv}
SIGNED_PAIRS = [-7.0, 7.0, -7.0, 7.0, 5.5, -5.5, 0.0, -0.0, 1.0, -3.0, 7.5, -2.25]
SIGNED_DIVISORS = [2.0, 2.0, -2.0, -2.0, 2.5, 2.5, 3.0, 3.0, -1.0, 1.5, -2.5, 0.75]


# No in-place method: torch has none (logaddexp, fmax...).
NO_INPLACE = {"true_divide", "logaddexp", "logaddexp2", "fmax", "fmin"}


def binary_cases(op):
    dtypes, rk, has_scalar = BINARY[op]
    f = _fn(op)
    integer_only = op.startswith("bitwise") or op in ("gcd", "lcm")
    base = "int32" if integer_only else "float32"
    cs = [Case(dt, f, [In((3, 4), dt), In((3, 4), dt, kind=rk)]) for dt in dtypes]
    cs += [
        Case("bcast_3x4_4", f, [In((3, 4), base), In((4,), base, kind=rk)]),
        Case("bcast_3x1_1x4", f, [In((3, 1), base), In((1, 4), base, kind=rk)]),
        Case("0dim_lhs", f, [In((), base), In((3, 4), base, kind=rk)]),
        Case("0dim_both", f, [In((), base), In((), base, kind=rk)]),
        Case("empty", f, [In((0, 4), base), In((4,), base, kind=rk)]),
        Case("transposed", f, [In((3, 4), base, layout="T"), In((3, 4), base, layout="T", kind=rk)]),
        Case("stepped", f, [In((3, 4), base, layout="step"), In((3, 4), base, kind=rk)]),
        Case("expanded", f, [In((3, 4), base, layout="expand"), In((3, 4), base, kind=rk)]),
        Case("large_strided", f, [In((33, 65), base, layout="T"), In((65,), base, layout="step", kind=rk)]),
        Case("mismatch", f, [In((3, 4), base), In((3,), base, kind=rk)]),
        Case("mixed_int8_int64", f, [In((3, 4), "int8"), In((4,), "int64", kind=rk)]),
        Case("mixed_uint8_int8", f, [In((3, 4), "uint8"), In((4,), "int8", kind=rk)]),
        Case("mixed_int32_float64_0dim", f, [In((3, 4), "int32"), In((), "float64", kind=rk)]),
        Case("mixed_float16_float32", f, [In((3, 4), "float16"), In((4,), "float32", kind=rk)]),
        Case("mixed_bool_int32", f, [In((3, 4), "bool"), In((4,), "int32", kind=rk)]),
        Case("mixed_bfloat16_int64", f, [In((3, 4), "bfloat16"), In((4,), "int64", kind=rk)]),
        Case("method", lambda m, a, b: getattr(a, op)(b), [In((3, 4), base), In((4,), base, kind=rk)]),
        Case("special_values", f, [In((3, 4), kind="special"), In((3, 4), kind="special")]),
        Case("special_values_float64", f, [In((3, 4), "float64", kind="special"), In((3, 4), "float64", kind="special")]),
    ]
    if has_scalar:
        scalars = {"int": 3, "negint": -2, "float": 1.5, "bool": True}
        if "shift" in op:
            del scalars["negint"]  # see wide_shifts below
        for sname, s in scalars.items():
            for dt in ("bool", "uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64"):
                cs.append(Case(f"scalar_{sname}_{dt}", lambda m, a, s=s: getattr(m, op)(a, s), [In((3, 4), dt, kind=rk)]))
    else:
        cs.append(Case("scalar_refused", lambda m, a: getattr(m, op)(a, 2), [In((3, 4))]))
    if op in PY_OPERATORS:
        pyop = PY_OPERATORS[op]
        for dt in ("int32", "uint8", "int64", "bool", "float32", "float16"):
            cs.append(Case(f"operator_{dt}", lambda m, a, b: pyop(a, b), [In((3, 4), dt), In((4,), dt, kind=rk)]))
            cs.append(Case(f"operator_scalar_{dt}", lambda m, a: pyop(a, 3), [In((3, 4), dt)]))
            cs.append(Case(f"roperator_scalar_{dt}", lambda m, a: pyop(5, a), [In((3, 4), dt, kind=rk)]))
    if op not in NO_INPLACE:
        for da, db in (("float32", "float32"), ("int32", "int64"), ("float16", "float32"), ("int16", "float32"),
                       ("bool", "bool"), ("int64", "uint8")):
            cs.append(Case(f"inplace_{da}_{db}", _inplace_method(op + "_"), [In((3, 4), da), In((4,), db, kind=rk)]))
        cs.append(Case("inplace_cannot_grow", _inplace_method(op + "_"), [In((4,), base), In((3, 4), base, kind=rk)]))
        if op == "float_power":  # its float64 result fits a float64 self only
            cs.append(Case("inplace_float64_float32", _inplace_method(op + "_"),
                           [In((3, 4), "float64"), In((4,), "float32", kind=rk)]))
        if has_scalar:
            cs.append(Case("inplace_scalar", _inplace_method(op + "_", 3), [In((3, 4), base)]))
    if op in PY_OPERATORS:
        cs.append(Case("inplace_operator", lambda m, a, b: _augmented(op, a.clone(), b),
                       [In((3, 4), base), In((4,), base, kind=rk)]))
    if op in ("fmod", "remainder", "floor_divide", "true_divide"):
        for dt in ("float32", "float64", "bfloat16", "float16"):
            cs.append(Case(f"signs_{dt}", f, [In((3, 4), dt, kind=SIGNED_PAIRS), In((3, 4), dt, kind=SIGNED_DIVISORS)]))
        cs.append(Case("signs_int64", f, [In((3, 4), "int64", kind=[int(v) for v in SIGNED_PAIRS]),
                                          In((3, 4), "int64", kind=[int(v) or 1 for v in SIGNED_DIVISORS])]))
        cs.append(Case("int_by_minus_one", f, [In((3,), "int8", kind=[-128, 127, 5]), In((3,), "int8", kind=[-1, -1, -1])]))
        cs.append(Case("float_by_zero", f, [In((4,), kind=[1.0, -1.0, 0.0, 2.5]), In((4,), kind=[0.0, 0.0, 0.0, -0.0])]))
        if op != "true_divide":
            cs.append(Case("int_by_zero", f, [In((4,), "int32", kind=[1, -1, 0, 5]), In((4,), "int32", kind=[1, 0, 2, 3])]))
    if op.startswith("bitwise_") and "shift" in op:
        # Shift counts within the width only: beyond it (or negative) torch 1.13 shifts by the count
        # modulo 32 or 64 (the x86 instruction's masking of an undefined C++ shift); ctorch gives
        # what later PyTorch defines (0, or the sign fill to the right), see docs/operators/pointwise.md.
        for dt in ("int8", "uint8", "int16", "int64"):
            cs.append(Case(f"wide_shifts_{dt}", f, [In((6,), dt, kind=[1, 100, 3, 7, 0, 5]),
                                                    In((6,), dt, kind=[0, 7, 6, 7, 1, 2])]))
        cs.append(Case("negative_values", f, [In((4,), "int32", kind=[-1, -100, -7, 9]), In((4,), "int32", kind=[1, 3, 31, 30])]))
    return cs


def _augmented(op, a, b):
    """a OP= b (Python's augmented assignment): in place, a keeps its identity."""
    before = a
    if op == "bitwise_and":
        a &= b
    elif op == "bitwise_or":
        a |= b
    elif op == "bitwise_xor":
        a ^= b
    elif op == "bitwise_left_shift":
        a <<= b
    elif op == "bitwise_right_shift":
        a >>= b
    elif op == "remainder":
        a %= b
    elif op == "floor_divide":
        a //= b
    assert a is before
    return a


def clamp_one_bound_cases(op):
    import pytest
    cs = [Case(f"{dt}", _fn(op, 1), [In((3, 4), dt)]) for dt in DTYPE_NAMES if dt != "bool"]
    cs += [Case(f"float_bound_{dt}", _fn(op, -0.5), [In((3, 4), dt)]) for dt in ("int32", "float16", "bfloat16")]
    cs += _layouts(_fn(op, 0.5))
    cs += [
        Case("special_values", _fn(op, 0.5), [In((3, 4), kind="special")]),
        Case("method", _method(op, 2), [In((3, 4), "int64")]),
        Case("keyword", _fn(op, **{op.split("_")[1]: 0.25}), [In((3, 4))]),
        Case("bound_none", _fn(op, None), [In((3, 4))]),
    ]
    # ctorch.h: clamp gives CT_ERROR_DTYPE for bool tensors; torch 1.13 promotes bool with the bound
    cs.append(Case("bool", _fn(op, 1), [In((3, 4), "bool")]))
    cs[-1].marks = pytest.mark.xfail(strict=True, reason="ctorch rejects clamp of bool tensors (documented in ctorch.h)")
    return cs


# ---------------------------------------------------------------------------------------------------
# Ternary


def lerp_cases():
    cs = []
    for dt in DTYPE_NAMES:
        cs.append(Case(f"scalar_{dt}", _fn("lerp", 0.25), [In((3, 4), dt), In((3, 4), dt)]))
        wk = UNIT if dt in ("float16", "bfloat16", "float32", "float64") else "default"
        cs.append(Case(f"tensor_{dt}", _fn("lerp"), [In((3, 4), dt), In((3, 4), dt), In((3, 4), dt, kind=wk)]))
    cs += [
        Case("scalar_weights_high", _fn("lerp", 0.75), [In((3, 4)), In((3, 4))]),
        Case("scalar_weight_int", _fn("lerp", 2), [In((3, 4)), In((3, 4))]),
        Case("bcast", _fn("lerp"), [In((3, 1)), In((4,)), In((2, 1, 1), kind=[0.25, 0.75])]),
        Case("bcast_scalar", _fn("lerp", 0.5), [In((3, 1)), In((4,))]),
        Case("0dim", _fn("lerp"), [In(()), In(()), In((), kind=[0.3])]),
        Case("0dim_scalar", _fn("lerp", 0.5), [In(()), In((3,))]),
        Case("empty", _fn("lerp"), [In((0, 4)), In((4,)), In((1,))]),
        Case("transposed", _fn("lerp"), [In((3, 4), layout="T"), In((3, 4), layout="step"), In((3, 4), layout="expand", kind=[0.1, 0.6, 0.4, 0.9])]),
        Case("stepped_scalar", _fn("lerp", 0.1), [In((3, 4), "float64", layout="step"), In((3, 4), "float64", layout="T")]),
        Case("expanded_scalar", _fn("lerp", 0.9), [In((3, 4), layout="expand"), In((3, 4))]),
        Case("dtype_mismatch_end", _fn("lerp", 0.5), [In((3, 4)), In((3, 4), "float64")]),
        Case("dtype_mismatch_weight", _fn("lerp"), [In((3, 4)), In((3, 4)), In((3, 4), "float64")]),
        Case("shape_mismatch", _fn("lerp", 0.5), [In((3, 4)), In((3,))]),
        Case("special_values", _fn("lerp"), [In((3, 4), kind="special"), In((3, 4), kind="special"), In((3, 4), kind=UNIT)]),
        Case("method", _method("lerp", 0.3), [In((3, 4)), In((4,))]),
        Case("keyword", _fn("lerp", weight=0.3), [In((3, 4)), In((4,))]),
        Case("inplace_scalar", _inplace_method("lerp_", 0.3), [In((3, 4), layout="T"), In((4,))]),
        Case("inplace_tensor", _inplace_method("lerp_"), [In((3, 4)), In((4,)), In((3, 1), kind=[0.25, 0.5, 0.75])]),
        Case("inplace_cannot_grow", _inplace_method("lerp_", 0.5), [In((4,)), In((3, 4))]),
    ]
    return cs


def addc_cases(op):
    cs = []
    rk = "pos" if op == "addcdiv" else "default"
    for dt in DTYPE_NAMES:
        cs.append(Case(dt, _fn(op), [In((3, 4), dt), In((3, 4), dt), In((3, 4), dt, kind=rk)]))
    cs += [
        Case("value_float", _fn(op, value=0.5), [In((3, 4)), In((3, 4)), In((3, 4), kind=rk)]),
        Case("value_int", _fn(op, value=-2), [In((3, 4), "float64"), In((3, 4), "float64"), In((3, 4), "float64", kind=rk)]),
        Case("value_float_int32", _fn(op, value=2.5), [In((3, 4), "int32"), In((3, 4), "int32"), In((3, 4), "int32", kind=rk)]),
        Case("mixed_int_float", _fn(op, value=2), [In((3, 4), "int32"), In((3, 4), "float32"), In((3, 4), "int32", kind=rk)]),
        Case("mixed_bfloat16_float64_0dim", _fn(op), [In((3, 4), "bfloat16"), In((), "float64"), In((3, 4), "bfloat16", kind=rk)]),
        Case("mixed_bfloat16_float32", _fn(op), [In((3, 4), "bfloat16"), In((4,), "float32"), In((3, 4), "bfloat16", kind=rk)]),
        Case("bcast", _fn(op), [In((3, 1)), In((4,)), In((2, 1, 1), kind=rk)]),
        Case("0dim", _fn(op), [In(()), In(()), In((), kind=rk)]),
        Case("empty", _fn(op), [In((0, 4)), In((4,)), In((1,), kind=rk)]),
        Case("transposed", _fn(op), [In((3, 4), layout="T"), In((3, 4), layout="step"), In((3, 4), layout="expand", kind=rk)]),
        Case("large", _fn(op, value=0.25), [In((33, 65), "float64", layout="T"), In((65,)), In((33, 1), kind=rk)]),
        Case("shape_mismatch", _fn(op), [In((3, 4)), In((3,)), In((3, 4), kind=rk)]),
        Case("special_values", _fn(op), [In((3, 4), kind="special"), In((3, 4), kind="special"), In((3, 4), kind="special")]),
        Case("method", _method(op, value=3), [In((3, 4)), In((4,)), In((3, 4), kind=rk)]),
        Case("inplace", _inplace_method(op + "_", value=0.5), [In((3, 4), layout="T"), In((4,)), In((3, 4), kind=rk)]),
        # (a float16 self with float32 tensors: torch 1.13 fails an internal assert on CPU)
        Case("inplace_bfloat16", _inplace_method(op + "_", value=2), [In((3, 4), "bfloat16"), In((4,), "bfloat16"),
                                                                       In((3, 4), "bfloat16", kind=rk)]),
        Case("inplace_int_self_float_result", _inplace_method(op + "_"), [In((3, 4), "int32"), In((4,)), In((3, 4), kind=rk)]),
        Case("inplace_cannot_grow", _inplace_method(op + "_"), [In((4,)), In((3, 4)), In((3, 4), kind=rk)]),
    ]
    if op == "addcdiv":
        cs.append(Case("int_by_int", _fn(op), [In((3, 4)), In((3, 4), "int32"), In((3, 4), "int64", kind="pos")]))
    return cs


for _op in BINARY:
    CASES[_op] = binary_cases(_op)
for _op, _cases in special_cases().items():
    CASES[_op] = CASES.get(_op, []) + _cases
def isclose_cases():
    f = lambda **k: (lambda m, a, b: m.isclose(a, b, **k))  # noqa: E731
    near = [1.0, 1.00001, 1e-9, -2.0, float("inf"), float("-inf"), float("nan"), 0.0, 100.0, 100.002, -0.0, 3.0]
    off = [1.0, 1.0, 0.0, -2.00001, float("inf"), float("inf"), float("nan"), 1e-8, 100.0, 100.0, 0.0, 3.1]
    cs = [Case(f"{dt}", f(), [In((3, 4), dt), In((3, 4), dt)]) for dt in DTYPE_NAMES]
    cs += [Case(f"same_{dt}", f(), [In((3, 4), dt, kind="small"), In((3, 4), dt, kind="small")]) for dt in DTYPE_NAMES]
    cs += [
        Case("tolerances", f(), [In((12,), "float64", kind=near), In((12,), "float64", kind=off)]),
        Case("float32_tolerances", f(), [In((12,), kind=near), In((12,), kind=off)]),
        Case("equal_nan", f(equal_nan=True), [In((12,), kind=near), In((12,), kind=off)]),
        Case("rtol_atol", f(rtol=0.01, atol=0.1), [In((12,), "float64", kind=near), In((12,), "float64", kind=off)]),
        Case("zero_tolerances", f(rtol=0, atol=0), [In((12,), kind=near), In((12,), kind=off)]),
        Case("half", f(atol=1e-3), [In((12,), "float16", kind=near), In((12,), "float16", kind=off)]),
        Case("ints_atol", f(atol=1.5), [In((3, 4), "int32"), In((3, 4), "int32")]),
        Case("method", lambda m, a, b: a.isclose(b, rtol=0.5), [In((3, 4)), In((3, 4))]),
        Case("broadcast", f(), [In((3, 1), "int64", kind="small"), In((4,), "int64", kind="small")]),
        Case("dtypes_differ", f(), [In((3,)), In((3,), "float64")]),
        Case("negative_rtol", f(rtol=-1.0), [In((3,)), In((3,))]),
        Case("negative_atol", f(atol=-1.0), [In((3,)), In((3,))]),
        Case("bad_shape", f(), [In((3,)), In((4,))]),
        Case("0dim", f(), [In(()), In((2, 2))]),
        Case("empty", f(), [In((0, 3)), In((0, 3))]),
        Case("transposed", f(), [In((3, 4), layout="T"), In((3, 4))]),
        Case("stepped", f(), [In((3, 4), layout="step"), In((3, 4), layout="expand")]),
    ]
    return cs


CASES["isclose"] = isclose_cases()
CASES["clamp_min"] = clamp_one_bound_cases("clamp_min")
CASES["clamp_max"] = clamp_one_bound_cases("clamp_max")
CASES["lerp"] = lerp_cases()
CASES["addcmul"] = addc_cases("addcmul")
CASES["addcdiv"] = addc_cases("addcdiv")
