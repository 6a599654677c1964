"""Differential cases of the nn family: softmax, normalization, losses, distances, pixel shuffles,
one_hot, attention and the recurrent operators (lstm, gru, rnn_tanh, rnn_relu and their cells).

torch 1.13 has no rms_norm and no scaled_dot_product_attention; their references are written here
in torch's own operators, following the definitions of the later torch releases that have them.
"""

import math

from difftest import Case, In

FLOATS = ["float16", "bfloat16", "float32", "float64"]


def F(m):
    return m.nn.functional


# ---- softmax, log_softmax

def softmax_cases(name):
    def f(dim, dtype=None):
        if dtype is None:
            return lambda m, x: getattr(m, name)(x, dim)
        return lambda m, x: getattr(m, name)(x, dim, dtype=getattr(m, dtype))

    cs = [Case(f"{dt}_rows", f(-1), [In((3, 37), dt)]) for dt in FLOATS]
    cs += [Case(f"{dt}_columns", f(1), [In((2, 5, 3), dt)]) for dt in FLOATS]
    cs += [
        Case("dim0", f(0), [In((4, 3, 2))]),
        Case("long_rows", f(1), [In((5, 1031))]),
        Case("wide_columns", f(0), [In((7, 300), "float64")]),
        Case("transposed", f(-1), [In((4, 6), layout="T")]),
        Case("transposed_dim0", f(0), [In((4, 6), layout="T")]),
        Case("step", f(1), [In((3, 9), layout="step")]),
        Case("expand", f(0), [In((3, 5), layout="expand")]),
        Case("special", f(-1), [In((4, 3), "float32", kind=[[0.0, float("-inf"), 1.0], [float("nan"), 1.0, 2.0],
                                                               [float("-inf")] * 3, [-1e30, 1e30, 0.0]])]),
        Case("special_long_rows", f(-1), [In((6, 40), kind="special")]),
        Case("large_values", f(-1), [In((2, 3), "float32", kind=[[1000.0, 999.0, -1000.0], [88.0, 89.0, 90.0]])]),
        Case("0dim", f(0), [In(())]),
        Case("0dim_neg", f(-1), [In((), "float64")]),
        Case("empty_rows", f(1), [In((0, 4))]),
        Case("empty_dim", f(1), [In((3, 0))]),
        Case("dtype_int32_to_float32", f(1, dtype="float32"), [In((2, 3), "int32")]),
        Case("dtype_bool_to_float64", f(0, dtype="float64"), [In((4,), "bool")]),
        Case("dtype_float32_to_float64", f(1, dtype="float64"), [In((2, 3))]),
        Case("dtype_float32_to_bfloat16", f(1, dtype="bfloat16"), [In((2, 3))]),
        Case("int64_error", f(1), [In((2, 3), "int64")]),
        Case("uint8_error", f(0), [In((3,), "uint8")]),
        Case("bool_error", f(0), [In((3,), "bool")]),
        Case("bad_dim", f(2), [In((2, 3))]),
        Case("method", lambda m, x: getattr(x, name)(1), [In((2, 3))]),
        Case("functional_implicit_dim", lambda m, x: getattr(F(m), name)(x), [In((2, 3))]),
        Case("functional_dtype", lambda m, x: getattr(F(m), name)(x, dim=0, dtype=m.float64), [In((2, 3))]),
    ]
    return cs


# ---- layer_norm, group_norm, batch_norm, rms_norm

def ln(m, x, w, b, shape):
    return F(m).layer_norm(x, shape, w, b)


# Weights and biases of magnitude 2 at most: with larger ones, torch's own rounding (it computes
# x * rstd - mean * rstd) exceeds the float32 tolerance where x is near the mean.
LAYER_NORM = [Case(f"{dt}_affine", lambda m, x, w, b: ln(m, x, w, b, (6,)),
                   [In((4, 6), dt), In((6,), dt, kind="small"), In((6,), dt, kind="small")]) for dt in FLOATS] + [
    Case("no_affine", lambda m, x: m.layer_norm(x, [6]), [In((4, 6))]),
    Case("weight_only", lambda m, x, w: m.layer_norm(x, [5], w), [In((3, 5), "float64"), In((5,), "float64")]),
    Case("bias_only", lambda m, x, b: F(m).layer_norm(x, (5,), bias=b, eps=1e-3), [In((3, 5)), In((5,))]),
    Case("two_dims", lambda m, x, w, b: ln(m, x, w, b, (3, 4)), [In((2, 3, 4)), In((3, 4)), In((3, 4))]),
    Case("long_rows", lambda m, x, w, b: ln(m, x, w, b, (1029,)), [In((3, 1029)), In((1029,), kind="small"), In((1029,), kind="small")]),
    Case("1d", lambda m, x: m.layer_norm(x, [7]), [In((7,), "float64")]),
    Case("transposed", lambda m, x, w, b: ln(m, x, w, b, (4,)), [In((3, 4), layout="T"), In((4,)), In((4,))]),
    Case("step", lambda m, x, w, b: ln(m, x, w, b, (5,)), [In((2, 5), layout="step"), In((5,), layout="step"), In((5,))]),
    Case("expand", lambda m, x: m.layer_norm(x, [5]), [In((3, 5), layout="expand")]),
    Case("constant_rows", lambda m, x: m.layer_norm(x, [3]), [In((2, 3), kind=[[2.0, 2.0, 2.0], [0.0, 0.0, 0.0]])]),
    Case("empty_batch", lambda m, x: m.layer_norm(x, [4]), [In((0, 4))]),
    Case("empty_normalized", lambda m, x: m.layer_norm(x, [0]), [In((3, 0))]),
    Case("shape_mismatch", lambda m, x: m.layer_norm(x, [4]), [In((3, 5))]),
    Case("too_many_dims", lambda m, x: m.layer_norm(x, [2, 3, 5]), [In((3, 5))]),
    Case("0dim_error", lambda m, x: m.layer_norm(x, [1]), [In(())]),
    Case("weight_mismatch", lambda m, x, w: m.layer_norm(x, [5], w), [In((3, 5)), In((4,))]),
    Case("int_error", lambda m, x: m.layer_norm(x, [3]), [In((2, 3), "int64")]),
    Case("bool_error", lambda m, x: m.layer_norm(x, [3]), [In((2, 3), "bool")]),
    Case("int32_error", lambda m, x: m.layer_norm(x, [3]), [In((2, 3), "int32")]),
]


def gn(m, x, g, w=None, b=None, eps=1e-5):
    return F(m).group_norm(x, g, w, b, eps)


def gn_in_float32(m, x, w, b):
    return gn(m, x.float(), 2, w.float(), b.float()).to(x.dtype)


# torch 1.13's CPU group_norm rounds float16/bfloat16 intermediates (x * scale + bias with
# scale = rstd * weight) and lands several ulps away; ctorch normalizes in float32 and rounds once,
# which the reference computes directly.
GROUP_NORM = [Case(f"{dt}", lambda m, x, w, b: gn(m, x, 2, w, b),
                   [In((2, 4, 3), dt), In((4,), dt, kind="small"), In((4,), dt, kind="small")],
                   torch_fn=gn_in_float32 if dt in ("float16", "bfloat16") else None)
              for dt in FLOATS] + [
    Case("no_affine", lambda m, x: gn(m, x, 3), [In((2, 6, 2, 2))]),
    Case("one_group", lambda m, x: gn(m, x, 1, eps=1e-2), [In((3, 4, 5), "float64")]),
    Case("2d_input", lambda m, x, w, b: gn(m, x, 2, w, b), [In((3, 4)), In((4,)), In((4,))]),
    Case("transposed", lambda m, x: gn(m, x, 2), [In((2, 4, 3), layout="T")]),
    Case("step", lambda m, x: gn(m, x, 2), [In((2, 4, 3), layout="step")]),
    Case("expand", lambda m, x: gn(m, x, 2), [In((3, 4, 2), layout="expand")]),
    Case("empty_spatial", lambda m, x: gn(m, x, 2), [In((2, 4, 0))]),
    Case("groups_do_not_divide", lambda m, x: gn(m, x, 3), [In((2, 4, 3))]),
    Case("weight_mismatch", lambda m, x, w: gn(m, x, 2, w), [In((2, 4, 3)), In((3,))]),
    Case("1d_error", lambda m, x: gn(m, x, 1), [In((4,))]),
    Case("0dim_error", lambda m, x: gn(m, x, 1), [In(())]),
    Case("int_error", lambda m, x: gn(m, x, 2), [In((2, 4, 3), "int64")]),
]


def bn_train(m, x, rm, rv, w=None, b=None, momentum=0.1):
    out = F(m).batch_norm(x, rm, rv, w, b, training=True, momentum=momentum)
    return out, rm, rv


def inorm(m, x, rm=None, rv=None, w=None, b=None, use_input_stats=True):
    out = F(m).instance_norm(x, rm, rv, w, b, use_input_stats, 0.2)
    return out if rm is None else (out, rm, rv)


