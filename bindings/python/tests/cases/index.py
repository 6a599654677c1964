"""Differential cases of the indexing family: index_select, gather, scatter*, index_add/copy/fill,
masked_*, nonzero, take, put, embedding, and advanced indexing (x[i], x[mask], x[i] = v)."""

from difftest import Case, In

ALL = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
NUM = ALL[1:]
FLOATS = ["float16", "bfloat16", "float32", "float64"]


def I(values, shape=None, dtype="int64"):  # noqa: E743
    """An index tensor with fixed values."""
    import numpy as np

    a = np.array(values)
    return In(a.shape if shape is None else shape, dtype, kind=list(a.reshape(-1)))


def B(values, shape=None):
    return I(values, shape, "bool")


# ---- index_select, index_add, index_copy, index_fill


def index_select_cases():
    f = lambda m, x, i: m.index_select(x, 0, i)  # noqa: E731
    f1 = lambda m, x, i: x.index_select(1, i)  # noqa: E731
    cs = [Case(dt, f, [In((4, 3), dt), I([3, 0, 0, 2])]) for dt in ALL]
    return cs + [
        Case("dim1", f1, [In((3, 5)), I([4, 1])]),
        Case("neg_dim", lambda m, x, i: x.index_select(-1, i), [In((2, 3, 4)), I([3, 3])]),
        Case("int32_index", f, [In((4, 3)), I([1, 2], dtype="int32")]),
        Case("T", f1, [In((4, 5), layout="T"), I([0, 3, 1])]),
        Case("step", f1, [In((3, 4), layout="step"), I([3, 1])]),
        Case("expand", f, [In((3, 4), layout="expand"), I([2, 0])]),
        Case("index_step", f, [In((4, 3)), I([1, 2, 3, 0], (4,))]),
        Case("3d_mid", lambda m, x, i: x.index_select(1, i), [In((2, 4, 3)), I([3, 0, 1])]),
        Case("empty_index", f, [In((4, 3)), I([], (0,))]),
        Case("empty_self", f1, [In((0, 3)), I([2, 1])]),
        Case("0dim_index", f, [In((4, 3)), I(2, ())]),
        Case("0dim_self", f, [In(()), I([0, 0])]),
        Case("large", f1, [In((70, 600)), I(list(range(599, 0, -7)))]),
        Case("out_of_range", f, [In((4, 3)), I([4])]),
        Case("negative", f, [In((4, 3)), I([-1])]),
        Case("float_index", f, [In((4, 3)), In((2,), "float32")]),
        Case("2d_index", f, [In((4, 3)), I([[0, 1]])]),
        Case("bad_dim", lambda m, x, i: x.index_select(2, i), [In((4, 3)), I([0])]),
    ]


def index_add_cases():
    f = lambda m, x, i, s: m.index_add(x, 0, i, s)  # noqa: E731
    cs = [Case(dt, f, [In((4, 3), dt), I([3, 0, 3]), In((3, 3), dt)]) for dt in NUM]
    return cs + [
        Case("bool", f, [In((4, 3), "bool"), I([3, 0]), In((2, 3), "bool")]),
        Case("alpha", lambda m, x, i, s: x.index_add(1, i, s, alpha=2.5), [In((3, 4)), I([1, 1, 0]), In((3, 3))]),
        Case("alpha_int", lambda m, x, i, s: x.index_add(0, i, s, alpha=-2),
             [In((3, 2), "int32"), I([2, 2]), In((2, 2), "int32")]),
        Case("int32_index", f, [In((4, 3)), I([1, 2], dtype="int32"), In((2, 3))]),
        Case("T", f, [In((4, 3), layout="T"), I([1, 1]), In((2, 3), layout="T")]),
        Case("step", f, [In((4, 3), layout="step"), I([3, 2]), In((2, 3), layout="step")]),
        Case("expand_src", f, [In((4, 3)), I([0, 1]), In((2, 3), layout="expand")]),
        Case("3d", lambda m, x, i, s: x.index_add(2, i, s), [In((2, 3, 4)), I([0, 3, 0]), In((2, 3, 3))]),
        Case("empty", f, [In((4, 3)), I([], (0,)), In((0, 3))]),
        Case("0dim", f, [In(()), I([0, 0]), In(())]),
        Case("many", lambda m, x, i, s: x.index_add(0, i, s),
             [In((5, 40)), I([k % 5 for k in range(300)]), In((300, 40))]),
        Case("out_of_range", f, [In((4, 3)), I([4]), In((1, 3))]),
        Case("negative", f, [In((4, 3)), I([-1]), In((1, 3))]),
        Case("shape_mismatch", f, [In((4, 3)), I([0, 1]), In((3, 3))]),
        Case("dtype_mismatch", f, [In((4, 3)), I([0]), In((1, 3), "float64")]),
    ]


