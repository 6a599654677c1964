"""Differential cases of the shape family: repeat, tile, roll, flip, tril, triu, diag, diagonal,
diag_embed, trace, movedim, moveaxis, unflatten, expand_as, broadcast_to, padding, the stacking
functions (hstack, vstack, dstack, column_stack, atleast_Nd), diff and the factories logspace,
tril_indices and triu_indices (CASES, registered operators), and
split, split_with_sizes, chunk and unbind (FUNCTIONS: lists of views, not registered operators)."""

import ctorch

from difftest import Case, In

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


def _dtype_cases(fn, shape, dtypes=DTYPES):
    return [Case(f"dtype_{dt}", fn, [In(shape, dt)]) for dt in dtypes]


def _common(fn, shape=(3, 4), empty=(0, 4), zero_dim=True):
    """Dtypes, layouts, an empty input and a 0-dim input for a one-tensor function."""
    cs = _dtype_cases(fn, shape)
    cs += [
        Case("transposed", fn, [In(shape, layout="T")]),
        Case("stepped", fn, [In(shape, "int32", layout="step")]),
        Case("expanded", fn, [In(shape, "float64", layout="expand")]),
        Case("empty", fn, [In(empty)]),
    ]
    if zero_dim:
        cs.append(Case("0dim", fn, [In(())]))
    return cs


def repeat_cases():
    f = lambda m, a: a.repeat(2, 3)
    return _common(f, zero_dim=False) + [
        Case("0dim", lambda m, a: a.repeat(2, 3), [In(())]),
        Case("more_dims", lambda m, a: a.repeat(2, 1, 3), [In((3, 4))]),
        Case("tuple", lambda m, a: a.repeat((1, 2)), [In((3, 4), "bool")]),
        Case("zero_repeat", lambda m, a: a.repeat(0, 2), [In((3, 4))]),
        Case("ones_copy", lambda m, a: a.repeat(1, 1), [In((3, 4), layout="T")]),
        Case("3d_stepped", lambda m, a: a.repeat(2, 1, 2), [In((2, 3, 4), "float16", layout="step")]),
        Case("too_few", lambda m, a: a.repeat(2), [In((3, 4))]),
        Case("negative", lambda m, a: a.repeat(-1, 2), [In((3, 4))]),
    ]


def tile_cases():
    f = lambda m, a: m.tile(a, (2, 2))
    return _common(f) + [
        Case("fewer_dims", lambda m, a: m.tile(a, (2,)), [In((3, 4))]),
        Case("more_dims", lambda m, a: a.tile(2, 1, 3), [In((3, 4), "int16")]),
        Case("empty_dims", lambda m, a: m.tile(a, ()), [In((3, 4))]),
        Case("zero", lambda m, a: m.tile(a, (0, 1)), [In((3, 4))]),
        Case("negative", lambda m, a: m.tile(a, (-1, 2)), [In((3, 4))]),
    ]


def roll_cases():
    f = lambda m, a: m.roll(a, 1, 0)
    return _common(f, zero_dim=False) + [
        Case("flat", lambda m, a: m.roll(a, 5), [In((3, 4))]),
        Case("flat_0dim", lambda m, a: m.roll(a, 2), [In(())]),
        Case("0dim_with_dims", lambda m, a: m.roll(a, 1, 0), [In(())]),
        Case("flat_empty", lambda m, a: m.roll(a, 2), [In((0, 3))]),
        Case("negative", lambda m, a: m.roll(a, -7, 1), [In((3, 4), "bfloat16")]),
        Case("two_dims", lambda m, a: m.roll(a, (1, -1), (0, 1)), [In((3, 4), layout="T")]),
        Case("same_dim_twice", lambda m, a: m.roll(a, (1, 2), (1, 1)), [In((3, 4))]),
        Case("method_kw", lambda m, a: a.roll(shifts=2, dims=-1), [In((2, 3, 4), "int64")]),
        Case("zero_shift", lambda m, a: m.roll(a, 0, 0), [In((3, 4))]),
        Case("mismatch", lambda m, a: m.roll(a, (1, 2), (0,)), [In((3, 4))]),
        Case("dim_out_of_range", lambda m, a: m.roll(a, 1, 2), [In((3, 4))]),
    ]


def flip_cases():
    f = lambda m, a: m.flip(a, (0, 1))
    return _common(f, zero_dim=False) + [
        Case("one_dim", lambda m, a: m.flip(a, (1,)), [In((3, 4), layout="T")]),
        Case("negative_dim", lambda m, a: a.flip(-1), [In((2, 3, 4), "float16")]),
        Case("no_dims", lambda m, a: m.flip(a, ()), [In((3, 4))]),
        Case("0dim", lambda m, a: m.flip(a, ()), [In(())]),
        Case("0dim_dim0", lambda m, a: m.flip(a, (0,)), [In(())]),
        Case("0dim_repeated", lambda m, a: m.flip(a, (0, -1)), [In(())]),
        Case("3d_middle", lambda m, a: m.flip(a, [1]), [In((2, 3, 4), "int8", layout="step")]),
        Case("repeated", lambda m, a: m.flip(a, (0, 0)), [In((3, 4))]),
        Case("out_of_range", lambda m, a: m.flip(a, (2,)), [In((3, 4))]),
    ]


def triangle_cases(op):
    f = lambda m, a: getattr(m, op)(a)
    return _common(f, zero_dim=False) + [
        Case("diag_pos", lambda m, a: getattr(m, op)(a, 1), [In((4, 5))]),
        Case("diag_neg", lambda m, a: getattr(m, op)(a, diagonal=-2), [In((4, 5))]),
        Case("diag_far", lambda m, a: getattr(m, op)(a, 9), [In((4, 5))]),
        Case("batched", lambda m, a: getattr(a, op)(-1), [In((2, 3, 4, 5), "float16")]),
        Case("batched_T", lambda m, a: getattr(m, op)(a), [In((2, 3, 4), layout="T")]),
        Case("expanded_batch", lambda m, a: getattr(m, op)(a, 1), [In((3, 4, 4), "int64", layout="expand")]),
        Case("empty_batch", lambda m, a: getattr(m, op)(a), [In((0, 3, 3))]),
        Case("1d", lambda m, a: getattr(m, op)(a), [In((4,))]),
        Case("0dim", lambda m, a: getattr(m, op)(a), [In(())]),
    ]


def diag_cases():
    f = lambda m, a: m.diag(a)
    return _dtype_cases(f, (4,)) + _dtype_cases(lambda m, a: m.diag(a, 1), (3, 4), ["bool", "int32", "bfloat16"]) + [
        Case("vec_pos", lambda m, a: m.diag(a, 2), [In((3,))]),
        Case("vec_neg", lambda m, a: m.diag(a, -1), [In((3,), "int64")]),
        Case("vec_stepped", lambda m, a: m.diag(a), [In((3,), layout="step")]),
        Case("vec_empty", lambda m, a: m.diag(a, 1), [In((0,))]),
        Case("mat", lambda m, a: m.diag(a), [In((3, 4))]),
        Case("mat_neg", lambda m, a: m.diag(a, -2), [In((3, 4), "float16")]),
        Case("mat_T", lambda m, a: m.diag(a, 1), [In((3, 4), layout="T")]),
        Case("mat_expanded", lambda m, a: m.diag(a), [In((3, 3), layout="expand")]),
        Case("mat_last", lambda m, a: m.diag(a, 3), [In((3, 4))]),
        Case("mat_empty", lambda m, a: m.diag(a), [In((0, 4))]),
        Case("method", lambda m, a: a.diag(diagonal=1), [In((3, 3))]),
        Case("0dim", lambda m, a: m.diag(a), [In(())]),
        Case("3d", lambda m, a: m.diag(a), [In((2, 2, 2))]),
    ]


