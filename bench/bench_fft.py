"""bench_fft.py - torch.fft: one-dimensional transforms of 2^20 points (a power of two) and of 15015 =
3*5*7*11*13 points (odd mixed radix), a prime length (Bluestein's algorithm in ctorch), a batch of
short transforms, a 2-D transform, and the short-time transforms of 8 signals of 2^16 samples (n_fft
512, hop 128, a Hann window: a spectrogram of 4 s of 16 kHz audio each), ctorch beside torch and
numpy (which has no stft) from one run.

    PYTHONPATH=build/bindings/python ~/.cache/ctorch/bench-torch-venv/bin/python bench/bench_fft.py
    PYTHONPATH=build/bindings/python /usr/bin/python3 bench/bench_fft.py     # Debian's torch 1.13

Each row is the best of 5 repetitions of a few calls after one warm-up call, all threads. The ratio
is torch's time over ctorch's (above 1: ctorch is faster); numpy's column is its pocketfft on one
thread. Timings are reported, never asserted."""

import timeit


def cases(lib, np):
    rng = np.random.default_rng(0)

    def real(*shape):
        return lib.tensor(rng.standard_normal(shape)).float() if lib is not np else rng.standard_normal(shape).astype(np.float32)

    def cplx(*shape):
        a = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)
        return a if lib is np else lib.tensor(a)

    big, big_real = cplx(1 << 20), real(1 << 20)
    odd, odd_real = cplx(15015), real(15015)
    prime = cplx(10007)
    batch = real(256, 1024)
    image = real(1024, 1024)
    f = lib.fft
    audio = real(8, 1 << 16)
    if lib is np:
        stft = istft = None
    else:
        window = lib.hann_window(512)
        spectrogram = lib.stft(audio, 512, 128, window=window, return_complex=True)

        def stft():
            return lib.stft(audio, 512, 128, window=window, return_complex=True)

        def istft():
            return lib.istft(spectrogram, 512, 128, window=window, length=1 << 16)
    return [
        ("fft 2^20 complex64", lambda: f.fft(big)),
        ("rfft 2^20 float32", lambda: f.rfft(big_real)),
        ("ifft 2^20 complex64", lambda: f.ifft(big)),
        ("fft 15015 complex64", lambda: f.fft(odd)),
        ("rfft 15015 float32", lambda: f.rfft(odd_real)),
        ("fft 10007 (prime)", lambda: f.fft(prime)),
        ("rfft 256 x 1024 (batch)", lambda: f.rfft(batch)),
        ("fft2 1024 x 1024 float32", lambda: f.fft2(image)),
        ("stft 8 x 2^16, n_fft 512", stft),
        ("istft 8 x 2^16, n_fft 512", istft),
    ]


def seconds(fn, number):
    fn()
    return min(timeit.repeat(fn, number=number, repeat=5)) / number


def main():
    import ctorch  # before torch: libctorch's initial-exec TLS must fit in the static TLS block
    import numpy as np
    import torch

    torch.set_num_threads(ctorch.get_num_threads())
    print(f"torch.fft, {ctorch.get_num_threads()} threads; ctorch {ctorch.__version__}, torch {torch.__version__}, "
          f"numpy {np.__version__}")
    print(f"\n{'':28s} {'ctorch us':>10s} {'torch us':>10s} {'numpy us':>10s} {'ratio':>7s}")
    for (name, c), (_, t), (_, n) in zip(cases(ctorch, np), cases(torch, np), cases(np, np)):
        number = 3 if "2^20" in name or "1024 x 1024" in name or "2^16" in name else 20
        tc, tt = seconds(c, number), seconds(t, number)
        numpy_us = f"{seconds(n, number) * 1e6:10.1f}" if n else f"{'-':>10s}"
        print(f"{name:28s} {tc * 1e6:10.1f} {tt * 1e6:10.1f} {numpy_us} {tt / tc:7.2f}")


if __name__ == "__main__":
    main()