def index_copy_cases():
    f = lambda m, x, i, s: m.index_copy(x, 0, i, s)  # noqa: E731
    cs = [Case(dt, f, [In((4, 3), dt), I([3, 0]), In((2, 3), dt)]) for dt in ALL]
    return cs + [
        Case("dim1", lambda m, x, i, s: x.index_copy(1, i, s), [In((3, 4)), I([2, 0]), In((3, 2))]),
        Case("T", f, [In((4, 3), layout="T"), I([1, 2]), In((2, 3), layout="T")]),
        Case("step", f, [In((4, 3), layout="step"), I([1, 2]), In((2, 3))]),
        Case("expand", f, [In((4, 3)), I([1, 2]), In((2, 3), layout="expand")]),
        Case("empty", f, [In((4, 3)), I([], (0,)), In((0, 3))]),
        Case("0dim", f, [In(()), I([0]), In(())]),
        Case("int32_index", f, [In((4, 3)), I([1], dtype="int32"), In((1, 3))]),
        Case("out_of_range", f, [In((4, 3)), I([5]), In((1, 3))]),
        Case("shape_mismatch", f, [In((4, 3)), I([1]), In((1, 2))]),
    ]


def index_fill_cases():
    f = lambda m, x, i: m.index_fill(x, 0, i, 2)  # noqa: E731
    cs = [Case(dt, f, [In((4, 3), dt), I([3, 0, 3])]) for dt in ALL]
    return cs + [
        Case("float_value", lambda m, x, i: x.index_fill(1, i, -1.5), [In((3, 4)), I([1, 3])]),
        Case("tensor_value", lambda m, x, i, v: x.index_fill(1, i, v), [In((3, 4)), I([0]), In(())]),
        Case("negative", f, [In((4, 3)), I([-1, -4])]),
        Case("T", f, [In((4, 3), layout="T"), I([1, 2])]),
        Case("step", f, [In((4, 3), layout="step"), I([1])]),
        Case("expand", lambda m, x, i: x.index_fill(1, i, 0), [In((4, 3), layout="expand"), I([1])]),
        Case("empty", f, [In((0, 3)), I([], (0,))]),
        Case("0dim", f, [In(()), I([0])]),
        Case("out_of_range", f, [In((4, 3)), I([4])]),
        Case("int32_index", f, [In((4, 3)), I([1], dtype="int32")]),
        Case("1d_value_tensor", lambda m, x, i, v: x.index_fill(0, i, v), [In((3, 4)), I([0]), In((1,))]),
    ]


# ---- gather, scatter, scatter_add, scatter_reduce


GATHER_IDX = [[0, 2, 1, 2], [1, 0, 0, 2]]


def take_along_dim_cases():
    f = lambda m, x, i: m.take_along_dim(x, i, 1)  # noqa: E731
    idx = [[0, 3], [2, 2], [1, 0]]
    cs = [Case(dt, f, [In((3, 4), dt), In((3, 2), "int64", kind=idx)]) for dt in ("float32", "int64", "bool", "float16")]
    return cs + [
        Case("flat", lambda m, x, i: m.take_along_dim(x, i), [In((3, 4)), In((5,), "int64", kind=[0, 11, 3, 3, 7])]),
        Case("method", lambda m, x, i: x.take_along_dim(i, dim=0), [In((3, 4)), In((2, 4), "int64", kind=[[0, 1, 2, 0]] * 2)]),
        Case("broadcast_index", f, [In((3, 4)), In((1, 2), "int64", kind=[[0, 3]])]),
        Case("broadcast_self", f, [In((1, 4)), In((3, 2), "int64", kind=idx)]),
        Case("argsort", lambda m, x: m.take_along_dim(x, x.argsort(dim=1), dim=1), [In((3, 4))]),
        Case("transposed", f, [In((3, 4), layout="T"), In((3, 2), "int64", kind=idx)]),
        Case("stepped", f, [In((3, 4), layout="step"), In((3, 2), "int64", kind=idx)]),
        Case("expanded", f, [In((3, 4), layout="expand"), In((3, 2), "int64", kind=idx)]),
        Case("empty", f, [In((3, 4)), In((3, 0), "int64")]),
        Case("0dim", lambda m, x, i: m.take_along_dim(x, i, 0), [In(()), In((), "int64", kind=0)]),
        Case("out_of_range", f, [In((3, 4)), In((3, 2), "int64", kind=[[0, 4], [0, 0], [0, 0]])]),
        Case("dims_differ", f, [In((3, 4)), In((2,), "int64", kind=[0, 1])]),
        Case("int32_index", f, [In((3, 4)), In((3, 2), "int32", kind=idx)]),
        Case("bad_dim", lambda m, x, i: m.take_along_dim(x, i, 2), [In((3, 4)), In((3, 2), "int64", kind=idx)]),
    ]


