"""The runtime switches from Python, with torch's names and behavior: deterministic algorithms,
default dtype, default device and device contexts (per thread), float32 matmul precision."""

import threading

import numpy as np

import pytest

ctorch = pytest.importorskip("ctorch")
torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def restore_switches():
    yield
    ctorch.use_deterministic_algorithms(False)
    ctorch.set_default_dtype(ctorch.float32)
    ctorch.set_default_device(None)
    ctorch.set_float32_matmul_precision("highest")


def test_deterministic_switch_getters_agree():
    for mode, warn_only, debug in [(True, False, 2), (True, True, 1), (False, False, 0)]:
        ctorch.use_deterministic_algorithms(mode, warn_only=warn_only)
        assert ctorch.are_deterministic_algorithms_enabled() is mode
        assert ctorch.is_deterministic_algorithms_warn_only_enabled() is (mode and warn_only)
        assert ctorch.get_deterministic_debug_mode() == debug
    for name, value in [("default", 0), ("warn", 1), ("error", 2), (1, 1)]:
        ctorch.set_deterministic_debug_mode(name)
        torch.set_deterministic_debug_mode(name)
        assert ctorch.get_deterministic_debug_mode() == torch.get_deterministic_debug_mode() == value
        assert ctorch.are_deterministic_algorithms_enabled() == torch.are_deterministic_algorithms_enabled()
    torch.set_deterministic_debug_mode(0)
    with pytest.raises(RuntimeError):
        ctorch.set_deterministic_debug_mode("loud")
    with pytest.raises(ctorch.Error):
        ctorch.set_deterministic_debug_mode(5)


def test_empty_is_filled_while_deterministic():
    ctorch.use_deterministic_algorithms(True)
    f = ctorch.empty(3).tolist()
    assert all(v != v for v in f)  # NaN
    assert ctorch.empty(2, dtype=ctorch.int16).tolist() == [32767, 32767]
    assert ctorch.empty_like(ctorch.ones(2, dtype=ctorch.uint8)).tolist() == [255, 255]


def test_default_dtype_like_torch():
    for d in ("float64", "float32"):
        ctorch.set_default_dtype(getattr(ctorch, d))
        torch.set_default_dtype(getattr(torch, d))
        try:
            assert ctorch.get_default_dtype().name == d
            for fn in (lambda m: m.zeros(2), lambda m: m.tensor([1.5]), lambda m: m.arange(3) + 0.5,
                       lambda m: m.arange(0.0, 1.0, 0.5), lambda m: m.rand(2), lambda m: m.tensor([1, 2]) / 2,
                       lambda m: m.tensor([1, 2]).exp(), lambda m: m.full((2,), 1.0)):
                assert fn(ctorch).dtype.name == str(fn(torch).dtype).replace("torch.", "")
        finally:
            torch.set_default_dtype(torch.float32)
    with pytest.raises(ctorch.Error):
        ctorch.set_default_dtype(ctorch.int32)
    with pytest.raises(TypeError):
        ctorch.set_default_dtype("float64")


def test_device_context_and_default_device():
    assert ctorch.get_default_device() == ctorch.device("cpu")
    with ctorch.device("meta"):
        assert ctorch.zeros(2).device == ctorch.device("meta")
        assert ctorch.randn(2, 2).device == ctorch.device("meta")
        assert ctorch.ones(2, device="cpu").device == ctorch.device("cpu")
        assert ctorch.get_default_device() == ctorch.device("meta")
        with ctorch.device("cpu"):
            assert ctorch.arange(3).device == ctorch.device("cpu")
    assert ctorch.zeros(2).device == ctorch.device("cpu")
    ctorch.set_default_device("meta")
    assert ctorch.eye(2).device == ctorch.device("meta")
    with ctorch.device("cpu"):  # a context wins over the default
        assert ctorch.eye(2).device == ctorch.device("cpu")
    ctorch.set_default_device(None)
    assert ctorch.eye(2).device == ctorch.device("cpu")