def diagonal_cases():
    f = lambda m, a: m.diagonal(a)
    return _dtype_cases(f, (3, 4)) + [
        Case("offset", lambda m, a: m.diagonal(a, 1), [In((3, 4))]),
        Case("offset_neg", lambda m, a: m.diagonal(a, offset=-2), [In((3, 4))]),
        Case("offset_far", lambda m, a: m.diagonal(a, 7), [In((3, 4))]),
        Case("dims", lambda m, a: m.diagonal(a, 0, 1, 2), [In((2, 3, 4))]),
        Case("dims_swapped", lambda m, a: m.diagonal(a, 1, 2, 0), [In((3, 4, 5))]),
        Case("dims_negative", lambda m, a: a.diagonal(-1, -1, -2), [In((2, 3, 4), "int16")]),
        Case("transposed", lambda m, a: m.diagonal(a), [In((3, 4), layout="T")]),
        Case("stepped", lambda m, a: m.diagonal(a, 1), [In((3, 4), "float16", layout="step")]),
        Case("expanded", lambda m, a: m.diagonal(a), [In((3, 3), layout="expand")]),
        Case("empty", lambda m, a: m.diagonal(a), [In((0, 4))]),
        Case("is_view", lambda m, a: m.diagonal(a.clone(), 1).mul_(0).add_(1), [In((3, 4))]),
        Case("writes_through", lambda m, a: _diagonal_write(m, a), [In((3, 4))]),
        Case("same_dims", lambda m, a: m.diagonal(a, 0, 1, 1), [In((3, 4))]),
        Case("1d", lambda m, a: m.diagonal(a), [In((4,))]),
        Case("0dim", lambda m, a: m.diagonal(a), [In(())]),
        Case("dim_out_of_range", lambda m, a: m.diagonal(a, 0, 0, 2), [In((3, 4))]),
    ]


def _diagonal_write(m, a):
    b = a.clone()
    m.diagonal(b, -1).mul_(0)
    return b


def movedim_cases():
    f = lambda m, a: m.movedim(a, 0, 1)
    return _common(f, zero_dim=False) + [
        Case("lists", lambda m, a: m.movedim(a, (0, 1), (2, 0)), [In((2, 3, 4))]),
        Case("negative", lambda m, a: a.movedim(-1, 0), [In((2, 3, 4), "bool")]),
        Case("keywords", lambda m, a: m.movedim(a, source=[2], destination=[0]), [In((2, 3, 4))]),
        Case("0dim", lambda m, a: m.movedim(a, 0, 0), [In(())]),
        Case("same", lambda m, a: m.movedim(a, (0, 1), (0, 1)), [In((3, 4), layout="T")]),
        Case("repeated_source", lambda m, a: m.movedim(a, (0, 0), (0, 1)), [In((2, 3, 4))]),
        Case("repeated_destination", lambda m, a: m.movedim(a, (0, 1), (2, 2)), [In((2, 3, 4))]),
        Case("length_mismatch", lambda m, a: m.movedim(a, (0, 1), (2,)), [In((2, 3, 4))]),
        Case("out_of_range", lambda m, a: m.movedim(a, 3, 0), [In((2, 3, 4))]),
    ]


def moveaxis_cases():
    return [
        Case("int", lambda m, a: m.moveaxis(a, 0, -1), [In((2, 3, 4))]),
        Case("lists", lambda m, a: a.moveaxis((1, 2), (0, 1)), [In((2, 3, 4), "int32")]),
        Case("transposed", lambda m, a: m.moveaxis(a, 1, 0), [In((3, 4), "float16", layout="T")]),
        Case("empty", lambda m, a: m.moveaxis(a, 1, 0), [In((0, 4))]),
        Case("0dim", lambda m, a: m.moveaxis(a, -1, 0), [In(())]),
        Case("repeated", lambda m, a: m.moveaxis(a, (1, 1), (0, 2)), [In((2, 3, 4))]),
    ]


def unflatten_cases():
    f = lambda m, a: a.unflatten(1, (2, 2))
    return _dtype_cases(f, (3, 4)) + [
        Case("infer", lambda m, a: m.unflatten(a, 1, (2, -1)), [In((3, 4))]),
        Case("first", lambda m, a: m.unflatten(a, 0, (3, 1)), [In((3, 4))]),
        Case("negative_dim", lambda m, a: a.unflatten(-1, (1, 4, 1)), [In((2, 3, 4), "int8")]),
        Case("stepped", lambda m, a: a.unflatten(0, (3, 1)), [In((3, 4), layout="step")]),
        Case("expanded", lambda m, a: a.unflatten(1, (2, 2)), [In((3, 4), layout="expand")]),
        Case("empty", lambda m, a: a.unflatten(0, (0, 2)), [In((0, 4))]),
        Case("wrong_product", lambda m, a: a.unflatten(1, (3, 2)), [In((3, 4))]),
        Case("two_inferred", lambda m, a: a.unflatten(1, (-1, -1)), [In((3, 4))]),
        Case("0dim", lambda m, a: a.unflatten(0, (1,)), [In(())]),
    ]


def _expand_as(m, a, b):
    # torch's Tensor.expand_as is its expand_as operator; ctorch's Python method is a fast path
    # over expand, so the registered operator is called through ctorch.ops here.
    return m.ops.expand_as(a, b) if m is ctorch else a.expand_as(b)


def expand_as_cases():
    return [Case(f"dtype_{dt}", _expand_as, [In((3, 1), dt), In((2, 3, 4))]) for dt in DTYPES] + [
        Case("same", _expand_as, [In((3, 4)), In((3, 4), "int32")]),
        Case("transposed", _expand_as, [In((1, 3, 4), layout="T"), In((2, 3, 4))]),
        Case("stepped", _expand_as, [In((3, 1), layout="step"), In((3, 5))]),
        Case("0dim", _expand_as, [In(()), In((2, 3))]),
        Case("empty", _expand_as, [In((1, 4)), In((0, 4))]),
        Case("mismatch", _expand_as, [In((3, 4)), In((4, 3))]),
        Case("fewer_dims", _expand_as, [In((3, 4)), In((4,))]),
    ]


