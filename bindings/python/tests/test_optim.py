"""ctorch.optim, ctorch.optim.lr_scheduler, ctorch.nn.utils.clip_grad_* and ctorch.nn.init against
torch: the same initial values and gradients give the same parameters over several steps (to float
rounding), the same lr sequences (to the bit), the same clipped grads; state_dict round trips
continue identically; initializers have torch's fans, gains, bounds and moments."""

import math

import numpy as np
import pytest

ctorch = pytest.importorskip("ctorch")
torch = pytest.importorskip("torch")

STEPS = 6

CONFIGS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.1, weight_decay=0.01)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, maximize=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.99), weight_decay=0.1, amsgrad=True)),
    ("Adam", dict(lr=0.02, maximize=True, eps=1e-6)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.01, weight_decay=0.1, amsgrad=True)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, momentum=0.5, centered=True, weight_decay=0.05)),
    ("RMSprop", dict(lr=0.01, alpha=0.9, centered=True)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.05, weight_decay=0.01, initial_accumulator_value=0.5, maximize=True)),
    ("Adamax", dict(lr=0.01)),
    ("Adamax", dict(lr=0.02, betas=(0.8, 0.95), weight_decay=0.1, eps=1e-3, maximize=True)),
    ("NAdam", dict(lr=0.01)),
    ("NAdam", dict(lr=0.02, betas=(0.8, 0.99), weight_decay=0.05, momentum_decay=0.01)),
    ("RAdam", dict(lr=0.01)),
    ("RAdam", dict(lr=0.02, betas=(0.5, 0.9), weight_decay=0.05)),  # rectified from the 6th step on
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, eps=1e-4, weight_decay=0.1, maximize=True)),
    ("ASGD", dict()),
    ("ASGD", dict(lr=0.1, lambd=0.01, alpha=0.5, t0=2, weight_decay=0.05, maximize=True)),  # averaging from step 4
    ("Rprop", dict()),
    ("Rprop", dict(lr=0.05, etas=(0.3, 1.7), step_sizes=(1e-3, 0.08), maximize=True)),
]
IDS = [f"{name}-{'-'.join(f'{k}={v}' for k, v in opts.items())}" for name, opts in CONFIGS]


def _data(dtype, seed=0):
    rng = np.random.default_rng(seed)
    shapes = [(7, 5), (5,), (3, 2, 4)]
    init = [rng.standard_normal(s).astype(dtype) for s in shapes]
    grads = [[rng.standard_normal(s).astype(dtype) for s in shapes] for _ in range(STEPS)]
    return init, grads


