"""Autograd from Python, differential against torch 1.13: the same computation on the same float64
leaves in both libraries must give the same values and the same gradients (first and second
derivatives); grad modes, hooks, custom Functions and errors behave as torch's; and training loops
release every tensor they make.
"""

import gc
import os
import re
import threading
import weakref

import numpy as np
import pytest

from conftest import compare

ctorch = pytest.importorskip("ctorch")
torch = pytest.importorskip("torch")

# float64 on both sides: the two libraries may order sums differently, not more.
RTOL, ATOL = 1e-10, 1e-12


def leaves(values, requires_grad=True):
    """The same float64 leaves in ctorch and torch, from numpy arrays."""
    ct = [ctorch.tensor(v.tolist(), dtype=ctorch.float64, requires_grad=requires_grad) for v in values]
    th = [torch.tensor(v.tolist(), dtype=torch.float64, requires_grad=requires_grad) for v in values]
    return ct, th


def gen(rng, shape, kind):
    if kind == "pos":  # for log, sqrt, rsqrt, pow, prod: away from 0
        return rng.uniform(0.5, 2.0, size=shape)
    # distinct values, so that max/min/clamp/relu have no ties or values on a kink
    return rng.permutation(np.linspace(-2.0, 2.0, int(np.prod(shape)) or 1))[:int(np.prod(shape))].reshape(shape) + 0.01


def compare_grads(ct_leaves, th_leaves):
    for i, (c, t) in enumerate(zip(ct_leaves, th_leaves)):
        if t.grad is None:
            assert c.grad is None, f"leaf {i}: torch has no gradient, ctorch has {c.grad}"
        else:
            assert c.grad is not None, f"leaf {i}: ctorch has no gradient, torch has {t.grad}"
            compare(c.grad, t.grad, RTOL, ATOL)


# ---------------------------------------------------------------------------------------------------
# First derivatives: (name, input shapes, value kind, loss function of (m, *leaves)); m is ctorch or torch.

CASES = [
    # elementwise, with broadcasting
    ("add_broadcast", [(3, 1), (4,)], "default", lambda m, a, b: ((a + b) * b).sum()),
    ("sub_alpha_mul", [(2, 3), (3,)], "default", lambda m, a, b: (a.sub(b, alpha=2) * a).sum()),
    ("add_alpha", [(2, 3), (1, 3)], "default", lambda m, a, b: (a.add(b, alpha=-3) ** 2).sum()),
    ("div", [(2, 3), (2, 1)], "pos", lambda m, a, b: (a / b + b / a).sum()),
    ("scalars_both_sides", [(5,)], "pos", lambda m, a: (2 - a + 3 * a - a / 4 + 1 / a + 2 ** a).sum()),
    ("rsub", [(4,), (4,)], "default", lambda m, a, b: m.rsub(a, b * b, alpha=3).sum()),
    ("pow_tensor_exponent", [(4,), (4,)], "pos", lambda m, a, b: (a ** b).sum()),
    ("pow_scalar", [(2, 3)], "pos", lambda m, a: (a ** 3 + a ** 0.5 + a ** -2).sum()),
    ("exp_log_sqrt_rsqrt", [(6,)], "pos", lambda m, a: (a.exp() * a.log() + a.sqrt() - a.rsqrt()).sum()),
    ("trig_tanh_sigmoid", [(2, 4)], "default", lambda m, a: (a.sin() * a.cos() + a.tanh() - a.sigmoid()).sum()),
    ("relu_abs_neg", [(7,)], "default", lambda m, a: (a.relu() * 3 + a.abs() - (-a) * a).sum()),
    ("reciprocal", [(5,)], "pos", lambda m, a: (a.reciprocal() * a.reciprocal()).sum()),
    ("maximum_minimum", [(2, 3), (3,)], "default", lambda m, a, b: (m.maximum(a, b) * 2 + m.minimum(a, b)).sum()),
    ("weighted_non_scalar_output", [(3,)], "default",
     lambda m, a: (a * a * m.tensor([1.0, -2.0, 0.5], dtype=m.float64)).sum()),
    ("dtype_conversion", [(4,)], "default", lambda m, a: (a.to(m.float32) * 2).to(m.float64).sum()),
    # reductions
    ("sum_dims", [(2, 3, 4)], "default", lambda m, a: (a.sum(1) ** 2).sum() + a.sum((0, 2), keepdim=True).sum()),
    ("mean", [(3, 4)], "default", lambda m, a: (a.mean(0) * a.mean(1, keepdim=True)).sum() + a.mean()),
    ("prod", [(3, 4)], "pos", lambda m, a: a.prod(1).sum() + a.prod()),
    ("amax_amin", [(3, 4)], "default", lambda m, a: (a.amax(1) * 2 + a.amin(0).sum()).sum()),
    # matrix products
    ("matmul_2d", [(3, 4), (4, 2)], "default", lambda m, a, b: (a @ b).tanh().sum()),
    ("matmul_batch_broadcast", [(2, 3, 4), (4, 5)], "default", lambda m, a, b: m.matmul(a, b).sin().sum()),
    ("matmul_vector", [(4,), (4, 3), (3,)], "default", lambda m, v, a, u: (v @ a @ u) * (a @ u).sum()),
    ("mm", [(2, 3), (3, 3)], "default", lambda m, a, b: m.mm(a, b).sigmoid().sum()),
    ("bmm", [(2, 2, 3), (2, 3, 4)], "default", lambda m, a, b: a.bmm(b).cos().sum()),
    ("addmm", [(2, 4), (2, 3), (3, 4)], "default",
     lambda m, c, a, b: m.addmm(c, a, b, beta=0.5, alpha=2).exp().sum() + c.addmm(a, b).sum()),
    ("addmm_broadcast_bias", [(4,), (2, 3), (3, 4)], "default", lambda m, c, a, b: (m.addmm(c, a, b) ** 2).sum()),
    # views and slicing
    ("reshape_view_flatten", [(2, 6)], "default",
     lambda m, a: (a.reshape(3, 4)[1] * a.view(4, 3)[:, 0].sum()).sum() + (a.flatten() ** 2).sum()),
    ("permute_transpose_t", [(2, 3, 4)], "default",
     lambda m, a: (a.permute(2, 0, 1) * 2).sin().sum() + (a.transpose(0, 2)[0].t() ** 2).sum()),
    ("expand_squeeze_unsqueeze", [(3, 1), (1, 4)], "default",
     lambda m, a, b: (a.expand(3, 4) * b.squeeze(0).unsqueeze(0) + a.squeeze().unsqueeze(1)).exp().sum()),
    ("narrow_select", [(4, 5)], "default", lambda m, a: (a.narrow(1, 1, 3).select(0, 2) * a[0, 1:4]).sum()),
    ("slicing_steps_ellipsis_none", [(4, 6)], "default",
     lambda m, a: (a[1:, ::2] ** 2).sum() + a[..., None][2:3, 4:].sum() + a[-1].sum()),
    ("expand_as_T", [(3, 2)], "default", lambda m, a: (a.T * a.T.sum(0, keepdim=True).expand_as(a.T)).sum()),
    # joining
    ("cat", [(2, 3), (1, 3), (2, 2)], "default",
     lambda m, a, b, c: (m.cat([a, b], 0) ** 2).sum() + m.cat([a, c], dim=1).exp().sum()),
    ("stack", [(2, 3), (2, 3)], "default", lambda m, a, b: (m.stack([a, b, a * b], 1) ** 3).sum()),
    # selection
    ("where", [(2, 3), (3,)], "default", lambda m, a, b: (m.where(a > 0, a * b, b.exp()) ** 2).sum()),
    ("where_0_dim_and_method", [(5,)], "default",
     lambda m, a: m.where(a < 0, a, m.tensor(0.5, dtype=m.float64)).sum() + (a.where(a > 1, m.zeros_like(a)) ** 2).sum()),
    ("clamp_clip", [(9,)], "default", lambda m, a: (a.clamp(-1, 1) * 2 + a.clamp(min=0.5) + a.clip(max=-0.5)).sum()),
    # in place on tensors that are not leaves
    ("inplace_on_non_leaf", [(2, 3), (3,)], "default",
     lambda m, a, b: _inplace_chain(a * 1, b)),
    ("inplace_operators", [(4,)], "pos", lambda m, a: _inplace_operators(a * 2)),
    ("copy_into_non_leaf", [(3,), (3,)], "default", lambda m, a, b: (a.clone().copy_(b * 2) * a).sum()),
]


