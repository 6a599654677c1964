"""ctorch.optim.lr_scheduler: StepLR, CosineAnnealingLR and LinearLR over the C library's schedulers,
which set each parameter group's lr with torch's recursive formulas (the same floats torch computes)."""

from .. import _C
from .._errors import refuse_copies

__all__ = ["LRScheduler", "StepLR", "CosineAnnealingLR", "LinearLR"]


class LRScheduler:
    """The common part: one ct_lr_scheduler per parameter group of the optimizer (which it keeps
    alive), each setting its group's lr from that group's own base lr, as torch's schedulers do."""

    _kind = None

    def __init__(self, optimizer, last_epoch=-1, **settings):
        if last_epoch != -1:
            raise NotImplementedError("ctorch schedulers start fresh (last_epoch=-1)")
        o = _C.ct_lr_scheduler_options()
        _C.ct_lr_scheduler_options_default(self._kind, o)
        for key, value in settings.items():
            setattr(o, key, value)
        self.optimizer = optimizer
        self.base_lrs = [g["lr"] for g in optimizer.param_groups]
        self._handles = []
        for g in optimizer.param_groups:
            self._handles.append(_C.ct_lr_scheduler_create(g._h, o))

    def __del__(self):
        for h in getattr(self, "_handles", ()):
            _C.ct_lr_scheduler_release(h)
        self._handles = []

    __copy__, __deepcopy__, __reduce_ex__ = refuse_copies(
        None, "create a new scheduler over the copied optimizer")

    def step(self):
        for h in self._handles:
            _C.ct_lr_scheduler_step(h)

    def get_last_lr(self):
        return [_C.ct_lr_scheduler_get_last_lr(h) for h in self._handles]

    @property
    def last_epoch(self):
        return _C.ct_lr_scheduler_get_last_epoch(self._handles[0])


class StepLR(LRScheduler):
    """torch.optim.lr_scheduler.StepLR(optimizer, step_size, gamma=0.1)."""

    _kind = _C.CT_LR_SCHEDULER_STEP

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1, verbose=False):
        super().__init__(optimizer, last_epoch, step_size=int(step_size), gamma=float(gamma))


class CosineAnnealingLR(LRScheduler):
    """torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max, eta_min=0)."""

    _kind = _C.CT_LR_SCHEDULER_COSINE

    def __init__(self, optimizer, T_max, eta_min=0, last_epoch=-1, verbose=False):
        super().__init__(optimizer, last_epoch, t_max=int(T_max), eta_min=float(eta_min))


class LinearLR(LRScheduler):
    """torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=1/3, end_factor=1.0, total_iters=5)."""

    _kind = _C.CT_LR_SCHEDULER_LINEAR

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1, verbose=False):
        super().__init__(optimizer, last_epoch, start_factor=float(start_factor), end_factor=float(end_factor),
                         total_iters=int(total_iters))
