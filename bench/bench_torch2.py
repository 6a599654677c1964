"""bench_torch2.py - ctorch beside current torch (2.x, PyPI's wheel in a venv): eager operators at 1
and 2 threads, compiled graphs against torch.compile (Inductor), training steps eager and compiled,
Python per-call costs, and peak memory; one table from one run.

    PYTHONPATH=build/bindings/python ~/.cache/ctorch/bench-torch-venv/bin/python bench/bench_torch2.py \
        [eager compiled compiled_backward training overhead memory] [--quick]

scripts/bench.sh makes the venv and runs this. Both libraries run in this one process on the same
inputs (ctorch's copied from torch's through numpy). Each time is the best of 7 repetitions of
enough calls to take at least 2 ms; the ratio is torch time / ctorch time, so above 1 means ctorch
is faster. Compiled rows time the steady state of a loop: ctorch's default mode builds a fused kernel
as C++ in the background once it has run its loops for 20 ms (Note [Building C++ kernels in the
background]), so each compiled function is first called for STEADY_S seconds and then waits for the
builder (ctorch.compiler.wait_kernels). A "tile loops" row beside it times the kernels the first 20
ms run ("cpp_kernels": False), against the same Inductor time. Each prints both sides' cold compile
(first call) times, max-autotune's (every C++ kernel built while compiling, into an empty cache),
and the largest difference between the two libraries' results. Compiled backward rows time
autograd.grad through the compiled call, whose backward both libraries compile. Memory rows run each
library in a fresh process. No timing is asserted anywhere (DESIGN.md §13)."""

import argparse
import atexit
import gc
import os
import shutil
import subprocess
import sys
import tempfile
import time
import timeit

import numpy as np
import torch

import ctorch

REPEAT = 7
STEADY_S = 0.5  # seconds of calls before a compiled function is timed: see steady()


def best_us(fn, repeat=None):
    """Best per-call time of fn in microseconds: calls are batched until a batch takes >= 2 ms."""
    repeat = repeat or REPEAT
    fn()
    n = 1
    while True:
        t = timeit.timeit(fn, number=n)
        if t >= 2e-3 or n >= 1 << 20:
            break
        n *= 4
    return min(timeit.repeat(fn, number=n, repeat=repeat)) / n * 1e6


def row(name, t_torch, t_ct, anchor="torch"):
    ratio = t_torch / t_ct if t_ct > 0 else float("nan")
    print(f"  {name:<58} {anchor:>8} {t_torch:10.1f} us  ctorch {t_ct:10.1f} us  ratio {ratio:5.2f}")
    return ratio


def own(a):
    """A ctorch copy of the numpy array a in ctorch's own storage (64-byte aligned, as torch's is).
    from_numpy would share numpy's buffer, which is 16-byte aligned: the compiled row kernels read
    it up to 1.5x slower (docs/performance.md), and torch's side of each row never pays that."""
    return ctorch.tensor(a)


def both(shape_fn):
    """The same random data as a torch tensor and a ctorch tensor, each in its library's memory."""
    t = shape_fn()
    return t, own(t.numpy())


def set_threads(n):
    torch.set_num_threads(n)
    ctorch.set_num_threads(n)


