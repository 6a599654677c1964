"""ctorch.nn.parallel: DataParallel over the one device a ctorch process computes on, and
DistributedDataParallel over the ranks of a process group (ctorch.distributed)."""

from ..modules.module import Module
from .distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel"]


class DataParallel(Module):
    """DataParallel(module, device_ids=None, output_device=None, dim=0): runs module on its inputs.
    With one device (a cpu process, or one CUDA device) torch's DataParallel does exactly that;
    several CUDA device_ids raise, as replicating over GPUs is not implemented."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        if device_ids is not None and len(list(device_ids)) > 1:
            raise NotImplementedError("ctorch.nn.DataParallel: replicating a module over several devices is not "
                                      "implemented; pass one device (or none)")
        self.module = module
        self.dim = dim
        self.device_ids = list(device_ids) if device_ids is not None else []
        self.output_device = output_device

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)
