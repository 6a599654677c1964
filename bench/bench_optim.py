"""bench_optim.py - one Adam step over 10M float32 parameters (10 tensors of 1M): ctorch's fused
update beside torch's single-tensor, foreach and fused Adam, one table from one run; then one step
of Adagrad, Adamax, NAdam, RAdam, Adadelta, ASGD and Rprop beside torch's single-tensor and foreach
forms; then LBFGS steps (20 iterations, with and without the strong-Wolfe line search) on a
least-squares fit, the closure's forward and backward included.

    PYTHONPATH=build/bindings/python /usr/bin/python3 bench/bench_optim.py

Bandwidth counts the bytes a step must move at least: per element it reads param, grad, exp_avg
and exp_avg_sq and writes param, exp_avg and exp_avg_sq (28 bytes for float32). Each row is the best
of 7 repetitions of 5 steps after 2 warm-up steps, all threads. A torch variant this torch does not
have (fused Adam on the CPU came with torch 2.4) is printed as n/a. Timings are reported, never
asserted (DESIGN.md §13)."""

import sys
import timeit

N_TENSORS, NUMEL = 10, 1_000_000
BYTES_PER_ELEMENT = 7 * 4


def seconds_per_step(lib, name="Adam", **adam_options):
    params = [lib.randn(NUMEL, requires_grad=True) for _ in range(N_TENSORS)]
    for p in params:
        p.grad = lib.randn(NUMEL)
    opt = getattr(lib.optim, name)(params, lr=1e-3, **adam_options)
    opt.step()
    opt.step()
    return min(timeit.repeat(opt.step, number=5, repeat=7)) / 5


def main():
    import ctorch  # before torch: libctorch's initial-exec TLS must fit in the static TLS block
    import torch

    torch.set_num_threads(ctorch.get_num_threads())
    print(f"Adam step, {N_TENSORS} x {NUMEL:,} float32 parameters ({BYTES_PER_ELEMENT} bytes moved per element), "
          f"{ctorch.get_num_threads()} threads; ctorch {ctorch.__version__}, torch {torch.__version__}\n")
    print(f"{'implementation':30s} {'ms/step':>9s} {'GB/s':>8s}  {'ctorch speedup':>14s}")
    ct = seconds_per_step(ctorch)
    rows = [("ctorch (fused loop)", ct)]
    for label, options in (("torch single-tensor", dict(foreach=False)), ("torch foreach", dict(foreach=True)),
                           ("torch fused", dict(fused=True))):
        try:
            rows.append((label, seconds_per_step(torch, **options)))
        except (RuntimeError, TypeError, ValueError) as e:  # not in this torch, or not on the CPU
            rows.append((label, None, str(e).splitlines()[0][:60]))
    gbytes = N_TENSORS * NUMEL * BYTES_PER_ELEMENT / 1e9
    for row in rows:
        label, s = row[0], row[1]
        if s is None:
            print(f"{label:30s} {'n/a':>9s} {'':>8s}  {'':>14s}  ({row[2]})")
            continue
        print(f"{label:30s} {s * 1e3:9.2f} {gbytes / s:8.2f}  {s / ct:13.2f}x")
    print(f"\n{'optimizer':10s} {'ctorch ms':>10s} {'torch single ms':>16s} {'ratio':>7s} {'torch foreach ms':>17s} "
          f"{'ratio':>7s}")
    for name in ("Adagrad", "Adamax", "NAdam", "RAdam", "Adadelta", "ASGD", "Rprop"):
        ct = seconds_per_step(ctorch, name)
        single = seconds_per_step(torch, name, foreach=False)
        foreach = seconds_per_step(torch, name, foreach=True)
        print(f"{name:10s} {ct * 1e3:10.2f} {single * 1e3:16.2f} {single / ct:6.2f}x {foreach * 1e3:17.2f} "
              f"{foreach / ct:6.2f}x")
    lbfgs_table()
    return 0


def lbfgs_seconds(lib, **options):
    """One LBFGS step (max_iter 20) from w = 0 fitting X w = y, X 2000 x 500 float32: a fresh
    optimizer each time, so every repetition runs the same iterations."""
    lib.manual_seed(0)
    x, y = lib.randn(2000, 500), lib.randn(2000, 1)

    def step():
        w = lib.zeros(500, 1, requires_grad=True)
        opt = lib.optim.LBFGS([w], **options)

        def closure():
            opt.zero_grad()
            loss = ((x @ w - y) ** 2).mean()
            loss.backward()
            return loss
        opt.step(closure)
    step()
    return min(timeit.repeat(step, number=1, repeat=5))


def lbfgs_table():
    import ctorch
    import torch

    print(f"\n{'LBFGS step (20 iterations)':30s} {'ctorch ms':>10s} {'torch ms':>10s} {'ratio':>7s}")
    for label, options in (("fixed step lr 0.1", dict(lr=0.1)), ("strong_wolfe", dict(line_search_fn="strong_wolfe"))):
        ct = lbfgs_seconds(ctorch, **options)
        th = lbfgs_seconds(torch, **options)
        print(f"{label:30s} {ct * 1e3:10.2f} {th * 1e3:10.2f} {th / ct:6.2f}x")


if __name__ == "__main__":
    sys.exit(main())
