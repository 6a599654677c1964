"""copy.copy, copy.deepcopy and pickle of ctorch objects, against torch's behaviour.

Every Python object that owns a C handle releases it once, so no copy may take the handle as it is:
Tensors, Parameters, Modules, optimizers and exported programs copy for real (or take a reference of
their own), and the objects that cannot be copied (generators, compiled functions, schedulers, open
checkpoints, Function contexts) refuse with a TypeError naming their class and what to do instead."""

import copy
import gc
import io
import os
import pickle
import subprocess
import sys
import textwrap

import pytest

ctorch = pytest.importorskip("ctorch")
nn = ctorch.nn


def _churn():
    """Frees what is unreachable and allocates over it, so a copy still reading released memory shows."""
    gc.collect()
    return [ctorch.full((64,), 7.0) for _ in range(16)]


# ---------------------------------------------------------------------------------------------------
# copy.deepcopy


def test_deepcopy_is_independent_of_original():
    t = ctorch.ones(3)
    c = copy.deepcopy(t)
    c.add_(1)
    assert t.tolist() == [1.0, 1.0, 1.0]
    assert c.tolist() == [2.0, 2.0, 2.0]
    t.mul_(5)
    assert c.tolist() == [2.0, 2.0, 2.0]
    assert c.data_ptr() != t.data_ptr()


@pytest.mark.parametrize("name", ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                                  "float32", "float64"])
def test_deepcopy_keeps_dtype_shape_and_values(name):
    dt = getattr(ctorch, name)
    t = ctorch.arange(6).reshape(2, 3).to(dt)
    c = copy.deepcopy(t)
    assert c.dtype is dt and tuple(c.shape) == (2, 3) and c.device == t.device
    assert c.to(ctorch.float64).tolist() == t.to(ctorch.float64).tolist()
    assert c.data_ptr() != t.data_ptr()


def test_deepcopy_survives_original_release():
    t = ctorch.arange(5.0)
    c = copy.deepcopy(t)
    del t
    keep = _churn()
    assert c.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    del keep


def test_deepcopy_of_a_view_is_a_contiguous_copy_of_its_values():
    base = ctorch.arange(12.0).reshape(3, 4)
    view = base.t()[1:]
    c = copy.deepcopy(view)
    base.mul_(0)
    assert c.tolist() == [[1.0, 5.0, 9.0], [2.0, 6.0, 10.0], [3.0, 7.0, 11.0]]
    assert c.is_contiguous()


def test_deepcopy_keeps_requires_grad_and_copies_grad_like_torch():
    import torch

    t = ctorch.ones(3, requires_grad=True)
    (t * 2).sum().backward()
    c = copy.deepcopy(t)
    ref = torch.ones(3, requires_grad=True)
    (ref * 2).sum().backward()
    rc = copy.deepcopy(ref)
    assert (c.requires_grad, c.is_leaf, c.grad is None) == (rc.requires_grad, rc.is_leaf, rc.grad is None)
    assert c.grad.tolist() == rc.grad.tolist()
    c.grad.add_(1)  # the copied gradient has its own storage too
    assert t.grad.tolist() == [2.0, 2.0, 2.0]
    c.sum().backward()  # and the copy is a leaf of its own
    assert c.grad.tolist() == [4.0, 4.0, 4.0] and t.grad.tolist() == [2.0, 2.0, 2.0]


def test_deepcopy_maps_one_tensor_to_one_copy():
    t = ctorch.ones(2)
    a, b = copy.deepcopy([t, t])
    assert a is b and a is not t
    a.add_(1)
    assert t.tolist() == [1.0, 1.0]


def test_deepcopy_refuses_a_non_leaf_like_torch():
    import torch

    x = ctorch.ones(2, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="graph leaves"):
        copy.deepcopy(x)
    with pytest.raises(RuntimeError, match="graph leaves"):
        copy.deepcopy(torch.ones(2, requires_grad=True) * 2)