def gather_cases():
    f = lambda m, x, i: m.gather(x, 0, i)  # noqa: E731
    cs = [Case(dt, f, [In((3, 4), dt), I(GATHER_IDX)]) for dt in ALL]
    return cs + [
        Case("dim1", lambda m, x, i: x.gather(1, i), [In((3, 4)), I([[3, 0], [1, 1], [2, 0]])]),
        Case("smaller_index", lambda m, x, i: x.gather(1, i), [In((3, 4)), I([[3], [1]])]),
        Case("larger_dim", f, [In((3, 4)), I([[0, 1, 2, 2]] * 5)]),
        Case("T", f, [In((3, 4), layout="T"), I(GATHER_IDX)]),
        Case("step", f, [In((3, 4), layout="step"), I(GATHER_IDX)]),
        Case("expand", f, [In((3, 4), layout="expand"), I(GATHER_IDX)]),
        Case("3d", lambda m, x, i: x.gather(-1, i), [In((2, 2, 3)), I([[[2, 0], [1, 1]], [[0, 0], [2, 1]]])]),
        Case("empty", f, [In((3, 4)), I([], (0, 4))]),
        Case("0dim", f, [In(()), I(0, ())]),
        Case("out_of_range", f, [In((3, 4)), I([[3, 0, 0, 0]])]),
        Case("negative", f, [In((3, 4)), I([[-1, 0, 0, 0]])]),
        Case("int32_index", f, [In((3, 4)), I(GATHER_IDX, dtype="int32")]),
        Case("rank_mismatch", f, [In((3, 4)), I([0, 1])]),
        Case("too_large", f, [In((3, 4)), I([[0] * 5])]),
    ]


SCATTER_IDX = [[0, 2, 1, 2], [1, 0, 2, 0]]  # distinct targets per column: no ties


def scatter_cases():
    f = lambda m, x, i, s: m.scatter(x, 0, i, s)  # noqa: E731
    fv = lambda m, x, i: x.scatter(0, i, 7)  # noqa: E731
    cs = [Case(dt, f, [In((3, 4), dt), I(SCATTER_IDX), In((2, 4), dt)]) for dt in ALL]
    return cs + [
        Case("value", fv, [In((3, 4)), I(SCATTER_IDX)]),
        Case("value_float", lambda m, x, i: x.scatter(1, i, -2.5), [In((2, 4)), I([[3, 0], [1, 2]])]),
        Case("value_int", fv, [In((3, 4), "int16"), I(SCATTER_IDX)]),
        Case("bigger_src", lambda m, x, i, s: x.scatter(1, i, s), [In((2, 4)), I([[3, 0], [1, 2]]), In((3, 5))]),
        Case("T", f, [In((3, 4), layout="T"), I(SCATTER_IDX), In((2, 4), layout="T")]),
        Case("step", f, [In((3, 4), layout="step"), I(SCATTER_IDX), In((2, 4), layout="step")]),
        Case("expand", f, [In((3, 4)), I(SCATTER_IDX), In((2, 4), layout="expand")]),
        Case("empty", f, [In((3, 4)), I([], (0, 4)), In((0, 4))]),
        Case("0dim", f, [In(()), I(0, ()), In(())]),
        Case("out_of_range", f, [In((3, 4)), I([[3, 0, 0, 0]]), In((1, 4))]),
        Case("dtype_mismatch", f, [In((3, 4)), I(SCATTER_IDX), In((2, 4), "float64")]),
        Case("src_too_small", f, [In((3, 4)), I(SCATTER_IDX), In((1, 4))]),
        Case("int32_index", f, [In((3, 4)), I(SCATTER_IDX, dtype="int32"), In((2, 4))]),
        Case("reduce_add", lambda m, x, i, s: x.scatter(0, i, s, reduce="add"),
             [In((3, 4)), I([[0, 2, 0, 1], [0, 2, 2, 1]]), In((2, 4))]),
        Case("reduce_multiply_int", lambda m, x, i, s: x.scatter(1, i, s, reduce="multiply"),
             [In((2, 4), "int32"), I([[3, 3], [1, 0]]), In((2, 2), "int32")]),
        Case("value_reduce_add", lambda m, x, i: x.scatter(0, i, 2.5, reduce="add"), [In((3, 4)), I(SCATTER_IDX)]),
        Case("value_reduce_multiply", lambda m, x, i: x.scatter(0, i, -2, reduce="multiply"),
             [In((3, 4), "float64"), I(SCATTER_IDX)]),
        Case("reduce_T", lambda m, x, i, s: x.scatter(0, i, s, reduce="add"),
             [In((3, 4), layout="T"), I(SCATTER_IDX), In((2, 4), layout="T")]),
        Case("reduce_bad", lambda m, x, i, s: x.scatter(0, i, s, reduce="max"), [In((3, 4)), I(SCATTER_IDX), In((2, 4))]),
    ]


