"""ctorch.compile and ctorch.export: torch.compile and torch.export over ct_compile and ct_export.

torch 1.13 (the oracle) has no torch.compile: compiled results are compared with ctorch's own eager
results (exactly, for pointwise chains) and with torch eager (closely, for reductions)."""

import ast
import gc
import io
import os
import pickle
import re
import threading
import warnings

import numpy as np
import pytest

ctorch = pytest.importorskip("ctorch")
from ctorch.export import Dim, ExportedProgram, export  # noqa: E402

torch = pytest.importorskip("torch")


def chain(x, y, z):
    return x * ctorch.sigmoid(x) + ctorch.sin(y) * 0.5 - z


def randn(*sizes):
    return ctorch.randn(*sizes)


def same(a, b):
    """Same shape, dtype and bits."""
    return a.shape == b.shape and a.dtype is b.dtype and np.array_equal(a.numpy(), b.numpy())


def to_torch(t):
    return torch.from_numpy(t.numpy().copy())


# ---------------------------------------------------------------------------------------------------
# ctorch.compile: forms, results, graphs

def test_decorator_with_and_without_arguments_and_the_function_form_equal_eager():
    @ctorch.compile
    def bare(x, y, z):
        return chain(x, y, z)

    @ctorch.compile(dynamic=False, backend="eager")
    def called(x, y, z):
        return chain(x, y, z)

    functional = ctorch.compile(chain, fullgraph=True)
    x, y, z = randn(4, 8), randn(4, 8), randn(4, 8)
    want = chain(x, y, z)
    for f in (bare, called, functional):
        assert same(f(x, y, z), want)
        assert same(f(x, y, z), want)  # the cached graph
        assert f.metrics()["compiles"] == 1


def test_the_compiled_function_wraps_the_original():
    def step(x):
        """One step."""
        return x + 1

    compiled = ctorch.compile(step)
    assert compiled.__name__ == "step" and compiled.__doc__ == "One step." and compiled.__wrapped__ is step


def test_a_pointwise_chain_is_one_fused_kernel_with_eager_bits():
    f = ctorch.compile(chain)
    for batch in (3, 3, 5, 17):
        x, y, z = randn(batch, 33), randn(batch, 33), randn(batch, 33)
        assert same(f(x, y, z), chain(x, y, z))
    graphs = f.graphs()
    assert len(graphs) == 2 and all("fused[" in g for g in graphs)
    assert "f32[s0, 33]" in graphs[1]


def test_a_layer_norm_chain_with_reductions_is_close_to_torch():
    @ctorch.compile
    def layer_norm(x, w, b):
        mu = x.mean(-1, keepdim=True)
        xc = x - mu
        var = (xc * xc).mean(-1, keepdim=True)
        return xc * ctorch.rsqrt(var + 1e-5) * w + b

    w, b = randn(96), randn(96)
    for batch in (8, 13):
        x = randn(batch, 96)
        got = layer_norm(x, w, b)
        want = torch.nn.functional.layer_norm(to_torch(x), (96,), to_torch(w), to_torch(b), 1e-5)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)
    assert "mean" in layer_norm.graphs()[0] and "fused[" in layer_norm.graphs()[0]


def row_programs(x, w):
    """RMSNorm, layer norm, softmax, log-softmax, an erf chain over a bias, and a per-row minimum."""
    rms = x * ctorch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-6) * w
    mu = x.mean(-1, keepdim=True)
    d = x - mu
    ln = d * ((d * d).mean(-1, keepdim=True) + 1e-5).rsqrt() * w + 0.5
    m = x.amax(-1, keepdim=True)
    e = (x - m).exp()
    softmax = e / e.sum(-1, keepdim=True)
    log_softmax = x - m - (x - m).exp().sum(-1, keepdim=True).log()
    gelu = 0.5 * (x + w) * (1.0 + ((x + w) * 0.7071067811865476).erf())
    return rms, ln, softmax, log_softmax, gelu, x.amin(-1)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cpp_kernels_have_the_tile_loops_bits(dtype, tmp_path, monkeypatch):
    # mode "max-autotune" builds C++ kernels with the system compiler, into a fresh cache here;
    # their results must be eager's bits, rows of 20000 (two fold blocks) included.
    monkeypatch.setenv("CTORCH_CACHE_DIR", str(tmp_path))
    dt = getattr(ctorch, dtype)
    f = ctorch.compile(row_programs, mode="max-autotune")
    for rows, cols in ((33, 257), (2, 20000), (5, 3)):
        x, w = randn(rows, cols).to(dt), randn(cols).to(dt)
        for got, want in zip(f(x, w), row_programs(x, w)):
            assert same(got, want)
    assert all("fused_cpp[" in g and "fused[" not in g for g in f.graphs())
    # Each object has its source beside it. (A process loads a kernel once: when an earlier test
    # built these, none is built here, so the check must not require one.)
    assert all(p.with_suffix(".cpp").exists() for p in tmp_path.glob("*.so"))