def _inplace_chain(y, b):
    y.add_(b)
    y.mul_(b)
    y.mul_(y * 1)
    y.sub_(b, alpha=2)
    y.div_(b * b + 1)
    y.add_(1.5, alpha=2)
    return y.sum()


def _inplace_operators(y):
    y += 1
    y *= y.exp()
    y -= 0.5
    y /= 3
    return (y * y).sum()


@pytest.mark.parametrize("name,shapes,kind,fn", CASES, ids=[c[0] for c in CASES])
def test_gradients_match_torch(name, shapes, kind, fn, rng):
    values = [gen(rng, s, kind) for s in shapes]
    ct_in, th_in = leaves(values)
    ct_loss, th_loss = fn(ctorch, *ct_in), fn(torch, *th_in)
    compare(ct_loss, th_loss, RTOL, ATOL)
    assert ct_loss.grad_fn is not None
    ct_loss.backward()
    th_loss.backward()
    compare_grads(ct_in, th_in)


def test_backward_with_a_gradient_matches_torch(rng):
    a = gen(rng, (2, 3), "default")
    weight = gen(rng, (2, 3), "pos")
    (ca,), (ta,) = leaves([a])
    (ca * ca).backward(ctorch.tensor(weight.tolist(), dtype=ctorch.float64))
    (ta * ta).backward(torch.tensor(weight.tolist(), dtype=torch.float64))
    compare(ca.grad, ta.grad, RTOL, ATOL)


def test_gradients_accumulate_until_cleared(rng):
    (ca,), (ta,) = leaves([gen(rng, (3,), "default")])
    for _ in range(3):
        (ca * ca).sum().backward()
        (ta * ta).sum().backward()
    compare(ca.grad, ta.grad, RTOL, ATOL)
    ca.grad = None
    assert ca.grad is None
    (ca * 2).sum().backward()
    compare(ca.grad, torch.full((3,), 2.0, dtype=torch.float64))
    del ca.grad
    assert ca.grad is None


def test_autograd_backward_sums_several_outputs(rng):
    vals = [gen(rng, (3,), "default"), gen(rng, (3,), "default")]
    ct_in, th_in = leaves(vals)
    g = gen(rng, (3,), "default")

    def outs(m, a, b):
        return [(a * b).sum(), a.exp() * b]

    ctorch.autograd.backward(outs(ctorch, *ct_in), [None, ctorch.tensor(g.tolist(), dtype=ctorch.float64)])
    torch.autograd.backward(outs(torch, *th_in), [None, torch.tensor(g.tolist(), dtype=torch.float64)])
    compare_grads(ct_in, th_in)