def scatter_add_cases():
    f = lambda m, x, i, s: m.scatter_add(x, 0, i, s)  # noqa: E731
    idx = [[0, 2, 1, 2], [0, 2, 2, 0], [0, 0, 0, 1]]
    cs = [Case(dt, f, [In((3, 4), dt), I(idx), In((3, 4), dt)]) for dt in ALL]
    return cs + [
        Case("dim1", lambda m, x, i, s: x.scatter_add(1, i, s), [In((2, 3)), I([[2, 2, 0, 2], [1, 1, 1, 1]]),
                                                                   In((2, 4))]),
        Case("T", f, [In((3, 4), layout="T"), I(idx), In((3, 4), layout="T")]),
        Case("step", f, [In((3, 4), layout="step"), I(idx), In((3, 4), layout="step")]),
        Case("expand", f, [In((3, 4)), I(idx), In((3, 4), layout="expand")]),
        Case("many", lambda m, x, i, s: x.scatter_add(0, i, s),
             [In((4, 50)), I([[(r * 7 + c) % 4 for c in range(50)] for r in range(400)]), In((400, 50))]),
        Case("empty", f, [In((3, 4)), I([], (0, 4)), In((0, 4))]),
        Case("0dim", f, [In(()), I(0, ()), In(())]),
        Case("out_of_range", f, [In((3, 4)), I([[0, 0, 0, 9]]), In((1, 4))]),
        Case("dtype_mismatch", f, [In((3, 4)), I(idx), In((3, 4), "int64")]),
    ]


def scatter_reduce_cases():
    idx = [[0, 2, 1, 2], [0, 2, 2, 0], [0, 0, 0, 1]]
    cs = []
    for red in ["sum", "prod", "mean", "amax", "amin"]:
        for inc in (True, False):
            f = lambda m, x, i, s, red=red, inc=inc: x.scatter_reduce(0, i, s, red, include_self=inc)  # noqa: E731
            cs.append(Case(f"{red}_{inc}", f, [In((3, 4)), I(idx), In((3, 4))]))
            cs.append(Case(f"{red}_{inc}_int", f, [In((3, 4), "int32"), I(idx), In((3, 4), "int32")]))
    f = lambda m, x, i, s: m.scatter_reduce(x, 0, i, s, "sum")  # noqa: E731
    fm = lambda m, x, i, s: x.scatter_reduce(0, i, s, "amax")  # noqa: E731
    cs += [Case(dt, f, [In((3, 4), dt), I(idx), In((3, 4), dt)]) for dt in NUM]
    return cs + [
        Case("mean_half", lambda m, x, i, s: x.scatter_reduce(0, i, s, "mean"),
             [In((3, 4), "float16"), I(idx), In((3, 4), "float16")]),
        Case("amax_nan", fm, [In((3, 4), kind="special"), I(idx), In((3, 4), kind="special")]),
        Case("amax_bf16", fm, [In((3, 4), "bfloat16"), I(idx), In((3, 4), "bfloat16")]),
        Case("T", fm, [In((3, 4), layout="T"), I(idx), In((3, 4), layout="T")]),
        Case("step", fm, [In((3, 4), layout="step"), I(idx), In((3, 4))]),
        Case("expand", fm, [In((3, 4)), I(idx), In((3, 4), layout="expand")]),
        Case("empty", fm, [In((3, 4)), I([], (0, 4)), In((0, 4))]),
        Case("0dim", fm, [In(()), I(0, ()), In(())]),
        Case("bad_reduce", lambda m, x, i, s: x.scatter_reduce(0, i, s, "max"), [In((3, 4)), I(idx), In((3, 4))]),
        Case("out_of_range", fm, [In((3, 4)), I([[0, 5, 0, 0]]), In((3, 4))]),
    ]


# ---- masked_fill, masked_select, masked_scatter, nonzero