def eager_rows(threads):
    set_threads(threads)
    g = torch.Generator().manual_seed(0)
    x, cx = both(lambda: torch.randn(2048, 2048, generator=g))
    table, ctable = both(lambda: torch.randn(1000, 64, generator=g))
    idx = torch.randint(0, 1000, (32, 64), generator=g)
    cidx = own(idx.numpy())
    img, cimg = both(lambda: torch.randn(8, 16, 32, 32, generator=g))
    wconv, cwconv = both(lambda: torch.randn(32, 16, 3, 3, generator=g))
    act, cact = both(lambda: torch.randn(64, 128, 32, 32, generator=g))
    feat, cfeat = both(lambda: torch.randn(4096, 1024, generator=g))
    lnw, clnw = both(lambda: torch.randn(1024, generator=g))
    lnb, clnb = both(lambda: torch.randn(1024, generator=g))
    target = torch.randint(0, 1024, (4096,), generator=g)
    ctarget = own(target.numpy())
    a, ca = both(lambda: torch.randn(512, 256, generator=g))
    b, cb = both(lambda: torch.randn(256, 1024, generator=g))
    q, cq = both(lambda: torch.randn(32, 64, 64, generator=g))
    F, CF = torch.nn.functional, ctorch.nn.functional
    img.requires_grad_(True)
    wconv.requires_grad_(True)
    cimg.requires_grad_(True)
    cwconv.requires_grad_(True)

    hidden, chidden = both(lambda: torch.randn(512, 1024, generator=g))
    grad_out, cgrad_out = both(lambda: torch.randn(512, 1024, generator=g))
    other, cother = both(lambda: torch.randn(512, 1024, generator=g))
    mask, cmask = hidden > 0, chidden > 0
    hidden.requires_grad_(True)
    chidden.requires_grad_(True)

    def relu_step(lib, h, go):
        lib.relu(h).backward(go)
        h.grad = None

    def conv_step(lib, i, w):
        y = lib.nn.functional.conv2d(i, w, padding=1)
        y.sum().backward()
        i.grad = None
        w.grad = None

    cases = [
        ("x.t().contiguous() 2048x2048", lambda: x.t().contiguous(), lambda: cx.t().contiguous()),
        ("x.permute(1,0).clone() 2048x2048", lambda: x.permute(1, 0).clone(), lambda: cx.permute(1, 0).clone()),
        ("topk(8) last dim 2048x2048", lambda: x.topk(8), lambda: cx.topk(8)),
        ("kthvalue(3) last dim 2048x2048", lambda: x.kthvalue(3), lambda: cx.kthvalue(3)),
        ("softmax last dim 2048x2048", lambda: x.softmax(-1), lambda: cx.softmax(-1)),
        ("log_softmax last dim 2048x2048", lambda: x.log_softmax(-1), lambda: cx.log_softmax(-1)),
        ("gelu (erf) 2048x2048", lambda: F.gelu(x), lambda: CF.gelu(cx)),
        ("relu forward + backward 512x1024", lambda: relu_step(torch, hidden, grad_out),
         lambda: relu_step(ctorch, chidden, cgrad_out)),
        ("where(random mask, x, y) 512x1024", lambda: torch.where(mask, grad_out, other),
         lambda: ctorch.where(cmask, cgrad_out, cother)),
        ("masked_fill(random mask, 0) 512x1024", lambda: grad_out.masked_fill(mask, 0.0),
         lambda: cgrad_out.masked_fill(cmask, 0.0)),
        ("~mask / mask.sum() 512x1024", lambda: ((~mask), mask.sum()), lambda: ((~cmask), cmask.sum())),
        ("x[random mask] 512x1024", lambda: grad_out[mask], lambda: cgrad_out[cmask]),
        ("sum 2048x2048", lambda: x.sum(), lambda: cx.sum()),
        ("sum(-1) 2048x2048", lambda: x.sum(-1), lambda: cx.sum(-1)),
        ("sum(0) 2048x2048", lambda: x.sum(0), lambda: cx.sum(0)),
        ("embedding 32x64 rows of 1000x64", lambda: F.embedding(idx, table), lambda: CF.embedding(cidx, ctable)),
        ("index_select 32x64 rows of 1000x64", lambda: table.index_select(0, idx.view(-1)),
         lambda: ctable.index_select(0, cidx.view(-1))),
        ("max_pool2d 3x3/2 on 64x128x32x32", lambda: F.max_pool2d(act, 3, 2), lambda: CF.max_pool2d(cact, 3, 2)),
        ("avg_pool2d 2x2 on 64x128x32x32", lambda: F.avg_pool2d(act, 2), lambda: CF.avg_pool2d(cact, 2)),
        ("layer_norm 4096x1024", lambda: F.layer_norm(feat, (1024,), lnw, lnb),
         lambda: CF.layer_norm(cfeat, (1024,), clnw, clnb)),
        ("layer_norm 4096x1024, no weight or bias", lambda: F.layer_norm(feat, (1024,)),
         lambda: CF.layer_norm(cfeat, (1024,))),
        ("batch_norm (training) 64x128x32x32", lambda: F.batch_norm(act, None, None, training=True),
         lambda: CF.batch_norm(cact, None, None, training=True)),
        ("conv2d 3x3 fwd+bwd 8x16x32x32 -> 32", lambda: conv_step(torch, img, wconv),
         lambda: conv_step(ctorch, cimg, cwconv)),
        ("nll_loss 4096x1024", lambda: F.nll_loss(feat, target), lambda: CF.nll_loss(cfeat, ctarget)),
        ("cross_entropy 4096x1024", lambda: F.cross_entropy(feat, target), lambda: CF.cross_entropy(cfeat, ctarget)),
        ("mm 512x256 @ 256x1024 (BLAS)", lambda: a @ b, lambda: ca @ cb),
        ("bmm 32 x (64x64 @ 64x64)", lambda: q @ q.transpose(1, 2), lambda: cq @ cq.transpose(1, 2)),
    ]
    print(f"eager, {threads} thread{'s' if threads > 1 else ''} (torch {torch.__version__} eager vs ctorch)")
    for name, ft, fc in cases:
        row(name, best_us(ft), best_us(fc))


