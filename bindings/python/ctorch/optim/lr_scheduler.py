"""ctorch.optim.lr_scheduler: torch.optim.lr_scheduler's schedules.

StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR, CosineAnnealingWarmRestarts, LinearLR,
ConstantLR and PolynomialLR are the C library's schedulers (ct_lr_scheduler, one per parameter
group), which set each group's lr with torch's formulas (the same floats torch computes), so every
binding has them. LambdaLR, MultiplicativeLR, OneCycleLR, CyclicLR, ReduceLROnPlateau,
ChainedScheduler and SequentialLR take Python callables, metrics or other schedulers and are written here over the
parameter groups, as torch writes them; LRScheduler is torch's base class, to subclass with a
get_lr() of one's own."""

import bisect as _bisect

import math as _math
import types as _types

from .. import _C
from .._errors import refuse_copies

__all__ = ["LRScheduler", "StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR",
           "CosineAnnealingWarmRestarts", "LinearLR", "ConstantLR", "PolynomialLR", "LambdaLR", "MultiplicativeLR",
           "OneCycleLR", "CyclicLR", "ReduceLROnPlateau", "ChainedScheduler", "SequentialLR"]


class LRScheduler:
    """torch's base class: step() advances last_epoch and writes get_lr()'s values into the
    parameter groups. A subclass defines get_lr() from self.last_epoch, self.base_lrs and the
    groups' current lrs (self.optimizer.param_groups)."""

    def __init__(self, optimizer, last_epoch=-1, verbose=False):
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(f"param 'initial_lr' is not specified in param_groups[{i}] when resuming an "
                                   "optimizer")
        self.optimizer = optimizer
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self.verbose = verbose
        self._initial_step()

    def _initial_step(self):
        self._step_count = 0
        self.step()

    def get_lr(self):
        raise NotImplementedError(f"{type(self).__name__}: a scheduler subclass defines get_lr()")

    def get_last_lr(self):
        return self._last_lr

    def step(self, epoch=None):
        self._step_count += 1
        if epoch is None:
            self.last_epoch += 1
            values = self.get_lr()
        else:
            self.last_epoch = epoch
            closed = getattr(self, "_get_closed_form_lr", None)
            values = closed() if closed is not None else self.get_lr()
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def state_dict(self):
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)


_LRScheduler = LRScheduler  # torch 1.x's name


def _lr_proxy(lr):
    """A library SGD optimizer over one scalar, holding lr for a Python optimizer's group."""
    from .. import zeros
    from .._tensor import _handle

    o = _C.ct_optimizer_options()
    _C.ct_optimizer_options_default(_C.CT_OPTIMIZER_SGD, o)
    o.lr = float(lr)
    scalar = zeros(1)  # the library optimizer retains it
    return _C.ct_optimizer_create([_handle(scalar)], o)