def masked_fill_cases():
    f = lambda m, x, k: m.masked_fill(x, k, 3)  # noqa: E731
    cs = [Case(dt, f, [In((3, 4), dt), In((3, 4), "bool")]) for dt in ALL]
    return cs + [
        Case("float_into_int", lambda m, x, k: x.masked_fill(k, 1.5), [In((3, 4), "int64"), In((3, 4), "bool")]),
        Case("tensor_value", lambda m, x, k, v: x.masked_fill(k, v), [In((3, 4)), In((3, 4), "bool"), In(())]),
        Case("tensor_value_f64", lambda m, x, k, v: x.masked_fill(k, v),
             [In((3, 4)), In((4,), "bool"), In((), "float64")]),
        Case("bcast_mask", f, [In((3, 4)), In((4,), "bool")]),
        Case("bcast_self", f, [In((4,)), In((3, 4), "bool")]),
        Case("nan", lambda m, x, k: x.masked_fill(k, float("nan")), [In((3, 4)), In((3, 4), "bool")]),
        Case("T", f, [In((3, 4), layout="T"), In((3, 4), "bool", layout="T")]),
        Case("step", f, [In((3, 4), layout="step"), In((3, 4), "bool")]),
        Case("expand", f, [In((3, 4), layout="expand"), In((3, 4), "bool", layout="expand")]),
        Case("empty", f, [In((0, 4)), In((0, 4), "bool")]),
        Case("0dim", f, [In(()), In((), "bool")]),
        Case("int_mask", f, [In((3, 4)), In((3, 4), "int64")]),
        Case("1d_value", lambda m, x, k, v: x.masked_fill(k, v), [In((3,)), In((3,), "bool"), In((1,))]),
        Case("no_broadcast", f, [In((3, 4)), In((2, 4), "bool")]),
    ]


def masked_select_cases():
    f = lambda m, x, k: m.masked_select(x, k)  # noqa: E731
    cs = [Case(dt, f, [In((3, 4), dt), In((3, 4), "bool")]) for dt in ALL]
    return cs + [
        Case("bcast_mask", f, [In((3, 4)), In((4,), "bool")]),
        Case("bcast_self", f, [In((4,)), In((2, 4), "bool")]),
        Case("T", f, [In((3, 4), layout="T"), In((3, 4), "bool", layout="T")]),
        Case("step", f, [In((3, 4), layout="step"), In((3, 4), "bool")]),
        Case("expand", f, [In((3, 4), layout="expand"), In((3, 4), "bool")]),
        Case("empty", f, [In((0, 4)), In((0, 4), "bool")]),
        Case("0dim", f, [In(()), In((), "bool")]),
        Case("float_mask", f, [In((3, 4)), In((3, 4))]),
        Case("no_broadcast", f, [In((3, 4)), In((3,), "bool")]),
    ]


def masked_scatter_cases():
    f = lambda m, x, k, s: m.masked_scatter(x, k, s)  # noqa: E731
    cs = [Case(dt, f, [In((3, 4), dt), In((3, 4), "bool"), In((12,), dt)]) for dt in ALL]
    return cs + [
        Case("2d_source", f, [In((3, 4)), In((3, 4), "bool"), In((4, 5))]),
        Case("bcast_mask", f, [In((3, 4)), In((4,), "bool"), In((12,))]),
        Case("bcast_self", f, [In((4,)), In((3, 4), "bool"), In((12,))]),
        Case("T", f, [In((3, 4), layout="T"), In((3, 4), "bool", layout="T"), In((3, 4), layout="T")]),
        Case("step", f, [In((3, 4), layout="step"), In((3, 4), "bool"), In((3, 4), layout="step")]),
        Case("expand", f, [In((3, 4), layout="expand"), In((3, 4), "bool"), In((12,))]),
        Case("empty", f, [In((0, 4)), In((0, 4), "bool"), In((0,))]),
        Case("0dim", f, [In(()), In((), "bool"), In(())]),
        Case("source_too_small", f, [In((3, 4)), B([[True] * 4] * 3), In((5,))]),
        Case("dtype_mismatch", f, [In((3, 4)), In((3, 4), "bool"), In((12,), "float64")]),
        Case("uint8_mask", f, [In((3, 4)), I([[1, 0, 0, 1]] * 3, dtype="uint8"), In((12,))]),
    ]