def test_cpp_kernels_fall_back_to_the_tile_loops(tmp_path, monkeypatch):
    monkeypatch.setenv("CTORCH_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("CXX", str(tmp_path / "no-such-compiler"))
    f = ctorch.compile(row_programs, options={"cpp_kernels": True})
    x, w = randn(7, 40), randn(40)
    for got, want in zip(f(x, w), row_programs(x, w)):
        assert same(got, want)
    assert "fused[" in f.graphs()[0] and "fused_cpp[" not in f.graphs()[0]
    # sin and cos switch to their wide form per run of elements: their groups keep the tile loops.
    g = ctorch.compile(chain, mode="max-autotune")
    x, y, z = randn(4, 9), randn(4, 9), randn(4, 9)
    assert same(g(x, y, z), chain(x, y, z)) and "fused[" in g.graphs()[0]


def test_hot_kernels_are_built_in_the_background(tmp_path, monkeypatch):
    # The default "cpp_kernels": "auto" starts on the tile loops and builds a kernel once it is hot
    # (here from its first call); ctorch.compiler.wait_kernels waits for the builder.
    monkeypatch.setenv("CTORCH_CACHE_DIR", str(tmp_path))
    x, w = randn(9, 300).double(), randn(300).double()
    want = row_programs(x, w)
    f = ctorch.compile(row_programs, options={"cpp_kernels_hot_ms": 0})
    never = ctorch.compile(row_programs, options={"cpp_kernels": False})
    for g in (f, never):  # (f's kernels may be built by now, or not: the builder takes its time)
        assert all(same(a, b) for a, b in zip(g(x, w), want))
    ctorch.compiler.wait_kernels()
    assert all(same(a, b) for a, b in zip(f(x, w), want))
    assert "fused_cpp[" in f.graphs()[0] and "fused_cpp[" not in never(x, w) and never.graphs()[0]
    # A training step: the compiled backward's kernels too.
    xg, wg = x.clone().requires_grad_(), w.clone().requires_grad_()
    t = ctorch.compile(lambda a, b: row_programs(a, b)[0].sum(), options={"cpp_kernels_hot_ms": 0})
    for _ in range(2):
        got = ctorch.autograd.grad(t(xg, wg), (xg, wg))
        ctorch.compiler.wait_kernels()
    want = ctorch.autograd.grad(row_programs(xg, wg)[0].sum(), (xg, wg))
    assert all(same(a, b) for a, b in zip(got, want))
    assert t.graphs()[0].count("fused_cpp[") >= 2  # forward and backward


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_builds_its_own_kernels(tmp_path, monkeypatch):
    # fork while the parent's builder may be running the compiler: the child starts a builder of its
    # own (pthread_atfork), and neither waits forever.
    monkeypatch.setenv("CTORCH_CACHE_DIR", str(tmp_path))
    x, w = randn(31, 190), randn(190)
    f = ctorch.compile(row_programs, options={"cpp_kernels_hot_ms": 0})
    g = ctorch.compile(lambda a, b: (a - a.amax(-1, keepdim=True)).exp() * b, options={"cpp_kernels_hot_ms": 0})
    f(x, w)
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            g(x, w)
            ctorch.compiler.wait_kernels()
            code = 0 if "fused_cpp[" in g.graphs()[0] and same(g(x, w), (x - x.amax(-1, keepdim=True)).exp() * w) else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    ctorch.compiler.wait_kernels()
    assert os.waitstatus_to_exitcode(status) == 0
    assert "fused_cpp[" in f.graphs()[0]


def test_cpp_kernels_compile_the_backward_with_the_same_bits(tmp_path, monkeypatch):
    monkeypatch.setenv("CTORCH_CACHE_DIR", str(tmp_path))

    def rms(x, w):
        return x * ctorch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-6) * w

    x, w, go = randn(16, 64).requires_grad_(), randn(64).requires_grad_(), randn(16, 64)
    grads = []
    for mode in ("default", "max-autotune"):
        f = ctorch.compile(rms, mode=mode)
        grads.append(ctorch.autograd.grad(f(x, w), (x, w), go))
        assert f.graphs()[0].startswith("forward:")
    assert "fused_cpp[" in f.graphs()[0]
    assert all(same(a, b) for a, b in zip(*grads))


def column_sums(x, w, g):
    """A bias's and a norm weight's gradients: sums over the rows of products, beside a row reduction."""
    p = x * w * g
    return g.sum(0), p.sum(0), (p * (x * x).mean(-1, keepdim=True).rsqrt()).sum(-2, keepdim=True)


@pytest.mark.parametrize("mode", ["default", "max-autotune"])
def test_column_sums_fuse_with_their_operands_and_keep_eager_bits(mode, tmp_path, monkeypatch):
    # Tile loops and C++ kernels: blocks of 64 rows joined in eager's cascade, one and two threads.
    monkeypatch.setenv("CTORCH_CACHE_DIR", str(tmp_path))
    f = ctorch.compile(column_sums, mode=mode)
    before = ctorch.get_num_threads()
    try:
        for rows, cols in ((63, 7), (64, 33), (300, 1025), (2, 2)):
            x, w, g = randn(rows, cols), randn(cols), randn(rows, cols)
            for threads in (1, 2):
                ctorch.set_num_threads(threads)
                assert all(same(a, b) for a, b in zip(f(x, w, g), column_sums(x, w, g)))
    finally:
        ctorch.set_num_threads(before)
    graph = f.graphs()[0]
    # Both sums of products in the kernel that makes them; g.sum(0) alone stays one call.
    assert re.search(r"fused(_cpp)?\[[^]]*, sum, [^]]*, sum\]", graph) and graph.count("sum.dim_IntList") == 1, graph
    assert ("fused_cpp[" in graph) == (mode == "max-autotune")