class _LibraryScheduler(LRScheduler):
    """A library schedule (ct_lr_scheduler) per parameter group of the optimizer (which it keeps
    alive), each setting its group's lr from that group's own base lr, as torch's schedulers do."""

    _kind = None

    def __init__(self, optimizer, last_epoch=-1, milestones=(), **settings):
        if last_epoch != -1:
            raise NotImplementedError(f"{type(self).__name__}: ctorch's library schedulers start fresh "
                                      "(last_epoch=-1)")
        o = _C.ct_lr_scheduler_options()
        _C.ct_lr_scheduler_options_default(self._kind, o)
        for key, value in settings.items():
            setattr(o, key, value)
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            group.setdefault("initial_lr", group["lr"])
        # torch's base lr is the group's initial_lr (the first scheduler's); step 0 applies to the
        # current lr
        self.base_lrs = [g["initial_lr"] for g in optimizer.param_groups]
        self._handles = []
        # A group of a Python optimizer (a dict) has no library optimizer: the schedule runs over a
        # one-element library optimizer that holds only the group's lr, copied in before each step
        # and back out after it (so another scheduler's or the user's change to the lr chains).
        self._proxies = []
        for g, base in zip(optimizer.param_groups, self.base_lrs):
            o.base_lr = float(base)
            target = getattr(g, "_h", None)
            if target is None:
                target = _lr_proxy(g["lr"])
                self._proxies.append((g, target))
            self._handles.append(_C.ct_py_lr_scheduler_create(target, o, [int(m) for m in milestones]))
        self._copy_out()

    def _copy_in(self):
        for group, proxy in self._proxies:
            _C.ct_optimizer_set_lr(proxy, float(group["lr"]))

    def _copy_out(self):
        for group, proxy in self._proxies:
            group["lr"] = _C.ct_optimizer_get_lr(proxy)

    def __del__(self):
        for h in getattr(self, "_handles", ()):
            _C.ct_lr_scheduler_release(h)
        for _, proxy in getattr(self, "_proxies", ()):
            _C.ct_optimizer_release(proxy)
        self._handles = []
        self._proxies = []

    __copy__, __deepcopy__, __reduce_ex__ = refuse_copies(
        None, "create a new scheduler over the copied optimizer")

    def step(self, epoch=None):
        if epoch == 0:  # a restart from the base lrs, as SequentialLR asks at a milestone
            self._initial_step()
            return
        if epoch is not None:
            raise NotImplementedError(f"{type(self).__name__}.step(epoch): ctorch's library schedulers step one "
                                      "epoch at a time, or restart with step(0) (torch deprecates passing epoch)")
        self._copy_in()
        for h in self._handles:
            _C.ct_lr_scheduler_step(h)
        self._copy_out()

    def _initial_step(self):
        self._copy_in()
        for h in self._handles:
            _C.ct_lr_scheduler_restart(h)
        self._copy_out()

    def get_last_lr(self):
        return [_C.ct_lr_scheduler_get_last_lr(h) for h in self._handles]

    @property
    def last_epoch(self):
        return _C.ct_lr_scheduler_get_last_epoch(self._handles[0])

    def state_dict(self):
        raise NotImplementedError(f"{type(self).__name__}.state_dict: a library schedule's position is not "
                                  "saved yet; create it again and step it to the epoch")

    load_state_dict = state_dict


class StepLR(_LibraryScheduler):
    """torch.optim.lr_scheduler.StepLR(optimizer, step_size, gamma=0.1)."""

    _kind = _C.CT_LR_SCHEDULER_STEP

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1, verbose=False):
        super().__init__(optimizer, last_epoch, step_size=int(step_size), gamma=float(gamma))


class MultiStepLR(_LibraryScheduler):
    """torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones, gamma=0.1): gamma once more at
    each milestone (twice for a milestone listed twice)."""

    _kind = _C.CT_LR_SCHEDULER_MULTISTEP

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1, verbose=False):
        self.milestones = sorted(int(m) for m in milestones)
        super().__init__(optimizer, last_epoch, milestones=self.milestones, gamma=float(gamma))


class ExponentialLR(_LibraryScheduler):
    """torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma)."""

    _kind = _C.CT_LR_SCHEDULER_EXPONENTIAL

    def __init__(self, optimizer, gamma, last_epoch=-1, verbose=False):
        super().__init__(optimizer, last_epoch, gamma=float(gamma))


class CosineAnnealingLR(_LibraryScheduler):
    """torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max, eta_min=0)."""

    _kind = _C.CT_LR_SCHEDULER_COSINE

    def __init__(self, optimizer, T_max, eta_min=0, last_epoch=-1, verbose=False):
        super().__init__(optimizer, last_epoch, t_max=int(T_max), eta_min=float(eta_min))


class CosineAnnealingWarmRestarts(_LibraryScheduler):
    """torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(optimizer, T_0, T_mult=1, eta_min=0)."""

    _kind = _C.CT_LR_SCHEDULER_COSINE_WARM_RESTARTS

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0, last_epoch=-1, verbose=False):
        if not isinstance(T_0, int) or T_0 <= 0:
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if not isinstance(T_mult, int) or T_mult < 1:
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        super().__init__(optimizer, last_epoch, t_0=T_0, t_mult=T_mult, eta_min=float(eta_min))


class LinearLR(_LibraryScheduler):
    """torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=1/3, end_factor=1.0, total_iters=5)."""

    _kind = _C.CT_LR_SCHEDULER_LINEAR

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1, verbose=False):
        super().__init__(optimizer, last_epoch, start_factor=float(start_factor), end_factor=float(end_factor),
                         total_iters=int(total_iters))


class ConstantLR(_LibraryScheduler):
    """torch.optim.lr_scheduler.ConstantLR(optimizer, factor=1/3, total_iters=5)."""

    _kind = _C.CT_LR_SCHEDULER_CONSTANT

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1, verbose=False):
        super().__init__(optimizer, last_epoch, factor=float(factor), total_iters=int(total_iters))