def nonzero_cases():
    f = lambda m, x: m.nonzero(x)  # noqa: E731
    cs = [Case(dt, f, [In((3, 4), dt)]) for dt in ALL]
    tup = lambda m, x: m.stack(list(m.nonzero(x, as_tuple=True)))  # noqa: E731
    return cs + [
        Case("special", f, [In((3, 4), kind="special")]),
        Case("3d", f, [In((2, 3, 2), "int32")]),
        Case("T", f, [In((3, 4), layout="T")]),
        Case("step", f, [In((3, 4), "bool", layout="step")]),
        Case("expand", f, [In((3, 4), layout="expand")]),
        Case("empty", f, [In((0, 4))]),
        Case("0dim", f, [In((), kind=[2.0])]),
        Case("0dim_zero", f, [In((), kind=[0.0])]),
        Case("method", lambda m, x: x.nonzero(), [In((5,), "int8")]),
        Case("as_tuple", tup, [In((3, 4), "bool")]),
        Case("as_tuple_method", lambda m, x: m.stack(list(x.nonzero(as_tuple=True))), [In((2, 2, 3))]),
    ]


# ---- take, put


def take_cases():
    f = lambda m, x, i: m.take(x, i)  # noqa: E731
    cs = [Case(dt, f, [In((3, 4), dt), I([[11, 0], [-1, 5]])]) for dt in ALL]
    return cs + [
        Case("T", f, [In((3, 4), layout="T"), I([1, 4, 7])]),
        Case("step", f, [In((3, 4), layout="step"), I([1, 4, 7])]),
        Case("expand", f, [In((3, 4), layout="expand"), I([1, 4, 7])]),
        Case("empty_index", f, [In((3, 4)), I([], (0,))]),
        Case("0dim", f, [In(()), I(0, ())]),
        Case("out_of_range", f, [In((3, 4)), I([12])]),
        Case("negative_out", f, [In((3, 4)), I([-13])]),
        Case("int32_index", f, [In((3, 4)), I([1], dtype="int32")]),
        Case("empty_self", f, [In((0, 4)), I([0])]),
    ]


def put_cases():
    f = lambda m, x, i, s: m.put(x, i, s)  # noqa: E731
    fa = lambda m, x, i, s: x.put(i, s, accumulate=True)  # noqa: E731
    cs = [Case(dt, f, [In((3, 4), dt), I([11, 0, -2]), In((3,), dt)]) for dt in ALL]
    return cs + [
        Case("accumulate", fa, [In((3, 4)), I([1, 1, -11, 5]), In((2, 2))]),
        Case("accumulate_int", fa, [In((3, 4), "int16"), I([1, 1, 0]), In((3,), "int16")]),
        Case("T", f, [In((3, 4), layout="T"), I([1, 4]), In((2,))]),
        Case("step", fa, [In((3, 4), layout="step"), I([1, 4]), In((2,), layout="step")]),
        Case("expand", f, [In((3, 4)), I([1, 4]), In((2,), layout="expand")]),
        Case("empty", f, [In((3, 4)), I([], (0,)), In((0,))]),
        Case("0dim", f, [In(()), I(0, ()), In(())]),
        Case("out_of_range", f, [In((3, 4)), I([12]), In((1,))]),
        Case("count_mismatch", f, [In((3, 4)), I([1, 2]), In((3,))]),
        Case("dtype_mismatch", f, [In((3, 4)), I([1]), In((1,), "float64")]),
    ]


# ---- embedding


def embedding_cases():
    F = lambda m: m.nn.functional  # noqa: E731
    f = lambda m, i, w: F(m).embedding(i, w)  # noqa: E731
    cs = [Case(dt, f, [I([[0, 4], [2, 2]]), In((5, 3), dt)]) for dt in ALL]
    return cs + [
        Case("padding", lambda m, i, w: F(m).embedding(i, w, padding_idx=2), [I([1, 2, 0]), In((4, 3))]),
        Case("padding_neg", lambda m, i, w: F(m).embedding(i, w, padding_idx=-1), [I([1, 3]), In((4, 3))]),
        Case("int32", f, [I([1, 3], dtype="int32"), In((4, 3))]),
        Case("T", f, [I([1, 3]), In((4, 3), layout="T")]),
        Case("step", f, [I([1, 3]), In((4, 3), layout="step")]),
        Case("expand", f, [I([0, 0]), In((4, 3), layout="expand")]),
        Case("empty", f, [I([], (0,)), In((4, 3))]),
        Case("0dim", f, [I(1, ()), In((4, 3))]),
        Case("out_of_range", f, [I([4]), In((4, 3))]),
        Case("negative", f, [I([-1]), In((4, 3))]),
        Case("1d_weight", f, [I([1]), In((4,))]),
        Case("float_index", f, [In((2,)), In((4, 3))]),
        Case("aten_order", lambda m, w, i: m.embedding(w, i), [In((4, 3)), I([3, 1])]),
    ]