def test_a_compiled_norm_backward_sums_its_weight_gradient_in_the_fused_kernel():
    def rms(x, w):
        return x * ctorch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-6) * w

    x, w, go = randn(130, 64).requires_grad_(), randn(64).requires_grad_(), randn(130, 64)
    f = ctorch.compile(rms)
    got, want = ctorch.autograd.grad(f(x, w), (x, w), go), ctorch.autograd.grad(rms(x, w), (x, w), go)
    assert all(same(a, b) for a, b in zip(got, want))
    backward = f.graphs()[0].split("backward:")[1]
    assert "sum.dim_IntList" not in backward and ", sum]" in backward, backward


def test_outputs_keep_their_structure():
    @ctorch.compile
    def several(x):
        return x.sum(-1), [x * 2, {"top": ctorch.topk(x, 2)}]

    x = randn(3, 5)
    total, (double, d) = several(x)
    assert same(total, x.sum(-1)) and same(double, x * 2)
    top = d["top"]
    assert type(top) is type(ctorch.topk(x, 2)) and same(top.values, ctorch.topk(x, 2).values)


def test_a_changed_output_structure_is_an_error():
    f = ctorch.compile(lambda x: (x,) if x.shape[0] == 2 else (x, x))
    f(randn(2))
    with pytest.raises(TypeError, match="returned 2 tensor.s., or a different structure, where an earlier call "
                                        "returned 1"):
        f(randn(3))


# ---------------------------------------------------------------------------------------------------
# Dynamic shapes and the recompile limit

def test_automatic_dynamic_compiles_twice_for_twenty_batch_sizes():
    f = ctorch.compile(chain)
    for batch in range(2, 22):
        x, y, z = randn(batch, 8), randn(batch, 8), randn(batch, 8)
        assert same(f(x, y, z), chain(x, y, z))
    m = f.metrics()
    assert m["recompiles"] == 1 and m["compiles"] == 2 and m["calls"] == 20 and m["graph_breaks"] == 0


def test_dynamic_true_compiles_once():
    f = ctorch.compile(chain, dynamic=True)
    for batch in (2, 7, 30):
        x, y, z = randn(batch, 4), randn(batch, 4), randn(batch, 4)
        assert same(f(x, y, z), chain(x, y, z))
    assert f.metrics()["compiles"] == 1 and "[s0, s1]" in f.graphs()[0]


def test_dynamic_false_recompiles_per_size_until_the_limit_then_runs_eagerly_with_a_warning():
    f = ctorch.compile(lambda x: x * 3 + 1, dynamic=False, recompile_limit=3, name="static_sizes_until_the_limit")
    with pytest.warns(UserWarning, match=r"static_sizes_until_the_limit.*recompile limit \(3"):
        for n in range(2, 8):
            x = randn(n)
            assert same(f(x), x * 3 + 1)
    m = f.metrics()
    assert m["compiles"] == 3 and m["eager_calls"] == 3 and m["calls"] == 6
    assert all("f32[%d]" % n in g for n, g in zip(range(2, 5), f.graphs()))


def test_the_recompile_limit_under_fullgraph_raises():
    f = ctorch.compile(lambda x: x + 1, dynamic=False, recompile_limit=1, fullgraph=True)
    f(randn(2))
    with pytest.raises(ctorch.RecompileLimitError, match="recompile limit"):
        f(randn(3))


def test_sizes_read_in_a_traced_function_stay_symbolic():
    def mean_rows(x):
        return x.reshape(x.size(0), -1).sum(1) / x.numel() * x.shape[0]

    f = ctorch.compile(mean_rows, dynamic=True)
    for batch in (2, 5, 9):  # equal sizes share a symbol (duck sizing): keep dims 1 and 2 apart
        x = randn(batch, 4, 7)
        np.testing.assert_allclose(f(x).numpy(), mean_rows(x).numpy(), rtol=1e-6)
    assert f.metrics()["compiles"] == 1


# ---------------------------------------------------------------------------------------------------
# Graph breaks and exceptions

def test_item_is_a_graph_break_that_runs_the_signature_eagerly():
    def scale_by_total(x):
        return x * x.sum().item()

    f = ctorch.compile(scale_by_total, name="scale_by_total_breaks")
    x = randn(4)
    with pytest.warns(UserWarning, match=r"scale_by_total_breaks\): graph break.*ct_tensor_item"):
        for _ in range(3):
            assert same(f(x), scale_by_total(x))
    m = f.metrics()
    assert m["graph_breaks"] == 1 and m["eager_calls"] == 3 and m["compiles"] == 1
    assert f.graphs()[0].startswith("graph break (runs eagerly)")
    with pytest.raises(ctorch.ShapeError):  # the next failure is its own, not the failed trace's
        randn(2) + randn(3)


@pytest.mark.parametrize("read", ["item", "tolist", "numpy", "print", "float", "if"])
def test_a_data_read_under_fullgraph_raises_graph_break_error(read, capsys):
    def f(x):
        if read == "item":
            x.sum().item()
        elif read == "tolist":
            x.tolist()
        elif read == "numpy":
            x.numpy()
        elif read == "print":
            print(x)
        elif read == "float":
            float(x.sum())
        elif x.sum() > 0:
            pass
        return x + 1

    with pytest.raises(ctorch.GraphBreakError, match="reads the data of a traced tensor") as info:
        ctorch.compile(f, fullgraph=True)(randn(3))
    assert isinstance(info.value, RuntimeError) and info.value.status == ctorch._C.CT_ERROR_GRAPH_BREAK
    assert capsys.readouterr().out == ""