def rmsnorm(lib):
    def f(x, w):
        return x * lib.rsqrt((x * x).mean(-1, keepdim=True) + 1e-6) * w
    return f


def manual_softmax(x):
    m = x.amax(-1, keepdim=True)
    e = (x - m).exp()
    return e / e.sum(-1, keepdim=True)


def layernorm_manual(x, w, b):
    mu = x.mean(-1, keepdim=True)
    d = x - mu
    var = (d * d).mean(-1, keepdim=True)
    return d * (var + 1e-5).rsqrt() * w + b


def gelu_chain(x):
    return 0.5 * x * (1.0 + (x * 0.7071067811865476).erf())


def cross_entropy(lib):
    def f(logits, target):
        return lib.nn.functional.cross_entropy(logits, target)
    return f


def compile_timed(lib, fn, *args):
    t = time.perf_counter()
    c = lib.compile(fn)
    c(*args)
    return c, (time.perf_counter() - t) * 1e3


def empty_kernel_cache():
    """An empty ctorch kernel cache for this run, so that every C++ kernel is built, not loaded."""
    if "CTORCH_CACHE_DIR" not in os.environ:
        os.environ["CTORCH_CACHE_DIR"] = tempfile.mkdtemp(prefix="ctorch-bench-kernels-")
        atexit.register(shutil.rmtree, os.environ["CTORCH_CACHE_DIR"], True)


def compile_timed_cpp(fn, *args):
    """ctorch.compile(fn, mode="max-autotune") and its first call, with the C++ kernels built into
    an empty cache, so the cold time includes the system compiler."""
    empty_kernel_cache()
    t = time.perf_counter()
    c = ctorch.compile(fn, mode="max-autotune")
    c(*args)
    return c, (time.perf_counter() - t) * 1e3


def steady(step):
    """Runs step, a loop's body over a ctorch compiled function, for STEADY_S seconds, then waits for
    the background builder: the state a long loop reaches, with the kernels that turned hot in it
    running as C++."""
    empty_kernel_cache()
    t = time.perf_counter()
    while time.perf_counter() - t < STEADY_S:
        step()
    ctorch.compiler.wait_kernels()