class _NAdamTorch2(torch.optim.Optimizer):
    """torch 2's NAdam (torch 1.13's multiplies mu into mu_product_next twice, a bug torch 2 fixed),
    in torch's operators in its order, the moments updated as torch 1.13 updates them: the reference
    for NAdam when the torch beside the tests is 1.x."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay))

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            lr, (b1, b2), eps, wd = group["lr"], group["betas"], group["eps"], group["weight_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if not state:
                    state.update(step=0, mu_product=torch.tensor(1.0), exp_avg=torch.zeros_like(p),
                                 exp_avg_sq=torch.zeros_like(p))
                state["step"] += 1
                step, m, v, mu_product = state["step"], state["exp_avg"], state["exp_avg_sq"], state["mu_product"]
                g = p.grad.add(p, alpha=wd) if wd else p.grad
                mu = b1 * (1. - 0.5 * (0.96 ** (step * group["momentum_decay"])))
                mu_next = b1 * (1. - 0.5 * (0.96 ** ((step + 1) * group["momentum_decay"])))
                mu_product *= mu
                m.mul_(b1).add_(g, alpha=1 - b1)
                v.mul_(b2).addcmul_(g, g, value=1 - b2)
                denom = v.div(1 - b2 ** step).sqrt().add_(eps)
                p.addcdiv_(g, denom, value=-lr * (1. - mu) / (1. - mu_product.item()))
                p.addcdiv_(m, denom, value=(-lr * mu_next) / (1. - mu_product.item() * mu_next))


def _optimizer(lib, name):
    if lib is torch and name == "NAdam" and torch.__version__.startswith("1."):
        return _NAdamTorch2
    return getattr(lib.optim, name)


def _run(lib, name, opts, init, grads, steps=STEPS):
    params = [lib.tensor(a.copy(), requires_grad=True) for a in init]
    opt = _optimizer(lib, name)(params, **opts)
    for t in range(steps):
        for p, g in zip(params, grads[t]):
            p.grad = lib.tensor(g.copy())
        opt.step()
    return [p.detach().numpy().copy() for p in params]


@pytest.mark.parametrize("name,opts", CONFIGS, ids=IDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_steps_match_torch(name, opts, dtype):
    init, grads = _data(dtype)
    got = _run(ctorch, name, opts, init, grads)
    want = _run(torch, name, opts, init, grads)
    rtol, atol = (2e-6, 2e-7) if dtype == "float32" else (1e-14, 1e-15)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


def test_training_a_linear_model_matches_torch():
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal((64, 8)).astype("float32"), rng.standard_normal((64, 1)).astype("float32")
    w0, b0 = rng.standard_normal((8, 1)).astype("float32") * 0.1, np.zeros(1, "float32")
    losses = {}
    for lib in (ctorch, torch):
        w, b = lib.tensor(w0.copy(), requires_grad=True), lib.tensor(b0.copy(), requires_grad=True)
        opt = lib.optim.AdamW([w, b], lr=0.05)
        sched = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=20)
        xs, ys = lib.tensor(x), lib.tensor(y)
        out = []
        for _ in range(20):
            opt.zero_grad()
            loss = ((xs.matmul(w) + b - ys) ** 2).mean()
            loss.backward()
            lib.nn.utils.clip_grad_norm_([w, b], 1.0)
            opt.step()
            sched.step()
            out.append(float(loss.item()))
        losses[lib.__name__] = out
    np.testing.assert_allclose(losses["ctorch"], losses["torch"], rtol=1e-5)
    assert losses["ctorch"][-1] < losses["ctorch"][0]


def test_params_without_grad_are_skipped():
    a = ctorch.tensor([1.0, 2.0], requires_grad=True)
    b = ctorch.tensor([3.0, 4.0], requires_grad=True)
    opt = ctorch.optim.SGD([a, b], lr=1.0)
    a.grad = ctorch.tensor([1.0, 1.0])
    opt.step()
    assert a.tolist() == [0.0, 1.0] and b.tolist() == [3.0, 4.0]


def test_zero_grad():
    a = ctorch.tensor([1.0, 2.0], requires_grad=True)
    opt = ctorch.optim.SGD([a])
    a.grad = ctorch.tensor([1.0, 1.0])
    opt.zero_grad(set_to_none=False)
    assert a.grad.tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert a.grad is None


def test_param_groups_read_and_write_the_library():
    a = ctorch.tensor([1.0], requires_grad=True)
    opt = ctorch.optim.Adam([{"params": [a], "lr": 0.5}], betas=(0.8, 0.9))
    g = opt.param_groups[0]
    assert g["lr"] == 0.5 and g["betas"] == (0.8, 0.9) and g["params"][0] is a
    assert set(g) == {"params", "lr", "betas", "eps", "weight_decay", "amsgrad", "maximize"}
    g["lr"] = 0.25
    g["amsgrad"] = True
    assert opt.param_groups[0]["lr"] == 0.25 and opt.param_groups[0]["amsgrad"] is True
    with pytest.raises(KeyError):
        g["momentum"] = 0.9
    with pytest.raises(ValueError):
        g["lr"] = -1.0
    with pytest.raises(ValueError):
        g["betas"] = (1.5, 0.9)
    assert g["betas"] == (0.8, 0.9)


def test_bad_arguments_raise_like_torch():
    a = ctorch.tensor([1.0], requires_grad=True)
    with pytest.raises(ValueError, match="lr"):
        ctorch.optim.SGD([a], lr=-0.1)
    with pytest.raises(ValueError, match="nesterov"):
        ctorch.optim.SGD([a], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="empty"):
        ctorch.optim.Adam([])
    with pytest.raises(TypeError):
        ctorch.optim.Adam(a)
    with pytest.raises(ValueError, match="leaf"):
        ctorch.optim.Adam([a * 2])
    with pytest.raises(TypeError):
        ctorch.optim.Adam([a], momentum=0.9)
    with pytest.raises(ValueError, match="more than one"):
        ctorch.optim.Adam([{"params": [a]}, {"params": [a]}])
    with pytest.raises(TypeError, match="momentum"):
        ctorch.optim.Adam([{"params": [a], "momentum": 0.9}])
    with pytest.raises(ValueError, match="params"):
        ctorch.optim.Adam([a]).add_param_group({"lr": 0.1})
    with pytest.raises(ValueError, match="eta"):
        ctorch.optim.Rprop([a], etas=(1.5, 1.2))
    with pytest.raises(ValueError, match="step_size"):
        ctorch.optim.Rprop([a], step_sizes=(1.0, 0.5))
    with pytest.raises(ValueError, match="lambd"):
        ctorch.optim.ASGD([a], lambd=-1.0)


def _grouped(lib, name, opts, params, extra=()):
    """GPT-style groups: decay for the matrices, none for the vectors, a third with its own lr and a
    key that is not an option (kept, as torch keeps it)."""
    decay = {} if name == "Rprop" else {"weight_decay": 0.1}  # Rprop has no weight decay
    return _optimizer(lib, name)([
        {"params": [params[0]], **decay, "name": "decay"},
        {"params": [params[1]], **{k: 0.0 for k in decay}, "name": "no_decay"},
        *extra,
    ], **opts)


@pytest.mark.parametrize("name,opts", CONFIGS, ids=IDS)
def test_param_groups_step_as_torch_does(name, opts):
    init, grads = _data("float64")
    results = {}
    # torch 1.13's Adagrad makes its state in the constructor only, so a group added later has none
    # (KeyError 'sum' in its step); ctorch makes state on a parameter's first step, as the others do.
    late = name != "Adagrad" or not torch.__version__.startswith("1.")
    for lib in (ctorch, torch):
        params = [lib.tensor(a.copy(), requires_grad=True) for a in init]
        opt = _grouped(lib, name, opts, params, () if late else [{"params": [params[2]], "lr": 0.003}])
        for t in range(STEPS):
            if t == 2 and late:
                opt.add_param_group({"params": params[2], "lr": 0.003})
            if t == 4:
                opt.param_groups[1]["lr"] = 0.5 * opt.param_groups[1]["lr"]
            for p, g in zip(params, grads[t]):
                p.grad = lib.tensor(g.copy())
            opt.step()
        results[lib.__name__] = ([p.detach().numpy().copy() for p in params],
                                 [(g["name"] if "name" in g else None, g["lr"], g.get("weight_decay"))
                                  for g in opt.param_groups])
    (got, ct_groups), (want, th_groups) = results["ctorch"], results["torch"]
    assert ct_groups == th_groups
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-13, atol=1e-14)


def test_param_groups_state_dict_and_copies():
    init, grads = _data("float64")
    params = [ctorch.tensor(a.copy(), requires_grad=True) for a in init]
    opt = _grouped(ctorch, "AdamW", dict(lr=0.01), params)
    for p, g in zip(params, grads[0]):
        p.grad = ctorch.tensor(g.copy())
    opt.step()
    sd = opt.state_dict()
    assert [g["params"] for g in sd["param_groups"]] == [[0], [1]]
    assert [g["name"] for g in sd["param_groups"]] == ["decay", "no_decay"]
    assert len(sd["state"]) == 2 and all(b.dtype is ctorch.uint8 for b in sd["state"])
    twin = ctorch.optim.AdamW([{"params": [p]} for p in params[:2]])
    twin.load_state_dict(sd)
    assert [g["weight_decay"] for g in twin.param_groups] == [0.1, 0.0] and twin.param_groups[0]["name"] == "decay"
    with pytest.raises(ValueError, match="groups"):
        ctorch.optim.AdamW(params[:2]).load_state_dict(sd)
    import copy
    deep = copy.deepcopy(opt)
    assert [dict(g) for g in deep.param_groups][1]["name"] == "no_decay"
    assert deep.param_groups[0]["params"][0] is not params[0]
    assert "Parameter Group 1" in repr(opt)


@pytest.mark.parametrize("name,opts", CONFIGS, ids=IDS)
def test_state_dict_round_trip_continues_identically(name, opts):
    init, grads = _data("float32", seed=1)
    straight = _run(ctorch, name, opts, init, grads)

    params = [ctorch.tensor(a.copy(), requires_grad=True) for a in init]
    opt = getattr(ctorch.optim, name)(params, **opts)
    for t in range(3):
        for p, g in zip(params, grads[t]):
            p.grad = ctorch.tensor(g.copy())
        opt.step()
    sd = opt.state_dict()
    assert sd["state"][0].dtype is ctorch.uint8 and sd["param_groups"][0]["params"] == [0, 1, 2]
    # A fresh model and optimizer (default options: the state dict brings them) continue.
    params2 = [ctorch.tensor(p.detach().numpy().copy(), requires_grad=True) for p in params]
    opt2 = getattr(ctorch.optim, name)(params2)
    opt2.load_state_dict(sd)
    for t in range(3, STEPS):
        for p, g in zip(params2, grads[t]):
            p.grad = ctorch.tensor(g.copy())
        opt2.step()
    for a, b in zip(straight, params2):
        assert np.array_equal(a, b.detach().numpy())


@pytest.mark.parametrize("name,opts", CONFIGS, ids=IDS)
def test_state_is_torchs(name, opts):
    """optimizer.state[p]: torch's keys in torch's order and torch's values (ASGD's averaged
    parameters "ax" among them); a buffer is the optimizer's own tensor."""
    init, grads = _data("float64")
    states = {}
    for lib in (ctorch, torch):
        params = [lib.tensor(a.copy(), requires_grad=True) for a in init]
        opt = _optimizer(lib, name)(params, **opts)
        # torch's Adagrad makes its state in the constructor; ctorch's on a parameter's first step.
        assert len(opt.state) == 0 or (lib is torch and name == "Adagrad")
        for t in range(STEPS):
            for p, g in zip(params, grads[t]):
                p.grad = lib.tensor(g.copy())
            opt.step()
        states[lib.__name__] = [{k: np.array(v.numpy() if hasattr(v, "numpy") else v, dtype=np.float64)
                                 for k, v in opt.state[p].items() if v is not None} for p in params]
        if lib is ctorch and states["ctorch"][0]:
            key = list(opt.state[params[0]])[-1]
            opt.state[params[0]][key].zero_()
            assert not opt.state[params[0]][key].numpy().any()
    for got, want in zip(states["ctorch"], states["torch"]):
        assert list(got) == list(want)
        for k in want:
            np.testing.assert_allclose(got[k], want[k], rtol=1e-13, atol=1e-14, err_msg=k)