def broadcast_to_cases():
    f = lambda m, a: m.broadcast_to(a, (2, 3, 4))
    return [Case(f"dtype_{dt}", f, [In((3, 1), dt)]) for dt in DTYPES] + [
        Case("keep", lambda m, a: m.broadcast_to(a, (-1, 4)), [In((3, 1))]),
        Case("method", lambda m, a: a.broadcast_to((2, 3, 4)), [In((3, 4), layout="T")]),
        Case("stepped", lambda m, a: m.broadcast_to(a, (5, 3, 4)), [In((3, 4), layout="step")]),
        Case("expanded", lambda m, a: m.broadcast_to(a, (2, 3, 4)), [In((3, 4), layout="expand")]),
        Case("0dim", lambda m, a: m.broadcast_to(a, (2, 2)), [In(())]),
        Case("to_0dim", lambda m, a: m.broadcast_to(a, ()), [In(())]),
        Case("to_empty", lambda m, a: m.broadcast_to(a, (0, 4)), [In((1, 4))]),
        Case("empty", lambda m, a: m.broadcast_to(a, (2, 0, 4)), [In((0, 4))]),
        Case("mismatch", lambda m, a: m.broadcast_to(a, (2, 3)), [In((3, 4))]),
        Case("fewer_dims", lambda m, a: m.broadcast_to(a, (4,)), [In((3, 4))]),
    ]


def constant_pad_nd_cases():
    f = lambda m, a: m.constant_pad_nd(a, (1, 2))
    return _common(f, zero_dim=False) + [
        Case("value", lambda m, a: m.constant_pad_nd(a, (1, 1, 2, 0), 2.5), [In((3, 4))]),
        Case("value_int", lambda m, a: m.constant_pad_nd(a, (0, 1), 7), [In((3, 4), "int16")]),
        Case("value_bool", lambda m, a: m.constant_pad_nd(a, (1, 0), True), [In((3, 4), "bool")]),
        Case("crop", lambda m, a: m.constant_pad_nd(a, (-1, 2, 1, -2)), [In((3, 4))]),
        Case("crop_only", lambda m, a: m.constant_pad_nd(a, (-1, -1)), [In((3, 4), layout="T")]),
        Case("no_pad", lambda m, a: m.constant_pad_nd(a, ()), [In((3, 4))]),
        Case("all_dims", lambda m, a: m.constant_pad_nd(a, (1, 1, 1, 1, 1, 1)), [In((2, 3, 4), "float16")]),
        Case("0dim", lambda m, a: m.constant_pad_nd(a, ()), [In(())]),
        Case("odd_length", lambda m, a: m.constant_pad_nd(a, (1, 2, 3)), [In((3, 4))]),
        Case("too_long", lambda m, a: m.constant_pad_nd(a, (1, 1, 1, 1, 1, 1)), [In((3, 4))]),
        Case("negative_size", lambda m, a: m.constant_pad_nd(a, (-3, -3)), [In((3, 4))]),
    ]


def edge_pad_cases(op, k):
    """reflection_pad{k}d and replication_pad{k}d, called as torch's F.pad does."""
    mode = "reflect" if op.startswith("reflection") else "replicate"
    batched = (2, 3) + (4, 5, 6)[:k]
    unbatched = batched[1:]
    pad = (2, 1, 1, 3, 1, 0)[:2 * k]
    f = lambda m, a: m.nn.functional.pad(a, pad, mode=mode)
    direct = lambda m, a: _call_direct(m, op, a, pad)
    cs = [Case(f"dtype_{dt}", f, [In(batched, dt)]) for dt in ("float16", "bfloat16", "float32", "float64")]
    cs += [
        Case("direct", direct, [In(batched)]),
        Case("unbatched", f, [In(unbatched)]),
        Case("transposed", f, [In(batched, layout="T")]),
        Case("stepped", f, [In(batched, "float64", layout="step")]),
        Case("expanded", f, [In(batched, layout="expand")]),
        Case("empty_batch", f, [In((0,) + batched[1:])]),
        Case("zero_pad", lambda m, a: m.nn.functional.pad(a, (0,) * (2 * k), mode=mode), [In(batched)]),
        Case("empty_dim", f, [In(batched[:-1] + (0,))]),
        Case("wrong_ndim", f, [In((2,) + batched)]),
        Case("0dim", lambda m, a: _call_direct(m, op, a, pad), [In(())]),
    ]
    if mode == "replicate" or k == 3:  # torch 1.13's reflection_pad1d/2d do not check the length
        cs.append(Case("wrong_length", lambda m, a: _call_direct(m, op, a, (1,) * (2 * k + 2)), [In(batched)]))
    if mode == "reflect":
        cs.append(Case("pad_too_big", lambda m, a: m.nn.functional.pad(a, (5, 0) + (0, 0) * (k - 1), mode=mode),
                       [In(batched)]))
    return cs


def _call_direct(m, op, a, pad):
    return getattr(m, op)(a, pad) if m is ctorch else getattr(m._C._nn, op)(a, pad)


def pad_cases():
    F = lambda m: m.nn.functional
    return [Case(f"dtype_{dt}", lambda m, a: F(m).pad(a, (1, 2)), [In((3, 4), dt)]) for dt in DTYPES] + [
        Case("value", lambda m, a: F(m).pad(a, (1, 1, 2, 0), value=-1.5), [In((3, 4))]),
        Case("positional", lambda m, a: F(m).pad(a, [1, 1], "constant", 3.0), [In((2, 3, 4), "int32")]),
        Case("crop", lambda m, a: F(m).pad(a, (-1, 1)), [In((3, 4), layout="T")]),
        Case("stepped", lambda m, a: F(m).pad(a, (1, 1)), [In((3, 4), layout="step")]),
        Case("expanded", lambda m, a: F(m).pad(a, (0, 0, 1, 1)), [In((3, 4), layout="expand")]),
        Case("empty", lambda m, a: F(m).pad(a, (1, 1)), [In((0, 4))]),
        Case("0dim", lambda m, a: F(m).pad(a, ()), [In(())]),
        Case("reflect", lambda m, a: F(m).pad(a, (1, 2), mode="reflect"), [In((2, 3, 4))]),
        Case("reflect_2d", lambda m, a: F(m).pad(a, (1, 2, 2, 1), "reflect"), [In((2, 3, 4), "bfloat16")]),
        Case("reflect_3d", lambda m, a: F(m).pad(a, (1, 0, 0, 1, 1, 1), "reflect"), [In((1, 2, 3, 4, 2))]),
        Case("replicate", lambda m, a: F(m).pad(a, (3, 1), mode="replicate"), [In((2, 4), layout="T")]),
        Case("replicate_2d", lambda m, a: F(m).pad(a, (1, 2, 3, 0), "replicate"), [In((1, 2, 3, 4), "float64")]),
        Case("replicate_3d", lambda m, a: F(m).pad(a, (1, 1, 2, 0, 0, 1), "replicate"), [In((2, 2, 3, 2))]),
        Case("circular", lambda m, a: F(m).pad(a, (1, 2), mode="circular"), [In((1, 2, 4))]),
        Case("circular_2d", lambda m, a: F(m).pad(a, (1, 2, 2, 1), mode="circular"), [In((1, 2, 3, 4))]),
        Case("circular_3d", lambda m, a: F(m).pad(a, (1, 0, 1, 1, 0, 2), mode="circular"), [In((1, 1, 2, 3, 4))]),
        Case("reflect_value", lambda m, a: F(m).pad(a, (1, 1), mode="reflect", value=1.0), [In((2, 3, 4))]),
        Case("reflect_4_dims", lambda m, a: F(m).pad(a, (1,) * 8, mode="reflect"), [In((2, 2, 3, 3, 3))]),
        Case("reflect_too_big", lambda m, a: F(m).pad(a, (4, 1), mode="reflect"), [In((2, 3, 4))]),
        Case("odd_length", lambda m, a: F(m).pad(a, (1, 2, 3)), [In((3, 4))]),
    ]


