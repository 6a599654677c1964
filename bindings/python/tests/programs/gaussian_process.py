"""Gaussian-process regression as PyTorch users write it: an RBF kernel whose hyperparameters are fit
by Adam on the negative log marginal likelihood through a Cholesky factor, predictions with their
variances, then the same data's polynomial least squares, ridge regression and PCA whitening.

It is written for torch and imports torch; test_programs.py runs it with ctorch standing in for
torch and compares what it prints with torch's run. Data come from numpy.
"""
import math

import numpy as np
import torch

torch.set_default_dtype(torch.float64)


def data():
    rng = np.random.default_rng(7)
    x = np.sort(rng.uniform(-3, 3, 40))
    y = np.sin(1.3 * x) + 0.3 * np.cos(3.1 * x) + 0.1 * rng.standard_normal(x.size)
    return torch.from_numpy(x), torch.from_numpy(y)


class RBFRegression(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.log_lengthscale = torch.nn.Parameter(torch.tensor(0.0))
        self.log_scale = torch.nn.Parameter(torch.tensor(0.0))
        self.log_noise = torch.nn.Parameter(torch.tensor(-1.0))

    def kernel(self, a, b):
        d = torch.cdist(a[:, None], b[:, None]) / self.log_lengthscale.exp()
        return self.log_scale.exp() ** 2 * torch.exp(-0.5 * d ** 2)

    def covariance(self, x):
        return self.kernel(x, x) + torch.eye(len(x)) * self.log_noise.exp() ** 2

    def nll(self, x, y):
        L = torch.linalg.cholesky(self.covariance(x))
        alpha = torch.cholesky_solve(y[:, None], L)
        return 0.5 * (y[:, None] * alpha).sum() + torch.log(torch.diagonal(L)).sum() + 0.5 * len(x) * math.log(2 * math.pi)

    def predict(self, x, y, xs):
        K = self.covariance(x)
        L, info = torch.linalg.cholesky_ex(K)
        assert int(info) == 0
        ks = self.kernel(x, xs)
        v = torch.linalg.solve_triangular(L, ks, upper=False)
        mean = ks.T @ torch.cholesky_solve(y[:, None], L)
        var = self.log_scale.exp() ** 2 - (v * v).sum(0)
        return mean.squeeze(1), var


def main():
    x, y = data()
    gp = RBFRegression()
    opt = torch.optim.Adam(gp.parameters(), lr=0.05)
    for step in range(80):
        opt.zero_grad()
        loss = gp.nll(x, y)
        loss.backward()
        opt.step()
        if step % 20 == 19:
            print(f"step {step + 1}: nll {loss.item():.6f}")
    with torch.no_grad():
        print("lengthscale %.5f scale %.5f noise %.5f" % (gp.log_lengthscale.exp(), gp.log_scale.exp(), gp.log_noise.exp()))
        K = gp.covariance(x)
        sign, logabsdet = torch.linalg.slogdet(K)
        print(f"slogdet {sign.item():.1f} {logabsdet.item():.6f}, logdet {torch.logdet(K).item():.6f}")
        evals = torch.linalg.eigvalsh(K)
        print(f"eigenvalues {evals[0].item():.6f} .. {evals[-1].item():.6f}, cond {torch.linalg.cond(K).item():.4f}")
        xs = torch.linspace(-3, 3, 7)
        mean, var = gp.predict(x, y, xs)
        torch.set_printoptions(precision=4)
        print("mean", mean)
        print("std", var.clamp_min(0).sqrt())

        # A cubic by least squares, two ways.
        A = torch.stack([x ** k for k in range(4)], dim=1)
        coef = torch.linalg.lstsq(A, y[:, None]).solution.squeeze(1)
        print("lstsq", coef)
        print("pinv ", torch.linalg.pinv(A) @ y)
        q, r = torch.linalg.qr(A)
        print("qr   ", torch.linalg.solve_triangular(r, (q.T @ y)[:, None], upper=True).squeeze(1))
        # Ridge regression on the normal equations.
        ridge = torch.linalg.solve(A.T @ A + 0.5 * torch.eye(4), A.T @ y)
        print("ridge", ridge)
        print("residual", torch.linalg.vector_norm(A @ ridge - y).item() > torch.linalg.vector_norm(A @ coef - y).item())

        # PCA whitening of correlated 3-d points.
        rng = np.random.default_rng(3)
        mix = torch.tensor([[2.0, 0.0, 0.0], [1.2, 0.5, 0.0], [-0.7, 0.3, 0.2]])
        pts = torch.from_numpy(rng.standard_normal((200, 3))) @ mix.T
        centered = pts - pts.mean(0)
        cov = centered.T @ centered / (len(pts) - 1)
        evals, evecs = torch.linalg.eigh(cov)
        print("cov eigenvalues", evals)
        white = centered @ evecs / evals.sqrt()
        print("whitened cov", torch.cov(white.T).diagonal())
        U, S, Vh = torch.linalg.svd(centered, full_matrices=False)
        print("singular values squared / (n-1)", (S ** 2 / (len(pts) - 1)).flip(0))
        print("rank", torch.linalg.matrix_rank(centered).item(), "of a rank-2 product", torch.linalg.matrix_rank(centered[:, :2] @ mix[:2]).item())
        print("norms %.10f %.10f %.10f" % (torch.linalg.matrix_norm(cov), torch.linalg.matrix_norm(cov, ord=2), torch.linalg.norm(cov, "nuc")))
        print("inverse check", torch.allclose(torch.linalg.inv(cov) @ cov, torch.eye(3)), torch.det(cov).item() > 0)
        print("expm trace", torch.linalg.matrix_exp(cov / 10).trace().item(), torch.linalg.matrix_power(cov, 3).trace().item())


if __name__ == "__main__":
    main()
