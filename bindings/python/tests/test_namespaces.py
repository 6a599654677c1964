"""The namespaces a CPU program touches on its way (torch.backends, torch.jit, torch.onnx, torch.amp,
torch.cuda's seeding and amp, torch.nn.parallel): each answers as torch 1.13 does on this machine
(no GPU), or does the job, or raises saying it cannot."""

import warnings

import numpy as np
import pytest

ctorch = pytest.importorskip("ctorch")
torch = pytest.importorskip("torch")


def test_backends_answer_as_on_a_machine_without_them():
    assert ctorch.backends.cudnn.is_available() is False and ctorch.backends.cudnn.version() is None
    assert ctorch.backends.mps.is_available() is False and ctorch.backends.mps.is_built() is False
    assert ctorch.backends.mkldnn.is_available() is False
    assert ctorch.backends.openmp.is_available() is True
    for flag in ("enabled", "benchmark", "deterministic", "allow_tf32"):
        assert getattr(ctorch.backends.cudnn, flag) == getattr(torch.backends.cudnn, flag)
    ctorch.backends.cudnn.benchmark = True  # kept, selects nothing
    assert ctorch.backends.cudnn.benchmark is True
    ctorch.backends.cudnn.benchmark = False


def test_allow_tf32_is_the_matmul_precision():
    assert ctorch.backends.cuda.matmul.allow_tf32 is False
    try:
        ctorch.backends.cuda.matmul.allow_tf32 = True
        assert ctorch.get_float32_matmul_precision() == "high"
        ctorch.set_float32_matmul_precision("highest")
        assert ctorch.backends.cuda.matmul.allow_tf32 is False
    finally:
        ctorch.set_float32_matmul_precision("highest")


def test_jit_markers_and_refusals():
    assert ctorch.jit.is_scripting() is torch.jit.is_scripting() is False
    assert ctorch.jit.is_tracing() is False

    @ctorch.jit.ignore
    def f(x):
        return x + 1

    @ctorch.jit.unused
    def g(x):
        return x * 2

    @ctorch.jit.ignore(drop=True)
    def h(x):
        return x - 1

    assert (f(1), g(1), h(1)) == (2, 2, 0)
    assert ctorch.jit.annotate(int, 3) == 3
    x: ctorch.jit.Final[int] = 1  # noqa: F841
    for fn in (ctorch.jit.script, ctorch.jit.trace):
        with pytest.raises(NotImplementedError, match="ctorch.compile"):
            fn(f)


def test_onnx_is_present_and_says_what_it_cannot_do():
    assert ctorch.onnx.is_in_onnx_export() is False
    with pytest.raises(NotImplementedError, match="ctorch.export"):
        ctorch.onnx.export(ctorch.nn.Linear(2, 2), (ctorch.ones(1, 2),), "model.onnx")


def test_cuda_seeding_and_queries_without_a_device():
    if ctorch.cuda.is_available():
        pytest.skip("checks the answers of a machine without CUDA")
    ctorch.cuda.manual_seed(1)  # silently nothing, as torch's
    ctorch.cuda.manual_seed_all(1)
    torch.cuda.manual_seed_all(1)
    with pytest.raises(RuntimeError):
        ctorch.cuda.current_device()