def test_default_device_is_per_thread():
    seen = {}
    barrier = threading.Barrier(3)

    def work(name, dev):
        ctorch.set_default_device(dev)
        barrier.wait()  # every thread has set its own before any of them creates
        seen[name] = (str(ctorch.zeros(1).device), str(ctorch.get_default_device()))

    threads = [threading.Thread(target=work, args=(n, d)) for n, d in (("a", "meta"), ("b", "cpu"), ("c", "meta"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == {"a": ("meta", "meta"), "b": ("cpu", "cpu"), "c": ("meta", "meta")}
    assert ctorch.get_default_device() == ctorch.device("cpu")


def test_matmul_precision_like_torch():
    assert ctorch.get_float32_matmul_precision() == torch.get_float32_matmul_precision() == "highest"
    for p in ("high", "medium", "highest"):
        ctorch.set_float32_matmul_precision(p)
        assert ctorch.get_float32_matmul_precision() == p
    with pytest.raises(ctorch.Error, match="highest"):
        ctorch.set_float32_matmul_precision("fast")


def _printed(lib, t, **opts):
    lib.set_printoptions(**opts)
    try:
        return repr(t)
    finally:
        lib.set_printoptions(profile="default")


@pytest.mark.parametrize("opts", [dict(precision=2), dict(precision=6, sci_mode=True), dict(sci_mode=False),
                                  dict(linewidth=40), dict(threshold=10, edgeitems=2), dict(profile="short"),
                                  dict(profile="full")],
                         ids=["precision", "sci", "no-sci", "linewidth", "threshold", "short", "full"])
def test_set_printoptions_prints_as_torch(opts):
    import torch
    values = np.linspace(-3, 1e-3, 24).reshape(4, 6)
    for v in (values.astype(np.float32), np.arange(1200.0, dtype=np.float32)):
        got = _printed(ctorch, ctorch.tensor(v), **opts)
        want = _printed(torch, torch.tensor(v, dtype=torch.float32), **opts)
        assert got == want.replace("torch.", "")
    assert ctorch._runtime.get_printoptions() == {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80,
                                         "sci_mode": None}
    with pytest.raises(ValueError, match="profile"):
        ctorch.set_printoptions(profile="long")


def test_anomaly_detection_names_the_node_that_made_nan():
    a = ctorch.tensor([0.0, 1.0], requires_grad=True)
    assert not ctorch.is_anomaly_enabled()
    with ctorch.autograd.detect_anomaly():
        assert ctorch.is_anomaly_enabled() and ctorch.is_anomaly_check_nan_enabled()
        with pytest.raises(RuntimeError, match="DivBackward.* returned nan values in its 1th output"):
            (a / a).sum().backward()
        (a * 2).sum().backward()  # no NaN: runs
    assert not ctorch.is_anomaly_enabled()
    (a / a).sum().backward()  # off again: NaN gradients pass, as in torch
    assert np.isnan(a.grad.numpy()[0])
    ctorch.set_anomaly_enabled(True, check_nan=False)
    try:
        assert ctorch.is_anomaly_enabled() and not ctorch.is_anomaly_check_nan_enabled()
        (a / a).sum().backward()
    finally:
        ctorch.set_anomaly_enabled(False)

    @ctorch.autograd.set_detect_anomaly(True)
    def run():
        (a / a).sum().backward()
    assert not ctorch.is_anomaly_enabled()
    with pytest.raises(RuntimeError, match="nan"):
        run()
    assert not ctorch.is_anomaly_enabled()


def test_flush_denormal_warn_always_dlpack_and_is_distributed():
    tiny = ctorch.tensor([1e-39, 1.0])
    assert ctorch.set_flush_denormal(True)
    try:
        assert (tiny * 1).numpy()[0] == 0
        big = ctorch.full((1 << 20,), 1e-39)
        assert not (big * 1).numpy().any()  # the worker threads flush too
    finally:
        ctorch.set_flush_denormal(False)
    assert (tiny * 1).numpy()[0] > 0
    ctorch.set_warn_always(True)
    assert ctorch.is_warn_always_enabled()
    ctorch.set_warn_always(False)
    assert not ctorch.is_warn_always_enabled()
    back = ctorch.from_dlpack(ctorch.to_dlpack(tiny))
    assert np.array_equal(back.numpy(), tiny.numpy())
    assert ctorch.is_distributed(tiny) is False