def split_cases():
    f = lambda m, a: m.split(a, 2)
    return _common(f, shape=(5, 4), zero_dim=False) + [
        Case("method_dim", lambda m, a: a.split(3, dim=1), [In((3, 7))]),
        Case("exact", lambda m, a: m.split(a, 2, 1), [In((3, 4), "int16")]),
        Case("larger", lambda m, a: m.split(a, 10), [In((3, 4))]),
        Case("sizes", lambda m, a: m.split(a, [1, 3, 0], 1), [In((3, 4), layout="T")]),
        Case("sizes_tuple", lambda m, a: a.split((2, 1)), [In((3, 4), "bfloat16")]),
        Case("zero_on_empty", lambda m, a: m.split(a, 0), [In((0, 4))]),
        Case("grad_flows", lambda m, a: _grad_through(m, a, lambda t: m.split(t, 2, 1)), [In((3, 5), "float64")]),
        Case("zero_on_nonempty", lambda m, a: m.split(a, 0), [In((3, 4))]),
        Case("negative", lambda m, a: m.split(a, -1), [In((3, 4))]),
        Case("sizes_wrong_sum", lambda m, a: m.split(a, [1, 1]), [In((3, 4))]),
        Case("0dim", lambda m, a: m.split(a, 1), [In(())]),
        Case("dim_out_of_range", lambda m, a: m.split(a, 1, 2), [In((3, 4))]),
    ]


def split_with_sizes_cases():
    return [
        Case("basic", lambda m, a: m.split_with_sizes(a, [1, 2]), [In((3, 4))]),
        Case("method", lambda m, a: a.split_with_sizes([2, 2], dim=-1), [In((3, 4), "uint8", layout="T")]),
        Case("stepped", lambda m, a: m.split_with_sizes(a, [3, 1], 1), [In((3, 4), "float16", layout="step")]),
        Case("expanded", lambda m, a: m.split_with_sizes(a, [1, 2]), [In((3, 4), "bool", layout="expand")]),
        Case("empty", lambda m, a: m.split_with_sizes(a, [0, 0]), [In((0, 4))]),
        Case("wrong_sum", lambda m, a: m.split_with_sizes(a, [2, 2]), [In((3, 4))]),
        Case("negative", lambda m, a: m.split_with_sizes(a, [4, -1]), [In((3, 4))]),
        Case("0dim", lambda m, a: m.split_with_sizes(a, [1]), [In(())]),
    ]


def chunk_cases():
    f = lambda m, a: m.chunk(a, 2)
    return _common(f, shape=(5, 4), zero_dim=False) + [
        Case("uneven", lambda m, a: a.chunk(3, 1), [In((2, 7))]),
        Case("uneven_fewer", lambda m, a: m.chunk(a, 4, dim=1), [In((2, 6))]),
        Case("more_than_size", lambda m, a: m.chunk(a, 5), [In((3, 4), "int64")]),
        Case("empty_dim", lambda m, a: m.chunk(a, 3), [In((0, 4))]),
        Case("grad_flows", lambda m, a: _grad_through(m, a, lambda t: m.chunk(t, 3)), [In((5, 2), "float64")]),
        Case("zero_chunks", lambda m, a: m.chunk(a, 0), [In((3, 4))]),
        Case("0dim", lambda m, a: m.chunk(a, 1), [In(())]),
    ]


def unbind_cases():
    f = lambda m, a: m.unbind(a)
    return _common(f, zero_dim=False) + [
        Case("dim", lambda m, a: a.unbind(1), [In((3, 4), "int8")]),
        Case("negative_dim", lambda m, a: m.unbind(a, dim=-1), [In((2, 3, 4), layout="T")]),
        Case("1d", lambda m, a: m.unbind(a), [In((4,), "float16")]),
        Case("empty_other", lambda m, a: m.unbind(a, 1), [In((0, 2))]),
        Case("grad_flows", lambda m, a: _grad_through(m, a, lambda t: m.unbind(t, 1)), [In((2, 3), "float64")]),
        Case("0dim", lambda m, a: m.unbind(a), [In(())]),
        Case("dim_out_of_range", lambda m, a: m.unbind(a, 2), [In((3, 4))]),
    ]


def _grad_through(m, a, pieces_of):
    """The gradient reaching a through a list of views, each piece weighted differently."""
    x = a.clone().requires_grad_()
    total = None
    for i, p in enumerate(pieces_of(x)):
        s = (p * (i + 1)).sum()
        total = s if total is None else total + s
    total.backward()
    return x.grad


def diag_embed_cases():
    f = lambda m, a: m.diag_embed(a)  # noqa: E731
    return _common(f) + [
        Case("offset", lambda m, a: m.diag_embed(a, 1), [In((2, 3))]),
        Case("negative_offset", lambda m, a: a.diag_embed(-2), [In((2, 3), "int64")]),
        Case("dims", lambda m, a: m.diag_embed(a, 0, 0, 2), [In((2, 3))]),
        Case("dims_reversed", lambda m, a: m.diag_embed(a, 1, 2, 0), [In((2, 3), "float64")]),
        Case("1d", f, [In((4,))]),
        Case("same_dims", lambda m, a: m.diag_embed(a, 0, 1, 1), [In((2, 3))]),
        Case("dim_out_of_range", lambda m, a: m.diag_embed(a, 0, 0, 3), [In((2, 3))]),
    ]


def trace_cases():
    f = lambda m, a: m.trace(a)  # noqa: E731
    return _dtype_cases(f, (3, 4), [dt for dt in DTYPES if dt != "bool"]) + [
        Case("square", lambda m, a: a.trace(), [In((4, 4), "float64")]),
        Case("tall", f, [In((5, 2))]),
        Case("transposed", f, [In((3, 4), layout="T")]),
        Case("stepped", f, [In((3, 4), "int32", layout="step")]),
        Case("expanded", f, [In((3, 4), "float64", layout="expand")]),
        Case("empty", f, [In((0, 4))]),
        Case("bool", f, [In((3, 3), "bool")]),
        Case("1d_error", f, [In((4,))]),
        Case("0dim_error", f, [In(())]),
        Case("3d_error", f, [In((2, 2, 2))]),
    ]


def stacking_cases(op):
    f = lambda m, a, b: getattr(m, op)([a, b])  # noqa: E731
    cs = [Case(f"{dt}", f, [In((3, 4), dt), In((3, 4), dt)]) for dt in ("bool", "int64", "float16", "float32")]
    return cs + [
        Case("1d", f, [In((4,)), In((4,))]),
        Case("0dim", f, [In(()), In(())]),
        Case("3d", f, [In((2, 3, 4)), In((2, 3, 4))]),
        Case("tuple_three", lambda m, a, b: getattr(m, op)((a, b, a)), [In((3, 2)), In((3, 2))]),
        Case("mixed_dtypes", f, [In((3, 4), "int32"), In((3, 4), "float64")]),
        Case("transposed", f, [In((3, 4), layout="T"), In((3, 4))]),
        Case("stepped", f, [In((3, 4)), In((3, 4), layout="step")]),
        Case("expanded", f, [In((3, 4), layout="expand"), In((3, 4))]),
        Case("empty", f, [In((0, 4)), In((0, 4))]),
        Case("different_sizes", f, [In((3, 4)), In((2, 5))]),
        Case("empty_list", lambda m, a: getattr(m, op)([]), [In((3,))]),
    ]