def compiled_rows():
    set_threads(1)
    g = torch.Generator().manual_seed(0)
    x, cx = both(lambda: torch.randn(4096, 1024, generator=g))
    w, cw = both(lambda: torch.randn(1024, generator=g))
    b, cb = both(lambda: torch.randn(1024, generator=g))
    t = torch.randint(0, 1024, (4096,), generator=g)
    ct = own(t.numpy())
    cases = [
        ("RMSNorm x*rsqrt(mean(x*x,-1)+eps)*w 4096x1024", rmsnorm(torch), rmsnorm(ctorch), (x, w), (cx, cw)),
        ("manual softmax (amax,sub,exp,sum,div) 4096x1024", manual_softmax, manual_softmax, (x,), (cx,)),
        ("manual layer norm 4096x1024", layernorm_manual, layernorm_manual, (x, w, b), (cx, cw, cb)),
        ("pointwise chain 0.5*x*(1+erf(x/sqrt2)) 4096x1024", gelu_chain, gelu_chain, (x,), (cx,)),
        ("cross_entropy of 4096x1024 logits", cross_entropy(torch), cross_entropy(ctorch), (x, t), (cx, ct)),
    ]
    print("compiled, 1 thread (torch.compile, Inductor, vs ctorch.compile after STEADY_S s of calls; cold compile")
    print("  in ms, max-autotune's with its C++ kernels built into an empty kernel cache)")
    for name, ft, fc, at, ac in cases:
        torch._dynamo.reset()
        ct_fn, ct_cold = compile_timed(ctorch, fc, *ac)
        loops_fn = ctorch.compile(fc, options={"cpp_kernels": False})
        _, cpp_cold = compile_timed_cpp(fc, *ac)
        t_fn, t_cold = compile_timed(torch, ft, *at)
        steady(lambda: ct_fn(*ac))
        got, want = ct_fn(*ac).numpy(), t_fn(*at).numpy()
        err = float(np.max(np.abs(got - want)))
        same = np.array_equal(loops_fn(*ac).numpy(), got)
        t_torch = best_us(lambda: t_fn(*at))
        row(name, t_torch, best_us(lambda: ct_fn(*ac)), "inductor")
        row("  tile loops (before the kernels are hot)", t_torch, best_us(lambda: loops_fn(*ac)), "inductor")
        print(f"  {'':<58} cold compile: inductor {t_cold:8.0f} ms  ctorch {ct_cold:6.1f} ms  max-autotune "
              f"{cpp_cold:6.0f} ms  max|diff| {err:.1e}  C++ kernels: {kernels_of(ct_fn)}  bits = tile loops': "
              f"{'yes' if same else 'NO'}")


def kernels_of(f):
    """How many of a ctorch compiled function's fused kernels run as C++, of how many."""
    graph = "\n".join(f.graphs())
    cpp = graph.count("= fused_cpp[")
    return f"{cpp}/{cpp + graph.count('= fused[')}"


def compiled_backward_rows():
    """Forward and backward of compiled graphs: torch.compile's AOTAutograd graphs against ctorch's
    joint forward/backward graph, each timed as autograd.grad of the compiled call's output."""
    set_threads(1)
    g = torch.Generator().manual_seed(1)
    x, cx = both(lambda: torch.randn(2048, 1024, generator=g))
    w, cw = both(lambda: torch.randn(1024, generator=g))
    b, cb = both(lambda: torch.randn(1024, generator=g))
    go, cgo = both(lambda: torch.randn(2048, 1024, generator=g))
    cases = [
        ("RMSNorm 2048x1024, forward + backward", rmsnorm(torch), rmsnorm(ctorch), (x, w), (cx, cw)),
        ("manual layer norm 2048x1024, forward + backward", layernorm_manual, layernorm_manual, (x, w, b),
         (cx, cw, cb)),
        ("pointwise chain 0.5*x*(1+erf(x/sqrt2)), forward + backward", gelu_chain, gelu_chain, (x,), (cx,)),
    ]
    print("compiled forward + backward, 1 thread (torch.compile vs ctorch.compile; autograd.grad of the output)")
    for name, ft, fc, at, ac in cases:
        torch._dynamo.reset()
        at = tuple(a.detach().clone().requires_grad_() for a in at)
        ac = tuple(a.detach().clone().requires_grad_() for a in ac)
        t_fn, c_fn = torch.compile(ft), ctorch.compile(fc)
        loops_fn = ctorch.compile(fc, options={"cpp_kernels": False})

        def t_step():
            return torch.autograd.grad(t_fn(*at), at, go)

        def c_step():
            return ctorch.autograd.grad(c_fn(*ac), ac, cgo)

        def loops_step():
            return ctorch.autograd.grad(loops_fn(*ac), ac, cgo)

        try:
            err = max(float(np.max(np.abs(c.numpy() - t.numpy()))) for c, t in zip(c_step(), t_step()))
        except Exception as e:  # Inductor's generated C++ may not build or load on this machine
            why = next((ln for ln in str(e).splitlines() if "Error" in ln), str(e).splitlines()[0])
            print(f"  {name:<58} skipped: torch.compile failed: {why.strip()[:140]}")
            continue
        steady(c_step)
        same = all(np.array_equal(a.numpy(), b.numpy()) for a, b in zip(c_step(), loops_step()))
        t_torch = best_us(t_step)
        row(name, t_torch, best_us(c_step), "inductor")
        row("  tile loops (before the kernels are hot)", t_torch, best_us(loops_step), "inductor")
        compiled_bwd = c_fn.graphs()[0].startswith("forward:")
        print(f"  {'':<58} max|grad diff| {err:.1e}  ctorch backward compiled: {'yes' if compiled_bwd else 'no'}  "
              f"C++ kernels: {kernels_of(c_fn)}  bits = tile loops': {'yes' if same else 'NO'}")


