"""digits_cnn.py - a small convolutional network on the handwritten digits (1x8x8), with ctorch.nn.

    Conv2d(1, 8, 3, padding=1) -> BatchNorm2d(8) -> ReLU -> MaxPool2d(2) -> Flatten -> Linear(128, 10)

trained by Adam (lr 0.01) for 10 epochs on the data, seed, split and batches of examples/digits.md,
printing the epoch losses and the held-out accuracy (in eval mode: batch norm's running statistics).
It makes the same library calls in the same order as examples/c/digits_cnn.c, so it prints the same
bits. --torch runs the same code with PyTorch in place of ctorch (torch's generator, so other
numbers; bench/bench_training.py times both): only the module the names come from changes.

    PYTHONPATH=build/bindings/python python3 examples/python/digits_cnn.py [--epoch-times] [--torch] [DATA]
"""

import os
import struct
import sys
import time

import ctorch

SAMPLES, TRAIN, BATCH, EPOCHS = 1797, 1437, 64, 10
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "digits.safetensors")


def load(lib, path):
    """pixels and labels from the safetensors file (through ctorch), as lib's tensors."""
    data = ctorch.load_file(path)
    if lib is ctorch:
        return data["pixels"], data["labels"]
    return lib.from_numpy(data["pixels"].numpy().copy()), lib.from_numpy(data["labels"].numpy().copy())


def main(argv):
    epoch_times = "--epoch-times" in argv
    lib = ctorch
    if "--torch" in argv:
        import torch as lib
    paths = [a for a in argv if a not in ("--epoch-times", "--torch")]
    nn, F = lib.nn, lib.nn.functional

    lib.manual_seed(0)
    pixels, labels = load(lib, paths[0] if paths else DATA)
    x = (pixels.to(lib.float32) / 16).reshape(SAMPLES, 1, 8, 8)
    perm = lib.randperm(SAMPLES)
    train, test = perm.narrow(0, 0, TRAIN), perm.narrow(0, TRAIN, SAMPLES - TRAIN)

    model = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                          nn.Linear(128, 10))
    opt = lib.optim.Adam(model.parameters(), lr=0.01)

    model.train()
    for epoch in range(1, EPOCHS + 1):
        start = time.perf_counter()
        order = lib.randperm(TRAIN)
        total = 0.0
        for b in range(0, TRAIN, BATCH):
            n = min(BATCH, TRAIN - b)
            idx = train.index_select(0, order.narrow(0, b, n))
            loss = F.cross_entropy(model(x.index_select(0, idx)), labels.index_select(0, idx))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            total += loss.item() * n
        mean = total / TRAIN
        bits = struct.unpack("<Q", struct.pack("<d", mean))[0]
        print(f"epoch {epoch:2d}  loss {mean:.9f}  bits {bits:016x}", flush=True)
        if epoch_times:
            print(f"time {epoch:2d}  ms {(time.perf_counter() - start) * 1e3:.3f}", file=sys.stderr)

    model.eval()
    with lib.no_grad():
        pred = model(x.index_select(0, test)).argmax(1)
        correct = int((pred == labels.index_select(0, test)).sum().item())
    held_out = SAMPLES - TRAIN
    print(f"held-out accuracy {100.0 * correct / held_out:.2f}% ({correct}/{held_out})")


if __name__ == "__main__":
    main(sys.argv[1:])