INSTANCE_NORM = [
    Case(dt, lambda m, x, w, b: inorm(m, x, w=w, b=b), [In((2, 3, 5), dt), In((3,), dt), In((3,), dt)])
    for dt in ("float32", "float64", "bfloat16")] + [
    Case("running_stats", lambda m, x, rm, rv: inorm(m, x, rm, rv), [In((2, 3, 4, 2)), In((3,)), In((3,), kind="pos")]),
    Case("eval_stats", lambda m, x, rm, rv: inorm(m, x, rm, rv, use_input_stats=False),
         [In((2, 3, 4)), In((3,)), In((3,), kind="pos")]),
    Case("transposed", lambda m, x: inorm(m, x), [In((2, 3, 4), layout="T")]),
    Case("empty_batch", lambda m, x: inorm(m, x), [In((0, 3, 4))]),
    Case("one_element", lambda m, x: inorm(m, x), [In((2, 3, 1))]),
    Case("no_stats_in_eval", lambda m, x: inorm(m, x, use_input_stats=False), [In((2, 3, 4))]),
    Case("weight_mismatch", lambda m, x, w: inorm(m, x, w=w), [In((2, 3, 4)), In((4,))]),
    Case("0dim", lambda m, x: inorm(m, x), [In(())]),
    Case("int", lambda m, x: inorm(m, x), [In((2, 3, 4), "int64")]),
]


BATCH_NORM = [
    Case(f"{dt}_eval", lambda m, x, rm, rv, w, b: F(m).batch_norm(x, rm, rv, w, b),
         [In((4, 3), dt), In((3,), dt), In((3,), dt, kind="pos"), In((3,), dt), In((3,), dt)])
    for dt in FLOATS] + [
    Case(f"{dt}_train", lambda m, x, rm, rv, w, b: bn_train(m, x, rm, rv, w, b, 0.2),
         [In((4, 3, 5), dt), In((3,), dt), In((3,), dt, kind="pos"), In((3,), dt), In((3,), dt)])
    for dt in ("float32", "float64")] + [
    Case("train_no_stats", lambda m, x: F(m).batch_norm(x, None, None, training=True), [In((5, 2, 3))]),
    Case("train_4d", lambda m, x, rm, rv: bn_train(m, x, rm, rv), [In((2, 3, 2, 2)), In((3,)), In((3,), kind="pos")]),
    Case("eval_4d", lambda m, x, rm, rv: F(m).batch_norm(x, rm, rv, eps=1e-3), [In((2, 3, 2, 2)), In((3,)), In((3,), kind="pos")]),
    Case("transposed", lambda m, x, rm, rv: bn_train(m, x, rm, rv), [In((3, 4), layout="T"), In((4,)), In((4,), kind="pos")]),
    Case("step", lambda m, x, rm, rv: F(m).batch_norm(x, rm, rv), [In((3, 4), layout="step"), In((4,)), In((4,), kind="pos")]),
    Case("expand_stats", lambda m, x, rm, rv: F(m).batch_norm(x, rm, rv), [In((3, 4)), In((4,), layout="step"), In((4,), kind="pos")]),
    Case("empty_eval", lambda m, x, rm, rv: F(m).batch_norm(x, rm, rv), [In((0, 3)), In((3,)), In((3,), kind="pos")]),
    Case("one_value_per_channel", lambda m, x, rm, rv: bn_train(m, x, rm, rv), [In((1, 3)), In((3,)), In((3,), kind="pos")]),
    Case("stats_mismatch", lambda m, x, rm, rv: F(m).batch_norm(x, rm, rv), [In((2, 3)), In((4,)), In((4,), kind="pos")]),
    Case("0dim_error", lambda m, x, rm, rv: F(m).batch_norm(x, rm, rv), [In(()), In((1,)), In((1,), kind="pos")]),
    Case("int_error", lambda m, x, rm, rv: F(m).batch_norm(x, rm, rv), [In((2, 3), "int64"), In((3,)), In((3,), kind="pos")]),
    Case("aten_schema", lambda m, x, w, b, rm, rv: m.batch_norm(x, w, b, rm, rv, False, 0.1, 1e-5, False),
         [In((2, 3)), In((3,)), In((3,)), In((3,)), In((3,), kind="pos")]),
]


def rms_ref(torch, x, shape, w=None, eps=None):
    shape = [shape] if isinstance(shape, int) else list(shape)
    if x.dim() < len(shape) or list(x.shape[x.dim() - len(shape):]) != shape or not x.is_floating_point():
        raise RuntimeError("rms_norm: normalized_shape does not fit the input")
    xf = x.double() if x.dtype == torch.float64 else x.float()
    if eps is None:
        eps = 2.220446049250313e-16 if x.dtype == torch.float64 else 1.1920928955078125e-07
    dims = tuple(range(-len(shape), 0))
    y = (xf * torch.rsqrt(xf.pow(2).mean(dims, keepdim=True) + eps)).to(x.dtype)
    return y * w if w is not None else y


def rms(shape, eps=None, weight=True):
    if weight:
        return (lambda m, x, w: F(m).rms_norm(x, shape, w, eps),
                lambda m, x, w: rms_ref(m, x, shape, w, eps))
    return (lambda m, x: F(m).rms_norm(x, shape, eps=eps), lambda m, x: rms_ref(m, x, shape, None, eps))


def rms_case(id, inputs, shape, eps=None, weight=True):
    fn, ref = rms(shape, eps, weight)
    return Case(id, fn, inputs, torch_fn=ref)


RMS_NORM = [rms_case(dt, [In((3, 8), dt), In((8,), dt)], (8,)) for dt in FLOATS] + [
    rms_case("no_weight", [In((2, 3, 4))], (3, 4), weight=False),
    rms_case("eps", [In((2, 5), "float64"), In((5,), "float64")], 5, eps=0.1),
    rms_case("transposed", [In((3, 4), layout="T"), In((4,))], (4,)),
    rms_case("step", [In((3, 4), layout="step"), In((4,))], (4,)),
    rms_case("expand", [In((3, 4), layout="expand")], (4,), weight=False),
    rms_case("empty", [In((0, 4)), In((4,))], (4,)),
    rms_case("shape_mismatch", [In((3, 4)), In((5,))], (5,)),
    rms_case("0dim_error", [In(())], (1,), weight=False),
    rms_case("int_error", [In((2, 3), "int64")], (3,), weight=False),
]


# ---- pointwise losses

def loss_cases(name, extra=None):
    def f(**kw):
        kw.update(extra or {})
        return lambda m, x, t: getattr(F(m), name)(x, t, **kw)

    cs = [Case(f"{dt}_{r}", f(reduction=r), [In((3, 4), dt), In((3, 4), dt)])
          for dt in FLOATS for r in ("mean", "sum", "none")]
    cs += [
        Case("broadcast", f(), [In((3, 4)), In((4,))]),
        Case("mixed_dtypes", f(reduction="sum"), [In((3, 4)), In((3, 4), "float64")]),
        Case("transposed", f(reduction="none"), [In((3, 4), layout="T"), In((3, 4))]),
        Case("step", f(), [In((3, 4), layout="step"), In((3, 4), layout="step")]),
        Case("expand", f(reduction="sum"), [In((3, 4), layout="expand"), In((3, 4))]),
        Case("0dim", f(), [In(()), In(())]),
        Case("empty_mean", f(), [In((0, 3)), In((0, 3))]),
        Case("empty_none", f(reduction="none"), [In((0, 3)), In((0, 3))]),
        Case("special", f(reduction="none"), [In((6,), kind="special"), In((6,))]),
        Case("bad_reduction", f(reduction="avg"), [In((3,)), In((3,))]),
        Case("no_broadcast", f(), [In((3, 4)), In((3,))]),
        Case("legacy_size_average", lambda m, x, t: getattr(F(m), name)(x, t, size_average=False)
             if name != "huber_loss" else getattr(F(m), name)(x, t, reduction="sum"), [In((2, 3)), In((2, 3))]),
    ]
    return cs


MSE = loss_cases("mse_loss") + [Case("int_error", lambda m, x, t: F(m).mse_loss(x, t), [In((3,), "int64"), In((3,), "int64")])]
L1 = loss_cases("l1_loss") + [
    Case("int_sum", lambda m, x, t: F(m).l1_loss(x, t, reduction="sum"), [In((3,), "int64"), In((3,), "int32")]),
    Case("int_mean_error", lambda m, x, t: F(m).l1_loss(x, t), [In((3,), "int64"), In((3,), "int64")]),
]
SMOOTH_L1 = loss_cases("smooth_l1_loss") + loss_cases("smooth_l1_loss", {"beta": 0.5})[:3] + [
    Case("beta0", lambda m, x, t: F(m).smooth_l1_loss(x, t, beta=0.0), [In((3, 4)), In((3, 4))]),
    Case("beta_large", lambda m, x, t: F(m).smooth_l1_loss(x, t, reduction="none", beta=4.0), [In((3, 4)), In((3, 4))]),
    Case("negative_beta", lambda m, x, t: F(m).smooth_l1_loss(x, t, beta=-1.0), [In((3,)), In((3,))]),
    Case("int_error", lambda m, x, t: F(m).smooth_l1_loss(x, t), [In((3,), "int64"), In((3,), "int64")]),
]
HUBER = loss_cases("huber_loss") + [
    Case("delta_small", lambda m, x, t: F(m).huber_loss(x, t, reduction="none", delta=0.5), [In((3, 4)), In((3, 4))]),
    Case("delta_large", lambda m, x, t: F(m).huber_loss(x, t, delta=3.0), [In((3, 4), "float64"), In((3, 4), "float64")]),
    Case("int_error", lambda m, x, t: F(m).huber_loss(x, t), [In((3,), "int64"), In((3,), "int64")]),
]


