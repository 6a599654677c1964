"""bench_cuda.py - the CUDA backend against torch on the same GPU, one table from one run.

    PYTHONPATH=build/bindings/python python3 bench/bench_cuda.py [--small]

Rows (issue 9's targets printed beside each ratio; DESIGN.md §13: no timing is asserted anywhere):
  copy        a device-to-device copy by torch (y.copy_(x)): the bandwidth anchor, GB/s
  add         a + b over N float32 (3 N * 4 bytes moved), GB/s, and its share of the anchor
  chain       x * sigmoid(x) + sin(y) * 0.5 - z, 5 N * 4 bytes at best: ctorch eager, ctorch.compile
              (one NVRTC kernel), torch eager, torch.compile (when it works here)
  matmul      8192^3 float32 (TF32 off, then on) and bfloat16, TFLOP/s
  softmax, layer_norm (last dim of [N / 4096, 4096]), sum: time per call
  launch      a + b on 1-element tensors: time per call (host overhead)
  linalg      inv, solve (64 right-hand sides), eigh, svd of one 512 x 512 float64 matrix on cuSOLVER,
              and torch's kernels for them (torch may pick other cuSOLVER routines or MAGMA): time per call
  fft         fft of one complex64 signal of 2^20 points and of 64 of 3*5*7*11*13, both on cuFFT
Times are the best of 5 runs of `iters` calls each, with the device synchronized around them.
--small shrinks N from 256M to 16M elements for a quick check."""

import sys
import time


def best(fn, sync, iters, repeat=5):
    fn()
    sync()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        for _ in range(iters):
            fn()
        sync()
        times.append((time.perf_counter() - t) / iters)
    return min(times)