def _rosenbrock_lbfgs(lib, steps=5, **kw):
    x = lib.tensor(np.array([-1.5, 2.0, -0.5, 1.2]), requires_grad=True)
    opt = lib.optim.LBFGS([x], **kw)

    def closure():
        opt.zero_grad()
        loss = (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()
        loss.backward()
        return loss
    losses = [float(opt.step(closure)) for _ in range(steps)]
    return x, opt, losses, closure


@pytest.mark.parametrize("kw", [dict(lr=0.1), dict(line_search_fn="strong_wolfe", history_size=3, max_iter=10),
                                dict(line_search_fn="strong_wolfe", max_iter=6),
                                dict(lr=0.05, max_iter=50, history_size=5, tolerance_change=1e-12)],
                         ids=["fixed-step", "wolfe-short-history", "wolfe", "fixed-long"])
def test_lbfgs_follows_torchs_iterations(kw):
    """Rosenbrock's valley in float64: the same closure calls and iterations as torch's LBFGS (the
    line search brackets and zooms), the same losses and the same point to rounding."""
    xc, oc, lc, _ = _rosenbrock_lbfgs(ctorch, **kw)
    xt, ot, lt, _ = _rosenbrock_lbfgs(torch, **kw)
    sc, st = oc.state[xc], ot.state[xt]
    assert (sc["func_evals"], sc["n_iter"]) == (st["func_evals"], st["n_iter"]) and type(sc["n_iter"]) is int
    np.testing.assert_allclose(lc, lt, rtol=1e-9)
    np.testing.assert_allclose(xc.detach().numpy(), xt.detach().numpy(), rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(sc["d"].numpy(), st["d"].numpy(), rtol=1e-4, atol=1e-7)
    assert list(sc) == ["func_evals", "n_iter", "t", "H_diag", "prev_loss", "d", "prev_flat_grad"]


def test_lbfgs_state_dict_round_trip_and_refusals():
    x, opt, _, closure = _rosenbrock_lbfgs(ctorch, steps=2, line_search_fn="strong_wolfe", max_iter=4)
    sd = opt.state_dict()
    assert opt.param_groups[0]["max_eval"] == 5 and opt.param_groups[0]["line_search_fn"] == "strong_wolfe"
    y = ctorch.tensor(x.detach().numpy().copy(), requires_grad=True)
    twin = ctorch.optim.LBFGS([y])
    twin.load_state_dict(sd)

    def twin_closure():
        twin.zero_grad()
        loss = (100 * (y[1:] - y[:-1] ** 2) ** 2 + (1 - y[:-1]) ** 2).sum()
        loss.backward()
        return loss
    opt.step(closure)
    twin.step(twin_closure)
    assert np.array_equal(x.detach().numpy(), y.detach().numpy())  # the history came along
    # A closure that raises: its own exception, and the parameters and history as they were.
    before = x.detach().numpy().copy()
    state = opt.state_dict()["state"][0].numpy().tobytes()
    calls = []

    def failing():
        calls.append(1)
        if len(calls) == 3:
            raise KeyError("boom")
        return closure()
    with pytest.raises(KeyError, match="boom"):
        opt.step(failing)
    assert np.array_equal(x.detach().numpy(), before)
    assert opt.state_dict()["state"][0].numpy().tobytes() == state
    with pytest.raises(TypeError):
        opt.step()
    with pytest.raises(ValueError, match="parameter groups"):
        ctorch.optim.LBFGS([{"params": [x]}, {"params": [y]}])
    with pytest.raises(RuntimeError, match="strong_wolfe"):
        ctorch.optim.LBFGS([x], line_search_fn="armijo")
    with pytest.raises(ctorch.DTypeError if hasattr(ctorch, "DTypeError") else Exception, match="one dtype"):
        ctorch.optim.LBFGS([x, ctorch.zeros(2, dtype=ctorch.float32, requires_grad=True)])
    # A closure that steps its own optimizer is refused; zero_grad inside it is torch's idiom.
    def reentrant():
        opt.zero_grad()
        opt.step(closure)
        return 0.0
    with pytest.raises(ValueError, match="own closure"):
        opt.step(reentrant)


def test_load_state_dict_refuses_another_optimizer():
    a = ctorch.tensor([1.0, 2.0], requires_grad=True)
    b = ctorch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    sd = ctorch.optim.Adam([a]).state_dict()
    with pytest.raises(ValueError, match="Adam"):
        ctorch.optim.SGD([a]).load_state_dict(sd)
    with pytest.raises(ValueError, match="sizes"):
        ctorch.optim.Adam([b]).load_state_dict(sd)
    with pytest.raises(ctorch.FormatError):
        ctorch.optim.Adam([a]).load_state_dict({"state": [sd["state"][0][:-3]]})
    with pytest.raises(ctorch.FormatError):
        ctorch.optim.Adam([a]).load_state_dict({"state": [sd["state"][0].numpy().tobytes()[:-3]]})


SCHEDULERS = [
    ("StepLR", dict(step_size=4, gamma=0.5)),
    ("StepLR", dict(step_size=1)),
    ("CosineAnnealingLR", dict(T_max=10)),
    ("CosineAnnealingLR", dict(T_max=7, eta_min=0.001)),
    ("LinearLR", dict()),
    ("LinearLR", dict(start_factor=0.1, end_factor=0.9, total_iters=12)),
    ("ExponentialLR", dict(gamma=0.9)),
    ("MultiStepLR", dict(milestones=[3, 7, 7, 20])),
    ("MultiStepLR", dict(milestones=[12, 2], gamma=0.5)),
    ("ConstantLR", dict()),
    ("ConstantLR", dict(factor=0.5, total_iters=9)),
    ("PolynomialLR", dict()),
    ("PolynomialLR", dict(total_iters=20, power=2.0)),
    ("CosineAnnealingWarmRestarts", dict(T_0=4)),
    ("CosineAnnealingWarmRestarts", dict(T_0=3, T_mult=2, eta_min=0.01)),
    ("LambdaLR", dict(lr_lambda=lambda e: 0.95 ** e)),
    ("MultiplicativeLR", dict(lr_lambda=lambda e: 0.9 if e % 2 else 1.0)),
    ("OneCycleLR", dict(max_lr=1.0, total_steps=31)),
    ("OneCycleLR", dict(max_lr=0.5, epochs=4, steps_per_epoch=8, anneal_strategy="linear", three_phase=True)),
]
# Schedules that set the lr from the step count alone (a hand-set lr does not carry on)
_CLOSED_FORM = ("CosineAnnealingWarmRestarts", "LambdaLR", "OneCycleLR")


@pytest.mark.parametrize("name,kw", SCHEDULERS, ids=[f"{n}-{kw}" for n, kw in SCHEDULERS])
def test_lr_sequence_is_torchs_to_the_bit(name, kw):
    seqs = {}
    for lib in (ctorch, torch):
        p = lib.tensor([1.0], requires_grad=True)
        opt = lib.optim.SGD([p], lr=0.1)
        sched = getattr(lib.optim.lr_scheduler, name)(opt, **kw)
        seq = [sched.get_last_lr()[0], opt.param_groups[0]["lr"]]
        for step in range(30):
            if step == 15 and name not in _CLOSED_FORM:  # a hand-set lr carries on, as in torch
                opt.param_groups[0]["lr"] *= 0.5
            opt.step()
            sched.step()
            seq += [sched.get_last_lr()[0], opt.param_groups[0]["lr"]]
        seqs[lib.__name__] = seq
        assert sched.last_epoch == 30
    assert seqs["ctorch"] == seqs["torch"]


@pytest.mark.parametrize("name,kw", SCHEDULERS, ids=[f"{n}-{kw}" for n, kw in SCHEDULERS])
def test_schedulers_set_every_groups_lr(name, kw):
    seqs = {}
    for lib in (ctorch, torch):
        a, b = lib.tensor([1.0], requires_grad=True), lib.tensor([2.0], requires_grad=True)
        opt = lib.optim.AdamW([{"params": [a], "lr": 0.1}, {"params": [b], "lr": 0.02, "weight_decay": 0.0}])
        if name == "OneCycleLR":  # the first beta moves with the lr
            kw = dict(kw, max_lr=[1.0, 0.2])
        sched = getattr(lib.optim.lr_scheduler, name)(opt, **kw)
        seq = [list(sched.base_lrs), sched.get_last_lr()]
        for _ in range(12):
            opt.step()
            sched.step()
            seq += [sched.get_last_lr(), [g["lr"] for g in opt.param_groups]]
        seqs[lib.__name__] = seq
    assert seqs["ctorch"] == seqs["torch"]


@pytest.mark.parametrize("make", [
    lambda sch, opt: sch.SequentialLR(opt, [sch.LinearLR(opt, 0.1, total_iters=5),
                                            sch.CosineAnnealingLR(opt, T_max=20, eta_min=1e-4)], milestones=[5]),
    lambda sch, opt: sch.SequentialLR(opt, [sch.ConstantLR(opt, 0.5, 3), sch.ExponentialLR(opt, 0.8),
                                            sch.LambdaLR(opt, lambda e: 1 / (e + 1))], milestones=[4, 9]),
    lambda sch, opt: sch.ChainedScheduler([sch.LinearLR(opt, 0.2, total_iters=4), sch.CosineAnnealingLR(opt, 10)]),
], ids=["warmup_cosine", "three_phases", "chained_warmup_cosine"])
def test_sequential_and_chained_schedules_are_torchs(make):
    seqs = {}
    for lib in (ctorch, torch):
        a, b = lib.tensor([1.0], requires_grad=True), lib.tensor([2.0], requires_grad=True)
        opt = lib.optim.AdamW([{"params": [a], "lr": 0.1}, {"params": [b], "lr": 0.02}])
        sched = make(lib.optim.lr_scheduler, opt)
        seq = [sched.get_last_lr()]
        for _ in range(24):
            opt.step()
            sched.step()
            seq.append([g["lr"] for g in opt.param_groups])
        seqs[lib.__name__] = seq
    assert seqs["ctorch"] == seqs["torch"]


@pytest.mark.parametrize("kw", [dict(), dict(mode="triangular2", step_size_down=3),
                                dict(mode="exp_range", gamma=0.9, step_size_up=3),
                                dict(scale_fn=lambda x: 0.5 ** x, scale_mode="iterations", cycle_momentum=False)],
                         ids=["triangular", "triangular2", "exp_range", "scale_fn"])
def test_cyclic_lr_and_its_momentum_are_torchs(kw):
    seqs = {}
    for lib in (ctorch, torch):
        p = lib.tensor([1.0], requires_grad=True)
        opt = lib.optim.SGD([p], lr=0.1, momentum=0.9)
        sched = lib.optim.lr_scheduler.CyclicLR(opt, base_lr=0.01, max_lr=0.1, **dict({"step_size_up": 4}, **kw))
        seq = []
        for _ in range(20):
            opt.step()
            sched.step()
            seq.append((opt.param_groups[0]["lr"], opt.param_groups[0]["momentum"]))
        seqs[lib.__name__] = seq
    assert seqs["ctorch"] == seqs["torch"]


def test_one_cycle_cycles_sgd_momentum_as_torch():
    seqs = {}
    for lib in (ctorch, torch):
        p = lib.tensor([1.0], requires_grad=True)
        opt = lib.optim.SGD([p], lr=0.1, momentum=0.9)
        sched = lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.3, total_steps=10)
        seq = []
        for _ in range(9):
            opt.step()
            sched.step()
            seq.append((opt.param_groups[0]["lr"], opt.param_groups[0]["momentum"]))
        seqs[lib.__name__] = seq
    assert seqs["ctorch"] == seqs["torch"]


@pytest.mark.parametrize("kw", [dict(), dict(mode="max", factor=0.5, patience=1, threshold_mode="abs", cooldown=2),
                                dict(patience=0, min_lr=0.02, threshold=0.1)])
def test_reduce_lr_on_plateau_matches_torch(kw):
    metrics = [1.0, 0.9, 0.95, 0.95, 0.96, 0.8, 0.8, 0.81, 0.82, 0.83, 0.7, 0.7, 0.7, 0.7, 0.7] * 2
    seqs = {}
    for lib in (ctorch, torch):
        p = lib.tensor([1.0], requires_grad=True)
        opt = lib.optim.Adam([p], lr=0.1)
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **kw)
        seq = []
        for m in metrics:
            opt.step()
            sched.step(m)
            seq.append(opt.param_groups[0]["lr"])
        seqs[lib.__name__] = seq
    assert seqs["ctorch"] == seqs["torch"]


