"""Symbolic shapes from Python: ShapeEnv, SymInt / SymFloat / SymBool, the sym_* builders, guards, and
meta tensors with symbolic sizes whose operators compute the shapes real tensors get.

The shape tests run each operator twice: once on meta tensors whose sizes are symbols, once on real
cpu tensors for several bindings of those symbols (the hint among them); every symbolic output size,
evaluated under a binding, must be the real output size, and the guards the operator recorded must
hold for every binding in the symbols' ranges (a rule that specializes a symbol fails here)."""

import gc
import operator
import os
import random
import re

import pytest

ctorch = pytest.importorskip("ctorch")
F = ctorch.nn.functional


def make_env(*specs):
    """A fresh env and one symbol per (hint, min, max)."""
    env = ctorch.ShapeEnv()
    return (env,) + tuple(env.create_symbol(h, min=lo, max=hi) for h, lo, hi in specs)


@pytest.fixture
def env_s0():
    env, s0 = make_env((8, 2, 64))
    return env, s0


# ---------------------------------------------------------------------------------------------------
# ShapeEnv


def test_create_symbol_gives_a_named_symint_with_its_range():
    env = ctorch.ShapeEnv()
    s0 = env.create_symbol(8, min=2, max=64)
    batch = env.create_symbol(4, name="batch")
    assert type(s0) is ctorch.SymInt and str(s0) == "s0" and repr(batch) == "batch"
    assert env.num_symbols == 2
    symbols = env.guards_json()["symbols"]
    assert symbols[0] == {"name": "s0", "type": "int", "backed": True, "hint": 8, "min": 2, "max": 64}
    assert symbols[1]["name"] == "batch" and symbols[1]["min"] == 0
    assert symbols[1].get("max") in (None, 2 ** 63 - 1)  # max=None: no upper end
    assert env.symbols == symbols


def test_create_symbol_with_hint_outside_range_is_invalid_argument():
    env = ctorch.ShapeEnv()
    with pytest.raises(ctorch.InvalidArgumentError):
        env.create_symbol(1, min=2, max=64)
    with pytest.raises(ValueError):  # InvalidArgumentError is a ValueError too
        env.create_symbol(5, min=6, max=4)


def test_create_unbacked_counts_as_a_symbol():
    env = ctorch.ShapeEnv()
    env.create_symbol(8)
    u0 = env.create_unbacked()
    assert str(u0) == "u0" and type(u0) is ctorch.SymInt
    assert env.num_symbols == 2
    assert env.guards_json()["symbols"][1]["backed"] is False


def test_fresh_env_has_no_guards():
    env = ctorch.ShapeEnv()
    assert (env.num_guards, env.guard_requests, env.guards, env.runtime_asserts) == (0, 0, [], [])
    assert env.check_guards([]) == -1
    assert "0 guards" in repr(env)


def test_closed_env_refuses_use_but_its_symbols_keep_working():
    env, s0 = make_env((8, 2, 64))
    with env:
        pass
    env.close()  # idempotent
    assert "closed" in repr(env)
    with pytest.raises(ctorch.InvalidArgumentError, match="closed"):
        env.create_symbol(3)
    with pytest.raises(ctorch.InvalidArgumentError):
        env.num_guards
    # A symbolic number keeps its env alive.
    assert str(s0 * 2 + 1) == "2*s0 + 1"
    assert (s0 * 2 + 1).evaluate([5]) == 11
    x = ctorch.empty(s0, 3, device="meta")
    assert str(x.shape[0]) == "s0"


def test_symbols_outlive_a_collected_env():
    env, s0 = make_env((8, 2, 64))
    del env
    gc.collect()
    assert (s0 + s0).evaluate([4]) == 8


def test_check_guards_with_wrong_binding_length_is_invalid_argument(env_s0):
    env, s0 = env_s0
    with pytest.raises(ctorch.InvalidArgumentError):
        env.check_guards([1, 2])


# ---------------------------------------------------------------------------------------------------
# arithmetic