def test_autograd_grad_returns_gradients_without_touching_grad(rng):
    vals = [gen(rng, (2, 3), "default"), gen(rng, (3,), "default")]
    ct_in, th_in = leaves(vals)
    cg = ctorch.autograd.grad((ct_in[0] * ct_in[1]).sin().sum(), ct_in)
    tg = torch.autograd.grad((th_in[0] * th_in[1]).sin().sum(), th_in)
    compare(list(cg), list(tg), RTOL, ATOL)
    assert ct_in[0].grad is None and ct_in[1].grad is None
    assert isinstance(ctorch.autograd.grad((ct_in[1] * 3).sum(), ct_in[1]), tuple)


def test_autograd_grad_allow_unused_gives_none():
    a = ctorch.ones(2, requires_grad=True)
    b = ctorch.ones(3, requires_grad=True)
    with pytest.raises(ctorch.Error, match="was not used to compute the outputs"):
        ctorch.autograd.grad((a * 2).sum(), [a, b])
    ga, gb = ctorch.autograd.grad((a * 2).sum(), [a, b], allow_unused=True)
    compare(ga, torch.full((2,), 2.0))
    assert gb is None


# ---------------------------------------------------------------------------------------------------
# Second derivatives

SECOND = [
    ("cube", [(4,)], "default", lambda m, a: (a ** 3).sum()),
    ("sin_times", [(3,), (3,)], "default", lambda m, a, b: (a.sin() * b * b).sum()),
    ("exp_log_div", [(3,), (3,)], "pos", lambda m, a, b: ((a * b).exp() + a.log() / b).sum()),
    ("tanh_sigmoid_sqrt", [(5,)], "pos", lambda m, a: (a.tanh() * a.sigmoid() + a.sqrt()).sum()),
    ("matmul_tanh", [(3, 4), (4,)], "default", lambda m, w, x: (w @ x).tanh().sum()),
    ("addmm_relu", [(2, 3), (3, 2), (2,)], "default", lambda m, x, w, b: (m.addmm(b, x, w) ** 2).relu().sum()),
    ("reductions", [(3, 4)], "pos", lambda m, a: (a.prod(1) + a.mean(0).sum() + a.amax(1) ** 2).sum()),
    ("views_cat", [(2, 3)], "default", lambda m, a: (m.cat([a.t(), a[:, 1:].reshape(2, 2)], 0) ** 3).sum()),
    ("pow_tensor", [(3,), (3,)], "pos", lambda m, a, b: (a ** b).sum()),
    ("where_clamp", [(6,)], "default", lambda m, a: (m.where(a > 0, a ** 3, a.clamp(-1, 1) ** 2)).sum()),
]


@pytest.mark.parametrize("name,shapes,kind,fn", SECOND, ids=[c[0] for c in SECOND])
def test_second_derivatives_match_torch(name, shapes, kind, fn, rng):
    values = [gen(rng, s, kind) for s in shapes]
    ct_in, th_in = leaves(values)
    cg = ctorch.autograd.grad(fn(ctorch, *ct_in), ct_in, create_graph=True)
    tg = torch.autograd.grad(fn(torch, *th_in), th_in, create_graph=True)
    compare(list(cg), list(tg), RTOL, ATOL)
    assert all(g.requires_grad for g in cg)
    # d/d(inputs) of sum_i w_i * grad_i: a Hessian-vector product.
    weights = [gen(rng, s, "pos") for s in shapes]
    ct_w = [ctorch.tensor(w.tolist(), dtype=ctorch.float64) for w in weights]
    th_w = [torch.tensor(w.tolist(), dtype=torch.float64) for w in weights]
    ch = ctorch.autograd.grad(cg, ct_in, grad_outputs=ct_w, allow_unused=True)
    th = torch.autograd.grad(tg, th_in, grad_outputs=th_w, allow_unused=True)
    for c, t in zip(ch, th):
        if t is None:
            assert c is None
        else:
            compare(c, t, RTOL, ATOL)


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_backward_with_create_graph_gives_differentiable_grad():
    cx = ctorch.tensor([1.0, 2.0], dtype=ctorch.float64, requires_grad=True)
    tx = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    (cx ** 3).sum().backward(create_graph=True)
    (tx ** 3).sum().backward(create_graph=True)
    assert cx.grad.requires_grad
    (cg2,) = ctorch.autograd.grad(cx.grad.sum(), cx)
    (tg2,) = torch.autograd.grad(tx.grad.sum(), tx)
    compare(cg2, tg2, RTOL, ATOL)
    cx.grad = None  # frees the recorded graph now rather than with cx


# ---------------------------------------------------------------------------------------------------
# Tensor attributes

@pytest.mark.filterwarnings("ignore:To copy construct from a tensor")
def test_leaf_flags_grad_fn_and_detach_match_torch():
    for m in (ctorch, torch):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        c = m.tensor([1.0, 2.0])
        y = x * 2
        assert (x.requires_grad, x.is_leaf, x.grad_fn) == (True, True, None)
        assert (c.requires_grad, c.is_leaf) == (False, True)
        assert (y.requires_grad, y.is_leaf) == (True, False)
        d = y.detach()
        assert (d.requires_grad, d.is_leaf, d.grad_fn) == (False, True, None)
        assert m.tensor(y).requires_grad is False  # a copy, not a view of the history
    y = ctorch.tensor([1.0], requires_grad=True) * 2
    assert y.grad_fn.name() == "MulBackward"
    assert repr(y.grad_fn).startswith("<MulBackward object at 0x")
    assert "grad_fn=<MulBackward>" in repr(y)
    assert ctorch.tensor([1.0], requires_grad=True).sum().grad_fn.name() == "SumBackward"