def column_stack_cases():
    cs = stacking_cases("column_stack")
    f = lambda m, a, b: m.column_stack([a, b])  # noqa: E731
    return cs + [Case("vector_and_matrix", f, [In((3,)), In((3, 2))])]


def atleast_cases(op):
    f = lambda m, a: getattr(m, op)(a)  # noqa: E731
    return _common(f) + [
        Case("1d", f, [In((4,))]),
        Case("2d", f, [In((2, 3))]),
        Case("4d", f, [In((2, 1, 3, 2))]),
        Case("several", lambda m, a, b: getattr(m, op)(a, b)[1], [In(()), In((3,))]),
        Case("list", lambda m, a, b: getattr(m, op)([a, b])[0], [In((2, 3)), In((3,))]),
        Case("writes_through", lambda m, a: _write_view(getattr(m, op)(a), a), [In((3,))]),
        Case("not_a_tensor", lambda m, a: getattr(m, op)(a, 3), [In((3,))]),
    ]


def _write_view(view, base):
    """The result is a view: a write to it shows in the input, as torch's."""
    view.mul_(2)
    return base


def _refuses(message):
    def ref(m, *ts):
        raise RuntimeError(message)
    return ref


def diff_cases():
    f = lambda m, a: m.diff(a)  # noqa: E731
    return _common(f, zero_dim=False) + [
        Case("n2_dim0", lambda m, a: m.diff(a, 2, 0), [In((4, 3))]),
        Case("method", lambda m, a: a.diff(dim=0), [In((4, 3), "int64")]),
        Case("n_past_length", lambda m, a: m.diff(a, 5), [In((3, 4))]),
        Case("n0", lambda m, a: m.diff(a, 0), [In((3, 4))]),
        Case("bool", f, [In((3, 4), "bool")]),
        Case("uint8_wraps", f, [In((3, 4), "uint8")]),
        Case("prepend_append", lambda m, a, p, q: m.diff(a, 1, 1, p, q), [In((3, 4)), In((3, 2)), In((3, 1))]),
        Case("prepend_only", lambda m, a, p: m.diff(a, prepend=p), [In((3, 4), "float64"), In((3, 1), "float64")]),
        Case("append_dim0", lambda m, a, q: m.diff(a, 1, 0, append=q), [In((3, 4)), In((2, 4))]),
        Case("prepend_dims_differ", lambda m, a, p: m.diff(a, prepend=p), [In((3, 4)), In((4,))]),
        Case("prepend_sizes_differ", lambda m, a, p: m.diff(a, prepend=p), [In((3, 4)), In((2, 1))]),
        Case("0dim_error", f, [In(())]),
        # torch 2 refuses a negative order ("order must be non-negative"); 1.13 returned a result
        Case("negative_n", lambda m, a: m.diff(a, -1), [In((3, 4))], torch_fn=_refuses("order must be non-negative")),
        Case("bad_dim", lambda m, a: m.diff(a, 1, 2), [In((3, 4))]),
    ]


def factory_cases():
    return {
        "logspace": [
            Case("default", lambda m: m.logspace(0, 3, 7)),
            Case("base2", lambda m: m.logspace(-2, 3, 8, base=2.0)),
            Case("float64", lambda m: m.logspace(-1.5, 2.5, 9, dtype=m.float64)),
            Case("int64", lambda m: m.logspace(0, 3, 4, dtype=m.int64)),
            Case("one_step", lambda m: m.logspace(2, 5, 1)),
            Case("zero_steps", lambda m: m.logspace(2, 5, 0)),
            Case("descending", lambda m: m.logspace(3, -3, 13, 3.0)),
            Case("negative_steps", lambda m: m.logspace(0, 1, -1)),
        ],
        "tril_indices": [
            Case("square", lambda m: m.tril_indices(4, 4)),
            Case("wide_offset", lambda m: m.tril_indices(3, 5, 1)),
            Case("tall_negative_offset", lambda m: m.tril_indices(5, 3, -2)),
            Case("offset_past_matrix", lambda m: m.tril_indices(3, 3, 9)),
            Case("offset_before_matrix", lambda m: m.tril_indices(3, 3, -9)),
            Case("empty", lambda m: m.tril_indices(0, 3)),
            Case("int32", lambda m: m.tril_indices(3, 4, dtype=m.int32)),
            Case("negative_row", lambda m: m.tril_indices(-1, 3)),
            Case("float_dtype", lambda m: m.tril_indices(3, 3, dtype=m.float32)),
        ],
        "triu_indices": [
            Case("square", lambda m: m.triu_indices(4, 4)),
            Case("wide_offset", lambda m: m.triu_indices(3, 5, 1)),
            Case("tall_negative_offset", lambda m: m.triu_indices(5, 3, -2)),
            Case("offset_past_matrix", lambda m: m.triu_indices(3, 3, 9)),
            Case("offset_before_matrix", lambda m: m.triu_indices(3, 3, -9)),
            Case("empty", lambda m: m.triu_indices(3, 0)),
            Case("negative_col", lambda m: m.triu_indices(3, -2)),
        ],
    }


def repeat_interleave_cases():
    reps = In((3,), "int64", kind=[2, 0, 3])
    return [
        Case("int", lambda m, x: m.repeat_interleave(x, 2), [In((2, 3))]),
        Case("int_dim", lambda m, x: m.repeat_interleave(x, 3, dim=1), [In((2, 3), "int64")]),
        Case("int_negative_dim", lambda m, x: x.repeat_interleave(2, dim=-2), [In((2, 3, 2), layout="T")]),
        Case("tensor", lambda m, x, r: m.repeat_interleave(x, r, dim=1), [In((2, 3)), reps]),
        Case("tensor_flat", lambda m, x, r: x.repeat_interleave(r), [In((3,)), reps]),
        Case("one_count", lambda m, x, r: m.repeat_interleave(x, r, dim=0), [In((2, 3)), In((1,), "int64", kind=[2])]),
        Case("indices", lambda m, r: m.repeat_interleave(r), [reps]),
        Case("output_size", lambda m, x, r: m.repeat_interleave(x, r, dim=1, output_size=5), [In((2, 3)), reps]),
        Case("zero", lambda m, x: m.repeat_interleave(x, 0, dim=0), [In((2, 3))]),
        Case("empty", lambda m, x: m.repeat_interleave(x, 2, dim=1), [In((0, 3))]),
        Case("0dim", lambda m, x: m.repeat_interleave(x, 3), [In(())]),
        Case("grad", lambda m, x: m.autograd.grad(m.repeat_interleave(x, 2, dim=1).pow(2).sum(), x.requires_grad_())[0],
             [In((2, 3), "float64")]),
        Case("negative", lambda m, x: m.repeat_interleave(x, -1), [In((2,))]),
        Case("negative_count", lambda m, x, r: m.repeat_interleave(x, r, dim=0), [In((2,)), In((2,), "int64", kind=[1, -2])]),
        Case("count_length", lambda m, x, r: m.repeat_interleave(x, r, dim=1), [In((2, 2)), reps]),
        Case("float_repeats", lambda m, r: m.repeat_interleave(r), [In((3,))]),
        Case("dim_out_of_range", lambda m, x: m.repeat_interleave(x, 2, dim=2), [In((2, 3))]),
    ]


