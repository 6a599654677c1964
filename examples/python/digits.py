"""digits.py - a multilayer perceptron trained on the handwritten digits with ctorch.nn.

Follows examples/digits.md call for call, so it prints bitwise the lines of examples/c/digits.c
(and of the other languages' digits examples); CTest's digits.same_in_every_language compares them.

    PYTHONPATH=build/bindings/python python3 examples/python/digits.py [--epoch-times] [DATA]

DATA defaults to examples/data/digits.safetensors beside this file's folder. --epoch-times also
prints each epoch's wall time to stderr ("time  1  ms 12.345"), for bench/bench_training.py.
"""

import os
import struct
import sys
import time

import ctorch
import ctorch.nn as nn
import ctorch.nn.functional as F

SAMPLES, TRAIN, BATCH, EPOCHS = 1797, 1437, 64, 30
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "digits.safetensors")


def main(argv):
    epoch_times = "--epoch-times" in argv
    paths = [a for a in argv if a != "--epoch-times"]
    path = paths[0] if paths else DATA

    ctorch.manual_seed(0)                                               # 1
    data = ctorch.load_file(path)                                       # 2
    x, labels = data["pixels"].to(ctorch.float32) / 16, data["labels"]
    perm = ctorch.randperm(SAMPLES)                                     # 3
    train, test = perm.narrow(0, 0, TRAIN), perm.narrow(0, TRAIN, SAMPLES - TRAIN)

    # 4: Linear makes its weight and bias with empty and fills them with init.linear_.
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    opt = ctorch.optim.Adam(model.parameters(), lr=0.01)                # 5: W1, b1, W2, b2

    for epoch in range(1, EPOCHS + 1):                                  # 6
        start = time.perf_counter()
        order = ctorch.randperm(TRAIN)
        total = 0.0
        for b in range(0, TRAIN, BATCH):
            n = min(BATCH, TRAIN - b)
            idx = train.index_select(0, order.narrow(0, b, n))
            xb, yb = x.index_select(0, idx), labels.index_select(0, idx)
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            total += loss.item() * n
        mean = total / TRAIN                                            # 7
        bits = struct.unpack("<Q", struct.pack("<d", mean))[0]
        print(f"epoch {epoch:2d}  loss {mean:.9f}  bits {bits:016x}", flush=True)
        if epoch_times:
            print(f"time {epoch:2d}  ms {(time.perf_counter() - start) * 1e3:.3f}", file=sys.stderr)

    with ctorch.no_grad():                                              # 8
        x_test, y_test = x.index_select(0, test), labels.index_select(0, test)
        pred = model(x_test).argmax(1)
        correct = int((pred == y_test).sum().item())
    held_out = SAMPLES - TRAIN
    print(f"held-out accuracy {100.0 * correct / held_out:.2f}% ({correct}/{held_out})")


if __name__ == "__main__":
    main(sys.argv[1:])