def test_deepcopy_of_meta_tensor_is_a_meta_tensor():
    t = ctorch.empty(2, 3, dtype=ctorch.float16, device="meta", requires_grad=True)
    c = copy.deepcopy(t)
    del t
    _churn()
    assert (c.device.type, tuple(c.shape), c.dtype, c.requires_grad) == ("meta", (2, 3), ctorch.float16, True)


def test_deepcopy_of_parameter_is_an_independent_parameter():
    p = nn.Parameter(ctorch.zeros(3))
    c = copy.deepcopy(p)
    assert type(c) is nn.Parameter and c.requires_grad and c.is_leaf
    with ctorch.no_grad():
        c.add_(1)
    assert p.tolist() == [0.0, 0.0, 0.0]


# ---------------------------------------------------------------------------------------------------
# copy.copy


def test_copy_shares_storage_like_torch():
    import torch

    for lib in (ctorch, torch):
        t = lib.ones(3, requires_grad=True)
        (t * 2).sum().backward()
        c = copy.copy(t)
        assert c is not t
        assert c.data_ptr() == t.data_ptr()
        assert (c.requires_grad, c.is_leaf, c.grad) == (True, True, None)
        with lib.no_grad():
            c.add_(1)
        assert t.tolist() == [2.0, 2.0, 2.0]


def test_copy_owns_its_own_reference():
    t = ctorch.arange(4.0)
    c = copy.copy(t)
    del t
    keep = _churn()
    assert c.tolist() == [0.0, 1.0, 2.0, 3.0]
    c.add_(1)
    assert c.tolist() == [1.0, 2.0, 3.0, 4.0]
    del keep


def test_copy_of_parameter_is_a_parameter():
    p = nn.Parameter(ctorch.ones(2))
    c = copy.copy(p)
    assert type(c) is nn.Parameter and c.requires_grad
    del p
    gc.collect()
    assert c.tolist() == [1.0, 1.0]


# ---------------------------------------------------------------------------------------------------
# pickle


@pytest.mark.parametrize("name", ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                                  "float32", "float64"])
def test_pickle_round_trips_every_dtype(name):
    dt = getattr(ctorch, name)
    t = (ctorch.arange(12) - 5).reshape(3, 4).to(dt)
    r = pickle.loads(pickle.dumps(t))
    assert type(r) is ctorch.Tensor and r.dtype is dt and tuple(r.shape) == (3, 4)
    assert r.to(ctorch.float64).tolist() == t.to(ctorch.float64).tolist()
    assert r.data_ptr() != t.data_ptr()


@pytest.mark.parametrize("make", [
    lambda: ctorch.tensor(3.5),
    lambda: ctorch.zeros(0, 3),
    lambda: ctorch.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1),
    lambda: ctorch.arange(10.0)[1::3],
    lambda: ctorch.arange(12.0).reshape(3, 4)[1:],
    lambda: ctorch.ones(1, 3).expand(4, 3),
], ids=["0-dim", "0-size", "permuted", "strided", "offset", "expanded"])
def test_pickle_round_trips_shapes_and_views(make):
    t = make()
    data = pickle.dumps(t)
    expected = (tuple(t.shape), t.tolist())
    r = pickle.loads(data)
    assert (tuple(r.shape), r.tolist()) == expected
    del r
    _churn()  # the loaded tensor does not depend on the original either
    r = pickle.loads(data)
    assert (tuple(r.shape), r.tolist()) == expected
    if t.numel():
        r.add_(1)  # its own storage, even for an expanded tensor
        assert r.tolist() != t.tolist()


def test_pickle_is_independent_of_original():
    t = ctorch.ones(3)
    data = pickle.dumps(t)
    del t
    keep = _churn()
    r = pickle.loads(data)
    assert r.tolist() == [1.0, 1.0, 1.0]
    del keep


def test_pickle_keeps_requires_grad_and_drops_grad_like_torch():
    import torch

    for lib in (ctorch, torch):
        t = lib.ones(2, requires_grad=True)
        (t * 3).sum().backward()
        r = pickle.loads(pickle.dumps(t))
        assert (r.requires_grad, r.is_leaf, r.grad) == (True, True, None)
        n = pickle.loads(pickle.dumps(t * 2))  # torch pickles a non-leaf as a leaf with its values
        assert (n.requires_grad, n.is_leaf, n.tolist()) == (True, True, [2.0, 2.0])