class Refused(Exception):
    pass


@pytest.mark.parametrize("fullgraph", [False, True])
def test_exceptions_the_function_raises_leave_the_call_as_themselves(fullgraph):
    marker = object()
    state = {"raise": True}

    def refuse(x):
        if state["raise"]:
            raise Refused(marker)
        return x + 1

    def raises_itself(call):
        with pytest.raises(Refused) as info:
            call()
        assert info.value.args == (marker,) and any(tb.name == "refuse" for tb in info.traceback)

    f = ctorch.compile(refuse, fullgraph=fullgraph)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # without fullgraph a trace that fails is a graph break (a warning)
        raises_itself(lambda: f(randn(2)))  # the first call
        state["raise"] = False
        assert same(f(ctorch.zeros(2)), ctorch.ones(2))
        state["raise"] = True
        raises_itself(lambda: f(randn(2, 2)))  # a new trace


def test_an_exception_raised_only_while_tracing_is_not_a_graph_break():
    def only_eager(x):
        if x.is_meta:  # proxies are meta tensors
            raise Refused("not while tracing")
        return x + 1

    f = ctorch.compile(only_eager)
    assert same(f(ctorch.zeros(2)), ctorch.ones(2))  # learning the outputs fails, so this call runs eagerly
    with pytest.raises(Refused, match="not while tracing"):
        f(ctorch.zeros(2))
    assert f.metrics()["graph_breaks"] == 0


def test_operator_errors_keep_their_class_and_message():
    f = ctorch.compile(lambda a, b: a + b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ctorch.ShapeError, match="do not broadcast"):
            f(randn(4, 3), randn(2, 3))


# ---------------------------------------------------------------------------------------------------
# Arguments that are not tensors, methods, options

def test_non_tensor_arguments_are_constants_with_a_graph_each():
    @ctorch.compile
    def combine(x, factor, how="add", extra=None):
        y = x * factor if how == "mul" else x + factor
        return y if extra is None else y - extra

    x = randn(5)
    assert same(combine(x, 2), x + 2)
    assert same(combine(x, 2, how="mul"), x * 2)
    assert same(combine(x, 2.5), x + 2.5)
    assert same(combine(x, True), x + True)  # True is not 1: another constant
    assert same(combine(x, 2, extra=x), x + 2 - x)
    assert combine.metrics()["compiles"] == 5
    assert same(combine(x, 2), x + 2) and combine.metrics()["compiles"] == 5


def test_tensors_inside_lists_and_dicts_are_inputs():
    @ctorch.compile
    def total(parts, weights):
        return parts[0] * weights["a"] + parts[1] * weights["b"]

    a, b = randn(3), randn(3)
    got = total([a, b], {"a": ctorch.full((), 2.0), "b": ctorch.full((), 3.0)})
    assert same(got, a * 2.0 + b * 3.0)
    assert total.graphs()[0].count("placeholder") == 4


def test_more_signatures_than_the_limit_run_eagerly_with_a_warning():
    f = ctorch.compile(lambda x, k: x + k, recompile_limit=2)
    x = randn(3)
    f(x, 1), f(x, 2)
    with pytest.warns(UserWarning, match="recompile limit"):
        assert same(f(x, 3), x + 3)
    assert f.metrics()["compiles"] == 2


def test_a_compiled_method_gets_the_instance():
    class Scale:
        def __init__(self):
            self.w = randn(4)

        @ctorch.compile
        def forward(self, x):
            return x * self.w

    m = Scale()
    x = randn(4)
    assert same(m.forward(x), x * m.w)
    assert "constant" in Scale.forward.graphs()[0]


def test_unhashable_constants_are_refused():
    f = ctorch.compile(lambda x, s: x)
    with pytest.raises(TypeError, match="neither a Tensor nor a hashable constant"):
        f(randn(2), {1, 2})


def test_disable_runs_the_function_as_is():
    calls = []
    f = ctorch.compile(lambda x: calls.append(1) or x + 1, disable=True)
    assert same(f(ctorch.zeros(2)), ctorch.ones(2)) and calls == [1] and f.graphs() == []


@pytest.mark.parametrize("kwargs, message", [
    ({"backend": "inductor"}, r'unknown backend "inductor". Known backends: "fused", "eager"'),
    ({"mode": "fastest"}, r'unknown mode "fastest". Known modes: "default", "reduce-overhead", "max-autotune"'),
    ({"mode": "max-autotune", "options": {"fusion": False}}, "mode \"max-autotune\" and options were both given"),
    ({"options": {"unroll": True}}, r'unknown option "unroll". Known options: "fusion", "cse", "dce"'),
    ({"options": {"fusion": "maybe"}}, "is not a boolean"),
    ({"options": {"cpp_kernels": "maybe"}}, '(or "auto")'),
    ({"options": {"cpp_kernels_hot_ms": -1}}, "milliseconds"),
    ({"recompile_limit": 0}, "recompile_limit 0 must be at least 1"),
])
def test_bad_options_raise_with_the_library_message(kwargs, message):
    with pytest.raises(ctorch.InvalidArgumentError, match=message) as info:
        ctorch.compile(chain, **kwargs)
    assert isinstance(info.value, ValueError) and isinstance(info.value, RuntimeError)


