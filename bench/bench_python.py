"""bench_python.py - the Python package against torch and numpy, one table from one run.

    PYTHONPATH=build/bindings/python /usr/bin/python3 bench/bench_python.py

Rows: the cost of `a + b` on 1-element float32 tensors (best of 7 repetitions of 200k calls); one
forward + backward step of `(x * w + b).sum()` on 1-element tensors with w and b requiring grad
(best of 7 repetitions of 20k steps); the wall time of `import X` in fresh interpreters (median of
7); saving and loading a 64 MB state dict (16 float32 tensors of 1M elements) in PyTorch's file
format through memory (torch.load with weights_only=True; best of 5); and one epoch of a DataLoader
over a TensorDataset of 16384 rows of 64 float32, batches of 64, in the main process (best of 5).
Targets are printed beside the ratios (DESIGN.md §13: no timing is asserted anywhere)."""

import statistics
import subprocess
import sys
import timeit


def per_op_ns(a, b, n=200_000, repeat=7):
    return min(timeit.repeat("a + b", globals={"a": a, "b": b}, number=n, repeat=repeat)) / n * 1e9


def step_us(lib, n=20_000, repeat=7):
    x = lib.tensor([1.5])
    w = lib.tensor([0.5], requires_grad=True)
    b = lib.tensor([-2.0], requires_grad=True)

    def step():
        (x * w + b).sum().backward()
        w.grad = None
        b.grad = None

    return min(timeit.repeat(step, number=n, repeat=repeat)) / n * 1e6


def import_ms(module, repeat=7):
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    times = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                                  env=None).stdout) for _ in range(repeat)]
    return statistics.median(times) * 1e3


def save_load_ms(lib, repeat=5):
    import io

    state = {f"layer{i}.weight": lib.ones(1024, 1024) * i for i in range(16)}

    def save():
        buf = io.BytesIO()
        lib.save(state, buf)
        return buf.getvalue()

    data = save()
    load_kw = {"weights_only": True} if lib.__name__ == "torch" else {}
    s = min(timeit.repeat(save, number=1, repeat=repeat))
    l_ = min(timeit.repeat(lambda: lib.load(io.BytesIO(data), **load_kw), number=1, repeat=repeat))
    return s * 1e3, l_ * 1e3


def epoch_ms(lib, repeat=5):
    data = lib.utils.data.TensorDataset(lib.ones(16384, 64), lib.zeros(16384, dtype=lib.long))
    loader = lib.utils.data.DataLoader(data, batch_size=64, shuffle=True)
    return min(timeit.repeat(lambda: [None for _ in loader], number=1, repeat=repeat)) * 1e3


def nn_function_ms(lib, repeat=7):
    """Functions of torch.nn.functional and torch that models and data code call, on sizes of a
    batch: ms for each, the best of `repeat` runs of 5 calls."""
    g = lib.Generator().manual_seed(0)
    a, b = lib.randn(1024, 64, generator=g), lib.randn(512, 64, generator=g)
    rows = lib.randn(4096, 256, generator=g)
    scores = lib.randn(512, 1024, generator=g)
    labels = lib.randint(0, 100, (65536,), generator=g)
    image = lib.randn(16, 64, 32, 32, generator=g)
    F = lib.nn.functional
    calls = {
        "cdist 1024x64 vs 512x64": lambda: lib.cdist(a, b),
        "cosine_similarity 4096x256 rows": lambda: F.cosine_similarity(rows, rows.flip(0)),
        "logcumsumexp 512x1024 over dim 1": lambda: lib.logcumsumexp(scores, 1),
        "one_hot 65536 labels, 100 classes": lambda: F.one_hot(labels, 100),
        "pixel_shuffle 16x64x32x32, r=2": lambda: F.pixel_shuffle(image, 2),
        "interpolate bilinear 16x64x32x32 x2": lambda: F.interpolate(image, scale_factor=2, mode="bilinear"),
        "interpolate nearest 16x64x32x32 x2": lambda: F.interpolate(image, scale_factor=2),
    }
    return {name: min(timeit.repeat(f, number=5, repeat=repeat)) / 5 * 1e3 for name, f in calls.items()}


def main():
    import numpy as np
    import torch

    import ctorch

    print(f"ctorch {ctorch.__version__} vs torch {torch.__version__} vs numpy {np.__version__}, python "
          f"{sys.version.split()[0]}\n")
    print(f"{'measurement':34s} {'ctorch':>9s} {'torch':>9s} {'numpy':>9s}  {'ctorch/torch':>12s}  target")
    ct = per_op_ns(ctorch.ones(1), ctorch.ones(1))
    th = per_op_ns(torch.ones(1), torch.ones(1))
    nn = per_op_ns(np.ones(1, np.float32), np.ones(1, np.float32))
    print(f"{'a + b, 1-elem float32 (ns)':34s} {ct:9.1f} {th:9.1f} {nn:9.1f}  {ct / th:12.2f}  "
          f"<= 500 ns {'ok' if ct <= 500 else 'MISS'}")
    cs, ts = step_us(ctorch), step_us(torch)
    print(f"{'(x*w+b).sum() fwd+bwd, 1-elem (us)':34s} {cs:9.2f} {ts:9.2f} {'':>9s}  {cs / ts:12.2f}  "
          f"<= 8 us {'ok' if cs <= 8 else 'MISS'}")
    ci, ti = import_ms("ctorch"), import_ms("torch")
    print(f"{'import, fresh process (ms)':34s} {ci:9.1f} {ti:9.1f} {'':>9s}  {ci / ti:12.2f}  "
          f"<= 100 ms {'ok' if ci <= 100 else 'MISS'}")
    (cs, cl), (ts, tl) = save_load_ms(ctorch), save_load_ms(torch)
    print(f"{'save 64 MB state dict (ms)':34s} {cs:9.1f} {ts:9.1f} {'':>9s}  {cs / ts:12.2f}  "
          f"<= torch {'ok' if cs <= ts else 'MISS'}")
    print(f"{'load it, weights only (ms)':34s} {cl:9.1f} {tl:9.1f} {'':>9s}  {cl / tl:12.2f}  "
          f"<= torch {'ok' if cl <= tl else 'MISS'}")
    ce, te = epoch_ms(ctorch), epoch_ms(torch)
    print(f"{'DataLoader epoch, 256 batches (ms)':34s} {ce:9.1f} {te:9.1f} {'':>9s}  {ce / te:12.2f}  "
          f"<= torch {'ok' if ce <= te else 'MISS'}")
    cf, tf = nn_function_ms(ctorch), nn_function_ms(torch)
    for name in cf:
        print(f"{name + ' (ms)':34s} {cf[name]:9.2f} {tf[name]:9.2f} {'':>9s}  {cf[name] / tf[name]:12.2f}  "
              f"<= torch {'ok' if cf[name] <= tf[name] else 'MISS'}")


if __name__ == "__main__":
    main()