def test_pickle_of_meta_tensor_keeps_shape_and_dtype():
    t = ctorch.empty(5, 2, dtype=ctorch.int32, device="meta")
    data = pickle.dumps(t)
    del t
    _churn()
    r = pickle.loads(data)
    assert (r.device.type, tuple(r.shape), r.dtype) == ("meta", (5, 2), ctorch.int32)


def test_pickle_of_parameter_is_a_parameter():
    p = nn.Parameter(ctorch.arange(3.0), requires_grad=False)
    r = pickle.loads(pickle.dumps(p))
    assert type(r) is nn.Parameter and not r.requires_grad and r.tolist() == [0.0, 1.0, 2.0]


def test_pickle_refuses_a_tensor_with_symbolic_sizes():
    env = ctorch.ShapeEnv()
    s0 = env.create_symbol(4, min=2, max=16)
    t = ctorch.empty(s0, 3, device="meta")
    with pytest.raises(TypeError, match="symbolic sizes"):
        pickle.dumps(t)
    assert str(copy.deepcopy(t).shape[0]) == "s0"  # a copy stays in the same process: allowed


def test_traced_tensor_refuses_deepcopy_and_pickle():
    x = ctorch.ones(3)
    for what in (copy.deepcopy, pickle.dumps):
        def f(x, what=what):
            what(x)
            return x + 1

        with pytest.raises(RuntimeError, match="being traced"):
            ctorch.export.export(f, (x,))
        with pytest.raises(RuntimeError, match="being traced"):
            ctorch.compile(f, fullgraph=True)(x)
    # Without fullgraph the refusal is a graph break: the function runs eagerly, where it copies.
    assert ctorch.compile(lambda x: copy.deepcopy(x) + 1)(x).tolist() == [2.0, 2.0, 2.0]


def _run_python(code, data):
    """Runs code in a fresh interpreter with the pickled bytes on stdin; returns its stdout."""
    pkg = os.path.dirname(os.path.dirname(ctorch.__file__))
    env = dict(os.environ, PYTHONPATH=pkg + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], input=data, env=env, capture_output=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr.decode()
    return r.stdout.decode()


def test_pickle_loads_in_a_fresh_process():
    tensors = {
        "f32": ctorch.arange(6.0).reshape(2, 3).t(),
        "bf16": ctorch.tensor([1.5, -2.25]).to(ctorch.bfloat16),
        "bool": ctorch.tensor([True, False, True]),
        "i64": ctorch.tensor([[-(2 ** 40)], [7]]),
        "empty": ctorch.zeros(0, 2),
        "scalar": ctorch.tensor(2.5, requires_grad=True),
        "param": nn.Parameter(ctorch.ones(2)),
        "meta": ctorch.empty(3, 4, device="meta"),
    }
    out = _run_python("""
        import pickle, sys
        import ctorch
        d = pickle.loads(sys.stdin.buffer.read())
        for k, t in d.items():
            values = None if t.is_meta else t.to(ctorch.float64).tolist()
            print(k, type(t).__name__, t.dtype.name, tuple(t.shape), t.device.type, t.requires_grad, values)
    """, pickle.dumps(tensors))
    expected = []
    for k, t in tensors.items():
        values = None if t.is_meta else t.to(ctorch.float64).tolist()
        expected.append(f"{k} {type(t).__name__} {t.dtype.name} {tuple(t.shape)} {t.device.type} {t.requires_grad} "
                        f"{values}")
    assert out.splitlines() == expected


# ---------------------------------------------------------------------------------------------------
# Modules and optimizers


def _model():
    ctorch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 2))


def _assert_state_equal(a, b):
    sa, sb = a.state_dict(), b.state_dict()
    assert list(sa) == list(sb)
    for k in sa:
        assert sa[k].dtype is sb[k].dtype and sa[k].tolist() == sb[k].tolist(), k