def overhead_rows():
    set_threads(1)
    a, ca = both(lambda: torch.randn(4, 4))
    b, cb = both(lambda: torch.randn(4, 4))
    print("Python per-call cost on 4x4 float32 (torch eager vs ctorch)")
    row("a + b", best_us(lambda: a + b), best_us(lambda: ca + cb))
    cases = [
        ("x[1:3]", lambda: a[1:3], lambda: ca[1:3]),
        ("x[1]", lambda: a[1], lambda: ca[1]),
        ("x[:, 1:3]", lambda: a[:, 1:3], lambda: ca[:, 1:3]),
        ("x[None, ..., 0]", lambda: a[None, ..., 0], lambda: ca[None, ..., 0]),
        ("x.erfinv() (no hand-written fast path)", lambda: a.erfinv(), lambda: ca.erfinv()),
        ("torch.erfinv(x)", lambda: torch.erfinv(a), lambda: ctorch.erfinv(ca)),
        ("x.sum(0)", lambda: a.sum(0), lambda: ca.sum(0)),
        ("x.view(16)", lambda: a.view(16), lambda: ca.view(16)),
        ("torch.cat([x, y])", lambda: torch.cat([a, b]), lambda: ctorch.cat([ca, cb])),
    ]
    ca_plus = best_us(lambda: ca + cb)
    for name, ft, fc in cases:
        tc = best_us(fc)
        row(name, best_us(ft), tc)
        print(f"  {'':<58} ctorch / ctorch a + b: {tc / ca_plus:4.2f}x")


def mlp(lib):
    nn = lib.nn
    return nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 512), nn.GELU(), nn.Linear(512, 10))


def block(lib):
    return lib.nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.0, batch_first=True)


def train_step_rows():
    """One SGD step (forward, loss, backward, update) of an MLP and of a transformer block, eager
    and compiled (torch.compile / ctorch.compile of the model), both libraries from one seed."""
    set_threads(1)
    print("training step, 1 thread (torch eager and torch.compile vs ctorch eager and ctorch.compile)")
    g = torch.Generator().manual_seed(0)
    cases = [("MLP 256-512-512-10, batch 64", mlp, lambda: torch.randn(64, 256, generator=g),
              lambda lib, y: lib.nn.functional.cross_entropy(y, lib.arange(64) % 10)),
             ("transformer block d256 h4 ff1024, 8x64 tokens", block, lambda: torch.randn(8, 64, 256, generator=g),
              lambda lib, y: (y * y).mean())]
    for name, make, data, loss_fn in cases:
        torch.manual_seed(0)
        tm = make(torch)
        cm = make(ctorch)
        cm.load_state_dict({k: own(v.detach().numpy()) for k, v in tm.state_dict().items()})
        x, cx = both(data)
        times = {}
        for lib, model, inp in ((torch, tm, x), (ctorch, cm, cx)):
            opt = lib.optim.SGD(model.parameters(), lr=1e-3)
            for mode in ("eager", "compiled") + (("max-autotune",) if lib is ctorch else ()):
                if lib is torch:
                    torch._dynamo.reset()
                fwd = model if mode == "eager" else lib.compile(model, **({"mode": mode} if mode != "compiled" else {}))

                def step():
                    opt.zero_grad()
                    loss_fn(lib, fwd(inp)).backward()
                    opt.step()

                t0 = time.perf_counter()
                step()
                cold = (time.perf_counter() - t0) * 1e3
                if lib is ctorch and mode == "compiled":
                    steady(step)
                times[(lib.__name__, mode)] = (best_us(step), cold)
        for mode in ("eager", "compiled", "max-autotune"):
            (tt, tc), (ct, cc) = times[("torch", "compiled" if mode == "max-autotune" else mode)], times[("ctorch", mode)]
            row(f"{name}, {mode}", tt, ct, "torch" if mode == "eager" else "inductor")
            if mode != "eager":
                print(f"  {'':<58} first step (compiles): torch {tc:8.0f} ms  ctorch {cc:6.1f} ms")