def test_detach_shares_elements():
    x = ctorch.tensor([1.0, 2.0], requires_grad=True)
    d = x.detach()
    d.mul_(3)
    assert x.tolist() == [3.0, 6.0]


def test_requires_grad_setters_and_factories():
    x = ctorch.zeros(2, 3)
    x.requires_grad = True
    assert x.requires_grad and x.is_leaf
    assert x.requires_grad_(False) is x and not x.requires_grad
    for t in (ctorch.tensor([1.0], requires_grad=True), ctorch.zeros(2, requires_grad=True),
              ctorch.ones((2, 2), requires_grad=True), ctorch.empty(3, requires_grad=True),
              ctorch.full((2,), 1.5, requires_grad=True), ctorch.arange(0.0, 3.0, requires_grad=True),
              ctorch.linspace(0, 1, 5, requires_grad=True), ctorch.eye(2, requires_grad=True),
              ctorch.zeros_like(x, requires_grad=True), ctorch.ones_like(x, requires_grad=True),
              ctorch.empty_like(x, requires_grad=True), ctorch.full_like(x, 2.0, requires_grad=True)):
        assert t.requires_grad and t.is_leaf
    assert not ctorch.ones(2).requires_grad


def test_requires_grad_errors_match_torch():
    for m in (ctorch, torch):
        with pytest.raises((RuntimeError, TypeError), match="floating"):
            m.tensor([1, 2], requires_grad=True)
    y = ctorch.tensor([1.0], requires_grad=True) * 2
    with pytest.raises(ctorch.Error, match="leaf tensors.*detach"):
        y.requires_grad = False
    with pytest.raises(RuntimeError):
        (torch.tensor([1.0], requires_grad=True) * 2).requires_grad = False


@pytest.mark.filterwarnings("ignore:The .grad attribute of a Tensor that is not a leaf")
def test_retain_grad_keeps_a_non_leaf_gradient_as_torch():
    got = {}
    for m in (ctorch, torch):
        x = m.tensor([1.0, -2.0, 3.0], dtype=m.float64, requires_grad=True)
        y = x * x
        z = y.exp()
        y.retain_grad()
        y.retain_grad()  # twice is harmless
        x.retain_grad()  # a no-op on leaves
        (z * 2).sum().backward()
        got[m] = (y.grad, z.grad, x.grad)
    assert got[ctorch][1] is None and got[torch][1] is None
    compare(got[ctorch][0], got[torch][0], RTOL, ATOL)
    compare(got[ctorch][2], got[torch][2], RTOL, ATOL)
    with pytest.raises(ctorch.Error, match="does not require grad"):
        ctorch.ones(2).retain_grad()


# ---------------------------------------------------------------------------------------------------
# Hooks

def test_hooks_see_the_gradients_torch_sees():
    seen = {}
    for m in (ctorch, torch):
        x = m.tensor([1.0, 2.0, 3.0], dtype=m.float64, requires_grad=True)
        y = x * x
        record = []
        x.register_hook(lambda g: record.append(("x", g.tolist())))
        y.register_hook(lambda g: record.append(("y", g.tolist())))
        (y * m.tensor([1.0, 10.0, 100.0], dtype=m.float64)).sum().backward()
        seen[m] = record
    assert seen[ctorch] == seen[torch]


def test_hooks_replace_gradients_as_torch():
    grads = {}
    for m in (ctorch, torch):
        x = m.tensor([1.0, 2.0], dtype=m.float64, requires_grad=True)
        y = x.exp()
        x.register_hook(lambda g: g + 1)
        y.register_hook(lambda g: g * 3)
        y.register_hook(lambda g: None)  # keeps the gradient
        y.sum().backward()
        grads[m] = x.grad
    compare(grads[ctorch], grads[torch], RTOL, ATOL)


def test_removed_hooks_no_longer_run():
    x = ctorch.tensor([1.0, 2.0], requires_grad=True)
    calls = []
    handle = x.register_hook(lambda g: calls.append(1))
    (x * 2).sum().backward()
    handle.remove()
    handle.remove()  # again: nothing to do, as in torch
    (x * 2).sum().backward()
    assert calls == [1]
    with x.register_hook(lambda g: g * 0):  # removed when the block ends
        (x * 2).sum().backward()
    assert x.grad.tolist() == [4.0, 4.0]
    x.grad = None
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_hooks_run_in_autograd_grad():
    x = ctorch.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: g * 10)
    (g,) = ctorch.autograd.grad((x * x).sum(), x)
    assert g.tolist() == [20.0, 40.0]


def test_an_exception_in_a_hook_comes_out_of_backward_as_is():
    class Stop(Exception):
        pass

    x = ctorch.tensor([1.0, 2.0], requires_grad=True)

    def hook(g):
        raise Stop("hook says no")

    x.register_hook(hook)
    with pytest.raises(Stop, match="hook says no") as info:
        (x * 2).sum().backward()
    assert any(entry.name == "hook" for entry in info.traceback)  # the hook's own frame is kept
    with pytest.raises(Stop):
        ctorch.autograd.grad((x * 2).sum(), x)
    # a ctorch error raised by an operator inside the hook keeps its class and message too
    y = ctorch.tensor([1.0, 2.0], requires_grad=True)
    y.register_hook(lambda g: g + ctorch.ones(3))
    with pytest.raises(ctorch.ShapeError, match=r"\[2\].*\[3\]"):
        (y * 2).sum().backward()
    # and the next failure on this thread is its own again
    with pytest.raises(ctorch.ShapeError, match="do not broadcast"):
        ctorch.ones(2) + ctorch.ones(5)