def main():
    import torch

    import ctorch

    if not ctorch.cuda.is_available() or not torch.cuda.is_available():
        print("bench_cuda: skipped: needs a CUDA device for both ctorch and torch")
        return
    n = (16 if "--small" in sys.argv else 256) << 20
    print(f"ctorch {ctorch.__version__} vs torch {torch.__version__} on {torch.cuda.get_device_name(0)}, "
          f"N = {n >> 20}M float32\n")
    cs, ts = ctorch.cuda.synchronize, torch.cuda.synchronize
    row = "{:36s} {:>11s} {:>11s} {:>9s}  {}"
    print(row.format("measurement", "ctorch", "torch", "ratio", "target"))

    tx, ty, tz = (torch.rand(n, device="cuda") for _ in range(3))
    cx, cy, cz = (ctorch.from_dlpack(t) for t in (tx, ty, tz))
    out = torch.empty_like(tx)
    copy_s = best(lambda: out.copy_(tx), ts, 10)
    copy_gbs = 2 * n * 4 / copy_s / 1e9
    print(row.format("device copy (GB/s)", "", f"{copy_gbs:.0f}", "", "the anchor"))

    add_c = 3 * n * 4 / best(lambda: cx + cy, cs, 10) / 1e9
    add_t = 3 * n * 4 / best(lambda: tx + ty, ts, 10) / 1e9
    print(row.format("add (GB/s)", f"{add_c:.0f}", f"{add_t:.0f}", f"{add_c / add_t:.2f}",
                     f">= 85% of copy: {add_c / copy_gbs:.0%}"))

    def chain(lib):
        return lambda x, y, z: x * lib.sigmoid(x) + lib.sin(y) * 0.5 - z

    ce = best(lambda: chain(ctorch)(cx, cy, cz), cs, 5)
    cc_fn = ctorch.compile(chain(ctorch))
    cc = best(lambda: cc_fn(cx, cy, cz), cs, 5)
    te = best(lambda: chain(torch)(tx, ty, tz), ts, 5)
    try:
        tc_fn = torch.compile(chain(torch))
        tc = best(lambda: tc_fn(tx, ty, tz), ts, 5)
    except Exception as e:  # torch.compile needs triton and a compiler on the machine
        tc = None
        print(f"  (torch.compile unavailable: {type(e).__name__})")
    gbs = lambda s: f"{4 * n * 4 / s / 1e9:.0f}"
    print(row.format("chain eager (GB/s)", gbs(ce), gbs(te), f"{te / ce:.2f}", ""))
    print(row.format("chain compiled vs torch eager (GB/s)", gbs(cc), gbs(te), f"{te / cc:.2f}",
                     f"> 1, and >= 85% of copy: {4 * n * 4 / cc / 1e9 / copy_gbs:.0%}"))
    if tc is not None:
        print(row.format("chain compiled vs torch.compile", gbs(cc), gbs(tc), f"{tc / cc:.2f}", "~ 1 (on par)"))

    m = 8192
    for name, dtype, tf32 in (("sgemm 8192 (TFLOP/s)", "float32", False), ("tf32 8192 (TFLOP/s)", "float32", True),
                              ("bf16 8192 (TFLOP/s)", "bfloat16", False)):
        torch.backends.cuda.matmul.allow_tf32 = tf32
        ctorch.set_float32_matmul_precision("high" if tf32 else "highest")
        ta = torch.rand(m, m, device="cuda", dtype=getattr(torch, dtype))
        ca = ctorch.from_dlpack(ta)
        flop = 2 * m ** 3
        c_t = flop / best(lambda: ca @ ca, cs, 3) / 1e12
        t_t = flop / best(lambda: ta @ ta, ts, 3) / 1e12
        print(row.format(name, f"{c_t:.1f}", f"{t_t:.1f}", f"{c_t / t_t:.2f}", ">= 0.95"))
    ctorch.set_float32_matmul_precision("highest")

    rows_ = n // 4096
    t2, c2 = tx.view(rows_, 4096), cx.view(rows_, 4096)
    tw, tb = torch.ones(4096, device="cuda"), torch.zeros(4096, device="cuda")
    cw, cb = ctorch.from_dlpack(tw), ctorch.from_dlpack(tb)
    for name, cfn, tfn in (
            ("softmax (ms)", lambda: ctorch.softmax(c2, -1), lambda: torch.softmax(t2, -1)),
            ("layer_norm (ms)", lambda: ctorch.nn.functional.layer_norm(c2, (4096,), cw, cb),
             lambda: torch.nn.functional.layer_norm(t2, (4096,), tw, tb)),
            ("sum (ms)", lambda: cx.sum(), lambda: tx.sum())):
        c_ms, t_ms = best(cfn, cs, 5) * 1e3, best(tfn, ts, 5) * 1e3
        print(row.format(name, f"{c_ms:.3f}", f"{t_ms:.3f}", f"{t_ms / c_ms:.2f}", ">= 1 (torch time / ctorch time)"))

    ta = torch.randn(512, 512, device="cuda", dtype=torch.float64) + 512 * torch.eye(512, device="cuda",
                                                                                     dtype=torch.float64)
    tb = torch.randn(512, 64, device="cuda", dtype=torch.float64)
    tsym = ta + ta.mT
    ca, cb, csym = (ctorch.from_dlpack(t) for t in (ta, tb, tsym))
    for name, cfn, tfn in (
            ("linalg.inv 512 float64 (ms)", lambda: ctorch.linalg.inv(ca), lambda: torch.linalg.inv(ta)),
            ("linalg.solve 512, 64 rhs (ms)", lambda: ctorch.linalg.solve(ca, cb), lambda: torch.linalg.solve(ta, tb)),
            ("linalg.eigh 512 float64 (ms)", lambda: ctorch.linalg.eigh(csym), lambda: torch.linalg.eigh(tsym)),
            ("linalg.svd 512 float64 (ms)", lambda: ctorch.linalg.svd(ca), lambda: torch.linalg.svd(ta))):
        c_ms, t_ms = best(cfn, cs, 3) * 1e3, best(tfn, ts, 3) * 1e3
        print(row.format(name, f"{c_ms:.3f}", f"{t_ms:.3f}", f"{t_ms / c_ms:.2f}", "torch time / ctorch time"))

    # torch.fft on cuFFT: a power of two and 3*5*7*11*13 = 15015 points, complex64, 64 signals each.
    for n in (1 << 20, 15015):
        rows_fft = 64 if n < 1 << 20 else 1
        tz = torch.randn(rows_fft, n, device="cuda", dtype=torch.complex64)
        cz = ctorch.from_dlpack(tz)
        c_ms, t_ms = (best(lambda: ctorch.fft.fft(cz), cs, 5) * 1e3, best(lambda: torch.fft.fft(tz), ts, 5) * 1e3)
        print(row.format(f"fft.fft {rows_fft} x {n} complex64 (ms)", f"{c_ms:.3f}", f"{t_ms:.3f}", f"{t_ms / c_ms:.2f}",
                         "torch time / ctorch time"))

    ca1, ta1 = ctorch.ones(1, device="cuda"), torch.ones(1, device="cuda")
    c_us, t_us = best(lambda: ca1 + ca1, cs, 20000) * 1e6, best(lambda: ta1 + ta1, ts, 20000) * 1e6
    print(row.format("launch: a + b, 1 element (us)", f"{c_us:.2f}", f"{t_us:.2f}", f"{c_us / t_us:.2f}",
                     "<= 1 (ctorch time / torch time)"))


if __name__ == "__main__":
    main()