def test_dynamic_must_be_none_or_a_bool():
    with pytest.raises(TypeError, match="dynamic"):
        ctorch.compile(chain, dynamic="yes")


def test_options_and_modes_that_exist_are_accepted():
    x, y, z = randn(3, 4), randn(3, 4), randn(3, 4)
    for kwargs in ({"mode": "reduce-overhead"}, {"options": {"fusion": False, "cse": True}}):
        f = ctorch.compile(chain, **kwargs)
        assert same(f(x, y, z), chain(x, y, z))
    unfused = ctorch.compile(chain, options={"fusion": False})
    unfused(x, y, z)
    assert "fused[" not in unfused.graphs()[0] and "sigmoid(%x0)" in unfused.graphs()[0]


# ---------------------------------------------------------------------------------------------------
# Autograd, threads, memory

def test_gradients_through_a_compiled_function_equal_eager():
    def loss_fn(a, w):
        return ((a * w).sigmoid() * a).sum()

    f = ctorch.compile(loss_fn)
    a, w = randn(6, 5).requires_grad_(), randn(5).requires_grad_()
    loss = f(a, w)
    assert loss.requires_grad
    loss.backward()
    got = a.grad.clone(), w.grad.clone()
    a.grad = w.grad = None
    loss_fn(a, w).backward()
    assert same(got[0], a.grad) and same(got[1], w.grad)
    with ctorch.no_grad():  # an inference call gets its own (fused) entry
        assert not f(a, w).requires_grad


def grads_of(model, step):
    for p in model.parameters():
        p.grad = None
    ctorch.manual_seed(1)  # dropout draws the same mask compiled and eager
    step()
    return [p.grad.clone() for p in model.parameters()]


@pytest.mark.parametrize("which", ["mlp", "transformer block"])
def test_a_compiled_training_step_compiles_the_backward_and_matches_eager(which):
    nn = ctorch.nn
    ctorch.manual_seed(0)
    if which == "mlp":
        model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Dropout(0.25), nn.Linear(32, 32), nn.GELU(),
                              nn.Linear(32, 4))
        x, loss = randn(512, 16), lambda y: nn.functional.cross_entropy(y, ctorch.arange(512) % 4)
    else:
        model = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True)
        x, loss = randn(8, 16, 32), lambda y: (y * y).mean()
    compiled = ctorch.compile(model)
    want = grads_of(model, lambda: loss(model(x)).backward())
    got = grads_of(model, lambda: loss(compiled(x)).backward())
    assert compiled(x).grad_fn.name() == "CompiledFunctionBackward"
    graph = compiled.graphs()[0]
    assert graph.startswith("forward:") and "\nbackward:\n" in graph and "fused[" in graph.split("backward:")[1]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-5, atol=1e-6)
    # The same bits run to run. Not across thread counts: these models' matrix products are
    # deterministic for a fixed thread count only (OpenBLAS splits some products' sums by thread
    # on some CPUs), so another thread count agrees within rounding.
    assert all(same(a, b) for a, b in zip(got, grads_of(model, lambda: loss(compiled(x)).backward())))
    threads = ctorch.get_num_threads()
    try:
        ctorch.set_num_threads(1 if threads > 1 else 2)
        other = grads_of(model, lambda: loss(compiled(x)).backward())
    finally:
        ctorch.set_num_threads(threads)
    for a, b in zip(got, other):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)


def test_a_compiled_backward_handles_what_eager_autograd_does():
    def two_outputs(a, b):
        y = (a * b).tanh()
        return y * 2, y.sum(-1), y.argmax(-1)

    f = ctorch.compile(two_outputs)
    a, b, unused = randn(4, 3).requires_grad_(), randn(3).requires_grad_(), randn(2).requires_grad_()
    for pick in (0, 1):  # the other output gets no gradient: its tangent is zeros
        got = ctorch.autograd.grad(f(a, b)[pick].sum(), (a, b))
        want = ctorch.autograd.grad(two_outputs(a, b)[pick].sum(), (a, b))
        assert all(np.allclose(g.numpy(), w.numpy(), rtol=1e-6, atol=1e-7) for g, w in zip(got, want))
    y, s, idx = f(a, b)
    assert idx.grad_fn is None and not idx.requires_grad
    # A hook on an output, retain_graph, and the second backward that finds the saved values gone.
    seen = []
    y.register_hook(lambda g: seen.append(g.shape))
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    assert seen == [(4, 3), (4, 3)]
    with pytest.raises(Exception, match="second time"):
        y.sum().backward()
    with pytest.raises(NotImplementedError, match="create_graph"):
        ctorch.autograd.grad(f(a, b)[1].sum(), a, create_graph=True)
    # A saved input changed in place since the forward is reported, as eager autograd does.
    y = f(a, b)[1].sum()
    with ctorch.no_grad():
        a.mul_(2)
    with pytest.raises(Exception, match="CompiledFunctionBackward.*modified by an in-place operation"):
        y.backward()
    # An input that requires grad but that no output reads gets none.
    g = ctorch.compile(lambda a, u: a * 3)
    assert ctorch.autograd.grad(g(a, unused).sum(), (a, unused), allow_unused=True)[1] is None