def test_hook_results_are_checked():
    x = ctorch.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: 3.0)
    with pytest.raises(TypeError, match="register_hook: the hook returned"):
        (x * 2).sum().backward()
    y = ctorch.tensor([1.0, 2.0], requires_grad=True)
    y.register_hook(lambda g: ctorch.ones(3))
    with pytest.raises(ctorch.ShapeError, match="same sizes"):
        (y * 2).sum().backward()
    with pytest.raises(ctorch.Error, match="does not require grad"):
        ctorch.ones(2).register_hook(lambda g: g)


def test_hook_functions_are_released_with_their_tensor():
    class Hook:
        def __call__(self, g):
            return None

    hook = Hook()
    alive = weakref.ref(hook)
    x = ctorch.ones(2, requires_grad=True)
    x.register_hook(hook)
    del hook
    gc.collect()
    assert alive() is not None  # the library holds it
    del x
    assert alive() is None


def test_hooks_run_on_the_thread_running_backward():
    errors = []

    def work():
        try:
            for _ in range(200):
                x = ctorch.ones(3, requires_grad=True)
                x.register_hook(lambda g: g * 2)
                (x * x).sum().backward()
                assert x.grad.tolist() == [4.0, 4.0, 4.0]
        except Exception as e:  # reported to the main thread
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


# ---------------------------------------------------------------------------------------------------
# Grad modes

def _states(m):
    """(is_grad_enabled, is_inference_mode_enabled, result requires grad) at points of one script."""
    x = m.ones(2, requires_grad=True)
    out = []

    def note():
        out.append((m.is_grad_enabled(), m.is_inference_mode_enabled(), (x * 2).requires_grad))

    note()
    with m.no_grad():
        note()
        with m.enable_grad():
            note()
        note()
    m.set_grad_enabled(False)
    note()
    m.set_grad_enabled(True)
    with m.set_grad_enabled(False):
        note()
    note()
    with m.inference_mode():
        note()
        with m.inference_mode(False):
            note()
        with m.no_grad():
            note()
        note()
    with m.no_grad():
        with m.inference_mode(False):  # leaving inference mode turns recording on, in torch too
            note()
    with m.inference_mode(False):
        note()
    note()
    return out


def test_grad_modes_nest_as_in_torch():
    assert _states(ctorch) == _states(torch)


def test_grad_modes_restore_the_previous_mode_after_an_exception():
    for scope in (ctorch.no_grad, ctorch.enable_grad, ctorch.inference_mode, lambda: ctorch.set_grad_enabled(False)):
        with pytest.raises(KeyError):
            with scope():
                raise KeyError
        assert ctorch.is_grad_enabled() and not ctorch.is_inference_mode_enabled()


def test_grad_modes_as_decorators():
    @ctorch.no_grad()
    def evaluate(x):
        return x * 2

    @ctorch.no_grad
    def evaluate_bare(x):
        return x * 2

    @ctorch.inference_mode()
    def infer(x):
        return x * 2

    @ctorch.inference_mode
    def infer_bare(x):
        return x * 2

    @ctorch.enable_grad()
    def train(x):
        return x * 2

    @ctorch.set_grad_enabled(False)
    def off(x):
        return x * 2

    assert ctorch.is_grad_enabled()  # decorating with set_grad_enabled changed nothing
    x = ctorch.ones(2, requires_grad=True)
    assert evaluate.__name__ == "evaluate"
    assert not evaluate(x).requires_grad and not evaluate_bare(x).requires_grad and not off(x).requires_grad
    assert infer(x).is_inference() and infer_bare(x).is_inference()
    with ctorch.no_grad():
        assert train(x).requires_grad
        assert not ctorch.is_grad_enabled()
    assert ctorch.is_grad_enabled()

    @ctorch.no_grad()
    def failing():
        raise ValueError

    with pytest.raises(ValueError):
        failing()
    assert ctorch.is_grad_enabled()

    @ctorch.no_grad()
    def recursive(n):
        return ctorch.is_grad_enabled() if n == 0 else recursive(n - 1)

    assert recursive(3) is False and ctorch.is_grad_enabled()


def test_grad_mode_is_per_thread():
    seen = []
    with ctorch.no_grad():
        t = threading.Thread(target=lambda: seen.append(ctorch.is_grad_enabled()))
        t.start()
        t.join()
        assert not ctorch.is_grad_enabled()
    assert seen == [True]


def test_inference_tensors_as_torch():
    for m in (ctorch, torch):
        x = m.ones(2, requires_grad=True)
        with m.inference_mode():
            i = x * 2
        assert i.is_inference() and not i.requires_grad and not x.is_inference()
        with m.no_grad():
            assert not (x * 2).is_inference()
    with ctorch.inference_mode():
        i = ctorch.ones(2)
    with pytest.raises(ctorch.Error, match=r"inference tensor \(sizes \[2\], float32\) cannot be saved for backward"):
        ctorch.ones(2, requires_grad=True) * i  # mul saves i for its backward
    with pytest.raises(ctorch.Error, match="inference tensor cannot require grad"):
        i.requires_grad_()


# ---------------------------------------------------------------------------------------------------
# Errors: raised when torch raises, with a message that says what to do

def both_raise(fn, *patterns):
    """fn(m) must raise with torch and with ctorch; ctorch's message must match every pattern."""
    with pytest.raises(RuntimeError):
        fn(torch)
    with pytest.raises(ctorch.Error) as info:
        fn(ctorch)
    for p in patterns:
        assert p in str(info.value), f"{p!r} not in {str(info.value)!r}"