def bce(m, x, t, w=None, **kw):
    return F(m).binary_cross_entropy(m.sigmoid(x), m.sigmoid(t), w, **kw)


# Probabilities given directly: a sigmoid rounded to float16 first moves log(1 - x) far from the
# float32 reference near 1.
P34 = [[0.1, 0.25, 0.5, 0.75], [0.9, 0.3, 0.6, 0.05], [0.45, 0.55, 0.2, 0.8]]
BCE = [Case(f"{dt}_{r}", lambda m, x, t, r=r: F(m).binary_cross_entropy(x, t, reduction=r),
            [In((3, 4), dt, kind=P34), In((3, 4), dt, kind=P34[::-1])])
       for dt in FLOATS for r in ("mean", "sum", "none")] + [
    Case("weight", lambda m, x, t, w: bce(m, x, t, w), [In((3, 4)), In((3, 4)), In((3, 4), kind="pos")]),
    Case("weight_broadcast", lambda m, x, t, w: bce(m, x, t, w, reduction="none"), [In((3, 4)), In((3, 4)), In((4,), kind="pos")]),
    Case("exact_0_1", lambda m, x, t: F(m).binary_cross_entropy(x, t, reduction="none"),
         [In((4,), kind=[0.0, 1.0, 0.5, 1.0]), In((4,), kind=[0.0, 0.0, 0.5, 1.0])]),
    Case("transposed", lambda m, x, t: bce(m, x, t), [In((3, 4), layout="T"), In((3, 4), layout="T")]),
    Case("step", lambda m, x, t: bce(m, x, t), [In((3, 4), layout="step"), In((3, 4))]),
    Case("expand", lambda m, x, t: bce(m, x, t), [In((3, 4), layout="expand"), In((3, 4))]),
    Case("0dim", lambda m, x, t: bce(m, x, t), [In(()), In(())]),
    Case("empty", lambda m, x, t: bce(m, x, t, reduction="sum"), [In((0, 2)), In((0, 2))]),
    Case("out_of_range", lambda m, x, t: F(m).binary_cross_entropy(x, m.sigmoid(t)), [In((3,), kind=[0.5, 1.5, 0.2]), In((3,))]),
    Case("size_mismatch", lambda m, x, t: bce(m, x, t), [In((3, 4)), In((4,))]),
    Case("int_error", lambda m, x, t: F(m).binary_cross_entropy(x, t), [In((3,), "int64"), In((3,), "int64")]),
]


def bcel(m, x, t, w=None, pw=None, **kw):
    return F(m).binary_cross_entropy_with_logits(x, t, w, pos_weight=pw, **kw)


BCE_LOGITS = [Case(f"{dt}_{r}", lambda m, x, t, r=r: bcel(m, x, m.sigmoid(t), reduction=r), [In((3, 4), dt), In((3, 4), dt)])
              for dt in FLOATS for r in ("mean", "sum", "none")] + [
    Case("weight", lambda m, x, t, w: bcel(m, x, m.sigmoid(t), w), [In((3, 4)), In((3, 4)), In((4,), kind="pos")]),
    Case("pos_weight", lambda m, x, t, pw: bcel(m, x, m.sigmoid(t), pw=pw, reduction="none"),
         [In((3, 4)), In((3, 4)), In((4,), kind="pos")]),
    Case("both_weights", lambda m, x, t, w, pw: bcel(m, x, m.sigmoid(t), w, pw, reduction="sum"),
         [In((3, 4), "float64"), In((3, 4), "float64"), In((3, 1), "float64", kind="pos"), In((4,), "float64", kind="pos")]),
    Case("large_logits", lambda m, x, t: bcel(m, x, t, reduction="none"),
         [In((4,), kind=[-200.0, 200.0, 50.0, -0.0]), In((4,), kind=[1.0, 0.0, 1.0, 0.5])]),
    Case("transposed", lambda m, x, t: bcel(m, x, m.sigmoid(t)), [In((3, 4), layout="T"), In((3, 4))]),
    Case("step", lambda m, x, t: bcel(m, x, m.sigmoid(t)), [In((3, 4), layout="step"), In((3, 4))]),
    Case("expand", lambda m, x, t: bcel(m, x, m.sigmoid(t)), [In((3, 4), layout="expand"), In((3, 4))]),
    Case("0dim", lambda m, x, t: bcel(m, x, m.sigmoid(t)), [In(()), In(())]),
    Case("empty", lambda m, x, t: bcel(m, x, t, reduction="none"), [In((0, 2)), In((0, 2))]),
    Case("size_mismatch", lambda m, x, t: bcel(m, x, t), [In((3, 4)), In((4,))]),
    Case("int_error", lambda m, x, t: bcel(m, x, t), [In((3,), "int64"), In((3,), "int64")]),
]


def kl(m, x, t, **kw):
    return F(m).kl_div(m.log_softmax(x, -1), m.softmax(t, -1), **kw)


KL_DIV = [Case(f"{dt}_{r}", lambda m, x, t, r=r: kl(m, x, t, reduction=r), [In((3, 4), dt), In((3, 4), dt)])
          for dt in FLOATS for r in ("mean", "sum", "none", "batchmean")] + [
    Case("log_target", lambda m, x, t: F(m).kl_div(x.log_softmax(1), t.log_softmax(1), reduction="batchmean", log_target=True),
         [In((3, 4)), In((3, 4))]),
    Case("zero_target", lambda m, x, t: F(m).kl_div(x, t, reduction="none"), [In((4,)), In((4,), kind=[0.0, 0.5, 0.25, 0.25])]),
    Case("negative_target", lambda m, x, t: F(m).kl_div(x, t, reduction="none"), [In((2,)), In((2,), kind=[-0.5, 1.5])]),
    Case("broadcast", lambda m, x, t: F(m).kl_div(x, t, reduction="sum"), [In((3, 4)), In((4,), kind="pos")]),
    Case("transposed", lambda m, x, t: kl(m, x, t), [In((3, 4), layout="T"), In((3, 4))]),
    Case("step", lambda m, x, t: kl(m, x, t), [In((3, 4), layout="step"), In((3, 4))]),
    Case("expand", lambda m, x, t: kl(m, x, t), [In((3, 4), layout="expand"), In((3, 4))]),
    Case("0dim", lambda m, x, t: F(m).kl_div(x, t, reduction="batchmean"), [In(()), In((), kind="pos")]),
    Case("empty", lambda m, x, t: kl(m, x, t, reduction="sum"), [In((0, 3)), In((0, 3))]),
    Case("int_error", lambda m, x, t: F(m).kl_div(x, t, reduction="sum"), [In((3,), "int64"), In((3,), "int64")]),
    Case("bad_reduction", lambda m, x, t: kl(m, x, t, reduction="avg"), [In((3,)), In((3,))]),
]


# ---- nll_loss, nll_loss2d, cross_entropy

T4 = In((4,), "int64", kind=[1, 0, 4, 2])
T4_IGNORED = In((4,), "int64", kind=[1, -100, 4, 2])
T23 = In((2, 3), "int64", kind=[[0, 2, 1], [2, 2, 0]])


def nll(m, x, t, w=None, **kw):
    return F(m).nll_loss(m.log_softmax(x, 1 if x.dim() > 1 else 0), t, w, **kw)


