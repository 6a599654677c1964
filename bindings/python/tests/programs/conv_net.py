"""A small convolutional classifier trained as the everyday PyTorch CNN tutorials train one: inputs
ZCA-whitened with torch.linalg.eigh of their covariance, a TensorDataset and a DataLoader, Conv2d /
BatchNorm2d / ReLU / MaxPool2d blocks ending in adaptive average pooling over the columns and a
linear layer, SGD with
Nesterov momentum and weight decay, StepLR, model.train() and model.eval() switching batch norm
between batch and running statistics, and the running statistics printed at the end.

It is written for torch and imports torch; test_programs.py runs it with ctorch standing in for
torch and compares what it prints with torch's run. Images and weights come from numpy and the loader
does not shuffle, so both runs compute the same numbers, up to float32 rounding that five epochs of
SGD carry to about 1e-5 in the loss: it is printed to three decimals.
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

SIZE = 10


def make_images(n, seed):
    """Noisy images of a horizontal (class 0) or a vertical (class 1) bar at a random place."""
    rng = np.random.default_rng(seed)
    images = rng.standard_normal((n, 1, SIZE, SIZE)).astype(np.float32) * 0.5
    labels = rng.integers(0, 2, size=n)
    for i, (label, at) in enumerate(zip(labels, rng.integers(1, SIZE - 1, size=n))):
        if label == 0:
            images[i, 0, at, :] += 2.0
        else:
            images[i, 0, :, at] += 2.0
    return torch.from_numpy(images), torch.from_numpy(labels)


def zca(train):
    """The ZCA whitening of the flattened training images: V diag(1 / sqrt(L + eps)) V^T from the
    eigendecomposition of their covariance (the same for either sign of each eigenvector)."""
    flat = train.reshape(train.size(0), -1)
    mean = flat.mean(0, keepdim=True)
    centered = flat - mean
    cov = centered.T @ centered / (flat.size(0) - 1)
    eigenvalues, eigenvectors = torch.linalg.eigh(cov)
    print(f"covariance eigenvalues: smallest {eigenvalues[0].item():.4f}, largest {eigenvalues[-1].item():.4f}, "
          f"condition {torch.linalg.cond(cov).item():.2f}")
    w = eigenvectors @ torch.diag(1.0 / torch.sqrt(eigenvalues + 0.1)) @ eigenvectors.T
    return lambda images: ((images.reshape(images.size(0), -1) - mean) @ w).reshape(images.shape)


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3), nn.BatchNorm2d(16), nn.ReLU(), nn.AdaptiveAvgPool2d((3, 1)))
        self.classifier = nn.Linear(16 * 3, 2)

    def forward(self, x):
        return self.classifier(torch.flatten(self.features(x), 1))


def init_from_numpy(model, seed):
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for module in model.modules():  # batch norm keeps its ones and zeros
            if isinstance(module, (nn.Conv2d, nn.Linear)):
                fan_in = module.weight[0].numel()
                w = rng.standard_normal(tuple(module.weight.shape)) / np.sqrt(fan_in)
                module.weight.copy_(torch.from_numpy(w.astype(np.float32)))
                module.bias.zero_()


def main():
    images, labels = make_images(256, seed=0)
    test_images, test_labels = make_images(128, seed=1)
    whiten = zca(images)
    loader = DataLoader(TensorDataset(whiten(images), labels), batch_size=32, shuffle=False)
    model = ConvNet()
    init_from_numpy(model, seed=2)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    for epoch in range(5):
        model.train()
        total, correct = 0.0, 0
        for x, y in loader:
            out = model(x)
            loss = F.cross_entropy(out, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * x.size(0)
            correct += (out.argmax(1) == y).sum().item()
        sched.step()
        model.eval()
        with torch.no_grad():
            test_accuracy = (model(whiten(test_images)).argmax(1) == test_labels).float().mean().item()
        print(f"epoch {epoch}: loss {total / len(loader.dataset):.3f} train accuracy {correct / 256:.4f} "
              f"test accuracy {test_accuracy:.4f} lr {sched.get_last_lr()[0]:.4f}")
    bn = model.features[1]
    print(f"batches tracked {bn.num_batches_tracked.item()}, running mean {bn.running_mean.abs().mean().item():.4f}, "
          f"running var {bn.running_var.mean().item():.3f}")


if __name__ == "__main__":
    main()
