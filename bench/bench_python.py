"""bench_python.py - the Python package against torch and numpy, one table from one run.

    PYTHONPATH=build/bindings/python /usr/bin/python3 bench/bench_python.py

Rows: the cost of `a + b` on 1-element float32 tensors (best of 7 repetitions of 200k calls); one
forward + backward step of `(x * w + b).sum()` on 1-element tensors with w and b requiring grad
(best of 7 repetitions of 20k steps); and the wall time of `import X` in fresh interpreters
(median of 7). Targets are printed beside the ratios (DESIGN.md §13: no timing is asserted
anywhere)."""

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


if __name__ == "__main__":
    main()