NLL = [Case(f"{dt}_{r}", lambda m, x, t, r=r: nll(m, x, t, reduction=r), [In((4, 5), dt), T4])
       for dt in FLOATS for r in ("mean", "sum", "none")] + [
    Case("weight_mean", lambda m, x, t, w: nll(m, x, t, w), [In((4, 5)), T4, In((5,), kind="pos")]),
    Case("weight_none", lambda m, x, t, w: nll(m, x, t, w, reduction="none"), [In((4, 5), "float64"), T4, In((5,), "float64", kind="pos")]),
    Case("ignore_index", lambda m, x, t: nll(m, x, t), [In((4, 5)), T4_IGNORED]),
    Case("ignore_index_class", lambda m, x, t, w: nll(m, x, t, w, ignore_index=2), [In((4, 5)), T4, In((5,), kind="pos")]),
    Case("all_ignored", lambda m, x, t: nll(m, x, t, ignore_index=1), [In((1, 5)), In((1,), "int64", kind=[1])]),
    Case("one_sample", lambda m, x, t: nll(m, x, t), [In((5,)), In((), "int64", kind=3)]),
    Case("spatial", lambda m, x, t: nll(m, x, t, reduction="none"), [In((2, 3, 3)), T23]),
    Case("spatial_mean_weight", lambda m, x, t, w: nll(m, x, t, w), [In((2, 3, 3)), T23, In((3,), kind="pos")]),
    Case("transposed", lambda m, x, t: nll(m, x, t), [In((4, 5), layout="T"), T4]),
    Case("step", lambda m, x, t: nll(m, x, t), [In((4, 5), layout="step"), T4]),
    Case("expand", lambda m, x, t: nll(m, x, t), [In((4, 5), layout="expand"), T4]),
    Case("empty_mean", lambda m, x, t: nll(m, x, t), [In((0, 5)), In((0,), "int64")]),
    Case("empty_sum", lambda m, x, t: nll(m, x, t, reduction="sum"), [In((0, 5)), In((0,), "int64")]),
    Case("out_of_bounds", lambda m, x, t: nll(m, x, t), [In((4, 5)), In((4,), "int64", kind=[0, 5, 1, 1])]),
    Case("negative_target", lambda m, x, t: nll(m, x, t), [In((4, 5)), In((4,), "int64", kind=[0, -1, 1, 1])]),
    Case("int32_target", lambda m, x, t: nll(m, x, t), [In((4, 5)), In((4,), "int32", kind=[0, 1, 1, 1])]),
    Case("batch_mismatch", lambda m, x, t: nll(m, x, t), [In((3, 5)), T4]),
    Case("weight_mismatch", lambda m, x, t, w: nll(m, x, t, w), [In((4, 5)), T4, In((4,))]),
    Case("int_input", lambda m, x, t: F(m).nll_loss(x, t), [In((4, 5), "int64"), T4]),
    Case("0dim_input", lambda m, x, t: F(m).nll_loss(x, t), [In(()), In((), "int64", kind=0)]),
]

NLL2D = [
    Case(f"{dt}", lambda m, x, t: m.nll_loss2d(x, t) if m.__name__ == "ctorch" else m._C._nn.nll_loss2d(x, t, None, 1, -100),
         [In((2, 3, 2, 2), dt), In((2, 2, 2), "int64", kind=[[[0, 1], [2, 1]], [[2, 2], [0, 0]]])])
    for dt in ("float32", "float64")] + [
    Case("weight_sum", lambda m, x, t, w: m.nll_loss2d(x, t, w, 2) if m.__name__ == "ctorch" else m._C._nn.nll_loss2d(x, t, w, 2, -100),
         [In((2, 3, 2, 2)), In((2, 2, 2), "int64", kind=[[[0, 1], [2, 1]], [[2, 2], [0, 0]]]), In((3,), kind="pos")]),
    Case("3d_error", lambda m, x, t: m.nll_loss2d(x, t) if m.__name__ == "ctorch" else m._C._nn.nll_loss2d(x, t, None, 1, -100),
         [In((2, 3, 2)), T23]),
]


def ce(m, x, t, w=None, **kw):
    return F(m).cross_entropy(x, t, w, **kw)


def probs(m, t):
    return m.softmax(t, 1 if t.dim() > 1 else 0)


CROSS_ENTROPY = [Case(f"{dt}_{r}", lambda m, x, t, r=r: ce(m, x, t, reduction=r), [In((4, 5), dt), T4])
                 for dt in FLOATS for r in ("mean", "sum", "none")] + [
    Case(f"probs_{dt}", lambda m, x, t: ce(m, x, probs(m, t)), [In((4, 5), dt), In((4, 5), dt)]) for dt in FLOATS] + [
    Case("weight", lambda m, x, t, w: ce(m, x, t, w), [In((4, 5)), T4, In((5,), kind="pos")]),
    Case("ignore_index", lambda m, x, t, w: ce(m, x, t, w), [In((4, 5)), T4_IGNORED, In((5,), kind="pos")]),
    Case("smoothing", lambda m, x, t: ce(m, x, t, label_smoothing=0.2), [In((4, 5)), T4]),
    Case("smoothing_sum", lambda m, x, t: ce(m, x, t, reduction="sum", label_smoothing=0.1), [In((4, 5)), T4_IGNORED]),
    Case("smoothing_none", lambda m, x, t: ce(m, x, t, reduction="none", label_smoothing=0.1), [In((4, 5)), T4_IGNORED]),
    Case("smoothing_weight_ignore", lambda m, x, t, w: ce(m, x, t, w, label_smoothing=0.3),
         [In((4, 5), "float64"), T4_IGNORED, In((5,), "float64", kind="pos")]),
    Case("smoothing_weight_none", lambda m, x, t, w: ce(m, x, t, w, reduction="none", label_smoothing=0.3),
         [In((4, 5)), T4_IGNORED, In((5,), kind="pos")]),
    Case("probs_weight", lambda m, x, t, w: ce(m, x, probs(m, t), w), [In((4, 5)), In((4, 5)), In((5,), kind="pos")]),
    Case("probs_smoothing", lambda m, x, t: ce(m, x, probs(m, t), reduction="sum", label_smoothing=0.25), [In((4, 5)), In((4, 5))]),
    Case("probs_none", lambda m, x, t: ce(m, x, probs(m, t), reduction="none"), [In((2, 3, 2)), In((2, 3, 2))]),
    Case("probs_ignore_index", lambda m, x, t: ce(m, x, probs(m, t), ignore_index=1), [In((4, 5)), In((4, 5))]),
    Case("probs_size_mismatch", lambda m, x, t: ce(m, x, probs(m, t)), [In((4, 5)), In((4, 4))]),
    Case("one_sample", lambda m, x, t: ce(m, x, t), [In((5,)), In((), "int64", kind=2)]),
    Case("one_sample_probs", lambda m, x, t: ce(m, x, probs(m, t)), [In((5,)), In((5,))]),
    Case("spatial", lambda m, x, t, w: ce(m, x, t, w, label_smoothing=0.1), [In((2, 3, 3)), T23, In((3,), kind="pos")]),
    Case("transposed", lambda m, x, t: ce(m, x, t), [In((4, 5), layout="T"), T4]),
    Case("step", lambda m, x, t: ce(m, x, t), [In((4, 5), layout="step"), T4]),
    Case("expand", lambda m, x, t: ce(m, x, probs(m, t)), [In((4, 5), layout="expand"), In((4, 5), layout="expand")]),
    Case("empty_mean", lambda m, x, t: ce(m, x, t), [In((0, 5)), In((0,), "int64")]),
    Case("empty_none", lambda m, x, t: ce(m, x, t, reduction="none"), [In((0, 5)), In((0,), "int64")]),
    Case("out_of_bounds", lambda m, x, t: ce(m, x, t), [In((4, 5)), In((4,), "int64", kind=[0, 7, 1, 1])]),
    Case("bad_smoothing", lambda m, x, t: ce(m, x, t, label_smoothing=1.5), [In((4, 5)), T4]),
    Case("int32_target", lambda m, x, t: ce(m, x, t), [In((4, 5)), In((4,), "int32", kind=[0, 1, 1, 1])]),
    Case("bool_target", lambda m, x, t: ce(m, x, t), [In((4, 5)), In((4,), "bool")]),
    Case("int_input", lambda m, x, t: ce(m, x, t), [In((4, 5), "int64"), T4]),
    Case("0dim_input", lambda m, x, t: ce(m, x, t), [In(()), In((), "int64", kind=0)]),
    Case("aten_schema", lambda m, x, t: m.nn.functional.cross_entropy(x, t, None, None, -100, None, "sum"), [In((4, 5)), T4]),
]


# ---- scaled_dot_product_attention

def sdpa_ref(torch, q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None):
    """The math of torch's scaled_dot_product_attention. float16/bfloat16 run in float32 rounded to
    the half type after each step, as their matmul and softmax kernels do (torch 1.13 has none on CPU)."""
    if is_causal and attn_mask is not None:
        raise RuntimeError("attn_mask and is_causal")
    if not (q.dtype == k.dtype == v.dtype) or not q.is_floating_point() or v.size(-2) != k.size(-2):
        raise RuntimeError("dtypes or sizes")
    dt = q.dtype
    half = dt in (torch.float16, torch.bfloat16)
    r = (lambda t: t.to(dt).float()) if half else (lambda t: t)
    if half:
        q, k, v = q.float(), k.float(), v.float()
    s = 1 / math.sqrt(q.size(-1)) if scale is None else scale
    a = r(r(q @ k.transpose(-2, -1)) * s)
    if is_causal:
        a = a.masked_fill(~torch.ones(a.size(-2), a.size(-1), dtype=torch.bool).tril(), float("-inf"))
    elif attn_mask is not None:
        a = a.masked_fill(~attn_mask, float("-inf")) if attn_mask.dtype == torch.bool else r(a + attn_mask)
    return (r(torch.softmax(a, -1)) @ v).to(dt)