# ---- advanced indexing: x[...] reads (index) and writes (index_put, index_put_)


def _get(expr):
    return lambda m, x, *ts: eval("x" + expr, {"m": m, "x": x, "ts": ts})


INDEX_READS = [
    # (id, expression over x and index tensors ts, inputs)
    ("int", "[ts[0]]", [In((4, 3)), I([3, 0, -1, 3])]),
    ("list", "[[2, 0]]", [In((4, 3))]),
    ("dim1", "[:, ts[0]]", [In((4, 3)), I([2, 0])]),
    ("two", "[ts[0], ts[1]]", [In((4, 3)), I([3, 0]), I([2, 1])]),
    ("broadcast", "[ts[0], ts[1]]", [In((4, 3)), I([[3], [0]]), I([2, 1, 0])]),
    ("separated", "[ts[0], :, ts[1]]", [In((2, 3, 4)), I([1, 0]), I([3, 2])]),
    ("int_and_tensor", "[0, :, ts[0]]", [In((2, 3, 4)), I([3, 1])]),
    ("adjacent_mid", "[:, ts[0], ts[1]]", [In((2, 3, 4)), I([2, 0]), I([3, 3])]),
    ("ellipsis", "[..., ts[0]]", [In((2, 3, 4)), I([1, 3])]),
    ("none", "[None, ts[0]]", [In((3, 4)), I([1, 2])]),
    ("slice_and_tensor", "[1:, ts[0]]", [In((3, 4)), I([[1, 0], [3, 3]])]),
    ("mask", "[ts[0]]", [In((3, 4)), In((3, 4), "bool")]),
    ("mask_rows", "[ts[0]]", [In((3, 4)), B([True, False, True])]),
    ("mask_dim1", "[:, ts[0]]", [In((3, 4)), B([False, True, True, False])]),
    ("mask_and_int", "[ts[0], ts[1]]", [In((3, 4)), B([True, False, True]), I([3, 0])]),
    ("uint8_mask", "[ts[0]]", [In((3, 4)), I([1, 0, 1], dtype="uint8")]),
    ("0dim_tensor", "[ts[0]]", [In((3, 4)), I(2, ())]),
    ("T", "[ts[0]]", [In((3, 4), layout="T"), I([2, 0])]),
    ("T_dim1", "[:, ts[0]]", [In((3, 4), layout="T"), I([2, 0])]),
    ("step", "[:, ts[0]]", [In((3, 4), layout="step"), I([3, 1])]),
    ("expand", "[ts[0], ts[1]]", [In((3, 4), layout="expand"), I([2, 0]), I([1, 1])]),
    ("empty_index", "[ts[0]]", [In((3, 4)), I([], (0,))]),
    ("empty_self", "[:, ts[0]]", [In((0, 4)), I([1, 2])]),
    ("empty_mask", "[ts[0]]", [In((3, 4)), B([[False] * 4] * 3)]),
    ("out_of_range", "[ts[0]]", [In((3, 4)), I([3])]),
    ("negative_out", "[:, ts[0]]", [In((3, 4)), I([-5])]),
    ("too_many", "[ts[0], ts[1], ts[2]]", [In((3, 4)), I([0]), I([0]), I([0])]),
    ("mask_mismatch", "[ts[0]]", [In((3, 4)), B([True, False])]),
    ("no_broadcast", "[ts[0], ts[1]]", [In((3, 4)), I([0, 1]), I([0, 1, 2])]),
    ("float_index", "[ts[0]]", [In((3, 4)), In((2,))]),
    ("int32_index", "[ts[0]]", [In((3, 4)), I([1], dtype="int32")]),
]


def _has_mask(ins):
    return any(s.dtype in ("bool", "uint8") for s in ins[1:])


def index_cases():
    cs = [Case(cid, _get(expr), ins) for cid, expr, ins in INDEX_READS if not _has_mask(ins)]
    cs += [Case(dt, _get("[ts[0], ts[1]]"), [In((3, 4), dt), I([2, 0]), I([1, 3])]) for dt in ALL]
    return cs


# Boolean masks make the result's size depend on the data: the same operators, listed apart so
# that the meta-device run expects a refusal (DATA_DEPENDENT).
def index_mask_cases():
    cs = [Case(cid, _get(expr), ins) for cid, expr, ins in INDEX_READS if _has_mask(ins)]
    cs += [Case(f"mask_{dt}", _get("[ts[0]]"), [In((3, 4), dt), In((3, 4), "bool")]) for dt in FLOATS]
    return cs