def test_a_subclassed_scheduler_and_chained_schedulers_run_as_in_torch():
    seqs = {}
    for lib in (ctorch, torch):
        class Halving(lib.optim.lr_scheduler._LRScheduler):  # torch 1.x's base class name; 2.x's LRScheduler too
            def get_lr(self):
                return [base * 0.5 ** (self.last_epoch // 3) for base in self.base_lrs]

        p = lib.tensor([1.0], requires_grad=True)
        opt = lib.optim.SGD([p], lr=1.0)
        halving = Halving(opt)
        chained = lib.optim.lr_scheduler.ChainedScheduler([lib.optim.lr_scheduler.ExponentialLR(opt, 0.9),
                                                           lib.optim.lr_scheduler.ConstantLR(opt, 0.5, 4)])
        seq = []
        for _ in range(10):
            opt.step()
            halving.step()
            chained.step()
            seq.append(opt.param_groups[0]["lr"])
        seq.append(halving.state_dict()["last_epoch"])
        seqs[lib.__name__] = seq
    assert seqs["ctorch"] == seqs["torch"]


def test_scheduler_arguments_are_checked():
    p = ctorch.tensor([1.0], requires_grad=True)
    opt = ctorch.optim.SGD([p], lr=0.1)
    sched = ctorch.optim.lr_scheduler
    with pytest.raises(ctorch.InvalidArgumentError, match="factor"):
        sched.ConstantLR(opt, factor=0.0)
    with pytest.raises(ValueError):
        sched.MultiStepLR(opt, milestones=["a"])
    with pytest.raises(ctorch.InvalidArgumentError, match="gamma"):
        sched.MultiStepLR(opt, milestones=[2], gamma=-1.0)
    with pytest.raises(ValueError):
        sched.CosineAnnealingWarmRestarts(opt, T_0=0)
    with pytest.raises(ValueError):
        sched.OneCycleLR(opt, max_lr=1.0)  # no total_steps
    with pytest.raises(ValueError):
        sched.ReduceLROnPlateau(opt, factor=1.5)
    one = sched.OneCycleLR(opt, max_lr=1.0, total_steps=2)
    one.step()
    one.step()
    with pytest.raises(ValueError):
        one.step()  # past total_steps, as torch


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, math.inf])
@pytest.mark.parametrize("max_norm", [0.5, 100.0])
def test_clip_grad_norm_matches_torch(norm_type, max_norm):
    rng = np.random.default_rng(7)
    grads = [rng.standard_normal(s).astype("float32") for s in [(4, 3), (5,), (2, 2, 2)]]
    results = {}
    for lib in (ctorch, torch):
        ps = [lib.zeros(g.shape, requires_grad=True) for g in grads]
        for p, g in zip(ps, grads):
            p.grad = lib.tensor(g.copy())
        extra = lib.zeros(3, requires_grad=True)  # no grad: skipped
        total = lib.nn.utils.clip_grad_norm_(ps + [extra], max_norm, norm_type=norm_type)
        results[lib.__name__] = (float(total), [p.grad.numpy().copy() for p in ps], str(total.dtype).split(".")[-1])
    (ct_total, ct_grads, ct_dt), (th_total, th_grads, th_dt) = results["ctorch"], results["torch"]
    assert ct_dt == th_dt == "float32"
    assert ct_total == pytest.approx(th_total, rel=1e-6)
    for a, b in zip(ct_grads, th_grads):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_clip_grad_norm_edge_cases():
    p = ctorch.zeros(3, requires_grad=True)
    assert float(ctorch.nn.utils.clip_grad_norm_([p], 1.0)) == 0.0
    p.grad = ctorch.tensor([float("inf"), 1.0, 0.0])
    before = p.grad.tolist()
    with pytest.raises(RuntimeError, match="non-finite"):
        ctorch.nn.utils.clip_grad_norm_(p, 1.0, error_if_nonfinite=True)
    assert p.grad.tolist() == before  # refused before scaling
    with pytest.raises(ValueError):
        ctorch.nn.utils.clip_grad_norm_(p, -1.0)