def sdpa(id, inputs, check="values", **kw):
    n = len(inputs)

    def fn(m, *ts):
        mask = ts[3] if n > 3 else None
        return F(m).scaled_dot_product_attention(ts[0], ts[1], ts[2], mask, **kw)

    def ref(m, *ts):
        mask = ts[3] if n > 3 else None
        if kw.get("dropout_p", 0) > 0:
            return sdpa_ref(m, ts[0], ts[1], ts[2], mask, 0.0, kw.get("is_causal", False), kw.get("scale"))
        return sdpa_ref(m, ts[0], ts[1], ts[2], mask, **kw)

    return Case(id, fn, inputs, torch_fn=ref, check=check)


def qkv(b=(2, 3), L=5, S=5, E=4, Ev=4, dt="float32", layout="contig"):
    return [In(b + (L, E), dt, layout), In(b + (S, E), dt, layout), In(b + (S, Ev), dt, layout)]


SDPA = [sdpa(dt, qkv(dt=dt)) for dt in FLOATS] + [
    Case("causal_positional", lambda m, q, k, v: F(m).scaled_dot_product_attention(q, k, v, None, 0.0, True),
         qkv(), torch_fn=lambda m, q, k, v: sdpa_ref(m, q, k, v, None, 0.0, True)),
    sdpa("causal_kw", qkv(L=4, S=6), is_causal=True),
    sdpa("causal_tall", qkv(L=6, S=3), is_causal=True),
    sdpa("causal_float64", qkv(dt="float64"), is_causal=True),
    sdpa("scale", qkv(Ev=3), scale=0.3),
    sdpa("cross", qkv(L=3, S=7, E=4, Ev=2)),
    sdpa("3d", qkv(b=(2,), L=4, S=4)),
    sdpa("2d", qkv(b=(), L=4, S=6)),
    sdpa("bool_mask_broadcast", qkv() + [In((5, 5), "bool")]),
    sdpa("float_mask", qkv(b=(2,)) + [In((2, 5, 5))]),
    sdpa("float_mask_broadcast", qkv() + [In((1, 5), "float32")]),
    sdpa("batch_broadcast", [In((2, 3, 4, 4)), In((1, 3, 4, 4)), In((1, 3, 4, 4))]),
    sdpa("transposed", qkv(b=(2,), L=4, S=4, layout="T")),
    sdpa("step", qkv(layout="step")),
    sdpa("expand", qkv(layout="expand"), is_causal=True),
    sdpa("long", qkv(b=(1,), L=40, S=70, E=16, Ev=8)),
    sdpa("dropout_shape", qkv(), check="meta", dropout_p=0.5),
    sdpa("empty_batch", qkv(b=(0, 3))),
    sdpa("empty_sequence", qkv(L=0)),
    sdpa("embed_mismatch", [In((2, 5, 4)), In((2, 5, 3)), In((2, 5, 4))]),
    sdpa("length_mismatch", [In((2, 5, 4)), In((2, 5, 4)), In((2, 6, 4))]),
    sdpa("mask_and_causal", qkv() + [In((5, 5), "bool")], is_causal=True),
    sdpa("dtype_mismatch", [In((2, 5, 4)), In((2, 5, 4), "float64"), In((2, 5, 4))]),
    sdpa("int_error", qkv(dt="int64")),
    sdpa("1d_error", [In((4,)), In((4,)), In((4,))]),
    sdpa("0dim_error", [In(()), In(()), In(())]),
]


def _bool_case(fn, n=2, shape=(2, 3)):
    return Case("bool_error", fn, [In(shape, "bool") for _ in range(n)])


GROUP_NORM.append(_bool_case(lambda m, x: gn(m, x, 3), 1, (2, 3)))
BATCH_NORM += [
    Case("bool_error", lambda m, x, rm, rv: F(m).batch_norm(x, rm, rv), [In((2, 3), "bool"), In((3,)), In((3,), kind="pos")]),
    Case("expand", lambda m, x, rm, rv: bn_train(m, x, rm, rv), [In((3, 4), layout="expand"), In((4,)), In((4,), kind="pos")]),
]
RMS_NORM.append(rms_case("bool_error", [In((2, 3), "bool")], (3,), weight=False))
for _name, _cases in (("mse_loss", MSE), ("l1_loss", L1), ("smooth_l1_loss", SMOOTH_L1), ("huber_loss", HUBER),
                      ("binary_cross_entropy", BCE), ("binary_cross_entropy_with_logits", BCE_LOGITS),
                      ("kl_div", KL_DIV)):
    _cases.append(_bool_case((lambda n: lambda m, x, t: getattr(F(m), n)(x, t, reduction="sum"))(_name)))
NLL.append(Case("bool_input", lambda m, x, t: F(m).nll_loss(x, t), [In((4, 5), "bool"), T4]))


def nll2d(m, x, t, w=None, reduction=1, ignore_index=-100):
    if m.__name__ == "ctorch":
        return m.nll_loss2d(x, t, w, reduction, ignore_index)
    return m._C._nn.nll_loss2d(x, t, w, reduction, ignore_index)


T222 = In((2, 2, 2), "int64", kind=[[[0, 1], [2, 1]], [[2, 2], [0, 0]]])
NLL2D += [
    Case(f"{dt}", lambda m, x, t: nll2d(m, x, t, reduction=2), [In((2, 3, 2, 2), dt), T222]) for dt in ("float16", "bfloat16")] + [
    Case("ignore_none", lambda m, x, t: nll2d(m, x, t, reduction=0, ignore_index=2), [In((2, 3, 2, 2)), T222]),
    Case("transposed", lambda m, x, t: nll2d(m, x, t), [In((2, 3, 2, 2), layout="T"), T222]),
    Case("step", lambda m, x, t: nll2d(m, x, t), [In((2, 3, 2, 2), layout="step"), T222]),
    Case("expand", lambda m, x, t: nll2d(m, x, t, reduction=2), [In((2, 3, 2, 2), layout="expand"), T222]),
    Case("empty", lambda m, x, t: nll2d(m, x, t, reduction=0), [In((0, 3, 2, 2)), In((0, 2, 2), "int64")]),
    Case("0dim_error", lambda m, x, t: nll2d(m, x, t), [In(()), In((), "int64", kind=0)]),
    Case("bool_error", lambda m, x, t: nll2d(m, x, t), [In((2, 3, 2, 2), "bool"), T222]),
]


# ---- distances: cosine_similarity, pairwise_distance, cdist, dist

def _distance_common(f, shapes=((3, 4), (3, 4)), dtypes=("float32", "float64", "bfloat16")):
    a, b = shapes
    return [Case(dt, f, [In(a, dt), In(b, dt)]) for dt in dtypes] + [
        Case("transposed", f, [In(a, layout="T"), In(b)]),
        Case("stepped", f, [In(a), In(b, layout="step")]),
        Case("expanded", f, [In(a, "float64", layout="expand"), In(b, "float64")]),
    ]


def cosine_similarity_cases():
    f = lambda m, a, b: F(m).cosine_similarity(a, b)  # noqa: E731
    return _distance_common(f) + [
        Case("dim0", lambda m, a, b: m.cosine_similarity(a, b, 0), [In((3, 4)), In((3, 4))]),
        Case("broadcast", lambda m, a, b: m.cosine_similarity(a, b, -1), [In((2, 1, 4)), In((3, 4))]),
        Case("eps", lambda m, a, b: F(m).cosine_similarity(a, b, dim=1, eps=0.5), [In((3, 4)), In((3, 4))]),
        Case("zero_vectors", f, [In((2, 3), kind=[[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]]), In((2, 3))]),
        Case("1d", lambda m, a, b: m.cosine_similarity(a, b, 0), [In((5,)), In((5,))]),
        Case("empty_batch", f, [In((0, 4)), In((0, 4))]),
        Case("0dim", lambda m, a, b: m.cosine_similarity(a, b, 0), [In(()), In(())]),
        Case("int_error", f, [In((3, 4), "int64"), In((3, 4), "int64")]),
        Case("bad_shape", f, [In((3, 4)), In((3, 5))]),
        Case("bad_dim", lambda m, a, b: m.cosine_similarity(a, b, 2), [In((3, 4)), In((3, 4))]),
    ]


