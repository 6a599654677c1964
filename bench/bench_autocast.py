"""bench_autocast.py - a forward and backward step of a 3-layer MLP (batch 256, 1024 wide) in float32
and under cpu bfloat16 autocast, ctorch beside torch from one run, with the ratio.

    PYTHONPATH=build/bindings/python /usr/bin/python3 bench/bench_autocast.py

Each row is the best of 7 repetitions of 5 steps after 2 warm-up steps, all threads. Autocast's
cost is the casts (each call casts its float32 weights again; torch caches a region's weight
casts) and the bfloat16 products. Timings are reported, never asserted (DESIGN.md section 13)."""

import timeit

import numpy as np

BATCH, WIDTH, OUT = 256, 1024, 10


def seconds_per_step(lib, autocast):
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((BATCH, WIDTH)).astype(np.float32))
    target = lib.tensor(rng.standard_normal((BATCH, OUT)).astype(np.float32))
    ws = [lib.tensor((rng.standard_normal(s) * 0.03).astype(np.float32), requires_grad=True)
          for s in ((WIDTH, WIDTH), (WIDTH, WIDTH), (OUT, WIDTH))]
    F = lib.nn.functional

    def step():
        with lib.autocast("cpu", dtype=lib.bfloat16, enabled=autocast):
            h = F.relu(F.linear(x, ws[0]))
            h = F.relu(F.linear(h, ws[1]))
            loss = F.mse_loss(F.linear(h, ws[2]), target)
        loss.backward()
        for w in ws:
            w.grad = None

    step()
    step()
    return min(timeit.repeat(step, number=5, repeat=7)) / 5


def main():
    import ctorch  # before torch: libctorch's initial-exec TLS must fit in the static TLS block
    import torch

    torch.set_num_threads(ctorch.get_num_threads())
    print(f"MLP step (batch {BATCH}, {WIDTH} wide, 3 linear layers, forward and backward), "
          f"{ctorch.get_num_threads()} threads; ctorch {ctorch.__version__}, torch {torch.__version__}\n")
    print(f"{'precision':28s} {'ctorch ms':>10s} {'torch ms':>10s} {'torch / ctorch':>15s}")
    for label, autocast in (("float32", False), ("bfloat16 autocast (cpu)", True)):
        ct = seconds_per_step(ctorch, autocast)
        th = seconds_per_step(torch, autocast)
        print(f"{label:28s} {ct * 1e3:10.2f} {th * 1e3:10.2f} {th / ct:14.2f}x")


if __name__ == "__main__":
    main()