def test_clip_grad_value_matches_torch():
    g = np.array([-3.0, 0.5, 7.0, -0.25], "float32")
    out = []
    for lib in (ctorch, torch):
        p = lib.zeros(4, requires_grad=True)
        p.grad = lib.tensor(g.copy())
        lib.nn.utils.clip_grad_value_([p], 1.0)
        out.append(p.grad.tolist())
    assert out[0] == out[1]


@pytest.mark.parametrize("shape", [(16, 8), (32, 3, 5, 5), (4, 6, 3), (10, 1, 2, 3, 4)])
def test_fans_are_torchs(shape):
    got = ctorch.nn.init._calculate_fan_in_and_fan_out(ctorch.empty(shape))
    assert tuple(got) == torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(shape))


def test_fans_need_two_dims():
    with pytest.raises(ValueError):
        ctorch.nn.init._calculate_fan_in_and_fan_out(ctorch.empty(5))


@pytest.mark.parametrize("name,param", [("linear", None), ("conv2d", None), ("conv_transpose3d", None),
                                        ("sigmoid", None), ("tanh", None), ("relu", None), ("leaky_relu", None),
                                        ("leaky_relu", 0.2), ("leaky_relu", math.sqrt(5)), ("selu", None)])
def test_gains_are_torchs(name, param):
    assert ctorch.nn.init.calculate_gain(name, param) == torch.nn.init.calculate_gain(name, param)


