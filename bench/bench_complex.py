"""bench_complex.py - complex tensors: elementwise arithmetic and math over 2^20 complex64 elements,
their sum, and matrix products of 256 x 256 complex64 and complex128 matrices (cgemm, zgemm),
ctorch beside torch from one run.

    PYTHONPATH=build/bindings/python ~/.cache/ctorch/bench-torch-venv/bin/python bench/bench_complex.py
    PYTHONPATH=build/bindings/python /usr/bin/python3 bench/bench_complex.py     # Debian's torch 1.13

Each row is the best of 5 repetitions of 10 calls after one warm-up call, all threads. The ratio is
torch's time over ctorch's (above 1: ctorch is faster). Timings are reported, never asserted."""

import timeit


def cases(lib):
    lib.manual_seed(0)
    n = 1 << 20
    z = lib.complex(lib.randn(n), lib.randn(n))
    w = lib.complex(lib.randn(n), lib.randn(n))
    m64 = lib.complex(lib.randn(256, 256), lib.randn(256, 256))
    m128 = m64.to(lib.complex128)
    return [
        ("z * w (2^20 complex64)", lambda: z * w),
        ("z / w", lambda: z / w),
        ("z + 1j * w", lambda: z + 1j * w),
        ("abs(z)", lambda: z.abs()),
        ("exp(z)", lambda: z.exp()),
        ("z.sum()", lambda: z.sum()),
        ("complex(re, im)", lambda: lib.complex(z.real, z.imag)),
        ("matmul 256 complex64", lambda: m64 @ m64),
        ("matmul 256 complex128", lambda: m128 @ m128),
    ]


def seconds(fn):
    fn()
    return min(timeit.repeat(fn, number=10, repeat=5)) / 10


def main():
    import ctorch  # before torch: libctorch's initial-exec TLS must fit in the static TLS block
    import torch

    torch.set_num_threads(ctorch.get_num_threads())
    print(f"complex tensors, {ctorch.get_num_threads()} threads; ctorch {ctorch.__version__}, torch {torch.__version__}")
    print(f"\n{'':28s} {'ctorch us':>10s} {'torch us':>10s} {'ratio':>7s}")
    for (name, c), (_, t) in zip(cases(ctorch), cases(torch)):
        tc, tt = seconds(c), seconds(t)
        print(f"{name:28s} {tc * 1e6:10.1f} {tt * 1e6:10.1f} {tt / tc:7.2f}")


if __name__ == "__main__":
    main()