def rot90_cases():
    f = lambda m, a: m.rot90(a)  # noqa: E731
    return _common(f, zero_dim=False) + [
        Case("k2", lambda m, a: m.rot90(a, 2), [In((3, 4), layout="T")]),
        Case("k3_dims", lambda m, a: m.rot90(a, 3, [2, 0]), [In((2, 3, 4), "int64")]),
        Case("k_negative", lambda m, a: a.rot90(-1, [-1, -2]), [In((2, 3, 4), "float16")]),
        Case("k0", lambda m, a: m.rot90(a, 4), [In((3, 4))]),
        Case("0dim", f, [In(())]),
        Case("1d", f, [In((4,))]),
        Case("same_dims", lambda m, a: m.rot90(a, 1, [1, 1]), [In((3, 4))]),
        Case("three_dims", lambda m, a: m.rot90(a, 1, [0, 1, 2]), [In((2, 3, 4))]),
        Case("grad", lambda m, a: m.autograd.grad((m.rot90(a.requires_grad_(), 1, [1, 2]) ** 2).sum(), a)[0],
             [In((2, 3, 4), "float64")]),
    ]


def flip_one_cases(name, min_dims):
    f = lambda m, a: getattr(m, name)(a)  # noqa: E731
    return _common(f, zero_dim=False) + [
        Case("3d", f, [In((2, 3, 4), "int16", layout="T")]),
        Case("method", lambda m, a: getattr(a, name)(), [In((3, 4))]),
        Case("too_few_dims", f, [In((4,) if min_dims == 2 else ())]),
        Case("0dim", f, [In(())]),
    ]


def diagflat_cases():
    f = lambda m, a: m.diagflat(a)  # noqa: E731
    return _common(f) + [
        Case("offset", lambda m, a: m.diagflat(a, 2), [In((2, 2), "int32")]),
        Case("negative_offset", lambda m, a: a.diagflat(-1), [In((3,), "float64")]),
        Case("grad", lambda m, a: m.autograd.grad((m.diagflat(a.requires_grad_(), 1) * 3).sum(), a)[0],
             [In((2, 2), "float64")]),
        Case("offset_too_large", lambda m, a: m.diagflat(a, 1 << 62), [In((3,))]),
    ]


def diagonal_scatter_cases():
    f = lambda m, a, b: m.diagonal_scatter(a, b)  # noqa: E731
    return [Case(f"dtype_{dt}", f, [In((3, 4), dt), In((3,), dt)]) for dt in DTYPES] + [
        Case("offset", lambda m, a, b: m.diagonal_scatter(a, b, 1), [In((3, 4)), In((3,))]),
        Case("negative_offset_dims", lambda m, a, b: m.diagonal_scatter(a, b, -1, 2, 0), [In((3, 2, 4)), In((2, 3))]),
        Case("T", f, [In((3, 4), layout="T"), In((3,), layout="step")]),
        Case("expand_src", f, [In((4, 4)), In((4,), layout="expand")]),
        Case("src_dtype", f, [In((3, 3), "float64"), In((3,), "int32")]),
        Case("empty", f, [In((0, 4)), In((0,))]),
        Case("0dim_src", f, [In((1, 1)), In(())]),
        Case("method", lambda m, a, b: a.diagonal_scatter(b), [In((3, 3)), In((3,))]),
        Case("grad", lambda m, a, b: m.autograd.grad((m.diagonal_scatter(a.requires_grad_(), b.requires_grad_()) ** 2).sum(),
                                                     (a, b)), [In((3, 3), "float64"), In((3,), "float64")]),
        Case("wrong_src", f, [In((3, 4)), In((4,))]),
        Case("1d_self", f, [In((3,)), In((3,))]),
    ]


def _slice_assigned(dim=0, start=None, end=None, step=1):
    """slice_scatter's reference: a clone of self with src assigned to self[..., start:end:step, ...]
    (torch 1.13's slice_scatter mishandles a start of None, negative bounds and clamped ends)."""
    def ref(m, a, b):
        out = a.clone()
        index = [slice(None)] * a.dim()
        index[dim] = slice(start, end, step)
        out[tuple(index)] = b
        return out
    return ref


def view_scatter_cases(name):
    if name == "slice_scatter":
        def case(id, inputs, *args):
            return Case(id, lambda m, a, b: m.slice_scatter(a, b, *args), inputs, torch_fn=_slice_assigned(*args))

        f = lambda m, a, b: m.slice_scatter(a, b, 1, 1, None, 2)  # noqa: E731
        self_shape, src_shape = (3, 5), (3, 2)
        dtype_cases = [case(f"dtype_{dt}", [In(self_shape, dt), In(src_shape, dt)], 1, 1, None, 2) for dt in DTYPES]
        extra = [
            case("default_dim_and_start", [In((3, 4)), In((2, 4))], 0, None, 2),
            case("negative_bounds", [In((2, 5)), In((2, 2))], -1, -3, -1),
            case("clamped_end", [In((4, 2)), In((3, 2))], 0, 1, 100),
            case("empty_slice", [In((4, 2)), In((0, 2))], 0, 3, 1),
            case("T", [In((5, 3), layout="T"), In(src_shape, layout="step")], 1, 1, None, 2),
            case("expand", [In(self_shape, layout="expand"), In(src_shape)], 1, 1, None, 2),
            case("src_dtype", [In(self_shape, "float64"), In(src_shape, "int64")], 1, 1, None, 2),
            case("empty", [In((0, 5)), In((0, 2))], 1, 1, None, 2),
            case("wrong_src", [In(self_shape), In((2, 2))], 1, 1, None, 2),
            Case("bad_step", lambda m, a, b: m.slice_scatter(a, b, 0, 0, 4, 0), [In((4, 2)), In((4, 2))]),
            Case("0dim_self", lambda m, a, b: m.slice_scatter(a, b), [In(()), In(())]),
            Case("method", lambda m, a, b: a.slice_scatter(b, 1, 1, 5, 2), [In(self_shape), In(src_shape)]),
        ]
    else:
        f = lambda m, a, b: m.select_scatter(a, b, 1, -1)  # noqa: E731
        self_shape, src_shape = (3, 5), (3,)
        dtype_cases = [Case(f"dtype_{dt}", f, [In(self_shape, dt), In(src_shape, dt)]) for dt in DTYPES]
        extra = [
            Case("dim0", lambda m, a, b: m.select_scatter(a, b, 0, 2), [In((3, 4, 2)), In((4, 2))]),
            Case("0dim_src", lambda m, a, b: m.select_scatter(a, b, 0, 1), [In((3,)), In(())]),
            Case("index_out_of_range", lambda m, a, b: m.select_scatter(a, b, 0, 3), [In((3, 2)), In((2,))]),
            Case("T", f, [In((5, 3), layout="T"), In(src_shape, layout="step")]),
            Case("expand", f, [In(self_shape, layout="expand"), In(src_shape)]),
            Case("src_dtype", f, [In(self_shape, "float64"), In(src_shape, "int64")]),
            Case("empty", f, [In((0, 5)), In((0,))]),
            Case("0dim_self", f, [In(()), In(())]),
            Case("method", lambda m, a, b: a.select_scatter(b, 1, -1), [In(self_shape), In(src_shape)]),
            Case("wrong_src", f, [In(self_shape), In((2, 2))]),
        ]
    return dtype_cases + extra + [
        Case("grad", lambda m, a, b: m.autograd.grad((f(m, a.requires_grad_(), b.requires_grad_()) ** 2).sum(), (a, b)),
             [In(self_shape, "float64"), In(src_shape, "float64")],
             torch_fn=None if name == "select_scatter" else
             lambda m, a, b: m.autograd.grad((_slice_assigned(1, 1, None, 2)(m, a.requires_grad_(), b.requires_grad_())
                                              ** 2).sum(), (a, b))),
    ]