def pairwise_distance_cases():
    f = lambda m, a, b: F(m).pairwise_distance(a, b)  # noqa: E731
    return _distance_common(f) + [
        Case("p1_keepdim", lambda m, a, b: F(m).pairwise_distance(a, b, 1.0, keepdim=True), [In((3, 4)), In((3, 4))]),
        Case("p_inf", lambda m, a, b: F(m).pairwise_distance(a, b, float("inf")), [In((3, 4)), In((3, 4))]),
        Case("p3_eps", lambda m, a, b: m.pairwise_distance(a, b, 3.0, 1e-3), [In((3, 4), "float64"), In((3, 4), "float64")]),
        Case("broadcast", f, [In((2, 1, 4)), In((3, 4))]),
        Case("1d", f, [In((4,)), In((4,))]),
        Case("int", f, [In((3, 4), "int64"), In((3, 4), "int64")]),
        Case("empty_batch", f, [In((0, 4)), In((0, 4))]),
        Case("0dim", f, [In(()), In(())]),
        Case("bad_shape", f, [In((3, 4)), In((2, 4))]),
    ]


def cdist_cases():
    f = lambda m, a, b: m.cdist(a, b)  # noqa: E731
    return _distance_common(f, ((3, 4), (5, 4))) + [
        Case("matmul_form", f, [In((30, 3)), In((40, 3))]),
        Case("matmul_form_float64", f, [In((2, 27, 5), "float64"), In((2, 3, 5), "float64")]),
        Case("always_matmul", lambda m, a, b: m.cdist(a, b, compute_mode="use_mm_for_euclid_dist"), [In((4, 3)), In((5, 3))]),
        Case("never_matmul", lambda m, a, b: m.cdist(a, b, compute_mode="donot_use_mm_for_euclid_dist"),
             [In((30, 3)), In((40, 3))]),
        Case("p1", lambda m, a, b: m.cdist(a, b, p=1.0), [In((3, 4)), In((5, 4))]),
        Case("p0", lambda m, a, b: m.cdist(a, b, p=0.0), [In((3, 4), kind="small"), In((5, 4), kind="small")]),
        Case("p_inf", lambda m, a, b: m.cdist(a, b, p=float("inf")), [In((3, 4)), In((5, 4))]),
        Case("p3", lambda m, a, b: m.cdist(a, b, 3.0), [In((3, 4), "float64"), In((5, 4), "float64")]),
        Case("batch_broadcast", f, [In((2, 1, 3, 4)), In((5, 4))]),
        Case("empty_rows", f, [In((0, 4)), In((5, 4))]),
        Case("float16", f, [In((3, 4), "float16"), In((5, 4), "float16")]),
        Case("1d_error", f, [In((4,)), In((5, 4))]),
        Case("0dim_error", f, [In(()), In((5, 4))]),
        Case("columns_differ", f, [In((3, 4)), In((5, 3))]),
        Case("int_error", f, [In((3, 4), "int64"), In((5, 4), "int64")]),
        Case("negative_p", lambda m, a, b: m.cdist(a, b, -1.0), [In((3, 4)), In((5, 4))]),
        Case("bad_mode", lambda m, a, b: m.cdist(a, b, compute_mode="fast"), [In((3, 4)), In((5, 4))]),
    ]


def dist_cases():
    f = lambda m, a, b: m.dist(a, b)  # noqa: E731
    return _distance_common(f) + [
        Case("p1", lambda m, a, b: m.dist(a, b, 1), [In((3, 4)), In((3, 4))]),
        Case("p_inf", lambda m, a, b: a.dist(b, float("inf")), [In((3, 4)), In((3, 4))]),
        Case("p0", lambda m, a, b: m.dist(a, b, 0), [In((3, 4), kind="small"), In((3, 4), kind="small")]),
        Case("broadcast", f, [In((3, 1)), In((4,))]),
        Case("empty", f, [In((0, 4)), In((0, 4))]),
        Case("0dim", f, [In(()), In(())]),
        Case("int_error", f, [In((3, 4), "int64"), In((3, 4), "int64")]),
        Case("bad_shape", f, [In((3, 4)), In((3, 5))]),
    ]


# ---- pixel_shuffle, pixel_unshuffle, one_hot

def pixel_cases(name, shape, factor):
    f = lambda m, x: getattr(F(m), name)(x, factor)  # noqa: E731
    dts = ("float32", "float64", "float16", "bfloat16", "int64", "uint8", "bool")
    bad = (2, 3, 4, 6) if name == "pixel_shuffle" else (2, 3, 5, 6)
    return [Case(dt, f, [In(shape, dt)]) for dt in dts] + [
        Case("transposed", f, [In(shape, layout="T")]),
        Case("stepped", f, [In(shape, layout="step")]),
        Case("expanded", f, [In(shape, layout="expand")]),
        Case("unbatched", f, [In(shape[1:])]),
        Case("two_batch_dims", f, [In((2,) + shape)]),
        # torch 1.13's pixel_unshuffle returns an empty input as it is; the sizes are torch 2's
        Case("empty_batch", f, [In((0,) + shape[1:])],
             torch_fn=None if name == "pixel_shuffle" else lambda m, x: m.empty(0, 8, 2, 3)),
        Case("factor_1", lambda m, x: getattr(m, name)(x, 1), [In(shape)]),
        Case("2d_error", f, [In(shape[-2:])]),
        Case("0dim_error", f, [In(())]),
        Case("not_divisible", f, [In(bad)]),
        Case("zero_factor", lambda m, x: getattr(F(m), name)(x, 0), [In(shape)]),
    ]


def one_hot_cases():
    f = lambda m, x: F(m).one_hot(x)  # noqa: E731
    return [
        Case("inferred", f, [In((5,), "int64", kind=[0, 3, 1, 1, 2])]),
        Case("num_classes", lambda m, x: F(m).one_hot(x, num_classes=6), [In((2, 3), "int64", kind=[[0, 5, 1], [2, 2, 4]])]),
        Case("transposed", f, [In((3, 2), "int64", layout="T", kind=[[0, 1, 2], [3, 0, 1]])]),
        Case("stepped", f, [In((2, 3), "int64", layout="step", kind="small")]),
        Case("expanded", f, [In((3, 2), "int64", layout="expand", kind=[[1, 0]])]),
        Case("0dim", lambda m, x: F(m).one_hot(x, 4), [In((), "int64", kind=2)]),
        Case("empty", lambda m, x: F(m).one_hot(x, 3), [In((0, 2), "int64")]),
        Case("empty_inferred", f, [In((0,), "int64")]),
        Case("negative_class", f, [In((3,), "int64", kind=[0, -1, 2])]),
        Case("class_too_large", lambda m, x: F(m).one_hot(x, 2), [In((3,), "int64", kind=[0, 1, 2])]),
        Case("negative_num_classes", lambda m, x: F(m).one_hot(x, -3), [In((3,), "int64", kind=[0, 1, 2])]),
        Case("int32_error", f, [In((3,), "int32", kind=[0, 1, 2])]),
        Case("float_error", f, [In((3,), "float32", kind=[0.0, 1.0, 2.0])]),
    ]


# ---- margin and embedding losses

def _signs(n):
    return [1.0 if i % 3 != 1 else -1.0 for i in range(n)]


def _loss_common(name, make_inputs, call):
    """Dtypes and every reduction for a loss; make_inputs(dtype) gives its In list."""
    cs = [Case(f"{dt}", call("mean"), make_inputs(dt)) for dt in FLOATS]
    cs += [Case(f"reduction_{r}", call(r), make_inputs("float32")) for r in ("none", "sum")]
    cs.append(Case("bad_reduction", call("avg"), make_inputs("float32")))
    return cs


def margin_ranking_cases():
    call = lambda r, margin=0.0: lambda m, a, b, t: F(m).margin_ranking_loss(a, b, t, margin, reduction=r)  # noqa: E731
    ins = lambda dt: [In((6,), dt), In((6,), dt), In((6,), dt, kind=_signs(6))]  # noqa: E731
    return _loss_common("margin_ranking_loss", ins, call) + [
        Case("margin", call("mean", 0.5), ins("float64")),
        Case("broadcast", call("none"), [In((3, 1)), In((3, 4)), In((3, 4), kind=[_signs(4)] * 3)]),
        Case("transposed", call("sum"), [In((3, 4), layout="T"), In((3, 4)), In((3, 4), kind="small")]),
        Case("stepped", call("sum"), [In((3, 4)), In((3, 4), layout="step"), In((3, 4))]),
        Case("empty", call("sum"), [In((0,)), In((0,)), In((0,))]),
        Case("0dim", call("none"), [In(()), In(()), In((), kind=-1.0)]),
        Case("dims_differ", call("mean"), [In((3, 4)), In((4,)), In((3, 4))]),
        Case("module", lambda m, a, b, t: m.nn.MarginRankingLoss(0.2)(a, b, t), ins("float32")),
    ]