def test_module_deepcopy_has_independent_parameters():
    m = _model()
    c = copy.deepcopy(m)
    assert type(c) is nn.Sequential and type(c[0].weight) is nn.Parameter
    _assert_state_equal(m, c)
    with ctorch.no_grad():
        c[0].weight.add_(1)
        c[1].running_mean.add_(1)
    assert (m[0].weight - c[0].weight).abs().sum().item() > 0
    assert m[1].running_mean.tolist() == [0.0] * 8
    del m
    _churn()
    assert c(ctorch.ones(3, 4)).shape == (3, 2)


def test_module_deepcopy_keeps_tied_parameters_tied():
    lin = nn.Linear(3, 3)
    m = nn.Sequential(lin, nn.ReLU(), lin)
    c = copy.deepcopy(m)
    assert c[0] is c[2] and c[0].weight is c[2].weight and c[0] is not lin
    assert len(list(c.parameters())) == 2


def test_module_pickle_round_trips_state_dict():
    m = _model()
    m(ctorch.randn(5, 4))  # running stats move
    m.eval()
    r = pickle.loads(pickle.dumps(m))
    _assert_state_equal(m, r)
    assert r.training is False
    x = ctorch.randn(3, 4)
    assert r(x).tolist() == m(x).tolist()


def test_module_pickle_loads_in_a_fresh_process():
    m = _model()
    x = ctorch.randn(2, 4)
    m.eval()
    out = _run_python("""
        import pickle, sys
        import ctorch
        m, x = pickle.loads(sys.stdin.buffer.read())
        print(m(x).tolist())
    """, pickle.dumps((m, x)))
    assert out.strip() == str(m(x).tolist())


def _train_step(model, opt, x):
    opt.zero_grad()
    model(x).pow(2).sum().backward()
    opt.step()


@pytest.mark.parametrize("make", [lambda p: ctorch.optim.SGD(p, lr=0.1, momentum=0.9),
                                  lambda p: ctorch.optim.Adam(p, lr=0.01)], ids=["SGD", "Adam"])
def test_optimizer_deepcopy_continues_like_the_original(make):
    m = _model()
    opt = make(m.parameters())
    x = ctorch.randn(4, 4)
    _train_step(m, opt, x)
    m2, opt2 = copy.deepcopy((m, opt))
    assert opt2._params[0] is m2[0].weight  # the copy updates the copied model
    assert type(opt2) is type(opt) and opt2.param_groups[0]["lr"] == opt.param_groups[0]["lr"]
    _train_step(m, opt, x)
    _train_step(m2, opt2, x)
    _assert_state_equal(m, m2)  # same state buffers, same update
    _train_step(m2, opt2, x)
    assert (m[0].weight - m2[0].weight).abs().sum().item() > 0  # and independent of the original


def test_optimizer_pickle_round_trips_its_state():
    m = _model()
    opt = ctorch.optim.Adam(m.parameters(), lr=0.01, amsgrad=True)
    x = ctorch.randn(4, 4)
    _train_step(m, opt, x)
    m2, opt2 = pickle.loads(pickle.dumps((m, opt)))
    assert opt2.param_groups[0]["amsgrad"] is True
    assert [s.tolist() for s in opt2.state_dict()["state"]] == [s.tolist() for s in opt.state_dict()["state"]]
    _train_step(m, opt, x)
    _train_step(m2, opt2, x)
    _assert_state_equal(m, m2)


def test_optimizer_copy_shares_the_optimizer_with_a_reference_of_its_own():
    m = _model()
    opt = ctorch.optim.SGD(m.parameters(), lr=0.1)
    c = copy.copy(opt)
    c.param_groups[0]["lr"] = 0.5
    assert opt.param_groups[0]["lr"] == 0.5
    del c
    _churn()  # the copy's reference is its own: releasing it leaves the original working
    _train_step(m, opt, ctorch.randn(2, 4))
    c = copy.copy(opt)
    del opt
    _churn()
    _train_step(m, c, ctorch.randn(2, 4))
    assert c.param_groups[0]["lr"] == 0.5


# ---------------------------------------------------------------------------------------------------
# Other objects owning a handle