def _set(expr, accumulate=False):
    def f(m, x, v, *ts):
        y = x.clone()
        if accumulate:
            y.index_put_(tuple(ts), v, accumulate=True)
        else:
            exec("y" + expr + " = v", {"m": m, "y": y, "v": v, "ts": ts})
        return y
    return f


INDEX_WRITES = [
    ("int", "[ts[0]]", [In((4, 3)), In((2, 3)), I([3, 0])]),
    ("scalar_value", "[ts[0]]", [In((4, 3)), In(()), I([3, -4])]),
    ("bcast_value", "[ts[0]]", [In((4, 3)), In((3,)), I([1, 2])]),
    ("dim1", "[:, ts[0]]", [In((4, 3)), In((4, 2)), I([2, 0])]),
    ("two", "[ts[0], ts[1]]", [In((4, 3)), In((2,)), I([3, 0]), I([2, 1])]),
    ("separated", "[ts[0], :, ts[1]]", [In((2, 3, 4)), In((2, 3)), I([1, 0]), I([3, 2])]),
    ("slice_and_tensor", "[1:, ts[0]]", [In((3, 4)), In(()), I([1, 3])]),
    ("mask", "[ts[0]]", [In((3, 4)), In(()), In((3, 4), "bool")]),
    ("mask_rows", "[ts[0]]", [In((3, 4)), In((4,)), B([True, False, True])]),
    ("T", "[ts[0]]", [In((3, 4), layout="T"), In((4,)), I([2, 0])]),
    ("step", "[:, ts[0]]", [In((3, 4), layout="step"), In((3, 1)), I([3, 1])]),
    ("expand_value", "[ts[0]]", [In((3, 4)), In((2, 4), layout="expand"), I([2, 0])]),
    ("empty", "[ts[0]]", [In((3, 4)), In(()), I([], (0,))]),
    ("0dim_value_int", "[ts[0]]", [In((3, 4), "int32"), In((), "int32"), I([1])]),
    ("value_mismatch", "[ts[0]]", [In((3, 4)), In((3,)), I([1, 2])]),
    ("out_of_range", "[ts[0]]", [In((3, 4)), In(()), I([3])]),
]


def index_put_mask_cases():
    return [Case(cid, _set(expr), ins) for cid, expr, ins in INDEX_WRITES if _has_mask(ins[1:])]


def index_put_cases():
    cs = [Case(cid, _set(expr), ins) for cid, expr, ins in INDEX_WRITES if not _has_mask(ins[1:])]
    cs += [Case(dt, _set("[ts[0]]"), [In((3, 4), dt), In((4,), dt), I([2, 0])]) for dt in ALL]
    acc = lambda m, x, v, i: x.index_put((i,), v, accumulate=True)  # noqa: E731
    cs += [
        Case("accumulate", _set("", True), [In((4, 3)), In((5, 3)), I([3, 0, 3, 3, 1])]),
        Case("accumulate_two", _set("", True), [In((4, 3)), In(()), I([3, 0, 3]), I([1, 1, 1])]),
        Case("accumulate_int", _set("", True), [In((4, 3), "int64"), In((3,), "int64"), I([1, 1])]),
        Case("functional", acc, [In((4, 3)), In((2, 3)), I([2, 2])]),
        Case("functional_bf16", acc, [In((4, 3), "bfloat16"), In((2, 3), "bfloat16"), I([2, 2])]),
        Case("functional_dtype_mismatch", acc, [In((4, 3)), In((2, 3), "float64"), I([2, 2])]),
        Case("functional_0dim_self", lambda m, x, v, i: x.index_put((i,), v), [In(()), In(()), I([0])]),
    ]
    return cs


CASES = {
    "index_select": index_select_cases(),
    "index_add": index_add_cases(),
    "index_copy": index_copy_cases(),
    "index_fill": index_fill_cases(),
    "gather": gather_cases(),
    "take_along_dim": take_along_dim_cases(),
    "scatter": scatter_cases(),
    "scatter_add": scatter_add_cases(),
    "scatter_reduce": scatter_reduce_cases(),
    "masked_fill": masked_fill_cases(),
    "masked_select": masked_select_cases(),
    "masked_scatter": masked_scatter_cases(),
    "nonzero": nonzero_cases(),
    "take": take_cases(),
    "put": put_cases(),
    "embedding": embedding_cases(),
    "index": index_cases(),
    "index_put": index_put_cases(),
}

FUNCTIONS = {
    "index (bool mask)": index_mask_cases(),
    "index_put (bool mask)": index_put_mask_cases(),
}

DATA_DEPENDENT = {"nonzero", "masked_select", "index (bool mask)", "index_put (bool mask)"}
