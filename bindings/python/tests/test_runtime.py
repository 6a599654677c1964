"""The runtime switches from Python, with torch's names and behavior: deterministic algorithms,
default dtype, default device and device contexts (per thread), float32 matmul precision."""

import threading

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