def test_exported_program_copies_keep_running_after_the_original_is_released():
    def f(x, scale):
        return x * scale

    x = ctorch.ones(2)
    ep = ctorch.export.export(f, (x, 3))
    shallow, deep = copy.copy(ep), copy.deepcopy(ep)
    loaded = pickle.loads(pickle.dumps(ep))
    del ep
    _churn()
    # The copies keep the call's structure (a non-tensor argument), as the original.
    assert shallow(x, 3).tolist() == [3.0, 3.0] and deep(x, 3).tolist() == [3.0, 3.0]
    assert loaded(x).tolist() == [3.0, 3.0]


def test_generator_refuses_pickle():
    g = ctorch.Generator().manual_seed(3)
    for what in (pickle.dumps, copy.copy, copy.deepcopy):
        with pytest.raises(TypeError, match=r"ctorch\.Generator: save its state with get_state\(\)"):
            what(g)
    with pytest.raises(TypeError, match="ctorch.Generator"):
        copy.deepcopy(ctorch.default_generator)
    # What the message says to do gives an equal stream.
    h = ctorch.Generator().set_state(g.get_state())
    assert ctorch.rand(3, generator=g).tolist() == ctorch.rand(3, generator=h).tolist()


def _compiled():
    return ctorch.compile(lambda x: x + 1)


def _scheduler():
    opt = ctorch.optim.SGD([nn.Parameter(ctorch.ones(1))], lr=0.1)
    return ctorch.optim.lr_scheduler.StepLR(opt, step_size=2)


def _checkpoint(tmp_path):
    path = tmp_path / "x.safetensors"
    ctorch.save_file({"a": ctorch.ones(2)}, str(path))
    return ctorch.safetensors.safe_open(str(path))


def _function_ctx():
    return ctorch.autograd.FunctionCtx()


@pytest.mark.parametrize("make, name", [
    (lambda tmp: _compiled(), "CompiledFunction"),
    (lambda tmp: _scheduler(), "ctorch.optim.lr_scheduler.StepLR"),
    (_checkpoint, "ctorch.safetensors.safe_open"),
    (lambda tmp: _function_ctx(), "ctorch.autograd.FunctionCtx"),
], ids=["compiled", "scheduler", "checkpoint", "function_ctx"])  # ShapeEnv and SymInt: test_symbolic.py
def test_handle_owners_refuse_copies_naming_their_class(make, name, tmp_path):
    obj = make(tmp_path)
    for what in (pickle.dumps, copy.copy, copy.deepcopy):
        with pytest.raises(TypeError, match=name):
            what(obj)


def test_module_holding_a_compiled_function_refuses_deepcopy():
    m = nn.Linear(2, 2)
    m.fast = _compiled()
    with pytest.raises(TypeError, match="CompiledFunction"):
        copy.deepcopy(m)


def test_hook_handle_copy_is_the_handle():
    t = ctorch.ones(2, requires_grad=True)
    h = t.register_hook(lambda g: g * 2)
    assert copy.copy(h) is h and copy.deepcopy(h) is h
    with pytest.raises(TypeError, match="RemovableHandle"):
        pickle.dumps(h)
    copy.copy(h).remove()
    h.remove()  # idempotent: one registration, removed once
    t.sum().backward()
    assert t.grad.tolist() == [1.0, 1.0]


def test_error_pickles_with_its_status():
    try:
        ctorch.ones(2) + ctorch.ones(3)
    except ctorch.Error as e:
        err = e
    r = pickle.loads(pickle.dumps(err))
    assert type(r) is type(err) and str(r) == str(err)
    assert (r.status, r.status_name) == (err.status, err.status_name)
    assert isinstance(r, RuntimeError)


def test_save_to_file_object_round_trips():
    # pickle.dump to a file-like object: the way torch.save users pickle tensors.
    buf = io.BytesIO()
    pickle.dump({"w": ctorch.ones(2, 2), "step": 3}, buf)
    buf.seek(0)
    d = pickle.load(buf)
    assert d["w"].tolist() == [[1.0, 1.0], [1.0, 1.0]] and d["step"] == 3