# VmHWM, not getrusage's ru_maxrss: a child's ru_maxrss starts at its parent's at fork (this
# process already holds both libraries), VmHWM belongs to the new image alone.
_HWM = "def hwm(): return [ln.split()[1] for ln in open('/proc/self/status') if ln.startswith('VmHWM')][0]\n"
_RSS = (_HWM + "import runpy, sys; sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__'); "
        "print('maxrss_kb', hwm(), file=sys.stderr)")
_RSS_BLOCK = _HWM + """
import sys
lib = __import__(sys.argv[1])
lib.manual_seed(0)
m = lib.nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.0, batch_first=True)
opt = lib.optim.SGD(m.parameters(), lr=1e-3)
x = lib.randn(8, 64, 256)
base = hwm()
for _ in range(20):
    opt.zero_grad()
    (m(x) ** 2).mean().backward()
    opt.step()
print('maxrss_kb', hwm(), base, file=sys.stderr)
"""


def _maxrss_mb(argv):
    r = subprocess.run(argv, capture_output=True, text=True, timeout=900)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed (exit {r.returncode}): {r.stderr[-800:]}")
    line = [ln for ln in r.stderr.splitlines() if ln.startswith("maxrss_kb")][-1].split()
    return [int(v) / 1024 for v in line[1:]]


def peak_rss_rows():
    """Peak resident memory of a training run, each library in a fresh process of this Python."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    cnn = os.path.join(root, "examples", "python", "digits_cnn.py")
    print("peak RSS (MB, fresh process each; the import alone included)")
    t = _maxrss_mb([sys.executable, "-c", _RSS, cnn, "--torch"])[0]
    c = _maxrss_mb([sys.executable, "-c", _RSS, cnn])[0]
    print(f"  {'digits CNN, 10 epochs (examples/python/digits_cnn.py)':<58}    torch {t:8.0f} MB  ctorch {c:8.0f} MB")
    t_peak, t_base = _maxrss_mb([sys.executable, "-c", _RSS_BLOCK, "torch"])
    c_peak, c_base = _maxrss_mb([sys.executable, "-c", _RSS_BLOCK, "ctorch"])
    print(f"  {'transformer block, 20 SGD steps on 8x64x256':<58}    torch {t_peak:8.0f} MB  ctorch {c_peak:8.0f} MB")
    print(f"  {'  of which the steps (peak - before the first step)':<58}    torch {t_peak - t_base:8.0f} MB"
          f"  ctorch {c_peak - c_base:8.0f} MB")


SECTIONS = {"eager": lambda: (eager_rows(1), print(), eager_rows(2)), "compiled": compiled_rows,
            "compiled_backward": compiled_backward_rows, "training": train_step_rows, "overhead": overhead_rows, "memory": peak_rss_rows}


def main():
    global REPEAT
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("sections", nargs="*", help=f"any of {', '.join(SECTIONS)} (default: all, in that order)")
    p.add_argument("--quick", action="store_true", help="one repetition per timing (a smoke run)")
    args = p.parse_args()
    for name in args.sections:
        if name not in SECTIONS:
            p.error(f"unknown section {name!r}: choose from {', '.join(SECTIONS)}")
    if args.quick:
        REPEAT = 1
    print(f"bench_torch2: torch {torch.__version__} beside ctorch {ctorch.__version__}; ratio = torch / ctorch")
    for i, name in enumerate(args.sections or SECTIONS):
        if i:
            print()
        SECTIONS[name]()


if __name__ == "__main__":
    main()
