#!/usr/bin/env python3
"""same_training.py - a data-parallel program must reach one process's numbers: runs PROGRAM alone
(no group) and under launch.py with N ranks, in the working directory given, and compares the
"epoch N  loss X" and "param I  abs sum X" lines rank 0 prints (relative tolerance --rtol: the
ranks add the gradients in another order than one process does).

    same_training.py --nproc 2 [--rtol 1e-5] [--cwd DIR] -- PROGRAM ARGS...
"""
import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LINE = re.compile(r"^(?:\[rank 0\] )?((?:epoch|param)\s+\d+)\s+(?:loss|abs sum)\s+(\S+)$")


def numbers(text):
    return {m.group(1): float(m.group(2)) for m in map(LINE.match, text.splitlines()) if m}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--nproc", type=int, required=True)
    p.add_argument("--rtol", type=float, default=1e-5)
    p.add_argument("--cwd", default=None)
    p.add_argument("cmd", nargs=argparse.REMAINDER)
    a = p.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")}
    alone = subprocess.run(cmd, cwd=a.cwd, env=env, capture_output=True, text=True, timeout=600)
    print(alone.stdout, alone.stderr, sep="")
    if alone.returncode != 0:
        print("same_training.py: the single process failed")
        return 1
    ranks = subprocess.run([sys.executable, os.path.join(HERE, "launch.py"), "--nproc", str(a.nproc), "--timeout", "300",
                            "--"] + cmd, cwd=a.cwd, env=env, capture_output=True, text=True, timeout=600)
    print(ranks.stdout, ranks.stderr, sep="")
    if ranks.returncode != 0:
        print(f"same_training.py: the {a.nproc}-rank run failed")
        return 1
    want, got = numbers(alone.stdout), numbers(ranks.stdout)
    if not want or set(want) != set(got):
        print(f"same_training.py: the runs printed different lines: {sorted(want)} vs {sorted(got)}")
        return 1
    worst = max(abs(got[k] - want[k]) / max(abs(want[k]), 1e-30) for k in want)
    print(f"same_training.py: {len(want)} numbers agree to a relative {worst:.3g} (tolerance {a.rtol:g})")
    return 0 if worst <= a.rtol else 1


if __name__ == "__main__":
    sys.exit(main())