def test_backward_twice_without_retain_graph_fails():
    def twice(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = (x * x).sum()
        y.backward()
        y.backward()

    both_raise(twice, "backward through the graph a second time", "retain_graph")

    x = ctorch.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.tolist() == [4.0, 8.0]


def test_in_place_operator_with_self_as_argument_fails_as_torch():
    def square_in_place(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x * 1
        y.mul_(y)
        (y * y).sum().backward()
        return x.grad.tolist()

    both_raise(square_in_place, "modified by an in-place operation")


def test_in_place_change_of_a_leaf_that_requires_grad_fails():
    def inplace(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        x.add_(1)

    both_raise(inplace, "leaf tensor that requires grad", "in-place", "no_grad")
    x = ctorch.tensor([1.0, 2.0], requires_grad=True)
    with ctorch.no_grad():
        x.add_(1)
        x *= 2
    assert x.tolist() == [4.0, 6.0] and x.requires_grad and x.is_leaf


def test_modifying_a_saved_tensor_fails_at_backward():
    def modify(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        a = x * 1
        y = a * a  # saves a
        a.mul_(2)
        y.sum().backward()

    both_raise(modify, "modified by an in-place operation", "version 1", "expected version 0")


def test_non_scalar_backward_without_gradient_fails():
    def non_scalar(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        (x * 2).backward()

    both_raise(non_scalar, "only for an output with one element", "Pass its gradient explicitly")
    with pytest.raises(ctorch.ShapeError):  # a RuntimeError, as torch's
        (ctorch.ones(2, requires_grad=True) * 2).backward()


def test_gradient_lists_are_checked():
    x = ctorch.ones(2, requires_grad=True)
    with pytest.raises(ValueError, match=r"backward: 2 tensors but 1 gradients. Pass one gradient \(or None\)"):
        ctorch.autograd.backward([x.sum(), x.sum()], [None])
    with pytest.raises(ValueError, match="grad: 1 outputs but 2 grad_outputs"):
        ctorch.autograd.grad(x.sum(), x, grad_outputs=[None, None])
    with pytest.raises(TypeError, match="grad: inputs holds a float. Pass a Tensor or a sequence of Tensors"):
        ctorch.autograd.grad(x.sum(), [x, 1.0])


def test_backward_of_a_tensor_without_history_fails():
    both_raise(lambda m: m.ones(2).sum().backward(), "does not require grad")


# ---------------------------------------------------------------------------------------------------
# Custom functions: the same class body for both libraries

def exp_function(m):
    class Exp(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)  # an output: kept without a reference cycle
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * y

    return Exp


def scaled_product_function(m):
    class ScaledProduct(m.autograd.Function):
        """(a * b * k, a + b) for a number k: a non-tensor argument, two outputs, a saved None."""

        @staticmethod
        def forward(ctx, a, k, b):
            ctx.save_for_backward(a, None, b)
            ctx.k = k
            return a * b * k, a + b

        @staticmethod
        def backward(ctx, g_prod, g_sum):
            a, nothing, b = ctx.saved_tensors
            assert nothing is None
            return g_prod * b * ctx.k + g_sum, None, g_prod * a * ctx.k + g_sum

    return ScaledProduct


def test_custom_function_matches_torch(rng):
    vals = [gen(rng, (3,), "default"), gen(rng, (2, 3), "default")]
    out = {}
    for m, (a, b) in zip((ctorch, torch), leaves(vals)):
        Exp, SP = exp_function(m), scaled_product_function(m)
        y = Exp.apply(a)
        p, s = SP.apply(y, 1.5, b)
        loss = (p * p).sum() + s.sin().sum()
        loss.backward()
        out[m] = (y, p, s, a.grad, b.grad)
        assert y.grad_fn.name() == "ExpBackward"
    compare(list(out[ctorch]), list(out[torch]), RTOL, ATOL)


def test_custom_function_double_backward_matches_torch(rng):
    vals = [gen(rng, (4,), "default")]
    res = {}
    for m, (x,) in zip((ctorch, torch), leaves(vals)):
        y = exp_function(m).apply(x * x)
        (g,) = m.autograd.grad(y.sum(), x, create_graph=True)
        (h,) = m.autograd.grad((g * g).sum(), x)
        res[m] = (y, g, h)
    compare(list(res[ctorch]), list(res[torch]), RTOL, ATOL)


def test_custom_function_ctx_and_modes():
    seen = {}

    class Probe(ctorch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, flag):
            seen["grad_enabled"] = ctorch.is_grad_enabled()
            seen["needs_input_grad"] = ctx.needs_input_grad
            return a * b

        @staticmethod
        def backward(ctx, g):
            return g, None, None

    a = ctorch.ones(2, requires_grad=True)
    y = Probe.apply(a, ctorch.ones(2), "flag")
    assert seen == {"grad_enabled": False, "needs_input_grad": (True, False, False)}
    assert y.grad_fn.name() == "ProbeBackward"
    assert ctorch.is_grad_enabled()
    y.sum().backward()
    assert a.grad.tolist() == [1.0, 1.0]
    with ctorch.no_grad():
        assert Probe.apply(a, a, 1).grad_fn is None
    assert Probe.apply(ctorch.ones(2), ctorch.ones(2), 1).grad_fn is None
    with pytest.raises(RuntimeError, match="readable in backward only"):
        ctorch.autograd.FunctionCtx().saved_tensors


def test_custom_function_with_a_non_tensor_output():
    class WithCount(ctorch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, 7

        @staticmethod
        def backward(ctx, g, g_count):
            assert g_count is None
            return g * 2

    x = ctorch.ones(2, requires_grad=True)
    y, count = WithCount.apply(x)
    assert count == 7
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_custom_function_returning_its_input_gets_a_new_tensor():
    class Identity(ctorch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = ctorch.ones(2, requires_grad=True)
    y = Identity.apply(x)
    assert y is not x and x.is_leaf and y.grad_fn.name() == "IdentityBackward"
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_custom_function_errors():
    class Failing(ctorch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            raise ArithmeticError("backward failed")

    class TooFew(ctorch.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g

    class ForNumber(ctorch.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g, g

    class BadForward(ctorch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            raise LookupError("forward failed")

    x = ctorch.ones(2, requires_grad=True)
    with pytest.raises(ArithmeticError, match="backward failed"):
        Failing.apply(x).sum().backward()
    with pytest.raises(RuntimeError, match="TooFewBackward: backward returned 1 gradients, but forward took 2"):
        TooFew.apply(x, 2).sum().backward()
    with pytest.raises(RuntimeError, match="ForNumberBackward: backward returned a gradient for argument 1"):
        ForNumber.apply(x, 2).sum().backward()
    with pytest.raises(LookupError, match="forward failed"):
        BadForward.apply(x)
    assert ctorch.is_grad_enabled()  # forward's no_grad ended with it
    with pytest.raises(TypeError, match="save_for_backward"):
        class SavesNumber(ctorch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(3)
                return x

        SavesNumber.apply(x)


def test_custom_function_saved_input_modified_in_place_fails():
    class Square(ctorch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * g * x

    x = ctorch.ones(2, requires_grad=True)
    a = x * 1
    y = Square.apply(a)
    a.add_(1)
    with pytest.raises(ctorch.Error, match="modified by an in-place operation"):
        y.sum().backward()


def test_custom_function_state_is_released_with_its_graph():
    ctxs = []

    class Keep(ctorch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctxs.append(weakref.ref(ctx))
            y = x * 3
            ctx.save_for_backward(x, y)
            return y

        @staticmethod
        def backward(ctx, g):
            return g * 3

    x = ctorch.ones(2, requires_grad=True)
    y = Keep.apply(x)
    assert ctxs[0]() is not None
    del y
    assert ctxs[0]() is None  # the saved output made no cycle that would keep ctx alive


# ---------------------------------------------------------------------------------------------------
# Leaks: counted by the library (ct_metric_get), so every reference the binding made must be gone

def test_training_steps_leave_no_tensor_alive():
    metric = ctorch._C.ct_metric_get
    x = ctorch.tensor([0.5, -1.0, 2.0])
    w = ctorch.tensor([1.0, 1.0, 1.0], requires_grad=True)
    b = ctorch.tensor([0.0, 0.0, 0.0], requires_grad=True)
    lr = 1e-3
    gc.collect()
    tensors, storages = metric("tensors.live"), metric("storages.live")
    for _ in range(100_000):
        loss = ((x * w + b) ** 2).sum()
        loss.backward()
        with ctorch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
        w.grad = None
        b.grad = None
    del loss
    gc.collect()
    assert metric("tensors.live") == tensors
    assert metric("storages.live") == storages
    # x * w + b = 0 is reached at the point of that line nearest the start: w = 1 / (x^2 + 1)
    compare(w, torch.tensor([1 / 1.25, 1 / 2.0, 1 / 5.0]), rtol=1e-4, atol=1e-4)


def test_hooks_functions_and_double_backward_leave_no_tensor_alive():
    metric = ctorch._C.ct_metric_get
    Exp = exp_function(ctorch)
    gc.collect()
    before = metric("tensors.live")
    for _ in range(2000):
        x = ctorch.ones(3, requires_grad=True)
        y = x * 2
        y.retain_grad()
        y.register_hook(lambda g: g * 2)
        x.register_hook(lambda g: None)
        z = Exp.apply(y)
        (g,) = ctorch.autograd.grad(z.sum(), x, create_graph=True)
        (g * g).sum().backward()
        try:
            with ctorch.no_grad():
                x.register_hook(lambda g: 1 / 0)
                (x * 1).sum().backward()
        except ctorch.Error:
            pass
        try:
            (x * x).sum().backward()
        except ZeroDivisionError:
            pass
    del x, y, z, g
    gc.collect()
    assert metric("tensors.live") == before


# ---------------------------------------------------------------------------------------------------
# The examples in docs/python.md run as written

DOCS = os.path.join(os.path.dirname(__file__), "..", "..", "..", "docs", "python.md")


@pytest.mark.skipif(not os.path.exists(DOCS), reason="needs the source tree's docs/python.md")
def test_autograd_examples_in_the_docs_run(capsys):
    text = open(DOCS).read()
    section = text.split("\n## Autograd\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 3
    results = []
    for block in blocks:
        namespace = {"__name__": "docs_example"}
        exec(compile(block, DOCS, "exec"), namespace)
        results.append(namespace)
    fit = results[0]
    assert abs(fit["w"].item() - 2) < 1e-3 and abs(fit["b"].item() - 1) < 1e-3
    assert results[1]["x"].grad.tolist() == [1.0, 1.0, 1.0]
    assert "ExpBackward" in capsys.readouterr().out


def test_in_place_feedback_and_create_graph_leave_no_tensor_alive():
    """A history that reaches the leaf's own accumulator, and a grad recorded by create_graph, keep
    nothing alive once the Python objects go (no reference cycle through the library)."""
    metric = ctorch._C.ct_metric_get
    gc.collect()
    before = metric("tensors.live")
    for _ in range(100):
        x = ctorch.ones(3, requires_grad=True)
        s = x.sum()
        x.requires_grad_(False)
        x.add_(s)  # x's history now ends at its own AccumulateGrad
        w = ctorch.ones(3, requires_grad=True)
        (w**3).sum().backward(create_graph=True)  # w.grad keeps a graph; it goes with w
        assert w.grad.requires_grad
        del x, s, w
    gc.collect()
    assert metric("tensors.live") == before


def test_post_accumulate_grad_hook_runs_after_the_gradient_is_added():
    """torch 2.1's Tensor.register_post_accumulate_grad_hook: hook(leaf) after each backward has
    added into leaf.grad, so it sees the running sum and may replace it; remove() stops it."""
    w = ctorch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x = ctorch.tensor([4.0, 5.0, 6.0])
    seen = []

    def hook(t):
        assert t is w  # the same Python object
        seen.append(t.grad.tolist())
        t.grad = t.grad * 0.5

    handle = w.register_post_accumulate_grad_hook(hook)
    (w * x).sum().backward()
    assert seen == [[4.0, 5.0, 6.0]] and w.grad.tolist() == [2.0, 2.5, 3.0]
    (w * x).sum().backward()
    assert seen[1] == [6.0, 7.5, 9.0] and w.grad.tolist() == [3.0, 3.75, 4.5]
    handle.remove()
    (w * x).sum().backward()
    assert len(seen) == 2 and w.grad.tolist() == [7.0, 8.75, 10.5]


def test_post_accumulate_grad_hook_errors():
    w = ctorch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        (w * 2).register_post_accumulate_grad_hook(lambda t: None)
    with pytest.raises(RuntimeError, match="does not require grad"):
        ctorch.ones(2).register_post_accumulate_grad_hook(lambda t: None)

    class Stop(Exception):
        pass

    def failing(t):
        raise Stop("bucket 0 failed")

    h = w.register_post_accumulate_grad_hook(failing)
    with pytest.raises(Stop, match="bucket 0 failed"):  # the hook's own exception comes out of backward
        w.sum().backward()
    assert w.grad.tolist() == [1.0, 1.0]  # it ran after the gradient was added
    h.remove()
    h = w.register_post_accumulate_grad_hook(lambda t: 1)
    with pytest.raises(RuntimeError, match="should return None"):
        w.sum().backward()
    h.remove()


def test_post_accumulate_grad_hook_keeps_no_cycle():
    """The library keeps the hook as long as the leaf; the hook's reference to its leaf is weak, so
    a leaf with a hook still goes when its last Python reference does."""
    gc.collect()
    before = ctorch._C.ct_metric_get("tensors.live")
    for _ in range(20):
        w = ctorch.ones(3, requires_grad=True)
        w.register_post_accumulate_grad_hook(lambda t: None)
        w.sum().backward()
        del w
    gc.collect()
    assert ctorch._C.ct_metric_get("tensors.live") == before


def test_relu_gradient_is_torchs_threshold_backward():
    # 0 where the result is <= 0 whatever the incoming gradient (an infinite or NaN one too, and +0
    # rather than -0); the gradient as it came elsewhere, a NaN input included.
    grads = []
    for lib in (torch, ctorch):
        x = lib.tensor([-1.0, 2.0, -3.0, 0.0, float("nan")]).requires_grad_()
        x.relu().backward(lib.tensor([float("inf"), 1.0, -2.0, float("nan"), 5.0]))
        grads.append(x.grad.numpy().view(np.uint32))
    np.testing.assert_array_equal(grads[1], grads[0])


@pytest.mark.parametrize("threshold", [0, 1, -0.5])
def test_threshold_backward_is_torchs(threshold):
    # The operator itself, as torch.ops.aten.threshold_backward: NaN and inf in either input, a
    # broadcast self, the dtype promoted from both, any threshold (1 is no special case).
    g = np.array([[np.inf, 1.0, -2.0, np.nan, 5.0, -0.0, 3.0]], dtype=np.float32)
    x = np.array([[-1.0], [2.0], [0.0], [np.nan], [1.0], [-0.5]], dtype=np.float64)
    for cg, cx, tg, tx in [(ctorch.tensor(g), ctorch.tensor(x), torch.tensor(g), torch.tensor(x)),
                           (ctorch.tensor(g).expand(6, 7), ctorch.tensor(x).float().expand(6, 7),
                            torch.tensor(g).expand(6, 7), torch.tensor(x).float().expand(6, 7))]:
        want = torch.ops.aten.threshold_backward(tg, tx, threshold)
        got = ctorch.ops.threshold_backward(cg, cx, threshold)
        assert got.dtype == getattr(ctorch, str(want.dtype).split(".")[1])
        np.testing.assert_array_equal(got.numpy().view(np.uint8), want.numpy().view(np.uint8))
    ints = ctorch.ops.threshold_backward(ctorch.tensor([5, 6, 7]), ctorch.tensor([-1, 0, 3]), 0)
    assert ints.tolist() == [0, 0, 7] and ints.dtype == ctorch.int64
    with pytest.raises(ctorch.Error, match="threshold_backward: not supported for bool"):
        ctorch.ops.threshold_backward(ctorch.tensor([True]), ctorch.tensor([False]), 0)
    with pytest.raises(ctorch.Error, match="threshold_backward"):
        ctorch.ops.threshold_backward(ctorch.ones(3), ctorch.ones(4), 0)


def test_clamp_gradient_is_zero_outside_the_bounds_whatever_arrives():
    # torch selects: 0 outside [min, max] even for an infinite or NaN gradient, and +0, not -0.
    grads = []
    for lib in (torch, ctorch):
        x = lib.tensor([-2.0, 0.5, 3.0, 1.0, -1.0]).requires_grad_()
        x.clamp(-1.0, 1.0).backward(lib.tensor([float("inf"), 2.0, float("nan"), -3.0, -4.0]))
        grads.append(x.grad.numpy().view(np.uint32))
    np.testing.assert_array_equal(grads[1], grads[0])