def test_a_compiled_backward_recomputes_pointwise_values_and_reads_broadcasts():
    def rms_norm(x, w):
        return x * (x * x).mean(-1, keepdim=True).add(1e-6).rsqrt() * w

    f = ctorch.compile(rms_norm)
    x, w, go = randn(16, 32).requires_grad_(), randn(32).requires_grad_(), randn(16, 32)
    got = ctorch.autograd.grad(f(x, w), (x, w), go)
    want = ctorch.autograd.grad(rms_norm(x, w), (x, w), go)
    for g, e in zip(got, want):
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-5, atol=1e-6)
    backward = f.graphs()[0].split("backward:\n")[1]
    # x * rsqrt(...) is recomputed from x and the [16, 1] rsqrt: the only full-size values the
    # backward reads are the input and the tangent. The mean's gradient is read as a broadcast.
    assert backward.count("f32[16, 32] = placeholder") == 2 and "f32[16, 1] = placeholder" in backward
    assert "expand" not in backward


def test_a_dynamic_entry_compiles_its_backward_for_each_size_it_runs_at():
    w = randn(8).requires_grad_()

    def gate(x):
        return ((x * w).sigmoid() * x).sum()

    f = ctorch.compile(gate, dynamic=True, recompile_limit=2)
    for n in (3, 5, 3, 7):  # 7 is past the limit of two sizes: it replays through autograd
        x = randn(n, 8).requires_grad_()
        y = f(x)
        assert y.grad_fn.name() == ("CompiledFunctionBackward" if n != 7 else "SumBackward")
        got = ctorch.autograd.grad(y, (x, w))
        want = ctorch.autograd.grad(gate(x), (x, w))
        assert all(same(g, e) for g, e in zip(got, want))
    assert len(f.graphs()) == 1 and "s0" in f.graphs()[0]
    assert f.graphs()[0].splitlines()[-1] == "# backward compiled for each size it runs at: 2 of 2 sizes so far"


def test_a_forward_that_writes_in_place_keeps_the_eager_backward():
    def inplace(a):
        h = a * 2
        h.add_(1)
        return (h * a).sum()

    f = ctorch.compile(inplace)
    a = randn(5).requires_grad_()
    (got,) = ctorch.autograd.grad(f(a), a)
    (want,) = ctorch.autograd.grad(inplace(a), a)
    assert same(got, want)
    why = f.graphs()[0].splitlines()[-1]
    assert why.startswith("# backward runs eagerly: ") and "add_.Scalar: writes in place" in why


def test_freezing_a_captured_parameter_recompiles():
    w = randn(3).requires_grad_()
    f = ctorch.compile(lambda x: (x * w).sigmoid().sum())
    x = randn(2, 3).requires_grad_()
    f(x).backward()
    assert w.grad is not None
    w.grad = None
    w.requires_grad_(False)
    f(x).backward()
    assert w.grad is None and len(f.graphs()) == 2


def test_calls_from_several_threads():
    f = ctorch.compile(lambda a, b: (a * b).sin() + 1)
    failures = []

    def work():
        for i in range(30):
            a, b = randn(4 + i % 3, 4), randn(4 + i % 3, 4)
            if not same(f(a, b), (a * b).sin() + 1):
                failures.append(i)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures and f.metrics()["calls"] == 120


def test_compiled_functions_leave_no_tensors_behind():
    w = randn(16)
    gc.collect()
    before = ctorch.metric("tensors.live")
    f = ctorch.compile(lambda x: (x * w).relu().sum(-1))
    trained = ctorch.compile(lambda x: (x * w).relu().sum())
    g = ctorch.compile(lambda x: x * x.sum().item(), name="leak_check_breaks")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(20):
            f(randn(2 + i % 4, 16))
            g(randn(3))
            w.requires_grad_(i % 2 == 0)
            trained(randn(4, 16)).backward() if i % 2 == 0 else trained(randn(4, 16))
    w.requires_grad_(False)
    w.grad = None
    del f, g, trained
    gc.collect()
    assert ctorch.metric("tensors.live") == before


# ---------------------------------------------------------------------------------------------------
# ctorch.export

def exported_chain(low=1, high=1024):
    batch = Dim("batch", min=low, max=high)
    return export(chain, (randn(4, 8), randn(4, 8), randn(4, 8)),
                  dynamic_shapes=({0: batch}, {0: batch}, {0: batch}))


def test_a_program_runs_every_batch_in_range_and_survives_save_and_load(tmp_path):
    ep = exported_chain()
    path = tmp_path / "chain.ctprog"
    ep.save(path)
    buf = io.BytesIO()
    ctorch.export.save(ep, buf)
    programs = [ep, ctorch.export.load(path), ctorch.export.load(str(path)),
                ctorch.export.load(io.BytesIO(buf.getvalue())), pickle.loads(pickle.dumps(ep))]
    for batch in (1, 2, 9, 1024):
        x, y, z = randn(batch, 8), randn(batch, 8), randn(batch, 8)
        for p in programs:
            assert same(p(x, y, z), chain(x, y, z))
    assert str(programs[1].graph) == str(ep.graph)
    assert not list(tmp_path.glob("*.tmp"))