def test_unknown_gain_is_a_value_error():
    with pytest.raises(ValueError):
        ctorch.nn.init.calculate_gain("swish")


def _moments(t):
    v = t.detach().numpy().astype("float64").ravel()
    return v.mean(), v.std(), np.abs(v).max()


@pytest.mark.parametrize("fn,kw,std,bound", [
    ("kaiming_uniform_", dict(nonlinearity="relu"), math.sqrt(2 / 300), math.sqrt(6 / 300)),
    ("kaiming_uniform_", dict(a=math.sqrt(5)), 1 / math.sqrt(3 * 300), 1 / math.sqrt(300)),
    ("kaiming_normal_", dict(mode="fan_out", nonlinearity="relu"), math.sqrt(2 / 200), math.inf),
    ("xavier_uniform_", dict(gain=2.0), 2 * math.sqrt(2 / 500), 2 * math.sqrt(6 / 500)),
    ("xavier_normal_", dict(), math.sqrt(2 / 500), math.inf),
    ("uniform_", dict(a=-2.0, b=2.0), 4 / math.sqrt(12), 2.0),
    ("normal_", dict(mean=0.0, std=0.3), 0.3, math.inf),
])
def test_initializers_have_torchs_distributions(fn, kw, std, bound):
    w = ctorch.empty(200, 300, requires_grad=True)  # a parameter: initialized under no_grad
    assert getattr(ctorch.nn.init, fn)(w, **kw) is w
    mean, got_std, maxabs = _moments(w)
    assert maxabs <= bound
    assert abs(mean) < 0.05 * std
    assert got_std == pytest.approx(std, rel=0.02)
    # torch draws from the same distribution
    t = getattr(torch.nn.init, fn)(torch.empty(200, 300), **kw)
    assert float(t.std()) == pytest.approx(got_std, rel=0.03)


def test_linear_default_matches_torchs_bounds_and_is_reproducible():
    gen = ctorch.Generator().manual_seed(42)
    w, b = ctorch.empty(64, 3, 3, 3), ctorch.empty(64)
    ctorch.nn.init.linear_(w, b, generator=gen)
    w2, b2 = ctorch.empty(64, 3, 3, 3), ctorch.empty(64)
    ctorch.nn.init.linear_(w2, b2, generator=ctorch.Generator().manual_seed(42))
    assert np.array_equal(w.numpy(), w2.numpy()) and np.array_equal(b.numpy(), b2.numpy())
    conv = torch.nn.Conv2d(3, 64, 3)
    bound = 1 / math.sqrt(27)
    for mine, theirs in ((w, conv.weight), (b, conv.bias)):
        assert np.abs(mine.numpy()).max() <= bound
        assert float(theirs.detach().abs().max()) <= bound