class PolynomialLR(_LibraryScheduler):
    """torch.optim.lr_scheduler.PolynomialLR(optimizer, total_iters=5, power=1.0)."""

    _kind = _C.CT_LR_SCHEDULER_POLYNOMIAL

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1, verbose=False):
        super().__init__(optimizer, last_epoch, total_iters=int(total_iters), power=float(power))


def _per_group(value, optimizer, what):
    if isinstance(value, (list, tuple)):
        if len(value) != len(optimizer.param_groups):
            raise ValueError(f"Expected {len(optimizer.param_groups)} {what}s, but got {len(value)}")
        return list(value)
    return [value] * len(optimizer.param_groups)


class LambdaLR(LRScheduler):
    """lr = base_lr * lr_lambda(epoch), one function or one per group."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1, verbose=False):
        self.optimizer = optimizer
        self.lr_lambdas = _per_group(lr_lambda, optimizer, "lr_lambda")
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        return [base_lr * lmbda(self.last_epoch) for lmbda, base_lr in zip(self.lr_lambdas, self.base_lrs)]

    def state_dict(self):
        """As torch: the functions stay out; a callable object's own attributes go in."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [None if isinstance(f, _types.FunctionType) else dict(f.__dict__)
                               for f in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict):
        state = dict(state_dict)
        lambdas = state.pop("lr_lambdas")
        self.__dict__.update(state)
        for fn, fn_state in zip(self.lr_lambdas, lambdas):
            if fn_state is not None:
                fn.__dict__.update(fn_state)


class MultiplicativeLR(LambdaLR):
    """lr *= lr_lambda(epoch) at each step after the first."""

    def get_lr(self):
        if self.last_epoch > 0:
            return [group["lr"] * lmbda(self.last_epoch)
                    for lmbda, group in zip(self.lr_lambdas, self.optimizer.param_groups)]
        return [group["lr"] for group in self.optimizer.param_groups]


