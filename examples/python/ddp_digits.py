"""ddp_digits.py - the digits MLP (examples/digits.md) trained data-parallel with
ctorch.nn.parallel.DistributedDataParallel over ctorch.distributed's gloo backend.

Every rank holds the same 64-64-10 perceptron and takes its share of each batch of 64; DDP averages
the gradients over the ranks while backward runs, so each Adam step sees the gradient of the whole
batch and the ranks stay equal. Start it with the launcher (torchrun's flags):

    PYTHONPATH=build/bindings/python python3 -m ctorch.distributed.run --nproc-per-node 2 \\
        examples/python/ddp_digits.py [--epochs N] [--check] [DATA]

Rank 0 prints each epoch's mean loss over the whole training set and the held-out accuracy. With
--check, rank 0 then trains the same recipe in its own process over the full batches and fails
unless its data-parallel weights are allclose to those. Run without the launcher (no RANK in the
environment), it trains in one process.
"""

import os
import sys
from datetime import timedelta

import ctorch
import ctorch.distributed as dist
import ctorch.nn as nn
import ctorch.nn.functional as F
from ctorch.nn.parallel import DistributedDataParallel as DDP

SAMPLES, TRAIN, BATCH = 1797, 1437, 64
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "digits.safetensors")
# Over 30 epochs (690 Adam steps) the last-bit differences of summing each batch in two parts grow to
# about 1e-4 in the first layer (2 epochs stay within 1e-6: bindings/python/tests/test_distributed.py).
RTOL, ATOL = 1e-3, 1e-4


def train(path, epochs, distributed, log):
    """The recipe; distributed, each rank takes rows [len * rank / world, len * (rank + 1) / world)
    of every batch, and returns the model with its test split."""
    rank, world = (dist.get_rank(), dist.get_world_size()) if distributed else (0, 1)
    ctorch.manual_seed(0)  # the same data order on every rank (and the same initial weights, which DDP makes sure of)
    data = ctorch.load_file(path)
    x, labels = data["pixels"].to(ctorch.float32) / 16, data["labels"]
    perm = ctorch.randperm(SAMPLES)
    train_idx, test_idx = perm.narrow(0, 0, TRAIN), perm.narrow(0, TRAIN, SAMPLES - TRAIN)
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    if distributed:
        model = DDP(model)
    opt = ctorch.optim.Adam(model.parameters(), lr=0.01)
    for epoch in range(1, epochs + 1):
        order = ctorch.randperm(TRAIN)
        total = ctorch.zeros(1, dtype=ctorch.float64)
        for b in range(0, TRAIN, BATCH):
            n = min(BATCH, TRAIN - b)
            lo, hi = n * rank // world, n * (rank + 1) // world
            idx = train_idx.index_select(0, order.narrow(0, b + lo, hi - lo))
            loss_sum = F.cross_entropy(model(x.index_select(0, idx)), labels.index_select(0, idx), reduction="sum")
            # DDP averages over the ranks: world * (this rank's sum) / n averages to the batch's mean
            # even when the shares differ in size (the last batch of 29).
            loss = loss_sum * (world / n)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            total += loss_sum.detach().to(ctorch.float64)
        if distributed:
            dist.all_reduce(total)
        if log:
            print(f"epoch {epoch:2d}  loss {total.item() / TRAIN:.6f}", flush=True)
    return (model.module if distributed else model), x.index_select(0, test_idx), labels.index_select(0, test_idx)


def main(argv):
    check = "--check" in argv
    epochs = 30
    if "--epochs" in argv:
        epochs = int(argv[argv.index("--epochs") + 1])
    paths = [a for i, a in enumerate(argv) if not a.startswith("--") and (i == 0 or argv[i - 1] != "--epochs")]
    path = paths[0] if paths else DATA

    distributed = "RANK" in os.environ
    if distributed and not dist.is_gloo_available():
        if os.environ["RANK"] == "0":
            print("skipped: ctorch was built without the gloo engine (install libgloo-dev and rebuild)")
        return 0
    if distributed:
        dist.init_process_group("gloo", timeout=timedelta(seconds=120))
    rank = dist.get_rank() if distributed else 0
    model, x_test, y_test = train(path, epochs, distributed, log=rank == 0)
    if distributed:
        dist.destroy_process_group()
    if rank != 0:
        return 0
    with ctorch.no_grad():
        correct = int((model(x_test).argmax(1) == y_test).sum().item())
    print(f"held-out accuracy {100.0 * correct / len(y_test):.2f}% ({correct}/{len(y_test)})")
    if check:
        print("one process over the full batches:")
        reference, _, _ = train(path, epochs, False, log=False)
        ok = True
        for (name, got), want in zip(model.state_dict().items(), reference.state_dict().values()):
            diff = (got - want).abs()
            share = (diff / (want.abs() * RTOL + ATOL)).max().item()  # the worst element, as a share of allclose's bound
            close = ctorch.allclose(got, want, rtol=RTOL, atol=ATOL)
            ok &= close
            print(f"{name:9} max |difference| {diff.max().item():.3e} ({100 * share:.0f}% of the tolerance)"
                  f"{'' if close else '  NOT allclose'}")
        if not ok:
            print(f"data-parallel weights differ from one process's (rtol {RTOL:g}, atol {ATOL:g})", file=sys.stderr)
            return 1
        print(f"data-parallel weights allclose to one process's (rtol {RTOL:g}, atol {ATOL:g})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