def test_a_program_refuses_sizes_outside_its_range_and_wrong_static_sizes():
    ep = exported_chain(high=16)
    with pytest.raises(ctorch.ShapeError, match=r"input 0 dim 0 is 17, outside the range of batch: \[1, 16\]"):
        ep(randn(17, 8), randn(17, 8), randn(17, 8))
    with pytest.raises(ctorch.ShapeError, match="dim 1 must be 8 .it is static in the program"):
        ep(randn(4, 9), randn(4, 9), randn(4, 9))
    with pytest.raises(ctorch.ShapeError, match="must equal batch"):
        ep(randn(4, 8), randn(5, 8), randn(4, 8))
    with pytest.raises(ctorch.DTypeError):
        ep(randn(4, 8).double(), randn(4, 8), randn(4, 8))
    with pytest.raises(ctorch.InvalidArgumentError, match="inputs given; the program takes 3"):
        ep(randn(4, 8), randn(4, 8))


def test_program_graph_signature_and_ranges():
    ep = exported_chain(high=64)
    text = str(ep.graph)
    assert text.startswith("graph(x0, x1, x2):") and "f32[batch, 8] = placeholder[0]" in text
    assert repr(ep).startswith("ExportedProgram(3 inputs, 1 outputs):")
    sig = ep.signature
    assert sig == ep.json()
    spec = {"dtype": "float32", "device": "cpu", "sizes": ["batch", 8]}
    assert sig["inputs"][0] == spec and sig["outputs"] == [spec]
    assert ep.range_constraints == {"batch": (1, 64)}
    assert ep.num_inputs == 3 and ep.num_outputs == 1 and ep.module() is ep
    with pytest.raises(TypeError):
        ExportedProgram()


def test_dynamic_shapes_by_parameter_name_and_keyword_arguments():
    def f(x, y, *, z):
        return x + y * z

    b = Dim("b")
    x = randn(4, 3)
    by_name = export(f, (x, x), {"z": x}, dynamic_shapes={"x": {0: b}, "y": [b, None], "z": {0: b}})
    by_position = export(f, (x, x), {"z": x}, dynamic_shapes=({0: b}, {0: b}, {0: b}))
    for ep in (by_name, by_position):
        assert [i["sizes"] for i in ep.signature["inputs"]] == [["b", 3]] * 3
        a, c, d = randn(6, 3), randn(6, 3), randn(6, 3)
        assert same(ep(a, c, z=d), f(a, c, z=d)) and same(ep(a, c, d), f(a, c, z=d))
    with pytest.raises(ValueError, match="not parameters of fn"):
        export(f, (x, x), {"z": x}, dynamic_shapes={"w": None})
    with pytest.raises(ValueError, match="one entry"):
        export(f, (x, x), {"z": x}, dynamic_shapes=({0: b},))
    with pytest.raises(TypeError, match="must be a Dim or None"):
        export(f, (x, x), {"z": x}, dynamic_shapes=({0: 8}, None, None))


def test_non_tensor_arguments_of_an_export_are_constants():
    ep = export(lambda x, n, how="mul": x * n if how == "mul" else x + n, (randn(3), 4), {"how": "add"})
    x = randn(3)
    assert same(ep(x, 4, how="add"), x + 4) and same(ep(x), x + 4)
    with pytest.raises(ValueError, match="constants of the program"):
        ep(x, 5, how="add")
    loaded = ctorch.export.load(io.BytesIO(_bytes(ep)))
    with pytest.raises(TypeError, match="loaded program takes its 1 tensor input"):
        loaded(x, 4)


def _bytes(ep):
    buf = io.BytesIO()
    ep.save(buf)
    return buf.getvalue()


def test_a_program_returns_a_tensor_for_one_output_and_a_tuple_otherwise():
    one = export(lambda x: [x * 2], (randn(3),))
    three = export(lambda x: {"a": x, "b": x * 2, "c": x.sum()}, (randn(3),))
    x = randn(3)
    for p in (one, ctorch.export.load(io.BytesIO(_bytes(one)))):
        assert same(p(x), x * 2)
    for p in (three, ctorch.export.load(io.BytesIO(_bytes(three)))):
        out = p(x)
        assert type(out) is tuple and len(out) == 3 and same(out[2], x.sum())


def test_export_errors():
    with pytest.raises(ctorch.GuardError, match='dynamic dim "b" was specialized to 8'):
        export(lambda x: x.reshape(8, 3), (randn(8, 3),), dynamic_shapes=({0: Dim("b")},))
    with pytest.raises(ctorch.InvalidArgumentError, match=r'has range \[10, 20\] but input 0 dim 0 is 8'):
        export(lambda x: x, (randn(8, 3),), dynamic_shapes=({0: Dim("b", min=10, max=20)},))
    with pytest.raises(ctorch.InvalidArgumentError, match=r"need 0 <= min <= max"):
        export(lambda x: x, (randn(8, 3),), dynamic_shapes=({0: Dim("b", min=10, max=2)},))
    with pytest.raises(ctorch.GraphBreakError, match="reads the data of a traced tensor"):
        export(lambda x: x + x.sum().tolist(), (randn(8, 3),))
    with pytest.raises(ctorch.GraphBreakError, match="reads the data of a traced tensor"):
        export(lambda x: x + float(x.sum()), (randn(8, 3),))
    with pytest.raises(ZeroDivisionError):
        export(lambda x: 1 / 0, (randn(2),))


