"""bench_volumetric.py - the composites this library builds from its 2-D kernels and gathers, each
beside torch from one run, with the ratio: conv3d and conv_transpose3d (one conv2d /
conv_transpose2d over the depth folded into batch and channels), max_pool3d and avg_pool3d (a 2-D
pass, then one along the depth), F.unfold / F.fold, grid_sample, ctc_loss and embedding_bag;
forward and backward.

    PYTHONPATH=build/bindings/python /usr/bin/python3 bench/bench_volumetric.py

Each row is the best of 5 repetitions of 3 calls after a warm-up call, all threads, float32.
Timings are reported, never asserted (DESIGN.md section 13)."""

import timeit

import numpy as np

RNG = np.random.default_rng(0)
VOLUME = RNG.standard_normal((4, 16, 16, 32, 32)).astype(np.float32)
WEIGHT3 = (RNG.standard_normal((32, 16, 3, 3, 3)) * 0.1).astype(np.float32)
WEIGHT3T = (RNG.standard_normal((16, 8, 3, 3, 3)) * 0.1).astype(np.float32)
IMAGE = RNG.standard_normal((8, 16, 64, 64)).astype(np.float32)
GRID = RNG.uniform(-1, 1, (8, 64, 64, 2)).astype(np.float32)
LOGITS = RNG.standard_normal((100, 16, 30)).astype(np.float32)
TARGETS = RNG.integers(1, 30, (16, 30))
TABLE = RNG.standard_normal((10000, 64)).astype(np.float32)
WORDS = RNG.integers(0, 10000, 4096)
STARTS = np.arange(0, 4096, 16)


def cases(m):
    F = m.nn.functional

    def grad_of(fn, *arrays):
        tensors = [m.tensor(a, requires_grad=True) for a in arrays]

        def run():
            for t in tensors:
                t.grad = None
            fn(*tensors).sum().backward()
        return run

    v, w3, w3t = m.tensor(VOLUME), m.tensor(WEIGHT3), m.tensor(WEIGHT3T)
    img, grid = m.tensor(IMAGE), m.tensor(GRID)
    cols = F.unfold(img, 3, padding=1)
    return {
        "conv3d [4,16,16,32,32] k3": lambda: F.conv3d(v, w3, padding=1),
        "conv3d forward+backward": grad_of(lambda x, w: F.conv3d(x, w, padding=1), VOLUME, WEIGHT3),
        "conv_transpose3d stride 2": lambda: F.conv_transpose3d(v, w3t, stride=2),
        "max_pool3d k3 s2 p1": lambda: F.max_pool3d(v, 3, 2, 1),
        "avg_pool3d k2": lambda: F.avg_pool3d(v, 2),
        "max_pool3d forward+backward": grad_of(lambda x: F.max_pool3d(x, 3, 2, 1), VOLUME),
        "unfold [8,16,64,64] k3": lambda: F.unfold(img, 3, padding=1),
        "fold back": lambda: F.fold(cols, (64, 64), 3, padding=1),
        "grid_sample bilinear": lambda: F.grid_sample(img, grid, align_corners=False),
        "grid_sample forward+backward": grad_of(lambda x, g: F.grid_sample(x, g, align_corners=False), IMAGE, GRID),
        "ctc_loss T=100 N=16 C=30 fwd+bwd": grad_of(
            lambda x: F.ctc_loss(x.log_softmax(2), m.tensor(TARGETS), [100] * 16, [30] * 16), LOGITS),
        "embedding_bag mean 256 bags": grad_of(
            lambda t: F.embedding_bag(m.tensor(WORDS), t, m.tensor(STARTS)), TABLE),
    }


def main():
    import ctorch  # before torch: libctorch's initial-exec TLS must fit in the static TLS block
    import torch

    torch.set_num_threads(ctorch.get_num_threads())
    print(f"{ctorch.get_num_threads()} threads; ctorch {ctorch.__version__}, torch {torch.__version__}\n")
    print(f"{'case':36s} {'ctorch ms':>10s} {'torch ms':>10s} {'torch / ctorch':>15s}")
    ours, theirs = cases(ctorch), cases(torch)
    for name in ours:
        times = []
        for fn in (ours[name], theirs[name]):
            fn()
            times.append(min(timeit.repeat(fn, number=3, repeat=5)) / 3)
        print(f"{name:36s} {times[0] * 1e3:10.2f} {times[1] * 1e3:10.2f} {times[1] / times[0]:14.2f}x")


if __name__ == "__main__":
    main()