def test_cuda_autocast_and_grad_scaler_disable_themselves_without_cuda():
    if ctorch.cuda.is_available():
        pytest.skip("checks the answers of a machine without CUDA")
    messages = {}
    for m in (ctorch, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with m.cuda.amp.autocast():
                y = m.ones(2) * 2
            with m.autocast(device_type="cuda", dtype=m.float16):
                pass
            scaler = m.cuda.amp.GradScaler()
        messages[m.__name__] = ([str(w.message) for w in caught if "CUDA is not available" in str(w.message)],
                                scaler.is_enabled(), y.tolist())
    assert messages["ctorch"][1:] == messages["torch"][1:]
    assert len(messages["ctorch"][0]) == len(messages["torch"][0]) >= 2


def test_disabled_autocast_and_scaler_pass_through():
    with ctorch.autocast("cpu", enabled=False):
        assert (ctorch.ones(2) + 1).dtype is ctorch.float32

    @ctorch.autocast("cpu", enabled=False)
    def f(x):
        return x * 3

    assert f(ctorch.ones(1)).tolist() == [3.0]
    scaler = ctorch.amp.GradScaler("cpu", enabled=False)
    p = ctorch.nn.Parameter(ctorch.ones(2))
    opt = ctorch.optim.SGD([p], lr=0.5)
    loss = scaler.scale((p * 2).sum())
    loss.backward()
    scaler.step(opt)
    scaler.update()
    assert p.tolist() == [0.0, 0.0] and scaler.get_scale() == 1.0 and scaler.state_dict() == {}


def _autocast_step(m, data, dtype):
    """A linear layer, a promoted add, a pointwise op, an mse loss and a float64 product inside a cpu
    autocast region, then backward outside it: dtypes, loss and gradients."""
    x = m.tensor(data["x"], requires_grad=True)
    w = m.tensor(data["w"], requires_grad=True)
    conv_w = m.tensor(data["conv_w"], requires_grad=True)
    with m.autocast("cpu", dtype=dtype):
        y = m.nn.functional.linear(x, w, m.tensor(data["b"]))
        shifted = y + m.tensor(data["b"])        # bfloat16 + float32 promotes to float32
        conv = m.nn.functional.conv2d(x.reshape(1, 1, 4, 8), conv_w)
        loss = m.nn.functional.mse_loss(y, m.tensor(data["t"])) + conv.float().square().mean()
        f64 = m.mm(x.double(), w.double().T)     # float64 is never cast
        nested = None
        with m.autocast("cpu", enabled=False):
            nested = m.mm(x, w.T).dtype             # a disabled region inside runs as called
        inside = (m.is_autocast_cpu_enabled(), m.get_autocast_cpu_dtype())
    loss.backward()
    dtypes = [str(t.dtype).split(".")[-1] for t in (y, shifted, conv, loss, f64)] + [str(nested).split(".")[-1]]
    return dtypes, inside[0], str(inside[1]).split(".")[-1], loss.item(), x.grad, w.grad, conv_w.grad, \
        m.is_autocast_cpu_enabled()


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_cpu_autocast_casts_as_torch_does(dtype):
    rng = np.random.default_rng(1)
    data = {"x": rng.standard_normal((4, 8)).astype(np.float32), "w": rng.standard_normal((3, 8)).astype(np.float32),
            "b": rng.standard_normal(3).astype(np.float32), "t": rng.standard_normal((4, 3)).astype(np.float32),
            "conv_w": rng.standard_normal((2, 1, 3, 3)).astype(np.float32)}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = _autocast_step(torch, data, getattr(torch, dtype))
    except RuntimeError as e:  # torch 1.13's cpu autocast takes bfloat16 only
        pytest.skip(f"this torch's cpu autocast does not take {dtype}: {e}")
    if not ref[1]:
        pytest.skip(f"this torch's cpu autocast does not take {dtype}")
    got = _autocast_step(ctorch, data, getattr(ctorch, dtype))
    assert got[:3] == ref[:3] and got[7] is ref[7] is False
    assert got[3] == pytest.approx(ref[3], rel=2e-2)
    for g, r in zip(got[4:7], ref[4:7]):
        assert str(g.dtype).split(".")[-1] == str(r.dtype).split(".")[-1] == "float32"
        np.testing.assert_allclose(g.numpy(), r.numpy(), rtol=5e-2, atol=5e-2)


def test_autocast_state_is_per_thread_and_restored():
    import threading

    seen = []
    with ctorch.autocast("cpu"):
        t = threading.Thread(target=lambda: seen.append(ctorch.is_autocast_cpu_enabled()))
        t.start()
        t.join()
        assert ctorch.is_autocast_cpu_enabled() and ctorch.autocast_increment_nesting() == 2
        assert ctorch.autocast_decrement_nesting() == 1
    assert seen == [False] and not ctorch.is_autocast_cpu_enabled()
    ctorch.set_autocast_cpu_dtype(ctorch.float16)
    assert ctorch.get_autocast_cpu_dtype() is ctorch.float16
    ctorch.set_autocast_cpu_dtype(ctorch.bfloat16)
    with pytest.raises(ctorch.DTypeError):
        ctorch.set_autocast_cpu_dtype(ctorch.float32)
    with pytest.raises(RuntimeError, match="unsupported autocast device_type"):
        ctorch.autocast("tpu")
    with pytest.warns(UserWarning, match="target dtype is not supported"):
        region = ctorch.autocast("cpu", dtype=ctorch.float64)
    with region:
        assert not ctorch.is_autocast_cpu_enabled()


def test_grad_scaler_scales_skips_non_finite_steps_and_adapts():
    scaler = ctorch.amp.GradScaler("cpu", init_scale=8.0, growth_factor=2.0, backoff_factor=0.25, growth_interval=2)
    p = ctorch.nn.Parameter(ctorch.tensor([1.0, 2.0]))
    opt = ctorch.optim.SGD([p], lr=0.1)
    history = []
    for step in range(5):
        opt.zero_grad()
        loss = scaler.scale((p * p).sum())
        assert loss.item() == pytest.approx(scaler.get_scale() * float((p * p).sum()))
        loss.backward()
        if step == 2:
            p.grad.fill_(float("nan"))  # this step must be skipped
        scaler.unscale_(opt)
        if step != 2:
            assert p.grad.tolist() == pytest.approx([2 * v for v in p.tolist()])  # the true gradient
        before = p.tolist()
        scaler.step(opt)
        scaler.update()
        history.append((step, scaler.get_scale(), p.tolist() == before))
    # scale: 8 -> 8 (1 clean) -> 16 (2 clean) -> 4 (nan: backoff, skipped) -> 4 -> 8
    assert history == [(0, 8.0, False), (1, 16.0, False), (2, 4.0, True), (3, 4.0, False), (4, 8.0, False)]
    with pytest.raises(RuntimeError, match="already been called"):
        scaler.unscale_(opt)
        scaler.unscale_(opt)
    state = scaler.state_dict()
    other = ctorch.amp.GradScaler("cpu")
    other.load_state_dict(state)
    assert other.get_scale() == scaler.get_scale() and other.state_dict() == state


def test_data_parallel_on_one_device_runs_the_module():
    lin = ctorch.nn.Linear(3, 2)
    dp = ctorch.nn.DataParallel(lin)
    x = ctorch.tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert dp(x).tolist() == lin(x).tolist() and dp.module is lin
    assert list(dict(dp.named_parameters())) == ["module.weight", "module.bias"]
    assert list(dp.state_dict()) == list(torch.nn.DataParallel(torch.nn.Linear(3, 2)).state_dict())
    with pytest.raises(NotImplementedError):
        ctorch.nn.DataParallel(lin, device_ids=[0, 1])
    with pytest.raises(RuntimeError, match="process group"):
        ctorch.nn.parallel.DistributedDataParallel(lin)
