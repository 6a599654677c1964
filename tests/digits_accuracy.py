#!/usr/bin/env python3
"""digits_accuracy.py - ctorch's digits example against the PyTorch reference script of the same
model (examples/python/digits_torch.py): their held-out accuracies must agree within one
percentage point (examples/digits.md).

    tests/digits_accuracy.py --build-dir BUILD [--python PY]

Runs BUILD/examples/digits (the C example, whose lines every language's example reproduces) and
digits_torch.py with PY (which must have torch). Exits 77 (CTest's skip code) when torch is not
installed for PY, 1 when the accuracies differ by more than a point or a run fails.
"""

import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ACCURACY = re.compile(r"^held-out accuracy (\d+\.\d+)% \((\d+)/(\d+)\)$", re.M)


def accuracy(argv):
    r = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=600)
    m = ACCURACY.search(r.stdout)
    if r.returncode != 0 or not m:
        sys.exit(f"{' '.join(argv)} failed (exit {r.returncode}):\n{r.stdout[-2000:]}{r.stderr[-2000:]}")
    return 100.0 * int(m.group(2)) / int(m.group(3)), m.group(0)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build-dir", required=True)
    p.add_argument("--python", default=sys.executable)
    args = p.parse_args()
    if subprocess.run([args.python, "-c", "import torch"], capture_output=True).returncode != 0:
        print(f"skipped: torch is not installed for {args.python}")
        return 77
    ct, ct_line = accuracy([os.path.join(os.path.abspath(args.build_dir), "examples", "digits"),
                            os.path.join(ROOT, "examples", "data", "digits.safetensors")])
    th, th_line = accuracy([args.python, os.path.join(ROOT, "examples", "python", "digits_torch.py")])
    print(f"ctorch:  {ct_line}\nPyTorch: {th_line}\ndifference {abs(ct - th):.2f} points (at most 1 allowed)")
    return 0 if abs(ct - th) <= 1.0 else 1


if __name__ == "__main__":
    sys.exit(main())