def test_constant_ones_zeros():
    w = ctorch.empty(2, 3, requires_grad=True)
    assert ctorch.nn.init.constant_(w, 0.5).tolist() == [[0.5] * 3] * 2
    assert ctorch.nn.init.zeros_(w).tolist() == [[0.0] * 3] * 2
    assert ctorch.nn.init.ones_(w).tolist() == [[1.0] * 3] * 2


@pytest.mark.parametrize("name,opts", CONFIGS, ids=IDS)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_reduced_precision_params_take_the_operator_path(name, opts, dtype):
    """float16 and bfloat16 parameters run the formula through the operators (each rounding to the
    dtype, as torch's kernels do); they follow the float32 run to the dtype's precision."""
    init, grads = _data("float32", seed=2)
    want = _run(torch, name, opts, init, grads, steps=3)
    params = [ctorch.tensor(a.copy()).to(getattr(ctorch, dtype)).requires_grad_() for a in init]
    opt = getattr(ctorch.optim, name)(params, **opts)
    for t in range(3):
        for p, g in zip(params, grads[t]):
            p.grad = ctorch.tensor(g.copy()).to(getattr(ctorch, dtype))
        opt.step()
    for p, w in zip(params, want):
        assert str(p.dtype).endswith(dtype)
        np.testing.assert_allclose(np.array(p.detach().to(ctorch.float32).tolist()), w, rtol=0.05, atol=0.05)


def _heavy_ball(lib):
    """A momentum SGD written against the library's public base class, as users write optimizers."""

    import importlib
    required = importlib.import_module(lib.__name__ + ".optim.optimizer").required

    class HeavyBall(lib.optim.Optimizer):
        def __init__(self, params, lr=required, momentum=0.0):
            super().__init__(params, dict(lr=lr, momentum=momentum))

        @lib.no_grad()
        def step(self, closure=None):
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    state = self.state[p]
                    if "buf" not in state:
                        state["buf"] = p.grad.clone()
                    else:
                        state["buf"].mul_(group["momentum"]).add_(p.grad)
                    state["step"] = state.get("step", 0) + 1
                    p.add_(state["buf"], alpha=-group["lr"])

    return HeavyBall


def test_a_python_optimizer_subclass_runs_with_the_library_schedulers_as_in_torch():
    init, grads = _data("float64")
    results = {}
    for lib in (ctorch, torch):
        params = [lib.tensor(a.copy(), requires_grad=True) for a in init]
        opt = _heavy_ball(lib)([{"params": params[:2]}, {"params": params[2:], "lr": 0.05}], lr=0.1, momentum=0.9)
        steplr = lib.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        lrs = []
        for t in range(STEPS):
            opt.zero_grad()
            for p, g in zip(params, grads[t]):
                p.grad = lib.tensor(g.copy())
            opt.step()
            steplr.step()
            lrs.append([g["lr"] for g in opt.param_groups])
        sd = opt.state_dict()
        results[lib.__name__] = ([p.detach().numpy().copy() for p in params], lrs, sd)
    (got, got_lrs, got_sd), (want, want_lrs, want_sd) = results["ctorch"], results["torch"]
    assert got_lrs == want_lrs
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-13, atol=1e-14)
    assert [g["params"] for g in got_sd["param_groups"]] == [g["params"] for g in want_sd["param_groups"]] == [[0, 1], [2]]
    assert sorted(got_sd["state"]) == sorted(want_sd["state"]) == [0, 1, 2]
    assert got_sd["state"][2]["step"] == STEPS
    # load_state_dict into a fresh one continues as the original, and checks the groups' sizes.
    params = [ctorch.tensor(a.copy(), requires_grad=True) for a in init]
    twin = _heavy_ball(ctorch)([{"params": params[:2]}, {"params": params[2:]}], lr=1.0)
    twin.load_state_dict(got_sd)
    assert twin.param_groups[1]["lr"] == got_lrs[-1][1] and twin.param_groups[0]["momentum"] == 0.9
    assert np.array_equal(twin.state[params[2]]["buf"].numpy(), got_sd["state"][2]["buf"].numpy())
    with pytest.raises(ValueError, match="size"):
        _heavy_ball(ctorch)([{"params": params[:1]}, {"params": params[1:]}], lr=1.0).load_state_dict(got_sd)
    with pytest.raises(ValueError, match="required"):
        _heavy_ball(ctorch)(params)
    with pytest.raises(TypeError, match="sets"):
        _heavy_ball(ctorch)([{"params": {params[0]}}], lr=0.1)
    with pytest.raises(NotImplementedError):
        ctorch.optim.Optimizer(params, {}).step()
    assert isinstance(ctorch.optim.SGD(params), ctorch.optim.Optimizer)
    # zero_grad(set_to_none=False) zeroes in place; a grad from create_graph leaves its graph first.
    q = ctorch.ones(2, requires_grad=True)
    (q * q).sum().backward(create_graph=True)
    _heavy_ball(ctorch)([q], lr=0.1).zero_grad(set_to_none=False)
    assert q.grad.grad_fn is None and not q.grad.numpy().any()


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 2, 3), (6, 6)])
def test_orthogonal_is_orthogonal_and_scaled_by_gain(shape):
    ctorch.manual_seed(3)
    w = ctorch.nn.init.orthogonal_(ctorch.empty(*shape, dtype=ctorch.float64), gain=2.0)
    m = w.numpy().reshape(shape[0], -1)
    gram = m @ m.T if m.shape[0] <= m.shape[1] else m.T @ m
    np.testing.assert_allclose(gram, 4 * np.eye(gram.shape[0]), atol=1e-12)
    with pytest.raises(ValueError, match="2 or more"):
        ctorch.nn.init.orthogonal_(ctorch.empty(3))