def test_arithmetic_builds_simplified_expressions(env_s0):
    env, s0 = env_s0
    assert str(s0 + 1) == "s0 + 1"
    assert str(2 * s0 + 1) == "2*s0 + 1"
    assert str((4 * s0) // 4) == "s0"
    assert str(s0 ** 2) == "s0**2"
    assert env.num_guards == 0 and env.guard_requests == 0


def test_concrete_results_are_plain_ints(env_s0):
    env, s0 = env_s0
    for value, expected in [(s0 - s0, 0), (s0 * 0, 0), ((s0 + 3) - s0, 3), ((2 * s0) // s0, 2), (s0 ** 0, 1)]:
        assert type(value) is int and value == expected
    assert type(s0 >= 0) is bool and (s0 >= 0) is True  # the range decides it
    assert (s0 < 2) is False
    assert type((s0 / s0)) is float or isinstance(s0 / s0, ctorch.SymFloat)


def test_reflected_operators_with_python_ints(env_s0):
    env, s0 = env_s0
    for expr, fn in [(3 + s0, lambda v: 3 + v), (3 - s0, lambda v: 3 - v), (3 * s0, lambda v: 3 * v),
                     (100 // s0, lambda v: 100 // v), (100 % s0, lambda v: 100 % v), (2 ** s0, lambda v: 2 ** v)]:
        assert type(expr) is ctorch.SymInt
        for v in (2, 7, 13, 62):  # 2**63 would overflow int64 (an InvalidArgumentError)
            assert expr.evaluate([v]) == fn(v), (expr, v)


def test_floordiv_and_mod_of_negatives_follow_python(env_s0):
    env, s0 = env_s0
    cases = [
        ((-s0) // 4, lambda v: (-v) // 4), ((-s0) % 4, lambda v: (-v) % 4),
        (s0 // -3, lambda v: v // -3), (s0 % -3, lambda v: v % -3),
        ((s0 - 20) // 3, lambda v: (v - 20) // 3), ((s0 - 20) % 3, lambda v: (v - 20) % 3),
        ((-s0 - 1) // -5, lambda v: (-v - 1) // -5), ((-s0 - 1) % -5, lambda v: (-v - 1) % -5),
        (-7 // s0, lambda v: -7 // v), (-7 % s0, lambda v: -7 % v),
    ]
    for expr, fn in cases:
        for v in range(2, 30):
            assert expr.evaluate([v]) == fn(v), (str(expr), v)
    assert env.num_guards == 0


def test_truediv_and_float_operands_give_symfloats(env_s0):
    env, s0 = env_s0
    half = s0 / 2
    assert type(half) is ctorch.SymFloat
    assert half.evaluate([5]) == 2.5
    assert (s0 + 0.5).evaluate([3]) == 3.5
    assert (0.5 * s0).evaluate([3]) == 1.5
    assert (1 / s0).evaluate([4]) == 0.25
    assert (s0 ** -1).evaluate([4]) == 0.25  # a negative exponent gives a float, as in Python
    assert (-(s0 / 4)).evaluate([2]) == -0.5
    assert type(s0 / 2 < 3) is ctorch.SymBool
    assert env.num_guards == 0


def test_division_by_zero_constant_is_invalid_argument(env_s0):
    _, s0 = env_s0
    with pytest.raises(ctorch.InvalidArgumentError):
        s0 // 0
    with pytest.raises(ctorch.InvalidArgumentError):
        s0 % 0


def test_unknown_operand_returns_not_implemented(env_s0):
    _, s0 = env_s0
    b = s0 > 8
    f = s0 / 3
    for method in ("__add__", "__radd__", "__sub__", "__mul__", "__floordiv__", "__mod__", "__pow__", "__truediv__",
                   "__lt__", "__eq__"):
        assert getattr(s0, method)("x") is NotImplemented
        assert getattr(s0, method)(None) is NotImplemented
        assert getattr(f, method)([1]) is NotImplemented
    assert b.__and__(1.5) is NotImplemented and b.__or__("x") is NotImplemented
    with pytest.raises(TypeError):
        s0 + "x"
    with pytest.raises(TypeError):
        s0 < None
    assert (s0 == "s0") is False and (s0 != "s0") is True  # Python's fallback: identity


def test_hash_and_repr_are_the_expression_text(env_s0):
    _, s0 = env_s0
    e = 2 * s0 + 1
    assert repr(e) == str(e) == e.node_str() == "2*s0 + 1"
    assert hash(e) == hash("2*s0 + 1")
    assert hash(s0 > 8) == hash(str(s0 > 8))
    assert hash(s0 / 2) == hash(str(s0 / 2))
    assert {s0: "batch"}[s0] == "batch"
    assert f"{s0}" == "s0"


def test_unary_operators(env_s0):
    env, s0 = env_s0
    assert (-s0).evaluate([5]) == -5
    assert +s0 is s0
    a = abs(s0 - 10)
    assert [a.evaluate([v]) for v in (3, 10, 17)] == [7, 0, 7]
    assert env.num_guards == 0


def test_symints_of_two_envs_cannot_be_combined():
    _, s0 = make_env((8, 2, 64))
    _, t0 = make_env((8, 2, 64))
    with pytest.raises(ctorch.InvalidArgumentError, match="ShapeEnv"):
        s0 + t0
    with pytest.raises(ctorch.InvalidArgumentError):
        ctorch.sym_max(s0, t0)
    with pytest.raises(ctorch.InvalidArgumentError):
        s0 < t0
    with pytest.raises(ctorch.InvalidArgumentError):
        ctorch.empty(s0, t0, device="meta")


def test_symint_cannot_be_constructed_directly():
    for cls in (ctorch.SymInt, ctorch.SymFloat, ctorch.SymBool):
        with pytest.raises(TypeError):
            cls()


# ---------------------------------------------------------------------------------------------------
# guards


def test_comparison_records_no_guard_until_asked(env_s0):
    env, s0 = env_s0
    b = s0 > 8
    assert type(b) is ctorch.SymBool
    assert b.evaluate([9]) is True and b.evaluate([8]) is False
    assert env.num_guards == 0 and env.guard_requests == 0


def test_python_if_on_symbol_records_guard(env_s0):
    env, s0 = env_s0
    if s0 > 4:
        taken = True
    else:
        taken = False
    assert taken  # the hint is 8
    assert env.num_guards == 1 and env.guard_requests == 1
    assert env.check_guards([8]) == -1 and env.check_guards([5]) == -1
    assert env.check_guards([4]) == 0 and env.check_guards([2]) == 0


def test_python_if_takes_the_hints_branch_and_guards_its_negation(env_s0):
    env, s0 = env_s0
    assert not (s0 > 20)
    assert env.num_guards == 1
    assert env.check_guards([20]) == -1 and env.check_guards([21]) == 0


def test_python_max_on_symbol_records_guard(env_s0):
    env, s0 = env_s0
    m = max(s0, 10)  # Python compares: at the hint 8, 10 wins
    assert m == 10 and type(m) is int
    assert env.num_guards == 1
    assert env.check_guards([9]) == -1 and env.check_guards([11]) == 0


def test_max_decided_by_the_range_records_no_guard(env_s0):
    env, s0 = env_s0
    assert max(s0, 1) is s0  # s0 >= 2: the comparison is a plain bool
    assert env.num_guards == 0


def test_guards_deduplicate(env_s0):
    env, s0 = env_s0
    for _ in range(3):
        assert s0 % 3 == 2  # not a range fact: each ask is a request
    assert env.guard_requests == 3
    assert env.num_guards == 1
    assert len(env.guards) == 1
    assert env.check_guards([11]) == -1 and env.check_guards([9]) == 0


def test_int_and_index_guard_equality(env_s0):
    env, s0 = env_s0
    assert int(s0 + 1) == 9
    assert env.num_guards == 1
    assert env.check_guards([8]) == -1 and env.check_guards([7]) == 0
    # After the guard s0 is 8 for the rest of the trace: what is built on it is concrete.
    assert (s0 * 2) == 16 and type(s0 * 2) is int
    assert list(range(s0)) == list(range(8))


def test_float_and_bool_of_symbolic_numbers_guard():
    env, s0, s1 = make_env((8, 2, 64), (5, 2, 16))
    assert float(s0 / 2) == 4.0
    assert env.num_guards == 1
    assert bool(s1) is True  # s1 >= 2: decided by the range
    assert env.num_guards == 1
    assert int(s1 / 2) == 2  # truncates; the guard is on int(s1/2)
    assert env.num_guards == 2


def test_sym_max_records_no_guard(env_s0):
    env, s0 = env_s0
    m = ctorch.sym_max(s0, 10)
    assert type(m) is ctorch.SymInt
    assert [m.evaluate([v]) for v in (2, 10, 30)] == [10, 10, 30]
    n = ctorch.sym_min(s0, 10)
    assert [n.evaluate([v]) for v in (2, 10, 30)] == [2, 10, 10]
    assert env.num_guards == 0 and env.guard_requests == 0


def test_sym_max_with_one_folds_for_positive_symbol(env_s0):
    env, s0 = env_s0
    assert str(ctorch.sym_max(s0, 1)) == "s0"
    assert ctorch.sym_max(s0, 1) == s0 or str(ctorch.sym_max(s0, 1)) == str(s0)
    assert env.num_guards == 0


def test_sym_sum_records_no_guard():
    env, s0, s1 = make_env((8, 2, 64), (5, 2, 16))
    total = ctorch.sym_sum([s0, s1, 3, s0])
    assert total.evaluate([4, 6]) == 17
    assert ctorch.sym_sum([s0, 0.5]).evaluate([4, 6]) == 4.5
    assert env.num_guards == 0


def test_sym_ite_records_no_guard():
    env, s0, s1 = make_env((8, 2, 64), (5, 2, 16))
    pick = ctorch.sym_ite(s0 > s1, s0, s1)
    assert type(pick) is ctorch.SymInt
    assert pick.evaluate([3, 9]) == 9 and pick.evaluate([10, 9]) == 10
    fpick = ctorch.sym_ite(s0 > 8, 1.5, s0)
    assert fpick.evaluate([9, 2]) == 1.5 and fpick.evaluate([3, 2]) == 3.0
    assert env.num_guards == 0


def test_symbool_logic_records_no_guard():
    env, s0, s1 = make_env((8, 2, 64), (5, 2, 16))
    a, b = s0 > 8, s1 < 4
    both, either, neither = a & b, a | b, ctorch.sym_not(a | b)
    for v0, v1 in [(9, 3), (9, 5), (3, 3), (3, 5)]:
        x, y = v0 > 8, v1 < 4
        assert both.evaluate([v0, v1]) == (x and y)
        assert either.evaluate([v0, v1]) == (x or y)
        assert neither.evaluate([v0, v1]) == (not (x or y))
        assert (~a).evaluate([v0, v1]) == (not x)
    assert (a & True) is a or str(a & True) == str(a)
    assert (a & False) is False and (True | a) is True and (False & a) is False
    assert env.num_guards == 0


def test_sym_builders_on_plain_numbers_are_plain_arithmetic():
    assert ctorch.sym_max(3, 4) == 4 and ctorch.sym_min(3, 4) == 3
    assert ctorch.sym_max(2.5, 1) == 2.5
    assert ctorch.sym_sum([1, 2, 3]) == 6 and ctorch.sym_sum([]) == 0 and ctorch.sym_sum(iter([1, 2])) == 3
    assert ctorch.sym_ite(True, 1, 2) == 1 and ctorch.sym_ite(False, 1, 2) == 2
    assert ctorch.sym_not(True) is False and ctorch.sym_not(False) is True
    assert ctorch.sym_int(2.7) == 2 and ctorch.sym_int(-2.7) == -2 and type(ctorch.sym_int(2.7)) is int
    assert ctorch.sym_float(3) == 3.0 and type(ctorch.sym_float(3)) is float


def test_sym_int_and_sym_float_convert_without_guard(env_s0):
    env, s0 = env_s0
    f = ctorch.sym_float(s0)
    assert type(f) is ctorch.SymFloat and f.evaluate([3]) == 3.0
    i = ctorch.sym_int(s0 / 3)
    assert type(i) is ctorch.SymInt
    assert [i.evaluate([v]) for v in (2, 3, 8)] == [0, 1, 2]
    assert ctorch.sym_int(s0) is s0 and ctorch.sym_float(f) is f
    assert env.num_guards == 0


def test_unbacked_symbol_in_if_is_guard_error():
    env = ctorch.ShapeEnv()
    u0 = env.create_unbacked()
    with pytest.raises(ctorch.GuardError, match="u0"):
        if u0 > 2:
            pass
    with pytest.raises(RuntimeError):  # GuardError is a RuntimeError, as torch's data-dependent error
        int(u0)
    # The builders that never guard handle it.
    m = ctorch.sym_max(u0, 1)
    assert m.evaluate([5]) == 5 and m.evaluate([0]) == 1
    assert env.num_guards == 0


# ---------------------------------------------------------------------------------------------------
# randomized: expression trees evaluate like the same Python arithmetic


RANGES = [(8, 2, 64), (5, 1, 16), (3, 0, 9)]


def random_tree(rng, nsyms, depth):
    """(SymInt-building function, plain-int function) of the same random expression over symbols
    with +, -, * of subtrees, // and % by positive constants, and sym_min / sym_max (no branching, so
    no guard narrows the ranges while the tree is built)."""
    if depth == 0 or rng.random() < 0.25:
        if rng.random() < 0.7:
            i = rng.randrange(nsyms)
            return (lambda s, i=i: s[i]), (lambda v, i=i: v[i])
        c = rng.randint(-9, 9)
        return (lambda s, c=c: c), (lambda v, c=c: c)
    op = rng.choice(["+", "-", "*", "//", "%", "min", "max"])
    a_sym, a_py = random_tree(rng, nsyms, depth - 1)
    if op in ("//", "%"):
        c = rng.randint(1, 7)
        f = operator.floordiv if op == "//" else operator.mod
        return (lambda s: f(a_sym(s), c)), (lambda v: f(a_py(v), c))
    b_sym, b_py = random_tree(rng, nsyms, depth - 1)
    if op in ("min", "max"):
        sym_fn = ctorch.sym_min if op == "min" else ctorch.sym_max
        py_fn = min if op == "min" else max
        return (lambda s: sym_fn(a_sym(s), b_sym(s))), (lambda v: py_fn(a_py(v), b_py(v)))
    f = {"+": operator.add, "-": operator.sub, "*": operator.mul}[op]
    return (lambda s: f(a_sym(s), b_sym(s))), (lambda v: f(a_py(v), b_py(v)))


@pytest.mark.parametrize("seed", range(40))
def test_random_expression_evaluates_like_python(seed):
    rng = random.Random(seed)
    nsyms = rng.choice([2, 3])
    env = ctorch.ShapeEnv()
    syms = [env.create_symbol(h, min=lo, max=hi) for h, lo, hi in RANGES[:nsyms]]
    for _ in range(5):
        build, reference = random_tree(rng, nsyms, 3)
        expr = build(syms)
        assert env.num_guards == 0, env.guards
        for _ in range(12):
            values = [rng.randint(lo, hi) for _, lo, hi in RANGES[:nsyms]]
            got = expr if type(expr) is int else expr.evaluate(values)
            assert got == reference(values), f"{expr} at {values}"
        hints = [h for h, _, _ in RANGES[:nsyms]]
        assert (expr if type(expr) is int else expr.evaluate(hints)) == reference(hints)


# ---------------------------------------------------------------------------------------------------
# tensors with symbolic sizes


def test_empty_with_symint_sizes_is_a_symbolic_meta_tensor(env_s0):
    env, s0 = env_s0
    for x in (ctorch.empty(s0, 100, device="meta"), ctorch.empty((s0, 100), device="meta"),
              ctorch.zeros([s0, 100], device="meta"), ctorch.ones(s0, 100, device="meta", dtype=ctorch.float64),
              ctorch.full((s0, 100), 1.5, device="meta")):
        assert x.is_meta
        assert str(x.shape[0]) == "s0" and x.shape[1] == 100 and type(x.shape[1]) is int
        assert x.dim() == 2
    assert env.num_guards == 0


def test_empty_symbolic_takes_a_list_of_handles(env_s0):
    # The C function behind symbolic meta tensors, through the private SWIG layer: handles as ints.
    _, s0 = env_s0
    three = ctorch._symbolic._const_int(3)
    h = ctorch._C.ct_tensor_empty_symbolic([s0._h, three._h], ctorch.int32.code)
    x = ctorch._tensor._wrap(h)
    assert x.is_meta and x.dtype is ctorch.int32 and [str(d) for d in x.shape] == ["s0", "3"]


def test_default_meta_device_makes_symbolic_tensors(env_s0):
    _, s0 = env_s0
    with ctorch.device("meta"):
        x = ctorch.empty(s0, 4)
    assert x.is_meta and str(x.size(0)) == "s0"


def test_shape_size_stride_numel_of_a_symbolic_tensor(env_s0):
    env, s0 = env_s0
    x = ctorch.empty(s0, 3, 4, device="meta")
    assert isinstance(x.shape, ctorch.Size)
    assert [str(d) for d in x.shape] == ["s0", "3", "4"]
    assert [type(d) for d in x.size()] == [ctorch.SymInt, int, int]
    assert str(x.size(0)) == "s0" and x.size(1) == 3 and x.size(-1) == 4
    assert x.stride() == (12, 4, 1)
    assert x.stride(0) == 12
    n = x.numel()
    assert type(n) is ctorch.SymInt and n.evaluate([5]) == 60
    assert x.shape.numel().evaluate([5]) == 60
    assert repr(x.shape) == "ctorch.Size([s0, 3, 4])"
    assert env.num_guards == 0


def test_symbolic_strides_are_symints(env_s0):
    _, s0 = env_s0
    x = ctorch.empty(3, s0, device="meta")
    assert str(x.stride(0)) == "s0" and x.stride(1) == 1
    assert str(x.stride()[0]) == "s0"


def test_size_of_a_bad_dim_is_index_error(env_s0):
    _, s0 = env_s0
    x = ctorch.empty(s0, 3, device="meta")
    with pytest.raises(IndexError):
        x.size(2)


def test_ordinary_tensors_keep_plain_int_sizes():
    x = ctorch.zeros(2, 3)
    assert x.shape == (2, 3) and all(type(d) is int for d in x.shape)
    assert type(x.size(0)) is int and type(x.numel()) is int and all(type(d) is int for d in x.stride())
    m = ctorch.empty(2, 3, device="meta")
    assert all(type(d) is int for d in m.shape) and type(m.numel()) is int


def test_repr_of_symbolic_meta_tensor_shows_its_sizes(env_s0):
    _, s0 = env_s0
    text = repr(ctorch.empty(s0, 2 * s0, 3, device="meta"))
    assert "s0" in text and "2*s0" in text and "meta" in text
    assert "int64" in repr(ctorch.empty(s0, device="meta", dtype=ctorch.int64))


def test_symbolic_sizes_on_cpu_are_device_error(env_s0):
    _, s0 = env_s0
    with pytest.raises(ctorch.DeviceError, match="meta"):
        ctorch.zeros(s0, 3)
    with pytest.raises(ctorch.DeviceError):
        ctorch.full((s0, 3), 2.0, device="cpu")


def test_negative_symbolic_size_is_invalid_argument():
    env = ctorch.ShapeEnv()
    s = env.create_symbol(-3, min=-10, max=10)
    with pytest.raises(ctorch.Error):
        ctorch.empty(s, 2, device="meta")


def test_box_passes_symints_as_symint_kinds(env_s0):
    _, s0 = env_s0
    assert ctorch.ops._box(s0) == (10, s0._h)
    kind, handles, owners = ctorch.ops._box([s0, 3])
    assert kind == 11 and handles[0] == s0._h and len(handles) == 2
    assert ctorch.ops._box([2, 3]) == (5, [2, 3])  # plain lists stay int lists


def test_plain_int_lists_with_a_symint_pass_through_typed_calls_unchanged():
    # The typed C functions refuse a SymInt with a TypeError that the wrappers catch; plain ints and
    # other TypeErrors are untouched.
    with pytest.raises(TypeError):
        ctorch.zeros(2, 3).view("a", 3)
    assert ctorch.zeros(2, 3).view(3, 2).shape == (3, 2)


def test_item_of_a_plain_meta_tensor_still_has_no_value():
    with pytest.raises(ctorch.DeviceError):
        ctorch.zeros((), device="meta").item()


# ---------------------------------------------------------------------------------------------------
# operators: symbolic output shapes agree with real tensors

# Symbols of the shape tests: s0 a batch, s1 a spatial size or topk's k.
S0, S1 = (8, 2, 64), (5, 2, 16)
BINDINGS = [(8, 5), (2, 2), (64, 16), (13, 7), (3, 16), (33, 2)]


def fl(*shape):
    return ("float", shape)


def idx(high, *shape):
    return ("index", high, shape)


# name -> (inputs over symbols s0, s1 (a function of them), the operator on those inputs (also given s0, s1))
SHAPE_CASES = {
    "add_broadcast": (lambda s0, s1: [fl(s0, 1, 4), fl(3, 1)], lambda s, a, b: a + b),
    "mul_same_shape": (lambda s0, s1: [fl(s0, s1), fl(s0, s1)], lambda s, a, b: a * b),
    "mul_broadcast_two_symbols": (lambda s0, s1: [fl(s0, 1), fl(1, s1)], lambda s, a, b: a * b),
    "exp": (lambda s0, s1: [fl(s0, 4)], lambda s, a: a.exp()),
    "relu": (lambda s0, s1: [fl(s0, 4)], lambda s, a: a.relu()),
    "sum_dim_keepdim": (lambda s0, s1: [fl(s0, s1, 3)], lambda s, a: a.sum(1, keepdim=True)),
    "sum_dim": (lambda s0, s1: [fl(s0, s1, 3)], lambda s, a: a.sum(0)),
    "mean_dim_keepdim": (lambda s0, s1: [fl(s0, 4)], lambda s, a: a.mean(0, keepdim=True)),
    "reshape_minus_one": (lambda s0, s1: [fl(s0, 4, 6)], lambda s, a: a.reshape(-1, 6)),
    "view_symbolic": (lambda s0, s1: [fl(s0, 4, 6)], lambda s, a: a.view(s[0], 24)),
    "transpose": (lambda s0, s1: [fl(s0, s1)], lambda s, a: a.transpose(0, 1)),
    "permute": (lambda s0, s1: [fl(s0, 4, s1)], lambda s, a: a.permute(2, 0, 1)),
    "unsqueeze": (lambda s0, s1: [fl(s0, 4)], lambda s, a: a.unsqueeze(1)),
    "squeeze_dim": (lambda s0, s1: [fl(s0, 1, 4)], lambda s, a: a.squeeze(1)),
    "cat_symbolic_dim": (lambda s0, s1: [fl(s0, 4), fl(s1, 4)], lambda s, a, b: ctorch.cat([a, b], 0)),
    "linear": (lambda s0, s1: [fl(s0, 100), fl(50, 100), fl(50)], lambda s, x, w, b: F.linear(x, w, b)),
    "matmul": (lambda s0, s1: [fl(s0, 7), fl(7, s1)], lambda s, a, b: a @ b),
    "mm": (lambda s0, s1: [fl(s0, 7), fl(7, 3)], lambda s, a, b: a.mm(b)),
    "softmax": (lambda s0, s1: [fl(s0, 7)], lambda s, a: F.softmax(a, dim=-1)),
    "layer_norm": (lambda s0, s1: [fl(s0, s1, 7)], lambda s, a: F.layer_norm(a, (7,))),
    "topk_symbolic_k": (lambda s0, s1: [fl(3, 20)], lambda s, a: a.topk(s[1])),
    "conv2d": (lambda s0, s1: [fl(s0, 3, s1, s1), fl(4, 3, 3, 3)], lambda s, x, w: F.conv2d(x, w, padding=1)),
    "max_pool2d": (lambda s0, s1: [fl(s0, 3, s1, s1)], lambda s, x: F.max_pool2d(x, 2)),
    "expand": (lambda s0, s1: [fl(1, 4)], lambda s, a: a.expand(s[0], 4)),
    "slice_by_indexing": (lambda s0, s1: [fl(s0, 4)], lambda s, a: a[1:]),
    "narrow_symbolic_length": (lambda s0, s1: [fl(s0, 4)], lambda s, a: a.narrow(0, 0, s[0] - 1)),
    "embedding": (lambda s0, s1: [idx(10, s0, s1), fl(10, 3)], lambda s, i, w: F.embedding(i, w)),
    "index_select": (lambda s0, s1: [fl(s0, 4), idx(2, 3)], lambda s, a, i: a.index_select(0, i)),
}

def _make_input(spec, meta, values=None):
    if spec[0] == "float":
        shape = spec[1]
        if meta:
            return ctorch.empty(*shape, device="meta")
        return ctorch.randn(*[_at(d, values) for d in shape])
    _, high, shape = spec
    if meta:
        return ctorch.empty(*shape, device="meta", dtype=ctorch.int64)
    return ctorch.randint(0, high, [_at(d, values) for d in shape])


def _at(d, values):
    return d if type(d) is int else d.evaluate(values)


def _outputs(r):
    return list(r) if isinstance(r, tuple) else [r]


@pytest.mark.parametrize("name", list(SHAPE_CASES))
def test_symbolic_shape_matches_real_tensors(name):
    inputs, op = SHAPE_CASES[name]
    env, s0, s1 = make_env(S0, S1)
    specs = inputs(s0, s1)
    sym_out = _outputs(op((s0, s1), *[_make_input(spec, meta=True) for spec in specs]))
    sym_shapes = [tuple(t.shape) for t in sym_out]
    assert all(t.is_meta for t in sym_out)
    ctorch.manual_seed(0)
    for binding in BINDINGS:
        values = list(binding)
        failing = env.check_guards(values)
        assert failing == -1, f"{name}: guard {env.guards[failing] if failing < len(env.guards) else failing} " \
                              f"fails at {values}: the shape rule specialized a symbol ({env.guards})"
        real = _outputs(op(tuple(values), *[_make_input(spec, False, values) for spec in specs]))
        assert len(real) == len(sym_shapes)
        for t, shape in zip(real, sym_shapes):
            assert tuple(_at(d, values) for d in shape) == tuple(t.shape), f"{name} at {values}: {shape}"


def test_symbolic_meta_linear_shape():
    env, s0 = make_env((8, 2, 64))
    x = ctorch.empty(s0, 100, device="meta")
    y = F.linear(x, ctorch.empty(50, 100, device="meta"), ctorch.empty(50, device="meta"))
    assert [str(d) for d in y.shape] == ["s0", "50"]
    assert type(y.shape[1]) is int
    assert y.numel().evaluate([16]) == 800
    assert env.num_guards == 0


def test_item_of_symbolic_meta_int_tensor_is_unbacked_symint():
    env, s0 = make_env((8, 2, 64))
    n = ctorch.empty(s0, dtype=ctorch.int64, device="meta").sum()
    u = n.item()
    assert type(u) is ctorch.SymInt and str(u).startswith("u")
    assert env.num_symbols == 2
    with pytest.raises(ctorch.GuardError):
        bool(u > 3)
    y = ctorch.empty(u, 2, device="meta")  # an unbacked size
    assert str(y.shape[0]) == str(u)


def test_copies_of_symbolic_numbers_are_the_same_object(env_s0):
    import copy
    import pickle

    _, s0 = env_s0
    for v in (s0, s0 / 2, s0 > 3):
        assert copy.copy(v) is v and copy.deepcopy(v) is v
        with pytest.raises(TypeError):
            pickle.dumps(v)
    with pytest.raises(TypeError):
        copy.copy(ctorch.ShapeEnv())
    with pytest.raises(TypeError):
        copy.deepcopy(ctorch.ShapeEnv())
    assert (s0 + 1).evaluate([2]) == 3  # still one owner per handle


def test_symint_index_selects(env_s0):
    _, s0 = env_s0
    x = ctorch.empty(4, s0, device="meta")
    assert tuple(x[:, s0 - 1].shape) == (4,)
    assert str(x[1].shape[0]) == "s0"
    assert [str(d) for d in x[:, : s0 - 1].shape] == ["4", "s0 - 1"]


# ---------------------------------------------------------------------------------------------------
# The example in docs/symbolic.md runs and prints what its comments say

SYMBOLIC_DOC = os.path.join(os.path.dirname(__file__), "..", "..", "..", "docs", "symbolic.md")


@pytest.mark.skipif(not os.path.exists(SYMBOLIC_DOC), reason="needs the source tree's docs/symbolic.md")
def test_python_example_in_the_docs_prints_its_comments(capsys):
    text = open(SYMBOLIC_DOC).read()
    section = text.split("\n## From Python\n", 1)[1]
    block = re.findall(r"```python\n(.*?)```", section, re.S)[0]
    exec(compile(block, SYMBOLIC_DOC, "exec"), {"__name__": "docs_example"})
    printed = capsys.readouterr().out.splitlines()
    assert printed == ["ctorch.Size([batch, 50])", "ctorch.Size([2*batch, 25])", "batch", "0",
                       "['batch >= 5']", "50*batch 800", "0"]


def test_symbolic_number_beside_a_meta_tensor_is_a_zero_dim_stand_in():
    env = ctorch.ShapeEnv()
    s0 = env.create_symbol(5, min=2)
    x = ctorch.empty(s0, 3, device="meta")
    assert (x / s0).shape == x.shape and (x / s0).dtype == ctorch.float32
    assert (ctorch.empty(s0, dtype=ctorch.int32, device="meta") + s0).dtype == ctorch.int32  # no promotion
    with pytest.raises(TypeError):
        ctorch.ones(3) / s0  # a tensor with values cannot take a number that has none


def test_random_operators_draw_symbolic_meta_tensors():
    env = ctorch.ShapeEnv()
    s0 = env.create_symbol(5, min=2)
    assert str(ctorch.rand(s0, 3, device="meta").shape) == "ctorch.Size([s0, 3])"
    assert str(ctorch.randn((s0,), device="meta").shape) == "ctorch.Size([s0])"
    x = ctorch.empty(s0, 4, device="meta")
    assert ctorch.dropout(x, 0.5, True).shape == x.shape
    assert ctorch.bernoulli(x).shape == x.shape
    with pytest.raises(ctorch.DeviceError):
        ctorch.rand(s0, 3)  # a tensor with values needs concrete sizes


def test_where_puts_a_number_on_the_device_of_its_tensors():
    c = ctorch.empty(3, dtype=ctorch.bool, device="meta")
    x = ctorch.empty(2, 3, device="meta")
    assert ctorch.where(c, x, 0.0).is_meta and tuple(ctorch.where(c, 1.5, x).shape) == (2, 3)
