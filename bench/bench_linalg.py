"""bench_linalg.py - torch.linalg on LAPACK: inv, solve, det, cholesky, qr, eigh, eig, eigvals, svd of
one 512 x 512 matrix (float64 and float32), the complex128 forms, and the same on a batch
of 4096 8 x 8 matrices; then the randomized svd_lowrank and pca_lowrank of a 4000 x 1000 matrix of
rank 20; ctorch beside torch from one run,
both on their LAPACK (ctorch: OpenBLAS's; torch: the one it was built with, MKL's for the wheel).

    PYTHONPATH=build/bindings/python ~/.cache/ctorch/bench-torch-venv/bin/python bench/bench_linalg.py
    PYTHONPATH=build/bindings/python /usr/bin/python3 bench/bench_linalg.py     # Debian's torch 1.13
    ... bench/bench_linalg.py low     # only the sections whose title contains "low"

Each row is the best of 5 repetitions after one warm-up call, all threads. The ratio is torch's time
over ctorch's (above 1: ctorch is faster). Timings are reported, never asserted (DESIGN.md §13)."""

import sys
import timeit


def cases(lib, dtype, n, batch):
    lib.manual_seed(0)
    shape = (batch, n, n) if batch else (n, n)
    a = lib.randn(*shape, dtype=dtype)
    eye = lib.eye(n, dtype=dtype)
    well = a + n * eye  # far from singular
    spd = a @ a.mT + n * eye
    sym = a + a.mT
    b = lib.randn(*(shape[:-1] + (16,)), dtype=dtype)
    return [
        ("inv", lambda: lib.linalg.inv(well)),
        ("solve (16 rhs)", lambda: lib.linalg.solve(well, b)),
        ("det", lambda: lib.linalg.det(well)),
        ("cholesky", lambda: lib.linalg.cholesky(spd)),
        ("qr", lambda: lib.linalg.qr(a)),
        ("eigh", lambda: lib.linalg.eigh(sym)),
        ("eig", lambda: lib.linalg.eig(a)),
        ("eigvals", lambda: lib.linalg.eigvals(a)),
        ("svd (reduced)", lambda: lib.linalg.svd(a, full_matrices=False)),
    ]


def complex_cases(lib, n, batch):
    """The complex128 forms (LAPACK's z* routines)."""
    lib.manual_seed(0)
    shape = (batch, n, n) if batch else (n, n)
    a = lib.complex(lib.randn(*shape, dtype=lib.float64), lib.randn(*shape, dtype=lib.float64))
    well = a + n * lib.eye(n, dtype=lib.float64)
    b = lib.complex(lib.randn(*(shape[:-1] + (16,)), dtype=lib.float64), lib.randn(*(shape[:-1] + (16,)),
                                                                                  dtype=lib.float64))
    herm = a @ a.mH + n * lib.eye(n, dtype=lib.float64)
    return [
        ("inv", lambda: lib.linalg.inv(well)),
        ("solve (16 rhs)", lambda: lib.linalg.solve(well, b)),
        ("det", lambda: lib.linalg.det(well)),
        ("cholesky", lambda: lib.linalg.cholesky(herm)),
        ("qr", lambda: lib.linalg.qr(a)),
        ("eigh", lambda: lib.linalg.eigh(herm)),
        ("eig", lambda: lib.linalg.eig(a)),
        ("svd (reduced)", lambda: lib.linalg.svd(a, full_matrices=False)),
    ]


def low_rank_cases(lib, dtype):
    """A 4000 x 1000 matrix of rank 20: the randomized SVD with q = 30 (torch's default niter, 2)."""
    lib.manual_seed(0)
    a = lib.randn(4000, 20, dtype=dtype) @ lib.randn(20, 1000, dtype=dtype)
    return [
        ("svd_lowrank (q 30)", lambda: lib.svd_lowrank(a, q=30)),
        ("pca_lowrank (q 30)", lambda: lib.pca_lowrank(a, q=30)),
    ]


def seconds(fn):
    fn()
    return min(timeit.repeat(fn, number=1, repeat=5))


def main():
    import ctorch  # before torch: libctorch's initial-exec TLS must fit in the static TLS block
    import torch

    torch.set_num_threads(ctorch.get_num_threads())
    print(f"torch.linalg, {ctorch.get_num_threads()} threads; ctorch {ctorch.__version__}, torch {torch.__version__}")
    sections = []
    for n, batch in ((512, 0), (8, 4096)):
        for dt in ("float64", "float32", "complex128"):
            label = f"{n} x {n}" if not batch else f"{batch} x {n} x {n}"
            if dt == "complex128":
                sections.append((f"{label} {dt:8s}", lambda n=n, batch=batch: (complex_cases(ctorch, n, batch),
                                                                                complex_cases(torch, n, batch))))
            else:
                sections.append((f"{label} {dt:8s}", lambda n=n, batch=batch, dt=dt: (
                    cases(ctorch, getattr(ctorch, dt), n, batch), cases(torch, getattr(torch, dt), n, batch))))
    for dt in ("float64", "float32"):
        sections.append((f"low rank {dt:8s}", lambda dt=dt: (low_rank_cases(ctorch, getattr(ctorch, dt)),
                                                             low_rank_cases(torch, getattr(torch, dt)))))
    only = sys.argv[1] if len(sys.argv) > 1 else ""
    for title, make in sections:
        if only not in title:
            continue
        print(f"\n{title} {'ctorch ms':>10s} {'torch ms':>10s} {'ratio':>7s}")
        ct_cases, th_cases = make()
        for (name, ct_fn), (_, th_fn) in zip(ct_cases, th_cases):
            ct, th = seconds(ct_fn), seconds(th_fn)
            print(f"{name:22s} {ct * 1e3:10.2f} {th * 1e3:10.2f} {th / ct:6.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
