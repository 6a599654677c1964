"""Devices: Tensor.to / cpu / cuda, device names, and a plugin device (the counting device of
examples/plugin, loaded in a subprocess through CTORCH_BACKEND_PATH)."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

ctorch = pytest.importorskip("ctorch")

COUNTING_DIR = os.environ.get("CTORCH_TEST_COUNTING_DIR", "")
needs_counting = pytest.mark.skipif(not os.path.isdir(COUNTING_DIR),
                                    reason="CTORCH_TEST_COUNTING_DIR (examples/plugin/plugins in the build tree) is not set")


def test_to_the_same_device_is_the_tensor_itself():
    x = ctorch.tensor([1.0, 2.0])
    assert x.to("cpu") is x
    assert x.cpu() is x
    assert x.to(ctorch.device("cpu"), ctorch.float32) is x
    y = x.to("cpu", copy=True)
    assert y is not x and y.tolist() == [1.0, 2.0]


def test_to_takes_torch_forms():
    x = ctorch.tensor([1.5, 2.5])
    assert x.to(ctorch.float64).dtype is ctorch.float64
    assert x.to(dtype=ctorch.int32).tolist() == [1, 2]
    assert x.to("cpu", ctorch.float64).dtype is ctorch.float64
    other = ctorch.tensor([1], dtype=ctorch.int64)
    assert x.to(other).dtype is ctorch.int64
    m = x.to("meta")
    assert m.device == "meta" and m.shape == (2,) and m.dtype is ctorch.float32


def test_meta_tensor_has_nothing_to_move():
    with pytest.raises(ctorch.DeviceError, match="has no data"):
        ctorch.empty(2, device="meta").to("cpu")


@pytest.mark.skipif(ctorch.cuda.is_available(), reason="a CUDA device exists")
def test_cuda_without_a_device_is_a_device_error_saying_why():
    assert ctorch.cuda.device_count() == 0
    with pytest.raises(ctorch.DeviceError, match="no cuda device is available: "):
        ctorch.tensor([1.0]).cuda()
    with pytest.raises(ctorch.DeviceError, match="no cuda device is available"):
        ctorch.zeros(2, device="cuda")
    with pytest.raises(ctorch.DeviceError):
        ctorch.cuda.synchronize()
    ctorch.cuda.empty_cache()  # nothing to give back, and no error
    assert ctorch.cuda.memory_allocated() == 0 and ctorch.cuda.memory_reserved() == 0
    assert not ctorch.tensor([1.0]).is_cuda
    with pytest.raises(ctorch.DeviceError, match="pin_memory: no cuda device is available|pin_memory"):
        ctorch.tensor([1.0]).pin_memory()
    assert not ctorch.tensor([1.0]).is_pinned()


@pytest.mark.skipif(not ctorch.cuda.is_available(), reason="no CUDA device: the GPU suite needs one")
def test_cuda_round_trip_and_add():
    x = ctorch.arange(12, dtype=ctorch.float32).reshape(3, 4)
    d = x.cuda()
    assert d.is_cuda and d.device == "cuda:0"
    assert (d + d).cpu().tolist() == (x + x).tolist()
    assert d.t().cpu().tolist() == x.t().tolist()
    assert ctorch.cuda.memory_allocated() > 0
    p = x.pin_memory()
    assert p.is_pinned() and not x.is_pinned() and p.pin_memory() is not None
    assert p.cuda().cpu().tolist() == x.tolist()


def test_unknown_device_lists_the_known_ones():
    with pytest.raises(ctorch.InvalidArgumentError, match='"cpu", "meta", "cuda"'):
        ctorch.tensor([1.0]).to("tpu")


def run_python(code):
    env = dict(os.environ, CTORCH_BACKEND_PATH=COUNTING_DIR)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True,
                          timeout=120)


@needs_counting
def test_counting_device_runs_its_kernels_and_autograd():
    r = run_python("""
        import ctorch
        def calls():
            return ctorch.ops.call("counting::stats").tolist()[0]
        a = ctorch.tensor([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]], requires_grad=True)
        d = a.to("counting")
        print(d.device, d.device.type, d.device.index)
        before = calls()
        y = -(d * d + d)
        loss = y.sum()
        print(calls() - before)
        print(loss.tolist(), y.cpu().tolist())
        loss.backward()
        print(a.grad.tolist())
        print(d.t().cpu().tolist(), d.detach().relu().tolist())
        print(ctorch.empty(2, 2, device="counting:1").device)
        try:
            d.exp()
        except ctorch.DeviceError as e:
            print("DeviceError", e)
        try:
            d.to("counting:5")
        except ctorch.DeviceError as e:
            print("DeviceError", e)
        f = ctorch.compile(lambda x: x.to("counting").neg(), fullgraph=True)
        r = f(ctorch.tensor([1.0, -2.0]))
        print(r.device, r.cpu().tolist(), "counting" in f.graphs()[0])
        """)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "counting:0 counting 0"
    assert lines[1] == "4"  # mul, add, neg, sum: each one kernel call on the device
    assert lines[2] == "-88.0 [[-2.0, -2.0, -12.0], [-12.0, -30.0, -30.0]]"
    assert lines[3] == "[[-3.0, 3.0, -7.0], [7.0, -11.0, 11.0]]"  # -(2a + 1), back on the cpu
    assert lines[4] == "[[1.0, -4.0], [-2.0, 5.0], [3.0, -6.0]] [[1.0, 0.0, 3.0], [0.0, 5.0, 0.0]]"
    assert lines[5] == "counting:1"
    assert lines[6].startswith("DeviceError exp: no kernel for counting")
    assert "this process has 2 counting devices" in lines[7]
    assert lines[8] == "counting:0 [-1.0, 2.0] True"  # traced through to.device, run on the plugin


def _torch_cuda():
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


@pytest.mark.skipif(not ctorch.cuda.is_available() or _torch_cuda() is None,
                    reason="needs a CUDA device and torch with CUDA")
def test_dlpack_shares_cuda_memory_with_torch_both_ways():
    torch = _torch_cuda()
    t = torch.arange(6, dtype=torch.float32, device="cuda")
    c = ctorch.from_dlpack(t)
    assert c.device == "cuda:0" and c.data_ptr() == t.data_ptr()
    c.add_(ctorch.ones(6, device="cuda"))
    ctorch.cuda.synchronize()
    assert t.tolist() == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    back = torch.from_dlpack(c)
    assert back.device.type == "cuda" and back.data_ptr() == t.data_ptr()


def test_from_dlpack_asks_a_cuda_producer_for_the_legacy_stream_when_it_refuses_the_per_thread_one():
    np = pytest.importorskip("numpy")

    class Producer:  # claims cuda memory, as torch does, and refuses stream 2 as torch does
        def __init__(self):
            self.asked = []

        def __dlpack_device__(self):
            return (2, 0)

        def __dlpack__(self, stream=None, max_version=None):
            self.asked.append(stream)
            if stream == 2:
                raise BufferError("per-thread default stream is not supported.")
            return np.arange(3.0).__dlpack__()  # host memory stands in for the device's

    p = Producer()
    assert ctorch.from_dlpack(p).tolist() == [0.0, 1.0, 2.0]
    assert p.asked == [2, 1]


def test_dlpack_device_of_cpu_tensors():
    assert ctorch.tensor([1.0]).__dlpack_device__() == (1, 0)
    with pytest.raises(BufferError, match="cpu and cuda"):
        ctorch.empty(1, device="meta").__dlpack_device__()


@pytest.mark.skipif(not ctorch.cuda.is_available(), reason="no CUDA device: the GPU suite needs one")
def test_compiled_chain_on_cuda_runs_one_generated_kernel():
    def f(x, y):
        h = x * ctorch.sigmoid(x) + ctorch.sin(y) * 0.5
        return h, (h - h.mean(-1, keepdim=True)).amax(-1)

    x, y = ctorch.randn(64, 300), ctorch.randn(64, 300)
    before = ctorch.metric("compile.cuda_kernels")
    got = ctorch.compile(f)(x.cuda(), y.cuda())
    want = f(x, y)
    assert ctorch.metric("compile.cuda_kernels") > before
    for g, w in zip(got, want):
        assert g.is_cuda
        assert np.allclose(g.cpu().numpy(), w.numpy(), rtol=1e-5, atol=1e-5)
    again = ctorch.compile(f)(x.cuda(), y.cuda())
    assert again[1].cpu().tolist() == got[1].cpu().tolist()  # bitwise repeatable


@pytest.mark.skipif(not ctorch.cuda.is_available(), reason="no CUDA device: the GPU suite needs one")
def test_reduce_overhead_replays_a_cuda_graph_with_fresh_inputs():
    f = ctorch.compile(lambda x, y: (x * y + 1).relu().sum(-1), mode="reduce-overhead")
    results = []
    for k in range(4):  # warm-up, capture, then replays with new values in the same buffers
        x = ctorch.full((32, 64), float(k), device="cuda")
        y = ctorch.ones(32, 64, device="cuda")
        results.append(f(x, y))
    # Read after all calls: each result is a copy, so a replay does not overwrite earlier ones.
    for k, r in enumerate(results):
        assert r.cpu().tolist() == [64.0 * (k + 1)] * 32


def test_a_zero_dim_cpu_tensor_goes_with_tensors_of_another_device():
    # As in PyTorch, any 0-dim cpu tensor, not only a wrapped Python number, is a number there;
    # pow's derivative makes one (the exponent minus one), which cuda refused before its first GPU run.
    x = ctorch.ones(3, 4, device="meta", requires_grad=True)
    assert (x * ctorch.tensor(2.0)).device.type == "meta"
    assert ctorch.where(ctorch.tensor(True), x, ctorch.tensor(0.0)).device.type == "meta"
    x.pow(2).sum().backward()
    assert x.grad.device.type == "meta" and tuple(x.grad.shape) == (3, 4)
    with pytest.raises(ctorch.DeviceError):
        x + ctorch.ones(4)  # a cpu tensor with dims is not a number