def test_loading_a_missing_or_malformed_file_raises(tmp_path):
    with pytest.raises(ctorch.FileError, match="cannot open") as info:
        ctorch.export.load(tmp_path / "missing.ctprog")
    assert isinstance(info.value, OSError)
    with pytest.raises(ctorch.FormatError, match="header magic") as info:
        ctorch.export.load(io.BytesIO(b"not a program"))
    assert isinstance(info.value, ValueError)
    with pytest.raises(ctorch.FormatError):
        ctorch.export.load(io.BytesIO(_bytes(exported_chain())[:-7]))


def test_a_program_path_that_is_no_regular_file_is_a_file_error(tmp_path):
    fifo = tmp_path / "fifo.ctprog"
    os.mkfifo(fifo)
    for path in (fifo, tmp_path, "/dev/zero"):  # a FIFO once blocked forever, /dev/zero grew without end
        with pytest.raises(ctorch.FileError, match="only regular files are read"):
            ctorch.export.load(path)


def test_program_strings_that_are_not_utf8_are_format_errors_not_decode_errors():
    data = bytearray(_bytes(exported_chain()))
    at = data.find(b"mul")
    assert at >= 0
    data[at] = 0xFF
    with pytest.raises(ctorch.FormatError, match="not valid UTF-8"):
        ctorch.export.load(io.BytesIO(bytes(data)))


# ---------------------------------------------------------------------------------------------------
# topk with a dynamic k, both ways

SCORES = [0.5, 3.0, -1.0, 7.0, 2.0, 4.0, 1.0, 9.0, -3.0, 5.0]


def check_topk(program, k_of, low, high):
    x = ctorch.tensor(SCORES)
    for k in (low, 3, high):
        values, indices = program(x, k_of(k))
        want = torch.topk(torch.tensor(SCORES), k)
        assert values.tolist() == want.values.tolist() and indices.tolist() == want.indices.tolist()


def test_topk_with_k_from_the_size_of_a_meta_input(tmp_path):
    def f(x, k):
        return ctorch.topk(x, k.shape[0])

    ep = export(f, (ctorch.tensor(SCORES), ctorch.empty(5, device="meta")),
                dynamic_shapes=(None, {0: Dim("k", min=1, max=50)}))
    assert "topk(%x0, k" in str(ep.graph)
    assert ep.signature["inputs"][1] == {"dtype": "float32", "device": "meta", "sizes": ["k"]}
    ep.save(tmp_path / "topk.ctprog")
    meta = lambda k: ctorch.empty(k, device="meta")  # noqa: E731
    for p in (ep, ctorch.export.load(tmp_path / "topk.ctprog")):
        check_topk(p, meta, 1, 10)
        with pytest.raises((ctorch.ShapeError, ctorch.GuardError), match="k"):
            p(ctorch.tensor(SCORES), meta(11))  # topk needs k <= 10: a guard of the export


def test_topk_with_k_from_item(tmp_path):
    def f(x, k):
        return ctorch.topk(x, k.item())

    ep = export(f, (ctorch.tensor(SCORES), ctorch.tensor(5)))
    text = str(ep.graph)
    assert "item(%x1) -> u0" in text and "topk(%x0, u0" in text
    assert ep.signature["env"]["runtime_asserts"]
    ep.save(tmp_path / "topk_item.ctprog")
    for p in (ep, ctorch.export.load(tmp_path / "topk_item.ctprog")):
        check_topk(p, ctorch.tensor, 0, 10)
        with pytest.raises(ctorch.GuardError, match="u0 = 11"):
            p(ctorch.tensor(SCORES), ctorch.tensor(11))


def test_item_under_compile_is_a_graph_break_not_a_symbol():
    f = ctorch.compile(lambda x, k: ctorch.topk(x, k.item()), fullgraph=True)
    with pytest.raises(ctorch.GraphBreakError):
        f(ctorch.tensor(SCORES), ctorch.tensor(3))
    g = ctorch.compile(lambda x, k: ctorch.topk(x, k.item()), name="topk_item_breaks")
    with pytest.warns(UserWarning, match=r"topk_item_breaks\): graph break"):
        for k in (2, 3, 2):
            assert g(ctorch.tensor(SCORES), ctorch.tensor(k)).values.tolist() == sorted(SCORES)[::-1][:k]


# ---------------------------------------------------------------------------------------------------
# Stubs and docs

def test_the_export_stub_matches_the_module():
    stub = os.path.join(os.path.dirname(ctorch.__file__), "export.pyi")
    tree = ast.parse(open(stub).read())
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.ImportFrom) and node.module is None:  # from . import ...
            names.update(a.asname or a.name for a in node.names)
    assert not sorted(set(ctorch.export.__all__) - names)
    assert not sorted(n for n in names if not n.startswith("_") and not hasattr(ctorch.export, n) and n != "Tensor")


DOCS = os.path.join(os.path.dirname(__file__), "..", "..", "..", "docs", "python.md")


@pytest.mark.skipif(not os.path.exists(DOCS), reason="needs the source tree's docs/python.md")
def test_the_compilation_examples_in_the_docs_run(capsys):
    section = open(DOCS).read().split("\n## Compilation and export\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 2
    for block in blocks:
        exec(compile(block, DOCS, "exec"), {"__name__": "docs_example"})
    out = capsys.readouterr().out
    assert out.startswith("1\n") and "fused[" in out and "tensor([4., 4., 4.])" in out
    assert "f32[batch, 8] = placeholder[0]" in out and "\nTrue\n" in out and "dim 1 must be 8" in out
    assert out.rstrip().endswith("tensor([7., 4., 3.]) tensor([7., 4., 3.])")