def test_orthogonal_draws_are_haar_distributed():
    """With the signs of R's diagonal folded in, Q's entries are symmetric about 0 and each has
    variance 1 / n: the mean over 400 draws of 4 x 4 matrices is near 0, the mean square near 1/4."""
    ctorch.manual_seed(7)
    draws = np.stack([ctorch.nn.init.orthogonal_(ctorch.empty(4, 4, dtype=ctorch.float64)).numpy()
                      for _ in range(400)])
    assert abs(draws.mean()) < 0.02
    np.testing.assert_allclose((draws ** 2).mean(axis=0), 0.25, atol=0.05)
    assert abs(draws[:, 0, 0].mean()) < 0.06  # a diagonal entry is not biased positive


def test_trunc_normal_sparse_eye_and_dirac_are_torchs():
    ctorch.manual_seed(0)
    torch.manual_seed(0)
    kw = dict(mean=0.5, std=2.0, a=-1.0, b=3.0)
    w = ctorch.nn.init.trunc_normal_(ctorch.empty(200000, dtype=ctorch.float64), **kw).numpy()
    t = torch.nn.init.trunc_normal_(torch.empty(200000, dtype=torch.float64), **kw).numpy()
    assert w.min() >= -1.0 and w.max() <= 3.0
    assert abs(w.mean() - t.mean()) < 0.01 and abs(w.std() - t.std()) < 0.01
    with pytest.raises(ValueError, match="std"):
        ctorch.nn.init.trunc_normal_(ctorch.empty(3), std=0.0)
    with pytest.warns(UserWarning, match="more than 2 std"):
        ctorch.nn.init.trunc_normal_(ctorch.empty(3), mean=10.0)
    s = ctorch.nn.init.sparse_(ctorch.empty(10, 7), sparsity=0.25).numpy()
    assert ((s == 0).sum(axis=0) == 3).all() and 0 < abs(s).max() < 0.1
    with pytest.raises(ValueError, match="2 dimensions"):
        ctorch.nn.init.sparse_(ctorch.empty(3), 0.5)
    assert np.array_equal(ctorch.nn.init.eye_(ctorch.empty(3, 5)).numpy(), np.eye(3, 5))
    for shape, groups in [((4, 3, 3), 1), ((6, 2, 3, 3), 2), ((4, 6, 2, 3, 3), 2)]:
        got = ctorch.nn.init.dirac_(ctorch.empty(*shape), groups).numpy()
        assert np.array_equal(got, torch.nn.init.dirac_(torch.empty(*shape), groups).numpy())
    with pytest.raises(ValueError, match="divisible"):
        ctorch.nn.init.dirac_(ctorch.empty(3, 2, 3), groups=2)
    p = ctorch.empty(3, 3, requires_grad=True)
    ctorch.nn.init.orthogonal_(p)  # a parameter is filled with grad mode off
    assert p.requires_grad and p.grad_fn is None
    with pytest.warns(FutureWarning, match="orthogonal_"):
        ctorch.nn.init.orthogonal(ctorch.empty(2, 2))


# Complex parameters are stepped as the real tensor of their parts, as torch's optimizers do (torch
# 1.13's NAdam still steps complex numbers as such, and its amsgrad Adam refuses them; torch 2.x
# steps the parts, which ctorch follows).
COMPLEX_KINDS = [("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)), ("Adam", dict(lr=0.1)),
                 ("Adam", dict(lr=0.1, amsgrad=True)), ("AdamW", dict(lr=0.1)),
                 ("RMSprop", dict(lr=0.01, centered=True, momentum=0.5)), ("Adagrad", dict(lr=0.1)),
                 ("Adamax", dict(lr=0.1)), ("NAdam", dict(lr=0.1)), ("RAdam", dict(lr=0.1)), ("Adadelta", dict(lr=1.0)),
                 ("ASGD", dict(lr=0.1)), ("Rprop", dict(lr=0.1))]
TORCH_113_DIFFERS = {("NAdam", False), ("Adam", True)}


def _complex_steps(lib, name, opts, as_real):
    rng = np.random.default_rng(1)
    start = rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))
    p = lib.tensor(start)
    p = (lib.view_as_real(p).clone() if as_real else p).requires_grad_()
    opt = getattr(lib.optim, name)([p], **opts)
    for _ in range(4):
        g = lib.tensor(rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2)))
        p.grad = lib.view_as_real(g).clone() if as_real else g
        opt.step()
    return p.detach().numpy() if as_real else lib.view_as_real(p.detach()).numpy()


@pytest.mark.parametrize("name,opts", COMPLEX_KINDS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(COMPLEX_KINDS)])
def test_complex_parameters_step_as_their_parts(name, opts):
    got = _complex_steps(ctorch, name, opts, as_real=False)
    np.testing.assert_allclose(got, _complex_steps(ctorch, name, opts, as_real=True), rtol=1e-12, atol=1e-12)
    if (name, opts.get("amsgrad", False)) not in TORCH_113_DIFFERS or not torch.__version__.startswith("1."):
        np.testing.assert_allclose(got, _complex_steps(torch, name, opts, as_real=False), rtol=1e-10, atol=1e-10)


def test_complex_state_stays_complex_and_lbfgs_refuses_complex():
    p = ctorch.zeros(2, dtype=ctorch.complex64, requires_grad=True)
    opt = ctorch.optim.Adagrad([p], lr=0.1, initial_accumulator_value=0.5)
    p.grad = ctorch.tensor([1 + 2j, -1j], dtype=ctorch.complex64)
    opt.step()
    assert opt.state[p]["sum"].dtype is ctorch.complex64
    np.testing.assert_allclose(opt.state[p]["sum"].numpy(), [1.5 + 4.5j, 0.5 + 1.5j])
    with pytest.raises(TypeError, match="LBFGS optimizes only floating tensors"):
        ctorch.optim.LBFGS([p])
