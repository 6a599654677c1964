"""Curve fitting as scientific PyTorch code does it: a damped oscillation fit by LBFGS with the
strong-Wolfe line search (closures, float64), then refined by a hand-written optimizer subclassing
torch.optim.Optimizer under a StepLR schedule, an averaged-SGD run whose average weights are read
from optimizer.state, Rprop, and the results printed with torch.set_printoptions.

It is written for torch and imports torch; test_programs.py runs it with ctorch standing in for
torch and compares what it prints with torch's run. Data and starting points come from numpy.
"""
import numpy as np
import torch
from torch.optim.optimizer import Optimizer, required

torch.set_default_dtype(torch.float64)


class Oscillation(torch.nn.Module):
    """a * exp(-d t) * sin(w t + p) + c"""

    def __init__(self, start):
        super().__init__()
        self.params = torch.nn.Parameter(torch.tensor(start))

    def forward(self, t):
        a, d, w, p, c = self.params
        return a * torch.exp(-d * t) * torch.sin(w * t + p) + c


class SignMomentum(Optimizer):
    """A momentum step along the gradient's sign, as a user writes an optimizer."""

    def __init__(self, params, lr=required, momentum=0.9):
        super().__init__(params, dict(lr=lr, momentum=momentum))

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                buf = self.state[p].setdefault("buf", torch.zeros_like(p))
                buf.mul_(group["momentum"]).add_(torch.sign(p.grad))
                p.add_(buf, alpha=-group["lr"])


def data():
    rng = np.random.default_rng(4)
    t = np.linspace(0, 6, 80)
    y = 1.7 * np.exp(-0.35 * t) * np.sin(2.2 * t + 0.4) + 0.25 + 0.02 * rng.standard_normal(t.size)
    return torch.tensor(t), torch.tensor(y)


def mse(model, t, y):
    return ((model(t) - y) ** 2).mean()


def main():
    t, y = data()
    model = Oscillation([1.0, 0.2, 2.0, 0.0, 0.0])
    lbfgs = torch.optim.LBFGS(model.parameters(), max_iter=30, line_search_fn="strong_wolfe")

    def closure():
        lbfgs.zero_grad()
        loss = mse(model, t, y)
        loss.backward()
        return loss

    for step in range(4):
        loss = lbfgs.step(closure)
        print(f"lbfgs step {step}: loss before {float(loss):.8f}, evaluations so far {lbfgs.state[model.params]['func_evals']}")
    print(f"lbfgs fit: {mse(model, t, y).item():.8f}")
    torch.set_printoptions(precision=3)
    print("parameters", model.params.detach())

    # Refine a perturbed copy with the hand-written optimizer under a schedule.
    refined = Oscillation((model.params.detach() + torch.tensor([0.05, -0.02, 0.03, 0.01, -0.01])).tolist())
    opt = SignMomentum(refined.parameters(), lr=2e-3, momentum=0.5)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.5)
    for epoch in range(30):
        opt.zero_grad()
        loss = mse(refined, t, y)
        loss.backward()
        opt.step()
        sched.step()
        if epoch % 10 == 9:
            print(f"sign momentum epoch {epoch + 1}: loss {loss.item():.6f}, lr {sched.get_last_lr()[0]:.6f}")

    # Averaged SGD from the same start: the average lives in optimizer.state[p]["ax"].
    averaged = Oscillation([1.5, 0.3, 2.1, 0.3, 0.2])
    asgd = torch.optim.ASGD(averaged.parameters(), lr=0.05, t0=20)
    for _ in range(60):
        asgd.zero_grad()
        mse(averaged, t, y).backward()
        asgd.step()
    ax = asgd.state[averaged.params]["ax"]
    with torch.no_grad():
        last = mse(averaged, t, y).item()
        averaged.params.copy_(ax)
        print(f"asgd: last iterate {last:.6f}, average {mse(averaged, t, y).item():.6f}")

    rprop_model = Oscillation([1.5, 0.3, 2.1, 0.3, 0.2])
    rprop = torch.optim.Rprop(rprop_model.parameters(), lr=0.01)
    for _ in range(40):
        rprop.zero_grad()
        mse(rprop_model, t, y).backward()
        rprop.step()
    print(f"rprop: {mse(rprop_model, t, y).item():.6f}, step sizes", rprop.state[rprop_model.params]["step_size"])
    torch.set_printoptions(profile="default")


if __name__ == "__main__":
    main()
