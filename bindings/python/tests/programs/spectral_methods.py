"""Spectral methods as PyTorch code writes them: a signal denoised in the frequency domain
(torch.fft.fft, fftfreq, fftshift, a mask, ifft), and a heat equation stepped exactly through rfft
and checked through rfft2.

It is written for torch and imports torch; test_programs.py runs it with ctorch standing in for
torch and compares what it prints with torch's run. Data come from numpy.
"""
import math

import numpy as np
import torch


def denoise():
    rng = np.random.default_rng(11)
    n, dt = 256, 1 / 256
    t = torch.arange(n) * dt
    clean = torch.sin(2 * math.pi * 12 * t) + 0.5 * torch.cos(2 * math.pi * 31 * t)
    noisy = clean + 0.4 * torch.from_numpy(rng.standard_normal(n)).float()
    spectrum = torch.fft.fft(noisy)
    freqs = torch.fft.fftfreq(n, d=dt)
    power = spectrum.abs() ** 2 / n
    peaks = torch.topk(power[: n // 2], 2).indices.sort().values
    print("peak frequencies", freqs[peaks].tolist())
    kept = torch.where(power > 10, spectrum, torch.zeros_like(spectrum))
    restored = torch.fft.ifft(kept).real
    print(f"error before {torch.sqrt(((noisy - clean) ** 2).mean()):.4f} after {torch.sqrt(((restored - clean) ** 2).mean()):.4f}")
    shifted = torch.fft.fftshift(freqs)
    print("shifted ends", shifted[0].item(), shifted[-1].item(), "round trip", torch.equal(torch.fft.ifftshift(shifted), freqs))
    phase = torch.angle(spectrum[12]).item()
    print(f"phase at 12 Hz {phase:.4f}, magnitude {spectrum[12].abs().item():.3f}")


def heat():
    # u_t = nu u_xx on [0, 2 pi), stepped exactly in Fourier space.
    n, nu = 128, 0.1
    x = torch.arange(n, dtype=torch.float64) * 2 * math.pi / n
    u0 = torch.exp(-4 * (x - math.pi) ** 2)
    k = torch.fft.rfftfreq(n, d=1 / n)
    u_hat = torch.fft.rfft(u0)
    for time in (0.1, 1.0):
        u = torch.fft.irfft(u_hat * torch.exp(-nu * k ** 2 * time), n=n)
        print(f"t={time}: max {u.max().item():.6f}, mass {u.sum().item() * 2 * math.pi / n:.6f}")
    grid = torch.fft.rfft2(torch.outer(u0, u0), norm="ortho")
    back = torch.fft.irfft2(grid, s=(n, n), norm="ortho")
    print("rfft2 round trip", torch.allclose(back, torch.outer(u0, u0)), tuple(grid.shape))


if __name__ == "__main__":
    denoise()
    heat()