def hinge_embedding_cases():
    call = lambda r, margin=1.0: lambda m, x, t: F(m).hinge_embedding_loss(x, t, margin, reduction=r)  # noqa: E731
    ins = lambda dt: [In((3, 4), dt), In((3, 4), dt, kind=[_signs(4)] * 3)]  # noqa: E731
    return _loss_common("hinge_embedding_loss", ins, call) + [
        Case("margin", call("mean", 0.3), ins("float64")),
        Case("other_targets", call("none"), [In((4,)), In((4,), kind=[1.0, -1.0, 0.0, 2.0])]),
        Case("broadcast", call("none"), [In((3, 4)), In((4,), kind=_signs(4))]),
        Case("transposed", call("sum"), [In((3, 4), layout="T"), In((3, 4), kind=[_signs(4)] * 3)]),
        Case("expanded", call("sum"), [In((3, 4), layout="expand"), In((3, 4), kind=[_signs(4)] * 3)]),
        Case("empty", call("sum"), [In((0, 4)), In((0, 4))]),
        Case("0dim", call("none"), [In(()), In((), kind=-1.0)]),
        Case("bad_shape", call("none"), [In((3, 4)), In((3, 5))]),
        Case("module", lambda m, x, t: m.nn.HingeEmbeddingLoss(margin=0.5)(x, t), ins("float32")),
    ]


def soft_margin_cases():
    call = lambda r: lambda m, x, t: F(m).soft_margin_loss(x, t, reduction=r)  # noqa: E731
    ins = lambda dt: [In((3, 4), dt), In((3, 4), dt, kind=[_signs(4)] * 3)]  # noqa: E731
    return _loss_common("soft_margin_loss", ins, call) + [
        Case("broadcast", call("none"), [In((3, 4)), In((4,), kind=_signs(4))]),
        Case("transposed", call("sum"), [In((3, 4), layout="T"), In((3, 4), kind=[_signs(4)] * 3)]),
        Case("stepped", call("mean"), [In((3, 4), layout="step"), In((3, 4))]),
        Case("large", call("none"), [In((4,), kind=[100.0, -100.0, 30.0, -30.0]), In((4,), kind=[1.0, 1.0, -1.0, -1.0])]),
        Case("empty", call("sum"), [In((0, 4)), In((0, 4))]),
        Case("0dim", call("none"), [In(()), In((), kind=1.0)]),
        Case("int_error", call("mean"), [In((3,), "int64"), In((3,), "int64")]),
        Case("module", lambda m, x, t: m.nn.SoftMarginLoss()(x, t), ins("float32")),
    ]


def cosine_embedding_cases():
    call = lambda r, margin=0.0: lambda m, a, b, t: F(m).cosine_embedding_loss(a, b, t, margin, reduction=r)  # noqa: E731
    ins = lambda dt: [In((5, 4), dt), In((5, 4), dt), In((5,), dt, kind=_signs(5))]  # noqa: E731
    return _loss_common("cosine_embedding_loss", ins, call) + [
        Case("margin", call("none", 0.3), ins("float64")),
        Case("unbatched", call("none"), [In((4,)), In((4,)), In((), kind=-1.0)]),
        Case("int_target", call("mean"), [In((5, 4)), In((5, 4)), In((5,), "int64", kind=[1, -1, 1, 1, -1])]),
        Case("broadcast_rows", call("none"), [In((1, 4)), In((5, 4)), In((5,), kind=_signs(5))]),
        Case("transposed", call("sum"), [In((5, 4), layout="T"), In((5, 4)), In((5,), kind=_signs(5))]),
        Case("stepped", call("sum"), [In((5, 4)), In((5, 4), layout="step"), In((5,), kind=_signs(5))]),
        Case("empty", call("sum"), [In((0, 4)), In((0, 4)), In((0,))]),
        Case("2d_target", call("mean"), [In((5, 4)), In((5, 4)), In((5, 1))]),
        Case("dims_mismatch", call("mean"), [In((5, 4)), In((4,)), In((5,))]),
        Case("module", lambda m, a, b, t: m.nn.CosineEmbeddingLoss(0.1)(a, b, t), ins("float32")),
    ]


def triplet_cases():
    call = lambda r, **kw: lambda m, a, p, n: F(m).triplet_margin_loss(a, p, n, reduction=r, **kw)  # noqa: E731
    ins = lambda dt: [In((5, 4), dt), In((5, 4), dt), In((5, 4), dt)]  # noqa: E731
    return _loss_common("triplet_margin_loss", ins, call) + [
        Case("swap", call("none", swap=True), ins("float64")),
        Case("p1_margin", call("mean", p=1, margin=0.5), ins("float32")),
        Case("unbatched", call("none"), [In((4,)), In((4,)), In((4,))]),
        Case("broadcast", call("none"), [In((1, 4)), In((5, 4)), In((5, 4))]),
        Case("transposed", call("sum"), [In((5, 4), layout="T"), In((5, 4)), In((5, 4))]),
        Case("expanded", call("sum"), [In((5, 4), layout="expand"), In((5, 4)), In((5, 4))]),
        Case("empty", call("sum"), [In((0, 4)), In((0, 4)), In((0, 4))]),
        Case("0dim", call("none"), [In(()), In(()), In(())]),
        Case("dims_differ", call("mean"), [In((5, 4)), In((4,)), In((5, 4))]),
        Case("module", lambda m, a, p, n: m.nn.TripletMarginLoss(margin=0.5, swap=True)(a, p, n), ins("float32")),
    ]


def poisson_nll_cases():
    call = lambda r, **kw: lambda m, x, t: F(m).poisson_nll_loss(x, t, reduction=r, **kw)  # noqa: E731
    ins = lambda dt: [In((3, 4), dt), In((3, 4), dt, kind="pos")]  # noqa: E731
    return _loss_common("poisson_nll_loss", ins, call) + [
        Case("full", call("none", full=True), [In((3, 4), "float64"), In((3, 4), "float64", kind=[[0.5, 1.0, 2.0, 5.0]] * 3)]),
        Case("rates", call("none", log_input=False), [In((3, 4), kind="pos"), In((3, 4), kind="pos")]),
        Case("rates_eps", call("sum", log_input=False, eps=0.1), [In((4,), kind=[0.0, 1.0, 2.0, 3.0]), In((4,), kind="pos")]),
        Case("broadcast", call("none"), [In((3, 4)), In((4,), kind="pos")]),
        Case("transposed", call("sum"), [In((3, 4), layout="T"), In((3, 4))]),
        Case("expanded", call("sum"), [In((3, 4), layout="expand"), In((3, 4))]),
        Case("empty", call("sum"), [In((0, 4)), In((0, 4))]),
        Case("0dim", call("none"), [In(()), In((), kind=2.0)]),
        Case("int", call("mean"), [In((3,), "int64", kind="small"), In((3,), "int64", kind="small")]),
        Case("bool_error", call("mean"), [In((3,), "bool"), In((3,), "bool")]),
        Case("module", lambda m, x, t: m.nn.PoissonNLLLoss(full=True)(x, t), [In((3, 4)), In((3, 4), kind="pos")]),
    ]


# ---- upsample (F.interpolate)

def upsample_cases(op, mode, dims):
    shape = (2, 3, 5) if dims == 1 else (2, 3, 4, 5)
    grow = dict(scale_factor=2.0) if mode != "area" else {}
    f = lambda **kw: lambda m, x: F(m).interpolate(x, mode=mode, **kw)  # noqa: E731
    sized = dict(size=9 if dims == 1 else (7, 9))
    dts = ["float32", "float64", "float16", "bfloat16"] + (["uint8"] if "nearest" in mode else ["int64"])
    cs = [Case(dt, f(**sized), [In(shape, dt)]) for dt in dts]
    cs += [
        Case("scale", f(**grow), [In(shape)]),
        Case("shrink_scale", f(scale_factor=0.6), [In(shape, "float64")]),
        Case("fractional_scale", f(scale_factor=1.7), [In(shape)]),
        Case("recompute_scale", f(scale_factor=1.7, recompute_scale_factor=True), [In(shape)]),
        Case("same_size", f(size=shape[2:]), [In(shape)]),
        Case("transposed", f(**sized), [In(shape, layout="T")]),
        Case("stepped", f(**sized), [In(shape, layout="step")]),
        Case("expanded", f(**sized), [In(shape, layout="expand")]),
        Case("empty_batch", f(**sized), [In((0,) + shape[1:])]),
        Case("aten_call", lambda m, x: (getattr(m._C._nn, op) if m.__name__ == "torch" else m.ops.function(op))(
            x, [9] * dims, *([False] if "linear" in op else []), *([None] * dims)), [In(shape)]),
        Case("0dim", f(**sized), [In(())]),
        Case("wrong_rank", f(**sized), [In((3, 4))]),
        Case("zero_size", f(size=0 if dims == 1 else (0, 4)), [In(shape)]),
        Case("size_and_scale", f(size=4, scale_factor=2.0), [In(shape)]),
    ]
    if "linear" in mode:
        cs += [Case("align_corners", f(align_corners=True, **sized), [In(shape)]),
               Case("align_corners_to_1", f(align_corners=True, size=1 if dims == 1 else (1, 1)), [In(shape, "float64")])]
        # torch's kernels find the positions in float (bfloat16 weights in bfloat16) and land a few
        # ulps from the exact blend, which ctorch (weights in double) is within rounding of; the
        # reference is that blend, torch's in float64 rounded to the input's dtype.
        for c in cs:
            c.torch_fn = _in_float64(c.fn)
    else:
        cs += [Case("align_corners_refused", f(align_corners=True, **sized), [In(shape)])]
    return cs