class OneCycleLR(LRScheduler):
    """torch's 1cycle policy: the lr rises from max_lr / div_factor to max_lr over pct_start of
    total_steps, then anneals to initial_lr / final_div_factor (three_phase: back down to the
    initial lr first); with cycle_momentum the momentum (or Adam's beta1) moves the other way,
    between max_momentum and base_momentum."""

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None, pct_start=0.3,
                 anneal_strategy="cos", cycle_momentum=True, base_momentum=0.85, max_momentum=0.95,
                 div_factor=25.0, final_div_factor=1e4, three_phase=False, last_epoch=-1, verbose=False):
        if total_steps is None and (epochs is None or steps_per_epoch is None):
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        if total_steps is not None:
            if total_steps <= 0 or not isinstance(total_steps, int):
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            self.total_steps = total_steps
        else:
            if epochs <= 0 or not isinstance(epochs, int):
                raise ValueError(f"Expected positive integer epochs, but got {epochs}")
            if steps_per_epoch <= 0 or not isinstance(steps_per_epoch, int):
                raise ValueError(f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}")
            self.total_steps = epochs * steps_per_epoch
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must by one of 'cos' or 'linear', instead got {anneal_strategy}")
        self.optimizer = optimizer
        if three_phase:
            self._schedule_phases = [
                {"end_step": float(pct_start * self.total_steps) - 1, "start_lr": "initial_lr", "end_lr": "max_lr",
                 "start_momentum": "max_momentum", "end_momentum": "base_momentum"},
                {"end_step": float(2 * pct_start * self.total_steps) - 2, "start_lr": "max_lr",
                 "end_lr": "initial_lr", "start_momentum": "base_momentum", "end_momentum": "max_momentum"},
                {"end_step": self.total_steps - 1, "start_lr": "initial_lr", "end_lr": "min_lr",
                 "start_momentum": "max_momentum", "end_momentum": "max_momentum"},
            ]
        else:
            self._schedule_phases = [
                {"end_step": float(pct_start * self.total_steps) - 1, "start_lr": "initial_lr", "end_lr": "max_lr",
                 "start_momentum": "max_momentum", "end_momentum": "base_momentum"},
                {"end_step": self.total_steps - 1, "start_lr": "max_lr", "end_lr": "min_lr",
                 "start_momentum": "base_momentum", "end_momentum": "max_momentum"},
            ]
        max_lrs = _per_group(max_lr, optimizer, "max_lr")
        if last_epoch == -1:
            for lr, group in zip(max_lrs, optimizer.param_groups):
                group["initial_lr"] = lr / div_factor
                group["max_lr"] = lr
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self._anneal_func = self._annealing_cos if anneal_strategy == "cos" else self._annealing_linear
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            keys = list(optimizer.param_groups[0].keys())
            if "momentum" not in keys and "betas" not in keys:
                raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` option enabled")
            self.use_beta1 = "betas" in keys
            max_momentums = _per_group(max_momentum, optimizer, "max_momentum")
            base_momentums = _per_group(base_momentum, optimizer, "base_momentum")
            if last_epoch == -1:
                for m_momentum, b_momentum, group in zip(max_momentums, base_momentums, optimizer.param_groups):
                    if self.use_beta1:
                        group["betas"] = (m_momentum, *group["betas"][1:])
                    else:
                        group["momentum"] = m_momentum
                    group["max_momentum"] = m_momentum
                    group["base_momentum"] = b_momentum
        super().__init__(optimizer, last_epoch, verbose)

    @staticmethod
    def _annealing_cos(start, end, pct):
        cos_out = _math.cos(_math.pi * pct) + 1
        return end + (start - end) / 2.0 * cos_out

    @staticmethod
    def _annealing_linear(start, end, pct):
        return (end - start) * pct + start

    def get_lr(self):
        lrs = []
        step_num = self.last_epoch
        if step_num > self.total_steps:
            raise ValueError(f"Tried to step {step_num} times. The specified number of total steps is "
                             f"{self.total_steps}")
        for group in self.optimizer.param_groups:
            start_step = 0
            for i, phase in enumerate(self._schedule_phases):
                end_step = phase["end_step"]
                if step_num <= end_step or i == len(self._schedule_phases) - 1:
                    pct = (step_num - start_step) / (end_step - start_step)
                    computed_lr = self._anneal_func(group[phase["start_lr"]], group[phase["end_lr"]], pct)
                    if self.cycle_momentum:
                        computed_momentum = self._anneal_func(group[phase["start_momentum"]],
                                                              group[phase["end_momentum"]], pct)
                    break
                start_step = phase["end_step"]
            lrs.append(computed_lr)
            if self.cycle_momentum:
                if self.use_beta1:
                    group["betas"] = (computed_momentum, *group["betas"][1:])
                else:
                    group["momentum"] = computed_momentum
        return lrs


class CyclicLR(LRScheduler):
    """The lr goes between base_lr and max_lr in cycles of step_size_up + step_size_down steps;
    mode 'triangular' (constant height), 'triangular2' (halved each cycle), 'exp_range' (times
    gamma^step), or a scale_fn of the cycle or the step; with cycle_momentum the momentum (or Adam's
    first beta) moves the other way between base_momentum and max_momentum."""

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None, mode="triangular",
                 gamma=1.0, scale_fn=None, scale_mode="cycle", cycle_momentum=True, base_momentum=0.8,
                 max_momentum=0.9, last_epoch=-1, verbose=False):
        base_lrs = _per_group(base_lr, optimizer, "base_lr")
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                group["lr"] = lr
        self.max_lrs = _per_group(max_lr, optimizer, "max_lr")
        step_size_up = float(step_size_up)
        step_size_down = float(step_size_down) if step_size_down is not None else step_size_up
        self.total_size = step_size_up + step_size_down
        self.step_ratio = step_size_up / self.total_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode, self.gamma = mode, gamma
        if scale_fn is None:
            self.scale_fn = {"triangular": lambda x: 1.0, "triangular2": lambda x: 1 / (2.0 ** (x - 1)),
                             "exp_range": lambda x: gamma ** x}[mode]
            self.scale_mode = "iterations" if mode == "exp_range" else "cycle"
        else:
            self.scale_fn, self.scale_mode = scale_fn, scale_mode
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` option enabled")
            self.use_beta1 = "betas" in optimizer.defaults
            base_momentums = _per_group(base_momentum, optimizer, "base_momentum")
            if last_epoch == -1:
                for momentum, group in zip(base_momentums, optimizer.param_groups):
                    if self.use_beta1:
                        group["betas"] = (momentum, *group["betas"][1:])
                    else:
                        group["momentum"] = momentum
            self.base_momentums = base_momentums
            self.max_momentums = _per_group(max_momentum, optimizer, "max_momentum")
        super().__init__(optimizer, last_epoch, verbose)
        self.base_lrs = base_lrs

    def get_lr(self):
        cycle = _math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        scale_factor = x / self.step_ratio if x <= self.step_ratio else (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        lrs = [base_lr + (max_lr - base_lr) * scale_factor * scale
               for base_lr, max_lr in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for group, base, top in zip(self.optimizer.param_groups, self.base_momentums, self.max_momentums):
                momentum = top - (top - base) * scale_factor * scale
                if self.use_beta1:
                    group["betas"] = (momentum, *group["betas"][1:])
                else:
                    group["momentum"] = momentum
        return lrs


class ReduceLROnPlateau:
    """Multiplies the lr by factor when a metric has stopped improving for patience steps
    (mode 'min' or 'max', threshold 'rel' or 'abs'), then waits cooldown steps; never below min_lr."""

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4, threshold_mode="rel",
                 cooldown=0, min_lr=0, eps=1e-8, verbose=False):
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        self.optimizer = optimizer
        self.min_lrs = [float(v) for v in _per_group(min_lr, optimizer, "min_lr")]
        self.patience = patience
        self.cooldown = cooldown
        self.cooldown_counter = 0
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode
        self.eps = eps
        self.last_epoch = 0
        self.verbose = verbose
        if mode not in ("min", "max"):
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = _math.inf if mode == "min" else -_math.inf
        self._reset()
        self._last_lr = [group["lr"] for group in optimizer.param_groups]

    def _reset(self):
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def is_better(self, a, best):
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min":
            return a < best - self.threshold
        if self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def step(self, metrics, epoch=None):
        current = float(metrics)
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        if self.is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            for i, group in enumerate(self.optimizer.param_groups):
                old_lr = float(group["lr"])
                new_lr = max(old_lr * self.factor, self.min_lrs[i])
                if old_lr - new_lr > self.eps:
                    group["lr"] = new_lr
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    @property
    def in_cooldown(self):
        return self.cooldown_counter > 0

    def get_last_lr(self):
        return self._last_lr

    def state_dict(self):
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)


