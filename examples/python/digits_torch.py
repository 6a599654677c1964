"""digits_torch.py - the digits recipe (examples/digits.md) with PyTorch, as the accuracy reference.

The same model (Linear(64, 64), ReLU, Linear(64, 10); PyTorch's default initialization), the same
80/20 split sizes, Adam with lr 0.01, batches of 64 and 30 epochs, but torch's own generator, so
the numbers differ from ctorch's; the held-out accuracies agree within a percentage point
(tests/digits_accuracy.py checks that). It reads examples/data/digits.csv.gz, the same data as
digits.safetensors. Exits 0 with a message when torch is not installed.

    python3 examples/python/digits_torch.py [--epoch-times]
"""

import gzip
import os
import struct
import sys
import time

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError:
    print("digits_torch: skipped (torch is not installed)")
    sys.exit(0)

SAMPLES, TRAIN, BATCH, EPOCHS = 1797, 1437, 64, 30
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "digits.csv.gz")


def load(path):
    with gzip.open(path, "rt") as f:
        rows = [[int(v) for v in line.split(",")] for line in f if line.strip()]
    t = torch.tensor(rows, dtype=torch.int64)
    return t[:, :64].to(torch.uint8), t[:, 64]


def main(argv):
    epoch_times = "--epoch-times" in argv
    torch.manual_seed(0)
    pixels, labels = load(DATA)
    x = pixels.to(torch.float32) / 16
    perm = torch.randperm(SAMPLES)
    train, test = perm.narrow(0, 0, TRAIN), perm.narrow(0, TRAIN, SAMPLES - TRAIN)

    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    opt = torch.optim.Adam(model.parameters(), lr=0.01)

    for epoch in range(1, EPOCHS + 1):
        start = time.perf_counter()
        order = torch.randperm(TRAIN)
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
        mean = total / TRAIN
        bits = struct.unpack("<Q", struct.pack("<d", mean))[0]
        print(f"epoch {epoch:2d}  loss {mean:.9f}  bits {bits:016x}", flush=True)
        if epoch_times:
            print(f"time {epoch:2d}  ms {(time.perf_counter() - start) * 1e3:.3f}", file=sys.stderr)

    with torch.no_grad():
        pred = model(x.index_select(0, test)).argmax(1)
        correct = int((pred == labels.index_select(0, test)).sum().item())
    held_out = SAMPLES - TRAIN
    print(f"held-out accuracy {100.0 * correct / held_out:.2f}% ({correct}/{held_out})")


if __name__ == "__main__":
    main(sys.argv[1:])