def _in_float64(fn):
    def ref(m, x):
        if not x.dtype.is_floating_point:
            return fn(m, x)
        return fn(m, x.double()).to(x.dtype)
    return ref


# ---- recurrent layers: the whole-stack operators (padded and packed) and the cells

_GATES = {"lstm": 4, "gru": 3, "rnn_tanh": 1, "rnn_relu": 1}


def _rnn_inputs(name, steps, batch, features, hidden, layers=1, bidirectional=False, bias=True, proj=0,
                dtype="float64", batch_first=False):
    """[input, h_0, (c_0)] and the params in torch's _flat_weights order."""
    gates, dirs, out = _GATES[name] * hidden, 2 if bidirectional else 1, proj or hidden
    x = In((batch, steps, features) if batch_first else (steps, batch, features), dtype, kind="small")
    states = [In((layers * dirs, batch, out), dtype, kind="small")]
    if name == "lstm":
        states.append(In((layers * dirs, batch, hidden), dtype, kind="small"))
    params = []
    for layer in range(layers):
        for _ in range(dirs):
            params += [In((gates, features if layer == 0 else dirs * out), dtype, kind="small"),
                       In((gates, out), dtype, kind="small")]
            if bias:
                params += [In((gates,), dtype, kind="small"), In((gates,), dtype, kind="small")]
            if proj:
                params.append(In((proj, hidden), dtype, kind="small"))
    return [x] + states, params


def _rnn_call(name, nstates, options):
    def call(m, x, *rest):
        hx = list(rest[:nstates]) if name == "lstm" else rest[0]
        return getattr(m, name)(x, hx, list(rest[nstates:]), *options)
    return call


def _packed_call(name, nstates, lengths, options):
    """The packed form: the rows of x [T, B, F] for sequences of these lengths (longest first)."""
    def call(m, x, *rest):
        sizes = [sum(1 for n in lengths if n > t) for t in range(max(lengths))]
        data = m.cat([x[t, :b] for t, b in enumerate(sizes)], 0)
        hx = list(rest[:nstates]) if name == "lstm" else rest[0]
        return getattr(m, name)(data, m.tensor(sizes), hx, list(rest[nstates:]), *options)
    return call


def rnn_cases(name):
    nstates = 2 if name == "lstm" else 1
    cs = []
    shapes = [("one_layer", {}), ("two_layers_bidirectional", dict(layers=2, bidirectional=True)),
              ("no_bias", dict(layers=2, bias=False)), ("batch_first", dict(batch_first=True)),
              ("float32", dict(dtype="float32", layers=2))]
    if name == "lstm":
        shapes.append(("proj", dict(layers=2, bidirectional=True, proj=2)))
    for id_, kw in shapes:
        states, params = _rnn_inputs(name, 5, 3, 4, 3, **kw)
        options = (kw.get("bias", True), kw.get("layers", 1), 0.0, False, kw.get("bidirectional", False),
                   kw.get("batch_first", False))
        cs.append(Case(id_, _rnn_call(name, nstates, options), states + params))
    states, params = _rnn_inputs(name, 5, 3, 4, 3, layers=2, bidirectional=True)
    cs.append(Case("packed", _packed_call(name, nstates, [5, 3, 2], (True, 2, 0.0, False, True)), states + params))
    states, params = _rnn_inputs(name, 5, 3, 4, 3)
    one_layer = (True, 1, 0.0, False, False, False)
    cs += [
        Case("wrong_params", _rnn_call(name, nstates, (True, 2, 0.0, False, False, False)), states + params),
        Case("wrong_state", _rnn_call(name, nstates, one_layer), [states[0], In((1, 2, 3), "float64")] +
             states[2:] + params),
        Case("features", _rnn_call(name, nstates, one_layer), [In((5, 3, 2), "float64")] + states[1:] + params),
        Case("transposed", _rnn_call(name, nstates, one_layer), [In((5, 3, 4), "float64", layout="T", kind="small")] +
             states[1:] + params),
        Case("empty_batch", _rnn_call(name, nstates, one_layer), [In((5, 0, 4), "float64")] +
             [In((1, 0, 3), "float64") for _ in states[1:]] + params),
        Case("0dim", _rnn_call(name, nstates, one_layer), [In((), "float64")] + states[1:] + params),
        Case("int", _rnn_call(name, nstates, one_layer), [In((5, 3, 4), "int64")] + states[1:] + params),
    ]
    return cs


def rnn_cell_cases(name):
    gates = _GATES[name[:-len("_cell")]] * 3
    lstm = name == "lstm_cell"

    def call(m, x, h, *rest):
        if lstm:
            return getattr(m, name)(x, [h, rest[0]], *rest[1:])
        return getattr(m, name)(x, h, *rest)

    state = [In((2, 4), kind="small"), In((2, 3), kind="small")] + ([In((2, 3), kind="small")] if lstm else [])
    weights = [In((gates, 4), kind="small"), In((gates, 3), kind="small")]
    biases = [In((gates,), kind="small"), In((gates,), kind="small")]
    wrong = [state[0]] + [In((2, 5)) for _ in state[1:]]
    return [
        Case("biases", call, state + weights + biases),
        Case("no_bias", call, state + weights),
        Case("float64", call, [In(i.shape, "float64", kind="small") for i in state + weights + biases]),
        Case("wrong_state", call, wrong + weights + biases),
        Case("dtypes", call, [In((2, 4), "float64")] + state[1:] + weights + biases),
        Case("transposed", call, [In((2, 4), layout="T", kind="small")] + state[1:] +
             [In(weights[0].shape, layout="T", kind="small"), weights[1]] + biases),
        Case("empty_batch", call, [In((0, 4))] + [In((0, 3)) for _ in state[1:]] + weights + biases),
        Case("0dim", call, [In(())] + state[1:] + weights + biases),
        Case("int", call, [In((2, 4), "int64")] + state[1:] + weights + biases),
    ]


# one_hot's number of classes is read from the data when not given: not on the meta device
# ("operator-case": only these cases of the operator)
DATA_DEPENDENT = {f"one_hot-{c}" for c in ("inferred", "transposed", "stepped", "expanded", "negative_class",
                                          "empty_inferred")}
# The packed recurrent forms read batch_sizes on the host.
DATA_DEPENDENT |= {f"{name}-packed" for name in _GATES}

CASES = {
    **{name: rnn_cases(name) for name in _GATES},
    **{f"{name}_cell": rnn_cell_cases(f"{name}_cell") for name in _GATES},
    "cosine_similarity": cosine_similarity_cases(),
    "pairwise_distance": pairwise_distance_cases(),
    "cdist": cdist_cases(),
    "dist": dist_cases(),
    "pixel_shuffle": pixel_cases("pixel_shuffle", (2, 8, 3, 3), 2),
    "pixel_unshuffle": pixel_cases("pixel_unshuffle", (2, 2, 4, 6), 2),
    "one_hot": one_hot_cases(),
    "upsample_nearest1d": upsample_cases("upsample_nearest1d", "nearest", 1),
    "upsample_nearest2d": upsample_cases("upsample_nearest2d", "nearest", 2),
    "_upsample_nearest_exact1d": upsample_cases("_upsample_nearest_exact1d", "nearest-exact", 1),
    "_upsample_nearest_exact2d": upsample_cases("_upsample_nearest_exact2d", "nearest-exact", 2),
    "upsample_linear1d": upsample_cases("upsample_linear1d", "linear", 1),
    "upsample_bilinear2d": upsample_cases("upsample_bilinear2d", "bilinear", 2),
    "margin_ranking_loss": margin_ranking_cases(),
    "hinge_embedding_loss": hinge_embedding_cases(),
    "soft_margin_loss": soft_margin_cases(),
    "cosine_embedding_loss": cosine_embedding_cases(),
    "triplet_margin_loss": triplet_cases(),
    "poisson_nll_loss": poisson_nll_cases(),
    "softmax": softmax_cases("softmax"),
    "log_softmax": softmax_cases("log_softmax"),
    "layer_norm": LAYER_NORM,
    "group_norm": GROUP_NORM,
    "batch_norm": BATCH_NORM,
    "instance_norm": INSTANCE_NORM,
    "rms_norm": RMS_NORM,
    "mse_loss": MSE,
    "l1_loss": L1,
    "smooth_l1_loss": SMOOTH_L1,
    "huber_loss": HUBER,
    "binary_cross_entropy": BCE,
    "binary_cross_entropy_with_logits": BCE_LOGITS,
    "kl_div": KL_DIV,
    "nll_loss": NLL,
    "nll_loss2d": NLL2D,
    "cross_entropy_loss": CROSS_ENTROPY,
    "scaled_dot_product_attention": SDPA,
}