class ChainedScheduler:
    """Steps several schedulers of one optimizer together, each applied to the lr the others left."""

    def __init__(self, schedulers, optimizer=None):
        self._schedulers = list(schedulers)
        self.optimizer = optimizer if optimizer is not None else self._schedulers[0].optimizer
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def step(self):
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def get_last_lr(self):
        return self._last_lr


class SequentialLR(LRScheduler):
    """Runs schedulers one after the other: schedulers[i + 1] takes over at milestones[i],
    restarting from the base lrs (a warm-up, then a decay)."""

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1, verbose=False):
        schedulers = list(schedulers)
        if len(schedulers) < 1:
            raise ValueError(f"{type(self).__name__} expects at least one scheduler, but got no scheduler.")
        for i, s in enumerate(schedulers):
            if getattr(s, "optimizer", None) is not optimizer:
                raise ValueError(f"{type(self).__name__} expects all schedulers to belong to the same optimizer, "
                                 f"but got scheduler {type(s).__name__} at index {i} has {s.optimizer}, which is "
                                 f"different from {type(optimizer).__name__}.")
        if len(milestones) != len(schedulers) - 1:
            raise ValueError("Sequential Schedulers expects number of schedulers provided to be one more than the "
                             f"number of milestone points, but got number of schedulers {len(schedulers)} and the "
                             f"number of milestones to be equal to {len(milestones)}")
        self._schedulers = schedulers
        self._milestones = list(milestones)
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in optimizer.param_groups:  # back to the initial lrs, as torch does
            group["lr"] = group["initial_lr"]
        for s in schedulers:  # "undo" each one's initial step (a library schedule restarts at its turn)
            if not isinstance(s, _LibraryScheduler):
                s.last_epoch -= 1
        schedulers[0]._initial_step()
        self._last_lr = schedulers[0].get_last_lr()

    def step(self):
        self.last_epoch += 1
        idx = _bisect.bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler.step(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()

    def state_dict(self):
        raise NotImplementedError("SequentialLR.state_dict is not supported by ctorch yet")

    load_state_dict = state_dict
