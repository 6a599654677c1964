"""A small classifier trained as everyday PyTorch code trains one: a Dataset and a DataLoader with
workers, an nn.Module, AdamW with decay and no-decay parameter groups, a cosine schedule, gradient
clipping, accuracy from x.max(1), a checkpoint saved with torch.save and resumed with torch.load.

It is written for torch and imports torch; test_programs.py runs it with ctorch standing in for
torch and compares what it prints with torch's run. Initial weights come from numpy, so both runs
start from the same numbers (each library's own generator would draw different ones).
"""
import os
import sys
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


class Blobs(Dataset):
    """Two Gaussian blobs in 4-D, labelled 0 and 1."""

    def __init__(self, n, seed):
        rng = np.random.default_rng(seed)
        self.y = rng.integers(0, 2, size=n)
        self.x = (rng.standard_normal((n, 4)) + 1.5 * self.y[:, None]).astype(np.float32)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return torch.from_numpy(self.x[i]), int(self.y[i])


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Dropout(0.0), nn.Linear(16, 2))

    def forward(self, x):
        return self.net(x)


def init_from_numpy(model, seed):
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.from_numpy((rng.standard_normal(tuple(p.shape)) * 0.3).astype(np.float32)))


def configure_optimizers(model, lr):
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    groups = [{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=lr, betas=(0.9, 0.95))


def evaluate(model, loader):
    model.eval()
    correct, total, loss_sum = 0, 0, 0.0
    with torch.no_grad():
        for x, y in loader:
            logits = model(x)
            loss_sum += F.cross_entropy(logits, y, reduction="sum").item()
            correct += (logits.max(1).indices == y).sum().item()
            total += y.numel()
    model.train()
    return loss_sum / total, correct / total


def main():
    torch.backends.cudnn.benchmark = True
    device = "cuda" if torch.cuda.is_available() and os.environ.get("USE_CUDA") else "cpu"
    train = DataLoader(Blobs(96, 0), batch_size=16, shuffle=False, num_workers=2)
    test = DataLoader(Blobs(64, 1), batch_size=32)
    model = MLP().to(device)
    init_from_numpy(model, 2)
    opt = configure_optimizers(model, lr=0.02)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=6)
    ckpt = os.path.join(tempfile.mkdtemp(), "ckpt.pt")
    for epoch in range(1, 7):
        for step, (x, y) in enumerate(train):
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
        sched.step()
        test_loss, acc = evaluate(model, test)
        print(f"epoch {epoch} loss {loss:.4f} norm {norm:.3f} test {test_loss:.4f} acc {acc:.3f} "
              f"lr {sched.get_last_lr()[0]:.5f}")
        if epoch == 3:
            torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": epoch}, ckpt)
    # Resume from the checkpoint: a new model and optimizer continue as the first did.
    state = torch.load(ckpt)
    resumed = MLP()
    resumed.load_state_dict(state["model"])
    opt2 = configure_optimizers(resumed, lr=0.02)
    opt2.load_state_dict(state["optimizer"])
    x, y = next(iter(train))
    print(f"resumed at epoch {state['epoch']}: loss {F.cross_entropy(resumed(x), y).item():.4f}")
    probs = F.softmax(model(x), dim=-1)
    print("probabilities sum to 1:", torch.allclose(probs.sum(-1), torch.ones(len(x))))
    print("groups:", [round(g["weight_decay"], 2) for g in opt.param_groups])
    return 0


if __name__ == "__main__":
    sys.exit(main())