def unfold_cases():
    f = lambda m, a: a.unfold(1, 2, 1)  # noqa: E731
    return _common(f, shape=(3, 4), empty=(0, 4), zero_dim=False) + [
        Case("step", lambda m, a: a.unfold(-1, 3, 2), [In((2, 3, 7), "int64")]),
        Case("whole", lambda m, a: a.unfold(0, 4, 4), [In((4,))]),
        Case("size0", lambda m, a: a.unfold(0, 0, 1), [In((3, 2))]),
        Case("0dim", lambda m, a: a.unfold(0, 1, 1), [In(())]),
        Case("grad_overlap", lambda m, a: m.autograd.grad((a.requires_grad_().unfold(1, 3, 1) ** 2).sum(), a)[0],
             [In((2, 6), "float64")]),
        Case("too_big", lambda m, a: a.unfold(1, 5, 1), [In((3, 4))]),
        Case("bad_step", lambda m, a: a.unfold(1, 2, 0), [In((3, 4))]),
        Case("dim_out_of_range", lambda m, a: a.unfold(2, 1, 1), [In((3, 4))]),
    ]


def as_strided_cases():
    f = lambda m, a: a.as_strided((2, 2), (1, 2), 1)  # noqa: E731
    return _common(f) + [
        Case("overlapping", lambda m, a: a.as_strided((3, 4), (2, 1)), [In((12,))]),
        Case("function", lambda m, a: m.as_strided(a, (2, 3), (0, 1), 2), [In((3, 4), "int64")]),
        Case("zero_size", lambda m, a: a.as_strided((0, 5), (100, 1)), [In((3, 4))]),
        Case("offset_default_of_a_view", lambda m, a: a[1:].as_strided((2,), (3,)), [In((3, 4))]),
        Case("grad_overlap", lambda m, a: m.autograd.grad((a.requires_grad_().as_strided((3, 4), (2, 1), 1) ** 2).sum(),
                                                          a)[0], [In((12,), "float64")]),
        Case("grad_of_transposed", lambda m, a: m.autograd.grad(
            (a.requires_grad_().t().as_strided((2, 2), (4, 1)) ** 2).sum(), a)[0], [In((3, 4), "float64")]),
        Case("past_the_storage", lambda m, a: a.as_strided((4, 4), (4, 1)), [In((3, 4))]),
        Case("length_mismatch", lambda m, a: a.as_strided((2, 2), (1,)), [In((3, 4))]),
        Case("negative_stride", lambda m, a: a.as_strided((2,), (-1,), 3), [In((3, 4))]),
        Case("negative_offset", lambda m, a: a.as_strided((2,), (1,), -1), [In((3, 4))]),
    ]


def ravel_cases():
    f = lambda m, a: m.ravel(a)  # noqa: E731
    return _common(f) + [
        Case("method", lambda m, a: a.ravel(), [In((2, 3, 4), layout="T")]),
        Case("extra_argument", lambda m, a: m.ravel(a, 0), [In((2, 3))]),
    ]


def block_diag_cases():
    f = lambda m, *ts: m.block_diag(*ts)  # noqa: E731
    return [Case(f"dtype_{dt}", f, [In((2, 2), dt), In((3,), dt)]) for dt in DTYPES] + [
        Case("mixed", f, [In((2, 3)), In(()), In((2,), "int64"), In((1, 2), "float64")]),
        Case("T", f, [In((2, 3), layout="T"), In((3, 2), layout="step")]),
        Case("expand", f, [In((2, 2), layout="expand")]),
        Case("empty_blocks", f, [In((0, 2)), In((2, 0)), In((0,)), In((1, 1))]),
        Case("0dim", f, [In(()), In(())]),
        Case("none", lambda m: m.block_diag()),
        Case("list", lambda m, a, b: m.block_diag(*[a, b]), [In((1, 2)), In((2, 1))]),
        Case("grad", lambda m, a, b: m.autograd.grad((m.block_diag(a.requires_grad_(), b.requires_grad_()) * 2).sum(),
                                                     (a, b)), [In((2, 2), "float64"), In((3,), "float64")]),
        Case("3d", f, [In((2, 2, 2))]),
    ]


def cartesian_prod_cases():
    f = lambda m, *ts: m.cartesian_prod(*ts)  # noqa: E731
    return [Case(f"dtype_{dt}", f, [In((2,), dt), In((3,), dt)]) for dt in DTYPES] + [
        Case("three", f, [In((2,), "int64"), In((3,), "int64"), In((2,), "int64")]),
        Case("one", f, [In((4,))]),
        Case("step", f, [In((3,), layout="step"), In((2,), layout="expand")]),
        Case("empty", f, [In((0,)), In((3,))]),
        Case("grad", lambda m, a, b: m.autograd.grad((m.cartesian_prod(a.requires_grad_(), b.requires_grad_()) ** 2).sum(),
                                                     (a, b)), [In((2,), "float64"), In((3,), "float64")]),
        Case("0dim", f, [In(()), In((2,))]),
        Case("2d", f, [In((2, 2)), In((2,))]),
        Case("dtype_mismatch", f, [In((2,)), In((2,), "int64")]),
    ]


def combinations_cases():
    f = lambda m, a: m.combinations(a)  # noqa: E731
    return [Case(f"dtype_{dt}", f, [In((4,), dt)]) for dt in DTYPES] + [
        Case("r3", lambda m, a: m.combinations(a, 3), [In((5,), "int64")]),
        Case("replacement", lambda m, a: m.combinations(a, 2, with_replacement=True), [In((3,))]),
        Case("replacement_r3", lambda m, a: m.combinations(a, r=3, with_replacement=True), [In((3,), "float64")]),
        Case("r0", lambda m, a: m.combinations(a, 0), [In((3,))]),
        Case("r_past_n", lambda m, a: m.combinations(a, 3), [In((2,))]),
        Case("r1", lambda m, a: m.combinations(a, 1), [In((3,))]),
        Case("step", f, [In((4,), layout="step")]),
        Case("empty", f, [In((0,))]),
        Case("grad", lambda m, a: m.autograd.grad((m.combinations(a.requires_grad_()) ** 2).sum(), a)[0],
             [In((4,), "float64")]),
        Case("0dim", f, [In(())]),
        Case("2d", f, [In((2, 2))]),
        Case("negative_r", lambda m, a: m.combinations(a, -1), [In((3,))]),
    ]


