#!/usr/bin/env python3
"""bench_training.py - time per training epoch of the digits MLP and CNN: ctorch from C, ctorch
from Python and PyTorch from Python, in one run, side by side.

    PYTHONPATH=build/bindings/python python3 bench/bench_training.py [--build-dir build] [--runs 3]

Each row runs its example program with --epoch-times (the program prints each epoch's wall time to
stderr): examples/c/digits and digits_cnn (built in BUILD/examples), examples/python/digits.py and
digits_cnn.py, and for PyTorch examples/python/digits_torch.py and digits_cnn.py --torch (the same
model, recipe and batch size; torch's own generator). Runs of the rows alternate, --runs times;
a row's figure is the median over every epoch but each run's first (warm-up). Not a test: no
timing is asserted anywhere.
"""

import argparse
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def epoch_times(argv, env):
    r = subprocess.run(argv + ["--epoch-times"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed (exit {r.returncode}): {r.stderr[-1000:]}")
    times = [float(line.split()[-1]) for line in r.stderr.splitlines() if line.startswith("time ")]
    accuracy = next((line for line in r.stdout.splitlines() if line.startswith("held-out")), "")
    return times[1:], accuracy


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    p.add_argument("--runs", type=int, default=3)
    args = p.parse_args()
    build = os.path.abspath(args.build_dir)
    env = dict(os.environ)
    env.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # libtorch's workers would otherwise spin between ops
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.path.join(build, "bindings", "python"),
                                                      env.get("PYTHONPATH")]))
    py = os.path.join(ROOT, "examples", "python")
    try:
        import torch
        torch_info = f"torch {torch.__version__} ({torch.get_num_threads()} threads)"
    except ImportError:
        torch, torch_info = None, "torch not installed"
    rows = [
        ("MLP", "ctorch C", [os.path.join(build, "examples", "digits")]),
        ("MLP", "ctorch Python", [sys.executable, os.path.join(py, "digits.py")]),
        ("MLP", "PyTorch Python", [sys.executable, os.path.join(py, "digits_torch.py")] if torch else None),
        ("CNN", "ctorch C", [os.path.join(build, "examples", "digits_cnn")]),
        ("CNN", "ctorch Python", [sys.executable, os.path.join(py, "digits_cnn.py")]),
        ("CNN", "PyTorch Python", [sys.executable, os.path.join(py, "digits_cnn.py"), "--torch"] if torch else None),
    ]
    samples = {i: [] for i in range(len(rows))}
    accuracy = {}
    for _ in range(args.runs):
        for i, (_, _, argv) in enumerate(rows):
            if argv is not None:
                times, accuracy[i] = epoch_times(argv, env)
                samples[i] += times
    ms = {i: statistics.median(s) for i, s in samples.items() if s}

    print(f"Training time per epoch, digits (1437 training images, batches of 64; MLP 64-64-10, "
          f"CNN conv3x3(8)-bn-relu-pool-linear), Adam; median of epochs 2.. over {args.runs} runs; {torch_info}, "
          f"{os.cpu_count()} cpus\n")
    print(f"{'model':6s} {'implementation':18s} {'ms/epoch':>9s}  {'PyTorch / this':>14s}  accuracy")
    for i, (model, name, _) in enumerate(rows):
        if i not in ms:
            print(f"{model:6s} {name:18s} {'n/a':>9s}")
            continue
        ref = next((ms[j] for j, r in enumerate(rows) if r[0] == model and r[1] == "PyTorch Python" and j in ms), None)
        ratio = f"{ref / ms[i]:13.2f}x" if ref else f"{'':14s}"
        print(f"{model:6s} {name:18s} {ms[i]:9.2f}  {ratio}  {accuracy[i].replace('held-out accuracy ', '')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