def window_cases(name):
    def f(*a, dtype=None):
        return lambda m: getattr(m, name)(*a, **({"dtype": getattr(m, dtype)} if dtype else {}))

    cs = [
        Case("default", f(8)),
        Case("symmetric", f(7, False)),
        Case("periodic_float64", f(9, True, dtype="float64")),
        Case("one", f(1)),
        Case("zero", f(0)),
        Case("two_symmetric", f(2, False)),
        Case("negative", f(-1)),
        Case("int_dtype", f(4, dtype="int64")),
    ]
    if name == "hamming_window":
        cs += [Case("alpha", f(6, False, 0.5)), Case("alpha_beta", f(6, True, 0.6, 0.3, dtype="float64"))]
    if name == "kaiser_window":
        cs += [Case("beta", f(7, False, 5.0)), Case("beta_float64", f(10, True, 3.5, dtype="float64"))]
    return cs


# repeat_interleave's length is read from a tensor of counts: those forms refuse the meta device, as
# does tensor_split given a tensor of sections or indices (read with item/tolist).
DATA_DEPENDENT = {"tensor_split-tensor_sections", "tensor_split-tensor_indices"} | {f"repeat_interleave-{c}" for c in ("tensor", "tensor_flat", "one_count", "indices", "output_size",
                                                     "negative_count", "count_length", "float_repeats")}

CASES = {
    "rot90": rot90_cases(),
    "fliplr": flip_one_cases("fliplr", 2),
    "flipud": flip_one_cases("flipud", 1),
    "diagflat": diagflat_cases(),
    "diagonal_scatter": diagonal_scatter_cases(),
    "slice_scatter": view_scatter_cases("slice_scatter"),
    "select_scatter": view_scatter_cases("select_scatter"),
    "unfold": unfold_cases(),
    "as_strided": as_strided_cases(),
    "ravel": ravel_cases(),
    "block_diag": block_diag_cases(),
    "cartesian_prod": cartesian_prod_cases(),
    "combinations": combinations_cases(),
    **{w: window_cases(w) for w in ("hann_window", "hamming_window", "bartlett_window", "blackman_window",
                                    "kaiser_window")},
    "repeat_interleave": repeat_interleave_cases(),
    "diag_embed": diag_embed_cases(),
    "trace": trace_cases(),
    "hstack": stacking_cases("hstack"),
    "vstack": stacking_cases("vstack"),
    "dstack": stacking_cases("dstack"),
    "column_stack": column_stack_cases(),
    "atleast_1d": atleast_cases("atleast_1d"),
    "atleast_2d": atleast_cases("atleast_2d"),
    "atleast_3d": atleast_cases("atleast_3d"),
    "diff": diff_cases(),
    **factory_cases(),
    "repeat": repeat_cases(),
    "tile": tile_cases(),
    "roll": roll_cases(),
    "flip": flip_cases(),
    "tril": triangle_cases("tril"),
    "triu": triangle_cases("triu"),
    "diag": diag_cases(),
    "diagonal": diagonal_cases(),
    "movedim": movedim_cases(),
    "moveaxis": moveaxis_cases(),
    "unflatten": unflatten_cases(),
    "expand_as": expand_as_cases(),
    "broadcast_to": broadcast_to_cases(),
    "constant_pad_nd": constant_pad_nd_cases(),
    "pad": pad_cases(),
}
for _k in (1, 2, 3):
    CASES[f"reflection_pad{_k}d"] = edge_pad_cases(f"reflection_pad{_k}d", _k)
    CASES[f"replication_pad{_k}d"] = edge_pad_cases(f"replication_pad{_k}d", _k)

# Functions that are not registered operators (they return lists of views); test_vs_torch.py runs
# them like CASES.
def tensor_split_cases():
    f = lambda *a, **k: (lambda m, x: m.tensor_split(x, *a, **k))  # noqa: E731
    return [
        Case("sections", f(3, dim=1), [In((2, 7))]),
        Case("more_sections_than_elements", f(5), [In((3, 2))]),
        Case("indices", f([1, 4], dim=1), [In((2, 7))]),
        Case("indices_unsorted_and_negative", f([3, 1, -1], 1), [In((2, 5), "int64")]),
        Case("indices_past_the_end", f([2, 9]), [In((4,))]),
        Case("tensor_sections", lambda m, x, s: m.tensor_split(x, s), [In((7,)), In((), "int64", kind=3)]),
        Case("tensor_indices", lambda m, x, s: x.tensor_split(s, 1), [In((2, 6)), In((2,), "int64", kind=[2, 5])]),
        Case("T", f(2, dim=0), [In((4, 3), layout="T")]),
        Case("empty", f(2), [In((0, 3))]),
        Case("grad", lambda m, x: m.autograd.grad(sum((p * (i + 1)).sum() for i, p in enumerate(m.tensor_split(
            x.requires_grad_(), [1, 3], dim=1))), x)[0], [In((2, 5), "float64")]),
        Case("zero_sections", f(0), [In((3,))]),
        Case("0dim", f(1), [In(())]),
        Case("dim_out_of_range", f(2, dim=2), [In((3, 4))]),
    ]


def directional_split_cases(name):
    shape = {"hsplit": (2, 6, 2), "vsplit": (4, 3), "dsplit": (2, 1, 6)}[name]
    f = lambda arg: (lambda m, x: getattr(m, name)(x, arg))  # noqa: E731
    too_small = {"hsplit": (), "vsplit": (4,), "dsplit": (2, 4)}[name]
    return [
        Case("sections", f(2), [In(shape)]),
        Case("indices", f([1, 3]), [In(shape, "int32")]),
        Case("method", lambda m, x: getattr(x, name)(2), [In(shape)]),
        Case("not_divisible", f(5), [In(shape)]),
        Case("too_few_dims", f(1), [In(too_small)]),
    ] + ([Case("1d", f(3), [In((6,))])] if name == "hsplit" else [])


def broadcast_tensors_cases():
    f = lambda m, *ts: m.broadcast_tensors(*ts)  # noqa: E731
    return [
        Case("two", f, [In((3, 1)), In((4,))]),
        Case("three", f, [In((2, 1, 1), "int64"), In((3, 1)), In(())]),
        Case("mismatch", f, [In((2, 3)), In((4,))]),
        Case("shapes", lambda m: m.tensor(list(m.broadcast_shapes((2, 1), (3, 1, 4), 4)))),
        Case("shapes_mismatch", lambda m: m.broadcast_shapes((2, 3), (4,))),
    ]


FUNCTIONS = {
    "tensor_split": tensor_split_cases(),
    "hsplit": directional_split_cases("hsplit"),
    "vsplit": directional_split_cases("vsplit"),
    "dsplit": directional_split_cases("dsplit"),
    "broadcast_tensors": broadcast_tensors_cases(),
    "split": split_cases(),
    "split_with_sizes": split_with_sizes_cases(),
    "chunk": chunk_cases(),
    "unbind": unbind_cases(),
}
